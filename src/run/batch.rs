//! A run through a batch engine: `--emit-batch DIR` writes every request
//! of the run to batch files instead of sending it; `--import-batch FILE…`
//! answers the run's requests from the results (the warnings for results
//! no request took are here). The files' formats are
//! [`crate::models::batch`]'s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};

use super::dialogue::SharedAsker;
use super::runner::{RunOptions, run_shared};
use super::steps::StepRun;
use crate::models::batch::{BatchResults, BatchSink, Transport};
use crate::models::config::Backend;
use crate::models::exchange::ModelSpec;
use crate::spec::records::Task;
use crate::util::lock::FolderLock;
use crate::util::runtime::{Threads, block_on};

/// What an emitting run needs besides its tasks and models.
pub struct EmitRun {
    /// The response cache: requests it answers are not written.
    pub cache_dir: Option<PathBuf>,
    /// The step-by-step run, if any.
    pub steps: Option<StepRun>,
    /// The benchmark's asker, if it asks its tasks itself (its peer's
    /// requests, τ³-bench's user model's, travel by the same `sink`).
    pub asker: Option<SharedAsker>,
    /// Where the requests go.
    pub sink: Arc<BatchSink>,
}

/// `--emit-batch DIR`: runs the tasks with every request written to a batch
/// file instead of sent (a task asked in several requests, step by step or
/// in a conversation, stops at its first request the cache cannot
/// answer), then writes the files. No prediction is kept.
pub fn emit_batch(
    dir: &Path,
    tasks: Vec<Task>,
    specs: &[ModelSpec],
    run: EmitRun,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    if specs.iter().all(|s| s.config.backend == Backend::Baseline) {
        bail!("--emit-batch: the offline baseline sends no requests; give a model of an API");
    }
    // The models asked besides those under test: τ³-bench's user model, a
    // simulate run's tool model.
    let peer = run.asker.as_ref().and_then(|a| a.peer());
    let tool_model = run.steps.as_ref().and_then(StepRun::tool_model);
    let others = peer.into_iter().chain(tool_model).map(|m| m.config());
    let mut configs = specs.iter().map(|s| &s.config).chain(others);
    if let Some(gemini) = configs.find(|c| c.backend == Backend::Gemini) {
        bail!(
            "--emit-batch: model `{}` is a Gemini model; batch files are written for OpenAI-compatible and Anthropic models",
            gemini.name
        );
    }
    let _lock = FolderLock::acquire(dir, err)?;
    let sink = run.sink;
    // The runner's predictions of an emitting run are thrown away.
    let scratch = dir.join(".emit-run");
    let _ = std::fs::remove_dir_all(&scratch);
    let run_options = RunOptions {
        run_dir: scratch.clone(),
        cache_dir: run.cache_dir,
        resume: false,
        show_progress: false,
        steps: run.steps.map(Arc::new),
        asker: run.asker,
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
pub fn import_warnings(results: &BatchResults, err: &mut dyn Write) -> anyhow::Result<Vec<String>> {
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
