//! An empty input file is an error naming it, never an empty result with
//! exit status 0.

mod support;

use support::{itc, text};

const SAMPLE_TASKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample/tasks.jsonl");
const SAMPLE_PREDICTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/sample/predictions/careful-mid.jsonl"
);
const SEAL_GOLD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/ood/seal-tools/test_in_domain.json"
);

fn refused(args: &[&str], expected: &str) {
    let out = itc(args, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "itc {}: {stderr}",
        args.join(" ")
    );
    assert!(
        stderr.contains(expected),
        "itc {}: {stderr}",
        args.join(" ")
    );
}

#[test]
fn empty_files_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.path().join("blank.jsonl");
    std::fs::write(&blank, "\n\n").unwrap();
    let list = dir.path().join("list.json");
    std::fs::write(&list, "[]").unwrap();
    let (empty, blank, list) = (
        empty.to_str().unwrap(),
        blank.to_str().unwrap(),
        list.to_str().unwrap(),
    );
    let out = dir.path().join("out.jsonl");
    let out = out.to_str().unwrap();

    refused(
        &[
            "score",
            "--tasks",
            empty,
            "--predictions",
            SAMPLE_PREDICTIONS,
        ],
        "empty.jsonl: no task to score",
    );
    refused(
        &["score", "--tasks", SAMPLE_TASKS, "--predictions", empty],
        "empty.jsonl: the prediction file is empty",
    );
    refused(
        &["score", "--tasks", SAMPLE_TASKS, "--predictions", blank],
        "no prediction in",
    );
    for format in ["itc", "seal-tools", "public-apis"] {
        refused(
            &["catalog", "import", "--format", format, empty, "-o", out],
            "empty.jsonl: no API in it",
        );
    }
    refused(
        &["ood", "convert", "seal-tools", "--input", list, "-o", out],
        "list.json: no seal-tools record in it",
    );
    refused(
        &[
            "ood",
            "score",
            "seal-tools",
            "--compat",
            "official",
            "--gold",
            list,
            "--predictions",
            SAMPLE_PREDICTIONS,
        ],
        "list.json: no Seal-Tools record in it",
    );
    refused(
        &[
            "ood",
            "score",
            "seal-tools",
            "--compat",
            "official",
            "--gold",
            SEAL_GOLD,
            "--predictions",
            empty,
        ],
        "empty.jsonl: no prediction in it",
    );
    assert!(!std::path::Path::new(out).exists(), "nothing written");
}
