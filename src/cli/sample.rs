//! `itc sample`: flags → [`SampleOptions`] → [`sample::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::build::sample::{self, SampleOptions, parse_quota};

/// Arguments of `itc sample`.
#[derive(Debug, Clone, Args)]
pub struct SampleArgs {
    /// Catalog to draw from (JSON Lines, from `itc catalog import`).
    #[arg(long)]
    pub catalog: PathBuf,
    /// Number of APIs to draw (without replacement).
    #[arg(short = 'n', long = "count")]
    pub n: usize,
    /// Exponent of the country weights n_c^α (1: proportional, 0: uniform over countries).
    #[arg(long, default_value_t = SampleOptions::default().alpha)]
    pub alpha: f64,
    /// Seed of the random draws.
    #[arg(long, default_value_t = SampleOptions::default().seed)]
    pub seed: u64,
    /// Exact number of APIs from a country, as CODE=N (repeatable).
    #[arg(long = "quota", value_name = "XX=N", num_args = 1.., value_parser = parse_quota)]
    pub quotas: Vec<(String, usize)>,
    /// Exact number of APIs from a category, as NAME=N (repeatable).
    #[arg(long = "category-quota", value_name = "CATEGORY=N", num_args = 1.., value_parser = parse_quota)]
    pub category_quotas: Vec<(String, usize)>,
    /// Where to write the sampled APIs (JSON Lines, catalog records).
    #[arg(short, long)]
    pub output: PathBuf,
    /// List every country of the catalog in the table, not only those drawn.
    #[arg(long)]
    pub all_countries: bool,
}

impl SampleArgs {
    /// The library's options.
    pub fn options(&self) -> SampleOptions {
        SampleOptions {
            catalog: self.catalog.clone(),
            n: self.n,
            alpha: self.alpha,
            seed: self.seed,
            quotas: self.quotas.clone(),
            category_quotas: self.category_quotas.clone(),
            output: self.output.clone(),
            all_countries: self.all_countries,
        }
    }

    /// Runs `itc sample`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        sample::run(&self.options(), out, err)
    }
}
