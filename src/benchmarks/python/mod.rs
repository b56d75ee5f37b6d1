//! Python semantics that the official scorers depend on, reproduced exactly
//! without running Python: the values they handle and their `str()` /
//! `repr()` texts, `json.loads`, `eval` of a literal, and (for APIBench)
//! the tree-sitter parse of Python source. Each official verdict or score
//! that compares Python text, values or trees comes out the same here.
//!
//! - [`value`]: [`PyValue`] and [`PyStr`] (code points, lone surrogates
//!   allowed), Python's `==` and dict insertion.
//! - [`repr`]: `str()` and `repr()`, `repr(float)` included; the JSON of a
//!   value for reports ([`PyValue::to_json`]).
//! - `printable`: the code points `repr()` escapes (`str.isprintable`).
//! - [`dumps`]: `json.dumps(x, indent=N)`, as BFCL writes function docs into prompts.
//! - [`json`]: `json.loads` (CPython's C scanner) and `json.loads(json.dumps(x))`.
//! - [`literal`]: `eval` of a Python literal (gold answers).
//! - [`numpy`]: numpy's pairwise sum and standard deviation.
//! - [`parse`]: tree-sitter-python's concrete syntax trees (APIBench's `ast_eval_*`).
//! - [`random`]: `random.Random` (BFCL's API classes, τ³-bench's trial seeds).

pub mod dumps;
pub mod json;
pub mod literal;
pub mod numpy;
pub mod parse;
mod printable;
pub mod random;
pub mod repr;
pub mod value;

pub use json::{JsonError, json_loads, json_loads_str, json_roundtrip};
pub use literal::literal_eval;
pub use repr::{float_repr, py_repr, py_str};
pub use value::{PyStr, PyValue, cps};

/// What the tests of this folder share: a value as `str()` shows it, and a
/// value read by `literal_eval`.
#[cfg(test)]
pub(crate) mod testing {
    use super::{PyStr, PyValue, literal_eval, py_str};

    /// `str(v)`, lossily as UTF-8.
    pub fn s(v: &PyValue) -> String {
        PyStr(py_str(v)).to_string_lossy()
    }

    /// `ast.literal_eval(text)`, which must succeed.
    pub fn lit(text: &str) -> PyValue {
        literal_eval(text).unwrap()
    }
}
