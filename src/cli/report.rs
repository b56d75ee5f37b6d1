//! `itc report`: flags → [`ReportOptions`] → [`report::report`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::TableFlags;
use crate::report::paired::Metric;
use crate::report::{self, ReportOptions};

value_enum!(Metric {
    SelectionF1 => "selection-f1": "Tool selection F1",
    InvocationF1 => "invocation-f1": "Tool invocation F1",
    Lm => "lm": "Language match",
    Fm => "fm": "Format match",
});

/// Arguments of `itc report`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// itc eval run directories and itc score --out folders (any number;
    /// from any day or machine). Inputs of different task sets (the sample
    /// set, --dataset bfcl:…, --dataset stabletoolbench:…) get a section
    /// each.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Output folder (default: a new folder reports/report-TIME, TIME in UTC). One
    /// that holds an earlier report is refused unless --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overwrite the earlier report in --out.
    #[arg(long)]
    pub force: bool,
    /// The title of report.html and report.md (default: "Tool-calling
    /// report").
    #[arg(long)]
    pub title: Option<String>,
    /// Compare every model with this one only (default: every pair); over
    /// several task sets, in each set that has it.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Within a task set, compare inputs that scored different tasks (a
    /// smaller --limit, other --languages) on the tasks they share
    /// (default: refused). Different task sets need no flag.
    #[arg(long)]
    pub allow_different_tasks: bool,
    /// The metric the ranking sorts by.
    #[arg(long, value_enum, default_value_t = ReportOptions::default().rank_by)]
    pub rank_by: Metric,
    /// Bootstrap resamples for intervals and p-values.
    #[arg(long, default_value_t = ReportOptions::default().resamples,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = ReportOptions::default().seed)]
    pub seed: u64,
    /// Rows of the HTML page's per-task browser at most: the first tasks,
    /// each with every model's answer (every task's scores are in
    /// task_scores.csv and .parquet).
    #[arg(long, default_value_t = ReportOptions::default().browser_rows,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub browser_rows: usize,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl ReportArgs {
    /// The library's options.
    pub fn options(&self) -> ReportOptions {
        ReportOptions {
            inputs: self.inputs.clone(),
            out: self.out.clone(),
            force: self.force,
            title: self.title.clone(),
            baseline: self.baseline.clone(),
            allow_different_tasks: self.allow_different_tasks,
            rank_by: self.rank_by,
            resamples: self.bootstrap,
            seed: self.seed,
            browser_rows: self.browser_rows,
            wide: self.table.wide,
        }
    }

    /// Runs `itc report`: tables on `out`, notes on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        report::report(&self.options(), out, err)
    }
}
