//! `itc merge`: flags → [`MergeOptions`] → [`merge::merge`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::ScoringFlags;
use crate::run::merge::{self, MergeOptions};

/// Arguments of `itc merge`.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The run directories of the shards (itc eval --shard K/N).
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// The merged run directory (new, or empty).
    #[arg(short, long)]
    pub out: PathBuf,
    /// How the merged predictions are scored and shown.
    #[command(flatten)]
    pub scoring: ScoringFlags,
}

impl MergeArgs {
    /// The library's options.
    pub fn options(&self) -> MergeOptions {
        MergeOptions {
            runs: self.runs.clone(),
            out: self.out.clone(),
            scoring: self.scoring.options(),
        }
    }

    /// Runs `itc merge`: score tables on `out`, notes on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        merge::merge(&self.options(), out, err)
    }
}
