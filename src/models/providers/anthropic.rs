//! Anthropic Messages (`POST {base}/messages`).
//!
//! Anthropic has no JSON-schema response format for plain answers, so the
//! *structured* mode asks for the answer shape through the prompt.

use serde_json::{Value, json};

use crate::models::backend::{
    Answer, ApiRequest, BackendApi, Chat, NativeTurn, RequestSettings, Served, ShownStep, count,
    error_object, native_call, output_text,
};
use crate::models::config::{ApiKey, Backend, Mode};
use crate::models::reasoning::{join_reasoning, split_reasoning};
use crate::models::tools::{Dialect, NameMap, parameters_schema};
use crate::spec::records::{Task, Usage};

/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";

/// The Messages backend.
#[derive(Debug, Clone)]
pub struct Anthropic {
    settings: RequestSettings,
}

impl Anthropic {
    /// A backend sending requests shaped by `settings`.
    pub fn new(settings: RequestSettings) -> Anthropic {
        Anthropic { settings }
    }

    /// A body with the model, the length limit, a system prompt, one user
    /// message and the temperature.
    fn messages_body(&self, system: String, user: String) -> Value {
        let s = &self.settings;
        let mut body = json!({
            "model": s.model_id,
            "max_tokens": s.max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        });
        if let Some(t) = s.temperature {
            body["temperature"] = json!(t);
        }
        body
    }
}

impl BackendApi for Anthropic {
    fn kind(&self) -> Backend {
        Backend::Anthropic
    }

    fn build(&self, task: &Task) -> ApiRequest {
        let s = &self.settings;
        // No server-side schema: the structured mode keeps the shape in the prompt.
        let prompt = s.prompt(task, false);
        let names = NameMap::for_tools(&task.tools);
        let mut body = self.messages_body(prompt.system, prompt.user);
        if s.mode == Mode::Native {
            let tools: Vec<Value> = task
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "name": names.api_name(&t.name),
                        "description": t.description,
                        "input_schema": parameters_schema(t, Dialect::JsonSchema),
                    })
                })
                .collect();
            body["tools"] = json!(tools);
        }
        ApiRequest {
            url: format!("{}/messages", s.base_url),
            headers: vec![("anthropic-version", API_VERSION.to_string())],
            body: s.finish_body(body),
            names,
            read_by_caller: false,
        }
    }

    fn build_chat(&self, chat: &Chat) -> ApiRequest {
        let s = &self.settings;
        let body = self.messages_body(chat.system.clone(), chat.user.clone());
        ApiRequest {
            url: format!("{}/messages", s.base_url),
            headers: vec![("anthropic-version", API_VERSION.to_string())],
            body: s.finish_body(body),
            names: NameMap::default(),
            read_by_caller: false,
        }
    }

    fn auth_headers(&self, key: &ApiKey) -> Vec<(&'static str, String)> {
        vec![("x-api-key", key.expose().to_string())]
    }

    fn parse(&self, body: &Value, names: &NameMap) -> Result<Answer, String> {
        if body.get("type").and_then(Value::as_str) == Some("error")
            && let Some(error) = error_object(body)
        {
            return Err(error);
        }
        let blocks = body
            .get("content")
            .and_then(Value::as_array)
            .ok_or("no content list in the response")?;
        let mut text = String::new();
        let mut thinking = Vec::new();
        let mut calls = Vec::new();
        let mut call_ids = Vec::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                Some("thinking") => thinking.push(
                    block
                        .get("thinking")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                ),
                Some("tool_use") => {
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    calls.push(native_call(name, block.get("input"), names));
                    let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                    call_ids.push(id.to_string());
                }
                _ => {}
            }
        }
        let (output, think) = split_reasoning(&text);
        thinking.push(think);
        let usage = body.get("usage").filter(|u| u.is_object()).map(|u| Usage {
            prompt_tokens: count(u, "input_tokens")
                .saturating_add(count(u, "cache_creation_input_tokens"))
                .saturating_add(count(u, "cache_read_input_tokens")),
            completion_tokens: count(u, "output_tokens"),
        });
        // Every block goes back as it came (thinking blocks carry signatures).
        let native = (!calls.is_empty()).then(|| NativeTurn {
            message: json!({"role": "assistant", "content": blocks}),
            call_ids,
        });
        Ok(Answer {
            output: (!blocks.is_empty() || !output.is_empty()).then_some(output),
            calls: (!calls.is_empty()).then_some(calls),
            reasoning: join_reasoning(thinking),
            usage,
            native,
            served: Served::read(body, "/model", None),
            raw: None,
        })
    }

    fn append_steps(&self, body: &mut Value, steps: &[&ShownStep]) {
        let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
            return;
        };
        for step in steps {
            match step.tool_results(self.settings.mode) {
                Some(turn) => {
                    messages.push(turn.message.clone());
                    let results: Vec<Value> = turn
                        .call_ids
                        .iter()
                        .zip(&step.outputs)
                        .map(|(id, output)| {
                            json!({"type": "tool_result", "tool_use_id": id,
                                "content": output_text(output)})
                        })
                        .collect();
                    messages.push(json!({"role": "user", "content": results}));
                }
                None => {
                    messages.push(json!({"role": "assistant",
                        "content": step.output.clone().unwrap_or_default()}));
                    messages.push(json!({"role": "user", "content": step.observation()}));
                }
            }
        }
    }

    fn append_note(&self, body: &mut Value, note: &str) {
        let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
            return;
        };
        let part = json!({"type": "text", "text": note});
        match messages.last_mut() {
            Some(last) if last["role"] == "user" => {
                let content = last["content"].take();
                last["content"] = match content {
                    Value::Array(mut parts) => {
                        parts.push(part);
                        Value::Array(parts)
                    }
                    Value::String(text) => json!([{"type": "text", "text": text}, part]),
                    _ => json!([part]),
                };
            }
            _ => messages.push(json!({"role": "user", "content": note})),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::prompt::render;
    use crate::spec::records::{Call, Value as V};

    fn task() -> Task {
        serde_json::from_value(json!({
            "id": "t1", "kind": "single", "language": "fr", "query": "Météo à Lyon ?",
            "tools": [{"name": "météo/ville", "description": "Prévisions",
                       "required_parameters": [{"name": "ville", "type": "string", "description": "Ville"}]}],
            "gold": {"calls": []}
        }))
        .unwrap()
    }

    fn backend(mode: Mode) -> Anthropic {
        Anthropic::new(RequestSettings {
            base_url: "https://api.anthropic.com/v1".into(),
            model_id: "claude-x".into(),
            mode,
            prompt_style: Default::default(),
            system_template: None,
            temperature: None,
            max_tokens: 512,
            extra_body: None,
        })
    }

    #[test]
    fn a_conversation_sends_tool_results_by_tool_use_id() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        let api = Anthropic::new(RequestSettings {
            base_url: "https://api.anthropic.com/v1".into(),
            model_id: "claude".into(),
            mode: Mode::Native,
            prompt_style: Default::default(),
            system_template: None,
            temperature: None,
            max_tokens: 100,
            extra_body: None,
        });
        let blocks = json!([
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "tool_use", "id": "tu_1", "name": names.api_name("météo/ville"), "input": {"ville": "Lyon"}}]);
        let answer = api.parse(&json!({"content": blocks}), &names).unwrap();
        let step = ShownStep {
            output: answer.output.clone(),
            native: answer.native.clone(),
            calls: answer.calls.clone().unwrap(),
            outputs: vec![json!({"temp": 12})],
        };
        let mut request = api.build(&t);
        api.append_steps(&mut request.body, &[&step]);
        let messages = request.body["messages"].as_array().unwrap();
        assert_eq!(messages[1], json!({"role": "assistant", "content": blocks}));
        assert_eq!(
            messages[2],
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "{\"temp\":12}"}]})
        );
    }

    #[test]
    fn prompt_and_structured_bodies() {
        let t = task();
        for mode in [Mode::Prompt, Mode::Structured] {
            let req = backend(mode).build(&t);
            assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
            assert_eq!(
                req.headers,
                vec![("anthropic-version", "2023-06-01".to_string())]
            );
            assert_eq!(
                req.body,
                json!({
                    "model": "claude-x",
                    "max_tokens": 512,
                    "system": render(&t, Mode::Prompt, false).system,
                    "messages": [{"role": "user", "content": "Météo à Lyon ?"}],
                })
            );
        }
    }

    #[test]
    fn native_body_declares_tools() {
        let t = task();
        let req = backend(Mode::Native).build(&t);
        assert_eq!(
            req.body,
            json!({
                "model": "claude-x",
                "max_tokens": 512,
                "system": render(&t, Mode::Native, false).system,
                "messages": [{"role": "user", "content": "Météo à Lyon ?"}],
                "tools": [{"name": "m_t_o_ville", "description": "Prévisions", "input_schema": {
                    "type": "object", "required": ["ville"],
                    "properties": {"ville": {"type": "string", "description": "Ville"}}}}],
            })
        );
        assert_eq!(
            backend(Mode::Native).auth_headers(&ApiKey::new("k")),
            vec![("x-api-key", "k".to_string())]
        );
    }

    #[test]
    fn parses_text_thinking_and_tool_use() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        let body = json!({"type": "message", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Lyon is in France.", "signature": "x"},
            {"type": "text", "text": "Je vais consulter la météo."},
            {"type": "tool_use", "id": "tu1", "name": "m_t_o_ville", "input": {"ville": "Lyon"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 30}});
        let a = backend(Mode::Native).parse(&body, &names).unwrap();
        assert_eq!(a.output.as_deref(), Some("Je vais consulter la météo."));
        assert_eq!(a.reasoning.as_deref(), Some("Lyon is in France."));
        assert_eq!(
            a.calls.unwrap(),
            vec![Call::new(
                "météo/ville",
                vec![("ville".into(), V::Str("Lyon".into()))]
            )]
        );
        assert_eq!(
            a.usage,
            Some(Usage {
                prompt_tokens: 120,
                completion_tokens: 30
            })
        );
    }

    #[test]
    fn error_bodies_and_missing_content() {
        let err = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert_eq!(
            backend(Mode::Prompt)
                .parse(&err, &NameMap::default())
                .unwrap_err(),
            "error in response body: Overloaded"
        );
        assert!(
            backend(Mode::Prompt)
                .parse(&json!({"type": "message"}), &NameMap::default())
                .is_err()
        );
    }

    #[test]
    fn chat_body_has_no_tools() {
        let req =
            backend(Mode::Native).build_chat(&Chat::new("sys", "user").with_schema(json!({})));
        assert!(req.url.ends_with("/messages"), "{}", req.url);
        assert_eq!(req.body["system"], "sys");
        assert_eq!(
            req.body["messages"],
            json!([{"role": "user", "content": "user"}])
        );
        assert!(
            req.body.get("tools").is_none(),
            "the answer mode is ignored"
        );
        assert!(req.headers.iter().any(|(k, _)| *k == "anthropic-version"));
    }

    #[test]
    fn a_note_joins_the_last_user_turn_so_turns_still_alternate() {
        let api = backend(Mode::Prompt);
        let mut body = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": "Observation: []"}]});
        api.append_note(&mut body, "try another");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(
            messages[2]["content"],
            json!([{"type": "text", "text": "Observation: []"}, {"type": "text", "text": "try another"}])
        );
        let mut after_assistant = json!({"messages": [{"role": "assistant", "content": "a"}]});
        api.append_note(&mut after_assistant, "n");
        assert_eq!(
            after_assistant["messages"][1],
            json!({"role": "user", "content": "n"})
        );
    }
}
