//! A UTF-8 byte order mark at the start of an input file (as some editors
//! write) is accepted by every reader alike.

mod support;

use std::path::{Path, PathBuf};

use support::{itc, text};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A copy of a repository file with a byte order mark in front.
fn with_bom(dir: &Path, repository_path: &str) -> PathBuf {
    let bytes = std::fs::read(Path::new(ROOT).join(repository_path)).unwrap();
    let name = Path::new(repository_path).file_name().unwrap();
    let path = dir.join(name);
    std::fs::write(&path, [b"\xEF\xBB\xBF".as_slice(), &bytes].concat()).unwrap();
    path
}

fn ok(args: &[&str]) {
    let out = itc(args, &[]);
    assert!(
        out.status.success(),
        "itc {}: {}",
        args.join(" "),
        text(&out.stderr)
    );
}

#[test]
fn every_reader_accepts_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tasks = with_bom(d, "datasets/sample/tasks.jsonl");
    let predictions = with_bom(d, "datasets/sample/predictions/careful-mid.jsonl");
    let out = |name: &str| d.join(name).to_str().unwrap().to_string();
    ok(&[
        "score",
        "--tasks",
        tasks.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
        "--bootstrap",
        "10",
    ]);
    let apis = with_bom(d, "datasets/sample/apis.json");
    ok(&[
        "catalog",
        "import",
        "--format",
        "itc",
        apis.to_str().unwrap(),
        "-o",
        &out("a.jsonl"),
    ]);
    let alpaca = with_bom(d, "tests/fixtures/catalog/toolalpaca-public_apis.json");
    ok(&[
        "catalog",
        "import",
        "--format",
        "toolalpaca",
        alpaca.to_str().unwrap(),
        "-o",
        &out("b.jsonl"),
    ]);
    let seal = with_bom(d, "tests/fixtures/catalog/seal-tools-tool.jsonl");
    ok(&[
        "catalog",
        "import",
        "--format",
        "seal-tools",
        seal.to_str().unwrap(),
        "-o",
        &out("c.jsonl"),
        "--country",
        "GLOBAL",
    ]);
    let seal_eval = with_bom(d, "datasets/ood/seal-tools/test_in_domain.json");
    ok(&[
        "ood",
        "convert",
        "seal-tools",
        "--input",
        seal_eval.to_str().unwrap(),
        "-o",
        &out("d.jsonl"),
    ]);
    let models = d.join("models.toml");
    std::fs::write(
        &models,
        "\u{feff}[[models]]\nname = \"b\"\nbackend = \"baseline\"\n",
    )
    .unwrap();
    ok(&[
        "eval",
        "--config",
        models.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--limit",
        "5",
        "--run-dir",
        &out("run"),
        "--bootstrap",
        "10",
    ]);
}
