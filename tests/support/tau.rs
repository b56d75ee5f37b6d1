//! Scripted τ³-bench parties for `itc eval --dataset tau:retail` on
//! loopback: a user who names its task and stops once the agent is done,
//! and an agent who plays a plan of calls for the task the user named.

use std::collections::HashMap;

use itc::benchmarks::tau::format::{Task, read_tasks};
use itc::benchmarks::tau::protocol::protocol;
use serde_json::{Value, json};

use super::server::{Reply, completion};

/// The retail tasks.
pub fn tasks() -> Vec<Task> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    read_tasks(&root.join("datasets/ood/tau/retail/tasks.json")).unwrap()
}

/// Server probes (`max_tokens: 1`, no messages) get a plain answer.
pub fn is_probe(body: &Value) -> bool {
    body.get("max_tokens") == Some(&json!(1)) || body.get("messages").is_none()
}

/// The task named in `text` (`… calling about task N.`).
pub fn named_task(text: &str) -> &str {
    let start = text.find("calling about task ").unwrap() + "calling about task ".len();
    &text[start..start + text[start..].find('.').unwrap()]
}

/// Each task's user system prompt, mapped to the task's id.
pub fn user_prompts(tasks: &[Task]) -> HashMap<String, String> {
    tasks
        .iter()
        .map(|t| {
            let scenario = serde_json::to_value(&t.user_scenario).unwrap();
            (protocol().user_system_prompt(&scenario), t.id.clone())
        })
        .collect()
}

/// A task's gold actions as calls `{name, arguments}`.
pub fn gold_plan(task: &Task) -> Vec<Value> {
    let criteria = task.evaluation_criteria.as_ref().unwrap();
    criteria
        .actions
        .iter()
        .flatten()
        .map(|a| {
            let a = serde_json::to_value(a).unwrap();
            json!({"name": a["name"], "arguments": a["arguments"]})
        })
        .collect()
}

/// The user: names its task (found from its scenario in the system
/// prompt), `extra` after it, then stops once the agent has answered.
pub fn user(prompts: &HashMap<String, String>, body: &Value, extra: &str) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let messages = body["messages"].as_array().unwrap();
    let task = &prompts[messages[0]["content"].as_str().unwrap()];
    if messages.len() == 2 {
        return Reply::Answer(format!("Hello, I am calling about task {task}.{extra}"));
    }
    Reply::Answer("Thank you. ###STOP###".into())
}

/// The agent: its plan for the task the user named, one call per message,
/// then a closing text.
pub fn agent(plans: &HashMap<String, Vec<Value>>, body: &Value) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let messages = body["messages"].as_array().unwrap();
    let task = named_task(messages[2]["content"].as_str().unwrap());
    let done = messages
        .iter()
        .filter(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .count();
    match plans[task].get(done) {
        Some(action) => {
            let call = json!({"id": format!("call_{done}"), "type": "function", "function": {
                "name": action["name"], "arguments": action["arguments"].to_string()}});
            Reply::Json(
                json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": [call]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
            )
        }
        None => Reply::Json(completion("All done: your request is complete.")),
    }
}
