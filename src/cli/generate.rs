//! `itc generate`: flags → [`GenerateOptions`] → [`generate::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::CacheFlags;
use crate::build::generate::languages::parse_override;
use crate::build::generate::validate::ValueCheck;
use crate::build::generate::{self, DEFAULT_KINDS, GenerateOptions};
use crate::models::cache::CacheSetting;

value_enum!(ValueCheck {
    Literal => "literal": "Each string or number given to a required parameter must appear in the query (case, width and spacing aside)",
    Present => "present": "Required parameters must have values; the query is not searched",
});

/// Arguments of `itc generate`.
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// Candidate sets (JSON Lines from `itc confuse`).
    #[arg(long)]
    pub candidates: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    #[arg(long, required_unless_present = "dry_run")]
    pub config: Option<PathBuf>,
    /// The generator: a model of the configuration.
    #[arg(long, required_unless_present = "dry_run")]
    pub generator: Option<String>,
    /// Kinds to write, comma-separated: single, repeated, parallel, nested,
    /// no_tool (requests no candidate serves, or that leave out a required
    /// value).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = DEFAULT_KINDS
    )]
    pub kinds: Vec<String>,
    /// Requests asked for in each prompt.
    #[arg(long, default_value_t = GenerateOptions::default().per_prompt)]
    pub per_prompt: usize,
    /// Plan at most this many units (prompts), the first in plan order.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Seed of the example draws and candidate shuffles.
    #[arg(long, default_value_t = GenerateOptions::default().seed)]
    pub seed: u64,
    /// Override a country's language: CC=xx (repeatable), e.g. CH=fr.
    #[arg(long, value_parser = parse_override)]
    pub language: Vec<(String, String)>,
    /// How required values are checked against the query text.
    #[arg(long, value_enum, default_value_t = GenerateOptions::default().value_check)]
    pub value_check: ValueCheck,
    /// The response cache.
    #[command(flatten)]
    pub cache: CacheFlags,
    /// Write the prompts (JSON Lines: unit, system, user) here instead of
    /// calling the generator.
    #[arg(long)]
    pub dry_run: bool,
    /// Where to write the valid queries (JSON Lines); the prompts, with --dry-run.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Where to write the rejects. Default: `<output>.rejects.jsonl`.
    #[arg(long)]
    pub rejects: Option<PathBuf>,
}

impl GenerateArgs {
    /// The library's options.
    pub fn options(&self) -> GenerateOptions {
        GenerateOptions {
            candidates: self.candidates.clone(),
            config: self.config.clone(),
            generator: self.generator.clone(),
            kinds: self.kinds.clone(),
            per_prompt: self.per_prompt,
            limit: self.limit,
            seed: self.seed,
            language: self.language.clone(),
            value_check: self.value_check,
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
            dry_run: self.dry_run,
            output: self.output.clone(),
            rejects: self.rejects.clone(),
        }
    }

    /// Runs `itc generate`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        generate::run(&self.options(), out, err).map(|_| ())
    }
}
