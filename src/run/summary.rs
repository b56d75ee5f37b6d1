//! The last stage of a run: the run figures (`run.json`, the run table),
//! the scores written into the run directory with the same functions as
//! `itc score`, a benchmark's official scores, and the exit status of a run
//! whose tasks ended in errors ([`TasksFailed`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;

use super::benchmark::Benchmark;
use super::claim::ClaimedRunDir;
use super::options::EvalOptions;
use super::resume::recorded_models;
use super::runner::RunReport;
use super::searched::{Searched, searched, searched_table};
use super::stats::run_table;
use super::steps::StepOptions;
use crate::score::files::{OutputFormat, ScoreFilesOptions, ScoringOptions, score};

/// What the run's session ended with.
pub struct FinishedRun {
    /// When `itc eval` started.
    pub started: SystemTime,
    /// The runner's report.
    pub report: RunReport,
    /// Notes for `run.json` (servers, batch results), already printed.
    pub warnings: Vec<String>,
}

/// Writes the run figures and the scores, prints them, runs the benchmark's
/// official scorer; a [`TasksFailed`] error when some predictions are errors.
pub fn summarise(
    options: &EvalOptions,
    claimed: &ClaimedRunDir,
    finished: &FinishedRun,
    benchmark: Option<&dyn Benchmark>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let (run_dir, tasks_path) = (&claimed.run_dir, &claimed.tasks_path);
    let (report, warnings, started) = (&finished.report, &finished.warnings, finished.started);
    let models: Vec<String> = report.models.iter().map(|m| m.model.clone()).collect();
    let searches = match options.steps.solver {
        Some(_) => Some(searched(&report.predictions, &models)?),
        None => None,
    };
    write_run_json(run_dir, report, warnings, searches.as_deref())?;
    print_run_figures(run_dir, report, &options.scoring, out, err)?;
    if let (Some(searches), Some(solver)) = (&searches, &options.steps.solver) {
        let text = format!(
            "\nSolver {} ({}depth {}, {} requests a task at most)\n{}",
            solver.kind.as_str(),
            match solver.tries {
                1 => String::new(),
                n => format!("{n} tries, "),
            },
            solver.max_depth,
            solver.max_requests,
            searched_table(searches, options.scoring.wide)
        );
        match options.scoring.format {
            OutputFormat::Table => writeln!(out, "{text}")?,
            OutputFormat::Json => writeln!(err, "{text}")?,
        }
    }

    // Benchmark-format answers are scored through the SPEC calls read from them.
    let scored = match benchmark {
        Some(b) => b.scoring_predictions(run_dir, tasks_path, &report.predictions)?,
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
        eval_record: Some(eval_record(run_dir, benchmark, &options.steps)?),
        model_order: report.models.iter().map(|m| m.model.clone()).collect(),
    };
    score(&score_options, out, err)?;
    if let Some(b) = benchmark {
        b.official(
            run_dir,
            tasks_path,
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
            run_dir: run_dir.clone(),
        }
        .into());
    }
    Ok(())
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

/// Writes `run.json`: the predictions file, the time taken, each model's
/// figures, a solver's searches and the run's warnings.
fn write_run_json(
    run_dir: &Path,
    report: &RunReport,
    warnings: &[String],
    searches: Option<&[Searched]>,
) -> anyhow::Result<()> {
    let mut json = serde_json::json!({
        "predictions": report.predictions,
        "elapsed_ms": report.elapsed.as_millis() as u64,
        "models": report.models,
        "warnings": warnings,
    });
    if let Some(searches) = searches {
        json["searches"] = serde_json::to_value(searches)?;
    }
    let path = run_dir.join("run.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}
