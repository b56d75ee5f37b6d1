//! `benchmarks::bfcl::decode::decode_ast_prompting` against the official decoder:
//! every reference answer (datasets/ood/bfcl/reference/answers, paired line
//! by line with verdicts/) and every hand-made probe (probes.jsonl) decodes
//! when the official `default_decode_ast_prompting` did, and to exactly its
//! output: the same types (int, float, bool; tuple, list), the same dict
//! order.

mod support;

use std::path::PathBuf;

use itc::benchmarks::bfcl::Call;
use itc::benchmarks::bfcl::decode::decode_ast_prompting;
use itc::benchmarks::python::{PyStr, PyValue, py_repr};
use support::bfcl::{assert_none_differ, field, read_jsonl, root};

fn reference() -> PathBuf {
    root().join("reference")
}

fn s(text: &str) -> PyValue {
    PyValue::Str(PyStr::new(text))
}

/// A value written as the reference writes `decoded_output`: tuples as
/// `{"__tuple__": [...]}`, dicts with a non-string key as
/// `{"__dict_items__": [[k, v], ...]}`, other non-JSON values as
/// `{"__repr__": "..."}`.
fn tagged(v: &PyValue) -> PyValue {
    match v {
        PyValue::List(items) => PyValue::List(items.iter().map(tagged).collect()),
        PyValue::Tuple(items) => PyValue::Dict(vec![(
            s("__tuple__"),
            PyValue::List(items.iter().map(tagged).collect()),
        )]),
        PyValue::Dict(entries) if entries.iter().all(|(k, _)| matches!(k, PyValue::Str(_))) => {
            PyValue::Dict(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), tagged(v)))
                    .collect(),
            )
        }
        PyValue::Dict(entries) => PyValue::Dict(vec![(
            s("__dict_items__"),
            PyValue::List(
                entries
                    .iter()
                    .map(|(k, v)| PyValue::List(vec![tagged(k), tagged(v)]))
                    .collect(),
            ),
        )]),
        PyValue::Set(_) | PyValue::Bytes(_) | PyValue::Complex(_) => {
            PyValue::Dict(vec![(s("__repr__"), PyValue::Str(PyStr(py_repr(v))))])
        }
        PyValue::Float(x) if !x.is_finite() => {
            PyValue::Dict(vec![(s("__repr__"), PyValue::Str(PyStr(py_repr(v))))])
        }
        other => other.clone(),
    }
}

/// The decoder's output as the official decoder returns it: `[{name: {kw: value}}]`.
fn as_official(calls: &[Call]) -> PyValue {
    PyValue::List(
        calls
            .iter()
            .map(|c| PyValue::Dict(vec![(s(&c.name), PyValue::Dict(c.args.clone()))]))
            .collect(),
    )
}

/// Compares one answer; a mismatch is described.
fn compare(label: &str, answer: &str, decoded: bool, output: &PyValue) -> Option<String> {
    let mine = decode_ast_prompting(answer);
    match (decoded, &mine) {
        (true, Ok(calls)) => {
            let got = tagged(&as_official(calls));
            (got != *output).then(|| {
                format!(
                    "{label}: {answer:?}\n  official {}\n  itc      {}",
                    PyStr(py_repr(output)),
                    PyStr(py_repr(&got))
                )
            })
        }
        (false, Err(_)) => None,
        (true, Err(e)) => Some(format!(
            "{label}: {answer:?}\n  official decodes, itc: {}",
            e.0
        )),
        (false, Ok(calls)) => Some(format!(
            "{label}: {answer:?}\n  official fails, itc decodes {}",
            PyStr(py_repr(&as_official(calls)))
        )),
    }
}

#[test]
fn every_reference_answer_decodes_as_the_official_decoder_does() {
    let mut compared = 0;
    let mut decoded = 0;
    let mut mismatches = Vec::new();
    for cat in [
        "simple_python",
        "multiple",
        "parallel",
        "parallel_multiple",
        "irrelevance",
    ] {
        let answers = read_jsonl(&reference().join(format!("answers/{cat}.jsonl")));
        let verdicts = read_jsonl(&reference().join(format!("verdicts/{cat}.jsonl")));
        assert_eq!(answers.len(), verdicts.len(), "{cat}: lines differ");
        for (a, v) in answers.iter().zip(&verdicts) {
            assert_eq!(field(a, "id"), field(v, "id"));
            assert_eq!(field(a, "answer_index"), field(v, "answer_index"));
            let PyValue::Str(answer) = field(a, "answer") else {
                panic!("answer is not a string")
            };
            let official = *field(v, "decoded") == PyValue::Bool(true);
            decoded += usize::from(official);
            let label = format!(
                "{}#{}",
                PyStr(py_repr(field(a, "id"))),
                PyStr(py_repr(field(a, "answer_index")))
            );
            let out = field(v, "decoded_output");
            if let Some(m) = compare(&label, &answer.to_string_lossy(), official, out) {
                mismatches.push(m);
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 5960, "reference answers compared");
    assert_eq!(decoded, 1842 + 921 + 929 + 933 + 557, "decoded officially");
    assert_none_differ(
        &format!("reference answers ({decoded} decoded officially)"),
        compared,
        &mismatches,
    );
}

#[test]
fn every_probe_decodes_as_the_official_decoder_does() {
    let probes = read_jsonl(&reference().join("probes.jsonl"));
    let mut decoded = 0;
    let mut mismatches = Vec::new();
    for p in &probes {
        let PyValue::Str(answer) = field(p, "answer") else {
            panic!("answer is not a string")
        };
        let official = *field(p, "decoded") == PyValue::Bool(true);
        decoded += usize::from(official);
        let label = PyStr(py_repr(field(p, "probe"))).to_string();
        if let Some(m) = compare(
            &label,
            &answer.to_string_lossy(),
            official,
            field(p, "decoded_output"),
        ) {
            mismatches.push(m);
        }
    }
    assert_eq!(probes.len(), 87, "probes compared");
    assert_none_differ(
        &format!("probes ({decoded} decoded officially)"),
        probes.len(),
        &mismatches,
    );
}
