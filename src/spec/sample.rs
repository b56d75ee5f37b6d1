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
