//! `itc ood score seal-tools --compat official` reproduces every reference
//! number of the official `calculate_score_ToolLearning` (datasets/ood/seal-tools/reference,
//! copied from shared/reference/seal-tools), and the official parser's and
//! scorer's behaviour on the 54 hand-made probes.

use std::path::{Path, PathBuf};
use std::process::Command;

use itc::benchmarks::python::{PyValue, cps, json_loads, json_roundtrip, literal_eval};
use itc::benchmarks::seal_tools::{OfficialCounts, count_record, official_parse};
use serde_json::{Value as J, json};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/seal-tools")
}

fn reference() -> J {
    let text = std::fs::read_to_string(data().join("reference/reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn run_score(prediction_file: &str, extra: &[&str]) -> J {
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args([
            "ood",
            "score",
            "seal-tools",
            "--compat",
            "official",
            "--format",
            "json",
            "--gold",
        ])
        .arg(data().join("test_in_domain.json"))
        .arg("--predictions")
        .arg(data().join("reference").join(prediction_file))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const KEYS: [&str; 7] = [
    "AMOUNT", "P_api", "R_api", "F1_api", "P_param", "R_param", "F1_param",
];

#[test]
fn every_reference_row_is_reproduced_exactly() {
    let reference = reference();
    let perturbations: Vec<J> =
        std::fs::read_to_string(data().join("reference/test_in_domain_mixed.perturbations.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let dir = tempfile::tempdir().unwrap();
    let rows = reference["results"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    for row in rows {
        let file = format!("test_in_domain_{}.raw.jsonl", row["file"].as_str().unwrap());
        let subset = row["subset"].as_str().unwrap();
        let got = if let Some(kind) = subset.strip_prefix("perturbation=") {
            let ids: Vec<&str> = perturbations
                .iter()
                .filter(|p| p["perturbation"] == kind)
                .map(|p| p["id"].as_str().unwrap())
                .collect();
            let ids_file = dir.path().join(format!("{kind}.txt"));
            std::fs::write(&ids_file, ids.join("\n")).unwrap();
            run_score(&file, &["--ids", ids_file.to_str().unwrap()])
        } else {
            run_score(&file, &["--subset", subset])
        };
        let what = format!("{file} {subset}");
        // The official dict: the same keys, the same floats, bit for bit.
        for key in KEYS {
            assert_eq!(got["official"].get(key), row.get(key), "{what}: {key}");
        }
        assert_eq!(
            got["parsed_fraction"].as_f64(),
            row["AMOUNT"].as_f64().or(Some(0.0)),
            "{what}"
        );
        for (ours, theirs) in [
            ("tool_p", "P_api"),
            ("tool_r", "R_api"),
            ("tool_f1", "F1_api"),
            ("param_p", "P_param"),
            ("param_r", "R_param"),
            ("param_f1", "F1_param"),
        ] {
            assert_eq!(got[ours].as_f64(), row[theirs].as_f64(), "{what}: {ours}");
        }
        // The counts behind them, where the reference could recover them.
        for (key, value) in row["derived_counts"].as_object().unwrap() {
            if !value.is_null() {
                assert_eq!(&got["counts"][key], value, "{what}: {key}");
            }
        }
    }
    // The unparsed ids are the official parser's failures.
    let failures = &reference["parse_failures"];
    for file in ["gold", "mixed", "goldjson"] {
        let got = run_score(&format!("test_in_domain_{file}.raw.jsonl"), &[]);
        assert_eq!(
            got["unparsed_ids"],
            failures[format!("test_in_domain_{file}")]["parse_failed_ids"],
            "{file}"
        );
    }
}

/// A parsed value as the probes file writes it (NaN and infinities as
/// `{"__float__": …}`).
fn probe_json(v: &PyValue) -> J {
    match v {
        PyValue::Float(x) if !x.is_finite() => {
            let text = if x.is_nan() {
                "NaN"
            } else if *x > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            };
            json!({ "__float__": text })
        }
        PyValue::List(items) => J::Array(items.iter().map(probe_json).collect()),
        PyValue::Dict(entries) => J::Object(
            entries
                .iter()
                .map(|(k, v)| (k.to_json().as_str().unwrap().to_string(), probe_json(v)))
                .collect(),
        ),
        other => other.to_json(),
    }
}

fn probes() -> J {
    serde_json::from_str(&std::fs::read_to_string(data().join("reference/probes.json")).unwrap())
        .unwrap()
}

#[test]
fn parser_probes() {
    let probes = probes();
    let cases = probes["parser_probes"].as_array().unwrap();
    assert!(cases.len() >= 30);
    for case in cases {
        let input = case["input"].as_str().unwrap();
        let got = match official_parse(&cps(input)) {
            None => json!(-1),
            Some(v) => probe_json(&v),
        };
        assert_eq!(got, case["official_output"], "{}", case["case"]);
    }
}

#[test]
fn scorer_probes() {
    let probes = probes();
    for case in probes["scorer_probes"].as_array().unwrap() {
        let mut counts = OfficialCounts::default();
        let mut raised = None;
        for row in case["pred_rows"].as_array().unwrap() {
            let gold_text = row["gold_data"]["conversations"][1]["value"]
                .as_str()
                .unwrap();
            let gold = json_roundtrip(literal_eval(gold_text).unwrap()).unwrap();
            let predict = &row["predict"][0];
            let parsed =
                (predict != &json!(-1)).then(|| json_loads(&cps(&predict.to_string())).unwrap());
            if let Err(e) = count_record(
                &mut counts,
                row["id"].as_str().unwrap(),
                &gold,
                parsed.as_ref(),
            ) {
                raised = Some(e.exception);
                break;
            }
        }
        let what = case["case"].as_str().unwrap();
        if let Some(exception) = case.get("official_exception") {
            assert_eq!(raised.as_deref(), exception.as_str(), "{what}");
            continue;
        }
        assert_eq!(raised, None, "{what}");
        let got = serde_json::to_value(counts.score()).unwrap();
        assert_eq!(&got, &case["official_result"], "{what}");
    }
}

#[test]
fn official_exception_stops_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let gold = dir.path().join("gold.json");
    std::fs::write(
        &gold,
        r#"[{"id": "x-easy-0", "conversations": [{"from": "human", "value": ""}, {"from": "gpt", "value": "[{'api': 'f', 'parameters': {}, 'responses': []}]"}]}]"#,
    )
    .unwrap();
    let preds = dir.path().join("p.jsonl");
    std::fs::write(
        &preds,
        "{\"id\": \"x-easy-0\", \"output\": \"[{'api': 'f', 'parameters': {}, 'responses': []}, 'api']\"}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["ood", "score", "seal-tools", "--gold"])
        .arg(&gold)
        .arg("--predictions")
        .arg(&preds)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("string indices must be integers"), "{err}");
}
