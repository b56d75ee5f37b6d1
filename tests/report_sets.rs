//! `itc report` over runs of different task sets (issue 49 item 7): runs of
//! the sample set, a BFCL category and a StableToolBench group, made with
//! the real binary against a scripted server on loopback, give one report
//! with a section per task set; two runs of one set still give the report
//! of one set.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::runs::{json, read};
use support::server::{Reply, ScriptedServer};
use support::{itc, scripted_models_toml, text};

/// The three task sets: the `itc eval` flags choosing the tasks, the
/// models run on them, and how many tasks.
const SETS: [(&str, &[&str], &[&str], usize); 3] = [
    ("sample", &["--limit", "5"], &["alpha", "beta"], 5),
    (
        "bfcl:simple_python",
        &["--dataset", "bfcl:simple_python", "--limit", "4"],
        &["alpha", "gamma"],
        4,
    ),
    (
        "stabletoolbench:G1_instruction",
        &[
            "--dataset",
            "stabletoolbench:G1_instruction",
            "--limit",
            "3",
        ],
        &["delta"],
        3,
    ),
];

fn ok(args: &[&str]) -> String {
    let out = itc(args, &[]);
    assert!(
        out.status.success(),
        "itc {}\n{}",
        args.join(" "),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `models` on the tasks `select` chooses into `run`.
fn eval(server: &ScriptedServer, dir: &Path, run: &Path, select: &[&str], models: &[&str]) {
    let config = dir.join(format!("{}.toml", models.join("-")));
    let no_cache = dir.join("no-cache");
    std::fs::write(&config, scripted_models_toml(&server.base_url(), models)).unwrap();
    let mut args = vec![
        "eval",
        "--config",
        path(&config),
        "--run-dir",
        path(run),
        "--no-progress",
        "--bootstrap",
        "0",
    ];
    args.extend(select);
    if select.contains(&"--dataset") {
        args.extend(["--ood-cache", path(&no_cache)]);
    }
    ok(&args);
}

/// A server whose models answer with one call of a tool that no task has.
fn server() -> ScriptedServer {
    ScriptedServer::start(|_| {
        Reply::Answer(
            serde_json::json!({"Thought": "This fits.", "Action": "[no_such_tool(x=1)]"})
                .to_string(),
        )
    })
}

/// The three runs, one per task set, in `dir`.
fn three_runs(dir: &Path) -> Vec<PathBuf> {
    let server = server();
    SETS.iter()
        .enumerate()
        .map(|(i, (_, select, models, _))| {
            let run = dir.join(format!("run{}", i + 1));
            eval(&server, dir, &run, select, models);
            run
        })
        .collect()
}

/// `itc report` over [`three_runs`] in `dir`, into `out`: its terminal output.
fn report_of_three_runs(dir: &Path, out: &Path) -> String {
    let runs = three_runs(dir);
    let mut args = vec!["report"];
    args.extend(runs.iter().map(|r| path(r)));
    args.extend(["--out", path(out)]);
    ok(&args)
}

/// The text of `page` from the first `start` on, up to the next `end` (or
/// its end).
fn part<'a>(page: &'a str, start: &str, end: &str) -> &'a str {
    let from = page
        .find(start)
        .unwrap_or_else(|| panic!("no {start:?} in:\n{page}"));
    let rest = &page[from + start.len()..];
    rest.find(end).map_or(rest, |to| &rest[..to])
}

#[test]
fn runs_of_three_task_sets_give_one_report_with_a_section_each() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let terminal = report_of_three_runs(dir.path(), &out);
    let markdown = read(&out.join("report.md"));
    let html = read(&out.join("report.html"));
    let report = json(&out.join("report.json"));
    let sets = report["task_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 3, "{report}");
    assert_eq!(markdown.matches("\n## Task set: ").count(), 3, "{markdown}");
    assert_eq!(html.matches("<h2 class=\"task-set\">").count(), 3);
    assert_eq!(terminal.matches("== Task set: ").count(), 3, "{terminal}");
    for (i, (name, _, models, tasks)) in SETS.iter().enumerate() {
        let heading = format!("Task set: {name} ({tasks} task(s))");
        let next = "Task set: ";
        let sections = [
            ("terminal", part(&terminal, &heading, next)),
            ("markdown", part(&markdown, &heading, next)),
            (
                "html",
                part(&html, &format!("<h2 class=\"task-set\">{heading}"), next),
            ),
        ];
        for (format, section) in sections {
            // Its own task count, and its own models' rows only.
            assert!(
                section.contains(&format!("{tasks} task(s)")),
                "{format} {name}: {section}"
            );
            for (_, _, others, _) in &SETS {
                for model in others.iter() {
                    let row = match format {
                        "terminal" => format!("│ {model} "),
                        "markdown" => format!("| {model} |"),
                        _ => format!("<tr><td>{model}</td>"),
                    };
                    assert_eq!(
                        section.contains(&row),
                        models.contains(model),
                        "{format} {name}: {model}\n{section}"
                    );
                }
            }
        }
        let set = &sets[i];
        assert_eq!(set["task_set"], *name);
        assert_eq!(set["tasks"], *tasks as u64);
        let ranked: Vec<&str> = set["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["model"].as_str().unwrap())
            .collect();
        let mut expected = models.to_vec();
        let mut got = ranked.clone();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "a model in two sets keeps its name");
        // Paired comparisons within the set only.
        for c in set["comparisons"].as_array().unwrap() {
            assert!(models.contains(&c["a"].as_str().unwrap()), "{c}");
            assert!(models.contains(&c["b"].as_str().unwrap()), "{c}");
        }
    }
    // Every HTML id once, so each section's task browser filters its own rows.
    let ids: Vec<&str> = html
        .split(" id=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "repeated ids");
    // One frame of each kind, its rows named by their task set.
    let csv = read(&out.join("task_scores.csv"));
    assert!(csv.starts_with("task_set,task_id,model,"), "{csv}");
    for (name, _, models, tasks) in &SETS {
        let rows = csv
            .lines()
            .filter(|l| l.starts_with(&format!("{name},")))
            .count();
        assert_eq!(rows, tasks * models.len(), "{name}");
    }
    assert!(out.join("task_scores.parquet").is_file());
    let tex = read(&out.join("report.tex"));
    assert_eq!(
        tex.matches("\\section*{\\raggedright Task set: ").count(),
        3,
        "{tex}"
    );
    // Each set's tables in files of their own, which the document inputs.
    for set in 1..=3 {
        let main = format!("table-set{set}-main.tex");
        assert!(tex.contains(&format!("\\input{{{main}}}")), "{tex}");
        assert!(
            read(&out.join(&main)).contains(&format!("\\label{{tab:itc-set{set}-main}}")),
            "{main}"
        );
    }
    support::latex::assert_report_fits(&out);
}

/// In a real browser, each section's task browser filters its own rows by
/// the address's filters (a set without the model named shows every row).
#[test]
fn each_section_of_the_page_filters_its_own_rows() {
    let Some(chromium) = support::browser::chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report_of_three_runs(dir.path(), &out);
    let url = format!("file://{}#model=alpha", out.join("report.html").display());
    let profile = dir.path().join("profile");
    let (dom, console) = support::browser::browse(&chromium, &profile, &url, "--dump-dom");
    assert!(!console.contains("Uncaught"), "{console}");
    for (i, (name, _, models, tasks)) in SETS.iter().enumerate() {
        let count = part(
            &dom,
            &format!("<span id=\"set{}-browser-count\">", i + 1),
            "<",
        );
        // A set without the model has no such choice: its filter stays "all".
        let rows = tasks * models.len();
        let shown = if models.contains(&"alpha") {
            *tasks
        } else {
            rows
        };
        assert_eq!(count, format!("{shown} of {rows} rows"), "{name}");
    }
}

#[test]
fn two_runs_of_one_set_give_the_report_of_one_set() {
    let dir = tempfile::tempdir().unwrap();
    let server = server();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    eval(&server, dir.path(), &a, &["--limit", "5"], &["alpha"]);
    eval(&server, dir.path(), &b, &["--limit", "5"], &["beta"]);
    let out = dir.path().join("report");
    let terminal = ok(&["report", path(&a), path(&b), "--out", path(&out)]);
    let report: Value = json(&out.join("report.json"));
    assert!(report.get("task_sets").is_none(), "{report}");
    assert_eq!(report["tasks"], 5);
    assert!(!terminal.contains("Task set"), "{terminal}");
    assert!(!read(&out.join("report.md")).contains("Task set:"));
    assert!(!read(&out.join("report.html")).contains("task-set"));
    assert!(read(&out.join("task_scores.csv")).starts_with("task_id,"));
}

#[test]
fn runs_of_one_source_with_other_tasks_keep_the_rules_of_one_set() {
    let dir = tempfile::tempdir().unwrap();
    let server = server();
    let runs = three_runs(dir.path());
    // The sample set again, fewer tasks: refused as today, beside the others.
    let fewer = dir.path().join("fewer");
    eval(&server, dir.path(), &fewer, &["--limit", "3"], &["beta"]);
    let out = dir.path().join("report");
    let mut args = vec!["report"];
    args.extend(runs.iter().map(|r| path(r)));
    args.extend([path(&fewer), "--out", path(&out)]);
    let refused = itc(&args, &[]);
    assert_eq!(refused.status.code(), Some(1));
    let message = text(&refused.stderr);
    assert!(
        message.contains("task set sample: the inputs were scored on different task sets"),
        "{message}"
    );
    assert!(
        message.contains("5 task(s)") && message.contains("3 task(s)"),
        "{message}"
    );
    assert!(!out.join("report.json").exists());
    // Allowed: the sample set's section compares the tasks its runs share.
    args.push("--allow-different-tasks");
    let allowed = itc(&args, &[]);
    let message = text(&allowed.stderr);
    assert!(allowed.status.success(), "{message}");
    assert!(
        message.contains("task set sample: the inputs were scored on different task sets; comparing the 3 task(s) they share"),
        "{message}"
    );
    let report = json(&out.join("report.json"));
    let sets = report["task_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 3, "{report}");
    assert_eq!(
        (
            sets[0]["tasks"].as_u64(),
            sets[0]["shared_tasks_only"].as_bool()
        ),
        (Some(3), Some(true))
    );
    assert_eq!(sets[0]["inputs"].as_array().unwrap().len(), 2);
    assert_eq!(
        (
            sets[1]["tasks"].as_u64(),
            sets[1]["shared_tasks_only"].as_bool()
        ),
        (Some(4), Some(false))
    );
}
