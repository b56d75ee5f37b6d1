//! Batch rounds of a run whose tasks take several requests (step by step,
//! or a conversation): emit, answer every request as a scripted server
//! would, import with `--resume`, until an emit finds nothing to send.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use super::text;

/// The most rounds a test runs before it gives up.
const MAX_ROUNDS: usize = 100;

/// The requests of one round, per model (the batch file's stem).
#[derive(Debug, Default)]
pub struct Round {
    /// `(model, custom_id)` of each request written.
    pub requests: Vec<(String, String)>,
}

impl Round {
    /// How many requests went to `model`.
    pub fn to(&self, model: &str) -> usize {
        self.requests.iter().filter(|(m, _)| m == model).count()
    }
}

/// Runs rounds: `emit(batch_dir)` writes a batch; each OpenAI-format line
/// is answered by `answer(model, body)` into a results file;
/// `import(results_files, first_round)` reads them back into the run
/// directory `run`. Stops when an emit has nothing to send; returns the
/// rounds that sent something. An import exits 3 while tasks wait for the
/// next batch (each of its errors a `batch` one), and the last one 0.
pub fn run_rounds(
    dir: &Path,
    run: &Path,
    emit: impl Fn(&Path) -> Output,
    import: impl Fn(&[PathBuf], bool) -> Output,
    answer: impl Fn(&str, &Value) -> Value,
) -> Vec<Round> {
    let mut rounds = Vec::new();
    let mut last_exit = None;
    for number in 1..=MAX_ROUNDS {
        let batch = dir.join(format!("batch-{number}"));
        let out = emit(&batch);
        assert!(out.status.success(), "{}", text(&out.stderr));
        if text(&out.stderr).contains("nothing to send") {
            assert_eq!(last_exit, Some(0), "the last import finishes every task");
            return rounds;
        }
        let mut round = Round::default();
        let mut results = Vec::new();
        for file in batch_files(&batch) {
            let name = file.file_name().unwrap().to_str().unwrap();
            let model = name.strip_suffix(".openai.jsonl").unwrap().to_string();
            let answered: String = std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .map(|line| {
                    let line: Value = serde_json::from_str(line).unwrap();
                    let id = line["custom_id"].as_str().unwrap().to_string();
                    round.requests.push((model.clone(), id.clone()));
                    let body = answer(&model, &line["body"]);
                    json!({"id": "b", "custom_id": id, "error": null,
                           "response": {"status_code": 200, "body": body}})
                    .to_string()
                        + "\n"
                })
                .collect();
            let out = dir.join(format!("results-{number}-{model}.jsonl"));
            std::fs::write(&out, answered).unwrap();
            results.push(out);
        }
        let out = import(&results, number == 1);
        last_exit = out.status.code();
        assert!(
            matches!(last_exit, Some(0 | 3)),
            "round {number}: {}",
            text(&out.stderr)
        );
        for line in std::fs::read_to_string(run.join("predictions.jsonl"))
            .unwrap()
            .lines()
        {
            let prediction: Value = serde_json::from_str(line).unwrap();
            let kind = &prediction["error_kind"];
            assert!(
                kind.is_null() || kind == "batch",
                "round {number}: {prediction}"
            );
        }
        rounds.push(round);
    }
    panic!("more than {MAX_ROUNDS} batch rounds");
}

/// The OpenAI-format batch files of a batch folder, by name.
fn batch_files(batch: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(batch)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".openai.jsonl"))
        .collect();
    files.sort();
    files
}
