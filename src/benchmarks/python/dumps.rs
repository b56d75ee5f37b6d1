//! Python's `json.dumps(value, indent=N)` with its defaults
//! (`ensure_ascii=True`, separators `,` and `: `), on JSON values read with
//! key order kept: the text BFCL puts in its prompts.

use serde_json::{Number, Value};

use super::repr::float_repr;
use super::value::{PyStr, PyValue};

/// `json.dumps(value, indent=indent)`: nested values on their own lines,
/// `indent` spaces a level; every non-ASCII character escaped as `\uXXXX`
/// (a surrogate pair beyond the BMP); floats as `repr(float)`.
pub fn dumps_indented(value: &Value, indent: usize) -> String {
    let mut out = String::new();
    write_value(&mut out, value, indent, 0);
    out
}

fn write_value(out: &mut String, value: &Value, indent: usize, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_text(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                new_item(out, i, indent, level + 1);
                write_value(out, item, indent, level + 1);
            }
            close(out, ']', indent, level);
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                new_item(out, i, indent, level + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, item, indent, level + 1);
            }
            close(out, '}', indent, level);
        }
    }
}

/// `json.dumps(json.loads(text))` of a JSON value's text: separators `, `
/// and `: `, ASCII escapes, floats as `repr(float)` (`1.0`, `1e+16`).
pub fn dumps_value(value: &Value) -> String {
    super::json_loads_str(&value.to_string())
        .ok()
        .and_then(|v| json_dumps(&v).ok())
        .unwrap_or_else(|| value.to_string())
}

/// `json.dumps(value)` with every default (separators `, ` and `: `,
/// `ensure_ascii=True`, `allow_nan=True`): a tuple is written as a list,
/// `int`, `float`, `bool` and `None` keys as their JSON text; the
/// `TypeError` text where Python raises one (a set, bytes, complex value,
/// or a key of another type).
pub fn json_dumps(value: &PyValue) -> Result<String, String> {
    let mut out = String::new();
    dump_py(&mut out, value)?;
    Ok(out)
}

fn dump_py(out: &mut String, value: &PyValue) -> Result<(), String> {
    match value {
        PyValue::None => out.push_str("null"),
        PyValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        PyValue::Int(text) => out.push_str(text),
        PyValue::Float(x) => out.push_str(&json_float(*x)),
        PyValue::Str(s) => write_py_string(out, s),
        PyValue::List(items) | PyValue::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dump_py(out, item)?;
            }
            out.push(']');
        }
        PyValue::Dict(entries) => {
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match key {
                    PyValue::Str(s) => write_py_string(out, s),
                    PyValue::Int(_) | PyValue::Float(_) | PyValue::Bool(_) | PyValue::None => {
                        let mut text = String::new();
                        dump_py(&mut text, key)?;
                        write_string(out, &text);
                    }
                    other => {
                        return Err(format!(
                            "keys must be str, int, float, bool or None, not {}",
                            other.type_name()
                        ));
                    }
                }
                out.push_str(": ");
                dump_py(out, item)?;
            }
            out.push('}');
        }
        other => {
            return Err(format!(
                "Object of type {} is not JSON serializable",
                other.type_name()
            ));
        }
    }
    Ok(())
}

/// A float as `json.dumps` writes it: `repr`, or `NaN` / `Infinity`.
pub(crate) fn json_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        float_repr(x)
    }
}

/// A Python string (lone surrogates included) as `json.dumps` writes it.
pub(crate) fn write_py_string(out: &mut String, s: &PyStr) {
    if s.0.iter().all(|&c| char::from_u32(c).is_some()) {
        write_string(out, &s.to_string_lossy());
        return;
    }
    out.push('"');
    for &c in &s.0 {
        match char::from_u32(c) {
            Some(ch) => {
                let mut one = String::new();
                write_string(&mut one, ch.encode_utf8(&mut [0; 4]));
                out.push_str(&one[1..one.len() - 1]);
            }
            None => out.push_str(&format!("\\u{c:04x}")),
        }
    }
    out.push('"');
}

/// The separator before item `i` of a container at `level`.
fn new_item(out: &mut String, i: usize, indent: usize, level: usize) {
    if i > 0 {
        out.push(',');
    }
    out.push('\n');
    out.push_str(&" ".repeat(indent * level));
}

fn close(out: &mut String, bracket: char, indent: usize, level: usize) {
    out.push('\n');
    out.push_str(&" ".repeat(indent * level));
    out.push(bracket);
}

/// An integer as Python writes it; any other number as `repr(float)`
/// (what `json.loads` made of it).
fn number_text(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        n.to_string()
    } else {
        float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii=True`.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_values_are_indented_as_python_writes_them() {
        let value: Value =
            serde_json::from_str(r#"{"b": [1, 2.0, {"x": null}], "a": {}, "c": [], "d": true}"#)
                .unwrap();
        assert_eq!(
            dumps_indented(&value, 4),
            "{\n    \"b\": [\n        1,\n        2.0,\n        {\n            \"x\": null\n        }\n    ],\n    \"a\": {},\n    \"c\": [],\n    \"d\": true\n}"
        );
    }

    #[test]
    fn strings_escape_every_non_ascii_character() {
        assert_eq!(
            dumps_indented(&json!("é\"\\\n\t\u{1}\u{7f}😀"), 4),
            r#""\u00e9\"\\\n\t\u0001\u007f\ud83d\ude00""#
        );
    }

    #[test]
    fn python_values_dump_with_the_default_separators() {
        use crate::benchmarks::python::literal_eval;
        let value = PyValue::Dict(vec![
            (
                PyValue::Str(PyStr::new("a")),
                PyValue::Tuple(vec![PyValue::Int("1".into()), PyValue::Float(2.0)]),
            ),
            (PyValue::Int("3".into()), PyValue::None),
            (
                PyValue::Str(PyStr::new("é")),
                PyValue::List(vec![PyValue::Bool(true), PyValue::Float(f64::NAN)]),
            ),
        ]);
        assert_eq!(
            json_dumps(&value).unwrap(),
            r#"{"a": [1, 2.0], "3": null, "\u00e9": [true, NaN]}"#
        );
        let set = literal_eval("{'k': {1}}").unwrap();
        assert_eq!(
            json_dumps(&set).unwrap_err(),
            "Object of type set is not JSON serializable"
        );
        let tuple_key = literal_eval("{(1,): 2}").unwrap();
        assert_eq!(
            json_dumps(&tuple_key).unwrap_err(),
            "keys must be str, int, float, bool or None, not tuple"
        );
    }

    #[test]
    fn floats_are_written_as_repr_and_ints_as_ints() {
        let value: Value = serde_json::from_str("[1e-05, 1e16, 0.1, 10, -3, 1.5e300]").unwrap();
        assert_eq!(
            dumps_indented(&value, 0),
            "[\n1e-05,\n1e+16,\n0.1,\n10,\n-3,\n1.5e+300\n]"
        );
    }
}
