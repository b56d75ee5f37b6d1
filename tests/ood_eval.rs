//! `itc eval --dataset …` against the scripted OpenAI-compatible server on
//! loopback: the benchmark's own prompt reaches the server, answers in the
//! benchmark's format are read into SPEC calls for `itc score`, and the
//! official APIBench and Seal-Tools scorers score the same answers. A model
//! that answers with the gold must get full marks on both; a wrong one must
//! not.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use itc::benchmarks::apibench::Hub;
use itc::benchmarks::dataset::OodDataset;
use serde_json::Value;
use support::server::{Reply, ScriptedServer};
use support::{itc, text};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `summary.json`: model → (selection F1, invocation F1).
fn spec_scores(run: &Path) -> HashMap<String, (f64, f64)> {
    read_json(&run.join("summary.json"))
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["model"].as_str().unwrap().to_string(),
                (
                    m["summary"]["selection"]["f1"].as_f64().unwrap(),
                    m["summary"]["invocation"]["f1"].as_f64().unwrap(),
                ),
            )
        })
        .collect()
}

/// `official.json`: model → result.
fn official(run: &Path) -> HashMap<String, Value> {
    read_json(&run.join("official.json"))["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["model"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

fn models_toml(dir: &Path, base_url: &str, models: &[(&str, &str)]) -> PathBuf {
    let mut toml = String::new();
    for (name, style) in models {
        toml.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\nprompt_style = \"{style}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\n\n"
        ));
    }
    let path = dir.join("models.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

/// The user message and the model id of a request.
fn query_and_model(body: &Value) -> (String, String) {
    (
        body["messages"][1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        body["model"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn apibench_gold_answers_in_gorilla_and_itc_formats_get_full_marks_and_wrong_ones_do_not() {
    const N: usize = 12;
    let dataset = OodDataset::Apibench(Hub::Torchhub);
    let files = dataset.shipped_files().unwrap();
    let (tasks, _) = dataset.convert(&files, 4).unwrap();
    // Gold answers by query, from the question file itself.
    let eval_lines: Vec<Value> = itc::util::embedded::read_to_string(&files[1])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut gold: HashMap<String, (String, String, String)> = HashMap::new();
    for (task, line) in tasks.iter().zip(&eval_lines).take(N) {
        let previous = gold.insert(
            task.query.clone(),
            (
                line["api_call"].as_str().unwrap().to_string(),
                line["api_data"]["domain"].as_str().unwrap().to_string(),
                itc::spec::action::print_actions(&task.gold.calls),
            ),
        );
        assert!(previous.is_none(), "queries are distinct: {}", task.query);
    }
    let gold_for_server = gold.clone();
    let server = ScriptedServer::start(move |r| {
        let system = r.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        let (query, model) = query_and_model(&r.body);
        let (call, domain, action) = &gold_for_server[&query];
        match model.as_str() {
            "gorilla-gold" => {
                assert!(system.contains("<<<api_call>>>") && !system.contains("\"Thought\""));
                Reply::Answer(format!(
                    "<<<domain>>>: {domain}, <<<api_call>>>: {call}, <<<api_provider>>>: PyTorch, <<<explanation>>>: This model fits the request."
                ))
            }
            "gorilla-wrong" => Reply::Answer(
                "<<<domain>>>: Classification, <<<api_call>>>: torch.hub.load(repo_or_dir='nobody/nothing', model='nothing_at_all'), <<<api_provider>>>: PyTorch".into(),
            ),
            _ => {
                assert!(system.contains("\"Thought\"") && !system.contains("<<<api_call>>>"));
                Reply::Answer(
                    serde_json::json!({"Thought": "This API fits.", "Action": action}).to_string(),
                )
            }
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(
        dir.path(),
        &server.base_url(),
        &[
            ("gorilla-gold", "gorilla"),
            ("gorilla-wrong", "gorilla"),
            ("itc-gold", "itc"),
        ],
    );
    let run = dir.path().join("run");
    let empty_cache = dir.path().join("no-fetch-cache");
    let result = itc(
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--dataset",
            "apibench:torchhub",
            "--ood-cache",
            empty_cache.to_str().unwrap(),
            "--limit",
            &N.to_string(),
            "--run-dir",
            run.to_str().unwrap(),
            "--no-cache",
            "--no-progress",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    let (stdout, stderr) = (text(&result.stdout), text(&result.stderr));
    assert!(result.status.success(), "{stdout}\n{stderr}");
    assert_eq!(server.requests(), 3 * N);
    assert!(
        stderr.contains("from the copies of datasets/ood built into itc"),
        "{stderr}"
    );
    assert!(
        stdout.contains("APIBench torchhub, official ast_eval_th.py"),
        "{stdout}"
    );

    // SPEC scores, through the calls read from each format.
    let spec = spec_scores(&run);
    assert_eq!(spec["gorilla-gold"], (100.0, 100.0), "{stdout}");
    assert_eq!(spec["itc-gold"], (100.0, 100.0), "{stdout}");
    assert_eq!(spec["gorilla-wrong"], (0.0, 0.0), "{stdout}");
    assert!(run.join("predictions.spec.jsonl").is_file());

    // The official scorer on the same answers.
    let official = official(&run);
    for model in ["gorilla-gold", "itc-gold"] {
        let r = &official[model];
        assert_eq!(
            (
                r["total"].as_u64(),
                r["correct"].as_u64(),
                r["hallucinated"].as_u64()
            ),
            (Some(N as u64), Some(N as u64), Some(0)),
            "{model}: {r}"
        );
        assert_eq!(r["accuracy"].as_f64(), Some(1.0));
    }
    let wrong = &official["gorilla-wrong"];
    assert_eq!(wrong["accuracy"].as_f64(), Some(0.0), "{wrong}");
    assert_eq!(wrong["hallucination"].as_f64(), Some(1.0), "{wrong}");
    // The scorer's input is a Gorilla response file, one line per question.
    let responses =
        std::fs::read_to_string(run.join("official/gorilla-gold.responses.jsonl")).unwrap();
    let first: Value = serde_json::from_str(responses.lines().next().unwrap()).unwrap();
    assert_eq!(first["question_id"], 1);
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .contains("<<<api_call>>>: torch.hub.load(")
    );
    assert_eq!(responses.lines().count(), N);

    // `itc score` accepts the converted tasks and the SPEC-call predictions.
    let rescored = itc(
        &[
            "score",
            "--tasks",
            run.join("tasks.jsonl").to_str().unwrap(),
            "--predictions",
            run.join("predictions.spec.jsonl").to_str().unwrap(),
            "--format",
            "json",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    assert!(rescored.status.success(), "{}", text(&rescored.stderr));
    let lines: Vec<Value> = text(&rescored.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let gold_line = lines.iter().find(|l| l["model"] == "gorilla-gold").unwrap();
    assert_eq!(gold_line["selection"]["f1"].as_f64(), Some(100.0));

    // The report shows the run in both tables.
    let report = itc(&["ood", "report", "--run", run.to_str().unwrap()], &[]);
    let shown = text(&report.stdout);
    assert!(report.status.success(), "{}", text(&report.stderr));
    assert!(shown.contains("APIBench TorchHub"), "{shown}");
    assert!(shown.contains("gorilla-gold (gorilla prompt)"), "{shown}");
    let row = shown
        .lines()
        .find(|l| l.contains("gorilla-wrong (gorilla prompt)") && l.contains(" 100.0 │"))
        .unwrap_or_else(|| panic!("a 100% hallucination row: {shown}"));
    let cells: Vec<&str> = row.split('│').map(str::trim).collect();
    assert!(cells.contains(&"0"), "{row}");
}

#[test]
fn seal_tools_gold_lists_get_full_marks_from_both_scorers() {
    let ids = [
        "test_in_domain-easy-0",
        "test_in_domain-easy-1",
        "test_in_domain-easy-2",
        "test_in_domain-difficult-201",
        "test_in_domain-difficult-225",
        "test_in_domain-difficult-237",
    ];
    let records: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("datasets/ood/seal-tools/test_in_domain.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let (tasks, _) = OodDataset::SealTools
        .convert(&OodDataset::SealTools.shipped_files().unwrap(), 4)
        .unwrap();
    // Query → the gold in the official output format (a Python literal).
    let mut gold: HashMap<String, String> = HashMap::new();
    for id in ids {
        let task = tasks.iter().find(|t| t.id == id).unwrap();
        let record = records.iter().find(|r| r["id"] == id).unwrap();
        let answer = record["conversations"][1]["value"].as_str().unwrap();
        assert!(
            gold.insert(task.query.clone(), answer.to_string())
                .is_none()
        );
    }
    let server = ScriptedServer::start(move |r| {
        let system = r.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        let (query, model) = query_and_model(&r.body);
        assert!(
            system.contains(r#""responses": ["API_call_0"]"#),
            "{system}"
        );
        match model.as_str() {
            "seal-gold" => Reply::Answer(format!("Here are the calls:\n{}", gold[&query])),
            _ => Reply::Answer(
                "[{\"api\": \"noSuchApi\", \"parameters\": {}, \"responses\": [\"API_call_0\"]}]"
                    .into(),
            ),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(
        dir.path(),
        &server.base_url(),
        &[("seal-gold", "seal-tools"), ("seal-wrong", "seal-tools")],
    );
    let run = dir.path().join("run");
    let result = itc(
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--dataset",
            "seal-tools",
            "--ood-cache",
            dir.path().join("none").to_str().unwrap(),
            "--ids",
            &ids.join(","),
            "--run-dir",
            run.to_str().unwrap(),
            "--no-cache",
            "--no-progress",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    let (stdout, stderr) = (text(&result.stdout), text(&result.stderr));
    assert!(result.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Seal-Tools, official calculate_score_ToolLearning"),
        "{stdout}"
    );
    let spec = spec_scores(&run);
    assert_eq!(spec["seal-gold"], (100.0, 100.0), "{stdout}");
    assert_eq!(spec["seal-wrong"].0, 0.0, "{stdout}");
    let official = official(&run);
    let g = &official["seal-gold"];
    for key in [
        "parsed_fraction",
        "tool_p",
        "tool_r",
        "tool_f1",
        "param_p",
        "param_r",
        "param_f1",
    ] {
        assert_eq!(g[key].as_f64(), Some(1.0), "{key}: {g}");
    }
    assert_eq!(g["n"].as_u64(), Some(ids.len() as u64));
    let w = &official["seal-wrong"];
    assert_eq!(w["parsed_fraction"].as_f64(), Some(1.0), "{w}");
    assert!(
        w["tool_f1"].is_null(),
        "no right call: the official dict has no F1: {w}"
    );
}

#[test]
fn benchmark_styles_are_refused_where_they_cannot_work() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let no_cache = dir.path().join("none");
    let server = [
        "--backend",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model-id",
        "m",
    ];
    let cases: [(Vec<&str>, &str); 3] = [
        // The baseline answers in the ITC format only.
        (
            vec![
                "--dataset",
                "apibench:torchhub",
                "--prompt-style",
                "gorilla",
            ],
            "baseline answers in the ITC format only",
        ),
        // The Gorilla format is for APIBench.
        (
            [
                &["--dataset", "seal-tools", "--prompt-style", "gorilla"][..],
                &server,
            ]
            .concat(),
            "for APIBench hubs",
        ),
        // NexusRaven is never shipped: without files or a fetch cache, say how to get it.
        (
            vec![
                "--dataset",
                "nexusraven",
                "--ood-cache",
                no_cache.to_str().unwrap(),
            ],
            "itc ood fetch nexusraven",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["eval"];
        all.extend(args);
        all.extend(["--run-dir", run.to_str().unwrap()]);
        let r = itc(&all, &[]);
        assert!(!r.status.success(), "{all:?}");
        assert!(text(&r.stderr).contains(expected), "{}", text(&r.stderr));
        assert!(!run.exists(), "nothing is written before the checks pass");
    }
}

/// Every dataset name runs with the offline baseline (shipped copies, or
/// fixtures in the benchmark's format for NexusRaven and ToolAlpaca), and
/// `itc ood report` puts all of them in one Table-5-shaped table.
#[test]
fn every_dataset_runs_and_lands_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let raven = root.join("tests/fixtures/ood/nexusraven");
    let runs: Vec<(&str, Vec<PathBuf>)> = vec![
        ("apibench:huggingface", vec![]),
        ("apibench:tensorflowhub", vec![]),
        ("apibench:torchhub", vec![]),
        ("seal-tools", vec![]),
        (
            "toolalpaca",
            vec![root.join("tests/fixtures/ood/toolalpaca/eval_sample.json")],
        ),
        (
            "nexusraven",
            vec![
                raven.join("option_turns.json"),
                raven.join("stub_context.json"),
            ],
        ),
    ];
    let mut report_args = vec![
        "ood".to_string(),
        "report".into(),
        "--format".into(),
        "json".into(),
        "--run".into(),
    ];
    for (name, files) in &runs {
        let run = dir.path().join(name.replace(':', "-"));
        let mut args = vec![
            "eval".to_string(),
            "--dataset".into(),
            name.to_string(),
            "--limit".into(),
            "4".into(),
            "--bootstrap".into(),
            "0".into(),
            "--no-progress".into(),
            "--run-dir".into(),
            run.to_str().unwrap().into(),
        ];
        if !files.is_empty() {
            args.push("--dataset-files".into());
            args.extend(files.iter().map(|f| f.to_str().unwrap().to_string()));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        // No `itc ood fetch` cache: shipped copies or the given files.
        let empty_cache = dir.path().join("no-cache");
        let out = itc(&refs, &[("ITC_CACHE", empty_cache.to_str().unwrap())]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let info = read_json(&run.join("ood.json"));
        assert_eq!(info["dataset"], *name, "{info}");
        let scores = spec_scores(&run);
        assert_eq!(scores.len(), 1, "{name}: one model");
        report_args.push(run.to_str().unwrap().to_string());
    }
    let refs: Vec<&str> = report_args.iter().map(String::as_str).collect();
    let out = itc(&refs, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let cells: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["table"] == "table5")
        .collect();
    assert_eq!(cells.len(), runs.len(), "one Table 5 cell per dataset");
    let apibench = text(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"table\":\"apibench\""))
        .count();
    assert_eq!(apibench, 3, "the three hubs in the APIBench table");

    // --out writes the same cells as CSV, in long form.
    let csv_dir = dir.path().join("report");
    let mut with_out = refs.clone();
    with_out.extend(["--out", csv_dir.to_str().unwrap()]);
    let out = itc(&with_out, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let read = |f: &str| std::fs::read_to_string(csv_dir.join(f)).unwrap();
    let table5 = read("table5.csv");
    assert_eq!(
        table5.lines().next(),
        Some("model,dataset,n,selection_f1,invocation_f1")
    );
    assert_eq!(table5.lines().count(), 1 + runs.len());
    let hubs = read("apibench.csv");
    assert_eq!(
        hubs.lines().next(),
        Some("model,hub,total,hallucination,ast_accuracy")
    );
    assert_eq!(hubs.lines().count(), 1 + 3);
    assert_eq!(read("seal_tools.csv").lines().count(), 1 + 1);
}
