//! The official multi-turn verdict of one entry: the runner's turn-count
//! check, then `multi_turn_checker` turn by turn: the model's steps and the
//! ground truth executed on separate instances, then (where the turn's
//! ground truth is not empty) the empty-turn check, the state check over
//! every involved class, and the response check (every ground-truth result
//! string of the turn found among the model's results of all turns so far,
//! each used once). The first failing turn decides.

use std::collections::HashMap;

use super::apis::Globals;
use super::exec::{EntrySetup, Instances};
use super::state::differences;
use crate::benchmarks::bfcl::verdict::ErrorType;

/// Why an entry failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The official error type.
    pub error_type: ErrorType,
    /// The official error message.
    pub message: String,
    /// For a state mismatch: the attributes that differ (of the first
    /// class that differs).
    pub mismatched_attributes: Vec<String>,
    /// For a response mismatch: the ground-truth results not found.
    pub missing_items: Vec<String>,
}

/// What one turn's execution gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnExecution {
    /// The model's result strings, step by step.
    pub model: Vec<Vec<String>>,
    /// The ground truth's result strings.
    pub ground_truth: Vec<String>,
}

/// The verdict on one entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `None` when valid.
    pub failure: Option<Failure>,
    /// The turns executed before the verdict (0 when the turn count
    /// failed).
    pub turns: Vec<TurnExecution>,
}

impl Verdict {
    /// Whether the entry passed.
    pub fn valid(&self) -> bool {
        self.failure.is_none()
    }
}

/// Checks one entry's decoded result (per turn, per step, call strings;
/// steps that decoded to nothing already dropped) against its ground truth
/// (per turn, call strings). `model_name` names the instances as the
/// official runner names them (it can appear in results).
pub fn check_entry(
    model_turns: &[Vec<Vec<String>>],
    ground_truth: &[Vec<String>],
    setup: &EntrySetup,
    model_name: &str,
    globals: &Globals,
) -> Verdict {
    if model_turns.len() != ground_truth.len() {
        return Verdict {
            failure: Some(failure(
                ErrorType::MultiTurnForceTerminated,
                format!(
                    "Model was force-terminated during inference phase. The length of the model \
                     result turns ({}) does not match the length of the ground truth turns ({}).",
                    model_turns.len(),
                    ground_truth.len()
                ),
            )),
            turns: vec![],
        };
    }
    let mut model = Instances::new(setup.clone(), model_name);
    let mut truth = Instances::new(setup.clone(), &format!("{model_name}_ground_truth"));
    let mut all_model_results: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    for (index, (steps, truth_calls)) in model_turns.iter().zip(ground_truth).enumerate() {
        let mut execution = TurnExecution::default();
        for step in steps {
            let results: Vec<String> = model
                .execute(step, globals)
                .into_iter()
                .map(|e| e.result.unwrap_or_default())
                .collect();
            all_model_results.extend(results.iter().cloned());
            execution.model.push(results);
        }
        execution.ground_truth = truth
            .execute(truth_calls, globals)
            .into_iter()
            .map(|e| e.result.unwrap_or_default())
            .collect();
        let truth_results = execution.ground_truth.clone();
        let stepped = !steps.is_empty();
        turns.push(execution);
        if truth_calls.is_empty() {
            continue;
        }
        let failure = if !stepped || (steps.len() == 1 && steps[0].is_empty()) {
            Some(failure(
                ErrorType::MultiTurnEmptyTurn,
                format!("Model response list is empty for turn {index}"),
            ))
        } else {
            state_failure(&model, &truth)
                .or_else(|| response_failure(&all_model_results, &truth_results, index))
        };
        if failure.is_some() {
            return Verdict { failure, turns };
        }
    }
    Verdict {
        failure: None,
        turns,
    }
}

fn failure(error_type: ErrorType, message: String) -> Failure {
    Failure {
        error_type,
        message,
        mismatched_attributes: vec![],
        missing_items: vec![],
    }
}

/// `state_checker`: the first class (in `involved_classes` order) whose
/// public state differs.
fn state_failure(model: &Instances, truth: &Instances) -> Option<Failure> {
    let model_states: HashMap<String, _> = model.states().into_iter().collect();
    for (class, truth_state) in truth.states() {
        let model_state = model_states.get(&class)?;
        let differing = differences(&truth_state, model_state);
        if !differing.is_empty() {
            return Some(Failure {
                mismatched_attributes: differing.iter().map(|s| s.to_string()).collect(),
                ..failure(
                    ErrorType::MultiTurnStateMismatch,
                    format!(
                        "Model instance for {class} does not match the state with ground truth instance."
                    ),
                )
            });
        }
    }
    None
}

/// `response_checker`: every ground-truth result of the turn must be found
/// among the model's results so far, each model result used at most once.
fn response_failure(model: &[String], truth: &[String], turn: usize) -> Option<Failure> {
    let mut available: HashMap<&str, usize> = HashMap::new();
    for result in model {
        *available.entry(result.as_str()).or_default() += 1;
    }
    let mut missing = Vec::new();
    for result in truth {
        match available.get_mut(result.as_str()) {
            Some(count) if *count > 0 => *count -= 1,
            _ => missing.push(result.clone()),
        }
    }
    (!missing.is_empty()).then(|| Failure {
        missing_items: missing,
        ..failure(
            ErrorType::MultiTurnResponseMismatch,
            format!(
                "Model response execution results so far does not contain all the ground truth \
                 response execution results for turn {turn}."
            ),
        )
    })
}
