//! The request bodies the official harness (`bfcl-eval`, gorilla commit
//! `6ea5797`) sends for a single-turn question, so that a model run by itc
//! is asked exactly what the leaderboard asks it.
//!
//! Today: OpenAI's Responses API (`POST /v1/responses`, the official
//! OpenAI API) and Chat Completions (OpenAI-compatible servers), in prompt
//! mode (BFCL's system prompt with the function docs) and in
//! function-calling mode (the docs as `tools`). The protocol's texts
//! (the system prompt, the notes added to descriptions) are benchmark data,
//! read from `datasets/ood/bfcl/prompt/protocol.json`.

use std::sync::OnceLock;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::files::Question;
use crate::ood::python::dumps::dumps_indented;

/// The temperature bfcl-eval's handlers send unless told otherwise.
pub const OFFICIAL_TEMPERATURE: f64 = 0.001;

/// How the model is asked to call functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    /// BFCL's system prompt lists the functions; the model answers in text.
    Prompt,
    /// The functions go to the API as tools (bfcl-eval's `-FC` models).
    FunctionCalling,
}

/// The texts of BFCL's protocol, from `datasets/ood/bfcl/prompt/protocol.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Protocol {
    /// The default system prompt (`DEFAULT_SYSTEM_PROMPT_FORMAT` rendered
    /// by `formulate_system_prompt`), `{functions}` where the docs go.
    pub system_prompt: String,
    /// Appended to every function's description (Python categories).
    pub python_note: String,
    /// Appended to a `float` parameter's description in tools.
    pub float_note: String,
}

/// The BFCL question a task was converted from, when its `gold.official`
/// keeps one (`itc ood convert bfcl`, `--dataset bfcl:…`): its id, its
/// turns as written and its function docs, from which the official
/// requests are built.
pub fn official_question(task: &crate::spec::records::Task) -> Option<Question> {
    let official = task.gold.official.as_ref()?;
    if official.get("benchmark").and_then(Value::as_str) != Some("bfcl") {
        return None;
    }
    serde_json::from_value(json!({
        "id": official.get("id")?,
        "question": official.get("question")?,
        "function": official.get("function")?,
    }))
    .ok()
}

const PROTOCOL_JSON: &str = include_str!("../../../datasets/ood/bfcl/prompt/protocol.json");

impl Protocol {
    /// The protocol built into itc.
    pub fn builtin() -> &'static Protocol {
        static PROTOCOL: OnceLock<Protocol> = OnceLock::new();
        PROTOCOL.get_or_init(|| {
            Protocol::parse(PROTOCOL_JSON).expect("the built-in BFCL protocol file is valid")
        })
    }

    /// Reads a protocol file's text; its system prompt must hold
    /// `{functions}` exactly once.
    pub fn parse(text: &str) -> anyhow::Result<Protocol> {
        let protocol: Protocol =
            serde_json::from_str(text).context("reading BFCL's protocol texts")?;
        if protocol.system_prompt.matches("{functions}").count() != 1 {
            bail!("BFCL's system prompt must hold `{{functions}}` exactly once");
        }
        Ok(protocol)
    }

    /// The system prompt listing `functions` (`json.dumps(docs, indent=4)`).
    pub fn system_prompt_for(&self, functions: &[Value]) -> String {
        let (head, tail) = self
            .system_prompt
            .split_once("{functions}")
            .expect("checked by Protocol::parse");
        let docs = dumps_indented(&Value::Array(functions.to_vec()), 4);
        format!("{head}{docs}{tail}")
    }

    /// The function docs with the Python note appended to each description
    /// (`_func_doc_language_specific_pre_processing`).
    pub fn with_python_note(&self, functions: &[Value]) -> Vec<Value> {
        functions
            .iter()
            .map(|doc| {
                let mut doc = doc.clone();
                if let Some(Value::String(description)) = doc.get_mut("description") {
                    description.push_str(&self.python_note);
                }
                doc
            })
            .collect()
    }

    /// The messages of a single-turn question as bfcl-eval's OpenAI
    /// handlers send them, before any role is renamed: in prompt mode
    /// BFCL's system prompt first, a question's own system message
    /// appended to it after a blank line (`system_prompt_pre_processing_chat_model`).
    fn messages(
        &self,
        question: &Question,
        mode: CallMode,
        functions: &[Value],
    ) -> Vec<(String, String)> {
        let mut messages: Vec<(String, String)> = question
            .question
            .first()
            .map(|turn| {
                turn.iter()
                    .map(|m| (m.role.clone(), m.content.clone()))
                    .collect()
            })
            .unwrap_or_default();
        if mode == CallMode::Prompt {
            let prompt = self.system_prompt_for(functions);
            match messages.first_mut() {
                Some((role, content)) if role == "system" => {
                    *content = format!("{prompt}\n\n{content}");
                }
                _ => messages.insert(0, ("system".into(), prompt)),
            }
        }
        messages
    }

    /// The body bfcl-eval's `OpenAIResponsesHandler` sends (`POST
    /// /v1/responses`, the official OpenAI API) for a single-turn
    /// question: `system` becomes `developer`; `model` is the model id.
    pub fn responses_body(&self, question: &Question, mode: CallMode, model: &str) -> Value {
        let functions = self.with_python_note(&question.function);
        let input: Vec<Value> = self
            .messages(question, mode, &functions)
            .into_iter()
            .map(|(role, content)| {
                let role = if role == "system" {
                    "developer".into()
                } else {
                    role
                };
                json!({"role": role, "content": content})
            })
            .collect();
        let mut body = json!({
            "model": model,
            "input": input,
            "store": false,
            "temperature": OFFICIAL_TEMPERATURE,
        });
        if mode == CallMode::FunctionCalling && !functions.is_empty() {
            let tools = self
                .openapi_functions(&functions)
                .into_iter()
                .map(|mut tool| {
                    if let Value::Object(map) = &mut tool {
                        map.insert("type".into(), json!("function"));
                    }
                    tool
                });
            body["tools"] = Value::Array(tools.collect());
        }
        body
    }

    /// The body bfcl-eval's `OpenAICompletionsHandler` sends (`POST
    /// /v1/chat/completions`, for OpenAI-compatible servers): the same
    /// messages with their roles as written, tools as `{type, function}`.
    pub fn chat_completions_body(&self, question: &Question, mode: CallMode, model: &str) -> Value {
        let functions = self.with_python_note(&question.function);
        let messages: Vec<Value> = self
            .messages(question, mode, &functions)
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        let mut body = json!({
            "messages": messages,
            "model": model,
            "temperature": OFFICIAL_TEMPERATURE,
            "store": false,
        });
        if mode == CallMode::FunctionCalling && !functions.is_empty() {
            let tools = self
                .openapi_functions(&functions)
                .into_iter()
                .map(|function| json!({"type": "function", "function": function}));
            body["tools"] = Value::Array(tools.collect());
        }
        body
    }

    /// Function docs as OpenAI's APIs take them (`convert_to_tool` with
    /// `GORILLA_TO_OPENAPI`): `.` in a name becomes `_`, the parameters'
    /// types are mapped; every other field is kept in its place.
    pub fn openapi_functions(&self, functions: &[Value]) -> Vec<Value> {
        functions
            .iter()
            .map(|doc| {
                let mut tool = doc.clone();
                if let Some(Value::String(name)) = tool.get_mut("name") {
                    *name = name.replace('.', "_");
                }
                if let Some(Value::Object(parameters)) = tool.get_mut("parameters") {
                    parameters.insert("type".into(), json!("object"));
                    if let Some(Value::Object(properties)) = parameters.get_mut("properties") {
                        self.cast_properties(properties);
                    }
                }
                tool
            })
            .collect()
    }

    /// `_cast_to_openai_type`: each property's type mapped to OpenAPI's
    /// (`string` when absent or unknown), a `float` marked with `format` and
    /// the float note, nested properties and item types likewise.
    fn cast_properties(&self, properties: &mut Map<String, Value>) {
        for property in properties.values_mut() {
            let Value::Object(property) = property else {
                continue;
            };
            let given = property
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let mapped = match given.as_deref() {
                None => "string",
                Some(given) => {
                    if given == "float" {
                        property.insert("format".into(), json!("float"));
                        if let Some(Value::String(description)) = property.get_mut("description") {
                            description.push_str(&self.float_note);
                        }
                    }
                    openapi_type(given).unwrap_or("string")
                }
            };
            property.insert("type".into(), json!(mapped));
            if mapped != "array" && mapped != "object" {
                continue;
            }
            if let Some(Value::Object(nested)) = property.get_mut("properties") {
                self.cast_properties(nested);
            } else if let Some(Value::Object(items)) = property.get_mut("items") {
                self.cast_items(items);
            }
        }
    }

    /// The item schema of an array or object property: its type mapped, and
    /// one level deeper for a list of lists or a list of dicts.
    fn cast_items(&self, items: &mut Map<String, Value>) {
        let Some(mapped) = map_type_in_place(items) else {
            return;
        };
        match mapped {
            "array" => {
                if let Some(Value::Object(inner)) = items.get_mut("items") {
                    map_type_in_place(inner);
                }
            }
            "object" => {
                if let Some(Value::Object(nested)) = items.get_mut("properties") {
                    self.cast_properties(nested);
                }
            }
            _ => {}
        }
    }
}

/// Maps the `type` of a schema to OpenAPI's where the mapping knows it;
/// returns the new type.
fn map_type_in_place(schema: &mut Map<String, Value>) -> Option<&'static str> {
    let mapped = openapi_type(schema.get("type")?.as_str()?)?;
    schema.insert("type".into(), json!(mapped));
    Some(mapped)
}

/// `GORILLA_TO_OPENAPI`: BFCL's type names (Python's, Java's and
/// JavaScript's) to OpenAPI's.
fn openapi_type(gorilla: &str) -> Option<&'static str> {
    Some(match gorilla {
        "integer" | "byte" | "short" | "long" | "Bigint" => "integer",
        "number" | "float" | "double" => "number",
        "string" | "any" | "char" | "Any" | "String" => "string",
        "boolean" | "bool" => "boolean",
        "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" => "array",
        "dict" | "object" | "HashMap" | "Hashtable" => "object",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ood::bfcl::files::Message;

    fn question(messages: &[(&str, &str)], function: Value) -> Question {
        Question {
            id: "q".into(),
            question: vec![
                messages
                    .iter()
                    .map(|(role, content)| Message {
                        role: role.to_string(),
                        content: content.to_string(),
                    })
                    .collect(),
            ],
            function: function.as_array().unwrap().clone(),
        }
    }

    #[test]
    fn a_questions_system_message_follows_the_prompt_and_becomes_developer() {
        let protocol = Protocol::builtin();
        let q = question(
            &[
                ("system", "Be brief."),
                ("user", "Hi"),
                ("assistant", "Yes?"),
                ("user", "Go"),
            ],
            json!([{"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {}}}]),
        );
        let body = protocol.responses_body(&q, CallMode::Prompt, "m");
        let input = body["input"].as_array().unwrap();
        assert_eq!(input.len(), 4);
        assert_eq!(input[0]["role"], "developer");
        let system = input[0]["content"].as_str().unwrap();
        assert!(system.ends_with("]\n\n\nBe brief."), "{system}");
        assert!(
            system.contains("\"description\": \"F. Note that"),
            "{system}"
        );
        assert_eq!(input[2], json!({"role": "assistant", "content": "Yes?"}));
        assert!(body.get("tools").is_none());
        // FC mode: the system message is its own developer message, no prompt.
        let body = protocol.responses_body(&q, CallMode::FunctionCalling, "m");
        assert_eq!(
            body["input"][0],
            json!({"role": "developer", "content": "Be brief."})
        );
        assert_eq!(body["tools"][0]["type"], "function");
        assert_eq!(body["tools"][0]["name"], "f");
    }

    #[test]
    fn chat_completions_carry_the_same_messages_with_their_roles() {
        let protocol = Protocol::builtin();
        let q = question(
            &[("system", "Be brief."), ("user", "Go")],
            json!([{"name": "a.b", "description": "F.", "parameters": {"type": "dict", "properties": {}}}]),
        );
        let responses = protocol.responses_body(&q, CallMode::Prompt, "m");
        let chat = protocol.chat_completions_body(&q, CallMode::Prompt, "m");
        assert_eq!(chat["messages"][0]["role"], "system");
        assert_eq!(
            chat["messages"][0]["content"],
            responses["input"][0]["content"]
        );
        assert_eq!(chat["messages"][1], responses["input"][1]);
        assert_eq!(chat["temperature"], OFFICIAL_TEMPERATURE);
        assert_eq!(chat["store"], false);
        assert!(chat.get("max_tokens").is_none() && chat.get("tools").is_none());
        let chat = protocol.chat_completions_body(&q, CallMode::FunctionCalling, "m");
        assert_eq!(
            chat["messages"],
            json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Go"}])
        );
        assert_eq!(chat["tools"][0]["type"], "function");
        assert_eq!(chat["tools"][0]["function"]["name"], "a_b");
        assert_eq!(chat["tools"][0]["function"]["parameters"]["type"], "object");
    }

    #[test]
    fn tools_map_types_mark_floats_and_keep_every_other_field() {
        let protocol = Protocol::builtin();
        let docs = json!([{"name": "math.area", "description": "A.", "parameters": {
        "type": "dict", "required": ["r"], "properties": {
            "r": {"type": "float", "description": "Radius.", "default": 1.5},
            "tags": {"type": "tuple", "items": {"type": "any"}},
            "opts": {"type": "dict", "properties": {"k": {"type": "float", "description": "K."}}},
            "grid": {"type": "array", "items": {"type": "array", "items": {"type": "float"}}},
            "bare": {"description": "no type"}
        }}}]);
        let tools = protocol.openapi_functions(docs.as_array().unwrap());
        let tool = &tools[0];
        assert_eq!(tool["name"], "math_area");
        let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "description", "parameters"]);
        let p = &tool["parameters"]["properties"];
        assert_eq!(tool["parameters"]["type"], "object");
        assert_eq!(
            p["r"],
            json!({"type": "number", "description": "Radius. This is a float type value.", "default": 1.5, "format": "float"})
        );
        assert_eq!(
            p["tags"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(p["opts"]["properties"]["k"]["format"], "float");
        assert_eq!(p["grid"]["items"]["items"]["type"], "number");
        assert_eq!(p["bare"]["type"], "string");
    }

    #[test]
    fn a_system_prompt_without_exactly_one_placeholder_is_refused() {
        for prompt in ["no docs", "{functions} and {functions}"] {
            let text = json!({"system_prompt": prompt, "python_note": "", "float_note": ""});
            assert!(Protocol::parse(&text.to_string()).is_err(), "{prompt}");
        }
    }
}
