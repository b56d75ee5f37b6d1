//! The trait every HTTP backend implements, and what they share: the
//! request settings taken from a model's configuration, the request ready to
//! send, the answer read from a response, and native calls in SPEC form.
//!
//! A backend only builds JSON and reads JSON; sending, retrying, caching
//! and rate limiting are the runner's (see [`crate::run::runner`]), so each
//! backend is a pair of pure functions tested on exact bodies.

use serde_json::{Map, Value, json};

use super::config::{ApiKey, Backend, Mode, ModelConfig, PromptStyle};
use super::prompt::{Prompt, prompt_for};
use super::tools::NameMap;
use crate::spec::action::print_call;
use crate::spec::records::{Call, Task, Usage};

/// The parts of a model's configuration that shape its requests.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSettings {
    /// Endpoint root, without a trailing slash.
    pub base_url: String,
    /// Model id sent to the server.
    pub model_id: String,
    /// How the model is asked to answer.
    pub mode: Mode,
    /// The answer format asked for in the *prompt* mode.
    pub prompt_style: PromptStyle,
    /// A user template replacing the ITC system prompt, when configured.
    pub system_template: Option<std::sync::Arc<str>>,
    /// Sampling temperature, when set.
    pub temperature: Option<f64>,
    /// Answer length limit.
    pub max_tokens: u32,
    /// Fields merged into the body (deeply, overriding ours).
    pub extra_body: Option<Map<String, Value>>,
}

impl RequestSettings {
    /// The settings of a configured model.
    pub fn from_config(config: &ModelConfig) -> RequestSettings {
        RequestSettings {
            base_url: config.effective_base_url(),
            model_id: config.model_id.clone().unwrap_or_default(),
            mode: config.mode,
            prompt_style: config.prompt_style,
            system_template: config.system_prompt_text.clone(),
            temperature: config.temperature,
            max_tokens: config.max_tokens,
            extra_body: config.extra_body.clone(),
        }
    }

    /// The prompt for a task: the configured answer style, or the user's
    /// own system template.
    pub fn prompt(&self, task: &Task, schema_enforced: bool) -> Prompt {
        prompt_for(
            task,
            self.mode,
            self.prompt_style,
            self.system_template.as_deref(),
            schema_enforced,
        )
    }

    /// Merges `extra_body` into a built body.
    pub fn finish_body(&self, mut body: Value) -> Value {
        if let Some(extra) = &self.extra_body {
            merge(&mut body, &Value::Object(extra.clone()));
        }
        body
    }
}

/// Deep merge: objects merge key by key, anything else replaces.
pub fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

/// A request ready to send. It holds no key: keys are added as headers by
/// [`BackendApi::auth_headers`] when sending, so they never reach the cache.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    /// Full URL.
    pub url: String,
    /// Headers besides authentication (`anthropic-version`, …).
    pub headers: Vec<(&'static str, String)>,
    /// JSON body.
    pub body: Value,
    /// Tool names as sent, for mapping native calls back.
    pub names: NameMap,
    /// The sender reads the response body itself (a benchmark's own
    /// requests, `crate::run::dialogue`): the provider does not parse it.
    pub read_by_caller: bool,
}

/// What one response said.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// The answer text (reasoning removed); `None` when the response had no text.
    pub output: Option<String>,
    /// Native calls, when the model made any.
    pub calls: Option<Vec<Call>>,
    /// Reasoning given apart from the answer.
    pub reasoning: Option<String>,
    /// Token counts, when reported.
    pub usage: Option<Usage>,
    /// The assistant message as the backend takes it back in a
    /// conversation, when the answer made native calls (SPEC §6).
    pub native: Option<NativeTurn>,
    /// The model that answered, as the response names it.
    pub served: Served,
    /// The response body it was read from, for a benchmark that reads
    /// answers itself ([`crate::run::dialogue`]).
    pub raw: Option<Value>,
}

/// The model that answered, as the response names it: a server may run
/// another model, or another build of it, than the id a request asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Served {
    /// The model id the server reports (OpenAI's and Anthropic's `model`,
    /// Gemini's `modelVersion`).
    pub model: Option<String>,
    /// The build of the serving system (OpenAI's `system_fingerprint`).
    pub fingerprint: Option<String>,
}

impl Served {
    /// The served model at `model` and the fingerprint at `fingerprint`
    /// (JSON pointers) of a response body; a value that is not a string
    /// counts as absent.
    pub fn read(body: &Value, model: &str, fingerprint: Option<&str>) -> Served {
        let text = |pointer: &str| {
            body.pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Served {
            model: text(model),
            fingerprint: fingerprint.and_then(text),
        }
    }
}

/// An answer's native calls as a step-by-step run sends them back: the
/// assistant message, and what pairs each call with its output.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeTurn {
    /// The assistant (model) message, in the backend's own shape.
    pub message: Value,
    /// Per call, in call order: the id its tool result names (OpenAI's
    /// `tool_call_id`, Anthropic's `tool_use_id`; Gemini's function name).
    pub call_ids: Vec<String>,
}

/// One finished step of a conversation (SPEC §6): the answer the model gave,
/// the calls read from it and the outputs shown for them, in call order.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownStep {
    /// The answer text.
    pub output: Option<String>,
    /// The native turn, when the calls came as native calls.
    pub native: Option<NativeTurn>,
    /// The calls of the step.
    pub calls: Vec<Call>,
    /// The output shown for each call.
    pub outputs: Vec<Value>,
}

impl ShownStep {
    /// The native turn when its results can be sent as tool-result
    /// messages: native mode, one id per call.
    pub fn tool_results(&self, mode: Mode) -> Option<&NativeTurn> {
        self.native
            .as_ref()
            .filter(|n| mode == Mode::Native && n.call_ids.len() == self.outputs.len())
    }

    /// The `Observation:` message of prompt and structured modes.
    pub fn observation(&self) -> String {
        observation(&self.calls, &self.outputs)
    }
}

/// The user message that shows a step's outputs in prompt and structured
/// modes: `Observation: ` and a JSON list of `{"call", "output"}`.
pub fn observation(calls: &[Call], outputs: &[Value]) -> String {
    let items: Vec<Value> = calls
        .iter()
        .zip(outputs)
        .map(|(call, output)| {
            let mut printed = String::new();
            print_call(call, &mut printed);
            json!({"call": printed, "output": output})
        })
        .collect();
    format!("Observation: {}", Value::Array(items))
}

/// A tool output as the text of a tool-result message: a string as it is,
/// anything else as JSON.
pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A free-form request, for the LLM calls that build task sets (writing
/// queries, judging them, writing gold answers): instructions, one user
/// message, and optionally the JSON schema the reply must follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Chat {
    /// System instructions.
    pub system: String,
    /// The user message.
    pub user: String,
    /// JSON Schema of the reply. OpenAI-compatible servers enforce it as a
    /// `json_schema` response format and Gemini as a JSON response; Anthropic
    /// has no such setting, so the prompt must describe the shape too.
    pub schema: Option<Value>,
}

impl Chat {
    /// A chat without a reply schema.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Chat {
        Chat {
            system: system.into(),
            user: user.into(),
            schema: None,
        }
    }

    /// The same chat with a reply schema.
    pub fn with_schema(mut self, schema: Value) -> Chat {
        self.schema = Some(schema);
        self
    }
}

/// One HTTP API: builds requests for tasks and reads responses.
pub trait BackendApi: Send + Sync {
    /// Which backend this is.
    fn kind(&self) -> Backend;
    /// The request asking this model to answer a task.
    fn build(&self, task: &Task) -> ApiRequest;
    /// The request for a free-form chat (no tools; the answer mode is ignored).
    fn build_chat(&self, chat: &Chat) -> ApiRequest;
    /// Authentication headers for a key.
    fn auth_headers(&self, key: &ApiKey) -> Vec<(&'static str, String)>;
    /// Reads a successful (HTTP 2xx) response body. An error means the body
    /// is not a usable answer (malformed, or an error object).
    fn parse(&self, body: &Value, names: &NameMap) -> Result<Answer, String>;
    /// Appends the finished steps of a step-by-step run (SPEC §6) to a
    /// task's request body ([`BackendApi::build`]): each answer, then its
    /// outputs as tool results (native calls) or as one `Observation:` message.
    fn append_steps(&self, body: &mut Value, steps: &[&ShownStep]);
    /// Appends one more user message to a task's request body, after its
    /// steps (SPEC §8: DFSDT's note on the actions tried before). Where the
    /// API wants turns to alternate, it joins the last user turn.
    fn append_note(&self, body: &mut Value, note: &str);
}

/// A native call in SPEC form: the task's tool name and the arguments,
/// given as a JSON object or as a string holding one (OpenAI). Arguments
/// that are not an object are dropped (the call still counts for selection).
pub fn native_call(api_name: &str, arguments: Option<&Value>, names: &NameMap) -> Call {
    let parsed: Option<crate::spec::records::Value> = match arguments {
        Some(Value::String(text)) => serde_json::from_str(text).ok(),
        Some(other) => serde_json::from_value(other.clone()).ok(),
        None => None,
    };
    let arguments = match parsed {
        Some(crate::spec::records::Value::Dict(entries)) => entries,
        _ => Vec::new(),
    };
    Call::new(names.task_name(api_name), arguments)
}

/// A token count of a `usage` object: 0 when absent or not a whole number
/// in `u64` (negative, fractional, a string, or `1e400`, read as `null`).
pub fn count(value: &Value, field: &str) -> u64 {
    value.get(field).and_then(Value::as_u64).unwrap_or(0)
}

/// A short description of an error object a server put in a body.
pub fn error_object(body: &Value) -> Option<String> {
    let error = body.get("error")?;
    if error.is_null() {
        return None;
    }
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    Some(format!(
        "error in response body: {}",
        crate::util::bounded::clip(&message, 300)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_answered_is_read_from_strings_only() {
        let body = json!({"model": "served-7", "system_fingerprint": "fp_1", "modelVersion": 3});
        let served = Served::read(&body, "/model", Some("/system_fingerprint"));
        assert_eq!(served.model.as_deref(), Some("served-7"));
        assert_eq!(served.fingerprint.as_deref(), Some("fp_1"));
        assert_eq!(
            Served::read(&body, "/modelVersion", None),
            Served::default()
        );
    }
    use crate::spec::records::Value as V;
    use serde_json::json;

    #[test]
    fn extra_body_merges_deeply() {
        let mut body = json!({"a": 1, "cfg": {"x": 1, "y": 2}});
        merge(&mut body, &json!({"cfg": {"y": 3, "z": 4}, "b": [1]}));
        assert_eq!(
            body,
            json!({"a": 1, "b": [1], "cfg": {"x": 1, "y": 3, "z": 4}})
        );
    }

    #[test]
    fn native_calls_from_strings_and_objects() {
        let tools: Vec<crate::spec::records::Tool> =
            vec![serde_json::from_value(json!({"name": "Google Translate"})).unwrap()];
        let names = NameMap::for_tools(&tools);
        let c = native_call(
            "Google_Translate",
            Some(&json!("{\"text\": \"hi\", \"n\": 2}")),
            &names,
        );
        assert_eq!(c.name, "Google Translate");
        assert_eq!(
            c.arguments,
            vec![
                ("text".into(), V::Str("hi".into())),
                ("n".into(), V::Int(2))
            ]
        );
        let c = native_call("other", Some(&json!({"k": true})), &names);
        assert_eq!((c.name.as_str(), c.arguments.len()), ("other", 1));
        assert!(
            native_call("x", Some(&json!("not json")), &names)
                .arguments
                .is_empty()
        );
        assert!(native_call("x", None, &names).arguments.is_empty());
    }
}
