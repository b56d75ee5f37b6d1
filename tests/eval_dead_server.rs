//! A model whose server cannot be reached (nothing listens on its port, or
//! its host name does not resolve) stops `itc eval` at once with an error
//! naming the model and its URL: no task is recorded as the model's answer,
//! nothing is scored, and the run resumes once the server is up.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::server::{Reply, ScriptedServer};
use support::text;

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `itc eval` of one ad-hoc OpenAI-compatible model on 3 sample tasks,
/// without proxy settings (a proxy would answer for an unreachable host).
fn eval(base_url: &str, run_dir: &Path, resume: bool) -> Output {
    eval_with(base_url, run_dir, if resume { &["--resume"] } else { &[] })
}

/// `itc eval` as [`eval`] does, with `extra` arguments.
fn eval_with(base_url: &str, run_dir: &Path, extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_itc"));
    command.args([
        "eval",
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model-id",
        "m",
        "--limit",
        "3",
        "--max-attempts",
        "5",
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--no-progress",
    ]);
    command.args(extra);
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        command.env_remove(var);
    }
    command.output().unwrap()
}

/// Starts relaying TCP connections from `port` (on loopback) to `upstream`
/// (`host:port`): the server "comes up" at the address a run recorded.
fn relay(port: u16, upstream: String) {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let server = std::net::TcpStream::connect(&upstream).unwrap();
            let (mut client_in, mut server_out) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut server_in, mut client_out) = (server, client);
            std::thread::spawn(move || std::io::copy(&mut client_in, &mut server_out));
            std::thread::spawn(move || std::io::copy(&mut server_in, &mut client_out));
        }
    });
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn assert_stopped(out: &Output, run_dir: &Path, url: &str) {
    let stderr = text(&out.stderr);
    // Not the status of a run whose tasks failed (3): the run did not happen.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("model `m`"), "{stderr}");
    assert!(
        stderr.contains(&format!("{url} cannot be reached")),
        "{stderr}"
    );
    assert_eq!(lines(&run_dir.join("predictions.jsonl")), 0, "{stderr}");
    assert!(!run_dir.join("summary.json").exists(), "nothing is scored");
}

#[test]
fn a_port_nothing_listens_on_stops_the_run_and_resume_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = eval(&url, &run, false);
    assert_stopped(&out, &run, &url);
    assert!(
        text(&out.stderr).contains("Connection refused"),
        "{}",
        text(&out.stderr)
    );

    // The server comes up at that address: the run resumes and finishes.
    let server =
        ScriptedServer::start(|_| Reply::Answer(r#"{"Thought": "t", "Action": "[]"}"#.into()));
    let upstream = server.base_url();
    let upstream = upstream
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string();
    relay(port, upstream);
    let out = eval(&url, &run, true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(lines(&run.join("predictions.jsonl")), 3);
    assert!(run.join("summary.json").exists());
}

#[test]
fn a_host_name_that_does_not_resolve_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    // `.invalid` never resolves (RFC 6761).
    let url = "http://itc-no-such-host.invalid/v1";
    let out = eval(url, &run, false);
    assert_stopped(&out, &run, url);
}

/// A server that answers, but not the API asked for (a plain web server,
/// a wrong base URL): HTTP 404, 405 or 501 on the first request stops the
/// run at once like a refused connection, naming the URL and the status,
/// without retries; once the server has answered, such a status is an
/// error of its task like any other.
#[test]
fn a_server_without_the_endpoint_stops_the_run_naming_its_status() {
    for status in [404, 405, 501] {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let server = ScriptedServer::start(move |_| {
            Reply::StatusBody(status, "<html><body>Not here</body></html>".into())
        });
        let url = server.base_url();
        let out = eval(&url, &run, false);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        for named in [
            format!("{url} answers, but has no such endpoint"),
            format!("HTTP {status}"),
            format!("POST {url}/chat/completions"),
        ] {
            assert!(stderr.contains(&named), "{named}: {stderr}");
        }
        assert_eq!(lines(&run.join("predictions.jsonl")), 0, "{stderr}");
        assert!(!run.join("summary.json").exists(), "nothing is scored");
        // At most the tasks' first requests (3), never their 5 attempts.
        assert!(server.requests() <= 3, "{} requests", server.requests());
    }

    // After an answer, a 404 is the task's error: the run goes on.
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let server = ScriptedServer::start(|request| match request.count {
        1 => Reply::Answer(r#"{"Thought": "t", "Action": "[]"}"#.into()),
        _ => Reply::Status(404, None),
    });
    // One request at a time, so the answer comes first.
    let out = eval_with(&server.base_url(), &run, &["--concurrency", "1"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(lines(&run.join("predictions.jsonl")), 3, "{stderr}");
    // The first error of each kind is shown with its message.
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\nerrors of m: client 2\n  first client: ")
            && stdout.contains("HTTP 404 Not Found from POST"),
        "{stdout}"
    );
}
