//! Native tool calls: the JSON form of calls (`calls` of a prediction,
//! `Call`'s hand-written Deserialize), the arguments of a native call as
//! an OpenAI-style JSON string or object (`models::backend::native_call`),
//! and the API names of tools (`models::tools::NameMap`).
//!
//! Input: `tool names, one a line \x01 JSON` or just `JSON`.
//!
//! Invariants: calls read from JSON write back and read again to the same
//! calls (floats within two ulps); a native call's arguments read the same
//! from the JSON string and from the parsed object (when no object repeats
//! a key); every tool gets a
//! valid API name, distinct tools distinct names, and an API name maps
//! back to its tool.
#![no_main]

use itc::models::backend::native_call;
use itc::models::tools::NameMap;
use itc::spec::records::{Call, Tool, Value};
use itc_fuzz::{arguments_close, has_duplicate_keys, split_head, text};
use libfuzzer_sys::fuzz_target;

fn is_api_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64
}

fn check_calls_round_trip(json: &str) {
    let Ok(calls) = serde_json::from_str::<Vec<Call>>(json) else {
        return;
    };
    let written = serde_json::to_string(&calls).expect("calls serialise");
    let again: Vec<Call> = serde_json::from_str(&written)
        .unwrap_or_else(|e| panic!("written calls do not read back: {e}\n{written}"));
    assert_eq!(again.len(), calls.len());
    for (a, b) in calls.iter().zip(&again) {
        assert_eq!(a.name, b.name);
        assert!(
            arguments_close(&a.arguments, &b.arguments),
            "calls round trip\n{a:?}\n{b:?}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let (head, json) = split_head(&input);
    let tools: Vec<Tool> = head
        .unwrap_or("")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|name| Tool {
            name: name.to_string(),
            ..Tool::default()
        })
        .collect();
    let names = NameMap::for_tools(&tools);
    let mut seen = std::collections::HashMap::new();
    for tool in &tools {
        let api = names.api_name(&tool.name);
        assert!(
            is_api_name(api),
            "invalid API name {api:?} for {:?}",
            tool.name
        );
        if let Some(other) = seen.insert(api.to_string(), tool.name.clone()) {
            assert_eq!(other, tool.name, "two tools share the API name {api:?}");
        }
    }
    for tool in &tools {
        let api = names.api_name(&tool.name).to_string();
        assert_eq!(
            names.task_name(&api),
            tool.name,
            "API name {api:?} maps back"
        );
    }

    check_calls_round_trip(json);
    if let Ok(call) = serde_json::from_str::<Call>(json) {
        check_calls_round_trip(&format!("[{}]", serde_json::to_string(&call).unwrap()));
    }

    let api_name = tools
        .first()
        .map_or("f".to_string(), |t| names.api_name(&t.name).to_string());
    let from_string = native_call(
        &api_name,
        Some(&serde_json::Value::String(json.to_string())),
        &names,
    );
    if let Some(first) = tools.first() {
        assert_eq!(from_string.name, first.name);
    }
    // A `serde_json::Value` keeps the last of duplicate keys, the call
    // reader keeps them all: only texts without duplicates compare.
    let duplicates = serde_json::from_str::<Value>(json).is_ok_and(|v| has_duplicate_keys(&v));
    if let Ok(object) = serde_json::from_str::<serde_json::Value>(json)
        && !duplicates
    {
        let from_object = native_call(&api_name, Some(&object), &names);
        assert_eq!(from_object.name, from_string.name);
        assert!(
            arguments_close(&from_object.arguments, &from_string.arguments),
            "string vs object arguments\n{from_object:?}\n{from_string:?}"
        );
        if let Ok(Value::Dict(entries)) = serde_json::from_str::<Value>(json) {
            assert_eq!(from_object.arguments.len(), entries.len(), "arguments lost");
        }
    }
});
