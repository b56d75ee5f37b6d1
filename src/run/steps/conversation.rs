//! The requests of one step-by-step task as a tree of nodes (SPEC §6, §8).
//!
//! A node is one model request, asked below a parent node (or first), and
//! what came of it: its calls with their outputs, a final answer, a
//! `Finish` call, or a failed request. Each request shows the steps of its
//! node's path (root first) through the runner's `exchange` (cache,
//! retries, rate limits, batch files). Outputs come from the run's
//! [`StepRun`]; each path has its own budget of tool-output bytes. A plain
//! §6 run is a tree with one branch.

use serde_json::Value;

use super::{StepRun, TaskBudget};
use crate::models::backend::{Answer, BackendApi, Served, ShownStep};
use crate::models::batch::RequestLabel;
use crate::models::exchange::{ModelContext, exchange};
use crate::models::http::{ErrorKind, Failure};
use crate::run::outcome::{Outcome, answer_prediction, error_prediction, stop_for_unreachable};
use crate::run::stats::TaskTiming;
use crate::spec::records::{Call, Step, Task, Usage};
use crate::spec::response::read_prediction;
use crate::spec::solver::{FINISH_TOOL, SolverRecord, finish_call, gives_up};

/// What a node came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeEnd {
    /// Calls were made; the conversation can go on below it.
    Continue,
    /// An answer with no calls: a final answer.
    Answer,
    /// A `Finish` call giving an answer (finish protocol).
    Finish,
    /// A `Finish` call giving up (finish protocol).
    GiveUp,
    /// The request failed after its retries (solvers only go on after it).
    Failed,
}

/// One request and what came of it.
struct Node {
    parent: Option<usize>,
    /// Depth at the end of this node: the parent's, plus one for the
    /// answer and one for each call and each output.
    depth: u32,
    /// Tool-output bytes shown on the path up to and with this node.
    budget: TaskBudget,
    end: NodeEnd,
    /// The record (its `tool_outputs` are in `shown` until the end).
    step: Step,
    /// What the requests below this node show of it.
    shown: ShownStep,
}

/// The nodes of one task, and what its requests added up to.
pub struct Conversation<'a> {
    context: &'a ModelContext,
    api: &'a dyn BackendApi,
    task: &'a Task,
    run: &'a StepRun,
    candidates: Vec<&'a str>,
    /// A solver's run: a failed request is a node, and `Finish` is read.
    solver: bool,
    nodes: Vec<Node>,
    timing: TaskTiming,
    totals: Totals,
    all_cached: bool,
    served: Served,
}

impl<'a> Conversation<'a> {
    /// A conversation on `task` (as shown: with `Finish` under the finish
    /// protocol); `solver` when a solver searches it.
    pub fn new(
        context: &'a ModelContext,
        api: &'a dyn BackendApi,
        task: &'a Task,
        run: &'a StepRun,
        solver: bool,
    ) -> Conversation<'a> {
        Conversation {
            context,
            api,
            task,
            run,
            candidates: task.tools.iter().map(|t| t.name.as_str()).collect(),
            solver,
            nodes: Vec::new(),
            timing: TaskTiming::default(),
            totals: Totals::default(),
            all_cached: true,
            served: Served::default(),
        }
    }

    /// Model requests asked so far (one a node; retries not counted).
    pub fn requests(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// The last node asked.
    pub fn last(&self) -> Option<usize> {
        self.nodes.len().checked_sub(1)
    }

    /// What node `node` came to.
    pub fn end(&self, node: usize) -> NodeEnd {
        self.nodes[node].end
    }

    /// The depth at the end of node `node`.
    pub fn depth(&self, node: usize) -> u32 {
        self.nodes[node].depth
    }

    /// The nodes from the first request to `node`.
    pub fn path(&self, node: usize) -> Vec<usize> {
        let mut path = vec![node];
        let mut at = node;
        while let Some(parent) = self.nodes[at].parent {
            path.push(parent);
            at = parent;
        }
        path.reverse();
        path
    }

    /// The first call of node `node` and the output it was shown.
    pub fn first_action(&self, node: usize) -> Option<(&Call, Option<&Value>)> {
        let shown = &self.nodes[node].shown;
        let call = shown.calls.first()?;
        Some((call, shown.outputs.first()))
    }

    /// Asks the model for a node below `parent` (`None`: the first
    /// request), with `note` as one more user message; `sample` sets a
    /// restarted conversation's requests apart in the cache. A failure that
    /// ends the task comes back as an error (the node of a failed tool is
    /// kept first).
    pub async fn ask(
        &mut self,
        parent: Option<usize>,
        note: Option<&str>,
        sample: u32,
    ) -> Result<usize, Failure> {
        let path = parent.map(|p| self.path(p)).unwrap_or_default();
        let index = self.nodes.len();
        let mut request = self.api.build(self.task);
        let shown: Vec<&ShownStep> = path.iter().map(|&n| &self.nodes[n].shown).collect();
        self.api.append_steps(&mut request.body, &shown);
        if let Some(note) = note {
            self.api.append_note(&mut request.body, note);
        }
        let label = RequestLabel {
            task_id: &self.task.id,
            step: index,
            sample,
        };
        let exchange = exchange(self.context, self.api, &request, Some(label)).await;
        drop(request);
        self.timing.server += exchange.server;
        self.timing.throttle += exchange.throttle;
        self.timing.requests += exchange.requests;
        self.timing.retries += exchange.requests.saturating_sub(1);
        self.all_cached &= exchange.cache_hit;
        let (depth, budget) = parent.map_or((0, TaskBudget::default()), |p| {
            (self.nodes[p].depth, self.nodes[p].budget)
        });
        let (mut answer, latency_ms) = match exchange.result {
            Ok(done) => done,
            Err(failure) if !self.solver || ends_task(&failure) => return Err(failure),
            Err(failure) => {
                let message = format!("{}: {}", failure.kind, failure.message);
                let key = self.context.key.as_ref();
                let step = Step {
                    error: Some(key.map_or_else(|| message.clone(), |k| k.redact(&message))),
                    ..Step::default()
                };
                self.push(parent, depth + 1, budget, NodeEnd::Failed, step, Vec::new());
                return Ok(index);
            }
        };
        self.totals.add(&answer, latency_ms);
        self.served = std::mem::take(&mut answer.served);
        let calls = read_prediction(
            answer.output.as_deref(),
            answer.calls.as_deref(),
            &self.candidates,
        )
        .calls;
        let mut step = Step {
            output: answer.output.clone(),
            calls: answer.calls,
            ..Step::default()
        };
        let finish = finish_call(&calls).filter(|_| self.solver && self.finishes());
        let end = match finish {
            Some(call) if gives_up(call) => NodeEnd::GiveUp,
            Some(_) => NodeEnd::Finish,
            None if calls.is_empty() => NodeEnd::Answer,
            None => NodeEnd::Continue,
        };
        if end != NodeEnd::Continue {
            self.push(parent, depth + 1, budget, end, step, calls);
            return Ok(index);
        }
        let mut budget = budget;
        let mut outputs = self
            .run
            .outputs(self.task, path.len(), &calls, &mut budget)
            .await;
        let failure = outputs.iter_mut().find_map(|o| o.failure.take());
        step.tool_status = outputs.iter().filter_map(|o| o.status).collect();
        let depth = depth + 1 + 2 * calls.len() as u32;
        let native = answer.native.filter(|_| step.calls.is_some());
        self.push(parent, depth, budget, end, step, calls);
        let node = &mut self.nodes[index];
        node.shown.native = native;
        node.shown.outputs = outputs.into_iter().map(|o| o.value).collect();
        match failure {
            // A tool that fails ends its task; only the model's own server stops the run.
            Some(failure) => Err(Failure {
                unusable_server: false,
                ..failure
            }),
            None => Ok(index),
        }
    }

    /// Whether the task shows the finish protocol's tool.
    fn finishes(&self) -> bool {
        self.candidates.contains(&FINISH_TOOL)
    }

    fn push(
        &mut self,
        parent: Option<usize>,
        depth: u32,
        budget: TaskBudget,
        end: NodeEnd,
        step: Step,
        calls: Vec<Call>,
    ) {
        let shown = ShownStep {
            output: step.output.clone(),
            native: None,
            calls,
            outputs: Vec::new(),
        };
        self.nodes.push(Node {
            parent,
            depth,
            budget,
            end,
            step,
            shown,
        });
    }

    /// Every node's step, with the outputs it was shown (moved, not
    /// copied), and its parent in a solver's run.
    fn into_steps(nodes: Vec<Node>, solver: bool) -> Vec<Step> {
        nodes
            .into_iter()
            .map(|node| Step {
                tool_outputs: node.shown.outputs,
                parent: node.parent.filter(|_| solver),
                ..node.step
            })
            .collect()
    }

    /// The task's prediction: every step, the solver's record if any.
    pub fn answered(self, record: Option<SolverRecord>) -> Outcome {
        let steps = Self::into_steps(self.nodes, self.solver);
        let requests = self.timing.requests;
        let mut prediction = self
            .totals
            .prediction(self.context, self.task, steps, requests);
        prediction.solver = record;
        Outcome {
            prediction,
            cache_hit: self.all_cached,
            timing: Some(self.timing),
            stop: None,
            served: self.served,
        }
    }

    /// The error prediction of a task that `failure` ended, holding the
    /// steps asked before it (`--resume` asks the task again).
    pub fn failed(self, failure: &Failure) -> Outcome {
        let steps = Self::into_steps(self.nodes, self.solver);
        failed(self.context, self.task, failure, steps, self.timing)
    }
}

/// A failure no search can go on after: the model's server unreachable, or
/// a request that went to a batch file (or has no batch result yet).
fn ends_task(failure: &Failure) -> bool {
    failure.unusable_server || failure.kind == ErrorKind::Batch
}

/// The error prediction of a task whose step failed after its retries,
/// holding the steps before it.
pub(super) fn failed(
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
    ) -> crate::spec::records::Prediction {
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
