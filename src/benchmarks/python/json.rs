//! Python's `json.loads` (CPython's C scanner, `strict=True`) and
//! `json.loads(json.dumps(x))`, on [`PyValue`]s.

use std::fmt;

use super::repr::float_repr;
use super::value::{DictBuilder, INT_MAX_STR_DIGITS, PyStr, PyValue, cps, normalize_int};
use crate::spec::limits::PY_JSON_MAX_DEPTH;

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
        if depth > PY_JSON_MAX_DEPTH {
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
        let mut entries = DictBuilder::new();
        self.ws();
        if self.peek() == Some(0x7d) {
            self.i += 1;
            return Ok(PyValue::Dict(entries.finish()));
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
            entries.insert(key, value);
            self.ws();
            match self.peek() {
                Some(0x7d) => {
                    self.i += 1;
                    return Ok(PyValue::Dict(entries.finish()));
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

/// Python's `json.loads(json.dumps(value))`: tuples become lists; dict keys
/// become strings (`1` → `"1"`, `True` → `"true"`, `None` → `"null"`,
/// floats by `repr`), colliding keys merge; sets, bytes, complex numbers and
/// tuple keys raise `TypeError`.
pub fn json_roundtrip(v: PyValue) -> Result<PyValue, String> {
    Ok(match v {
        PyValue::None
        | PyValue::Bool(_)
        | PyValue::Int(_)
        | PyValue::Float(_)
        | PyValue::Str(_) => v,
        PyValue::List(items) | PyValue::Tuple(items) => PyValue::List(
            items
                .into_iter()
                .map(json_roundtrip)
                .collect::<Result<_, _>>()?,
        ),
        PyValue::Dict(entries) => {
            let mut out = DictBuilder::new();
            for (k, val) in entries {
                let key = match k {
                    PyValue::Str(_) => k,
                    PyValue::Int(t) => PyValue::Str(PyStr::new(&t)),
                    PyValue::Bool(b) => PyValue::Str(PyStr::new(if b { "true" } else { "false" })),
                    PyValue::None => PyValue::Str(PyStr::new("null")),
                    PyValue::Float(x) => PyValue::Str(PyStr::new(&json_float_key(x))),
                    other => {
                        return Err(format!(
                            "TypeError: keys must be str, int, float, bool or None, not {}",
                            other.type_name()
                        ));
                    }
                };
                let val = json_roundtrip(val)?;
                out.insert(key, val);
            }
            PyValue::Dict(out.finish())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::repr::py_repr;

    use crate::benchmarks::python::testing::{lit, s};

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
        let v = json_roundtrip(lit("{1: (1, 2), True: 'x', None: 1.5, '1': 'y'}")).unwrap();
        // {1: .., True: ..} merge in Python (1 == True) before the round trip.
        assert_eq!(s(&v), "{'1': 'y', 'null': 1.5}");
        assert!(json_roundtrip(lit("{1, 2}")).is_err());
    }

    #[test]
    fn nesting_stops_at_pythons_limit_without_overflowing() {
        // On a 2 MiB test thread: the deepest document read, printed and
        // turned into JSON, and far deeper ones refused.
        let depth = crate::spec::limits::PY_JSON_MAX_DEPTH;
        let ok = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let v = json_loads_str(&ok).unwrap();
        assert_eq!(crate::benchmarks::python::testing::s(&v), ok);
        let json = v.to_json();
        assert!(json.is_array());
        assert!(json_loads_str(&format!("[{ok}]")).is_err());
        let e = json_loads_str(&"[".repeat(100_000)).unwrap_err();
        assert_eq!(e.message, "maximum recursion depth exceeded");
    }
}
