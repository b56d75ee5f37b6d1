//! End-to-end: text from input files that a program reading itc's files
//! could run (issue 34, item 4). Model names, languages, countries and
//! categories holding HTML, pipes, line breaks and spreadsheet formulas go
//! through `itc score --out` and `itc report`: `report.md` shows them as
//! text in whole tables, every CSV text cell that would start a formula
//! starts with `'`, and Parquet keeps the raw values.

mod support;

use std::fs;
use std::path::Path;

use polars::prelude::{CsvReadOptions, DataFrame, DataType, ParquetReader, SerReader};
use serde_json::json;
use support::{itc, text};

const SCRIPT_MODEL: &str = "<script>alert(1)</script>|x\ny";
const FORMULA_MODEL: &str = "=cmd|' /C calc'!A0";
const CATEGORY: &str = "=HYPERLINK(\"http://x\")";
const COUNTRY: &str = "@SUM(1+1)";
const LANGUAGE: &str = "+en";
const NEGATIVE_TEXT: &str = "-3";
const TAB_CATEGORY: &str = "\tTab";
/// A Thought that would be markup if it were not escaped.
const HOSTILE_THOUGHT: &str =
    "</code></td><script>alert(1)</script><img src=x onerror=alert(2)> Leeds";
const HOSTILE_TITLE: &str = "<i>Study</i> & \"co\"";

/// Two tasks with hostile breakdown keys, answered by two hostile models
/// (the first, in the report's order, wrong; the second right).
fn write_inputs(dir: &Path) -> (String, String) {
    let task = |id: &str, category: &str, country: &str| {
        json!({
            "id": id, "kind": "single", "language": LANGUAGE, "country": country,
            "category": category, "query": "What is the weather in Leeds tomorrow?",
            "tools": [{"name": "uk_weather", "required_parameters": [{"name": "city", "type": "string"}]},
                      {"name": "fr_weather", "required_parameters": [{"name": "ville", "type": "string"}]}],
            "gold": {"thought": "Use the UK forecast.", "calls": [{"name": "uk_weather", "arguments": {"city": "Leeds"}}]}
        })
        .to_string()
    };
    let tasks = [
        task("t1", CATEGORY, COUNTRY),
        task("t2", TAB_CATEGORY, NEGATIVE_TEXT),
        task("t3", "Weather", "GB"),
    ];
    let answer = |tool: &str| {
        let thought = if tool == "fr_weather" {
            HOSTILE_THOUGHT
        } else {
            "The user wants the forecast for Leeds."
        };
        json!({"Thought": thought, "Action": format!("[{tool}(city='Leeds')]")}).to_string()
    };
    let mut predictions = Vec::new();
    for id in ["t1", "t2", "t3"] {
        for (model, tool) in [(SCRIPT_MODEL, "fr_weather"), (FORMULA_MODEL, "uk_weather")] {
            predictions.push(
                json!({"task_id": id, "model": model, "output": answer(tool), "calls": null, "error": null})
                    .to_string(),
            );
        }
    }
    let t = dir.join("tasks.jsonl");
    let p = dir.join("predictions.jsonl");
    fs::write(&t, tasks.join("\n") + "\n").unwrap();
    fs::write(&p, predictions.join("\n") + "\n").unwrap();
    (t.to_str().unwrap().into(), p.to_str().unwrap().into())
}

fn ok(args: &[&str]) {
    let output = itc(args, &[]);
    assert!(
        output.status.success(),
        "itc {}\n{}",
        args.join(" "),
        text(&output.stderr)
    );
}

/// Pipes of a Markdown line that end a cell: those not escaped by an odd
/// run of backslashes.
fn unescaped_pipes(line: &str) -> usize {
    let mut count = 0;
    let mut backslashes = 0;
    for c in line.chars() {
        match c {
            '\\' => backslashes += 1,
            '|' if backslashes % 2 == 0 => count += 1,
            _ => {}
        }
        if c != '\\' {
            backslashes = 0;
        }
    }
    count
}

/// Every table of `markdown` keeps its shape: each line after the header,
/// up to the blank line that ends it, is a row with the header's number of
/// cells.
fn assert_tables_whole(markdown: &str) {
    let mut header: Option<usize> = None;
    for line in markdown.lines() {
        match header {
            Some(_) if line.is_empty() => header = None,
            Some(pipes) => {
                assert!(line.starts_with("| "), "a row broken: {line:?}\n{markdown}");
                assert_eq!(unescaped_pipes(line), pipes, "{line:?}\n{markdown}");
            }
            None if line.starts_with('|') => header = Some(unescaped_pipes(line)),
            None => {}
        }
    }
}

fn read_csv(path: &Path, infer: bool) -> DataFrame {
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(if infer { Some(100) } else { Some(0) })
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .unwrap()
        .finish()
        .unwrap()
}

/// Every cell of the text columns of `path`, by column name.
fn text_cells(path: &Path) -> Vec<(String, String)> {
    let typed = read_csv(path, true);
    let mut cells = Vec::new();
    for column in read_csv(path, false).columns() {
        if typed.column(column.name()).unwrap().dtype() != &DataType::String {
            continue; // numbers, read as numbers
        }
        for cell in column.str().unwrap().iter().flatten() {
            cells.push((column.name().to_string(), cell.to_string()));
        }
    }
    cells
}

#[test]
fn hostile_text_is_escaped_in_markdown_and_neutralised_in_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, predictions) = write_inputs(dir.path());
    let scored = dir.path().join("scored");
    let report = dir.path().join("report");
    let (scored_arg, report_arg) = (scored.to_str().unwrap(), report.to_str().unwrap());
    ok(&[
        "score",
        "--tasks",
        &tasks,
        "--predictions",
        &predictions,
        "--out",
        scored_arg,
    ]);
    ok(&[
        "report",
        scored_arg,
        "--out",
        report_arg,
        "--title",
        HOSTILE_TITLE,
    ]);

    let markdown = fs::read_to_string(report.join("report.md")).unwrap();
    assert!(!markdown.contains("<script"), "{markdown}");
    assert!(!markdown.contains("</script"), "{markdown}");
    assert!(
        markdown.contains("| &lt;script&gt;alert(1)&lt;/script&gt;\\|x y |"),
        "{markdown}"
    );
    assert!(markdown.contains(r"| =cmd\|' /C calc'!A0 |"), "{markdown}");
    assert_tables_whole(&markdown);
    assert!(
        markdown.starts_with("# &lt;i&gt;Study&lt;/i&gt; &amp; \"co\"\n"),
        "{markdown}"
    );

    // The page: the hostile answer and names are text, never markup. The
    // page's own script is its only one; no image, no italics.
    let html = fs::read_to_string(report.join("report.html")).unwrap();
    assert_eq!(html.matches("<script").count(), 1);
    for markup in ["<img", "<i>", "</code></td><script"] {
        assert!(!html.contains(markup), "{markup}");
    }
    let thought = "&lt;/code&gt;&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; Leeds";
    assert!(
        html.contains(&format!(">{thought}</td>")),
        "the Thought, escaped"
    );
    assert!(
        html.contains(&format!("<code>{{&quot;Thought&quot;:&quot;{thought}")),
        "the raw answer, escaped"
    );
    assert!(html.contains("<title>&lt;i&gt;Study&lt;/i&gt; &amp; &quot;co&quot;</title>"));
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;|x\ny"),
        "the model name"
    );

    let dangerous = ['=', '+', '-', '@', '\t', '\r'];
    let mut csv_files = 0;
    let mut seen = Vec::new();
    for folder in [&scored, &report] {
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "csv") {
                continue;
            }
            csv_files += 1;
            for (column, cell) in text_cells(&path) {
                assert!(
                    !cell.starts_with(dangerous),
                    "{}: {column} = {cell:?}",
                    path.display()
                );
                seen.push(cell);
            }
        }
    }
    assert!(csv_files >= 8, "{csv_files} CSV files");
    for raw in [
        FORMULA_MODEL,
        CATEGORY,
        COUNTRY,
        LANGUAGE,
        NEGATIVE_TEXT,
        TAB_CATEGORY,
    ] {
        let safe = format!("'{raw}");
        assert!(seen.contains(&safe), "{safe:?} in no CSV file");
    }
    // The harmless model name is written as it is, line break and all.
    assert!(seen.iter().any(|cell| cell == SCRIPT_MODEL));
    // Numbers stay numbers: the wrong model (A) is behind by a negative
    // difference.
    let comparisons = fs::read_to_string(report.join("comparisons.csv")).unwrap();
    assert!(comparisons.contains(",-100.0000,"), "{comparisons}");

    // Parquet keeps the raw values.
    let file = fs::File::open(report.join("task_scores.parquet")).unwrap();
    let frame = ParquetReader::new(file).finish().unwrap();
    let column = |name: &str| -> Vec<String> {
        let cells = frame.column(name).unwrap().str().unwrap();
        cells.iter().flatten().map(str::to_string).collect()
    };
    assert!(column("model").contains(&FORMULA_MODEL.to_string()));
    assert!(column("model").contains(&SCRIPT_MODEL.to_string()));
    assert!(column("category").contains(&CATEGORY.to_string()));
    assert!(column("country").contains(&NEGATIVE_TEXT.to_string()));
    assert!(column("language").contains(&LANGUAGE.to_string()));
}
