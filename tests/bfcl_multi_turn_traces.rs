//! Replays the reference execution traces of BFCL's multi-turn checker
//! (`datasets/ood/bfcl/reference-multi-turn/traces/`): every call the
//! official checker ran, model's and ground truth's, is run on itc's API
//! classes, and each result string and each instance's state id after
//! each checked turn must equal the official one.
//!
//! Classes without a Rust port take part by their method names only
//! (their calls and states are counted as skipped), so that ports can be
//! checked one class at a time.

mod support;

use std::collections::{BTreeMap, HashMap};

use itc::benchmarks::bfcl::multi_turn::apis::{CLASSES, Globals, new_instance};
use itc::benchmarks::bfcl::multi_turn::exec::{EntrySetup, Executed, Instances};
use itc::benchmarks::bfcl::multi_turn::state::{differences, state_id};
use itc::benchmarks::python::{PyValue, json_loads_str};
use serde_json::Value;
use support::bfcl::{gz_lines, root};

/// The model name the reference was made with.
const MODEL: &str = "gpt-4.1-2025-04-14-FC";

/// Python builtins the official `eval` reaches and itc refuses.
const BUILTINS: &[&str] = &["sum", "max", "min", "round", "len", "abs", "sorted"];

fn setups(category: &str) -> HashMap<String, EntrySetup> {
    let path = root().join(format!("BFCL_v4_{category}.json"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            let id = entry["id"].as_str().unwrap().to_string();
            let involved = entry["involved_classes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            let config = json_loads_str(&entry["initial_config"].to_string()).unwrap();
            let setup = EntrySetup {
                entry_id: id.clone(),
                involved_classes: involved,
                initial_config: config,
                long_context: category.contains("long_context"),
            };
            (id, setup)
        })
        .collect()
}

/// Method names of every class, from the function docs (for stand-ins).
fn doc_methods() -> HashMap<String, Vec<String>> {
    CLASSES
        .iter()
        .map(|(class, doc)| {
            let path = root().join(format!("multi_turn_func_doc/{doc}.json"));
            let names = std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["name"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect();
            (class.to_string(), names)
        })
        .collect()
}

fn ported(class: &str) -> bool {
    new_instance(class, &PyValue::Dict(vec![]), false, &Globals::default()).is_some()
}

#[derive(Default)]
struct Tally {
    calls: usize,
    calls_matched: usize,
    states: usize,
    states_matched: usize,
    skipped: usize,
    mismatches: Vec<String>,
}

impl Tally {
    fn note(&mut self, what: String) {
        if self.mismatches.len() < 8 {
            self.mismatches.push(what);
        }
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn compare_calls(
    where_: &str,
    calls: &[String],
    executed: &[Executed],
    expected: &[String],
    tallies: &mut BTreeMap<String, Tally>,
) {
    for ((call, got), want) in calls.iter().zip(executed).zip(expected) {
        let name = call.split('(').next().unwrap_or("").trim();
        let key = match &got.class {
            Some(class) => class.clone(),
            None if BUILTINS.contains(&name) => "(Python builtins: refused by itc)".into(),
            None => "(no class)".into(),
        };
        let tally = tallies.entry(key.clone()).or_default();
        let Some(result) = &got.result else {
            tally.skipped += 1;
            continue;
        };
        tally.calls += 1;
        if result == want {
            tally.calls_matched += 1;
        } else {
            tally.note(format!(
                "{where_}: {call}\n    itc:      {result}\n    official: {want}"
            ));
        }
    }
}

fn replay(category: &str, tallies: &mut BTreeMap<String, Tally>) {
    let setups = setups(category);
    let stand_ins = doc_methods();
    let traces = gz_lines(&root().join(format!("reference-multi-turn/traces/{category}.jsonl.gz")));
    let mut rounds: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for trace in &traces {
        rounds
            .entry(trace["round"].as_u64().unwrap())
            .or_default()
            .push(trace);
    }
    for (round, traces) in rounds {
        // One official scoring process per round: module-level objects are
        // shared by every entry of it.
        let globals = Globals::default();
        for trace in traces {
            let id = trace["id"].as_str().unwrap();
            let setup = &setups[id];
            let mut model = Instances::new(setup.clone(), MODEL).with_stand_ins(stand_ins.clone());
            let mut truth = Instances::new(setup.clone(), &format!("{MODEL}_ground_truth"))
                .with_stand_ins(stand_ins.clone());
            for turn in trace["turns"].as_array().unwrap() {
                let where_ = format!("{id} round {round} turn {}", turn["turn"]);
                for step in turn["model_steps"].as_array().unwrap() {
                    let calls = strings(&step["calls"]);
                    let executed = model.execute(&calls, &globals);
                    compare_calls(
                        &where_,
                        &calls,
                        &executed,
                        &strings(&step["results"]),
                        tallies,
                    );
                }
                let calls = strings(&turn["ground_truth"]["calls"]);
                let executed = truth.execute(&calls, &globals);
                let expected = strings(&turn["ground_truth"]["results"]);
                compare_calls(
                    &format!("{where_} (ground truth)"),
                    &calls,
                    &executed,
                    &expected,
                    tallies,
                );
                compare_states(&where_, turn, &model, &truth, tallies);
            }
        }
    }
}

fn compare_states(
    where_: &str,
    turn: &Value,
    model: &Instances,
    truth: &Instances,
    tallies: &mut BTreeMap<String, Tally>,
) {
    let model_states: HashMap<String, _> = model.states().into_iter().collect();
    let truth_states: HashMap<String, _> = truth.states().into_iter().collect();
    for (class, ids) in turn["state"].as_object().unwrap() {
        let tally = tallies.entry(class.clone()).or_default();
        if !ported(class) {
            tally.skipped += 1;
            continue;
        }
        tally.states += 1;
        let model_id = model_states.get(class).map(|s| state_id(s));
        let truth_id = truth_states.get(class).map(|s| state_id(s));
        let want_model = ids["model"].as_str().map(str::to_string);
        let want_truth = ids["ground_truth"].as_str().map(str::to_string);
        let equal = match (model_states.get(class), truth_states.get(class)) {
            (Some(m), Some(t)) => differences(m, t).is_empty(),
            _ => ids["python_equal"].as_bool().unwrap_or(false),
        };
        // `python_equal` is null when the model has no instance yet.
        let equal_matches = match ids["python_equal"].as_bool() {
            Some(official) => official == equal,
            None => model_id.is_none(),
        };
        if model_id == want_model && truth_id == want_truth && equal_matches {
            tally.states_matched += 1;
        } else {
            tally.note(format!(
                "{where_}: state of {class}: model {model_id:?} (official {want_model:?}), \
                 ground truth {truth_id:?} (official {want_truth:?}), equal {equal} (official {})",
                ids["python_equal"]
            ));
        }
    }
}

#[test]
fn every_call_and_state_of_the_reference_traces_is_reproduced() {
    let mut tallies = BTreeMap::new();
    for category in [
        "multi_turn_base",
        "multi_turn_miss_func",
        "multi_turn_miss_param",
        "multi_turn_long_context",
    ] {
        replay(category, &mut tallies);
    }
    let mut failures = 0;
    for (class, tally) in &tallies {
        println!(
            "{class}: calls {}/{} matched, states {}/{} matched, skipped {} (no port)",
            tally.calls_matched, tally.calls, tally.states_matched, tally.states, tally.skipped
        );
        for m in &tally.mismatches {
            println!("  {m}");
        }
        if !class.starts_with("(Python builtins") {
            failures += (tally.calls - tally.calls_matched) + (tally.states - tally.states_matched);
        }
    }
    assert_eq!(
        failures, 0,
        "calls or states differ from the reference (see above)"
    );
}
