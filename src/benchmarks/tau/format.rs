//! The official τ³-bench formats, read as the official code (pydantic models
//! in `tau2.data_model`) reads them: a domain's `tasks.json`, the messages
//! of a conversation, a `SimulationRun`, and the results file that
//! `Results.save` writes (`{timestamp, info, tasks, simulations}`, one JSON
//! document).
//!
//! Fields the evaluator and the metrics never read (costs, usage, audio and
//! streaming fields, reviews, a simulation's stored `reward_info`) are
//! accepted and ignored, as pydantic ignores unknown keys. A field of the
//! wrong type is an error naming the file, the line and column, and the
//! field's path (`simulations[3].messages[7].tool_calls[0].arguments`).

use std::path::Path;

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A component that can gate a task's reward (`RewardType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RewardType {
    /// The database after the conversation equals the gold database.
    #[serde(rename = "DB")]
    Db,
    /// The task's environment assertions hold.
    #[serde(rename = "ENV_ASSERTION")]
    EnvAssertion,
    /// A judge model finds every natural-language assertion met.
    #[serde(rename = "NL_ASSERTION")]
    NlAssertion,
    /// Every gold action is matched by some tool call.
    #[serde(rename = "ACTION")]
    Action,
    /// Every `communicate_info` string was said by the agent.
    #[serde(rename = "COMMUNICATE")]
    Communicate,
}

/// Why a conversation ended (`TerminationReason`, every official value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminationReason {
    /// The user simulator sent a stop token.
    UserStop,
    /// The agent stopped (solo agents).
    AgentStop,
    /// The step limit was reached.
    MaxSteps,
    /// The wall-clock limit was reached.
    Timeout,
    /// The conversation's tool errors reached `max_errors`.
    TooManyErrors,
    /// The agent broke the protocol.
    AgentError,
    /// The user simulator broke the protocol.
    UserError,
    /// The run raised on every retry (excluded from the metrics).
    InfrastructureError,
    /// The context window was exceeded.
    ContextWindowExceeded,
    /// Anything else that went wrong.
    UnexpectedError,
}

impl TerminationReason {
    /// The official spelling (`user_stop`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TerminationReason::UserStop => "user_stop",
            TerminationReason::AgentStop => "agent_stop",
            TerminationReason::MaxSteps => "max_steps",
            TerminationReason::Timeout => "timeout",
            TerminationReason::TooManyErrors => "too_many_errors",
            TerminationReason::AgentError => "agent_error",
            TerminationReason::UserError => "user_error",
            TerminationReason::InfrastructureError => "infrastructure_error",
            TerminationReason::ContextWindowExceeded => "context_window_exceeded",
            TerminationReason::UnexpectedError => "unexpected_error",
        }
    }

    /// Whether the evaluator scores such a run (`user_stop`, `agent_stop`);
    /// any other run scores 0 without a check.
    pub fn is_evaluated(self) -> bool {
        matches!(
            self,
            TerminationReason::UserStop | TerminationReason::AgentStop
        )
    }
}

/// Who made a tool call (`ToolRequestor`); the official default is the assistant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Requestor {
    /// The agent.
    #[default]
    Assistant,
    /// The user simulator (domains with user tools).
    User,
}

/// One tool call of a message (`ToolCall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id (the tool message answering it carries the same id).
    #[serde(default)]
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, a JSON object.
    pub arguments: Map<String, Value>,
    /// Who made the call.
    #[serde(default)]
    pub requestor: Requestor,
}

/// A gold action of a task (`Action`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// Unique within the task (`0_4`).
    pub action_id: String,
    /// Who is expected to make the call.
    #[serde(default)]
    pub requestor: Requestor,
    /// The tool's name.
    pub name: String,
    /// The gold arguments.
    pub arguments: Map<String, Value>,
    /// Free text.
    #[serde(default)]
    pub info: Option<String>,
    /// The arguments the action check compares; null: the keys of the call
    /// being checked (not of the action), `[]`: none (any call of the name).
    #[serde(default)]
    pub compare_args: Option<Vec<String>>,
}

/// What a task is scored on (`EvaluationCriteria`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluationCriteria {
    /// The gold actions: replayed for the gold database, matched by the action check.
    #[serde(default)]
    pub actions: Option<Vec<Action>>,
    /// Assertions on the final environment (none in retail), kept as written.
    #[serde(default)]
    pub env_assertions: Option<Vec<Value>>,
    /// Strings the agent must say.
    #[serde(default)]
    pub communicate_info: Option<Vec<String>>,
    /// Statements a judge model checks against the conversation.
    #[serde(default)]
    pub nl_assertions: Option<Vec<String>>,
    /// The components whose product is the reward (official default `DB`, `COMMUNICATE`).
    #[serde(default = "default_reward_basis")]
    pub reward_basis: Vec<RewardType>,
}

fn default_reward_basis() -> Vec<RewardType> {
    vec![RewardType::Db, RewardType::Communicate]
}

/// What the user simulator is told (`UserScenario`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserScenario {
    /// The user's persona.
    #[serde(default)]
    pub persona: Option<String>,
    /// Structured instructions, or one text.
    pub instructions: UserInstructions,
}

/// A scenario's instructions: structured (`StructuredUserInstructions`) or a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserInstructions {
    /// The structured form every retail task uses.
    Structured {
        /// The domain (`retail`).
        domain: String,
        /// Why the user calls.
        reason_for_call: String,
        /// What the user knows.
        #[serde(default)]
        known_info: Option<String>,
        /// What the user does not know.
        #[serde(default)]
        unknown_info: Option<String>,
        /// How the user behaves.
        task_instructions: String,
    },
    /// Free text.
    Text(String),
}

/// A task (`Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's id (`"0"` … in retail).
    pub id: String,
    /// Purpose and notes, kept as written.
    #[serde(default)]
    pub description: Option<Value>,
    /// What the user simulator is told.
    pub user_scenario: UserScenario,
    /// Initial data, actions and message history (null in every retail task), kept as written.
    #[serde(default)]
    pub initial_state: Option<Value>,
    /// How the task is scored; null: reward 1 for any evaluated run.
    #[serde(default)]
    pub evaluation_criteria: Option<EvaluationCriteria>,
}

/// One message of a conversation (`Message`): the roles the half-duplex
/// orchestrator stores.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawMessage")]
pub enum Message {
    /// A system message.
    System(TextMessage),
    /// The agent: text or tool calls.
    Assistant(ParticipantMessage),
    /// The user simulator: text or tool calls.
    User(ParticipantMessage),
    /// One tool result.
    Tool(ToolMessage),
    /// Several tool results in one message (`MultiToolMessage`).
    MultiTool(Vec<ToolMessage>),
}

/// A system message's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct TextMessage {
    /// The text.
    pub content: Option<String>,
    /// Position in the trajectory.
    pub turn_idx: Option<i64>,
}

/// An assistant or user message's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipantMessage {
    /// The text (null for a tool-call message).
    pub content: Option<String>,
    /// The tool calls, null when none.
    pub tool_calls: Option<Vec<ToolCall>>,
    /// Position in the trajectory.
    pub turn_idx: Option<i64>,
}

/// A tool result (`ToolMessage`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolMessage {
    /// The id of the call it answers.
    pub id: String,
    /// The output the caller receives.
    #[serde(default)]
    pub content: Option<String>,
    /// Who made the call.
    #[serde(default)]
    pub requestor: Requestor,
    /// Whether the call failed.
    #[serde(default)]
    pub error: bool,
    /// Position in the trajectory.
    #[serde(default)]
    pub turn_idx: Option<i64>,
}

/// The role of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Role {
    System,
    Assistant,
    User,
    Tool,
}

/// Every field any message kind has, so a wrong type is reported at its own path.
#[derive(Deserialize)]
struct RawMessage {
    role: Role,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCall>>,
    #[serde(default)]
    turn_idx: Option<i64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    requestor: Option<Requestor>,
    #[serde(default)]
    error: Option<bool>,
    #[serde(default)]
    tool_messages: Option<Vec<ToolMessage>>,
}

impl TryFrom<RawMessage> for Message {
    type Error = String;

    fn try_from(raw: RawMessage) -> Result<Message, String> {
        let participant = |raw: RawMessage| ParticipantMessage {
            content: raw.content,
            tool_calls: raw.tool_calls,
            turn_idx: raw.turn_idx,
        };
        Ok(match raw.role {
            Role::System => Message::System(TextMessage {
                content: raw.content,
                turn_idx: raw.turn_idx,
            }),
            Role::Assistant => Message::Assistant(participant(raw)),
            Role::User => Message::User(participant(raw)),
            Role::Tool => match (raw.tool_messages, raw.id) {
                (Some(list), _) => Message::MultiTool(list),
                (None, Some(id)) => Message::Tool(ToolMessage {
                    id,
                    content: raw.content,
                    requestor: raw.requestor.unwrap_or_default(),
                    error: raw.error.unwrap_or(false),
                    turn_idx: raw.turn_idx,
                }),
                (None, None) => {
                    return Err("a tool message needs `id` (or `tool_messages`)".to_string());
                }
            },
        })
    }
}

impl Message {
    /// The tool calls of an assistant or user message (`extract_tool_calls`).
    pub fn tool_calls(&self) -> &[ToolCall] {
        match self {
            Message::Assistant(m) | Message::User(m) => m.tool_calls.as_deref().unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A message as the official trajectory stores it, at position `turn_idx`
/// (without the wall-clock `timestamp`): `{role, content, tool_calls,
/// turn_idx}` for the participants (`tool_calls` null when none, each
/// `{id, name, arguments, requestor}`), `{role: "tool", id, content,
/// requestor, error, turn_idx}` for a result. [`Message`] reads it back.
pub fn message_json(message: &Message, turn_idx: usize) -> Value {
    let participant = |role: &str, m: &ParticipantMessage| {
        serde_json::json!({
            "role": role,
            "content": m.content,
            "tool_calls": m.tool_calls,
            "turn_idx": turn_idx,
        })
    };
    let tool = |m: &ToolMessage| {
        serde_json::json!({
            "role": "tool",
            "id": m.id,
            "content": m.content,
            "requestor": m.requestor,
            "error": m.error,
            "turn_idx": turn_idx,
        })
    };
    match message {
        Message::System(m) => {
            serde_json::json!({"role": "system", "content": m.content, "turn_idx": turn_idx})
        }
        Message::Assistant(m) => participant("assistant", m),
        Message::User(m) => participant("user", m),
        Message::Tool(m) => tool(m),
        Message::MultiTool(list) => serde_json::json!({
            "role": "tool",
            "tool_messages": list.iter().map(tool).collect::<Vec<_>>(),
            "turn_idx": turn_idx,
        }),
    }
}

/// One conversation and how it ended (`SimulationRun`); its stored
/// `reward_info` is not read (the evaluator recomputes it).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SimulationRun {
    /// The run's id.
    pub id: String,
    /// The task it ran.
    pub task_id: String,
    /// When it started.
    pub start_time: String,
    /// When it ended.
    pub end_time: String,
    /// Its length in seconds.
    pub duration: f64,
    /// Why it ended.
    pub termination_reason: TerminationReason,
    /// The agent's cost in dollars.
    #[serde(default)]
    pub agent_cost: Option<f64>,
    /// The user simulator's cost in dollars.
    #[serde(default)]
    pub user_cost: Option<f64>,
    /// The trajectory (null for full-duplex runs, which store ticks instead).
    #[serde(default)]
    pub messages: Option<Vec<Message>>,
    /// The trial number.
    #[serde(default)]
    pub trial: Option<i64>,
    /// The seed of the trial.
    #[serde(default)]
    pub seed: Option<i64>,
    /// `half_duplex` (scored here) or `full_duplex`.
    #[serde(default = "half_duplex")]
    pub mode: String,
}

fn half_duplex() -> String {
    "half_duplex".to_string()
}

/// The run's settings (`Info`): what the metrics read, and the required fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Info {
    /// The harness's commit.
    pub git_commit: String,
    /// Trials per task asked for: the largest k of pass^k.
    pub num_trials: i64,
    /// The step limit.
    pub max_steps: i64,
    /// The tool-error limit.
    pub max_errors: i64,
    /// The user simulator, kept as written.
    pub user_info: Value,
    /// The agent, kept as written.
    pub agent_info: Value,
    /// The domain, policy and tools.
    pub environment_info: EnvironmentInfo,
    /// The run's seed.
    #[serde(default)]
    pub seed: Option<i64>,
}

/// The domain of a run (`EnvironmentInfo`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EnvironmentInfo {
    /// `retail`, `airline`, …
    pub domain_name: String,
}

/// The official results file (`Results`, as `Results.save(path)` writes it).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Results {
    /// When the run started.
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The run's settings.
    pub info: Info,
    /// The tasks that were run.
    pub tasks: Vec<Task>,
    /// Every conversation.
    #[serde(default)]
    pub simulations: Vec<SimulationRun>,
}

impl Results {
    /// Reads a results file (the monolithic `json` format).
    pub fn read(path: &Path) -> anyhow::Result<Results> {
        read_json(path)
    }

    /// The task of `id`.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }
}

/// Reads a domain's `tasks.json` (a JSON list of tasks).
pub fn read_tasks(path: &Path) -> anyhow::Result<Vec<Task>> {
    read_json(path)
}

/// Reads one JSON document of type `T` from `path`.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    parse_json(&text, &path.display().to_string())
}

/// Parses `text` as a `T`. An error reads
/// ``ORIGIN:LINE:COLUMN: field `PATH`: MESSAGE`` (the path is `.` for the
/// document itself).
pub fn parse_json<T: DeserializeOwned>(text: &str, origin: &str) -> anyhow::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = match e.path().to_string() {
            p if p.is_empty() || p == "?" => ".".to_string(),
            p => p,
        };
        let inner = e.into_inner();
        let message = inner.to_string();
        let message = match message.rfind(" at line ") {
            Some(cut) => message[..cut].to_string(),
            None => message,
        };
        anyhow::anyhow!(
            "{origin}:{}:{}: field `{path}`: {message}",
            inner.line(),
            inner.column()
        )
    })?;
    de.end()
        .map_err(|e| anyhow::anyhow!("{origin}:{}:{}: {e}", e.line(), e.column()))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::super::reference::{data_path, tasks, trajectories};
    use super::*;

    #[test]
    fn messages_are_written_back_as_the_official_trajectory_holds_them() {
        for (t, raw) in &trajectories() {
            let messages = t.simulation.messages.as_ref().unwrap();
            let raw_messages = raw["simulation"]["messages"].as_array().unwrap();
            for (i, (m, r)) in messages.iter().zip(raw_messages).enumerate() {
                let mut expected = r.clone();
                expected.as_object_mut().unwrap().remove("timestamp");
                let turn = r["turn_idx"].as_u64().unwrap() as usize;
                assert_eq!(
                    message_json(m, turn),
                    expected,
                    "{}:{} message {i}",
                    t.task_id,
                    t.kind
                );
            }
        }
    }

    #[test]
    fn every_reference_trajectory_parses_message_by_message() {
        let all = trajectories();
        assert_eq!(all.len(), 2141);
        for (t, raw) in &all {
            let messages = t.simulation.messages.as_ref().unwrap();
            let raw_messages = raw["simulation"]["messages"].as_array().unwrap();
            assert_eq!(
                messages.len(),
                raw_messages.len(),
                "{}:{}",
                t.task_id,
                t.kind
            );
            for (m, r) in messages.iter().zip(raw_messages) {
                let role = r["role"].as_str().unwrap();
                let calls = r["tool_calls"].as_array().map_or(0, Vec::len);
                match m {
                    Message::Assistant(p) | Message::User(p) => {
                        assert_eq!(
                            role,
                            if matches!(m, Message::Assistant(_)) {
                                "assistant"
                            } else {
                                "user"
                            }
                        );
                        assert_eq!(p.content.as_deref(), r["content"].as_str());
                        assert_eq!(m.tool_calls().len(), calls);
                        for (c, rc) in m
                            .tool_calls()
                            .iter()
                            .zip(r["tool_calls"].as_array().into_iter().flatten())
                        {
                            assert_eq!(c.name, rc["name"].as_str().unwrap());
                            assert_eq!(Value::Object(c.arguments.clone()), rc["arguments"]);
                        }
                    }
                    Message::Tool(tm) => {
                        assert_eq!(role, "tool");
                        assert_eq!(tm.id, r["id"].as_str().unwrap());
                        assert_eq!(tm.error, r["error"].as_bool().unwrap());
                        assert_eq!(tm.content.as_deref(), r["content"].as_str());
                    }
                    other => panic!("unexpected message {other:?}"),
                }
            }
            assert_eq!(t.simulation.termination_reason, t.termination_reason);
            assert_eq!(
                t.simulation.termination_reason.as_str(),
                raw["termination_reason"].as_str().unwrap()
            );
        }
    }

    #[test]
    fn official_retail_tasks_parse() {
        let tasks = tasks();
        assert_eq!(tasks.len(), 114);
        let basis = |b: &[RewardType]| {
            tasks
                .iter()
                .filter(|t| t.evaluation_criteria.as_ref().unwrap().reward_basis == b)
                .count()
        };
        assert_eq!(basis(&[RewardType::Db, RewardType::NlAssertion]), 112);
        assert_eq!(basis(&[RewardType::Db]), 2);
        let transfers_without_args = tasks
            .iter()
            .flat_map(|t| {
                t.evaluation_criteria
                    .as_ref()
                    .unwrap()
                    .actions
                    .as_deref()
                    .unwrap_or(&[])
            })
            .filter(|a| a.compare_args.as_deref() == Some(&[]))
            .count();
        assert_eq!(transfers_without_args, 4);
        assert!(matches!(
            tasks[0].user_scenario.instructions,
            UserInstructions::Structured { .. }
        ));
    }

    #[test]
    fn termination_reasons_are_the_official_values() {
        for name in [
            "user_stop",
            "agent_stop",
            "max_steps",
            "timeout",
            "too_many_errors",
            "agent_error",
            "user_error",
            "infrastructure_error",
            "context_window_exceeded",
            "unexpected_error",
        ] {
            let r: TerminationReason = serde_json::from_value(Value::from(name)).unwrap();
            assert_eq!(r.as_str(), name);
            assert_eq!(
                r.is_evaluated(),
                name == "user_stop" || name == "agent_stop"
            );
        }
        assert!(serde_json::from_value::<TerminationReason>(Value::from("stopped")).is_err());
    }

    /// A results file as `Results.save` writes it, with fields the
    /// evaluator never reads (costs, usage, reward_info, audio fields).
    fn results_text(simulation_patch: impl FnOnce(&mut Value)) -> String {
        let tasks: Value =
            serde_json::from_str(&std::fs::read_to_string(data_path("tasks.json")).unwrap())
                .unwrap();
        let mut simulation = serde_json::json!({
            "id": "s1", "task_id": "0", "timestamp": "t", "start_time": "a", "end_time": "b",
            "duration": 1.5, "termination_reason": "user_stop", "agent_cost": 0.01, "user_cost": null,
            "reward_info": {"reward": 0.0, "whatever": [1, 2]}, "trial": 0, "seed": 7, "mode": "half_duplex",
            "review": null, "hallucination_retries_used": 0,
            "messages": [
                {"role": "assistant", "content": "Hi! How can I help you today?", "tool_calls": null,
                 "turn_idx": 0, "timestamp": "t", "cost": 0.0, "usage": {"prompt_tokens": 3}, "is_audio": false,
                 "chunk_id": null, "is_final_chunk": true, "contains_speech": true},
                {"role": "assistant", "content": null, "turn_idx": 1, "timestamp": "t",
                 "tool_calls": [{"id": "c1", "name": "get_order_details", "arguments": {"order_id": "#W1"}, "requestor": "assistant"}]},
                {"role": "tool", "id": "c1", "content": "Error: Order not found", "requestor": "assistant",
                 "error": true, "turn_idx": 2, "timestamp": "t"}
            ]
        });
        simulation_patch(&mut simulation);
        let results = serde_json::json!({
            "timestamp": "2025-01-01",
            "info": {"git_commit": "abc", "num_trials": 4, "max_steps": 200, "max_errors": 10,
                     "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"},
                     "agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"},
                     "environment_info": {"domain_name": "retail", "policy": "…", "tool_defs": null},
                     "seed": 300, "text_streaming_config": null},
            "tasks": tasks,
            "simulations": [simulation]
        });
        serde_json::to_string_pretty(&results).unwrap()
    }

    fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    use std::path::PathBuf;

    #[test]
    fn results_file_reads_ignoring_the_fields_the_evaluator_never_reads() {
        let (_dir, path) = write(&results_text(|_| {}));
        let results = Results::read(&path).unwrap();
        assert_eq!(results.info.num_trials, 4);
        assert_eq!(results.tasks.len(), 114);
        let sim = &results.simulations[0];
        assert_eq!(sim.termination_reason, TerminationReason::UserStop);
        let messages = sim.messages.as_ref().unwrap();
        assert_eq!(messages[1].tool_calls()[0].arguments["order_id"], "#W1");
        assert!(matches!(&messages[2], Message::Tool(t) if t.error && t.id == "c1"));
        assert!(results.task("0").is_some());
    }

    #[test]
    fn a_wrong_field_type_names_the_file_the_line_and_the_field() {
        let text = results_text(|s| {
            s["messages"][1]["tool_calls"][0]["arguments"] = Value::from("{\"order_id\": 1}")
        });
        let (_dir, path) = write(&text);
        let err = Results::read(&path).unwrap_err().to_string();
        let line = text
            .lines()
            .position(|l| l.contains("\"{\\\"order_id"))
            .unwrap()
            + 1;
        assert!(
            err.starts_with(&format!("{}:{line}:", path.display())),
            "{err}"
        );
        assert!(
            err.contains("field `simulations[0].messages[1].tool_calls[0].arguments`"),
            "{err}"
        );
        assert!(err.contains("expected a map"), "{err}");
    }

    #[test]
    fn an_unknown_termination_reason_and_a_tool_message_without_id_are_named() {
        let (_dir, path) = write(&results_text(|s| {
            s["termination_reason"] = Value::from("done")
        }));
        let err = Results::read(&path).unwrap_err().to_string();
        assert!(
            err.contains("field `simulations[0].termination_reason`"),
            "{err}"
        );
        assert!(err.contains("unknown variant `done`"), "{err}");

        let (_dir, path) = write(&results_text(|s| {
            s["messages"][2].as_object_mut().unwrap().remove("id");
        }));
        let err = Results::read(&path).unwrap_err().to_string();
        assert!(err.contains("field `simulations[0].messages[2]`"), "{err}");
        assert!(err.contains("needs `id`"), "{err}");

        let (_dir, path) = write(&results_text(|s| {
            s["messages"][0]["turn_idx"] = Value::from("zero")
        }));
        let err = Results::read(&path).unwrap_err().to_string();
        assert!(
            err.contains("field `simulations[0].messages[0].turn_idx`"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_task_names_its_field_and_trailing_text_is_refused() {
        let err = parse_json::<Vec<Task>>(
            r#"[{"id": "0", "user_scenario": {"instructions": "x"},
                "evaluation_criteria": {"reward_basis": ["DB", "BOGUS"]}}]"#,
            "tasks.json",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("tasks.json:2:"), "{err}");
        assert!(
            err.contains("field `[0].evaluation_criteria.reward_basis[1]`"),
            "{err}"
        );
        let err = parse_json::<Vec<Task>>("[] []", "tasks.json")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("tasks.json:1:"), "{err}");
        // The official default basis when none is written.
        let tasks: Vec<Task> = parse_json(
            r#"[{"id": "1", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {}}]"#,
            "t",
        )
        .unwrap();
        assert_eq!(
            tasks[0].evaluation_criteria.as_ref().unwrap().reward_basis,
            [RewardType::Db, RewardType::Communicate]
        );
    }
}
