//! The sample set step by step (SPEC §6, §7) with an oracle model that
//! answers each gold step in turn: replay, simulate (a scripted tool model
//! answering the recorded outputs) and execute (every tool's URL moved onto
//! a loopback server that serves the recorded outputs).
//!
//! The oracle's calls are the gold's and its later steps use the values the
//! recorded outputs hold, so wherever it is shown those outputs it scores
//! 100 on everything. Executing shows them only where a call can be made:
//! 28 of the 319 gold calls use a tool whose URL template has a placeholder
//! no argument fills (an API key in the path, a code the parameters name
//! differently), and those calls fail as SPEC §7 says. The expected
//! execution figures are counted here from the task file by that rule.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use itc::run::steps::execute::endpoint_request;
use itc::spec::action::print_call;
use itc::spec::records::{Call, Task};
use itc::util::loopback::{Answer, LoopbackServer, Response, ServerOptions};
use itc::util::runtime::Threads;
use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer};
use support::{itc, scripted_models_toml, text};

fn sample_tasks() -> Vec<Task> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The oracle's calls at step `k`: the gold step's, then none.
fn oracle_calls(task: &Task, k: usize) -> Vec<Call> {
    if task.turns.is_empty() {
        return if k == 0 {
            task.gold.calls.clone()
        } else {
            Vec::new()
        };
    }
    task.turns.get(k).map_or_else(Vec::new, |t| t.calls.clone())
}

fn printed(calls: &[Call]) -> String {
    let texts: Vec<String> = calls
        .iter()
        .map(|c| {
            let mut s = String::new();
            print_call(c, &mut s);
            s
        })
        .collect();
    format!("[{}]", texts.join(", "))
}

/// Every recorded output, by the call as printed (the tool model's lookup).
fn recorded_by_call(tasks: &[Task]) -> HashMap<String, Value> {
    let mut map = HashMap::new();
    for task in tasks {
        for turn in &task.turns {
            for (call, output) in turn.calls.iter().zip(&turn.tool_outputs) {
                let mut s = String::new();
                print_call(call, &mut s);
                map.entry(s).or_insert_with(|| output.clone());
            }
        }
    }
    map
}

/// The oracle (`m`) and, for simulate runs, the tool model (`toolsim`).
fn start_models(tasks: Vec<Task>) -> ScriptedServer {
    let by_query: HashMap<String, Task> =
        tasks.iter().map(|t| (t.query.clone(), t.clone())).collect();
    let recorded = recorded_by_call(&tasks);
    ScriptedServer::start(move |request| {
        let messages = request.body["messages"].as_array().unwrap();
        let user = messages[1]["content"].as_str().unwrap_or("");
        if request.body["model"] == "toolsim" {
            let output = recorded.get(user).cloned().unwrap_or(json!({"ok": true}));
            return Reply::Answer(output.to_string());
        }
        let Some(task) = by_query.get(user) else {
            return Reply::Status(400, None);
        };
        let step = messages.iter().filter(|m| m["role"] == "assistant").count();
        let calls = oracle_calls(task, step);
        Reply::Answer(json!({"Thought": task.gold.thought, "Action": printed(&calls)}).to_string())
    })
}

fn summary(run: &Path) -> Value {
    let text = std::fs::read_to_string(run.join("summary.json")).unwrap();
    serde_json::from_str::<Value>(&text).unwrap()[0]["summary"].clone()
}

fn eval(args: &[&str]) {
    let out = itc(args, &[]);
    assert!(out.status.success(), "itc {args:?}:\n{}", text(&out.stderr));
}

fn assert_full_marks(s: &Value, what: &str) {
    for field in ["/selection/f1", "/invocation/f1", "/step_f1"] {
        assert_eq!(
            s.pointer(field).and_then(Value::as_f64),
            Some(100.0),
            "{what} {field}: {s}"
        );
    }
    assert_eq!(s["step_tasks"], 243, "{what}");
}

#[test]
fn an_oracle_scores_full_marks_when_replayed_or_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let model = start_models(sample_tasks());
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        scripted_models_toml(&model.base_url(), &["m", "toolsim"]),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let replay = dir.path().join("replay");
    eval(&[
        "eval",
        "--config",
        config,
        "--models",
        "m",
        "--steps",
        "replay",
        "--run-dir",
        replay.to_str().unwrap(),
        "--no-progress",
    ]);
    assert_full_marks(&summary(&replay), "replay");
    let simulate = dir.path().join("simulate");
    let cassette = dir.path().join("simulated.jsonl");
    eval(&[
        "eval",
        "--config",
        config,
        "--models",
        "m",
        "--steps",
        "simulate",
        "--tool-model",
        "toolsim",
        "--cassette",
        cassette.to_str().unwrap(),
        "--run-dir",
        simulate.to_str().unwrap(),
        "--no-progress",
    ]);
    assert_full_marks(&summary(&simulate), "simulate");
    // One simulated exchange per distinct call of the run.
    let exchanges = std::fs::read_to_string(&cassette).unwrap().lines().count();
    assert!(exchanges >= 280, "{exchanges} exchanges");
}

/// The sample's tools with their URLs on `base`: `https://host/path` becomes
/// `BASE/TASK_ID/host/path`, so that each task's calls have endpoints of
/// their own (two tasks record different outputs for the same call).
fn on_loopback(tasks: &[Task], base: &str) -> Vec<Task> {
    let mut moved = tasks.to_vec();
    for task in &mut moved {
        for tool in &mut task.tools {
            let rest = tool
                .url
                .split_once("://")
                .map_or(tool.url.as_str(), |(_, r)| r);
            tool.url = format!("{base}/{}/{rest}", task.id);
        }
    }
    moved
}

/// Recorded outputs by request: method, target (path and query), JSON body.
type Served = HashMap<(String, String, Value), Value>;

/// Whether every placeholder of the call's tool URL names one of its arguments.
fn fillable(task: &Task, call: &Call) -> bool {
    let tool = task.tools.iter().find(|t| t.name == call.name).unwrap();
    let mut rest = tool.url.as_str();
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap();
        if !call
            .arguments
            .iter()
            .any(|(k, _)| k == &rest[open + 1..close])
        {
            return false;
        }
        rest = &rest[close + 1..];
    }
    true
}

#[test]
fn executed_on_loopback_the_oracle_scores_full_marks_where_its_calls_execute() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = sample_tasks();
    // The server: a recorded output for each recorded call, `{"ok": true}` else.
    let served: Arc<std::sync::Mutex<Served>> = Arc::default();
    let table = Arc::clone(&served);
    let server = LoopbackServer::start(
        ServerOptions {
            thread_name: "sample-apis".into(),
            threads: Threads::Exactly(2),
            on_thread_start: None,
        },
        move |request| {
            let body = serde_json::from_slice::<Value>(request.body).unwrap_or(Value::Null);
            let key = (request.method.to_string(), request.path.to_string(), body);
            let output = table
                .lock()
                .unwrap()
                .get(&key)
                .cloned()
                .unwrap_or(json!({"ok": true}));
            async move { Answer::Respond(Response::json(200, output.to_string().into_bytes())) }
        },
    )
    .unwrap();
    let base = format!("http://{}", server.addr());
    let moved = on_loopback(&tasks, &base);
    for task in &moved {
        for turn in &task.turns {
            for (call, output) in turn.calls.iter().zip(&turn.tool_outputs) {
                let tool = task.tools.iter().find(|t| t.name == call.name).unwrap();
                if let Ok(r) = endpoint_request(tool, call) {
                    let target = match r.url.query() {
                        Some(q) => format!("{}?{q}", r.url.path()),
                        None => r.url.path().to_string(),
                    };
                    let key = (r.method, target, r.body.unwrap_or(Value::Null));
                    served.lock().unwrap().insert(key, output.clone());
                }
            }
        }
    }
    let path = dir.path().join("tasks.jsonl");
    let lines: Vec<String> = moved
        .iter()
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let model = start_models(tasks.clone());
    let config = dir.path().join("models.toml");
    std::fs::write(&config, scripted_models_toml(&model.base_url(), &["m"])).unwrap();
    let run = dir.path().join("execute");
    eval(&[
        "eval",
        "--config",
        config.to_str().unwrap(),
        "--models",
        "m",
        "--tasks",
        path.to_str().unwrap(),
        "--steps",
        "execute",
        "--allow-host",
        &server.addr().to_string(),
        "--run-dir",
        run.to_str().unwrap(),
        "--no-progress",
    ]);

    // Expected from the task file: a call executes when its URL can be filled.
    let calls: usize = tasks.iter().map(|t| t.gold.calls.len()).sum();
    let fillable_calls: usize = tasks
        .iter()
        .map(|t| t.gold.calls.iter().filter(|c| fillable(t, c)).count())
        .sum();
    let with_calls: Vec<&Task> = tasks.iter().filter(|t| !t.gold.calls.is_empty()).collect();
    let executing: Vec<&str> = with_calls
        .iter()
        .filter(|t| t.gold.calls.iter().all(|c| fillable(t, c)))
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!((calls, calls - fillable_calls), (319, 28));
    let s = summary(&run);
    assert_eq!(
        s["execution"],
        json!({"calls": calls, "executed": fillable_calls,
        "tasks": with_calls.len(), "tasks_executed": executing.len()}),
        "{s}"
    );
    // Every task whose calls all executed scores full marks, step by step too.
    let scores = std::fs::read_to_string(run.join("task_scores.jsonl")).unwrap();
    let mut checked = 0;
    for line in scores.lines() {
        let score: Value = serde_json::from_str(line).unwrap();
        if executing.contains(&score["task_id"].as_str().unwrap()) {
            checked += 1;
            for field in ["/selection/f1", "/invocation/f1", "/steps/step_f1"] {
                assert_eq!(
                    score.pointer(field).and_then(Value::as_f64),
                    Some(1.0),
                    "{field}: {score}"
                );
            }
        }
    }
    assert_eq!(checked, executing.len());
}
