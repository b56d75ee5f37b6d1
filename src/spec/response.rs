//! Reading a model's response (SPEC §2): the strict format check (FM) and
//! the lenient extraction of calls used for scoring.
//!
//! Nothing a model writes is ever executed or evaluated; it is only parsed.
//! Reading keeps to the limits of [`crate::spec::limits`]: at most
//! [`crate::spec::limits::MAX_ANSWER_BYTES`] of a text are read, nesting deeper than
//! [`crate::spec::limits::MAX_NESTING`] makes the answer unreadable, and all
//! the attempts of the lenient extraction share one work [`Budget`], so
//! reading takes time linear in the answer's length. [`ReadResponse::limits`]
//! says which limits an answer reached.

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;

use crate::spec::action::{Cause, Mode, ParseError, Scanner, parse_actions};
use crate::spec::limits::{Budget, ReadLimits, TOO_DEEP, clip_answer};
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
    /// The limits the reading reached (none for an ordinary answer).
    pub limits: ReadLimits,
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
    strict_answer(output).ok()
}

/// Why reading stopped early: a limit of [`crate::spec::limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    TooDeep,
    OutOfWork,
}

/// What the strict check found: the answer, or no match (and whether a
/// limit was the reason).
fn strict_answer(output: &str) -> Result<(Cow<'_, str>, Vec<Call>), Option<Halt>> {
    let body = unwrap_fence(output);
    if !body.starts_with('{') {
        return Err(None);
    }
    let answer: StrictAnswer = serde_json::from_str(body).map_err(|_| None)?;
    let calls = parse_actions(&answer.action, Mode::Strict).map_err(|e| halt_of(&e))?;
    Ok((answer.thought, calls))
}

/// The limit behind a parse error, if any.
fn halt_of(e: &ParseError) -> Option<Halt> {
    match e.cause {
        Cause::Syntax => None,
        Cause::TooDeep => Some(Halt::TooDeep),
        Cause::OutOfWork => Some(Halt::OutOfWork),
    }
}

/// What a search found: something, nothing (try elsewhere), or a limit that
/// ends the reading.
type Found<T> = Result<Option<T>, Halt>;

/// The outcome of one parse attempt as a [`Found`].
fn attempt<T>(result: Result<T, ParseError>) -> Found<T> {
    match result {
        Ok(found) => Ok(Some(found)),
        Err(e) => match halt_of(&e) {
            Some(halt) => Err(halt),
            None => Ok(None),
        },
    }
}

/// Reads a text response: FM first, then lenient extraction. At most
/// [`crate::spec::limits::MAX_ANSWER_BYTES`] of it are read.
///
/// `candidates` are the names of the tools shown to the model; they decide
/// the names of bare calls written in prose.
pub fn read_output<'a>(output: &'a str, candidates: &[&str]) -> ReadResponse<'a> {
    let (text, truncated_bytes) = clip_answer(output);
    let mut read = read_text(text, candidates, Budget::for_len(text.len()));
    read.limits.truncated_bytes = truncated_bytes;
    read
}

/// [`read_output`] with the lenient extraction spending from `budget`
/// instead of the usual one (to measure how much of it answers need).
pub fn read_output_with<'a>(
    output: &'a str,
    candidates: &[&str],
    budget: Budget,
) -> ReadResponse<'a> {
    let (text, truncated_bytes) = clip_answer(output);
    let mut read = read_text(text, candidates, budget);
    read.limits.truncated_bytes = truncated_bytes;
    read
}

fn read_text<'a>(text: &'a str, candidates: &[&str], budget: Budget) -> ReadResponse<'a> {
    let halt = match strict_answer(text) {
        Ok((thought, calls)) => {
            return ReadResponse {
                format_match: true,
                calls,
                extraction: Extraction::Strict,
                language_text: thought,
                limits: ReadLimits::default(),
            };
        }
        Err(halt) => halt,
    };
    let scan = Scanner::new(Mode::Lenient, &budget);
    let found = match halt {
        Some(halt) => Err(halt),
        None => lenient(text, candidates, scan),
    };
    match found {
        Ok(read) => read,
        Err(halt) => ReadResponse {
            format_match: false,
            calls: Vec::new(),
            extraction: Extraction::Nothing,
            language_text: Cow::Borrowed(text),
            limits: ReadLimits {
                too_deep: halt == Halt::TooDeep,
                out_of_work: halt == Halt::OutOfWork,
                ..ReadLimits::default()
            },
        },
    }
}

/// The lenient extraction of SPEC §2, in its order of preference.
fn lenient<'a>(
    text: &'a str,
    candidates: &[&str],
    scan: Scanner<'_>,
) -> Result<ReadResponse<'a>, Halt> {
    let read = |calls, extraction, language_text| ReadResponse {
        format_match: false,
        calls,
        extraction,
        language_text,
        limits: ReadLimits::default(),
    };
    if let Some((thought, calls, span)) = first_json_answer(text, scan)? {
        let language_text = match thought {
            Some(t) => Cow::Owned(t),
            None => without_spans(text, &[span]),
        };
        return Ok(read(calls, Extraction::JsonObject, language_text));
    }
    if let Some((calls, span)) = first_call_list(text, scan)? {
        let language_text = without_spans(text, &[span]);
        return Ok(read(calls, Extraction::CallList, language_text));
    }
    let (calls, spans) = bare_calls(text, candidates, scan)?;
    let extraction = if calls.is_empty() {
        Extraction::Nothing
    } else {
        Extraction::BareCalls
    };
    let language_text = if spans.is_empty() {
        Cow::Borrowed(text)
    } else {
        without_spans(text, &spans)
    };
    Ok(read(calls, extraction, language_text))
}

/// Reads a prediction: native calls when present, else its text.
pub fn read_prediction<'a>(
    output: Option<&'a str>,
    native_calls: Option<&[Call]>,
    candidates: &[&str],
) -> ReadResponse<'a> {
    match (native_calls, output) {
        (Some(calls), text) => {
            let (text, truncated_bytes) = clip_answer(text.unwrap_or(""));
            let strict = strict_answer(text);
            ReadResponse {
                format_match: strict.is_ok(),
                calls: calls.to_vec(),
                extraction: Extraction::Native,
                language_text: Cow::Borrowed(text),
                limits: ReadLimits {
                    truncated_bytes,
                    ..ReadLimits::default()
                },
            }
        }
        (None, Some(text)) => read_output(text, candidates),
        (None, None) => ReadResponse {
            format_match: false,
            calls: Vec::new(),
            extraction: Extraction::Nothing,
            language_text: Cow::Borrowed(""),
            limits: ReadLimits::default(),
        },
    }
}

/// The text with each span (in order) replaced by a space; a span that
/// overlaps the one before it loses the overlap.
fn without_spans<'a>(text: &str, spans: &[Range<usize>]) -> Cow<'a, str> {
    let mut s = String::with_capacity(text.len());
    let mut from = 0;
    for span in spans {
        let start = span.start.max(from);
        s.push_str(&text[from..start]);
        s.push(' ');
        from = span.end.max(start);
    }
    s.push_str(&text[from..]);
    Cow::Owned(s)
}

/// An answer object found in a text: its Thought, its calls and its span.
type JsonAnswer = (Option<String>, Vec<Call>, Range<usize>);

/// The first JSON (or Python-style) object in the text that has an `Action`.
fn first_json_answer(text: &str, scan: Scanner<'_>) -> Found<JsonAnswer> {
    for (start, _) in text.match_indices('{') {
        let rest = &text[start..];
        let object = match json_object_at(rest, scan)? {
            Some(object) => Some(object),
            None => python_object_at(rest, scan)?,
        };
        let Some((entries, len)) = object else {
            continue;
        };
        // The key as the format spells it first, as strict reading takes
        // it; another spelling (`action`, `AcTion`) only when it is absent.
        let field = |name: &str| {
            let exact = entries.iter().find(|(k, _)| k == name);
            exact
                .or_else(|| entries.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
                .map(|(_, v)| v)
        };
        let Some(action) = field("Action") else {
            continue;
        };
        let thought = field("Thought")
            .and_then(|v| v.as_text())
            .map(str::to_string);
        let calls = calls_from_action_value(action, scan)?;
        return Ok(Some((thought, calls, start..start + len)));
    }
    Ok(None)
}

type Entries = Vec<(String, Value)>;

/// A JSON object at the start of the text, and its length. Reading it costs
/// one step of the budget per byte it covers.
fn json_object_at(text: &str, scan: Scanner<'_>) -> Found<(Entries, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let found = match stream.next() {
        Some(Ok(Value::Dict(entries))) => Some((entries, stream.byte_offset())),
        Some(Err(e)) if e.to_string().contains(TOO_DEEP) => return Err(Halt::TooDeep),
        _ => None,
    };
    if !scan.spend(found.as_ref().map_or(0, |(_, len)| *len)) {
        return Err(Halt::OutOfWork);
    }
    Ok(found)
}

fn python_object_at(text: &str, scan: Scanner<'_>) -> Found<(Entries, usize)> {
    Ok(match attempt(scan.value(text))? {
        Some((Value::Dict(entries), rest)) => Some((entries, text.len() - rest.len())),
        _ => None,
    })
}

/// Calls from an `Action` field: a call-list string, a list of call strings,
/// or a list of `{name, arguments}` objects.
fn calls_from_action_value(action: &Value, scan: Scanner<'_>) -> Result<Vec<Call>, Halt> {
    match action {
        Value::Str(text) | Value::Word(text) => {
            if text.trim().is_empty() {
                return Ok(Vec::new());
            }
            if let Some(calls) = attempt(scan.actions(text))? {
                return Ok(calls);
            }
            Ok(first_call_list(text, scan)?
                .map(|(calls, _)| calls)
                .unwrap_or_default())
        }
        Value::List(items) | Value::Tuple(items) => {
            let mut calls = Vec::new();
            for item in items {
                calls.extend(call_from_item(item, scan)?);
            }
            Ok(calls)
        }
        Value::Dict(_) => call_from_item(action, scan),
        _ => Ok(Vec::new()),
    }
}

fn call_from_item(item: &Value, scan: Scanner<'_>) -> Result<Vec<Call>, Halt> {
    match item {
        Value::Str(text) | Value::Word(text) => {
            Ok(attempt(scan.actions(text))?.unwrap_or_default())
        }
        Value::Dict(entries) => {
            let get = |k: &str| entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);
            let Some(name) = get("name").and_then(Value::as_text) else {
                return Ok(Vec::new());
            };
            let arguments = match get("arguments").or_else(|| get("parameters")) {
                Some(Value::Dict(args)) => args.clone(),
                Some(Value::Str(json)) => match serde_json::from_str::<Value>(json) {
                    Ok(Value::Dict(args)) => args,
                    Err(e) if e.to_string().contains(TOO_DEEP) => return Err(Halt::TooDeep),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            Ok(vec![Call::new(name, arguments)])
        }
        _ => Ok(Vec::new()),
    }
}

/// The first `[...]` in the text that parses as a call list.
fn first_call_list(text: &str, scan: Scanner<'_>) -> Found<(Vec<Call>, Range<usize>)> {
    for (start, _) in text.match_indices('[') {
        let rest = &text[start..];
        if let Some((calls, remaining)) = attempt(scan.actions_prefix(rest))? {
            return Ok(Some((calls, start..text.len() - remaining.len())));
        }
    }
    Ok(None)
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')
}

/// Bare `name(...)` calls in prose. The name is the longest candidate tool
/// name that the text before `(` ends with, else the identifier just before it.
fn bare_calls(
    text: &str,
    candidates: &[&str],
    scan: Scanner<'_>,
) -> Result<(Vec<Call>, Vec<Range<usize>>), Halt> {
    let mut calls = Vec::new();
    let mut spans = Vec::new();
    let mut search_from = 0;
    while let Some(found) = text[search_from..].find('(') {
        let paren = search_from + found;
        let before = &text[..paren];
        if !scan.spend(candidates.len()) {
            return Err(Halt::OutOfWork);
        }
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
        let parsed = match name_start {
            Some(start) => attempt(scan.call_arguments(&text[paren..]))?
                .map(|(args, rest)| (start, args, text.len() - rest.len())),
            None => None,
        };
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
    Ok((calls, spans))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(calls: &[Call]) -> Vec<&str> {
        calls.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn the_action_key_as_spelled_wins_over_other_spellings() {
        // Found by fuzzing (fuzz/fuzz_targets/response.rs): with an `AcTion`
        // key before `Action`, lenient reading took the wrong one and found
        // no call where strict reading found one.
        let answer = r#"{"Thought": "x", "AcTion": "not calls", "Action": "[f(a=1)]"}"#;
        let strict = read_output(answer, &["f"]);
        assert!(strict.format_match);
        let prose = format!("Here you go. {answer}");
        let lenient = read_output(&prose, &["f"]);
        assert!(!lenient.format_match);
        assert_eq!(lenient.calls, strict.calls);
        assert_eq!(lenient.calls.len(), 1);
        // Another spelling still counts when the exact one is absent.
        let lower = read_output(r#"Sure: {"thought": "x", "action": "[f(a=1)]"}"#, &["f"]);
        assert_eq!(lower.calls, strict.calls);
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

    use crate::spec::limits::{MAX_ANSWER_BYTES, MAX_NESTING};

    fn unreadable(read: &ReadResponse<'_>, text: &str) {
        assert!(read.calls.is_empty() && !read.format_match, "{text:.80}");
        assert_eq!(read.extraction, Extraction::Nothing, "{text:.80}");
        assert_eq!(read.language_text, text);
    }

    #[test]
    fn too_deep_answers_are_unreadable_in_every_reading() {
        let deep = format!(
            "{}1{}",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        let deep_json = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let deep_dict = format!("{}1{}", "{'a': ".repeat(200), "}".repeat(200));
        for text in [
            // Strict format, deep Action.
            format!(r#"{{"Thought": "x", "Action": "[f(a={deep})]"}}"#),
            // A JSON object deeper than the limit (serde_json's own is 128).
            format!(r#"Here: {{"Thought": "x", "Action": "[f()]", "z": {deep_json}}}"#),
            // A Python-style dict.
            format!("Here: {{'Action': '[f()]', 'z': {deep_dict}}}"),
            // A call list in prose, and bare calls.
            format!("I will call [f(a={deep})] now"),
            format!("I will call f(a={deep}) now"),
            // The inputs of issue 12, unclosed.
            format!("[f(a={}", "[".repeat(5675)),
            format!("[f(a={}", "(".repeat(5672)),
            format!("[f(a={}", "{'a':".repeat(7250)),
        ] {
            let read = read_output(&text, &["f"]);
            unreadable(&read, &text);
            assert!(
                read.limits.too_deep && !read.limits.out_of_work,
                "{text:.80}"
            );
        }
    }

    #[test]
    fn an_answer_just_within_the_depth_limit_reads() {
        let ok = format!("{}1{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        let text = format!("I will call [f(a={ok})] now");
        let read = read_output(&text, &["f"]);
        assert_eq!(
            (read.extraction, read.calls.len()),
            (Extraction::CallList, 1)
        );
        assert!(read.limits.is_clear());
    }

    #[test]
    fn lenient_reading_stops_when_its_work_runs_out() {
        // Every `[` starts an attempt that reads to the end of the text.
        let text = "[f(".repeat(100_000);
        let read = read_output(&text, &["f"]);
        unreadable(&read, &text);
        assert!(read.limits.out_of_work && !read.limits.too_deep);
        // The same text with room to spare is read the same way, without
        // running out: its answer is simply nothing.
        let small = "[f(".repeat(50);
        let read = read_output(&small, &["f"]);
        assert_eq!(read.extraction, Extraction::Nothing);
        assert!(read.limits.is_clear());
    }

    #[test]
    fn a_long_honest_answer_is_read_within_the_budget() {
        // Prose full of brackets, then a call list of 20,000 calls: every
        // failed start is cheap, the list is read once.
        let prose = "See [1], [the docs] and (this) {too}. ".repeat(2000);
        let list: Vec<String> = (0..20_000).map(|i| format!("f(a={i}, b='x')")).collect();
        let text = format!("{prose}[{}]", list.join(", "));
        let read = read_output(&text, &["f"]);
        assert_eq!(read.extraction, Extraction::CallList);
        assert_eq!(read.calls.len(), 20_000);
        assert!(read.limits.is_clear());
        // It needs far less than the usual budget: 8 steps a byte will do.
        let tight = Budget::with_steps(8 * text.len() as u64);
        let read = read_output_with(&text, &["f"], tight);
        assert_eq!(read.calls.len(), 20_000);
    }

    #[test]
    fn only_the_first_mebibyte_is_read() {
        let answer = "[f(a=1)]";
        // Wholly inside the limit: read, with the rest counted as cut.
        let filler = "x".repeat(MAX_ANSWER_BYTES - answer.len());
        let text = format!("{filler}{answer} and then {}", "y".repeat(1000));
        let read = read_output(&text, &["f"]);
        assert_eq!(
            (read.extraction, read.calls.len()),
            (Extraction::CallList, 1)
        );
        assert_eq!(
            read.limits.truncated_bytes,
            (text.len() - MAX_ANSWER_BYTES) as u64
        );
        // Cut in the middle: not read.
        let text = format!("{}{answer}", "x".repeat(MAX_ANSWER_BYTES - 3));
        let read = read_output(&text, &["f"]);
        assert!(read.calls.is_empty());
        assert_eq!(read.limits.truncated_bytes, (answer.len() - 3) as u64);
        assert!(read.language_text.len() <= MAX_ANSWER_BYTES);
        // The cut falls before a character it would split.
        let text = format!("{}é", "x".repeat(MAX_ANSWER_BYTES - 1));
        assert_eq!(read_output(&text, &[]).limits.truncated_bytes, 2);
        // Native answers: the text beside the calls is cut too.
        let native = vec![Call::new("f", vec![])];
        let read = read_prediction(Some(&text), Some(&native), &[]);
        assert_eq!((read.calls.len(), read.limits.truncated_bytes), (1, 2));
    }

    #[test]
    fn many_bare_calls_leave_one_language_text() {
        let text = "Call f(a=1) then ".repeat(20_000);
        let read = read_output(&text, &["f"]);
        assert_eq!(read.calls.len(), 20_000);
        assert_eq!(read.language_text, "Call   then ".repeat(20_000));
    }
}
