//! End-to-end tests of `itc report` and of the manifests it reads: the real
//! binary on an `itc score --out` folder of the sample set's recorded
//! predictions and `itc eval` run directories of the offline baseline.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use polars::prelude::{CsvReadOptions, DataFrame, ParquetReader, SerReader};
use serde_json::Value;
use support::{itc, text};

fn ok(args: &[&str]) -> String {
    let output = itc(args, &[]);
    assert!(
        output.status.success(),
        "itc {}\n{}",
        args.join(" "),
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn sha256(p: &Path) -> String {
    itc::util::hash::sha256_hex(&fs::read(p).unwrap())
}

/// The score folder of the recorded sample predictions and two baseline
/// runs: the whole sample set and its first 20 tasks.
struct Inputs {
    dir: tempfile::TempDir,
    scored: PathBuf,
    baseline: PathBuf,
    small: PathBuf,
}

fn inputs() -> Inputs {
    let dir = tempfile::tempdir().unwrap();
    let scored = dir.path().join("scored");
    let baseline = dir.path().join("runs/baseline");
    let small = dir.path().join("runs/small");
    ok(&["score", "--out", path(&scored)]);
    ok(&["eval", "--run-dir", path(&baseline), "--no-progress"]);
    ok(&[
        "eval",
        "--run-dir",
        path(&small),
        "--limit",
        "20",
        "--no-progress",
    ]);
    Inputs {
        dir,
        scored,
        baseline,
        small,
    }
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.ends_with(".itc.lock") {
                all.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    all
}

#[test]
fn manifests_record_what_made_the_scores() {
    let i = inputs();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let m = json(&i.scored.join("manifest.json"));
    assert_eq!(m["itc_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(m["command"][1], "score");
    assert_eq!(m["tasks"]["path"], "embedded:datasets/sample/tasks.jsonl");
    assert_eq!(
        m["tasks"]["sha256"],
        sha256(&repo.join("datasets/sample/tasks.jsonl"))
    );
    let predictions = m["predictions"].as_array().unwrap();
    assert_eq!(predictions.len(), 5);
    for p in predictions {
        let name = p["path"]
            .as_str()
            .unwrap()
            .strip_prefix("embedded:")
            .unwrap();
        assert_eq!(p["sha256"], sha256(&repo.join(name)), "{name}");
    }
    assert_eq!(m["scoring"]["bootstrap_resamples"], 1000);
    assert!(m.get("eval").is_none());

    let run = json(&i.baseline.join("manifest.json"));
    assert_eq!(
        run["tasks"]["sha256"],
        sha256(&i.baseline.join("tasks.jsonl"))
    );
    assert_eq!(
        run["predictions"][0]["sha256"],
        sha256(&i.baseline.join("predictions.jsonl"))
    );
    // The run's copy of the task file and the file itself: one task set.
    assert_eq!(run["task_set_sha256"], m["task_set_sha256"]);
    assert_eq!(run["eval"]["models"][0]["name"], "baseline");
    let templates = run["eval"]["prompt_templates"].as_object().unwrap();
    assert_eq!(
        templates["prompts/system.jinja"],
        sha256(&repo.join("prompts/system.jinja"))
    );
    assert!(run["started"].as_str().unwrap() <= run["finished"].as_str().unwrap());
    let small = json(&i.small.join("manifest.json"));
    assert_ne!(small["task_set_sha256"], m["task_set_sha256"]);
}

#[test]
fn a_report_compares_runs_and_writes_the_same_bytes_twice() {
    let i = inputs();
    let out = i.dir.path().join("report");
    let args = [
        "report",
        path(&i.scored),
        path(&i.baseline),
        "--baseline",
        "baseline",
        "--out",
        path(&out),
    ];
    let stdout = ok(&args);
    for needle in [
        "Ranking by Inv. F1",
        "Paired differences",
        "oracle-like-large",
    ] {
        assert!(stdout.contains(needle), "{needle}\n{stdout}");
    }
    let report = json(&out.join("report.json"));
    assert_eq!(report["tasks"], 243);
    assert_eq!(report["shared_tasks_only"], false);
    let models: Vec<&str> = report["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["model"].as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        [
            "careful-mid",
            "english-only",
            "function-caller",
            "oracle-like-large",
            "sloppy-small",
            "baseline"
        ]
    );
    // The report's numbers are the ones each input scored on its own.
    let own = json(&i.baseline.join("summary.json"));
    assert_eq!(report["models"][5]["summary"], own[0]["summary"]);
    // Five models against the baseline, four metrics each.
    let comparisons = report["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 20);
    for c in comparisons {
        assert_eq!(c["b"], "baseline");
        let p = c["p_value"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{c}");
        let (lo, hi) = (
            c["ci"]["lo"].as_f64().unwrap(),
            c["ci"]["hi"].as_f64().unwrap(),
        );
        assert!(lo <= hi, "{c}");
    }
    // The baseline always writes the format and the language of the task;
    // english-only always writes the format too: FM differs by exactly 0.
    let fm = comparisons
        .iter()
        .find(|c| c["a"] == "english-only" && c["metric"] == "fm")
        .unwrap();
    assert_eq!(
        (fm["diff"].as_f64(), fm["p_value"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    let ranking = report["ranking"].as_array().unwrap();
    assert_eq!(ranking[0]["model"], "oracle-like-large");
    assert_eq!(ranking[0]["rank"], 1);
    assert_eq!(ranking.len(), 6);

    // The inputs' manifests are copied.
    assert_eq!(
        json(&out.join("manifests/1-scored.json")),
        json(&i.scored.join("manifest.json"))
    );
    assert_eq!(
        json(&out.join("manifests/2-baseline.json")),
        json(&i.baseline.join("manifest.json"))
    );
    let markdown = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        markdown.contains("| oracle-like-large | 243 |"),
        "{markdown}"
    );
    assert!(markdown.contains("## By language"), "{markdown}");

    // An earlier report is never overwritten silently: refused, naming
    // --force, and nothing changed.
    let first = files(&out);
    assert!(first.len() >= 12, "{:?}", first.keys());
    let refused = itc(&args, &[]);
    assert_eq!(refused.status.code(), Some(1));
    let message = text(&refused.stderr);
    assert!(
        message.contains("holds an earlier report") && message.contains("--force"),
        "{message}"
    );
    assert_eq!(files(&out), first);
    // With --force, the same inputs: byte-identical files.
    let mut forced = args.to_vec();
    forced.push("--force");
    ok(&forced);
    assert_eq!(files(&out), first);
}

/// `itc report` without `--out`, run in `cwd`.
fn report_in(cwd: &Path, inputs: &[&Path], extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_itc"))
        .current_dir(cwd)
        .arg("report")
        .args(inputs)
        .args(extra)
        .output()
        .expect("itc runs")
}

#[test]
fn without_out_each_report_gets_a_fresh_folder() {
    let i = inputs();
    let cwd = i.dir.path().join("work");
    fs::create_dir(&cwd).unwrap();
    let mut folders = Vec::new();
    for round in 0..3 {
        let out = report_in(
            &cwd,
            &[&i.baseline],
            &["--title", &format!("Round {round}")],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let made: Vec<PathBuf> = fs::read_dir(cwd.join("reports"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !folders.contains(p))
            .collect();
        assert_eq!(made.len(), 1, "{made:?}");
        let name = made[0].file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with("report-20"), "{name}");
        assert!(text(&out.stderr).contains(&name), "{}", text(&out.stderr));
        folders.push(made[0].clone());
    }
    // Each keeps its own report, with its own title.
    for (round, folder) in folders.iter().enumerate() {
        let title = format!("Round {round}");
        let md = fs::read_to_string(folder.join("report.md")).unwrap();
        assert!(md.starts_with(&format!("# {title}\n")), "{md}");
        let html = fs::read_to_string(folder.join("report.html")).unwrap();
        assert!(html.contains(&format!("<title>{title}</title>")));
        assert!(html.contains(&format!("<h1>{title}</h1>")));
        assert_eq!(json(&folder.join("report.json"))["title"], title.as_str());
    }
}

fn read_csv(p: &Path) -> DataFrame {
    CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(p.to_path_buf()))
        .unwrap()
        .finish()
        .unwrap()
}

fn read_parquet(p: &Path) -> DataFrame {
    ParquetReader::new(fs::File::open(p).unwrap())
        .finish()
        .unwrap()
}

#[test]
fn parquet_files_hold_the_rows_of_the_csv_files() {
    let i = inputs();
    let out = i.dir.path().join("report");
    ok(&[
        "report",
        path(&i.scored),
        path(&i.baseline),
        "--out",
        path(&out),
    ]);
    for name in ["task_scores", "scores", "comparisons", "ranking"] {
        let csv = read_csv(&out.join(format!("{name}.csv")));
        let parquet = read_parquet(&out.join(format!("{name}.parquet")));
        assert_eq!(csv.shape(), parquet.shape(), "{name}");
        assert!(csv.height() > 0, "{name}");
        assert_eq!(csv.get_column_names(), parquet.get_column_names(), "{name}");
        for (a, b) in csv.columns().iter().zip(parquet.columns()) {
            let (a, b) = (a.as_materialized_series(), b.as_materialized_series());
            if b.dtype().is_float() {
                let (a, b) = (a.f64().unwrap(), b.f64().unwrap());
                for (x, y) in (0..a.len()).map(|k| (a.get(k), b.get(k))) {
                    match (x, y) {
                        // CSV floats have four decimals.
                        (Some(x), Some(y)) => assert!((x - y).abs() < 1e-4, "{name}: {x} vs {y}"),
                        (x, y) => assert_eq!(x.is_none(), y.is_none(), "{name}"),
                    }
                }
            } else {
                let cast = |s: &polars::prelude::Series| {
                    s.cast(&polars::prelude::DataType::String).unwrap()
                };
                assert_eq!(cast(a), cast(b), "{name}: column {}", a.name());
            }
        }
    }
    // Every pair of the six models, four metrics each.
    assert_eq!(
        read_parquet(&out.join("comparisons.parquet")).height(),
        15 * 4
    );
    // One row per task and model.
    assert_eq!(
        read_parquet(&out.join("task_scores.parquet")).height(),
        243 * 6
    );
}

#[test]
fn different_task_sets_are_refused_unless_the_shared_tasks_are_asked_for() {
    let i = inputs();
    let out = i.dir.path().join("report");
    let refused = itc(
        &[
            "report",
            path(&i.scored),
            path(&i.small),
            "--out",
            path(&out),
        ],
        &[],
    );
    assert_eq!(refused.status.code(), Some(1));
    let message = text(&refused.stderr);
    assert!(message.contains("different task sets"), "{message}");
    assert!(
        message.contains("243 task(s)") && message.contains("20 task(s)"),
        "{message}"
    );
    assert!(message.contains("--allow-different-tasks"), "{message}");
    assert!(!out.join("report.json").exists());

    let allowed = itc(
        &[
            "report",
            path(&i.scored),
            path(&i.small),
            "--out",
            path(&out),
            "--allow-different-tasks",
        ],
        &[],
    );
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    assert!(text(&allowed.stderr).contains("comparing the 20 task(s) they share"));
    let report = json(&out.join("report.json"));
    assert_eq!(
        (
            report["tasks"].as_u64(),
            report["shared_tasks_only"].as_bool()
        ),
        (Some(20), Some(true))
    );
}

#[test]
fn a_model_in_two_inputs_is_told_apart_and_bad_inputs_are_named() {
    let i = inputs();
    let again = i.dir.path().join("runs/again");
    ok(&["eval", "--run-dir", path(&again), "--no-progress"]);
    let out = i.dir.path().join("report");
    ok(&[
        "report",
        path(&i.baseline),
        path(&again),
        "--out",
        path(&out),
    ]);
    let report = json(&out.join("report.json"));
    let names: Vec<&str> = report["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["baseline@baseline", "baseline@again"]);
    // Two runs of a deterministic model: no difference, one shared rank.
    assert!(
        report["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["rank"] == 1)
    );

    let unknown = itc(
        &[
            "report",
            path(&i.baseline),
            "--baseline",
            "nobody",
            "--out",
            path(&out),
        ],
        &[],
    );
    assert!(text(&unknown.stderr).contains("--baseline nobody: no such model (models: baseline)"));
    let empty = i.dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let missing = itc(&["report", path(&empty), "--out", path(&out)], &[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains(&format!("{}: no task_scores.jsonl", empty.display())),
        "{}",
        text(&missing.stderr)
    );

    // A bad row is named by file, line and field, and nothing is written:
    // the first row of a task (read whole on the first pass) and a later
    // row of the same task (only its task and model are read at first).
    let scores = again.join("task_scores.jsonl");
    let good = fs::read_to_string(&scores).unwrap();
    let first = good.lines().next().unwrap();
    let spoilt = first.replacen("\"selection\":{", "\"selection\":{\"f1\":\"high\",", 1);
    let rows = good.lines().count();
    let bad_out = i.dir.path().join("bad-report");
    for (text_of, line) in [
        (format!("{spoilt}\n{}", &good[first.len() + 1..]), 1),
        (format!("{good}{spoilt}\n"), rows + 1),
    ] {
        fs::write(&scores, text_of).unwrap();
        let bad = itc(&["report", path(&again), "--out", path(&bad_out)], &[]);
        assert_eq!(bad.status.code(), Some(1));
        let message = format!("{}:{line}: field `selection.f1`", scores.display());
        assert!(
            text(&bad.stderr).contains(&message),
            "{}",
            text(&bad.stderr)
        );
    }
    assert!(!bad_out.exists());
}

/// The HTML page's per-task browser shows the first tasks, each with every
/// model's answer, in at most `--browser-rows` rows, and says so; without
/// the limit in reach it shows every task and says nothing.
#[test]
fn the_browser_shows_the_first_tasks_within_its_row_limit() {
    let i = inputs();
    let rows_of = |html: &str| -> Vec<String> {
        html.split("<tr data-model=\"")
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row.split("<td>").collect();
                cells[1].split("</td>").next().unwrap().to_string()
            })
            .collect()
    };
    let full = i.dir.path().join("full");
    ok(&["report", path(&i.scored), "--out", path(&full)]);
    let html = fs::read_to_string(full.join("report.html")).unwrap();
    let all = rows_of(&html);
    assert_eq!(all.len(), 243 * 5);
    assert!(!html.contains("browser-limit"));

    let limited = i.dir.path().join("limited");
    ok(&[
        "report",
        path(&i.scored),
        "--browser-rows",
        "27",
        "--out",
        path(&limited),
    ]);
    let html = fs::read_to_string(limited.join("report.html")).unwrap();
    let shown = rows_of(&html);
    // 27 rows hold five tasks of five models each.
    assert_eq!(shown, all[..25]);
    let first: Vec<&String> = all.iter().step_by(5).take(5).collect();
    assert_eq!(shown.iter().step_by(5).collect::<Vec<_>>(), first);
    assert!(html.contains("The first 5 of 243 tasks"), "{html}");
    // Every other file is the same as without the limit.
    for name in ["report.json", "task_scores.csv", "scores.csv"] {
        assert_eq!(
            fs::read(full.join(name)).unwrap(),
            fs::read(limited.join(name)).unwrap(),
            "{name}"
        );
    }
}
