//! `itc datasets`: every dataset `itc eval --dataset` accepts is listed, with
//! the command that runs it; the JSON parses; the cached state follows what
//! the fetch cache holds.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{itc, text};

/// The `--dataset` names `itc eval` accepts, as its own error message lists them.
fn eval_dataset_names() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "no-such-set",
            "--run-dir",
            run.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    let known = stderr
        .split("known: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{stderr}"));
    known.trim().split(", ").map(str::to_string).collect()
}

/// `itc datasets --format json` with these extra arguments and environment.
fn listing(args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut all = vec!["datasets", "--format", "json"];
    all.extend(args);
    let out = itc(&all, env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn entry<'a>(listing: &'a Value, name: &str) -> &'a Value {
    listing["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {listing}"))
}

#[test]
fn lists_every_eval_dataset_with_its_command() {
    let names = eval_dataset_names();
    assert_eq!(
        names,
        itc::benchmarks::dataset::names(),
        "the error lists the code's names"
    );
    let cache = tempfile::tempdir().unwrap();
    let json = listing(&["--ood-cache", cache.path().to_str().unwrap()], &[]);
    assert_eq!(json["cache_dir"], cache.path().to_str().unwrap());
    let listed: Vec<&str> = json["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed[0], "sample");
    assert_eq!(listed[1..], names);
    for name in &names {
        let d = entry(&json, name);
        assert_eq!(d["command"], format!("itc eval --dataset {name}"));
        assert_eq!(d["cached"], false, "{d}");
        assert!(d["bytes"].as_u64().unwrap() > 0, "{d}");
        assert!(!d["licence"].as_str().unwrap().is_empty(), "{d}");
        assert!(
            d["source"]
                .as_str()
                .unwrap()
                .starts_with("https://github.com/")
        );
        let fetch = d["fetch"].as_str().unwrap().to_string();
        // The fetch command names a set `itc ood fetch` knows.
        let set = fetch.strip_prefix("itc ood fetch ").unwrap();
        assert!(
            itc::benchmarks::fetch::dataset_files(set).is_ok(),
            "{fetch}"
        );
        // Built in exactly when a run without files or cache works from the binary.
        let dataset: itc::benchmarks::dataset::OodDataset = name.parse().unwrap();
        assert_eq!(d["built_in"], dataset.shipped_files().is_some(), "{d}");
        let reads_from = if dataset.shipped_files().is_some() {
            "built_in"
        } else {
            "none"
        };
        assert_eq!(d["reads_from"], reads_from, "{d}");
    }
    // The sample set's size is its task file's line count.
    let sample_lines = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl"),
    )
    .unwrap()
    .lines()
    .count();
    assert_eq!(entry(&json, "sample")["tasks"], sample_lines);
    assert_eq!(entry(&json, "sample")["command"], "itc eval");

    // The table names every dataset and how to run one, and how to get the
    // ones not at hand.
    let out = itc(
        &["datasets", "--ood-cache", cache.path().to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for name in &names {
        assert!(
            table.lines().any(|l| l.starts_with(&format!("│ {name} "))),
            "{name}: {table}"
        );
    }
    assert!(table.contains("`itc eval --dataset <dataset>`"), "{table}");
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| entry(&json, n)["reads_from"] == "none")
        .map(String::as_str)
        .collect();
    assert!(!missing.is_empty());
    for name in missing {
        assert!(
            table.contains(&format!("run `itc ood fetch {name}` first")),
            "{table}"
        );
    }
}

/// A fetch cache holding a dataset's files (at the manifest's paths, with
/// its bytes) makes it cached, found through `--ood-cache` (and its old name
/// `--cache-dir`) and `ITC_CACHE` alike; a file with other bytes does not.
#[test]
fn cached_follows_the_fetch_cache() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache_root = tempfile::tempdir().unwrap();
    let cache = cache_root.path().join("ood");
    let manifest = itc::benchmarks::fetch::dataset_files("toolalpaca").unwrap();
    let target = manifest[0].cached_path(&cache);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, b"[]").unwrap();
    let by_flag = || listing(&["--ood-cache", cache.to_str().unwrap()], &[]);
    let by_old_flag = || listing(&["--cache-dir", cache.to_str().unwrap()], &[]);
    assert_eq!(
        entry(&by_flag(), "toolalpaca")["cached"],
        false,
        "wrong bytes"
    );

    std::fs::copy(
        root.join("datasets/ood/toolalpaca/eval_simulated.json"),
        &target,
    )
    .unwrap();
    let env = [("ITC_CACHE", cache_root.path().to_str().unwrap())];
    for json in [by_flag(), by_old_flag(), listing(&[], &env)] {
        let alpaca = entry(&json, "toolalpaca");
        assert_eq!(alpaca["cached"], true, "{alpaca}");
        assert_eq!(alpaca["reads_from"], "cache", "{alpaca}");
        let others = json["datasets"].as_array().unwrap();
        assert_eq!(
            others.iter().filter(|d| d["cached"] == true).count(),
            1,
            "only toolalpaca"
        );
    }
}

/// `itc datasets` prints one table, in 100 columns, every cell left-aligned,
/// with a row for every BFCL category the code knows.
#[test]
fn one_left_aligned_table_with_every_bfcl_category() {
    let cache = tempfile::tempdir().unwrap();
    let out = itc(
        &["datasets", "--ood-cache", cache.path().to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert_eq!(table.matches('╭').count(), 1, "one table: {table}");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('│')).collect();
    for row in &rows {
        assert!(row.chars().count() <= 100, "wider than 100 columns: {row}");
        let cells: Vec<&str> = row.trim_matches('│').split('│').collect();
        assert_eq!(cells.len(), 5, "{row}");
        for cell in cells {
            // Left-aligned: the text starts after one space, padding follows.
            assert!(
                cell.starts_with(' ') && !cell.starts_with("  "),
                "not left-aligned: {cell:?} in {row}"
            );
        }
    }
    for category in itc::benchmarks::bfcl::Category::SINGLE_TURN {
        assert!(
            rows.iter()
                .any(|r| r.starts_with(&format!("│ bfcl:{category} "))),
            "{category}: {table}"
        );
    }
}
