//! Python's `eval` of a literal expression (what the official scorers do
//! to gold answers), on [`PyValue`]s: strings, numbers, `True`, `False`,
//! `None`, lists, tuples, dicts and sets.

use super::value::{DictBuilder, INT_MAX_STR_DIGITS, PyStr, PyValue, normalize_int};
use crate::spec::limits::PY_LITERAL_MAX_DEPTH;

/// Evaluates a Python literal expression as `eval` would for the gold
/// answers of the official scorers: strings (any quotes and prefixes `r`,
/// `u`, `b`, with escapes and implicit concatenation), numbers, `True`,
/// `False`, `None`, lists, tuples, dicts, sets and unary signs. Anything
/// else is an error naming the offset.
pub fn literal_eval(text: &str) -> Result<PyValue, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = LitParser { s: &chars, i: 0 };
    p.skip();
    let v = p.expr(0)?;
    p.skip();
    if p.i != chars.len() {
        return Err(format!("unexpected text at char {}", p.i));
    }
    Ok(v)
}

/// The body of one string literal of Python source, read from `start` (just
/// after its opening quote or quotes) with Python's escapes (none when
/// `raw`): its code points (bytes as 0–255) and the index just after the
/// closing quote(s). Shared with the BFCL decoder's tokenizer.
pub(crate) fn string_literal_body(
    s: &[char],
    start: usize,
    quote: char,
    triple: bool,
    raw: bool,
    is_bytes: bool,
) -> Result<(Vec<u32>, usize), String> {
    let mut p = LitParser { s, i: start };
    let body = p.string_body(quote, triple, raw, is_bytes)?;
    Ok((body, p.i))
}

struct LitParser<'a> {
    s: &'a [char],
    i: usize,
}

impl LitParser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    /// Skips white space, comments and line continuations (inside brackets
    /// every newline is white space; at the top level eval sees one line).
    fn skip(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n' | '\r' | '\x0c') => self.i += 1,
                Some('\\') if self.s.get(self.i + 1) == Some(&'\n') => self.i += 2,
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at char {}", self.i))
    }

    /// A tuple without parentheses at the top level (`1, 2`) or one value.
    fn expr(&mut self, depth: usize) -> Result<PyValue, String> {
        let first = self.atom(depth)?;
        self.skip();
        if depth == 0 && self.peek() == Some(',') {
            let mut items = vec![first];
            while self.peek() == Some(',') {
                self.i += 1;
                self.skip();
                if self.peek().is_none() {
                    break;
                }
                items.push(self.atom(depth)?);
                self.skip();
            }
            return Ok(PyValue::Tuple(items));
        }
        Ok(first)
    }

    fn atom(&mut self, depth: usize) -> Result<PyValue, String> {
        if depth > PY_LITERAL_MAX_DEPTH {
            return self.err("too deeply nested");
        }
        self.skip();
        let Some(c) = self.peek() else {
            return self.err("unexpected end");
        };
        match c {
            '[' => {
                self.i += 1;
                let items = self.items(']', depth)?;
                Ok(PyValue::List(items.0))
            }
            '(' => {
                self.i += 1;
                let (items, trailing_comma) = self.items(')', depth)?;
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().expect("one item"))
                } else {
                    Ok(PyValue::Tuple(items))
                }
            }
            '{' => {
                self.i += 1;
                self.dict_or_set(depth)
            }
            '-' | '+' => {
                self.i += 1;
                let v = self.atom(depth + 1)?;
                let negate = c == '-';
                match v {
                    PyValue::Int(t) if negate => Ok(PyValue::Int(match t.strip_prefix('-') {
                        Some(abs) => abs.to_string(),
                        None => normalize_int(&format!("-{t}")),
                    })),
                    PyValue::Int(t) => Ok(PyValue::Int(t)),
                    PyValue::Bool(b) => Ok(PyValue::Int(if negate && b {
                        "-1".into()
                    } else if b {
                        "1".into()
                    } else {
                        "0".into()
                    })),
                    PyValue::Float(x) => Ok(PyValue::Float(if negate { -x } else { x })),
                    PyValue::Complex(x) => Ok(PyValue::Complex(if negate { -x } else { x })),
                    _ => self.err("bad operand for unary sign"),
                }
            }
            '0'..='9' | '.' => self.number(),
            '\'' | '"' => self.strings(),
            _ if c.is_alphabetic() || c == '_' => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.i += 1;
                }
                let word: String = self.s[start..self.i].iter().collect();
                let prefix = word.to_ascii_lowercase();
                if matches!(self.peek(), Some('\'' | '"'))
                    && matches!(prefix.as_str(), "r" | "u" | "b" | "br" | "rb")
                {
                    self.i = start;
                    return self.strings();
                }
                match word.as_str() {
                    "True" => Ok(PyValue::Bool(true)),
                    "False" => Ok(PyValue::Bool(false)),
                    "None" => Ok(PyValue::None),
                    _ => {
                        self.i = start;
                        self.err("not a literal")
                    }
                }
            }
            _ => self.err("not a literal"),
        }
    }

    fn items(&mut self, close: char, depth: usize) -> Result<(Vec<PyValue>, bool), String> {
        let mut items = Vec::new();
        let mut trailing = false;
        loop {
            self.skip();
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok((items, trailing));
            }
            items.push(self.atom(depth + 1)?);
            self.skip();
            match self.peek() {
                Some(',') => {
                    self.i += 1;
                    trailing = true;
                }
                Some(c) if c == close => {
                    trailing = false;
                }
                _ => return self.err("expected ',' or a closing bracket"),
            }
        }
    }

    fn dict_or_set(&mut self, depth: usize) -> Result<PyValue, String> {
        self.skip();
        if self.peek() == Some('}') {
            self.i += 1;
            return Ok(PyValue::Dict(Vec::new()));
        }
        let first = self.atom(depth + 1)?;
        self.skip();
        if self.peek() == Some(':') {
            let mut entries = DictBuilder::new();
            self.i += 1;
            let v = self.atom(depth + 1)?;
            check_hashable(&first)?;
            entries.insert(first, v);
            loop {
                self.skip();
                match self.peek() {
                    Some('}') => {
                        self.i += 1;
                        return Ok(PyValue::Dict(entries.finish()));
                    }
                    Some(',') => {
                        self.i += 1;
                        self.skip();
                        if self.peek() == Some('}') {
                            self.i += 1;
                            return Ok(PyValue::Dict(entries.finish()));
                        }
                        let k = self.atom(depth + 1)?;
                        self.skip();
                        if self.peek() != Some(':') {
                            return self.err("expected ':'");
                        }
                        self.i += 1;
                        let v = self.atom(depth + 1)?;
                        check_hashable(&k)?;
                        entries.insert(k, v);
                    }
                    _ => return self.err("expected ',' or '}'"),
                }
            }
        }
        let mut items = Vec::new();
        check_hashable(&first)?;
        items.push(first);
        loop {
            self.skip();
            match self.peek() {
                Some('}') => {
                    self.i += 1;
                    // A set keeps the first of equal items, as a dict
                    // keeps its first key.
                    let mut set = DictBuilder::new();
                    for item in items {
                        set.insert(item, PyValue::None);
                    }
                    let set = set.finish().into_iter().map(|(item, _)| item);
                    return Ok(PyValue::Set(set.collect()));
                }
                Some(',') => {
                    self.i += 1;
                    self.skip();
                    if self.peek() == Some('}') {
                        continue;
                    }
                    let v = self.atom(depth + 1)?;
                    check_hashable(&v)?;
                    items.push(v);
                }
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }

    fn number(&mut self) -> Result<PyValue, String> {
        let start = self.i;
        let lower = |p: &Self, k: usize| p.s.get(p.i + k).map(|c| c.to_ascii_lowercase());
        if self.peek() == Some('0') && matches!(lower(self, 1), Some('x' | 'o' | 'b')) {
            let radix = match lower(self, 1) {
                Some('x') => 16,
                Some('o') => 8,
                _ => 2,
            };
            self.i += 2;
            let digits_start = self.i;
            while self.peek().is_some_and(|c| c.is_digit(radix) || c == '_') {
                self.i += 1;
            }
            let digits: String = self.s[digits_start..self.i]
                .iter()
                .filter(|c| **c != '_')
                .collect();
            let v = u128::from_str_radix(&digits, radix).map_err(|e| e.to_string())?;
            return Ok(PyValue::Int(v.to_string()));
        }
        let mut is_float = false;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            self.i += 1;
        }
        if self.peek() == Some('.') {
            is_float = true;
            self.i += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
                self.i += 1;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
                    self.i += 1;
                }
                is_float = true;
            } else {
                self.i = save;
            }
        }
        let text: String = self.s[start..self.i]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        if matches!(self.peek(), Some('j' | 'J')) {
            self.i += 1;
            let x: f64 = text.parse().map_err(|_| format!("bad number {text:?}"))?;
            return Ok(PyValue::Complex(x));
        }
        if is_float {
            let x: f64 = text.parse().map_err(|_| format!("bad number {text:?}"))?;
            Ok(PyValue::Float(x))
        } else {
            if text.len() > 1 && text.starts_with('0') && text.chars().any(|c| c != '0') {
                return self.err("leading zeros in a decimal integer");
            }
            if text.len() > INT_MAX_STR_DIGITS {
                return self.err("integer too long");
            }
            Ok(PyValue::Int(normalize_int(&text)))
        }
    }

    /// One or more adjacent string literals, concatenated.
    fn strings(&mut self) -> Result<PyValue, String> {
        let mut text: Vec<u32> = Vec::new();
        let mut bytes: Option<Vec<u8>> = None;
        let mut count = 0;
        loop {
            self.skip();
            let start = self.i;
            let mut raw = false;
            let mut is_bytes = false;
            while let Some(c) = self.peek() {
                match c.to_ascii_lowercase() {
                    'r' => raw = true,
                    'b' => is_bytes = true,
                    'u' => {}
                    _ => break,
                }
                self.i += 1;
            }
            let Some(q @ ('\'' | '"')) = self.peek() else {
                self.i = start;
                break;
            };
            let triple = self.s.get(self.i + 1) == Some(&q) && self.s.get(self.i + 2) == Some(&q);
            self.i += if triple { 3 } else { 1 };
            let body = self.string_body(q, triple, raw, is_bytes)?;
            if is_bytes {
                bytes
                    .get_or_insert_with(Vec::new)
                    .extend(body.iter().map(|&c| c as u8));
            } else {
                text.extend(body);
            }
            count += 1;
        }
        if count == 0 {
            return self.err("expected a string");
        }
        match bytes {
            Some(b) if text.is_empty() => Ok(PyValue::Bytes(b)),
            Some(_) => self.err("cannot mix bytes and nonbytes literals"),
            None => Ok(PyValue::Str(PyStr(text))),
        }
    }

    fn string_body(
        &mut self,
        q: char,
        triple: bool,
        raw: bool,
        is_bytes: bool,
    ) -> Result<Vec<u32>, String> {
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return self.err("unterminated string");
            };
            if c == q
                && (!triple
                    || (self.s.get(self.i + 1) == Some(&q) && self.s.get(self.i + 2) == Some(&q)))
            {
                self.i += if triple { 3 } else { 1 };
                return Ok(out);
            }
            if c == '\n' && !triple {
                return self.err("unterminated string");
            }
            self.i += 1;
            if c != '\\' {
                if is_bytes && !c.is_ascii() {
                    return self.err("bytes can only contain ASCII literal characters");
                }
                out.push(u32::from(c));
                continue;
            }
            let Some(e) = self.peek() else {
                return self.err("unterminated string");
            };
            if raw {
                out.push(u32::from('\\'));
                out.push(u32::from(e));
                self.i += 1;
                continue;
            }
            self.i += 1;
            match e {
                '\n' => {}
                '\\' | '\'' | '"' => out.push(u32::from(e)),
                'a' => out.push(7),
                'b' => out.push(8),
                'f' => out.push(12),
                'n' => out.push(10),
                'r' => out.push(13),
                't' => out.push(9),
                'v' => out.push(11),
                '0'..='7' => {
                    let mut v = e.to_digit(8).expect("octal digit");
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                v = v * 8 + d;
                                self.i += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(v);
                }
                'x' => out.push(self.hex(2)?),
                'u' if !is_bytes => out.push(self.hex(4)?),
                'U' if !is_bytes => {
                    let v = self.hex(8)?;
                    if v > 0x10ffff {
                        return self.err("illegal Unicode character");
                    }
                    out.push(v);
                }
                'N' if !is_bytes => return self.err("\\N{...} escapes are not supported"),
                other => {
                    out.push(u32::from('\\'));
                    out.push(u32::from(other));
                }
            }
        }
    }

    fn hex(&mut self, n: usize) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..n {
            let Some(d) = self.peek().and_then(|c| c.to_digit(16)) else {
                return self.err("truncated \\xXX escape");
            };
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }
}

fn check_hashable(v: &PyValue) -> Result<(), String> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Err(format!("TypeError: unhashable type: '{}'", v.type_name()))
        }
        PyValue::Tuple(items) => items.iter().try_for_each(check_hashable),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::benchmarks::python::testing::{lit, s};
    use crate::benchmarks::python::value::py_eq;

    #[test]
    fn literal_strings() {
        assert_eq!(s(&lit("'a' \"b\" r'\\n'")), "ab\\n");
        assert_eq!(s(&lit("'''x\ny'''")), "x\ny");
        assert_eq!(s(&lit("'\\101\\q'")), "A\\q");
        assert!(literal_eval("foo(1)").is_err());
    }

    #[test]
    fn nesting_stops_at_pythons_limit_without_overflowing() {
        // On a 2 MiB test thread: the deepest literal read, printed and
        // compared, and far deeper ones refused.
        let depth = crate::spec::limits::PY_LITERAL_MAX_DEPTH;
        let ok = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let v = lit(&ok);
        assert_eq!(s(&v), ok);
        assert!(py_eq(&v, &lit(&ok)));
        for deep in [
            "[".repeat(100_000),
            "(".repeat(100_000),
            "-".repeat(100_000) + "1",
        ] {
            assert!(
                literal_eval(&deep)
                    .unwrap_err()
                    .contains("too deeply nested")
            );
        }
    }
}
