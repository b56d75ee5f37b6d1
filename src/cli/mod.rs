//! The command line: one file a command. Each turns its clap arguments into
//! the plain options value of one library call; the library never sees clap.
//!
//! `cli` may use every other folder; nothing uses `cli` but `main.rs`.

use std::io;

use clap::{Parser, Subcommand};

/// Implements [`clap::ValueEnum`] for a library enum, so that the library
/// needs no clap. The enum must be in scope by its plain name:
///
/// ```ignore
/// value_enum!(Mode {
///     Prompt => "prompt": "Thought and Action in the text",
///     Native => "native",
/// });
/// ```
#[allow(unused_macros)]
macro_rules! value_enum {
    ($ty:ident { $($variant:ident => $name:literal $(: $help:literal)?),+ $(,)? }) => {
        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($ty::$variant),+]
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match self {
                    $($ty::$variant => clap::builder::PossibleValue::new($name)$(.help($help))?),+
                })
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use value_enum;

/// A flag's help ending in clap's `[default: …]` note, for an optional flag
/// whose default the library defines: the value is written once, there.
pub(crate) fn with_default(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} [default: {default}]")
}

pub mod answer;
pub mod bench;
pub mod bench_http;
pub mod bench_soak;
pub mod benchmarks;
pub mod catalog;
pub mod confuse;
pub mod datasets;
pub mod eval;
mod examples;
pub mod filter;
pub mod flags;
pub mod generate;
pub mod judge;
pub mod merge;
pub mod pipeline;
pub mod report;
pub mod sample;
pub mod score;

/// International Tool Calling benchmark harness: runs LLMs on tool-calling
/// tasks (the ITC sample set, your own task files, BFCL, StableToolBench,
/// APIBench, Seal-Tools, ToolAlpaca, NexusRaven) and scores them.
#[derive(Debug, Parser)]
#[command(name = "itc", version = crate::util::version::LONG_VERSION, after_help = examples::ITC)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands of `itc`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score recorded predictions against a task file (SPEC §3–4).
    #[command(after_help = examples::SCORE)]
    Score(score::ScoreArgs),
    /// Run a model (or the offline baseline) on tasks, then score it (SPEC §0–4): the sample set, a task file, or a benchmark (--dataset bfcl:…, stabletoolbench:…, …).
    #[command(after_help = examples::EVAL)]
    Eval(Box<eval::EvalArgs>),
    /// Compare run directories and score folders: paired bootstrap differences, a ranking, Markdown, CSV, Parquet.
    #[command(after_help = examples::REPORT)]
    Report(report::ReportArgs),
    /// Join the run directories of a run's shards (itc eval --shard K/N) into one and score it.
    #[command(after_help = examples::MERGE)]
    Merge(merge::MergeArgs),
    /// Benchmarks: scoring throughput and memory, HTTP requests per second, kill and resume under faults.
    #[command(after_help = examples::BENCH)]
    Bench(bench::BenchCommand),
    // The old spellings of `itc bench http` and `itc bench soak`: still
    // accepted, hidden from the help, with a note naming the new spelling.
    /// Measure the harness's requests per second against an instant loopback server, beside wrk.
    #[command(hide = true, after_help = examples::BENCH_HTTP)]
    BenchHttp(bench_http::BenchHttpArgs),
    /// Kill and resume a long run against a fault-injecting loopback server; check nothing is lost or repeated.
    #[command(hide = true, after_help = examples::BENCH_SOAK)]
    BenchSoak(bench_soak::BenchSoakArgs),
    /// List the datasets itc knows, every BFCL category and StableToolBench group too: tasks, licence, source, where a run reads them from.
    #[command(after_help = examples::DATASETS)]
    Datasets(datasets::DatasetsArgs),
    /// Other benchmarks as their official harnesses run them (APIBench, Seal-Tools, NexusRaven, ToolAlpaca, StableToolBench, BFCL): fetch, convert to tasks, score with their official scorers, report.
    #[command(visible_alias = "ood", after_help = examples::BENCHMARKS)]
    Benchmarks(benchmarks::BenchmarksArgs),
    /// Build API catalogs: import API lists into ITC tools with country and category, count them (ITC §3.1).
    #[command(after_help = examples::CATALOG)]
    Catalog(catalog::CatalogArgs),
    /// Draw APIs from a catalog with country weights ∝ n^α and quotas (ITC §3.2 biased sampling).
    #[command(after_help = examples::SAMPLE)]
    Sample(sample::SampleArgs),
    /// Give each sampled API a shuffled candidate list of confusable distractors (ITC §3.2 tool confusion).
    #[command(after_help = examples::CONFUSE)]
    Confuse(confuse::ConfuseArgs),
    /// Judge run directories with judge models: pass rate, SoPR, win rate, ToolAlpaca (SPEC §8).
    #[command(after_help = examples::JUDGE)]
    Judge(Box<judge::JudgeArgs>),
    /// Have a generator model write requests for sampled APIs, checked before judging (ITC §3.3).
    #[command(after_help = examples::GENERATE)]
    Generate(generate::GenerateArgs),
    /// Score generated queries with two judge models and keep the good ones (ITC §3.3).
    #[command(after_help = examples::FILTER)]
    Filter(filter::FilterArgs),
    /// Write and check gold answers for kept queries; split and export them (ITC §3.4).
    #[command(after_help = examples::ANSWER)]
    Answer(Box<answer::AnswerArgs>),
    /// Run catalog → sample → confuse → generate → filter → answer from a pipeline.toml; finished stages are skipped.
    #[command(after_help = examples::PIPELINE)]
    Pipeline(pipeline::PipelineArgs),
}

impl Command {
    /// Runs the command: results on stdout, notes and problems on stderr.
    pub fn run(&self) -> anyhow::Result<()> {
        let out = || UntilClosed::new(io::stdout().lock());
        let err = || UntilClosed::new(io::stderr().lock());
        match self {
            Command::Score(args) => args.run(&mut out(), &mut err()),
            // Unlocked handles: the progress bar draws on stderr from its own thread.
            Command::Eval(args) => args.run(
                &mut UntilClosed::new(io::stdout()),
                &mut UntilClosed::new(io::stderr()),
            ),
            Command::Report(args) => args.run(&mut out(), &mut err()),
            Command::Merge(args) => args.run(&mut out(), &mut err()),
            Command::Bench(args) => args.run(&mut out(), &mut UntilClosed::new(io::stderr())),
            Command::BenchHttp(args) => {
                renamed(&mut err(), "bench-http", "bench http");
                args.run(&mut out())
            }
            Command::BenchSoak(args) => {
                renamed(&mut err(), "bench-soak", "bench soak");
                args.run(&mut out())
            }
            Command::Datasets(args) => args.run(&mut out()),
            Command::Benchmarks(args) => args.run(&mut out(), &mut err()),
            Command::Catalog(args) => args.run(&mut out(), &mut err()),
            Command::Sample(args) => args.run(&mut out(), &mut err()),
            Command::Confuse(args) => args.run(&mut out(), &mut err()),
            Command::Generate(args) => args.run(&mut out(), &mut err()),
            // Unlocked too: its progress bar draws on stderr from its own thread.
            Command::Judge(args) => args.run(
                &mut UntilClosed::new(io::stdout()),
                &mut UntilClosed::new(io::stderr()),
            ),
            Command::Filter(args) => args.run(&mut out(), &mut err()),
            Command::Answer(args) => args.run(&mut out(), &mut err()),
            Command::Pipeline(args) => args.run(&mut out(), &mut err()),
        }
    }
}

/// Prints the note of a command's old spelling (`itc bench-http`) that names
/// the new one (`itc bench http`). A note that cannot be written does not
/// stop the command.
fn renamed(err: &mut dyn io::Write, old: &str, new: &str) {
    let _ = writeln!(err, "note: `itc {old}` is now `itc {new}`");
}

/// The exit status of a command that failed: [`EXIT_TASKS_FAILED`] for a
/// run whose scores are written but some of whose tasks ended with an error
/// (or a merge of shards that lacks some),
/// [`EXIT_ERROR`] for anything else (bad input, a refused setting, a write
/// that failed). Usage errors exit with 2, as clap does.
pub fn exit_status(error: &anyhow::Error) -> u8 {
    if error.downcast_ref::<crate::run::TasksFailed>().is_some()
        || error
            .downcast_ref::<crate::run::merge::MergeIncomplete>()
            .is_some()
    {
        EXIT_TASKS_FAILED
    } else {
        EXIT_ERROR
    }
}

/// Exit status of a command that could not do its job.
pub const EXIT_ERROR: u8 = 1;
/// Exit status of `itc eval` when the run finished but some tasks ended with
/// an error after their retries.
pub const EXIT_TASKS_FAILED: u8 = 3;

/// Standard output or error that a closed pipe ends quietly: once the
/// reader is gone (`itc sample … | head`, `itc eval 2>&1 | head -3`), what
/// is printed is dropped and the command goes on, so the files it writes
/// are still written and it exits with the status it would have had.
pub struct UntilClosed<W> {
    inner: W,
    closed: bool,
}

impl<W: io::Write> UntilClosed<W> {
    /// Wraps a writer.
    pub fn new(inner: W) -> Self {
        UntilClosed {
            inner,
            closed: false,
        }
    }

    fn absorb<T>(&mut self, result: io::Result<T>, done: T) -> io::Result<T> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: io::Write> io::Write for UntilClosed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.absorb(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.absorb(result, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A writer whose reader went away after `room` bytes.
    struct Pipe {
        room: usize,
        got: Vec<u8>,
    }

    impl io::Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.got.len() >= self.room {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_top_help_names_the_benchmarks() {
        use clap::CommandFactory;
        for help in [
            Cli::command().render_help().to_string(),
            Cli::command().render_long_help().to_string(),
        ] {
            for name in ["BFCL", "StableToolBench"] {
                assert!(help.contains(name), "{name}: {help}");
            }
        }
    }

    #[test]
    fn a_closed_pipe_ends_printing_not_the_command() {
        let mut out = UntilClosed::new(Pipe {
            room: 3,
            got: Vec::new(),
        });
        writeln!(out, "one").unwrap();
        writeln!(out, "two").unwrap();
        writeln!(out, "three").unwrap();
        out.flush().unwrap();
        assert_eq!(out.inner.got, b"one\n");
        assert!(out.closed);
        // Other errors still stop the command.
        struct Full;
        impl io::Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::StorageFull.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        assert!(writeln!(UntilClosed::new(Full), "x").is_err());
    }
}
