//! End-to-end tests of `itc score`: the real binary on real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn itc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args)
        .output()
        .expect("itc runs")
}

/// `itc score` on a task and a prediction file, plus extra flags.
fn score(tasks: &Path, predictions: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "score",
        "--tasks",
        tasks.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    itc(&args)
}

/// `itc score --format json`, plus extra flags.
fn score_json(tasks: &Path, predictions: &Path, extra: &[&str]) -> Output {
    score(tasks, predictions, &[&["--format", "json"], extra].concat())
}

/// `itc score --out OUT_DIR`, plus extra flags.
fn score_out(tasks: &Path, predictions: &Path, out_dir: &Path, extra: &[&str]) -> Output {
    let out_dir = out_dir.to_str().unwrap();
    score(tasks, predictions, &[&["--out", out_dir], extra].concat())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const TASKS: &str = r#"{"id":"t1","kind":"single","language":"en","country":"GB","category":"Weather","query":"What is the weather in Leeds tomorrow?","tools":[{"name":"uk_weather","required_parameters":[{"name":"city","type":"string"}]},{"name":"fr_weather","required_parameters":[{"name":"ville","type":"string"}]}],"gold":{"thought":"Use the UK forecast.","calls":[{"name":"uk_weather","arguments":{"city":"Leeds"}}]}}
{"id":"t2","kind":"parallel","language":"de","country":"DE","category":"Travel","query":"Zeige Züge von Berlin nach Hamburg und das Wetter in Hamburg.","tools":[{"name":"db_trains","required_parameters":[{"name":"from","type":"string"},{"name":"to","type":"string"}]},{"name":"dwd_weather","required_parameters":[{"name":"ort","type":"string"}]}],"gold":{"thought":"Zuerst die Züge, dann das Wetter.","calls":[{"name":"db_trains","arguments":{"from":"Berlin","to":"Hamburg"}},{"name":"dwd_weather","arguments":{"ort":"Hamburg"}}]}}
{"id":"t3","kind":"no_tool","language":"en","country":"GLOBAL","category":"Finance","query":"Convert my savings.","tools":[{"name":"fx_rate","required_parameters":[{"name":"amount","type":"number"}]}],"gold":{"thought":"The amount is missing.","calls":[]}}
"#;

/// Model `good` answers everything right; `bad` picks a wrong tool, drops a call and calls on a no-tool task.
const PREDICTIONS: &str = r#"{"task_id":"t1","model":"good","output":"{\"Thought\": \"The user wants the forecast for Leeds, so I call the UK weather service.\", \"Action\": \"[uk_weather(city='Leeds')]\"}","calls":null,"error":null}
{"task_id":"t2","model":"good","output":"{\"Thought\": \"Der Nutzer möchte Zugverbindungen und das Wetter in Hamburg wissen.\", \"Action\": \"[db_trains(from='Berlin', to='Hamburg'), dwd_weather(ort='Hamburg')]\"}","calls":null,"error":null}
{"task_id":"t3","model":"good","output":"{\"Thought\": \"The amount to convert is missing, so no tool can be called yet.\", \"Action\": \"[]\"}","calls":null,"error":null}
{"task_id":"t1","model":"bad","output":"I will call the French weather service for this city now: fr_weather(ville='Leeds')","calls":null,"error":null}
{"task_id":"t2","model":"bad","output":"{\"Thought\": \"I will look up the trains from Berlin to Hamburg for the user.\", \"Action\": \"[db_trains(from='Berlin', to='Bremen')]\"}","calls":null,"error":null}
{"task_id":"t3","model":"bad","output":"{\"Thought\": \"Converting the savings with the exchange rate tool now.\", \"Action\": \"[fx_rate(amount=100)]\"}","calls":null,"error":null}
"#;

fn fixture(dir: &Path, tasks: &str, predictions: &str) -> (PathBuf, PathBuf) {
    let t = dir.join("tasks.jsonl");
    let p = dir.join("predictions.jsonl");
    std::fs::write(&t, tasks).unwrap();
    std::fs::write(&p, predictions).unwrap();
    (t, p)
}

fn json_models(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn close(v: &Value, expected: f64) -> bool {
    (v.as_f64().unwrap() - expected).abs() < 1e-6
}

#[test]
fn json_output_carries_every_metric_with_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = fixture(dir.path(), TASKS, PREDICTIONS);
    let out = score_json(&t, &p, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let models = json_models(&text(&out.stdout));
    assert_eq!(models.len(), 2);
    let good = &models[0];
    assert_eq!(good["model"], "good");
    assert_eq!(good["n"], 3);
    for key in ["lm", "fm"] {
        assert!(close(&good[key], 100.0), "{key}: {}", good[key]);
    }
    for group in [
        "selection",
        "invocation",
        "selection_micro",
        "invocation_micro",
    ] {
        for m in ["p", "r", "f1"] {
            assert!(close(&good[group][m], 100.0), "{group}.{m}");
        }
    }
    let bad = &models[1];
    // Selection per task: t1 wrong tool (0), t2 1 of 2 (P=1, R=.5, F1=2/3), t3 spurious call (0).
    assert!(close(&bad["selection"]["p"], 100.0 / 3.0));
    assert!(close(&bad["selection"]["r"], 50.0 / 3.0));
    assert!(close(&bad["selection"]["f1"], 200.0 / 9.0));
    // Invocation: t2 shares 1 of 2 predicted triples, 1 of 3 gold triples: P=.5, R=1/3, F1=.4.
    assert!(close(&bad["invocation"]["f1"], 40.0 / 3.0));
    // Only t2 and t3 meet the format; t2's Thought is English for a German task.
    assert!(close(&bad["fm"], 200.0 / 3.0));
    assert!(close(&bad["lm"], 200.0 / 3.0));
    // Selection errors: t1 Ex (fr_weather) + Mis (uk_weather), t2 Mis, t3 Ex: 0 Hall, 2 Mis, 2 Ex.
    assert!(close(&bad["selection_errors"]["hall"], 0.0));
    assert!(close(&bad["selection_errors"]["mis"], 50.0));
    assert!(close(&bad["selection_errors"]["ex"], 50.0));
    // Invocation errors inside aligned pairs: t2 db_trains `to` differs.
    assert!(close(&bad["invocation_errors"]["incor"], 100.0));
    let ci = &bad["ci"]["selection_f1"];
    assert!(ci["lo"].as_f64().unwrap() <= ci["hi"].as_f64().unwrap());
}

#[test]
fn tables_and_output_files() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = fixture(dir.path(), TASKS, PREDICTIONS);
    let out_dir = dir.path().join("report");
    let out = score_out(&t, &p, &out_dir, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for header in [
        "LM", "FM", "Sel. F1", "Inv. F1", "Hall.", "Mis.", "Ex.", "Incor.", "Miss.", "Ext.",
    ] {
        assert!(stdout.contains(header), "missing {header} in\n{stdout}");
    }
    assert!(
        stdout.contains("│ good") && stdout.contains("│ bad"),
        "{stdout}"
    );

    let scores = std::fs::read_to_string(out_dir.join("task_scores.jsonl")).unwrap();
    assert_eq!(scores.lines().count(), 6);
    let first: Value = serde_json::from_str(scores.lines().next().unwrap()).unwrap();
    assert_eq!(first["task_id"], "t1");
    assert_eq!(first["extraction"], "strict");

    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let mut lines = summary.trim_start_matches('\u{feff}').lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "model");
    assert!(header.contains(&"selection_f1") && header.contains(&"invocation_f1_ci_hi"));
    assert_eq!(lines.count(), 2);

    let by_kind = std::fs::read_to_string(out_dir.join("by_kind.csv")).unwrap();
    // Two models × three kinds present in the fixture.
    assert_eq!(by_kind.lines().count(), 1 + 6);
    assert!(by_kind.contains("bad,no_tool"), "{by_kind}");
    for name in [
        "by_language.csv",
        "by_country.csv",
        "by_category.csv",
        "summary.json",
    ] {
        assert!(out_dir.join(name).exists(), "{name}");
    }
}

/// `--threads` changes how the work is spread (with more than one, the task
/// scores are written while the aggregates are computed), never what is
/// written: every output file but the manifest's times and command line is
/// the same byte for byte.
#[test]
fn output_files_are_the_same_on_one_thread_and_several() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = fixture(dir.path(), TASKS, PREDICTIONS);
    let mut outputs = Vec::new();
    for threads in ["1", "3"] {
        let out_dir = dir.path().join(format!("report-{threads}"));
        let out = score_out(&t, &p, &out_dir, &["--threads", threads]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let wrote = text(&out.stderr)
            .lines()
            .find(|l| l.starts_with("wrote "))
            .map(|l| l.split(" in ").next().unwrap().to_string());
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            // The lock file stays, emptied: not an output.
            .filter(|f| {
                !["manifest.json", ".itc.lock"].contains(&f.file_name().unwrap().to_str().unwrap())
            })
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&f).unwrap())
            })
            .collect();
        files.sort();
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(out_dir.join("manifest.json")).unwrap()).unwrap();
        outputs.push((
            text(&out.stdout),
            wrote,
            files,
            manifest["predictions"].clone(),
        ));
    }
    assert_eq!(outputs[0].2.len(), 7, "{:?}", outputs[0].1);
    assert!(
        outputs[0]
            .2
            .iter()
            .any(|(name, bytes)| name == "task_scores.jsonl"
                && bytes.iter().filter(|&&b| b == b'\n').count() == 6)
    );
    assert_eq!(outputs[0], outputs[1]);
}

/// Outcomes live in scratch files in `TMPDIR` (unlinked: nothing is left
/// there); where none can be made they live on the heap, with the same
/// results.
#[test]
fn scores_are_the_same_with_scratch_files_or_without() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = fixture(dir.path(), TASKS, PREDICTIONS);
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let not_a_folder = dir.path().join("not-a-folder");
    std::fs::write(&not_a_folder, "").unwrap();
    let mut outputs = Vec::new();
    for tmpdir in [&scratch, &not_a_folder] {
        let out = Command::new(env!("CARGO_BIN_EXE_itc"))
            .args(["score", "--tasks", t.to_str().unwrap()])
            .args(["--predictions", p.to_str().unwrap(), "--format", "json"])
            .env("TMPDIR", tmpdir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        outputs.push(text(&out.stdout));
    }
    assert_eq!(json_models(&outputs[0]).len(), 2);
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
}

#[test]
fn malformed_lines_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let broken = PREDICTIONS.replacen(r#""model":"bad""#, r#""model":17"#, 1);
    let (t, p) = fixture(dir.path(), TASKS, &broken);
    let out = score_json(&t, &p, &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:4: field `model`", p.display())),
        "{stderr}"
    );

    let out = score_json(&t, &p, &["--skip-invalid"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("skipped 1 invalid line"),
        "{}",
        text(&out.stderr)
    );
    let models = json_models(&text(&out.stdout));
    let bad = models.iter().find(|m| m["model"] == "bad").unwrap();
    // The skipped line was bad's answer to t1: now a missing task, scored 0 and counted.
    assert_eq!(bad["missing"], 1);

    let broken_tasks = TASKS.replacen(r#""kind":"parallel""#, r#""kind":"sideways""#, 1);
    let (t, p) = fixture(dir.path(), &broken_tasks, PREDICTIONS);
    let out = itc(&[
        "score",
        "--tasks",
        t.to_str().unwrap(),
        "--predictions",
        p.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(&format!("{}:2: field `kind`", t.display())),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn unknown_duplicate_missing_and_errored_predictions_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "{PREDICTIONS}{}\n{}\n{}\n",
        r#"{"task_id":"t9","model":"good","output":"[]"}"#,
        r#"{"task_id":"t1","model":"good","output":"[other()]"}"#,
        r#"{"task_id":"t1","model":"flaky","output":null,"error":"timeout after 3 retries"}"#,
    );
    let (t, p) = fixture(dir.path(), TASKS, &extra);
    let out = score_json(&t, &p, &[]);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("1 prediction(s) for unknown task ids"),
        "{stderr}"
    );
    assert!(stderr.contains("task_id \"t9\""), "{stderr}");
    assert!(
        stderr.contains(
            "good: 0 task(s) without a prediction, 0 errored (scored 0), 1 duplicate(s) ignored"
        ),
        "{stderr}"
    );
    let models = json_models(&text(&out.stdout));
    let good = models.iter().find(|m| m["model"] == "good").unwrap();
    // The duplicate (a wrong answer) is ignored: the first prediction stands.
    assert!(close(&good["selection"]["f1"], 100.0));
    let flaky = models.iter().find(|m| m["model"] == "flaky").unwrap();
    assert_eq!(
        (flaky["errors"].as_u64(), flaky["missing"].as_u64()),
        (Some(1), Some(2))
    );
    // Even the no_tool task scores 0 when no answer was obtained.
    assert!(close(&flaky["selection"]["f1"], 0.0));
}

#[test]
fn strict_values_change_value_equality() {
    let dir = tempfile::tempdir().unwrap();
    let loose = PREDICTIONS.replace("city='Leeds'", "city=' leeds'");
    let (t, p) = fixture(dir.path(), TASKS, &loose);
    let run = |extra: &[&str]| {
        let out = score_json(&t, &p, extra);
        json_models(&text(&out.stdout))[0]["invocation"]["f1"]
            .as_f64()
            .unwrap()
    };
    assert!((run(&[]) - 100.0).abs() < 1e-9);
    assert!(run(&["--strict-values"]) < 100.0);
}

#[test]
fn sample_set_is_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = itc(&["score", "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Sel. F1") && stdout.contains("Hall."),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    assert!(summary.lines().count() > 5, "{summary}");
    let scores = std::fs::read_to_string(dir.path().join("task_scores.jsonl")).unwrap();
    assert!(scores.lines().count() >= 5 * 200);
}

#[test]
fn many_troubled_models_are_summed_up_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // Eight models, each answering only t1: two missing tasks each.
    let predictions: String = (0..8)
        .map(|m| {
            format!(
                "{{\"task_id\":\"t1\",\"model\":\"m{m}\",\"output\":\"[uk_weather(city='Leeds')]\"}}\n"
            )
        })
        .collect();
    let (t, p) = fixture(dir.path(), TASKS, &predictions);
    let out = score_json(&t, &p, &[]);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("8 of 8 models: 16 task(s) without a prediction, 0 errored"),
        "{stderr}"
    );
    let per_model = stderr
        .lines()
        .filter(|l| l.contains("task(s) without a prediction") && l.starts_with('m'))
        .count();
    assert_eq!(per_model, 5, "{stderr}");
    assert_eq!(json_models(&text(&out.stdout)).len(), 8);
}
