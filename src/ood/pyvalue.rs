//! Python values as the official Python scorers see them, without running
//! Python: `json.loads` (CPython's C scanner, `strict=True`), `eval` of a
//! Python literal, `json.loads(json.dumps(x))`, and `str()` / `repr()`.
//!
//! Text is kept as code points ([`PyStr`]), not as Rust `String`s, because a
//! Python string may hold lone surrogates (`"\ud800"` in JSON) and `str()`
//! comparisons must see them exactly as Python does.

use std::fmt;

use super::py_printable::NON_PRINTABLE;

/// A Python `str`: a sequence of code points, lone surrogates allowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct PyStr(pub Vec<u32>);

impl PyStr {
    /// The code points of a Rust string.
    pub fn new(text: &str) -> PyStr {
        PyStr(text.chars().map(u32::from).collect())
    }

    /// A Rust string; lone surrogates become U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        self.0
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect()
    }

    /// Python's `needle in self` for strings.
    pub fn contains(&self, needle: &[u32]) -> bool {
        find(&self.0, needle, 0).is_some()
    }

    /// Number of code points (Python's `len`).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for PyStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// The first index `>= from` where `needle` occurs in `haystack`.
pub fn find(haystack: &[u32], needle: &[u32], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return (from <= haystack.len()).then_some(from);
    }
    if haystack.len() < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&i| haystack[i..i + needle.len()] == *needle)
}

/// Code points of an ASCII or UTF-8 literal (for comparisons).
pub fn cps(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// A Python value of the kinds JSON and Python literals produce.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int`, kept as its decimal text (arbitrary precision, `-0` is `0`).
    Int(String),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(PyStr),
    /// A `list`.
    List(Vec<PyValue>),
    /// A `tuple` (only from Python literals).
    Tuple(Vec<PyValue>),
    /// A `dict` in insertion order, keys unique under Python equality.
    Dict(Vec<(PyValue, PyValue)>),
    /// A `set` (only from Python literals; not JSON-serialisable).
    Set(Vec<PyValue>),
    /// A `bytes` literal (only from Python literals; not JSON-serialisable).
    Bytes(Vec<u8>),
    /// A `complex` literal such as `1j` (not JSON-serialisable).
    Complex(f64),
}

impl PyValue {
    /// Python's type name, as error messages print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
            PyValue::Bytes(_) => "bytes",
            PyValue::Complex(_) => "complex",
        }
    }

    /// The value of `key` in a dict, by Python equality.
    pub fn get(&self, key: &PyValue) -> Option<&PyValue> {
        match self {
            PyValue::Dict(entries) => entries.iter().find(|(k, _)| py_eq(k, key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of a string key in a dict.
    pub fn get_str(&self, key: &str) -> Option<&PyValue> {
        self.get(&PyValue::Str(PyStr::new(key)))
    }

    /// Converts to a `serde_json` value (for reports): tuples become lists,
    /// non-finite floats become `{"__float__": "nan"}`-style objects.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            PyValue::None => J::Null,
            PyValue::Bool(b) => J::Bool(*b),
            PyValue::Int(text) => text
                .parse::<i64>()
                .map(J::from)
                .unwrap_or_else(|_| J::String(text.clone())),
            PyValue::Float(x) => serde_json::Number::from_f64(*x)
                .map(J::Number)
                .unwrap_or_else(|| serde_json::json!({ "__float__": float_repr(*x) })),
            PyValue::Str(s) => J::String(s.to_string_lossy()),
            PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
                J::Array(items.iter().map(PyValue::to_json).collect())
            }
            PyValue::Dict(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            PyValue::Str(s) => s.to_string_lossy(),
                            other => String::from_utf8_lossy(&to_utf8(&py_str(other))).into(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
            PyValue::Bytes(b) => J::String(String::from_utf8_lossy(b).into()),
            PyValue::Complex(x) => J::String(format!("{}j", float_repr(*x))),
        }
    }
}

/// Python's `==` for the values compared by the scorers (dict keys, API
/// names): numbers compare by value across `bool`/`int`/`float`.
pub fn py_eq(a: &PyValue, b: &PyValue) -> bool {
    use PyValue as P;
    match (a, b) {
        (P::None, P::None) => true,
        (P::Str(x), P::Str(y)) => x == y,
        (P::Bytes(x), P::Bytes(y)) => x == y,
        (P::List(x), P::List(y)) | (P::Tuple(x), P::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (P::Dict(x), P::Dict(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| b.get(k).is_some_and(|w| py_eq(v, w)))
        }
        (P::Set(x), P::Set(y)) => {
            x.len() == y.len() && x.iter().all(|p| y.iter().any(|q| py_eq(p, q)))
        }
        (P::Complex(x), P::Complex(y)) => x == y,
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// A number as an exact-enough rational for equality: integers as i128 when
/// they fit, else compared through their text.
#[derive(Debug)]
enum Num {
    Int(i128),
    Big(String),
    Float(f64),
}

fn numeric(v: &PyValue) -> Option<NumView> {
    match v {
        PyValue::Bool(b) => Some(NumView(Num::Int(i128::from(*b)))),
        PyValue::Int(text) => Some(NumView(
            text.parse::<i128>()
                .map(Num::Int)
                .unwrap_or_else(|_| Num::Big(text.clone())),
        )),
        PyValue::Float(x) => Some(NumView(Num::Float(*x))),
        _ => None,
    }
}

struct NumView(Num);

impl PartialEq for NumView {
    fn eq(&self, other: &NumView) -> bool {
        match (&self.0, &other.0) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Big(a), Num::Big(b)) => a == b,
            (Num::Float(a), Num::Float(b)) => a == b,
            (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => {
                f.is_finite() && f.fract() == 0.0 && float_int_eq(*f, *i)
            }
            (Num::Big(t), Num::Float(f)) | (Num::Float(f), Num::Big(t)) => {
                // Only integral floats can equal an integer; compare digits.
                f.is_finite() && f.fract() == 0.0 && format!("{f:.0}") == *t
            }
            (Num::Int(_), Num::Big(_)) | (Num::Big(_), Num::Int(_)) => false,
        }
    }
}

fn float_int_eq(f: f64, i: i128) -> bool {
    // |f| < 2^127 fits i128 exactly when integral.
    f.abs() < 1.7e38 && (f as i128) == i
}

// ---------------------------------------------------------------------------
// str() and repr()

/// Python's `str(value)`.
pub fn py_str(v: &PyValue) -> Vec<u32> {
    match v {
        PyValue::Str(s) => s.0.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(value)`.
pub fn py_repr(v: &PyValue) -> Vec<u32> {
    let mut out = Vec::new();
    repr_into(v, &mut out);
    out
}

fn push_ascii(out: &mut Vec<u32>, text: &str) {
    out.extend(text.chars().map(u32::from));
}

fn repr_into(v: &PyValue, out: &mut Vec<u32>) {
    match v {
        PyValue::None => push_ascii(out, "None"),
        PyValue::Bool(true) => push_ascii(out, "True"),
        PyValue::Bool(false) => push_ascii(out, "False"),
        PyValue::Int(text) => push_ascii(out, text),
        PyValue::Float(x) => push_ascii(out, &float_repr(*x)),
        PyValue::Complex(x) => {
            // Python prints an integral imaginary part without ".0": `1j`, `1.5j`.
            let r = float_repr(*x);
            push_ascii(out, r.strip_suffix(".0").unwrap_or(&r));
            out.push(u32::from('j'));
        }
        PyValue::Str(s) => str_repr_into(&s.0, out),
        PyValue::Bytes(b) => bytes_repr_into(b, out),
        PyValue::List(items) => seq_repr(items, "[", "]", false, out),
        PyValue::Tuple(items) => seq_repr(items, "(", ")", items.len() == 1, out),
        PyValue::Set(items) if items.is_empty() => push_ascii(out, "set()"),
        PyValue::Set(items) => seq_repr(items, "{", "}", false, out),
        PyValue::Dict(entries) => {
            out.push(u32::from('{'));
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    push_ascii(out, ", ");
                }
                repr_into(k, out);
                push_ascii(out, ": ");
                repr_into(val, out);
            }
            out.push(u32::from('}'));
        }
    }
}

fn seq_repr(items: &[PyValue], open: &str, close: &str, trailing: bool, out: &mut Vec<u32>) {
    push_ascii(out, open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            push_ascii(out, ", ");
        }
        repr_into(item, out);
    }
    if trailing {
        out.push(u32::from(','));
    }
    push_ascii(out, close);
}

/// Whether Python's `str.isprintable()` holds for one code point.
pub fn is_printable(c: u32) -> bool {
    if c < 0x80 {
        return (0x20..0x7f).contains(&c);
    }
    NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if c < lo {
                std::cmp::Ordering::Greater
            } else if c > hi {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_err()
}

/// CPython's `unicode_repr`: the quote is `'` unless the text holds `'` and
/// no `"`; `\\`, `\t`, `\n`, `\r` and the quote are escaped, other
/// non-printable code points become `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
fn str_repr_into(text: &[u32], out: &mut Vec<u32>) {
    let squote = text.contains(&u32::from('\''));
    let dquote = text.contains(&u32::from('"'));
    let quote = if squote && !dquote { '"' } else { '\'' } as u32;
    out.push(quote);
    for &c in text {
        match c {
            _ if c == quote || c == u32::from('\\') => {
                out.push(u32::from('\\'));
                out.push(c);
            }
            0x09 => push_ascii(out, "\\t"),
            0x0a => push_ascii(out, "\\n"),
            0x0d => push_ascii(out, "\\r"),
            _ if c < 0x20 || c == 0x7f => push_ascii(out, &format!("\\x{c:02x}")),
            _ if c < 0x7f => out.push(c),
            _ if is_printable(c) => out.push(c),
            _ if c <= 0xff => push_ascii(out, &format!("\\x{c:02x}")),
            _ if c <= 0xffff => push_ascii(out, &format!("\\u{c:04x}")),
            _ => push_ascii(out, &format!("\\U{c:08x}")),
        }
    }
    out.push(quote);
}

fn bytes_repr_into(bytes: &[u8], out: &mut Vec<u32>) {
    let squote = bytes.contains(&b'\'');
    let dquote = bytes.contains(&b'"');
    let quote = if squote && !dquote { b'"' } else { b'\'' };
    out.push(u32::from('b'));
    out.push(u32::from(quote));
    for &b in bytes {
        match b {
            _ if b == quote || b == b'\\' => {
                out.push(u32::from('\\'));
                out.push(u32::from(b));
            }
            b'\t' => push_ascii(out, "\\t"),
            b'\n' => push_ascii(out, "\\n"),
            b'\r' => push_ascii(out, "\\r"),
            0x20..=0x7e => out.push(u32::from(b)),
            _ => push_ascii(out, &format!("\\x{b:02x}")),
        }
    }
    out.push(u32::from(quote));
}

/// Python's `repr(float)`: the shortest text that reads back as the same
/// float, in positional notation when the decimal exponent is in
/// `-4 <= e < 16` (with `.0` for integral values), else as `1e-05`,
/// `1.5e+16`; `inf`, `-inf`, `nan`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust's `{:e}` is the shortest round-trip representation, like Python's.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let body = if decpt <= -4 || decpt > 16 {
        let mut s = digits[..1].to_string();
        if n > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        s.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
        s
    } else if decpt <= 0 {
        format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
    } else if decpt >= n {
        format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
    } else {
        format!(
            "{}.{}",
            &digits[..decpt as usize],
            &digits[decpt as usize..]
        )
    };
    format!("{sign}{body}")
}

/// Code points to UTF-8 bytes; lone surrogates are encoded as three bytes
/// (generalised UTF-8), so distinct Python strings stay distinct.
pub fn to_utf8(text: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        match char::from_u32(c) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => out.extend_from_slice(&[
                0xe0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// json.loads

/// Why `json.loads` raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Code point offset.
    pub pos: usize,
    /// What went wrong (Python's message where it matters).
    pub message: &'static str,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (char {})", self.message, self.pos)
    }
}

impl std::error::Error for JsonError {}

/// CPython's limit on the digits of an `int` read from text (3.11+).
pub const INT_MAX_STR_DIGITS: usize = 4300;

/// Python's `json.loads(text)` with the default (C) decoder: `NaN`,
/// `Infinity`, `-Infinity` accepted, control characters inside strings
/// rejected, duplicate keys keep their first position and last value,
/// integers of any size (up to 4,300 digits), floats correctly rounded.
pub fn json_loads(text: &[u32]) -> Result<PyValue, JsonError> {
    let mut p = JsonParser { s: text, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != text.len() {
        return Err(p.err("Extra data"));
    }
    Ok(v)
}

/// [`json_loads`] on a Rust string.
pub fn json_loads_str(text: &str) -> Result<PyValue, JsonError> {
    json_loads(&cps(text))
}

struct JsonParser<'a> {
    s: &'a [u32],
    i: usize,
}

const MAX_DEPTH: usize = 900;

impl JsonParser<'_> {
    fn err(&self, message: &'static str) -> JsonError {
        JsonError {
            pos: self.i,
            message,
        }
    }

    fn peek(&self) -> Option<u32> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(0x20 | 0x09 | 0x0a | 0x0d)) {
            self.i += 1;
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let w = cps(word);
        if self.s.len() >= self.i + w.len() && self.s[self.i..self.i + w.len()] == w[..] {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<PyValue, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err("maximum recursion depth exceeded"));
        }
        let Some(c) = self.peek() else {
            return Err(self.err("Expecting value"));
        };
        match char::from_u32(c) {
            Some('"') => {
                self.i += 1;
                Ok(PyValue::Str(self.string()?))
            }
            Some('{') => {
                self.i += 1;
                self.object(depth)
            }
            Some('[') => {
                self.i += 1;
                self.array(depth)
            }
            Some('n') if self.eat_word("null") => Ok(PyValue::None),
            Some('t') if self.eat_word("true") => Ok(PyValue::Bool(true)),
            Some('f') if self.eat_word("false") => Ok(PyValue::Bool(false)),
            Some('N') if self.eat_word("NaN") => Ok(PyValue::Float(f64::NAN)),
            Some('I') if self.eat_word("Infinity") => Ok(PyValue::Float(f64::INFINITY)),
            Some('-') if self.eat_word("-Infinity") => Ok(PyValue::Float(f64::NEG_INFINITY)),
            _ => self.number(),
        }
    }

    fn number(&mut self) -> Result<PyValue, JsonError> {
        let start = self.i;
        let digit = |c: Option<u32>| c.is_some_and(|c| (0x30..=0x39).contains(&c));
        if self.peek() == Some(u32::from('-')) {
            self.i += 1;
        }
        match self.peek() {
            Some(c) if (0x31..=0x39).contains(&c) => {
                while digit(self.peek()) {
                    self.i += 1;
                }
            }
            Some(0x30) => self.i += 1,
            _ => {
                self.i = start;
                return Err(self.err("Expecting value"));
            }
        }
        let mut is_float = false;
        if self.peek() == Some(u32::from('.')) && digit(self.s.get(self.i + 1).copied()) {
            self.i += 2;
            while digit(self.peek()) {
                self.i += 1;
            }
            is_float = true;
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            let save = self.i;
            self.i += 1;
            if matches!(self.peek(), Some(0x2b | 0x2d)) {
                self.i += 1;
            }
            if digit(self.peek()) {
                while digit(self.peek()) {
                    self.i += 1;
                }
                is_float = true;
            } else {
                self.i = save;
            }
        }
        let text: String = self.s[start..self.i]
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('?'))
            .collect();
        if is_float {
            let x: f64 = text.parse().map_err(|_| self.err("invalid float"))?;
            Ok(PyValue::Float(x))
        } else {
            let digits = text.trim_start_matches('-');
            if digits.len() > INT_MAX_STR_DIGITS {
                return Err(
                    self.err("Exceeds the limit (4300 digits) for integer string conversion")
                );
            }
            Ok(PyValue::Int(normalize_int(&text)))
        }
    }

    fn string(&mut self) -> Result<PyStr, JsonError> {
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("Unterminated string starting at"));
            };
            self.i += 1;
            match c {
                0x22 => return Ok(PyStr(out)),
                0x5c => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("Unterminated string starting at"));
                    };
                    self.i += 1;
                    let decoded = match char::from_u32(e) {
                        Some('"') => 0x22,
                        Some('\\') => 0x5c,
                        Some('/') => 0x2f,
                        Some('b') => 0x08,
                        Some('f') => 0x0c,
                        Some('n') => 0x0a,
                        Some('r') => 0x0d,
                        Some('t') => 0x09,
                        Some('u') => {
                            let mut u = self.hex4()?;
                            if (0xd800..=0xdbff).contains(&u)
                                && self.i + 6 < self.s.len()
                                && self.s[self.i] == 0x5c
                                && self.s[self.i + 1] == u32::from('u')
                            {
                                let save = self.i;
                                self.i += 2;
                                let low = self.hex4()?;
                                if (0xdc00..=0xdfff).contains(&low) {
                                    u = 0x10000 + (((u - 0xd800) << 10) | (low - 0xdc00));
                                } else {
                                    self.i = save;
                                }
                            }
                            u
                        }
                        _ => return Err(self.err("Invalid \\escape")),
                    };
                    out.push(decoded);
                }
                _ if c < 0x20 => {
                    self.i -= 1;
                    return Err(self.err("Invalid control character at"));
                }
                _ => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        if self.i + 4 > self.s.len() {
            return Err(self.err("Invalid \\uXXXX escape"));
        }
        let mut v = 0;
        for k in 0..4 {
            let d = char::from_u32(self.s[self.i + k])
                .and_then(|c| c.to_digit(16))
                .ok_or_else(|| self.err("Invalid \\uXXXX escape"))?;
            v = v * 16 + d;
        }
        self.i += 4;
        Ok(v)
    }

    fn object(&mut self, depth: usize) -> Result<PyValue, JsonError> {
        let mut entries: Vec<(PyValue, PyValue)> = Vec::new();
        self.ws();
        if self.peek() == Some(0x7d) {
            self.i += 1;
            return Ok(PyValue::Dict(entries));
        }
        loop {
            if self.peek() != Some(0x22) {
                return Err(self.err("Expecting property name enclosed in double quotes"));
            }
            self.i += 1;
            let key = PyValue::Str(self.string()?);
            self.ws();
            if self.peek() != Some(u32::from(':')) {
                return Err(self.err("Expecting ':' delimiter"));
            }
            self.i += 1;
            self.ws();
            let value = self.value(depth + 1)?;
            dict_insert(&mut entries, key, value);
            self.ws();
            match self.peek() {
                Some(0x7d) => {
                    self.i += 1;
                    return Ok(PyValue::Dict(entries));
                }
                Some(0x2c) => {
                    self.i += 1;
                    self.ws();
                }
                _ => return Err(self.err("Expecting ',' delimiter")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<PyValue, JsonError> {
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(0x5d) {
            self.i += 1;
            return Ok(PyValue::List(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(0x5d) => {
                    self.i += 1;
                    return Ok(PyValue::List(items));
                }
                Some(0x2c) => {
                    self.i += 1;
                    self.ws();
                }
                _ => return Err(self.err("Expecting ',' delimiter")),
            }
        }
    }
}

/// Inserts into a dict as Python does: an existing key keeps its position
/// and takes the new value.
pub fn dict_insert(entries: &mut Vec<(PyValue, PyValue)>, key: PyValue, value: PyValue) {
    if let Some(slot) = entries.iter_mut().find(|(k, _)| py_eq(k, &key)) {
        slot.1 = value;
    } else {
        entries.push((key, value));
    }
}

/// `str(int(text))` for an integer literal: no sign for zero, no leading zeros.
fn normalize_int(text: &str) -> String {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        "0".into()
    } else if neg {
        format!("-{digits}")
    } else {
        digits.into()
    }
}

// ---------------------------------------------------------------------------
// json.loads(json.dumps(x))

/// Python's `json.loads(json.dumps(value))`: tuples become lists; dict keys
/// become strings (`1` → `"1"`, `True` → `"true"`, `None` → `"null"`,
/// floats by `repr`), colliding keys merge; sets, bytes, complex numbers and
/// tuple keys raise `TypeError`.
pub fn json_roundtrip(v: &PyValue) -> Result<PyValue, String> {
    Ok(match v {
        PyValue::None
        | PyValue::Bool(_)
        | PyValue::Int(_)
        | PyValue::Float(_)
        | PyValue::Str(_) => v.clone(),
        PyValue::List(items) | PyValue::Tuple(items) => {
            PyValue::List(items.iter().map(json_roundtrip).collect::<Result<_, _>>()?)
        }
        PyValue::Dict(entries) => {
            let mut out = Vec::new();
            for (k, val) in entries {
                let key = match k {
                    PyValue::Str(_) => k.clone(),
                    PyValue::Int(t) => PyValue::Str(PyStr::new(t)),
                    PyValue::Bool(b) => PyValue::Str(PyStr::new(if *b { "true" } else { "false" })),
                    PyValue::None => PyValue::Str(PyStr::new("null")),
                    PyValue::Float(x) => PyValue::Str(PyStr::new(&json_float_key(*x))),
                    other => {
                        return Err(format!(
                            "TypeError: keys must be str, int, float, bool or None, not {}",
                            other.type_name()
                        ));
                    }
                };
                let val = json_roundtrip(val)?;
                dict_insert(&mut out, key, val);
            }
            PyValue::Dict(out)
        }
        other => {
            return Err(format!(
                "TypeError: Object of type {} is not JSON serializable",
                other.type_name()
            ));
        }
    })
}

fn json_float_key(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        float_repr(x)
    }
}

// ---------------------------------------------------------------------------
// eval of a Python literal

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
        if depth > 500 {
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
            let mut entries = Vec::new();
            self.i += 1;
            let v = self.atom(depth + 1)?;
            check_hashable(&first)?;
            dict_insert(&mut entries, first, v);
            loop {
                self.skip();
                match self.peek() {
                    Some('}') => {
                        self.i += 1;
                        return Ok(PyValue::Dict(entries));
                    }
                    Some(',') => {
                        self.i += 1;
                        self.skip();
                        if self.peek() == Some('}') {
                            self.i += 1;
                            return Ok(PyValue::Dict(entries));
                        }
                        let k = self.atom(depth + 1)?;
                        self.skip();
                        if self.peek() != Some(':') {
                            return self.err("expected ':'");
                        }
                        self.i += 1;
                        let v = self.atom(depth + 1)?;
                        check_hashable(&k)?;
                        dict_insert(&mut entries, k, v);
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
                    let mut set: Vec<PyValue> = Vec::new();
                    for item in items {
                        if !set.iter().any(|s| py_eq(s, &item)) {
                            set.push(item);
                        }
                    }
                    return Ok(PyValue::Set(set));
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

    fn s(v: &PyValue) -> String {
        PyStr(py_str(v)).to_string_lossy()
    }

    fn lit(text: &str) -> PyValue {
        literal_eval(text).unwrap()
    }

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (2.5e-7, "2.5e-07"),
            (0.2907590418481535, "0.2907590418481535"),
            (100000.0, "100000.0"),
            (1.5e300, "1.5e+300"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
            (5e-324, "5e-324"),
            (9007199254740993.0, "9007199254740992.0"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn str_of_values_matches_python() {
        assert_eq!(s(&lit("True")), "True");
        assert_eq!(s(&lit("None")), "None");
        assert_eq!(s(&lit("'abc'")), "abc");
        assert_eq!(
            s(&lit("['a', 1, 1.0, None, True]")),
            "['a', 1, 1.0, None, True]"
        );
        assert_eq!(
            s(&lit("{'k': 'v', 'n': [1e-05]}")),
            "{'k': 'v', 'n': [1e-05]}"
        );
        assert_eq!(s(&lit("(1,)")), "(1,)");
        assert_eq!(s(&lit("[\"it's\"]")), "[\"it's\"]");
        assert_eq!(s(&lit("['it\\'s \"q\"']")), "['it\\'s \"q\"']");
        assert_eq!(s(&lit("['a\\nb\\t\\\\']")), "['a\\nb\\t\\\\']");
        assert_eq!(s(&lit("['\\x00\\x7f\\xa0\\xe9']")), "['\\x00\\x7f\\xa0é']");
        assert_eq!(s(&lit("['\\u200b東京\\U0001f600']")), "['\\u200b東京😀']");
        assert_eq!(s(&lit("-0")), "0");
        assert_eq!(
            s(&lit("12345678901234567890123")),
            "12345678901234567890123"
        );
    }

    #[test]
    fn json_loads_follows_cpython() {
        let v = json_loads_str(r#"{"a": 1, "a": 2, "b": [1.0, 1E5, -0, NaN]}"#).unwrap();
        assert_eq!(s(&v), "{'a': 2, 'b': [1.0, 100000.0, 0, nan]}");
        assert!(json_loads_str("[1,]").is_err());
        assert!(
            json_loads_str("[\"a\tb\"]").is_err(),
            "control characters are rejected"
        );
        assert!(json_loads_str("[True]").is_err());
        assert!(json_loads_str("[01]").is_err());
        assert!(json_loads_str(" [1] \r\n").is_ok());
        assert!(json_loads_str("[1] x").is_err());
        // A lone surrogate stays a separate code point; a pair joins.
        let v = json_loads_str(r#"["\ud800", "\ud83d\ude00"]"#).unwrap();
        assert_eq!(py_repr(&v), cps("['\\ud800', '😀']"));
        let big = format!("[{}]", "9".repeat(4301));
        assert!(json_loads_str(&big).is_err(), "CPython's int digit limit");
        assert!(json_loads_str(&format!("[{}]", "9".repeat(4300))).is_ok());
    }

    #[test]
    fn json_roundtrip_turns_tuples_into_lists_and_keys_into_strings() {
        let v = json_roundtrip(&lit("{1: (1, 2), True: 'x', None: 1.5, '1': 'y'}")).unwrap();
        // {1: .., True: ..} merge in Python (1 == True) before the round trip.
        assert_eq!(s(&v), "{'1': 'y', 'null': 1.5}");
        assert!(json_roundtrip(&lit("{1, 2}")).is_err());
    }

    #[test]
    fn literal_strings() {
        assert_eq!(s(&lit("'a' \"b\" r'\\n'")), "ab\\n");
        assert_eq!(s(&lit("'''x\ny'''")), "x\ny");
        assert_eq!(s(&lit("'\\101\\q'")), "A\\q");
        assert!(literal_eval("foo(1)").is_err());
    }
}
