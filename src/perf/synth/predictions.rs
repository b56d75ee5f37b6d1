//! One synthetic answer ([`Generator::fill_prediction`]): the gold calls as
//! a model would write them, spoiled as the answer's style says, written out
//! in the style's format.

use fastrand::Rng;
use serde::Serialize;

use super::arguments::str_value;
use super::generator::Generator;
use super::phrases::{ENGLISH, LANGUAGES};
use super::style::AnswerStyle;
use super::tasks::TaskExtras;
use crate::spec::action::{print_actions, print_call};
use crate::spec::records::{Call, Prediction, Task, TaskKind, Usage, Value};

/// Tool names a wrong-tool answer makes up.
const HALLUCINATED: [&str; 8] = [
    "get_weather",
    "search_api",
    "web_search",
    "lookup",
    "fetch_data",
    "google_search",
    "query_database",
    "api_request",
];

/// Errors of answers that were never obtained.
const ERRORS: [&str; 4] = [
    "timeout after 3 retries",
    "HTTP 429: rate limit exceeded",
    "HTTP 500: internal server error",
    "context length exceeded",
];

impl Generator {
    /// Fills `p` (task id and model already set) with `model`'s answer to
    /// task `t`; returns its style.
    pub(super) fn fill_prediction(
        &mut self,
        model: usize,
        t: usize,
        p: &mut Prediction,
        scratch: &mut String,
    ) -> AnswerStyle {
        let style = self.pick_style(model);
        let sloppiness = self.models[model].sloppiness;
        let rng = &mut self.rng;
        let task = &self.tasks[t];
        let extra = &self.extras[t];
        let lang = language_of(task);

        p.error = None;
        p.calls = None;
        p.latency_ms = Some(rng.u64(150..6000));

        if style == AnswerStyle::Error {
            p.output = None;
            p.error = Some(ERRORS[rng.usize(..ERRORS.len())].to_string());
            p.usage = None;
            return style;
        }

        let mut calls = predicted_gold(rng, task);
        let content = draw_content(rng, style, sloppiness, &mut calls);
        spoil_calls(rng, task, extra, content, &mut calls);

        let thought: &str = if style == AnswerStyle::WrongLanguage {
            let pool = if calls.is_empty() {
                &self.foreign_refusals[lang]
            } else {
                &self.foreign[lang]
            };
            &pool[rng.usize(..pool.len())]
        } else if calls.is_empty() {
            &extra.refusal
        } else {
            &extra.thoughts[rng.usize(..3)]
        };

        if style == AnswerStyle::Native {
            p.output = rng.bool().then(|| thought.to_string());
            p.usage = Some(usage(rng, task, p.output.as_deref().map_or(40, str::len)));
            p.calls = Some(calls);
            return style;
        }

        let text = AnswerText {
            thought,
            calls: &calls,
            language: lang,
            extra,
        };
        text.write(rng, style, scratch);
        p.usage = Some(usage(rng, task, scratch.len()));
        match &mut p.output {
            Some(out) => {
                out.clear();
                out.push_str(scratch);
            }
            None => p.output = Some(scratch.clone()),
        }
        style
    }
}

/// The content error an answer of `style` makes ([`AnswerStyle::StrictCorrect`]
/// for none): its own for the content styles, sometimes one for the format
/// styles (as often as the model is sloppy). Some correct answers get their
/// values loosened on the way.
fn draw_content(
    rng: &mut Rng,
    style: AnswerStyle,
    sloppiness: f64,
    calls: &mut [Call],
) -> AnswerStyle {
    use AnswerStyle::*;
    match style {
        StrictCorrect => {
            if rng.f64() < 0.12 {
                loosen_values(rng, calls);
            }
            StrictCorrect
        }
        WrongTool | WrongValue | MissingArgument | ExtraArgument | Refusal => style,
        _ if rng.f64() < sloppiness => [WrongValue, MissingArgument, WrongTool][rng.usize(..3)],
        _ => StrictCorrect,
    }
}

/// Makes the content error `content` in `calls`.
fn spoil_calls(
    rng: &mut Rng,
    task: &Task,
    extra: &TaskExtras,
    content: AnswerStyle,
    calls: &mut Vec<Call>,
) {
    use AnswerStyle::*;
    match content {
        StrictCorrect => {}
        Refusal => calls.clear(),
        _ if calls.is_empty() => calls.push(spurious_call(rng, task)),
        WrongTool => {
            let i = rng.usize(..calls.len());
            calls[i].name = if !extra.confusers.is_empty() && rng.bool() {
                task.tools[extra.confusers[rng.usize(..extra.confusers.len())]]
                    .name
                    .clone()
            } else {
                HALLUCINATED[rng.usize(..HALLUCINATED.len())].to_string()
            };
        }
        WrongValue => wrong_value(rng, task, calls),
        MissingArgument => {
            let with_args: Vec<usize> = (0..calls.len())
                .filter(|&i| !calls[i].arguments.is_empty())
                .collect();
            if let Some(&i) = with_args.get(rng.usize(..with_args.len().max(1))) {
                let a = rng.usize(..calls[i].arguments.len());
                calls[i].arguments.remove(a);
            }
        }
        ExtraArgument => {
            let i = rng.usize(..calls.len());
            extra_argument(rng, task, &mut calls[i]);
        }
        _ => {}
    }
}

/// What a text answer says, before its style decides the format.
struct AnswerText<'a> {
    thought: &'a str,
    calls: &'a [Call],
    /// Index of the task's language in [`LANGUAGES`].
    language: usize,
    extra: &'a TaskExtras,
}

impl AnswerText<'_> {
    /// Writes the answer in the format of `style` into `out` (cleared first).
    fn write(&self, rng: &mut Rng, style: AnswerStyle, out: &mut String) {
        use AnswerStyle::*;
        let thought = self.thought;
        let mut action = print_actions(self.calls);
        if rng.f64() < 0.15 && !action.contains('"') && !action.contains('\\') {
            action = action.replace('\'', "\"");
        }
        out.clear();
        match style {
            Fenced => {
                out.push_str("```json\n");
                push_strict(out, thought, &action, rng.f64() < 0.5);
                out.push_str("\n```");
            }
            JsonPrefix => {
                out.push_str("json");
                push_strict(out, thought, &action, false);
            }
            ProseWrapped => self.write_prose_wrapped(rng, &action, out),
            PythonDict => {
                out.push_str("{'Thought': ");
                push_python_str(out, thought);
                out.push_str(", 'Action': ");
                push_python_str(out, &action);
                out.push('}');
            }
            BareCalls => self.write_bare_calls(out),
            CallList => {
                out.push_str(thought);
                out.push_str(if rng.bool() { "\nAction: " } else { "\n\n" });
                out.push_str(&action);
            }
            _ => push_strict(out, thought, &action, rng.f64() < 0.1),
        }
    }

    /// The strict object between sentences, in English about a third of the time.
    fn write_prose_wrapped(&self, rng: &mut Rng, action: &str, out: &mut String) {
        let lang = &LANGUAGES[self.language];
        let english = rng.f64() < 0.3;
        let before = if english {
            LANGUAGES[ENGLISH].wrap_before[0]
        } else {
            lang.wrap_before[rng.usize(..2)]
        };
        out.push_str(before);
        out.push('\n');
        push_strict(out, self.thought, action, rng.bool());
        if rng.bool() {
            out.push('\n');
            out.push_str(if english {
                LANGUAGES[ENGLISH].wrap_after
            } else {
                lang.wrap_after
            });
        }
    }

    /// The calls inside the task's bare-call sentence (the thought alone for none).
    fn write_bare_calls(&self, out: &mut String) {
        if self.calls.is_empty() {
            out.push_str(self.thought);
            return;
        }
        out.push_str(&self.extra.bare.0);
        let joiner = if self.language == ENGLISH {
            " and "
        } else {
            ", "
        };
        for (i, call) in self.calls.iter().enumerate() {
            if i > 0 {
                out.push_str(joiner);
            }
            print_call(call, out);
        }
        out.push_str(&self.extra.bare.1);
    }
}

#[derive(Serialize)]
struct StrictAnswer<'a> {
    #[serde(rename = "Thought")]
    thought: &'a str,
    #[serde(rename = "Action")]
    action: &'a str,
}

fn push_strict(out: &mut String, thought: &str, action: &str, pretty: bool) {
    let answer = StrictAnswer { thought, action };
    let text = if pretty {
        serde_json::to_string_pretty(&answer)
    } else {
        serde_json::to_string(&answer)
    };
    out.push_str(&text.expect("strings serialize"));
}

/// Python `repr` of a string: single quotes unless the text holds one.
fn push_python_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Token counts as a backend would report them.
fn usage(rng: &mut Rng, task: &Task, output_bytes: usize) -> Usage {
    Usage {
        prompt_tokens: 250 + 90 * task.tools.len() as u64 + rng.u64(0..60),
        completion_tokens: (output_bytes / 3) as u64 + rng.u64(0..8),
    }
}

/// Index of the task's language in [`LANGUAGES`] (English if unknown).
fn language_of(task: &Task) -> usize {
    LANGUAGES
        .iter()
        .position(|l| l.code == task.language)
        .unwrap_or(ENGLISH)
}

/// The gold calls as a model would write them: references become one of the
/// styles SPEC §3 accepts.
pub(super) fn predicted_gold(rng: &mut Rng, task: &Task) -> Vec<Call> {
    let mut calls = task.gold.calls.clone();
    if task.kind == TaskKind::Nested {
        for call in &mut calls {
            for (_, v) in &mut call.arguments {
                if let Value::Ref(r) = v {
                    *v = Value::Str(match rng.usize(..5) {
                        0 => format!("${}.{}", r.call + 1, r.field),
                        1 => format!("{{{{{}}}}}", r.field),
                        2 => format!("API_call_{}.{}", r.call, r.field),
                        3 => format!("<output of call {}>", r.call + 1),
                        _ => r.field.clone(),
                    });
                }
            }
        }
    }
    calls
}

/// Writes some values in a form that is loosely equal: numbers as strings,
/// booleans as `'True'`, ASCII strings upper-cased.
fn loosen_values(rng: &mut Rng, calls: &mut [Call]) {
    for call in calls {
        for (_, v) in &mut call.arguments {
            if rng.bool() {
                continue;
            }
            match v {
                Value::Int(i) => *v = Value::Str(i.to_string()),
                Value::Bool(b) => *v = Value::Str(if *b { "True" } else { "False" }.into()),
                Value::Str(s) if s.is_ascii() && !s.starts_with(['$', '{', '<']) => {
                    *s = s.to_uppercase()
                }
                _ => {}
            }
        }
    }
}

/// Gives one argument a wrong value (adds one where no call has any).
fn wrong_value(rng: &mut Rng, task: &Task, calls: &mut [Call]) {
    let with_args: Vec<usize> = (0..calls.len())
        .filter(|&i| !calls[i].arguments.is_empty())
        .collect();
    if with_args.is_empty() {
        let i = rng.usize(..calls.len());
        extra_argument(rng, task, &mut calls[i]);
        return;
    }
    let call = &mut calls[with_args[rng.usize(..with_args.len())]];
    let a = rng.usize(..call.arguments.len());
    let value = &mut call.arguments[a].1;
    *value = match &*value {
        Value::Int(i) => Value::Int(*i + rng.i64(1..5)),
        Value::Float(x) => Value::Float((*x * 1.5 * 100.0).round() / 100.0),
        Value::Bool(b) => Value::Bool(!*b),
        Value::List(items) if items.len() > 1 => Value::List(items[..items.len() - 1].to_vec()),
        Value::List(_) => Value::List(vec![str_value("ferries"), str_value("tolls")]),
        Value::Dict(entries) => {
            let mut entries = entries.clone();
            entries.retain(|(k, _)| k != "cabin");
            entries.push(("cabin".into(), str_value("business")));
            Value::Dict(entries)
        }
        Value::Str(s) | Value::Word(s) => {
            // A different word; for a reference, an invented literal.
            let choices = ["abc123", "Tokyo", "New York", "GBP", "12345", "Lagos"];
            let start = rng.usize(..choices.len());
            let pick = (0..choices.len())
                .map(|k| choices[(start + k) % choices.len()])
                .find(|c| !crate::score::task::text_equal(c, s))
                .unwrap_or("Lagos");
            str_value(pick)
        }
        other => Value::List(vec![other.clone()]),
    };
}

/// Adds an argument the call did not give: an unused optional parameter, or
/// a made-up one.
fn extra_argument(rng: &mut Rng, task: &Task, call: &mut Call) {
    let tool = task.tools.iter().find(|t| t.name == call.name);
    let unused = tool.and_then(|t| {
        t.optional_parameters
            .iter()
            .find(|p| !call.arguments.iter().any(|(k, _)| *k == p.name))
    });
    let (key, value) = match unused {
        Some(p) => (
            p.name.clone(),
            match p.kind.as_str() {
                "integer" => Value::Int(rng.i64(1..10)),
                "number" => Value::Float(2.5),
                "boolean" => Value::Bool(true),
                "array" => Value::List(vec![str_value("tolls")]),
                "object" => Value::Dict(vec![("max_stops".into(), Value::Int(0))]),
                _ => str_value("metric"),
            },
        ),
        None => (
            ["verbose", "lang", "format"][rng.usize(..3)].to_string(),
            [Value::Bool(true), str_value("en"), str_value("json")][rng.usize(..3)].clone(),
        ),
    };
    call.arguments.push((key, value));
}

/// A call where none is wanted: a candidate tool with its required
/// parameters filled with plausible strings.
fn spurious_call(rng: &mut Rng, task: &Task) -> Call {
    let tool = &task.tools[rng.usize(..task.tools.len())];
    let lang = &LANGUAGES[language_of(task)];
    let arguments = tool
        .required_parameters
        .iter()
        .map(|p| (p.name.clone(), str_value(lang.places[rng.usize(..4)])))
        .collect();
    Call::new(tool.name.clone(), arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::synth::{SynthSpec, synthesize};

    #[test]
    fn answer_styles_score_as_intended() {
        use crate::score::stream::score_response;
        use crate::score::task::ScoreOptions;
        let s = synthesize(&SynthSpec {
            tasks: 300,
            models: 10,
            seed: 3,
        });
        let tasks_per_model = s.tasks.len();
        let mut correct = (0, 0, 0);
        for (i, (p, style)) in s.predictions.iter().zip(&s.styles).enumerate() {
            let task = &s.tasks[i % tasks_per_model];
            assert_eq!(p.task_id, task.id);
            let o = score_response(
                task,
                p.output.as_deref(),
                p.calls.as_deref(),
                ScoreOptions::default(),
            );
            match style {
                AnswerStyle::StrictCorrect => {
                    assert!(o.format_match, "{:?}", p.output);
                    assert_eq!(o.selection.f1, 1.0, "{:?}", p.output);
                    // The scorer reads every number in a styled reference as a call
                    // index, so `{{orders.0.order_id}}` (a dotted path holding an index)
                    // does not match; reported, tolerated here.
                    let index_in_path = p
                        .output
                        .as_deref()
                        .is_some_and(|o| o.contains("{{orders.0."));
                    if !index_in_path {
                        assert_eq!(
                            o.invocation.f1, 1.0,
                            "{:?} vs {:?}",
                            p.output, task.gold.calls
                        );
                    }
                    correct.0 += 1;
                    correct.1 += usize::from(o.language.is_match());
                }
                AnswerStyle::Fenced | AnswerStyle::JsonPrefix => {
                    assert!(o.format_match, "{:?}", p.output)
                }
                AnswerStyle::ProseWrapped
                | AnswerStyle::PythonDict
                | AnswerStyle::BareCalls
                | AnswerStyle::CallList => {
                    assert!(!o.format_match, "{:?}", p.output);
                    if !task.gold.calls.is_empty() {
                        assert!(
                            o.selection.f1 > 0.0 || o.counts.sel_pred > 0,
                            "{style:?} read no calls: {:?}",
                            p.output
                        );
                    }
                }
                AnswerStyle::WrongTool
                | AnswerStyle::WrongValue
                | AnswerStyle::MissingArgument
                | AnswerStyle::ExtraArgument => {
                    assert!(o.format_match);
                    assert!(
                        o.invocation.f1 < 1.0,
                        "{style:?} scored perfect: {:?}",
                        p.output
                    );
                }
                AnswerStyle::WrongLanguage => {
                    correct.2 += usize::from(!o.language.is_match());
                }
                AnswerStyle::Error => {
                    assert!(p.error.is_some() && p.output.is_none() && p.calls.is_none())
                }
                _ => {}
            }
        }
        // Short texts make the detector err now and then; the right language must dominate.
        assert!(
            correct.1 * 100 >= correct.0 * 90,
            "LM of correct answers {}/{}",
            correct.1,
            correct.0
        );
        let wrong_language = s
            .styles
            .iter()
            .filter(|s| **s == AnswerStyle::WrongLanguage)
            .count();
        assert!(
            correct.2 * 100 >= wrong_language * 85,
            "LM mismatch {}/{wrong_language}",
            correct.2
        );
    }
}
