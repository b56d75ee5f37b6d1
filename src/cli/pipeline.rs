//! `itc pipeline`: flags → [`PipelineOptions`] → [`pipeline::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::build::pipeline::{self, PipelineOptions};

/// Arguments of `itc pipeline`.
#[derive(Debug, Clone, Args)]
pub struct PipelineArgs {
    /// Pipeline file (TOML; see docs/building-task-sets.md for every key).
    #[arg(long)]
    pub config: PathBuf,
    /// Run the stages that need no model and write the model stages'
    /// prompts (`prompts.<stage>.jsonl`) instead of calling models.
    #[arg(long)]
    pub dry_run: bool,
    /// Run every stage even when the manifest says it is up to date (the
    /// response cache still answers requests sent before).
    #[arg(long)]
    pub force: bool,
}

impl PipelineArgs {
    /// The library's options.
    pub fn options(&self) -> PipelineOptions {
        PipelineOptions {
            config: self.config.clone(),
            dry_run: self.dry_run,
            force: self.force,
        }
    }

    /// Runs `itc pipeline`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        pipeline::run(&self.options(), out, err).map(|_| ())
    }
}
