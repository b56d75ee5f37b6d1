//! `itc bench scoring`: end-to-end scoring throughput and memory on synthetic inputs.
//!
//! Generates a task file and a prediction file with [`crate::perf::synth`], then
//! runs the library path of `itc score` on them several times
//! ([`evaluate`] then [`aggregate`]), timing each phase with wall clocks:
//!
//! - **evaluate**: read the task file, then read, parse and score every
//!   prediction (streamed);
//! - **aggregate**: macro/micro averages and error shares, with and without
//!   bootstrap intervals, without breakdowns (as `itc score` without
//!   `--out`), and once with breakdowns (as with `--out`);
//! - **report**: the terminal tables `itc score` prints.
//!
//! Memory: the peak resident set (VmHWM of `/proc/self/status`) is read
//! before and after scoring. The generator streams its output, so it holds
//! little, and on Linux the peak is reset (`/proc/self/clear_refs`) before
//! scoring so the figure is the scorer's own. For an outside measurement,
//! `itc bench scoring --generate-only --dir D` writes the files and prints the
//! `/usr/bin/time -v itc score …` command to run on them.
//!
//! Scoring runs on one thread unless `--threads` says more (the lines are
//! then parsed and scored in parallel, see `stream::parallel`); the
//! aggregation is single-threaded.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::perf::synth::{SynthFiles, SynthSpec, write_synthetic};
use crate::score::aggregate::{AggregateOptions, ModelReport, Summary, aggregate};
use crate::score::report;
use crate::score::stream::{EvalOptions, Evaluation, Outcomes, evaluate};
use crate::spec::jsonl::read_records;
use crate::spec::records::{Extraction, Task};
use crate::util::lock::create_fresh_dir;

/// Options of `itc bench scoring`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchOptions {
    /// Number of synthetic tasks.
    pub tasks: usize,
    /// Number of synthetic models; each answers every task once.
    pub models: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Directory for the generated files (created if needed, never removed);
    /// `None`: a fresh directory under the system temp dir, removed at the
    /// end unless `keep` or `generate_only`.
    pub dir: Option<PathBuf>,
    /// Keep the generated files.
    pub keep: bool,
    /// Bootstrap resamples for the intervals, as in `itc score`.
    pub bootstrap: usize,
    /// Scoring runs; best and median are reported.
    pub repeat: usize,
    /// Only write the files (kept) and print how to measure `itc score` on them.
    pub generate_only: bool,
    /// Threads that parse and score; 1 measures one core.
    pub threads: u32,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            tasks: 5000,
            models: 200,
            seed: 1,
            dir: None,
            keep: false,
            bootstrap: 1000,
            repeat: 3,
            generate_only: false,
            threads: 1,
        }
    }
}

/// Seed of the bootstrap, as `itc score` uses by default.
const BOOTSTRAP_SEED: u64 = 20250101;

/// A labelled phase and how to read its time from a run.
type Phase = (String, fn(&RunTimes) -> Duration);

/// Wall times of one scoring run.
#[derive(Debug, Clone, Copy)]
struct RunTimes {
    evaluate: Duration,
    aggregate_plain: Duration,
    aggregate_bootstrap: Duration,
    report: Duration,
}

/// The scoring runs' times.
struct Timings {
    runs: Vec<RunTimes>,
    /// Aggregation with bootstrap and breakdowns, once after the last run.
    breakdowns: Duration,
    /// Reading the task file alone, once.
    task_read: Duration,
}

impl Timings {
    /// Best and median of one figure over the runs.
    fn best_and_median(&self, figure: fn(&RunTimes) -> Duration) -> (Duration, Duration) {
        let mut v: Vec<Duration> = self.runs.iter().map(figure).collect();
        v.sort();
        (v[0], v[v.len() / 2])
    }
}

/// Peak and resident memory at the three moments the benchmark reads them.
struct MemoryReadings {
    after_generation: Option<Memory>,
    /// Whether the peak could be reset before scoring.
    reset: bool,
    before_scoring: Option<Memory>,
    after_scoring: Option<Memory>,
}

/// Runs the benchmark and prints its figures.
pub fn run(options: &BenchOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(
        options.tasks > 0 && options.models > 0,
        "--tasks and --models must be positive"
    );
    anyhow::ensure!(options.repeat > 0, "--repeat must be positive");
    let (dir, owned) = match &options.dir {
        Some(d) => (d.clone(), false),
        None => (
            create_fresh_dir(
                &std::env::temp_dir().join(format!("itc-bench-{}", std::process::id())),
            )?,
            true,
        ),
    };
    let keep = options.keep || options.generate_only || !owned;
    let result = run_in(options, &dir, out);
    if !keep {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    } else if result.is_ok() {
        writeln!(out, "\nfiles kept in {}", dir.display())?;
    }
    result
}

/// Generates the files into `dir`, then scores them and prints the figures
/// (or, with `generate_only`, how to measure `itc score` on them).
fn run_in(options: &BenchOptions, dir: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    print_header(out, options)?;
    let spec = SynthSpec {
        tasks: options.tasks,
        models: options.models,
        seed: options.seed,
    };
    let start = Instant::now();
    let files = write_synthetic(dir, &spec)?;
    let generate = start.elapsed();
    print_inputs(out, &files, generate)?;
    if options.generate_only {
        return print_measure_commands(out, &files, options.bootstrap);
    }

    let after_generation = memory();
    let reset = reset_peak_memory();
    let before_scoring = memory();
    writeln!(out)?;
    let (runs, breakdowns) = time_scoring(out, options, &files)?;
    let memory = MemoryReadings {
        after_generation,
        reset,
        before_scoring,
        after_scoring: memory(),
    };
    let timings = Timings {
        runs,
        breakdowns,
        task_read: time_task_read(&files.tasks_path)?,
    };
    print_phases(out, &timings, options.bootstrap)?;
    print_end_to_end(out, &timings, &files, options.bootstrap)?;
    print_memory(out, &memory, options, &files)
}

fn print_header(out: &mut dyn Write, options: &BenchOptions) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    writeln!(
        out,
        "itc bench scoring: {} tasks x {} models = {} predictions (seed {})",
        options.tasks,
        options.models,
        thousands(options.tasks * options.models),
        options.seed
    )?;
    let threads = options.threads;
    if threads == 1 {
        writeln!(
            out,
            "scoring on one thread: figures are for one core ({cores} available on this machine)\n"
        )?;
    } else {
        writeln!(
            out,
            "scoring on {threads} threads ({cores} cores on this machine); aggregation on one\n"
        )?;
    }
    Ok(())
}

/// The `itc score` commands to measure from outside (`--generate-only`).
fn print_measure_commands(
    out: &mut dyn Write,
    files: &SynthFiles,
    bootstrap: usize,
) -> anyhow::Result<()> {
    writeln!(out, "\nmeasure `itc score` on these files, for example:")?;
    for bootstrap in [0, bootstrap] {
        writeln!(
            out,
            "  /usr/bin/time -v itc score --tasks {} --predictions {} --bootstrap {bootstrap} > /dev/null",
            files.tasks_path.display(),
            files.predictions_path.display()
        )?;
    }
    writeln!(
        out,
        "(\"Maximum resident set size\" is the peak memory; \"Elapsed (wall clock) time\" the end-to-end time)"
    )?;
    Ok(())
}

/// Scores the files `options.repeat` times, printing each run's times; the
/// first run is checked and its quality printed, the last is followed by an
/// aggregation with breakdowns. Returns the runs' times and that last one.
fn time_scoring(
    out: &mut dyn Write,
    options: &BenchOptions,
    files: &SynthFiles,
) -> anyhow::Result<(Vec<RunTimes>, Duration)> {
    let paths = [files.predictions_path.clone()];
    let eval_options = EvalOptions {
        threads: options.threads as usize,
        ..EvalOptions::default()
    };
    let aggregate_options = |resamples, breakdowns| AggregateOptions {
        resamples,
        seed: BOOTSTRAP_SEED,
        breakdowns,
    };
    let mut runs = Vec::with_capacity(options.repeat);
    let mut breakdowns = Duration::ZERO;
    for r in 0..options.repeat {
        let t0 = Instant::now();
        let evaluation = evaluate(&files.tasks_path, &paths, &eval_options)?;
        let t1 = Instant::now();
        let plain = aggregate(&evaluation, aggregate_options(0, false));
        let t2 = Instant::now();
        let reports = aggregate(&evaluation, aggregate_options(options.bootstrap, false));
        let t3 = Instant::now();
        let tables = [
            report::main_table(&reports, false),
            report::error_table(&reports, false),
            report::detail_table(&reports, false),
        ];
        let t4 = Instant::now();
        std::hint::black_box((&plain, &tables));

        if r == 0 {
            check_evaluation(&evaluation, files)?;
            print_quality(out, &evaluation, &reports)?;
        }
        if r + 1 == options.repeat {
            let t = Instant::now();
            let full = aggregate(&evaluation, aggregate_options(options.bootstrap, true));
            breakdowns = t.elapsed();
            std::hint::black_box(&full);
        }
        let times = RunTimes {
            evaluate: t1 - t0,
            aggregate_plain: t2 - t1,
            aggregate_bootstrap: t3 - t2,
            report: t4 - t3,
        };
        writeln!(
            out,
            "run {}/{}: evaluate {}, aggregate {} (bootstrap 0) / {} (bootstrap {}), tables {}",
            r + 1,
            options.repeat,
            secs(times.evaluate),
            secs(times.aggregate_plain),
            secs(times.aggregate_bootstrap),
            options.bootstrap,
            secs(times.report)
        )?;
        runs.push(times);
    }
    Ok((runs, breakdowns))
}

/// Time to read the task file alone (part of every evaluate).
fn time_task_read(tasks_path: &Path) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let (tasks, _) = read_records::<Task>(tasks_path, false)?;
    let task_read = t.elapsed();
    drop(tasks);
    Ok(task_read)
}

/// Best and median time of each phase.
fn print_phases(out: &mut dyn Write, timings: &Timings, bootstrap: usize) -> anyhow::Result<()> {
    writeln!(
        out,
        "\nphase (wall time)                         best       median"
    )?;
    let phases: [Phase; 4] = [
        ("evaluate: read + parse + score".into(), |t| t.evaluate),
        ("aggregate, bootstrap 0".into(), |t| t.aggregate_plain),
        (format!("aggregate, bootstrap {bootstrap}"), |t| {
            t.aggregate_bootstrap
        }),
        ("terminal tables".into(), |t| t.report),
    ];
    for (name, f) in phases {
        let (best, median) = timings.best_and_median(f);
        writeln!(out, "  {name:<39} {:>9}  {:>9}", secs(best), secs(median))?;
    }
    writeln!(
        out,
        "  {:<39} {:>9}  (once)",
        "of evaluate: reading the task file",
        secs(timings.task_read)
    )?;
    writeln!(
        out,
        "  {:<39} {:>9}  (once)",
        format!("aggregate, bootstrap {bootstrap} + breakdowns"),
        secs(timings.breakdowns)
    )?;
    Ok(())
}

/// Throughput of evaluate + aggregate + tables, with and without bootstrap,
/// and of evaluate alone.
fn print_end_to_end(
    out: &mut dyn Write,
    timings: &Timings,
    files: &SynthFiles,
    bootstrap: usize,
) -> anyhow::Result<()> {
    let n = files.prediction_count as f64;
    let megabytes = files.predictions_bytes as f64 / 1e6;
    writeln!(
        out,
        "\nend to end (evaluate + aggregate + tables), {} predictions, {:.1} MB:",
        thousands(files.prediction_count),
        megabytes
    )?;
    let ends: [Phase; 2] = [
        ("bootstrap 0".into(), |t| {
            t.evaluate + t.aggregate_plain + t.report
        }),
        (format!("bootstrap {bootstrap}"), |t| {
            t.evaluate + t.aggregate_bootstrap + t.report
        }),
    ];
    let rate = |d: Duration| {
        format!(
            "{} = {} predictions/s, {:.1} MB/s",
            secs(d),
            thousands((n / d.as_secs_f64()) as usize),
            megabytes / d.as_secs_f64()
        )
    };
    for (name, f) in ends {
        let (best, median) = timings.best_and_median(f);
        writeln!(
            out,
            "  {name:<16} best {}; median {}",
            rate(best),
            rate(median)
        )?;
    }
    let (best_eval, _) = timings.best_and_median(|t| t.evaluate);
    writeln!(
        out,
        "  evaluate alone: {} predictions/s, {:.1} MB/s of prediction input ({:.0} bytes per prediction)",
        thousands((n / best_eval.as_secs_f64()) as usize),
        megabytes / best_eval.as_secs_f64(),
        files.predictions_bytes as f64 / n
    )?;
    Ok(())
}

/// The memory readings, and what the per-task outcomes take of them.
fn print_memory(
    out: &mut dyn Write,
    memory: &MemoryReadings,
    options: &BenchOptions,
    files: &SynthFiles,
) -> anyhow::Result<()> {
    writeln!(out, "\nmemory (from /proc/self/status)")?;
    let (Some(g), Some(b), Some(a)) = (
        memory.after_generation,
        memory.before_scoring,
        memory.after_scoring,
    ) else {
        writeln!(out, "  not available on this system (no /proc/self/status)")?;
        return Ok(());
    };
    writeln!(
        out,
        "  after generating the files:   peak {:>8}, resident {:>8}",
        mib(g.peak_kb),
        mib(g.resident_kb)
    )?;
    if memory.reset {
        writeln!(
            out,
            "  peak reset before scoring:    peak {:>8}, resident {:>8}",
            mib(b.peak_kb),
            mib(b.resident_kb)
        )?;
    } else {
        writeln!(
            out,
            "  (peak could not be reset: the peak below includes the generator's)"
        )?;
    }
    writeln!(
        out,
        "  after {} scoring run(s):       peak {:>8}, resident {:>8}",
        options.repeat,
        mib(a.peak_kb),
        mib(a.resident_kb)
    )?;
    writeln!(
        out,
        "  peak while scoring {} predictions: {} (for an outside figure: itc bench scoring --generate-only, then /usr/bin/time -v itc score)",
        thousands(files.prediction_count),
        mib(a.peak_kb)
    )?;
    let outcome = Outcomes::SLOT_BYTES;
    writeln!(
        out,
        "  per-task outcomes: {} models x {} tasks x {outcome} bytes = {}, kept in mapped scratch files and let go after each pass, so not resident (an outcome that does not pack takes {} more bytes there)",
        options.models,
        options.tasks,
        mib((options.models * options.tasks * outcome / 1024) as u64),
        Outcomes::WIDE_BYTES
    )?;
    Ok(())
}

fn print_inputs(out: &mut dyn Write, files: &SynthFiles, generate: Duration) -> anyhow::Result<()> {
    writeln!(
        out,
        "inputs: {} ({}), {} ({}, {:.0} bytes per prediction)",
        files.tasks_path.display(),
        mb(files.tasks_bytes),
        files.predictions_path.display(),
        mb(files.predictions_bytes),
        files.predictions_bytes as f64 / files.prediction_count.max(1) as f64
    )?;
    writeln!(
        out,
        "generated in {} ({} predictions/s, {:.0} MB/s written)",
        secs(generate),
        thousands((files.prediction_count as f64 / generate.as_secs_f64()) as usize),
        (files.predictions_bytes + files.tasks_bytes) as f64 / 1e6 / generate.as_secs_f64()
    )?;
    let total = files.prediction_count.max(1) as f64;
    let styles: Vec<String> = files
        .style_counts
        .iter()
        .map(|(s, n)| format!("{} {:.1}%", s.as_str(), 100.0 * *n as f64 / total))
        .collect();
    writeln!(out, "answer styles: {}", styles.join(", "))?;
    let kinds: Vec<String> = files
        .kind_counts
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    writeln!(out, "task kinds: {}", kinds.join(", "))?;
    Ok(())
}

/// Fails when the scorer did not see every generated prediction exactly once.
fn check_evaluation(evaluation: &Evaluation, files: &SynthFiles) -> anyhow::Result<()> {
    let scored: usize = evaluation
        .models
        .iter()
        .map(|m| m.outcomes.len() - m.missing)
        .sum();
    anyhow::ensure!(
        scored == files.prediction_count
            && evaluation.unknown.is_empty()
            && evaluation.skipped.is_empty()
            && evaluation.models.iter().all(|m| m.duplicates == 0),
        "scored {scored} of {} predictions ({} unknown, {} skipped)",
        files.prediction_count,
        evaluation.unknown.len(),
        evaluation.skipped.len()
    );
    Ok(())
}

/// A one-line sanity view of what was scored: averages over all models.
fn print_quality(
    out: &mut dyn Write,
    evaluation: &Evaluation,
    reports: &[ModelReport],
) -> anyhow::Result<()> {
    let n = reports.len().max(1) as f64;
    let mean = |f: fn(&Summary) -> f64| reports.iter().map(|r| f(&r.summary)).sum::<f64>() / n;
    let mut extraction = [0usize; 8];
    let kinds = Extraction::ALL;
    for run in &evaluation.models {
        for o in run.outcomes.iter() {
            if let Some(i) = kinds.iter().position(|k| *k == o.extraction) {
                extraction[i] += 1;
            }
        }
    }
    let total = extraction.iter().sum::<usize>().max(1) as f64;
    writeln!(
        out,
        "scored (mean over models): LM {:.1}, FM {:.1}, selection F1 {:.1}, invocation F1 {:.1}",
        mean(|s| s.lm),
        mean(|s| s.fm),
        mean(|s| s.selection.f1),
        mean(|s| s.invocation.f1)
    )?;
    let shares: Vec<String> = kinds
        .iter()
        .zip(extraction)
        .filter(|(_, c)| *c > 0)
        .map(|(k, c)| {
            format!(
                "{} {:.1}%",
                serde_json::to_value(k)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                100.0 * c as f64 / total
            )
        })
        .collect();
    writeln!(out, "extraction: {}\n", shares.join(", "))?;
    Ok(())
}

#[derive(Debug, Clone, Copy)]
struct Memory {
    peak_kb: u64,
    resident_kb: u64,
}

/// VmHWM and VmRSS of this process, in kB.
fn memory() -> Option<Memory> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some(Memory {
        peak_kb: field("VmHWM:")?,
        resident_kb: field("VmRSS:")?,
    })
}

/// Resets VmHWM to the current resident size (Linux ≥ 4.0: writing 5 to
/// `/proc/self/clear_refs`). Returns whether it worked.
fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn mib(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_run_prints_every_figure() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("bench");
        let options = BenchOptions {
            tasks: 30,
            models: 2,
            seed: 3,
            dir: Some(dir.clone()),
            keep: false,
            bootstrap: 20,
            repeat: 2,
            generate_only: false,
            threads: 2,
        };
        let mut out = Vec::new();
        run(&options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for needle in [
            "60 predictions",
            "evaluate: read + parse + score",
            "bootstrap 20",
            "predictions/s",
            "MB/s",
            "memory",
            "scoring on 2 threads",
        ] {
            assert!(text.contains(needle), "{needle} missing from:\n{text}");
        }
        // A directory given with --dir belongs to the caller and is kept.
        assert!(dir.join("predictions.jsonl").exists());
    }

    #[test]
    fn default_directory_is_temporary() {
        let options = BenchOptions {
            tasks: 10,
            models: 1,
            seed: 1,
            dir: None,
            keep: false,
            bootstrap: 0,
            repeat: 1,
            generate_only: false,
            threads: 1,
        };
        let mut out = Vec::new();
        run(&options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let path = text
            .lines()
            .find_map(|l| l.strip_prefix("inputs: "))
            .and_then(|l| l.split(" (").next())
            .unwrap();
        let dir = Path::new(path).parent().unwrap();
        assert!(dir.starts_with(std::env::temp_dir()), "{path}");
        assert!(!dir.exists(), "{} left behind", dir.display());
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
