//! `ChatModel`, the free-form chats of the task-set building stages, against
//! the scripted loopback server: the request it sends, retries, the cache,
//! concurrency, and typed errors.

mod support;

use std::collections::HashSet;

use itc::build::chat::{StageStats, complete_all};
use itc::models::{Chat, ChatModel, ErrorKind, ModelSpec};
use serde_json::json;
use support::scripted_model;
use support::server::{Reply, ScriptedServer};

fn runtime() -> tokio::runtime::Runtime {
    itc::util::runtime::runtime(itc::util::runtime::Threads::Exactly(2)).unwrap()
}

/// The user message of a logged request body.
fn user_message(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["messages"][1]["content"].as_str().unwrap().to_string()
}

#[test]
fn chat_request_carries_messages_and_schema() {
    let server = ScriptedServer::start(|_| Reply::Answer("{\"ok\": true}".into()));
    let spec = ModelSpec::resolve(scripted_model(&server.base_url(), "writer")).unwrap();
    let model = ChatModel::new(&spec, None).unwrap();
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let chat = Chat::new("be brief", "write one query").with_schema(schema.clone());
    let completion = runtime().block_on(model.complete(&chat));
    let answer = completion.result.expect("answered");
    assert_eq!(answer.output.as_deref(), Some("{\"ok\": true}"));
    assert_eq!((completion.requests, completion.cache_hit), (1, false));
    let log = server.log();
    assert_eq!(log.len(), 1);
    assert!(
        log[0].path.ends_with("/chat/completions"),
        "{}",
        log[0].path
    );
    let body: serde_json::Value = serde_json::from_str(&log[0].body).unwrap();
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "be brief"})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "write one query"})
    );
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema);
    assert!(body.get("tools").is_none());
    // Without a schema, no response format is asked for.
    assert!(
        model
            .request(&Chat::new("s", "u"))
            .body
            .get("response_format")
            .is_none()
    );
}

#[test]
fn chats_retry_then_come_from_the_cache() {
    // Every chat fails once with 503 before it is answered.
    let server = ScriptedServer::start(|r| {
        if r.count % 2 == 1 {
            Reply::Status(503, None)
        } else {
            Reply::Answer(format!("reply {}", r.count))
        }
    });
    let mut config = scripted_model(&server.base_url(), "writer");
    config.concurrency = Some(1); // keeps the fail/answer alternation per chat
    let spec = ModelSpec::resolve(config).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let model = ChatModel::new(&spec, Some(cache.path())).unwrap();
    let chats: Vec<Chat> = (0..3)
        .map(|i| Chat::new("s", format!("chat {i}")))
        .collect();
    let rt = runtime();

    let mut seen = HashSet::new();
    let first = rt.block_on(complete_all(&model, chats.clone(), |i, _| {
        seen.insert(i);
    }));
    assert_eq!(seen.len(), 3);
    let mut stats = StageStats::default();
    for c in &first {
        stats.record(c, model.config());
    }
    assert_eq!(
        (stats.chats, stats.requests, stats.errors, stats.cache_hits),
        (3, 6, 0, 0)
    );
    assert_eq!(server.requests(), 6);
    assert!(chats.iter().all(|c| model.is_cached(c)));

    // The same chats again: answered from the cache, in order, no request.
    let again = rt.block_on(complete_all(&model, chats.clone(), |_, _| {}));
    assert_eq!(server.requests(), 6);
    for (a, b) in first.iter().zip(&again) {
        assert!(b.cache_hit);
        assert_eq!(
            a.result.as_ref().unwrap().output,
            b.result.as_ref().unwrap().output
        );
    }
    // Completions come back in the order of the chats.
    let log = server.log();
    for (i, c) in first.iter().enumerate() {
        let text = c.result.as_ref().unwrap().output.clone().unwrap();
        let n: usize = text.trim_start_matches("reply ").parse().unwrap();
        assert_eq!(user_message(&log[n - 1].body), format!("chat {i}"));
    }
}

#[test]
fn failures_are_typed_and_the_baseline_cannot_chat() {
    let server = ScriptedServer::start(|_| Reply::Status(400, None));
    let spec = ModelSpec::resolve(scripted_model(&server.base_url(), "writer")).unwrap();
    let model = ChatModel::new(&spec, None).unwrap();
    let completion = runtime().block_on(model.complete(&Chat::new("s", "u")));
    let (kind, _) = completion.result.unwrap_err();
    assert_eq!(kind, ErrorKind::Client);
    assert_eq!(completion.requests, 1, "a client error is not retried");

    let baseline = ModelSpec::resolve(itc::models::ModelConfig::new(
        "baseline",
        itc::models::Backend::Baseline,
    ))
    .unwrap();
    let error = ChatModel::new(&baseline, None).err().unwrap().to_string();
    assert!(error.contains("baseline"), "{error}");
}
