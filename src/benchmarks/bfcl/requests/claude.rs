//! bfcl-eval's `ClaudeHandler`: Anthropic's Messages API (`POST
//! /v1/messages`, header `anthropic-version: 2023-06-01`).

use serde_json::{Value, json};

use super::{CallMode, Conversation, Handler, Protocol, Reply, Responses, Sampling};
use super::{results_for_prompt, usage_tokens};
use crate::benchmarks::python::dumps::dumps_value;

/// The `max_tokens` the handler sends for the Claude 4.5 models
/// (`_get_max_tokens`); the API requires the field.
pub const CLAUDE_MAX_TOKENS: u32 = 64_000;

/// `ClaudeHandler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claude(pub CallMode);

/// The prompt-caching marker claude.py puts on multi-turn requests.
fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// A text block.
fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A message's role.
pub(super) fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

impl Handler for Claude {
    fn mode(&self) -> CallMode {
        self.0
    }

    fn path(&self, _model: &str) -> String {
        "/messages".into()
    }

    fn headers(&self) -> Vec<(&'static str, String)> {
        let version = crate::models::providers::anthropic::API_VERSION;
        vec![("anthropic-version", version.to_string())]
    }

    /// The content as one text block; a system message keeps its role
    /// until [`Handler::body`] moves it to `system`.
    fn message(&self, role: &str, content: &str) -> Value {
        json!({"role": role, "content": [text_block(content)]})
    }

    /// `{name, description, input_schema}`: OpenAI's conversion with
    /// `parameters` renamed, a `response` schema moved into the description.
    fn compile_tools(&self, protocol: &Protocol, functions: &[Value]) -> Vec<Value> {
        protocol
            .openapi_functions(functions)
            .into_iter()
            .map(|mut tool| {
                if let Value::Object(map) = &mut tool {
                    if let Some(parameters) = map.remove("parameters") {
                        map.insert("input_schema".into(), parameters);
                    }
                    describe_response(map);
                }
                tool
            })
            .collect()
    }

    /// The first system message set apart (`extract_system_prompt`), then
    /// consecutive user messages merged with a blank line
    /// (`combine_consecutive_user_prompts`).
    fn add_user_messages(&self, conversation: &mut Conversation, messages: Vec<Value>) {
        let has_system = conversation
            .messages
            .iter()
            .any(|m| role(m) == Some("system"));
        let mut system = None;
        let mut merged: Vec<Value> = Vec::new();
        for message in messages {
            if role(&message) == Some("system") && system.is_none() && !has_system {
                system = Some(message);
                continue;
            }
            let text = message.pointer("/content/0/text").and_then(Value::as_str);
            if let (Some("user"), Some(text), Some(last)) =
                (role(&message), text, merged.last_mut())
                && role(last) == Some("user")
                && let Some(Value::String(previous)) = last.pointer_mut("/content/0/text")
            {
                previous.push_str("\n\n");
                previous.push_str(text);
                continue;
            }
            merged.push(message);
        }
        conversation.messages.extend(system);
        conversation.messages.extend(merged);
    }

    /// `{model, max_tokens, temperature, messages}`, `tools` in FC mode
    /// (`[]` too), `system` when there is one; in a multi-turn
    /// conversation the cache markers on the system block, the first block
    /// of the last two user messages and the last tool.
    fn body(&self, conversation: &Conversation, model: &str, sampling: &Sampling) -> Value {
        let mut system = None;
        let mut messages = Vec::new();
        for message in &conversation.messages {
            if system.is_none() && role(message) == Some("system") {
                system = message.get("content").cloned();
            } else {
                messages.push(message.clone());
            }
        }
        let mut tools = conversation.tools.clone();
        if conversation.multi_turn {
            mark_for_caching(&mut system, &mut messages, &mut tools);
        }
        let mut body = json!({
            "model": model,
            "max_tokens": sampling.max_tokens.unwrap_or(CLAUDE_MAX_TOKENS),
            "temperature": sampling.temperature,
            "messages": messages,
        });
        if self.0 == CallMode::FunctionCalling {
            body["tools"] = Value::Array(tools);
        }
        if let Some(system) = system {
            body["system"] = system;
        }
        body
    }

    /// FC: the `tool_use` blocks as calls (`input` as arguments), else the
    /// list of the text blocks; the content goes back as an assistant message. Prompt:
    /// the first block's text, which goes back as the message's content.
    fn read_reply(&self, body: &Value) -> Result<Reply, String> {
        let content = body
            .get("content")
            .and_then(Value::as_array)
            .ok_or("no content list in the response")?;
        let tokens = usage_tokens(body.get("usage"), "input_tokens", "output_tokens");
        if self.0 == CallMode::Prompt {
            let text = content
                .first()
                .and_then(|b| b.get("text"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            return Ok(Reply {
                history: vec![json!({"role": "assistant", "content": text})],
                responses: Responses::Text(text),
                call_ids: Vec::new(),
                reasoning: String::new(),
                tokens,
            });
        }
        let (mut texts, mut calls, mut call_ids) = (Vec::new(), Vec::new(), Vec::new());
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => texts.push(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                ),
                Some("tool_use") => {
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    // `json.dumps(content.input)`: the checker reads it back.
                    let input = block.get("input").unwrap_or(&Value::Null);
                    calls.push((name.to_string(), Value::String(dumps_value(input))));
                    let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                    call_ids.push(id.to_string());
                }
                _ => {}
            }
        }
        Ok(Reply {
            responses: if calls.is_empty() {
                Responses::Texts(texts)
            } else {
                Responses::Calls(calls)
            },
            history: vec![json!({"role": "assistant", "content": content})],
            call_ids,
            reasoning: String::new(),
            tokens,
        })
    }

    /// FC: one user message of `tool_result` blocks; prompt: one user
    /// message with the results' text.
    fn add_results(
        &self,
        conversation: &mut Conversation,
        results: &[String],
        calls: &[String],
        reply: &Reply,
    ) {
        let content: Vec<Value> = match self.0 {
            CallMode::FunctionCalling => results
                .iter()
                .zip(&reply.call_ids)
                .map(|(result, id)| {
                    json!({"type": "tool_result", "content": result, "tool_use_id": id})
                })
                .collect(),
            CallMode::Prompt => vec![text_block(&results_for_prompt(results, calls))],
        };
        conversation
            .messages
            .push(json!({"role": "user", "content": content}));
    }
}

/// `convert_to_tool` for Anthropic (and Google): a function's `response`
/// schema leaves the tool and is described at the end of its description.
pub(super) fn describe_response(tool: &mut serde_json::Map<String, Value>) {
    let Some(response) = tool.remove("response") else {
        return;
    };
    use crate::benchmarks::python::{dumps::json_dumps, json::json_loads_str};
    let schema = json_loads_str(&response.to_string())
        .ok()
        .and_then(|value| json_dumps(&value).ok())
        .unwrap_or_else(|| response.to_string());
    if let Some(Value::String(description)) = tool.get_mut("description") {
        description.push_str(" The response field has the following schema: ");
        description.push_str(&schema);
    }
}

/// claude.py's `cache_control` markers (`caching_enabled` for multi-turn
/// categories): the system block, the first block of the last two user
/// messages, the last tool.
fn mark_for_caching(system: &mut Option<Value>, messages: &mut [Value], tools: &mut [Value]) {
    if let Some(Some(first)) = system.as_mut().map(|s| s.get_mut(0)) {
        first["cache_control"] = ephemeral();
    }
    for message in messages
        .iter_mut()
        .rev()
        .filter(|m| role(m) == Some("user"))
        .take(2)
    {
        if let Some(first) = message.pointer_mut("/content/0")
            && first.is_object()
        {
            first["cache_control"] = ephemeral();
        }
    }
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = ephemeral();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn functions() -> Vec<Value> {
        json!([
            {"name": "fs.cd", "description": "Cd.", "parameters": {"type": "dict",
                "properties": {"folder": {"type": "string", "description": "F."}}, "required": ["folder"]}},
            {"name": "ls", "description": "Ls.", "parameters": {"type": "dict", "properties": {}},
                "response": {"type": "dict", "properties": {"files": {"type": "array"}}}}
        ])
        .as_array()
        .unwrap()
        .clone()
    }

    /// The body claude.py builds for a multi-turn entry after one call and
    /// its result and the next turn's message (read from `_query_FC` with
    /// the same steps).
    #[test]
    fn a_multi_turn_conversation_carries_claudes_cache_markers() {
        let handler = Claude(CallMode::FunctionCalling);
        let mut conversation = Conversation {
            tools: handler.compile_tools(Protocol::builtin(), &functions()),
            multi_turn: true,
            ..Conversation::default()
        };
        let first = [("system", "Sys."), ("user", "A"), ("user", "B")];
        let first = first.iter().map(|(r, c)| handler.message(r, c)).collect();
        handler.add_user_messages(&mut conversation, first);
        let sampling = Sampling::default();
        let body = handler.body(&conversation, "claude-sonnet-4-5-20250929", &sampling);
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": [{"type": "text", "text": "A\n\nB",
                "cache_control": {"type": "ephemeral"}}]}])
        );
        let reply = handler
            .read_reply(&json!({"content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "tu_1", "name": "fs_cd", "input": {"folder": "x"}}],
                "usage": {"input_tokens": 7, "output_tokens": 3}}))
            .unwrap();
        assert_eq!(
            reply.responses,
            Responses::Calls(vec![("fs_cd".into(), json!("{\"folder\": \"x\"}"))])
        );
        assert_eq!(
            (reply.call_ids.clone(), reply.tokens),
            (vec!["tu_1".into()], (7, 3))
        );
        handler.add_reply(&mut conversation, &reply);
        handler.add_results(
            &mut conversation,
            &["done".into()],
            &["cd(folder='x')".into()],
            &reply,
        );
        handler.add_user_messages(&mut conversation, vec![handler.message("user", "C")]);
        let body = handler.body(&conversation, "claude-sonnet-4-5-20250929", &sampling);
        let cache = json!({"type": "ephemeral"});
        assert_eq!(
            body,
            json!({
                "model": "claude-sonnet-4-5-20250929", "max_tokens": 64000, "temperature": 0.001,
                "tools": [
                    {"name": "fs_cd", "description": "Cd.", "input_schema": {"type": "object",
                        "properties": {"folder": {"type": "string", "description": "F."}}, "required": ["folder"]}},
                    {"name": "ls", "description": "Ls. The response field has the following schema: {\"type\": \"dict\", \"properties\": {\"files\": {\"type\": \"array\"}}}",
                        "input_schema": {"type": "object", "properties": {}}, "cache_control": cache}],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "A\n\nB"}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "ok"},
                        {"type": "tool_use", "id": "tu_1", "name": "fs_cd", "input": {"folder": "x"}}]},
                    {"role": "user", "content": [{"type": "tool_result", "content": "done",
                        "tool_use_id": "tu_1", "cache_control": cache}]},
                    {"role": "user", "content": [{"type": "text", "text": "C", "cache_control": cache}]}],
                "system": [{"type": "text", "text": "Sys.", "cache_control": cache}]
            })
        );
    }

    #[test]
    fn a_single_turn_body_has_no_markers_and_fc_sends_empty_tools() {
        let handler = Claude(CallMode::FunctionCalling);
        let mut conversation = Conversation::default();
        handler.add_user_messages(&mut conversation, vec![handler.message("user", "Hi")]);
        let sampling = Sampling {
            temperature: 0.5,
            max_tokens: Some(100),
        };
        assert_eq!(
            handler.body(&conversation, "m", &sampling),
            json!({"model": "m", "max_tokens": 100, "temperature": 0.5, "tools": [],
                "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]})
        );
        let prompt = Claude(CallMode::Prompt).body(&conversation, "m", &sampling);
        assert!(prompt.get("tools").is_none() && prompt.get("system").is_none());
    }

    #[test]
    fn prompt_mode_reads_the_first_text_and_sends_results_as_text() {
        let handler = Claude(CallMode::Prompt);
        let reply = handler
            .read_reply(
                &json!({"content": [{"type": "text", "text": "[cd(folder='x')]"},
                {"type": "text", "text": "more"}]}),
            )
            .unwrap();
        assert_eq!(reply.responses, Responses::Text("[cd(folder='x')]".into()));
        assert_eq!(
            reply.history,
            [json!({"role": "assistant", "content": "[cd(folder='x')]"})]
        );
        let mut conversation = Conversation::default();
        handler.add_results(
            &mut conversation,
            &["ok".into()],
            &["cd(folder='x')".into()],
            &reply,
        );
        assert_eq!(
            conversation.messages,
            [json!({"role": "user", "content": [{"type": "text",
                "text": "[{'role': 'tool', 'name': \"cd(folder='x')\", 'content': 'ok'}]"}]})]
        );
        // A function-calling answer without calls is the list of its texts,
        // an empty list when it has no content.
        let fc = Claude(CallMode::FunctionCalling);
        let texts = fc
            .read_reply(&json!({"content": [{"type": "text", "text": "No."},
                {"type": "text", "text": "Sorry."}]}))
            .unwrap();
        assert_eq!(
            texts.responses,
            Responses::Texts(vec!["No.".into(), "Sorry.".into()])
        );
        assert_eq!(texts.responses.to_json(), json!(["No.", "Sorry."]));
        let empty = fc.read_reply(&json!({"content": []})).unwrap();
        assert_eq!(empty.responses.to_json(), json!([]));
        assert!(handler.read_reply(&json!({"id": "x"})).is_err());
    }
}
