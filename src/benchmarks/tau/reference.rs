//! The reference data of the official code (`datasets/ood/tau/retail/`),
//! read for the tests: the official tasks and the 2,141 scored trajectories.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::format::{RewardType, SimulationRun, Task, TerminationReason, parse_json, read_tasks};

/// A file of `datasets/ood/tau/retail/`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/ood/tau/retail")
        .join(name)
}

/// The official retail tasks.
pub fn tasks() -> Vec<Task> {
    read_tasks(&data_path("tasks.json")).unwrap()
}

/// One line of `reference/trajectories.jsonl.gz` (the fields the tests read).
#[derive(Debug, Deserialize)]
pub struct Trajectory {
    pub task_id: String,
    pub kind: String,
    pub termination_reason: TerminationReason,
    pub simulation: SimulationRun,
    pub evaluation_type: String,
    pub reward_basis: Vec<RewardType>,
    pub reward: Option<f64>,
    pub reward_status: String,
    pub reward_without_nl: Option<f64>,
    pub evaluator_exception: Option<Value>,
    pub reward_info: Option<Value>,
    pub checks: Option<Checks>,
}

/// The record's copy of the official checks.
#[derive(Debug, Deserialize)]
pub struct Checks {
    pub db_match: bool,
    pub actions_matched: Vec<bool>,
    pub communicate_met: Vec<bool>,
}

/// Every reference trajectory, and the raw JSON of each line.
pub fn trajectories() -> Vec<(Trajectory, Value)> {
    let path = data_path("reference/trajectories.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap();
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    reader
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let line = line.unwrap();
            let origin = format!("{}:{}", path.display(), i + 1);
            (
                parse_json(&line, &origin).unwrap(),
                serde_json::from_str(&line).unwrap(),
            )
        })
        .collect()
}

/// A JSON file read with correctly rounded floats (serde_json's default
/// parser may be one ulp off on 17-digit numbers: `0.014285714285714285`
/// reads as `0.014285714285714284`), through the Python `json.loads` port.
pub fn read_exact_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    to_value(&crate::benchmarks::python::json::json_loads_str(&text).unwrap())
}

fn to_value(v: &crate::benchmarks::python::PyValue) -> Value {
    use crate::benchmarks::python::PyValue as P;
    match v {
        P::None => Value::Null,
        P::Bool(b) => Value::Bool(*b),
        P::Int(text) => serde_json::from_str(text).unwrap(),
        P::Float(x) => Value::from(*x),
        P::Str(s) => Value::String(s.to_string_lossy()),
        P::List(items) => Value::Array(items.iter().map(to_value).collect()),
        P::Dict(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| match k {
                    P::Str(s) => (s.to_string_lossy(), to_value(v)),
                    other => panic!("key {other:?}"),
                })
                .collect(),
        ),
        other => panic!("not JSON: {other:?}"),
    }
}
