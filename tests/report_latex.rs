//! `report.tex`: Table 2 and Table 3 as booktabs tables. Model names full
//! of LaTeX's special characters go through `itc score --out` and `itc
//! report`; the file must stay well-formed (balanced braces, every row as
//! many cells as its table has columns, each table's three rules), name
//! every model escaped, carry the intervals, and, when `pdflatex` is
//! installed, compile.

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use support::{itc, text};

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

/// Cells of a row: unescaped `&`s plus one.
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
    count
}

/// Each table's column count and rows (header first).
fn tables(tex: &str) -> Vec<(usize, Vec<String>)> {
    tex.split("\\begin{tabular}{")
        .skip(1)
        .map(|t| {
            let spec = t.split('}').next().unwrap();
            assert!(spec.chars().all(|c| c == 'l' || c == 'r'), "{spec}");
            let body = t.split("\\end{tabular}").next().unwrap();
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
    let (scored, report) = (dir.path().join("scored"), dir.path().join("report"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&[
        "score",
        "--tasks",
        &tasks,
        "--predictions",
        &predictions,
        "--out",
        &s(&scored),
    ]);
    ok(&[
        "report",
        &s(&scored),
        "--out",
        &s(&report),
        "--title",
        "Study #1: 100% & more",
    ]);
    let tex = fs::read_to_string(report.join("report.tex")).unwrap();
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(report.join("report.json")).unwrap()).unwrap();
    let models = summary["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);

    assert_balanced(&tex);
    let found = tables(&tex);
    assert_eq!(found.len(), 2, "Table 2 and Table 3");
    for (columns, rows) in &found {
        assert_eq!(rows.len(), 1 + models.len(), "{rows:?}");
        for row in rows {
            assert_eq!(cells(row), *columns, "{row}");
        }
    }
    assert_eq!(found[0].0, 6);
    assert_eq!(found[1].0, 7);
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
        found[0].1[1..].iter().any(|r| r.contains(&cell)),
        "{cell}\n{tex}"
    );

    compile_if_possible(&report, T1);
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
    let (scored, report) = (dir.path().join("scored"), dir.path().join("report"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    ok(&[
        "score",
        "--tasks",
        &tasks,
        "--predictions",
        &predictions,
        "--out",
        &s(&scored),
    ]);
    ok(&[
        "report",
        &s(&scored),
        "--out",
        &s(&report),
        "--title",
        "北京 study Ω\u{2028}🤖",
    ]);
    let tex = fs::read_to_string(report.join("report.tex")).unwrap();
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

/// A paper in LaTeX's default font encoding (OT1). `\tracinglostchars=3`
/// makes a character without a glyph in its font an error, not a note.
const OT1: &str = "\\documentclass{article}\n\\usepackage{booktabs}\n\\tracinglostchars=3\n";
/// A paper in the T1 font encoding.
const T1: &str = "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\tracinglostchars=3\n";

/// Compiles `report.tex` in a minimal document with `pdflatex`, when it is
/// installed (Debian: texlive-latex-base and texlive-latex-recommended);
/// under CI (`CI` set and not `false` or `0`), which `.ci/run` installs it
/// for, a missing `pdflatex` fails instead.
fn compile_if_possible(report: &Path, preamble: &str) {
    if Command::new("pdflatex").arg("--version").output().is_err() {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!ci, "CI installs pdflatex (.ci/run); it is missing");
        eprintln!("skipped compiling: no pdflatex");
        return;
    }
    let doc = format!("{preamble}\\begin{{document}}\n\\input{{report.tex}}\n\\end{{document}}\n");
    fs::write(report.join("paper.tex"), doc).unwrap();
    let out = Command::new("pdflatex")
        .current_dir(report)
        .args(["-interaction=nonstopmode", "-halt-on-error", "paper.tex"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stdout));
    let log = fs::read_to_string(report.join("paper.log")).unwrap();
    assert!(!log.contains("! "), "{log}");
    assert!(
        fs::read(report.join("paper.pdf"))
            .unwrap()
            .starts_with(b"%PDF")
    );
}
