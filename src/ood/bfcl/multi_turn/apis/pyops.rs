//! The few Python operations the ported API classes perform on values a
//! model or a question wrote (any type): truth value (the decoder's
//! `truthy`), `in` on dicts and lists (with `unhashable type` for a dict
//! key), comparisons and `+`/`-` on numbers, `float()`/`int()`,
//! `'{:.2f}'`, iteration and substring search. Each returns Python's
//! value, or the `str()` of the exception CPython 3.11 raises for the same
//! operation.
//!
//! Bounds (where itc differs from Python): integer `+`/`-` results beyond
//! 128 bits are refused with a text of itc's own ([`INT_TOO_LARGE`]);
//! Python's integers are unbounded. Comparisons are exact for every
//! integer size.

use std::cmp::Ordering;

pub(crate) use crate::ood::bfcl::arith::truthy;
use crate::ood::python::value::find;
use crate::ood::python::{PyStr, PyValue, py_str};

/// The error text when an integer sum or difference leaves 128 bits
/// (Python would compute it; itc refuses).
pub const INT_TOO_LARGE: &str = "itc: integer arithmetic beyond 128 bits is not supported";

/// `hash(v)` succeeds, or `unhashable type: 'list'` (a tuple names the
/// first unhashable item's type, as CPython does).
pub fn check_hashable(v: &PyValue) -> Result<(), String> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Err(format!("unhashable type: '{}'", v.type_name()))
        }
        PyValue::Tuple(items) => items.iter().try_for_each(check_hashable),
        _ => Ok(()),
    }
}

/// The position of `key` in a dict's entries (`key in d`), by hash then
/// `==`; `unhashable type` for a list, dict or set key.
pub fn dict_position(
    entries: &[(PyValue, PyValue)],
    key: &PyValue,
) -> Result<Option<usize>, String> {
    check_hashable(key)?;
    Ok(entries.iter().position(|(k, _)| same_key(k, key)))
}

/// `key in container` for a dict-like state value; a non-dict container
/// has no keys here (its text of error is the caller's).
pub fn dict_get<'a>(container: &'a PyValue, key: &PyValue) -> Result<Option<&'a PyValue>, String> {
    match container {
        PyValue::Dict(entries) => Ok(dict_position(entries, key)?.map(|i| &entries[i].1)),
        other => {
            check_hashable(key)?;
            Err(no_attribute(other, "get"))
        }
    }
}

/// `d[key] = value`: an existing key keeps its place.
pub fn dict_set(
    entries: &mut Vec<(PyValue, PyValue)>,
    key: PyValue,
    value: PyValue,
) -> Result<(), String> {
    match dict_position(entries, &key)? {
        Some(i) => entries[i].1 = value,
        None => entries.push((key, value)),
    }
    Ok(())
}

/// Python's `==` as `in` and `list.remove` apply it (a value is equal to
/// itself, so a NaN in a list is found by the very same object; itc
/// compares by value, where NaN never equals).
fn same_key(a: &PyValue, b: &PyValue) -> bool {
    crate::ood::python::value::py_eq(a, b)
}

/// `v == "text"`.
pub fn same_text(v: &PyValue, text: &str) -> bool {
    matches!(v, PyValue::Str(s) if s.0.iter().copied().eq(text.chars().map(u32::from)))
}

/// `item in items` for a list: the first position of an equal item.
pub fn list_position(items: &[PyValue], item: &PyValue) -> Option<usize> {
    items.iter().position(|x| same_key(x, item))
}

/// `'<type>' object has no attribute '<name>'` (AttributeError).
pub fn no_attribute(v: &PyValue, name: &str) -> String {
    format!("'{}' object has no attribute '{name}'", v.type_name())
}

/// `str(KeyError(key))`: the key's `repr()`.
pub fn key_error(key: &str) -> String {
    format!("'{key}'")
}

/// `value[key]` for a string key: a dict's value, else Python's error.
pub fn get_item<'a>(value: &'a PyValue, key: &str) -> Result<&'a PyValue, String> {
    match value {
        PyValue::Dict(entries) => entries
            .iter()
            .find(|(k, _)| matches!(k, PyValue::Str(s) if s.0.iter().copied().eq(key.chars().map(u32::from))))
            .map(|(_, v)| v)
            .ok_or_else(|| key_error(key)),
        PyValue::Str(_) => Err("string indices must be integers, not 'str'".into()),
        PyValue::List(_) => Err("list indices must be integers or slices, not str".into()),
        PyValue::Tuple(_) => Err("tuple indices must be integers or slices, not str".into()),
        PyValue::Bytes(_) => Err("byte indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object is not subscriptable", other.type_name())),
    }
}

/// The mutable entries of a dict state value for `value[key] = ...`, or
/// Python's error for another type.
pub fn dict_entries_mut(value: &mut PyValue) -> Result<&mut Vec<(PyValue, PyValue)>, String> {
    match value {
        PyValue::Dict(entries) => Ok(entries),
        other => Err(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        )),
    }
}

/// The items `for x in v` visits: a list's, tuple's or set's items (a set
/// in the order it was written: Python's order depends on hashes), a dict's
/// keys, a string's characters, a bytes' integers; else `'int' object is
/// not iterable`.
pub fn iterate(v: &PyValue) -> Result<Vec<PyValue>, String> {
    match v {
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => Ok(items.clone()),
        PyValue::Dict(entries) => Ok(entries.iter().map(|(k, _)| k.clone()).collect()),
        PyValue::Str(s) => Ok(s.0.iter().map(|&c| PyValue::Str(PyStr(vec![c]))).collect()),
        PyValue::Bytes(b) => Ok(b.iter().map(|&x| PyValue::Int(x.to_string())).collect()),
        other => Err(format!("'{}' object is not iterable", other.type_name())),
    }
}

/// A Python number: `bool` and `int` as their decimal text, or a `float`.
#[derive(Debug, Clone)]
enum Number {
    Int(String),
    Float(f64),
}

fn number(v: &PyValue) -> Option<Number> {
    match v {
        PyValue::Bool(b) => Some(Number::Int(u8::from(*b).to_string())),
        PyValue::Int(t) => Some(Number::Int(t.clone())),
        PyValue::Float(x) => Some(Number::Float(*x)),
        _ => None,
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    fn symbol(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    fn holds(self, order: Ordering) -> bool {
        match self {
            Cmp::Le => order != Ordering::Greater,
            Cmp::Gt => order == Ordering::Greater,
            Cmp::Ge => order != Ordering::Less,
        }
    }
}

/// `a <op> b` for numbers (exact across `int` and `float`, false with a
/// NaN), else `'<=' not supported between instances of 'str' and 'int'`.
pub fn compare(a: &PyValue, op: Cmp, b: &PyValue) -> Result<bool, String> {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => Ok(number_order(&x, &y).is_some_and(|o| op.holds(o))),
        _ => Err(format!(
            "'{}' not supported between instances of '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        )),
    }
}

fn number_order(a: &Number, b: &Number) -> Option<Ordering> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => Some(int_order(x, y)),
        (Number::Float(x), Number::Float(y)) => x.partial_cmp(y),
        (Number::Int(i), Number::Float(f)) => int_float_order(i, *f),
        (Number::Float(f), Number::Int(i)) => int_float_order(i, *f).map(Ordering::reverse),
    }
}

/// The order of two normalised decimal integer texts.
fn int_order(a: &str, b: &str) -> Ordering {
    let (na, da) = a.strip_prefix('-').map_or((false, a), |d| (true, d));
    let (nb, db) = b.strip_prefix('-').map_or((false, b), |d| (true, d));
    let magnitude = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
    match (na, nb) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

/// An `int` against a `float`, exactly (as Python compares them).
fn int_float_order(i: &str, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let floor = f.floor();
    // Rust writes an integral float's exact digits.
    let floor_text = format!("{floor:.0}");
    let floor_text = if floor_text == "-0" {
        "0".to_string()
    } else {
        floor_text
    };
    match int_order(i, &floor_text) {
        Ordering::Equal if floor < f => Some(Ordering::Less),
        order => Some(order),
    }
}

/// `float(v)` of an `int` text: `int too large to convert to float` past
/// the largest float (Rust's parse rounds to nearest-even as Python does).
fn int_to_float(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().unwrap_or(f64::INFINITY);
    if x.is_finite() {
        Ok(x)
    } else {
        Err("int too large to convert to float".into())
    }
}

/// `float(v)` for a number (`bool`, `int`, `float`); `None` for another
/// type (whose text of error depends on the call).
pub fn to_float(v: &PyValue) -> Option<Result<f64, String>> {
    match number(v)? {
        Number::Int(t) => Some(int_to_float(&t)),
        Number::Float(x) => Some(Ok(x)),
    }
}

/// `float(x) * int(y)` for numbers `x`, `y`, with Python's errors in
/// Python's order.
pub fn float_times_int(x: &PyValue, y: &PyValue) -> Result<f64, String> {
    let left = to_float(x).unwrap_or_else(|| {
        Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            x.type_name()
        ))
    })?;
    let right = match number(y) {
        Some(Number::Float(f)) if f.is_nan() => {
            return Err("cannot convert float NaN to integer".into());
        }
        Some(Number::Float(f)) if f.is_infinite() => {
            return Err("cannot convert float infinity to integer".into());
        }
        // An integral float converts back exactly.
        Some(Number::Float(f)) => f.trunc(),
        Some(Number::Int(t)) => int_to_float(&t)?,
        None => {
            return Err(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                y.type_name()
            ));
        }
    };
    Ok(left * right)
}

/// `a + b` (`minus`: `a - b`) as the augmented assignment `a += b` /
/// `a -= b`: numbers by Python's rules (`int` if both are `bool`/`int`,
/// else `float`), else the `TypeError` text.
pub fn add(a: &PyValue, b: &PyValue, minus: bool) -> Result<PyValue, String> {
    let op = if minus { "-=" } else { "+=" };
    let unsupported = || {
        if !minus && let PyValue::Str(_) | PyValue::List(_) = a {
            return format!(
                "can only concatenate {} (not \"{}\") to {}",
                a.type_name(),
                b.type_name(),
                a.type_name()
            );
        }
        format!(
            "unsupported operand type(s) for {op}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )
    };
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        return Err(unsupported());
    };
    match (x, y) {
        (Number::Int(x), Number::Int(y)) => {
            let (x, y) = (x.parse::<i128>(), y.parse::<i128>());
            let (Ok(x), Ok(y)) = (x, y) else {
                return Err(INT_TOO_LARGE.into());
            };
            let sum = if minus {
                x.checked_sub(y)
            } else {
                x.checked_add(y)
            };
            sum.map(|s| PyValue::Int(s.to_string()))
                .ok_or_else(|| INT_TOO_LARGE.into())
        }
        (x, y) => {
            let as_float = |n: Number| match n {
                Number::Int(t) => int_to_float(&t),
                Number::Float(f) => Ok(f),
            };
            let (x, y) = (as_float(x)?, as_float(y)?);
            Ok(PyValue::Float(if minus { x - y } else { x + y }))
        }
    }
}

/// `abs(v)` for a number, else `bad operand type for abs(): 'str'`.
pub fn abs(v: &PyValue) -> Result<PyValue, String> {
    match number(v) {
        Some(Number::Float(x)) => Ok(PyValue::Float(x.abs())),
        Some(Number::Int(t)) => Ok(PyValue::Int(t.trim_start_matches('-').to_string())),
        None => Err(format!("bad operand type for abs(): '{}'", v.type_name())),
    }
}

/// `format(x, '.2f')`: the exact binary value rounded to two decimals,
/// ties to even, as Rust's `{:.2}` rounds too; `inf`, `-inf`, `nan`.
pub fn fixed2(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else {
        format!("{x:.2}")
    }
}

/// `format(v, '.2f')` for a number, else Python's `ValueError` text.
pub fn format_fixed2(v: &PyValue) -> Result<String, String> {
    match to_float(v) {
        Some(x) => Ok(fixed2(x?)),
        None => Err(format!(
            "Unknown format code 'f' for object of type '{}'",
            v.type_name()
        )),
    }
}

/// `haystack in needle`-style substring test in linear time
/// (Knuth–Morris–Pratt), whatever the two lengths.
pub fn contains(haystack: &[u32], needle: &[u32]) -> bool {
    if needle.len() <= 1 || haystack.len() < needle.len() {
        return find(haystack, needle, 0).is_some();
    }
    let mut fail = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = fail[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let mut k = 0;
    for &c in haystack {
        while k > 0 && c != needle[k] {
            k = fail[k - 1];
        }
        if c == needle[k] {
            k += 1;
            if k == needle.len() {
                return true;
            }
        }
    }
    false
}

/// A Python `str` built from pieces, as an f-string builds one.
#[derive(Debug, Default)]
pub struct Text(Vec<u32>);

impl Text {
    /// An empty text.
    pub fn new() -> Text {
        Text::default()
    }

    /// Appends literal text.
    pub fn s(mut self, text: &str) -> Text {
        self.0.extend(text.chars().map(u32::from));
        self
    }

    /// Appends `str(v)`.
    pub fn v(mut self, v: &PyValue) -> Text {
        self.0.extend(py_str(v));
        self
    }

    /// The `str` value.
    pub fn value(self) -> PyValue {
        PyValue::Str(PyStr(self.0))
    }
}

/// A `str` value.
pub fn s(text: &str) -> PyValue {
    PyValue::Str(PyStr::new(text))
}

/// An `int` value.
pub fn int(i: i128) -> PyValue {
    PyValue::Int(i.to_string())
}

/// A dict with string keys, in the given order.
pub fn dict(entries: Vec<(&str, PyValue)>) -> PyValue {
    PyValue::Dict(entries.into_iter().map(|(k, v)| (s(k), v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ood::python::literal_eval;

    fn lit(text: &str) -> PyValue {
        literal_eval(text).unwrap()
    }

    #[test]
    fn comparisons_are_exact_across_int_and_float() {
        let c = |a: &str, op, b: &str| compare(&lit(a), op, &lit(b)).unwrap();
        assert!(c("9007199254740993", Cmp::Gt, "9007199254740992.0"));
        assert!(!c("9007199254740993", Cmp::Le, "9007199254740992.0"));
        assert!(!c("-1", Cmp::Ge, "-0.5"));
        assert!(c("0", Cmp::Le, "0.0"));
        assert!(c("True", Cmp::Gt, "0"));
        assert!(!c(&"9".repeat(400), Cmp::Ge, "1e400"));
        assert!(c(&"9".repeat(400), Cmp::Gt, "1e300"));
        assert!(!compare(&lit("1"), Cmp::Le, &PyValue::Float(f64::NAN)).unwrap());
        assert_eq!(
            compare(&lit("'5'"), Cmp::Le, &lit("0")).unwrap_err(),
            "'<=' not supported between instances of 'str' and 'int'"
        );
    }

    #[test]
    fn sums_follow_pythons_types_and_errors() {
        assert_eq!(add(&lit("1"), &lit("True"), false).unwrap(), lit("2"));
        assert_eq!(
            add(&lit("10000.0"), &lit("5000"), false).unwrap(),
            lit("15000.0")
        );
        assert_eq!(
            add(&lit("0.1"), &lit("0.2"), false).unwrap(),
            PyValue::Float(0.1 + 0.2)
        );
        assert_eq!(
            add(&lit("1.0"), &lit("'a'"), true).unwrap_err(),
            "unsupported operand type(s) for -=: 'float' and 'str'"
        );
        assert_eq!(
            add(&lit("'a'"), &lit("1"), false).unwrap_err(),
            "can only concatenate str (not \"int\") to str"
        );
        assert_eq!(
            add(&lit("1.0"), &lit(&"9".repeat(400)), false).unwrap_err(),
            "int too large to convert to float"
        );
        let big = i128::MAX.to_string();
        assert_eq!(
            add(&lit(&big), &lit("1"), false).unwrap_err(),
            INT_TOO_LARGE
        );
    }

    #[test]
    fn two_decimals_round_the_exact_value_half_to_even() {
        assert_eq!(fixed2(0.125), "0.12");
        assert_eq!(fixed2(2.675), "2.67");
        assert_eq!(fixed2(f64::INFINITY), "inf");
        assert_eq!(fixed2(f64::NAN), "nan");
        assert_eq!(format_fixed2(&lit("True")).unwrap(), "1.00");
    }

    #[test]
    fn substring_search_is_linear_and_right() {
        let a = |t: &str| t.chars().map(u32::from).collect::<Vec<_>>();
        assert!(contains(&a("abababc"), &a("ababc")));
        assert!(!contains(&a("abababd"), &a("ababc")));
        assert!(contains(&a("x"), &a("")));
        let hay = vec![u32::from('a'); 200_000];
        let mut needle = vec![u32::from('a'); 100_000];
        needle.push(u32::from('b'));
        assert!(!contains(&hay, &needle));
    }

    #[test]
    fn unhashable_keys_and_bad_subscripts_read_as_python() {
        let d = lit("{'a': 1}");
        assert_eq!(
            dict_get(&d, &lit("(1, [2])")).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert_eq!(dict_get(&d, &lit("'a'")).unwrap(), Some(&lit("1")));
        assert_eq!(get_item(&d, "b").unwrap_err(), "'b'");
        assert_eq!(
            get_item(&lit("'Buy'"), "status").unwrap_err(),
            "string indices must be integers, not 'str'"
        );
        assert_eq!(
            iterate(&lit("5")).unwrap_err(),
            "'int' object is not iterable"
        );
        assert_eq!(iterate(&lit("'ab'")).unwrap(), vec![lit("'a'"), lit("'b'")]);
    }
}
