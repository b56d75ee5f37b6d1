//! `itc eval`: run models on tasks into a run directory, then score the
//! predictions there with the same functions as `itc score`.
//!
//! A run directory holds `tasks.jsonl` (the tasks selected), `models.json`
//! (the model configurations; key variable names only, never keys),
//! `predictions.jsonl`, `run.json` (the run figures) and the files
//! `itc score --out` writes.
//!
//! An OOD benchmark (`itc eval --dataset`) brings its own tasks and official
//! scorer through the [`Benchmark`] trait, which `crate::ood` implements.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, bail};

use std::sync::Arc;

use super::resume::{check_same_requests, merged, recorded_models};
use super::runner::{RunOptions, RunReport, predictions_path, run_shared};
use super::select::Selection;
use super::shard::{Shard, ShardRecord, record_shard, shard_tasks};
use super::stats::run_table;
use super::steps::{StepMode, StepOptions, StepRun};
use super::store::check_start;
use crate::models::batch::{BatchResults, BatchSink, Transport};
use crate::models::cache::CacheSetting;
use crate::models::config::PromptStyle;
use crate::models::config::{Backend, ConfigFile, Mode, ModelConfig};
use crate::models::exchange::ModelSpec;
use crate::models::server_probe::check_servers;
use crate::score::files::{OutputFormat, ScoreFilesOptions, ScoringOptions, score};
use crate::spec::jsonl::{read_records, write_records};
use crate::spec::records::Task;
use crate::spec::sample::sample_tasks;
use crate::spec::turns::turn_problems;
use crate::util::lock::{FolderLock, create_fresh_dir};
use crate::util::runtime::{Threads, block_on};
use crate::util::slug::{SlugStyle, slug};
use crate::util::time::timestamp;

/// Which models a run asks.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ModelSource {
    /// The offline baseline.
    #[default]
    Baseline,
    /// Models of a configuration file (TOML, `[[models]]` tables): these
    /// names, or all when empty.
    ConfigFile {
        /// The file.
        path: PathBuf,
        /// Names of the models to run; all when empty.
        names: Vec<String>,
    },
    /// One model given on the command line.
    AdHoc(AdHocModel),
}

/// A model given by flags, without a configuration file.
#[derive(Debug, Clone, PartialEq)]
pub struct AdHocModel {
    /// The API it speaks.
    pub backend: Backend,
    /// Endpoint root, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: Option<String>,
    /// Model id sent to the server.
    pub model_id: Option<String>,
    /// Name in predictions and tables (default: the model id).
    pub name: Option<String>,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
}

/// Settings that replace each model's configured ones when given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOverrides {
    /// Answer mode.
    pub mode: Option<Mode>,
    /// Answer format asked for in the prompt mode.
    pub prompt_style: Option<PromptStyle>,
    /// A minijinja template replacing `prompts/system.jinja`.
    pub system_prompt: Option<PathBuf>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Answer length limit in tokens.
    pub max_tokens: Option<u32>,
    /// Requests in flight per model.
    pub concurrency: Option<usize>,
    /// Requests per minute per model.
    pub rpm: Option<u32>,
    /// Tokens per minute per model.
    pub tpm: Option<u64>,
    /// USD per million prompt tokens.
    pub price_input: Option<f64>,
    /// USD per million completion tokens.
    pub price_output: Option<f64>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Requests per task at most, retries included.
    pub max_attempts: Option<u32>,
    /// First retry delay in milliseconds, doubling per retry.
    pub retry_base_ms: Option<u64>,
    /// Longest retry delay in milliseconds.
    pub retry_cap_ms: Option<u64>,
}

impl ModelOverrides {
    /// Replaces the model's settings with the given ones.
    pub fn apply(&self, m: &mut ModelConfig) {
        if let Some(v) = self.mode {
            m.mode = v;
        }
        if let Some(v) = self.prompt_style {
            m.prompt_style = v;
        }
        if let Some(v) = &self.system_prompt {
            m.system_prompt = Some(v.clone());
        }
        m.temperature = self.temperature.or(m.temperature);
        m.max_tokens = self.max_tokens.unwrap_or(m.max_tokens);
        m.concurrency = self.concurrency.unwrap_or(m.concurrency);
        m.requests_per_minute = self.rpm.or(m.requests_per_minute);
        m.tokens_per_minute = self.tpm.or(m.tokens_per_minute);
        m.price_input_per_mtok = self.price_input.or(m.price_input_per_mtok);
        m.price_output_per_mtok = self.price_output.or(m.price_output_per_mtok);
        m.timeout_ms = self.timeout_ms.or(m.timeout_ms);
        m.max_attempts = self.max_attempts.or(m.max_attempts);
        m.retry_base_ms = self.retry_base_ms.or(m.retry_base_ms);
        m.retry_cap_ms = self.retry_cap_ms.or(m.retry_cap_ms);
    }
}

/// Everything `itc eval` needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOptions {
    /// The models to run.
    pub models: ModelSource,
    /// Settings replacing the models' own.
    pub overrides: ModelOverrides,
    /// Task file (JSONL, SPEC §0); `None`: the sample set. Ignored when a
    /// [`Benchmark`] brings the tasks.
    pub tasks: Option<PathBuf>,
    /// The subset of the tasks to run.
    pub selection: Selection,
    /// Run directory; `None`: `runs/<model name>-<UTC timestamp>`.
    pub run_dir: Option<PathBuf>,
    /// Continue the run directory: skip finished tasks, retry errored ones.
    pub resume: bool,
    /// The response cache (default: `cache/` beside the run directory).
    pub cache: CacheSetting,
    /// Draw the progress bar (on a terminal).
    pub show_progress: bool,
    /// How the predictions are scored and shown.
    pub scoring: ScoringOptions,
    /// Whether tasks are asked once or step by step, and how.
    pub steps: StepOptions,
    /// Run only this share of the selected tasks (`itc merge` joins shards).
    pub shard: Option<Shard>,
    /// Send requests, or write them to batch files, or read batch results.
    pub batch: BatchMode,
}

/// Whether a run sends its requests or goes through a batch engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum BatchMode {
    /// Requests are sent.
    #[default]
    Off,
    /// Requests are written to batch files in this folder, not sent; no
    /// prediction is made (`--emit-batch DIR`).
    Emit(PathBuf),
    /// Requests are answered from these batch result files, not sent
    /// (`--import-batch FILE…`).
    Import(Vec<PathBuf>),
}

impl EvalOptions {
    /// The models to run: from the configuration file, the ad-hoc flags, or
    /// the baseline; overrides applied and each checked.
    pub fn model_configs(&self) -> anyhow::Result<Vec<ModelConfig>> {
        let mut models = match &self.models {
            ModelSource::ConfigFile { path, names } => {
                let origin = path.display().to_string();
                ConfigFile::load(path)?.select(names, &origin)?
            }
            ModelSource::AdHoc(m) => {
                let name = m
                    .name
                    .clone()
                    .or_else(|| m.model_id.clone())
                    .unwrap_or_else(|| m.backend.as_str().to_string());
                let mut model = ModelConfig::new(name, m.backend);
                model.base_url = m.base_url.clone();
                model.model_id = m.model_id.clone();
                model.api_key_env = m.api_key_env.clone();
                vec![model]
            }
            ModelSource::Baseline => vec![ModelConfig::new("baseline", Backend::Baseline)],
        };
        for model in &mut models {
            self.overrides.apply(model);
            model.validate(&format!("model `{}`", model.name))?;
        }
        Ok(models)
    }
}

/// Tasks that bring their own preparation and official scoring: an OOD
/// benchmark (`itc eval --dataset`, implemented in `crate::ood`).
pub trait Benchmark {
    /// How messages name the task source, e.g. `--dataset seal-tools`.
    fn label(&self) -> String;
    /// Every task of the benchmark (the run's selection comes later).
    fn tasks(&self) -> Vec<Task>;
    /// Records where the benchmark's files came from in the run directory.
    fn write_info(&self, run_dir: &Path) -> anyhow::Result<()>;
    /// The prediction file to score with SPEC §3 (benchmark-format answers
    /// read into SPEC calls).
    fn scoring_predictions(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
    ) -> anyhow::Result<PathBuf>;
    /// Scores with the benchmark's official scorer and prints the result.
    fn official(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
        format: OutputFormat,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> anyhow::Result<()>;
}

/// The default cache: `cache/` in the run directory's parent.
pub fn default_cache_dir(run_dir: &Path) -> PathBuf {
    match run_dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join("cache"),
        _ => PathBuf::from("cache"),
    }
}

/// Rejects benchmark prompt styles where they cannot work: the baseline
/// answers in the ITC format only, other formats need the prompt mode and,
/// without a [`Benchmark`], have no official scorer to read them.
pub fn check_prompt_styles(models: &[ModelConfig], with_benchmark: bool) -> anyhow::Result<()> {
    for m in models {
        let style = m.prompt_style;
        if style.is_itc() {
            continue;
        }
        let place = format!("model `{}`: prompt_style {}", m.name, style.as_str());
        if m.backend == Backend::Baseline {
            bail!("{place}: the offline baseline answers in the ITC format only");
        }
        if m.mode != Mode::Prompt {
            bail!(
                "{place}: needs mode prompt (mode {} asks for its own format)",
                m.mode
            );
        }
        if !with_benchmark {
            bail!("{place}: needs --dataset (an OOD benchmark)");
        }
    }
    Ok(())
}

/// Runs `itc eval` on a task file: run tables and scores on `out`, notes on `err`.
pub fn eval(options: &EvalOptions, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    // Every check that needs no request comes first: configuration, keys, tasks.
    let configs = options.model_configs()?;
    check_prompt_styles(&configs, false)?;
    eval_models(options, configs, None, out, err)
}

/// Runs `itc eval` with `configs` (already checked) on the tasks of
/// `benchmark`, or of the task file when `None`.
pub fn eval_models(
    options: &EvalOptions,
    configs: Vec<ModelConfig>,
    benchmark: Option<&dyn Benchmark>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = SystemTime::now();
    let specs: Vec<ModelSpec> = configs
        .into_iter()
        .map(ModelSpec::resolve)
        .collect::<anyhow::Result<_>>()?;
    let (tasks, task_label) = select_tasks(options, benchmark, err)?;
    let (tasks, shard) = prepare_tasks(options, tasks, &task_label)?;
    let run_dir = planned_run_dir(options, &specs)?;
    let offline = specs.iter().all(|s| s.config.backend == Backend::Baseline);
    let cache_dir = if offline {
        None
    } else {
        options.cache.dir(|| default_cache_dir(&run_dir))
    };
    let models_file = match &options.models {
        ModelSource::ConfigFile { path, .. } => Some(path.as_path()),
        _ => None,
    };
    let step_run = StepRun::prepare(&options.steps, models_file, cache_dir.as_deref())?;
    let transport = match &options.batch {
        BatchMode::Emit(dir) => {
            return emit_batch(dir, tasks, &specs, cache_dir, step_run, err);
        }
        BatchMode::Import(files) => Transport::Import(Arc::new(BatchResults::load(files)?)),
        BatchMode::Off => Transport::Send,
    };
    let run_dir = claim_run_dir(options, run_dir)?;
    // One writer per run directory, for the whole run and its scoring.
    let _lock = FolderLock::acquire(&run_dir, err)?;
    check_start(&predictions_path(&run_dir), options.resume)?;
    check_same_steps(&run_dir, &options.steps, options.resume)?;
    record_shard(&run_dir, shard.as_ref(), options.resume)?;
    let recorded = if options.resume {
        let recorded = recorded_models(&run_dir)?;
        let now: Vec<ModelConfig> = specs.iter().map(|s| s.config.clone()).collect();
        check_same_requests(&recorded, &now)?;
        recorded
    } else {
        Vec::new()
    };
    let tasks_path = write_run_inputs(&run_dir, &tasks, &specs, recorded, benchmark)?;

    writeln!(
        err,
        "running {} model(s) on {} task(s) from {task_label} into {}",
        specs.len(),
        tasks.len(),
        run_dir.display()
    )?;
    // A batch import contacts no server.
    let mut warnings = match transport {
        Transport::Send => check_servers(&specs, &tasks, cache_dir.as_deref(), err)?,
        _ => Vec::new(),
    };
    let run_options = RunOptions {
        run_dir: run_dir.clone(),
        cache_dir,
        resume: options.resume,
        show_progress: options.show_progress,
        steps: step_run.map(Arc::new),
        transport: transport.clone(),
    };
    let report = block_on(
        Threads::PerCore,
        run_shared(Arc::new(tasks), &specs, &run_options),
    )??;
    if let Transport::Import(results) = &transport {
        warnings.extend(import_warnings(results, err)?);
    }
    write_run_json(&run_dir, &report, &warnings)?;
    print_run_figures(&run_dir, &report, &options.scoring, out, err)?;

    // Benchmark-format answers are scored through the SPEC calls read from them.
    let scored = match benchmark {
        Some(b) => b.scoring_predictions(&run_dir, &tasks_path, &report.predictions)?,
        None => report.predictions.clone(),
    };
    let score_options = ScoreFilesOptions {
        tasks: Some(tasks_path.clone()),
        predictions: vec![scored],
        out: Some(run_dir.clone()),
        scoring: options.scoring,
        skip_invalid: false,
        threads: None,
        started: Some(started),
        eval_record: Some(eval_record(&run_dir, benchmark, &options.steps)?),
        model_order: report.models.iter().map(|m| m.model.clone()).collect(),
    };
    score(&score_options, out, err)?;
    if let Some(b) = benchmark {
        b.official(
            &run_dir,
            &tasks_path,
            &report.predictions,
            options.scoring.format,
            out,
            err,
        )?;
    }
    let failed: usize = report.models.iter().map(|m| m.errors).sum();
    if failed > 0 {
        return Err(TasksFailed {
            failed,
            predictions: report.models.iter().map(|m| m.tasks).sum(),
            run_dir,
        }
        .into());
    }
    Ok(())
}

/// The tasks a run asks: the turns checked for a replay run, and only the
/// run's share of them for a shard (with the shard's record).
fn prepare_tasks(
    options: &EvalOptions,
    tasks: Vec<Task>,
    label: &str,
) -> anyhow::Result<(Vec<Task>, Option<ShardRecord>)> {
    if options.steps.mode == StepMode::Replay {
        check_turns(&tasks, label)?;
    }
    let Some(shard) = options.shard else {
        return Ok((tasks, None));
    };
    let record = ShardRecord::new(shard, &tasks);
    let share = shard_tasks(tasks, shard);
    if share.is_empty() {
        bail!(
            "shard {shard} of the {} selected task(s) holds none",
            record.task_ids.len()
        );
    }
    Ok((share, Some(record)))
}

/// `--emit-batch DIR`: runs the tasks with every request written to a batch
/// file instead of sent (a step-by-step task stops at its first request the
/// cache cannot answer), then writes the files. No prediction is kept.
fn emit_batch(
    dir: &Path,
    tasks: Vec<Task>,
    specs: &[ModelSpec],
    cache_dir: Option<PathBuf>,
    step_run: Option<StepRun>,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    if specs.iter().all(|s| s.config.backend == Backend::Baseline) {
        bail!("--emit-batch: the offline baseline sends no requests; give a model of an API");
    }
    if let Some(gemini) = specs.iter().find(|s| s.config.backend == Backend::Gemini) {
        bail!(
            "--emit-batch: model `{}` is a Gemini model; batch files are written for OpenAI-compatible and Anthropic models",
            gemini.config.name
        );
    }
    let _lock = FolderLock::acquire(dir, err)?;
    let sink = Arc::new(BatchSink::default());
    // The runner's predictions of an emitting run are thrown away.
    let scratch = dir.join(".emit-run");
    let _ = std::fs::remove_dir_all(&scratch);
    let run_options = RunOptions {
        run_dir: scratch.clone(),
        cache_dir,
        resume: false,
        show_progress: false,
        steps: step_run.map(Arc::new),
        transport: Transport::Emit(Arc::clone(&sink)),
    };
    block_on(
        Threads::PerCore,
        run_shared(Arc::new(tasks), specs, &run_options),
    )??;
    std::fs::remove_dir_all(&scratch).with_context(|| format!("removing {}", scratch.display()))?;
    let files = sink.write(dir)?;
    if files.is_empty() {
        writeln!(
            err,
            "--emit-batch: every request is answered by the cache; nothing to send"
        )?;
    }
    for (path, count) in files {
        writeln!(err, "wrote {count} request(s) to {}", path.display())?;
    }
    Ok(())
}

/// Reports batch results that no request of the run asked for, requests
/// answered by several lines, and requests that met only a result of
/// another `custom_id`; returns the notes for `run.json`.
fn import_warnings(results: &BatchResults, err: &mut dyn Write) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    let (foreign, shown) = results.foreign();
    if foreign > 0 {
        let mut note = format!(
            "{foreign} request(s) met a batch result with their key digits but another custom_id, not taken (a `batch` error): {}",
            shown.join("; ")
        );
        if foreign > shown.len() {
            note.push_str("; …");
        }
        writeln!(err, "warning: {note}")?;
        notes.push(note);
    }
    if results.repeated() > 0 {
        let note = format!(
            "{} batch result line(s) answered a request an earlier line had answered: a success was kept over an error, otherwise the later line",
            results.repeated()
        );
        writeln!(err, "warning: {note}")?;
        notes.push(note);
    }
    let unused = results.unused();
    if unused.is_empty() {
        return Ok(notes);
    }
    const SHOWN: usize = 10;
    let mut note = format!(
        "{} of {} batch result(s) matched no request of this run: {}",
        unused.len(),
        results.len(),
        unused
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if unused.len() > SHOWN {
        note.push_str(", …");
    }
    writeln!(err, "warning: {note}")?;
    notes.push(note);
    Ok(notes)
}

/// A run that finished, scores written, with some tasks ending in an error
/// (after their retries): `itc` exits with its own status, so scripts can
/// tell it from a complete run and from a run that could not be made.
#[derive(Debug, thiserror::Error)]
#[error(
    "{failed} of {predictions} prediction(s) ended with an error (their `error` in {}/predictions.jsonl says why; they score 0); `--resume` with the same --run-dir retries them",
    run_dir.display()
)]
pub struct TasksFailed {
    /// Predictions that are errors.
    pub failed: usize,
    /// Predictions of the run, over all models.
    pub predictions: usize,
    /// The run directory.
    pub run_dir: PathBuf,
}

/// What the manifest records of a run: every model of the run directory
/// (as `models.json` has them: key variable names, never keys), the
/// built-in prompt templates' hashes (a model's own template has its hash
/// in its settings) and the OOD benchmark, if any.
fn eval_record(
    run_dir: &Path,
    benchmark: Option<&dyn Benchmark>,
    steps: &StepOptions,
) -> anyhow::Result<serde_json::Value> {
    Ok(serde_json::json!({
        "models": recorded_models(run_dir)?,
        "steps": steps,
        "prompt_templates": crate::models::prompt::template_hashes(),
        "benchmark": benchmark.map(|b| b.label()),
    }))
}

/// The file recording how a run directory's tasks are asked.
pub const STEPS_FILE: &str = "steps.json";

/// Refuses to resume a run directory whose tasks were asked another way
/// (single-shot or step by step, the tool outputs' source, the step limit,
/// the tool model): its predictions would not be comparable. Then records
/// this run's way in `steps.json`. A run recorded before `steps.json`
/// existed was single-shot.
fn check_same_steps(run_dir: &Path, steps: &StepOptions, resume: bool) -> anyhow::Result<()> {
    let path = run_dir.join(STEPS_FILE);
    if resume {
        let earlier: StepOptions = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("reading {}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => StepOptions::default(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let differs = |field: &str, was: String, now: String| -> anyhow::Result<()> {
            if was != now {
                bail!(
                    "{}: field `{field}`: the run was made with {was}, this session asks {now}; resume with the same step settings, or use a new --run-dir",
                    path.display()
                );
            }
            Ok(())
        };
        differs(
            "mode",
            earlier.mode.as_str().into(),
            steps.mode.as_str().into(),
        )?;
        differs(
            "max_steps",
            earlier.max_steps.to_string(),
            steps.max_steps.to_string(),
        )?;
        differs(
            "max_calls_per_step",
            earlier.max_calls_per_step.to_string(),
            steps.max_calls_per_step.to_string(),
        )?;
        differs(
            "max_task_tool_bytes",
            earlier.max_task_tool_bytes.to_string(),
            steps.max_task_tool_bytes.to_string(),
        )?;
        differs(
            "tool_model",
            format!("{:?}", earlier.tool_model),
            format!("{:?}", steps.tool_model),
        )?;
    }
    let text = serde_json::to_string_pretty(steps)? + "\n";
    crate::util::atomic::write(&path, text.as_bytes())
}

/// Refuses a replay run on tasks whose recorded steps are inconsistent
/// (SPEC §6: the turns' calls are the gold calls, one output per call, and
/// every reference names a recorded field), naming the file and each task.
fn check_turns(tasks: &[Task], label: &str) -> anyhow::Result<()> {
    let problems: Vec<String> = tasks.iter().flat_map(turn_problems).collect();
    if problems.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 10;
    let mut message = format!(
        "{label}: {} problem(s) in the recorded steps (`turns`) a replay run needs:",
        problems.len()
    );
    for problem in problems.iter().take(SHOWN) {
        message.push_str(&format!("\n  {problem}"));
    }
    if problems.len() > SHOWN {
        message.push_str(&format!("\n  … and {} more", problems.len() - SHOWN));
    }
    bail!(message)
}

/// The tasks of the run after the selection, and how messages name their source.
fn select_tasks(
    options: &EvalOptions,
    benchmark: Option<&dyn Benchmark>,
    err: &mut dyn Write,
) -> anyhow::Result<(Vec<Task>, String)> {
    let (all, label) = match benchmark {
        Some(b) => (b.tasks(), b.label()),
        None => {
            let file = options.tasks.clone().unwrap_or_else(sample_tasks);
            let label = file.display().to_string();
            (read_records::<Task>(&file, false)?.0, label)
        }
    };
    let (tasks, repeated) = options.selection.clone().apply(all)?;
    if repeated > 0 {
        writeln!(
            err,
            "note: {repeated} task(s) repeat an earlier id in {label} and are skipped"
        )?;
    }
    if tasks.is_empty() {
        bail!("no task of {label} matches the selection");
    }
    Ok((tasks, label))
}

/// The run directory as planned: `--run-dir`, else
/// `runs/<model name>-<UTC timestamp>` (`eval-…` for several models).
/// `--resume` needs the folder named.
fn planned_run_dir(options: &EvalOptions, specs: &[ModelSpec]) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &options.run_dir {
        return Ok(dir.clone());
    }
    if options.resume {
        bail!("--resume continues a run directory: name it with --run-dir");
    }
    let name = match specs {
        [one] => slug(&one.config.name, SlugStyle::FileName),
        _ => "eval".to_string(),
    };
    Ok(PathBuf::from("runs").join(format!("{name}-{}", timestamp(SystemTime::now()))))
}

/// The run directory to write: a named one as it is; a default one claimed
/// by creating it, as `…-2`, `…-3` when a run of the same second has the name.
fn claim_run_dir(options: &EvalOptions, planned: PathBuf) -> anyhow::Result<PathBuf> {
    match options.run_dir {
        Some(_) => Ok(planned),
        None => create_fresh_dir(&planned),
    }
}

/// Writes `tasks.jsonl`, `models.json` (the models of a resumed run's
/// earlier sessions kept) and the benchmark's notes into the run directory;
/// returns the path of `tasks.jsonl`.
fn write_run_inputs(
    run_dir: &Path,
    tasks: &[Task],
    specs: &[ModelSpec],
    recorded: Vec<ModelConfig>,
    benchmark: Option<&dyn Benchmark>,
) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(run_dir).with_context(|| format!("creating {}", run_dir.display()))?;
    let tasks_path = run_dir.join("tasks.jsonl");
    write_records(&tasks_path, tasks)
        .with_context(|| format!("writing {}", tasks_path.display()))?;
    let configs = merged(
        recorded,
        &specs.iter().map(|s| &s.config).collect::<Vec<_>>(),
    );
    std::fs::write(
        run_dir.join("models.json"),
        serde_json::to_string_pretty(&configs)? + "\n",
    )?;
    if let Some(b) = benchmark {
        b.write_info(run_dir)?;
    }
    Ok(tasks_path)
}

/// The resume note and the run table: with the tables on `out`, beside JSON
/// output on `err`.
fn print_run_figures(
    run_dir: &Path,
    report: &RunReport,
    scoring: &ScoringOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let (format, wide) = (scoring.format, scoring.wide);
    if let Some(r) = report.resume {
        writeln!(
            err,
            "resumed: {} finished prediction(s) kept, {} errored re-run, {} bad line(s) dropped, {} torn byte(s) cut",
            r.kept, r.errored, r.discarded, r.torn_bytes
        )?;
    }
    let figures = format!(
        "Run {} ({:.1} s)\n\n{}",
        run_dir.display(),
        report.elapsed.as_secs_f64(),
        run_table(&report.models, wide)
    );
    match format {
        OutputFormat::Table => writeln!(out, "{figures}")?,
        OutputFormat::Json => writeln!(err, "{figures}")?,
    }
    Ok(())
}

fn write_run_json(run_dir: &Path, report: &RunReport, warnings: &[String]) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "predictions": report.predictions,
        "elapsed_ms": report.elapsed.as_millis() as u64,
        "models": report.models,
        "warnings": warnings,
    });
    let path = run_dir.join("run.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_model_means_the_baseline() {
        let models = EvalOptions::default().model_configs().unwrap();
        assert_eq!(
            models,
            vec![ModelConfig::new("baseline", Backend::Baseline)]
        );
    }

    #[test]
    fn run_dir_defaults() {
        assert_eq!(
            default_cache_dir(Path::new("runs/x")),
            PathBuf::from("runs/cache")
        );
        assert_eq!(default_cache_dir(Path::new("x")), PathBuf::from("cache"));
    }
}
