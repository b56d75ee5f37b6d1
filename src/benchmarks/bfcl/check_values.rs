//! The official checker's value rules: string normalisation (with Python's
//! Unicode `str.lower()`), and the string, list, dict and list-of-dict
//! comparisons that run after the type check passed outside variable mode.
//!
//! Inputs the official code would raise on (an allowed value that is not a
//! list where a list is indexed, a dict alternative that is not a dict) are
//! handled here as "matches nothing"; [`super::check::validate_entry`]
//! rejects the data shapes that reach them before scoring.

use serde_json::Value;

use super::verdict::{ErrorType, Fail};
use crate::benchmarks::python::value::{KeyIndex, py_eq};
use crate::benchmarks::python::{PyStr, PyValue, py_repr, py_str};

/// Code points the normalisation removes: space, `,` `.` `/` `-` `_` `*` `^`.
const REMOVED: [u32; 8] = [0x20, 0x2c, 0x2e, 0x2f, 0x2d, 0x5f, 0x2a, 0x5e];

/// Python's `str.lower()` on code points: full Unicode case mapping with
/// the final-sigma rule, as Rust's `str::to_lowercase` does; lone
/// surrogates are kept and, being neither cased nor case-ignorable, bound
/// the final-sigma context exactly as a string edge does. (Unicode tables
/// are Rust's, which may be newer than the Python's Unicode version for
/// recently added characters.)
pub fn py_lower(text: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(text.len());
    if text.iter().all(|&c| c < 0x80) {
        out.extend(text.iter().map(|&c| {
            if (0x41..=0x5a).contains(&c) {
                c + 0x20
            } else {
                c
            }
        }));
        return out;
    }
    let mut run = String::new();
    for &c in text {
        match char::from_u32(c) {
            Some(ch) => run.push(ch),
            None => {
                out.extend(run.to_lowercase().chars().map(u32::from));
                run.clear();
                out.push(c);
            }
        }
    }
    out.extend(run.to_lowercase().chars().map(u32::from));
    out
}

/// The official `standardize_string`: remove U+0020 and `,./-_*^`, then
/// Python `lower()`, then `'` → `"`.
pub fn standardize(text: &[u32]) -> Vec<u32> {
    let kept: Vec<u32> = text
        .iter()
        .copied()
        .filter(|c| !REMOVED.contains(c))
        .collect();
    let mut out = py_lower(&kept);
    for c in &mut out {
        if *c == 0x27 {
            *c = 0x22;
        }
    }
    out
}

/// A string value standardised; any other value unchanged.
fn standardize_value(v: &PyValue) -> PyValue {
    match v {
        PyValue::Str(s) => PyValue::Str(PyStr(standardize(&s.0))),
        other => other.clone(),
    }
}

/// `repr(x)` as a Rust string.
pub(crate) fn repr(v: &PyValue) -> String {
    PyStr(py_repr(v)).to_string_lossy()
}

/// `str(x)` as a Rust string.
pub(crate) fn pystr(v: &PyValue) -> String {
    PyStr(py_str(v)).to_string_lossy()
}

/// `str(list)` (= `repr(list)`) of a slice, without copying it.
pub(crate) fn list_str(items: &[PyValue]) -> String {
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&repr(item));
    }
    out.push(']');
    out
}

/// A failure with one message.
fn fail(kind: ErrorType, message: String) -> Fail {
    Fail {
        kind,
        errors: vec![Value::String(message)],
    }
}

/// Whether `""` is among the allowed values (`"" in allowed`).
pub(crate) fn allows_empty(allowed: &[PyValue]) -> bool {
    allowed.iter().any(is_empty_str)
}

/// Whether a value equals `""`.
pub(crate) fn is_empty_str(v: &PyValue) -> bool {
    matches!(v, PyValue::Str(s) if s.is_empty())
}

/// The items Python sees when it indexes `x[0..len(x)]`: a list's or
/// tuple's items, a string's characters as one-character strings, nothing
/// for an empty dict (`None` where Python raises: a non-empty dict, a
/// number, `None`).
fn indexed_items(v: &PyValue) -> Option<Vec<PyValue>> {
    match v {
        PyValue::Dict(entries) if entries.is_empty() => Some(Vec::new()),
        PyValue::List(items) | PyValue::Tuple(items) => Some(items.clone()),
        PyValue::Str(s) => Some(s.0.iter().map(|&c| PyValue::Str(PyStr(vec![c]))).collect()),
        _ => None,
    }
}

/// The official `string_checker`: the standardised value must be among the
/// standardised string alternatives.
pub fn check_string(param: &PyValue, value: &PyStr, allowed: &[PyValue]) -> Result<(), Fail> {
    let wanted = standardize(&value.0);
    let found = allowed
        .iter()
        .any(|a| matches!(a, PyValue::Str(s) if standardize(&s.0) == wanted));
    if found {
        return Ok(());
    }
    Err(fail(
        ErrorType::ValueString,
        format!(
            "Invalid value for parameter {}: {}. Expected one of {}. Case insensitive.",
            repr(param),
            repr(&PyValue::Str(value.clone())),
            list_str(allowed)
        ),
    ))
}

/// The official `list_checker`: top-level string items standardised on
/// both sides, then list equality with one alternative (`""` acts as `[]`,
/// a non-empty string as the list of its characters).
pub fn check_list(param: &PyValue, items: &[PyValue], allowed: &[PyValue]) -> Result<(), Fail> {
    let model: Vec<PyValue> = items.iter().map(standardize_value).collect();
    let found = allowed.iter().any(|alt| {
        indexed_items(alt).is_some_and(|alt_items| {
            alt_items.len() == model.len()
                && alt_items
                    .iter()
                    .zip(&model)
                    .all(|(a, m)| py_eq(&standardize_value(a), m))
        })
    });
    if found {
        return Ok(());
    }
    Err(fail(
        ErrorType::ValueListTuple,
        format!(
            "Invalid value for parameter {}: {}. Expected one of {}.",
            repr(param),
            list_str(items),
            list_str(allowed)
        ),
    ))
}

/// The official `dict_checker`: the value must match one alternative other
/// than `""`; the error of the last alternative tried is reported, and
/// `dict_checker:unclear` with no message when none was tried.
pub fn check_dict(value: &PyValue, allowed: &[PyValue]) -> Result<(), Fail> {
    let mut result = Err(Fail {
        kind: ErrorType::DictUnclear,
        errors: Vec::new(),
    });
    for alt in allowed {
        if is_empty_str(alt) {
            continue;
        }
        result = check_dict_alternative(value, alt);
        if result.is_ok() {
            return Ok(());
        }
    }
    result
}

/// One dict alternative: unexpected keys and wrong values (first one
/// stops that loop), then missing keys; the last problem found names the
/// error type, and all messages are kept.
fn check_dict_alternative(value: &PyValue, alt: &PyValue) -> Result<(), Fail> {
    let no_entries = Vec::new();
    let model = match value {
        PyValue::Dict(entries) => entries,
        _ => &no_entries,
    };
    let alt_entries = match alt {
        PyValue::Dict(entries) => entries,
        _ => &no_entries,
    };
    let alt_keys = KeyIndex::over(alt_entries.iter().map(|(k, _)| k));
    let mut errors = Vec::new();
    let mut kind = None;
    for (key, v) in model {
        let found = alt_keys.find(key, |i| &alt_entries[i].0);
        let Some(key_allowed) = found.map(|i| &alt_entries[i].1) else {
            errors.push(Value::String(format!(
                "Unexpected dict key parameter: '{}'.",
                pystr(key)
            )));
            kind = Some(ErrorType::ValueDictKey);
            break;
        };
        let wanted = standardize_value(v);
        let std_allowed: Vec<PyValue> = indexed_items(key_allowed)
            .unwrap_or_default()
            .iter()
            .map(standardize_value)
            .collect();
        if !std_allowed.iter().any(|a| py_eq(a, &wanted)) {
            errors.push(Value::String(format!(
                "Invalid value for parameter {}: {}. Expected one of {}.",
                repr(key),
                repr(v),
                pystr(&PyValue::List(std_allowed))
            )));
            kind = Some(ErrorType::ValueDictValue);
            break;
        }
    }
    let model_keys = KeyIndex::over(model.iter().map(|(k, _)| k));
    for (key, key_allowed) in alt_entries {
        let present = model_keys.find(key, |i| &model[i].0).is_some();
        let optional = match key_allowed {
            PyValue::List(items) => allows_empty(items),
            // `"" in "text"` is a substring test: always true.
            PyValue::Str(_) => true,
            PyValue::Dict(_) => key_allowed.get(&PyValue::Str(PyStr::default())).is_some(),
            _ => false,
        };
        if !present && !optional {
            errors.push(Value::String(format!(
                "Missing dict key parameter: '{}'.",
                pystr(key)
            )));
            kind = Some(ErrorType::ValueDictKey);
            break;
        }
    }
    match kind {
        None => Ok(()),
        Some(kind) => Err(Fail { kind, errors }),
    }
}

/// The official `list_dict_checker`: for each alternative, the same
/// length (else `value_error:list_dict_count`) and each dict checked
/// against the one at the same position; the last alternative's error is
/// reported (`list_dict_checker:unclear` when there is none).
pub fn check_list_of_dicts(items: &[PyValue], allowed: &[PyValue]) -> Result<(), Fail> {
    let mut result = Err(Fail {
        kind: ErrorType::ListDictUnclear,
        errors: Vec::new(),
    });
    for alt in allowed {
        // `len(alt)` first: a dict's length is its number of keys.
        let alt_len = match alt {
            PyValue::Dict(entries) => Some(entries.len()),
            other => indexed_items(other).map(|i| i.len()),
        };
        if alt_len != Some(items.len()) {
            result = Err(fail(
                ErrorType::ValueListDictCount,
                "Wrong number of dictionaries in the list.".into(),
            ));
            continue;
        }
        // Indexing a non-empty dict by position raises in Python: no match.
        let Some(alt_items) = indexed_items(alt) else {
            continue;
        };
        let mut all_ok = true;
        for (item, alt_item) in items.iter().zip(&alt_items) {
            result = check_dict(item, std::slice::from_ref(alt_item));
            if result.is_err() {
                all_ok = false;
                break;
            }
        }
        if all_ok {
            return Ok(());
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::cps;

    fn low(s: &str) -> String {
        PyStr(py_lower(&cps(s))).to_string_lossy()
    }

    #[test]
    fn python_lower_special_cases() {
        // Python: 'ß'.lower() == 'ß'; 'İ'.lower() == 'i̇' (two code points);
        // 'ΟΔΟΣ'.lower() == 'οδος' with a final sigma; a lone 'Σ' is 'σ'.
        assert_eq!(low("STRAßE"), "straße");
        assert_eq!(low("İ"), "i\u{307}");
        assert_eq!(low("ΟΔΟΣ"), "οδος");
        assert_eq!(low("ΟΔΟΣ ΑΒ"), "οδος αβ");
        assert_eq!(low("Σ"), "σ");
        assert_eq!(low("ΑΣ\u{1}"), "ας\u{1}");
        assert_eq!(low("ABC"), "abc");
        // A lone surrogate is kept and ends the final-sigma context.
        let mut text = cps("ΑΣ");
        text.push(0xd800);
        assert_eq!(py_lower(&text), vec![0x3b1, 0x3c2, 0xd800]);
    }

    #[test]
    fn standardize_removes_only_the_listed_punctuation() {
        let s = |t: &str| PyStr(standardize(&cps(t))).to_string_lossy();
        assert_eq!(s("New York, NY"), "newyorkny");
        assert_eq!(s("NEW-YORK_NY."), "newyorkny");
        assert_eq!(s("a/b*c^d"), "abcd");
        assert_eq!(s("O'Hare"), "o\"hare");
        assert_eq!(s("a\tb\u{a0}c;"), "a\tb\u{a0}c;");
        assert_eq!(s(" - "), "");
    }

    #[test]
    fn wide_dicts_are_checked_in_linear_time() {
        // 30,000 keys on both sides: each key is looked up, not scanned for
        // (scanning took minutes in a debug build).
        let n = 30_000;
        let key = |i: usize| PyValue::Str(PyStr::new(&format!("k{i}")));
        let value = PyValue::Dict(
            (0..n)
                .map(|i| (key(i), PyValue::Int(i.to_string())))
                .collect(),
        );
        let alt = |last: &str| {
            PyValue::Dict(
                (0..n)
                    .rev()
                    .map(|i| {
                        let v = if i == n - 1 {
                            last.to_string()
                        } else {
                            i.to_string()
                        };
                        (key(i), PyValue::List(vec![PyValue::Int(v)]))
                    })
                    .collect(),
            )
        };
        assert!(check_dict(&value, &[alt(&(n - 1).to_string())]).is_ok());
        let e = check_dict(&value, &[alt("0")]).unwrap_err();
        assert_eq!(e.kind, ErrorType::ValueDictValue);
        let mut missing = alt(&(n - 1).to_string());
        if let PyValue::Dict(entries) = &mut missing {
            entries.push((key(n), PyValue::List(vec![PyValue::Int("0".into())])));
        }
        let e = check_dict(&value, &[missing]).unwrap_err();
        assert_eq!(e.kind, ErrorType::ValueDictKey);
        assert!(
            e.errors[0]
                .as_str()
                .unwrap()
                .contains("Missing dict key parameter: 'k30000'")
        );
    }
}
