//! How bfcl-eval's model handlers read a single-turn result before the
//! checker sees it (`decode_ast`), one [`ResultDecoder`] per kind of model:
//!
//! - prompt-mode models (`default_decode_ast_prompting`): the text decoded
//!   as a Python list of calls ([`super::decode`]);
//! - Gemini in prompt mode: the same, after removing its `tool_code`
//!   fences;
//! - function-calling models of OpenAI and Anthropic: a list of
//!   `{name: "<JSON arguments>"}`, each argument text read with Python's
//!   `json.loads` (one invalid text fails the whole answer, with Python's
//!   `JSONDecodeError` message); a text answer fails with the message
//!   Python gives for iterating a string;
//! - Gemini's function-calling models: the list of `{name: {arguments}}`
//!   as it is (anything else wrapped in a list).
//!
//! A decoded answer that is not a list of one-key `{name: {arguments}}`
//! dicts is in the wrong format (`is_function_calling_format_output`):
//! `ast_decoder:decoder_wrong_output_format` in AST categories, no call in
//! relevance ones. Function-calling models are checked against the
//! expected names with `.` written `_` ([`ExpectedNames::Underscored`]).

use std::str::FromStr;

use super::Call;
use super::check::ExpectedNames;
use super::decode::{DecodeError, decode_ast_prompting, decode_ast_prompting_str};
use crate::benchmarks::python::json::JsonError;
use crate::benchmarks::python::{PyValue, json_loads};
use crate::models::config::{Backend, Mode};

/// A model's result for one question: the text of a prompt-mode model, or
/// something else JSON holds (a multi-turn result's turns, or what makes
/// the single-turn decoder fail).
#[derive(Debug, Clone, PartialEq)]
pub enum ModelResult {
    /// A string: the model's text.
    Text(String),
    /// Not a string (`list`, `dict`, `int`, `float`, `bool`, `None`), or a
    /// string that is not Unicode text (a `str` holding lone surrogates,
    /// JSON's `"\ud800"`).
    NotText(PyValue),
}

/// Which `decode_ast` reads a model's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultDecoder {
    /// `default_decode_ast_prompting` (every prompt-mode model but Gemini).
    #[default]
    Prompt,
    /// Gemini in prompt mode: `tool_code` fences removed first.
    GeminiPrompt,
    /// OpenAI's and Anthropic's function-calling models: arguments as JSON
    /// texts.
    FunctionCalling,
    /// Gemini's function-calling models: arguments as objects.
    GeminiFunctionCalling,
}

/// What a decoder gives back.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A list of calls in the checker's format.
    Calls(Vec<Call>),
    /// Decoded, but not a list of one-key `{name: {arguments}}` dicts.
    WrongFormat,
}

impl ResultDecoder {
    /// Every decoder, in the order the docs list them.
    pub const ALL: [ResultDecoder; 4] = [
        ResultDecoder::Prompt,
        ResultDecoder::GeminiPrompt,
        ResultDecoder::FunctionCalling,
        ResultDecoder::GeminiFunctionCalling,
    ];

    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultDecoder::Prompt => "prompt",
            ResultDecoder::GeminiPrompt => "gemini-prompt",
            ResultDecoder::FunctionCalling => "fc",
            ResultDecoder::GeminiFunctionCalling => "gemini-fc",
        }
    }

    /// The decoder bfcl-eval uses for a model of `backend` asked in `mode`.
    pub fn for_model(backend: Backend, mode: Mode) -> ResultDecoder {
        match (backend, mode) {
            (Backend::Gemini, Mode::Native) => ResultDecoder::GeminiFunctionCalling,
            (Backend::Gemini, _) => ResultDecoder::GeminiPrompt,
            (_, Mode::Native) => ResultDecoder::FunctionCalling,
            _ => ResultDecoder::Prompt,
        }
    }

    /// How the checker writes expected names for these models.
    pub fn expected_names(self) -> ExpectedNames {
        match self {
            ResultDecoder::FunctionCalling | ResultDecoder::GeminiFunctionCalling => {
                ExpectedNames::Underscored
            }
            ResultDecoder::Prompt | ResultDecoder::GeminiPrompt => ExpectedNames::AsWritten,
        }
    }

    /// Decodes one result as the model's handler does; `Err` carries the
    /// message of the exception it raises.
    pub fn decode(self, result: &ModelResult) -> Result<Decoded, DecodeError> {
        match self {
            ResultDecoder::Prompt => prompt(result).map(Decoded::Calls),
            ResultDecoder::GeminiPrompt => match result {
                ModelResult::Text(text) => {
                    decode_ast_prompting(&without_tool_code_fences(text)).map(Decoded::Calls)
                }
                ModelResult::NotText(PyValue::Str(_)) => prompt(result).map(Decoded::Calls),
                ModelResult::NotText(value) => Err(no_attribute(value, "replace")),
            },
            ResultDecoder::FunctionCalling => json_arguments(&python_value(result)),
            ResultDecoder::GeminiFunctionCalling => {
                let value = python_value(result);
                let items = match value {
                    PyValue::List(items) => items,
                    other => vec![other],
                };
                Ok(format_checked(
                    items
                        .into_iter()
                        .map(|item| match item {
                            PyValue::Dict(mut entries) if entries.len() == 1 => {
                                let (name, arguments) = entries.remove(0);
                                (name, arguments)
                            }
                            other => (PyValue::None, other),
                        })
                        .collect(),
                ))
            }
        }
    }
}

impl FromStr for ResultDecoder {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<ResultDecoder> {
        ResultDecoder::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = ResultDecoder::ALL.iter().map(|d| d.as_str()).collect();
                anyhow::anyhow!("unknown decoder {s:?} (one of: {})", names.join(", "))
            })
    }
}

/// Gemini's text with its `tool_code` fences removed, as `GeminiHandler`'s
/// `decode_ast` and `decode_execute` remove them: every opening fence
/// with its line break and every line break before a closing one, wherever
/// they are.
pub fn without_tool_code_fences(text: &str) -> String {
    text.replace("```tool_code\n", "").replace("\n```", "")
}

/// `default_decode_ast_prompting` on any result.
fn prompt(result: &ModelResult) -> Result<Vec<Call>, DecodeError> {
    match result {
        ModelResult::Text(text) => decode_ast_prompting(text),
        ModelResult::NotText(PyValue::Str(text)) => decode_ast_prompting_str(text),
        ModelResult::NotText(value) => Err(no_attribute(value, "strip")),
    }
}

fn python_value(result: &ModelResult) -> PyValue {
    match result {
        ModelResult::Text(text) => PyValue::Str(crate::benchmarks::python::PyStr::new(text)),
        ModelResult::NotText(value) => value.clone(),
    }
}

/// Python's `AttributeError` for `value.<attribute>`.
fn no_attribute(value: &PyValue, attribute: &str) -> DecodeError {
    DecodeError(format!(
        "'{}' object has no attribute '{attribute}'",
        value.type_name()
    ))
}

/// OpenAI's and Claude's `decode_ast`: for each item of the result, its
/// first key's value read with `json.loads`.
fn json_arguments(result: &PyValue) -> Result<Decoded, DecodeError> {
    // What `for invoked_function in result` yields.
    let items: Vec<PyValue> = match result {
        PyValue::List(items) => items.clone(),
        PyValue::Str(text) => text
            .0
            .iter()
            .map(|&c| PyValue::Str(crate::benchmarks::python::PyStr(vec![c])))
            .take(1)
            .collect(),
        // Iterating a dict gives its keys.
        PyValue::Dict(entries) => entries.iter().map(|(k, _)| k.clone()).take(1).collect(),
        other => {
            return Err(DecodeError(format!(
                "'{}' object is not iterable",
                other.type_name()
            )));
        }
    };
    let mut decoded = Vec::with_capacity(items.len());
    for item in items {
        let PyValue::Dict(entries) = item else {
            return Err(no_attribute(&item, "keys"));
        };
        let Some((name, arguments)) = entries.into_iter().next() else {
            return Err(DecodeError("list index out of range".into()));
        };
        let PyValue::Str(text) = &arguments else {
            return Err(DecodeError(format!(
                "the JSON object must be str, bytes or bytearray, not {}",
                arguments.type_name()
            )));
        };
        let arguments = json_loads(&text.0).map_err(|e| json_decode_error(&text.0, &e))?;
        decoded.push((name, arguments));
    }
    Ok(format_checked(decoded))
}

/// `is_function_calling_format_output` on `[{name: arguments}, …]`, and
/// the calls when it holds. A name that is not a string cannot come from
/// JSON; it fails the format (as an unhashable or odd key would fail the
/// checker).
fn format_checked(items: Vec<(PyValue, PyValue)>) -> Decoded {
    let mut calls = Vec::with_capacity(items.len());
    for (name, arguments) in items {
        match (name, arguments) {
            (PyValue::Str(name), PyValue::Dict(args)) => calls.push(Call {
                name: name.to_string_lossy(),
                args,
            }),
            _ => return Decoded::WrongFormat,
        }
    }
    Decoded::Calls(calls)
}

/// Python's `JSONDecodeError` message: `<msg>: line L column C (char P)`,
/// counted in code points.
pub fn json_decode_error(text: &[u32], error: &JsonError) -> DecodeError {
    let pos = error.pos.min(text.len());
    let newline = u32::from('\n');
    let line = text[..pos].iter().filter(|&&c| c == newline).count() + 1;
    let column = match text[..pos].iter().rposition(|&c| c == newline) {
        Some(at) => pos - at,
        None => pos + 1,
    };
    DecodeError(format!(
        "{}: line {line} column {column} (char {pos})",
        error.message
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::json_loads_str;

    fn result(json: &str) -> ModelResult {
        match json_loads_str(json).unwrap() {
            PyValue::Str(s) => ModelResult::Text(s.to_string_lossy()),
            other => ModelResult::NotText(other),
        }
    }

    fn error(decoder: ResultDecoder, json: &str) -> String {
        decoder.decode(&result(json)).unwrap_err().0
    }

    #[test]
    fn function_calling_arguments_are_read_as_json_with_python_messages() {
        let fc = ResultDecoder::FunctionCalling;
        let Decoded::Calls(calls) = fc
            .decode(&result(r#"[{"math_f": "{\"n\": 2.0, \"s\": [1]}"}]"#))
            .unwrap()
        else {
            panic!("not calls")
        };
        assert_eq!(calls[0].name, "math_f");
        assert_eq!(calls[0].args[0].1, PyValue::Float(2.0));
        assert_eq!(
            error(fc, r#"[{"f": "{\"a\": 1"}]"#),
            "Expecting ',' delimiter: line 1 column 8 (char 7)"
        );
        assert_eq!(
            error(fc, r#"[{"f": "{\n\"a\" 1}"}]"#),
            "Expecting ':' delimiter: line 2 column 5 (char 6)"
        );
        assert_eq!(
            error(fc, r#"[{"f": ""}]"#),
            "Expecting value: line 1 column 1 (char 0)"
        );
        assert_eq!(
            error(fc, r#""I cannot help.""#),
            "'str' object has no attribute 'keys'"
        );
        // Claude's answer without calls: the list of its texts.
        assert_eq!(
            error(fc, r#"["No.", "Sorry."]"#),
            "'str' object has no attribute 'keys'"
        );
        assert_eq!(fc.decode(&result("[]")).unwrap(), Decoded::Calls(vec![]));
        assert_eq!(error(fc, "[{}]"), "list index out of range");
        assert_eq!(
            error(fc, r#"[{"f": {"a": 1}}]"#),
            "the JSON object must be str, bytes or bytearray, not dict"
        );
        assert_eq!(error(fc, "3"), "'int' object is not iterable");
        // An empty text iterates to no call at all.
        assert_eq!(fc.decode(&result(r#""""#)).unwrap(), Decoded::Calls(vec![]));
        // Arguments that are valid JSON but not an object: wrong format.
        assert_eq!(
            fc.decode(&result(r#"[{"f": "[1]"}]"#)).unwrap(),
            Decoded::WrongFormat
        );
    }

    #[test]
    fn gemini_results_are_read_as_its_handler_reads_them() {
        let fc = ResultDecoder::GeminiFunctionCalling;
        let Decoded::Calls(calls) = fc.decode(&result(r#"[{"f": {"a": 1}}]"#)).unwrap() else {
            panic!("not calls")
        };
        assert_eq!((calls[0].name.as_str(), calls[0].args.len()), ("f", 1));
        assert_eq!(
            fc.decode(&result(r#""no call""#)).unwrap(),
            Decoded::WrongFormat
        );
        let prompt = ResultDecoder::GeminiPrompt;
        let fenced = r#""```tool_code\n[f(a=1)]\n```""#;
        assert!(
            matches!(prompt.decode(&result(fenced)).unwrap(), Decoded::Calls(c) if c.len() == 1)
        );
        assert_eq!(
            error(prompt, "[1]"),
            "'list' object has no attribute 'replace'"
        );
    }

    #[test]
    fn decoders_round_trip_their_names_and_follow_the_model_kind() {
        for d in ResultDecoder::ALL {
            assert_eq!(d.as_str().parse::<ResultDecoder>().unwrap(), d);
        }
        assert!("json".parse::<ResultDecoder>().is_err());
        assert_eq!(
            ResultDecoder::for_model(Backend::Anthropic, Mode::Native),
            ResultDecoder::FunctionCalling
        );
        assert_eq!(
            ResultDecoder::for_model(Backend::Openai, Mode::Prompt),
            ResultDecoder::Prompt
        );
        assert_eq!(
            ResultDecoder::for_model(Backend::Gemini, Mode::Prompt).expected_names(),
            ExpectedNames::AsWritten
        );
        assert_eq!(
            ResultDecoder::FunctionCalling
                .expected_names()
                .expected("a.b.c"),
            "a_b_c"
        );
    }
}
