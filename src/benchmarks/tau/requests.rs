//! The requests of a τ³-bench conversation and the reading of their
//! replies. The official harness asks both models through litellm with
//! OpenAI-shaped messages (`to_litellm_messages`): a system message, then
//! the history; the agent gets the domain's tools with `tool_choice:
//! "auto"`, the user simulator none; temperature 0 and the trial's seed.
//! An OpenAI-compatible server gets exactly those messages (fields the
//! Chat Completions API does not define, and `null` tool calls, left out);
//! Anthropic and Gemini get them as litellm rewrites them ([`super::litellm`]).

use serde_json::{Map, Value, json};

use super::format::ToolCall;
use super::litellm::{Provider, Sampling, anthropic_body, gemini_body};
use crate::benchmarks::python::dumps::dumps_value;
use crate::models::backend::ApiRequest;
use crate::models::config::{Backend, ModelConfig};
use crate::models::tools::NameMap;

/// `DEFAULT_LLM_TEMPERATURE_AGENT` and `_USER` (`src/tau2/config.py`).
pub const OFFICIAL_TEMPERATURE: f64 = 0.0;

/// The API a party speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `POST /chat/completions`.
    OpenAiChat,
    /// `POST /messages`.
    Anthropic,
    /// `POST /models/<model>:generateContent`.
    Gemini,
}

impl Dialect {
    /// The API litellm rewrites the messages for; `None` for OpenAI's, which
    /// takes them as they are.
    pub fn provider(self) -> Option<Provider> {
        match self {
            Dialect::OpenAiChat => None,
            Dialect::Anthropic => Some(Provider::Anthropic),
            Dialect::Gemini => Some(Provider::Gemini),
        }
    }
}

/// One side of the conversation: a model and how it is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Party {
    /// The request's URL.
    pub url: String,
    /// Headers besides authentication.
    pub headers: Vec<(&'static str, String)>,
    /// The model's id on its server.
    pub model: String,
    /// The API.
    pub dialect: Dialect,
    /// The temperature (the user's, else [`OFFICIAL_TEMPERATURE`]).
    pub temperature: f64,
    /// The trial's seed (OpenAI-compatible servers only).
    pub seed: Option<i64>,
    /// An output-length limit, when the user set one.
    pub max_tokens: Option<u32>,
}

impl Party {
    /// The party of a configured model; `None` for the offline baseline.
    /// `temperature` and `max_tokens` are the ones the user set.
    pub fn of_model(
        config: &ModelConfig,
        temperature: Option<f64>,
        max_tokens: Option<u32>,
        seed: Option<i64>,
    ) -> Option<Party> {
        let model = config.model_id.clone().unwrap_or_default();
        let base = config.effective_base_url();
        let (dialect, url, headers) = match config.backend {
            Backend::Openai => (
                Dialect::OpenAiChat,
                format!("{base}/chat/completions"),
                Vec::new(),
            ),
            Backend::Anthropic => (
                Dialect::Anthropic,
                format!("{base}/messages"),
                vec![("anthropic-version", "2023-06-01".to_string())],
            ),
            Backend::Gemini => (
                Dialect::Gemini,
                format!("{base}/models/{model}:generateContent"),
                Vec::new(),
            ),
            Backend::Baseline => return None,
        };
        Some(Party {
            url,
            headers,
            model,
            dialect,
            temperature: temperature.unwrap_or(OFFICIAL_TEMPERATURE),
            seed,
            max_tokens,
        })
    }

    /// The request of `body` to this party, its reply read by the caller.
    pub fn request(&self, body: Value) -> ApiRequest {
        ApiRequest {
            url: self.url.clone(),
            headers: self.headers.clone(),
            body,
            names: NameMap::default(),
            read_by_caller: true,
        }
    }
}

/// An assistant message of the history (`to_litellm_messages`): its text
/// (`null` when it has none) and its tool calls with their arguments as
/// Python's `json.dumps` writes them.
pub fn assistant_message(content: Option<&str>, calls: &[ToolCall]) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert("content".into(), json!(content));
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": dumps_value(&Value::Object(c.arguments.clone()))},
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(message)
}

/// The agent's request: its system prompt, the history, the tools (in
/// the party's API's shape: [`crate::benchmarks::tau::domain::DomainData::tools_for`]).
pub fn agent_body(party: &Party, system: &str, history: &[Value], tools: &[Value]) -> Value {
    body(party, system, history, Some(tools))
}

/// The user simulator's request: its system prompt and the flipped history.
pub fn user_body(party: &Party, system: &str, history: &[Value]) -> Value {
    body(party, system, history, None)
}

fn body(party: &Party, system: &str, history: &[Value], tools: Option<&[Value]>) -> Value {
    let sampling = Sampling {
        model: &party.model,
        temperature: party.temperature,
        max_tokens: party.max_tokens,
    };
    match party.dialect {
        Dialect::OpenAiChat => openai_body(party, system, history, tools),
        Dialect::Anthropic => anthropic_body(sampling, system, history, tools),
        Dialect::Gemini => gemini_body(sampling, system, history, tools),
    }
}

fn openai_body(party: &Party, system: &str, history: &[Value], tools: Option<&[Value]>) -> Value {
    let mut messages = vec![json!({"role": "system", "content": system})];
    messages.extend(history.iter().cloned());
    let mut body = Map::new();
    body.insert("model".into(), json!(party.model));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(tools) = tools {
        body.insert("tools".into(), Value::Array(tools.to_vec()));
        body.insert("tool_choice".into(), json!("auto"));
    }
    body.insert("temperature".into(), json!(party.temperature));
    if let Some(seed) = party.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(max) = party.max_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    Value::Object(body)
}

/// A tool call as a reply gives it: its id (when the API gives one), the
/// tool's name and the arguments.
pub type ReplyCall = (Option<String>, String, Map<String, Value>);

/// One reply: its text, its tool calls (`(id, name, arguments)`, or why
/// they cannot be read: arguments that are not a JSON object make the
/// official `ToolCall` refuse them) and its token counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The text, when there is one.
    pub content: Option<String>,
    /// The tool calls, in order.
    pub tool_calls: Result<Vec<ReplyCall>, String>,
    /// Tokens in the request and in the reply.
    pub tokens: (u64, u64),
}

/// Reads a reply of any of the three APIs (told apart by their shape); an
/// error when it is none of them.
pub fn read_reply(body: &Value) -> Result<Reply, String> {
    if let Some(message) = body.pointer("/choices/0/message") {
        return Ok(openai_reply(message, &body["usage"]));
    }
    if let Some(content) = body.get("content").and_then(Value::as_array) {
        return Ok(anthropic_reply(content, &body["usage"]));
    }
    if let Some(parts) = body
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
    {
        return Ok(gemini_reply(parts, &body["usageMetadata"]));
    }
    if body.pointer("/candidates/0").is_some() {
        return Ok(gemini_reply(&[], &body["usageMetadata"]));
    }
    Err("the reply has no message (no choices, content or candidates)".into())
}

fn tokens(usage: &Value, input: &str, output: &str) -> (u64, u64) {
    (
        usage.get(input).and_then(Value::as_u64).unwrap_or(0),
        usage.get(output).and_then(Value::as_u64).unwrap_or(0),
    )
}

/// Arguments as `json.loads` reads them into `ToolCall.arguments`.
fn arguments_object(name: &str, arguments: &Value) -> Result<Map<String, Value>, String> {
    let parsed = match arguments {
        Value::String(text) => serde_json::from_str::<Value>(text)
            .map_err(|e| format!("the arguments of `{name}` are not JSON: {e}"))?,
        other => other.clone(),
    };
    match parsed {
        Value::Object(map) => Ok(map),
        _ => Err(format!("the arguments of `{name}` are not a JSON object")),
    }
}

fn openai_reply(message: &Value, usage: &Value) -> Reply {
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_string);
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let name = c
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let arguments = c.pointer("/function/arguments").unwrap_or(&Value::Null);
                    let id = c
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|i| !i.is_empty());
                    Ok((
                        id.map(str::to_string),
                        name.to_string(),
                        arguments_object(name, arguments)?,
                    ))
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .unwrap_or(Ok(Vec::new()));
    Reply {
        content,
        tool_calls,
        tokens: tokens(usage, "prompt_tokens", "completion_tokens"),
    }
}

fn anthropic_reply(content: &[Value], usage: &Value) -> Reply {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_string()),
            Some("tool_use") => {
                let name = block["name"].as_str().unwrap_or_default();
                let id = block["id"].as_str().map(str::to_string);
                calls.push(
                    arguments_object(name, &block["input"]).map(|a| (id, name.to_string(), a)),
                );
            }
            _ => {}
        }
    }
    Reply {
        content: (!texts.is_empty()).then(|| texts.concat()),
        tool_calls: calls.into_iter().collect(),
        tokens: tokens(usage, "input_tokens", "output_tokens"),
    }
}

fn gemini_reply(parts: &[Value], usage: &Value) -> Reply {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for part in parts {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            texts.push(text.to_string());
        }
        if let Some(call) = part.get("functionCall") {
            let name = call["name"].as_str().unwrap_or_default();
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            calls.push(arguments_object(name, &args).map(|a| (None, name.to_string(), a)));
        }
    }
    Reply {
        content: (!texts.is_empty()).then(|| texts.concat()),
        tool_calls: calls.into_iter().collect(),
        tokens: tokens(usage, "promptTokenCount", "candidatesTokenCount"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::tau::format::Requestor;

    fn party(dialect: Dialect) -> Party {
        Party {
            url: String::new(),
            headers: Vec::new(),
            model: "m".into(),
            dialect,
            temperature: 0.0,
            seed: Some(1),
            max_tokens: None,
        }
    }

    fn history() -> Vec<Value> {
        let mut arguments = Map::new();
        arguments.insert("user_id".into(), json!("ü_1"));
        let call = ToolCall {
            id: "c1".into(),
            name: "get_user_details".into(),
            arguments,
            requestor: Requestor::Assistant,
        };
        vec![
            json!({"role": "assistant", "content": "Hi!"}),
            json!({"role": "user", "content": "Help."}),
            assistant_message(None, &[call]),
            json!({"role": "tool", "content": "{}", "tool_call_id": "c1"}),
        ]
    }

    fn tools() -> Vec<Value> {
        vec![
            json!({"type": "function", "function": {"name": "get_user_details",
            "description": "Get.", "parameters": {"type": "object", "properties": {}}}}),
        ]
    }

    #[test]
    fn arguments_go_back_as_python_writes_them() {
        let m = &history()[2];
        assert_eq!(m["content"], Value::Null);
        assert_eq!(
            m["tool_calls"][0]["function"]["arguments"],
            "{\"user_id\": \"\\u00fc_1\"}"
        );
    }

    #[test]
    fn anthropic_and_gemini_get_the_same_conversation_in_their_shapes() {
        let tools = tools();
        let a = agent_body(&party(Dialect::Anthropic), "Sys.", &history(), &tools);
        assert_eq!(a["system"], json!([{"type": "text", "text": "Sys."}]));
        assert_eq!(
            a["max_tokens"], 4096,
            "litellm's default for a model it does not know"
        );
        assert_eq!(
            a["messages"][0],
            json!({"role": "assistant", "content": [{"type": "text", "text": "Hi!"}]})
        );
        assert_eq!(a["messages"][2]["content"][0]["type"], "tool_use");
        assert_eq!(
            a["messages"][2]["content"][0]["input"],
            json!({"user_id": "ü_1"})
        );
        assert_eq!(a["messages"][3]["content"][0]["tool_use_id"], "c1");
        assert_eq!(
            a["tools"],
            json!(tools),
            "given in Anthropic's shape already"
        );

        let g = agent_body(&party(Dialect::Gemini), "Sys.", &history(), &tools);
        assert_eq!(g["system_instruction"]["parts"][0]["text"], "Sys.");
        assert_eq!(g["contents"][0]["role"], "model");
        assert_eq!(
            g["contents"][2]["parts"][0]["function_call"]["name"],
            "get_user_details"
        );
        assert_eq!(
            g["contents"][3]["parts"][0]["function_response"],
            json!({"name": "get_user_details", "response": {}})
        );
        assert_eq!(g["toolConfig"]["functionCallingConfig"]["mode"], "AUTO");
    }

    #[test]
    fn replies_of_the_three_apis_are_read() {
        let openai = read_reply(&json!({"choices": [{"message": {"content": "ok"}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}}))
        .unwrap();
        assert_eq!(
            (openai.content.as_deref(), openai.tokens),
            (Some("ok"), (3, 1))
        );
        let claude = read_reply(
            &json!({"content": [{"type": "tool_use", "id": "t", "name": "f",
            "input": {"a": 1}}], "usage": {"input_tokens": 4, "output_tokens": 2}}),
        )
        .unwrap();
        let calls = claude.tool_calls.unwrap();
        assert_eq!(
            (calls[0].1.as_str(), calls[0].2["a"].clone()),
            ("f", json!(1))
        );
        let gemini = read_reply(&json!({"candidates": [{"content": {"parts": [
            {"text": "hm", "thought": true}, {"text": "yes"}]}}]}))
        .unwrap();
        assert_eq!(gemini.content.as_deref(), Some("yes"));
        assert!(read_reply(&json!({"id": "x"})).is_err());
    }
}
