//! One task asked step by step (SPEC §6): each step is one request through
//! the runner's `exchange` (cache, retries, rate limits), its calls read
//! as the scorer reads them, their outputs fetched from the run's
//! [`StepRun`] and appended to the conversation for the next step.
//!
//! The task ends on an answer with no calls, at the gold's steps plus one,
//! or at the step limit. Every step is kept in the prediction (`steps`); a
//! step that fails after its retries ends the task with an error prediction
//! holding the steps before it (`--resume` asks the task again from its
//! first step, which the response cache answers without requests).

use std::time::Instant;

use super::{StepRun, TaskBudget};
use crate::models::backend::{Answer, BackendApi, Served, ShownStep};
use crate::models::batch::RequestLabel;
use crate::models::exchange::{ModelContext, exchange};
use crate::models::http::Failure;
use crate::run::outcome::{Outcome, answer_prediction, error_prediction, stop_for_unreachable};
use crate::run::stats::TaskTiming;
use crate::spec::records::{Prediction, Step, Task, Usage};
use crate::spec::response::read_prediction;

/// Asks `task` step by step.
pub(in crate::run) async fn answer_in_steps(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    // Each step's outputs are kept once, in `shown` (what the next request
    // shows); the steps of the prediction take them when the task ends.
    let mut shown: Vec<ShownStep> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut timing = TaskTiming::default();
    let mut totals = Totals::default();
    let mut budget = TaskBudget::default();
    let mut all_cached = true;
    let mut served = Served::default();
    for step in 0..run.step_limit(task) {
        let mut request = api.build(task);
        api.append_steps(&mut request.body, &shown);
        let label = RequestLabel {
            task_id: &task.id,
            step,
        };
        let exchange = exchange(context, api, &request, Some(label)).await;
        drop(request);
        timing.server += exchange.server;
        timing.throttle += exchange.throttle;
        timing.requests += exchange.requests;
        timing.retries += exchange.requests.saturating_sub(1);
        all_cached &= exchange.cache_hit;
        let (mut answer, latency_ms) = match exchange.result {
            Ok(done) => done,
            Err(failure) => {
                let steps = with_outputs(steps, shown);
                return failed(context, task, &failure, steps, timing);
            }
        };
        totals.add(&answer, latency_ms);
        served = std::mem::take(&mut answer.served);
        let calls = read_prediction(
            answer.output.as_deref(),
            answer.calls.as_deref(),
            &candidates,
        )
        .calls;
        if calls.is_empty() {
            steps.push(Step {
                output: answer.output,
                calls: answer.calls,
                tool_outputs: Vec::new(),
                tool_status: Vec::new(),
                parent: None,
            });
            break;
        }
        let mut outputs = run.outputs(task, step, &calls, &mut budget).await;
        let failure = outputs.iter_mut().find_map(|o| o.failure.take());
        steps.push(Step {
            output: answer.output.clone(),
            calls: answer.calls,
            tool_outputs: Vec::new(),
            tool_status: outputs.iter().filter_map(|o| o.status).collect(),
            parent: None,
        });
        shown.push(ShownStep {
            output: answer.output,
            native: answer.native.filter(|_| steps[step].calls.is_some()),
            calls,
            outputs: outputs.into_iter().map(|o| o.value).collect(),
        });
        if let Some(failure) = failure {
            let steps = with_outputs(steps, shown);
            // A tool that fails ends its task; only the model's own server stops the run.
            let failure = Failure {
                unreachable: false,
                ..failure
            };
            return failed(context, task, &failure, steps, timing);
        }
    }
    let steps = with_outputs(steps, shown);
    Outcome {
        prediction: totals.prediction(context, task, steps, timing.requests),
        cache_hit: all_cached,
        timing: Some(timing),
        stop: None,
        served,
    }
}

/// The steps with the outputs they were shown (moved, not copied).
fn with_outputs(mut steps: Vec<Step>, shown: Vec<ShownStep>) -> Vec<Step> {
    for (step, shown) in steps.iter_mut().zip(shown) {
        step.tool_outputs = shown.outputs;
    }
    steps
}

/// The error prediction of a task whose step failed after its retries,
/// holding the steps before it.
fn failed(
    context: &ModelContext,
    task: &Task,
    failure: &Failure,
    steps: Vec<Step>,
    timing: TaskTiming,
) -> Outcome {
    let mut prediction = error_prediction(
        &context.config,
        task,
        failure,
        timing.requests,
        context.key.as_ref(),
    );
    prediction.steps = Some(steps);
    Outcome {
        prediction,
        cache_hit: false,
        timing: Some(timing),
        stop: stop_for_unreachable(&context.config, failure, context.key.as_ref()),
        served: Served::default(),
    }
}

/// The offline baseline step by step: it answers everything in one step,
/// whose calls get their outputs; nothing follows.
pub(in crate::run) async fn baseline_in_steps(
    context: &ModelContext,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    let started = Instant::now();
    let output = crate::models::providers::baseline::respond(task);
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let calls = read_prediction(Some(&output), None, &candidates).calls;
    let mut outputs = run
        .outputs(task, 0, &calls, &mut TaskBudget::default())
        .await;
    let failure = outputs.iter_mut().find_map(|o| o.failure.take());
    let step = Step {
        output: Some(output),
        calls: None,
        tool_status: outputs.iter().filter_map(|o| o.status).collect(),
        tool_outputs: outputs.into_iter().map(|o| o.value).collect(),
        parent: None,
    };
    if let Some(failure) = failure {
        return failed(context, task, &failure, vec![step], TaskTiming::default());
    }
    let mut prediction = answer_prediction(
        &context.config,
        task,
        Answer::default(),
        started.elapsed().as_millis() as u64,
        0,
    );
    prediction.output = None;
    prediction.steps = Some(vec![step]);
    Outcome {
        prediction,
        cache_hit: false,
        timing: Some(TaskTiming::default()),
        stop: None,
        served: Served::default(),
    }
}

/// What the steps add up to: latency, token counts, reasoning.
#[derive(Default)]
struct Totals {
    latency_ms: u64,
    usage: Option<Usage>,
    reasoning: Vec<String>,
}

impl Totals {
    fn add(&mut self, answer: &Answer, latency_ms: u64) {
        self.latency_ms += latency_ms;
        if let Some(u) = answer.usage {
            let sum = self.usage.get_or_insert_with(Usage::default);
            sum.prompt_tokens += u.prompt_tokens;
            sum.completion_tokens += u.completion_tokens;
        }
        self.reasoning.extend(answer.reasoning.clone());
    }

    /// The task's prediction: its steps, no top-level answer.
    fn prediction(
        self,
        context: &ModelContext,
        task: &Task,
        steps: Vec<Step>,
        requests: u32,
    ) -> Prediction {
        let answer = Answer {
            usage: self.usage,
            reasoning: (!self.reasoning.is_empty()).then(|| self.reasoning.join("\n\n")),
            ..Answer::default()
        };
        let mut prediction =
            answer_prediction(&context.config, task, answer, self.latency_ms, requests);
        prediction.steps = Some(steps);
        prediction
    }
}
