//! `itc ood score tau --compat official` on a results file shaped as the
//! official harness saves it (`{timestamp, info, tasks, simulations}`),
//! made of the 2,141 reference conversations: every simulation's reward is
//! recomputed (a stored `reward_info` is ignored) and equals the official
//! evaluator's.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{itc, text};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/tau/retail")
}

fn trajectories() -> Vec<Value> {
    let file = std::fs::File::open(root().join("reference/trajectories.jsonl.gz")).unwrap();
    BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect()
}

/// `itc ood score tau --compat official` of `results` with `--per-item`,
/// `--format json` and `extra` flags.
fn score(results: &Path, per_item: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "ood",
        "score",
        "tau",
        "--compat",
        "official",
        "--results",
        results.to_str().unwrap(),
        "--per-item",
        per_item.to_str().unwrap(),
        "--format",
        "json",
    ];
    args.extend(extra);
    itc(&args, &[])
}

/// An official results file of `trajectories`' simulations, one trial each.
fn results_file(trajectories: &[Value]) -> Value {
    let tasks: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tasks.json")).unwrap()).unwrap();
    let simulations: Vec<Value> = trajectories
        .iter()
        .map(|t| {
            let mut sim = t["simulation"].clone();
            // A stored reward is never read: this one is wrong on purpose.
            sim["reward_info"] = json!({"reward": 0.5});
            sim["trial"] = json!(0);
            sim
        })
        .collect();
    json!({
        "timestamp": "2025-01-01T00:00:00",
        "info": {"git_commit": "a2c0247", "num_trials": 1, "max_steps": 200, "max_errors": 10,
                 "user_info": {}, "agent_info": {}, "environment_info": {"domain_name": "retail"}},
        "tasks": tasks,
        "simulations": simulations,
    })
}

#[test]
fn an_official_results_file_is_rewarded_again_as_the_official_evaluator_rewards() {
    let trajectories = trajectories();
    let results = results_file(&trajectories);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    std::fs::write(&path, results.to_string()).unwrap();
    let per_item = dir.path().join("verdicts.jsonl");
    let out = score(&path, &per_item, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(summary["domain"], "retail");
    let lines: Vec<Value> = std::fs::read_to_string(&per_item)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), trajectories.len());
    for (line, t) in lines.iter().zip(&trajectories) {
        assert_eq!(line["id"], t["simulation"]["id"]);
        assert_eq!(line["reward"], t["reward"], "{line}");
        let raised = !t["evaluator_exception"].is_null();
        assert_eq!(line["status"] == "evaluator_raised", raised, "{line}");
        if !raised
            && t["termination_reason"] != "max_steps"
            && t["termination_reason"] != "too_many_errors"
        {
            assert_eq!(line["reward_without_nl"], t["reward_without_nl"], "{line}");
        }
    }
    let raised = trajectories
        .iter()
        .filter(|t| !t["evaluator_exception"].is_null())
        .count();
    assert_eq!(summary["evaluator_raised"], raised);

    // A field of the wrong type is named with its place.
    let mut broken = results.clone();
    broken["info"]["num_trials"] = json!("one");
    std::fs::write(&path, broken.to_string()).unwrap();
    let out = itc(
        &["ood", "score", "tau", "--results", path.to_str().unwrap()],
        &[],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("info.num_trials"),
        "{}",
        text(&out.stderr)
    );
}

/// `--nl-judge`: the gold conversations waiting on NL assertions are judged
/// (a scripted judge that finds every assertion met), once: a second
/// scoring takes every verdict from the response cache.
#[test]
fn nl_assertions_of_a_results_file_are_judged_once() {
    let gold: Vec<Value> = trajectories()
        .into_iter()
        .filter(|t| t["kind"] == "gold")
        .collect();
    let waiting = gold.iter().filter(|t| t["reward"].is_null()).count();
    assert!(waiting > 0);
    let judge = support::server::ScriptedServer::start(|r| {
        let results = json!({"results": [{"expectedOutcome": "x", "reasoning": "ok",
                                          "metExpectation": true}]});
        match r.body.get("messages") {
            Some(_) => support::server::Reply::Answer(results.to_string()),
            None => support::server::Reply::Answer("ok".into()),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    std::fs::write(&path, results_file(&gold).to_string()).unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"judge\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"j\"\n",
            judge.base_url()
        ),
    )
    .unwrap();
    let per_item = dir.path().join("verdicts.jsonl");
    let score_judged = || {
        let judge = ["--nl-judge", "judge", "--config", config.to_str().unwrap()];
        let out = score(&path, &per_item, &judge);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_str::<Value>(text(&out.stdout).trim()).unwrap()
    };
    let summary = score_judged();
    assert_eq!(summary["nl_judged"], waiting);
    assert_eq!(summary["nl_judge_requests"], waiting);
    assert_eq!(summary["needs_nl_judge"], 0);
    let lines: Vec<Value> = std::fs::read_to_string(&per_item)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (line, t) in lines.iter().zip(&gold) {
        let expected = if t["reward"].is_null() {
            json!(1.0)
        } else {
            t["reward"].clone()
        };
        assert_eq!(line["reward"], expected, "{line}");
        assert_eq!(
            line.get("nl_judge").is_some(),
            t["reward"].is_null(),
            "{line}"
        );
    }
    assert_eq!(summary["pass_hat_ks"]["1"], 1.0);
    assert!(dir.path().join("cache").is_dir());

    let again = score_judged();
    assert_eq!(again["nl_judge_requests"], 0);
    assert_eq!(again["pass_hat_ks"], summary["pass_hat_ks"]);
    assert_eq!(
        judge
            .log()
            .iter()
            .filter(|l| l.body.contains("messages"))
            .count(),
        waiting
    );

    // The judge must come with its models file.
    let out = itc(
        &[
            "ood",
            "score",
            "tau",
            "--results",
            path.to_str().unwrap(),
            "--nl-judge",
            "judge",
        ],
        &[],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--config"),
        "{}",
        text(&out.stderr)
    );
}
