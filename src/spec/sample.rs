//! The sample set shipped in `datasets/sample/`: the tasks and recorded
//! predictions `itc score` and `itc eval` use when given none.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The sample set shipped in `datasets/sample/`, the embedded default.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join("sample")
}

/// The sample task file.
pub fn sample_tasks() -> PathBuf {
    sample_dir().join("tasks.jsonl")
}

/// Every prediction file of the sample set, sorted by name.
pub fn sample_predictions() -> anyhow::Result<Vec<PathBuf>> {
    let dir = sample_dir().join("predictions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}
