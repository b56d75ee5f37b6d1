//! Reading a model's response (SPEC §2): the strict format check (FM) and
//! the lenient extraction of calls used for scoring.
//!
//! Nothing a model writes is ever executed or evaluated; it is only parsed.

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;

use crate::spec::action::{Mode, parse_actions, parse_call_arguments, parse_value};
use crate::spec::records::{Call, Extraction, Value};

/// What was read from one response.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResponse<'a> {
    /// The response met the strict format.
    pub format_match: bool,
    /// The calls read from it (empty when nothing read as calls).
    pub calls: Vec<Call>,
    /// How the calls were found.
    pub extraction: Extraction,
    /// The text whose language is checked: the Thought when there is one,
    /// else the whole response minus the action list.
    pub language_text: Cow<'a, str>,
}

#[derive(Deserialize)]
struct StrictAnswer<'a> {
    #[serde(rename = "Thought", borrow)]
    thought: Cow<'a, str>,
    #[serde(rename = "Action", borrow)]
    action: Cow<'a, str>,
}

/// Removes one optional code fence and one optional leading `json` word.
fn unwrap_fence(text: &str) -> &str {
    let mut body = text.trim();
    if let Some(after) = body.strip_prefix("```")
        && let Some(inner) = after.trim_end().strip_suffix("```")
    {
        // The rest of the opening line is the fence's language tag.
        body = match inner.split_once('\n') {
            Some((tag, rest)) if !tag.contains('{') => rest,
            _ => inner,
        };
        body = body.trim();
    }
    if let Some(rest) = body
        .strip_prefix("json")
        .or_else(|| body.strip_prefix("JSON"))
    {
        body = rest.trim_start();
    }
    body
}

/// The strict format check of SPEC §2. On success, returns the Thought and the calls.
pub fn strict_format(output: &str) -> Option<(Cow<'_, str>, Vec<Call>)> {
    let body = unwrap_fence(output);
    if !body.starts_with('{') {
        return None;
    }
    let answer: StrictAnswer = serde_json::from_str(body).ok()?;
    let calls = parse_actions(&answer.action, Mode::Strict).ok()?;
    Some((answer.thought, calls))
}

/// Reads a text response: FM first, then lenient extraction.
///
/// `candidates` are the names of the tools shown to the model; they decide
/// the names of bare calls written in prose.
pub fn read_output<'a>(output: &'a str, candidates: &[&str]) -> ReadResponse<'a> {
    if let Some((thought, calls)) = strict_format(output) {
        return ReadResponse {
            format_match: true,
            calls,
            extraction: Extraction::Strict,
            language_text: thought,
        };
    }
    if let Some((thought, calls, span)) = first_json_answer(output) {
        let language_text = match thought {
            Some(t) => Cow::Owned(t),
            None => without_span(output, span),
        };
        return ReadResponse {
            format_match: false,
            calls,
            extraction: Extraction::JsonObject,
            language_text,
        };
    }
    if let Some((calls, span)) = first_call_list(output) {
        return ReadResponse {
            format_match: false,
            calls,
            extraction: Extraction::CallList,
            language_text: without_span(output, span),
        };
    }
    let (calls, spans) = bare_calls(output, candidates);
    let mut language_text = Cow::Borrowed(output);
    for span in spans.into_iter().rev() {
        language_text = Cow::Owned(without_span(&language_text, span).into_owned());
    }
    let extraction = if calls.is_empty() {
        Extraction::Nothing
    } else {
        Extraction::BareCalls
    };
    ReadResponse {
        format_match: false,
        calls,
        extraction,
        language_text,
    }
}

/// Reads a prediction: native calls when present, else its text.
pub fn read_prediction<'a>(
    output: Option<&'a str>,
    native_calls: Option<&[Call]>,
    candidates: &[&str],
) -> ReadResponse<'a> {
    match (native_calls, output) {
        (Some(calls), text) => {
            let text = text.unwrap_or("");
            let format_match = strict_format(text).is_some();
            ReadResponse {
                format_match,
                calls: calls.to_vec(),
                extraction: Extraction::Native,
                language_text: Cow::Borrowed(text),
            }
        }
        (None, Some(text)) => read_output(text, candidates),
        (None, None) => ReadResponse {
            format_match: false,
            calls: Vec::new(),
            extraction: Extraction::Nothing,
            language_text: Cow::Borrowed(""),
        },
    }
}

fn without_span(text: &str, span: Range<usize>) -> Cow<'_, str> {
    let mut s = String::with_capacity(text.len());
    s.push_str(&text[..span.start]);
    s.push(' ');
    s.push_str(&text[span.end..]);
    Cow::Owned(s)
}

/// The first JSON (or Python-style) object in the text that has an `Action`.
/// Returns its Thought, its calls and its span.
fn first_json_answer(text: &str) -> Option<(Option<String>, Vec<Call>, Range<usize>)> {
    for (start, _) in text.match_indices('{') {
        let rest = &text[start..];
        let object = json_object_at(rest).or_else(|| python_object_at(rest));
        let Some((entries, len)) = object else {
            continue;
        };
        let field = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        };
        let Some(action) = field("action") else {
            continue;
        };
        let thought = field("thought")
            .and_then(|v| v.as_text())
            .map(str::to_string);
        let calls = calls_from_action_value(action);
        return Some((thought, calls, start..start + len));
    }
    None
}

fn json_object_at(text: &str) -> Option<(Vec<(String, Value)>, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    match stream.next()? {
        Ok(Value::Dict(entries)) => Some((entries, stream.byte_offset())),
        _ => None,
    }
}

fn python_object_at(text: &str) -> Option<(Vec<(String, Value)>, usize)> {
    match parse_value(text, Mode::Lenient) {
        Ok((Value::Dict(entries), rest)) => Some((entries, text.len() - rest.len())),
        _ => None,
    }
}

/// Calls from an `Action` field: a call-list string, a list of call strings,
/// or a list of `{name, arguments}` objects.
fn calls_from_action_value(action: &Value) -> Vec<Call> {
    match action {
        Value::Str(text) | Value::Word(text) => {
            if text.trim().is_empty() {
                return Vec::new();
            }
            parse_actions(text, Mode::Lenient)
                .ok()
                .or_else(|| first_call_list(text).map(|(calls, _)| calls))
                .unwrap_or_default()
        }
        Value::List(items) | Value::Tuple(items) => items.iter().flat_map(call_from_item).collect(),
        Value::Dict(_) => call_from_item(action),
        _ => Vec::new(),
    }
}

fn call_from_item(item: &Value) -> Vec<Call> {
    match item {
        Value::Str(text) | Value::Word(text) => {
            parse_actions(text, Mode::Lenient).unwrap_or_default()
        }
        Value::Dict(entries) => {
            let get = |k: &str| entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);
            let Some(name) = get("name").and_then(Value::as_text) else {
                return Vec::new();
            };
            let arguments = match get("arguments").or_else(|| get("parameters")) {
                Some(Value::Dict(args)) => args.clone(),
                Some(Value::Str(json)) => match serde_json::from_str::<Value>(json) {
                    Ok(Value::Dict(args)) => args,
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            vec![Call::new(name, arguments)]
        }
        _ => Vec::new(),
    }
}

/// The first `[...]` in the text that parses as a call list.
fn first_call_list(text: &str) -> Option<(Vec<Call>, Range<usize>)> {
    for (start, _) in text.match_indices('[') {
        let rest = &text[start..];
        if let Ok((calls, remaining)) =
            crate::spec::action::parse_actions_prefix(rest, Mode::Lenient)
        {
            return Some((calls, start..text.len() - remaining.len()));
        }
    }
    None
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')
}

/// Bare `name(...)` calls in prose. The name is the longest candidate tool
/// name that the text before `(` ends with, else the identifier just before it.
fn bare_calls(text: &str, candidates: &[&str]) -> (Vec<Call>, Vec<Range<usize>>) {
    let mut calls = Vec::new();
    let mut spans = Vec::new();
    let mut search_from = 0;
    while let Some(found) = text[search_from..].find('(') {
        let paren = search_from + found;
        let before = &text[..paren];
        let name_start = candidates
            .iter()
            .filter(|c| !c.is_empty() && before.ends_with(*c))
            .max_by_key(|c| c.len())
            .map(|c| paren - c.len())
            .or_else(|| {
                let ident_len: usize = before
                    .chars()
                    .rev()
                    .take_while(|c| is_identifier_char(*c))
                    .map(char::len_utf8)
                    .sum();
                (ident_len > 0).then(|| paren - ident_len)
            });
        let parsed = name_start.and_then(|start| {
            parse_call_arguments(&text[paren..], Mode::Lenient)
                .ok()
                .map(|(args, rest)| (start, args, text.len() - rest.len()))
        });
        match parsed {
            Some((start, arguments, end)) => {
                let name = text[start..paren].trim_start_matches(['.', '-', '/']);
                calls.push(Call::new(name, arguments));
                spans.push(start..end);
                search_from = end;
            }
            None => search_from = paren + 1,
        }
    }
    (calls, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(calls: &[Call]) -> Vec<&str> {
        calls.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn strict_format_accepts_plain_fenced_and_json_prefixed() {
        let plain = r#"{"Thought": "Look it up.", "Action": "[weather(city='Oslo')]"}"#;
        for text in [
            plain.to_string(),
            format!("  {plain}\n"),
            format!("```json\n{plain}\n```"),
            format!("```\n{plain}\n```"),
            format!("json{plain}"),
            format!("```json\njson {plain}\n```"),
        ] {
            let read = read_output(&text, &["weather"]);
            assert!(read.format_match, "{text}");
            assert_eq!(read.extraction, Extraction::Strict);
            assert_eq!(names(&read.calls), ["weather"]);
            assert_eq!(read.language_text, "Look it up.");
        }
    }

    #[test]
    fn strict_format_rejects_everything_else() {
        for text in [
            r#"Sure! {"Thought": "x", "Action": "[f()]"}"#,
            r#"{"Thought": "x", "Action": "f()"}"#,
            r#"{"Thought": "x", "Action": ["f()"]}"#,
            r#"{"Thought": "x"}"#,
            r#"{"Action": "[f()]"}"#,
            r#"{'Thought': 'x', 'Action': '[f()]'}"#,
            r#"{"Thought": "x", "Action": "[f(a=b)]"}"#,
            r#"{"Thought": "x", "Action": "[f()]"} {"Thought": "y", "Action": "[]"}"#,
            "```json\n{\"Thought\": \"x\", \"Action\": \"[f()]\"}\n``` more",
        ] {
            assert!(!read_output(text, &["f"]).format_match, "{text}");
        }
    }

    #[test]
    fn lenient_takes_first_json_object_action() {
        let text = r#"Here you go: {"Thought": "Check the rate.", "Action": "[fx(base=USD)]"} and {"Action": "[other()]"}"#;
        let read = read_output(text, &["fx"]);
        assert!(!read.format_match);
        assert_eq!(read.extraction, Extraction::JsonObject);
        assert_eq!(names(&read.calls), ["fx"]);
        assert_eq!(read.calls[0].arguments[0].1, Value::Word("USD".into()));
        assert_eq!(read.language_text, "Check the rate.");
    }

    #[test]
    fn lenient_reads_python_dicts_and_action_lists() {
        let read = read_output("{'Thought': 'x', 'Action': '[f(a=1)]'}", &[]);
        assert_eq!(
            (read.extraction, names(&read.calls)),
            (Extraction::JsonObject, vec!["f"])
        );
        let read = read_output(r#"{"Thought": "x", "Action": ["f(a=1)", "g()"]}"#, &[]);
        assert_eq!(names(&read.calls), ["f", "g"]);
        let read = read_output(
            r#"{"Thought": "x", "Action": [{"name": "f", "arguments": {"a": 1}}]}"#,
            &[],
        );
        assert_eq!(
            read.calls,
            vec![Call::new("f", vec![("a".into(), Value::Int(1))])]
        );
    }

    #[test]
    fn lenient_falls_back_to_bracketed_list_then_bare_calls() {
        let read = read_output("See [1]. I will run [search(q='x'), fetch(id=2)] now.", &[]);
        assert_eq!(read.extraction, Extraction::CallList);
        assert_eq!(names(&read.calls), ["search", "fetch"]);
        assert!(!read.language_text.contains("search("));

        let read = read_output(
            "I'll call Google Translate(text='Hi') then done.",
            &["Translate", "Google Translate"],
        );
        assert_eq!(read.extraction, Extraction::BareCalls);
        assert_eq!(names(&read.calls), ["Google Translate"]);

        let read = read_output("Calling lookup(city='Rome') and then convert(x=1).", &[]);
        assert_eq!(names(&read.calls), ["lookup", "convert"]);
        assert_eq!(read.language_text.trim(), "Calling   and then  .");
    }

    #[test]
    fn without_a_thought_language_is_judged_on_the_text_minus_the_action() {
        let read = read_output(
            r#"Ich rufe jetzt die Wetterschnittstelle auf. {"Action": "[weather(city='London')]"}"#,
            &[],
        );
        assert_eq!(read.extraction, Extraction::JsonObject);
        assert!(read.language_text.contains("Ich rufe jetzt"));
        assert!(
            !read.language_text.contains("London"),
            "{}",
            read.language_text
        );
        let read = read_output(
            "Ich rufe jetzt die Wetterschnittstelle auf: [weather(city='London')]",
            &[],
        );
        assert_eq!(read.extraction, Extraction::CallList);
        assert!(
            !read.language_text.contains("London"),
            "{}",
            read.language_text
        );
    }

    #[test]
    fn refusals_and_prose_give_no_calls() {
        let read = read_output(r#"{"Thought": "No tool fits.", "Action": "[]"}"#, &[]);
        assert!(read.format_match && read.calls.is_empty());
        let read = read_output("Sorry, I cannot help with that (really).", &[]);
        assert_eq!(read.extraction, Extraction::Nothing);
        assert!(read.calls.is_empty());
    }

    #[test]
    fn native_calls_win_over_text() {
        let native = vec![Call::new("f", vec![])];
        let read = read_prediction(Some("calling f"), Some(&native), &[]);
        assert_eq!(read.extraction, Extraction::Native);
        assert_eq!(read.calls, native);
        assert!(!read.format_match);
        let read = read_prediction(None, None, &[]);
        assert_eq!(read.extraction, Extraction::Nothing);
    }
}
