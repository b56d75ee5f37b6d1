//! bfcl-eval's `GeminiHandler`: Google's `generateContent` (`POST
//! /v1/models/<model>:generateContent` as the `google-genai` SDK sends it,
//! key in the `x-goog-api-key` header).

use serde_json::{Map, Value, json};

use super::claude::{describe_response, role};
use super::{CallMode, Conversation, Handler, Protocol, Reply, Responses, Sampling};
use super::{results_for_prompt, usage_tokens};
use crate::benchmarks::python::{PyStr, json_loads_str, py_str};

/// What the handler answers for a response without candidates or parts.
const NO_RESPONSE: &str = "The model did not return any response.";

/// `GeminiHandler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemini(pub CallMode);

impl Handler for Gemini {
    fn mode(&self) -> CallMode {
        self.0
    }

    fn path(&self, model: &str) -> String {
        format!("/models/{model}:generateContent")
    }

    /// `assistant` becomes `model` (`_substitute_prompt_role`), the text
    /// one part; a system message keeps its role until [`Handler::body`]
    /// moves it to `systemInstruction`.
    fn message(&self, role: &str, content: &str) -> Value {
        let role = if role == "assistant" { "model" } else { role };
        json!({"role": role, "parts": [{"text": content}]})
    }

    /// `convert_to_tool` for Google, as the SDK sends it (`Schema`).
    fn compile_tools(&self, protocol: &Protocol, functions: &[Value]) -> Vec<Value> {
        protocol
            .openapi_functions(functions)
            .into_iter()
            .map(|mut tool| {
                if let Value::Object(map) = &mut tool {
                    if let Some(Value::Object(parameters)) = map.get_mut("parameters") {
                        parameters.remove("optional");
                        if let Some(Value::Object(properties)) = parameters.get_mut("properties") {
                            for property in properties.values_mut() {
                                if let Value::Object(property) = property {
                                    fold_into_description(property);
                                }
                            }
                        }
                    }
                    describe_response(map);
                    if let Some(parameters) = map.get_mut("parameters") {
                        *parameters = sdk_schema(parameters);
                    }
                }
                tool
            })
            .collect()
    }

    /// `{contents, generationConfig}`, `systemInstruction` for a non-empty
    /// system message, `tools` in FC mode when there are any.
    fn body(&self, conversation: &Conversation, _model: &str, sampling: &Sampling) -> Value {
        let mut system = None;
        let mut contents = Vec::new();
        for message in &conversation.messages {
            if system.is_none() && role(message) == Some("system") {
                system = Some(message.pointer("/parts/0/text").cloned());
            } else {
                contents.push(message.clone());
            }
        }
        let mut config = json!({
            "temperature": sampling.temperature,
            "thinkingConfig": {"include_thoughts": true},
        });
        if let Some(max) = sampling.max_tokens {
            config["maxOutputTokens"] = json!(max);
        }
        let mut body = json!({"contents": contents, "generationConfig": config});
        if let Some(Some(Value::String(text))) = system
            && !text.is_empty()
        {
            body["systemInstruction"] = json!({"parts": [{"text": text}], "role": "user"});
        }
        if self.0 == CallMode::FunctionCalling && !conversation.tools.is_empty() {
            body["tools"] = json!([{"functionDeclarations": conversation.tools}]);
        }
        body
    }

    /// The first candidate's parts: FC, `functionCall` parts as calls
    /// (`args` as arguments, the names as the calls' ids), thoughts as
    /// reasoning, other texts as the answer; prompt, the last non-thought
    /// text. No parts: the handler's stand-in answer.
    fn read_reply(&self, body: &Value) -> Result<Reply, String> {
        let tokens = usage_tokens(
            body.get("usageMetadata"),
            "promptTokenCount",
            "candidatesTokenCount",
        );
        let content = body.pointer("/candidates/0/content").filter(|c| {
            c.get("parts")
                .and_then(Value::as_array)
                .is_some_and(|p| !p.is_empty())
        });
        let Some(content) = content else {
            let text = match self.0 {
                CallMode::FunctionCalling => String::new(),
                CallMode::Prompt => NO_RESPONSE.to_string(),
            };
            return Ok(Reply {
                history: vec![self.message("model", NO_RESPONSE)],
                responses: Responses::Text(text),
                call_ids: Vec::new(),
                reasoning: String::new(),
                tokens,
            });
        };
        let parts = content["parts"].as_array().expect("checked above");
        let (mut text, mut calls, mut names, mut reasoning) =
            (String::new(), Vec::new(), Vec::new(), Vec::new());
        for part in parts {
            let part_text = part.get("text").and_then(Value::as_str).unwrap_or_default();
            let call_name = part
                .pointer("/functionCall/name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty() && self.0 == CallMode::FunctionCalling);
            if let Some(name) = call_name {
                let args = part
                    .pointer("/functionCall/args")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                calls.push((name.to_string(), args));
                names.push(name.to_string());
            } else if part.get("thought").and_then(Value::as_bool) == Some(true) {
                reasoning.push(part_text.to_string());
            } else if self.0 == CallMode::Prompt {
                text = part_text.to_string();
            } else {
                text.push_str(part_text);
            }
        }
        let history = match self.0 {
            CallMode::FunctionCalling => content.clone(),
            CallMode::Prompt => self.message("model", &text),
        };
        Ok(Reply {
            responses: if calls.is_empty() {
                Responses::Text(text)
            } else {
                Responses::Calls(calls)
            },
            history: vec![history],
            call_ids: names,
            reasoning: reasoning.join("\n"),
            tokens,
        })
    }

    /// FC: one user content with a `functionResponse` part per call
    /// (`{"result": <result>}` under the call's name); prompt: one user
    /// message with the results' text.
    fn add_results(
        &self,
        conversation: &mut Conversation,
        results: &[String],
        calls: &[String],
        reply: &Reply,
    ) {
        let message = match self.0 {
            CallMode::FunctionCalling => {
                let parts: Vec<Value> = results
                    .iter()
                    .zip(&reply.call_ids)
                    .map(|(result, name)| {
                        json!({"functionResponse": {"name": name, "response": {"result": result}}})
                    })
                    .collect();
                json!({"role": "user", "parts": parts})
            }
            CallMode::Prompt => self.message("user", &results_for_prompt(results, calls)),
        };
        conversation.messages.push(message);
    }
}

/// Python's `str(value)` of a JSON value: a string as it is, anything else
/// as its `repr`.
fn python_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => json_loads_str(&other.to_string())
            .map(|v| PyStr(py_str(&v)).to_string_lossy())
            .unwrap_or_else(|_| other.to_string()),
    }
}

/// The fields Gemini's schema lacks, written into a top-level parameter's
/// description (`convert_to_tool` for `ModelStyle.GOOGLE`), in its order.
fn fold_into_description(property: &mut Map<String, Value>) {
    const FOLDED: [(&str, &str); 7] = [
        ("default", "Default is"),
        ("optional", "Optional"),
        ("required", "Required"),
        ("maximum", "Maximum value"),
        ("minItems", "Minimum number of items"),
        ("maxItems", "Maximum number of items"),
        ("additionalProperties", "Additional properties"),
    ];
    let mut description = match property.get("description") {
        Some(Value::String(d)) => d.clone(),
        _ => String::new(),
    };
    for (field, label) in FOLDED {
        if let Some(value) = property.remove(field) {
            description.push_str(&format!(" {label}: {}.", python_str(&value)));
        }
    }
    let is_string = property.get("type").and_then(Value::as_str) == Some("string");
    if !is_string && let Some(values) = property.remove("enum") {
        description.push_str(&format!(" Enum values: {}.", python_str(&values)));
    }
    if is_string && let Some(format) = property.remove("format") {
        description.push_str(&format!(" Format: {}.", python_str(&format)));
    }
    property.insert("description".into(), Value::String(description));
}

/// A schema as the `google-genai` SDK sends it (its `Schema` model dumped):
/// types upper-case, `null` fields dropped, camel-case fields under their
/// Python names, nested schemas likewise.
fn sdk_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        if value.is_null() {
            continue;
        }
        let key = match key.as_str() {
            "minItems" => "min_items",
            "maxItems" => "max_items",
            "minLength" => "min_length",
            "maxLength" => "max_length",
            "minProperties" => "min_properties",
            "maxProperties" => "max_properties",
            "anyOf" => "any_of",
            "propertyOrdering" => "property_ordering",
            other => other,
        };
        let value = match (key, value) {
            ("type", Value::String(kind)) => Value::String(kind.to_uppercase()),
            ("items", item) => sdk_schema(item),
            ("any_of", Value::Array(options)) => options.iter().map(sdk_schema).collect(),
            ("properties", Value::Object(properties)) => Value::Object(
                properties
                    .iter()
                    .map(|(name, p)| (name.clone(), sdk_schema(p)))
                    .collect(),
            ),
            (_, other) => other.clone(),
        };
        out.insert(key.to_string(), value);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tools and contents gemini.py builds (`_compile_tools`, then the
    /// SDK's `Schema`; the messages after one call and its result).
    #[test]
    fn tools_and_a_multi_turn_conversation_as_gemini_py_builds_them() {
        let handler = Gemini(CallMode::FunctionCalling);
        let functions = json!([{"name": "fs.cd", "description": "Cd.", "parameters": {"type": "dict",
            "properties": {
                "folder": {"type": "string", "description": "F.", "default": "/", "enum": ["a", "b"]},
                "n": {"type": "integer", "description": "N.", "enum": [1, 2], "maximum": 5},
                "tags": {"type": "array", "items": {"type": "string", "minItems": 1}}},
            "required": ["folder"]}}]);
        let tools = handler.compile_tools(Protocol::builtin(), functions.as_array().unwrap());
        assert_eq!(
            tools,
            [
                json!({"name": "fs_cd", "description": "Cd.", "parameters": {"type": "OBJECT",
                "properties": {
                    "folder": {"type": "STRING", "description": "F. Default is: /.", "enum": ["a", "b"]},
                    "n": {"type": "INTEGER", "description": "N. Maximum value: 5. Enum values: [1, 2]."},
                    "tags": {"type": "ARRAY", "items": {"type": "STRING", "min_items": 1}, "description": ""}},
                "required": ["folder"]}})
            ]
        );
        let mut conversation = Conversation {
            tools,
            multi_turn: true,
            ..Conversation::default()
        };
        let first = [
            ("system", "Sys."),
            ("user", "A"),
            ("assistant", "Hm"),
            ("user", "B"),
        ];
        let first = first.iter().map(|(r, c)| handler.message(r, c)).collect();
        handler.add_user_messages(&mut conversation, first);
        let reply = handler
            .read_reply(
                &json!({"candidates": [{"content": {"role": "model", "parts": [
                {"text": "Let me see.", "thought": true},
                {"functionCall": {"name": "fs_cd", "args": {"folder": "x"}}}]}}],
                "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4}}),
            )
            .unwrap();
        assert_eq!(
            reply.responses,
            Responses::Calls(vec![("fs_cd".into(), json!({"folder": "x"}))])
        );
        assert_eq!(
            (reply.reasoning.as_str(), reply.tokens),
            ("Let me see.", (9, 4))
        );
        handler.add_reply(&mut conversation, &reply);
        handler.add_results(
            &mut conversation,
            &["done".into()],
            &["cd(folder='x')".into()],
            &reply,
        );
        let body = handler.body(&conversation, "gemini-2.5-flash", &Sampling::default());
        assert_eq!(
            body["contents"],
            json!([{"parts": [{"text": "A"}], "role": "user"}, {"parts": [{"text": "Hm"}], "role": "model"},
                {"parts": [{"text": "B"}], "role": "user"},
                {"role": "model", "parts": [{"text": "Let me see.", "thought": true},
                    {"functionCall": {"name": "fs_cd", "args": {"folder": "x"}}}]},
                {"parts": [{"functionResponse": {"name": "fs_cd", "response": {"result": "done"}}}], "role": "user"}])
        );
        assert_eq!(
            body["systemInstruction"],
            json!({"parts": [{"text": "Sys."}], "role": "user"})
        );
        assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "fs_cd");
        assert_eq!(
            body["generationConfig"],
            json!({"temperature": 0.001, "thinkingConfig": {"include_thoughts": true}})
        );
    }

    #[test]
    fn prompt_mode_reads_the_last_text_and_stands_in_for_no_answer() {
        let handler = Gemini(CallMode::Prompt);
        let reply = handler
            .read_reply(&json!({"candidates": [{"content": {"parts": [
                {"text": "hmm", "thought": true}, {"text": "[f(a=1)]"}]}}]}))
            .unwrap();
        assert_eq!(reply.responses, Responses::Text("[f(a=1)]".into()));
        assert_eq!(
            reply.history,
            [json!({"role": "model", "parts": [{"text": "[f(a=1)]"}]})]
        );
        let empty = handler.read_reply(&json!({"candidates": []})).unwrap();
        assert_eq!(empty.responses, Responses::Text(NO_RESPONSE.into()));
        // An empty system message gives no systemInstruction; no tools key
        // without tools; the model is in the path.
        let mut conversation = Conversation::default();
        let messages = vec![handler.message("system", ""), handler.message("user", "Q")];
        handler.add_user_messages(&mut conversation, messages);
        let fc = Gemini(CallMode::FunctionCalling);
        let body = fc.body(&conversation, "m", &Sampling::default());
        assert!(body.get("systemInstruction").is_none() && body.get("tools").is_none());
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "Q"}]}])
        );
        assert_eq!(
            fc.path("gemini-2.5-flash"),
            "/models/gemini-2.5-flash:generateContent"
        );
    }
}
