//! Two writers never share a folder: a running `itc eval` holds its run
//! directory, so a second `itc eval --resume` or an `itc score --out` into it
//! is refused, naming the holder; a lock left by a dead process is taken
//! over with a notice.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, generate};
use support::{itc, text};

const LOCK_FILE: &str = ".itc.lock";

fn eval_args<'a>(base_url: &'a str, tasks: &'a str, run_dir: &'a str) -> Vec<&'a str> {
    vec![
        "eval",
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model-id",
        "m",
        "--name",
        "m",
        "--tasks",
        tasks,
        "--run-dir",
        run_dir,
        "--bootstrap",
        "10",
        "--no-cache",
    ]
}

fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_writer_is_refused_while_a_run_holds_its_folder() {
    // Answers take long enough for the second writers to arrive mid-run.
    let server = ScriptedServer::start(|r| {
        let task = r.task.clone().unwrap();
        Reply::Delay(
            Duration::from_millis(300),
            Box::new(Reply::Answer(answer(&task))),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(6));
    let run_dir = dir.path().join("run");
    let base_url = server.base_url();
    let (tasks, run) = (tasks_path.to_str().unwrap(), run_dir.to_str().unwrap());

    let first = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(eval_args(&base_url, tasks, run))
        .args(["--concurrency", "1", "--no-progress"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&run_dir.join(LOCK_FILE));

    let mut resume = eval_args(&base_url, tasks, run);
    resume.push("--resume");
    let second = itc(&resume, &[]);
    let stderr = text(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is in use by process"), "{stderr}");
    assert!(
        stderr.contains(&first.id().to_string()),
        "names the holder: {stderr}"
    );

    let predictions = run_dir.join("predictions.jsonl");
    let score = itc(
        &[
            "score",
            "--tasks",
            tasks,
            "--predictions",
            predictions.to_str().unwrap(),
            "--out",
            run,
        ],
        &[],
    );
    assert_eq!(score.status.code(), Some(1), "{}", text(&score.stderr));
    assert!(text(&score.stderr).contains("is in use by process"));

    let output = first.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(!run_dir.join(LOCK_FILE).exists(), "released at the end");
    let lines = std::fs::read_to_string(&predictions)
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 6, "one prediction per task: nothing written twice");
    assert_eq!(server.log().len(), 6, "no request sent twice");
}

#[test]
fn a_lock_left_by_a_dead_process_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores");
    std::fs::create_dir_all(&out).unwrap();
    // A process id above Linux's maximum: no such process runs.
    std::fs::write(
        out.join(LOCK_FILE),
        r#"{"pid":4194305,"command":"itc score --out scores"}"#,
    )
    .unwrap();
    let result = itc(
        &["score", "--out", out.to_str().unwrap(), "--bootstrap", "10"],
        &[],
    );
    let stderr = text(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        stderr.contains("which is gone: taking the lock over"),
        "{stderr}"
    );
    assert!(out.join("summary.json").exists());
    assert!(!out.join(LOCK_FILE).exists());
}
