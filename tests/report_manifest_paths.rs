//! `itc report` reads the files a folder's manifest names from that folder,
//! whatever the current directory, and only when they are the files that
//! were scored: another directory's `tasks.jsonl` with the same ids is never
//! shown, and a manifest naming `/dev/zero`, a FIFO or a directory ends at
//! once with a warning naming the field.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::text;

/// Runs the binary in `cwd`; a run longer than a minute is killed and
/// fails the test (the old reader hung on a FIFO and read `/dev/zero` for
/// ever).
fn itc_in(cwd: &Path, args: &[&str]) -> Output {
    let logs = tempfile::tempdir().unwrap();
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap())
        .spawn()
        .expect("itc runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("itc {} did not finish in 60 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: fs::read(&out).unwrap(),
        stderr: fs::read(&err).unwrap(),
    }
}

fn ok_in(cwd: &Path, args: &[&str]) -> Output {
    let output = itc_in(cwd, args);
    assert!(
        output.status.success(),
        "itc {}\n{}",
        args.join(" "),
        text(&output.stderr)
    );
    output
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The sample set's tasks as JSON values.
fn sample_tasks() -> Vec<Value> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    fs::read_to_string(repo.join("datasets/sample/tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tasks with the same ids and other queries.
fn other_tasks_text() -> String {
    sample_tasks()
        .into_iter()
        .map(|mut t| {
            t["query"] = format!("OTHER QUERY of {}", t["id"].as_str().unwrap()).into();
            t.to_string() + "\n"
        })
        .collect()
}

/// The first task's query as the page writes it.
fn first_query() -> String {
    itc::report::html::escape(sample_tasks()[0]["query"].as_str().unwrap())
}

/// A project directory with `data/tasks.jsonl` and one prediction file,
/// scored with relative paths into `scored`, and an `itc eval` run
/// directory `runs/baseline` made there too.
struct Project {
    root: tempfile::TempDir,
    scored: PathBuf,
    run: PathBuf,
}

fn project() -> Project {
    let root = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.path().join("data");
    fs::create_dir(&data).unwrap();
    fs::copy(
        repo.join("datasets/sample/tasks.jsonl"),
        data.join("tasks.jsonl"),
    )
    .unwrap();
    fs::copy(
        repo.join("datasets/sample/predictions/careful-mid.jsonl"),
        data.join("careful-mid.jsonl"),
    )
    .unwrap();
    let args = [
        "score",
        "--tasks",
        "data/tasks.jsonl",
        "--predictions",
        "data/careful-mid.jsonl",
        "--out",
        "scored",
    ];
    ok_in(root.path(), &args);
    let eval = ["eval", "--run-dir", "runs/baseline", "--no-progress"];
    ok_in(root.path(), &eval);
    Project {
        scored: root.path().join("scored"),
        run: root.path().join("runs/baseline"),
        root,
    }
}

/// `itc report FOLDER` run in `cwd`, writing into a fresh folder of the
/// project: the page, report.md and the command's output.
fn report_from(p: &Project, cwd: &Path, folder: &Path, out: &str) -> (String, String, Output) {
    let out = p.root.path().join(out);
    let output = ok_in(cwd, &["report", path(folder), "--out", path(&out)]);
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let markdown = fs::read_to_string(out.join("report.md")).unwrap();
    (html, markdown, output)
}

#[test]
fn manifest_paths_are_read_from_the_folder_and_checked() {
    let p = project();
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(p.scored.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["tasks"]["path"], "../data/tasks.jsonl");
    assert_eq!(
        manifest["predictions"][0]["path"],
        "../data/careful-mid.jsonl"
    );
    let run: Value =
        serde_json::from_str(&fs::read_to_string(p.run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(run["tasks"]["path"], "tasks.jsonl");

    // (a) From another directory: every query and every model's calls.
    let elsewhere = tempfile::tempdir().unwrap();
    for (folder, name) in [(&p.scored, "a-scored"), (&p.run, "a-run")] {
        let (html, _, output) = report_from(&p, elsewhere.path(), folder, name);
        assert!(html.contains(&first_query()), "{name}");
        // (A model may say "not available" in its own answer.)
        assert!(!html.contains("<em>not available</em>"), "{name}");
        assert!(!text(&output.stderr).contains("warning"), "{name}");
    }

    // (b) From a directory holding other tasks with the same ids where the
    // manifests' paths would be read relative to it: never those queries.
    let decoy = tempfile::tempdir().unwrap();
    for dir in ["data", "scored", "runs/baseline"] {
        fs::create_dir_all(decoy.path().join(dir)).unwrap();
        fs::write(
            decoy.path().join(dir).join("tasks.jsonl"),
            other_tasks_text(),
        )
        .unwrap();
    }
    for (folder, name) in [(&p.scored, "b-scored"), (&p.run, "b-run")] {
        let (html, _, _) = report_from(&p, decoy.path(), folder, name);
        assert!(!html.contains("OTHER QUERY"), "{name}");
        assert!(html.contains(&first_query()), "{name}");
    }

    // A manifest of an older itc, its path relative to where itc ran: read
    // from there, and elsewhere only a file with the recorded SHA-256.
    edit_manifest(&p.scored, |m| {
        m["tasks"]["path"] = "data/tasks.jsonl".into()
    });
    let (html, _, output) = report_from(&p, p.root.path(), &p.scored, "b-older");
    assert!(html.contains(&first_query()));
    assert!(!text(&output.stderr).contains("warning"));
    let (html, _, output) = report_from(&p, decoy.path(), &p.scored, "b-older-decoy");
    assert!(!html.contains("OTHER QUERY") && html.contains("<em>not available</em>"));
    assert!(text(&output.stderr).contains("is not the file scored"));
    edit_manifest(&p.scored, |m| {
        m["tasks"]["path"] = "../data/tasks.jsonl".into()
    });

    // The task file itself changed since it was scored: not used, said on
    // stderr, in report.md and above the browser, and the exit status is 0.
    let tasks = p.root.path().join("data/tasks.jsonl");
    let scored_sha = manifest["tasks"]["sha256"].as_str().unwrap().to_string();
    fs::write(&tasks, other_tasks_text()).unwrap();
    let (html, markdown, output) = report_from(&p, p.root.path(), &p.scored, "b-changed");
    assert!(!html.contains("OTHER QUERY"));
    assert!(html.contains("<em>not available</em>"));
    assert!(html.contains("id=\"not-used\""));
    let stderr = text(&output.stderr);
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning:"))
        .unwrap_or_else(|| panic!("{stderr}"));
    for needle in [
        "manifest.json: tasks names ../data/tasks.jsonl",
        "is not the file scored: SHA-256 ",
        &format!("{}… expected", &scored_sha[..12]),
        "task browser shows \"not available\"",
    ] {
        assert!(warning.contains(needle), "{needle}\n{warning}");
    }
    assert!(markdown.contains("**Files not used.**"), "{markdown}");
    let report: Value = serde_json::from_str(
        &fs::read_to_string(p.root.path().join("b-changed/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["inputs"][0]["files_not_used"][0]["field"], "tasks");
}

/// Rewrites the scored folder's manifest with `edit`.
fn edit_manifest(folder: &Path, edit: impl FnOnce(&mut Value)) {
    let file = folder.join("manifest.json");
    let mut manifest: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    edit(&mut manifest);
    fs::write(&file, manifest.to_string()).unwrap();
}

#[test]
fn a_manifest_naming_a_device_a_fifo_or_a_directory_ends_at_once() {
    let p = project();
    let fifo = p.scored.join("fifo");
    let has_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    edit_manifest(&p.scored, |m| {
        m["tasks"]["path"] = "/dev/zero".into();
        if has_fifo {
            m["predictions"][0]["path"] = "fifo".into();
        }
    });
    let started = Instant::now();
    let (html, _, output) = report_from(&p, p.root.path(), &p.scored, "c-device");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(html.contains("<em>not available</em>"));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "tasks names /dev/zero: /dev/zero is not a regular file (a character device)"
        ),
        "{stderr}"
    );
    if has_fifo {
        assert!(
            stderr.contains("predictions[0] names fifo:")
                && stderr.contains("is not a regular file (a FIFO)"),
            "{stderr}"
        );
    }

    edit_manifest(&p.scored, |m| m["tasks"]["path"] = ".".into());
    let (_, _, output) = report_from(&p, p.root.path(), &p.scored, "c-directory");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("tasks names .:") && stderr.contains("is not a regular file (a directory)"),
        "{stderr}"
    );
}
