//! `itc score` on step-by-step predictions (SPEC §6): the real binary on
//! the sample set's first nested task, answered in steps by hand.

mod support;

use serde_json::{Value, json};
use support::{itc, text};

/// The sample's nested task that looks up a municipality's INE code and
/// then asks for the forecast for that code, as its own task file.
fn task_line() -> (String, Value) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/sample/tasks.jsonl"
    ))
    .unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"ine_codigo_municipio\"") && l.contains("\"nested\""))
        .unwrap();
    (line.to_string(), serde_json::from_str(line).unwrap())
}

fn step(action: &str, outputs: Vec<Value>) -> Value {
    let answer = json!({"Thought": "Busco el código INE y luego la predicción.", "Action": action});
    json!({"output": answer.to_string(), "tool_outputs": outputs})
}

#[test]
fn step_predictions_score_with_the_outputs_they_were_shown() {
    let (line, task) = task_line();
    let id = task["id"].as_str().unwrap();
    let shown = task["turns"][0]["tool_outputs"][0].clone();
    let code = shown["codigo_ine"].as_str().unwrap().to_string();
    let none = json!({"error": "no recorded output for this call"});
    let stepwise = json!({"task_id": id, "model": "stepwise", "steps": [
        step("[ine_codigo_municipio(nombre='Zaragoza')]", vec![shown.clone()]),
        step(&format!("[aemet_prediccion_municipio(municipio='{code}')]"), vec![none]),
        step("[]", vec![]),
    ]});
    let together = json!({"task_id": id, "model": "together", "steps": [
        step(
            "[ine_codigo_municipio(nombre='Zaragoza'), aemet_prediccion_municipio(municipio='$1.codigo_ine')]",
            vec![shown.clone(), json!({})],
        ),
    ]});
    // The same final call asked once, without the output: the code is no reference.
    let single = json!({"task_id": id, "model": "single",
        "output": json!({"Thought": "x", "Action": format!("[aemet_prediccion_municipio(municipio='{code}')]")}).to_string()});
    let dir = tempfile::tempdir().unwrap();
    let (tasks, predictions, out) = (
        dir.path().join("t.jsonl"),
        dir.path().join("p.jsonl"),
        dir.path().join("out"),
    );
    std::fs::write(&tasks, format!("{line}\n")).unwrap();
    std::fs::write(&predictions, format!("{stepwise}\n{together}\n{single}\n")).unwrap();
    let output = itc(
        &[
            "score",
            "--tasks",
            tasks.to_str().unwrap(),
            "--predictions",
            predictions.to_str().unwrap(),
            "--format",
            "json",
            "--bootstrap",
            "0",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let models: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by = |name: &str| models.iter().find(|m| m["model"] == name).unwrap().clone();
    let (s, t, one) = (by("stepwise"), by("together"), by("single"));
    assert_eq!(
        (
            s["invocation"]["f1"].as_f64(),
            s["step_f1"].as_f64(),
            s["step_tasks"].as_u64()
        ),
        (Some(100.0), Some(100.0), Some(1))
    );
    assert_eq!(t["invocation"]["f1"], 100.0);
    let step_f1 = t["step_f1"].as_f64().unwrap();
    assert!((step_f1 - 100.0 / 3.0).abs() < 1e-9, "{step_f1}");
    assert!(one.get("step_f1").is_none(), "{one}");
    assert!(one["invocation"]["f1"].as_f64().unwrap() < 100.0);
    // The per-task figures are written, and the CSV has the column.
    let scores = std::fs::read_to_string(out.join("task_scores.jsonl")).unwrap();
    let first: Value = serde_json::from_str(scores.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["steps"],
        json!({"steps": 2, "selection_f1": 1.0, "invocation_f1": 1.0, "step_f1": 1.0})
    );
    let csv = std::fs::read_to_string(out.join("by_kind.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",step_f1"), "{csv}");
    // The terminal tables show the step table.
    let tables = itc(
        &[
            "score",
            "--tasks",
            tasks.to_str().unwrap(),
            "--predictions",
            predictions.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        text(&tables.stdout).contains("Step by step (SPEC §6)"),
        "{}",
        text(&tables.stdout)
    );

    // itc report carries the step figures and shows each step's calls.
    let report = dir.path().join("report");
    let made = itc(
        &[
            "report",
            out.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    let markdown = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(markdown.contains("| stepwise | 1 | 100.00 |"), "{markdown}");
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    let shown = format!(
        "ine_codigo_municipio(nombre=&#39;Zaragoza&#39;)] → [aemet_prediccion_municipio(municipio=&#39;{code}&#39;)] → []"
    );
    assert!(html.contains(&shown), "the browser shows each step's calls");
    // The page has the step table too, and each step's raw answer.
    assert!(
        html.contains("<tr><td>stepwise</td><td class=\"n\">1</td><td class=\"n\">100.00</td>"),
        "the page's step table"
    );
    assert!(html.contains("<code>step 1: "), "each step's raw answer");
}
