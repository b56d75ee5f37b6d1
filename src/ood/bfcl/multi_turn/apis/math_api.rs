//! `MathAPI` (stub).
use crate::ood::bfcl::multi_turn::api::{ApiClass, Output, Signature};
use crate::ood::bfcl::multi_turn::state::State;
use crate::ood::python::PyValue;

/// An instance of `MathAPI` (stateless).
#[derive(Debug)]
pub struct MathApi;

impl ApiClass for MathApi {
    fn class_name(&self) -> &'static str { "MathAPI" }
    fn methods(&self) -> &'static [Signature] { &[] }
    fn call(&mut self, _method: &str, _args: Vec<PyValue>) -> Result<Output, String> { Err("todo".into()) }
    fn state(&self) -> Vec<(&'static str, State)> { vec![] }
}
