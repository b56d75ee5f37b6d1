//! End-to-end: answers a hostile model could write (issue 12, findings 1–3),
//! scored by the real `itc` binary. Nothing a model writes may crash the
//! scorer or make it take time out of proportion to the answer; the limits
//! are those of `itc::spec::limits`. (No timings here: the work bounds are
//! tested in the library and measured by `cargo bench --bench hostile`.)
//! Nor may a symbolic link planted in a run directory make `itc` write
//! outside it (issue 34).

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use support::{itc, text};

fn sample_tasks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl")
}

/// The gold answer of the sample set's task itc-0001, as a model would write it.
const HONEST_0001: &str = r#"{"Thought": "주소를 좌표로 변환하기 위해 카카오 주소 검색을 호출합니다.", "Action": "[kakao.local.search.address(query='판교역로 166')]"}"#;

/// One prediction line.
fn prediction(task_id: &str, model: &str, output: &str) -> String {
    json!({"task_id": task_id, "model": model, "output": output}).to_string()
}

/// `itc score` of prediction lines against the sample tasks, with extra
/// flags; returns the process output and each model's score of `task_id`.
fn score(
    dir: &Path,
    lines: &[String],
    task_id: &str,
    extra: &[&str],
) -> (Output, HashMap<String, Value>) {
    let predictions = dir.join("predictions.jsonl");
    std::fs::write(&predictions, lines.join("\n") + "\n").unwrap();
    let out = dir.join("out");
    let tasks = sample_tasks();
    let mut args = vec![
        "score",
        "--tasks",
        tasks.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
        "--bootstrap",
        "0",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = itc(&args, &[]);
    (output, task_scores(&out.join("task_scores.jsonl"), task_id))
}

/// Each model's score of one task, from a task_scores.jsonl.
fn task_scores(path: &Path, task_id: &str) -> HashMap<String, Value> {
    let Ok(content) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    content
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|s| s["task_id"] == task_id)
        .map(|s| (s["model"].as_str().unwrap().to_string(), s))
        .collect()
}

fn assert_ok(output: &Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstderr: {}",
        output.status.code(),
        text(&output.stderr)
    );
}

/// The answers of finding 1, as a model wrote them: `[f(a=` and then
/// thousands of openings, never closed. The counts are those that overflowed
/// the stack of the release binary (threads of 2 MiB; the 8 MiB main
/// thread with `--threads 1`), and 100,000.
fn deep_answers() -> Vec<(String, String)> {
    let forms = [
        ("paren", "(", 5_672),
        ("bracket", "[", 5_675),
        ("dict", "{'a':", 7_250),
        ("bracket-main-thread", "[", 22_762),
        ("paren-100k", "(", 100_000),
        ("dict-100k", "{'a':", 100_000),
        ("json-100k", "{\"a\":", 100_000),
    ];
    forms
        .iter()
        .map(|(name, open, n)| (name.to_string(), format!("[f(a={}", open.repeat(*n))))
        .collect()
}

#[test]
fn answers_nested_thousands_deep_score_as_unreadable_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let answers = deep_answers();
    let mut lines: Vec<String> = answers
        .iter()
        .map(|(model, output)| prediction("itc-0001", model, output))
        .collect();
    lines.push(prediction("itc-0001", "honest", HONEST_0001));
    for threads in [None, Some("1"), Some("4")] {
        let extra: Vec<&str> = threads.iter().flat_map(|t| ["--threads", t]).collect();
        let (output, scores) = score(dir.path(), &lines, "itc-0001", &extra);
        assert_ok(&output);
        for (model, _) in &answers {
            let s = &scores[model];
            assert_eq!(s["extraction"], "nothing", "{model} {threads:?}");
            assert_eq!(s["format_match"], false, "{model}");
            assert_eq!(s["read_limits"], json!({"too_deep": true}), "{model}");
            assert_eq!(s["selection"]["f1"], 0.0, "{model}");
            assert_eq!(s["counts"]["sel_pred"], 0, "{model}");
        }
        let honest = &scores["honest"];
        assert_eq!(honest["extraction"], "strict");
        assert_eq!(honest["invocation"]["f1"], 1.0);
        assert!(honest.get("read_limits").is_none(), "{honest}");
    }
}

#[test]
fn eval_resume_scores_a_stored_deep_answer() {
    // In `itc eval` the answer is already in predictions.jsonl: before the
    // limits every --resume aborted on it again.
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let sample = std::fs::read_to_string(sample_tasks()).unwrap();
    let three: Vec<&str> = sample.lines().take(3).collect();
    std::fs::write(&tasks, three.join("\n") + "\n").unwrap();
    let run = dir.path().join("run");
    let args = [
        "eval",
        "--tasks",
        tasks.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--bootstrap",
        "0",
        "--no-progress",
    ];
    assert_ok(&itc(&args, &[]));
    let path = run.join("predictions.jsonl");
    let stored = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<Value> = stored
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = lines
        .iter_mut()
        .find(|p| p["task_id"] == "itc-0001")
        .unwrap();
    first["output"] = json!(format!("[f(a={}", "[".repeat(5_675)));
    let rewritten: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, rewritten.join("\n") + "\n").unwrap();

    let mut resume = args.to_vec();
    resume.push("--resume");
    for _ in 0..2 {
        let output = itc(&resume, &[]);
        assert_ok(&output);
        let scores = task_scores(&run.join("task_scores.jsonl"), "itc-0001");
        let s = scores.values().next().expect("itc-0001 scored");
        assert_eq!(s["extraction"], "nothing");
        assert_eq!(s["read_limits"]["too_deep"], true);
    }
}

/// `--resume` rewrites predictions.jsonl without its torn last line; its
/// temporary file was `predictions.jsonl.tmp`, and a link planted under
/// that name made itc write the predictions outside the run directory and
/// then rename the link over predictions.jsonl.
#[test]
fn a_link_planted_in_a_run_directory_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let args = [
        "eval",
        "--run-dir",
        run.to_str().unwrap(),
        "--limit",
        "3",
        "--bootstrap",
        "0",
        "--no-progress",
    ];
    assert_ok(&itc(&args, &[]));
    let predictions = run.join("predictions.jsonl");
    let finished = std::fs::read_to_string(&predictions).unwrap();
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(&predictions)
        .unwrap();
    std::io::Write::write_all(&mut torn, b"{\"task_id\": \"itc-00").unwrap();
    let outside = dir.path().join("precious.txt");
    std::fs::write(&outside, "keep me").unwrap();
    std::os::unix::fs::symlink(&outside, run.join("predictions.jsonl.tmp")).unwrap();

    let mut resume = args.to_vec();
    resume.push("--resume");
    assert_ok(&itc(&resume, &[]));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
    assert!(predictions.symlink_metadata().unwrap().is_file());
    assert_eq!(std::fs::read_to_string(&predictions).unwrap(), finished);
}

#[test]
fn thousands_of_calls_to_one_tool_align_only_the_first_of_the_name() {
    // Finding 2: task itc-0090 calls feiertage_api three times (NW, BE, HH);
    // the answer calls it 3,200 times, as text and as native calls.
    let lands = ["NW", "BE", "HH", "BY"];
    let n = 3_200;
    let text_calls: Vec<String> = (0..n)
        .map(|i| format!("feiertage_api(jahr=2025, nur_land='{}')", lands[i % 4]))
        .collect();
    let answer =
        json!({"Thought": "Feiertage abrufen.", "Action": format!("[{}]", text_calls.join(", "))});
    let native: Vec<Value> = (0..n)
        .map(|i| json!({"name": "feiertage_api", "arguments": {"jahr": 2025, "nur_land": lands[i % 4]}}))
        .collect();
    let lines = vec![
        prediction("itc-0090", "text", &answer.to_string()),
        json!({"task_id": "itc-0090", "model": "native", "output": null, "calls": native})
            .to_string(),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (output, scores) = score(dir.path(), &lines, "itc-0090", &[]);
    assert_ok(&output);
    for model in ["text", "native"] {
        let c = &scores[model]["counts"];
        // Selection counts every call; the three gold calls align with the
        // first predictions of their land, so every gold triple is shared.
        assert_eq!((&c["sel_pred"], &c["sel_tp"]), (&json!(3200), &json!(3)));
        assert_eq!((&c["inv_pred"], &c["inv_tp"]), (&json!(6400), &json!(6)));
        assert_eq!(c["inv_gold"], 6);
    }
}

#[test]
fn an_answer_longer_than_the_limit_is_read_up_to_it() {
    let limit = itc::spec::limits::MAX_ANSWER_BYTES;
    let padding = "x".repeat(limit);
    let lines = vec![
        prediction("itc-0001", "long", &format!("{HONEST_0001} {padding}")),
        prediction("itc-0001", "late", &format!("{padding} {HONEST_0001}")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (output, scores) = score(dir.path(), &lines, "itc-0001", &[]);
    assert_ok(&output);
    let long = &scores["long"];
    assert_eq!(long["extraction"], "json_object");
    assert_eq!(long["selection"]["f1"], 1.0);
    let cut = HONEST_0001.len() + 1;
    assert_eq!(long["read_limits"], json!({"truncated_bytes": cut}));
    let late = &scores["late"];
    assert_eq!(late["extraction"], "nothing");
    assert_eq!(late["read_limits"], json!({"truncated_bytes": cut}));
}

#[test]
fn a_long_run_of_call_openings_is_read() {
    // Finding 3: `[f(` repeated to 300 KB. Reading it is linear (the lenient
    // scan shares one work budget, see spec::response's tests on the same
    // input), and so is the language check's bracket matching.
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![
        prediction("itc-0001", "openings", &"[f(".repeat(100_000)),
        prediction("itc-0001", "brackets", &"[".repeat(100_000)),
    ];
    let (output, scores) = score(dir.path(), &lines, "itc-0001", &["--threads", "1"]);
    assert_ok(&output);
    assert_eq!(scores["openings"]["extraction"], "nothing");
    assert_eq!(
        scores["openings"]["read_limits"],
        json!({"out_of_work": true})
    );
    assert_eq!(scores["brackets"]["extraction"], "nothing");
}
