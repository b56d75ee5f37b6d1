//! `itc confuse`: flags → [`ConfuseOptions`] → [`confuse::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::build::confuse::{self, ConfuseOptions, Difficulty};

value_enum!(Difficulty {
    Random => "random": "Uniformly from the whole catalog",
    Category => "category": "Uniformly from the gold API's category",
    Nearest => "nearest": "The most similar APIs of the gold API's category",
});

/// Arguments of `itc confuse`.
#[derive(Debug, Clone, Args)]
pub struct ConfuseArgs {
    /// Catalog the distractors come from (JSON Lines, from `itc catalog import`).
    #[arg(long)]
    pub catalog: PathBuf,
    /// Sampled APIs (JSON Lines, from `itc sample`).
    #[arg(long)]
    pub sampled: PathBuf,
    /// Distractors per sampled API (the candidate list holds k + 1 tools).
    #[arg(long, default_value_t = ConfuseOptions::default().k)]
    pub k: usize,
    /// How the distractors are chosen.
    #[arg(long, value_enum, default_value_t = ConfuseOptions::default().difficulty)]
    pub difficulty: Difficulty,
    /// Seed of the draws and shuffles.
    #[arg(long, default_value_t = ConfuseOptions::default().seed)]
    pub seed: u64,
    /// Where to write the candidate sets (JSON Lines).
    #[arg(short, long)]
    pub output: PathBuf,
}

impl ConfuseArgs {
    /// The library's options.
    pub fn options(&self) -> ConfuseOptions {
        ConfuseOptions {
            catalog: self.catalog.clone(),
            sampled: self.sampled.clone(),
            k: self.k,
            difficulty: self.difficulty,
            seed: self.seed,
            output: self.output.clone(),
        }
    }

    /// Runs `itc confuse`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        confuse::run(&self.options(), out, err)
    }
}
