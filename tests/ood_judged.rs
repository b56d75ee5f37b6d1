//! `itc ood score toolalpaca` and `itc ood score stabletoolbench` (`--compat
//! official`, SPEC §8) reproduce the published figures of the official result
//! files copied into datasets/ood/ (see datasets/ood/README.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value as J, json};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/ood")
        .join(rel)
}

fn itc(args: &[&str], files: &[(&str, PathBuf)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_itc"));
    cmd.args(["ood", "score"]).args(args);
    for (flag, path) in files {
        cmd.arg(flag).arg(path);
    }
    cmd.output().unwrap()
}

fn json_lines(out: &Output) -> Vec<J> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const TOOLALPACA_7B: &str = "toolalpaca/evaluations/ToolAlpaca7b.json";

#[test]
fn toolalpaca_7b_statistics_are_recounted_from_the_judge_texts() {
    let path = data(TOOLALPACA_7B);
    let out = itc(
        &["toolalpaca", "--compat", "official", "--format", "json"],
        &[("--evaluations", path.clone())],
    );
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    // The file's own statistics, and the figures SPEC §8's reference gives.
    let file: J = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(lines[0], file["statistics"]);
    assert_eq!(
        lines[0],
        json!({"num": 100, "error_num": 1,
               "process": {"Yes": 63, "No": 35, "Uncertain": 1},
               "response": {"Yes": 68, "No": 28, "Uncertain": 3}, "both": 60})
    );
    // Nothing differs from the stored statistics, nothing is unreadable.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn toolalpaca_table_prints_percent_of_all_tasks() {
    let out = itc(
        &["toolalpaca", "--compat", "official", "--wide"],
        &[("--evaluations", data(TOOLALPACA_7B))],
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "Procedure",
        "Response",
        "Overall",
        "63.00",
        "68.00",
        "60.00",
    ] {
        assert!(text.contains(want), "{want} missing from\n{text}");
    }
}

#[test]
fn toolalpaca_labels_are_not_read_from_the_stored_fields() {
    // The stored fields say Yes everywhere; the texts say otherwise.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eval.json");
    let entries = json!({
        "Api": [
            {"id": 0, "input": "q", "output": "## Results\nProcess Correctness: No\nFinal Response Correctness: Yes",
             "process_correctness": "Yes", "final_response_correctness": "Yes"},
            {"id": 1, "input": "q", "output": "Process Correctness: yes\nFinal Response Correctness: Uncertain",
             "process_correctness": "Yes", "final_response_correctness": "Yes"},
            {"id": 2, "input": "", "output": "", "process_correctness": "Yes",
             "final_response_correctness": "Yes"}
        ]
    });
    std::fs::write(&path, entries.to_string()).unwrap();
    let out = itc(
        &["toolalpaca", "--format", "json"],
        &[("--evaluations", path)],
    );
    let lines = json_lines(&out);
    assert_eq!(
        lines[0],
        json!({"num": 3, "error_num": 1,
               "process": {"Yes": 0, "No": 1, "Uncertain": 0},
               "response": {"Yes": 1, "No": 0, "Uncertain": 1}, "both": 0})
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unreadable") && err.contains("process 1"),
        "{err}"
    );
}

#[test]
fn toolalpaca_reads_labels_as_the_official_regex_does() {
    // `re.search("Process Correctness: (\w+)", …)` skips a first occurrence
    // that is bold, followed by two spaces or by a line end.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eval.json");
    let texts = [
        "## Results\n**Process Correctness:** Yes\nProcess Correctness: No\nFinal Response Correctness: Yes",
        "## Results\nProcess Correctness:  Yes\nProcess Correctness: No\nFinal Response Correctness:\nYes\nFinal Response Correctness: No",
        "## Results\nProcess Correctness:\nYes (see below)\nProcess Correctness: Yes\nFinal Response Correctness: Yes",
    ];
    let entries: Vec<J> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": i, "input": "q", "output": t}))
        .collect();
    std::fs::write(&path, json!({ "Api": entries }).to_string()).unwrap();
    let out = itc(
        &["toolalpaca", "--compat", "official", "--format", "json"],
        &[("--evaluations", path)],
    );
    let lines = json_lines(&out);
    assert_eq!(
        lines[0],
        json!({"num": 3, "error_num": 0,
               "process": {"Yes": 1, "No": 2, "Uncertain": 0},
               "response": {"Yes": 2, "No": 1, "Uncertain": 0}, "both": 1})
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn toolalpaca_malformed_entry_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"Api": [{"id": 4, "input": "q", "output": ["x"]}]}"#,
    )
    .unwrap();
    let out = itc(&["toolalpaca"], &[("--evaluations", path)]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.json") && err.contains("entry 1") && err.contains("`output`"),
        "{err}"
    );
}

fn pass_rate_file(model: &str, ext: &str) -> PathBuf {
    data(&format!(
        "stabletoolbench/data_example/pass_rate_results/{model}/G1_instruction_{model}.{ext}"
    ))
}

fn preference_file(ext: &str) -> PathBuf {
    data(&format!(
        "stabletoolbench/data_example/preference_results/G1_instruction_virtual_chatgpt_cot_virtual_chatgpt_dfs.{ext}"
    ))
}

#[test]
fn stabletoolbench_sopr_and_sowr_from_json_and_csv() {
    // The example files hold 3 judge runs (the official script was run with
    // --evaluate_times 3).
    for ext in ["json", "csv"] {
        let out = itc(
            &[
                "stabletoolbench",
                "--compat",
                "official",
                "--evaluate-times",
                "3",
                "--format",
                "json",
            ],
            &[
                (
                    "--pass-rate-results",
                    pass_rate_file("virtual_chatgpt_cot", ext),
                ),
                (
                    "--pass-rate-results",
                    pass_rate_file("virtual_chatgpt_dfs", ext),
                ),
                ("--preference-results", preference_file(ext)),
            ],
        );
        let lines = json_lines(&out);
        assert_eq!(lines.len(), 3, "{ext}");
        let pick = |l: &J, keys: &[&str]| -> J {
            keys.iter()
                .map(|k| (k.to_string(), l[*k].clone()))
                .collect()
        };
        let pr = ["sopr", "sopr_std", "runs", "queries"];
        assert_eq!(
            pick(&lines[0], &pr),
            json!({"sopr": 66.7, "sopr_std": 0.0, "runs": 3, "queries": 3}),
            "{ext}"
        );
        assert_eq!(
            pick(&lines[1], &pr),
            json!({"sopr": 100.0, "sopr_std": 0.0, "runs": 3, "queries": 3}),
            "{ext}"
        );
        assert_eq!(
            pick(&lines[2], &["sowr", "wins", "ties", "queries"]),
            json!({"sowr": 100.0, "wins": 3, "ties": 0, "queries": 3}),
            "{ext}"
        );
    }
}

#[test]
fn stabletoolbench_table_prints_one_decimal() {
    let out = itc(
        &[
            "stabletoolbench",
            "--compat",
            "official",
            "--evaluate-times",
            "3",
            "--wide",
        ],
        &[
            (
                "--pass-rate-results",
                pass_rate_file("virtual_chatgpt_cot", "csv"),
            ),
            ("--preference-results", preference_file("json")),
        ],
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("66.7 ± 0.0") && text.contains("100.0"),
        "{text}"
    );
}

#[test]
fn stabletoolbench_sopr_is_over_the_official_default_of_4_runs() {
    // As `eval_pass_rate.py` without --evaluate_times: run 3, in no query,
    // scores 0. Python: scores [2/3, 2/3, 2/3, 0] → "Solve rate: 50.0% Std: 28.9%".
    let out = itc(
        &["stabletoolbench", "--format", "json"],
        &[(
            "--pass-rate-results",
            pass_rate_file("virtual_chatgpt_cot", "json"),
        )],
    );
    let lines = json_lines(&out);
    assert_eq!(
        (&lines[0]["sopr"], &lines[0]["sopr_std"], &lines[0]["runs"]),
        (&json!(50.0), &json!(28.9), &json!(4))
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("judge runs [0, 1, 2]") && err.contains("--evaluate-times 4"),
        "{err}"
    );
    let out = itc(
        &["stabletoolbench", "--evaluate-times", "0"],
        &[(
            "--pass-rate-results",
            pass_rate_file("virtual_chatgpt_cot", "json"),
        )],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--evaluate-times must be from 1"));
}

#[test]
fn stabletoolbench_prints_sopr_as_python_does() {
    // 16 queries, 2 runs: run 0 has 5 Solved (31.25 %), run 1 likewise.
    // Python: f"{31.25:.1f}" == "31.2"; rounding half away from zero gave 31.3.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("G1_x_m.json");
    let entries: serde_json::Map<String, J> = (0..16)
        .map(|i| {
            let status = if i < 5 {
                "AnswerStatus.Solved"
            } else {
                "AnswerStatus.Unsolved"
            };
            (
                i.to_string(),
                json!({"is_solved": {"0": status, "1": status}}),
            )
        })
        .collect();
    std::fs::write(&path, J::Object(entries).to_string()).unwrap();
    let out = itc(
        &["stabletoolbench", "--evaluate-times", "2", "--wide"],
        &[("--pass-rate-results", path)],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("31.2 ± 0.0"), "{text}");
}

#[test]
fn stabletoolbench_reference_flag_flips_the_preference() {
    // With the DFS run as the reference, CoT loses every query.
    let out = itc(
        &[
            "stabletoolbench",
            "--format",
            "json",
            "--reference",
            "virtual_chatgpt_dfs",
        ],
        &[("--preference-results", preference_file("json"))],
    );
    let lines = json_lines(&out);
    assert_eq!(
        (lines[0]["sowr"].clone(), lines[0]["wins"].clone()),
        (json!(0.0), json!(0))
    );
}

#[test]
fn stabletoolbench_malformed_file_names_file_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("G1_x_a.json");
    std::fs::write(
        &path,
        r#"{"12": {"is_solved": {"0": "AnswerStatus.Solved"}}, "13": {"is_solved": ["Solved"]}}"#,
    )
    .unwrap();
    let out = itc(&["stabletoolbench"], &[("--pass-rate-results", path)]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("G1_x_a.json: query 13") && err.contains("is_solved"),
        "{err}"
    );
}

#[test]
fn stabletoolbench_hostile_csv_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.csv");
    let deep = "{0:".repeat(100_000);
    std::fs::write(&path, format!("query_id\tis_solved\n7\t{deep}\n")).unwrap();
    let out = itc(&["stabletoolbench"], &[("--pass-rate-results", path)]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("deep.csv: line 2 (query 7)"), "{err}");
}
