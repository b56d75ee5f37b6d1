//! `itc bench`: flags → [`BenchOptions`] → [`bench::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::perf::bench::{self, BenchOptions};

/// Arguments of `itc bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Number of synthetic tasks.
    #[arg(long, default_value_t = BenchOptions::default().tasks)]
    pub tasks: usize,
    /// Number of synthetic models; each answers every task once.
    #[arg(long, default_value_t = BenchOptions::default().models)]
    pub models: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = BenchOptions::default().seed)]
    pub seed: u64,
    /// Directory for the generated files (created if needed, never removed).
    /// Default: a fresh directory under the system temp dir, removed at the
    /// end unless --keep or --generate-only.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Keep the generated files.
    #[arg(long)]
    pub keep: bool,
    /// Bootstrap resamples for the intervals, as in `itc score`.
    #[arg(long, default_value_t = BenchOptions::default().bootstrap)]
    pub bootstrap: usize,
    /// Scoring runs; best and median are reported.
    #[arg(long, default_value_t = BenchOptions::default().repeat)]
    pub repeat: usize,
    /// Only write the files (kept) and print how to measure `itc score` on them.
    #[arg(long)]
    pub generate_only: bool,
    /// Threads that parse and score (`itc score --threads`); 1 measures one core.
    #[arg(
        long,
        default_value_t = BenchOptions::default().threads,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub threads: u32,
}

impl BenchArgs {
    /// The library's options.
    pub fn options(&self) -> BenchOptions {
        BenchOptions {
            tasks: self.tasks,
            models: self.models,
            seed: self.seed,
            dir: self.dir.clone(),
            keep: self.keep,
            bootstrap: self.bootstrap,
            repeat: self.repeat,
            generate_only: self.generate_only,
            threads: self.threads,
        }
    }

    /// Runs `itc bench`: its figures on `out`.
    pub fn run(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        bench::run(&self.options(), out)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        bench: BenchArgs,
    }

    #[test]
    fn no_flags_give_the_library_defaults() {
        let cli = Cli::parse_from(["itc"]);
        assert_eq!(cli.bench.options(), BenchOptions::default());
    }

    #[test]
    fn flags_reach_the_options() {
        let cli = Cli::parse_from([
            "itc",
            "--tasks",
            "30",
            "--models",
            "2",
            "--seed",
            "3",
            "--dir",
            "d",
            "--keep",
            "--bootstrap",
            "20",
            "--repeat",
            "2",
            "--generate-only",
            "--threads",
            "4",
        ]);
        let expected = BenchOptions {
            tasks: 30,
            models: 2,
            seed: 3,
            dir: Some(PathBuf::from("d")),
            keep: true,
            bootstrap: 20,
            repeat: 2,
            generate_only: true,
            threads: 4,
        };
        assert_eq!(cli.bench.options(), expected);
        assert!(Cli::try_parse_from(["itc", "--threads", "0"]).is_err());
    }
}
