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
//! 4. [`summary`]: the figures, `judged.json` and the table.

pub mod ask;
pub mod flows;
pub mod input;
pub mod labels;
pub mod ledger;
pub mod prompts;
pub mod summary;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::{Context, bail};
use tokio::task::JoinSet;

use crate::build::chat::load_model;
use crate::models::ChatModel;
use crate::models::batch::{BatchResults, BatchSink, Transport};
use crate::models::cache::CacheSetting;
use crate::models::config::Backend;
use crate::ood::stabletoolbench_results::AnswerStatus;
use crate::ood::toolalpaca_eval::Verdict;
use crate::run::BatchMode;
use crate::score::files::OutputFormat;
use crate::util::lock::FolderLock;
use crate::util::runtime::{Threads, block_on};
use ask::{About, Judge};
use flows::{Answer, FlowSettings, Tally, Vote};
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
    /// Requests sent, or written to batch files, or answered from batch
    /// results (both continue the folder as `resume` does).
    pub batch: BatchMode,
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
    let specs = options
        .judges
        .iter()
        .map(|name| load_model(&options.config, name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let reference = match &options.reference {
        Some(dir) => Some(Arc::new(RunInput::read(dir)?)),
        None => None,
    };
    let transport = transport_of(options, &specs)?;
    let resume = options.resume || !matches!(options.batch, BatchMode::Off);
    let mut all = Vec::new();
    for run_dir in &options.run_dirs {
        let folder = options
            .out
            .clone()
            .unwrap_or_else(|| run_dir.join("judged").join(options.metric.as_str()));
        let _lock = FolderLock::acquire(&folder, err)?;
        let candidate = Arc::new(RunInput::read(run_dir)?);
        let settings = settings_of(options, &specs);
        let resumed = ledger::claim_settings(&folder, &settings, resume)?;
        let ledger = Arc::new(Ledger::open(&folder)?);
        if resumed || ledger.torn_bytes > 0 {
            writeln!(
                err,
                "resuming {}: {} judgment(s) kept, {} torn byte(s) cut, {} bad line(s) dropped",
                folder.display(),
                ledger.recorded(),
                ledger.torn_bytes,
                ledger.bad_lines
            )?;
        }
        let cache = options
            .cache
            .dir(|| folder.parent().unwrap_or(Path::new(".")).join("cache"));
        let judges = specs
            .iter()
            .map(|spec| {
                Ok(Arc::new(Judge {
                    model: ChatModel::with_transport(spec, cache.as_deref(), transport.clone())?,
                    model_id: spec
                        .config
                        .model_id
                        .clone()
                        .unwrap_or_else(|| spec.config.name.clone()),
                    ledger: Arc::clone(&ledger),
                    sent: Default::default(),
                    reused: Default::default(),
                }))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let job = Job {
            metric: options.metric,
            settings: settings.clone(),
            candidate,
            reference: reference.clone(),
        };
        let (models, failures) = block_on(Threads::PerCore, judge_all(job, judges.clone()))??;
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
            write_batch(options, sink, failures.len(), err)?;
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
        let judged = finish(options, run_dir, &folder, settings, models, &judges)?;
        match options.format {
            OutputFormat::Json => writeln!(out, "{}", serde_json::to_string(&judged)?)?,
            OutputFormat::Table => write!(out, "{}", summary::table(options.metric, &judged))?,
        }
        all.push(judged);
    }
    Ok(all)
}

/// How the judges' requests travel, from `--emit-batch` / `--import-batch`.
fn transport_of(
    options: &JudgeOptions,
    specs: &[crate::models::ModelSpec],
) -> anyhow::Result<Transport> {
    Ok(match &options.batch {
        BatchMode::Off => Transport::Send,
        BatchMode::Emit(_) => {
            if let Some(gemini) = specs.iter().find(|s| s.config.backend == Backend::Gemini) {
                bail!(
                    "--emit-batch: judge `{}` is a Gemini model; batch files are written for OpenAI-compatible and Anthropic models",
                    gemini.config.name
                );
            }
            if options.run_dirs.len() > 1 {
                bail!("--emit-batch: give one run directory");
            }
            Transport::Emit(Arc::new(BatchSink::default()))
        }
        BatchMode::Import(files) => Transport::Import(Arc::new(BatchResults::load(files)?)),
    })
}

/// `--emit-batch DIR`: writes the requests the session could not answer
/// from the folder or the cache (each flow stops at its first such request).
fn write_batch(
    options: &JudgeOptions,
    sink: &BatchSink,
    waiting: usize,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let BatchMode::Emit(dir) = &options.batch else {
        return Ok(());
    };
    let _lock = FolderLock::acquire(dir, err)?;
    let files = sink.write(dir)?;
    if files.is_empty() {
        writeln!(
            err,
            "--emit-batch: every judge request is answered by the folder or the cache; nothing to send: run without it for the figures"
        )?;
    }
    for (path, count) in files {
        writeln!(err, "wrote {count} request(s) to {}", path.display())?;
    }
    if waiting > 0 {
        writeln!(
            err,
            "{waiting} task(s) wait for these answers: import them with --import-batch, then emit again until nothing is left to send"
        )?;
    }
    Ok(())
}

fn settings_of(options: &JudgeOptions, specs: &[crate::models::ModelSpec]) -> Settings {
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
    }
}

/// Computes the figures, writes `judged.json`.
fn finish(
    options: &JudgeOptions,
    run_dir: &Path,
    folder: &Path,
    settings: Settings,
    mut models: Vec<ModelFigures>,
    judges: &[Arc<Judge>],
) -> anyhow::Result<Judged> {
    let judgments = ledger::read_all(folder)?;
    for f in &mut models {
        summary::add_costs(f, &judgments);
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
    let _ = options;
    Ok(judged)
}

/// What every task's flow shares.
#[derive(Clone)]
struct Job {
    metric: Metric,
    settings: Settings,
    candidate: Arc<RunInput>,
    reference: Option<Arc<RunInput>>,
}

/// Every judge on every model's every task, at the judges' concurrency.
async fn judge_all(
    job: Job,
    judges: Vec<Arc<Judge>>,
) -> anyhow::Result<(Vec<ModelFigures>, Vec<anyhow::Error>)> {
    let reference_model = match &job.reference {
        Some(r) => Some(
            r.models
                .first()
                .cloned()
                .with_context(|| format!("{}: the reference run has no model", r.dir.display()))?,
        ),
        None => None,
    };
    let mut figures = Vec::new();
    let mut failures = Vec::new();
    for judge in &judges {
        for model in &job.candidate.models {
            let mut workers = JoinSet::new();
            for index in 0..job.candidate.tasks.len() {
                // SoPR scores only the tasks marked solvable.
                if job.metric == Metric::Sopr
                    && job
                        .candidate
                        .unsolvable
                        .contains(&job.candidate.tasks[index].id)
                {
                    continue;
                }
                let (job, judge, model) = (job.clone(), Arc::clone(judge), model.clone());
                let reference_model = reference_model.clone();
                workers.spawn(async move {
                    let r =
                        task_flow(&job, &judge, &model, reference_model.as_deref(), index).await;
                    (index, r)
                });
            }
            let mut outcomes = vec![None; job.candidate.tasks.len()];
            let mut unreadable = 0;
            while let Some(joined) = workers.join_next().await {
                match joined {
                    Ok((index, Ok((outcome, tally)))) => {
                        outcomes[index] = Some(outcome);
                        unreadable += tally.unreadable;
                    }
                    Ok((_, Err(e))) => failures.push(e),
                    Err(e) => failures.push(anyhow::anyhow!("a task's worker stopped: {e}")),
                }
            }
            let outcomes: Vec<TaskOutcome> = outcomes.into_iter().flatten().collect();
            let mut f = summary::figures(job.metric, model, &outcomes, unreadable);
            f.judge = judge.name().to_string();
            f.judge_model = judge.model_id.clone();
            figures.push(f);
        }
    }
    Ok((figures, failures))
}

/// The requests of one task for one judge and model.
async fn task_flow(
    job: &Job,
    judge: &Judge,
    model: &str,
    reference_model: Option<&str>,
    index: usize,
) -> anyhow::Result<(TaskOutcome, Tally)> {
    let task = &job.candidate.tasks[index];
    let answer = Answer::new(task, job.candidate.prediction(model, &task.id));
    let flow = FlowSettings {
        seed: job.settings.seed,
    };
    let mut tally = Tally::default();
    // Samples are independent: one whose request failed (or was written to
    // a batch file) does not stop the others.
    let mut failed: Option<anyhow::Error> = None;
    let about = |sample| About {
        task: &task.id,
        model,
        side: None,
        sample,
        stage: labels::Stage::AnswerStatus,
    };
    let outcome = match job.metric {
        Metric::PassRate => {
            let (mut passes, mut fails) = (0, 0);
            for k in 1..=job.settings.samples {
                match flows::pass_sample(judge, &about(k), &answer, flow, &mut tally).await {
                    Ok(s) if s.passed => passes += 1,
                    Ok(_) => fails += 1,
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Pass { passes, fails }
        }
        Metric::Sopr => {
            let mut runs = Vec::new();
            for k in 1..=job.settings.runs {
                match flows::answer_status(judge, &about(k), &answer, &mut tally).await {
                    Ok(status) => runs.push(status),
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Sopr(runs)
        }
        Metric::WinRate => {
            let reference = job.reference.as_ref().expect("win rate has a reference");
            let theirs = reference
                .tasks
                .iter()
                .find(|t| t.id == task.id)
                .unwrap_or(task);
            let other = Answer::new(
                theirs,
                reference_model.and_then(|m| reference.prediction(m, &task.id)),
            );
            let (mut candidate, mut refr) = (0, 0);
            for k in 1..=job.settings.rounds {
                match flows::win_round(judge, &about(k), [&answer, &other], flow, &mut tally).await
                {
                    Ok(Vote::Candidate) => candidate += 1,
                    Ok(Vote::Reference) => refr += 1,
                    Ok(Vote::Neither) => {}
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Win {
                candidate,
                reference: refr,
            }
        }
        Metric::Toolalpaca => {
            TaskOutcome::Toolalpaca(flows::toolalpaca(judge, &about(1), &answer, &mut tally).await?)
        }
    };
    match failed {
        Some(e) => Err(e),
        None => Ok((outcome, tally)),
    }
}
