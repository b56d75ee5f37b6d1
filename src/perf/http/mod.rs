//! `itc bench http`: the harness's own overhead against an instant loopback
//! server, side by side with `wrk` against the same server.
//!
//! An [`InstantServer`] on `127.0.0.1` (its own thread and tokio runtime,
//! HTTP/1.1 keep-alive, spoken by hand) answers every
//! `POST …/chat/completions` at once with the same small completion: a
//! strict ITC answer. The benchmark then, at each concurrency,
//!
//! 1. runs the real runner ([`crate::run::run_shared`], called as `itc eval`
//!    calls it: prompt mode, no cache, no progress bar, `predictions.jsonl`
//!    written to a temporary run directory) on N synthetic tasks
//!    ([`crate::perf::synth`]) a few times, and counts requests per second over
//!    each whole run (prompt rendering, request building, HTTP, response
//!    parsing and the prediction file included); the median run is reported;
//! 2. runs `wrk` against the same server, with the same headers and body as
//!    one request the harness sent (the first task's, captured at the
//!    server), for a few seconds with as many connections.
//!
//! Both clients share the machine's cores with the server, so the rates are
//! of the whole machine, not of the client alone. Beside them, CPU time per
//! request of the client and of the server (from `/proc`, Linux) shows the
//! harness's own cost, and the CPU time other processes took meanwhile is
//! checked: above 5% the figures are flagged as disturbed.
//!
//! This file runs the steps; `server.rs` is the instant server, `cpu.rs`
//! the CPU accounting, `client.rs` the in-process clients, `wrk.rs` wrk,
//! and `report.rs` the summary printed at the end.

mod client;
mod cpu;
mod report;
mod server;
mod wrk;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::perf::synth::{SynthSpec, synthesize};
use crate::spec::records::Task;
use crate::util::lock::create_fresh_dir;

pub use client::ClientRun;
pub use cpu::CpuPerRequest;
pub use server::{COMPLETION_BODY, CapturedRequest, InstantServer};
pub use wrk::{WrkResult, parse_wrk, wrk_script};

use client::{run_itc, run_reqwest};
use cpu::CpuSnapshot;
use wrk::{find_on_path, run_wrk};

/// What `itc bench http` measures, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchHttpOptions {
    /// Synthetic tasks the harness runs at each concurrency (one request each).
    pub tasks: usize,
    /// Concurrencies to measure (itc requests in flight; wrk connections).
    pub concurrency: Vec<usize>,
    /// Runs of the harness per concurrency; the median is reported.
    pub repeat: usize,
    /// Seconds of each wrk run.
    pub wrk_seconds: u64,
    /// Measure the harness only (no wrk).
    pub no_wrk: bool,
    /// Worker threads of the instant server (1: one thread, current-thread runtime).
    pub server_threads: usize,
    /// Seed of the task generator.
    pub seed: u64,
}

impl Default for BenchHttpOptions {
    fn default() -> BenchHttpOptions {
        BenchHttpOptions {
            tasks: 20_000,
            concurrency: vec![1, 32, 256],
            repeat: 3,
            wrk_seconds: 5,
            no_wrk: false,
            server_threads: 1,
            seed: 1,
        }
    }
}

/// One measured concurrency.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Requests in flight (itc) and connections (wrk).
    pub concurrency: usize,
    /// Requests the server answered per run of the harness (one per task).
    pub itc_requests: u64,
    /// Wall time of each run of the harness, shortest first.
    pub itc_elapsed: Vec<Duration>,
    /// Tasks that ended in an error, over all runs (should be 0).
    pub itc_errors: usize,
    /// CPU per request over the harness's runs.
    pub itc_cpu: CpuPerRequest,
    /// The HTTP client alone (reqwest sending the captured request).
    pub reqwest: Option<ClientRun>,
    /// wrk's figures, when wrk ran.
    pub wrk: Option<WrkResult>,
}

impl Measurement {
    /// The harness's requests per second in its median run.
    pub fn itc_rate(&self) -> f64 {
        self.rate(self.itc_elapsed[self.itc_elapsed.len() / 2])
    }

    /// The harness's requests per second in its fastest run.
    pub fn itc_best_rate(&self) -> f64 {
        self.rate(self.itc_elapsed[0])
    }

    fn rate(&self, elapsed: Duration) -> f64 {
        self.itc_requests as f64 / elapsed.as_secs_f64().max(1e-9)
    }

    /// itc's (median) rate over wrk's.
    pub fn ratio(&self) -> Option<f64> {
        self.wrk
            .as_ref()
            .filter(|w| w.requests_per_sec > 0.0)
            .map(|w| self.itc_rate() / w.requests_per_sec)
    }
}

/// Runs the benchmark and prints its figures.
pub fn run(options: &BenchHttpOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    measure(options, out).map(|_| ())
}

/// Runs the benchmark, prints its figures and returns them.
pub fn measure(
    options: &BenchHttpOptions,
    out: &mut dyn Write,
) -> anyhow::Result<Vec<Measurement>> {
    anyhow::ensure!(options.tasks > 0, "--tasks must be positive");
    anyhow::ensure!(
        !options.concurrency.is_empty() && options.concurrency.iter().all(|&c| c > 0),
        "--concurrency must list positive numbers"
    );
    anyhow::ensure!(options.wrk_seconds > 0, "--wrk-seconds must be positive");
    anyhow::ensure!(options.repeat > 0, "--repeat must be positive");
    let wrk = if options.no_wrk {
        None
    } else {
        Some(find_on_path("wrk").context(
            "wrk is not on PATH: install it (Debian/Ubuntu: `apt-get install wrk`) or pass --no-wrk",
        )?)
    };
    let dir = create_fresh_dir(
        &std::env::temp_dir().join(format!("itc-bench-http-{}", std::process::id())),
    )?;
    let result = measure_in(options, wrk.as_deref(), &dir, out);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// What every concurrency of one benchmark shares.
struct Bench<'a> {
    options: &'a BenchHttpOptions,
    tasks: Arc<Vec<Task>>,
    server: InstantServer,
    /// The first task's request, as the server received it.
    captured: CapturedRequest,
    /// wrk and the script it runs, when wrk is measured.
    wrk: Option<(&'a Path, PathBuf)>,
    /// The temporary directory of the harness's run directories.
    dir: &'a Path,
}

/// The benchmark in `dir`: start, warm up, measure each concurrency, sum up.
fn measure_in(
    options: &BenchHttpOptions,
    wrk: Option<&Path>,
    dir: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<Vec<Measurement>> {
    let (tasks, server) = start(options, out)?;
    let captured = warm_up(&server, &tasks, dir)?;
    let wrk = match wrk {
        Some(wrk) => Some((wrk, write_wrk_script(&server, &captured, dir, out)?)),
        None => None,
    };
    let bench = Bench {
        options,
        tasks,
        server,
        captured,
        wrk,
        dir,
    };
    let mut rows = Vec::new();
    for &concurrency in &options.concurrency {
        rows.push(bench.measure_concurrency(concurrency, out)?);
    }
    report::print_summary(&rows, options, bench.wrk.is_some(), out)?;
    Ok(rows)
}

/// Generates the tasks and starts the server; prints what runs where.
fn start(
    options: &BenchHttpOptions,
    out: &mut dyn Write,
) -> anyhow::Result<(Arc<Vec<Task>>, InstantServer)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = Instant::now();
    let tasks = Arc::new(
        synthesize(&SynthSpec {
            tasks: options.tasks,
            models: 0,
            seed: options.seed,
        })
        .tasks,
    );
    let generated = started.elapsed();
    let server = InstantServer::start(options.server_threads)?;
    writeln!(
        out,
        "itc bench http: {} synthetic tasks (generated in {:.2} s), instant server at {} ({} thread{})",
        options.tasks,
        generated.as_secs_f64(),
        server.base_url(),
        options.server_threads.max(1),
        if options.server_threads > 1 { "s" } else { "" }
    )?;
    writeln!(
        out,
        "{cores} core(s), shared by the server, the harness's runtime ({cores} worker thread(s) and its main thread) and wrk: figures are for the whole machine\n"
    )?;
    Ok((tasks, server))
}

/// Runs the harness on the first tasks, one request at a time so that the
/// request the server captures (and wrk sends) is always the first task's.
fn warm_up(server: &InstantServer, tasks: &[Task], dir: &Path) -> anyhow::Result<CapturedRequest> {
    let warm = Arc::new(tasks[..tasks.len().min(200)].to_vec());
    let (_, errors) = run_itc(server, &warm, 1, &dir.join("warm-up"))?;
    anyhow::ensure!(errors == 0, "the warm-up run had {errors} error(s)");
    server
        .captured()
        .context("the server captured no request of the harness")
}

/// Writes wrk's script (sending the captured request) into `dir` and says
/// what wrk sends; returns the script's path.
fn write_wrk_script(
    server: &InstantServer,
    captured: &CapturedRequest,
    dir: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<PathBuf> {
    let average_body = server.body_bytes() as f64 / server.completions().max(1) as f64;
    let script = dir.join("request.lua");
    std::fs::write(&script, wrk_script(captured))
        .with_context(|| format!("writing {}", script.display()))?;
    writeln!(
        out,
        "wrk sends one captured harness request: {} {} with a {}-byte body (harness bodies average {:.0} bytes)",
        captured.method,
        captured.path,
        captured.body.len(),
        average_body
    )?;
    Ok(script)
}

impl Bench<'_> {
    /// Measures one concurrency: the harness, reqwest alone, then wrk;
    /// prints one line of figures.
    fn measure_concurrency(
        &self,
        concurrency: usize,
        out: &mut dyn Write,
    ) -> anyhow::Result<Measurement> {
        let mut row = self.run_harness(concurrency)?;
        print_harness(&row, out)?;
        let bare = run_reqwest(
            &self.server,
            &self.captured,
            concurrency,
            row.itc_requests.max(1),
        )?;
        write!(out, "; reqwest alone {:>6.0} req/s", bare.requests_per_sec)?;
        row.reqwest = Some(bare);
        if let Some((wrk, script)) = &self.wrk {
            let result = run_wrk(
                wrk,
                script,
                &self.server,
                concurrency,
                self.options.wrk_seconds,
            )?;
            print_wrk(&result, out)?;
            row.wrk = Some(result);
        }
        writeln!(out)?;
        out.flush()?;
        Ok(row)
    }

    /// The harness's runs at one concurrency: their times, errors and CPU.
    fn run_harness(&self, concurrency: usize) -> anyhow::Result<Measurement> {
        let mut row = Measurement {
            concurrency,
            itc_requests: 0,
            itc_elapsed: Vec::new(),
            itc_errors: 0,
            itc_cpu: CpuPerRequest::default(),
            reqwest: None,
            wrk: None,
        };
        let server = &self.server;
        let before = CpuSnapshot::take(server.cpu_time());
        let first = server.completions();
        for r in 0..self.options.repeat {
            let sent = server.completions();
            let run_dir = self.dir.join(format!("c{concurrency}-run{r}"));
            let (elapsed, errors) = run_itc(server, &self.tasks, concurrency, &run_dir)?;
            row.itc_requests = server.completions() - sent;
            row.itc_elapsed.push(elapsed);
            row.itc_errors += errors;
            let _ = std::fs::remove_dir_all(&run_dir);
        }
        row.itc_cpu = before.per_request(
            &CpuSnapshot::take(server.cpu_time()),
            server.completions() - first,
            false,
        );
        row.itc_elapsed.sort();
        Ok(row)
    }
}

/// The harness's part of a concurrency's line (not ended).
fn print_harness(row: &Measurement, out: &mut dyn Write) -> anyhow::Result<()> {
    let times: Vec<String> = row
        .itc_elapsed
        .iter()
        .map(|d| format!("{:.2}", d.as_secs_f64()))
        .collect();
    write!(
        out,
        "concurrency {:>4}: itc {:>6.0} req/s median, {:>6.0} best ({} requests in {} s)",
        row.concurrency,
        row.itc_rate(),
        row.itc_best_rate(),
        row.itc_requests,
        times.join(" / ")
    )?;
    if row.itc_errors > 0 {
        write!(out, " with {} ERRORS", row.itc_errors)?;
    }
    Ok(())
}

/// wrk's part of a concurrency's line.
fn print_wrk(result: &WrkResult, out: &mut dyn Write) -> anyhow::Result<()> {
    write!(out, "; wrk {:>6.0} req/s", result.requests_per_sec)?;
    if result.non_2xx > 0 {
        write!(out, " ({} non-2xx responses)", result.non_2xx)?;
    }
    if let Some(errors) = &result.socket_errors {
        write!(out, " ({errors})")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_benchmark_completes_with_positive_rates() {
        let options = BenchHttpOptions {
            tasks: 50,
            concurrency: vec![1, 4],
            no_wrk: true,
            repeat: 2,
            ..BenchHttpOptions::default()
        };
        let mut out = Vec::new();
        let rows = measure(&options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(rows.len(), 2, "{text}");
        for (row, c) in rows.iter().zip([1, 4]) {
            assert_eq!(row.concurrency, c);
            assert_eq!(row.itc_requests, 50, "{text}");
            assert_eq!(row.itc_elapsed.len(), 2, "{text}");
            assert_eq!(row.itc_errors, 0, "{text}");
            assert!(
                row.itc_rate() > 0.0 && row.itc_best_rate() >= row.itc_rate(),
                "{text}"
            );
            assert!(row.wrk.is_none() && row.ratio().is_none());
            assert!(row.reqwest.unwrap().requests_per_sec > 0.0, "{text}");
        }
        assert!(text.contains("itc req/s"), "{text}");
    }

    /// With wrk installed, its request (the captured one) is answered as a
    /// completion: no non-2xx responses, a positive rate.
    #[test]
    fn wrk_sends_the_captured_request_when_installed() {
        if find_on_path("wrk").is_none() {
            eprintln!("wrk not installed: skipped");
            return;
        }
        let options = BenchHttpOptions {
            tasks: 20,
            concurrency: vec![2],
            repeat: 1,
            wrk_seconds: 1,
            ..BenchHttpOptions::default()
        };
        let mut out = Vec::new();
        let rows = measure(&options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let wrk = rows[0].wrk.as_ref().expect("wrk ran");
        assert!(wrk.requests_per_sec > 0.0 && wrk.requests > 0, "{text}");
        assert_eq!(wrk.non_2xx, 0, "{text}");
        assert!(rows[0].ratio().is_some(), "{text}");
    }
}
