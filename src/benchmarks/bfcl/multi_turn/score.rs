//! A multi-turn result file scored as the official `multi_turn_runner`
//! scores it: lines paired with questions as for every category (sorted by
//! id, `allow_missing=False`), each entry's raw turns decoded
//! ([`super::decode`]) and checked ([`super::checker`]) in id order, the
//! module-level objects of the API classes shared by the entries of the
//! file as they are by the entries of one official scoring process.

use serde_json::Value;

use super::apis::Globals;
use super::checker::check_entry;
use super::decode::{decode_turns, step_format_for};
use super::files::{MultiTurnQuestion, ground_truth_turns};
use crate::benchmarks::bfcl::Category;
use crate::benchmarks::bfcl::files::PossibleAnswer;
use crate::benchmarks::bfcl::official::{
    ItemVerdict, ModelResult, OfficialScore, ResultLine, pair_results,
};
use crate::benchmarks::bfcl::result_decoder::ResultDecoder;
use crate::benchmarks::bfcl::verdict::ErrorType;
use crate::benchmarks::python::{PyStr, PyValue};

/// The official message of a result that is not a list of turns.
const NOT_A_LIST: &str =
    "Error during inference phase. Model did not output a list of model responses.";

/// Scores a multi-turn result file's lines. `model_name` names the API
/// instances as the official runner names them (the name shows in some
/// results and messages, never in a verdict).
pub fn score_multi_turn(
    category: Category,
    questions: &[MultiTurnQuestion],
    possible: &[PossibleAnswer],
    results: &[ResultLine],
    model_name: &str,
    decoder: ResultDecoder,
) -> anyhow::Result<OfficialScore> {
    let ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    let order = pair_results(category, &ids, possible.len(), results)?;
    let run = EntryRun {
        long_context: category.as_str().contains("long_context"),
        model_name,
        globals: Globals::default(),
        decoder,
    };
    let mut items: Vec<Option<ItemVerdict>> = vec![None; results.len()];
    for (k, &line_index) in order.iter().enumerate() {
        let question = &questions[k];
        let ground_truth = ground_truth_turns(&possible[k])?;
        let line = &results[line_index];
        items[line_index] = Some(score_entry(
            &line.id,
            &line.result,
            question,
            &ground_truth,
            &run,
        ));
    }
    let items: Vec<ItemVerdict> = items
        .into_iter()
        .map(|item| item.expect("every line is paired"))
        .collect();
    let correct = items.iter().filter(|i| i.valid).count();
    Ok(OfficialScore {
        category,
        accuracy: correct as f64 / results.len() as f64,
        correct_count: correct,
        total_count: results.len(),
        items,
    })
}

/// What the entries of one scored file share.
struct EntryRun<'a> {
    /// A long-context category (its entries' setup differs).
    long_context: bool,
    /// Names the API instances.
    model_name: &'a str,
    /// The module-level objects of one official scoring process.
    globals: Globals,
    /// How the model's texts are read.
    decoder: ResultDecoder,
}

fn score_entry(
    id: &str,
    result: &ModelResult,
    question: &MultiTurnQuestion,
    ground_truth: &[Vec<String>],
    run: &EntryRun,
) -> ItemVerdict {
    let raw = match result {
        ModelResult::Text(text) => PyValue::Str(PyStr::new(text)),
        ModelResult::NotText(value) => value.clone(),
    };
    let Ok(turns) = decode_turns(&raw, step_format_for(&raw, run.decoder)) else {
        return ItemVerdict {
            id: id.to_string(),
            valid: false,
            error_type: Some(ErrorType::MultiTurnInferenceError),
            errors: vec![Value::String(NOT_A_LIST.into())],
        };
    };
    let setup = question.setup(run.long_context);
    let verdict = check_entry(&turns, ground_truth, &setup, run.model_name, &run.globals);
    match verdict.failure {
        None => ItemVerdict {
            id: id.to_string(),
            valid: true,
            error_type: None,
            errors: vec![],
        },
        Some(failure) => ItemVerdict {
            id: id.to_string(),
            valid: false,
            error_type: Some(failure.error_type),
            errors: vec![Value::String(failure.message)],
        },
    }
}
