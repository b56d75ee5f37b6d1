//! NL assertions judged as `NLAssertionsEvaluator` judges them: one request
//! per trial to a judge model, the official system prompt and a user prompt
//! holding the conversation (`role: content` lines, every message, `None`
//! for a message without text) and the task's assertions as Python writes a
//! list of strings; temperature 0 and no tools. The reply must be the JSON
//! object `{"results": [{"expectedOutcome", "reasoning",
//! "metExpectation"}, …]}` and nothing else: where the official code raises
//! reading it (`json.loads`, a missing key, a `metExpectation` pydantic
//! cannot read as a bool), the trial's evaluation raises here too. As there,
//! the reward is 1 when every result the judge returned is met, so a reply
//! with no results passes.
//!
//! The judge is a configured model asked through [`ChatModel`]: its
//! replies are cached (a second scoring of the same trials sends nothing),
//! and its verdicts are stored in the per-item lines.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use serde_json::{Value, json};

use super::ask::given_sampling;
use super::checks::NlAssertionCheck;
use super::format::Message;
use super::protocol::protocol;
use super::requests::{Party, read_reply, user_body};
use crate::benchmarks::python::repr::py_repr;
use crate::benchmarks::python::value::{PyStr, PyValue, to_utf8};
use crate::models::config::ConfigFile;
use crate::models::{ChatModel, ModelSpec};

/// A judge model of a models file, asked as the official judge is.
pub struct NlJudge {
    /// The model, its replies cached.
    pub model: ChatModel,
    party: Party,
}

impl std::fmt::Debug for NlJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NlJudge")
            .field("model", &self.model.name())
            .finish()
    }
}

/// One trial's judging.
#[derive(Debug, Clone, PartialEq)]
pub struct NlJudgment {
    /// The verdicts, or why the official evaluator would raise (or the
    /// request failed).
    pub verdicts: Result<Vec<NlAssertionCheck>, String>,
    /// Whether the cache answered.
    pub cache_hit: bool,
    /// Requests sent (retries included; 0 for a cache hit).
    pub requests: u32,
}

impl NlJudge {
    /// The model `name` of `models_file` as the NL judge, its replies cached
    /// in `cache_dir`; temperature the official judge's unless the
    /// configuration sets one.
    pub fn load(models_file: &Path, name: &str, cache_dir: Option<&Path>) -> anyhow::Result<Self> {
        let config = ConfigFile::load_one(models_file, name)?;
        let (temperature, max_tokens) = given_sampling(&config);
        let temperature = temperature.unwrap_or(protocol().nl_judge.temperature);
        let party = Party::of_model(&config, Some(temperature), max_tokens, None)
            .with_context(|| format!("--nl-judge {name}: the offline baseline cannot judge"))?;
        let model = ChatModel::new(&ModelSpec::resolve(config)?, cache_dir)?;
        Ok(NlJudge { model, party })
    }

    /// The judge's name in the models file.
    pub fn name(&self) -> &str {
        self.model.name()
    }

    /// The request body for a conversation and its assertions; an error
    /// where the official prompt cannot be written (a `MultiToolMessage`
    /// has no `content`).
    pub fn body(&self, messages: &[Message], assertions: &[String]) -> Result<Value, String> {
        let texts = &protocol().nl_judge;
        let user = protocol().nl_judge_user_prompt(
            &trajectory_text(messages)?,
            &python_list_of_strings(assertions),
        );
        Ok(user_body(
            &self.party,
            &texts.system_prompt,
            &[json!({"role": "user", "content": user})],
        ))
    }

    /// Judges one conversation.
    pub async fn judge(&self, messages: &[Message], assertions: &[String]) -> NlJudgment {
        let body = match self.body(messages, assertions) {
            Ok(body) => body,
            Err(why) => {
                return NlJudgment {
                    verdicts: Err(why),
                    cache_hit: false,
                    requests: 0,
                };
            }
        };
        let exchange = self.model.send(&self.party.request(body), None).await;
        let verdicts = match exchange.result {
            Ok((answer, _)) => answer
                .raw
                .as_ref()
                .ok_or_else(|| "the judge's reply has no body".to_string())
                .and_then(read_reply)
                .and_then(|reply| read_verdicts(reply.content.as_deref())),
            Err(failure) => Err(format!(
                "the NL judge's request failed ({:?}): {}",
                failure.kind,
                self.model.redact(&failure.message)
            )),
        };
        NlJudgment {
            verdicts,
            cache_hit: exchange.cache_hit,
            requests: exchange.requests,
        }
    }
}

/// `"\n".join(f"{m.role}: {m.content}" for m in trajectory)`.
pub fn trajectory_text(messages: &[Message]) -> Result<String, String> {
    let mut lines = Vec::with_capacity(messages.len());
    for m in messages {
        let (role, content) = match m {
            Message::System(t) => ("system", &t.content),
            Message::Assistant(p) => ("assistant", &p.content),
            Message::User(p) => ("user", &p.content),
            Message::Tool(t) => ("tool", &t.content),
            Message::MultiTool(_) => {
                return Err("'MultiToolMessage' object has no attribute 'content'".into());
            }
        };
        lines.push(format!("{role}: {}", content.as_deref().unwrap_or("None")));
    }
    Ok(lines.join("\n"))
}

/// `str(list_of_str)`: Python's repr of each string, in brackets.
pub fn python_list_of_strings(items: &[String]) -> String {
    let list = PyValue::List(items.iter().map(|s| PyValue::Str(PyStr::new(s))).collect());
    String::from_utf8(to_utf8(&py_repr(&list))).expect("the repr of valid strings is UTF-8")
}

/// The judge's reply as `evaluate_nl_assertions` reads it: `json.loads`,
/// `.get("results", [])`, and per result its three keys, `metExpectation`
/// read as pydantic reads a bool; an error where that code raises.
pub fn read_verdicts(content: Option<&str>) -> Result<Vec<NlAssertionCheck>, String> {
    let content = content.ok_or("the judge's reply has no text (json.loads(None))")?;
    let data: Value = serde_json::from_str(content)
        .map_err(|e| format!("the judge's reply is not JSON ({e})"))?;
    let object = data
        .as_object()
        .ok_or("the judge's reply is not a JSON object (no .get)")?;
    let results = match object.get("results") {
        None => return Ok(Vec::new()),
        Some(Value::Array(results)) => results,
        Some(_) => return Err("the judge's `results` is not a list".into()),
    };
    results
        .iter()
        .enumerate()
        .map(|(i, result)| {
            let field = |key: &str| {
                result
                    .get(key)
                    .ok_or_else(|| format!("results[{i}] has no `{key}`"))
            };
            let text = |key: &str| {
                field(key)?
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("results[{i}].{key} is not a string"))
            };
            let met = pydantic_bool(field("metExpectation")?)
                .ok_or_else(|| format!("results[{i}].metExpectation is not a valid boolean"))?;
            Ok(NlAssertionCheck {
                nl_assertion: text("expectedOutcome")?,
                met,
                justification: text("reasoning")?,
            })
        })
        .collect()
}

/// A value as pydantic (lax mode) reads it into a `bool`.
fn pydantic_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => {
            let x = n.as_f64()?;
            (x == 0.0 || x == 1.0).then_some(x == 1.0)
        }
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// One trial to judge: its place among the trials, its conversation and
/// its task's assertions.
pub struct NlJob {
    /// Where the trial is in the caller's list.
    pub index: usize,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The task's NL assertions.
    pub assertions: Vec<String>,
}

/// Judges `jobs` concurrently (as many at once as the judge's slots allow);
/// each judgment with its job's index.
pub async fn judge_all(judge: Arc<NlJudge>, jobs: Vec<NlJob>) -> Vec<(usize, NlJudgment)> {
    let mut set = tokio::task::JoinSet::new();
    for job in jobs {
        let judge = Arc::clone(&judge);
        set.spawn(async move {
            let judgment = judge.judge(&job.messages, &job.assertions).await;
            (job.index, judgment)
        });
    }
    let mut out = Vec::new();
    while let Some(done) = set.join_next().await {
        match done {
            Ok(pair) => out.push(pair),
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    out.sort_by_key(|(index, _)| *index);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assertions_are_written_as_python_writes_a_list_of_strings() {
        let items = [
            "plain",
            "it's",
            "say \"hi\"",
            "both ' and \"",
            "tab\there",
            "é\u{7f}",
        ]
        .map(String::from);
        assert_eq!(
            python_list_of_strings(&items),
            r#"['plain', "it's", 'say "hi"', 'both \' and "', 'tab\there', 'é\x7f']"#
        );
        assert_eq!(python_list_of_strings(&[]), "[]");
    }

    #[test]
    fn the_trajectory_is_role_and_content_lines_with_none_for_no_text() {
        let messages: Vec<Message> = serde_json::from_value(json!([
            {"role": "assistant", "content": "Hi! How can I help you today?"},
            {"role": "user", "content": "Cancel it"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "1", "name": "get_order_details", "arguments": {"order_id": "#W1"}}]},
            {"role": "tool", "id": "1", "content": "{\"a\": 1}"},
        ]))
        .unwrap();
        assert_eq!(
            trajectory_text(&messages).unwrap(),
            "assistant: Hi! How can I help you today?\nuser: Cancel it\nassistant: None\ntool: {\"a\": 1}"
        );
        let multi: Vec<Message> = serde_json::from_value(json!([
            {"role": "tool", "tool_messages": [{"role": "tool", "id": "1", "content": "x"}]}
        ]))
        .unwrap();
        assert!(
            trajectory_text(&multi)
                .unwrap_err()
                .contains("MultiToolMessage")
        );
    }

    #[test]
    fn the_prompt_is_the_official_template_filled() {
        let user = protocol().nl_judge_user_prompt("user: hi", "['a']");
        assert_eq!(
            user,
            "\n        conversation:\n        user: hi\n        \n        expectedOutcomes:\n        ['a']\n        "
        );
        assert!(
            protocol()
                .nl_judge
                .system_prompt
                .contains("`metExpectation`: `true` if the agent satisfies")
        );
    }

    #[test]
    fn replies_are_read_where_the_official_code_reads_them_and_refused_where_it_raises() {
        let one = |met: Value| {
            json!({"results": [{"expectedOutcome": "A", "reasoning": "r", "metExpectation": met}]})
                .to_string()
        };
        let read = |text: &str| read_verdicts(Some(text));
        assert_eq!(
            read(&one(json!(true))).unwrap(),
            [NlAssertionCheck {
                nl_assertion: "A".into(),
                met: true,
                justification: "r".into()
            }]
        );
        for (value, met) in [
            (json!(false), false),
            (json!(0), false),
            (json!(1.0), true),
            (json!("YES"), true),
            (json!("off"), false),
        ] {
            assert_eq!(read(&one(value.clone())).unwrap()[0].met, met, "{value}");
        }
        for bad in [json!(2), json!("maybe"), json!(null), json!([true])] {
            assert!(read(&one(bad.clone())).is_err(), "{bad}");
        }
        // No results: nothing to fail, as `all([])` is true.
        assert_eq!(read("{}").unwrap(), []);
        assert_eq!(read(" {\"results\": []}\n").unwrap(), []);
        for bad in [
            "```json\n{\"results\": []}\n```",
            "[]",
            "{\"results\": {}}",
            "{\"results\": [{\"expectedOutcome\": \"A\", \"metExpectation\": true}]}",
            "{\"results\": [{\"expectedOutcome\": 1, \"reasoning\": \"r\", \"metExpectation\": true}]}",
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
        assert!(read_verdicts(None).is_err());
    }
}
