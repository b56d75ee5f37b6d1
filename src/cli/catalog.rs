//! `itc catalog import|stats`: flags → [`ImportFilesOptions`] →
//! [`catalog::import_files`], or [`StatsOptions`] → [`stats::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::build::catalog::stats::{self, StatsOptions};
use crate::build::catalog::{self, Format, ImportFilesOptions};

value_enum!(Format {
    Itc => "itc": "ITC tools: flat tool objects (JSON array or JSON Lines, including catalogs written by this command) or ITC/ToolBench tool documents with an `api_list`",
    Toolbench => "toolbench": "ToolBench: `data_example/instruction/G*_query.json` query files or `toolenv/tools/<Category>/<tool>.json` tool documents",
    Openapi => "openapi": "An OpenAPI 3 document in JSON: one tool per operation",
    PublicApis => "public-apis": "The public-apis/public-apis `README.md` (Markdown tables per category)",
    SealTools => "seal-tools": "Seal-Tools `tool.jsonl`",
    Toolalpaca => "toolalpaca": "ToolAlpaca `public_apis.json`, or its evaluation sets (APIs with an OpenAPI `Documentation`)",
});

/// Arguments of `itc catalog`.
#[derive(Debug, Clone, Args)]
pub struct CatalogArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CatalogCommand,
}

/// The subcommands of `itc catalog`.
#[derive(Debug, Clone, Subcommand)]
pub enum CatalogCommand {
    /// Normalise API lists to ITC tools with country and category (JSON Lines).
    Import(ImportArgs),
    /// Count a catalog's APIs by country and category.
    Stats(StatsArgs),
}

/// Arguments of `itc catalog import`.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// Format of the input files.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Input files, all of that format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Catalog to write (JSON Lines, one tool per line).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Country (ISO code or GLOBAL) for APIs without an explicit country, a
    /// country-code domain or a country named in their text.
    #[arg(long)]
    pub country: Option<String>,
    /// Category for APIs whose source gives none (default: Uncategorized).
    #[arg(long)]
    pub category: Option<String>,
    /// Skip invalid records (listed on stderr) instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
}

/// Arguments of `itc catalog stats`.
#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Catalog file (JSON Lines, as written by `itc catalog import`).
    pub catalog: PathBuf,
    /// Directory for by_country.csv, by_category.csv, country_category.csv and country_source.csv.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write an HTML page with the long tail chart (share of APIs per country).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// APIs drawn from the catalog (`itc sample --out`): the chart shows the
    /// long tail before and after biased sampling.
    #[arg(long, requires = "html")]
    pub sampled: Option<PathBuf>,
}

impl CatalogArgs {
    /// Runs `itc catalog …`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        match &self.command {
            CatalogCommand::Import(args) => catalog::import_files(&args.options(), out, err),
            CatalogCommand::Stats(args) => stats::run(&args.options(), out, err),
        }
    }
}

impl ImportArgs {
    /// The library's options.
    pub fn options(&self) -> ImportFilesOptions {
        ImportFilesOptions {
            format: self.format,
            files: self.files.clone(),
            output: self.output.clone(),
            country: self.country.clone(),
            category: self.category.clone(),
            skip_invalid: self.skip_invalid,
        }
    }
}

impl StatsArgs {
    /// The library's options.
    pub fn options(&self) -> StatsOptions {
        StatsOptions {
            catalog: self.catalog.clone(),
            out: self.out.clone(),
            html: self.html.clone(),
            sampled: self.sampled.clone(),
        }
    }
}
