//! The requests litellm (1.81.11, the version the official harness pins)
//! makes of the official messages for Anthropic and Gemini models: the
//! official harness asks every model through `litellm.completion` with
//! OpenAI-shaped messages, and litellm rewrites them for these two APIs
//! (`anthropic_messages_pt` and `_gemini_convert_messages_with_history` of
//! litellm). Ported behaviour for behaviour, for the messages a τ
//! conversation holds (text, tool calls, tool results). What litellm takes
//! from its own data (the output limit of each Claude model, the tool
//! schemas as it rewrites them for each API) is data here:
//! `datasets/ood/tau/litellm.json`, written by
//! `scripts/tau/record_provider_requests.py` with the pinned litellm, which
//! also records the requests `tests`'s vectors compare with.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Domain;
use crate::benchmarks::python::value::is_space_char as is_py_space;

/// The APIs litellm rewrites the messages for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Anthropic's Messages API.
    Anthropic,
    /// Gemini's `generateContent`.
    Gemini,
}

/// `datasets/ood/tau/litellm.json`.
#[derive(Debug, Deserialize)]
struct LitellmData {
    /// `DEFAULT_ANTHROPIC_CHAT_MAX_TOKENS`.
    anthropic_default_max_tokens: u32,
    /// The output limit of each Claude model litellm's model map knows.
    anthropic_max_tokens: HashMap<String, u32>,
    /// Per domain and provider, the `tools` field of an agent request.
    tools: HashMap<String, ProviderTools>,
}

/// A domain's tools as litellm sends them to each provider.
#[derive(Debug, Deserialize)]
struct ProviderTools {
    anthropic: Vec<Value>,
    gemini: Vec<Value>,
}

const LITELLM_JSON: &str = include_str!("../../../datasets/ood/tau/litellm.json");

fn data() -> &'static LitellmData {
    static DATA: OnceLock<LitellmData> = OnceLock::new();
    DATA.get_or_init(|| {
        serde_json::from_str(LITELLM_JSON).expect("datasets/ood/tau/litellm.json is valid")
    })
}

/// A domain's tools as litellm sends them to `provider` (the request's
/// `tools` field); `None` when the data has none for the domain.
pub fn tools(domain: Domain, provider: Provider) -> Option<&'static [Value]> {
    let tools = data().tools.get(domain.as_str())?;
    Some(match provider {
        Provider::Anthropic => &tools.anthropic,
        Provider::Gemini => &tools.gemini,
    })
}

/// The output limit litellm sends to Anthropic when the caller sets none
/// (`AnthropicConfig.get_max_tokens_for_model`): the model map's, else
/// litellm's default.
pub fn anthropic_max_tokens(model: &str) -> u32 {
    let data = data();
    data.anthropic_max_tokens
        .get(model)
        .copied()
        .unwrap_or(data.anthropic_default_max_tokens)
}

/// What a request asks besides its messages.
#[derive(Debug, Clone, Copy)]
pub struct Sampling<'a> {
    /// The model's id.
    pub model: &'a str,
    /// The temperature.
    pub temperature: f64,
    /// An output limit set by the user (not by the official harness).
    pub max_tokens: Option<u32>,
}

/// The Anthropic body litellm sends: `system` as one text block, the
/// history as `anthropic_messages_pt` turns it, `tools` (already in
/// Anthropic's shape) with `tool_choice: auto`, and an output limit.
pub fn anthropic_body(
    sampling: Sampling<'_>,
    system: &str,
    history: &[Value],
    tools: Option<&[Value]>,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(sampling.model));
    body.insert("messages".into(), Value::Array(anthropic_messages(history)));
    body.insert("temperature".into(), json!(sampling.temperature));
    if let Some(tools) = tools {
        body.insert("tools".into(), Value::Array(tools.to_vec()));
        body.insert("tool_choice".into(), json!({"type": "auto"}));
    }
    body.insert("system".into(), json!([{"type": "text", "text": system}]));
    let max_tokens = sampling
        .max_tokens
        .unwrap_or_else(|| anthropic_max_tokens(sampling.model));
    body.insert("max_tokens".into(), json!(max_tokens));
    Value::Object(body)
}

/// `anthropic_messages_pt` on litellm messages: each run of user and tool
/// messages becomes one user turn (texts, `tool_result` blocks), each run
/// of assistant messages one assistant turn (non-empty texts, then
/// `tool_use` blocks, a repeated call id of the run left out); a last
/// assistant turn loses trailing whitespace.
fn anthropic_messages(history: &[Value]) -> Vec<Value> {
    let role = |i: usize| history[i]["role"].as_str().unwrap_or_default();
    let mut turns = Vec::new();
    let mut i = 0;
    while i < history.len() {
        let start = i;
        let mut user = Vec::new();
        while i < history.len() && matches!(role(i), "user" | "tool") {
            let m = &history[i];
            match (role(i), &m["content"]) {
                ("user", Value::String(text)) => user.push(json!({"type": "text", "text": text})),
                ("tool", content) => user.push(json!({
                    "type": "tool_result",
                    "tool_use_id": sanitized_tool_use_id(m["tool_call_id"].as_str().unwrap_or_default()),
                    "content": content.as_str().unwrap_or_default(),
                })),
                _ => {}
            }
            i += 1;
        }
        if !user.is_empty() {
            turns.push(json!({"role": "user", "content": user}));
        }
        let mut assistant = Vec::new();
        let mut ids: Vec<&str> = Vec::new();
        while i < history.len() && role(i) == "assistant" {
            let m = &history[i];
            if let Some(text) = m["content"].as_str().filter(|t| !t.is_empty()) {
                assistant.push(json!({"type": "text", "text": text}));
            }
            for call in calls_of(m) {
                let id = call["id"].as_str().unwrap_or_default();
                if !id.is_empty() {
                    if ids.contains(&id) {
                        continue;
                    }
                    ids.push(id);
                }
                let function = &call["function"];
                assistant.push(json!({
                    "type": "tool_use",
                    "id": id,
                    "name": function["name"],
                    "input": arguments_of(function, json!({})),
                }));
            }
            i += 1;
        }
        if !assistant.is_empty() {
            turns.push(json!({"role": "assistant", "content": assistant}));
        }
        if i == start {
            // A role litellm does not take here (it raises): left out.
            i += 1;
        }
    }
    if let Some(last) = turns.last_mut().filter(|t| t["role"] == "assistant") {
        for block in last["content"].as_array_mut().into_iter().flatten() {
            if let Some(text) = block["text"].as_str().filter(|_| block["type"] == "text") {
                block["text"] = json!(text.trim_end_matches(is_py_space));
            }
        }
    }
    turns
}

/// `_sanitize_anthropic_tool_use_id`: every character outside
/// `[a-zA-Z0-9_-]` becomes `_` (an empty id becomes `tool_use_id`). litellm
/// applies it to tool results only, not to the calls.
fn sanitized_tool_use_id(id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "tool_use_id".into()
    } else {
        clean
    }
}

/// The function tool calls of an assistant message (`type: function`).
fn calls_of(message: &Value) -> impl Iterator<Item = &Value> {
    message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "function")
}

/// A call's arguments as `json.loads` reads them; `empty` for none.
fn arguments_of(function: &Value, empty: Value) -> Value {
    match function["arguments"].as_str() {
        None | Some("") => empty,
        Some(text) => serde_json::from_str(text).unwrap_or(empty),
    }
}

/// The Gemini body litellm sends: the history as
/// `_gemini_convert_messages_with_history` turns it, the system prompt as
/// `system_instruction`, `tools` (already in Gemini's shape) with
/// `functionCallingConfig` AUTO, and the sampling in `generationConfig`.
pub fn gemini_body(
    sampling: Sampling<'_>,
    system: &str,
    history: &[Value],
    tools: Option<&[Value]>,
) -> Value {
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(gemini_contents(history)));
    body.insert(
        "system_instruction".into(),
        json!({"parts": [{"text": system}]}),
    );
    if let Some(tools) = tools {
        body.insert("tools".into(), Value::Array(tools.to_vec()));
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": {"mode": "AUTO"}}),
        );
    }
    let mut config = json!({"temperature": sampling.temperature});
    if let Some(max) = sampling.max_tokens {
        config["max_output_tokens"] = json!(max);
    }
    body.insert("generationConfig".into(), config);
    Value::Object(body)
}

/// `_gemini_convert_messages_with_history` on litellm messages: runs of
/// user messages become one `user` content, runs of assistant messages one
/// `model` content (texts, then `function_call` parts, an equal part of the
/// run left out); tool results gather into one content without a role,
/// closed by the next message that is not a tool result.
fn gemini_contents(history: &[Value]) -> Vec<Value> {
    let role = |i: usize| history[i]["role"].as_str().unwrap_or_default();
    let mut contents = Vec::new();
    let mut responses: Vec<Value> = Vec::new();
    let mut last_with_calls: Option<&Value> = None;
    let mut i = 0;
    while i < history.len() {
        let start = i;
        let mut user = Vec::new();
        while i < history.len() && matches!(role(i), "user" | "system") {
            if let Some(text) = history[i]["content"].as_str() {
                user.push(json!({"text": text}));
            }
            i += 1;
        }
        if !user.is_empty() {
            contents.push(json!({"role": "user", "parts": user}));
        }
        let mut model: Vec<Value> = Vec::new();
        while i < history.len() && role(i) == "assistant" {
            let m = &history[i];
            if let Some(text) = m["content"].as_str() {
                model.push(json!({"text": text}));
            }
            if m["tool_calls"].is_array() {
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let function = &call["function"];
                    let part = json!({"function_call": {
                        "name": function["name"].as_str().unwrap_or_default(),
                        "args": arguments_of(function, json!({"type": "object"})),
                    }});
                    if !model.contains(&part) {
                        model.push(part);
                    }
                }
                last_with_calls = Some(m);
            }
            i += 1;
        }
        if !model.is_empty() {
            contents.push(json!({"role": "model", "parts": model}));
        }
        if i < history.len() && role(i) == "tool" {
            responses.push(function_response(&history[i], last_with_calls));
            i += 1;
        }
        if i < history.len() && role(i) != "tool" && !responses.is_empty() {
            contents.push(json!({"parts": std::mem::take(&mut responses)}));
        }
        if i == start {
            // A role litellm does not take here (it raises): left out.
            i += 1;
        }
    }
    if !responses.is_empty() {
        contents.push(json!({"parts": responses}));
    }
    if contents.is_empty() {
        contents.push(json!({"role": "user", "parts": [{"text": " "}]}));
    }
    contents
}

/// `convert_to_gemini_tool_call_result`: the tool's name found by the call
/// id in the last message with calls; the result as the object its text
/// holds when it is a JSON object, else `{"content": text}`.
fn function_response(message: &Value, last_with_calls: Option<&Value>) -> Value {
    let id = message["tool_call_id"].as_str();
    let name = last_with_calls
        .into_iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .filter(|c| id.is_some() && c["id"].as_str() == id)
        .filter_map(|c| c["function"]["name"].as_str())
        .next_back()
        .unwrap_or_default();
    let text = message["content"].as_str().unwrap_or_default();
    let trimmed = text.trim_matches(is_py_space);
    let response = match trimmed.starts_with(['{', '[']) {
        true => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Value::Object(object),
            _ => json!({"content": text}),
        },
        false => json!({"content": text}),
    };
    json!({"function_response": {"name": name, "response": response}})
}

#[cfg(test)]
mod tests {
    use std::io::BufRead;

    use super::*;

    /// `datasets/ood/tau/retail/reference/provider_requests.jsonl.gz`: the
    /// requests litellm made of the official messages.
    fn recorded() -> Vec<Value> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("datasets/ood/tau/retail/reference/provider_requests.jsonl.gz");
        let file = std::fs::File::open(&path).unwrap();
        std::io::BufReader::new(flate2::read::GzDecoder::new(file))
            .lines()
            .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
            .collect()
    }

    /// A litellm message as a conversation of itc keeps it: without the
    /// `null` tool calls and the `name` beside each call.
    fn as_kept(message: &Value) -> Value {
        let mut message = message.clone();
        let object = message.as_object_mut().unwrap();
        if object.get("tool_calls") == Some(&Value::Null) {
            object.remove("tool_calls");
        }
        for call in object
            .get_mut("tool_calls")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            call.as_object_mut().unwrap().remove("name");
        }
        message
    }

    #[test]
    fn every_recorded_request_is_rebuilt_exactly() {
        let recorded = recorded();
        assert_eq!(recorded.len(), 172);
        for r in &recorded {
            let place = format!(
                "{} {} {} at {}",
                r["trajectory"], r["model"], r["party"], r["index"]
            );
            let messages = r["messages"].as_array().unwrap();
            assert_eq!(messages[0]["role"], "system", "{place}");
            let system = messages[0]["content"].as_str().unwrap();
            let provider = match r["provider"].as_str().unwrap() {
                "anthropic" => Provider::Anthropic,
                _ => Provider::Gemini,
            };
            let model = r["model"].as_str().unwrap().split_once('/').unwrap().1;
            let sampling = Sampling {
                model,
                temperature: 0.0,
                max_tokens: None,
            };
            let tools = (r["party"] == "agent").then(|| tools(Domain::Retail, provider).unwrap());
            let kept: Vec<Value> = messages[1..].iter().map(as_kept).collect();
            for history in [&messages[1..], kept.as_slice()] {
                let body = match provider {
                    Provider::Anthropic => anthropic_body(sampling, system, history, tools),
                    Provider::Gemini => gemini_body(sampling, system, history, tools),
                };
                // Equal as JSON, key order included.
                assert_eq!(
                    serde_json::to_string(&body).unwrap(),
                    serde_json::to_string(&r["body"]).unwrap(),
                    "{place}"
                );
            }
        }
    }

    #[test]
    fn output_limits_follow_litellm_s_model_map() {
        assert_eq!(anthropic_max_tokens("claude-3-5-sonnet-latest"), 8192);
        assert_eq!(anthropic_max_tokens("claude-sonnet-4-20250514"), 64000);
        assert_eq!(anthropic_max_tokens("claude-opus-4-1"), 32000);
        assert_eq!(anthropic_max_tokens("not-a-claude"), 4096);
    }

    #[test]
    fn tool_results_and_ids_are_rewritten_as_litellm_does() {
        assert_eq!(sanitized_tool_use_id("call:1/ü"), "call_1__");
        assert_eq!(sanitized_tool_use_id(""), "tool_use_id");
        let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": ""}});
        let history = [
            json!({"role": "assistant", "content": "", "tool_calls": [call("a.1"), call("a.1")]}),
            json!({"role": "tool", "tool_call_id": "a.1", "content": " [1, 2]"}),
            json!({"role": "tool", "tool_call_id": "a.1", "content": "\u{a0}{\"k\": 1}"}),
            json!({"role": "tool", "tool_call_id": "a.1", "content": " {\"k\": 1}"}),
            json!({"role": "assistant", "content": "Done.  \n"}),
        ];
        let sampling = Sampling {
            model: "m",
            temperature: 0.5,
            max_tokens: Some(7),
        };
        let a = anthropic_body(sampling, "S", &history, None);
        let turns = a["messages"].as_array().unwrap();
        // The empty text is left out, the repeated call id too; results keep their text.
        assert_eq!(
            turns[0]["content"],
            json!([{"type": "tool_use", "id": "a.1", "name": "f", "input": {}}])
        );
        assert_eq!(turns[1]["content"][0]["tool_use_id"], "a_1");
        assert_eq!(turns[1]["content"][1]["content"], "\u{a0}{\"k\": 1}");
        assert_eq!(
            turns[2]["content"][0]["text"], "Done.",
            "a last assistant turn is right-stripped"
        );
        assert_eq!(a["max_tokens"], 7);
        let g = gemini_body(sampling, "S", &history, None);
        let contents = g["contents"].as_array().unwrap();
        // The empty text is kept, the equal call part left out; an empty
        // argument string gives `{"type": "object"}`.
        assert_eq!(
            contents[0]["parts"],
            json!([{"text": ""}, {"function_call": {"name": "f", "args": {"type": "object"}}}])
        );
        // A list is not an object, and `json.loads` refuses U+00A0 before
        // the object (though `strip` sees a space): both kept as text.
        assert_eq!(
            contents[1],
            json!({"parts": [
                {"function_response": {"name": "f", "response": {"content": " [1, 2]"}}},
                {"function_response": {"name": "f", "response": {"content": "\u{a0}{\"k\": 1}"}}},
                {"function_response": {"name": "f", "response": {"k": 1}}}]})
        );
        assert_eq!(contents[2]["parts"][0]["text"], "Done.  \n");
        assert_eq!(
            g["generationConfig"],
            json!({"temperature": 0.5, "max_output_tokens": 7})
        );
        assert_eq!(g.get("tools"), None);
    }
}
