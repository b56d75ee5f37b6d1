//! `itc judge`: judged task success (SPEC §8). Judge models read the final
//! answers of a run directory and give pass rate (ToolEval), SoPR
//! (StableToolBench), win rate against a reference run (ToolEval, SoWR) or
//! ToolAlpaca's process and response correctness.
//!
//! The steps, one file each:
//! 1. [`input`]: read the run directory (tasks, models, predictions);
//! 2. [`ledger`]: claim the output folder (one writer, one set of settings)
//!    and read the judgments recorded by earlier sessions;
//! 3. [`flows`]: per task, the requests of the metric, each asked by
//!    [`ask`] (ledger first, then the cached model; prompts in [`prompts`],
//!    labels read by [`labels`]), with seeded coins;
//! 4. [`tasks`]: every judge on every model's every task, concurrently;
//! 5. [`summary`]: the figures, `judged.json` and the table.
//!
//! [`batch`] sends the requests through a batch engine instead.

pub mod ask;
pub mod batch;
pub mod flows;
pub mod input;
pub mod labels;
pub mod ledger;
pub mod prompts;
pub mod summary;
pub mod tasks;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::{Context, bail};

use crate::benchmarks::stabletoolbench::results::AnswerStatus;
use crate::benchmarks::toolalpaca::eval::Verdict;
use crate::build::chat::load_model;
use crate::models::batch::Transport;
use crate::models::cache::CacheSetting;
use crate::models::exchange::SlotPools;
use crate::models::server_probe::share_slots;
use crate::models::{ChatModel, ModelSpec};
use crate::run::BatchMode;
use crate::score::files::OutputFormat;
use crate::spec::records::repeated_ids_note;
use crate::util::lock::FolderLock;
use crate::util::runtime::{Threads, block_on};
use ask::Judge;
use input::RunInput;
use ledger::{JudgeSettings, Ledger, Settings};
use summary::{Judged, ModelFigures};

/// Pass-rate samples per task when `--samples` is not given (SPEC §8).
pub const DEFAULT_SAMPLES: u32 = 4;
/// SoPR judge runs when `--runs` is not given (SPEC §8).
pub const DEFAULT_RUNS: u32 = 3;
/// Win-rate rounds when `--rounds` is not given (SPEC §8).
pub const DEFAULT_ROUNDS: u32 = 3;
/// The coin seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 0;
/// The most judges one session may use.
pub const MAX_JUDGES: usize = 2;
/// The figures file of a judged folder.
pub const JUDGED_FILE: &str = "judged.json";
/// Most bytes of a judge's reply read when `--max-judge-reply-bytes` is not
/// given: the limit on what is read of a model's answer
/// ([`crate::spec::limits::MAX_ANSWER_BYTES`]). A longer reply is not read
/// beyond it and counts as unreadable (then asked again).
pub const DEFAULT_MAX_REPLY_BYTES: u64 = crate::spec::limits::MAX_ANSWER_BYTES as u64;
/// Most characters of each text from the run (a final answer, the whole run)
/// a judge is shown when `--max-shown-chars` is not given; the request says
/// how many more there were.
pub const DEFAULT_MAX_SHOWN_CHARS: usize = 100_000;

/// What the judges measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// ToolEval's pass rate.
    PassRate,
    /// StableToolBench's solvable pass rate.
    Sopr,
    /// ToolEval's win rate (StableToolBench's SoWR) against a reference run.
    WinRate,
    /// ToolAlpaca's process and response correctness.
    Toolalpaca,
}

impl Metric {
    /// The name on the command line and in folder names.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::PassRate => "pass-rate",
            Metric::Sopr => "sopr",
            Metric::WinRate => "win-rate",
            Metric::Toolalpaca => "toolalpaca",
        }
    }
}

/// What `itc judge` does.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    /// The run directories judged (the candidates, for win rate).
    pub run_dirs: Vec<PathBuf>,
    /// The metric.
    pub metric: Metric,
    /// The judges' names in the configuration (one or two).
    pub judges: Vec<String>,
    /// The model configuration file.
    pub config: PathBuf,
    /// The reference run directory (win rate).
    pub reference: Option<PathBuf>,
    /// Pass-rate samples per task.
    pub samples: u32,
    /// SoPR judge runs.
    pub runs: u32,
    /// Win-rate rounds.
    pub rounds: u32,
    /// The coin seed.
    pub seed: u64,
    /// The output folder (default `<RUN_DIR>/judged/<metric>`; one run dir only).
    pub out: Option<PathBuf>,
    /// Continue a folder that already holds judgments.
    pub resume: bool,
    /// The response cache (default `cache/` beside the output folder).
    pub cache: CacheSetting,
    /// Table or JSON on stdout.
    pub format: OutputFormat,
    /// Pass rate as the official ToolEval computes it: tasks without a
    /// prediction left out of the denominator (and counted), not failed.
    pub official_pass_rate: bool,
    /// Requests sent, or written to batch files, or answered from batch
    /// results (both continue the folder as `resume` does).
    pub batch: BatchMode,
    /// Most bytes of a judge's reply read (`--max-judge-reply-bytes`).
    pub max_reply_bytes: u64,
    /// Most characters of each text from the run shown to a judge
    /// (`--max-shown-chars`).
    pub max_shown_chars: usize,
    /// Draw a progress bar on stderr (only when it is a terminal).
    pub show_progress: bool,
}

/// How one task came out for one judge and model.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// Pass rate: passing and failing samples.
    Pass {
        /// Samples that passed.
        passes: u32,
        /// Samples that failed.
        fails: u32,
        /// The task has a prediction (the official ToolEval leaves out
        /// those that have none).
        predicted: bool,
    },
    /// SoPR: the answer status of each run (`None`: unreadable).
    Sopr(Vec<Option<AnswerStatus>>),
    /// Win rate: the votes over the rounds.
    Win {
        /// Votes for the candidate.
        candidate: u32,
        /// Votes for the reference.
        reference: u32,
    },
    /// ToolAlpaca's verdict.
    Toolalpaca(Verdict),
}

fn check(options: &JudgeOptions) -> anyhow::Result<()> {
    if options.run_dirs.is_empty() {
        bail!("give at least one run directory");
    }
    if options.judges.is_empty() || options.judges.len() > MAX_JUDGES {
        bail!("give one or two judges (--judge NAME, at most twice)");
    }
    if options.judges.len() == 2 && options.judges[0] == options.judges[1] {
        bail!("the two judges are the same model `{}`", options.judges[0]);
    }
    if (options.metric == Metric::WinRate) != options.reference.is_some() {
        bail!("--reference RUN_DIR is needed by --metric win-rate, and only by it");
    }
    if options.out.is_some() && options.run_dirs.len() > 1 {
        bail!("-o names one folder: judge one run directory at a time with it");
    }
    if options.samples == 0 || options.runs == 0 || options.rounds == 0 {
        bail!("--samples, --runs and --rounds must be at least 1");
    }
    if options.max_reply_bytes == 0 || options.max_shown_chars == 0 {
        bail!("--max-judge-reply-bytes and --max-shown-chars must be at least 1");
    }
    Ok(())
}

/// Runs `itc judge`: judges every run directory, writes each folder's
/// files and prints its table (or JSON). Returns the figures.
pub fn run(
    options: &JudgeOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<Judged>> {
    check(options)?;
    let mut specs = options
        .judges
        .iter()
        .map(|name| load_model(&options.config, name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let reference = match &options.reference {
        Some(dir) => Some(Arc::new(RunInput::read(dir)?)),
        None => None,
    };
    let transport = batch::transport_of(options, &specs)?;
    if matches!(transport, Transport::Send) {
        share_slots(&mut specs, err)?;
    }
    let resume = options.resume || !matches!(options.batch, BatchMode::Off);
    let mut all = Vec::new();
    for run_dir in &options.run_dirs {
        let folder = options
            .out
            .clone()
            .unwrap_or_else(|| run_dir.join("judged").join(options.metric.as_str()));
        let candidate = Arc::new(RunInput::read(run_dir)?);
        let _lock = FolderLock::acquire(&folder, err)?;
        if !candidate.repeated_ids.is_empty() {
            let source = run_dir.join("tasks.jsonl").display().to_string();
            writeln!(
                err,
                "{}",
                repeated_ids_note(&source, &candidate.repeated_ids)
            )?;
        }
        let settings = settings_of(options, &specs);
        let ledger = open_folder(&folder, &settings, resume, err)?;
        let cache = options
            .cache
            .dir(|| folder.parent().unwrap_or(Path::new(".")).join("cache"));
        let judges = judges_of(&specs, cache.as_deref(), &transport, &ledger, options)?;
        let job = tasks::Job {
            metric: options.metric,
            settings: settings.clone(),
            candidate,
            reference: reference.clone(),
        };
        let (models, failures) = block_on(
            Threads::PerCore,
            tasks::judge_all(job, judges.clone(), options.show_progress),
        )??;
        let sent: u64 = judges.iter().map(|j| j.sent.load(Ordering::Relaxed)).sum();
        let reused: u64 = judges
            .iter()
            .map(|j| j.reused.load(Ordering::Relaxed))
            .sum();
        writeln!(
            err,
            "{}: {sent} judge request(s) sent, {reused} judgment(s) reused from {}",
            run_dir.display(),
            ledger::JUDGMENTS_FILE
        )?;
        if let Transport::Emit(sink) = &transport {
            batch::write_batch(options, sink, failures.len(), err)?;
            continue;
        }
        if let Transport::Import(results) = &transport {
            crate::run::batch::import_warnings(results, err)?;
        }
        if !failures.is_empty() {
            for f in failures.iter().take(5) {
                writeln!(err, "error: {f:#}")?;
            }
            bail!(
                "{} task(s) could not be judged (a judge request failed after its retries); the judgments made are kept in {}: run again with --resume to ask the rest",
                failures.len(),
                folder.display()
            );
        }
        let judged = finish(run_dir, &folder, settings, models, &ledger, &judges)?;
        match options.format {
            OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(&judged)?)?,
            OutputFormat::Table => write!(
                out,
                "{}",
                summary::table(options.metric, &judged, options.official_pass_rate)
            )?,
        }
        all.push(judged);
    }
    Ok(all)
}

/// Claims the output folder's settings and opens its judgments.
fn open_folder(
    folder: &Path,
    settings: &Settings,
    resume: bool,
    err: &mut dyn Write,
) -> anyhow::Result<Arc<Ledger>> {
    let resumed = ledger::claim_settings(folder, settings, resume)?;
    let ledger = Arc::new(Ledger::open(folder)?);
    if resumed || ledger.torn_bytes > 0 {
        writeln!(
            err,
            "resuming {}: {} judgment(s) kept, {} torn byte(s) cut, {} bad line(s) dropped, {} repeated line(s) passed over",
            folder.display(),
            ledger.recorded(),
            ledger.torn_bytes,
            ledger.bad_lines,
            ledger.repeated_lines
        )?;
    }
    Ok(ledger)
}

/// The judges of a folder: each model through the cache and `transport`.
fn judges_of(
    specs: &[ModelSpec],
    cache: Option<&Path>,
    transport: &Transport,
    ledger: &Arc<Ledger>,
    options: &JudgeOptions,
) -> anyhow::Result<Vec<Arc<Judge>>> {
    let mut pools = SlotPools::default();
    specs
        .iter()
        .map(|spec| {
            Ok(Arc::new(Judge {
                model: ChatModel::capped(
                    spec,
                    cache,
                    transport.clone(),
                    Some(options.max_reply_bytes),
                    &mut pools,
                )?,
                max_reply_bytes: options.max_reply_bytes,
                max_shown_chars: options.max_shown_chars,
                model_id: spec
                    .config
                    .model_id
                    .clone()
                    .unwrap_or_else(|| spec.config.name.clone()),
                ledger: Arc::clone(ledger),
                sent: Default::default(),
                reused: Default::default(),
            }))
        })
        .collect()
}

fn settings_of(options: &JudgeOptions, specs: &[ModelSpec]) -> Settings {
    Settings {
        metric: options.metric,
        judges: specs
            .iter()
            .map(|s| JudgeSettings {
                name: s.config.name.clone(),
                model_id: s
                    .config
                    .model_id
                    .clone()
                    .unwrap_or_else(|| s.config.name.clone()),
                backend: s.config.backend.as_str().to_string(),
                base_url: s.config.base_url.clone(),
                temperature: s.config.temperature,
                max_tokens: s.config.max_tokens,
            })
            .collect(),
        samples: options.samples,
        runs: options.runs,
        rounds: options.rounds,
        seed: options.seed,
        reference: options.reference.as_ref().map(|r| r.display().to_string()),
        prompt_sha256: prompts::template_hashes(),
        max_shown_chars: options.max_shown_chars,
        max_reply_bytes: options.max_reply_bytes,
    }
}

/// Computes the figures (the tokens and costs of the judgments this
/// session used, each once), writes `judged.json`.
fn finish(
    run_dir: &Path,
    folder: &Path,
    settings: Settings,
    mut models: Vec<ModelFigures>,
    ledger: &Ledger,
    judges: &[Arc<Judge>],
) -> anyhow::Result<Judged> {
    let judgments = ledger.used();
    for f in &mut models {
        summary::add_costs(f, &judgments);
        f.priced = judges
            .iter()
            .any(|j| j.name() == f.judge && j.model.config().priced());
    }
    let (kappa, kappa_pairs) = match judges {
        [a, b] => summary::kappa(&judgments, a.name(), b.name()),
        _ => (None, 0),
    };
    let judged = Judged {
        run_dir: run_dir.display().to_string(),
        settings,
        models,
        kappa,
        kappa_pairs,
    };
    let path = folder.join(JUDGED_FILE);
    let text = serde_json::to_string_pretty(&judged)? + "\n";
    crate::util::atomic::write(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(judged)
}
