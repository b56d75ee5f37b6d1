//! `itc bench http`: its arguments, turned into [`BenchHttpOptions`].

use std::io::Write;
use std::sync::LazyLock;

use clap::Args;

use crate::perf::http::{self, BenchHttpOptions};

/// The default concurrencies as clap shows and parses them: `1,32,256`.
static DEFAULT_CONCURRENCY: LazyLock<String> = LazyLock::new(|| {
    let concurrency = BenchHttpOptions::default().concurrency;
    let texts: Vec<String> = concurrency.iter().map(ToString::to_string).collect();
    texts.join(",")
});

/// Arguments of `itc bench http`.
#[derive(Debug, Clone, Args)]
pub struct BenchHttpArgs {
    /// Synthetic tasks the harness runs at each concurrency (one request each).
    #[arg(long, default_value_t = BenchHttpOptions::default().tasks)]
    pub tasks: usize,
    /// Concurrencies to measure (itc requests in flight; wrk connections), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_CONCURRENCY.as_str())]
    pub concurrency: Vec<usize>,
    /// Runs of the harness per concurrency; the median is reported.
    #[arg(long, default_value_t = BenchHttpOptions::default().repeat)]
    pub repeat: usize,
    /// Seconds of each wrk run.
    #[arg(long, default_value_t = BenchHttpOptions::default().wrk_seconds)]
    pub wrk_seconds: u64,
    /// Measure the harness only (no wrk).
    #[arg(long)]
    pub no_wrk: bool,
    /// Worker threads of the instant server (1: one thread, current-thread runtime).
    #[arg(long, default_value_t = BenchHttpOptions::default().server_threads)]
    pub server_threads: usize,
    /// Seed of the task generator.
    #[arg(long, default_value_t = BenchHttpOptions::default().seed)]
    pub seed: u64,
}

impl BenchHttpArgs {
    /// The library's options for these arguments.
    pub fn options(&self) -> BenchHttpOptions {
        BenchHttpOptions {
            tasks: self.tasks,
            concurrency: self.concurrency.clone(),
            repeat: self.repeat,
            wrk_seconds: self.wrk_seconds,
            no_wrk: self.no_wrk,
            server_threads: self.server_threads,
            seed: self.seed,
        }
    }

    /// Runs the benchmark and prints its figures.
    pub fn run(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        http::run(&self.options(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> BenchHttpArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            bench: BenchHttpArgs,
        }
        Cli::try_parse_from(std::iter::once("itc").chain(args.iter().copied()))
            .unwrap()
            .bench
    }

    #[test]
    fn defaults() {
        let args = parse(&[]);
        assert_eq!(args.concurrency, vec![1, 32, 256]);
        assert_eq!(
            (args.tasks, args.wrk_seconds, args.no_wrk),
            (20_000, 5, false)
        );
        assert_eq!(args.options(), BenchHttpOptions::default());
    }

    #[test]
    fn flags_reach_the_options() {
        let args = parse(&[
            "--tasks",
            "50",
            "--concurrency",
            "1,4",
            "--no-wrk",
            "--repeat",
            "2",
            "--wrk-seconds",
            "1",
            "--server-threads",
            "2",
            "--seed",
            "9",
        ]);
        assert_eq!(
            args.options(),
            BenchHttpOptions {
                tasks: 50,
                concurrency: vec![1, 4],
                repeat: 2,
                wrk_seconds: 1,
                no_wrk: true,
                server_threads: 2,
                seed: 9,
            }
        );
    }
}
