//! The action-string grammar of SPEC §1: a parser built from small nom
//! functions, and a printer that writes call lists back.
//!
//! ```text
//! actions := '[' [ call { ',' call } [','] ] ']'
//! call    := name '(' [ arg { ',' arg } [','] ] ')'
//! arg     := key ('=' | ':') value
//! value   := string | number | bool | null | list | tuple | dict | bare word
//! ```
//!
//! [`Mode::Strict`] accepts exactly the grammar. [`Mode::Lenient`] (used for
//! scoring) also accepts a missing outer `[]`, positional arguments (keys
//! `#0`, `#1`, …), bare words as values and trailing text after the list.

use std::fmt::{self, Write};

use nom::branch::alt;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::error::{ErrorKind, ParseError as NomParseError};
use nom::{IResult, Parser};

use crate::spec::records::{Call, Reference, Value};

/// The arguments of a call, in order: `(key, value)` pairs.
pub type Arguments = Vec<(String, Value)>;

/// How forgiving the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Exactly the SPEC §1 grammar.
    Strict,
    /// The grammar plus the lenient extensions of SPEC §1.
    Lenient,
}

/// Why an action string did not parse: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the input.
    pub offset: usize,
    /// 1-based line of the offset.
    pub line: usize,
    /// 1-based column (in characters) of the offset.
    pub column: usize,
    /// What the parser expected at that point.
    pub expected: &'static str,
    /// A short excerpt of the input found there.
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found = if self.found.is_empty() {
            "end of input".to_string()
        } else {
            format!("{:?}", self.found)
        };
        write!(
            f,
            "line {}, column {}: expected {}, found {}",
            self.line, self.column, self.expected, found
        )
    }
}

impl std::error::Error for ParseError {}

/// Internal nom error: the remaining input and a label of what was expected.
#[derive(Debug, Clone, PartialEq)]
struct Expected<'a> {
    rest: &'a str,
    label: &'static str,
}

impl<'a> NomParseError<&'a str> for Expected<'a> {
    fn from_error_kind(rest: &'a str, _kind: ErrorKind) -> Self {
        Expected {
            rest,
            label: "valid syntax",
        }
    }
    fn append(_rest: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }
    fn or(self, other: Self) -> Self {
        // Keep whichever alternative got further into the input.
        if other.rest.len() <= self.rest.len() {
            other
        } else {
            self
        }
    }
}

type Res<'a, T> = IResult<&'a str, T, Expected<'a>>;

/// Labels a parser's failure with what it expected, keeping deeper failures.
fn expect<'a, T>(
    label: &'static str,
    mut parser: impl Parser<&'a str, Output = T, Error = Expected<'a>>,
) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |input: &'a str| {
        parser.parse(input).map_err(|e| {
            e.map(|inner| {
                if inner.rest.len() < input.len() {
                    inner
                } else {
                    Expected { rest: input, label }
                }
            })
        })
    }
}

fn fail<'a, T>(rest: &'a str, label: &'static str) -> Res<'a, T> {
    Err(nom::Err::Error(Expected { rest, label }))
}

/// Parses an action string into calls.
pub fn parse_actions(input: &str, mode: Mode) -> Result<Vec<Call>, ParseError> {
    match actions(mode)(input) {
        Ok((rest, calls)) => {
            let rest_trimmed = ws(rest);
            if mode == Mode::Strict && !rest_trimmed.is_empty() {
                Err(locate(input, rest_trimmed, "end of input"))
            } else {
                Ok(calls)
            }
        }
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(locate(input, e.rest, e.label)),
        Err(nom::Err::Incomplete(_)) => Err(locate(input, "", "more input")),
    }
}

/// Parses a call list at the start of `input` and returns the unparsed rest
/// (used to find a call list inside prose).
pub fn parse_actions_prefix(input: &str, mode: Mode) -> Result<(Vec<Call>, &str), ParseError> {
    match actions(mode)(input) {
        Ok((rest, calls)) => Ok((calls, rest)),
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(locate(input, e.rest, e.label)),
        Err(nom::Err::Incomplete(_)) => Err(locate(input, "", "more input")),
    }
}

/// Parses `(arg, …)` at the start of `input`: the argument list of a call
/// whose name was found elsewhere. Returns the arguments and the rest.
pub fn parse_call_arguments(input: &str, mode: Mode) -> Result<(Arguments, &str), ParseError> {
    match arguments(input, mode) {
        Ok((rest, args)) => Ok((args, rest)),
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(locate(input, e.rest, e.label)),
        Err(nom::Err::Incomplete(_)) => Err(locate(input, "", "more input")),
    }
}

/// Parses one value in the given mode (used for Python-style dicts in responses).
pub fn parse_value(input: &str, mode: Mode) -> Result<(Value, &str), ParseError> {
    match value(mode)(ws(input)) {
        Ok((rest, v)) => Ok((v, rest)),
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(locate(input, e.rest, e.label)),
        Err(nom::Err::Incomplete(_)) => Err(locate(input, "", "more input")),
    }
}

fn locate(input: &str, rest: &str, expected: &'static str) -> ParseError {
    let offset = input.len() - rest.len();
    let before = &input[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    ParseError {
        offset,
        line,
        column,
        expected,
        found: rest.chars().take(20).collect(),
    }
}

fn ws(input: &str) -> &str {
    input.trim_start()
}

fn sym<'a>(c: char, label: &'static str) -> impl FnMut(&'a str) -> Res<'a, char> {
    move |input: &'a str| expect(label, char(c)).parse(ws(input))
}

/// The call list, with or without brackets depending on the mode.
fn actions(mode: Mode) -> impl FnMut(&str) -> Res<'_, Vec<Call>> {
    move |input: &str| {
        let start = ws(input);
        if start.starts_with('[') {
            let (rest, _) = sym('[', "'['")(start)?;
            let (rest, calls) = separated_items(rest, ']', |i| call(i, mode))?;
            let (rest, _) = sym(']', "',' or ']'")(rest)?;
            Ok((rest, calls))
        } else if mode == Mode::Lenient {
            bare_call_sequence(start, mode)
        } else {
            fail(start, "'['")
        }
    }
}

/// Lenient: calls without the outer brackets, separated by commas or spaces.
fn bare_call_sequence(input: &str, mode: Mode) -> Res<'_, Vec<Call>> {
    let (mut rest, first) = call(input, mode)?;
    let mut calls = vec![first];
    loop {
        let after = ws(rest);
        let after = after.strip_prefix(',').unwrap_or(after);
        match call(after, mode) {
            Ok((r, c)) => {
                calls.push(c);
                rest = r;
            }
            Err(_) => return Ok((rest, calls)),
        }
    }
}

/// `item { ',' item } [',']` up to (not including) `close`; empty allowed.
fn separated_items<'a, T>(
    input: &'a str,
    close: char,
    mut item: impl FnMut(&'a str) -> Res<'a, T>,
) -> Res<'a, Vec<T>> {
    let mut items = Vec::new();
    let mut rest = ws(input);
    if rest.starts_with(close) {
        return Ok((rest, items));
    }
    loop {
        let (r, it) = item(rest)?;
        items.push(it);
        let r = ws(r);
        match r.strip_prefix(',') {
            Some(after) => {
                rest = ws(after);
                if rest.starts_with(close) {
                    return Ok((rest, items));
                }
            }
            None => return Ok((r, items)),
        }
    }
}

fn is_name_char(c: char) -> bool {
    !matches!(
        c,
        '(' | ')' | '[' | ']' | '{' | '}' | ',' | '"' | '\'' | '=' | '\n' | '\r'
    )
}

/// A tool name: any text up to '(' without structural characters; trailing
/// white space is not part of the name.
fn name(input: &str) -> Res<'_, &str> {
    let (rest, raw) = expect("a tool name", take_while1(is_name_char)).parse(ws(input))?;
    let trimmed = raw.trim_end();
    if trimmed.is_empty() {
        return fail(input, "a tool name");
    }
    Ok((rest, trimmed))
}

fn call(input: &str, mode: Mode) -> Res<'_, Call> {
    let (rest, call_name) = name(input)?;
    let (rest, arguments) = arguments(rest, mode)?;
    Ok((rest, Call::new(call_name, arguments)))
}

/// `'(' [ arg { ',' arg } [','] ] ')'`
fn arguments(input: &str, mode: Mode) -> Res<'_, Vec<(String, Value)>> {
    let (rest, _) = sym('(', "'(' after the tool name")(input)?;
    let mut position = 0usize;
    let (rest, arguments) = separated_items(rest, ')', |i| {
        let result = argument(i, mode, position);
        position += 1;
        result
    })?;
    let (rest, _) = sym(')', "',' or ')'")(rest)?;
    Ok((rest, arguments))
}

fn argument(input: &str, mode: Mode, position: usize) -> Res<'_, (String, Value)> {
    let keyed = |i| -> Res<'_, (String, Value)> {
        let (rest, k) = key(i)?;
        let (rest, _) = expect("'=' or ':'", one_of("=:")).parse(ws(rest))?;
        let (rest, v) = value(mode)(ws(rest))?;
        Ok((rest, (k, v)))
    };
    match keyed(input) {
        Ok(ok) => Ok(ok),
        Err(keyed_err) if mode == Mode::Lenient => match value(mode)(ws(input)) {
            Ok((rest, v)) => Ok((rest, (format!("#{position}"), v))),
            Err(_) => Err(keyed_err),
        },
        Err(e) => Err(e),
    }
}

fn is_key_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$' | '@')
}

fn key(input: &str) -> Res<'_, String> {
    let input = ws(input);
    if input.starts_with(['\'', '"']) {
        quoted_string(input)
    } else {
        let (rest, k) = expect("a parameter name", take_while1(is_key_char)).parse(input)?;
        Ok((rest, k.to_string()))
    }
}

fn value(mode: Mode) -> impl FnMut(&str) -> Res<'_, Value> {
    move |input: &str| {
        let input = ws(input);
        let Some(first) = input.chars().next() else {
            return fail(input, "a value");
        };
        match first {
            '\'' | '"' => quoted_string(input).map(|(r, s)| (r, Value::Str(s))),
            '[' => container(input, '[', ']', mode).map(|(r, v)| (r, Value::List(v))),
            '(' => container(input, '(', ')', mode).map(|(r, v)| (r, Value::Tuple(v))),
            '{' => dict(input, mode),
            _ => scalar(input, mode),
        }
    }
}

fn container(input: &str, open: char, close: char, mode: Mode) -> Res<'_, Vec<Value>> {
    let (rest, _) = char(open).parse(input)?;
    let (rest, items) = separated_items(rest, close, value(mode))?;
    let label = if close == ']' {
        "',' or ']'"
    } else {
        "',' or ')'"
    };
    let (rest, _) = sym(close, label)(rest)?;
    Ok((rest, items))
}

fn dict(input: &str, mode: Mode) -> Res<'_, Value> {
    let (rest, _) = char('{').parse(input)?;
    let (rest, entries) = separated_items(rest, '}', |i| {
        let (r, k) = key(i)?;
        let (r, _) = expect("':' or '='", one_of(":=")).parse(ws(r))?;
        let (r, v) = value(mode)(ws(r))?;
        Ok((r, (k, v)))
    })?;
    let (rest, _) = sym('}', "',' or '}'")(rest)?;
    // `{'$ref': '0.field'}` is how a reference to an earlier output is written.
    if let [(key, Value::Str(target))] = entries.as_slice()
        && key == "$ref"
        && let Some(r) = Reference::parse(target)
    {
        return Ok((rest, Value::Ref(r)));
    }
    Ok((rest, Value::Dict(entries)))
}

/// Whether a scalar ends here: end of input or a closing/separating character.
fn at_value_end(rest: &str) -> bool {
    let r = ws(rest);
    r.is_empty() || r.starts_with([',', ')', ']', '}'])
}

/// Numbers, keywords and (lenient) bare words.
fn scalar(input: &str, mode: Mode) -> Res<'_, Value> {
    if let Ok((rest, v)) = number(input)
        && at_value_end(rest)
    {
        return Ok((rest, v));
    }
    if let Ok((rest, word)) =
        take_while1::<_, _, Expected>(|c: char| c.is_alphanumeric() || c == '_').parse(input)
        && at_value_end(rest)
    {
        let keyword = match word {
            "true" | "True" => Some(Value::Bool(true)),
            "false" | "False" => Some(Value::Bool(false)),
            "null" | "None" => Some(Value::Null),
            _ => None,
        };
        if let Some(v) = keyword {
            return Ok((rest, v));
        }
    }
    if mode == Mode::Strict {
        return fail(
            input,
            "a value (string, number, true, false, null, list or dict)",
        );
    }
    bare_word(input)
}

/// Lenient: everything up to the next separator or closer, trimmed.
fn bare_word(input: &str) -> Res<'_, Value> {
    let (rest, word) = expect(
        "a value",
        take_while1(|c: char| !matches!(c, ',' | ')' | ']' | '}' | '\n')),
    )
    .parse(input)?;
    let word = word.trim_end();
    if word.is_empty() {
        return fail(input, "a value");
    }
    Ok((rest, Value::Word(word.to_string())))
}

fn number(input: &str) -> Res<'_, Value> {
    let (rest, text) = recognize((
        opt(one_of("+-")),
        alt((
            recognize((digit1, opt((char('.'), opt(digit1))))),
            recognize((char('.'), digit1)),
        )),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(input)?;
    let is_integer = !text.contains(['.', 'e', 'E']);
    if is_integer && let Ok(i) = text.trim_start_matches('+').parse::<i64>() {
        return Ok((rest, Value::Int(i)));
    }
    match text.parse::<f64>() {
        Ok(x) => Ok((rest, Value::Float(x))),
        Err(_) => fail(input, "a number"),
    }
}

/// A `'…'` or `"…"` string with backslash escapes.
fn quoted_string(input: &str) -> Res<'_, String> {
    let (mut rest, quote) = one_of("'\"").parse(input)?;
    let mut out = String::new();
    loop {
        let (r, chunk) = take_while(|c: char| c != quote && c != '\\').parse(rest)?;
        out.push_str(chunk);
        rest = r;
        let mut chars = rest.chars();
        match chars.next() {
            None => return fail(rest, "a closing quote"),
            Some(c) if c == quote => return Ok((&rest[1..], out)),
            Some(_) => {
                let (r, decoded) = escape(&rest[1..])?;
                out.push_str(&decoded);
                rest = r;
            }
        }
    }
}

/// The character(s) after a backslash. Unknown escapes are kept as written.
fn escape(input: &str) -> Res<'_, String> {
    let Some(c) = input.chars().next() else {
        return fail(input, "an escaped character");
    };
    let rest = &input[c.len_utf8()..];
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        '0' => Some('\0'),
        '\\' | '\'' | '"' | '/' => Some(c),
        _ => None,
    };
    if let Some(ch) = simple {
        return Ok((rest, ch.to_string()));
    }
    if c == 'u' || c == 'x' {
        let width = if c == 'u' { 4 } else { 2 };
        if let Some(code) = hex(rest, width) {
            let after = &rest[width..];
            // A UTF-16 surrogate pair written as two \u escapes.
            if (0xD800..0xDC00).contains(&code)
                && let Some(low_text) = after.strip_prefix("\\u")
                && let Some(low) = hex(low_text, 4)
                && (0xDC00..0xE000).contains(&low)
            {
                let combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                if let Some(ch) = char::from_u32(combined) {
                    return Ok((&low_text[4..], ch.to_string()));
                }
            }
            if let Some(ch) = char::from_u32(code) {
                return Ok((after, ch.to_string()));
            }
        }
    }
    Ok((rest, format!("\\{c}")))
}

fn hex(text: &str, width: usize) -> Option<u32> {
    let digits = text.get(..width)?;
    if digits.chars().all(|c| c.is_ascii_hexdigit()) {
        u32::from_str_radix(digits, 16).ok()
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// Printer

/// Writes calls as an action string that parses back to the same calls.
///
/// Strings are single-quoted; bare words are written bare (so they need
/// lenient mode to read back); positional arguments (`#0`, …) are written
/// without their key.
pub fn print_actions(calls: &[Call]) -> String {
    let mut out = String::from("[");
    for (i, c) in calls.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_call(c, &mut out);
    }
    out.push(']');
    out
}

/// Writes one call as `name(key=value, …)`.
pub fn print_call(call: &Call, out: &mut String) {
    out.push_str(&call.name);
    out.push('(');
    for (i, (k, v)) in call.arguments.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if !is_positional_key(k) {
            print_key(k, out);
            out.push('=');
        }
        print_value(v, out);
    }
    out.push(')');
}

fn is_positional_key(k: &str) -> bool {
    k.strip_prefix('#')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn print_key(k: &str, out: &mut String) {
    if !k.is_empty() && k.chars().all(is_key_char) {
        out.push_str(k);
    } else {
        print_string(k, out);
    }
}

/// Writes one value in action-string syntax.
pub fn print_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(x) => {
            // `{:?}` is the shortest text that reads back to the same f64,
            // and always has a '.' or an exponent, so it stays a float.
            let _ = write!(out, "{x:?}");
        }
        Value::Str(s) => print_string(s, out),
        Value::Word(w) => out.push_str(w),
        Value::List(items) => print_sequence(items, '[', ']', out),
        Value::Tuple(items) => {
            print_sequence(items, '(', ')', out);
            if items.len() == 1 {
                // Keep a one-element tuple distinct from a parenthesised value.
                out.insert(out.len() - 1, ',');
            }
        }
        Value::Dict(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_string(k, out);
                out.push_str(": ");
                print_value(v, out);
            }
            out.push('}');
        }
        Value::Ref(r) => {
            out.push_str("{'$ref': ");
            print_string(&r.to_string(), out);
            out.push('}');
        }
    }
}

fn print_sequence(items: &[Value], open: char, close: char, out: &mut String) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_value(item, out);
    }
    out.push(close);
}

fn print_string(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(s: &str) -> Vec<Call> {
        parse_actions(s, Mode::Strict).unwrap_or_else(|e| panic!("{s}: {e}"))
    }
    fn lenient(s: &str) -> Vec<Call> {
        parse_actions(s, Mode::Lenient).unwrap_or_else(|e| panic!("{s}: {e}"))
    }
    fn args(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
    fn s(t: &str) -> Value {
        Value::Str(t.into())
    }

    #[test]
    fn empty_list_and_trailing_commas() {
        assert!(strict("[]").is_empty());
        assert!(strict("  [ ]  ").is_empty());
        let calls = strict("[f(a=1,), g(),]");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, args(&[("a", Value::Int(1))]));
        assert!(calls[1].arguments.is_empty());
    }

    #[test]
    fn names_with_spaces_dots_slashes_hyphens_and_any_script() {
        let calls = strict(
            "[Google Translate(text='Hi'), properties/list(), v1.search-items(q='x'), 天气查询(城市='北京'), Погода(город='Москва')]",
        );
        let names: Vec<_> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Google Translate",
                "properties/list",
                "v1.search-items",
                "天气查询",
                "Погода"
            ]
        );
        assert_eq!(calls[3].arguments, args(&[("城市", s("北京"))]));
    }

    #[test]
    fn quoted_and_bare_keys_with_equals_or_colon() {
        let calls = strict(r#"[f("a b"='1', 'c'=2, d: 3)]"#);
        assert_eq!(
            calls[0].arguments,
            args(&[("a b", s("1")), ("c", Value::Int(2)), ("d", Value::Int(3))])
        );
    }

    #[test]
    fn strings_with_escapes() {
        let calls = strict(
            r#"[f(a='it\'s', b="say \"hi\"", c='line\nnext', d='\u00e9\u4e2d', e='\ud83d\ude00', f='back\\slash', g='\q')]"#,
        );
        let values: Vec<_> = calls[0].arguments.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(
            values,
            vec![
                s("it's"),
                s("say \"hi\""),
                s("line\nnext"),
                s("é中"),
                s("😀"),
                s("back\\slash"),
                s("\\q")
            ]
        );
    }

    #[test]
    fn numbers_integers_floats_exponents() {
        let calls =
            strict("[f(a=1, b=-2, c=3.5, d=1e3, e=-2.5E-2, f=+7, g=.5, h=99999999999999999999)]");
        let values: Vec<_> = calls[0].arguments.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(
            values,
            vec![
                Value::Int(1),
                Value::Int(-2),
                Value::Float(3.5),
                Value::Float(1000.0),
                Value::Float(-0.025),
                Value::Int(7),
                Value::Float(0.5),
                Value::Float(1e20)
            ]
        );
    }

    #[test]
    fn keywords_in_both_spellings() {
        let calls = strict("[f(a=true, b=True, c=false, d=False, e=null, f=None)]");
        let values: Vec<_> = calls[0].arguments.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(
            values,
            vec![
                Value::Bool(true),
                Value::Bool(true),
                Value::Bool(false),
                Value::Bool(false),
                Value::Null,
                Value::Null
            ]
        );
    }

    #[test]
    fn lists_tuples_dicts_nested() {
        let calls =
            strict("[f(a=[1, 'x', [true]], b=(1, 2), c={'k': {\"n\": [None]}, m=1}, d=[], e={})]");
        assert_eq!(
            calls[0].arguments,
            args(&[
                (
                    "a",
                    Value::List(vec![
                        Value::Int(1),
                        s("x"),
                        Value::List(vec![Value::Bool(true)])
                    ])
                ),
                ("b", Value::Tuple(vec![Value::Int(1), Value::Int(2)])),
                (
                    "c",
                    Value::Dict(vec![
                        (
                            "k".into(),
                            Value::Dict(vec![("n".into(), Value::List(vec![Value::Null]))])
                        ),
                        ("m".into(), Value::Int(1))
                    ])
                ),
                ("d", Value::List(vec![])),
                ("e", Value::Dict(vec![])),
            ])
        );
    }

    #[test]
    fn strict_rejects_lenient_extensions() {
        assert!(parse_actions("f(a=1)", Mode::Strict).is_err());
        assert!(parse_actions("[f('x')]", Mode::Strict).is_err());
        assert!(parse_actions("[f(city=Paris)]", Mode::Strict).is_err());
        assert!(parse_actions("[f(a=1)] and more", Mode::Strict).is_err());
    }

    #[test]
    fn lenient_accepts_missing_brackets_positional_bare_words_trailing_text() {
        assert_eq!(lenient("f(a=1), g(b=2)").len(), 2);
        assert_eq!(lenient("f(a=1) g(b=2)").len(), 2);
        let calls = lenient("[f('x', 2, key=y)]");
        assert_eq!(
            calls[0].arguments,
            args(&[
                ("#0", s("x")),
                ("#1", Value::Int(2)),
                ("key", Value::Word("y".into()))
            ])
        );
        let calls = lenient("[f(city=New York, date=2024-01-01)] I hope this helps");
        assert_eq!(
            calls[0].arguments,
            args(&[
                ("city", Value::Word("New York".into())),
                ("date", Value::Word("2024-01-01".into()))
            ])
        );
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = parse_actions("[f(a=1", Mode::Strict).unwrap_err();
        assert_eq!(e.expected, "',' or ')'");
        assert_eq!((e.line, e.column, e.offset), (1, 7, 6));
        let e = parse_actions("[f(a='x)]", Mode::Strict).unwrap_err();
        assert_eq!(e.expected, "a closing quote");
        let e = parse_actions("[f(a=1),\n g(b=@)]", Mode::Strict).unwrap_err();
        assert_eq!((e.line, e.column), (2, 6));
        assert!(e.to_string().contains("line 2, column 6"), "{e}");
        let e = parse_actions("x", Mode::Strict).unwrap_err();
        assert_eq!(e.expected, "'['");
    }

    #[test]
    fn printer_writes_readable_calls() {
        let calls = vec![
            Call::new(
                "Google Translate",
                args(&[
                    ("text", s("it's")),
                    ("n", Value::Int(2)),
                    ("#1", Value::Float(1.0)),
                ]),
            ),
            Call::new("g", vec![]),
        ];
        assert_eq!(
            print_actions(&calls),
            r"[Google Translate(text='it\'s', n=2, 1.0), g()]"
        );
        let r = Value::Ref(Reference {
            call: 0,
            field: "id".into(),
        });
        let mut out = String::new();
        print_value(&r, &mut out);
        assert_eq!(out, "{'$ref': '0.id'}");
    }

    mod roundtrip {
        use super::*;
        use proptest::prelude::*;

        fn scalar() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::Int),
                any::<f64>()
                    .prop_filter("finite", |x| x.is_finite())
                    .prop_map(Value::Float),
                any::<String>().prop_map(Value::Str),
                "[a-zA-Zé中][a-zA-Z0-9 _é中-]{0,8}[a-zA-Z]"
                    .prop_filter("not a keyword", |w| !matches!(
                        w.as_str(),
                        "true" | "True" | "false" | "False" | "null" | "None"
                    ))
                    .prop_map(Value::Word),
            ]
        }

        fn value() -> impl Strategy<Value = Value> {
            scalar().prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Tuple),
                    prop::collection::vec((any::<String>(), inner), 0..4).prop_map(Value::Dict),
                ]
            })
        }

        fn call() -> impl Strategy<Value = Call> {
            (
                "[A-Za-z天气][A-Za-z0-9 ./_天气-]{0,12}[A-Za-z0-9]",
                prop::collection::vec(("[a-z_][a-z0-9_]{0,6}|\\PC{1,6}", value()), 0..4),
            )
                .prop_map(|(name, arguments)| {
                    // Positional keys must come out as positions; keep keys named.
                    let arguments = arguments
                        .into_iter()
                        .filter(|(k, _)| !k.trim().is_empty() && !is_positional_key(k))
                        .collect();
                    Call { name, arguments }
                })
        }

        fn has_word(v: &Value) -> bool {
            match v {
                Value::Word(_) => true,
                Value::List(x) | Value::Tuple(x) => x.iter().any(has_word),
                Value::Dict(x) => x.iter().any(|(_, v)| has_word(v)),
                _ => false,
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            #[test]
            fn parse_of_print_is_identity(calls in prop::collection::vec(call(), 0..4)) {
                let text = print_actions(&calls);
                let lenient = parse_actions(&text, Mode::Lenient);
                prop_assert_eq!(lenient.as_ref(), Ok(&calls), "text: {}", text);
                let needs_lenient = calls.iter().any(|c| c.arguments.iter().any(|(_, v)| has_word(v)));
                if !needs_lenient {
                    prop_assert_eq!(parse_actions(&text, Mode::Strict), Ok(calls), "text: {}", text);
                }
            }

            #[test]
            fn parser_never_panics(text in "\\PC{0,40}") {
                let _ = parse_actions(&text, Mode::Lenient);
                let _ = parse_actions(&text, Mode::Strict);
            }
        }
    }
}
