//! Flag groups that several commands share, written once and flattened into
//! each command's arguments with `#[command(flatten)]`.

use std::path::PathBuf;

use clap::Args;

use crate::score::files::{OutputFormat, ScoringOptions};

value_enum!(OutputFormat {
    Table => "table": "Table-2 and Table-3 shaped tables",
    Json => "json": "One JSON object per model, one per line",
});

/// How scores are computed and shown (`itc score`, `itc eval`).
#[derive(Debug, Clone, Args)]
pub struct ScoringFlags {
    /// Output of the scores on stdout.
    #[arg(long, value_enum, default_value_t = ScoringOptions::default().format)]
    pub format: OutputFormat,
    /// Compare values exactly (after NFKC) instead of SPEC §3's loose rules.
    #[arg(long)]
    pub strict_values: bool,
    /// Bootstrap resamples for the 95% intervals (0: none).
    #[arg(long, default_value_t = ScoringOptions::default().bootstrap)]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = ScoringOptions::default().seed)]
    pub seed: u64,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

/// How terminal tables are laid out (every command that prints score tables).
#[derive(Debug, Clone, Args)]
pub struct TableFlags {
    /// Tables in one piece, however wide (default: split to fit 100 columns).
    #[arg(long)]
    pub wide: bool,
}

impl ScoringFlags {
    /// The library's options.
    pub fn options(&self) -> ScoringOptions {
        ScoringOptions {
            format: self.format,
            strict_values: self.strict_values,
            bootstrap: self.bootstrap,
            seed: self.seed,
            wide: self.table.wide,
        }
    }
}

/// The response cache of the commands that send requests (`itc eval`,
/// `generate`, `filter`, `answer`).
#[derive(Debug, Clone, Args)]
pub struct CacheFlags {
    /// Response cache directory. Default: `cache/` beside the output (for
    /// `itc eval`, beside the run directory).
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Send every request, store nothing.
    #[arg(long)]
    pub no_cache: bool,
}

/// The name of the `itc ood fetch` cache's flag in every command that reads
/// or fills it (`itc eval --dataset`, `itc ood fetch`, `itc ood score bfcl`,
/// `itc datasets`).
pub const OOD_CACHE_FLAG: &str = "ood-cache";

/// The `itc ood fetch` cache (`itc ood fetch`, `itc ood score bfcl`,
/// `itc datasets`; `itc eval` has its own, which needs `--dataset`).
#[derive(Debug, Clone, Args)]
pub struct OodCacheFlags {
    /// The `itc ood fetch` cache. Default: $ITC_CACHE/ood, else ~/.cache/itc/ood.
    // `--cache-dir`: its old name in these commands, still accepted.
    #[arg(long = OOD_CACHE_FLAG, alias = "cache-dir", value_name = "DIR")]
    pub ood_cache: Option<PathBuf>,
}
