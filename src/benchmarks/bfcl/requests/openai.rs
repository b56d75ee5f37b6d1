//! bfcl-eval's two OpenAI handlers: `OpenAIResponsesHandler` (the
//! Responses API, `POST /v1/responses`, which the official OpenAI models
//! use) and `OpenAICompletionsHandler` (Chat Completions, `POST
//! /v1/chat/completions`, for OpenAI-compatible servers).

use serde_json::{Value, json};

use super::{
    CallMode, Conversation, Handler, Protocol, Reply, Responses, Sampling, results_for_prompt,
};

/// `OpenAIResponsesHandler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenAiResponses(pub CallMode);

/// `OpenAICompletionsHandler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenAiChat(pub CallMode);

impl Handler for OpenAiResponses {
    fn mode(&self) -> CallMode {
        self.0
    }

    fn path(&self, _model: &str) -> String {
        "/responses".into()
    }

    /// `system` becomes `developer`.
    fn message(&self, role: &str, content: &str) -> Value {
        let role = if role == "system" { "developer" } else { role };
        json!({"role": role, "content": content})
    }

    /// Flat tools: `{name, description, parameters, …, "type": "function"}`.
    fn compile_tools(&self, protocol: &Protocol, functions: &[Value]) -> Vec<Value> {
        protocol
            .openapi_functions(functions)
            .into_iter()
            .map(|mut tool| {
                if let Value::Object(map) = &mut tool {
                    map.insert("type".into(), json!("function"));
                }
                tool
            })
            .collect()
    }

    fn body(&self, conversation: &Conversation, model: &str, sampling: &Sampling) -> Value {
        let mut body = json!({
            "input": conversation.messages,
            "model": model,
            "store": false,
            "temperature": sampling.temperature,
        });
        if let Some(max) = sampling.max_tokens {
            body["max_output_tokens"] = json!(max);
        }
        if self.0 == CallMode::FunctionCalling && !conversation.tools.is_empty() {
            body["tools"] = Value::Array(conversation.tools.clone());
        }
        body
    }

    /// The `function_call` items' `{name: arguments}` in output order (FC
    /// mode), else `output_text`; every output item goes back into the
    /// conversation as it came.
    fn read_reply(&self, body: &Value) -> Result<Reply, String> {
        let items = body
            .get("output")
            .and_then(Value::as_array)
            .ok_or("no output list in the response")?;
        let (mut text, mut calls, mut call_ids, mut reasoning) =
            (String::new(), Vec::new(), Vec::new(), String::new());
        for item in items {
            match item.get("type").and_then(Value::as_str) {
                Some("message") => {
                    for part in item
                        .get("content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if part.get("type").and_then(Value::as_str) == Some("output_text")
                            && let Some(t) = part.get("text").and_then(Value::as_str)
                        {
                            text.push_str(t);
                        }
                    }
                }
                Some("function_call") => {
                    let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
                    let arguments = item.get("arguments").cloned().unwrap_or(Value::Null);
                    calls.push((name.to_string(), arguments));
                    let id = item
                        .get("call_id")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    call_ids.push(id.to_string());
                }
                Some("reasoning") => {
                    for part in item
                        .get("summary")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if let Some(t) = part.get("text").and_then(Value::as_str) {
                            reasoning.push_str(t);
                            reasoning.push('\n');
                        }
                    }
                }
                _ => {}
            }
        }
        let responses = if self.0 == CallMode::FunctionCalling && !calls.is_empty() {
            Responses::Calls(calls)
        } else {
            Responses::Text(text)
        };
        Ok(Reply {
            responses,
            history: items.clone(),
            call_ids,
            reasoning,
            tokens: tokens(body, "input_tokens", "output_tokens"),
        })
    }

    /// FC: one `function_call_output` per call; prompt: one user message.
    fn add_results(
        &self,
        conversation: &mut Conversation,
        results: &[String],
        calls: &[String],
        reply: &Reply,
    ) {
        add_results_as(
            self.0,
            conversation,
            results,
            calls,
            reply,
            |result, id| json!({"type": "function_call_output", "call_id": id, "output": result}),
        );
    }
}

impl Handler for OpenAiChat {
    fn mode(&self) -> CallMode {
        self.0
    }

    fn path(&self, _model: &str) -> String {
        "/chat/completions".into()
    }

    /// Roles as written.
    fn message(&self, role: &str, content: &str) -> Value {
        json!({"role": role, "content": content})
    }

    /// Tools as `{"type": "function", "function": {…}}`.
    fn compile_tools(&self, protocol: &Protocol, functions: &[Value]) -> Vec<Value> {
        protocol
            .openapi_functions(functions)
            .into_iter()
            .map(|function| json!({"type": "function", "function": function}))
            .collect()
    }

    fn body(&self, conversation: &Conversation, model: &str, sampling: &Sampling) -> Value {
        let mut body = json!({
            "messages": conversation.messages,
            "model": model,
            "temperature": sampling.temperature,
            "store": false,
        });
        if let Some(max) = sampling.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if self.0 == CallMode::FunctionCalling && !conversation.tools.is_empty() {
            body["tools"] = Value::Array(conversation.tools.clone());
        }
        body
    }

    /// The message's `tool_calls` as `{name: arguments}` (FC mode, when
    /// it has a list of them), else its `content`; the message goes back
    /// into the conversation as it came.
    fn read_reply(&self, body: &Value) -> Result<Reply, String> {
        let message = body
            .pointer("/choices/0/message")
            .filter(|m| m.is_object())
            .ok_or("no choices[0].message in the response")?;
        let tool_calls = message.get("tool_calls").and_then(Value::as_array);
        let (responses, call_ids) = match (self.0, tool_calls) {
            (CallMode::FunctionCalling, Some(tool_calls)) => {
                let calls = tool_calls
                    .iter()
                    .map(|c| {
                        let name = c.pointer("/function/name").and_then(Value::as_str);
                        let arguments = c.pointer("/function/arguments").cloned();
                        (
                            name.unwrap_or_default().to_string(),
                            arguments.unwrap_or(Value::Null),
                        )
                    })
                    .collect();
                let ids = tool_calls
                    .iter()
                    .map(|c| {
                        c.get("id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    })
                    .collect();
                (Responses::Calls(calls), ids)
            }
            _ => {
                let text = message
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                (Responses::Text(text.to_string()), Vec::new())
            }
        };
        let reasoning = message
            .get("reasoning_content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Ok(Reply {
            responses,
            history: vec![message.clone()],
            call_ids,
            reasoning,
            tokens: tokens(body, "prompt_tokens", "completion_tokens"),
        })
    }

    /// FC: one `tool` message per call; prompt: one user message.
    fn add_results(
        &self,
        conversation: &mut Conversation,
        results: &[String],
        calls: &[String],
        reply: &Reply,
    ) {
        add_results_as(
            self.0,
            conversation,
            results,
            calls,
            reply,
            |result, id| json!({"role": "tool", "content": result, "tool_call_id": id}),
        );
    }
}

/// The results of a step: in function-calling mode one `item(result,
/// call id)` per call, in call order; in prompt mode one user message
/// ([`results_for_prompt`]).
fn add_results_as(
    mode: CallMode,
    conversation: &mut Conversation,
    results: &[String],
    calls: &[String],
    reply: &Reply,
    item: impl Fn(&str, &str) -> Value,
) {
    match mode {
        CallMode::FunctionCalling => {
            for (result, id) in results.iter().zip(&reply.call_ids) {
                conversation.messages.push(item(result, id));
            }
        }
        CallMode::Prompt => conversation.messages.push(json!({
            "role": "user",
            "content": results_for_prompt(results, calls),
        })),
    }
}

/// The usage's two token counts (0 when absent).
fn tokens(body: &Value, input: &str, output: &str) -> (u64, u64) {
    let count = |field: &str| {
        body.get("usage")
            .and_then(|u| u.get(field))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    (count(input), count(output))
}
