//! StableToolBench and ToolBench queries: `itc ood convert stabletoolbench`
//! on the shipped files, and `itc eval --dataset stabletoolbench:<group>`
//! with the offline baseline.

mod support;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use itc::spec::records::Task;
use serde_json::Value;
use support::server::{Reply, ScriptedServer};
use support::{itc, scripted_models_toml, text};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The queries of a file, read as plain JSON.
fn queries(path: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `itc ood convert stabletoolbench` on `inputs`; the tasks and stderr.
fn convert(inputs: &[PathBuf]) -> (Vec<Task>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("tasks.jsonl");
    let mut args = vec!["ood", "convert", "stabletoolbench", "--input"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", out_file.to_str().unwrap()]);
    let out = itc(&args, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let (tasks, skipped) = itc::spec::jsonl::read_records::<Task>(&out_file, false).unwrap();
    assert!(skipped.is_empty());
    (tasks, stderr)
}

/// One task per query, in order, whose tools are the query's APIs with
/// unique names of at most 64 characters, and whose gold calls name tools
/// of the task, one per distinct relevant API.
fn check(tasks: &[Task], files: &[PathBuf]) {
    let mut expected = Vec::new();
    for f in files {
        let group = f.file_stem().unwrap().to_str().unwrap().to_string();
        expected.extend(queries(f).into_iter().map(|q| (group.clone(), q)));
    }
    assert_eq!(tasks.len(), expected.len(), "one task per query");
    for (t, (group, q)) in tasks.iter().zip(&expected) {
        assert_eq!(t.id, format!("stb-{group}-{}", q["query_id"]));
        assert_eq!(t.category, *group);
        assert_eq!(t.query, q["query"].as_str().unwrap());
        assert_eq!(t.language, "en");
        assert_eq!(t.tools.len(), q["api_list"].as_array().unwrap().len());
        let names: HashSet<&str> = t.tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names.len(), t.tools.len(), "{}: tool names unique", t.id);
        for tool in &t.tools {
            assert!(tool.name.chars().count() <= 64, "{}: {}", t.id, tool.name);
        }
        let relevant: HashSet<String> = q["relevant APIs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(t.gold.calls.len(), relevant.len(), "{}", t.id);
        for c in &t.gold.calls {
            assert!(names.contains(c.name.as_str()), "{}: gold {}", t.id, c.name);
            assert!(c.arguments.is_empty(), "selection only");
        }
    }
}

#[test]
fn shipped_g1_instruction_converts_one_task_per_query() {
    let file = root()
        .join("datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_instruction.json");
    let (tasks, stderr) = convert(std::slice::from_ref(&file));
    check(&tasks, std::slice::from_ref(&file));
    assert!(
        stderr.contains("SPEC §3 scores tool selection only"),
        "{stderr}"
    );
    // Query 79053 lists two APIs whose names agree in their last 64
    // characters: the second gets a suffix.
    let t = tasks
        .iter()
        .find(|t| t.id == "stb-G1_instruction-79053")
        .unwrap();
    let cut = "orical_data_for_forecast_crypto_and_fiat_currency_exchange_rates";
    let clashing: Vec<&str> = t
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .filter(|n| n.ends_with(cut) || n.ends_with("exchange_rates_2"))
        .collect();
    assert_eq!(clashing.len(), 2, "{clashing:?}");
    assert_eq!(clashing[0], cut);
    assert_eq!(clashing[1], format!("{}_2", &cut[2..]));
}

#[test]
fn toolbench_data_example_converts_the_same_way() {
    let dir = root().join("datasets/ood/toolbench/data_example/instruction");
    let files: Vec<PathBuf> = ["G1_query", "G2_query", "G3_query"]
        .iter()
        .map(|g| dir.join(format!("{g}.json")))
        .collect();
    let (tasks, _) = convert(&files);
    check(&tasks, &files);
    assert_eq!(tasks.len(), 10, "5 + 3 + 2 queries");
}

#[test]
fn eval_dataset_group_runs_offline_and_scores_selection() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let empty_cache = dir.path().join("no-cache");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "stabletoolbench:G1_instruction",
            "--limit",
            "5",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[("ITC_CACHE", empty_cache.to_str().unwrap())],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("built into itc"), "{stderr}");
    assert!(stderr.contains("--metric sopr --judge NAME"), "{stderr}");
    assert!(!run.join("official.json").exists());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let models = summary.as_array().unwrap();
    assert_eq!(models.len(), 1, "the baseline");
    let f1 = models[0]["summary"]["selection"]["f1"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&f1), "{f1}");
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("ood.json")).unwrap()).unwrap();
    assert_eq!(info["dataset"], "stabletoolbench:G1_instruction");
    assert_eq!(info["tasks"], 163);
    let predictions = std::fs::read_to_string(run.join("predictions.jsonl")).unwrap();
    assert_eq!(
        predictions.lines().filter(|l| !l.trim().is_empty()).count(),
        5
    );
}

/// A model that calls exactly the relevant APIs gets full selection marks;
/// one that calls a tool the task does not have gets none.
#[test]
fn relevant_apis_get_full_selection_marks_and_other_tools_none() {
    const N: usize = 8;
    let dataset: itc::benchmarks::dataset::OodDataset =
        "stabletoolbench:G3_instruction".parse().unwrap();
    let (tasks, _) = dataset
        .convert(&dataset.shipped_files().unwrap(), 0)
        .unwrap();
    let gold: HashMap<String, String> = tasks
        .iter()
        .take(N)
        .map(|t| {
            (
                t.query.clone(),
                itc::spec::action::print_actions(&t.gold.calls),
            )
        })
        .collect();
    assert_eq!(gold.len(), N, "queries are distinct");
    let server = ScriptedServer::start(move |r| {
        let query = r.body["messages"][1]["content"]
            .as_str()
            .unwrap_or_default();
        let action = match r.body["model"].as_str() {
            Some("gold") => gold[query].clone(),
            _ => "[{\"name\": \"no_such_api_for_nobody\", \"arguments\": {}}]".to_string(),
        };
        Reply::Answer(
            serde_json::json!({"Thought": "These APIs fit.", "Action": action}).to_string(),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        scripted_models_toml(&server.base_url(), &["gold", "wrong"]),
    )
    .unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--dataset",
            "stabletoolbench:G3_instruction",
            "--ood-cache",
            dir.path().join("no-cache").to_str().unwrap(),
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
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.requests(), 2 * N);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let f1: HashMap<&str, f64> = summary
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["model"].as_str().unwrap(),
                m["summary"]["selection"]["f1"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(f1["gold"], 100.0, "{summary}");
    assert_eq!(f1["wrong"], 0.0, "{summary}");
}

/// A run prints the conversion warnings of the tasks it asks, not those of
/// the whole group: none with `--limit` over clean queries, and with `--ids`
/// exactly those of the task asked (`itc ood convert` prints them all).
#[test]
fn eval_warns_only_about_the_tasks_it_runs() {
    let file = root()
        .join("datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_instruction.json");
    let (_, all) = convert(std::slice::from_ref(&file));
    // The entry each conversion warning is about.
    let entry_of = |line: &str| -> Option<usize> {
        let rest = line.split(": entry ").nth(1)?;
        rest.split(':').next()?.parse().ok()
    };
    let warned: Vec<usize> = all
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .filter_map(entry_of)
        .collect();
    assert!(warned.len() >= 2, "the group has warnings: {all}");
    const LIMIT: usize = 5;
    assert!(warned.iter().all(|&e| e >= LIMIT), "{warned:?}");

    let run = |selection: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = dir.path().join("run");
        let mut args = vec![
            "eval",
            "--dataset",
            "stabletoolbench:G1_instruction",
            "--ood-cache",
        ];
        let cache = dir.path().join("no-cache");
        args.push(cache.to_str().unwrap());
        args.extend(selection);
        args.extend(["--run-dir", run_dir.to_str().unwrap(), "--no-progress"]);
        let out = itc(&args, &[]);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let limited = run(&["--limit", &LIMIT.to_string()]);
    assert!(!limited.contains("warning:"), "{limited}");

    let entry = warned[0];
    let id = queries(&file)[entry]["query_id"].to_string();
    let task = format!("stb-G1_instruction-{id}");
    let one = run(&["--ids", &task]);
    let shown: Vec<usize> = one
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .map(|l| entry_of(l).unwrap_or_else(|| panic!("not about one entry: {l}")))
        .collect();
    let expected = warned.iter().filter(|&&e| e == entry).count();
    assert_eq!(shown, vec![entry; expected.min(3)], "{one}");
}
