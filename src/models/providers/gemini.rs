//! Google Gemini (`POST {base}/models/{model}:generateContent`).
//!
//! The key travels in the `x-goog-api-key` header, never in the URL, so it
//! cannot leak through URLs quoted in error messages.

use serde_json::{Value, json};

use crate::models::backend::{
    Answer, ApiRequest, BackendApi, Chat, NativeTurn, RequestSettings, Served, ShownStep, count,
    error_object, native_call,
};
use crate::models::config::{ApiKey, Backend, Mode};
use crate::models::reasoning::{join_reasoning, split_reasoning};
use crate::models::tools::{Dialect, NameMap, parameters_schema};
use crate::spec::records::{Task, Usage};

/// The generateContent backend.
#[derive(Debug, Clone)]
pub struct Gemini {
    settings: RequestSettings,
}

impl Gemini {
    /// A backend sending requests shaped by `settings`.
    pub fn new(settings: RequestSettings) -> Gemini {
        Gemini { settings }
    }
}

/// Gemini's form of the answer schema (`responseSchema`).
pub fn gemini_answer_schema() -> Value {
    json!({
        "type": "OBJECT",
        "properties": {"Thought": {"type": "STRING"}, "Action": {"type": "STRING"}},
        "required": ["Thought", "Action"],
        "propertyOrdering": ["Thought", "Action"],
    })
}

impl BackendApi for Gemini {
    fn kind(&self) -> Backend {
        Backend::Gemini
    }

    fn build(&self, task: &Task) -> ApiRequest {
        let s = &self.settings;
        let prompt = s.prompt(task, true);
        let names = NameMap::for_tools(&task.tools);
        let mut generation = json!({"maxOutputTokens": s.max_tokens});
        if let Some(t) = s.temperature {
            generation["temperature"] = json!(t);
        }
        if s.mode == Mode::Structured {
            generation["responseMimeType"] = json!("application/json");
            generation["responseSchema"] = gemini_answer_schema();
        }
        let mut body = json!({
            "systemInstruction": {"parts": [{"text": prompt.system}]},
            "contents": [{"role": "user", "parts": [{"text": prompt.user}]}],
            "generationConfig": generation,
        });
        if s.mode == Mode::Native {
            let declarations: Vec<Value> = task
                .tools
                .iter()
                .map(|t| {
                    let mut d =
                        json!({"name": names.api_name(&t.name), "description": t.description});
                    if let Some(parameters) = parameters_schema(t, Dialect::Gemini) {
                        d["parameters"] = parameters;
                    }
                    d
                })
                .collect();
            body["tools"] = json!([{"functionDeclarations": declarations}]);
        }
        let model = s.model_id.strip_prefix("models/").unwrap_or(&s.model_id);
        ApiRequest {
            url: format!("{}/models/{model}:generateContent", s.base_url),
            headers: Vec::new(),
            body: s.finish_body(body),
            names,
            read_by_caller: false,
        }
    }

    fn build_chat(&self, chat: &Chat) -> ApiRequest {
        let s = &self.settings;
        let mut generation = json!({"maxOutputTokens": s.max_tokens});
        if let Some(t) = s.temperature {
            generation["temperature"] = json!(t);
        }
        if let Some(schema) = &chat.schema {
            generation["responseMimeType"] = json!("application/json");
            generation["responseJsonSchema"] = schema.clone();
        }
        let body = json!({
            "systemInstruction": {"parts": [{"text": chat.system}]},
            "contents": [{"role": "user", "parts": [{"text": chat.user}]}],
            "generationConfig": generation,
        });
        let model = s.model_id.strip_prefix("models/").unwrap_or(&s.model_id);
        ApiRequest {
            url: format!("{}/models/{model}:generateContent", s.base_url),
            headers: Vec::new(),
            body: s.finish_body(body),
            names: NameMap::default(),
            read_by_caller: false,
        }
    }

    fn auth_headers(&self, key: &ApiKey) -> Vec<(&'static str, String)> {
        vec![("x-goog-api-key", key.expose().to_string())]
    }

    fn parse(&self, body: &Value, names: &NameMap) -> Result<Answer, String> {
        if let Some(error) = error_object(body) {
            return Err(error);
        }
        let usage = body
            .get("usageMetadata")
            .filter(|u| u.is_object())
            .map(|u| Usage {
                prompt_tokens: count(u, "promptTokenCount"),
                completion_tokens: count(u, "candidatesTokenCount")
                    .saturating_add(count(u, "thoughtsTokenCount")),
            });
        let Some(candidate) = body.pointer("/candidates/0") else {
            // A blocked prompt is the model's (provider's) answer: nothing.
            if body.pointer("/promptFeedback/blockReason").is_some() {
                return Ok(Answer {
                    output: Some(String::new()),
                    usage,
                    ..Answer::default()
                });
            }
            return Err("no candidates in the response".into());
        };
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut text = String::new();
        let mut thoughts = Vec::new();
        let mut calls = Vec::new();
        let mut call_ids = Vec::new();
        for part in parts {
            if let Some(call) = part.get("functionCall") {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                calls.push(native_call(name, call.get("args"), names));
                call_ids.push(name.to_string());
            } else if let Some(t) = part.get("text").and_then(Value::as_str) {
                if part.get("thought").and_then(Value::as_bool) == Some(true) {
                    thoughts.push(Some(t.to_string()));
                } else {
                    text.push_str(t);
                }
            }
        }
        let (output, think) = split_reasoning(&text);
        thoughts.push(think);
        // The model's content goes back as it came (thought signatures included).
        let native = (!calls.is_empty()).then(|| NativeTurn {
            message: json!({"role": "model", "parts": parts}),
            call_ids,
        });
        Ok(Answer {
            output: Some(output),
            calls: (!calls.is_empty()).then_some(calls),
            reasoning: join_reasoning(thoughts),
            usage,
            native,
            served: Served::read(body, "/modelVersion", None),
            raw: None,
        })
    }

    fn append_steps(&self, body: &mut Value, steps: &[&ShownStep]) {
        let Some(contents) = body.get_mut("contents").and_then(Value::as_array_mut) else {
            return;
        };
        for step in steps {
            match step.tool_results(self.settings.mode) {
                Some(turn) => {
                    contents.push(turn.message.clone());
                    let parts: Vec<Value> = turn
                        .call_ids
                        .iter()
                        .zip(&step.outputs)
                        .map(|(name, output)| {
                            json!({"functionResponse": {"name": name,
                                "response": function_response(output)}})
                        })
                        .collect();
                    contents.push(json!({"role": "user", "parts": parts}));
                }
                None => {
                    let text = step.output.clone().unwrap_or_default();
                    contents.push(json!({"role": "model", "parts": [{"text": text}]}));
                    contents.push(json!({"role": "user", "parts": [{"text": step.observation()}]}));
                }
            }
        }
    }

    fn append_note(&self, body: &mut Value, note: &str) {
        let Some(contents) = body.get_mut("contents").and_then(Value::as_array_mut) else {
            return;
        };
        match contents.last_mut() {
            Some(last) if last["role"] == "user" && last["parts"].is_array() => {
                if let Some(parts) = last["parts"].as_array_mut() {
                    parts.push(json!({"text": note}));
                }
            }
            _ => contents.push(json!({"role": "user", "parts": [{"text": note}]})),
        }
    }
}

/// A tool output as a `functionResponse.response`, which must be an
/// object: an object as it is, anything else under `output`.
fn function_response(output: &Value) -> Value {
    match output {
        Value::Object(_) => output.clone(),
        other => json!({ "output": other }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::prompt::render;
    use crate::spec::records::{Call, Value as V};

    fn task() -> Task {
        serde_json::from_value(json!({
            "id": "t1", "kind": "single", "language": "zh", "query": "北京明天天气？",
            "tools": [{"name": "天气查询", "description": "查询天气",
                       "required_parameters": [{"name": "city", "type": "string", "description": "城市"}]},
                      {"name": "now", "description": "Current time"}],
            "gold": {"calls": []}
        }))
        .unwrap()
    }

    fn backend(mode: Mode) -> Gemini {
        Gemini::new(RequestSettings {
            base_url: "https://generativelanguage.googleapis.com/v1beta".into(),
            model_id: "models/gemini-x".into(),
            mode,
            prompt_style: Default::default(),
            system_template: None,
            temperature: Some(0.2),
            max_tokens: 300,
            extra_body: None,
        })
    }

    #[test]
    fn a_conversation_sends_function_responses_by_name() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        let api = Gemini::new(RequestSettings {
            base_url: "https://generativelanguage.googleapis.com/v1beta".into(),
            model_id: "gemini".into(),
            mode: Mode::Native,
            prompt_style: Default::default(),
            system_template: None,
            temperature: None,
            max_tokens: 100,
            extra_body: None,
        });
        let name = names.api_name(&t.tools[0].name).to_string();
        let parts = json!([{"functionCall": {"name": name, "args": {}}, "thoughtSignature": "s"}]);
        let body = json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
        let answer = api.parse(&body, &names).unwrap();
        let step = ShownStep {
            output: answer.output.clone(),
            native: answer.native.clone(),
            calls: answer.calls.clone().unwrap(),
            outputs: vec![json!([1, 2])],
        };
        let mut request = api.build(&t);
        api.append_steps(&mut request.body, &[&step]);
        let contents = request.body["contents"].as_array().unwrap();
        assert_eq!(contents[1], json!({"role": "model", "parts": parts}));
        assert_eq!(
            contents[2],
            json!({"role": "user", "parts": [{"functionResponse": {"name": name, "response": {"output": [1, 2]}}}]})
        );
    }

    #[test]
    fn prompt_body_and_url() {
        let t = task();
        let req = backend(Mode::Prompt).build(&t);
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-x:generateContent"
        );
        assert_eq!(
            req.body,
            json!({
                "systemInstruction": {"parts": [{"text": render(&t, Mode::Prompt, true).system}]},
                "contents": [{"role": "user", "parts": [{"text": "北京明天天气？"}]}],
                "generationConfig": {"maxOutputTokens": 300, "temperature": 0.2},
            })
        );
        assert_eq!(
            backend(Mode::Prompt).auth_headers(&ApiKey::new("g")),
            vec![("x-goog-api-key", "g".to_string())]
        );
    }

    #[test]
    fn structured_body_uses_response_schema() {
        let t = task();
        let req = backend(Mode::Structured).build(&t);
        assert_eq!(
            req.body["generationConfig"],
            json!({"maxOutputTokens": 300, "temperature": 0.2, "responseMimeType": "application/json",
                   "responseSchema": {"type": "OBJECT", "required": ["Thought", "Action"],
                                      "propertyOrdering": ["Thought", "Action"],
                                      "properties": {"Thought": {"type": "STRING"}, "Action": {"type": "STRING"}}}})
        );
        assert_eq!(
            req.body["systemInstruction"]["parts"][0]["text"],
            json!(render(&t, Mode::Structured, true).system)
        );
    }

    #[test]
    fn native_body_declares_functions() {
        let req = backend(Mode::Native).build(&task());
        assert_eq!(
            req.body["tools"],
            json!([{"functionDeclarations": [
                {"name": "tool_1", "description": "查询天气", "parameters": {"type": "OBJECT", "required": ["city"],
                    "properties": {"city": {"type": "STRING", "description": "城市"}}}},
                {"name": "now", "description": "Current time"}]}])
        );
    }

    #[test]
    fn parses_function_calls_thoughts_and_usage() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "用户想知道天气。", "thought": true},
            {"text": "我来查询北京的天气。"},
            {"functionCall": {"name": "tool_1", "args": {"city": "北京"}}}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 10, "thoughtsTokenCount": 5}});
        let a = backend(Mode::Native).parse(&body, &names).unwrap();
        assert_eq!(a.output.as_deref(), Some("我来查询北京的天气。"));
        assert_eq!(a.reasoning.as_deref(), Some("用户想知道天气。"));
        assert_eq!(
            a.calls.unwrap(),
            vec![Call::new(
                "天气查询",
                vec![("city".into(), V::Str("北京".into()))]
            )]
        );
        assert_eq!(
            a.usage,
            Some(Usage {
                prompt_tokens: 50,
                completion_tokens: 15
            })
        );
    }

    #[test]
    fn blocked_prompts_and_errors() {
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 7}});
        let a = backend(Mode::Prompt)
            .parse(&blocked, &NameMap::default())
            .unwrap();
        assert_eq!(a.output.as_deref(), Some(""));
        assert!(
            backend(Mode::Prompt)
                .parse(&json!({}), &NameMap::default())
                .is_err()
        );
        let err = json!({"error": {"code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}});
        assert!(
            backend(Mode::Prompt)
                .parse(&err, &NameMap::default())
                .unwrap_err()
                .contains("API key not valid")
        );
    }

    #[test]
    fn chat_body_with_a_json_schema() {
        let schema = json!({"type": "object"});
        let req =
            backend(Mode::Native).build_chat(&Chat::new("sys", "user").with_schema(schema.clone()));
        assert!(
            req.url.ends_with("/models/gemini-x:generateContent"),
            "{}",
            req.url
        );
        assert_eq!(req.body["systemInstruction"]["parts"][0]["text"], "sys");
        assert_eq!(req.body["contents"][0]["parts"][0]["text"], "user");
        assert_eq!(
            req.body["generationConfig"]["responseMimeType"],
            "application/json"
        );
        assert_eq!(req.body["generationConfig"]["responseJsonSchema"], schema);
        assert!(
            req.body.get("tools").is_none(),
            "the answer mode is ignored"
        );
    }

    #[test]
    fn a_note_joins_the_last_user_turn() {
        let api = backend(Mode::Prompt);
        let mut body = json!({"contents": [{"role": "user", "parts": [{"text": "q"}]}]});
        api.append_note(&mut body, "try another");
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "q"}, {"text": "try another"}]}])
        );
    }
}
