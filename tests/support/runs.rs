//! Comparing run directories: a merge of shards against a single run of the
//! same tasks (`tests/shard_merge.rs`, `tests/slurm.rs`).

use std::path::Path;

use serde_json::Value;

/// A file's text, or a panic naming it.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON file's value.
pub fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A file's lines, sorted.
pub fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = read(path).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// Asserts that the merge of a run's shards (`itc merge … -o merged`) holds
/// what a single run of the same tasks holds: the tasks in the same order,
/// the same scores, tables and task set hash, and that it lacks nothing.
pub fn assert_merge_equals_single_run(merged: &Path, single: &Path) {
    assert_eq!(
        read(&merged.join("tasks.jsonl")),
        read(&single.join("tasks.jsonl"))
    );
    assert_eq!(
        json(&merged.join("summary.json")),
        json(&single.join("summary.json"))
    );
    assert_eq!(
        sorted_lines(&merged.join("task_scores.jsonl")),
        sorted_lines(&single.join("task_scores.jsonl"))
    );
    for file in [
        "summary.csv",
        "by_kind.csv",
        "by_language.csv",
        "by_country.csv",
        "by_category.csv",
    ] {
        assert_eq!(read(&merged.join(file)), read(&single.join(file)), "{file}");
    }
    let record = json(&merged.join("merge.json"));
    assert_eq!(record["shards_missing"], serde_json::json!([]));
    assert_eq!(record["tasks_missing"], 0);
    assert_eq!(record["predictions_repeated"], 0);
    let manifest = json(&merged.join("manifest.json"));
    assert_eq!(
        manifest["task_set_sha256"],
        json(&single.join("manifest.json"))["task_set_sha256"]
    );
}
