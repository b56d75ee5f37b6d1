//! `itc bench-http`: the harness's own overhead against an instant loopback
//! server, side by side with `wrk` against the same server.
//!
//! An [`InstantServer`] on `127.0.0.1` (its own thread and tokio runtime,
//! HTTP/1.1 keep-alive, spoken by hand) answers every
//! `POST …/chat/completions` at once with the same small completion: a
//! strict ITC answer. The benchmark then, at each concurrency,
//!
//! 1. runs the real runner ([`crate::models::run_shared`], called as `itc eval`
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

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::models::{Backend, Mode, ModelConfig, ModelSpec, RunOptions, run_shared};
use crate::perf::synth::{SynthSpec, synthesize};
use crate::spec::records::Task;

/// Arguments of `itc bench-http`.
#[derive(Debug, Clone, Args)]
pub struct BenchHttpArgs {
    /// Synthetic tasks the harness runs at each concurrency (one request each).
    #[arg(long, default_value_t = 20_000)]
    pub tasks: usize,
    /// Concurrencies to measure (itc requests in flight; wrk connections), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,32,256")]
    pub concurrency: Vec<usize>,
    /// Runs of the harness per concurrency; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Seconds of each wrk run.
    #[arg(long, default_value_t = 5)]
    pub wrk_seconds: u64,
    /// Measure the harness only (no wrk).
    #[arg(long)]
    pub no_wrk: bool,
    /// Worker threads of the instant server (1: one thread, current-thread runtime).
    #[arg(long, default_value_t = 1)]
    pub server_threads: usize,
    /// Seed of the task generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The answer of the instant server: a strict ITC answer with token counts.
pub const COMPLETION_BODY: &str = concat!(
    r#"{"id":"chatcmpl-bench","object":"chat.completion","created":0,"model":"instant","#,
    r#""choices":[{"index":0,"message":{"role":"assistant","content":"#,
    r#""{\"Thought\": \"No tool is needed.\", \"Action\": \"[]\"}"},"finish_reason":"stop"}],"#,
    r#""usage":{"prompt_tokens":100,"completion_tokens":12,"total_tokens":112}}"#
);

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedRequest {
    /// `POST`.
    pub method: String,
    /// Request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers in arrival order, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

#[derive(Debug, Default)]
struct ServerState {
    completions: AtomicU64,
    body_bytes: AtomicU64,
    captured_any: AtomicBool,
    captured: Mutex<Option<CapturedRequest>>,
    /// `/proc/PID/task/TID/stat` of each server thread (Linux), for its CPU time.
    threads: Mutex<Vec<PathBuf>>,
}

impl ServerState {
    /// Notes the calling thread as a server thread.
    fn register_thread(&self) {
        if let Ok(link) = std::fs::read_link("/proc/thread-self") {
            lock(&self.threads).push(Path::new("/proc").join(link).join("stat"));
        }
    }
}

/// A loopback OpenAI-compatible server answering every chat completion at
/// once with [`COMPLETION_BODY`]. It runs on its own thread and runtime;
/// dropping it stops it.
#[derive(Debug)]
pub struct InstantServer {
    addr: SocketAddr,
    state: Arc<ServerState>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl InstantServer {
    /// Starts a server on an ephemeral port of 127.0.0.1 with `threads`
    /// runtime threads (1: a current-thread runtime on one thread).
    pub fn start(threads: usize) -> anyhow::Result<InstantServer> {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").context("binding a loopback port")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(ServerState::default());
        let runtime = if threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        } else {
            let workers = Arc::clone(&state);
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads)
                .on_thread_start(move || workers.register_thread())
                .enable_all()
                .build()
        }
        .context("starting the server runtime")?;
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let thread_state = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("instant-server".into())
            .spawn(move || {
                thread_state.register_thread();
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    loop {
                        tokio::select! {
                            accepted = listener.accept() => {
                                let Ok((stream, _)) = accepted else { continue };
                                let _ = stream.set_nodelay(true);
                                tokio::spawn(serve(stream, Arc::clone(&thread_state)));
                            }
                            _ = &mut stop => break,
                        }
                    }
                });
                runtime.shutdown_timeout(Duration::from_millis(100));
            })
            .context("starting the server thread")?;
        Ok(InstantServer {
            addr,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Chat completions answered so far.
    pub fn completions(&self) -> u64 {
        self.state.completions.load(Ordering::Relaxed)
    }

    /// Request body bytes received with those completions.
    pub fn body_bytes(&self) -> u64 {
        self.state.body_bytes.load(Ordering::Relaxed)
    }

    /// CPU time of the server's threads so far (Linux; `None` elsewhere).
    pub fn cpu_time(&self) -> Option<Duration> {
        let threads = lock(&self.state.threads);
        if threads.is_empty() {
            return None;
        }
        threads
            .iter()
            .map(|p| cpu_fields(p).map(|f| f[0] + f[1]))
            .sum()
    }

    /// The first chat completion request received, if any.
    pub fn captured(&self) -> Option<CapturedRequest> {
        lock(&self.state.captured).clone()
    }
}

impl Drop for InstantServer {
    fn drop(&mut self) {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the parser found at the start of the read buffer.
enum Parsed {
    /// A whole request of this many bytes.
    Request {
        len: usize,
        completion: bool,
        close: bool,
    },
    /// More bytes are needed.
    Partial,
    /// Not HTTP this server understands.
    Bad,
}

/// Serves one connection: every complete request in the buffer is answered,
/// the answers written together (pipelining works).
async fn serve(mut stream: TcpStream, state: Arc<ServerState>) {
    let ok = response(200, COMPLETION_BODY);
    let not_found = response(404, r#"{"error":{"message":"not found"}}"#);
    let bad = response(400, r#"{"error":{"message":"bad request"}}"#);
    let mut buffer: Vec<u8> = Vec::with_capacity(32 * 1024);
    let mut out: Vec<u8> = Vec::with_capacity(4 * 1024);
    loop {
        if buffer.capacity() - buffer.len() < 16 * 1024 {
            buffer.reserve(32 * 1024);
        }
        match stream.read_buf(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut consumed = 0;
        let mut close = false;
        while !close {
            match parse(&buffer[consumed..], &state) {
                Parsed::Request {
                    len,
                    completion,
                    close: c,
                } => {
                    out.extend_from_slice(if completion { &ok } else { &not_found });
                    consumed += len;
                    close = c;
                }
                Parsed::Partial => break,
                Parsed::Bad => {
                    out.extend_from_slice(&bad);
                    close = true;
                }
            }
        }
        buffer.drain(..consumed);
        if !out.is_empty() {
            if stream.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
        if close {
            let _ = stream.shutdown().await;
            return;
        }
    }
}

fn response(status: u16, body: &str) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses one request at the start of `data`; counts and (the first time)
/// captures chat completions.
fn parse(data: &[u8], state: &ServerState) -> Parsed {
    let Some(end) = find(data, b"\r\n\r\n") else {
        return if data.len() > 64 * 1024 {
            Parsed::Bad
        } else {
            Parsed::Partial
        };
    };
    let Ok(head) = std::str::from_utf8(&data[..end]) else {
        return Parsed::Bad;
    };
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(path), Some(version)) = (first.next(), first.next(), first.next())
    else {
        return Parsed::Bad;
    };
    let mut length = 0usize;
    let mut close = version == "HTTP/1.0";
    for line in lines.clone() {
        let Some((name, value)) = line.split_once(':') else {
            return Parsed::Bad;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let Ok(n) = value.parse() else {
                return Parsed::Bad;
            };
            length = n;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Parsed::Bad; // chunked bodies are not needed here
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        }
    }
    let len = end + 4 + length;
    if data.len() < len {
        return Parsed::Partial;
    }
    let completion = method == "POST" && path.ends_with("/chat/completions");
    if completion {
        state.completions.fetch_add(1, Ordering::Relaxed);
        state.body_bytes.fetch_add(length as u64, Ordering::Relaxed);
        if !state.captured_any.load(Ordering::Relaxed) {
            let mut captured = lock(&state.captured);
            if captured.is_none() {
                *captured = Some(CapturedRequest {
                    method: method.to_string(),
                    path: path.to_string(),
                    headers: lines
                        .filter_map(|l| l.split_once(':'))
                        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
                        .collect(),
                    body: data[end + 4..len].to_vec(),
                });
                state.captured_any.store(true, Ordering::Relaxed);
            }
        }
    }
    Parsed::Request {
        len,
        completion,
        close,
    }
}

/// CPU time per request of a client and of the server (Linux only).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CpuPerRequest {
    /// The client's (the harness's, or wrk's) CPU time per request.
    pub client: Option<Duration>,
    /// The server's CPU time per request.
    pub server: Option<Duration>,
    /// Share of the machine's CPU time used by other processes meanwhile
    /// (0 to 1; more than a few percent disturbs the figures).
    pub other_load: Option<f64>,
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

/// Requests per second and CPU of a bare client run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientRun {
    /// Requests per second.
    pub requests_per_sec: f64,
    /// CPU per request of the client and of the server.
    pub cpu: CpuPerRequest,
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

/// What one wrk run reported.
#[derive(Debug, Clone, PartialEq)]
pub struct WrkResult {
    /// `Requests/sec:`.
    pub requests_per_sec: f64,
    /// Requests completed (`N requests in …`).
    pub requests: u64,
    /// `Non-2xx or 3xx responses:` (0 when absent).
    pub non_2xx: u64,
    /// The `Socket errors:` line, when present.
    pub socket_errors: Option<String>,
    /// CPU per request of wrk and of the server.
    pub cpu: CpuPerRequest,
}

/// Runs the benchmark and prints its figures.
pub fn run(args: &BenchHttpArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    measure(args, out).map(|_| ())
}

/// Runs the benchmark, prints its figures and returns them.
pub fn measure(args: &BenchHttpArgs, out: &mut dyn Write) -> anyhow::Result<Vec<Measurement>> {
    anyhow::ensure!(args.tasks > 0, "--tasks must be positive");
    anyhow::ensure!(
        !args.concurrency.is_empty() && args.concurrency.iter().all(|&c| c > 0),
        "--concurrency must list positive numbers"
    );
    anyhow::ensure!(args.wrk_seconds > 0, "--wrk-seconds must be positive");
    anyhow::ensure!(args.repeat > 0, "--repeat must be positive");
    let wrk = if args.no_wrk {
        None
    } else {
        Some(find_on_path("wrk").context(
            "wrk is not on PATH: install it (Debian/Ubuntu: `apt-get install wrk`) or pass --no-wrk",
        )?)
    };
    let dir = fresh_temp_dir()?;
    let result = measure_in(args, wrk.as_deref(), &dir, out);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// CPU counters at one moment: this process, its reaped children, the server.
#[derive(Debug, Clone, Copy)]
struct CpuSnapshot {
    process: Option<(Duration, Duration)>,
    server: Option<Duration>,
    machine: Option<(Duration, Duration)>,
}

impl CpuSnapshot {
    fn take(server: &InstantServer) -> CpuSnapshot {
        CpuSnapshot {
            process: process_cpu(),
            server: server.cpu_time(),
            machine: machine_cpu(),
        }
    }

    /// CPU per request since `self`: the harness's (this process less the
    /// server) or the children's (wrk), and the server's.
    fn per_request(&self, later: &CpuSnapshot, requests: u64, children: bool) -> CpuPerRequest {
        let requests = u32::try_from(requests.max(1)).unwrap_or(u32::MAX);
        let server = match (self.server, later.server) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        let client = match (self.process, later.process) {
            (Some((own_a, kids_a)), Some((own_b, kids_b))) => {
                if children {
                    Some(kids_b.saturating_sub(kids_a))
                } else {
                    server.map(|s| own_b.saturating_sub(own_a).saturating_sub(s))
                }
            }
            _ => None,
        };
        let other_load = match (self.machine, later.machine, self.process, later.process) {
            (
                Some((busy_a, all_a)),
                Some((busy_b, all_b)),
                Some((own_a, kids_a)),
                Some((own_b, kids_b)),
            ) if all_b > all_a => {
                let ours = (own_b + kids_b).saturating_sub(own_a + kids_a);
                let others = (busy_b.saturating_sub(busy_a)).saturating_sub(ours);
                Some(others.as_secs_f64() / (all_b - all_a).as_secs_f64())
            }
            _ => None,
        };
        CpuPerRequest {
            client: client.map(|c| c / requests),
            server: server.map(|s| s / requests),
            other_load,
        }
    }
}

fn micros(d: Option<Duration>) -> String {
    d.map_or("-".to_string(), |d| format!("{:.1}", d.as_secs_f64() * 1e6))
}

fn measure_in(
    args: &BenchHttpArgs,
    wrk: Option<&Path>,
    dir: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<Vec<Measurement>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = Instant::now();
    let tasks = Arc::new(
        synthesize(&SynthSpec {
            tasks: args.tasks,
            models: 0,
            seed: args.seed,
        })
        .tasks,
    );
    let generated = started.elapsed();
    let server = InstantServer::start(args.server_threads)?;
    writeln!(
        out,
        "itc bench-http: {} synthetic tasks (generated in {:.2} s), instant server at {} ({} thread{})",
        args.tasks,
        generated.as_secs_f64(),
        server.base_url(),
        args.server_threads.max(1),
        if args.server_threads > 1 { "s" } else { "" }
    )?;
    writeln!(
        out,
        "{cores} core(s), shared by the server, the harness's runtime ({cores} worker thread(s) and its main thread) and wrk: figures are for the whole machine\n"
    )?;

    // Warm-up, one request at a time so that the request the server
    // captures (and wrk sends) is always the first task's.
    let warm = Arc::new(tasks[..tasks.len().min(200)].to_vec());
    let (_, errors) = run_itc(&server, &warm, 1, &dir.join("warm-up"))?;
    anyhow::ensure!(errors == 0, "the warm-up run had {errors} error(s)");
    let captured = server
        .captured()
        .context("the server captured no request of the harness")?;
    let average_body = server.body_bytes() as f64 / server.completions().max(1) as f64;
    let script = dir.join("request.lua");
    if wrk.is_some() {
        std::fs::write(&script, wrk_script(&captured))
            .with_context(|| format!("writing {}", script.display()))?;
        writeln!(
            out,
            "wrk sends one captured harness request: {} {} with a {}-byte body (harness bodies average {:.0} bytes)",
            captured.method,
            captured.path,
            captured.body.len(),
            average_body
        )?;
    }

    let mut rows = Vec::new();
    for &c in &args.concurrency {
        let mut row = Measurement {
            concurrency: c,
            itc_requests: 0,
            itc_elapsed: Vec::new(),
            itc_errors: 0,
            itc_cpu: CpuPerRequest::default(),
            reqwest: None,
            wrk: None,
        };
        let before = CpuSnapshot::take(&server);
        let first = server.completions();
        for r in 0..args.repeat {
            let sent = server.completions();
            let run_dir = dir.join(format!("c{c}-run{r}"));
            let (elapsed, errors) = run_itc(&server, &tasks, c, &run_dir)?;
            row.itc_requests = server.completions() - sent;
            row.itc_elapsed.push(elapsed);
            row.itc_errors += errors;
            let _ = std::fs::remove_dir_all(&run_dir);
        }
        row.itc_cpu = before.per_request(
            &CpuSnapshot::take(&server),
            server.completions() - first,
            false,
        );
        row.itc_elapsed.sort();
        let times: Vec<String> = row
            .itc_elapsed
            .iter()
            .map(|d| format!("{:.2}", d.as_secs_f64()))
            .collect();
        write!(
            out,
            "concurrency {c:>4}: itc {:>6.0} req/s median, {:>6.0} best ({} requests in {} s)",
            row.itc_rate(),
            row.itc_best_rate(),
            row.itc_requests,
            times.join(" / ")
        )?;
        if row.itc_errors > 0 {
            write!(out, " with {} ERRORS", row.itc_errors)?;
        }
        let bare = run_reqwest(&server, &captured, c, row.itc_requests.max(1))?;
        write!(out, "; reqwest alone {:>6.0} req/s", bare.requests_per_sec)?;
        row.reqwest = Some(bare);
        if let Some(wrk) = wrk {
            let result = run_wrk(wrk, &script, &server, c, args.wrk_seconds)?;
            write!(out, "; wrk {:>6.0} req/s", result.requests_per_sec)?;
            if result.non_2xx > 0 {
                write!(out, " ({} non-2xx responses)", result.non_2xx)?;
            }
            if let Some(errors) = &result.socket_errors {
                write!(out, " ({errors})")?;
            }
            row.wrk = Some(result);
        }
        writeln!(out)?;
        out.flush()?;
        rows.push(row);
    }

    writeln!(out)?;
    writeln!(
        out,
        "{:>11}  {:>10}  {:>13}  {:>10}  {:>8}  {:>12}",
        "concurrency", "itc req/s", "reqwest req/s", "wrk req/s", "itc/wrk", "reqwest/wrk"
    )?;
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.0}"));
    let share = |a: f64, b: Option<f64>| {
        b.filter(|b| *b > 0.0)
            .map_or("-".to_string(), |b| format!("{:.0}%", 100.0 * a / b))
    };
    for row in &rows {
        let wrk_rate = row.wrk.as_ref().map(|w| w.requests_per_sec);
        let bare = row.reqwest.map(|r| r.requests_per_sec);
        writeln!(
            out,
            "{:>11}  {:>10.0}  {:>13}  {:>10}  {:>8}  {:>12}",
            row.concurrency,
            row.itc_rate(),
            rate(bare),
            rate(wrk_rate),
            share(row.itc_rate(), wrk_rate),
            bare.map_or("-".to_string(), |b| share(b, wrk_rate)),
        )?;
    }
    writeln!(out, "\nCPU time per request, µs")?;
    writeln!(
        out,
        "{:>11}  {:>10}  {:>14}  {:>10}  {:>12}  {:>16}  {:>12}",
        "concurrency",
        "itc",
        "reqwest alone",
        "wrk",
        "server (itc)",
        "server (reqwest)",
        "server (wrk)"
    )?;
    for row in &rows {
        let bare = row.reqwest.map(|r| r.cpu).unwrap_or_default();
        let wrk_cpu = row.wrk.as_ref().map(|w| w.cpu).unwrap_or_default();
        writeln!(
            out,
            "{:>11}  {:>10}  {:>14}  {:>10}  {:>12}  {:>16}  {:>12}",
            row.concurrency,
            micros(row.itc_cpu.client),
            micros(bare.client),
            micros(wrk_cpu.client),
            micros(row.itc_cpu.server),
            micros(bare.server),
            micros(wrk_cpu.server),
        )?;
    }
    writeln!(
        out,
        "\nitc: the whole runner per task (prompt, request, HTTP, parsing, predictions.jsonl), prompt mode, no cache; median of {} run(s) of {} tasks",
        args.repeat, args.tasks
    )?;
    if wrk.is_some() {
        writeln!(
            out,
            "wrk: -t{{min(2, c)}} -c{{c}} -d{}s, the same server, headers and body",
            args.wrk_seconds
        )?;
    }
    writeln!(
        out,
        "reqwest alone: the HTTP client the runner uses, sending the captured request as many times, nothing else"
    )?;
    writeln!(
        out,
        "CPU per request from /proc (10 ms ticks); an in-process client's is the whole process's less the server thread's"
    )?;
    for row in &rows {
        let loads = [
            ("itc", Some(row.itc_cpu)),
            ("reqwest", row.reqwest.map(|r| r.cpu)),
            ("wrk", row.wrk.as_ref().map(|w| w.cpu)),
        ];
        for (who, cpu) in loads {
            if let Some(load) = cpu.and_then(|c| c.other_load)
                && load > 0.05
            {
                writeln!(
                    out,
                    "warning: other processes used {:.0}% of the machine's CPU time during the {who} run(s) at concurrency {}: those figures are disturbed",
                    load * 100.0,
                    row.concurrency
                )?;
            }
        }
    }
    Ok(rows)
}

/// One run of the real runner on `tasks` at concurrency `c`, on a fresh
/// runtime as `itc eval` builds it: its wall time and its errored tasks.
fn run_itc(
    server: &InstantServer,
    tasks: &Arc<Vec<Task>>,
    concurrency: usize,
    run_dir: &Path,
) -> anyhow::Result<(Duration, usize)> {
    let mut config = ModelConfig::new("instant", Backend::Openai);
    config.base_url = Some(server.base_url());
    config.model_id = Some("instant".into());
    config.mode = Mode::Prompt;
    config.temperature = Some(0.0);
    config.concurrency = concurrency;
    let specs = [ModelSpec::resolve(config)?];
    let options = RunOptions {
        run_dir: run_dir.to_path_buf(),
        cache_dir: None,
        resume: false,
        show_progress: false,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(run_shared(Arc::clone(tasks), &specs, &options))?;
    drop(runtime);
    Ok((report.elapsed, report.models[0].errors))
}

/// The HTTP stack alone: reqwest, built as the runner builds its loopback
/// client, on a fresh runtime as `itc eval` builds it, with `concurrency`
/// loops sending the captured request `requests` times in all and reading
/// each answer as JSON.
fn run_reqwest(
    server: &InstantServer,
    request: &CapturedRequest,
    concurrency: usize,
    requests: u64,
) -> anyhow::Result<ClientRun> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .context("building the HTTP client")?;
    let url = format!("http://{}{}", server.addr(), request.path);
    let headers: Vec<(String, String)> = request
        .headers
        .iter()
        .filter(|(n, _)| {
            !n.eq_ignore_ascii_case("host") && !n.eq_ignore_ascii_case("content-length")
        })
        .cloned()
        .collect();
    let left = Arc::new(AtomicU64::new(requests));
    let before = CpuSnapshot::take(server);
    let started = Instant::now();
    let failures: u64 = runtime.block_on(async {
        let mut loops = tokio::task::JoinSet::new();
        for _ in 0..concurrency {
            let (client, url, headers, body) = (
                client.clone(),
                url.clone(),
                headers.clone(),
                request.body.clone(),
            );
            let left = Arc::clone(&left);
            loops.spawn(async move {
                let mut failures = 0u64;
                while left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    let mut builder = client
                        .post(&url)
                        .timeout(Duration::from_secs(120))
                        .body(body.clone());
                    for (name, value) in &headers {
                        builder = builder.header(name, value);
                    }
                    let answered = match builder.send().await {
                        Ok(response) if response.status().is_success() => {
                            response.bytes().await.ok().is_some_and(|b| {
                                serde_json::from_slice::<serde_json::Value>(&b).is_ok()
                            })
                        }
                        _ => false,
                    };
                    failures += u64::from(!answered);
                }
                failures
            });
        }
        let mut failures = 0;
        while let Some(joined) = loops.join_next().await {
            failures += joined.unwrap_or(1);
        }
        failures
    });
    let elapsed = started.elapsed();
    anyhow::ensure!(failures == 0, "reqwest alone: {failures} request(s) failed");
    Ok(ClientRun {
        requests_per_sec: requests as f64 / elapsed.as_secs_f64().max(1e-9),
        cpu: before.per_request(&CpuSnapshot::take(server), requests, false),
    })
}

/// A wrk script sending the captured request: method, path, headers (wrk
/// adds `Host` and `Content-Length` itself) and body.
pub fn wrk_script(request: &CapturedRequest) -> String {
    let mut script = String::from("-- written by itc bench-http: one request the harness sent\n");
    script.push_str(&format!(
        "wrk.method = {}\n",
        lua_string(request.method.as_bytes())
    ));
    script.push_str(&format!(
        "wrk.path = {}\n",
        lua_string(request.path.as_bytes())
    ));
    for (name, value) in &request.headers {
        if name.eq_ignore_ascii_case("host") || name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        script.push_str(&format!(
            "wrk.headers[{}] = {}\n",
            lua_string(name.as_bytes()),
            lua_string(value.as_bytes())
        ));
    }
    script.push_str(&format!("wrk.body = {}\n", lua_string(&request.body)));
    script
}

/// A Lua string literal holding exactly `bytes` (decimal escapes for
/// anything but printable ASCII).
fn lua_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03}")),
        }
    }
    s.push('"');
    s
}

fn run_wrk(
    wrk: &Path,
    script: &Path,
    server: &InstantServer,
    connections: usize,
    seconds: u64,
) -> anyhow::Result<WrkResult> {
    let threads = connections.min(2);
    let before = CpuSnapshot::take(server);
    let output = Command::new(wrk)
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .arg("-s")
        .arg(script)
        .arg(format!("http://{}/v1/chat/completions", server.addr()))
        .output()
        .with_context(|| format!("running {}", wrk.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let mut result =
        parse_wrk(&stdout).with_context(|| format!("reading wrk's output:\n{stdout}"))?;
    result.cpu = before.per_request(&CpuSnapshot::take(server), result.requests, true);
    Ok(result)
}

/// Reads `Requests/sec`, non-2xx responses and socket errors from wrk's output.
pub fn parse_wrk(text: &str) -> anyhow::Result<WrkResult> {
    let mut rate = None;
    let mut requests = 0;
    let mut non_2xx = 0;
    let mut socket_errors = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("Requests/sec:") {
            rate = v.trim().parse::<f64>().ok();
        } else if let Some(v) = line.strip_prefix("Non-2xx or 3xx responses:") {
            non_2xx = v.trim().parse().unwrap_or(0);
        } else if let Some((n, _)) = line.split_once(" requests in ") {
            requests = n.trim().parse().unwrap_or(0);
        } else if line.starts_with("Socket errors:") {
            socket_errors = Some(line.to_string());
        }
    }
    let Some(requests_per_sec) = rate else {
        bail!("no `Requests/sec:` line");
    };
    Ok(WrkResult {
        requests_per_sec,
        requests,
        non_2xx,
        socket_errors,
        cpu: CpuPerRequest::default(),
    })
}

/// Clock ticks per second of `/proc` CPU times (`USER_HZ`, 100 on Linux).
const TICKS_PER_SECOND: u64 = 100;

/// utime, stime, cutime and cstime of a `/proc/…/stat` file.
fn cpu_fields(path: &Path) -> Option<[Duration; 4]> {
    let text = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Option<Duration> {
        let ticks: u64 = fields.get(i)?.parse().ok()?;
        Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
    };
    // Fields 14..=17 of proc(5), counted from field 3 at index 0.
    Some([tick(11)?, tick(12)?, tick(13)?, tick(14)?])
}

/// CPU time of this process (all threads) and of its waited-for children.
fn process_cpu() -> Option<(Duration, Duration)> {
    let [user, system, child_user, child_system] = cpu_fields(Path::new("/proc/self/stat"))?;
    Some((user + system, child_user + child_system))
}

/// Busy and total CPU time of the whole machine (the `cpu` line of `/proc/stat`).
fn machine_cpu() -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal (guest time is in user).
    let all: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4)?;
    let duration = |t: u64| Duration::from_millis(t * 1000 / TICKS_PER_SECOND);
    Some((duration(all - idle), duration(all)))
}

/// An executable named `name` in a directory of `PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn fresh_temp_dir() -> anyhow::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir =
        std::env::temp_dir().join(format!("itc-bench-http-{}-{nanos:09}", std::process::id()));
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read};

    /// Sends raw requests on one connection; returns (status, body) per response.
    fn exchange(addr: SocketAddr, requests: &[u8], count: usize) -> Vec<(u16, String)> {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.write_all(requests).unwrap();
        let mut reader = BufReader::new(stream);
        (0..count)
            .map(|_| {
                let mut status = String::new();
                reader.read_line(&mut status).unwrap();
                let code = status.split(' ').nth(1).unwrap().parse().unwrap();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                (code, String::from_utf8(body).unwrap())
            })
            .collect()
    }

    #[test]
    fn instant_server_answers_and_captures() {
        let server = InstantServer::start(1).unwrap();
        let body = r#"{"model":"m","messages":[]}"#;
        let one = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        // Two pipelined completions and a 404, on one keep-alive connection.
        let requests = format!("{one}{one}GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
        let answers = exchange(server.addr(), requests.as_bytes(), 3);
        assert_eq!(answers[0].0, 200);
        assert_eq!(answers[1], answers[0]);
        assert_eq!(answers[2].0, 404);
        assert_eq!(server.completions(), 2);
        assert_eq!(server.body_bytes(), 2 * body.len() as u64);

        // The answer is a valid completion holding a strict ITC answer.
        let json: serde_json::Value = serde_json::from_str(&answers[0].1).unwrap();
        let api = crate::models::api_for(&{
            let mut m = ModelConfig::new("m", Backend::Openai);
            m.model_id = Some("x".into());
            m
        })
        .unwrap();
        let answer = api.parse(&json, &Default::default()).unwrap();
        let output = answer.output.unwrap();
        let (_, calls) = crate::spec::response::strict_format(&output).expect("strict ITC answer");
        assert!(calls.is_empty());

        let captured = server.captured().unwrap();
        assert_eq!(
            (captured.method.as_str(), captured.path.as_str()),
            ("POST", "/v1/chat/completions")
        );
        assert_eq!(captured.body, body.as_bytes());
        assert!(captured.headers.contains(&("Host".into(), "x".into())));
    }

    #[test]
    fn wrk_script_holds_the_request_exactly() {
        let request = CapturedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: vec![
                ("host".into(), "127.0.0.1:1".into()),
                ("content-type".into(), "application/json".into()),
                ("content-length".into(), "9".into()),
            ],
            body: "{\"q\":\"日\\\"\n1\"}".as_bytes().to_vec(),
        };
        let script = wrk_script(&request);
        assert!(script.contains("wrk.method = \"POST\"\n"));
        assert!(script.contains("wrk.headers[\"content-type\"] = \"application/json\"\n"));
        assert!(!script.contains("host") && !script.contains("content-length"));
        // 日 is E6 97 A5; the newline is byte 10.
        assert!(
            script.contains(r#"wrk.body = "{\"q\":\"\230\151\165\\\"\0101\"}""#),
            "{script}"
        );
    }

    #[test]
    fn wrk_output_is_read() {
        let text = "Running 5s test @ http://127.0.0.1:1/v1/chat/completions\n  2 threads and 32 connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency   310.00us  100.00us   2.00ms   90.00%\n  123456 requests in 5.00s, 50.00MB read\n  Socket errors: connect 0, read 1, write 0, timeout 0\n  Non-2xx or 3xx responses: 3\nRequests/sec:  24691.20\nTransfer/sec:     10.00MB\n";
        let r = parse_wrk(text).unwrap();
        assert!((r.requests_per_sec - 24691.2).abs() < 1e-9);
        assert_eq!((r.requests, r.non_2xx), (123456, 3));
        assert!(r.socket_errors.unwrap().contains("read 1"));
        assert!(parse_wrk("nothing").is_err());
    }

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
    }

    #[test]
    fn tiny_benchmark_completes_with_positive_rates() {
        let args = parse(&[
            "--tasks",
            "50",
            "--concurrency",
            "1,4",
            "--no-wrk",
            "--repeat",
            "2",
        ]);
        let mut out = Vec::new();
        let rows = measure(&args, &mut out).unwrap();
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
        let args = parse(&[
            "--tasks",
            "20",
            "--concurrency",
            "2",
            "--repeat",
            "1",
            "--wrk-seconds",
            "1",
        ]);
        let mut out = Vec::new();
        let rows = measure(&args, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let wrk = rows[0].wrk.as_ref().expect("wrk ran");
        assert!(wrk.requests_per_sec > 0.0 && wrk.requests > 0, "{text}");
        assert_eq!(wrk.non_2xx, 0, "{text}");
        assert!(rows[0].ratio().is_some(), "{text}");
    }
}
