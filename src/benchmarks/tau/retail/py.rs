//! What the official tools do with an argument of any JSON type, since
//! nothing checks the types before the call: the Python operations they
//! apply (`in` a dict, `.lower()`, `len()`, iteration, `.count()`, an
//! f-string) with CPython's results and error texts.

use std::collections::HashMap;

use num_bigint::BigInt;

use crate::benchmarks::bfcl::multi_turn::apis::py_num::{self, round_float};
use crate::benchmarks::python::{PyStr, PyValue, py_str};

/// A tool's failure: the `str()` of the exception it raised.
pub type PyResult<T> = Result<T, String>;

/// `key in some_dict_with_str_keys`, as the key it looks up: the string
/// itself, `None` when no `str` key can equal it (another hashable type,
/// or a string with lone surrogates, which no key of the data holds), or
/// `TypeError: unhashable type` for a list or dict.
pub fn dict_key(value: &PyValue) -> PyResult<Option<String>> {
    match value {
        PyValue::Str(s) if s.first_surrogate().is_none() => Ok(Some(s.to_string_lossy())),
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Err(format!("unhashable type: '{}'", value.type_name()))
        }
        _ => Ok(None),
    }
}

/// `value.lower()`: Unicode lowercasing of a `str`, an `AttributeError`
/// for anything else.
pub fn lower(value: &PyValue) -> PyResult<PyStr> {
    match value {
        PyValue::Str(s) => Ok(lower_str(s)),
        other => Err(format!(
            "'{}' object has no attribute 'lower'",
            other.type_name()
        )),
    }
}

/// `str.lower()` on a Python string (lone surrogates stay as they are).
pub fn lower_str(s: &PyStr) -> PyStr {
    if s.first_surrogate().is_none() {
        return PyStr::new(&s.to_string_lossy().to_lowercase());
    }
    let mut out = Vec::with_capacity(s.0.len());
    for &c in &s.0 {
        match char::from_u32(c) {
            Some(ch) => out.extend(ch.to_lowercase().map(u32::from)),
            None => out.push(c),
        }
    }
    PyStr(out)
}

/// `len(value)`.
pub fn len(value: &PyValue) -> PyResult<usize> {
    match value {
        PyValue::Str(s) => Ok(s.len()),
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => Ok(items.len()),
        PyValue::Dict(entries) => Ok(entries.len()),
        other => Err(format!(
            "object of type '{}' has no len()",
            other.type_name()
        )),
    }
}

/// `list(value)`: what a `for` loop over it visits (a string's
/// characters, a dict's keys), or the `TypeError`.
pub fn iterate(value: &PyValue) -> PyResult<Vec<PyValue>> {
    py_num::iterate(value).map_err(String::from)
}

/// `str(value)`, as an f-string writes it.
pub fn to_str(value: &PyValue) -> String {
    PyStr(py_str(value)).to_string_lossy()
}

/// The check the item tools share:
///
/// ```python
/// for item_id in item_ids:
///     if item_ids.count(item_id) > all_item_ids.count(item_id):
///         raise ValueError(...)
/// ```
///
/// in linear time: the first `item_id` of the loop that fails, if any.
/// `all_item_ids` are strings, so a non-string element fails at once
/// (`list.count` finds at least the element itself); a string element
/// counts its equals. A string `item_ids` is iterated by character and
/// counted with `str.count`; a dict has no `count` method.
pub fn first_missing(item_ids: &PyValue, all_item_ids: &[String]) -> PyResult<Option<PyValue>> {
    let mut available: HashMap<Vec<u32>, usize> = HashMap::new();
    for id in all_item_ids {
        *available.entry(PyStr::new(id).0).or_default() += 1;
    }
    let have = |s: &PyStr| available.get(&s.0).copied().unwrap_or(0);
    match item_ids {
        PyValue::List(items) => {
            let mut wanted: HashMap<&[u32], usize> = HashMap::new();
            for item in items {
                if let PyValue::Str(s) = item {
                    *wanted.entry(&s.0).or_default() += 1;
                }
            }
            for item in items {
                match item {
                    PyValue::Str(s) if wanted[s.0.as_slice()] <= have(s) => {}
                    _ => return Ok(Some(item.clone())),
                }
            }
            Ok(None)
        }
        PyValue::Str(s) => {
            let mut wanted: HashMap<u32, usize> = HashMap::new();
            for &c in &s.0 {
                *wanted.entry(c).or_default() += 1;
            }
            for &c in &s.0 {
                let one = PyStr(vec![c]);
                if wanted[&c] > have(&one) {
                    return Ok(Some(PyValue::Str(one)));
                }
            }
            Ok(None)
        }
        PyValue::Dict(entries) if entries.is_empty() => Ok(None),
        PyValue::Dict(_) => Err("'dict' object has no attribute 'count'".into()),
        other => Err(format!("'{}' object is not iterable", other.type_name())),
    }
}

/// `sorted(values)` of the strings an item check let through.
pub fn sorted_strings(values: &[PyValue]) -> PyResult<Vec<String>> {
    let mut out = Vec::with_capacity(values.len());
    for value in values {
        match value {
            PyValue::Str(s) => out.push(s.to_string_lossy()),
            other => {
                return Err(format!(
                    "'<' not supported between instances of '{}' and 'str'",
                    other.type_name()
                ));
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Python's `round(x, 2)` on a float: the nearest value with two decimals
/// of the float's exact binary value, ties to even (`0.125` gives `0.12`,
/// `2.675`, stored just below, gives `2.67`).
pub fn round2(x: f64) -> f64 {
    // Two digits cannot overflow, the one failure `round_float` reports.
    round_float(x, &BigInt::from(2u8)).unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::json_loads_str;

    fn v(json: &str) -> PyValue {
        json_loads_str(json).unwrap()
    }

    #[test]
    fn round2_is_pythons_round_to_two_digits() {
        for (x, want) in [
            (2.675, 2.67),
            (0.125, 0.12),
            (0.375, 0.38),
            (1.005, 1.0),
            (99.995, 100.0),
            (1234.515, 1234.52),
            (8.739999999999995, 8.74),
        ] {
            assert_eq!(round2(x), want, "{x}");
        }
        assert!(round2(-0.001).is_sign_negative());
        assert_eq!(round2(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn item_checks_fail_where_pythons_loop_does() {
        let all = vec!["1".to_string(), "22".into(), "22".into()];
        assert_eq!(first_missing(&v(r#"["22", "22", "1"]"#), &all), Ok(None));
        assert_eq!(
            first_missing(&v(r#"["22", "1", "1"]"#), &all),
            Ok(Some(v(r#""1""#)))
        );
        assert_eq!(first_missing(&v(r#"["22", 5]"#), &all), Ok(Some(v("5"))));
        assert_eq!(first_missing(&v(r#""221""#), &all), Ok(Some(v(r#""2""#))));
        assert_eq!(first_missing(&v(r#""1""#), &all), Ok(None));
        assert_eq!(first_missing(&v("{}"), &all), Ok(None));
        assert_eq!(
            first_missing(&v(r#"{"a": 1}"#), &all).unwrap_err(),
            "'dict' object has no attribute 'count'"
        );
        assert_eq!(
            first_missing(&v("null"), &all).unwrap_err(),
            "'NoneType' object is not iterable"
        );
    }

    #[test]
    fn python_operations_raise_cpythons_errors() {
        assert_eq!(dict_key(&v("[1]")).unwrap_err(), "unhashable type: 'list'");
        assert_eq!(dict_key(&v("3.5")), Ok(None));
        assert_eq!(
            lower(&v("true")).unwrap_err(),
            "'bool' object has no attribute 'lower'"
        );
        assert_eq!(lower(&v(r#""ÀB""#)).unwrap(), PyStr::new("àb"));
        assert_eq!(
            len(&v("7")).unwrap_err(),
            "object of type 'int' has no len()"
        );
        assert_eq!(len(&v(r#""日本""#)), Ok(2));
        assert_eq!(to_str(&v(r#"{"k": [1.0, null]}"#)), "{'k': [1.0, None]}");
    }
}
