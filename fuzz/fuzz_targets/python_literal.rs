//! The Python readers of the official scorers (`benchmarks::python`): `eval` of a
//! literal (Seal-Tools gold answers), `json.loads` (predictions), and the
//! official Seal-Tools output parser built on them.
//!
//! Invariants: a literal that evaluates prints back (`repr`) to a literal
//! that evaluates to an equal value (Python `==`); a JSON text that loads
//! survives `json.loads(json.dumps(x))` equal; the official parser, when it
//! reads something, reads a list.
#![no_main]

use itc::benchmarks::python::value::{INT_MAX_STR_DIGITS, py_eq};
use itc::benchmarks::python::{PyValue, cps, json_loads_str, json_roundtrip, literal_eval, py_repr};
use itc::benchmarks::seal_tools::official_parse;
use itc_fuzz::text;
use libfuzzer_sys::fuzz_target;

/// Whether `repr(v)` is itself a literal `eval` reads back equal: not for
/// NaN and infinities (`nan`, `inf` are names), nor for ints Python refuses
/// to print (more than 4,300 digits).
fn repr_reads_back(v: &PyValue) -> bool {
    match v {
        PyValue::Float(x) | PyValue::Complex(x) => x.is_finite(),
        PyValue::Int(t) => t.trim_start_matches('-').len() <= INT_MAX_STR_DIGITS,
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
            items.iter().all(repr_reads_back)
        }
        PyValue::Dict(entries) => entries
            .iter()
            .all(|(k, v)| repr_reads_back(k) && repr_reads_back(v)),
        PyValue::None | PyValue::Bool(_) | PyValue::Str(_) | PyValue::Bytes(_) => true,
    }
}

fn has_nan(v: &PyValue) -> bool {
    match v {
        PyValue::Float(x) | PyValue::Complex(x) => x.is_nan(),
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
            items.iter().any(has_nan)
        }
        PyValue::Dict(entries) => entries.iter().any(|(k, v)| has_nan(k) || has_nan(v)),
        _ => false,
    }
}

fn is_empty_set(v: &PyValue) -> bool {
    match v {
        PyValue::Set(items) => items.is_empty() || items.iter().any(is_empty_set),
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().any(is_empty_set),
        PyValue::Dict(entries) => entries
            .iter()
            .any(|(k, v)| is_empty_set(k) || is_empty_set(v)),
        _ => false,
    }
}

fn as_text(code_points: &[u32]) -> Option<String> {
    code_points.iter().map(|&c| char::from_u32(c)).collect()
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    if let Ok(v) = literal_eval(&input) {
        // `set()` is a call, not a literal: an empty set does not read back.
        if repr_reads_back(&v) && !is_empty_set(&v) {
            let repr = as_text(&py_repr(&v)).expect("repr escapes lone surrogates");
            match literal_eval(&repr) {
                Ok(again) => assert!(py_eq(&v, &again), "repr round trip: {repr}"),
                Err(e) => panic!("repr does not evaluate: {e}\n{repr}"),
            }
        }
    }
    if let Ok(v) = json_loads_str(&input)
        && !has_nan(&v)
    {
        match json_roundtrip(v.clone()) {
            Ok(again) => assert!(py_eq(&v, &again), "json round trip of {input}"),
            Err(e) => panic!("a loaded JSON value does not dump: {e}"),
        }
    }
    if let Some(v) = official_parse(&cps(&input)) {
        assert!(matches!(v, PyValue::List(_)), "official parse gave {v:?}");
    }
});
