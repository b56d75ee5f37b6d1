//! `itc bench soak`: a long run against a fault-injecting loopback server,
//! killed with SIGKILL at random moments and resumed until it finishes, then
//! checked against a fault-free run of the same tasks.
//!
//! The server answers every task the same way on every attempt, but the
//! first attempts of a share of the tasks fail on purpose: 429 with
//! `Retry-After`, 500, 503, a stall past the request timeout, a connection
//! reset, or a body cut short. The run (the `itc` binary itself, as a child
//! process) must end with one prediction per task, none twice, none lost,
//! and the same scores as the fault-free run.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::spec::records::{Prediction, Task};
use crate::util::loopback::{Answer, LoopbackServer, Request, Response, ServerOptions};
use crate::util::runtime::Threads;
use crate::util::table::Table;

/// Settings of a soak.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakOptions {
    /// Tasks of the run.
    pub tasks: usize,
    /// Times the run is killed before it may finish.
    pub kills: usize,
    /// Share of the tasks whose first attempts fail.
    pub fault_share: f64,
    /// Seed of the faults and the kill times.
    pub seed: u64,
    /// Folder for the runs, the caches and the task file (emptied first).
    pub dir: PathBuf,
}

impl Default for SoakOptions {
    fn default() -> SoakOptions {
        SoakOptions {
            tasks: 10_000,
            kills: 5,
            fault_share: 0.3,
            seed: 1,
            dir: PathBuf::from("soak"),
        }
    }
}

/// The faults the server injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// 429 with `Retry-After: 0`.
    RateLimited,
    /// 500.
    ServerError,
    /// 503.
    Unavailable,
    /// No answer before the request timeout.
    Stall,
    /// The connection reset.
    Reset,
    /// A 200 whose body is cut short.
    Truncated,
}

impl Fault {
    const ALL: [Fault; 6] = [
        Fault::RateLimited,
        Fault::ServerError,
        Fault::Unavailable,
        Fault::Stall,
        Fault::Reset,
        Fault::Truncated,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Fault::RateLimited => "429 Retry-After",
            Fault::ServerError => "500",
            Fault::Unavailable => "503",
            Fault::Stall => "stall past the timeout",
            Fault::Reset => "connection reset",
            Fault::Truncated => "truncated body",
        }
    }
}

/// The request timeout the soak's model uses; a stall outlasts it.
const TIMEOUT_MS: u64 = 300;

/// What the server counted.
#[derive(Debug, Default)]
struct ServerState {
    faulty: AtomicBool,
    seed: u64,
    fault_share: f64,
    requests: AtomicU64,
    attempts: Mutex<HashMap<String, u32>>,
    faults: Mutex<HashMap<Fault, u64>>,
}

/// A number in [0, 1) from a seed and a text (FNV-1a, then a mix).
fn unit(seed: u64, text: &str, salt: u64) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// The task id in a request body's `[[task:ID]]` marker.
fn task_marker(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let start = text.find("[[task:")? + "[[task:".len();
    let end = start + text[start..].find("]]")?;
    Some(text[start..end].to_string())
}

/// The answer to task `id`: the right call, but the wrong tool for every
/// seventh task, so the scores are neither 0 nor 100.
fn answer_for(id: &str) -> String {
    let n: usize = id.trim_start_matches("soak-").parse().unwrap_or(0);
    let action = if n % 7 == 3 {
        "[stock_quote(symbol='ACME')]".to_string()
    } else {
        format!("[city_weather(city='{}')]", city(n))
    };
    let content =
        json!({"Thought": "The user asks for the weather.", "Action": action}).to_string();
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 80, "completion_tokens": 12}})
    .to_string()
}

fn city(n: usize) -> &'static str {
    ["Oslo", "Lyon", "Quito", "Perth", "Lagos", "Sapporo"][n % 6]
}

impl ServerState {
    /// The fault of a task's attempt, if any: the first one or two attempts
    /// of a `fault_share` of the tasks fail. A task's two faults are never
    /// both stalls: a request that timed out twice is not sent again (a
    /// timeout is retried once), so every task answers by its third attempt.
    fn fault(&self, task: &str, attempt: u32) -> Option<Fault> {
        if !self.faulty.load(Ordering::SeqCst) || unit(self.seed, task, 0) >= self.fault_share {
            return None;
        }
        let failing = if unit(self.seed, task, 1) < 0.5 { 1 } else { 2 };
        let pick = |attempt: u32| {
            let at = unit(self.seed, task, 1 + u64::from(attempt)) * Fault::ALL.len() as f64;
            (at as usize).min(Fault::ALL.len() - 1)
        };
        (attempt <= failing).then(|| {
            let mut at = pick(attempt);
            if attempt == 2 && Fault::ALL[at] == Fault::Stall && Fault::ALL[pick(1)] == Fault::Stall
            {
                at = (at + 1) % Fault::ALL.len();
            }
            Fault::ALL[at]
        })
    }

    fn answer(&self, request: &Request<'_>) -> (Answer, bool) {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let Some(task) = task_marker(request.body) else {
            return (
                Answer::Respond(Response::json(404, &b"{\"error\":\"not found\"}"[..])),
                false,
            );
        };
        let attempt = {
            let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
            let n = attempts.entry(task.clone()).or_default();
            *n += 1;
            *n
        };
        let body = answer_for(&task).into_bytes();
        let Some(fault) = self.fault(&task, attempt) else {
            return (Answer::Respond(Response::json(200, body)), false);
        };
        *self
            .faults
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(fault)
            .or_default() += 1;
        let error = &b"{\"error\":{\"message\":\"injected\"}}"[..];
        let answer = match fault {
            Fault::RateLimited => {
                Answer::Respond(Response::json(429, error).with_header("retry-after", "0"))
            }
            Fault::ServerError => Answer::Respond(Response::json(500, error)),
            Fault::Unavailable => Answer::Respond(Response::json(503, error)),
            Fault::Stall => Answer::Respond(Response::json(200, body)),
            Fault::Reset => Answer::Reset,
            Fault::Truncated => {
                let sent = body.len() / 2;
                Answer::Truncated {
                    response: Response::json(200, body),
                    sent,
                }
            }
        };
        (answer, fault == Fault::Stall)
    }
}

/// Synthetic tasks with a `[[task:ID]]` marker: one weather call each.
fn soak_tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            let id = format!("soak-{i:05}");
            serde_json::from_value(json!({
                "id": id, "kind": "single", "language": "en", "country": "GLOBAL", "category": "Weather",
                "query": format!("What is the weather in {} tomorrow? [[task:{id}]]", city(i)),
                "tools": [
                    {"name": "city_weather", "description": "Forecast for a city",
                     "required_parameters": [{"name": "city", "type": "string", "description": "City"}]},
                    {"name": "stock_quote", "description": "Price of a stock",
                     "required_parameters": [{"name": "symbol", "type": "string", "description": "Ticker"}]}],
                "gold": {"thought": "The forecast.", "calls": [{"name": "city_weather", "arguments": {"city": city(i)}}]}
            }))
            .expect("a soak task")
        })
        .collect()
}

/// What one soak found.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakReport {
    /// Requests the server received (faulty run, all sessions).
    pub requests: u64,
    /// Faults injected, by kind.
    pub faults: Vec<(Fault, u64)>,
    /// Sessions killed.
    pub killed: usize,
    /// Error predictions left at the end, by kind.
    pub errors: Vec<(String, usize)>,
    /// Tasks with more than one prediction.
    pub duplicates: usize,
    /// Tasks without a prediction.
    pub lost: usize,
    /// Whether the scores equal the fault-free run's.
    pub same_scores: bool,
    /// Wall time of the faulty run's sessions.
    pub elapsed: Duration,
}

/// Runs a soak and prints its figures; an error when a result was lost or
/// repeated or the scores differ.
pub fn run(options: &SoakOptions, out: &mut dyn Write) -> anyhow::Result<SoakReport> {
    let report = soak(options)?;
    writeln!(out, "{}", render(&report, options))?;
    if report.lost > 0 || report.duplicates > 0 || !report.same_scores {
        bail!(
            "the soak lost {} and repeated {} result(s); scores equal: {}",
            report.lost,
            report.duplicates,
            report.same_scores
        );
    }
    Ok(report)
}

fn soak(options: &SoakOptions) -> anyhow::Result<SoakReport> {
    let dir = &options.dir;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tasks = soak_tasks(options.tasks);
    let tasks_path = dir.join("tasks.jsonl");
    crate::spec::jsonl::write_records(&tasks_path, &tasks)?;
    let state = Arc::new(ServerState {
        faulty: AtomicBool::new(true),
        seed: options.seed,
        fault_share: options.fault_share,
        ..ServerState::default()
    });
    let handler_state = Arc::clone(&state);
    let server = LoopbackServer::start(
        ServerOptions {
            thread_name: "soak-server".into(),
            threads: Threads::Exactly(2),
            on_thread_start: None,
        },
        move |request| {
            let (answer, stall) = handler_state.answer(request);
            async move {
                if stall {
                    tokio::time::sleep(Duration::from_millis(3 * TIMEOUT_MS)).await;
                }
                answer
            }
        },
    )?;
    let models = dir.join("models.toml");
    std::fs::write(
        &models,
        format!(
            "[[models]]\nname = \"soak\"\nbackend = \"openai\"\nbase_url = \"http://{}/v1\"\nmodel_id = \"soak\"\nconcurrency = 32\ntimeout_ms = {TIMEOUT_MS}\nmax_attempts = 6\nretry_base_ms = 5\nretry_cap_ms = 50\n",
            server.addr()
        ),
    )?;
    let started = Instant::now();
    let faulty = dir.join("faulty");
    let mut rng = fastrand::Rng::with_seed(options.seed);
    let mut killed = 0;
    for _ in 0..options.kills {
        let mut child =
            eval_command(&models, &tasks_path, &faulty, &dir.join("cache-faulty")).spawn()?;
        std::thread::sleep(Duration::from_millis(rng.u64(200..1500)));
        if child.try_wait()?.is_none() {
            child.kill()?; // SIGKILL
            killed += 1;
        }
        child.wait()?;
    }
    let status = eval_command(&models, &tasks_path, &faulty, &dir.join("cache-faulty")).status()?;
    if !matches!(status.code(), Some(0 | 3)) {
        bail!(
            "the last session of the faulty run failed ({status}); see {}",
            faulty.display()
        );
    }
    let elapsed = started.elapsed();
    let requests = state.requests.load(Ordering::SeqCst);
    state.faulty.store(false, Ordering::SeqCst);
    let clean = dir.join("clean");
    let status = eval_command(&models, &tasks_path, &clean, &dir.join("cache-clean")).status()?;
    if !status.success() {
        bail!(
            "the fault-free run failed ({status}); see {}",
            clean.display()
        );
    }
    let Audit {
        duplicates,
        lost,
        errors,
    } = audit(&faulty.join("predictions.jsonl"), &tasks)?;
    let summary = |run: &Path| -> anyhow::Result<Value> {
        let text = std::fs::read_to_string(run.join("summary.json"))?;
        Ok(serde_json::from_str(&text)?)
    };
    let mut faults: Vec<(Fault, u64)> = state
        .faults
        .lock()
        .map(|f| f.clone())
        .unwrap_or_default()
        .into_iter()
        .collect();
    faults.sort();
    Ok(SoakReport {
        requests,
        faults,
        killed,
        errors,
        duplicates,
        lost,
        same_scores: summary(&faulty)? == summary(&clean)?,
        elapsed,
    })
}

/// `itc eval --resume` of the soak's model (this very binary).
fn eval_command(models: &Path, tasks: &Path, run_dir: &Path, cache: &Path) -> Command {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("itc"));
    let mut command = Command::new(exe);
    command
        .args(["eval", "--config"])
        .arg(models)
        .arg("--tasks")
        .arg(tasks)
        .arg("--run-dir")
        .arg(run_dir)
        .arg("--cache")
        .arg(cache)
        .args(["--no-progress", "--bootstrap", "100"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if run_dir.join("predictions.jsonl").exists() {
        command.arg("--resume");
    }
    command
}

/// What a run's predictions hold against its tasks.
struct Audit {
    /// Tasks predicted more than once.
    duplicates: usize,
    /// Tasks without a prediction.
    lost: usize,
    /// Error predictions by kind.
    errors: Vec<(String, usize)>,
}

/// Audits a predictions file against the tasks.
fn audit(predictions: &Path, tasks: &[Task]) -> anyhow::Result<Audit> {
    let (records, _) = crate::spec::jsonl::read_records::<Prediction>(predictions, false)?;
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut errors: HashMap<String, usize> = HashMap::new();
    for p in &records {
        *seen.entry(p.task_id.as_str()).or_default() += 1;
        if let Some(kind) = &p.error_kind {
            *errors.entry(kind.clone()).or_default() += 1;
        }
    }
    let duplicates = seen.values().filter(|&&n| n > 1).count();
    let lost = tasks
        .iter()
        .filter(|t| !seen.contains_key(t.id.as_str()))
        .count();
    let mut errors: Vec<(String, usize)> = errors.into_iter().collect();
    errors.sort();
    Ok(Audit {
        duplicates,
        lost,
        errors,
    })
}

fn render(report: &SoakReport, options: &SoakOptions) -> String {
    let mut table = Table::new(["Figure", "Value"]);
    let mut row = |name: &str, value: String| table.push([name.to_string(), value]);
    row("tasks", options.tasks.to_string());
    row("sessions killed (SIGKILL)", report.killed.to_string());
    row("requests", report.requests.to_string());
    row(
        "requests beyond one a task",
        report
            .requests
            .saturating_sub(options.tasks as u64)
            .to_string(),
    );
    for fault in Fault::ALL {
        let n = report
            .faults
            .iter()
            .find(|(f, _)| *f == fault)
            .map_or(0, |(_, n)| *n);
        row(&format!("injected: {}", fault.as_str()), n.to_string());
    }
    let errors: Vec<String> = report
        .errors
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    row(
        "error predictions left",
        if errors.is_empty() {
            "0".into()
        } else {
            errors.join(", ")
        },
    );
    row("duplicated results", report.duplicates.to_string());
    row("lost results", report.lost.to_string());
    row(
        "scores equal to a fault-free run",
        if report.same_scores { "yes" } else { "NO" }.into(),
    );
    row(
        "faulty run, all sessions (s)",
        format!("{:.1}", report.elapsed.as_secs_f64()),
    );
    table.render(false)
}
