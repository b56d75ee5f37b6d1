//! `report.tex` and `table-*.tex`: Table 2, Table 3, the judged figures
//! and the official scores as booktabs tables, each in a file a paper can
//! `\input`, and `report.tex`, a whole document that `\input`s them. Model
//! names full of LaTeX's special characters go through `itc score --out`
//! and `itc report`; the files must stay well-formed (balanced braces,
//! every row as many cells as its table has columns, each table's three
//! rules), name every model escaped, carry the intervals, and, when
//! `pdflatex` is installed, compile: in a paper, and on their own with no
//! line wider than the text column.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::judged::{Setup, run_dir, task};
use support::server::{Reply, completion};
use support::{itc, latex, text};

/// Every special character of LaTeX, and a plain name beside it.
const NASTY: &str = r"a&b%c$d#e_f{g}h~i^j\k <|>";
const PLAIN: &str = "plain-model";

fn ok(args: &[&str]) {
    let output = itc(args, &[]);
    assert!(
        output.status.success(),
        "itc {}\n{}",
        args.join(" "),
        text(&output.stderr)
    );
}

/// Two tasks answered by the nasty and the plain model (the nasty one
/// wrong once).
/// Scores `predictions` against `tasks` into `dir/scored`, then reports
/// that folder under `title` into `dir/report`; returns the report folder.
fn score_and_report(dir: &Path, tasks: &str, predictions: &str, title: &str) -> PathBuf {
    let (scored, report) = (dir.join("scored"), dir.join("report"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&[
        "score",
        "--tasks",
        tasks,
        "--predictions",
        predictions,
        "--out",
        &s(&scored),
    ]);
    ok(&[
        "report",
        &s(&scored),
        "--out",
        &s(&report),
        "--title",
        title,
    ]);
    report
}

fn write_inputs(dir: &Path) -> (String, String) {
    write_inputs_of(dir, &[NASTY, PLAIN])
}

/// Two tasks answered by each of `models` (the first one wrong once).
fn write_inputs_of(dir: &Path, models: &[&str]) -> (String, String) {
    let task = |id: &str| {
        json!({
            "id": id, "kind": "single", "language": "en", "country": "GB", "category": "Weather",
            "query": "What is the weather in Leeds tomorrow?",
            "tools": [{"name": "uk_weather", "required_parameters": [{"name": "city", "type": "string"}]},
                      {"name": "fr_weather", "required_parameters": [{"name": "ville", "type": "string"}]}],
            "gold": {"thought": "Use the UK forecast.", "calls": [{"name": "uk_weather", "arguments": {"city": "Leeds"}}]}
        })
        .to_string()
    };
    let mut predictions = Vec::new();
    for id in ["t1", "t2"] {
        for &model in models {
            let tool = if model == models[0] && id == "t1" {
                "fr_weather"
            } else {
                "uk_weather"
            };
            let output = json!({"Thought": "Leeds.", "Action": format!("[{tool}(city='Leeds')]")});
            predictions.push(
                json!({"task_id": id, "model": model, "output": output.to_string()}).to_string(),
            );
        }
    }
    let (t, p) = (dir.join("tasks.jsonl"), dir.join("predictions.jsonl"));
    fs::write(&t, [task("t1"), task("t2")].join("\n") + "\n").unwrap();
    fs::write(&p, predictions.join("\n") + "\n").unwrap();
    (t.to_str().unwrap().into(), p.to_str().unwrap().into())
}

/// Braces of `tex` outside comments and escapes (`\{`, `\}`) balance, and
/// never close more than are open.
fn assert_balanced(tex: &str) {
    let mut depth = 0i64;
    for line in tex.lines().filter(|l| !l.starts_with('%')) {
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '%' => panic!("an unescaped % comments out the rest of {line:?}"),
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0, "a brace closed before it opened: {line:?}");
        }
    }
    assert_eq!(depth, 0, "unbalanced braces");
}

/// Cells of a row: unescaped `&`s plus one, a `\multicolumn{n}` counting n.
fn cells(row: &str) -> usize {
    let mut count = 1;
    let mut chars = row.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '&' => count += 1,
            _ => {}
        }
    }
    for span in row.split("\\multicolumn{").skip(1) {
        count += span.split('}').next().unwrap().parse::<usize>().unwrap() - 1;
    }
    count
}

/// Each table's column count and rows (header first), in `tabular` and
/// `tabularx` environments.
fn tables(tex: &str) -> Vec<(usize, Vec<String>)> {
    tex.split("\\begin{tabular")
        .skip(1)
        .map(|t| {
            let t = t
                .strip_prefix("x}{\\linewidth}{")
                .or(t.strip_prefix("}{"))
                .unwrap();
            let spec = t.split('\n').next().unwrap().strip_suffix('}').unwrap();
            let spec = spec.replace(">{\\raggedright\\arraybackslash}X", "X");
            assert!(spec.chars().all(|c| "lrX".contains(c)), "{spec}");
            let body = t.split("\\end{tabular").next().unwrap();
            for rule in ["\\toprule", "\\midrule", "\\bottomrule"] {
                assert_eq!(body.matches(rule).count(), 1, "{rule} in {body}");
            }
            let rows = body
                .lines()
                .filter(|l| l.ends_with("\\\\"))
                .map(str::to_string)
                .collect();
            (spec.len(), rows)
        })
        .collect()
}

#[test]
fn report_tex_is_well_formed_and_escapes_model_names() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, predictions) = write_inputs(dir.path());
    let report = score_and_report(dir.path(), &tasks, &predictions, "Study #1: 100% & more");
    let tex = tables_of(&report);
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    let models = summary["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);

    assert_balanced(&tex);
    let found = tables(&tex);
    assert_eq!(found.len(), 3, "Table 2's two panels and Table 3");
    for (columns, rows) in &found {
        assert_eq!(rows.len(), 1 + models.len(), "{rows:?}");
        for row in rows {
            assert_eq!(cells(row), *columns, "{row}");
        }
    }
    assert_eq!(found[0].0, 4);
    assert_eq!(found[1].0, 3);
    assert_eq!(found[2].0, 7);
    // Every model in both tables, escaped; nothing of the raw name left.
    let escaped = r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k \textless{}\textbar{}\textgreater{}";
    for (_, rows) in &found {
        for m in models {
            let name = m["model"].as_str().unwrap();
            let cell = if name == NASTY { escaped } else { name };
            assert!(
                rows.iter().any(|r| r.starts_with(&format!("{cell} & "))),
                "{name}: {rows:?}"
            );
        }
    }
    assert!(!tex.contains(NASTY));
    assert!(
        tex.contains(r"\caption{Study \#1: 100\% \& more: "),
        "{tex}"
    );
    // Table 2 carries each rate's interval, as report.json has it.
    let plain = models.iter().find(|m| m["model"] == PLAIN).unwrap();
    let lm = &plain["summary"]["ci"]["lm"];
    let cell = format!(
        "{:.2} {{\\scriptsize [{:.2}, {:.2}]}}",
        plain["summary"]["lm"].as_f64().unwrap(),
        lm["lo"].as_f64().unwrap(),
        lm["hi"].as_f64().unwrap()
    );
    assert!(
        found[1].1[1..].iter().any(|r| r.contains(&cell)),
        "{cell}\n{tex}"
    );

    compile_if_possible(&report, T1);
    latex::assert_report_fits(&report);
}

/// Text pdflatex has no glyph for, and text that TeX reads as syntax at
/// the start of a table row (after `\\` or `\midrule`).
const UNTYPESET: [&str; 12] = [
    "通义千问-Qwen",
    "🤖 bot 👨\u{200d}👩",
    "Ω-model αβγ ώ",
    "line\u{2028}paragraph\u{2029}end",
    "zero\u{200b}width\u{feff}",
    "[bracket] model",
    "(paren) model",
    "*star",
    "café Đà Nẵng ß Ø ł æ",
    "e\u{301}\u{301} “quoted” – … 10°C ±1 × µ\u{a0}x",
    "\u{1b}[31mred\u{7}\u{85}",
    "Привет мир",
];

/// Issue 48: `report.tex` stopped pdflatex on CJK, emoji, Ω, U+2028 and
/// U+200B. Now every model name and the title compile with pdflatex, in the
/// default font encoding (OT1) and in T1; what has no glyph is written
/// `[U+XXXX]`, so names that differ only by an invisible character stay
/// apart.
#[test]
fn report_tex_compiles_with_pdflatex_whatever_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, predictions) = write_inputs_of(dir.path(), &UNTYPESET);
    let report = score_and_report(dir.path(), &tasks, &predictions, "北京 study Ω\u{2028}🤖");
    let tex = tables_of(&report);
    assert_balanced(&tex);
    for (columns, rows) in &tables(&tex) {
        assert_eq!(rows.len(), 1 + UNTYPESET.len(), "{rows:?}");
        for row in rows {
            assert_eq!(cells(row), *columns, "{row}");
        }
    }
    for shown in ["[U+901A]", "[U+1F916]", "[U+200B]", "[U+FEFF]", "[U+200D]"] {
        assert!(tex.contains(shown), "{shown}\n{tex}");
    }
    assert!(
        !tex.contains('\u{2028}') && !tex.contains('\u{1b}'),
        "{tex}"
    );
    compile_if_possible(&report, OT1);
    compile_if_possible(&report, T1);
}

/// Issue 49 item 6: `pdflatex report.tex` compiles the report on its own,
/// and no line of it is wider than the text column (today Table 2 was
/// 135 pt too wide, its last column cut off): the sample set's five
/// recorded models and the offline baseline, as `reports/sample/` has them.
#[test]
fn report_tex_of_the_sample_set_compiles_alone_and_fits_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let at = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_itc"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    at(&["score", "--out", "runs/recorded"]);
    at(&["eval", "--run-dir", "runs/baseline", "--no-progress"]);
    at(&[
        "report",
        "runs/recorded",
        "runs/baseline",
        "--out",
        report.to_str().unwrap(),
    ]);
    let tex = tables_of(&report);
    for (columns, rows) in &tables(&tex) {
        assert_eq!(rows.len(), 1 + 6, "{rows:?}");
        for row in rows {
            assert_eq!(cells(row), *columns, "{row}");
        }
    }
    assert!(!report.join("table-judged.tex").exists());
    assert!(!report.join("table-official.tex").exists());
    // The model that answers by native calls has no FM, as in every table,
    // and the caption says why; the others keep theirs.
    let main = std::fs::read_to_string(report.join("table-main.tex")).unwrap();
    let fm = |model: &str| {
        let row = main
            .lines()
            .find(|l| l.starts_with(&format!("{model} &")) && l.matches('&').count() == 2)
            .unwrap_or_else(|| panic!("{model}: {main}"));
        row.rsplit('&')
            .next()
            .unwrap()
            .trim()
            .trim_end_matches("\\\\")
            .trim()
            .to_string()
    };
    assert_eq!(fm("function-caller"), "N/A");
    assert_ne!(fm("baseline"), "N/A");
    assert!(main.contains("FM N/A: the answers came as calls"), "{main}");
    latex::assert_report_fits(&report);
    compile_if_possible(&report, OT1);
}

/// The judges of the judged report: every answer solved, every task solvable.
fn solved(req: &support::server::Request) -> Reply {
    let system = req.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    let label = if system.starts_with("You decide whether") {
        "Solvable"
    } else {
        "Solved"
    };
    Reply::Json(completion(&format!(
        "{{\"label\": \"{label}\", \"reason\": \"scripted\"}}"
    )))
}

/// Issue 49 item 6: the judged figures (SoPR with its spread, pass rate)
/// are in `report.tex` as `itc report` shows them in HTML and Markdown, in
/// a table of their own that fits the text column.
#[test]
fn report_tex_has_the_judged_figures_and_fits_the_column() {
    let s = Setup::start(solved, &["judge-a"]);
    let tasks: Vec<Value> = ["j1", "j2", "j3"]
        .iter()
        .map(|id| task(id, "Weather in Paris?"))
        .collect();
    let mut runs = Vec::new();
    for model in ["candidate-with-a-long-name", "other"] {
        let predictions: Vec<Value> = ["j1", "j2", "j3"]
            .iter()
            .map(|id| {
                json!({"task_id": id, "model": model, "steps": [
                    {"output": "I look it up.", "calls": [{"name": "weather", "arguments": {"city": "Paris"}}],
                     "tool_outputs": [{"temperature": 21}]},
                    {"output": "It is 21 degrees in Paris."}]})
            })
            .collect();
        let run = run_dir(&s.root, model, model, &tasks, &predictions);
        let file = |name: &str| run.join(name).to_str().unwrap().to_string();
        ok(&[
            "score",
            "--tasks",
            &file("tasks.jsonl"),
            "--predictions",
            &file("predictions.jsonl"),
            "--out",
            run.to_str().unwrap(),
        ]);
        for (metric, extra) in [("sopr", "--runs"), ("pass-rate", "--samples")] {
            ok(&[
                "judge",
                run.to_str().unwrap(),
                "--metric",
                metric,
                extra,
                "2",
                "--judge",
                "judge-a",
                "--config",
                s.config.to_str().unwrap(),
            ]);
        }
        runs.push(run.to_str().unwrap().to_string());
    }
    let report = s.root.join("report");
    let mut args = vec!["report"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--out", report.to_str().unwrap()]);
    ok(&args);
    let json: Value =
        serde_json::from_str(&fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    let judged = json["judged"].as_array().unwrap();
    assert_eq!(judged.len(), 4, "{judged:?}");
    let tex = tables_of(&report);
    assert!(tex.contains("\\label{tab:itc-judged}"), "{tex}");
    let found = tables(&tex);
    let (columns, rows) = found.last().unwrap();
    // The header, a row naming each model, a row per figure.
    assert_eq!(rows.len(), 1 + 2 + 4, "{rows:?}");
    for row in rows {
        assert_eq!(cells(row), *columns, "{row}");
    }
    for f in judged {
        let model = f["model"].as_str().unwrap();
        assert!(
            tex.contains(&format!("\\textit{{{model}}}")),
            "{model}\n{tex}"
        );
        let metric = f["metric"].as_str().unwrap();
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("{metric} & "))),
            "{metric}: {rows:?}"
        );
    }
    latex::assert_report_fits(&report);
    compile_if_possible(&report, T1);
}

/// A paper in LaTeX's default font encoding (OT1). `\tracinglostchars=3`
/// makes a character without a glyph in its font an error, not a note.
const OT1: &str = "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{tabularx}\n\\tracinglostchars=3\n";
/// A paper in the T1 font encoding.
const T1: &str = "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\usepackage{tabularx}\n\\tracinglostchars=3\n";

/// The table files `report.tex` `\input`s, in its order, one after the
/// other; `report.tex` itself must be a whole document of nothing else.
fn tables_of(report: &Path) -> String {
    let document = fs::read_to_string(report.join("report.tex")).unwrap();
    assert_balanced(&document);
    let body: Vec<&str> = document
        .lines()
        .filter(|l| !l.starts_with('%') && !l.is_empty())
        .collect();
    assert_eq!(body[0], "\\documentclass{article}", "{document}");
    assert_eq!(body.last(), Some(&"\\end{document}"), "{document}");
    let mut tex = String::new();
    for line in body {
        if let Some(name) = line
            .strip_prefix("\\input{")
            .and_then(|l| l.strip_suffix('}'))
        {
            assert!(
                name.starts_with("table-") && name.ends_with(".tex"),
                "{name}"
            );
            tex.push_str(&fs::read_to_string(report.join(name)).unwrap());
        }
    }
    tex
}

/// Compiles the table files `report.tex` `\input`s in a minimal paper of
/// `preamble`, when `pdflatex` is installed: the tables work by `\input`.
fn compile_if_possible(report: &Path, preamble: &str) {
    if !latex::available() {
        return;
    }
    let document = fs::read_to_string(report.join("report.tex")).unwrap();
    let inputs: String = document
        .lines()
        .filter(|l| l.starts_with("\\input{"))
        .map(|l| format!("{l}\n"))
        .collect();
    let doc = format!("{preamble}\\begin{{document}}\n{inputs}\\end{{document}}\n");
    fs::write(report.join("paper.tex"), doc).unwrap();
    latex::compile(report, "paper.tex");
}
