//! Kill-and-resume: the real `itc` binary, killed with SIGKILL mid-run,
//! resumed, ends with the same predictions and scores as an uninterrupted
//! run — every task once, none missing.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, assert_complete, generate, index, read_predictions};
use support::{itc, text};

const TASKS: usize = 150;

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

fn eval_args<'a>(
    base_url: &'a str,
    tasks: &'a str,
    run_dir: &'a str,
    cache: &'a str,
) -> Vec<&'a str> {
    vec![
        "eval",
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model-id",
        "m",
        "--name",
        "scripted",
        "--tasks",
        tasks,
        "--run-dir",
        run_dir,
        "--cache",
        cache,
        "--concurrency",
        "2",
        "--retry-base-ms",
        "1",
        "--bootstrap",
        "50",
        "--format",
        "json",
    ]
}

/// Slow, deterministic answers; every ninth task fails once with 503 so the
/// retry path is interrupted too.
fn scripted() -> ScriptedServer {
    ScriptedServer::start(|r| {
        let task = r.task.clone().unwrap();
        let reply = if index(&task).is_multiple_of(9) && r.attempt == 1 {
            Reply::Status(503, None)
        } else {
            Reply::Answer(answer(&task))
        };
        Reply::Delay(Duration::from_millis(20), Box::new(reply))
    })
}

#[test]
fn a_killed_run_resumes_to_the_same_predictions_and_scores() {
    // Two servers with the same script (its per-task attempt counts are
    // per server): one for the interrupted run, one for the clean run.
    let server = scripted();
    let clean_server = scripted();
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(TASKS);
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let tasks_arg = tasks_path.to_str().unwrap();
    let base_url = server.base_url();

    // Interrupted run: SIGKILL once some predictions are on disk.
    let killed_dir = dir.path().join("killed");
    let killed_cache = dir.path().join("cache-killed");
    let args = eval_args(
        &base_url,
        tasks_arg,
        killed_dir.to_str().unwrap(),
        killed_cache.to_str().unwrap(),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let predictions_path = killed_dir.join("predictions.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines(&predictions_path) < 30 {
        assert!(
            Instant::now() < deadline,
            "the run never wrote 30 predictions"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = lines(&predictions_path);
    assert!(at_kill < TASKS, "killed too late: {at_kill} predictions");
    let requests_at_kill = server.requests();

    // Resume it.
    let mut resume_args = args.clone();
    resume_args.push("--resume");
    let t = Instant::now();
    let resumed = itc(&resume_args, &[]);
    let resume_time = t.elapsed();
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(
        text(&resumed.stderr).contains("resumed:"),
        "{}",
        text(&resumed.stderr)
    );
    let interrupted_requests = server.requests();

    // An uninterrupted run for comparison.
    let clean_dir = dir.path().join("clean");
    let clean_cache = dir.path().join("cache-clean");
    let clean_url = clean_server.base_url();
    let t = Instant::now();
    let clean = itc(
        &eval_args(
            &clean_url,
            tasks_arg,
            clean_dir.to_str().unwrap(),
            clean_cache.to_str().unwrap(),
        ),
        &[],
    );
    assert!(clean.status.success(), "{}", text(&clean.stderr));
    let clean_time = t.elapsed();

    // Same predictions, each task exactly once.
    let a = read_predictions(&predictions_path);
    let b = read_predictions(&clean_dir.join("predictions.jsonl"));
    assert_complete(&a, &tasks);
    assert_complete(&b, &tasks);
    for task in &tasks {
        let (x, y) = (&a[&task.id], &b[&task.id]);
        assert_eq!(
            (&x.model, &x.output, &x.calls, &x.error, &x.error_kind),
            (&y.model, &y.output, &y.calls, &y.error, &y.error_kind),
            "{}",
            task.id
        );
        assert_eq!(x.error, None);
    }
    // Same scores from `itc score`, and from the scoring `itc eval` did.
    let score = |run: &Path| {
        let out = itc(
            &[
                "score",
                "--tasks",
                tasks_arg,
                "--predictions",
                run.join("predictions.jsonl").to_str().unwrap(),
                "--format",
                "json",
                "--bootstrap",
                "50",
            ],
            &[],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(score(&killed_dir), score(&clean_dir));
    assert_eq!(text(&resumed.stdout), text(&clean.stdout));

    // Requests: the clean run needs TASKS + one retry per ninth task; the
    // interrupted one at most re-sends what was in flight at the kill
    // (concurrency 2), answers cached before the kill being reused.
    let retries = tasks
        .iter()
        .filter(|t| index(&t.id).is_multiple_of(9))
        .count();
    let clean_requests = clean_server.requests();
    assert_eq!(clean_requests, TASKS + retries);
    assert!(
        interrupted_requests <= TASKS + retries + 2 * 2,
        "{interrupted_requests} requests"
    );
    eprintln!(
        "kill-and-resume: killed at {at_kill} predictions ({requests_at_kill} requests); interrupted run {interrupted_requests} requests, resume {resume_time:?}; clean run {clean_requests} requests, {clean_time:?}"
    );
}
