//! What a task's worker ends with: its prediction (from an answer or a
//! failure), whether the cache answered, and where its time went.

use crate::models::backend::{Answer, Served};
use crate::models::config::{ApiKey, ModelConfig};
use crate::models::http::{ErrorKind, Failure};
use crate::run::stats::TaskTiming;
use crate::spec::records::{Prediction, Task};

/// A worker's result.
pub struct Outcome {
    /// The task's prediction.
    pub prediction: Prediction,
    /// Whether the response cache answered every request of the task.
    pub cache_hit: bool,
    /// Where the task's time went and its requests sent (retries
    /// included); none when its worker stopped without a result.
    pub timing: Option<TaskTiming>,
    /// Why the run must stop instead of keeping this prediction: the
    /// model's server was never reached ([`stop_for_unreachable`]).
    pub stop: Option<String>,
    /// The model that answered, as the (last) response named it.
    pub served: Served,
}

/// The message that stops a run when `failure` says the model's server
/// cannot serve it and has not answered in this session (connection
/// refused, a host name that does not resolve, HTTP 404/405/501): the run
/// goes no further, since every task would fail the same way and be scored
/// as if the model had answered badly.
pub fn stop_for_unreachable(
    config: &ModelConfig,
    failure: &Failure,
    key: Option<&ApiKey>,
) -> Option<String> {
    if !failure.unusable_server {
        return None;
    }
    let what = match failure.kind {
        ErrorKind::Client | ErrorKind::Server => "answers, but has no such endpoint",
        _ => "cannot be reached",
    };
    let message = format!(
        "model `{}`: its server at {} {what} ({}). Nothing was scored: start the server (or correct the base URL, the backend or the model id) and run again; predictions already written are kept, and --resume continues",
        config.name,
        config.effective_base_url(),
        failure.message
    );
    Some(key.map_or_else(|| message.clone(), |k| k.redact(&message)))
}

/// The prediction of an answer.
pub fn answer_prediction(
    config: &ModelConfig,
    task: &Task,
    answer: Answer,
    latency_ms: u64,
    attempts: u32,
) -> Prediction {
    Prediction {
        task_id: task.id.clone(),
        model: config.name.clone(),
        output: answer.output,
        calls: answer.calls,
        error: None,
        reasoning: answer.reasoning,
        latency_ms: Some(latency_ms),
        usage: answer.usage,
        steps: None,
        solver: None,
        error_kind: None,
        attempts: Some(attempts),
        official: None,
    }
}

/// The prediction of a failure (its message with any key masked).
pub fn error_prediction(
    config: &ModelConfig,
    task: &Task,
    failure: &Failure,
    attempts: u32,
    key: Option<&ApiKey>,
) -> Prediction {
    let plural = if attempts == 1 { "" } else { "s" };
    let message = format!(
        "{} after {attempts} request{plural}: {}",
        failure.kind, failure.message
    );
    Prediction {
        task_id: task.id.clone(),
        model: config.name.clone(),
        output: None,
        calls: None,
        error: Some(key.map_or_else(|| message.clone(), |k| k.redact(&message))),
        reasoning: None,
        latency_ms: None,
        usage: None,
        steps: None,
        solver: None,
        error_kind: Some(failure.kind.as_str().to_string()),
        attempts: Some(attempts),
        official: None,
    }
}
