//! The JSON texts the official environment makes of its pydantic models:
//! `json.dumps(model.model_dump(), default=str)` for a tool's output (keys
//! in field order) and `json.dumps(db.model_dump(), sort_keys=True)` for
//! the database hash. Both use Python's default separators (`", "`,
//! `": "`), `ensure_ascii=True` and `repr(float)`.

use crate::benchmarks::python::PyStr;
use crate::benchmarks::python::dumps::{json_float, write_py_string};

/// A number a model field holds: a float, or an `int` where the official
/// code stores one in a float field without validation (an exchange's
/// price difference over no items is the integer `0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// A Python `int` small enough for `i64`.
    Int(i64),
    /// A Python `float`.
    Float(f64),
}

impl Number {
    /// `float(self)`.
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(x) => x,
        }
    }
}

/// One value of a model dump, borrowing from the model.
pub enum J<'a> {
    /// `None`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int` or a `float`.
    Num(Number),
    /// A string without lone surrogates.
    Str(&'a str),
    /// A Python string (lone surrogates allowed).
    Text(&'a PyStr),
    /// A list of strings.
    Strs(&'a [String]),
    /// A list of values.
    List(Vec<J<'a>>),
    /// A dict or a model: keys in insertion or field order.
    Map(Vec<(&'a str, J<'a>)>),
}

/// A model that dumps to a dict.
pub trait Dump {
    /// Its fields in pydantic's field order, as `model_dump` gives them.
    fn fields(&self) -> Vec<(&str, J<'_>)>;

    /// Itself as a dump value.
    fn dump(&self) -> J<'_> {
        J::Map(self.fields())
    }
}

/// `json.dumps(value)` (`sort_keys` false) or `json.dumps(value,
/// sort_keys=True)`, appended to `out`.
pub fn write(out: &mut String, value: &J<'_>, sort_keys: bool) {
    match value {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(Number::Int(i)) => out.push_str(&i.to_string()),
        J::Num(Number::Float(x)) => out.push_str(&json_float(*x)),
        J::Str(s) => write_str(out, s),
        J::Text(s) => write_py_string(out, s),
        J::Strs(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, item);
            }
            out.push(']');
        }
        J::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, item, sort_keys);
            }
            out.push(']');
        }
        J::Map(entries) => write_map(out, entries, sort_keys),
    }
}

fn write_map(out: &mut String, entries: &[(&str, J<'_>)], sort_keys: bool) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    if sort_keys {
        // Python sorts `str` keys by code point, which is UTF-8 byte order.
        order.sort_by(|&a, &b| entries[a].0.cmp(entries[b].0));
    }
    out.push('{');
    for (n, &i) in order.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        let (key, value) = &entries[i];
        write_str(out, key);
        out.push_str(": ");
        write(out, value, sort_keys);
    }
    out.push('}');
}

/// A string as `json.dumps` writes it (`ensure_ascii=True`).
pub fn write_str(out: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        write_py_string(out, &PyStr::new(s));
    }
}

/// `json.dumps(model.model_dump(), default=str)`: a tool's output.
pub fn dumps(model: &dyn Dump) -> String {
    let mut out = String::new();
    write(&mut out, &model.dump(), false);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_field_order_or_sort_and_escape_as_python() {
        let text = PyStr(vec![0xe9, 0xd800, 0x1f600]);
        let value = J::Map(vec![
            ("b", J::Num(Number::Float(100.0))),
            ("a", J::List(vec![J::Null, J::Bool(true), J::Text(&text)])),
            ("é", J::Num(Number::Int(0))),
        ]);
        let mut plain = String::new();
        write(&mut plain, &value, false);
        assert_eq!(
            plain,
            r#"{"b": 100.0, "a": [null, true, "\u00e9\ud800\ud83d\ude00"], "\u00e9": 0}"#
        );
        let mut sorted = String::new();
        write(&mut sorted, &value, true);
        assert!(sorted.starts_with(r#"{"a": "#) && sorted.ends_with(r#""\u00e9": 0}"#));
    }
}
