//! Running against a scripted server that misbehaves: every task ends with
//! an answer or a typed error, retries stay within their caps, Retry-After
//! is honoured, the cache spares re-runs every request, and resuming retries
//! only what failed.

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use itc::score::stream::{EvalOptions, evaluate};
use itc::util::time::civil_from_days;
use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, assert_complete, generate, index, read_predictions};
use support::{options, run_blocking, scripted_model};

/// What the fault script does to task `i`, and what must come of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Answers at once.
    None,
    /// 500, then answers.
    ServerOnce,
    /// 503, then 429 with `Retry-After: 0`, then answers.
    UnavailableThenLimited,
    /// Drops the connection, then answers.
    ResetOnce,
    /// Sends half the body, then answers.
    TruncatedOnce,
    /// Answers after the timeout, then answers in time.
    SlowOnce,
    /// 500 every time: a `server` error after the attempt cap.
    AlwaysServer,
    /// 400: a `client` error at once, no retry.
    BadRequest,
    /// 200 with a body that is not JSON, every time: `invalid_response`.
    Garbage,
    /// Drops every connection: `connection`.
    AlwaysReset,
    /// Too slow every time: `timeout`.
    AlwaysSlow,
    /// Half a body every time: `incomplete_body`.
    AlwaysTruncated,
    /// 429 with `Retry-After: 0` every time: `rate_limited`.
    AlwaysLimited,
}

fn fault(i: usize) -> Fault {
    match (i % 100, i % 10) {
        (5, _) => Fault::AlwaysServer,
        (15, _) => Fault::BadRequest,
        (25, _) => Fault::Garbage,
        (35, _) => Fault::AlwaysReset,
        (45, _) => Fault::AlwaysSlow,
        (55, _) => Fault::AlwaysTruncated,
        (65, _) => Fault::AlwaysLimited,
        (_, 0) => Fault::ServerOnce,
        (_, 1) => Fault::UnavailableThenLimited,
        (_, 2) => Fault::ResetOnce,
        (_, 3) => Fault::TruncatedOnce,
        (_, 4) => Fault::SlowOnce,
        _ => Fault::None,
    }
}

const MAX_ATTEMPTS: usize = 4;
const TIMEOUT_MS: u64 = 250;
const SLOW: Duration = Duration::from_millis(600);

/// Requests the task must take, and the error kind it must end with.
fn expected(f: Fault) -> (usize, Option<&'static str>) {
    match f {
        Fault::None => (1, None),
        Fault::ServerOnce | Fault::ResetOnce | Fault::TruncatedOnce | Fault::SlowOnce => (2, None),
        Fault::UnavailableThenLimited => (3, None),
        Fault::AlwaysServer => (MAX_ATTEMPTS, Some("server")),
        Fault::BadRequest => (1, Some("client")),
        Fault::Garbage => (MAX_ATTEMPTS, Some("invalid_response")),
        Fault::AlwaysReset => (MAX_ATTEMPTS, Some("connection")),
        // A timeout is retried once, whatever the attempt cap.
        Fault::AlwaysSlow => (2, Some("timeout")),
        Fault::AlwaysTruncated => (MAX_ATTEMPTS, Some("incomplete_body")),
        Fault::AlwaysLimited => (MAX_ATTEMPTS, Some("rate_limited")),
    }
}

fn fault_script(task: &str, attempt: usize) -> Reply {
    let ok = Reply::Answer(answer(task));
    match (fault(index(task)), attempt) {
        (Fault::None, _) => ok,
        (Fault::ServerOnce, 1) => Reply::Status(500, None),
        (Fault::UnavailableThenLimited, 1) => Reply::Status(503, None),
        (Fault::UnavailableThenLimited, 2) => Reply::Status(429, Some("0".into())),
        (Fault::ResetOnce, 1) | (Fault::AlwaysReset, _) => Reply::Reset,
        (Fault::TruncatedOnce, 1) | (Fault::AlwaysTruncated, _) => Reply::Truncated,
        (Fault::AlwaysLimited, _) => Reply::Status(429, Some("0".into())),
        (Fault::SlowOnce, 1) | (Fault::AlwaysSlow, _) => Reply::Delay(SLOW, Box::new(ok)),
        (Fault::AlwaysServer, _) => Reply::Status(500, None),
        (Fault::BadRequest, _) => Reply::Status(400, None),
        (Fault::Garbage, _) => Reply::Raw("<html>proxy error</html>".into()),
        _ => ok,
    }
}

#[test]
fn a_thousand_tasks_under_faults_all_end_answered_or_typed() {
    let server =
        ScriptedServer::start(|r| fault_script(r.task.as_deref().expect("task marker"), r.attempt));
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(1000);
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let mut model = scripted_model(&server.base_url(), "scripted");
    model.concurrency = Some(32);
    model.timeout_ms = Some(TIMEOUT_MS);
    model.max_attempts = Some(MAX_ATTEMPTS as u32);
    let run_dir = dir.path().join("run");

    let started = Instant::now();
    let report = run_blocking(&tasks, &[model], &options(&run_dir, None, false));
    let elapsed = started.elapsed();

    // Nothing lost, nothing doubled.
    let predictions = read_predictions(&report.predictions);
    assert_complete(&predictions, &tasks);
    // Each task took exactly the requests its fault calls for (so never
    // more than the cap), and ended as it must.
    let per_task = server.per_task();
    let mut expected_errors: HashMap<&str, usize> = HashMap::new();
    for task in &tasks {
        let f = fault(index(&task.id));
        let (requests, kind) = expected(f);
        let p = &predictions[&task.id];
        assert_eq!(
            per_task.get(&task.id).copied(),
            Some(requests),
            "{} ({f:?}) requests",
            task.id
        );
        assert!(requests <= MAX_ATTEMPTS);
        assert_eq!(
            p.attempts,
            Some(requests as u32),
            "{} ({f:?}) attempts",
            task.id
        );
        assert_eq!(
            p.error_kind.as_deref(),
            kind,
            "{} ({f:?}): {:?}",
            task.id,
            p.error
        );
        match kind {
            Some(k) => {
                *expected_errors.entry(k).or_default() += 1;
                assert!(
                    p.error.as_deref().is_some_and(|e| e.starts_with(k)),
                    "{:?}",
                    p.error
                );
                assert_eq!((p.output.as_ref(), p.calls.as_ref()), (None, None));
            }
            None => {
                assert_eq!(p.error, None);
                assert_eq!(p.output.as_deref(), Some(answer(&task.id).as_str()));
            }
        }
    }
    let total: usize = per_task.values().sum();
    assert_eq!(server.requests(), total);

    // The run's figures agree with the server's counts.
    let stats = &report.models[0];
    assert_eq!(stats.requests as usize, server.requests());
    assert_eq!(stats.retries as usize, server.requests() - tasks.len());
    assert_eq!(stats.errors, expected_errors.values().sum::<usize>());
    assert_eq!(stats.answered + stats.errors, tasks.len());
    for (kind, n) in &expected_errors {
        assert_eq!(stats.error_kinds.get(*kind), Some(n), "{kind}");
    }

    // Scoring sees every task: errors scored as such, none missing or doubled.
    let evaluation = evaluate(
        &tasks_path,
        std::slice::from_ref(&report.predictions),
        &EvalOptions::default(),
    )
    .unwrap();
    let run = &evaluation.models[0];
    assert_eq!(
        (run.errors, run.missing, run.duplicates),
        (stats.errors, 0, 0)
    );
    assert_eq!(run.outcomes.len(), 1000);

    eprintln!(
        "fault run: {} tasks, {} requests ({} retries), {} errors {:?}, {:.2} s",
        tasks.len(),
        server.requests(),
        stats.retries,
        stats.errors,
        stats.error_kinds,
        elapsed.as_secs_f64()
    );
}

#[test]
fn a_request_that_timed_out_twice_is_not_sent_again_and_says_so() {
    let server = ScriptedServer::start(|r| {
        Reply::Delay(
            SLOW,
            Box::new(Reply::Answer(answer(r.task.as_deref().unwrap()))),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(3);
    let mut model = scripted_model(&server.base_url(), "slow");
    model.timeout_ms = Some(TIMEOUT_MS);
    model.max_attempts = Some(5);
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    let predictions = read_predictions(&report.predictions);
    for task in &tasks {
        assert_eq!(server.per_task().get(&task.id), Some(&2), "{}", task.id);
        let p = &predictions[&task.id];
        assert_eq!(p.error_kind.as_deref(), Some("timeout"));
        assert!(
            p.error
                .as_deref()
                .is_some_and(|e| e.contains("timed out 2 times, not sent again")),
            "{:?}",
            p.error
        );
    }
}

#[test]
fn the_timeout_counts_from_the_send_not_the_wait_for_a_slot() {
    // One request at a time, each answered well within the timeout; the
    // last tasks wait for a slot longer than the timeout, and still answer.
    let server = ScriptedServer::start(|r| {
        let reply = Reply::Answer(answer(r.task.as_deref().unwrap()));
        Reply::Delay(Duration::from_millis(150), Box::new(reply))
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(8);
    let mut model = scripted_model(&server.base_url(), "queued");
    model.concurrency = Some(1);
    model.timeout_ms = Some(900);
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    let predictions = read_predictions(&report.predictions);
    assert!(
        predictions.values().all(|p| p.error.is_none()),
        "{predictions:?}"
    );
    assert_eq!(server.requests(), tasks.len(), "no retries");
    assert_eq!(server.max_in_flight(), 1);
}

/// IMF-fixdate of a time, as servers write `Retry-After` dates.
fn http_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
    let days = secs.div_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][m as usize - 1];
    let rem = secs.rem_euclid(86_400);
    format!(
        "{weekday}, {d:02} {month} {y} {:02}:{:02}:{:02} GMT",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[test]
fn retry_after_is_honoured_in_seconds_and_as_a_date() {
    // gen-0000: 429 with Retry-After: 1; gen-0001: 503 with a date 2 s ahead;
    // gen-0002: 429 without Retry-After (backoff of a few ms only).
    let server = ScriptedServer::start(|r| {
        let task = r.task.clone().unwrap();
        match (index(&task), r.attempt) {
            (0, 1) => Reply::Status(429, Some("1".into())),
            (1, 1) => Reply::Status(
                503,
                Some(http_date(SystemTime::now() + Duration::from_secs(2))),
            ),
            (2, 1) => Reply::Status(429, None),
            _ => Reply::Answer(answer(&task)),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(3);
    let model = scripted_model(&server.base_url(), "scripted");
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    assert_eq!(report.models[0].errors, 0);

    let gap = |id: &str| {
        let at = server.arrivals(id);
        assert_eq!(at.len(), 2, "{id}");
        at[1] - at[0]
    };
    // Measured at the server, between the arrivals of the two attempts.
    let seconds = gap("gen-0000");
    assert!(
        seconds >= Duration::from_secs(1),
        "Retry-After: 1 gave a gap of {seconds:?}"
    );
    // A date 2 s ahead, cut to whole seconds, means a wait of more than 1 s.
    let date = gap("gen-0001");
    assert!(
        date >= Duration::from_secs(1),
        "Retry-After date gave a gap of {date:?}"
    );
    // Without Retry-After the millisecond backoff applies.
    let plain = gap("gen-0002");
    assert!(
        plain < Duration::from_millis(500),
        "plain backoff gap {plain:?}"
    );
    eprintln!("retry-after gaps: seconds {seconds:?}, date {date:?}, none {plain:?}");
}

#[test]
fn the_cache_makes_a_rerun_send_no_requests() {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let tasks = generate(60);
    let model = scripted_model(&server.base_url(), "scripted");

    let first = run_blocking(
        &tasks,
        std::slice::from_ref(&model),
        &options(&dir.path().join("a"), Some(&cache), false),
    );
    assert_eq!(server.requests(), 60);
    assert_eq!(
        (first.models[0].requests, first.models[0].cache_hits),
        (60, 0)
    );

    let second = run_blocking(
        &tasks,
        std::slice::from_ref(&model),
        &options(&dir.path().join("b"), Some(&cache), false),
    );
    assert_eq!(server.requests(), 60, "the re-run sent requests");
    assert_eq!(
        (second.models[0].requests, second.models[0].cache_hits),
        (0, 60)
    );
    let a = read_predictions(&first.predictions);
    let b = read_predictions(&second.predictions);
    for task in &tasks {
        let (x, y) = (&a[&task.id], &b[&task.id]);
        assert_eq!(
            (&x.output, &x.usage, x.latency_ms),
            (&y.output, &y.usage, y.latency_ms)
        );
        assert_eq!(y.attempts, Some(0));
    }

    // A changed parameter is another request: the cache does not answer it.
    let mut warmer = model.clone();
    warmer.temperature = Some(0.7);
    run_blocking(
        &tasks[..5],
        &[warmer],
        &options(&dir.path().join("c"), Some(&cache), false),
    );
    assert_eq!(server.requests(), 65);
    // No cache: every request is sent.
    run_blocking(
        &tasks[..5],
        &[model],
        &options(&dir.path().join("d"), None, false),
    );
    assert_eq!(server.requests(), 70);
}

#[test]
fn resuming_retries_only_errored_tasks_and_repairs_a_torn_line() {
    let healthy = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&healthy);
    // While unhealthy, every third task fails with 500.
    let server = ScriptedServer::start(move |r| {
        let task = r.task.clone().unwrap();
        if !flag.load(Ordering::SeqCst) && index(&task).is_multiple_of(3) {
            Reply::Status(500, None)
        } else {
            Reply::Answer(answer(&task))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run_dir = dir.path().join("run");
    let tasks = generate(30);
    let mut model = scripted_model(&server.base_url(), "scripted");
    model.max_attempts = Some(2);

    let first = run_blocking(
        &tasks,
        std::slice::from_ref(&model),
        &options(&run_dir, Some(&cache), false),
    );
    assert_eq!(first.models[0].errors, 10);
    let before = server.per_task();
    assert_eq!(server.requests(), 20 + 10 * 2);

    // A crash mid-write leaves half a line at the end.
    let torn = r#"{"task_id":"gen-0001","model":"scripted","out"#;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&first.predictions)
        .unwrap();
    std::io::Write::write_all(&mut file, torn.as_bytes()).unwrap();
    drop(file);

    healthy.store(true, Ordering::SeqCst);
    let second = run_blocking(
        &tasks,
        std::slice::from_ref(&model),
        &options(&run_dir, Some(&cache), true),
    );
    let resume = second.resume.unwrap();
    assert_eq!(
        (resume.kept, resume.errored, resume.torn_bytes),
        (20, 10, torn.len())
    );
    let after = server.per_task();
    for task in &tasks {
        let new = after[&task.id] - before[&task.id];
        let expected = usize::from(index(&task.id).is_multiple_of(3));
        assert_eq!(new, expected, "{}: {new} new request(s)", task.id);
    }
    let predictions = read_predictions(&second.predictions);
    assert_complete(&predictions, &tasks);
    assert!(predictions.values().all(|p| p.error.is_none()));
    assert_eq!(
        (second.models[0].resumed, second.models[0].requests),
        (20, 10)
    );

    // A third resume has nothing left to do.
    let third = run_blocking(&tasks, &[model], &options(&run_dir, Some(&cache), true));
    assert_eq!(server.requests(), 50);
    assert_eq!(
        (third.models[0].resumed, third.models[0].answered),
        (30, 30)
    );
}
