//! One τ³-bench trial as the official half-duplex `Orchestrator` runs it,
//! as a [`Dialogue`]: the greeting, then the user simulator (the peer
//! model) and the agent (the model under test) in turn, the agent's tool
//! calls answered by the environment, until a stop token or a limit.
//!
//! What moves, step by step (`Orchestrator.step`): a message goes from one
//! side to another; the user's text goes to the agent; the agent's text to
//! the user, its tool calls to the environment, whose results go back to
//! the agent. Each step counts one; after a step that does not wait on the
//! environment, `max_steps` ends the run, then `max_errors` (every failed
//! tool call of the conversation counts), the latter winning a tie and
//! both overriding a user's stop in that step, as `_check_termination`
//! does. A message with neither text nor tool calls, or tool-call
//! arguments that are not a JSON object, make the official code raise: the
//! trial ends as `infrastructure_error`, the metrics leave it out.

use serde_json::{Map, Value, json};

use super::format::{
    Message, ParticipantMessage, Requestor, TerminationReason, ToolCall, ToolMessage,
};
use super::protocol::protocol;
use super::requests::{Party, Reply, agent_body, read_reply, user_body};
use crate::benchmarks::python::value::is_space_char as is_py_space;
use crate::models::backend::native_call;
use crate::models::tools::NameMap;
use crate::run::dialogue::{Dialogue, DialogueEnd, Next};
use crate::spec::records::{Call, Usage};

/// `DEFAULT_MAX_STEPS` (`src/tau2/config.py`).
pub const DEFAULT_MAX_STEPS: usize = 200;
/// `DEFAULT_MAX_ERRORS` (`src/tau2/config.py`).
pub const DEFAULT_MAX_ERRORS: usize = 10;

/// A domain's tools as the environment runs them.
pub trait Environment: Send {
    /// `Environment.get_response`: the result of one call, as the agent
    /// sees it (`id` and `requestor` copied from the call).
    fn respond(&mut self, call: &ToolCall) -> ToolMessage;
    /// `get_db_hash()`: the database's hash.
    fn db_hash(&mut self) -> String;
}

/// `has_content()`: text that Python's `str.strip()` leaves non-empty.
fn has_text(content: Option<&str>) -> bool {
    content.is_some_and(|c| !c.trim_matches(is_py_space).is_empty())
}

/// The limits of one conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Steps before `max_steps` ends the run.
    pub max_steps: usize,
    /// Failed tool calls before `too_many_errors` ends the run.
    pub max_errors: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: DEFAULT_MAX_STEPS,
            max_errors: DEFAULT_MAX_ERRORS,
        }
    }
}

/// Where the message in transit goes (`to_role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    User,
    Agent,
    Environment,
}

/// What identifies a trial in the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialId {
    /// The τ task's id.
    pub task_id: String,
    /// The trial's number, from 0.
    pub trial: usize,
    /// The trial's seed, sent to both models.
    pub seed: Option<i64>,
}

/// One trial's conversation.
pub struct Conversation {
    trial: TrialId,
    agent: Party,
    user: Party,
    /// The agent's system prompt and its tools (in its API's shape).
    agent_system: String,
    tools: Vec<Value>,
    user_system: String,
    environment: Box<dyn Environment>,
    limits: Limits,
    /// Every message, in order (`trajectory`).
    trajectory: Vec<Message>,
    /// The agent's and the user's histories, as each is asked.
    agent_history: Vec<Value>,
    user_history: Vec<Value>,
    to: Side,
    /// The tool calls awaiting the environment.
    pending_calls: Vec<ToolCall>,
    step_count: usize,
    num_errors: usize,
    end: Option<(TerminationReason, Option<String>)>,
    agent_tokens: (u64, u64),
    user_tokens: (u64, u64),
    started: bool,
}

/// What a [`Conversation`] is built from.
pub struct ConversationSetup {
    /// Which trial.
    pub trial: TrialId,
    /// The model under test.
    pub agent: Party,
    /// The user simulator.
    pub user: Party,
    /// The domain's policy (`policy.md`).
    pub policy: String,
    /// The domain's tools in the agent's API's shape
    /// ([`super::domain::DomainData::tools_for`]).
    pub tools: Vec<Value>,
    /// The task's `user_scenario`.
    pub user_scenario: Value,
    /// A fresh environment.
    pub environment: Box<dyn Environment>,
    /// The limits.
    pub limits: Limits,
}

impl Conversation {
    /// A trial before its first message (`Orchestrator.initialize` without
    /// a message history: the greeting is the agent's first message).
    pub fn new(setup: ConversationSetup) -> Conversation {
        let p = protocol();
        let greeting = p.first_agent_message.clone();
        Conversation {
            agent_system: p.agent_system_prompt(&setup.policy),
            user_system: p.user_system_prompt(&setup.user_scenario),
            trial: setup.trial,
            agent: setup.agent,
            user: setup.user,
            tools: setup.tools,
            environment: setup.environment,
            limits: setup.limits,
            trajectory: vec![Message::Assistant(ParticipantMessage {
                content: Some(greeting.clone()),
                tool_calls: None,
                turn_idx: None,
            })],
            agent_history: vec![json!({"role": "assistant", "content": greeting})],
            user_history: vec![json!({"role": "user", "content": greeting})],
            to: Side::User,
            pending_calls: Vec::new(),
            step_count: 0,
            num_errors: 0,
            end: None,
            agent_tokens: (0, 0),
            user_tokens: (0, 0),
            started: false,
        }
    }

    /// The user's reply to the message in transit.
    fn user_replied(&mut self, reply: Reply) {
        self.user_tokens.0 += reply.tokens.0;
        self.user_tokens.1 += reply.tokens.1;
        let content = reply.content.unwrap_or_default();
        if !has_text(Some(&content)) {
            self.fail("the user simulator's message has neither text nor tool calls");
            return;
        }
        if protocol().is_stop(&content) {
            self.end = Some((TerminationReason::UserStop, None));
        }
        self.user_history
            .push(json!({"role": "assistant", "content": content}));
        self.agent_history
            .push(json!({"role": "user", "content": content}));
        self.trajectory.push(Message::User(ParticipantMessage {
            content: Some(content),
            tool_calls: None,
            turn_idx: None,
        }));
        self.to = Side::Agent;
    }

    /// The agent's reply: text for the user, or tool calls for the environment.
    fn agent_replied(&mut self, reply: Reply) {
        self.agent_tokens.0 += reply.tokens.0;
        self.agent_tokens.1 += reply.tokens.1;
        let calls = match reply.tool_calls {
            Ok(calls) => calls,
            Err(why) => return self.fail(&why),
        };
        if calls.is_empty() && !has_text(reply.content.as_deref()) {
            return self.fail("the agent's message has neither text nor tool calls");
        }
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(i, (id, name, arguments))| ToolCall {
                id: id.unwrap_or_else(|| format!("call_{}_{i}", self.step_count)),
                name,
                arguments,
                requestor: Requestor::Assistant,
            })
            .collect();
        self.agent_history.push(super::requests::assistant_message(
            reply.content.as_deref(),
            &calls,
        ));
        if calls.is_empty() {
            let text = reply.content.unwrap_or_default();
            self.user_history
                .push(json!({"role": "user", "content": text}));
            self.trajectory.push(Message::Assistant(ParticipantMessage {
                content: Some(text),
                tool_calls: None,
                turn_idx: None,
            }));
            self.to = Side::User;
        } else {
            self.trajectory.push(Message::Assistant(ParticipantMessage {
                content: reply.content,
                tool_calls: Some(calls.clone()),
                turn_idx: None,
            }));
            self.pending_calls = calls;
            self.to = Side::Environment;
        }
    }

    /// The environment answers every pending call, in order.
    fn run_tools(&mut self) {
        for call in std::mem::take(&mut self.pending_calls) {
            let result = self.environment.respond(&call);
            self.num_errors += usize::from(result.error);
            self.agent_history.push(json!({
                "role": "tool",
                "content": result.content.clone().unwrap_or_default(),
                "tool_call_id": result.id,
            }));
            self.trajectory.push(Message::Tool(result));
        }
        self.to = Side::Agent;
    }

    /// The official code raises here: the trial is not evaluated.
    fn fail(&mut self, why: &str) {
        self.end = Some((
            TerminationReason::InfrastructureError,
            Some(why.to_string()),
        ));
    }

    /// `step_count += 1`, then `_check_termination` (skipped while the
    /// environment has calls to answer).
    fn stepped(&mut self) {
        self.step_count += 1;
        if self.to == Side::Environment
            || matches!(self.end, Some((TerminationReason::InfrastructureError, _)))
        {
            return;
        }
        if self.step_count >= self.limits.max_steps {
            self.end = Some((TerminationReason::MaxSteps, None));
        }
        if self.num_errors >= self.limits.max_errors {
            self.end = Some((TerminationReason::TooManyErrors, None));
        }
    }

    /// The trial's record: the official `SimulationRun` fields.
    fn finish(&mut self) -> DialogueEnd {
        let (reason, note) = self.end.clone().expect("the conversation has ended");
        let messages: Vec<Value> = self
            .trajectory
            .iter()
            .enumerate()
            .map(|(i, m)| super::format::message_json(m, i))
            .collect();
        let calls: Vec<Call> = self
            .trajectory
            .iter()
            .filter(|m| matches!(m, Message::Assistant(_)))
            .flat_map(Message::tool_calls)
            .map(|c| {
                native_call(
                    &c.name,
                    Some(&Value::Object(c.arguments.clone())),
                    &NameMap::default(),
                )
            })
            .collect();
        let last_text = self.trajectory.iter().rev().find_map(|m| match m {
            Message::Assistant(p) if p.tool_calls.is_none() => p.content.clone(),
            _ => None,
        });
        let mut official = Map::new();
        official.insert(
            "id".into(),
            json!(format!("{}:{}", self.trial.task_id, self.trial.trial)),
        );
        official.insert("task_id".into(), json!(self.trial.task_id));
        official.insert("trial".into(), json!(self.trial.trial));
        official.insert("seed".into(), json!(self.trial.seed));
        official.insert("termination_reason".into(), json!(reason.as_str()));
        if let Some(note) = note {
            official.insert("note".into(), json!(note));
        }
        official.insert("steps".into(), json!(self.step_count));
        official.insert("num_tool_errors".into(), json!(self.num_errors));
        official.insert(
            "user_usage".into(),
            json!({"prompt_tokens": self.user_tokens.0, "completion_tokens": self.user_tokens.1}),
        );
        official.insert("messages".into(), Value::Array(messages));
        official.insert("mode".into(), json!("half_duplex"));
        DialogueEnd {
            output: last_text,
            calls: Some(calls),
            official: Some(Value::Object(official)),
            usage: Some(Usage {
                prompt_tokens: self.agent_tokens.0,
                completion_tokens: self.agent_tokens.1,
            }),
            reasoning: None,
        }
    }
}

impl Dialogue for Conversation {
    fn next(&mut self, reply: Option<&Value>) -> Result<Next, String> {
        if let Some(body) = reply {
            let read = read_reply(body)?;
            match self.to {
                Side::User => self.user_replied(read),
                Side::Agent => self.agent_replied(read),
                Side::Environment => return Err("no request was waiting".into()),
            }
            self.stepped();
        } else if self.started {
            return Err("the conversation was already started".into());
        }
        self.started = true;
        loop {
            if self.end.is_some() {
                return Ok(Next::Done(self.finish()));
            }
            match self.to {
                Side::User => {
                    let body = user_body(&self.user, &self.user_system, &self.user_history);
                    return Ok(Next::SendToPeer(self.user.request(body)));
                }
                Side::Agent => {
                    let body = agent_body(
                        &self.agent,
                        &self.agent_system,
                        &self.agent_history,
                        &self.tools,
                    );
                    return Ok(Next::Send(self.agent.request(body)));
                }
                Side::Environment => {
                    self.run_tools();
                    self.stepped();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::tau::requests::{Dialect, Party};

    /// An environment whose tool `fail` fails and every other tool echoes
    /// its name.
    struct Echo;

    impl Environment for Echo {
        fn respond(&mut self, call: &ToolCall) -> ToolMessage {
            ToolMessage {
                id: call.id.clone(),
                content: Some(format!("ran {}", call.name)),
                requestor: call.requestor,
                error: call.name == "fail",
                turn_idx: None,
            }
        }

        fn db_hash(&mut self) -> String {
            String::new()
        }
    }

    fn party(url: &str) -> Party {
        Party {
            url: url.into(),
            headers: Vec::new(),
            model: "m".into(),
            dialect: Dialect::OpenAiChat,
            temperature: 0.0,
            seed: Some(7),
            max_tokens: None,
        }
    }

    fn conversation(limits: Limits) -> Conversation {
        Conversation::new(ConversationSetup {
            trial: TrialId {
                task_id: "3".into(),
                trial: 1,
                seed: Some(7),
            },
            agent: party("http://agent/chat/completions"),
            user: party("http://user/chat/completions"),
            policy: "Be kind.".into(),
            tools: vec![json!({"type": "function", "function": {"name": "find"}})],
            user_scenario: json!({"persona": null, "instructions": "Buy a lamp."}),
            environment: Box::new(Echo),
            limits,
        })
    }

    fn text(content: &str) -> Value {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}],
               "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    }

    fn calls(names: &[&str]) -> Value {
        let calls: Vec<Value> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                json!({"id": format!("c{i}"), "type": "function",
                "function": {"name": n, "arguments": "{\"order_id\": \"#W1\", \"n\": 1.0}"}})
            })
            .collect();
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
    }

    fn send(next: Next) -> crate::models::backend::ApiRequest {
        match next {
            Next::Send(r) | Next::SendToPeer(r) => r,
            Next::Done(end) => panic!("ended: {:?}", end.official),
        }
    }

    fn end(next: Next) -> Value {
        match next {
            Next::Done(end) => end.official.unwrap(),
            other => panic!("not done: {other:?}"),
        }
    }

    #[test]
    fn a_trial_goes_user_agent_tools_agent_user_until_the_stop_token() {
        let mut c = conversation(Limits::default());
        let first = c.next(None).unwrap();
        assert!(matches!(first, Next::SendToPeer(_)));
        let user = send(first);
        assert_eq!(user.url, "http://user/chat/completions");
        let messages = user.body["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "system");
        let system = messages[0]["content"].as_str().unwrap();
        assert!(system.ends_with("<scenario>\nInstructions:\n\tBuy a lamp.\n</scenario>"));
        assert_eq!(
            messages[1],
            json!({"role": "user", "content": "Hi! How can I help you today?"})
        );
        assert_eq!(user.body.get("tools"), None);
        assert_eq!(
            (
                user.body["temperature"].as_f64(),
                user.body["seed"].as_i64()
            ),
            (Some(0.0), Some(7))
        );

        let agent = send(c.next(Some(&text("I want a lamp."))).unwrap());
        assert_eq!(agent.url, "http://agent/chat/completions");
        let messages = agent.body["messages"].as_array().unwrap();
        assert!(
            messages[0]["content"]
                .as_str()
                .unwrap()
                .ends_with("<policy>\nBe kind.\n</policy>")
        );
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "content": "Hi! How can I help you today?"})
        );
        assert_eq!(
            messages[2],
            json!({"role": "user", "content": "I want a lamp."})
        );
        assert_eq!(agent.body["tool_choice"], "auto");

        // Two calls in one message: both run, then the agent is asked again.
        let agent = send(c.next(Some(&calls(&["find", "fail"]))).unwrap());
        let messages = agent.body["messages"].as_array().unwrap();
        assert_eq!(
            messages[3]["tool_calls"][0]["function"]["arguments"],
            "{\"order_id\": \"#W1\", \"n\": 1.0}"
        );
        assert_eq!(
            messages[4],
            json!({"role": "tool", "content": "ran find", "tool_call_id": "c0"})
        );
        assert_eq!(messages[5]["tool_call_id"], "c1");

        let user = send(c.next(Some(&text("Done, lamp ordered."))).unwrap());
        let messages = user.body["messages"].as_array().unwrap();
        assert_eq!(
            messages[2],
            json!({"role": "assistant", "content": "I want a lamp."})
        );
        assert_eq!(
            messages[3],
            json!({"role": "user", "content": "Done, lamp ordered."})
        );
        assert_eq!(messages.len(), 4, "the user never sees tool calls");

        let run = end(c.next(Some(&text("Thanks ###STOP###"))).unwrap());
        assert_eq!(run["termination_reason"], "user_stop");
        assert_eq!(
            (run["steps"].as_u64(), run["num_tool_errors"].as_u64()),
            (Some(5), Some(1))
        );
        let roles: Vec<&str> = run["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(
            roles,
            [
                "assistant",
                "user",
                "assistant",
                "tool",
                "tool",
                "assistant",
                "user"
            ]
        );
        // The record reads back as the official format.
        let messages: Vec<Message> = serde_json::from_value(run["messages"].clone()).unwrap();
        assert_eq!(messages[2].tool_calls().len(), 2);
    }

    #[test]
    fn the_step_limit_and_the_error_limit_end_the_run_errors_winning_a_tie() {
        // Steps: user (1), agent calls (2), tools (3) → max_steps 3 ends it.
        let mut c = conversation(Limits {
            max_steps: 3,
            max_errors: 10,
        });
        send(c.next(None).unwrap());
        send(c.next(Some(&text("Hello"))).unwrap());
        assert_eq!(
            end(c.next(Some(&calls(&["find"]))).unwrap())["termination_reason"],
            "max_steps"
        );

        let mut c = conversation(Limits {
            max_steps: 3,
            max_errors: 2,
        });
        send(c.next(None).unwrap());
        send(c.next(Some(&text("Hello"))).unwrap());
        let run = end(c.next(Some(&calls(&["fail", "fail"]))).unwrap());
        assert_eq!(run["termination_reason"], "too_many_errors");

        // A stop in the step that reaches the limit ends as the limit.
        let mut c = conversation(Limits {
            max_steps: 1,
            max_errors: 10,
        });
        send(c.next(None).unwrap());
        assert_eq!(
            end(c.next(Some(&text("###STOP###"))).unwrap())["termination_reason"],
            "max_steps"
        );
    }

    #[test]
    fn messages_the_official_code_refuses_end_the_trial_unevaluated() {
        for reply in [
            text("  \n"),
            json!({"choices": [{"message": {"content": null, "tool_calls": [
                {"id": "x", "function": {"name": "find", "arguments": "[1]"}}]}}]}),
            json!({"choices": [{"message": {"content": null, "tool_calls": [
                {"id": "x", "function": {"name": "find", "arguments": "{oops"}}]}}]}),
        ] {
            let mut c = conversation(Limits::default());
            send(c.next(None).unwrap());
            send(c.next(Some(&text("Hello"))).unwrap());
            let run = end(c.next(Some(&reply)).unwrap());
            assert_eq!(run["termination_reason"], "infrastructure_error", "{reply}");
            assert!(run["note"].as_str().is_some());
        }
        let mut c = conversation(Limits::default());
        send(c.next(None).unwrap());
        assert!(c.next(Some(&json!({"error": "x"}))).is_err());
    }
}
