//! What the BFCL tests share: the reference files read with Python's
//! `json.loads` (floats stay floats), their fields, and one failure message
//! listing the first mismatches.

use std::path::{Path, PathBuf};

use itc::benchmarks::python::{PyValue, json_loads_str};

/// `datasets/ood/bfcl/`.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/bfcl")
}

/// Every non-blank line of a JSON Lines file, read as Python reads it.
pub fn read_jsonl(path: &Path) -> Vec<PyValue> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| json_loads_str(l).unwrap_or_else(|e| panic!("{}: {e:?}", path.display())))
        .collect()
}

/// Every line of a gzipped JSON Lines file (the reference traces,
/// answers and verdicts), read with serde.
pub fn gz_lines(path: &Path) -> Vec<serde_json::Value> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect()
}

/// A record's field, which must be there.
pub fn field<'a>(record: &'a PyValue, key: &str) -> &'a PyValue {
    record
        .get_str(key)
        .unwrap_or_else(|| panic!("no field {key:?} in {record:?}"))
}

/// Fails listing the first 20 mismatches of `checked` comparisons.
pub fn assert_none_differ(what: &str, checked: usize, mismatches: &[String]) {
    eprintln!("{what}: {checked} checked, {} differ", mismatches.len());
    assert!(
        mismatches.is_empty(),
        "{what}: {} of {checked} differ; the first ones:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
