//! `itc answer`: flags → [`AnswerOptions`] → [`answer::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::CacheFlags;
use crate::build::answer::{self, AnswerOptions};
use crate::models::cache::CacheSetting;

/// Arguments of `itc answer`.
#[derive(Debug, Clone, Args)]
pub struct AnswerArgs {
    /// Kept queries (JSON Lines of `itc filter` or `itc generate` records).
    #[arg(long)]
    pub queries: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    #[arg(long)]
    pub config: PathBuf,
    /// The model that writes the gold answers.
    #[arg(long)]
    pub answerer: String,
    /// The model that reviews answers of several calls (repeated, parallel, nested).
    #[arg(long)]
    pub checker: Option<String>,
    /// Accept gold calls to other candidates than the APIs the query was written for.
    #[arg(long)]
    pub allow_other_apis: bool,
    /// Ask the answer model for an example output per call and record them
    /// as each task's `turns` (SPEC §6), so `itc eval --steps replay` can run it.
    #[arg(long)]
    pub with_outputs: bool,
    /// The response cache.
    #[command(flatten)]
    pub cache: CacheFlags,
    /// Where to write the tasks (JSON Lines, SPEC §0).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Where to write one provenance record per task (JSON Lines).
    #[arg(long)]
    pub provenance: PathBuf,
    /// Where to write the rejected queries with reasons. Default: beside
    /// the output, `<output stem>.rejects.jsonl`.
    #[arg(long)]
    pub rejects: Option<PathBuf>,
    /// Share of tasks for the test split (used with --train, --test or --sharegpt).
    #[arg(long, default_value_t = AnswerOptions::default().test_fraction)]
    pub test_fraction: f64,
    /// Seed of the split.
    #[arg(long, default_value_t = AnswerOptions::default().seed)]
    pub seed: u64,
    /// Where to write the training split (JSON Lines tasks).
    #[arg(long)]
    pub train: Option<PathBuf>,
    /// Where to write the test split (JSON Lines tasks).
    #[arg(long)]
    pub test: Option<PathBuf>,
    /// Where to write the training split as a LLaMA-Factory ShareGPT dataset
    /// (a JSON array; its dataset_info.json entry goes beside it as
    /// `<stem>.dataset_info.json`).
    #[arg(long)]
    pub sharegpt: Option<PathBuf>,
}

impl AnswerArgs {
    /// The library's options.
    pub fn options(&self) -> AnswerOptions {
        AnswerOptions {
            queries: self.queries.clone(),
            config: self.config.clone(),
            answerer: self.answerer.clone(),
            checker: self.checker.clone(),
            allow_other_apis: self.allow_other_apis,
            with_outputs: self.with_outputs,
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
            output: self.output.clone(),
            provenance: self.provenance.clone(),
            rejects: self.rejects.clone(),
            test_fraction: self.test_fraction,
            seed: self.seed,
            train: self.train.clone(),
            test: self.test.clone(),
            sharegpt: self.sharegpt.clone(),
        }
    }

    /// Runs `itc answer`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        answer::run(&self.options(), out, err).map(|_| ())
    }
}
