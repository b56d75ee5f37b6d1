//! Answers to converted BFCL tasks scored by the official rules: each
//! task carries its question and possible answer (`gold.official`, see
//! [`convert`](super::convert)), so a task file and the answers are all the
//! official checker needs.

use std::collections::BTreeMap;

use anyhow::Context;
use serde::Serialize;
use serde_json::Value;

use super::Category;
use super::check::ErrorType;
use super::files::{PossibleAnswer, Question};
use super::multi_turn::score::score_multi_turn;
use super::multi_turn::tasks::{MultiTurnEntry, entry_of};
use super::official::{ModelResult, ResultLine, check_result};
use super::result_decoder::ResultDecoder;
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str};
use crate::spec::records::Task;

/// One category's official score, as BFCL's score file header gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryScore {
    /// The category.
    pub category: String,
    /// `correct_count / total_count` (0 when there is no item).
    pub accuracy: f64,
    /// Answers the checker accepts.
    pub correct_count: usize,
    /// Answers checked.
    pub total_count: usize,
}

/// One answer's official verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemVerdict {
    /// The BFCL id (the task id).
    pub id: String,
    /// The category.
    pub category: String,
    /// Whether the checker accepts it.
    pub valid: bool,
    /// Why not.
    pub error_type: Option<ErrorType>,
    /// The official messages.
    pub errors: Vec<serde_json::Value>,
}

/// The category, question and possible answer a converted task carries.
pub fn official_of(task: &Task) -> anyhow::Result<(Category, Question, Option<PossibleAnswer>)> {
    let official = task
        .gold
        .official
        .as_ref()
        .filter(|o| o["benchmark"] == "bfcl")
        .with_context(|| {
            format!(
                "task {}: no BFCL reference in gold.official (convert it with `itc ood convert bfcl`)",
                task.id
            )
        })?;
    let category: Category = official["category"]
        .as_str()
        .context("gold.official.category: missing")?
        .parse()?;
    let function = official["function"]
        .as_array()
        .cloned()
        .context("gold.official.function: missing or not a list")?;
    let id = official["id"].as_str().unwrap_or(&task.id).to_string();
    let question = Question {
        id: id.clone(),
        question: Vec::new(),
        function,
    };
    let possible = match official.get("ground_truth") {
        Some(truth) => {
            // Read back with Python's `json.loads` semantics (2.0 stays a float).
            let ground_truth = json_loads_str(&truth.to_string())
                .map_err(|e| anyhow::anyhow!("gold.official.ground_truth: {e}"))?;
            anyhow::ensure!(
                matches!(ground_truth, PyValue::List(_)),
                "gold.official.ground_truth: not a list"
            );
            Some(PossibleAnswer { id, ground_truth })
        }
        None => None,
    };
    Ok((category, question, possible))
}

/// Checks each task's result (as bfcl-eval's result file holds it: a
/// text, or what a function-calling model or the multi-turn loop
/// recorded), decoded by `decoder`; scores per category, in
/// [`Category::every`]'s order, and the verdicts in the order given (the
/// multi-turn ones after the others).
pub fn score_answers(
    answers: &[(&Task, Value)],
    decoder: ResultDecoder,
) -> anyhow::Result<(Vec<CategoryScore>, Vec<ItemVerdict>)> {
    let mut counts: BTreeMap<Category, (usize, usize)> = BTreeMap::new();
    let mut items = Vec::with_capacity(answers.len());
    let mut multi_turn: BTreeMap<Category, Vec<(MultiTurnEntry, ModelResult)>> = BTreeMap::new();
    for (task, answer) in answers {
        let result = model_result(answer);
        if let Some(entry) = entry_of(task)? {
            multi_turn
                .entry(entry.category)
                .or_default()
                .push((entry, result));
            continue;
        }
        let (category, question, possible) = official_of(task)?;
        let verdict = check_result(category, &question, possible.as_ref(), &result, decoder);
        let count = counts.entry(category).or_default();
        count.0 += usize::from(verdict.valid);
        count.1 += 1;
        items.push(ItemVerdict {
            id: question.id,
            category: category.as_str().into(),
            valid: verdict.valid,
            error_type: verdict.error_type,
            errors: verdict.errors,
        });
    }
    for (category, entries) in multi_turn {
        for verdict in score_multi_turn_answers(category, &entries, decoder)? {
            let count = counts.entry(category).or_default();
            count.0 += usize::from(verdict.valid);
            count.1 += 1;
            items.push(verdict);
        }
    }
    let scores = counts
        .into_iter()
        .map(|(c, (correct, total))| CategoryScore {
            category: c.as_str().into(),
            accuracy: if total == 0 {
                0.0
            } else {
                correct as f64 / total as f64
            },
            correct_count: correct,
            total_count: total,
        })
        .collect();
    Ok((scores, items))
}

/// A result as the official runner reads it from its file.
fn model_result(answer: &Value) -> ModelResult {
    match answer {
        Value::String(text) => ModelResult::Text(text.clone()),
        other => ModelResult::NotText(json_loads_str(&other.to_string()).unwrap_or(PyValue::None)),
    }
}

/// The official verdicts on multi-turn answers of one category, in the
/// order given; the entries' module-level objects shared as in one
/// official scoring process.
fn score_multi_turn_answers(
    category: Category,
    entries: &[(MultiTurnEntry, ModelResult)],
    decoder: ResultDecoder,
) -> anyhow::Result<Vec<ItemVerdict>> {
    let questions: Vec<_> = entries.iter().map(|(e, _)| e.question.clone()).collect();
    let possible: Vec<PossibleAnswer> = entries
        .iter()
        .map(|(e, _)| PossibleAnswer {
            id: e.question.id.clone(),
            ground_truth: PyValue::List(
                e.ground_truth
                    .iter()
                    .map(|turn| {
                        PyValue::List(turn.iter().map(|c| PyValue::Str(PyStr::new(c))).collect())
                    })
                    .collect(),
            ),
        })
        .collect();
    let results: Vec<ResultLine> = entries
        .iter()
        .map(|(e, result)| ResultLine {
            id: e.question.id.clone(),
            result: result.clone(),
        })
        .collect();
    // Inference instances are named after the model; the checker's names
    // never show in a verdict.
    let score = score_multi_turn(category, &questions, &possible, &results, "itc", decoder)?;
    Ok(score
        .items
        .into_iter()
        .map(|item| ItemVerdict {
            id: item.id,
            category: category.as_str().into(),
            valid: item.valid,
            error_type: item.error_type,
            errors: item.errors,
        })
        .collect())
}
