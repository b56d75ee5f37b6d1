//! A multi-turn result as bfcl-eval's result files hold it (per turn, per
//! step, what the model said) decoded into call strings as the official
//! runner decodes it, steps that fail to decode or decode to nothing
//! dropped:
//!
//! - a function-calling step, a list of `{name: "<JSON arguments>"}`
//!   (`convert_to_function_call`): `name(k1=repr(v1),k2=repr(v2))`, the
//!   arguments read with Python's `json.loads`; arguments that are not
//!   valid JSON or not an object fail the step;
//! - a prompt-mode step, the model's text (`default_decode_execute_prompting`):
//!   decoded as the single-turn prompt decoder decodes it, each call written
//!   `name(k1=v1, k2=v2)`, a value written by `parse_nested_value` (a dict
//!   whose values are all dicts as a nested call, another dict as
//!   `{'k': v}`, anything else as its `repr`).
//!
//! A result file is read as function-calling when any step in it is not a
//! text (bfcl-eval writes the text of an FC model's closing message beside
//! its calls), else as prompt-mode: a function-calling model that never
//! called a function is then decoded as prompt-mode text.

use crate::benchmarks::bfcl::decode::decode_ast_prompting;
use crate::benchmarks::bfcl::result_decoder::{ResultDecoder, without_tool_code_fences};
use crate::benchmarks::bfcl::verdict::ErrorType;
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str, py_repr, py_str};

/// How the steps of a result were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepFormat {
    /// Lists of `{name: arguments}` (function-calling models).
    FunctionCalling,
    /// Texts (prompt-mode models).
    Prompt,
    /// Gemini's texts: its `tool_code` fences removed before decoding.
    GeminiPrompt,
}

impl StepFormat {
    /// The format of a model whose results `decoder` reads, when its steps
    /// are texts.
    pub fn of_texts(decoder: ResultDecoder) -> StepFormat {
        match decoder {
            ResultDecoder::GeminiPrompt => StepFormat::GeminiPrompt,
            _ => StepFormat::Prompt,
        }
    }

    /// The format of a model asked through `decoder`'s handler.
    pub fn of_model(decoder: ResultDecoder) -> StepFormat {
        match decoder {
            ResultDecoder::FunctionCalling | ResultDecoder::GeminiFunctionCalling => {
                StepFormat::FunctionCalling
            }
            _ => StepFormat::of_texts(decoder),
        }
    }
}

/// The format of a result: function-calling when any step is not a text,
/// else texts as `decoder` reads them.
pub fn step_format_for(turns: &PyValue, decoder: ResultDecoder) -> StepFormat {
    match step_format(turns) {
        StepFormat::FunctionCalling => StepFormat::FunctionCalling,
        _ => StepFormat::of_texts(decoder),
    }
}

/// The format of a result: function-calling when any step is not a text.
pub fn step_format(turns: &PyValue) -> StepFormat {
    let structured = |step: &PyValue| !matches!(step, PyValue::Str(_));
    let any_structured = match turns {
        PyValue::List(turns) => turns.iter().any(|turn| match turn {
            PyValue::List(steps) => steps.iter().any(structured),
            _ => false,
        }),
        _ => false,
    };
    if any_structured {
        StepFormat::FunctionCalling
    } else {
        StepFormat::Prompt
    }
}

/// Decodes a result's turns; `Err` when it is not a list of turns (the
/// official `multi_turn:inference_error`).
pub fn decode_turns(
    turns: &PyValue,
    format: StepFormat,
) -> Result<Vec<Vec<Vec<String>>>, ErrorType> {
    let PyValue::List(turns) = turns else {
        return Err(ErrorType::MultiTurnInferenceError);
    };
    Ok(turns
        .iter()
        .map(|turn| match turn {
            PyValue::List(steps) => steps
                .iter()
                .filter_map(|step| decode_step(step, format))
                .filter(|calls| !calls.is_empty())
                .collect(),
            // Python iterates anything else by its items (a text by
            // characters): none of them decodes.
            _ => Vec::new(),
        })
        .collect())
}

/// One step's call strings, or `None` when it does not decode.
pub fn decode_step(step: &PyValue, format: StepFormat) -> Option<Vec<String>> {
    match (format, step) {
        (StepFormat::FunctionCalling, _) => function_calls(step),
        (StepFormat::Prompt, PyValue::Str(text)) => prompt_calls(&text.to_string_lossy()),
        (StepFormat::GeminiPrompt, PyValue::Str(text)) => {
            prompt_calls(&without_tool_code_fences(&text.to_string_lossy()))
        }
        (StepFormat::Prompt | StepFormat::GeminiPrompt, _) => None,
    }
}

fn function_calls(step: &PyValue) -> Option<Vec<String>> {
    let items: Vec<&PyValue> = match step {
        PyValue::Dict(_) => vec![step],
        PyValue::List(items) => items.iter().collect(),
        _ => return None,
    };
    let mut calls = Vec::new();
    for item in items {
        let PyValue::Dict(entries) = item else {
            return None;
        };
        for (name, arguments) in entries {
            let parsed;
            let arguments = match arguments {
                PyValue::Str(text) => {
                    parsed = json_loads_str(&text.to_string_lossy()).ok()?;
                    &parsed
                }
                other => other,
            };
            let PyValue::Dict(arguments) = arguments else {
                return None;
            };
            let written: Vec<String> = arguments
                .iter()
                .map(|(k, v)| format!("{}={}", text_of(k), PyStr(py_repr(v))))
                .collect();
            calls.push(format!("{}({})", text_of(name), written.join(",")));
        }
    }
    Some(calls)
}

fn prompt_calls(text: &str) -> Option<Vec<String>> {
    let calls = decode_ast_prompting(text).ok()?;
    calls
        .iter()
        .map(|call| {
            let args: Option<Vec<String>> = call
                .args
                .iter()
                .map(|(k, v)| Some(format!("{}={}", text_of(k), nested_value(v)?)))
                .collect();
            Some(format!("{}({})", call.name, args?.join(", ")))
        })
        .collect()
}

/// `parse_nested_value`; `None` where Python raises (a dict of dicts that
/// is empty has no first key).
fn nested_value(value: &PyValue) -> Option<String> {
    let PyValue::Dict(entries) = value else {
        return Some(PyStr(py_repr(value)).to_string_lossy());
    };
    if entries.iter().all(|(_, v)| matches!(v, PyValue::Dict(_))) {
        let (name, args) = entries.first()?;
        let PyValue::Dict(args) = args else {
            return None;
        };
        let written: Option<Vec<String>> = args
            .iter()
            .map(|(k, v)| Some(format!("{}={}", text_of(k), nested_value(v)?)))
            .collect();
        return Some(format!("{}({})", text_of(name), written?.join(", ")));
    }
    let written: Option<Vec<String>> = entries
        .iter()
        .map(|(k, v)| Some(format!("'{}': {}", text_of(k), nested_value(v)?)))
        .collect();
    Some(format!("{{{}}}", written?.join(", ")))
}

/// `f"{k}"`: a value's `str()`.
fn text_of(value: &PyValue) -> String {
    PyStr(py_str(value)).to_string_lossy()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> PyValue {
        json_loads_str(text).unwrap()
    }

    #[test]
    fn function_calling_steps_become_keyword_calls_with_python_reprs() {
        let step = json(
            r#"[{"cd": "{\"folder\": \"doc\"}"}, {"mean": "{\"numbers\": [1, 2.5], \"ok\": true, \"x\": null}"}]"#,
        );
        assert_eq!(
            decode_step(&step, StepFormat::FunctionCalling).unwrap(),
            vec!["cd(folder='doc')", "mean(numbers=[1, 2.5],ok=True,x=None)"]
        );
        // Invalid JSON or arguments that are not an object fail the step.
        assert_eq!(
            decode_step(&json(r#"[{"cd": "{"}]"#), StepFormat::FunctionCalling),
            None
        );
        assert_eq!(
            decode_step(&json(r#"[{"cd": "[1]"}]"#), StepFormat::FunctionCalling),
            None
        );
        assert_eq!(
            decode_step(&json(r#""text""#), StepFormat::FunctionCalling),
            None
        );
    }

    #[test]
    fn prompt_steps_are_decoded_and_written_with_spaces() {
        let step = json(r#""[cd(folder='doc'), post(tags=['a'], meta={'k': 1})]""#);
        assert_eq!(
            decode_step(&step, StepFormat::Prompt).unwrap(),
            vec!["cd(folder='doc')", "post(tags=['a'], meta={'k': 1})"]
        );
        assert_eq!(
            decode_step(&json(r#""I cannot help.""#), StepFormat::Prompt),
            None
        );
    }

    #[test]
    fn geminis_texts_lose_their_tool_code_fences_first() {
        let fenced = json(r#""```tool_code\n[cd(folder='doc')]\n```""#);
        assert_eq!(
            decode_step(&fenced, StepFormat::GeminiPrompt).unwrap(),
            vec!["cd(folder='doc')"]
        );
        // Any other prompt-mode model's text keeps them, and does not decode.
        assert_eq!(decode_step(&fenced, StepFormat::Prompt), None);
        let texts = json(r#"[["```tool_code\n[cd(folder='doc')]\n```"]]"#);
        assert_eq!(
            step_format_for(&texts, ResultDecoder::GeminiPrompt),
            StepFormat::GeminiPrompt
        );
        assert_eq!(
            step_format_for(&texts, ResultDecoder::Prompt),
            StepFormat::Prompt
        );
        // Structured steps are function calls whatever the decoder.
        let calls = json(r#"[[[{"cd": {"folder": "doc"}}]]]"#);
        assert_eq!(
            step_format_for(&calls, ResultDecoder::GeminiPrompt),
            StepFormat::FunctionCalling
        );
        assert_eq!(
            StepFormat::of_model(ResultDecoder::GeminiFunctionCalling),
            StepFormat::FunctionCalling
        );
    }

    #[test]
    fn a_result_with_any_structured_step_is_function_calling() {
        assert_eq!(
            step_format(&json(r#"[[[{"ls": "{}"}], "done"]]"#)),
            StepFormat::FunctionCalling
        );
        assert_eq!(step_format(&json(r#"[["[ls()]"]]"#)), StepFormat::Prompt);
    }

    #[test]
    fn empty_and_undecodable_steps_are_dropped_and_turns_kept() {
        let turns = json(r#"[[[{"ls": "{}"}], [], "bye"], []]"#);
        let decoded = decode_turns(&turns, StepFormat::FunctionCalling).unwrap();
        assert_eq!(decoded, vec![vec![vec!["ls()".to_string()]], vec![]]);
        assert_eq!(
            decode_turns(&json(r#""x""#), StepFormat::Prompt),
            Err(ErrorType::MultiTurnInferenceError)
        );
    }
}
