//! Solvers and final answers (SPEC §8): how a step-by-step run was searched,
//! which of its steps are the answer, and what its final answer is.
//!
//! A prediction made by a solver keeps every step it asked (`steps`, each
//! with its `parent` in a tree) and a [`SolverRecord`] naming the chosen
//! path: the steps §3 and §6 score and the judges read. A plain §6 run has
//! no record; all its steps are the path.

use crate::spec::records::{Call, Prediction, Step, Task, Value};
pub use crate::spec::records::{Ending, SolverKind, SolverRecord};
use crate::spec::response::read_prediction;

/// The extra tool of the finish protocol, added to every task's tools.
pub const FINISH_TOOL: &str = "Finish";

/// `return_type` of a `Finish` call that answers.
pub const GIVE_ANSWER: &str = "give_answer";

/// `return_type` of a `Finish` call that gives up.
pub const GIVE_UP: &str = "give_up_and_restart";

/// Depth a solver's path may reach when `--max-depth` is not given (SPEC
/// §8: each thought, call and output counts one).
pub const DEFAULT_MAX_DEPTH: u32 = 12;

/// Model requests one task may take when `--max-requests` is not given.
pub const DEFAULT_MAX_REQUESTS: u32 = 200;

/// Most children DFSDT tries below one node (SPEC §8).
pub const DFSDT_CHILDREN: usize = 2;

/// The final answer of a step-by-step run (SPEC §8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalAnswer {
    /// The answer's text, empty when the run ended without one.
    pub text: String,
    /// How the run ended.
    pub ending: Ending,
}

/// The steps of `prediction` that are its answer: the solver's chosen path,
/// or all steps of a plain run. Indexes outside `steps` are skipped.
pub fn path_steps(prediction: &Prediction) -> Vec<&Step> {
    let steps = prediction.steps.as_deref().unwrap_or_default();
    match &prediction.solver {
        Some(record) => record.path.iter().filter_map(|&i| steps.get(i)).collect(),
        None => steps.iter().collect(),
    }
}

/// The `Finish` call of a step's calls, if any.
pub fn finish_call(calls: &[Call]) -> Option<&Call> {
    calls.iter().find(|c| c.name == FINISH_TOOL)
}

/// What a `Finish` call says: its `return_type` and `final_answer`.
pub fn finish_fields(call: &Call) -> (Option<&str>, Option<&str>) {
    let field = |name: &str| {
        call.arguments
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_text())
    };
    (field("return_type"), field("final_answer"))
}

/// Whether a `Finish` call gives up (any `return_type` but `give_answer`
/// that names giving up; a missing one answers).
pub fn gives_up(call: &Call) -> bool {
    finish_fields(call).0 == Some(GIVE_UP)
}

/// The final answer of `prediction` to `task` (SPEC §8): a solver's recorded
/// ending; for a plain run, the text of a last step that makes no call.
pub fn final_answer(prediction: &Prediction, task: &Task) -> FinalAnswer {
    let path = path_steps(prediction);
    let Some(last) = path.last() else {
        let ending = match (&prediction.error, &prediction.solver) {
            (_, Some(record)) => record.ending,
            (Some(_), None) => Ending::Error,
            (None, None) => Ending::DepthLimit,
        };
        return FinalAnswer {
            text: String::new(),
            ending,
        };
    };
    let mut candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    candidates.push(FINISH_TOOL);
    let calls = read_prediction(last.output.as_deref(), last.calls.as_deref(), &candidates).calls;
    let ending = match &prediction.solver {
        Some(record) => record.ending,
        None if prediction.error.is_some() => Ending::Error,
        None if calls.is_empty() => Ending::Answer,
        None => Ending::DepthLimit,
    };
    let text = match ending {
        Ending::Finish => finish_call(&calls)
            .and_then(|c| finish_fields(c).1)
            .unwrap_or_default()
            .trim()
            .to_string(),
        Ending::Answer => last
            .output
            .as_deref()
            .unwrap_or_default()
            .trim()
            .to_string(),
        _ => String::new(),
    };
    FinalAnswer { text, ending }
}

/// A `Finish` call, as the finish protocol's tool describes it.
pub fn finish(return_type: &str, final_answer: &str) -> Call {
    Call::new(
        FINISH_TOOL,
        vec![
            ("return_type".into(), Value::Str(return_type.into())),
            ("final_answer".into(), Value::Str(final_answer.into())),
        ],
    )
}
