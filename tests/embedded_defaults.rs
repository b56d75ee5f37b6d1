//! The defaults of `itc score` and `itc eval` (the sample set, the OOD
//! fallback copies) are inside the binary: a copy of it whose compiled-in
//! checkout path points nowhere, run from an empty directory, prints the same
//! tables as the binary reading the files of the checkout.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::text;

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// A copy of `itc` in `dir` in which every occurrence of the checkout's
/// path is overwritten with a path of the same length that does not exist,
/// as if the checkout had moved away after the build. Returns the copy and
/// the path written.
fn moved_away_copy(dir: &Path) -> (PathBuf, String) {
    let copy = dir.join("itc");
    std::fs::copy(env!("CARGO_BIN_EXE_itc"), &copy).unwrap();
    let needle = MANIFEST_DIR.as_bytes();
    let gone = format!("/{}", "x".repeat(needle.len() - 1));
    assert!(!Path::new(&gone).exists());
    let mut bytes = std::fs::read(&copy).unwrap();
    let mut at = 0;
    while at + needle.len() <= bytes.len() {
        if bytes[at] == needle[0] && &bytes[at..at + needle.len()] == needle {
            bytes[at..at + needle.len()].copy_from_slice(gone.as_bytes());
            at += needle.len();
        } else {
            at += 1;
        }
    }
    // Writing over the copy keeps its execute permission.
    std::fs::write(&copy, bytes).unwrap();
    (copy, gone)
}

/// Runs `bin` in `cwd` with the fetch cache and the home directory in
/// `home` (empty: no fetched files); returns stdout and stderr.
fn run(bin: &Path, cwd: &Path, home: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home)
        .env("ITC_CACHE", home)
        .output()
        .expect("itc runs");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "itc {args:?}:\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The score tables of the output: from the headline after `Tool calling on
/// <file>` to the end (the run's timings come before).
fn tables(stdout: &str) -> &str {
    let start = stdout
        .find("Tool calling on ")
        .unwrap_or_else(|| panic!("no score table in\n{stdout}"));
    let after = &stdout[start..];
    &after[after.find('\n').unwrap()..]
}

fn repo(path: &str) -> String {
    format!("{MANIFEST_DIR}/{path}")
}

#[test]
fn defaults_are_read_from_the_binary_and_give_the_tables_of_the_files() {
    let temp = tempfile::tempdir().unwrap();
    let (bin, gone) = moved_away_copy(temp.path());
    let [empty, elsewhere, home] = ["empty", "elsewhere", "home"].map(|d| {
        let p = temp.path().join(d);
        std::fs::create_dir(&p).unwrap();
        p
    });
    let itc = PathBuf::from(env!("CARGO_BIN_EXE_itc"));
    let not_from_the_checkout = |what: &str, output: &str| {
        assert!(
            !output.contains(MANIFEST_DIR) && !output.contains(&gone),
            "{what} names the checkout:\n{output}"
        );
    };

    // `itc score`: the sample tasks and recorded predictions.
    let (stdout, stderr) = run(&bin, &empty, &home, &["score"]);
    not_from_the_checkout("itc score", &(stdout.clone() + &stderr));
    assert!(
        stdout.starts_with(
            "Tool calling on embedded:datasets/sample/tasks.jsonl\n243 tasks, 5 model(s)"
        ),
        "{stdout}"
    );
    let mut args = vec!["score", "--tasks"];
    let tasks = repo("datasets/sample/tasks.jsonl");
    args.push(&tasks);
    args.push("--predictions");
    let mut predictions: Vec<String> = std::fs::read_dir(repo("datasets/sample/predictions"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".jsonl"))
        .collect();
    predictions.sort();
    args.extend(predictions.iter().map(String::as_str));
    let (from_files, files_stderr) = run(&itc, &elsewhere, &home, &args);
    assert_eq!(tables(&stdout), tables(&from_files));
    assert_eq!(stderr, files_stderr);

    // `itc eval`: the offline baseline on the sample tasks, then
    // `--dataset` on the embedded Seal-Tools and ToolAlpaca copies.
    let runs: [(&[&str], &[&str], &str); 3] = [
        (
            &[],
            &["--tasks", &tasks],
            "embedded:datasets/sample/tasks.jsonl",
        ),
        (
            &["--dataset", "seal-tools", "--limit", "60"],
            &[
                "--dataset",
                "seal-tools",
                "--limit",
                "60",
                "--dataset-files",
                &repo("datasets/ood/seal-tools/test_in_domain.json"),
            ],
            "embedded:datasets/ood/seal-tools/test_in_domain.json",
        ),
        (
            &["--dataset", "toolalpaca"],
            &[
                "--dataset",
                "toolalpaca",
                "--dataset-files",
                &repo("datasets/ood/toolalpaca/eval_simulated.json"),
            ],
            "embedded:datasets/ood/toolalpaca/eval_simulated.json",
        ),
    ];
    for (i, (defaults, files, source)) in runs.into_iter().enumerate() {
        let run_dir = format!("run-{i}");
        let common = ["eval", "--no-progress", "--run-dir", &run_dir];
        let (stdout, stderr) = run(&bin, &empty, &home, &[&common[..], defaults].concat());
        not_from_the_checkout("itc eval", &(stdout.clone() + &stderr));
        assert!(stderr.contains(source), "{stderr}");
        let (from_files, _) = run(&itc, &elsewhere, &home, &[&common[..], files].concat());
        assert_eq!(
            tables(&stdout),
            tables(&from_files),
            "itc eval {defaults:?}"
        );
        if !defaults.is_empty() {
            // The run records where its tasks came from.
            let info = std::fs::read_to_string(empty.join(&run_dir).join("ood.json")).unwrap();
            assert!(info.contains(source), "{info}");
        }
    }
}

/// docs/data.md's table of built-in data has a row for every dataset family
/// built into the binary, and its total is the embedded files' count and
/// bytes.
#[test]
fn the_built_in_data_table_names_every_family_and_the_embedded_bytes() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"))
        .unwrap();
    let start = doc.find("## Built-in data").unwrap();
    let section = &doc[start..start + doc[start..].find("\n## ").unwrap()];
    for dataset in itc::benchmarks::dataset::all() {
        if dataset.shipped_files().is_none() {
            continue;
        }
        let name = dataset.to_string();
        let family = match name.split_once(':') {
            Some((family, _)) => format!("{family}:"),
            None => name.clone(),
        };
        assert!(
            section.contains(&format!("`itc eval --dataset {family}")),
            "{name}: no row for {family} in docs/data.md"
        );
    }
    let files = itc::util::embedded::names_under("datasets", "");
    let bytes: usize = files
        .iter()
        .map(|f| itc::util::embedded::read(f).unwrap().len())
        .sum();
    let with_commas = |n: usize| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let total = format!("| all {} files | | | {} |", files.len(), with_commas(bytes));
    assert!(section.contains(&total), "docs/data.md lacks {total:?}");
}
