//! Step-by-step runs (SPEC §6, §7): a task asked as a conversation, the
//! predicted calls of each step given outputs before the next one.
//!
//! - [`replay`]: the outputs a task records (`turns[k].tool_outputs`).
//! - [`execute`]: the tools' real endpoints (SPEC §7), only on allowed hosts.
//! - [`simulate`]: a second model playing each tool from its documentation.
//! - [`cassette`]: executed and simulated exchanges kept as JSON Lines, so
//!   a run can be replayed with no network and no tool model.
//! - [`run`]: the conversation of one task through the runner's requests
//!   (cache, retries, rate limits).
//! - [`limits`]: what one answer can make a step and a task do.
//! - [`conversation`]: the requests of one task as a tree of nodes.
//! - [`solver`]: how the tree is searched (SPEC §8: chain, DFSDT).

pub mod cassette;
pub mod conversation;
pub mod execute;
pub mod limits;
pub mod replay;
pub mod run;
pub mod simulate;
pub mod solver;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::models::batch::Transport;
use crate::models::chat::ChatModel;
use crate::models::config::ConfigFile;
use crate::models::exchange::ModelSpec;
use crate::models::http::Failure;
use crate::score::task::ScoreOptions;
use crate::spec::records::{Call, Task};

pub use crate::models::hosts::HostCredential;
pub use cassette::{Cassette, CassetteMode};
pub use execute::{ExecuteOptions, Executor};
pub use limits::{TaskBudget, ToolLimits};
pub use simulate::Simulator;
pub use solver::{FinishProtocol, SolverOptions};

/// How each task is asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMode {
    /// Once, all calls in one answer (the ITC paper's protocol).
    #[default]
    Single,
    /// Step by step, shown the outputs the task records (SPEC §6).
    Replay,
    /// Step by step, shown what the tools' real endpoints answer (SPEC §7).
    Execute,
    /// Step by step, shown what a model playing the tools answers (SPEC §6).
    Simulate,
}

impl StepMode {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            StepMode::Single => "single",
            StepMode::Replay => "replay",
            StepMode::Execute => "execute",
            StepMode::Simulate => "simulate",
        }
    }
}

/// Steps a run allows when `--max-steps` is not given: SPEC §6 stops at the
/// gold's steps plus one, and this caps that for hostile task files.
pub const DEFAULT_MAX_STEPS: usize = 16;

/// How a step-by-step run is made (plain values, from `itc eval`'s flags).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOptions {
    /// How each task is asked.
    pub mode: StepMode,
    /// Most steps per task (the gold's steps plus one are never exceeded).
    pub max_steps: usize,
    /// The cassette of executed or simulated exchanges, if any.
    pub cassette: Option<PathBuf>,
    /// What the run does with the cassette.
    pub cassette_mode: CassetteMode,
    /// Hosts that executed calls may contact (`host` or `host:port`).
    pub allow_hosts: Vec<String>,
    /// A TOML file of `[[hosts]]` credentials, besides the models file's.
    pub hosts_file: Option<PathBuf>,
    /// The model that plays the tools in simulate runs (a `models.toml` name).
    pub tool_model: Option<String>,
    /// How long one executed call may take, in milliseconds.
    pub tool_timeout_ms: u64,
    /// The largest output kept from one call, in bytes: an executed call's
    /// response body, a recorded body, a tool model's answer.
    pub max_tool_bytes: usize,
    /// Calls of one step that are made (the rest get an error output).
    #[serde(default = "default_max_calls_per_step")]
    pub max_calls_per_step: usize,
    /// Bytes of tool output (as JSON) one task is shown over all its steps.
    #[serde(default = "default_max_task_tool_bytes")]
    pub max_task_tool_bytes: usize,
    /// How long the calls of one step may take together, in milliseconds.
    #[serde(default = "default_max_step_ms")]
    pub max_step_ms: u64,
    /// The solver (SPEC §8) and its limits; `None` for a plain §6 run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverOptions>,
}

fn default_max_calls_per_step() -> usize {
    limits::DEFAULT_MAX_CALLS_PER_STEP
}

fn default_max_task_tool_bytes() -> usize {
    limits::DEFAULT_MAX_TASK_TOOL_BYTES
}

fn default_max_step_ms() -> u64 {
    limits::DEFAULT_MAX_STEP_MS
}

impl Default for StepOptions {
    fn default() -> StepOptions {
        StepOptions {
            mode: StepMode::Single,
            max_steps: DEFAULT_MAX_STEPS,
            cassette: None,
            cassette_mode: CassetteMode::default(),
            allow_hosts: Vec::new(),
            hosts_file: None,
            tool_model: None,
            tool_timeout_ms: limits::DEFAULT_TOOL_TIMEOUT_MS,
            max_tool_bytes: limits::DEFAULT_MAX_TOOL_BYTES,
            max_calls_per_step: limits::DEFAULT_MAX_CALLS_PER_STEP,
            max_task_tool_bytes: limits::DEFAULT_MAX_TASK_TOOL_BYTES,
            max_step_ms: limits::DEFAULT_MAX_STEP_MS,
            solver: None,
        }
    }
}

impl StepOptions {
    /// The timeout of one executed call.
    pub fn tool_timeout(&self) -> Duration {
        Duration::from_millis(self.tool_timeout_ms)
    }

    /// The bounds of each step and task.
    pub fn limits(&self) -> ToolLimits {
        ToolLimits {
            max_calls_per_step: self.max_calls_per_step,
            max_task_bytes: self.max_task_tool_bytes,
            max_step_time: Duration::from_millis(self.max_step_ms),
        }
    }
}

impl StepRun {
    /// Makes ready a step-by-step run, `None` for single-shot runs.
    /// `models_file` holds the tool model and `[[hosts]]` credentials;
    /// `cache_dir` is the response cache the tool model uses.
    pub fn prepare(
        options: &StepOptions,
        models_file: Option<&Path>,
        cache_dir: Option<&Path>,
        transport: &Transport,
    ) -> anyhow::Result<Option<StepRun>> {
        let uses_cassette = matches!(options.mode, StepMode::Execute | StepMode::Simulate);
        if options.cassette.is_some() && !uses_cassette {
            bail!(
                "--cassette keeps executed or simulated tool outputs: it needs --steps execute or --steps simulate (not {})",
                options.mode.as_str()
            );
        }
        let cassette = match &options.cassette {
            Some(path) => Some(Arc::new(Cassette::open(
                path,
                options.cassette_mode,
                options.max_tool_bytes,
            )?)),
            None => None,
        };
        let replaying = cassette.as_ref().is_some_and(|c| !c.may_call());
        let source = match options.mode {
            StepMode::Single => return Ok(None),
            StepMode::Replay => ToolSource::Replay,
            StepMode::Execute => {
                if options.allow_hosts.is_empty() && !replaying {
                    bail!(
                        "--steps execute contacts only the hosts you allow: give --allow-host HOST (repeatable), or replay a cassette (--cassette FILE --replay)"
                    );
                }
                let keys = if replaying {
                    Vec::new() // nothing is sent, so no key is read
                } else {
                    host_keys(models_file, options.hosts_file.as_deref())?
                };
                let execute = ExecuteOptions {
                    allow_hosts: options.allow_hosts.clone(),
                    keys,
                    timeout: options.tool_timeout(),
                    max_body_bytes: options.max_tool_bytes,
                };
                ToolSource::Execute(Executor::new(execute, cassette)?)
            }
            StepMode::Simulate => {
                let model = match (&options.tool_model, replaying) {
                    (_, true) => None,
                    (None, false) => bail!(
                        "--steps simulate needs --tool-model NAME (a model of --config), or a cassette to replay (--cassette FILE --replay)"
                    ),
                    (Some(name), false) => {
                        Some(tool_model(name, models_file, cache_dir, transport)?)
                    }
                };
                ToolSource::Simulate(Simulator::new(model, cassette, options.max_tool_bytes))
            }
        };
        Ok(Some(StepRun {
            source,
            max_steps: options.max_steps,
            alignment: ScoreOptions::default(),
            limits: options.limits(),
            solver: options.solver.clone(),
        }))
    }
}

/// The keys of the `[[hosts]]` tables of the models file and the hosts file.
fn host_keys(
    models_file: Option<&Path>,
    hosts_file: Option<&Path>,
) -> anyhow::Result<Vec<crate::models::hosts::HostKey>> {
    let mut keys = Vec::new();
    if let Some(path) = models_file {
        let file = ConfigFile::load(path)?;
        for (i, host) in file.hosts.iter().enumerate() {
            keys.push(host.resolve(&format!("{}: hosts[{i}]", path.display()))?);
        }
    }
    if let Some(path) = hosts_file {
        let file = crate::models::hosts::HostsFile::load(path)?;
        for (i, host) in file.hosts.iter().enumerate() {
            keys.push(host.resolve(&format!("{}: hosts[{i}]", path.display()))?);
        }
    }
    Ok(keys)
}

/// The model playing the tools: `name` of the models file. Its requests
/// travel as the run's do (`transport`): through batch files too, with no
/// key needed to write them.
fn tool_model(
    name: &str,
    models_file: Option<&Path>,
    cache_dir: Option<&Path>,
    transport: &Transport,
) -> anyhow::Result<ChatModel> {
    let Some(path) = models_file else {
        bail!("--tool-model {name}: the tool model is read from a models file: give --config FILE");
    };
    let config = ConfigFile::load_one(path, name)?;
    let spec = match transport {
        Transport::Emit(_) => ModelSpec::resolve_without_key(config)?,
        _ => ModelSpec::resolve(config)?,
    };
    ChatModel::with_transport(&spec, cache_dir, transport.clone())
}

/// The output shown for one call, and in execute runs the HTTP status of
/// its endpoint (0 when none answered).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model is shown.
    pub value: Value,
    /// The endpoint's status, in execute runs.
    pub status: Option<u16>,
    /// Why there is no output at all, when the run's own machinery failed
    /// (the tool model after its retries): the task ends as an error, to be
    /// asked again on `--resume`, rather than be scored on it.
    pub failure: Option<Failure>,
}

impl ToolOutput {
    /// An output with no HTTP status.
    pub fn ok(value: Value) -> ToolOutput {
        ToolOutput {
            value,
            status: None,
            failure: None,
        }
    }

    /// An output that is a tool error.
    pub fn error(message: impl Into<String>, status: Option<u16>) -> ToolOutput {
        ToolOutput {
            status,
            ..ToolOutput::ok(serde_json::json!({ "error": message.into() }))
        }
    }
}

/// Where the outputs of a step's calls come from.
pub enum ToolSource {
    /// The outputs the task records.
    Replay,
    /// The tools' endpoints (or their cassette).
    Execute(Executor),
    /// A model playing the tools (or its cassette).
    Simulate(Simulator),
}

impl std::fmt::Debug for ToolSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ToolSource::Replay => "Replay",
            ToolSource::Execute(_) => "Execute",
            ToolSource::Simulate(_) => "Simulate",
        })
    }
}

/// A step-by-step run ready to go: the source of tool outputs and the
/// step limit.
#[derive(Debug)]
pub struct StepRun {
    /// Where outputs come from.
    pub source: ToolSource,
    /// Most steps per task.
    pub max_steps: usize,
    /// The alignment settings replay uses to pick a recorded output.
    pub alignment: ScoreOptions,
    /// The bounds of each step and task.
    pub limits: ToolLimits,
    /// The solver, `None` for a plain §6 run.
    pub solver: Option<SolverOptions>,
}

impl StepRun {
    /// The model playing the tools in a simulate run.
    pub fn tool_model(&self) -> Option<&ChatModel> {
        match &self.source {
            ToolSource::Simulate(simulator) => simulator.model(),
            _ => None,
        }
    }

    /// Steps task `task` may take: the gold's steps plus one, at most the limit.
    pub fn step_limit(&self, task: &Task) -> usize {
        (task.turns.len().max(1) + 1).min(self.max_steps.max(1))
    }

    /// The outputs of step `step`'s calls, one per call, in call order,
    /// within the run's limits: calls past a bound are not made and get a
    /// tool error, and `budget` counts the task's output bytes over its
    /// steps.
    pub async fn outputs(
        &self,
        task: &Task,
        step: usize,
        calls: &[Call],
        budget: &mut TaskBudget,
    ) -> Vec<ToolOutput> {
        let status_of_none = match self.source {
            ToolSource::Execute(_) => Some(0),
            _ => None,
        };
        let mut replayed = match self.source {
            ToolSource::Replay => {
                replay::replay_outputs(task, step, calls, self.alignment).into_iter()
            }
            _ => Vec::new().into_iter(),
        };
        let deadline = Instant::now() + self.limits.max_step_time;
        let mut outputs = Vec::with_capacity(calls.len().min(self.limits.max_calls_per_step + 1));
        for (index, call) in calls.iter().enumerate() {
            let replay = replayed.next();
            let left = deadline.saturating_duration_since(Instant::now());
            let bound = budget.before_call(&self.limits, index).or_else(|| {
                (left.is_zero() && replay.is_none())
                    .then_some(limits::Bound::StepTime(self.limits.max_step_time))
            });
            // A bound's own short message is shown whatever the budget.
            let output = match (bound, replay) {
                (Some(bound), _) => {
                    outputs.push(ToolOutput::error(bound.message(), status_of_none));
                    continue;
                }
                (None, Some(value)) => ToolOutput::ok(value),
                (None, None) => {
                    let made = match &self.source {
                        ToolSource::Execute(executor) => {
                            tokio::time::timeout(left, executor.call(task, call)).await
                        }
                        ToolSource::Simulate(simulator) => {
                            tokio::time::timeout(left, simulator.call(task, call)).await
                        }
                        ToolSource::Replay => Ok(ToolOutput::ok(Value::Null)),
                    };
                    made.unwrap_or_else(|_| {
                        let bound = limits::Bound::StepTime(self.limits.max_step_time);
                        ToolOutput::error(bound.message(), status_of_none)
                    })
                }
            };
            outputs.push(budget.take(&self.limits, output));
        }
        outputs
    }
}

/// A call's arguments as a JSON object, in call order.
pub fn arguments_json(call: &Call) -> Value {
    let mut map = serde_json::Map::with_capacity(call.arguments.len());
    for (name, value) in &call.arguments {
        map.insert(
            name.clone(),
            serde_json::to_value(value).unwrap_or(Value::Null),
        );
    }
    Value::Object(map)
}
