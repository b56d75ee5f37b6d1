//! The `itc` command line: parses arguments and calls the library.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use itc::bench::{self, BenchArgs};
use itc::commands::{self, ScoreArgs};
use itc::run::{self, EvalArgs};

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Score(args) => {
            commands::score(args, &mut io::stdout().lock(), &mut io::stderr().lock())
        }
        // Unlocked handles: the progress bar draws on stderr from its own thread.
        Command::Eval(args) => run::eval(args, &mut io::stdout(), &mut io::stderr()),
        Command::Bench(args) => bench::run(args, &mut io::stdout().lock()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
