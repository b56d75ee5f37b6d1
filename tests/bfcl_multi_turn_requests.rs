//! itc's multi-turn loop asks what bfcl-eval asks: for all 800 multi-turn
//! entries, in prompt and function-calling mode, every request equals the
//! one `bfcl-eval` 2026.3.23 sent to a scripted model (recorded in
//! `datasets/ood/bfcl/requests/multi_turn.*.delta.jsonl.gz`, see the README
//! there), the model name aside. The scripted answers are read back from
//! the recorded history: what each request appends after the previous one
//! starts with the model's answer to it.

mod support;

use std::collections::BTreeMap;

use itc::benchmarks::bfcl::Category;
use itc::benchmarks::bfcl::ask::MultiTurnDialogue;
use itc::benchmarks::bfcl::convert::convert_category;
use itc::benchmarks::bfcl::multi_turn::tasks::{MultiTurnEntry, entry_of};
use itc::benchmarks::bfcl::requests::openai::OpenAiResponses;
use itc::benchmarks::bfcl::requests::{CallMode, Sampling};
use itc::models::config::{Backend, ModelConfig};
use itc::run::dialogue::{Dialogue, Next};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::bfcl::{gz_lines, root};

const MODEL: &str = "gpt-4.1-2025-04-14";

/// Every multi-turn entry, by id.
fn entries() -> BTreeMap<String, MultiTurnEntry> {
    let mut all = BTreeMap::new();
    for category in Category::MULTI_TURN {
        let tasks = convert_category(
            category,
            &root().join(category.question_file()),
            Some(&root().join(category.possible_answer_file())),
        )
        .unwrap();
        for task in tasks {
            let entry = entry_of(&task).unwrap().unwrap();
            all.insert(task.id.clone(), entry);
        }
    }
    all
}

/// A value with every object's keys sorted, as `json.dumps(sort_keys=True)`.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn sha256_hex(body: &Value) -> String {
    let text = serde_json::to_string(&sorted(body)).unwrap();
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The reply that ends a turn.
fn closing_reply() -> Value {
    json!({"output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "I have completed the requested operations."}]}]})
}

/// The model's answer to a request: the output items at the start of what
/// the next request appends.
fn reply_from(added: &[Value]) -> Value {
    let items: Vec<Value> = added
        .iter()
        .take_while(|item| matches!(item["type"].as_str(), Some("message" | "function_call")))
        .cloned()
        .collect();
    json!({"output": items, "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// Runs every entry's dialogue against the recorded requests of `file`;
/// returns the mismatches.
fn check(file: &str, mode: CallMode) -> (usize, Vec<String>) {
    let entries = entries();
    let mut by_id: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for record in gz_lines(&root().join("requests").join(file)) {
        let id = record["id"].as_str().unwrap().to_string();
        by_id.entry(id).or_default().push(record);
    }
    assert_eq!(by_id.len(), 800, "{file}");
    let mut config = ModelConfig::new(MODEL, Backend::Openai);
    config.model_id = Some(MODEL.into());
    config.base_url = Some("http://127.0.0.1:9/v1".into());
    let (mut compared, mut differ) = (0, Vec::new());
    for (id, mut records) in by_id {
        records.sort_by_key(|r| r["seq"].as_u64());
        let entry = entries[&id].clone();
        let handler = Box::new(OpenAiResponses(mode));
        let mut dialogue = MultiTurnDialogue::new(entry, handler, &config, Sampling::default());
        let mut reply: Option<Value> = None;
        let mut previous: Option<Value> = None;
        for (k, record) in records.iter().enumerate() {
            let Ok(Next::Send(request)) = dialogue.next(reply.as_ref()) else {
                differ.push(format!("{id}: itc ended before request {k}"));
                break;
            };
            assert!(request.url.ends_with("/responses"), "{}", request.url);
            let ours = request.body;
            let same = match (&record["body_sha256"], &previous) {
                (Value::String(hash), _) => *hash == sha256_hex(&ours),
                (_, Some(before)) => {
                    let delta = &record["delta"];
                    let mut expected = before.clone();
                    for (key, value) in delta.as_object().unwrap() {
                        match key.as_str() {
                            "input_added" => expected["input"]
                                .as_array_mut()
                                .unwrap()
                                .extend(value.as_array().unwrap().iter().cloned()),
                            "model" => {}
                            _ => expected[key.as_str()] = value.clone(),
                        }
                    }
                    expected == ours
                }
                _ => unreachable!("a delta follows a request"),
            };
            compared += 1;
            if !same {
                differ.push(format!(
                    "{id} turn {} step {}: differs",
                    record["turn"], record["step"]
                ));
                break;
            }
            reply = Some(match records.get(k + 1) {
                Some(next) if next["delta"].is_object() => {
                    reply_from(next["delta"]["input_added"].as_array().unwrap())
                }
                _ => closing_reply(),
            });
            previous = Some(ours);
        }
        match dialogue.next(reply.as_ref()) {
            Ok(Next::Done(_)) => {}
            _ => differ.push(format!("{id}: itc asks more than bfcl-eval")),
        }
    }
    (compared, differ)
}

/// Every request of `file` equal to itc's.
fn assert_all_equal(file: &str, mode: CallMode) {
    let (compared, differ) = check(file, mode);
    let first = &differ[..differ.len().min(5)];
    assert!(
        differ.is_empty(),
        "{} differ, first: {first:#?}",
        differ.len()
    );
    assert_eq!(compared, 6_260);
}

#[test]
fn prompt_mode_multi_turn_requests_equal_bfcl_evals() {
    assert_all_equal(
        "multi_turn.gpt-4.1-2025-04-14.prompt.delta.jsonl.gz",
        CallMode::Prompt,
    );
}

#[test]
fn function_calling_multi_turn_requests_equal_bfcl_evals() {
    assert_all_equal(
        "multi_turn.gpt-4.1-2025-04-14-FC.delta.jsonl.gz",
        CallMode::FunctionCalling,
    );
}
