//! The `itc` command line: parses arguments and calls the library.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use itc::build::answer::{self, AnswerArgs};
use itc::build::catalog::{self, CatalogArgs};
use itc::build::confuse::{self, ConfuseArgs};
use itc::build::filter::{self, FilterArgs};
use itc::build::generate::{self, GenerateArgs};
use itc::build::pipeline::{self, PipelineArgs};
use itc::build::sample::{self, SampleArgs};
use itc::cli::ood::OodArgs;
use itc::models::{self, EvalArgs};
use itc::perf::bench::{self, BenchArgs};
use itc::perf::http::{self, BenchHttpArgs};
use itc::score::files::{self, ScoreArgs};

// mimalloc: scoring and the runner allocate many small, short-lived
// strings; it measured about 20% faster than the system allocator on both.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// International Tool Calling benchmark harness.
#[derive(Debug, Parser)]
#[command(name = "itc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Score recorded predictions against a task file (SPEC §3–4).
    Score(ScoreArgs),
    /// Run a model (or the offline baseline) on tasks, then score it (SPEC §0–4).
    Eval(Box<EvalArgs>),
    /// Measure end-to-end scoring throughput and memory on synthetic inputs.
    Bench(BenchArgs),
    /// Measure the harness's requests per second against an instant loopback server, beside wrk.
    BenchHttp(BenchHttpArgs),
    /// Out-of-distribution sets: convert them to tasks, score with their official scorers.
    Ood(OodArgs),
    /// Build API catalogs: import API lists into ITC tools with country and category, count them (ITC §3.1).
    Catalog(CatalogArgs),
    /// Draw APIs from a catalog with country weights ∝ n^α and quotas (ITC §3.2 biased sampling).
    Sample(SampleArgs),
    /// Give each sampled API a shuffled candidate list of confusable distractors (ITC §3.2 tool confusion).
    Confuse(ConfuseArgs),
    /// Have a generator model write requests for sampled APIs, checked before judging (ITC §3.3).
    Generate(GenerateArgs),
    /// Score generated queries with two judge models and keep the good ones (ITC §3.3).
    Filter(FilterArgs),
    /// Write and check gold answers for kept queries; split and export them (ITC §3.4).
    Answer(Box<AnswerArgs>),
    /// Run catalog → sample → confuse → generate → filter → answer from a pipeline.toml; finished stages are skipped.
    Pipeline(PipelineArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Score(args) => {
            files::score(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        // Unlocked handles: the progress bar draws on stderr from its own thread.
        Command::Eval(args) => models::eval(args, &mut io::stdout(), &mut io::stderr()),
        Command::Bench(args) => bench::run(args, &mut io::stdout().lock()),
        Command::BenchHttp(args) => http::run(args, &mut io::stdout().lock()),
        Command::Catalog(args) => {
            catalog::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Sample(args) => {
            sample::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Confuse(args) => {
            confuse::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Generate(args) => {
            generate::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Filter(args) => {
            filter::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Answer(args) => {
            answer::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Pipeline(args) => {
            pipeline::run(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        Command::Ood(args) => args.run(&mut io::stdout().lock(), &mut io::stderr().lock()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
