//! The Python values the official scorers handle ([`PyValue`]), their text
//! ([`PyStr`], code points with lone surrogates allowed), and Python's `==`
//! and dict insertion on them.
//!
//! Text is kept as code points, not as Rust `String`s, because a Python
//! string may hold lone surrogates (`"\ud800"` in JSON) and `str()`
//! comparisons must see them exactly as Python does.

use std::fmt;

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
pub(crate) fn normalize_int(text: &str) -> String {
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

/// CPython's limit on the digits of an `int` read from text (3.11+).
pub const INT_MAX_STR_DIGITS: usize = 4300;
