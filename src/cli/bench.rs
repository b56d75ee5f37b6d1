//! `itc bench`: its three benchmarks (`scoring`, `http`, `soak`), and
//! `itc bench scoring`: flags → [`BenchOptions`] → [`bench::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::bench_http::BenchHttpArgs;
use super::bench_soak::BenchSoakArgs;
use super::examples;
use crate::perf::bench::{self, BenchOptions};

/// Arguments of `itc bench`: the benchmark to run, or, the old spelling
/// still accepted, no benchmark and the flags of `itc bench scoring`
/// (`itc bench --tasks 1000`), hidden from the help.
#[derive(Debug, Clone, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    mut_args(|arg| arg.hide(true)),
    override_usage = "itc bench <COMMAND>"
)]
pub struct BenchCommand {
    /// The benchmark to run.
    #[command(subcommand)]
    pub benchmark: Option<Benchmark>,
    /// The flags of `itc bench scoring`, given without the subcommand.
    #[command(flatten)]
    pub scoring: BenchArgs,
}

/// The benchmarks of `itc bench`.
#[derive(Debug, Clone, Subcommand)]
pub enum Benchmark {
    /// Measure end-to-end scoring throughput and memory on synthetic inputs.
    #[command(after_help = examples::BENCH_SCORING)]
    Scoring(BenchArgs),
    /// Measure the harness's requests per second against an instant loopback server, beside wrk.
    #[command(after_help = examples::BENCH_HTTP)]
    Http(BenchHttpArgs),
    /// Kill and resume a long run against a fault-injecting loopback server; check nothing is lost or repeated.
    #[command(after_help = examples::BENCH_SOAK)]
    Soak(BenchSoakArgs),
}

/// The note `itc bench` without a subcommand prints before it runs
/// `itc bench scoring`.
pub const NOTE_NO_SUBCOMMAND: &str =
    "note: `itc bench` without a subcommand is now `itc bench scoring`";

impl BenchCommand {
    /// Runs the benchmark: its figures on `out`; on `err`, the note of the
    /// old spelling (no subcommand).
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        match &self.benchmark {
            Some(Benchmark::Scoring(args)) => args.run(out),
            Some(Benchmark::Http(args)) => args.run(out),
            Some(Benchmark::Soak(args)) => args.run(out),
            None => {
                // A note that cannot be written does not stop the benchmark.
                let _ = writeln!(err, "{NOTE_NO_SUBCOMMAND}");
                self.scoring.run(out)
            }
        }
    }
}

/// Arguments of `itc bench scoring`.
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

    /// Runs `itc bench scoring`: its figures on `out`.
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

    /// `itc bench …` as the whole command line parses it.
    fn bench(args: &[&str]) -> Result<BenchCommand, clap::Error> {
        let args = ["itc", "bench"].iter().chain(args);
        match crate::cli::Cli::try_parse_from(args)?.command {
            crate::cli::Command::Bench(bench) => Ok(bench),
            other => panic!("not bench: {other:?}"),
        }
    }

    #[test]
    fn each_benchmark_is_a_subcommand() {
        let scoring = bench(&["scoring", "--tasks", "30"]).unwrap();
        match scoring.benchmark {
            Some(Benchmark::Scoring(args)) => assert_eq!(args.tasks, 30),
            other => panic!("{other:?}"),
        }
        let http = bench(&["http", "--no-wrk"]).unwrap();
        assert!(matches!(http.benchmark, Some(Benchmark::Http(args)) if args.no_wrk));
        let soak = bench(&["soak", "--kills", "2"]).unwrap();
        assert!(matches!(soak.benchmark, Some(Benchmark::Soak(args)) if args.kills == 2));
    }

    #[test]
    fn no_subcommand_takes_the_flags_of_scoring() {
        let old = bench(&["--tasks", "30", "--threads", "2"]).unwrap();
        assert!(old.benchmark.is_none());
        assert_eq!((old.scoring.tasks, old.scoring.threads), (30, 2));
        let plain = bench(&[]).unwrap();
        assert!(plain.benchmark.is_none());
        assert_eq!(plain.scoring.options(), BenchOptions::default());
        // The flags go with no subcommand, or after one.
        assert!(bench(&["--tasks", "30", "soak"]).is_err());
        assert!(bench(&["soak", "--threads", "2"]).is_err());
    }

    #[test]
    fn the_old_spellings_parse_as_before() {
        use crate::cli::{Cli, Command};
        let http = Cli::try_parse_from(["itc", "bench-http", "--no-wrk", "--tasks", "5"]).unwrap();
        assert!(matches!(http.command, Command::BenchHttp(args) if args.no_wrk && args.tasks == 5));
        let soak = Cli::try_parse_from(["itc", "bench-soak", "--kills", "1"]).unwrap();
        assert!(matches!(soak.command, Command::BenchSoak(args) if args.kills == 1));
    }
}
