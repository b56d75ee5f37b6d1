//! Running an evaluation (`itc eval`): models on tasks into a run
//! directory, then the predictions scored there with the same functions as
//! `itc score`.
//!
//! A run directory holds `tasks.jsonl` (the tasks selected), `models.json`
//! (the model configurations; key variable names only, never keys),
//! `predictions.jsonl`, `run.json` (the run figures) and the files
//! `itc score --out` writes.
//!
//! [`eval_models`] reads as the run's stages, in order, each in a file of
//! its own:
//!
//! 1. [`tasks`]: choose the tasks: the selection ([`select`]), the replay
//!    checks, the shard's share ([`shard`]).
//! 2. [`claim`]: claim the run directory: plan, create, lock, and check a
//!    resume against what the run recorded ([`resume`]).
//! 3. [`runner`]: feed each model's workers the tasks, one request at a time
//!    through [`crate::models`]' limits, retries and cache, or step by step
//!    ([`steps`]); each task's [`outcome`] is written to `predictions.jsonl`
//!    as soon as it is known ([`store`]), with the progress bar
//!    ([`progress`]) and the run figures ([`stats`]).
//! 4. [`summary`]: summarise: `run.json`, the run table, a solver's
//!    searches ([`searched`]), the scores, a benchmark's official scores.
//!
//! Beside them: what a run is asked ([`options`]), OOD benchmarks' tasks and
//! scorers ([`benchmark`]), batch engines ([`batch`]: `--emit-batch`,
//! `--import-batch`) and joining the run directories of shards ([`merge`]).

pub mod batch;
pub mod benchmark;
pub mod claim;
pub mod dialogue;
pub mod merge;
pub mod options;
pub mod outcome;
pub mod progress;
pub mod resume;
pub mod runner;
pub mod scheduler;
pub mod searched;
pub mod select;
pub mod shard;
pub mod stats;
pub mod steps;
pub mod store;
pub mod summary;
pub mod tasks;

use std::io::Write;
use std::sync::Arc;
use std::time::SystemTime;

pub use benchmark::Benchmark;
pub use options::{
    AdHocModel, BatchMode, EvalOptions, ModelOverrides, ModelSource, check_prompt_styles,
    default_cache_dir,
};
pub use runner::{RunOptions, RunReport, predictions_path, run, run_shared};
pub use select::Selection;
pub use stats::ModelStats;
pub use summary::TasksFailed;

use crate::models::batch::{BatchResults, Transport};
use crate::models::config::{Backend, ModelConfig};
use crate::models::exchange::ModelSpec;
use crate::models::server_probe::check_servers;
use crate::util::runtime::{Threads, block_on};
use steps::StepRun;

/// Runs `itc eval` on a task file: run tables and scores on `out`, notes on `err`.
pub fn eval(options: &EvalOptions, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    // Every check that needs no request comes first: configuration, keys, tasks.
    let configs = options.model_configs()?;
    check_prompt_styles(&configs, false)?;
    eval_models(options, configs, None, out, err)
}

/// Runs `itc eval` with `configs` (already checked) on the tasks of
/// `benchmark`, or of the task file when `None`: the stages of the run in order.
pub fn eval_models(
    options: &EvalOptions,
    configs: Vec<ModelConfig>,
    benchmark: Option<&dyn Benchmark>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = SystemTime::now();
    // Batch files are written, not sent: no key is needed for them.
    let resolve = match options.batch {
        BatchMode::Emit(_) => ModelSpec::resolve_without_key,
        _ => ModelSpec::resolve,
    };
    let mut specs: Vec<ModelSpec> = configs
        .into_iter()
        .map(resolve)
        .collect::<anyhow::Result<_>>()?;
    let chosen = tasks::choose_tasks(options, benchmark, err)?;
    let run_dir = claim::planned_run_dir(options, &specs)?;
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
    let transport = match &options.batch {
        BatchMode::Emit(_) => Transport::Emit(Arc::default()),
        BatchMode::Import(files) => Transport::Import(Arc::new(BatchResults::load(files)?)),
        BatchMode::Off => Transport::Send,
    };
    let mut step_run = StepRun::prepare(
        &options.steps,
        models_file,
        cache_dir.as_deref(),
        &transport,
    )?;
    if let Some(solver) = step_run.as_mut().and_then(|r| r.solver.as_mut()) {
        solver.finish = solver
            .finish
            .resolve(benchmark.is_some_and(|b| b.finish_protocol()));
    }
    let asker = match benchmark {
        Some(b) => b.asker(cache_dir.as_deref(), &transport)?,
        None => None,
    };
    anyhow::ensure!(
        asker.is_none() || step_run.is_none(),
        "{}: its tasks are asked by the benchmark's own requests (BFCL's, and its multi-turn \
         loop, τ³-bench's conversations): --steps does not apply (on single-turn BFCL \
         categories, --prompt-style itc or bfcl-itc sends ITC's requests, which it takes)",
        chosen.label
    );
    anyhow::ensure!(
        cache_dir.is_some()
            || matches!(transport, Transport::Send)
            || (asker.is_none() && step_run.is_none()),
        "--no-cache: through batch files, a task asked in several requests (--steps, a \
         benchmark's own requests) goes one request per round, each round reading the answers \
         of the rounds before from the cache; give --cache DIR or leave the default"
    );
    if let (BatchMode::Emit(dir), Transport::Emit(sink)) = (&options.batch, &transport) {
        let run = batch::EmitRun {
            cache_dir,
            steps: step_run,
            asker,
            sink: Arc::clone(sink),
        };
        return batch::emit_batch(dir, chosen.tasks, &specs, run, err);
    }
    let claimed = claim::claim_run_dir(options, run_dir, &specs, &chosen, benchmark, err)?;
    writeln!(
        err,
        "running {} model(s) on {} task(s) from {} into {}",
        specs.len(),
        chosen.tasks.len(),
        chosen.label,
        claimed.run_dir.display()
    )?;
    // A batch import contacts no server.
    let mut warnings = match transport {
        Transport::Send => check_servers(&mut specs, &chosen.tasks, cache_dir.as_deref(), err)?,
        _ => Vec::new(),
    };
    let run_options = RunOptions {
        run_dir: claimed.run_dir.clone(),
        cache_dir,
        resume: options.resume,
        show_progress: options.show_progress,
        steps: step_run.map(Arc::new),
        asker,
        transport: transport.clone(),
    };
    let report = block_on(
        Threads::PerCore,
        run_shared(Arc::new(chosen.tasks), &specs, &run_options),
    )??;
    if let Transport::Import(results) = &transport {
        warnings.extend(batch::import_warnings(results, err)?);
    }
    let finished = summary::FinishedRun {
        started,
        report,
        warnings,
    };
    summary::summarise(options, &claimed, &finished, benchmark, out, err)
}
