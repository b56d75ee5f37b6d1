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
//!
//! The parser keeps to the limits of [`crate::spec::limits`]: values nest at
//! most [`MAX_NESTING`] levels (deeper input is refused with
//! [`Cause::TooDeep`], never a stack overflow), and every parse spends from a
//! work [`Budget`] (one of its own, or one shared by all the attempts a
//! [`Scanner`] makes on an answer), so that trying many starting points in
//! one text stays linear in its length.

use std::fmt::{self, Write};

use nom::branch::alt;
use nom::bytes::complete::take_while;
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::error::{ErrorKind, ParseError as NomParseError};
use nom::{IResult, Parser};

use crate::spec::limits::{Budget, MAX_NESTING, TOO_DEEP};
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

/// Why a parse failed: the input's syntax, or a limit of
/// [`crate::spec::limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The input does not follow the grammar.
    Syntax,
    /// A value nests deeper than [`MAX_NESTING`] levels.
    TooDeep,
    /// The work budget ran out.
    OutOfWork,
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
    /// Syntax, or the limit that stopped the parse.
    pub cause: Cause,
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

/// The label of a parse stopped by the work budget.
const OUT_OF_WORK: &str = "less work (the work budget ran out)";

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

/// A failure that no alternative may recover from (a limit was reached).
fn stop<'a, T>(rest: &'a str, label: &'static str) -> Res<'a, T> {
    Err(nom::Err::Failure(Expected { rest, label }))
}

/// Whether an error is a limit (which ends the parse, whatever the mode).
fn is_limit(e: &nom::Err<Expected<'_>>) -> bool {
    matches!(e, nom::Err::Failure(_))
}

/// The mode and the work budget of one parse.
#[derive(Clone, Copy)]
struct Cx<'b> {
    mode: Mode,
    budget: &'b Budget,
}

impl Cx<'_> {
    /// Spends `steps` of work; stops the parse at `at` when the budget is out.
    fn spend<'a>(&self, steps: usize, at: &'a str) -> Res<'a, ()> {
        if self.budget.spend(steps as u64 + 1) {
            Ok((at, ()))
        } else {
            stop(at, OUT_OF_WORK)
        }
    }

    /// The longest prefix whose characters satisfy `pred` (possibly empty),
    /// paid for by the bytes examined.
    fn take<'a>(&self, input: &'a str, pred: impl Fn(char) -> bool) -> Res<'a, &'a str> {
        let end = input.find(|c: char| !pred(c)).unwrap_or(input.len());
        self.spend(end, input)?;
        Ok((&input[end..], &input[..end]))
    }

    /// Like [`Cx::take`], failing with `label` when the prefix is empty.
    fn take1<'a>(
        &self,
        input: &'a str,
        pred: impl Fn(char) -> bool,
        label: &'static str,
    ) -> Res<'a, &'a str> {
        let (rest, taken) = self.take(input, pred)?;
        if taken.is_empty() {
            return fail(input, label);
        }
        Ok((rest, taken))
    }

    /// Skips white space.
    fn ws<'a>(&self, input: &'a str) -> Result<&'a str, nom::Err<Expected<'a>>> {
        self.take(input, char::is_whitespace).map(|(rest, _)| rest)
    }

    fn sym<'a>(&self, input: &'a str, c: char, label: &'static str) -> Res<'a, char> {
        let input = self.ws(input)?;
        expect(label, char(c)).parse(input)
    }
}

/// Reads call lists, arguments and values from one text in a given mode,
/// all attempts spending from one work [`Budget`] (see
/// [`crate::spec::limits`]): the way to try many starting points in a text.
#[derive(Clone, Copy)]
pub struct Scanner<'b> {
    cx: Cx<'b>,
}

impl<'b> Scanner<'b> {
    /// A scanner in `mode` spending from `budget`.
    pub fn new(mode: Mode, budget: &'b Budget) -> Scanner<'b> {
        Scanner {
            cx: Cx { mode, budget },
        }
    }

    /// Spends `steps` of the budget on work done outside the parser (one
    /// more for the attempt itself); false when the budget has run out.
    pub fn spend(&self, steps: usize) -> bool {
        self.cx.budget.spend(steps as u64 + 1)
    }

    /// A whole call list: in strict mode nothing but white space may follow.
    pub fn actions(&self, input: &str) -> Result<Vec<Call>, ParseError> {
        match actions(self.cx, input) {
            Ok((rest, calls)) => {
                let rest_trimmed = rest.trim_start();
                if self.cx.mode == Mode::Strict && !rest_trimmed.is_empty() {
                    Err(locate(input, rest_trimmed, "end of input"))
                } else {
                    Ok(calls)
                }
            }
            Err(e) => Err(nom_error(input, e)),
        }
    }

    /// A call list at the start of `input`, and the unparsed rest.
    pub fn actions_prefix<'a>(&self, input: &'a str) -> Result<(Vec<Call>, &'a str), ParseError> {
        actions(self.cx, input)
            .map(|(rest, calls)| (calls, rest))
            .map_err(|e| nom_error(input, e))
    }

    /// `(arg, …)` at the start of `input`, and the rest.
    pub fn call_arguments<'a>(&self, input: &'a str) -> Result<(Arguments, &'a str), ParseError> {
        arguments(self.cx, input)
            .map(|(rest, args)| (args, rest))
            .map_err(|e| nom_error(input, e))
    }

    /// One value at the start of `input` (after white space), and the rest.
    /// Like a JSON text, the value itself is level 0 of nesting: containers
    /// may open down to level [`MAX_NESTING`] inside it.
    pub fn value<'a>(&self, input: &'a str) -> Result<(Value, &'a str), ParseError> {
        let parsed = self.cx.ws(input).and_then(|start| value(self.cx, start, 0));
        parsed
            .map(|(rest, v)| (v, rest))
            .map_err(|e| nom_error(input, e))
    }
}

/// Parses an action string into calls.
pub fn parse_actions(input: &str, mode: Mode) -> Result<Vec<Call>, ParseError> {
    let budget = Budget::for_len(input.len());
    Scanner::new(mode, &budget).actions(input)
}

/// Parses a call list at the start of `input` and returns the unparsed rest
/// (used to find a call list inside prose).
pub fn parse_actions_prefix(input: &str, mode: Mode) -> Result<(Vec<Call>, &str), ParseError> {
    let budget = Budget::for_len(input.len());
    Scanner::new(mode, &budget).actions_prefix(input)
}

/// Parses `(arg, …)` at the start of `input`: the argument list of a call
/// whose name was found elsewhere. Returns the arguments and the rest.
pub fn parse_call_arguments(input: &str, mode: Mode) -> Result<(Arguments, &str), ParseError> {
    let budget = Budget::for_len(input.len());
    Scanner::new(mode, &budget).call_arguments(input)
}

/// Parses one value in the given mode (used for Python-style dicts in responses).
pub fn parse_value(input: &str, mode: Mode) -> Result<(Value, &str), ParseError> {
    let budget = Budget::for_len(input.len());
    Scanner::new(mode, &budget).value(input)
}

fn nom_error(input: &str, e: nom::Err<Expected<'_>>) -> ParseError {
    match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => locate(input, e.rest, e.label),
        nom::Err::Incomplete(_) => locate(input, "", "more input"),
    }
}

fn locate(input: &str, rest: &str, expected: &'static str) -> ParseError {
    let offset = input.len() - rest.len();
    let before = &input[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    let cause = if expected == TOO_DEEP {
        Cause::TooDeep
    } else if expected == OUT_OF_WORK {
        Cause::OutOfWork
    } else {
        Cause::Syntax
    };
    ParseError {
        offset,
        line,
        column,
        expected,
        found: rest.chars().take(20).collect(),
        cause,
    }
}

/// The call list, with or without brackets depending on the mode.
fn actions<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Vec<Call>> {
    let start = cx.ws(input)?;
    if start.starts_with('[') {
        let (rest, _) = cx.sym(start, '[', "'['")?;
        let (rest, calls) = separated_items(cx, rest, ']', |i| call(cx, i))?;
        let (rest, _) = cx.sym(rest, ']', "',' or ']'")?;
        Ok((rest, calls))
    } else if cx.mode == Mode::Lenient {
        bare_call_sequence(cx, start)
    } else {
        fail(start, "'['")
    }
}

/// Lenient: calls without the outer brackets, separated by commas or spaces.
fn bare_call_sequence<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Vec<Call>> {
    let (mut rest, first) = call(cx, input)?;
    let mut calls = vec![first];
    loop {
        let after = cx.ws(rest)?;
        let after = after.strip_prefix(',').unwrap_or(after);
        match call(cx, after) {
            Ok((r, c)) => {
                calls.push(c);
                rest = r;
            }
            Err(e) if is_limit(&e) => return Err(e),
            Err(_) => return Ok((rest, calls)),
        }
    }
}

/// `item { ',' item } [',']` up to (not including) `close`; empty allowed.
fn separated_items<'a, T>(
    cx: Cx<'_>,
    input: &'a str,
    close: char,
    mut item: impl FnMut(&'a str) -> Res<'a, T>,
) -> Res<'a, Vec<T>> {
    let mut items = Vec::new();
    let mut rest = cx.ws(input)?;
    if rest.starts_with(close) {
        return Ok((rest, items));
    }
    loop {
        let (r, it) = item(rest)?;
        items.push(it);
        let r = cx.ws(r)?;
        match r.strip_prefix(',') {
            Some(after) => {
                rest = cx.ws(after)?;
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
fn name<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, &'a str> {
    let input = cx.ws(input)?;
    let (rest, raw) = cx.take1(input, is_name_char, "a tool name")?;
    let trimmed = raw.trim_end();
    if trimmed.is_empty() {
        return fail(input, "a tool name");
    }
    Ok((rest, trimmed))
}

fn call<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Call> {
    let (rest, call_name) = name(cx, input)?;
    let (rest, arguments) = arguments(cx, rest)?;
    Ok((rest, Call::new(call_name, arguments)))
}

/// `'(' [ arg { ',' arg } [','] ] ')'`
fn arguments<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Vec<(String, Value)>> {
    let (rest, _) = cx.sym(input, '(', "'(' after the tool name")?;
    let mut position = 0usize;
    let (rest, arguments) = separated_items(cx, rest, ')', |i| {
        let result = argument(cx, i, position);
        position += 1;
        result
    })?;
    let (rest, _) = cx.sym(rest, ')', "',' or ')'")?;
    Ok((rest, arguments))
}

fn argument<'a>(cx: Cx<'_>, input: &'a str, position: usize) -> Res<'a, (String, Value)> {
    let keyed = |i| -> Res<'_, (String, Value)> {
        let (rest, k) = key(cx, i)?;
        let rest = cx.ws(rest)?;
        let (rest, _) = expect("'=' or ':'", one_of("=:")).parse(rest)?;
        let rest = cx.ws(rest)?;
        let (rest, v) = value(cx, rest, 1)?;
        Ok((rest, (k, v)))
    };
    match keyed(input) {
        Ok(ok) => Ok(ok),
        Err(e) if is_limit(&e) => Err(e),
        Err(keyed_err) if cx.mode == Mode::Lenient => {
            let start = cx.ws(input)?;
            match value(cx, start, 1) {
                Ok((rest, v)) => Ok((rest, (format!("#{position}"), v))),
                Err(e) if is_limit(&e) => Err(e),
                Err(_) => Err(keyed_err),
            }
        }
        Err(e) => Err(e),
    }
}

fn is_key_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$' | '@')
}

fn key<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, String> {
    let input = cx.ws(input)?;
    if input.starts_with(['\'', '"']) {
        quoted_string(cx, input)
    } else {
        let (rest, k) = cx.take1(input, is_key_char, "a parameter name")?;
        Ok((rest, k.to_string()))
    }
}

/// One value; `depth` is its nesting level: an argument's value is level 1
/// (its argument list being level 0), a value read on its own level 0.
fn value<'a>(cx: Cx<'_>, input: &'a str, depth: usize) -> Res<'a, Value> {
    let input = cx.ws(input)?;
    let Some(first) = input.chars().next() else {
        return fail(input, "a value");
    };
    match first {
        '\'' | '"' => quoted_string(cx, input).map(|(r, s)| (r, Value::Str(s))),
        '[' | '(' | '{' if depth > MAX_NESTING => stop(input, TOO_DEEP),
        '[' => container(cx, input, ']', depth).map(|(r, v)| (r, Value::List(v))),
        '(' => container(cx, input, ')', depth).map(|(r, v)| (r, Value::Tuple(v))),
        '{' => dict(cx, input, depth),
        _ => scalar(cx, input),
    }
}

/// The items of a list or tuple at `depth`, from its opening bracket.
fn container<'a>(cx: Cx<'_>, input: &'a str, close: char, depth: usize) -> Res<'a, Vec<Value>> {
    cx.spend(0, input)?;
    let rest = &input[1..];
    let (rest, items) = separated_items(cx, rest, close, |i| value(cx, i, depth + 1))?;
    let label = if close == ']' {
        "',' or ']'"
    } else {
        "',' or ')'"
    };
    let (rest, _) = cx.sym(rest, close, label)?;
    Ok((rest, items))
}

fn dict<'a>(cx: Cx<'_>, input: &'a str, depth: usize) -> Res<'a, Value> {
    cx.spend(0, input)?;
    let rest = &input[1..];
    let (rest, entries) = separated_items(cx, rest, '}', |i| {
        let (r, k) = key(cx, i)?;
        let r = cx.ws(r)?;
        let (r, _) = expect("':' or '='", one_of(":=")).parse(r)?;
        let r = cx.ws(r)?;
        let (r, v) = value(cx, r, depth + 1)?;
        Ok((r, (k, v)))
    })?;
    let (rest, _) = cx.sym(rest, '}', "',' or '}'")?;
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
fn at_value_end<'a>(cx: Cx<'_>, rest: &'a str) -> Result<bool, nom::Err<Expected<'a>>> {
    let r = cx.ws(rest)?;
    Ok(r.is_empty() || r.starts_with([',', ')', ']', '}']))
}

/// Numbers, keywords and (lenient) bare words.
fn scalar<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Value> {
    if let Ok((rest, v)) = number(cx, input)
        && at_value_end(cx, rest)?
    {
        return Ok((rest, v));
    }
    let (rest, word) = cx.take(input, |c: char| c.is_alphanumeric() || c == '_')?;
    if !word.is_empty() && at_value_end(cx, rest)? {
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
    if cx.mode == Mode::Strict {
        return fail(
            input,
            "a value (string, number, true, false, null, list or dict)",
        );
    }
    bare_word(cx, input)
}

/// Lenient: everything up to the next separator or closer, trimmed.
fn bare_word<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Value> {
    let (rest, word) = cx.take1(
        input,
        |c: char| !matches!(c, ',' | ')' | ']' | '}' | '\n'),
        "a value",
    )?;
    let word = word.trim_end();
    if word.is_empty() {
        return fail(input, "a value");
    }
    Ok((rest, Value::Word(word.to_string())))
}

fn number<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, Value> {
    let (rest, text) = recognize((
        opt(one_of("+-")),
        alt((
            recognize((digit1, opt((char('.'), opt(digit1))))),
            recognize((char('.'), digit1)),
        )),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(input)?;
    cx.spend(text.len(), input)?;
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
fn quoted_string<'a>(cx: Cx<'_>, input: &'a str) -> Res<'a, String> {
    let (mut rest, quote) = one_of("'\"").parse(input)?;
    let mut out = String::new();
    loop {
        let (r, chunk) = take_while(|c: char| c != quote && c != '\\').parse(rest)?;
        cx.spend(chunk.len(), rest)?;
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
/// lenient mode to read back); positional arguments (`#k` for the k-th
/// argument, as lenient reading names them) are written without their key.
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
        // Only the key lenient reading gives a positional argument here
        // (`#` and its index) may be left out; `'#7'` elsewhere is a key.
        if k.strip_prefix('#') != Some(i.to_string().as_str()) {
            print_key(k, out);
            out.push('=');
        }
        print_value(v, out);
    }
    out.push(')');
}

fn print_key(k: &str, out: &mut String) {
    if !k.is_empty() && k.chars().all(is_key_char) {
        out.push_str(k);
    } else {
        print_string(k, out);
    }
}

/// Writes one value in action-string syntax. A value nested deeper than
/// [`MAX_NESTING`] levels (which no reader makes) is written as `'…'` from
/// that level on.
pub fn print_value(v: &Value, out: &mut String) {
    print_value_at(v, out, 1);
}

fn print_value_at(v: &Value, out: &mut String, depth: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // A literal too large for an f64 reads as infinity (as in Python);
        // `1e999` reads back as the same infinity. No reader makes a NaN.
        Value::Float(x) if x.is_infinite() => {
            out.push_str(if *x > 0.0 { "1e999" } else { "-1e999" });
        }
        Value::Float(x) => {
            // `{:?}` is the shortest text that reads back to the same f64,
            // and always has a '.' or an exponent, so it stays a float.
            let _ = write!(out, "{x:?}");
        }
        Value::Str(s) => print_string(s, out),
        Value::Word(w) => out.push_str(w),
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) if depth > MAX_NESTING => {
            print_string("…", out);
        }
        Value::List(items) => print_sequence(items, '[', ']', out, depth),
        Value::Tuple(items) => {
            print_sequence(items, '(', ')', out, depth);
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
                print_value_at(v, out, depth + 1);
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

fn print_sequence(items: &[Value], open: char, close: char, out: &mut String, depth: usize) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_value_at(item, out, depth + 1);
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
    fn numbers_beyond_f64_read_as_infinity_and_print_back() {
        // Found by fuzzing (fuzz/fuzz_targets/action.rs): `-32233E4623`
        // printed as `-inf`, which does not read back.
        for (text, expected) in [
            ("-32233E4623", f64::NEG_INFINITY),
            ("0116e909", f64::INFINITY),
        ] {
            let calls = strict(&format!("[f(a={text})]"));
            assert_eq!(calls[0].arguments[0].1, Value::Float(expected));
            let printed = print_actions(&calls);
            assert_eq!(strict(&printed), calls, "{printed}");
        }
    }

    #[test]
    fn only_a_positional_key_at_its_own_place_is_printed_bare() {
        // Found by fuzzing (fuzz/fuzz_targets/action.rs): `'#55555'='CN'`
        // as a second argument was printed bare and read back as `#1`.
        let calls = lenient("[f(from='HKD', 'CN', '#55555'='CN', '#01'=1, '#'=2)]");
        let keys: Vec<&str> = calls[0].arguments.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["from", "#1", "#55555", "#01", "#"]);
        let printed = print_actions(&calls);
        assert_eq!(
            printed,
            "[f(from='HKD', 'CN', '#55555'='CN', '#01'=1, '#'=2)]"
        );
        assert_eq!(lenient(&printed), calls);
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
                    ("#2", Value::Float(1.0)),
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

    /// A value nested `depth` levels: `open`s around `1`, closed again.
    fn nested(open: &str, close: &str, depth: usize) -> String {
        format!("{}1{}", open.repeat(depth), close.repeat(depth))
    }

    #[test]
    fn nesting_is_allowed_to_the_limit_and_refused_beyond() {
        for (open, close) in [("[", "]"), ("(", ",)"), ("{'k': ", "}")] {
            for mode in [Mode::Strict, Mode::Lenient] {
                let ok = format!("[f(a={})]", nested(open, close, MAX_NESTING));
                let calls = parse_actions(&ok, mode).unwrap_or_else(|e| panic!("{ok}: {e}"));
                assert_eq!(calls.len(), 1);
                let deep = format!("[f(a={})]", nested(open, close, MAX_NESTING + 1));
                let e = parse_actions(&deep, mode).unwrap_err();
                assert_eq!(e.cause, Cause::TooDeep, "{open} {mode:?}: {e}");
                assert_eq!(e.expected, TOO_DEEP);
            }
        }
        // A value read on its own is level 0, like a JSON text.
        let ok = nested("[", "]", MAX_NESTING + 1);
        assert!(parse_value(&ok, Mode::Strict).is_ok());
        let deep = nested("[", "]", MAX_NESTING + 2);
        assert_eq!(
            parse_value(&deep, Mode::Strict).unwrap_err().cause,
            Cause::TooDeep
        );
    }

    #[test]
    fn the_stack_overflow_inputs_of_issue_12_are_refused() {
        // Unclosed, as a model wrote them: thousands of levels.
        for (form, n) in [("[", 5675), ("(", 5672), ("{'a':", 7250), ("[", 100_000)] {
            let text = format!("[f(a={})", form.repeat(n));
            for mode in [Mode::Strict, Mode::Lenient] {
                let e = parse_actions(&text, mode).unwrap_err();
                assert_eq!(e.cause, Cause::TooDeep, "{form} × {n}, {mode:?}");
                let e = parse_call_arguments(&text[2..], mode).unwrap_err();
                assert_eq!(e.cause, Cause::TooDeep, "{form} × {n}, {mode:?}");
            }
            assert_eq!(
                parse_value(&form.repeat(n), Mode::Lenient)
                    .unwrap_err()
                    .cause,
                Cause::TooDeep
            );
        }
    }

    #[test]
    fn a_limit_is_not_hidden_by_lenient_fallbacks() {
        // Positional fallback and bare-call sequences must not swallow it.
        let deep = "[".repeat(MAX_NESTING + 1);
        for text in [
            format!("f({deep}"),
            format!("f(a=1) g(b={deep}"),
            format!("[f(x, {deep})]"),
        ] {
            let e = parse_actions(&text, Mode::Lenient).unwrap_err();
            assert_eq!(e.cause, Cause::TooDeep, "{text}");
        }
    }

    #[test]
    fn a_scanner_shares_one_budget_across_attempts() {
        let text = "[f(".repeat(2000);
        let budget = Budget::with_steps(50_000);
        let scan = Scanner::new(Mode::Lenient, &budget);
        let mut attempts = 0;
        let mut last = None;
        for (start, _) in text.match_indices('[') {
            attempts += 1;
            match scan.actions_prefix(&text[start..]) {
                Ok(_) => panic!("no call list here"),
                Err(e) if e.cause == Cause::OutOfWork => {
                    last = Some(e);
                    break;
                }
                Err(e) => assert_eq!(e.cause, Cause::Syntax),
            }
        }
        // Each attempt reads to the end of the text: the budget stops the
        // scan long before the 2000 starts would have cost 2000²·3/2 steps.
        assert!(last.is_some() && attempts < 50, "{attempts} attempts");
        assert!(budget.is_exhausted());
        // Its own budget, proportional to the input, is plenty for one parse.
        assert_eq!(
            parse_actions_prefix(&text, Mode::Lenient)
                .unwrap_err()
                .cause,
            Cause::Syntax
        );
    }

    #[test]
    fn printing_stops_at_the_limit() {
        let mut v = Value::Int(1);
        for _ in 0..MAX_NESTING + 3 {
            v = Value::List(vec![v]);
        }
        let mut out = String::new();
        print_value(&v, &mut out);
        // The outermost list is level 1 (an argument's value).
        let expected = format!("{}'…'{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert_eq!(out, expected);
        assert!(parse_actions(&format!("[f(a={out})]"), Mode::Strict).is_ok());
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
                    .prop_filter("no reader makes a NaN", |x| !x.is_nan())
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
                    // A key `#k` at place k is written as a position, which
                    // strict reading refuses; keep keys named.
                    let is_positional_key = |k: &str| {
                        k.strip_prefix('#')
                            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    };
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
