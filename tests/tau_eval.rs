//! `itc eval --dataset tau:retail` runs the official conversation between
//! two servers on loopback: a scripted user who names its task, and a
//! scripted agent who replays the task's gold actions one call at a time,
//! then says it is done. Every trial then ends as the user stops, and the
//! official evaluator gives reward 1 to every task whose basis allows it
//! without an NL judge (the others: reward without NL 1, reward pending).

mod support;

use std::collections::HashMap;
use std::sync::Arc;

use itc::benchmarks::tau::format::{Task, read_tasks};
use itc::benchmarks::tau::protocol::protocol;
use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer, completion};
use support::{itc, text};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/tau/retail")
}

fn tasks() -> Vec<Task> {
    read_tasks(&root().join("tasks.json")).unwrap()
}

/// Server probes (`max_tokens: 1`, no messages) get a plain answer.
fn is_probe(body: &Value) -> bool {
    body.get("max_tokens") == Some(&json!(1)) || body.get("messages").is_none()
}

/// The user: names its task (found from its scenario in the system
/// prompt), then stops once the agent has said it is done.
fn user(prompts: &HashMap<String, String>, body: &Value) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let messages = body["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap();
    let task = prompts.get(system).expect("a known scenario");
    if messages.len() == 2 {
        return Reply::Answer(format!("Hello, I am calling about task {task}."));
    }
    Reply::Answer("Thank you. ###STOP###".into())
}

/// The agent: the gold actions of the task the user named, one call per
/// message, then a closing text.
fn agent(actions: &HashMap<String, Vec<Value>>, body: &Value) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let messages = body["messages"].as_array().unwrap();
    let opening = messages[2]["content"].as_str().unwrap();
    let task = opening.trim_end_matches('.').rsplit(' ').next().unwrap();
    let done = messages
        .iter()
        .filter(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .count();
    match actions[task].get(done) {
        Some(action) => {
            let call = json!({"id": format!("call_{done}"), "type": "function", "function": {
                "name": action["name"],
                "arguments": action["arguments"].to_string()}});
            Reply::Json(
                json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": [call]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
            )
        }
        None => Reply::Json(completion("All done: your request is complete.")),
    }
}

#[test]
fn the_gold_agent_earns_every_reward_the_basis_allows() {
    let tasks = tasks();
    let p = protocol();
    let prompts: HashMap<String, String> = tasks
        .iter()
        .map(|t| {
            let scenario = serde_json::to_value(&t.user_scenario).unwrap();
            (p.user_system_prompt(&scenario), t.id.clone())
        })
        .collect();
    let actions: HashMap<String, Vec<Value>> = tasks
        .iter()
        .map(|t| {
            let criteria = t.evaluation_criteria.as_ref().unwrap();
            let list = criteria.actions.clone().unwrap_or_default();
            (
                t.id.clone(),
                list.iter()
                    .map(|a| serde_json::to_value(a).unwrap())
                    .collect(),
            )
        })
        .collect();
    let prompts = Arc::new(prompts);
    let user_server = ScriptedServer::start(move |r| user(&prompts, &r.body));
    let actions = Arc::new(actions);
    let agent_server = ScriptedServer::start(move |r| agent(&actions, &r.body));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"gold\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"gold\"\nconcurrency = 4\n\n\
             [[models]]\nname = \"user\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"user\"\nconcurrency = 4\n",
            agent_server.base_url(),
            user_server.base_url()
        ),
    )
    .unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "tau:retail",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "gold",
            "--user-model",
            "user",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("τ³-bench retail, official evaluator"),
        "{stdout}"
    );

    // Every trial rewarded as the basis allows.
    let judged: Vec<&Task> = tasks
        .iter()
        .filter(|t| {
            let c = t.evaluation_criteria.as_ref().unwrap();
            c.nl_assertions.as_ref().is_some_and(|a| !a.is_empty())
                && c.reward_basis
                    .iter()
                    .any(|b| serde_json::to_value(b).unwrap() == "NL_ASSERTION")
        })
        .collect();
    let lines: Vec<Value> = std::fs::read_to_string(run.join("official/gold.per_item.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), tasks.len());
    for line in &lines {
        assert_eq!(line["termination_reason"], "user_stop", "{line}");
        assert_eq!(line["reward_without_nl"], 1.0, "{line}");
        let needs_judge = judged.iter().any(|t| t.id == line["task_id"]);
        let expected = if needs_judge { Value::Null } else { json!(1.0) };
        assert_eq!(line["reward"], expected, "{line}");
    }
    let official: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("official.json")).unwrap()).unwrap();
    let result = &official["results"][0];
    assert_eq!(result["needs_nl_judge"], judged.len());
    assert_eq!(result["pass_hat_ks_without_nl"]["1"], 1.0);
    let share = (tasks.len() - judged.len()) as f64 / tasks.len() as f64;
    assert!(
        (result["pass_hat_ks"]["1"].as_f64().unwrap() - share).abs() < 1e-12,
        "{result}"
    );

    // The agent got the official system prompt and tools; the user its own.
    let agent_log = agent_server.log();
    let first: Value = agent_log
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .find(|b| !is_probe(b))
        .unwrap();
    let reference =
        |name: &str| std::fs::read_to_string(root().join("reference").join(name)).unwrap();
    assert_eq!(
        first["messages"][0]["content"],
        reference("prompts/agent_system_prompt.txt")
    );
    let schemas: Value = serde_json::from_str(&reference("tool_schemas.json")).unwrap();
    assert_eq!(first["tools"], schemas);
    assert_eq!(
        (&first["tool_choice"], &first["temperature"]),
        (&json!("auto"), &json!(0.0))
    );
    let user_first: Vec<Value> = user_server
        .log()
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .filter(|b| !is_probe(b))
        .collect();
    let task0 = reference("prompts/user_simulator_system_prompt_task_0.txt");
    assert!(
        user_first
            .iter()
            .any(|b| b["messages"][0]["content"] == task0.as_str())
    );
}

#[test]
fn a_run_without_its_user_model_or_with_no_trials_is_refused_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        "[[models]]\nname = \"a\"\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel_id = \"a\"\n",
    )
    .unwrap();
    let run = dir.path().join("run");
    let base = [
        "eval",
        "--dataset",
        "tau:retail",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
    ];
    let out = itc(&base, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--user-model NAME"),
        "{}",
        text(&out.stderr)
    );
    let mut args = base.to_vec();
    args.extend(["--user-model", "a", "--trials", "0"]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--trials 0: from 1 to 100"),
        "{}",
        text(&out.stderr)
    );
    let mut args = base.to_vec();
    args.extend(["--user-model", "nobody"]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("nobody"),
        "{}",
        text(&out.stderr)
    );
    assert!(!run.join("predictions.jsonl").exists());
}
