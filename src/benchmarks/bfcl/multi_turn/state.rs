//! The public state of a multi-turn API instance ([`State`]): what the
//! official `state_checker` compares with Python's `!=`
//! ([`python_eq`]), and how the reference traces write it down
//! ([`State::encode`], [`state_id`]: the SHA-256 of its canonical JSON).
//!
//! The encoding is the reference traces' (see `docs/ood.md`): a tuple is
//! `{"__tuple__": [...]}`, a set `{"__set__": [...]}` (items sorted by their
//! canonical JSON), a dict with a key that is not a `str`
//! `{"__dict_items__": [[k, v], ...]}`, a non-finite float
//! `{"__float__": "inf"}`, an object `{"__class__": name, attr: value, ...}`,
//! a reference to an object `{"__ref__": class, "name": name}`.

use std::collections::HashMap;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::benchmarks::python::{PyValue, float_repr};

/// A value held in a public attribute of an API instance.
#[derive(Debug, Clone)]
pub enum State {
    /// `None`.
    None,
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    Int(i128),
    /// An `int` beyond `i128`, as its decimal digits.
    LongInt(String),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(String),
    /// A `list`.
    List(Vec<State>),
    /// A `tuple`.
    Tuple(Vec<State>),
    /// A `set`.
    Set(Vec<State>),
    /// A `dict`, in insertion order.
    Dict(Vec<(State, State)>),
    /// An instance of a helper class (the file system's `File` and
    /// `Directory`): its public attributes in `vars()` order, and those its
    /// `__eq__` compares.
    Object {
        /// The class name.
        class: &'static str,
        /// Public attributes, in `vars()` order.
        attrs: Vec<(&'static str, State)>,
        /// The attributes `__eq__` compares.
        compared: &'static [&'static str],
    },
    /// A reference to an object written elsewhere in the state (a
    /// directory's parent): its class and name.
    Ref {
        /// The class name.
        class: &'static str,
        /// The object's name.
        name: String,
    },
    /// A `datetime`, as its `isoformat()`.
    Datetime(String),
    /// Anything else, as its `repr()`.
    Repr(String),
}

impl State {
    /// A string value.
    pub fn str(text: impl Into<String>) -> State {
        State::Str(text.into())
    }

    /// A dict with string keys, in the given order.
    pub fn dict<'a>(entries: impl IntoIterator<Item = (&'a str, State)>) -> State {
        State::Dict(
            entries
                .into_iter()
                .map(|(k, v)| (State::str(k), v))
                .collect(),
        )
    }

    /// The reference traces' JSON for this value.
    pub fn encode(&self) -> Value {
        match self {
            State::None => Value::Null,
            State::Bool(b) => Value::Bool(*b),
            State::Int(i) => Value::Number(
                serde_json::Number::from_i128(*i).unwrap_or_else(|| serde_json::Number::from(0)),
            ),
            State::LongInt(digits) => serde_json::from_str(digits).unwrap_or(Value::Null),
            State::Float(x) if !x.is_finite() => tagged("__float__", Value::String(non_finite(*x))),
            State::Float(x) => serde_json::Number::from_f64(*x)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            State::Str(s) => Value::String(s.clone()),
            State::List(items) => Value::Array(items.iter().map(State::encode).collect()),
            State::Tuple(items) => tagged(
                "__tuple__",
                Value::Array(items.iter().map(State::encode).collect()),
            ),
            State::Set(items) => {
                let mut encoded: Vec<(String, Value)> = items
                    .iter()
                    .map(|item| (canonical_exact(item), item.encode()))
                    .collect();
                encoded.sort_by(|a, b| a.0.chars().cmp(b.0.chars()));
                tagged(
                    "__set__",
                    Value::Array(encoded.into_iter().map(|(_, v)| v).collect()),
                )
            }
            State::Dict(entries) if entries.iter().all(|(k, _)| matches!(k, State::Str(_))) => {
                let mut map = Map::new();
                for (k, v) in entries {
                    if let State::Str(k) = k {
                        map.insert(k.clone(), v.encode());
                    }
                }
                Value::Object(map)
            }
            State::Dict(entries) => tagged(
                "__dict_items__",
                Value::Array(
                    entries
                        .iter()
                        .map(|(k, v)| Value::Array(vec![k.encode(), v.encode()]))
                        .collect(),
                ),
            ),
            State::Object { class, attrs, .. } => {
                let mut map = Map::new();
                map.insert("__class__".into(), Value::String((*class).into()));
                for (name, value) in attrs {
                    map.insert((*name).into(), value.encode());
                }
                Value::Object(map)
            }
            State::Ref { class, name } => {
                let mut map = Map::new();
                map.insert("__ref__".into(), Value::String((*class).into()));
                map.insert("name".into(), Value::String(name.clone()));
                Value::Object(map)
            }
            State::Datetime(iso) => tagged("__datetime__", Value::String(iso.clone())),
            State::Repr(text) => tagged("__repr__", Value::String(text.clone())),
        }
    }
}

impl From<&PyValue> for State {
    fn from(value: &PyValue) -> State {
        match value {
            PyValue::None => State::None,
            PyValue::Bool(b) => State::Bool(*b),
            PyValue::Int(text) => match text.parse::<i128>() {
                Ok(i) => State::Int(i),
                Err(_) => State::LongInt(text.clone()),
            },
            PyValue::Float(x) => State::Float(*x),
            PyValue::Str(s) => State::Str(s.to_string_lossy()),
            PyValue::List(items) => State::List(items.iter().map(State::from).collect()),
            PyValue::Tuple(items) => State::Tuple(items.iter().map(State::from).collect()),
            PyValue::Set(items) => State::Set(items.iter().map(State::from).collect()),
            PyValue::Dict(entries) => State::Dict(
                entries
                    .iter()
                    .map(|(k, v)| (State::from(k), State::from(v)))
                    .collect(),
            ),
            other => State::Repr(
                crate::benchmarks::python::value::PyStr(crate::benchmarks::python::py_repr(other))
                    .to_string_lossy(),
            ),
        }
    }
}

fn tagged(tag: &str, value: Value) -> Value {
    let mut map = Map::new();
    map.insert(tag.into(), value);
    Value::Object(map)
}

fn non_finite(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

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
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The reference traces' id of an instance's public state: the SHA-256 of
/// the canonical JSON of `{attribute: value}`.
pub fn state_id(attributes: &[(&'static str, State)]) -> String {
    let state = State::dict(attributes.iter().map(|(k, v)| (*k, v.clone())));
    let digest = Sha256::digest(canonical_exact(&state).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `json.dumps(value.encode(), sort_keys=True, separators=(',', ':'),
/// ensure_ascii=False)`: floats as Python's `repr` (`1e-05`, `1.0`), keys
/// in code-point order.
pub fn canonical_exact(value: &State) -> String {
    let mut out = String::new();
    write_exact(&mut out, value);
    out
}

fn write_exact(out: &mut String, value: &State) {
    match value {
        State::Float(x) if x.is_finite() => out.push_str(&float_repr(*x)),
        State::List(items) => write_exact_array(out, items.iter()),
        State::Tuple(items) => {
            out.push_str("{\"__tuple__\":");
            write_exact_array(out, items.iter());
            out.push('}');
        }
        State::Set(items) => {
            let mut texts: Vec<String> = items.iter().map(canonical_exact).collect();
            texts.sort_by(|a, b| a.chars().cmp(b.chars()));
            out.push_str("{\"__set__\":[");
            out.push_str(&texts.join(","));
            out.push_str("]}");
        }
        State::Dict(entries) if entries.iter().all(|(k, _)| matches!(k, State::Str(_))) => {
            let mut fields: Vec<(&str, &State)> = entries
                .iter()
                .filter_map(|(k, v)| match k {
                    State::Str(k) => Some((k.as_str(), v)),
                    _ => None,
                })
                .collect();
            write_exact_object(out, &mut fields);
        }
        State::Dict(entries) => {
            out.push_str("{\"__dict_items__\":[");
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                write_exact(out, k);
                out.push(',');
                write_exact(out, v);
                out.push(']');
            }
            out.push_str("]}");
        }
        State::Object { class, attrs, .. } => {
            let class_name = State::str(*class);
            let mut fields: Vec<(&str, &State)> = vec![("__class__", &class_name)];
            fields.extend(attrs.iter().map(|(k, v)| (*k, v)));
            write_exact_object(out, &mut fields);
        }
        State::Float(x) => {
            out.push_str("{\"__float__\":");
            write_string(out, &non_finite(*x));
            out.push('}');
        }
        State::None => out.push_str("null"),
        State::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        State::Int(i) => out.push_str(&i.to_string()),
        State::LongInt(digits) => out.push_str(digits),
        State::Str(s) => write_string(out, s),
        State::Ref { class, name } => {
            out.push_str("{\"__ref__\":");
            write_string(out, class);
            out.push_str(",\"name\":");
            write_string(out, name);
            out.push('}');
        }
        State::Datetime(text) => {
            out.push_str("{\"__datetime__\":");
            write_string(out, text);
            out.push('}');
        }
        State::Repr(text) => {
            out.push_str("{\"__repr__\":");
            write_string(out, text);
            out.push('}');
        }
    }
}

fn write_exact_array<'a>(out: &mut String, items: impl Iterator<Item = &'a State>) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_exact(out, item);
    }
    out.push(']');
}

fn write_exact_object(out: &mut String, fields: &mut [(&str, &State)]) {
    fields.sort_by(|a, b| a.0.chars().cmp(b.0.chars()));
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_exact(out, value);
    }
    out.push('}');
}

/// Python's `==` on two state values: numbers by value across `bool`,
/// `int` and `float`; a list never equals a tuple; dicts and sets whatever
/// their order; objects by the attributes their `__eq__` compares.
pub fn python_eq(a: &State, b: &State) -> bool {
    use State as S;
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    match (a, b) {
        (S::None, S::None) => true,
        (S::Str(x), S::Str(y)) => x == y,
        (S::List(x), S::List(y)) | (S::Tuple(x), S::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| python_eq(p, q))
        }
        (S::Set(x), S::Set(y)) => same_keys(x.iter(), y.iter()),
        (S::Dict(x), S::Dict(y)) => dicts_equal(x, y),
        (
            S::Object {
                class: c1,
                attrs: a1,
                compared,
            },
            S::Object {
                class: c2,
                attrs: a2,
                ..
            },
        ) => {
            c1 == c2
                && compared.iter().all(|name| {
                    let find = |attrs: &[(&'static str, State)]| {
                        attrs
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, v)| v.clone())
                    };
                    match (find(a1), find(a2)) {
                        (Some(p), Some(q)) => python_eq(&p, &q),
                        (None, None) => true,
                        _ => false,
                    }
                })
        }
        (
            S::Ref {
                class: c1,
                name: n1,
            },
            S::Ref {
                class: c2,
                name: n2,
            },
        ) => c1 == c2 && n1 == n2,
        (S::Datetime(x), S::Datetime(y)) | (S::Repr(x), S::Repr(y)) => x == y,
        _ => false,
    }
}

/// A number as an exact comparable value: an integer (in `i128`, or as
/// the decimal digits of one beyond it), or a float that is not integral.
#[derive(PartialEq)]
enum Number {
    Integer(i128),
    Long(String),
    Real(f64),
}

fn number(value: &State) -> Option<Number> {
    match value {
        State::Bool(b) => Some(Number::Integer(*b as i128)),
        State::Int(i) => Some(Number::Integer(*i)),
        State::LongInt(digits) => Some(Number::Long(digits.clone())),
        State::Float(x) if x.fract() == 0.0 && x.abs() < 1e38 => Some(Number::Integer(*x as i128)),
        // Rust writes an integral float's exact decimal value.
        State::Float(x) if x.fract() == 0.0 => Some(Number::Long(format!("{x:.0}"))),
        State::Float(x) => Some(Number::Real(*x)),
        _ => None,
    }
}

/// A text equal for keys that Python finds equal (`1`, `1.0`, `True`).
fn key_text(value: &State) -> String {
    match number(value) {
        Some(Number::Integer(i)) => format!("#{i}"),
        Some(Number::Long(digits)) => format!("#{digits}"),
        Some(Number::Real(x)) => format!("#{}", float_repr(x)),
        None => canonical_exact(value),
    }
}

fn same_keys<'a>(
    x: impl ExactSizeIterator<Item = &'a State>,
    y: impl ExactSizeIterator<Item = &'a State>,
) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let mut counts: HashMap<String, isize> = HashMap::new();
    for item in x {
        *counts.entry(key_text(item)).or_default() += 1;
    }
    for item in y {
        *counts.entry(key_text(item)).or_default() -= 1;
    }
    counts.values().all(|&c| c == 0)
}

fn dicts_equal(x: &[(State, State)], y: &[(State, State)]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let by_key: HashMap<String, &State> = y.iter().map(|(k, v)| (key_text(k), v)).collect();
    x.iter().all(|(k, v)| {
        by_key
            .get(&key_text(k))
            .is_some_and(|other| python_eq(v, other))
    })
}

/// The public attributes that differ (`!=`) between two states of one
/// class, in the first state's order: what `_compare_instances` reports.
pub fn differences(
    model: &[(&'static str, State)],
    ground_truth: &[(&'static str, State)],
) -> Vec<&'static str> {
    model
        .iter()
        .filter(|(name, value)| {
            ground_truth
                .iter()
                .find(|(n, _)| n == name)
                .is_none_or(|(_, other)| !python_eq(value, other))
        })
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_is_pythons_sorted_compact_dump() {
        let state = State::dict([
            ("b", State::Float(1e-5)),
            ("a", State::Tuple(vec![State::Int(1), State::str("é\n")])),
            (
                "c",
                State::Dict(vec![(
                    State::Int(3),
                    State::Set(vec![State::Int(2), State::Int(10)]),
                )]),
            ),
        ]);
        assert_eq!(
            canonical_exact(&state),
            r#"{"a":{"__tuple__":[1,"é\n"]},"b":1e-05,"c":{"__dict_items__":[[3,{"__set__":[10,2]}]]}}"#
        );
    }

    #[test]
    fn state_id_is_the_sha256_of_the_canonical_json() {
        // sha256(b'{}') as Python's hashlib gives it.
        assert_eq!(
            state_id(&[]),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn python_equality_crosses_number_types_but_not_list_and_tuple() {
        assert!(python_eq(&State::Int(1), &State::Float(1.0)));
        assert!(python_eq(&State::Bool(true), &State::Int(1)));
        assert!(!python_eq(&State::Float(1.5), &State::Int(1)));
        assert!(!python_eq(
            &State::List(vec![State::Int(1)]),
            &State::Tuple(vec![State::Int(1)])
        ));
        let a = State::Dict(vec![
            (State::str("x"), State::Int(1)),
            (State::Int(2), State::None),
        ]);
        let b = State::Dict(vec![
            (State::Float(2.0), State::None),
            (State::str("x"), State::Float(1.0)),
        ]);
        assert!(python_eq(&a, &b));
    }

    #[test]
    fn ints_beyond_i128_keep_their_digits_and_compare_exactly() {
        let big = State::from(&PyValue::Int(
            "10000000000000000000000000000000000000000".into(),
        ));
        assert_eq!(
            canonical_exact(&big),
            "10000000000000000000000000000000000000000"
        );
        // 1e40 as a float is 10000000000000000303786028427003666890752.
        assert!(!python_eq(&big, &State::Float(1e40)));
        let exact = State::from(&PyValue::Int(
            "10000000000000000303786028427003666890752".into(),
        ));
        assert!(python_eq(&exact, &State::Float(1e40)));
        assert!(python_eq(&big, &big.clone()));
    }

    #[test]
    fn objects_compare_only_what_their_eq_compares() {
        let file = |content: &str, stamp: &str| State::Object {
            class: "File",
            attrs: vec![
                ("name", State::str("a.txt")),
                ("content", State::str(content)),
                ("stamp", State::str(stamp)),
            ],
            compared: &["name", "content"],
        };
        assert!(python_eq(&file("x", "1"), &file("x", "2")));
        assert!(!python_eq(&file("x", "1"), &file("y", "1")));
    }

    #[test]
    fn differences_name_the_attributes_that_differ() {
        let model = [("a", State::Int(1)), ("b", State::str("x"))];
        let truth = [("a", State::Float(1.0)), ("b", State::str("y"))];
        assert_eq!(differences(&model, &truth), vec!["b"]);
    }
}
