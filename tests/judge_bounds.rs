//! End-to-end tests of the bounds and the file safety of `itc judge`
//! (issue 48): judge replies read up to `--max-judge-reply-bytes`, reasons
//! cut, the run's texts shown up to `--max-shown-chars`, the files of a
//! judged folder and of the cache opened only as regular files, and the
//! ledger counting each judgment it used once.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::judged::{self, Setup, judgments, ok, task};
use support::server::{Reply, Request, completion};
use support::{itc, text};

/// A run directory whose model `cand` answered each task with its text.
fn run_dir(root: &Path, answers: &[(&str, &str)]) -> PathBuf {
    let tasks: Vec<Value> = answers
        .iter()
        .map(|(id, _)| task(id, "Weather in Paris?"))
        .collect();
    let predictions: Vec<Value> = answers
        .iter()
        .map(|(id, answer)| json!({"task_id": id, "model": "cand", "steps": [{"output": answer}]}))
        .collect();
    judged::run_dir(root, "run", "cand", &tasks, &predictions)
}

fn label(l: &str, reason: &str) -> Reply {
    Reply::Json(completion(
        &json!({"label": l, "reason": reason}).to_string(),
    ))
}

/// The judge: answer statuses Solved, task statuses Solvable, but for the
/// tasks whose ids ask for something else.
fn script(req: &Request) -> Reply {
    let task = req.task.clone().unwrap_or_default();
    let system = req.body["messages"][0]["content"].as_str().unwrap_or("");
    if !system.starts_with("You check whether") {
        return label("Solvable", "tools fit");
    }
    match task.as_str() {
        "big" => Reply::Answer("x".repeat(2_500_000)),
        "long" => label("Solved", &"r".repeat(600_000)),
        "inf" => Reply::Raw(
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"label\": \"Solved\", \"reason\": \"ok\"}"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1e400, "completion_tokens": -3}}"#.into(),
        ),
        "huge" => {
            let mut body = completion(r#"{"label": "Solved", "reason": "ok"}"#);
            body["usage"] = json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX});
            Reply::Json(body)
        }
        _ => label("Solved", "ok"),
    }
}

fn setup() -> Setup {
    Setup::start(script, &["judge-a"])
}

fn args<'a>(s: &'a Setup, run: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![
        "judge",
        run.to_str().unwrap(),
        "--metric",
        "pass-rate",
        "--judge",
        "judge-a",
        "--config",
        s.config.to_str().unwrap(),
        "--format",
        "json",
    ];
    all.extend_from_slice(extra);
    all
}

fn judge(s: &Setup, run: &Path, extra: &[&str]) -> Output {
    itc(&args(s, run, extra), &[])
}

/// `itc judge`, stopped if it does not end within a minute (a FIFO read
/// would block it for ever): `None` then.
fn judge_or_hang(s: &Setup, run: &Path, extra: &[&str]) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args(s, run, extra))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(child.wait_with_output().unwrap())
}

fn tree_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .map(|e| e.unwrap())
            .map(|e| match e.file_type().unwrap().is_dir() {
                true => tree_bytes(&e.path()),
                false => e.metadata().unwrap().len(),
            })
            .sum()
    })
}

#[test]
fn judge_replies_are_read_up_to_the_cap_and_reasons_are_cut() {
    let s = setup();
    let run = run_dir(&s.root, &[("big", "Sunny."), ("long", "Sunny.")]);
    let judged = ok(&judge(&s, &run, &["--samples", "1"]));
    let folder = run.join("judged/pass-rate");
    let lines = judgments(&folder);
    let big: Vec<&Value> = lines
        .iter()
        .filter(|l| l["task_id"] == "big" && l["stage"] == "answer_status")
        .collect();
    assert_eq!(big.len(), 4, "asked once, then again three times");
    for line in big {
        assert!(line["label"].is_null());
        let reason = line["reason"].as_str().unwrap();
        assert!(
            reason.contains("--max-judge-reply-bytes 1048576"),
            "{reason}"
        );
    }
    let long = lines.iter().find(|l| l["task_id"] == "long").unwrap();
    assert_eq!(long["label"], "Solved");
    assert_eq!(long["reason"].as_str().unwrap().chars().count(), 4_001);
    assert_eq!(judged["models"][0]["unreadable"], 1);
    // Nothing of the long replies is kept whole: not in the judgments, not
    // in the cache (the 600 KB reply, under the cap, is cached once).
    let kept = std::fs::metadata(folder.join("judgments.jsonl"))
        .unwrap()
        .len();
    assert!(kept < 100_000, "judgments.jsonl holds {kept} bytes");
    let cached = tree_bytes(&run.join("judged/cache"));
    assert!(cached < 1_000_000, "the cache holds {cached} bytes");

    // A smaller cap refuses the 600 KB reply too (read from the cache).
    let other = s.root.join("small-cap");
    let out = judge(
        &s,
        &run,
        &[
            "--samples",
            "1",
            "-o",
            other.to_str().unwrap(),
            "--max-judge-reply-bytes",
            "100000",
        ],
    );
    assert_eq!(ok(&out)["models"][0]["unreadable"], 2);
}

#[test]
fn a_long_final_answer_is_cut_and_the_cut_is_said_and_recorded() {
    let s = setup();
    let answer = format!("ANS {}", "é".repeat(300_000));
    let run = run_dir(&s.root, &[("t1", &answer)]);
    ok(&judge(
        &s,
        &run,
        &["--samples", "1", "--max-shown-chars", "1000"],
    ));
    let log = s.server.log();
    assert_eq!(log.len(), 1);
    let body: Value = serde_json::from_str(&log[0].body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.chars().count() < 1_500,
        "{} characters",
        user.chars().count()
    );
    let cut = answer.chars().count() - 1_000;
    assert!(
        user.contains(&format!("{cut} more characters of it are not shown")),
        "{user}"
    );
    let lines = judgments(&run.join("judged/pass-rate"));
    assert_eq!(lines[0]["shown_cut_chars"], cut);
    // Under the cap, the answer is shown whole, and its line says nothing of cuts.
    let whole = s.root.join("whole");
    let whole_flag = whole.to_str().unwrap();
    let extra = [
        "--samples",
        "1",
        "-o",
        whole_flag,
        "--max-shown-chars",
        "300004",
    ];
    ok(&judge(&s, &run, &extra));
    let body: Value = serde_json::from_str(&s.server.log()[1].body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains(&answer) && !user.contains("not shown"));
    assert!(judgments(&whole)[0].get("shown_cut_chars").is_none());
}

#[cfg(unix)]
#[test]
fn planted_links_and_fifos_in_a_judged_folder_are_refused_and_outside_files_kept() {
    use std::os::unix::fs::symlink;
    let s = setup();
    let run = run_dir(&s.root, &[("t1", "Sunny."), ("t2", "Rainy.")]);
    let outside = s.root.join("outside.jsonl");
    let empty = s.root.join("empty.jsonl");
    let held = "{\"a\": 1}\n{\"b\": 2}\n{\"torn";
    std::fs::write(&outside, held).unwrap();
    std::fs::write(&empty, "").unwrap();
    let folder = s.root.join("judged");
    std::fs::create_dir(&folder).unwrap();
    let out_flag = folder.to_str().unwrap();
    let refused = |extra: &[&str], what: &str| {
        let out =
            judge_or_hang(&s, &run, &[&["-o", out_flag], extra].concat()).expect("itc judge ended");
        assert!(!out.status.success());
        let err = text(&out.stderr);
        assert!(err.contains(what), "{err}");
    };
    for target in [&outside, &empty] {
        symlink(target, folder.join("judgments.jsonl")).unwrap();
        refused(&[], "not a regular file (a symbolic link)");
        refused(&["--resume"], "not a regular file (a symbolic link)");
        std::fs::remove_file(folder.join("judgments.jsonl")).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), held);
    assert_eq!(std::fs::read_to_string(&empty).unwrap(), "");
    let settings = s.root.join("settings.json");
    std::fs::write(&settings, "{}").unwrap();
    symlink(&settings, folder.join("settings.json")).unwrap();
    refused(&["--resume"], "not a regular file (a symbolic link)");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}");
    assert!(folder.join("settings.json").is_symlink(), "not replaced");
    std::fs::remove_file(folder.join("settings.json")).unwrap();
    symlink("/dev/zero", folder.join("settings.json")).unwrap();
    refused(&["--resume"], "not a regular file (a symbolic link)");
    std::fs::remove_file(folder.join("settings.json")).unwrap();
    let fifo = folder.join("judgments.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    refused(&["--resume"], "not a regular file");
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(s.server.requests(), 0, "nothing was asked");

    // Cache entries: links (to a file, to /dev/zero) and FIFOs are absent
    // entries, asked again; the file a link names is left as it was.
    let cache = s.root.join("cache");
    let cache_flag = cache.to_str().unwrap();
    ok(&judge(&s, &run, &["--samples", "1", "--cache", cache_flag]));
    let asked = s.server.requests();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 2);
    std::fs::remove_file(&entries[0]).unwrap();
    symlink("/dev/zero", &entries[0]).unwrap();
    std::fs::remove_file(&entries[1]).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(&entries[1])
            .status()
            .unwrap()
            .success()
    );
    let rerun = |name: &str| {
        let out = s.root.join(name);
        let extra = [
            "--samples",
            "1",
            "--cache",
            cache_flag,
            "-o",
            out.to_str().unwrap(),
        ];
        ok(&judge_or_hang(&s, &run, &extra).expect("itc judge ended"));
    };
    rerun("again");
    assert_eq!(s.server.requests(), asked + 2, "both asked again");
    std::fs::write(&outside, held).unwrap();
    for entry in &entries {
        std::fs::remove_file(entry).unwrap();
        symlink(&outside, entry).unwrap();
    }
    rerun("linked");
    assert_eq!(s.server.requests(), asked + 4);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), held);
}

#[test]
fn a_resumed_folder_counts_each_judgment_it_uses_once() {
    let s = setup();
    let run = run_dir(&s.root, &[("t1", "Sunny."), ("t2", "Rainy.")]);
    let first = ok(&judge(&s, &run, &["--samples", "2"]));
    let figures = |judged: &Value| {
        let m = &judged["models"][0];
        (
            m["requests"].clone(),
            m["prompt_tokens"].clone(),
            m["completion_tokens"].clone(),
            m["cost_usd"].clone(),
        )
    };
    assert_eq!(
        figures(&first),
        (json!(4), json!(400), json!(80), json!(0.0))
    );
    let folder = run.join("judged/pass-rate");
    let path = folder.join("judgments.jsonl");
    let lines = std::fs::read(&path).unwrap();
    let mut foreign: Value = judgments(&folder)[0].clone();
    foreign["task_id"] = json!("not-in-the-run");
    foreign["prompt_tokens"] = json!(1_000_000);
    foreign["cost_usd"] = json!(123.0);
    let t2 = judgments(&folder)
        .into_iter()
        .find(|l| l["task_id"] == "t2");
    let mut invalid = serde_json::to_vec(&t2.unwrap()).unwrap();
    let at = invalid.windows(6).position(|w| w == b"\"t2\",\"").unwrap() + 1;
    invalid[at] = 0xff;
    let mut planted = [lines.as_slice(), &lines, &lines].concat();
    planted.extend(serde_json::to_vec(&foreign).unwrap());
    planted.push(b'\n');
    planted.extend(invalid);
    planted.push(b'\n');
    std::fs::write(&path, planted).unwrap();
    let asked = s.server.requests();
    for _ in 0..2 {
        let out = judge(&s, &run, &["--samples", "2", "--resume"]);
        let judged = ok(&out);
        assert_eq!(figures(&judged), figures(&first), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("1 bad line(s) dropped, 8 repeated line(s)"));
    }
    assert_eq!(s.server.requests(), asked, "every judgment was reused");
}

#[test]
fn absurd_usage_figures_are_absent_or_saturate_never_retried_or_wrapped() {
    let s = setup();
    let run = run_dir(&s.root, &[("inf", "Sunny."), ("huge", "Rainy.")]);
    let judged = ok(&judge(&s, &run, &["--samples", "2"]));
    assert_eq!(s.server.requests(), 4, "no reply was retried");
    let m = &judged["models"][0];
    assert_eq!(m["pass_rate"]["passed"], 2);
    assert_eq!(m["prompt_tokens"], u64::MAX);
    assert_eq!(m["completion_tokens"], u64::MAX);
    let lines = judgments(&run.join("judged/pass-rate"));
    let inf = lines.iter().find(|l| l["task_id"] == "inf").unwrap();
    assert_eq!(
        (&inf["prompt_tokens"], &inf["completion_tokens"]),
        (&json!(0), &json!(0))
    );
}
