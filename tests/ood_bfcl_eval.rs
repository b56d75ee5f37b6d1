//! `itc eval --dataset bfcl:…` against the scripted OpenAI-compatible server
//! on loopback, in prompt and native modes: bfcl-eval's own requests (its
//! system prompt, or its tools) reach the server, answers are read by BFCL's
//! decoder into SPEC calls, the official checker scores the same answers
//! from the task file alone (function-calling answers as bfcl-eval's FC
//! path reads them), and `itc ood score bfcl` and `itc report` show the
//! results.

mod support;

use std::collections::HashMap;
use std::path::Path;

use itc::benchmarks::answers::bfcl_text;
use itc::benchmarks::bfcl::CategorySet;
use itc::benchmarks::dataset::OodDataset;
use itc::spec::records::Task;
use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer};
use support::{itc, text};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The converted tasks of some categories, by the text of the question's
/// last user message.
fn tasks_by_query(set: &str) -> HashMap<String, Task> {
    let dataset = OodDataset::Bfcl(set.parse::<CategorySet>().unwrap());
    let (tasks, _) = dataset
        .convert(&dataset.shipped_files().unwrap(), 4)
        .unwrap();
    tasks
        .into_iter()
        .map(|t| {
            let messages = t.gold.official.as_ref().unwrap()["question"][0].clone();
            (last_user(&messages).to_string(), t)
        })
        .collect()
}

/// The content of the last user message among `messages`.
fn last_user(messages: &Value) -> &str {
    messages
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap()
}

fn models_toml(dir: &Path, base_url: &str, models: &[(&str, &str)]) -> String {
    let mut toml = String::new();
    for (name, mode) in models {
        toml.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\nmode = \"{mode}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\n\n"
        ));
    }
    let path = dir.join("models.toml");
    std::fs::write(&path, toml).unwrap();
    path.display().to_string()
}

/// A model's entry in the run's `summary.json`.
fn model_summary(run: &Path, model: &str) -> Value {
    let summary = read_json(&run.join("summary.json"));
    let found = summary
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == model);
    found.unwrap().clone()
}

/// `itc ood score bfcl ARGS --format json`, which must succeed: its lines.
fn score_json(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["ood", "score", "bfcl"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let out = itc(&all, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `official.json`: model → category → (correct, total).
fn official_counts(run: &Path) -> HashMap<String, HashMap<String, (u64, u64)>> {
    let official = read_json(&run.join("official.json"));
    assert_eq!(official["benchmark"], "bfcl");
    official["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let counts = r["categories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["category"].as_str().unwrap().to_string(),
                        (
                            c["correct_count"].as_u64().unwrap(),
                            c["total_count"].as_u64().unwrap(),
                        ),
                    )
                })
                .collect();
            (r["model"].as_str().unwrap().to_string(), counts)
        })
        .collect()
}

#[test]
fn prompt_mode_gold_answers_pass_the_official_checker_and_wrong_ones_do_not() {
    let by_query = tasks_by_query("live_parallel,live_relevance");
    let for_server = by_query.clone();
    let server = ScriptedServer::start(move |r| {
        let system = r.body["messages"][0]["content"].as_str().unwrap();
        let query = last_user(&r.body["messages"]);
        // bfcl-eval's system prompt and function docs, not ITC's Thought/Action.
        assert_eq!(r.body["messages"][0]["role"], "system");
        assert!(
            system.starts_with("You are an expert in composing functions."),
            "{system}"
        );
        assert!(system.contains("\"type\": \"dict\"") && !system.contains("\"Thought\""));
        assert_eq!(r.body["store"], false);
        let task = &for_server[query];
        let answer = match (r.body["model"].as_str().unwrap(), task.category.as_str()) {
            // Any call is right on live_relevance: the first function, no arguments.
            ("gold", "live_relevance") => format!("[{}()]", task.tools[0].name),
            ("gold", _) => format!("```\n{}\n```", bfcl_text(&task.gold.calls)),
            _ => "I would call nothing_at_all(x=1) here.".to_string(),
        };
        Reply::Answer(answer)
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(
        dir.path(),
        &server.base_url(),
        &[("gold", "prompt"), ("prose", "prompt")],
    );
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "bfcl:live_parallel,live_relevance",
            "--config",
            &config,
            "--run-dir",
            run.to_str().unwrap(),
        ],
        &[],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("model `gold`: asked as bfcl-eval asks it (prompt mode"),
        "{stderr}"
    );
    assert!(stdout.contains("Live AST Acc"), "{stdout}");
    let counts = official_counts(&run);
    assert_eq!(counts["gold"]["live_parallel"], (16, 16));
    assert_eq!(counts["gold"]["live_relevance"], (16, 16));
    // Prose never decodes: no call, wrong on live_relevance and live_parallel.
    assert_eq!(counts["prose"]["live_parallel"], (0, 16));
    assert_eq!(counts["prose"]["live_relevance"], (0, 16));
    // SPEC §3 read the same answers through BFCL's decoder.
    let gold = model_summary(&run, "gold");
    assert!(gold["summary"]["selection"]["f1"].as_f64().unwrap() > 40.0);

    // The run's result files score the same with `itc ood score bfcl`.
    let lines = score_json(&["--results", run.to_str().unwrap()]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    for l in &lines {
        let model = l["model"].as_str().unwrap();
        let category = l["category"].as_str().unwrap();
        let (correct, total) = counts[model][category];
        assert_eq!(
            (l["correct_count"].as_u64(), l["total_count"].as_u64()),
            (Some(correct), Some(total))
        );
    }

    // `itc report` shows the official figures beside the SPEC scores.
    let report_dir = dir.path().join("report");
    let report = itc(
        &[
            "report",
            run.to_str().unwrap(),
            "--out",
            report_dir.to_str().unwrap(),
        ],
        &[],
    );
    assert!(report.status.success(), "{}", text(&report.stderr));
    let shown = text(&report.stdout);
    assert!(shown.contains("Official scores"), "{shown}");
    assert!(
        shown.contains("live_relevance") && shown.contains("Overall Acc"),
        "{shown}"
    );
    // live_relevance run in full: its column is complete, the others say what they miss.
    assert!(
        shown.contains(
            "\ngold: Complete columns: Relevance Detection. N/A, not all run: Non-Live AST Acc (missing simple_python,"
        ),
        "{shown}"
    );
    let json = read_json(&report_dir.join("report.json"));
    let official = json["official"].as_array().unwrap();
    assert!(
        official
            .iter()
            .any(|f| f["name"] == "live_parallel" && f["model"] == "gold" && f["value"] == 1.0)
    );
    let html = std::fs::read_to_string(report_dir.join("report.html")).unwrap();
    assert!(html.contains("id=\"official\""));
}

/// The cells of the first table row of `table` whose label cells are
/// `labels` (box-drawing tables: cells between `│`).
fn row(table: &str, labels: &[&str]) -> Vec<String> {
    table
        .lines()
        .map(|l| {
            l.split('│')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() > labels.len() && cells[..labels.len()] == *labels)
        .unwrap_or_else(|| panic!("no row {labels:?} in\n{table}"))
}

/// The aggregate columns, every one of which rests on a category besides
/// simple_python.
const AGGREGATES: [&str; 12] = [
    "Non-Live AST Acc",
    "Non-Live Overall Acc",
    "Live AST Acc",
    "Live Acc",
    "Multi Turn Acc",
    "Multi Turn Base",
    "Multi Turn Miss Func",
    "Multi Turn Miss Param",
    "Multi Turn Long Context",
    "Irrelevance Detection",
    "Relevance Detection",
    "Overall Acc",
];

/// What every output says of a run of simple_python alone: no column is
/// complete, and each N/A one names the categories it misses (the start).
const SIMPLE_PYTHON_ALONE: &str = "Complete columns: none. N/A, not all run: Non-Live AST Acc \
(missing multiple, parallel, parallel_multiple, simple_java, simple_javascript); Non-Live Overall \
Acc (missing multiple, parallel, parallel_multiple); Live AST Acc (missing live_simple, \
live_multiple, live_parallel, live_parallel_multiple); Live Acc (missing live_simple, \
live_multiple, live_parallel, live_parallel_multiple); Multi Turn Acc (missing multi_turn_base, \
multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context); Multi Turn Base (missing \
multi_turn_base);";

/// Issue 49 item 5: a run of simple_python alone shows its accuracy in
/// percent with two decimals and every aggregate as N/A (no number beside
/// it) in `itc eval`'s table, `itc ood score bfcl`, `itc ood report` and
/// `itc report`'s terminal, Markdown and HTML; the JSON outputs keep
/// fractions and say so (`"unit": "fraction"`).
#[test]
fn a_partial_run_shows_percent_and_its_aggregates_as_na_everywhere() {
    let by_query = tasks_by_query("simple_python");
    let server = ScriptedServer::start(move |r| {
        let task = &by_query[last_user(&r.body["messages"])];
        Reply::Answer(match r.body["model"].as_str().unwrap() {
            "gold" => bfcl_text(&task.gold.calls),
            _ => "I would call nothing_at_all(x=1) here.".to_string(),
        })
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(
        dir.path(),
        &server.base_url(),
        &[("gold", "prompt"), ("prose", "prompt")],
    );
    let run = dir.path().join("run");
    let run_s = run.to_str().unwrap();
    let ok = |args: &[&str]| {
        let out = itc(args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let eval = ok(&[
        "eval",
        "--dataset",
        "bfcl:simple_python",
        "--limit",
        "4",
        "--config",
        &config,
        "--run-dir",
        run_s,
    ]);
    // `itc eval`: Model, Style, Category, Total, Correct, Accuracy (%).
    assert_eq!(
        row(&eval, &["gold", "bfcl", "simple_python"])[3..],
        ["4", "4", "100.00"]
    );
    assert_eq!(row(&eval, &["prose", "bfcl", "simple_python"])[5], "0.00");
    for name in AGGREGATES {
        assert_eq!(row(&eval, &["gold", "bfcl", name])[5], "N/A", "{eval}");
    }
    assert!(!eval.contains("N/A (") && !eval.contains("(N/A)"), "{eval}");
    assert!(
        eval.contains(&format!("\ngold (bfcl): {SIMPLE_PYTHON_ALONE}")),
        "{eval}"
    );

    // official.json: fractions, said so.
    let official = read_json(&run.join("official.json"));
    assert_eq!(official["unit"], "fraction");
    let gold = &official["results"][0];
    assert_eq!(gold["categories"][0]["accuracy"], 1.0);
    let overall = &gold["leaderboard"][11];
    assert_eq!(
        (&overall["name"], &overall["shown"]),
        (&json!("Overall Acc"), &json!(false))
    );
    assert!(overall["value"].as_f64().unwrap() < 0.05, "{overall}");
    // Each column names the categories it misses: all of Overall's 14 but simple_python.
    let missing = overall["missing"].as_array().unwrap();
    assert_eq!(missing.len(), 13, "{overall}");
    assert!(!missing.contains(&json!("simple_python")), "{overall}");
    assert!(
        missing.contains(&json!("multi_turn_long_context")),
        "{overall}"
    );

    // `itc ood score bfcl`: the table in percent, the JSON in fractions.
    let scored = ok(&["ood", "score", "bfcl", "--results", run_s, "--partial"]);
    assert_eq!(row(&scored, &["gold", "simple_python"])[4], "100.00");
    assert_eq!(row(&scored, &["prose", "simple_python"])[4], "0.00");
    // Then the leaderboard's columns, per model, and what they miss.
    let columns = scored.split("The leaderboard's columns").nth(1).unwrap();
    for name in AGGREGATES {
        assert_eq!(row(columns, &["gold", name])[2], "N/A", "{scored}");
    }
    assert!(
        scored.contains(&format!("\ngold: {SIMPLE_PYTHON_ALONE}")),
        "{scored}"
    );
    let scored = ok(&[
        "ood",
        "score",
        "bfcl",
        "--results",
        run_s,
        "--partial",
        "--format",
        "json",
    ]);
    let line: Value = serde_json::from_str(scored.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&line["unit"], &line["accuracy"]),
        (&json!("fraction"), &json!(1.0))
    );

    // `itc ood report`: one row per model, every aggregate N/A.
    let reported = ok(&["ood", "report", "--run", run_s, "--wide"]);
    let bfcl = reported.split("BFCL, official").nth(1).unwrap();
    let gold = row(bfcl, &["gold (bfcl prompt)"]);
    assert_eq!(gold[1], "100.00", "{reported}");
    assert_eq!(gold[2..], ["N/A"; 12], "{reported}");
    assert!(
        reported.contains(&format!("\ngold (bfcl prompt): {SIMPLE_PYTHON_ALONE}")),
        "{reported}"
    );
    let lines = ok(&["ood", "report", "--run", run_s, "--format", "json"]);
    let bfcl: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["table"] == "bfcl")
        .collect();
    assert_eq!(bfcl.len(), 2 * 13, "{lines}");
    for v in bfcl {
        assert_eq!(v["unit"], "fraction", "{v}");
        assert!(v["value"].as_f64().unwrap() <= 1.0, "{v}");
    }

    // `itc report`: terminal, Markdown, HTML in percent; report.json in fractions.
    let out = dir.path().join("report");
    let shown = ok(&["report", run_s, "--out", out.to_str().unwrap(), "--wide"]);
    assert_eq!(row(&shown, &["gold", "bfcl", "simple_python"])[3], "100.00");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        md.contains("| gold | bfcl | simple_python | 100.00 | "),
        "{md}"
    );
    assert!(
        md.contains("| prose | bfcl | simple_python | 0.00 | "),
        "{md}"
    );
    assert!(
        html.contains(
            "<td>gold</td><td>bfcl</td><td>simple_python</td><td class=\"n\">100.00</td>"
        ),
        "{html}"
    );
    for name in AGGREGATES {
        assert_eq!(row(&shown, &["gold", "bfcl", name])[3], "N/A", "{shown}");
        assert!(
            md.contains(&format!("| gold | bfcl | {name} | N/A | ")),
            "{md}"
        );
        assert!(
            html.contains(&format!(
                "<td>gold</td><td>bfcl</td><td>{name}</td><td class=\"n\">N/A</td>"
            )),
            "{name}"
        );
    }
    assert!(!md.contains("(N/A)") && !html.contains("(N/A)"));
    // Which columns are complete: under the table in every form.
    assert!(
        shown.contains(&format!("\ngold: {SIMPLE_PYTHON_ALONE}")),
        "{shown}"
    );
    assert!(
        md.contains(&format!("\n- gold: {SIMPLE_PYTHON_ALONE}")),
        "{md}"
    );
    if let Some(browser) = support::browser::chromium_or_skip() {
        let url = format!("file://{}", out.join("report.html").display());
        let profile = dir.path().join("profile");
        let (dom, _) = support::browser::browse(&browser, &profile, &url, "--dump-dom");
        let list = dom.split("<ul id=\"official-complete\">").nth(1).unwrap();
        let items: Vec<&str> = list
            .split("</ul>")
            .next()
            .unwrap()
            .split("<li>")
            .skip(1)
            .map(|i| i.split("</li>").next().unwrap())
            .collect();
        assert_eq!(items.len(), 2, "{list}");
        assert!(
            items[0].starts_with(&format!("gold: {SIMPLE_PYTHON_ALONE}")),
            "{list}"
        );
        assert!(
            items[1].starts_with(&format!("prose: {SIMPLE_PYTHON_ALONE}")),
            "{list}"
        );
    }
    let json = read_json(&out.join("report.json"));
    for f in json["official"].as_array().unwrap() {
        assert_eq!(f["unit"], "fraction", "{f}");
        assert!(f["value"].as_f64().unwrap() <= 1.0, "{f}");
    }

    // Issue 49 item 6: report.tex has the official scores, a table per
    // model, in the same convention, and fits the text column.
    let document = std::fs::read_to_string(out.join("report.tex")).unwrap();
    assert!(
        document.contains("\\input{table-official.tex}"),
        "{document}"
    );
    let tex = std::fs::read_to_string(out.join("table-official.tex")).unwrap();
    assert!(tex.contains("\\label{tab:itc-official-2}"), "{tex}");
    assert!(
        tex.contains("simple\\_python & 100.00 & ") && tex.contains("simple\\_python & 0.00 & "),
        "{tex}"
    );
    for name in AGGREGATES {
        assert_eq!(
            tex.matches(&format!("\n{name} & N/A & ")).count(),
            2,
            "{name}\n{tex}"
        );
    }
    support::latex::assert_report_fits(&out);
}

#[test]
fn native_mode_sends_bfcl_evals_tools_and_scores_its_fc_answers() {
    let by_query = tasks_by_query("simple_python");
    let server = ScriptedServer::start(move |r| {
        // No harness prompt in function-calling mode: the question alone.
        let messages = r.body["messages"].as_array().unwrap();
        assert!(
            messages.iter().all(|m| m["role"] != "system"),
            "{messages:?}"
        );
        let task = &by_query[last_user(&r.body["messages"])];
        let tools = r.body["tools"]
            .as_array()
            .expect("native requests declare tools");
        let declared = tools[0]["function"]["name"].as_str().unwrap().to_string();
        // Providers refuse dots in names: `math.factorial` is declared as `math_factorial`.
        assert_eq!(declared, task.tools[0].name.replace('.', "_"));
        let call = &task.gold.calls[0];
        let arguments: serde_json::Map<String, Value> = call
            .arguments
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap()))
            .collect();
        // "dotted" writes the name as the docs do, which the leaderboard fails.
        let name = match r.body["model"].as_str().unwrap() {
            "dotted" => task.tools[0].name.clone(),
            _ => declared,
        };
        Reply::Json(
            json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": Value::Object(arguments).to_string()}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(
        dir.path(),
        &server.base_url(),
        &[("native", "native"), ("dotted", "native")],
    );
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "bfcl:simple_python",
            "--limit",
            "12",
            "--config",
            &config,
            "--run-dir",
            run.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let counts = official_counts(&run);
    assert_eq!(counts["native"]["simple_python"], (12, 12));
    let (correct, total) = counts["dotted"]["simple_python"];
    assert!(correct < total, "{correct}/{total}");
    // The result file holds what the API returned: the name as sent, the
    // arguments as a JSON text.
    let results =
        std::fs::read_to_string(run.join("official/native/BFCL_v4_simple_python_result.json"))
            .unwrap();
    assert!(
        results.contains(r#"[{"math_factorial":"{\"number\":5}"}]"#),
        "{results}"
    );
    let official = read_json(&run.join("official.json"));
    assert_eq!(official["results"][0]["decoder"], "fc");
    // SPEC §3 read the calls with their dotted names back.
    let native = model_summary(&run, "native");
    assert_eq!(native["summary"]["selection"]["f1"], 100.0, "{native}");
    // `itc ood score bfcl` on the run reads each model as it was asked…
    let lines = score_json(&["--results", run.to_str().unwrap(), "--partial"]);
    let line = &lines[1];
    assert_eq!(
        (&line["model"], &line["correct_count"]),
        (&json!("native"), &json!(12))
    );
    // …and as a prompt-mode text when told so, which fails every answer.
    let file = run.join("official/native/BFCL_v4_simple_python_result.json");
    let lines = score_json(&[
        "--results",
        file.to_str().unwrap(),
        "--partial",
        "--decoder",
        "prompt",
    ]);
    let line = &lines[0];
    assert_eq!(line["correct_count"], 0, "{line}");
}

#[test]
fn score_errors_name_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("BFCL_v4_simple_python_result.json");
    std::fs::write(
        &file,
        "{\"id\": \"simple_python_0\", \"result\": \"[f()]\"}\nnot json\n",
    )
    .unwrap();
    let out = itc(
        &["ood", "score", "bfcl", "--results", file.to_str().unwrap()],
        &[],
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("BFCL_v4_simple_python_result.json:2"),
        "{stderr}"
    );
    let other = dir.path().join("answers.jsonl");
    std::fs::write(&other, "").unwrap();
    let out = itc(
        &["ood", "score", "bfcl", "--results", other.to_str().unwrap()],
        &[],
    );
    assert!(
        text(&out.stderr).contains("--category"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn reference_answers_score_as_the_official_score_files_say() {
    // Round 1 of the reference answers, from the shipped copies.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/bfcl");
    let summary = read_json(&root.join("reference/summary.json"));
    let dir = tempfile::tempdir().unwrap();
    for category in ["simple_python", "parallel_multiple", "irrelevance"] {
        let answers =
            std::fs::read_to_string(root.join(format!("reference/answers/{category}.jsonl")))
                .unwrap();
        let mut lines = String::new();
        for a in answers
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
        {
            if a["answer_index"] == 1 {
                lines.push_str(&json!({"id": a["id"], "result": a["answer"]}).to_string());
                lines.push('\n');
            }
        }
        let file = dir.path().join(format!("BFCL_v4_{category}_result.json"));
        std::fs::write(&file, lines).unwrap();
    }
    let per_item = dir.path().join("per_item.jsonl");
    let out = itc(
        &[
            "ood",
            "score",
            "bfcl",
            "--compat",
            "official",
            "--results",
            dir.path().to_str().unwrap(),
            "--per-item",
            per_item.to_str().unwrap(),
            "--format",
            "json",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut lines = 0;
    for l in text(&out.stdout).lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let round = &summary["categories"][v["category"].as_str().unwrap()]["rounds"][1];
        assert_eq!(v["correct_count"], round["correct_count"], "{v}");
        assert_eq!(v["total_count"], round["total_count"]);
        assert_eq!(v["accuracy"], round["accuracy"]);
        lines += 1;
    }
    assert_eq!(lines, 3);
    let items = std::fs::read_to_string(&per_item).unwrap();
    assert_eq!(items.lines().count(), 400 + 200 + 240);
    let first: Value = serde_json::from_str(items.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], "simple_python_0");
    assert!(first.get("error_type").is_some() && first.get("valid").is_some());
}
