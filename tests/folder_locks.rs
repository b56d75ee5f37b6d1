//! Two writers never share a folder: a running `itc eval` holds its run
//! directory, so a second `itc eval --resume` or an `itc score --out` into it
//! is refused, naming the holder; a lock left by a dead process is taken
//! over with a notice. The lock is a `flock` on `.itc.lock`, which records
//! the holder and stays in the folder, emptied, once released.

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

/// Waits until the lock file names its holder.
fn wait_for_holder(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read(path).map_or(true, |bytes| bytes.is_empty()) {
        assert!(
            Instant::now() < deadline,
            "{} never named a holder",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the lock file is released: emptied, and locked by nobody.
fn released(path: &Path) -> bool {
    let file = std::fs::File::open(path).unwrap();
    std::fs::read(path).unwrap().is_empty() && file.try_lock().is_ok()
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
    wait_for_holder(&run_dir.join(LOCK_FILE));

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
    assert!(released(&run_dir.join(LOCK_FILE)), "released at the end");
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
    assert!(released(&out.join(LOCK_FILE)));
}

/// `itc score --out out` with `copies` times the same prediction file, named
/// by a path of nearly `PATH_MAX` bytes: a command line of `copies` × 3.6 kB.
fn long_score_command(dir: &Path, out: &Path, copies: usize) -> Command {
    let predictions = dir.join("predictions.jsonl");
    if !predictions.exists() {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("datasets/sample/predictions/function-caller.jsonl");
        let lines: String = std::fs::read_to_string(sample)
            .unwrap()
            .lines()
            .take(100)
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(&predictions, lines).unwrap();
    }
    let long = dir.join("./".repeat(1800)).join("predictions.jsonl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_itc"));
    command.args(["score", "--out", out.to_str().unwrap(), "--predictions"]);
    command.args(std::iter::repeat_n(&long, copies));
    command.stdout(Stdio::null()).stderr(Stdio::piped());
    command
}

/// Writers started at the same moment: one of them writes and every other
/// is refused, naming it. Issue 34: a writer that found the lock file
/// created but not yet filled took it for a dead writer's and took it over.
/// The long command line (what the lock file records) makes filling it
/// take a while, as a busy machine or a slow disk would; every other round
/// starts from a lock left by a dead writer, which one writer takes over.
#[test]
fn writers_started_together_never_share_a_folder() {
    const WRITERS: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores");
    std::fs::create_dir(&out).unwrap();
    for round in 0..4 {
        let stale = round % 2 == 0;
        if stale {
            // A process id above Linux's maximum: no such process runs.
            let command = format!("itc score {}", "x".repeat(10_000));
            let holder = serde_json::json!({"pid": 4_194_305, "command": command});
            std::fs::write(out.join(LOCK_FILE), holder.to_string()).unwrap();
        }
        // All spawned before any is waited for; the winner holds the lock
        // while it scores (about a second), far longer than the spawns take.
        let children: Vec<_> = (0..WRITERS)
            .map(|_| long_score_command(dir.path(), &out, 50).spawn().unwrap())
            .collect();
        let ids: Vec<u32> = children.iter().map(|c| c.id()).collect();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let stderrs: Vec<String> = outputs
            .iter()
            .map(|o| itc::util::bounded::clip(&text(&o.stderr), 400))
            .collect();
        let winners: Vec<usize> = (0..WRITERS)
            .filter(|&i| outputs[i].status.success())
            .collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: {} of {WRITERS} writers wrote: {stderrs:#?}",
            winners.len()
        );
        let winner = winners[0];
        for (i, (output, stderr)) in outputs.iter().zip(&stderrs).enumerate() {
            let took_over = stderr.contains("which is gone: taking the lock over");
            assert_eq!(took_over, stale && i == winner, "round {round}: {stderr}");
            if i == winner {
                continue;
            }
            assert_eq!(output.status.code(), Some(1), "round {round}: {stderr}");
            assert!(
                stderr.contains("two writers must not share a folder"),
                "round {round}: {stderr}"
            );
            assert!(
                stderr.contains(&format!("is in use by process {} ", ids[winner])),
                "round {round}: names the writer {}: {stderr}",
                ids[winner]
            );
        }
        assert!(out.join("summary.json").exists());
        assert!(released(&out.join(LOCK_FILE)));
    }
}
