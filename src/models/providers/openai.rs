//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`):
//! OpenAI, OpenRouter, vLLM, SGLang, llama.cpp server, Ollama, ….

use serde_json::{Value, json};

use crate::models::backend::{
    Answer, ApiRequest, BackendApi, Chat, NativeTurn, RequestSettings, Served, ShownStep, count,
    error_object, native_call, output_text,
};
use crate::models::config::{ApiKey, Backend, Mode};
use crate::models::prompt::answer_schema_with_action_pattern;
use crate::models::reasoning::{join_reasoning, split_reasoning};
use crate::models::tools::{Dialect, NameMap, parameters_schema};
use crate::spec::records::{Task, Usage};

/// The Chat Completions backend.
#[derive(Debug, Clone)]
pub struct OpenAi {
    settings: RequestSettings,
}

impl OpenAi {
    /// A backend sending requests shaped by `settings`.
    pub fn new(settings: RequestSettings) -> OpenAi {
        OpenAi { settings }
    }

    /// A body with the model, a system and a user message, the length limit
    /// and the temperature.
    fn messages_body(&self, system: String, user: String) -> Value {
        let s = &self.settings;
        let mut body = json!({
            "model": s.model_id,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        body[length_field(&s.base_url)] = json!(s.max_tokens);
        if let Some(t) = s.temperature {
            body["temperature"] = json!(t);
        }
        body
    }
}

impl BackendApi for OpenAi {
    fn kind(&self) -> Backend {
        Backend::Openai
    }

    fn build(&self, task: &Task) -> ApiRequest {
        let s = &self.settings;
        let prompt = s.prompt(task, true);
        let names = NameMap::for_tools(&task.tools);
        let mut body = self.messages_body(prompt.system, prompt.user);
        match s.mode {
            Mode::Prompt => {}
            Mode::Native => {
                let tools: Vec<Value> = task
                    .tools
                    .iter()
                    .map(|t| {
                        json!({"type": "function", "function": {
                            "name": names.api_name(&t.name),
                            "description": t.description,
                            "parameters": parameters_schema(t, Dialect::JsonSchema),
                        }})
                    })
                    .collect();
                body["tools"] = json!(tools);
            }
            Mode::Structured => {
                // The pattern makes a constraining server (llama.cpp, vLLM,
                // OpenAI's strict mode) keep `Action` to the action grammar.
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "itc_answer", "strict": true, "schema": answer_schema_with_action_pattern()},
                });
            }
        }
        ApiRequest {
            url: format!("{}/chat/completions", s.base_url),
            headers: Vec::new(),
            body: s.finish_body(body),
            names,
            read_by_caller: false,
        }
    }

    fn build_chat(&self, chat: &Chat) -> ApiRequest {
        let s = &self.settings;
        let mut body = self.messages_body(chat.system.clone(), chat.user.clone());
        if let Some(schema) = &chat.schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "itc_reply", "strict": is_strict_compatible(schema), "schema": schema},
            });
        }
        ApiRequest {
            url: format!("{}/chat/completions", s.base_url),
            headers: Vec::new(),
            body: s.finish_body(body),
            names: NameMap::default(),
            read_by_caller: false,
        }
    }

    fn auth_headers(&self, key: &ApiKey) -> Vec<(&'static str, String)> {
        vec![("authorization", format!("Bearer {}", key.expose()))]
    }

    fn parse(&self, body: &Value, names: &NameMap) -> Result<Answer, String> {
        if let Some(error) = error_object(body) {
            return Err(error);
        }
        if body.get("choices").is_none() && body.get("output").is_some() {
            return parse_responses(body, names);
        }
        let message = body
            .pointer("/choices/0/message")
            .ok_or("no choices[0].message in the response")?;
        let content = content_text(message.get("content"));
        let (output, think) = match &content {
            Some(text) => {
                let (answer, think) = split_reasoning(text);
                (Some(answer), think)
            }
            None => (None, None),
        };
        let field = |name: &str| {
            message
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let reasoning = join_reasoning([field("reasoning_content"), field("reasoning"), think]);
        let mut calls = Vec::new();
        let mut native = None;
        if let Some(tool_calls) = message.get("tool_calls").and_then(Value::as_array) {
            let mut sent_back = Vec::with_capacity(tool_calls.len());
            let mut call_ids = Vec::with_capacity(tool_calls.len());
            for (i, call) in tool_calls.iter().enumerate() {
                let function = call.get("function").unwrap_or(call);
                let name = function
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                calls.push(native_call(name, function.get("arguments"), names));
                // A server that gives no id still needs one to pair the result.
                let id = match call.get("id").and_then(Value::as_str) {
                    Some(id) if !id.is_empty() => id.to_string(),
                    _ => format!("call_{i}"),
                };
                let arguments = match function.get("arguments") {
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    None => "{}".to_string(),
                };
                sent_back.push(json!({"id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments}}));
                call_ids.push(id);
            }
            native = Some(NativeTurn {
                message: json!({"role": "assistant",
                    "content": message.get("content").cloned().unwrap_or(Value::Null),
                    "tool_calls": sent_back}),
                call_ids,
            });
        } else if let Some(function) = message.get("function_call").filter(|f| f.is_object()) {
            // The legacy single-call field.
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            calls.push(native_call(name, function.get("arguments"), names));
        }
        let usage = body.get("usage").filter(|u| u.is_object()).map(|u| Usage {
            prompt_tokens: count(u, "prompt_tokens"),
            completion_tokens: count(u, "completion_tokens"),
        });
        Ok(Answer {
            output,
            calls: (!calls.is_empty()).then_some(calls),
            reasoning,
            usage,
            native,
            served: Served::read(body, "/model", Some("/system_fingerprint")),
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
                    for (id, output) in turn.call_ids.iter().zip(&step.outputs) {
                        messages.push(json!({"role": "tool", "tool_call_id": id,
                            "content": output_text(output)}));
                    }
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
        if let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) {
            messages.push(json!({"role": "user", "content": note}));
        }
    }
}

/// The name of the length limit: OpenAI's own API has deprecated
/// `max_tokens` (its reasoning models reject it) for
/// `max_completion_tokens`, which compatible servers do not all know.
pub fn length_field(base_url: &str) -> &'static str {
    let host = reqwest::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase));
    match host.as_deref() {
        Some("api.openai.com") => "max_completion_tokens",
        _ => "max_tokens",
    }
}

/// A body of the Responses API (`POST /v1/responses`): the text of its
/// `message` items' `output_text` parts, joined in order, and a call per
/// `function_call` item (`name`, `arguments` as JSON text), in order, as
/// bfcl-eval's `OpenAIResponsesHandler` reads them; `reasoning` items'
/// summaries as the reasoning.
fn parse_responses(body: &Value, names: &NameMap) -> Result<Answer, String> {
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or("no output list in the response")?;
    let (mut text, mut calls, mut reasoning) = (String::new(), Vec::new(), Vec::new());
    let mut has_text = false;
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let parts = item.get("content").and_then(Value::as_array);
                for part in parts.into_iter().flatten() {
                    if part.get("type").and_then(Value::as_str) == Some("output_text")
                        && let Some(t) = part.get("text").and_then(Value::as_str)
                    {
                        text.push_str(t);
                        has_text = true;
                    }
                }
            }
            Some("function_call") => {
                let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
                calls.push(native_call(name, item.get("arguments"), names));
            }
            Some("reasoning") => {
                let summary = item.get("summary").and_then(Value::as_array);
                for part in summary.into_iter().flatten() {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        reasoning.push(t.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let usage = body.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        prompt_tokens: count(u, "input_tokens"),
        completion_tokens: count(u, "output_tokens"),
    });
    Ok(Answer {
        output: has_text.then_some(text),
        calls: (!calls.is_empty()).then_some(calls),
        reasoning: (!reasoning.is_empty()).then(|| reasoning.join("\n")),
        usage,
        native: None,
        served: Served::read(body, "/model", None),
        raw: None,
    })
}

/// Message content as text: a string, or the text parts of a part list.
fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    }
}

/// Whether OpenAI's strict structured outputs accept a schema: every
/// object lists all its properties as required and forbids others, and
/// only the keywords strict mode supports appear. Other schemas are sent
/// with `strict: false` (a hint to OpenAI; servers such as vLLM and
/// llama.cpp enforce them either way).
pub fn is_strict_compatible(schema: &Value) -> bool {
    const SUPPORTED: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "description",
        "title",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "$defs",
        "$ref",
    ];
    let Value::Object(node) = schema else {
        return true;
    };
    if node.keys().any(|k| !SUPPORTED.contains(&k.as_str())) {
        return false;
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if node.get("additionalProperties") != Some(&Value::Bool(false))
            || properties.keys().any(|k| !required.contains(&k.as_str()))
            || !properties.values().all(is_strict_compatible)
        {
            return false;
        }
    }
    let nested = node.get("items").into_iter().chain(
        node.get("anyOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    nested.into_iter().all(is_strict_compatible)
        && node
            .get("$defs")
            .and_then(Value::as_object)
            .is_none_or(|defs| defs.values().all(is_strict_compatible))
}

#[cfg(test)]
mod tests {
    #[test]
    fn strict_mode_only_for_schemas_it_accepts() {
        let strict = json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            "required": ["a", "b"],
            "additionalProperties": false
        });
        assert!(is_strict_compatible(&strict));
        let mut optional = strict.clone();
        optional["required"] = json!(["a"]);
        assert!(!is_strict_compatible(&optional), "an optional property");
        let mut open = strict.clone();
        open["additionalProperties"] = json!(true);
        assert!(!is_strict_compatible(&open));
        let mut tuple = strict.clone();
        tuple["properties"]["b"] = json!({"type": "array", "prefixItems": [{"type": "string"}]});
        assert!(
            !is_strict_compatible(&tuple),
            "prefixItems is not supported"
        );
        let mut deep = strict.clone();
        deep["properties"]["b"]["items"] = json!({"type": "object", "properties": {"x": {}}});
        assert!(!is_strict_compatible(&deep), "a nested open object");
        // The stages' fixed schemas all qualify.
        assert!(is_strict_compatible(&crate::build::filter::score_schema()));
        assert!(is_strict_compatible(&crate::build::answer::check_schema()));
        assert!(is_strict_compatible(&answer_schema_with_action_pattern()));
    }

    use super::*;
    use crate::models::prompt::render;
    use crate::spec::records::{Call, Value as V};

    fn task() -> Task {
        serde_json::from_value(json!({
            "id": "t1", "kind": "single", "language": "en", "query": "Weather in Oslo?",
            "tools": [{"name": "city weather", "description": "Forecast by city",
                       "required_parameters": [{"name": "city", "type": "string", "description": "City"}],
                       "optional_parameters": [{"name": "days", "type": "int", "description": "Days", "default": 1}]}],
            "gold": {"calls": []}
        }))
        .unwrap()
    }

    fn backend(mode: Mode) -> OpenAi {
        OpenAi::new(RequestSettings {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model_id: "qwen".into(),
            mode,
            prompt_style: Default::default(),
            system_template: None,
            temperature: Some(0.0),
            max_tokens: 256,
            extra_body: None,
        })
    }

    #[test]
    fn prompt_mode_body() {
        let t = task();
        let req = backend(Mode::Prompt).build(&t);
        let system = render(&t, Mode::Prompt, true).system;
        assert_eq!(req.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(
            req.body,
            json!({
                "model": "qwen",
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Weather in Oslo?"}],
                "max_tokens": 256,
                "temperature": 0.0,
            })
        );
    }

    #[test]
    fn native_mode_body() {
        let t = task();
        let req = backend(Mode::Native).build(&t);
        let system = render(&t, Mode::Native, true).system;
        assert_eq!(
            req.body,
            json!({
                "model": "qwen",
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Weather in Oslo?"}],
                "max_tokens": 256,
                "temperature": 0.0,
                "tools": [{"type": "function", "function": {
                    "name": "city_weather",
                    "description": "Forecast by city",
                    "parameters": {"type": "object", "required": ["city"], "properties": {
                        "city": {"type": "string", "description": "City"},
                        "days": {"type": "integer", "description": "Days (default: 1)"}}}}}],
            })
        );
    }

    #[test]
    fn structured_mode_body_with_extra_fields() {
        let mut b = backend(Mode::Structured);
        b.settings.temperature = None;
        b.settings.extra_body = Some(
            json!({"top_p": 0.9, "max_tokens": 64})
                .as_object()
                .unwrap()
                .clone(),
        );
        let t = task();
        let req = b.build(&t);
        let system = render(&t, Mode::Structured, true).system;
        assert_eq!(
            req.body,
            json!({
                "model": "qwen",
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Weather in Oslo?"}],
                "max_tokens": 64,
                "top_p": 0.9,
                "response_format": {"type": "json_schema", "json_schema": {
                    "name": "itc_answer", "strict": true,
                    "schema": {"type": "object", "additionalProperties": false, "required": ["Thought", "Action"],
                               "properties": {"Thought": {"type": "string"},
                                              "Action": {"type": "string", "pattern": crate::models::prompt::action_pattern()}}}}},
            })
        );
    }

    #[test]
    fn openai_itself_gets_max_completion_tokens() {
        let mut b = backend(Mode::Prompt);
        b.settings.base_url = "https://api.openai.com/v1".into();
        let body = b.build(&task()).body;
        assert_eq!(body["max_completion_tokens"], json!(256));
        assert!(body.get("max_tokens").is_none());
        assert_eq!(length_field("https://openrouter.ai/api/v1"), "max_tokens");
    }

    #[test]
    fn auth_is_a_bearer_header() {
        assert_eq!(
            backend(Mode::Prompt).auth_headers(&ApiKey::new("k-1")),
            vec![("authorization", "Bearer k-1".to_string())]
        );
    }

    #[test]
    fn reads_a_responses_body_as_bfcl_eval_does() {
        let body = json!({"object": "response", "model": "gpt-4.1-2025-04-14",
            "output": [
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}]},
                {"type": "message", "role": "assistant", "content": [
                    {"type": "output_text", "text": "[f(a=1)]", "annotations": []},
                    {"type": "refusal", "refusal": "no"},
                    {"type": "output_text", "text": " and more"}]},
                {"type": "function_call", "call_id": "c1", "name": "math_factorial", "arguments": "{\"n\": 5}"},
                {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "not json"}],
            "usage": {"input_tokens": 120, "output_tokens": 9, "total_tokens": 129}});
        let a = backend(Mode::Native)
            .parse(&body, &NameMap::default())
            .unwrap();
        assert_eq!(a.output.as_deref(), Some("[f(a=1)] and more"));
        assert_eq!(a.reasoning.as_deref(), Some("Think."));
        let calls = a.calls.unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "math_factorial");
        assert_eq!(calls[0].arguments.len(), 1);
        assert!(calls[1].arguments.is_empty());
        let usage = a.usage.unwrap();
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (120, 9));
        assert_eq!(a.served.model.as_deref(), Some("gpt-4.1-2025-04-14"));
        // No text item: no output, as `output_text` is empty there.
        let calls_only =
            json!({"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]});
        let a = backend(Mode::Native)
            .parse(&calls_only, &NameMap::default())
            .unwrap();
        assert_eq!(a.output, None);
        assert!(
            backend(Mode::Prompt)
                .parse(&json!({"output": 3}), &NameMap::default())
                .is_err()
        );
    }

    #[test]
    fn parses_text_with_think_block_and_reasoning_field() {
        let body = json!({"choices": [{"message": {"role": "assistant",
            "content": "<think>Oslo is a city.</think>{\"Thought\": \"t\", \"Action\": \"[]\"}",
            "reasoning_content": "Let me see."}}],
            "usage": {"prompt_tokens": 90, "completion_tokens": 12, "total_tokens": 102}});
        let a = backend(Mode::Prompt)
            .parse(&body, &NameMap::default())
            .unwrap();
        assert_eq!(
            a.output.as_deref(),
            Some("{\"Thought\": \"t\", \"Action\": \"[]\"}")
        );
        assert_eq!(
            a.reasoning.as_deref(),
            Some("Let me see.\n\nOslo is a city.")
        );
        assert_eq!(
            a.usage,
            Some(Usage {
                prompt_tokens: 90,
                completion_tokens: 12
            })
        );
        assert_eq!(a.calls, None);
    }

    #[test]
    fn parses_tool_calls_back_to_task_names() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "city_weather", "arguments": "{\"city\": \"Oslo\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "city_weather", "arguments": "{\"city\": \"Bergen\", \"days\": 2}"}}]}}]});
        let a = backend(Mode::Native).parse(&body, &names).unwrap();
        assert_eq!(a.output, None);
        assert_eq!(
            a.calls.unwrap(),
            vec![
                Call::new("city weather", vec![("city".into(), V::Str("Oslo".into()))]),
                Call::new(
                    "city weather",
                    vec![
                        ("city".into(), V::Str("Bergen".into())),
                        ("days".into(), V::Int(2))
                    ]
                ),
            ]
        );
        let legacy = json!({"choices": [{"message": {"content": "", "function_call": {"name": "city_weather", "arguments": "{}"}}}]});
        assert_eq!(
            backend(Mode::Native)
                .parse(&legacy, &names)
                .unwrap()
                .calls
                .unwrap()[0]
                .name,
            "city weather"
        );
    }

    #[test]
    fn a_conversation_sends_tool_results_by_call_id_or_an_observation() {
        let t = task();
        let names = NameMap::for_tools(&t.tools);
        // A server that gives no id gets one made up, the same in both messages.
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "city_weather", "arguments": "{\"city\": \"Oslo\"}"}},
                {"type": "function", "function": {"name": "city_weather", "arguments": {"city": "Bergen"}}}]}}]});
        let native = backend(Mode::Native);
        let answer = native.parse(&body, &names).unwrap();
        let step = ShownStep {
            output: answer.output.clone(),
            native: answer.native.clone(),
            calls: answer.calls.clone().unwrap(),
            outputs: vec![json!({"temp": 3}), json!("sunny")],
        };
        let mut request = native.build(&t);
        native.append_steps(&mut request.body, &[&step]);
        let messages = request.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 5);
        assert_eq!(
            messages[2],
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "city_weather", "arguments": "{\"city\": \"Oslo\"}"}},
                {"id": "call_1", "type": "function", "function": {"name": "city_weather", "arguments": "{\"city\":\"Bergen\"}"}}]})
        );
        assert_eq!(
            messages[3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "{\"temp\":3}"})
        );
        assert_eq!(
            messages[4],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "sunny"})
        );
        // In prompt mode the same step is the answer text and one observation.
        let prompt = backend(Mode::Prompt);
        let text_step = ShownStep {
            output: Some(
                "{\"Thought\": \"t\", \"Action\": \"[city weather(city='Oslo')]\"}".into(),
            ),
            native: None,
            calls: vec![Call::new(
                "city weather",
                vec![("city".into(), V::Str("Oslo".into()))],
            )],
            outputs: vec![json!({"temp": 3})],
        };
        let mut request = prompt.build(&t);
        prompt.append_steps(&mut request.body, &[&text_step]);
        let messages = request.body["messages"].as_array().unwrap();
        assert_eq!(
            messages[2],
            json!({"role": "assistant", "content": text_step.output.unwrap()})
        );
        assert_eq!(
            messages[3],
            json!({"role": "user", "content": "Observation: [{\"call\":\"city weather(city='Oslo')\",\"output\":{\"temp\":3}}]"})
        );
        // A native turn in prompt mode (not possible from this backend's
        // requests, but from a cache) still goes as an observation.
        let mut request = prompt.build(&t);
        prompt.append_steps(&mut request.body, &[&step]);
        assert_eq!(request.body["messages"][3]["role"], "user");
    }

    #[test]
    fn content_parts_and_errors() {
        let body = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]});
        assert_eq!(
            backend(Mode::Prompt)
                .parse(&body, &NameMap::default())
                .unwrap()
                .output
                .as_deref(),
            Some("ab")
        );
        let err = backend(Mode::Prompt).parse(
            &json!({"error": {"message": "overloaded"}}),
            &NameMap::default(),
        );
        assert_eq!(err.unwrap_err(), "error in response body: overloaded");
        assert!(
            backend(Mode::Prompt)
                .parse(&json!({"choices": []}), &NameMap::default())
                .is_err()
        );
    }
}
