//! `itc ood score apibench --compat official` against the reference numbers of
//! the official `ast_eval_{hf,tf,th}.py` (datasets/ood/gorilla/reference,
//! copied from shared/reference/apibench): every row and every per-question
//! verdict, exactly.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as J;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/gorilla")
}

struct Row {
    reference: J,
    got: J,
    differing_items: usize,
}

fn run_all() -> Vec<Row> {
    let reference: J = serde_json::from_str(
        &std::fs::read_to_string(root().join("reference/reference.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for r in reference["results"].as_array().unwrap() {
        let hub = r["hub"].as_str().unwrap();
        let eval = if hub == "tensorflowhub" {
            "tensorflow"
        } else {
            hub
        };
        let file = r["response_file"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap();
        let per_item = dir.path().join("items.jsonl");
        let out = Command::new(env!("CARGO_BIN_EXE_itc"))
            .args([
                "ood", "score", "apibench", "--compat", "official", "--format", "json", "--hub",
                hub,
            ])
            .arg("--api-db")
            .arg(root().join(format!("api/{hub}_api.jsonl")))
            .arg("--gold")
            .arg(root().join(format!("apibench/{eval}_eval.json")))
            .arg("--responses")
            .arg(root().join(format!("responses/{hub}/{file}")))
            .arg("--per-item")
            .arg(&per_item)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: J = serde_json::from_slice(&out.stdout).unwrap();
        let ours: Vec<J> = std::fs::read_to_string(&per_item)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let theirs: Vec<J> = std::fs::read_to_string(root().join(format!(
            "reference/per_item/{}",
            file.replace(".jsonl", ".per_item.jsonl")
        )))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        assert_eq!(ours.len(), theirs.len(), "{file}");
        for (a, b) in ours.iter().zip(&theirs) {
            // Extraction and the th script's unscored responses are exact.
            assert_eq!(a["question_id"], b["question_id"], "{file}");
            assert_eq!(a["scored"], b["scored"], "{file} {}", b["question_id"]);
            assert_eq!(
                a["extracted_api_call"], b["extracted_api_call"],
                "{file} {}",
                b["question_id"]
            );
            assert_eq!(
                a["gold_domain"], b["gold_domain"],
                "{file} {}",
                b["question_id"]
            );
        }
        let differing_items = ours
            .iter()
            .zip(&theirs)
            .filter(|(a, b)| a["db_index"] != b["db_index"])
            .count();
        rows.push(Row {
            reference: r.clone(),
            got,
            differing_items,
        });
    }
    rows
}

fn exact(row: &Row) -> bool {
    let (g, r) = (&row.got, &row.reference);
    g["total"] == r["total"]
        && g["correct"] == r["correct"]
        && g["hallucinated"] == r["hallucinated"]
        && g["neither_scored"] == r["neither_scored"]
        && g["accuracy"] == r["accuracy"]
        && g["hallucination"] == r["hallucination_rate"]
        && g["official_stdout"] == r["official_stdout"]
}

/// Every reference number and every per-question verdict, exactly.
#[test]

fn every_reference_number_exactly() {
    let rows = run_all();
    for row in &rows {
        assert!(exact(row), "{} vs {}", row.got, row.reference);
        assert_eq!(row.differing_items, 0);
    }
    report_table_shows_the_reference_numbers(&rows);
}

/// `itc ood report --apibench-scores` (the ToolLLM-shaped table) shows the
/// same numbers, in percent, for every response file of the reference.
fn report_table_shows_the_reference_numbers(rows: &[Row]) {
    let dir = tempfile::tempdir().unwrap();
    let scores = dir.path().join("scores.jsonl");
    let lines: String = rows.iter().map(|r| format!("{}\n", r.got)).collect();
    std::fs::write(&scores, lines).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["ood", "report", "--format", "json", "--apibench-scores"])
        .arg(&scores)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: Vec<J> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &J| v["table"] == "apibench")
        .collect();
    assert_eq!(shown.len(), rows.len());
    for r in rows {
        let reference = &r.reference;
        let file = reference["response_file"].as_str().unwrap();
        let model = file
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".jsonl")
            .trim_start_matches(&format!("response_{}_", reference["hub"].as_str().unwrap()))
            .to_string();
        let cell = shown
            .iter()
            .find(|v| v["model"] == model.as_str() && v["hub"] == reference["hub"])
            .unwrap_or_else(|| panic!("no row for {model} on {}", reference["hub"]));
        let percent = |x: &J| x.as_f64().unwrap() * 100.0;
        assert!(
            (cell["ast_accuracy"].as_f64().unwrap() - percent(&reference["accuracy"])).abs() < 1e-9,
            "{cell}"
        );
        assert!(
            (cell["hallucination"].as_f64().unwrap() - percent(&reference["hallucination_rate"]))
                .abs()
                < 1e-9,
            "{cell}"
        );
        assert_eq!(cell["total"], reference["total"]);
    }
}
