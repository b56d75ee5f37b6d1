//! Every official multi-turn verdict of the reference
//! (`datasets/ood/bfcl/reference-multi-turn/`) reproduced: each raw result
//! decoded as the official runner decodes it, then checked turn by turn;
//! `valid`, `error_type`, `error_message`, the turns checked, the
//! mismatched attributes and the missing results must equal the official
//! ones. Entries that involve a class without a Rust port are counted and
//! skipped.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use itc::benchmarks::bfcl::multi_turn::apis::{Globals, new_instance};
use itc::benchmarks::bfcl::multi_turn::checker::check_entry;
use itc::benchmarks::bfcl::multi_turn::decode::{decode_turns, step_format};
use itc::benchmarks::bfcl::multi_turn::exec::EntrySetup;
use itc::benchmarks::python::{PyValue, json_loads_str};
use serde_json::Value;
use support::bfcl::{gz_lines, root};

const MODEL: &str = "gpt-4.1-2025-04-14-FC";

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

struct Entry {
    setup: EntrySetup,
    ground_truth: Vec<Vec<String>>,
}

fn entries(category: &str) -> HashMap<String, Entry> {
    let truths: HashMap<String, Vec<Vec<String>>> =
        json_lines(&root().join(format!("possible_answer/BFCL_v4_{category}.json")))
            .into_iter()
            .map(|v| {
                let id = v["id"].as_str().unwrap().to_string();
                (
                    id,
                    serde_json::from_value(v["ground_truth"].clone()).unwrap(),
                )
            })
            .collect();
    json_lines(&root().join(format!("BFCL_v4_{category}.json")))
        .into_iter()
        .map(|q| {
            let id = q["id"].as_str().unwrap().to_string();
            let setup = EntrySetup {
                entry_id: id.clone(),
                involved_classes: serde_json::from_value(q["involved_classes"].clone()).unwrap(),
                initial_config: json_loads_str(&q["initial_config"].to_string()).unwrap(),
                long_context: category.contains("long_context"),
            };
            let ground_truth = truths[&id].clone();
            (
                id,
                Entry {
                    setup,
                    ground_truth,
                },
            )
        })
        .collect()
}

fn ported(classes: &[String]) -> bool {
    classes
        .iter()
        .all(|c| new_instance(c, &PyValue::Dict(vec![]), false, &Globals::default()).is_some())
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

#[derive(Default, Debug)]
struct Tally {
    checked: usize,
    agreed: usize,
    decoded: usize,
    decoded_agreed: usize,
    skipped: usize,
    disagreements: Vec<String>,
}

fn verdicts(category: &str, tally: &mut Tally) {
    let entries = entries(category);
    let dir = root().join("reference-multi-turn");
    let answers = gz_lines(&dir.join(format!("answers/{category}.jsonl.gz")));
    let verdicts = gz_lines(&dir.join(format!("verdicts/{category}.jsonl.gz")));
    let mut rounds: BTreeMap<u64, Vec<(&Value, &Value)>> = BTreeMap::new();
    for (answer, verdict) in answers.iter().zip(&verdicts) {
        assert_eq!(answer["id"], verdict["id"]);
        rounds
            .entry(answer["round"].as_u64().unwrap())
            .or_default()
            .push((answer, verdict));
    }
    for (round, pairs) in rounds {
        let globals = Globals::default();
        for (answer, want) in pairs {
            let id = answer["id"].as_str().unwrap();
            let entry = &entries[id];
            let raw = json_loads_str(&answer["raw"].to_string()).unwrap();
            let decoded = decode_turns(&raw, step_format(&raw)).unwrap();
            let official: Vec<Vec<Vec<String>>> =
                serde_json::from_value(answer["result"].clone()).unwrap();
            tally.decoded += 1;
            if decoded == official {
                tally.decoded_agreed += 1;
            } else if tally.disagreements.len() < 12 {
                tally.disagreements.push(format!(
                    "{id} round {round}: decoded\n    itc:      {decoded:?}\n    official: {official:?}"
                ));
            }
            if !ported(&entry.setup.involved_classes) {
                tally.skipped += 1;
                continue;
            }
            tally.checked += 1;
            let verdict = check_entry(&decoded, &entry.ground_truth, &entry.setup, MODEL, &globals);
            let failure = verdict.failure.as_ref();
            let got = (
                verdict.valid(),
                failure.map(|f| f.error_type.as_str().to_string()),
                failure.map(|f| f.message.clone()),
                verdict.turns.len() as u64,
                // The reference lists them sorted; the checker in `vars()` order.
                sorted(
                    failure
                        .map(|f| f.mismatched_attributes.clone())
                        .unwrap_or_default(),
                ),
                failure.map(|f| f.missing_items.clone()).unwrap_or_default(),
            );
            let expected = (
                want["valid"].as_bool().unwrap(),
                want["error_type"].as_str().map(str::to_string),
                want["error_message"].as_str().map(str::to_string),
                want["turns_checked"].as_u64().unwrap_or(0),
                sorted(strings(&want["mismatched_attributes"])),
                strings(&want["missing_items"]),
            );
            if got == expected {
                tally.agreed += 1;
            } else if tally.disagreements.len() < 12 {
                tally.disagreements.push(format!(
                    "{id} round {round} ({}):\n    itc:      {got:?}\n    official: {expected:?}",
                    answer["kind"]
                ));
            }
        }
    }
}

#[test]
fn every_reference_verdict_is_reproduced() {
    let mut failures = 0;
    for category in [
        "multi_turn_base",
        "multi_turn_miss_func",
        "multi_turn_miss_param",
        "multi_turn_long_context",
    ] {
        let mut tally = Tally::default();
        verdicts(category, &mut tally);
        println!(
            "{category}: {}/{} verdicts agree, {}/{} decoded alike, {} skipped (a class without a port)",
            tally.agreed, tally.checked, tally.decoded_agreed, tally.decoded, tally.skipped
        );
        for d in &tally.disagreements {
            println!("  {d}");
        }
        failures += tally.checked - tally.agreed + tally.decoded - tally.decoded_agreed;
    }
    assert_eq!(
        failures, 0,
        "verdicts differ from the official ones (see above)"
    );
}

/// `itc ood score bfcl` on result files in bfcl-eval's layout
/// (`<model>/multi_turn/BFCL_v4_<cat>_result.json`, lines in any order):
/// the accuracy of each round equals the official score file's, and each
/// line's verdict the official one.
#[test]
fn ood_score_gives_the_official_accuracy_and_verdicts_of_result_files() {
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("reference-multi-turn/summary.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (category, round) in [("multi_turn_base", 1), ("multi_turn_long_context", 3)] {
        let reference = root().join("reference-multi-turn");
        let answers = gz_lines(&reference.join(format!("answers/{category}.jsonl.gz")));
        let verdicts = gz_lines(&reference.join(format!("verdicts/{category}.jsonl.gz")));
        let chosen: Vec<(&Value, &Value)> = answers
            .iter()
            .zip(&verdicts)
            .filter(|(a, _)| a["round"] == round)
            .collect();
        let folder = dir.path().join(format!("r{round}/{MODEL}/multi_turn"));
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(format!("BFCL_v4_{category}_result.json"));
        // Reversed: the runner pairs lines with questions by sorted id.
        let lines: Vec<String> = chosen
            .iter()
            .rev()
            .map(|(a, _)| serde_json::json!({"id": a["id"], "result": a["raw"]}).to_string())
            .collect();
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let per_item = dir.path().join(format!("{category}.items.jsonl"));
        let out = support::itc(
            &[
                "ood",
                "score",
                "bfcl",
                "--results",
                file.to_str().unwrap(),
                "--format",
                "json",
                "--per-item",
                per_item.to_str().unwrap(),
            ],
            &[],
        );
        assert!(out.status.success(), "{}", support::text(&out.stderr));
        let score: Value = serde_json::from_slice(&out.stdout).unwrap();
        let official = &summary["categories"][category]["rounds"][round.to_string()];
        assert_eq!(
            score["correct_count"], official["correct_count"],
            "{category} round {round}"
        );
        assert_eq!(score["total_count"], official["total_count"]);
        let items: HashMap<String, Value> = std::fs::read_to_string(&per_item)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["id"].as_str().unwrap().to_string(), v)
            })
            .collect();
        for (_, want) in &chosen {
            let got = &items[want["id"].as_str().unwrap()];
            assert_eq!(got["valid"], want["valid"], "{}", want["id"]);
            assert_eq!(got["error_type"], want["error_type"], "{}", want["id"]);
        }
    }
}

/// The cells of the first box-drawing table row whose first cell is `label`.
fn row<'a>(table: &'a str, label: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| {
            l.split('│')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.first() == Some(&label))
        .unwrap_or_else(|| panic!("no row {label} in\n{table}"))
}

/// `itc ood score bfcl` on round 1 of the four multi-turn categories:
/// the leaderboard's Multi Turn columns from the official accuracies
/// (Multi Turn Acc their plain mean, in BFCL's order), said complete; one
/// category fewer and Multi Turn Acc is N/A, naming it.
#[test]
fn the_four_multi_turn_categories_fill_the_leaderboards_multi_turn_columns() {
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("reference-multi-turn/summary.json")).unwrap(),
    )
    .unwrap();
    let reference = root().join("reference-multi-turn");
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(format!("{MODEL}/multi_turn"));
    std::fs::create_dir_all(&folder).unwrap();
    let columns = [
        ("multi_turn_base", "Multi Turn Base"),
        ("multi_turn_miss_func", "Multi Turn Miss Func"),
        ("multi_turn_miss_param", "Multi Turn Miss Param"),
        ("multi_turn_long_context", "Multi Turn Long Context"),
    ];
    let mut sum = 0.0;
    for (category, _) in columns {
        let lines: Vec<String> = gz_lines(&reference.join(format!("answers/{category}.jsonl.gz")))
            .iter()
            .filter(|a| a["round"] == 1)
            .map(|a| serde_json::json!({"id": a["id"], "result": a["raw"]}).to_string())
            .collect();
        let file = folder.join(format!("BFCL_v4_{category}_result.json"));
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        sum += summary["categories"][category]["rounds"]["1"]["accuracy"]
            .as_f64()
            .unwrap();
    }
    let score = |dir: &Path| {
        let out = support::itc(
            &["ood", "score", "bfcl", "--results", dir.to_str().unwrap()],
            &[],
        );
        assert!(out.status.success(), "{}", support::text(&out.stderr));
        support::text(&out.stdout)
    };
    let shown = score(dir.path());
    let board = shown.split("The leaderboard's columns").nth(1).unwrap();
    let percent = itc::util::table::fraction_percent;
    for (category, column) in columns {
        let official = summary["categories"][category]["rounds"]["1"]["accuracy"]
            .as_f64()
            .unwrap();
        assert_eq!(row(board, column)[1], percent(official), "{column}");
    }
    assert_eq!(
        row(board, "Multi Turn Acc")[1],
        percent(sum / 4.0),
        "{board}"
    );
    assert_eq!(row(board, "Overall Acc")[1], "N/A", "{board}");
    assert!(
        board.contains(
            "Complete columns: Multi Turn Acc, Multi Turn Base, Multi Turn Miss Func, \
             Multi Turn Miss Param, Multi Turn Long Context. N/A, not all run:"
        ),
        "{board}"
    );
    std::fs::remove_file(folder.join("BFCL_v4_multi_turn_miss_param_result.json")).unwrap();
    let shown = score(dir.path());
    let board = shown.split("The leaderboard's columns").nth(1).unwrap();
    assert_eq!(row(board, "Multi Turn Acc")[1], "N/A", "{board}");
    assert!(
        board.contains("Multi Turn Acc (missing multi_turn_miss_param);"),
        "{board}"
    );
}
