//! Terminal tables fit 100 columns (issue 11, item 8): `itc score` on the
//! sample set, the official Seal-Tools and APIBench tables (`itc ood score`,
//! `itc eval --dataset seal-tools` on the shipped copies, offline) and
//! `itc sample` on the shipped public-apis catalog. Every line is at most 100
//! characters, every fraction in a table has at most 4 significant digits,
//! `--wide` shows a table in one piece, and `itc sample` lists only the
//! countries drawn unless `--all-countries`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{itc, text};

const MAX: usize = 100;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn run(args: &[&str]) -> (String, String) {
    let output: Output = itc(args, &[]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{args:?}\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// Lines longer than [`MAX`] characters (unicode scalar values).
fn too_long(output: &str) -> Vec<&str> {
    output.lines().filter(|l| l.chars().count() > MAX).collect()
}

/// The cells of the table rows (lines between `│`).
fn cells(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with('│'))
        .flat_map(|l| l.split('│').map(str::trim).filter(|c| !c.is_empty()))
        .collect()
}

/// Significant digits of a decimal number written with a point (`0.05376`
/// has 4, `100.0` has 4); `None` for anything else (counts, names).
fn significant_digits(token: &str) -> Option<usize> {
    let digits = token.trim_start_matches('-');
    if !digits.contains('.') || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let all: String = digits.chars().filter(char::is_ascii_digit).collect();
    Some(all.trim_start_matches('0').len())
}

/// Every decimal number in the tables' cells (intervals `a–b` are two).
fn assert_four_digits(output: &str) {
    let mut seen = 0;
    for cell in cells(output) {
        for token in cell.split(['–', ' ']) {
            if let Some(n) = significant_digits(token) {
                seen += 1;
                assert!(n <= 4, "{token} in {cell:?}:\n{output}");
            }
        }
    }
    assert!(seen > 0, "no decimal numbers in\n{output}");
}

fn assert_fits(output: &str) {
    assert!(too_long(output).is_empty(), "{:#?}", too_long(output));
}

#[test]
fn digit_counting_is_right() {
    assert_eq!(significant_digits("0.05376"), Some(4));
    assert_eq!(significant_digits("100.0"), Some(4));
    assert_eq!(significant_digits("0.8028571428571428"), Some(16));
    assert_eq!(significant_digits("243"), None);
    assert_eq!(significant_digits("careful-mid"), None);
}

#[test]
fn score_tables_fit_and_wide_shows_the_details_in_one_table() {
    let (stdout, stderr) = run(&["score", "--bootstrap", "50"]);
    assert_fits(&stdout);
    assert_fits(&stderr);
    assert_four_digits(&stdout);
    for header in [
        "LM",
        "Inv. F1",
        "Hall.",
        "LM unrel.",
        "LM undet.",
        "Inv. F1 micro",
    ] {
        assert!(stdout.contains(header), "{header}:\n{stdout}");
    }
    let one_line = |s: &str| {
        s.lines()
            .any(|l| l.contains("LM unrel.") && l.contains("Inv. F1 micro"))
    };
    assert!(!one_line(&stdout), "{stdout}");

    let (wide, _) = run(&["score", "--bootstrap", "50", "--wide"]);
    assert!(one_line(&wide), "{wide}");
    assert!(!too_long(&wide).is_empty(), "{wide}");
    assert_four_digits(&wide);
}

#[test]
fn official_seal_tools_and_apibench_tables_fit() {
    let dir = tempfile::tempdir().unwrap();
    // A long model name (the file's name) that a wide table shows whole.
    let long =
        "a-model-name-long-enough-to-need-a-table-wider-than-a-terminal-of-one-hundred-columns";
    let predictions = dir.path().join(format!("{long}.jsonl"));
    std::fs::copy(
        repo("datasets/ood/seal-tools/reference/test_in_domain_mixed.raw.jsonl"),
        &predictions,
    )
    .unwrap();
    let gold = repo("datasets/ood/seal-tools/test_in_domain.json");
    let seal = |extra: &[&str]| {
        let mut args = vec![
            "ood",
            "score",
            "seal-tools",
            "--gold",
            gold.to_str().unwrap(),
            "--predictions",
            predictions.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args).0
    };
    let fit = seal(&[]);
    assert_fits(&fit);
    assert_four_digits(&fit);
    assert!(fit.contains("0.8029"), "{fit}"); // parsed: 0.8028571428571428
    assert!(!fit.contains(long), "{fit}");
    let wide = seal(&["--wide"]);
    assert!(wide.contains(long), "{wide}");
    assert_four_digits(&wide);

    let responses: Vec<String> = std::fs::read_dir(repo("datasets/ood/gorilla/responses/torchhub"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    let mut args = vec![
        "ood".to_string(),
        "score".into(),
        "apibench".into(),
        "--hub".into(),
        "torchhub".into(),
        "--api-db".into(),
        repo("datasets/ood/gorilla/api/torchhub_api.jsonl")
            .to_string_lossy()
            .into_owned(),
        "--gold".into(),
        repo("datasets/ood/gorilla/apibench/torchhub_eval.json")
            .to_string_lossy()
            .into_owned(),
        "--responses".into(),
    ];
    args.extend(responses);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (stdout, _) = run(&args);
    assert_fits(&stdout);
    assert_four_digits(&stdout);
}

#[test]
fn eval_on_seal_tools_prints_tables_that_fit() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let (stdout, _) = run(&[
        "eval",
        "--dataset",
        "seal-tools",
        "--ood-cache",
        dir.path().join("none").to_str().unwrap(),
        "--limit",
        "8",
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--no-cache",
        "--no-progress",
        "--bootstrap",
        "20",
    ]);
    assert!(
        stdout.contains("Seal-Tools, official calculate_score_ToolLearning"),
        "{stdout}"
    );
    // The score tables and the official table (the runner's statistics
    // line above them is not a table of this module).
    let tables = &stdout[stdout.find("Tool calling on").unwrap()..];
    assert_fits(tables);
    assert_four_digits(tables);
}

fn sample(catalog: &Path, dir: &Path, extra: &[&str]) -> String {
    let out = dir.join("sampled.jsonl");
    let mut args = vec![
        "sample",
        "--catalog",
        catalog.to_str().unwrap(),
        "-n",
        "4",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args).0
}

/// Rows of the sampling table: `(country, sampled)`, without the total.
fn sample_rows(table: &str) -> Vec<(String, usize)> {
    table
        .lines()
        .filter(|l| l.starts_with('│') && !l.contains("Country") && !l.contains("total"))
        .map(|l| {
            let c: Vec<&str> = l.split('│').map(str::trim).collect();
            (c[1].to_string(), c[4].parse().unwrap())
        })
        .collect()
}

#[test]
fn sample_lists_only_the_countries_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.jsonl");
    run(&[
        "catalog",
        "import",
        "--format",
        "public-apis",
        "--skip-invalid",
        "-o",
        catalog.to_str().unwrap(),
        repo("datasets/catalog/public-apis-README.md")
            .to_str()
            .unwrap(),
    ]);
    let table = sample(&catalog, dir.path(), &[]);
    assert_fits(&table);
    assert_four_digits(&table);
    let rows = sample_rows(&table);
    assert!(!rows.is_empty() && rows.len() <= 4, "{table}");
    assert!(rows.iter().all(|(_, n)| *n > 0), "{table}");
    assert_eq!(rows.iter().map(|(_, n)| n).sum::<usize>(), 4, "{table}");
    assert!(table.contains("--all-countries"), "{table}");

    let all = sample(&catalog, dir.path(), &["--all-countries"]);
    assert_fits(&all);
    let all_rows = sample_rows(&all);
    assert!(all_rows.len() > 50, "{all}");
    assert!(all_rows.iter().any(|(_, n)| *n == 0), "{all}");
    for row in &rows {
        assert!(all_rows.contains(row), "{row:?}");
    }
}
