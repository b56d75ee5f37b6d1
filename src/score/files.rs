//! The commands of the `itc` binary: argument types (clap) and what each
//! command does, so that `main.rs` only parses and dispatches.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};

use crate::score::aggregate::{AggregateOptions, aggregate};
use crate::score::report;
use crate::score::stream::{EvalOptions, evaluate};
use crate::score::task::ScoreOptions;

/// The sample set shipped in `datasets/sample/`, the embedded default.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join("sample")
}

/// The sample task file.
pub fn sample_tasks() -> PathBuf {
    sample_dir().join("tasks.jsonl")
}

/// Every prediction file of the sample set, sorted by name.
pub fn sample_predictions() -> anyhow::Result<Vec<PathBuf>> {
    let dir = sample_dir().join("predictions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// How `itc score` prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Table-2 and Table-3 shaped tables.
    Table,
    /// One JSON object per model, one per line.
    Json,
}

/// Arguments of `itc score`.
#[derive(Debug, Clone, Args)]
pub struct ScoreArgs {
    /// Task file (JSONL, SPEC §0). Default: the sample set in datasets/sample.
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// Prediction files (JSONL, SPEC §0); each may hold several models.
    /// Default: the sample set's recorded predictions.
    #[arg(long, num_args = 1..)]
    pub predictions: Vec<PathBuf>,
    /// Directory for task_scores.jsonl, summary.csv/json and by_<dimension>.csv.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Compare values exactly (after NFKC) instead of SPEC §3's loose rules.
    #[arg(long)]
    pub strict_values: bool,
    /// Skip malformed lines (reported and counted) instead of stopping.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Bootstrap resamples for the 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 20250101)]
    pub seed: u64,
    /// Threads that parse and score predictions (default: one per core; 1
    /// scores on the main thread). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
}

/// The machine's cores, the default number of scoring threads.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Runs `itc score`: prints tables or JSON on `out`, problems on `err`.
pub fn score(args: &ScoreArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let tasks = args.tasks.clone().unwrap_or_else(sample_tasks);
    let predictions = if args.predictions.is_empty() {
        if args.tasks.is_some() {
            anyhow::bail!("--predictions is required with --tasks");
        }
        sample_predictions()?
    } else {
        args.predictions.clone()
    };
    let options = EvalOptions {
        score: ScoreOptions {
            strict_values: args.strict_values,
        },
        skip_invalid: args.skip_invalid,
        threads: args.threads.map_or_else(available_threads, |n| n as usize),
    };
    let evaluation = evaluate(&tasks, &predictions, &options)?;
    let reports = aggregate(
        &evaluation,
        AggregateOptions {
            resamples: args.bootstrap,
            seed: args.seed,
            // Breakdowns are written to files; the terminal shows headlines.
            breakdowns: args.out.is_some(),
        },
    );
    for line in report::input_problems(&evaluation, &reports) {
        writeln!(err, "{line}")?;
    }
    match args.format {
        OutputFormat::Table => {
            writeln!(
                out,
                "Tool calling on {} ({} tasks, {} model(s)); rates in %, macro averages\n",
                tasks.display(),
                evaluation.tasks.len(),
                reports.len()
            )?;
            writeln!(out, "{}\n", report::main_table(&reports))?;
            writeln!(out, "Error analysis (shares of each group's errors, %)\n")?;
            writeln!(out, "{}\n", report::error_table(&reports))?;
            writeln!(out, "{}", report::detail_table(&reports))?;
        }
        OutputFormat::Json => out.write_all(report::json_lines(&reports).as_bytes())?,
    }
    if let Some(dir) = &args.out {
        let files = report::write_outputs(dir, &evaluation, &reports)?;
        writeln!(err, "wrote {} in {}", files.join(", "), dir.display())?;
    }
    Ok(())
}
