//! The sample set shipped in `datasets/sample/`: the tasks and recorded
//! predictions `itc score` and `itc eval` use when given none. They are
//! embedded in the binary ([`crate::util::embedded`]); the paths returned
//! here are the names of those copies, which every JSONL reader opens.

use std::path::PathBuf;

use crate::util::embedded;

/// The sample task file (`embedded:datasets/sample/tasks.jsonl`).
pub fn sample_tasks() -> PathBuf {
    embedded::name("datasets/sample/tasks.jsonl")
}

/// Every prediction file of the sample set, sorted by name.
pub fn sample_predictions() -> Vec<PathBuf> {
    embedded::names_under("datasets/sample/predictions", ".jsonl")
}

/// Every task of the sample set, for tests.
#[cfg(test)]
pub(crate) fn all_sample_tasks() -> Vec<super::records::Task> {
    crate::spec::jsonl::read_records(&sample_tasks(), false)
        .expect("the embedded sample set reads")
        .0
}

/// The sample's nested task that looks up a municipality's INE code and
/// then asks for the forecast for that code (two turns), for tests.
#[cfg(test)]
pub(crate) fn ine_forecast_task() -> super::records::Task {
    all_sample_tasks()
        .into_iter()
        .find(|t| {
            t.turns.len() == 2
                && t.gold
                    .calls
                    .first()
                    .is_some_and(|c| c.name == "ine_codigo_municipio")
        })
        .expect("the sample set has the INE → forecast task")
}
