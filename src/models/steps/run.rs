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

use super::StepRun;
use crate::models::backend::{Answer, BackendApi, ShownStep};
use crate::models::batch::RequestLabel;
use crate::models::exchange::{
    ModelContext, Outcome, answer_prediction, error_prediction, exchange,
};
use crate::models::stats::TaskTiming;
use crate::spec::records::{Prediction, Step, Task, Usage};
use crate::spec::response::read_prediction;

/// Asks `task` step by step.
pub(in crate::models) async fn answer_in_steps(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let mut shown: Vec<ShownStep> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut timing = TaskTiming::default();
    let mut totals = Totals::default();
    let mut all_cached = true;
    for step in 0..run.step_limit(task) {
        let mut request = api.build(task);
        api.append_steps(&mut request.body, &shown);
        let label = RequestLabel {
            task_id: &task.id,
            step,
        };
        let exchange = exchange(context, api, &request, Some(label)).await;
        timing.server += exchange.server;
        timing.throttle += exchange.throttle;
        timing.requests += exchange.requests;
        all_cached &= exchange.cache_hit;
        let (answer, latency_ms) = match exchange.result {
            Ok(done) => done,
            Err(failure) => {
                let mut prediction = error_prediction(
                    &context.config,
                    task,
                    &failure,
                    timing.requests,
                    context.key.as_ref(),
                );
                prediction.steps = Some(steps);
                return Outcome {
                    prediction,
                    cache_hit: false,
                    timing: Some(timing),
                };
            }
        };
        totals.add(&answer, latency_ms);
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
            });
            break;
        }
        let outputs = run.outputs(task, step, &calls).await;
        let values: Vec<serde_json::Value> = outputs.iter().map(|o| o.value.clone()).collect();
        steps.push(Step {
            output: answer.output.clone(),
            calls: answer.calls.clone(),
            tool_outputs: values.clone(),
            tool_status: outputs.iter().filter_map(|o| o.status).collect(),
        });
        shown.push(ShownStep {
            output: answer.output,
            native: answer.native.filter(|_| answer.calls.is_some()),
            calls,
            outputs: values,
        });
    }
    Outcome {
        prediction: totals.prediction(context, task, steps, timing.requests),
        cache_hit: all_cached,
        timing: Some(timing),
    }
}

/// The offline baseline step by step: it answers everything in one step,
/// whose calls get their outputs; nothing follows.
pub(in crate::models) async fn baseline_in_steps(
    context: &ModelContext,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    let started = Instant::now();
    let output = crate::models::baseline::respond(task);
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let calls = read_prediction(Some(&output), None, &candidates).calls;
    let outputs = run.outputs(task, 0, &calls).await;
    let step = Step {
        output: Some(output),
        calls: None,
        tool_outputs: outputs.iter().map(|o| o.value.clone()).collect(),
        tool_status: outputs.iter().filter_map(|o| o.status).collect(),
    };
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
