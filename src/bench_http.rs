//! `itc bench-http`: the harness's own overhead against an instant loopback
//! server, side by side with `wrk` against the same server.
//!
//! An [`InstantServer`] on `127.0.0.1` (its own thread and tokio runtime,
//! HTTP/1.1 keep-alive, spoken by hand) answers every
//! `POST …/chat/completions` at once with the same small completion: a
//! strict ITC answer. The benchmark then
//!
//! 1. runs the real runner ([`crate::run::run_shared`], as `itc eval`: prompt mode, no cache, no
//!    progress bar, `predictions.jsonl` written to a temporary run
//!    directory) on N synthetic tasks ([`crate::synth`]) at each
//!    concurrency, and counts requests per second over the whole run
//!    (prompt rendering, request building, HTTP, response parsing and the
//!    prediction file included);
//! 2. runs `wrk` against the same server, with the same headers and the
//!    same body as one request the harness sent (captured at the server),
//!    for a few seconds at the same number of connections.
//!
//! Both clients share the machine's cores with the server, so the figures
//! are of the whole machine, not of the client alone.

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

use crate::records::Task;
use crate::run::{Backend, Mode, ModelConfig, ModelSpec, RunOptions, run_shared};
use crate::synth::{SynthSpec, synthesize};

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

    /// itc's rate over wrk's.
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
    /// `Non-2xx or 3xx responses:` (0 when absent).
    pub non_2xx: u64,
    /// The `Socket errors:` line, when present.
    pub socket_errors: Option<String>,
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
        "{cores} core(s): the server, the harness's runtime ({cores} worker thread(s)) and wrk share them\n"
    )?;

    // Warm-up: first use of the prompt templates, the client's connections,
    // and the request wrk will send.
    let warm = Arc::new(tasks[..tasks.len().min(200)].to_vec());
    let (_, errors) = run_itc(&server, &warm, 8, &dir.join("warm-up"))?;
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
            wrk: None,
        };
        for r in 0..args.repeat {
            let before = server.completions();
            let run_dir = dir.join(format!("c{c}-run{r}"));
            let (elapsed, errors) = run_itc(&server, &tasks, c, &run_dir)?;
            row.itc_requests = server.completions() - before;
            row.itc_elapsed.push(elapsed);
            row.itc_errors += errors;
            let _ = std::fs::remove_dir_all(&run_dir);
        }
        row.itc_elapsed.sort();
        let times: Vec<String> = row
            .itc_elapsed
            .iter()
            .map(|d| format!("{:.2}", d.as_secs_f64()))
            .collect();
        write!(
            out,
            "concurrency {c:>4}: itc {:>7.0} req/s median, {:>7.0} best ({} requests in {} s)",
            row.itc_rate(),
            row.itc_best_rate(),
            row.itc_requests,
            times.join(" / ")
        )?;
        if row.itc_errors > 0 {
            write!(out, " with {} ERRORS", row.itc_errors)?;
        }
        if let Some(wrk) = wrk {
            let result = run_wrk(wrk, &script, &server, c, args.wrk_seconds)?;
            write!(out, "; wrk {:>9.0} req/s", result.requests_per_sec)?;
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
        "{:>11}  {:>12}  {:>12}  {:>9}",
        "concurrency", "itc req/s", "wrk req/s", "itc/wrk"
    )?;
    for row in &rows {
        let wrk_rate = row
            .wrk
            .as_ref()
            .map_or("-".to_string(), |w| format!("{:.0}", w.requests_per_sec));
        let ratio = row
            .ratio()
            .map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
        writeln!(
            out,
            "{:>11}  {:>12.0}  {:>12}  {:>9}",
            row.concurrency,
            row.itc_rate(),
            wrk_rate,
            ratio
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
    parse_wrk(&stdout).with_context(|| format!("reading wrk's output:\n{stdout}"))
}

/// Reads `Requests/sec`, non-2xx responses and socket errors from wrk's output.
pub fn parse_wrk(text: &str) -> anyhow::Result<WrkResult> {
    let mut rate = None;
    let mut non_2xx = 0;
    let mut socket_errors = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("Requests/sec:") {
            rate = v.trim().parse::<f64>().ok();
        } else if let Some(v) = line.strip_prefix("Non-2xx or 3xx responses:") {
            non_2xx = v.trim().parse().unwrap_or(0);
        } else if line.starts_with("Socket errors:") {
            socket_errors = Some(line.to_string());
        }
    }
    let Some(requests_per_sec) = rate else {
        bail!("no `Requests/sec:` line");
    };
    Ok(WrkResult {
        requests_per_sec,
        non_2xx,
        socket_errors,
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
        let api = crate::run::api_for(&{
            let mut m = ModelConfig::new("m", Backend::Openai);
            m.model_id = Some("x".into());
            m
        })
        .unwrap();
        let answer = api.parse(&json, &Default::default()).unwrap();
        let output = answer.output.unwrap();
        let (_, calls) = crate::response::strict_format(&output).expect("strict ITC answer");
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
        assert_eq!(r.non_2xx, 3);
        assert!(r.socket_errors.unwrap().contains("read 1"));
        assert!(parse_wrk("nothing").is_err());
    }

    #[test]
    fn tiny_benchmark_completes_with_positive_rates() {
        let args = BenchHttpArgs {
            tasks: 50,
            concurrency: vec![1, 4],
            repeat: 1,
            wrk_seconds: 1,
            no_wrk: true,
            server_threads: 1,
            seed: 1,
        };
        let mut out = Vec::new();
        let rows = measure(&args, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(rows.len(), 2, "{text}");
        for row in &rows {
            assert_eq!(row.itc_requests, 50, "{text}");
            assert_eq!(row.itc_errors, 0, "{text}");
            assert!(row.itc_rate() > 0.0, "{text}");
            assert!(row.wrk.is_none());
        }
        assert!(text.contains("itc req/s"), "{text}");
    }
}

#[cfg(test)]
mod scratch_profile {
    use super::*;
    #[test]
    #[ignore]
    fn phases() {
        let tasks = synthesize(&SynthSpec { tasks: 20000, models: 0, seed: 1 }).tasks;
        let mut config = ModelConfig::new("instant", Backend::Openai);
        config.base_url = Some("http://127.0.0.1:1/v1".into());
        config.model_id = Some("instant".into());
        config.temperature = Some(0.0);
        let api = crate::run::api_for(&config).unwrap();
        let n = tasks.len() as f64;
        for round in 0..3 { eprintln!("round {round}");
        let t = Instant::now();
        let cloned = tasks.to_vec();
        eprintln!("clone {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        drop(cloned);
        eprintln!("drop {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        for task in &tasks { std::hint::black_box(crate::run::prompt::render(task, Mode::Prompt, true)); }
        eprintln!("render {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        for task in &tasks { std::hint::black_box(crate::run::prompt::tools_json(task)); }
        eprintln!("tools_json {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        let reqs: Vec<_> = tasks.iter().map(|t| api.build(t)).collect();
        eprintln!("build {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        for r in &reqs { std::hint::black_box(r.body.to_string().len()); }
        eprintln!("estimate to_string {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        for r in &reqs { std::hint::black_box(serde_json::to_vec(&r.body).unwrap()); }
        eprintln!("to_vec body {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        let mut answers = Vec::new();
        for r in &reqs {
            let v: serde_json::Value = serde_json::from_slice(COMPLETION_BODY.as_bytes()).unwrap();
            answers.push(api.parse(&v, &r.names).unwrap());
        }
        eprintln!("parse response {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let p: crate::records::Prediction = crate::records::Prediction { task_id: "t-000001".into(), model: "instant".into(), output: answers[0].output.clone(), calls: None, error: None, reasoning: None, latency_ms: Some(0), usage: answers[0].usage, error_kind: None, attempts: Some(1) };
        let t = Instant::now();
        for _ in &reqs { std::hint::black_box(serde_json::to_vec(&p).unwrap()); }
        eprintln!("prediction to_vec {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        let t = Instant::now();
        drop(reqs);
        eprintln!("drop requests {:.2} us", t.elapsed().as_secs_f64() * 1e6 / n);
        }
    }
}
