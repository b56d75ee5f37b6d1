//! Where a run's time goes: `itc eval` against a slow scripted server with
//! one concurrency slot, so tasks queue for the slot; `run.json` and the
//! printed table keep the queue apart from the time spent on the server.
//!
//! Only lower bounds follow from the script (every reply takes at least
//! `DELAY`, one slot serializes the tasks), plus the sums' accounting
//! (queue + server + throttle never exceed a task's time); no upper bound
//! on a duration is asserted.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, generate};
use support::{itc, text};

const DELAY: Duration = Duration::from_millis(200);
const TASKS: u64 = 5;
/// The task whose first request fails (503) and is retried.
const RETRIED: &str = "gen-0002";
const RETRY_BASE_MS: u64 = 100;

fn ms(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("{value} is not a count of ms"))
}

fn eval(tasks: &Path, run_dir: &Path, base_url: &str) -> (Value, String, String) {
    let out = itc(
        &[
            "eval",
            "--backend",
            "openai",
            "--base-url",
            base_url,
            "--model-id",
            "m",
            "--name",
            "slow",
            "--tasks",
            tasks.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--concurrency",
            "1",
            "--retry-base-ms",
            &RETRY_BASE_MS.to_string(),
            "--bootstrap",
            "10",
        ],
        &[],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).unwrap()).unwrap();
    (run["models"][0].clone(), stdout, stderr)
}

/// The cells of the timing table's row for `model` in the printout.
fn timing_row(stdout: &str, model: &str) -> Vec<String> {
    let mut lines = stdout.lines().skip_while(|l| !l.contains("Queue ms"));
    assert!(lines.next().is_some(), "no timing table in\n{stdout}");
    lines
        .map(|l| {
            l.split('│')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.first().map(String::as_str) == Some(model))
        .unwrap_or_else(|| panic!("no timing row for {model} in\n{stdout}"))
}

#[test]
fn queue_and_server_time_are_reported_apart() {
    let server = ScriptedServer::start(|r| {
        let Some(task) = r.task.clone() else {
            return Reply::Answer("{}".into()); // anything but a task: answer at once
        };
        let reply = if task == RETRIED && r.attempt == 1 {
            Reply::Status(503, None)
        } else {
            Reply::Answer(answer(&task))
        };
        Reply::Delay(DELAY, Box::new(reply))
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(TASKS as usize));
    let run_dir = dir.path().join("runs").join("slow");
    let (m, stdout, stderr) = eval(&tasks_path, &run_dir, &server.base_url());
    let delay = DELAY.as_millis() as u64;

    assert_eq!(m["timed_tasks"], TASKS, "{m}");
    assert_eq!(
        (m["requests"].as_u64(), m["retries"].as_u64()),
        (Some(6), Some(1))
    );
    // One slot: never more than one request on the server, and there was one.
    assert_eq!(m["in_flight_max"], 1, "{m}");

    // Every task's requests took at least the delay; the retried one two of them.
    assert!(ms(&m["server_p50_ms"]) >= delay, "{m}");
    assert!(ms(&m["server_p95_ms"]) >= 2 * delay, "{m}");
    assert!(ms(&m["server_total_ms"]) >= (TASKS + 1) * delay, "{m}");
    // The k-th task to get the slot waited for the k before it, each holding
    // it for at least the delay: later tasks queue, the earliest does not have to.
    assert!(ms(&m["queue_p50_ms"]) >= 2 * delay, "{m}");
    assert!(ms(&m["queue_p95_ms"]) >= (TASKS - 1) * delay, "{m}");
    assert!(
        ms(&m["queue_total_ms"]) >= delay * (TASKS - 1) * TASKS / 2,
        "{m}"
    );
    // The retry waited at least half its back-off ceiling.
    assert!(ms(&m["throttle_total_ms"]) >= RETRY_BASE_MS / 2, "{m}");
    // A task's time holds its queue, server and throttle time.
    let parts = ms(&m["queue_total_ms"]) + ms(&m["server_total_ms"]) + ms(&m["throttle_total_ms"]);
    assert!(ms(&m["task_total_ms"]) >= parts, "{m}");
    // The answer latency recorded before stays: the answering request only.
    assert!(ms(&m["latency_p50_ms"]) >= delay, "{m}");

    // The printout shows the same figures.
    let row = timing_row(&stdout, "slow");
    let expected = [
        "slow".to_string(),
        TASKS.to_string(),
        m["queue_p50_ms"].to_string(),
        m["queue_p95_ms"].to_string(),
        m["server_p50_ms"].to_string(),
        m["server_p95_ms"].to_string(),
        format!("{:.1}", ms(&m["throttle_total_ms"]) as f64 / 1e3),
        "1".to_string(),
    ];
    assert_eq!(row, expected, "{stdout}");
    // stderr is not a terminal here: no bar.
    assert!(!stderr.contains("ETA"), "{stderr}");

    // Again into a new run directory: the shared cache answers every task,
    // so nothing waits on the server and no server time is reported.
    let before = server.requests();
    let again = dir.path().join("runs").join("again");
    let (m, stdout, _) = eval(&tasks_path, &again, &server.base_url());
    assert_eq!(server.requests(), before, "every task from the cache");
    assert_eq!(m["cache_hits"], TASKS, "{m}");
    assert_eq!(m["timed_tasks"], TASKS, "{m}");
    assert!(
        m["server_p50_ms"].is_null() && m["server_p95_ms"].is_null(),
        "{m}"
    );
    assert_eq!(
        (m["server_total_ms"].as_u64(), m["in_flight_max"].as_u64()),
        (Some(0), Some(0))
    );
    let row = timing_row(&stdout, "slow");
    assert_eq!(
        (row[4].as_str(), row[5].as_str(), row[7].as_str()),
        ("—", "—", "0"),
        "{stdout}"
    );
}
