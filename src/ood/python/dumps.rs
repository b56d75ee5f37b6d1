//! Python's `json.dumps(value, indent=N)` with its defaults
//! (`ensure_ascii=True`, separators `,` and `: `), on JSON values read with
//! key order kept: the text BFCL puts in its prompts.

use serde_json::{Number, Value};

use super::repr::float_repr;

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
    fn floats_are_written_as_repr_and_ints_as_ints() {
        let value: Value = serde_json::from_str("[1e-05, 1e16, 0.1, 10, -3, 1.5e300]").unwrap();
        assert_eq!(
            dumps_indented(&value, 0),
            "[\n1e-05,\n1e+16,\n0.1,\n10,\n-3,\n1.5e+300\n]"
        );
    }
}
