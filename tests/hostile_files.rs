//! Files that are not what they seem (issue 34, item 6): a device with no
//! line end given as input, and a run directory whose `predictions.jsonl`
//! is a symbolic link to a file elsewhere or a FIFO. None of them may hang
//! a run, exhaust memory or make itc write outside its folder.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::text;

/// Runs `itc` with a guard against hangs: a run still going after a minute
/// is killed and the test fails.
fn itc_guarded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("itc {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn sample_tasks() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/sample/tasks.jsonl")
        .display()
        .to_string()
}

fn eval(run: &Path, resume: bool) -> Output {
    let tasks = sample_tasks();
    let mut args = vec![
        "eval",
        "--tasks",
        &tasks,
        "--limit",
        "3",
        "--bootstrap",
        "10",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    if resume {
        args.push("--resume");
    }
    itc_guarded(&args)
}

#[cfg(target_os = "linux")]
#[test]
fn a_device_with_no_line_end_is_a_named_error_not_all_memory() {
    let tasks = sample_tasks();
    let out = itc_guarded(&[
        "score",
        "--tasks",
        &tasks,
        "--predictions",
        "/dev/zero",
        "--bootstrap",
        "10",
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/dev/zero:1: a line longer than 64 MiB"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn a_predictions_file_linked_elsewhere_is_refused_and_the_other_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = eval(&run, false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outside = dir.path().join("outside.jsonl");
    std::fs::rename(run.join("predictions.jsonl"), &outside).unwrap();
    let before = std::fs::read(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, run.join("predictions.jsonl")).unwrap();
    // A line the resume would drop (an error), so that a followed link
    // would be rewritten, and tasks to ask, so that it would be appended to.
    let out = eval(&run, true);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("is not a regular file"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&outside).unwrap(), before);
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_predictions_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let fifo = run.join("predictions.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available: skipped");
        return;
    }
    for resume in [false, true] {
        let out = eval(&run, resume);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains("is not a regular file"),
            "{}",
            text(&out.stderr)
        );
    }
}
