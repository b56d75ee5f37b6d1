//! The requests the official harness (`bfcl-eval`, gorilla commit
//! `6ea5797`) sends, so that a model run by itc is asked exactly what the
//! leaderboard asks it.
//!
//! Each API is a [`Handler`], the counterpart of one of bfcl-eval's model
//! handlers: what a conversation starts with, the body of each request,
//! what is read from a response and what goes back into the conversation
//! (the model's answer, the results of its calls). [`openai`]: the
//! Responses API (`POST /v1/responses`, the official OpenAI API) and Chat
//! Completions (OpenAI-compatible servers), each in prompt mode (BFCL's
//! system prompt with the function docs) and in function-calling mode (the
//! docs as `tools`). The protocol's texts (the system prompt, the notes
//! added to descriptions, the message that announces added functions) are
//! benchmark data, read from `datasets/ood/bfcl/prompt/protocol.json`.

pub mod claude;
pub mod gemini;
pub mod openai;

use std::sync::OnceLock;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::files::Question;
use crate::benchmarks::python::dumps::dumps_indented;

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
    /// The user message of a `miss_func` turn that adds functions, in
    /// function-calling mode (`DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC`).
    pub added_functions_fc: String,
    /// The same in prompt mode, `{functions}` where the added docs go.
    pub added_functions_prompting: String,
}

/// Sampling as the request carries it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// The temperature ([`OFFICIAL_TEMPERATURE`] unless the user set one).
    pub temperature: f64,
    /// The output-length limit, when the user set one (bfcl-eval's OpenAI
    /// handlers send none).
    pub max_tokens: Option<u32>,
}

impl Default for Sampling {
    fn default() -> Sampling {
        Sampling {
            temperature: OFFICIAL_TEMPERATURE,
            max_tokens: None,
        }
    }
}

/// A conversation as a handler keeps it (bfcl-eval's `inference_data`):
/// the messages in the API's own shape and the compiled tools.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    /// The messages so far, as the API takes them.
    pub messages: Vec<Value>,
    /// The tools offered (function-calling mode).
    pub tools: Vec<Value>,
    /// A multi-turn question's (bfcl-eval's `caching_enabled`, on which
    /// Claude's cache markers depend).
    pub multi_turn: bool,
}

/// What a model answered, as bfcl-eval keeps it (`model_responses`).
#[derive(Debug, Clone, PartialEq)]
pub enum Responses {
    /// A text (prompt mode, or a function-calling answer without calls).
    Text(String),
    /// Function calls, `(name, arguments)` as the API returned them: the
    /// name as sent (never mapped back), the arguments as given (a JSON
    /// text for OpenAI, an object for Claude and Gemini).
    Calls(Vec<(String, Value)>),
    /// Claude's function-calling answer without calls: the list of its
    /// text blocks (empty when the content is), as `claude.py` keeps it.
    Texts(Vec<String>),
}

impl Responses {
    /// As bfcl-eval's result files hold it: the text, a list of texts, or
    /// a list of `{name: arguments}`.
    pub fn to_json(&self) -> Value {
        match self {
            Responses::Text(text) => Value::String(text.clone()),
            Responses::Texts(texts) => {
                Value::Array(texts.iter().cloned().map(Value::String).collect())
            }
            Responses::Calls(calls) => Value::Array(
                calls
                    .iter()
                    .map(|(name, arguments)| {
                        let mut one = Map::new();
                        one.insert(name.clone(), arguments.clone());
                        Value::Object(one)
                    })
                    .collect(),
            ),
        }
    }
}

/// One response read (`_parse_query_response_*`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// What the model answered.
    pub responses: Responses,
    /// What goes back into the conversation (`model_responses_message_for_chat_history`).
    pub history: Vec<Value>,
    /// The ids of the calls, in order, which their results name.
    pub call_ids: Vec<String>,
    /// Reasoning the response gave apart from the answer.
    pub reasoning: String,
    /// Tokens in the request and in the answer.
    pub tokens: (u64, u64),
}

/// One API as one of bfcl-eval's model handlers speaks it.
pub trait Handler: Send + Sync + std::fmt::Debug {
    /// Prompt or function-calling mode.
    fn mode(&self) -> CallMode;
    /// The endpoint, after the base URL (`/responses`).
    fn path(&self, model: &str) -> String;
    /// Headers the API wants besides authentication.
    fn headers(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// A question's message as the API takes it (`_substitute_prompt_role`).
    fn message(&self, role: &str, content: &str) -> Value;
    /// The tools for `functions` (`_compile_tools`).
    fn compile_tools(&self, protocol: &Protocol, functions: &[Value]) -> Vec<Value>;
    /// Adds a turn's user messages (`add_first_turn_message`,
    /// `_add_next_turn_user_message`).
    fn add_user_messages(&self, conversation: &mut Conversation, messages: Vec<Value>) {
        conversation.messages.extend(messages);
    }
    /// The request body (`_query_*`).
    fn body(&self, conversation: &Conversation, model: &str, sampling: &Sampling) -> Value;
    /// Reads a response body (`_parse_query_response_*`).
    fn read_reply(&self, body: &Value) -> Result<Reply, String>;
    /// Adds the model's answer to the conversation (`_add_assistant_message`).
    fn add_reply(&self, conversation: &mut Conversation, reply: &Reply) {
        conversation.messages.extend(reply.history.iter().cloned());
    }
    /// Adds the results of the calls of `reply` (`_add_execution_results`):
    /// `results[i]` is the result of the call written `calls[i]`.
    fn add_results(
        &self,
        conversation: &mut Conversation,
        results: &[String],
        calls: &[String],
        reply: &Reply,
    );
}

/// Prompt mode's execution results: one user message holding the Python
/// `repr` of `[{'role': 'tool', 'name': <call>, 'content': <result>}, …]`
/// (`format_execution_results_prompting`).
pub fn results_for_prompt(results: &[String], calls: &[String]) -> String {
    use crate::benchmarks::python::{PyStr, PyValue, py_repr};
    let text = |s: &str| PyValue::Str(PyStr::new(s));
    let items = results
        .iter()
        .zip(calls)
        .map(|(result, call)| {
            PyValue::Dict(vec![
                (text("role"), text("tool")),
                (text("name"), text(call)),
                (text("content"), text(result)),
            ])
        })
        .collect();
    PyStr(py_repr(&PyValue::List(items))).to_string_lossy()
}

/// A response's two token counts from its usage object (0 when absent).
pub(crate) fn usage_tokens(usage: Option<&Value>, input: &str, output: &str) -> (u64, u64) {
    let count = |field: &str| usage.and_then(|u| u.get(field)).and_then(Value::as_u64);
    (count(input).unwrap_or(0), count(output).unwrap_or(0))
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

const PROTOCOL_JSON: &str = include_str!("../../../../datasets/ood/bfcl/prompt/protocol.json");

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
    pub fn messages(
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

    /// A question's conversation before any request (bfcl-eval's
    /// `_pre_query_processing_*` and `_compile_tools`): its turns with
    /// BFCL's system prompt in the first one (prompt mode), every message
    /// as `handler`'s API takes it, and the tools (function-calling mode).
    /// The function docs get the Python note.
    pub fn start(
        &self,
        handler: &dyn Handler,
        question: &Question,
    ) -> (Conversation, Vec<Vec<Value>>) {
        let functions = self.with_python_note(&question.function);
        let first: Vec<Value> = self
            .messages(question, handler.mode(), &functions)
            .iter()
            .map(|(role, content)| handler.message(role, content))
            .collect();
        let mut turns = vec![first];
        turns.extend(question.question.iter().skip(1).map(|turn| {
            turn.iter()
                .map(|m| handler.message(&m.role, &m.content))
                .collect()
        }));
        let tools = match handler.mode() {
            CallMode::FunctionCalling => handler.compile_tools(self, &functions),
            CallMode::Prompt => Vec::new(),
        };
        // `contain_multi_turn_interaction` of the id's category.
        let category = question.id.rsplit_once('_').map_or("", |(c, _)| c);
        let conversation = Conversation {
            messages: Vec::new(),
            tools,
            multi_turn: category.contains("multi_turn"),
        };
        (conversation, turns)
    }

    /// The request body of a single-turn question (`inference_single_turn_*`).
    pub fn single_turn_body(
        &self,
        handler: &dyn Handler,
        question: &Question,
        model: &str,
        sampling: &Sampling,
    ) -> Value {
        let (mut conversation, mut turns) = self.start(handler, question);
        if !turns.is_empty() {
            handler.add_user_messages(&mut conversation, turns.swap_remove(0));
        }
        handler.body(&conversation, model, sampling)
    }

    /// The body bfcl-eval's `OpenAIResponsesHandler` sends for a
    /// single-turn question, at the official temperature.
    pub fn responses_body(&self, question: &Question, mode: CallMode, model: &str) -> Value {
        let handler = openai::OpenAiResponses(mode);
        self.single_turn_body(&handler, question, model, &Sampling::default())
    }

    /// The body bfcl-eval's `OpenAICompletionsHandler` sends for a
    /// single-turn question, at the official temperature.
    pub fn chat_completions_body(&self, question: &Question, mode: CallMode, model: &str) -> Value {
        let handler = openai::OpenAiChat(mode);
        self.single_turn_body(&handler, question, model, &Sampling::default())
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
    use crate::benchmarks::bfcl::files::Message;

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
