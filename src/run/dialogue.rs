//! Tasks a benchmark asks itself: the requests, how many and what goes
//! back to the model between them, are the benchmark's (BFCL's official
//! requests and its multi-turn loop, `crate::benchmarks::bfcl`); the runner only
//! sends them, with its retries, cache, rate limits and slots.
//!
//! A [`Dialogue`] does no I/O: given the body of the last response it
//! returns the next request or the end of the task, so each benchmark's
//! conversation is tested on exact bodies without a server. A dialogue may
//! also ask a second model, its peer (τ-bench's simulated user): the
//! [`Asker`] names it, and its requests go through that model's own limits,
//! retries and cache.

use std::sync::Arc;

use serde_json::Value;

use super::outcome::{Outcome, error_prediction, stop_for_unreachable};
use super::stats::TaskTiming;
use crate::models::backend::{ApiRequest, BackendApi, Served};
use crate::models::batch::RequestLabel;
use crate::models::chat::ChatModel;
use crate::models::config::ModelConfig;
use crate::models::exchange::{ModelContext, exchange};
use crate::models::http::{ErrorKind, Failure};
use crate::spec::records::{Call, Prediction, Task, Usage};

/// A benchmark that asks (some of) its tasks itself.
pub trait Asker: Send + Sync + std::fmt::Debug {
    /// The dialogue that asks `task` of the model `config`, or `None` to
    /// ask it the usual way; an error ends the task with that message.
    fn dialogue(
        &self,
        task: &Task,
        config: &ModelConfig,
    ) -> anyhow::Result<Option<Box<dyn Dialogue>>>;

    /// The second model its dialogues talk to ([`Next::SendToPeer`]), if any.
    fn peer(&self) -> Option<&ChatModel> {
        None
    }
}

/// A shared [`Asker`], as runs hold it.
pub type SharedAsker = Arc<dyn Asker>;

/// One task's conversation with the model, driven by the runner.
pub trait Dialogue: Send {
    /// The next request: the first when `reply` is `None`, else the one
    /// after the response `reply` (its body as the server sent it). `Err`
    /// ends the task: the reply could not be read.
    fn next(&mut self, reply: Option<&Value>) -> Result<Next, String>;
}

/// What a [`Dialogue`] does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Send this request to the model under test and hand its response back.
    Send(ApiRequest),
    /// Send this request to the peer ([`Asker::peer`]) and hand its
    /// response back.
    SendToPeer(ApiRequest),
    /// The task is answered.
    Done(DialogueEnd),
}

/// The answer a dialogue ends with, as the prediction records it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DialogueEnd {
    /// The answer text, when there is one.
    pub output: Option<String>,
    /// The calls in SPEC form (for itc's own scores).
    pub calls: Option<Vec<Call>>,
    /// The answer as the benchmark's result file holds it.
    pub official: Option<Value>,
    /// Token counts summed over the dialogue's responses.
    pub usage: Option<Usage>,
    /// Reasoning given apart from the answers.
    pub reasoning: Option<String>,
}

/// Asks one task through its dialogue: each request through the runner's
/// cache, retries and limits; a request that fails after its retries, or
/// a reply the dialogue cannot read, ends the task with that error.
pub async fn answer_in_dialogue(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    mut dialogue: Box<dyn Dialogue>,
    peer: Option<&ChatModel>,
) -> Outcome {
    let mut timing = TaskTiming::default();
    let (mut latency_ms, mut all_cached, mut served) = (0, true, Served::default());
    let mut reply: Option<Value> = None;
    for step in 0.. {
        let request = match dialogue.next(reply.as_ref()) {
            Ok(Next::Send(request)) => request,
            Ok(Next::SendToPeer(request)) => {
                let Some(peer) = peer else {
                    let failure =
                        Failure::new(ErrorKind::Internal, "the dialogue has no peer model");
                    return failed(context, task, &failure, timing, served);
                };
                let label = RequestLabel {
                    task_id: &task.id,
                    step,
                    sample: 0,
                };
                let exchange = peer.send(&request, Some(label)).await;
                all_cached &= exchange.cache_hit;
                match exchange.result {
                    Ok((answer, _)) => reply = answer.raw,
                    Err(failure) => {
                        let failure = Failure::new(
                            failure.kind,
                            format!(
                                "the peer model `{}`: {}",
                                peer.name(),
                                peer.redact(&failure.message)
                            ),
                        );
                        return failed(context, task, &failure, timing, served);
                    }
                }
                continue;
            }
            Ok(Next::Done(end)) => {
                let prediction = end_prediction(context, task, end, latency_ms, timing.requests);
                return dialogue_outcome(prediction, all_cached && step > 0, timing, None, served);
            }
            Err(message) => {
                let failure = Failure::new(ErrorKind::InvalidResponse, message);
                return failed(context, task, &failure, timing, served);
            }
        };
        let label = RequestLabel {
            task_id: &task.id,
            step,
            sample: 0,
        };
        let exchange = exchange(context, api, &request, Some(label)).await;
        timing.requests += exchange.requests;
        timing.retries += exchange.requests.saturating_sub(1);
        timing.server += exchange.server;
        timing.throttle += exchange.throttle;
        all_cached &= exchange.cache_hit;
        match exchange.result {
            Ok((answer, ms)) => {
                latency_ms += ms;
                served = answer.served;
                reply = answer.raw;
            }
            Err(failure) => return failed(context, task, &failure, timing, served),
        }
    }
    unreachable!("the loop returns")
}

/// The task ends with `failure` (the run stops when it says the server
/// was never reached).
fn failed(
    context: &ModelContext,
    task: &Task,
    failure: &Failure,
    timing: TaskTiming,
    served: Served,
) -> Outcome {
    let key = context.key.as_ref();
    let prediction = error_prediction(&context.config, task, failure, timing.requests, key);
    let stop = stop_for_unreachable(&context.config, failure, key);
    dialogue_outcome(prediction, false, timing, stop, served)
}

fn end_prediction(
    context: &ModelContext,
    task: &Task,
    end: DialogueEnd,
    latency_ms: u64,
    attempts: u32,
) -> Prediction {
    Prediction {
        task_id: task.id.clone(),
        model: context.config.name.clone(),
        output: end.output,
        calls: end.calls,
        error: None,
        reasoning: end.reasoning,
        latency_ms: Some(latency_ms),
        usage: end.usage,
        steps: None,
        solver: None,
        error_kind: None,
        attempts: Some(attempts),
        official: end.official,
    }
}

fn dialogue_outcome(
    prediction: Prediction,
    cache_hit: bool,
    timing: TaskTiming,
    stop: Option<String>,
    served: Served,
) -> Outcome {
    Outcome {
        prediction,
        cache_hit,
        timing: Some(timing),
        stop,
        served,
    }
}
