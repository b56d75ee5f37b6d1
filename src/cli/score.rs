//! `itc score`: flags → [`ScoreFilesOptions`] → [`files::score`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::ScoringFlags;
use crate::score::files::{self, ScoreFilesOptions};

/// Arguments of `itc score`.
#[derive(Debug, Clone, Args)]
pub struct ScoreArgs {
    /// Task file (JSONL, SPEC §0). Default: the sample set (datasets/sample, built into itc).
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// Prediction files (JSONL, SPEC §0); each may hold several models.
    /// Default: the sample set's recorded predictions.
    #[arg(long, num_args = 1..)]
    pub predictions: Vec<PathBuf>,
    /// Directory for task_scores.jsonl, summary.csv/json and `by_<dimension>.csv`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// How scores are computed and shown.
    #[command(flatten)]
    pub scoring: ScoringFlags,
    /// Skip malformed lines (reported and counted) instead of stopping.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Threads that parse and score predictions (default: one per core; 1
    /// scores on the main thread). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
}

impl ScoreArgs {
    /// The library's options.
    pub fn options(&self) -> ScoreFilesOptions {
        ScoreFilesOptions {
            tasks: self.tasks.clone(),
            predictions: self.predictions.clone(),
            out: self.out.clone(),
            scoring: self.scoring.options(),
            skip_invalid: self.skip_invalid,
            threads: self.threads.map(|n| n as usize),
            started: None,
            eval_record: None,
            model_order: Vec::new(),
        }
    }

    /// Runs `itc score`: tables or JSON on `out`, problems on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        files::score(&self.options(), out, err)
    }
}
