//! The BFCL prompt-mode decoder (`benchmarks::bfcl::decode`): Python's expression
//! grammar, `ast.unparse` and bounded arithmetic on literals, on any text.
//!
//! Invariants: decoding never panics and is deterministic (the same text
//! gives the same calls, or fails again); decoded values hold no set (the
//! official decoder refuses set displays, and itc refuses set arithmetic);
//! every dict holds unique keys under Python's `==` (NaN aside); a text that
//! decodes also decodes once wrapped in the decoder's own brackets, to the
//! same calls.
#![no_main]

use itc::benchmarks::bfcl::decode::{decode_ast_prompting, wrap_text};
use itc::benchmarks::python::PyValue;
use itc::benchmarks::python::value::py_eq;
use itc_fuzz::text;
use libfuzzer_sys::fuzz_target;

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

/// No set anywhere, and dict keys unique (when no NaN makes `==` partial).
fn check_value(v: &PyValue) {
    match v {
        PyValue::Set(_) => panic!("a decoded value holds a set: {v:?}"),
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().for_each(check_value),
        PyValue::Dict(entries) => {
            check_entries(entries);
            for (k, v) in entries {
                check_value(k);
                check_value(v);
            }
        }
        _ => {}
    }
}

fn check_entries(entries: &[(PyValue, PyValue)]) {
    if entries.iter().any(|(k, _)| has_nan(k)) {
        return;
    }
    for (i, (a, _)) in entries.iter().enumerate() {
        for (b, _) in &entries[i + 1..] {
            assert!(!py_eq(a, b), "a dict holds the key {a:?} twice");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let first = decode_ast_prompting(&input);
    let again = decode_ast_prompting(&input);
    match (&first, &again) {
        (Ok(a), Ok(b)) => {
            let nan = a
                .iter()
                .any(|c| c.args.iter().any(|(k, v)| has_nan(k) || has_nan(v)));
            assert!(nan || a == b, "decoding is not deterministic");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "decoding fails differently"),
        _ => panic!("decoding is not deterministic: {first:?} then {again:?}"),
    }
    if let Ok(calls) = &first {
        for call in calls {
            check_entries(&call.args);
            for (k, v) in &call.args {
                assert!(matches!(k, PyValue::Str(_) | PyValue::None), "key {k:?}");
                check_value(v);
            }
        }
        // The prepared text is a fixed point of the preparation.
        let wrapped = wrap_text(&input);
        if wrap_text(&wrapped) == wrapped {
            let rewrapped = decode_ast_prompting(&wrapped);
            let same = match &rewrapped {
                Ok(b) => calls.len() == b.len(),
                Err(_) => false,
            };
            assert!(same, "the wrapped text decodes differently: {rewrapped:?}");
        }
    }
});
