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

use super::conversation::{Conversation, NodeEnd, failed};
use super::solver::{SolverOptions, search, task_for};
use super::{StepRun, TaskBudget};
use crate::models::backend::{Answer, BackendApi, Served};
use crate::models::exchange::ModelContext;
use crate::run::outcome::{Outcome, answer_prediction};
use crate::run::stats::TaskTiming;
use crate::spec::records::{Step, Task};
use crate::spec::response::read_prediction;

/// Asks `task` step by step: as one conversation (SPEC §6), or searched by
/// the run's solver (SPEC §8).
pub(in crate::run) async fn answer_in_steps(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    match &run.solver {
        None => plain(context, api, task, run).await,
        Some(options) => solved(context, api, task, run, options).await,
    }
}

/// One conversation, to the gold's steps plus one at most.
async fn plain(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    run: &StepRun,
) -> Outcome {
    let mut conversation = Conversation::new(context, api, task, run, false);
    let mut at = None;
    for _ in 0..run.step_limit(task) {
        match conversation.ask(at, None, 0).await {
            Err(failure) => return conversation.failed(&failure),
            Ok(node) if conversation.end(node) == NodeEnd::Continue => at = Some(node),
            Ok(_) => break,
        }
    }
    conversation.answered(None)
}

/// The solver's search, the prediction keeping every node.
async fn solved(
    context: &ModelContext,
    api: &dyn BackendApi,
    task: &Task,
    run: &StepRun,
    options: &SolverOptions,
) -> Outcome {
    let with_finish = task_for(task, options);
    let task = with_finish.as_ref().unwrap_or(task);
    let mut conversation = Conversation::new(context, api, task, run, true);
    match search(&mut conversation, options).await {
        Ok(record) => conversation.answered(Some(record)),
        Err(failure) => conversation.failed(&failure),
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
        error: None,
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
