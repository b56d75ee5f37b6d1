//! `itc eval` as a user runs it: the real binary, real files, a scripted
//! server on loopback.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, assert_complete, generate, index, read_predictions};
use support::{itc, text};

const SENTINEL: &str = "sk-itc-sentinel-7d41c0ffee";

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_api_key_reaches_the_server_and_nothing_we_write() {
    // Task 1 mod 4: 401 whose body echoes the key; 2 mod 4: 500 every time;
    // 3 mod 8: an answer that repeats the key in its text and reasoning;
    // 7 mod 8: a 401 that echoes it with JSON escapes.
    let server = ScriptedServer::start(|r| {
        let task = r.task.clone().unwrap();
        let auth = r.headers.get("authorization").cloned().unwrap_or_default();
        match index(&task) % 8 {
            1 | 5 => Reply::StatusBody(
                401,
                json!({"error": {"message": format!("key rejected: {auth}")}}).to_string(),
            ),
            2 | 6 => Reply::Status(500, None),
            3 => Reply::Json(json!({
                "choices": [{"message": {
                    "role": "assistant",
                    "content": format!("{{\"Thought\": \"your key is {SENTINEL}\", \"Action\": \"[]\"}}"),
                    "reasoning_content": format!("the header said {auth}")
                }, "finish_reason": "stop"}]
            })),
            7 => {
                let escaped: String = SENTINEL
                    .chars()
                    .map(|c| format!("\\u{:04x}", c as u32))
                    .collect();
                Reply::StatusBody(401, format!("{{\"error\": \"bad key {escaped}\"}}"))
            }
            _ => Reply::Answer(answer(&task)),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(12);
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let run_dir = dir.path().join("runs").join("keyed");
    let base_url = server.base_url();
    let out = itc(
        &[
            "eval",
            "--backend",
            "openai",
            "--base-url",
            &base_url,
            "--model-id",
            "m",
            "--name",
            "keyed",
            "--api-key-env",
            "ITC_TEST_SENTINEL_KEY",
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--max-attempts",
            "2",
            "--retry-base-ms",
            "1",
            "--bootstrap",
            "10",
        ],
        &[("ITC_TEST_SENTINEL_KEY", SENTINEL)],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // Some tasks ended with errors: the run finished, with its own status.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let failed = read_predictions(&run_dir.join("predictions.jsonl"))
        .values()
        .filter(|p| p.error.is_some())
        .count();
    assert!(failed > 0);
    assert!(
        stderr.contains(&format!("{failed} of 12 prediction(s) ended with an error")),
        "{stderr}"
    );
    assert!(
        run_dir.join("summary.json").exists(),
        "scores are written first"
    );

    // The key was sent, as a bearer token, on every request.
    let log = server.log();
    assert_eq!(
        log.len(),
        12 + 3,
        "9 answered or rejected once, 3 failing twice"
    );
    assert!(
        log.iter()
            .all(|l| l.headers.get("authorization").map(String::as_str)
                == Some(&format!("Bearer {SENTINEL}")))
    );

    // It appears in no file of the run directory or the cache, nor on stdout or stderr.
    let files = files_under(&dir.path().join("runs"));
    assert!(files.iter().any(|f| f.ends_with("predictions.jsonl")));
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(dir.path().join("runs").join("cache"))),
        "cache written"
    );
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SENTINEL),
            "key found in {}",
            file.display()
        );
    }
    assert!(!stdout.contains(SENTINEL) && !stderr.contains(SENTINEL));
    let escaped_start: String = SENTINEL[..4]
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        assert!(
            !text.contains(&escaped_start),
            "escaped key found in {}",
            file.display()
        );
    }
    // The echoed key was redacted, not dropped with its error.
    let predictions = read_predictions(&run_dir.join("predictions.jsonl"));
    let rejected = &predictions["gen-0001"];
    assert_eq!(rejected.error_kind.as_deref(), Some("client"));
    assert!(
        rejected.error.as_deref().unwrap().contains("Bearer ***"),
        "{:?}",
        rejected.error
    );
    assert_eq!(
        predictions["gen-0002"].error_kind.as_deref(),
        Some("server")
    );
}

#[test]
fn a_missing_key_fails_before_any_request() {
    let server = ScriptedServer::start(|_| Reply::Status(500, None));
    let dir = tempfile::tempdir().unwrap();
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(3));
    let run_dir = dir.path().join("run");
    let base_url = server.base_url();
    let out = itc(
        &[
            "eval",
            "--backend",
            "openai",
            "--base-url",
            &base_url,
            "--model-id",
            "m",
            "--api-key-env",
            "ITC_TEST_SURELY_UNSET_KEY",
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("ITC_TEST_SURELY_UNSET_KEY is not set"),
        "{stderr}"
    );
    assert_eq!(server.requests(), 0);
    assert!(!run_dir.exists(), "nothing written");
}

#[test]
fn config_errors_name_the_file_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        "[[models]]\nname = \"a\"\nbackend = \"openai\"\nmodel_id = \"x\"\nbase_url = \"http://127.0.0.1:1/v1\"\nconcurrency = \"many\"\n",
    )
    .unwrap();
    let out = itc(&["eval", "--config", config.to_str().unwrap()], &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: field `models[0].concurrency`",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_config_file_runs_the_models_it_names() {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(10);
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let config = dir.path().join("models.toml");
    let url = server.base_url();
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"one\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"a\"\nprice_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n\n\
             [[models]]\nname = \"two\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"b\"\nmode = \"structured\"\n\n\
             [[models]]\nname = \"unused\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"c\"\n"
        ),
    )
    .unwrap();
    let run_dir = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "two,one",
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--kinds",
            "single",
            "--limit",
            "5",
            "--bootstrap",
            "10",
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // 5 single tasks for each of two models.
    assert_eq!(server.requests(), 10);
    let lines = std::fs::read_to_string(run_dir.join("predictions.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 10);
    let selected = std::fs::read_to_string(run_dir.join("tasks.jsonl")).unwrap();
    assert_eq!(selected.lines().count(), 5);
    // Run figures (latency, tokens, cost) and the score tables.
    assert!(
        stdout.contains("Latency ms") && stdout.contains("Cost $"),
        "{stdout}"
    );
    let costs: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("│ one "))
        .filter_map(|l| l.trim_end_matches('│').rsplit('│').next())
        .map(str::trim)
        .collect();
    assert!(
        costs.contains(&"0.0007"),
        "5 × (100 in at $1/M + 20 out at $2/M): {costs:?}\n{stdout}"
    );
    assert!(
        stdout.contains("Sel. F1") && stdout.contains("│ two"),
        "{stdout}"
    );
    for file in [
        "summary.json",
        "task_scores.jsonl",
        "run.json",
        "models.json",
    ] {
        assert!(run_dir.join(file).exists(), "{file}");
    }
}

#[test]
fn eval_without_arguments_runs_the_baseline_on_the_sample_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["eval", "--bootstrap", "0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("│ baseline"), "{stdout}");
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "one run directory, no cache: {runs:?}");
    let name = runs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("baseline-"), "{name}");
    let sample = itc::util::embedded::read_to_string(&itc::spec::sample::sample_tasks()).unwrap();
    let tasks: Vec<itc::spec::records::Task> = sample
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let predictions = read_predictions(&runs[0].join("predictions.jsonl"));
    assert_complete(&predictions, &tasks);
    assert!(
        predictions
            .values()
            .all(|p| p.error.is_none() && p.output.is_some())
    );
}

/// Where the reader of a run's output has gone.
#[derive(Debug, Clone, Copy)]
enum Closed {
    /// `itc eval 2>&1 | head -3`: one pipe for both, closed after 3 lines.
    BothAfterThreeLines,
    /// Standard output's reader gone before the run starts.
    Stdout,
    /// Standard error's reader gone before the run starts.
    Stderr,
}

/// A closed pipe ends the output quietly and never the run (issue 48): the
/// run exits as it would have (0), with every file written and a
/// prediction for each task.
#[test]
fn a_closed_pipe_ends_the_output_not_the_run() {
    use std::io::BufRead;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    for closed in [Closed::BothAfterThreeLines, Closed::Stdout, Closed::Stderr] {
        let run_dir = dir.path().join(format!("{closed:?}"));
        let (reader, writer) = std::io::pipe().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_itc"));
        command.args(["eval", "--bootstrap", "0", "--limit", "7", "--run-dir"]);
        command.arg(&run_dir);
        match closed {
            Closed::BothAfterThreeLines => {
                command.stdout(writer.try_clone().unwrap()).stderr(writer)
            }
            Closed::Stdout => command.stdout(writer).stderr(Stdio::null()),
            Closed::Stderr => command.stdout(Stdio::null()).stderr(writer),
        };
        let mut child = command.spawn().unwrap();
        drop(command); // the parent's copies of the write end
        if let Closed::BothAfterThreeLines = closed {
            let mut lines = std::io::BufReader::new(reader).lines();
            for _ in 0..3 {
                lines.next().unwrap().unwrap();
            }
        } else {
            drop(reader);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{closed:?}");
        for file in [
            "tasks.jsonl",
            "predictions.jsonl",
            "run.json",
            "models.json",
            "task_scores.jsonl",
            "summary.json",
            "manifest.json",
        ] {
            assert!(run_dir.join(file).exists(), "{closed:?}: {file}");
        }
        let predictions = read_predictions(&run_dir.join("predictions.jsonl"));
        let tasks: Vec<itc::spec::records::Task> =
            std::fs::read_to_string(run_dir.join("tasks.jsonl"))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        assert_eq!(tasks.len(), 7, "{closed:?}");
        assert_complete(&predictions, &tasks);
    }
}

/// Runs started in the same second each get a default run directory of
/// their own, and `--resume` without `--run-dir` is refused rather than
/// starting a new run.
#[test]
fn runs_started_together_get_run_directories_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_itc"))
            .args(["eval", "--bootstrap", "0", "--limit", "3", "--no-progress"])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..3).map(|_| start()).collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 3, "{runs:?}");
    for run in &runs {
        assert_eq!(read_predictions(&run.join("predictions.jsonl")).len(), 3);
    }

    let resume = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["eval", "--resume"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!resume.status.success());
    assert!(
        text(&resume.stderr).contains("name it with --run-dir"),
        "{}",
        text(&resume.stderr)
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join("runs")).unwrap().count(),
        3
    );
}

#[test]
fn a_run_directory_is_never_overwritten_without_resume() {
    let dir = tempfile::tempdir().unwrap();
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(6));
    let run_dir = dir.path().join("run");
    let args = |extra: &[&'static str]| {
        let mut v = vec![
            "eval".to_string(),
            "--tasks".into(),
            tasks_path.to_str().unwrap().into(),
            "--run-dir".into(),
            run_dir.to_str().unwrap().into(),
            "--bootstrap".into(),
            "0".into(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |a: Vec<String>| {
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        itc(&refs, &[])
    };
    assert!(run(args(&[])).status.success());
    let before = std::fs::read_to_string(run_dir.join("tasks.jsonl")).unwrap();
    let again = run(args(&["--limit", "2"]));
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("--resume"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(run_dir.join("tasks.jsonl")).unwrap(),
        before
    );
    // With --resume nothing is left to do: the baseline answered all six.
    let resumed = run(args(&["--resume"]));
    assert!(resumed.status.success());
    assert!(
        text(&resumed.stderr).contains("resumed: 6 finished"),
        "{}",
        text(&resumed.stderr)
    );
    let predictions = read_predictions(&run_dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), 6);

    // A setting the baseline never sends (an answer length) is refused,
    // naming the flag, and nothing in the directory changes. (Settings a
    // resumed model may not change: tests/eval_faults.rs and src/run/resume.rs.)
    let files = |name: &str| std::fs::read(run_dir.join(name)).unwrap();
    let (models, stored) = (files("models.json"), files("predictions.jsonl"));
    let changed = run(args(&["--resume", "--max-tokens", "64"]));
    assert!(!changed.status.success());
    let message = text(&changed.stderr);
    assert!(
        message.contains("--max-tokens: the offline baseline sends no request"),
        "{message}"
    );
    assert_eq!(files("models.json"), models);
    assert_eq!(files("predictions.jsonl"), stored);
    // Pacing may change.
    let paced = run(args(&["--resume", "--concurrency", "3"]));
    assert!(paced.status.success(), "{}", text(&paced.stderr));
}

/// Every file of a folder and its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// `--resume` continues the run it names: onto other tasks (a BFCL run
/// resumed without its `--dataset`, so on the sample set) it is refused,
/// naming both task sets, and the folder is left as it was; a folder that
/// does not exist has nothing to resume and is not created.
#[test]
fn a_resume_onto_other_tasks_or_no_run_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let run_dir_arg = run_dir.to_str().unwrap();
    let base = ["eval", "--run-dir", run_dir_arg, "--bootstrap", "0"];
    let bfcl = [
        &base[..],
        &["--dataset", "bfcl:live_parallel", "--limit", "3"],
    ]
    .concat();
    let first = itc(&bfcl, &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let before = snapshot(&run_dir);

    let onto_sample = itc(&[&base[..], &["--resume"]].concat(), &[]);
    assert_eq!(onto_sample.status.code(), Some(1));
    let message = text(&onto_sample.stderr);
    for named in [
        "--dataset bfcl:live_parallel (3 task(s))",
        "datasets/sample/tasks.jsonl (243 task(s))",
    ] {
        assert!(message.contains(named), "{named}: {message}");
    }
    assert_eq!(
        snapshot(&run_dir),
        before,
        "the refused resume changed files"
    );

    // Fewer tasks than the run holds would leave predictions of tasks it
    // no longer has.
    let fewer = [
        &base[..],
        &[
            "--dataset",
            "bfcl:live_parallel",
            "--limit",
            "2",
            "--resume",
        ],
    ]
    .concat();
    let refused = itc(&fewer, &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("lacks 1 of the run's tasks"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(snapshot(&run_dir), before);

    // A run made before task_set.json existed is compared by its tasks.jsonl.
    std::fs::remove_file(run_dir.join("task_set.json")).unwrap();
    let old = itc(&[&base[..], &["--resume"]].concat(), &[]);
    assert_eq!(old.status.code(), Some(1));
    assert!(
        text(&old.stderr).contains("was run on the tasks of"),
        "{}",
        text(&old.stderr)
    );
    let same = itc(&[&bfcl[..], &["--resume"]].concat(), &[]);
    assert!(same.status.success(), "{}", text(&same.stderr));
    assert!(run_dir.join("task_set.json").exists());
    // A resume may add tasks: the run's three stay answered, one joins.
    let more = [
        &base[..],
        &[
            "--dataset",
            "bfcl:live_parallel",
            "--limit",
            "4",
            "--resume",
        ],
    ]
    .concat();
    let grown = itc(&more, &[]);
    assert!(grown.status.success(), "{}", text(&grown.stderr));
    let predictions = read_predictions(&run_dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), 4);

    let missing = dir.path().join("never-run");
    let nothing = itc(
        &["eval", "--run-dir", missing.to_str().unwrap(), "--resume"],
        &[],
    );
    assert_eq!(nothing.status.code(), Some(1));
    assert!(
        text(&nothing.stderr).contains("nothing to resume"),
        "{}",
        text(&nothing.stderr)
    );
    assert!(!missing.exists());
    // A scheduler's task that may be a retry starts afresh there instead.
    let started = itc(
        &[
            "eval",
            "--run-dir",
            missing.to_str().unwrap(),
            "--resume-or-start",
            "--limit",
            "2",
        ],
        &[],
    );
    assert!(started.status.success(), "{}", text(&started.stderr));
    assert_eq!(
        read_predictions(&missing.join("predictions.jsonl")).len(),
        2
    );
}

/// `--system-prompt FILE` replaces the built-in system prompt with the
/// user's template; a broken template stops the run before any request,
/// naming the file and the line.
#[test]
fn a_custom_system_prompt_reaches_the_server_and_a_broken_one_stops_the_run() {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(4);
    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let template = dir.path().join("my_prompt.jinja");
    std::fs::write(
        &template,
        "MY PROMPT for a {{ kind }} task in {{ language }}.\nTools:\n{{ tools }}\n",
    )
    .unwrap();
    let base_url = server.base_url();
    let run = |template: &Path, run_dir: &Path| {
        itc(
            &[
                "eval",
                "--backend",
                "openai",
                "--base-url",
                &base_url,
                "--model-id",
                "m",
                "--name",
                "custom",
                "--tasks",
                tasks_path.to_str().unwrap(),
                "--run-dir",
                run_dir.to_str().unwrap(),
                "--system-prompt",
                template.to_str().unwrap(),
                "--no-cache",
                "--bootstrap",
                "0",
            ],
            &[],
        )
    };
    let out = run(&template, &dir.path().join("run"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = server.log();
    assert_eq!(log.len(), 4);
    for request in &log {
        let id = request.task.as_deref().expect("the task marker");
        let task = tasks.iter().find(|t| t.id == id).unwrap();
        let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap();
        let expected = format!(
            "MY PROMPT for a {} task in {}.\nTools:\n",
            task.kind.as_str(),
            task.language
        );
        assert!(system.starts_with(&expected), "{system}");
        for tool in &task.tools {
            assert!(
                system.contains(&format!("\"name\": \"{}\"", tool.name)),
                "{system}"
            );
        }
        assert!(
            !system.contains("Thought"),
            "the built-in prompt is gone: {system}"
        );
    }
    let predictions = read_predictions(&dir.path().join("run").join("predictions.jsonl"));
    assert_eq!(predictions.len(), 4);

    std::fs::write(&template, "fine\n{% for t in %}\n").unwrap();
    let out = run(&template, &dir.path().join("run2"));
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("my_prompt.jinja"), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("system_prompt"), "{stderr}");
    assert_eq!(server.log().len(), 4, "no request for a broken template");
}

#[test]
fn requests_state_a_temperature_and_the_run_records_who_answered() {
    let server = ScriptedServer::start(|_| {
        Reply::Json(json!({
            "id": "x",
            "model": "served-model-7",
            "system_fingerprint": "fp_abc123",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "{\"Thought\": \"t\", \"Action\": \"[]\"}"}}],
        }))
    });
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--backend",
            "openai",
            "--base-url",
            &server.base_url(),
            "--model-id",
            "asked-model",
            "--limit",
            "3",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No temperature given: every request states 0, never the server's default.
    let bodies: Vec<serde_json::Value> = server
        .log()
        .iter()
        .map(|l| serde_json::from_str(&l.body).unwrap())
        .collect();
    assert_eq!(bodies.len(), 3);
    assert!(
        bodies.iter().all(|b| b["temperature"] == json!(0.0)),
        "{bodies:?}"
    );
    // The settings sent are recorded, and so is who answered.
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(run.join(name)).unwrap()).unwrap()
    };
    assert_eq!(read("models.json")[0]["temperature"], json!(0.0));
    let manifest = read("manifest.json");
    assert_eq!(manifest["eval"]["models"][0]["temperature"], json!(0.0));
    let figures = &read("run.json")["models"][0];
    assert_eq!(figures["served_models"], json!({"served-model-7": 3}));
    assert_eq!(figures["system_fingerprints"], json!({"fp_abc123": 3}));
    // The recorded temperature is a setting a resumed run may not change.
    let resumed = itc(
        &[
            "eval",
            "--backend",
            "openai",
            "--base-url",
            &server.base_url(),
            "--model-id",
            "asked-model",
            "--limit",
            "3",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
            "--resume",
            "--temperature",
            "0.5",
        ],
        &[],
    );
    assert!(!resumed.status.success());
    let message = text(&resumed.stderr);
    assert!(
        message.contains("was run with temperature 0.0, now 0.5"),
        "{message}"
    );
    // The manifest names the build, as `itc --version` does.
    let version = text(&itc(&["--version"], &[]).stdout);
    let commit = manifest["itc_commit"].as_str().unwrap();
    assert_eq!(
        version.trim(),
        format!(
            "itc {} (commit {commit})",
            manifest["itc_version"].as_str().unwrap()
        )
    );
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match head {
        Ok(head) if head.status.success() => assert_eq!(commit, text(&head.stdout).trim()),
        _ => assert_eq!(commit, "unknown"),
    }
}

/// `--limit` takes a whole number from 1: 0 and -1 are refused, naming the flag.
#[test]
fn a_limit_below_one_is_refused_naming_the_flag() {
    for value in ["0", "-1"] {
        let out = itc(&["eval", "--limit", value], &[]);
        assert_eq!(out.status.code(), Some(2), "{value}");
        let message = text(&out.stderr);
        assert!(
            message.contains(&format!("invalid value '{value}' for '--limit <LIMIT>'")),
            "{message}"
        );
    }
}
