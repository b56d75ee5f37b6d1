//! Scoring prediction files against a task file (`itc score`): stream,
//! aggregate, print tables or JSON, write the output files.

use std::io::Write;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::score::aggregate::{AggregateOptions, aggregate};
use crate::score::manifest::{MANIFEST_FILE, Manifest, ScoringRecord};
use crate::score::report;
use crate::score::stream::{EvalOptions, evaluate};
use crate::score::task::ScoreOptions;
use crate::spec::sample::{sample_predictions, sample_tasks};
use crate::util::lock::FolderLock;

/// How `itc score` and `itc eval` print their results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Table-2 and Table-3 shaped tables.
    #[default]
    Table,
    /// One JSON object per model, one per line.
    Json,
}

/// How scores are computed and shown, the same for `itc score` and `itc eval`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoringOptions {
    /// Output on stdout.
    pub format: OutputFormat,
    /// Compare values exactly (after NFKC) instead of SPEC §3's loose rules.
    pub strict_values: bool,
    /// Bootstrap resamples for the 95% intervals (0: none).
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Tables as wide as their columns need, instead of split to fit 100
    /// columns ([`crate::util::table`]).
    pub wide: bool,
}

impl Default for ScoringOptions {
    fn default() -> Self {
        ScoringOptions {
            format: OutputFormat::Table,
            strict_values: false,
            bootstrap: 1000,
            seed: 20250101,
            wide: false,
        }
    }
}

/// What `itc score` scores and where it writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreFilesOptions {
    /// Task file (JSONL, SPEC §0). `None`: the sample set.
    pub tasks: Option<PathBuf>,
    /// Prediction files (JSONL, SPEC §0); each may hold several models.
    /// Empty: the sample set's recorded predictions.
    pub predictions: Vec<PathBuf>,
    /// Directory for task_scores.jsonl, summary.csv/json and `by_<dimension>.csv`.
    pub out: Option<PathBuf>,
    /// How scores are computed and shown.
    pub scoring: ScoringOptions,
    /// Skip malformed lines (reported and counted) instead of stopping.
    pub skip_invalid: bool,
    /// Threads that parse and score predictions; `None`: one per core.
    pub threads: Option<usize>,
    /// When the command started, for the manifest (`None`: when scoring did).
    pub started: Option<SystemTime>,
    /// `itc eval`'s record of the run (models, prompt templates) for the
    /// manifest ([`Manifest::eval`]).
    pub eval_record: Option<serde_json::Value>,
    /// Models to list first, in this order (a run's models); the others
    /// follow in order of first appearance in the predictions. A run's
    /// answers arrive in whatever order its servers answer, so its scores
    /// would otherwise list its models in an order that changes from run to
    /// run.
    pub model_order: Vec<String>,
}

/// The machine's cores, the default number of scoring threads.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Runs `itc score`: prints tables or JSON on `out`, problems on `err`.
pub fn score(
    args: &ScoreFilesOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let started = args.started.unwrap_or_else(SystemTime::now);
    // One writer per output folder, for the whole command.
    let _lock = match &args.out {
        Some(dir) => Some(FolderLock::acquire(dir, err)?),
        None => None,
    };
    let tasks = args.tasks.clone().unwrap_or_else(sample_tasks);
    let predictions = if args.predictions.is_empty() {
        if args.tasks.is_some() {
            anyhow::bail!("--predictions is required with --tasks");
        }
        sample_predictions()
    } else {
        args.predictions.clone()
    };
    let options = EvalOptions {
        score: ScoreOptions {
            strict_values: args.scoring.strict_values,
        },
        skip_invalid: args.skip_invalid,
        threads: args.threads.unwrap_or_else(available_threads),
    };
    let mut evaluation = evaluate(&tasks, &predictions, &options)?;
    evaluation.put_models_first(&args.model_order);
    let aggregate_options = AggregateOptions {
        resamples: args.scoring.bootstrap,
        seed: args.scoring.seed,
        // Breakdowns are written to files; the terminal shows headlines.
        breakdowns: args.out.is_some(),
    };
    // With more than one thread, `task_scores.jsonl` (which needs no
    // aggregate) is written while the aggregates are computed.
    let (reports, task_scores) = match &args.out {
        Some(dir) if options.threads > 1 => std::thread::scope(|scope| {
            let writer = scope.spawn(|| report::write_task_scores(dir, &evaluation));
            let reports = aggregate(&evaluation, aggregate_options);
            let written = writer.join().expect("the task score writer does not panic");
            (reports, Some(written))
        }),
        _ => (aggregate(&evaluation, aggregate_options), None),
    };
    for line in report::input_problems(&evaluation, &reports) {
        writeln!(err, "{line}")?;
    }
    match args.scoring.format {
        OutputFormat::Table => {
            let name = tasks.display().to_string();
            report::write_tables(out, &name, &evaluation, &reports, args.scoring.wide)?;
        }
        OutputFormat::Json => out.write_all(report::json_lines(&reports).as_bytes())?,
    }
    if let Some(dir) = &args.out {
        let task_scores = match task_scores {
            Some(written) => written?,
            None => report::write_task_scores(dir, &evaluation)?,
        };
        let mut files = vec![task_scores];
        files.extend(report::write_summaries(dir, &reports)?);
        let scoring = ScoringRecord {
            strict_values: args.scoring.strict_values,
            bootstrap_resamples: args.scoring.bootstrap,
            bootstrap_seed: args.scoring.seed,
        };
        let read = evaluation.prediction_files.clone();
        let mut manifest = Manifest::new(started, dir, &tasks, &evaluation.tasks, read, scoring)?;
        manifest.eval = args.eval_record.clone();
        manifest.write(dir)?;
        files.push(MANIFEST_FILE.to_string());
        writeln!(err, "wrote {} in {}", files.join(", "), dir.display())?;
    }
    Ok(())
}
