//! `itc filter`: flags → [`FilterOptions`] → [`filter::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::CacheFlags;
use crate::build::filter::{self, FilterOptions};
use crate::models::cache::CacheSetting;

/// Arguments of `itc filter`.
#[derive(Debug, Clone, Args)]
pub struct FilterArgs {
    /// Generated queries (JSON Lines from `itc generate`).
    #[arg(long)]
    pub queries: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    #[arg(long)]
    pub config: PathBuf,
    /// The two judge models of the configuration, comma-separated: A,B.
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub judges: Vec<String>,
    /// Keep a query only when both judges' totals are at least this.
    #[arg(long, default_value_t = FilterOptions::default().min_total)]
    pub min_total: f64,
    /// Also require each of both judges' five scores to be at least this.
    #[arg(long)]
    pub min_each: Option<f64>,
    /// The response cache.
    #[command(flatten)]
    pub cache: CacheFlags,
    /// Where to write the kept queries (JSON Lines of judged queries).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Where to write the rejected queries, each with its reason.
    #[arg(long)]
    pub rejects: PathBuf,
    /// Where to write the agreement table as CSV.
    #[arg(long)]
    pub agreement: Option<PathBuf>,
}

impl FilterArgs {
    /// The library's options.
    pub fn options(&self) -> FilterOptions {
        FilterOptions {
            queries: self.queries.clone(),
            config: self.config.clone(),
            judges: self.judges.clone(),
            min_total: self.min_total,
            min_each: self.min_each,
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
            output: self.output.clone(),
            rejects: self.rejects.clone(),
            agreement: self.agreement.clone(),
        }
    }

    /// Runs `itc filter`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        filter::run(&self.options(), out, err).map(|_| ())
    }
}
