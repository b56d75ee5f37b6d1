//! `itc eval --shard K/N` and `itc merge`: three shards of the sample set
//! merged score exactly as one run, and `itc report` on the merge equals
//! `itc report` on the single run; shards that do not belong together are
//! refused, and a missing shard is reported.

mod support;

use std::path::Path;

use serde_json::Value;
use support::runs::{assert_merge_equals_single_run, json, read};
use support::{itc, text};

/// A single run of the offline baseline on the sample set, in `dir/single`.
fn single_run(dir: &Path) -> std::path::PathBuf {
    let single = dir.join("single");
    run(&[
        "eval",
        "--run-dir",
        single.to_str().unwrap(),
        "--no-progress",
    ]);
    single
}

fn run(args: &[&str]) -> std::process::Output {
    let out = itc(args, &[]);
    assert!(out.status.success(), "itc {args:?}:\n{}", text(&out.stderr));
    out
}

#[test]
fn three_shards_merged_score_and_report_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let single = single_run(dir.path());
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let shard = at(&format!("shard-{k}"));
        run(&[
            "eval",
            "--shard",
            &format!("{k}/3"),
            "--run-dir",
            shard.to_str().unwrap(),
            "--no-progress",
        ]);
        sizes.push(read(&shard.join("tasks.jsonl")).lines().count());
    }
    assert_eq!(sizes.iter().sum::<usize>(), 243);
    assert!(sizes.iter().all(|&n| n == 81), "balanced: {sizes:?}");
    let merged = at("merged");
    let shards: Vec<String> = (1..=3)
        .map(|k| at(&format!("shard-{k}")).display().to_string())
        .collect();
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap()]);
    run(&args);

    assert_merge_equals_single_run(&merged, &single);

    // itc report reads the merge as it reads the single run.
    let (r1, r2) = (at("report-single"), at("report-merged"));
    run(&[
        "report",
        single.to_str().unwrap(),
        "--out",
        r1.to_str().unwrap(),
    ]);
    run(&[
        "report",
        merged.to_str().unwrap(),
        "--out",
        r2.to_str().unwrap(),
    ]);
    for file in ["scores.csv", "task_scores.csv", "ranking.csv"] {
        assert_eq!(read(&r1.join(file)), read(&r2.join(file)), "{file}");
    }
    let (a, b) = (json(&r1.join("report.json")), json(&r2.join("report.json")));
    assert_eq!(a["models"], b["models"]);
}

#[test]
fn shards_that_do_not_belong_together_are_refused_and_gaps_reported() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    for (name, shard, extra) in [
        ("a1", "1/3", ""),
        ("a2", "2/3", ""),
        ("b2", "2/2", ""),
        ("c2", "2/3", "replay"),
    ] {
        let run_dir = at(name);
        let mut args = vec![
            "eval",
            "--shard",
            shard,
            "--run-dir",
            &run_dir,
            "--no-progress",
        ];
        if !extra.is_empty() {
            args.extend(["--steps", extra]);
        }
        run(&args);
    }
    let refused = |runs: &[&str], field: &str| {
        let mut args = vec!["merge".to_string()];
        args.extend(runs.iter().map(|r| at(r)));
        args.extend(["-o".into(), at("out")]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = itc(&args, &[]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(field), "{}", text(&out.stderr));
        assert!(!dir.path().join("out/predictions.jsonl").exists());
    };
    refused(&["a1", "b2"], "field `shard.count");
    refused(&["a1", "c2"], "field `steps.json");
    let single = at("single");
    run(&[
        "eval",
        "--run-dir",
        &single,
        "--no-progress",
        "--limit",
        "3",
    ]);
    refused(&["a1", "single"], "not the run directory of a shard");

    // Two of three shards: written and scored, reported, exit 3.
    let out = itc(&["merge", &at("a1"), &at("a2"), "-o", &at("partial")], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("shard(s) [3] missing"),
        "{}",
        text(&out.stderr)
    );
    let record = json(&dir.path().join("partial/merge.json"));
    assert_eq!(record["shards_missing"], serde_json::json!([3]));
    assert_eq!(record["tasks_missing"], 81);
    assert!(dir.path().join("partial/summary.json").exists());
    // A shard given twice: its predictions counted once.
    let out = itc(
        &["merge", &at("a1"), &at("a1"), &at("a2"), "-o", &at("twice")],
        &[],
    );
    assert_eq!(out.status.code(), Some(3));
    let record = json(&dir.path().join("twice/merge.json"));
    assert_eq!(
        (
            record["shards_repeated"].clone(),
            record["predictions_repeated"].clone()
        ),
        (serde_json::json!([1]), Value::from(81))
    );
    // A shard run again after its errors: each answer is kept over an
    // error, whatever the order of the folders.
    let failed = dir.path().join("a1-failed");
    std::fs::create_dir(&failed).unwrap();
    for entry in std::fs::read_dir(at("a1")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), failed.join(entry.file_name())).unwrap();
        }
    }
    let errored: String = read(&failed.join("predictions.jsonl"))
        .lines()
        .map(|line| {
            let mut p: Value = serde_json::from_str(line).unwrap();
            p["output"] = Value::Null;
            p["error"] = "HTTP 503: busy".into();
            p["error_kind"] = "server".into();
            p.to_string() + "\n"
        })
        .collect();
    std::fs::write(failed.join("predictions.jsonl"), errored).unwrap();
    let mut merged = Vec::new();
    for (name, first, second) in [("pref-a", "a1-failed", "a1"), ("pref-b", "a1", "a1-failed")] {
        let out = itc(
            &["merge", &at(first), &at(second), &at("a2"), "-o", &at(name)],
            &[],
        );
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        let predictions = read(&dir.path().join(name).join("predictions.jsonl"));
        assert_eq!(predictions.lines().count(), 162);
        assert!(
            !predictions.contains("HTTP 503"),
            "{name}: an error kept over an answer"
        );
        merged.push(predictions);
    }
    assert_eq!(merged[0], merged[1]);
    // The merge copies the shards' lines as they are (read again from their
    // files by offset, never all held in memory).
    let shard_lines: std::collections::HashSet<String> = ["a1", "a2"]
        .iter()
        .flat_map(|name| {
            read(&dir.path().join(name).join("predictions.jsonl"))
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(merged[0].lines().all(|line| shard_lines.contains(line)));
    // A bad line in a shard is named by file, line and field; nothing is
    // written.
    let spoilt = dir.path().join("a2-bad");
    std::fs::create_dir(&spoilt).unwrap();
    for entry in std::fs::read_dir(at("a2")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), spoilt.join(entry.file_name())).unwrap();
        }
    }
    let good = read(&spoilt.join("predictions.jsonl"));
    let bad: Vec<String> = good
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            1 => line.replacen("\"task_id\":\"", "\"task_id\":5,\"x\":\"", 1),
            _ => line.to_string(),
        })
        .collect();
    std::fs::write(spoilt.join("predictions.jsonl"), bad.join("\n") + "\n").unwrap();
    let out = itc(
        &["merge", &at("a1"), &at("a2-bad"), "-o", &at("bad-merge")],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let named = format!(
        "{}:2: field `task_id`",
        spoilt.join("predictions.jsonl").display()
    );
    assert!(text(&out.stderr).contains(&named), "{}", text(&out.stderr));
    let how = format!(
        "itc eval --resume --run-dir {} --shard 2/3",
        spoilt.display()
    );
    assert!(text(&out.stderr).contains(&how), "{}", text(&out.stderr));
    assert!(!dir.path().join("bad-merge/predictions.jsonl").exists());
    // A shard's run resumed as a whole run is refused.
    let out = itc(
        &["eval", "--run-dir", &at("a1"), "--resume", "--no-progress"],
        &[],
    );
    assert!(
        text(&out.stderr).contains("the run is a shard"),
        "{}",
        text(&out.stderr)
    );
    let out = itc(
        &[
            "eval",
            "--run-dir",
            &at("a1"),
            "--resume",
            "--shard",
            "2/3",
            "--no-progress",
        ],
        &[],
    );
    assert!(
        text(&out.stderr).contains("field `shard`"),
        "{}",
        text(&out.stderr)
    );
}

/// Runs the sample set as shards 1/2 and 2/2 in `dir` (`s1`, `s2`).
fn two_shards(dir: &Path) {
    for k in 1..=2 {
        let shard = dir.join(format!("s{k}"));
        run(&[
            "eval",
            "--shard",
            &format!("{k}/2"),
            "--run-dir",
            shard.to_str().unwrap(),
            "--no-progress",
        ]);
    }
}

/// A copy of run directory `from` (its files) at `to`, `edit` applied.
fn copy_run(from: &Path, to: &Path, edit: impl FnOnce(&Path)) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    edit(to);
}

/// Rewrites the `task_ids` of a shard's `shard.json`.
fn edit_task_ids(run: &Path, edit: impl FnOnce(&mut Vec<Value>)) {
    let path = run.join("shard.json");
    let mut record = json(&path);
    edit(record["task_ids"].as_array_mut().unwrap());
    std::fs::write(&path, record.to_string()).unwrap();
}

#[test]
fn a_shortened_or_edited_selection_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    two_shards(dir.path());
    let ids: Vec<Value> = json(&at("s1/shard.json"))["task_ids"]
        .as_array()
        .unwrap()
        .clone();
    let held = |run: &str| -> Vec<Value> {
        read(&at(run).join("tasks.jsonl"))
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
            .collect()
    };
    let (in_1, in_2) = (held("s1"), held("s2"));
    let dropped = in_2[0].clone();
    let shorten = |ids: &mut Vec<Value>| ids.retain(|id| *id != dropped);
    // Two neighbours of the list from different shards, swapped: each
    // shard's share is the same, the selection's order is not.
    let at_swap = (0..ids.len() - 1)
        .find(|&i| in_1.contains(&ids[i]) && in_2.contains(&ids[i + 1]))
        .unwrap();
    for (name, runs, edits, field) in [
        // Shortened in every shard: shard 2 holds a task not listed.
        (
            "all-short",
            ["s1", "s2"],
            [true, true],
            "shard.json: field `task_ids`",
        ),
        // Shortened in one shard: the shards disagree.
        (
            "first-short",
            ["s1", "s2"],
            [true, false],
            "field `task_ids (shard.json)",
        ),
        (
            "second-short",
            ["s1", "s2"],
            [false, true],
            "field `task_ids (shard.json)",
        ),
    ] {
        let mut given = Vec::new();
        for (run, edit) in runs.iter().zip(edits) {
            let copy = at(&format!("{name}-{run}"));
            copy_run(&at(run), &copy, |to| {
                if edit {
                    edit_task_ids(to, shorten);
                }
            });
            given.push(copy.display().to_string());
        }
        let out_dir = at(&format!("{name}-out"));
        let mut args = vec!["merge"];
        args.extend(given.iter().map(String::as_str));
        args.extend(["-o", out_dir.to_str().unwrap()]);
        let out = itc(&args, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(field), "{name}: {stderr}");
        assert!(!out_dir.join("predictions.jsonl").exists(), "{name}");
    }
    // The order changed (every shard's share the same): the list no longer
    // hashes to `selection_sha256`.
    let mut swapped = Vec::new();
    for run in ["s1", "s2"] {
        let copy = at(&format!("swapped-{run}"));
        copy_run(&at(run), &copy, |to| {
            edit_task_ids(to, |ids| ids.swap(at_swap, at_swap + 1))
        });
        swapped.push(copy.display().to_string());
    }
    let out_dir = at("swapped-out");
    let out = itc(
        &[
            "merge",
            &swapped[0],
            &swapped[1],
            "-o",
            out_dir.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("shard.json: field `task_ids`")
            && stderr.contains("do not hash to its `selection_sha256`"),
        "{stderr}"
    );
    // The whole list, untouched, merges and says it was checked.
    let whole = at("whole");
    run(&[
        "merge",
        at("s1").to_str().unwrap(),
        at("s2").to_str().unwrap(),
        "-o",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(
        json(&whole.join("merge.json"))["selection_sha256_checked"],
        true
    );
}

#[test]
fn predictions_of_a_model_not_in_models_json_are_left_out_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    two_shards(dir.path());
    // Three of shard 1's predictions relabelled as a model the shards did
    // not run: they must not stand in for the listed model's.
    copy_run(&at("s1"), &at("s1-ghost"), |to| {
        let path = to.join("predictions.jsonl");
        let relabelled: String = read(&path)
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let mut p: Value = serde_json::from_str(line).unwrap();
                if i < 3 {
                    p["model"] = "ghost".into();
                }
                p.to_string() + "\n"
            })
            .collect();
        std::fs::write(&path, relabelled).unwrap();
    });
    let merged = at("merged");
    let out = itc(
        &[
            "merge",
            at("s1-ghost").to_str().unwrap(),
            at("s2").to_str().unwrap(),
            "-o",
            merged.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("3 prediction(s) of model(s) not in models.json left out (ghost)")
            && stderr.contains("3 prediction(s) missing"),
        "{stderr}"
    );
    let record = json(&merged.join("merge.json"));
    assert_eq!(
        (
            record["predictions_unlisted"].clone(),
            record["models_unlisted"].clone(),
            record["predictions_missing"].clone()
        ),
        (Value::from(3), serde_json::json!(["ghost"]), Value::from(3))
    );
    let predictions = read(&merged.join("predictions.jsonl"));
    assert_eq!(predictions.lines().count(), 243 - 3);
    assert!(!predictions.contains("\"ghost\""));
}

/// `itc eval --shard auto` in the environment of a Slurm array task and of
/// a Kubernetes indexed Job's pod: each shard says where it found K and N,
/// `{shard}` in `--run-dir` becomes K, and the merge equals a single run.
#[test]
fn shards_from_slurm_and_kubernetes_environments_merge_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let single = single_run(dir.path());
    let kubernetes_count = [3.to_string()];
    for scheduler in ["slurm", "kubernetes"] {
        let pattern = at(&format!("{scheduler}/shard-{{shard}}"));
        let mut shards = Vec::new();
        for k in 1..=3usize {
            // Slurm: --array=0-4:2 (tasks 0, 2, 4); Kubernetes: indexes 0, 1, 2.
            let (slurm_id, index) = ((2 * (k - 1)).to_string(), (k - 1).to_string());
            let env: Vec<(&str, &str)> = match scheduler {
                "slurm" => vec![
                    ("SLURM_ARRAY_JOB_ID", "4242"),
                    ("SLURM_ARRAY_TASK_ID", &slurm_id),
                    ("SLURM_ARRAY_TASK_MIN", "0"),
                    ("SLURM_ARRAY_TASK_MAX", "4"),
                    ("SLURM_ARRAY_TASK_STEP", "2"),
                    ("SLURM_ARRAY_TASK_COUNT", "3"),
                ],
                _ => vec![
                    ("JOB_COMPLETION_INDEX", &index),
                    ("ITC_SHARD_COUNT", &kubernetes_count[0]),
                ],
            };
            let args = [
                "eval",
                "--shard",
                "auto",
                "--run-dir",
                pattern.to_str().unwrap(),
                "--no-progress",
            ];
            let out = itc(&args, &env);
            assert!(
                out.status.success(),
                "{scheduler} {k}: {}",
                text(&out.stderr)
            );
            let expected = match scheduler {
                "slurm" => format!(
                    "itc: shard {k}/3, from Slurm array job 4242 (SLURM_ARRAY_TASK_ID={slurm_id}"
                ),
                _ => format!(
                    "itc: shard {k}/3, from Kubernetes indexed Job (JOB_COMPLETION_INDEX={index}, ITC_SHARD_COUNT=3)"
                ),
            };
            assert!(
                text(&out.stderr).contains(&expected),
                "{}",
                text(&out.stderr)
            );
            let shard = at(&format!("{scheduler}/shard-{k}"));
            assert_eq!(json(&shard.join("shard.json"))["shard"]["index"], k);
            shards.push(shard.display().to_string());
        }
        let merged = at(&format!("{scheduler}-merged"));
        let mut args: Vec<&str> = vec!["merge"];
        args.extend(shards.iter().map(String::as_str));
        args.extend(["-o", merged.to_str().unwrap()]);
        run(&args);
        assert_merge_equals_single_run(&merged, &single);
    }
    // Outside any scheduler's job, auto is refused, naming what it looked for.
    let out = itc(&["eval", "--shard", "auto", "--no-progress"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("SLURM_ARRAY_TASK_ID is not set"));
}

/// The Kubernetes manifest of docs/scale-out.md, run as its pods would
/// run it: the Indexed Job's shell command once per completion index (with
/// JOB_COMPLETION_INDEX and the manifest's environment), then the merge
/// Job's. Only the `pip install` of the wheel is left out: the `itc` on PATH
/// is the one under test, and `models.toml` gives `qwen` the offline
/// baseline. The merge must equal a single run, and the report be written.
#[test]
fn the_kubernetes_manifest_runs_its_shards_and_merges_them_as_one_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/kubernetes/itc-study.yaml");
    let jobs: Vec<Value> = serde_norway::Deserializer::from_str(&read(&path))
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .collect();
    assert_eq!(jobs.len(), 2, "the eval Job and the merge Job");
    let (eval, merge) = (&jobs[0], &jobs[1]);
    assert_eq!(eval["kind"], "Job");
    assert_eq!(eval["spec"]["completionMode"], "Indexed");
    let completions = eval["spec"]["completions"].as_u64().unwrap();
    assert!(completions > 1);

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("models.toml"),
        "[[models]]\nname = \"qwen\"\nbackend = \"baseline\"\n",
    )
    .unwrap();
    let single = dir.path().join("single");
    run(&[
        "eval",
        "--config",
        dir.path().join("models.toml").to_str().unwrap(),
        "--run-dir",
        single.to_str().unwrap(),
        "--no-progress",
    ]);
    for index in 0..completions {
        let out = run_container(eval, dir.path(), &[("JOB_COMPLETION_INDEX", index)]);
        let said = format!(
            "itc: shard {}/{completions}, from Kubernetes indexed Job",
            index + 1
        );
        assert!(text(&out.stderr).contains(&said), "{}", text(&out.stderr));
    }
    let merge_out = run_container(merge, dir.path(), &[("WAIT_SECONDS", 0)]);
    let study = container_env(eval)["STUDY"].clone();
    assert_eq!(container_env(merge)["STUDY"], study, "one study");
    let runs = dir.path().join("runs").join(&study);
    assert_merge_equals_single_run(&runs.join("merged"), &single);
    assert!(runs.join("report").is_dir(), "{}", text(&merge_out.stderr));
}

/// The `env` entries of a Job's container.
fn container_env(job: &Value) -> std::collections::BTreeMap<String, String> {
    job["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Runs a Job's container command (`sh -c SCRIPT`) in `workdir` with the
/// container's environment plus `extra`, the `pip install …&&` of the wheel
/// left out and the `itc` under test first on PATH; it must succeed.
fn run_container(job: &Value, workdir: &Path, extra: &[(&str, u64)]) -> std::process::Output {
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["command"], serde_json::json!(["sh", "-c"]));
    let script = container["args"][0].as_str().unwrap();
    let (install, script) = script.split_once("&&").unwrap();
    assert!(install.trim_start().starts_with("pip install"), "{install}");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_itc")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .current_dir(workdir)
        .env("PATH", path);
    command.envs(container_env(job));
    command.envs(extra.iter().map(|(k, v)| (k, v.to_string())));
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        job["metadata"]["name"],
        text(&out.stderr)
    );
    out
}
