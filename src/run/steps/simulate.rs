//! Simulated tools (SPEC §6, *simulate*): a second model plays each called
//! tool from its documentation and answers with the JSON the tool would
//! return, as ToolAlpaca's simulated environment does. The instructions are
//! `prompts/simulate_tool.jinja`. Answers go to the cassette (method
//! `SIMULATE`, url `tool:NAME`), so a simulated run can be replayed exactly
//! without the tool model.

use std::sync::Arc;

use minijinja::{Environment, context};
use serde_json::{Value, json};

use super::cassette::{Cassette, CassetteRequest, Recorded};
use super::limits::cut_text;
use super::{ToolOutput, arguments_json};
use crate::models::backend::Chat;
use crate::models::chat::ChatModel;
use crate::models::http::Failure;
use crate::models::tools::parameters_schema;
use crate::spec::action::print_call;
use crate::spec::records::{Call, Task};

/// The instructions of the tool model.
pub const SIMULATE_TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/simulate_tool.jinja"
));

/// A model playing the tools, with a cassette of its answers.
pub struct Simulator {
    model: Option<ChatModel>,
    cassette: Option<Arc<Cassette>>,
    max_answer_bytes: usize,
}

impl Simulator {
    /// The model playing the tools (`None` when a cassette replays them).
    pub fn model(&self) -> Option<&ChatModel> {
        self.model.as_ref()
    }

    /// A simulator; `model` is `None` when the cassette alone answers
    /// (replay). One of the two must be given. A tool model's answer is
    /// kept up to `max_answer_bytes` (`--max-tool-bytes`).
    pub fn new(
        model: Option<ChatModel>,
        cassette: Option<Arc<Cassette>>,
        max_answer_bytes: usize,
    ) -> Simulator {
        Simulator {
            model,
            cassette,
            max_answer_bytes,
        }
    }

    /// The simulated output of one call.
    pub async fn call(&self, task: &Task, call: &Call) -> ToolOutput {
        let Some(tool) = task.tools.iter().find(|t| t.name == call.name) else {
            return ToolOutput::error(format!("no tool `{}` in this task", call.name), None);
        };
        let request = CassetteRequest {
            method: "SIMULATE".into(),
            url: format!("tool:{}", tool.name),
            arguments: arguments_json(call),
        };
        if let Some(cassette) = &self.cassette {
            if let Some(recorded) = cassette.lookup(&request) {
                return ToolOutput::ok(shown_reply(&recorded.body, recorded.truncated));
            }
            if !cassette.may_call() {
                return ToolOutput::error(
                    format!(
                        "no recorded response for this call in the cassette {}",
                        cassette.path().display()
                    ),
                    None,
                );
            }
        }
        let Some(model) = &self.model else {
            return ToolOutput::error("no tool model to simulate this call (--tool-model)", None);
        };
        let documentation = json!({
            "name": tool.name,
            "description": tool.description,
            "parameters": parameters_schema(tool, crate::models::tools::Dialect::JsonSchema),
        });
        let chat = match simulate_chat(&documentation, call) {
            Ok(chat) => chat,
            Err(message) => return ToolOutput::error(message, None),
        };
        let completion = model.complete(&chat).await;
        match completion.result {
            Ok(answer) => {
                let mut text = answer.output.unwrap_or_default();
                let (kept, truncated) = cut_text(&text, self.max_answer_bytes);
                text.truncate(kept.len());
                let value = shown_reply(&text, truncated);
                if let Some(cassette) = &self.cassette {
                    let recorded = Recorded {
                        request,
                        status: 200,
                        content_type: Some("application/json".into()),
                        body: text,
                        truncated,
                    };
                    // A cassette that cannot be written only costs a later run a call.
                    let _ = cassette.record(&recorded);
                }
                ToolOutput::ok(value)
            }
            Err((kind, message)) => {
                let message = format!("the tool model failed: {kind}: {message}");
                ToolOutput {
                    failure: Some(Failure::new(kind, message.clone())),
                    ..ToolOutput::error(message, None)
                }
            }
        }
    }
}

/// What the model is shown of a tool model's answer: its JSON, or, when
/// the answer was cut at the size limit, the text with `truncated`.
fn shown_reply(text: &str, truncated: bool) -> Value {
    if truncated {
        json!({"body": text, "truncated": true})
    } else {
        reply_json(text)
    }
}

/// The chat asking the tool model for one call's output.
pub fn simulate_chat(documentation: &Value, call: &Call) -> Result<Chat, String> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    let system = env
        .render_str(
            SIMULATE_TEMPLATE,
            context! { tool => serde_json::to_string_pretty(documentation).unwrap_or_default() },
        )
        .map_err(|e| format!("prompts/simulate_tool.jinja: {e}"))?;
    let mut printed = String::new();
    print_call(call, &mut printed);
    Ok(Chat::new(system, printed).with_schema(json!({"type": "object"})))
}

/// The tool model's reply as JSON: the whole text, the inside of a code
/// fence, or the span from the first `{` to the last `}`; a reply that is
/// none of these is shown as a tool error holding the text.
pub fn reply_json(text: &str) -> Value {
    let trimmed = text.trim();
    let fenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|t| t.trim_end().strip_suffix("```"))
        .map(str::trim);
    let braced = match (trimmed.find('{'), trimmed.rfind('}')) {
        (Some(start), Some(end)) if start < end => Some(&trimmed[start..=end]),
        _ => None,
    };
    [Some(trimmed), fenced, braced]
        .into_iter()
        .flatten()
        .find_map(|candidate| serde_json::from_str::<Value>(candidate).ok())
        .unwrap_or_else(|| json!({"error": "the tool model did not answer JSON", "answer": text}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::action::{Mode, parse_actions};

    #[test]
    fn replies_are_read_as_json_where_they_hold_it() {
        assert_eq!(reply_json(r#" {"t": 21} "#), json!({"t": 21}));
        assert_eq!(reply_json("```json\n{\"t\": 21}\n```"), json!({"t": 21}));
        assert_eq!(
            reply_json("Sure! {\"t\": 21} Hope it helps."),
            json!({"t": 21})
        );
        assert_eq!(reply_json("[1, 2]"), json!([1, 2]));
        assert_eq!(
            reply_json("no json here"),
            json!({"error": "the tool model did not answer JSON", "answer": "no json here"})
        );
    }

    #[test]
    fn the_chat_documents_the_tool_and_gives_the_call() {
        let call = parse_actions("[wetter(stadt='Köln')]", Mode::Strict)
            .unwrap()
            .remove(0);
        let chat = simulate_chat(
            &json!({"name": "wetter", "description": "Wetterdaten"}),
            &call,
        )
        .unwrap();
        assert!(
            chat.system.contains("\"description\": \"Wetterdaten\""),
            "{}",
            chat.system
        );
        assert_eq!(chat.user, "wetter(stadt='Köln')");
        assert_eq!(chat.schema, Some(json!({"type": "object"})));
    }
}
