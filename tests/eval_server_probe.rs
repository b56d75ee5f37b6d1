//! `itc eval`'s checks of a local server before the run, against the
//! scripted server on loopback: the slot note (`GET /props`) and the
//! warning when a server in native mode ignores the tools.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer};
use support::tasks::{answer, generate};
use support::{itc, text};

/// Runs `itc eval` on `n` generated tasks; returns stderr and run.json.
fn eval(
    server: &ScriptedServer,
    dir: &Path,
    name: &str,
    n: usize,
    extra: &[&str],
) -> (String, Value) {
    let tasks_path = dir.join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(n));
    let run_dir = dir.join("runs").join(name);
    let cache = dir.join("cache");
    let base_url = server.base_url();
    let mut args = vec![
        "eval",
        "--backend",
        "openai",
        "--base-url",
        &base_url,
        "--model-id",
        "m",
        "--name",
        name,
        "--tasks",
        tasks_path.to_str().unwrap(),
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--bootstrap",
        "10",
    ];
    args.extend_from_slice(extra);
    let out = itc(&args, &[]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).unwrap()).unwrap();
    (stderr, run)
}

fn warnings(run: &Value) -> Vec<String> {
    run["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("run.json has no warnings list: {run}"))
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

fn answering(r: &Request) -> Reply {
    Reply::Answer(answer(r.task.as_deref().unwrap()))
}

#[test]
fn a_one_slot_server_is_named_and_a_higher_concurrency_is_a_warning() {
    let server =
        ScriptedServer::start(answering).with_props(json!({"total_slots": 1, "model_alias": "m"}));
    let dir = tempfile::tempdir().unwrap();

    let (stderr, run) = eval(&server, dir.path(), "four", 4, &["--concurrency", "4"]);
    let url = server.base_url();
    let expected = format!(
        "the server at {url} has 1 slot (requests it works on at once); concurrency 4 (model `four`) queues requests there, and their latencies include the wait (use --concurrency 1)"
    );
    assert!(stderr.contains(&format!("note: {expected}\n")), "{stderr}");
    assert_eq!(stderr.matches("has 1 slot").count(), 1, "once: {stderr}");
    assert_eq!(warnings(&run), vec![expected]);
    // The props request is the server's business, not a chat request.
    assert_eq!(server.info_requests(), 1);
    assert_eq!(server.requests(), 4);

    let (stderr, run) = eval(&server, dir.path(), "one", 4, &["--concurrency", "1"]);
    assert!(
        stderr.contains(&format!(
            "note: the server at {url} has 1 slot (requests it works on at once); concurrency 1 (model `one`)\n"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("queues"), "{stderr}");
    assert_eq!(warnings(&run), Vec::<String>::new());
}

/// Answers after a pause, so that requests sent together overlap at the server.
fn slowly(r: &Request) -> Reply {
    Reply::Delay(Duration::from_millis(150), Box::new(answering(r)))
}

#[test]
fn a_one_slot_server_gets_one_request_at_a_time_without_concurrency() {
    let server = ScriptedServer::start(slowly).with_props(json!({"total_slots": 1}));
    let dir = tempfile::tempdir().unwrap();
    let (stderr, run) = eval(&server, dir.path(), "smol", 6, &[]);
    assert_eq!(server.requests(), 6);
    assert_eq!(server.max_in_flight(), 1, "{stderr}");
    let url = server.base_url();
    assert!(
        stderr.contains(&format!(
            "note: the server at {url} has 1 slot (requests it works on at once); concurrency 1 (model `smol`), from the slots (--concurrency sets another)\n"
        )),
        "{stderr}"
    );
    assert_eq!(warnings(&run), Vec::<String>::new());
    // The run records the model as configured: no concurrency set.
    let models = std::fs::read_to_string(dir.path().join("runs/smol/models.json")).unwrap();
    assert!(!models.contains("concurrency"), "{models}");
}

#[test]
fn an_explicit_concurrency_above_the_slots_still_wins_with_the_warning() {
    let server = ScriptedServer::start(slowly).with_props(json!({"total_slots": 1}));
    let dir = tempfile::tempdir().unwrap();
    let (stderr, run) = eval(&server, dir.path(), "three", 6, &["--concurrency", "3"]);
    assert_eq!(server.max_in_flight(), 3, "{stderr}");
    let warned = warnings(&run);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains("concurrency 3 (model `three`) queues requests there"),
        "{warned:?}"
    );
}

/// Runs models `names` (none sets a concurrency) from one `models.toml`
/// on `tasks` tasks against `server`; returns stderr.
fn eval_models(server: &ScriptedServer, dir: &Path, names: &[&str], tasks: usize) -> String {
    let url = server.base_url();
    let config = dir.join("models.toml");
    let tables: String = names
        .iter()
        .map(|name| {
            format!(
                "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"m\"\n"
            )
        })
        .collect();
    std::fs::write(&config, tables).unwrap();
    let tasks_path = dir.join("tasks.jsonl");
    support::tasks::write(&tasks_path, &generate(tasks));
    let run_dir = dir.join("run");
    let out = itc(
        &[
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--no-cache",
            "--bootstrap",
            "10",
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    stderr
}

#[test]
fn models_without_concurrency_share_a_servers_slots() {
    let server = ScriptedServer::start(slowly).with_props(json!({"total_slots": 3}));
    let dir = tempfile::tempdir().unwrap();
    let stderr = eval_models(&server, dir.path(), &["a", "b"], 4);
    assert_eq!(server.requests(), 8);
    // Two models, three slots: two and one at once, never four each.
    assert!(server.max_in_flight() <= 3, "{}", server.max_in_flight());
    assert!(
        stderr.contains("has 3 slots (requests it works on at once); concurrency 3 (models a, b), from the slots"),
        "{stderr}"
    );
}

#[test]
fn models_that_outnumber_the_slots_take_turns_at_them() {
    let server = ScriptedServer::start(slowly).with_props(json!({"total_slots": 1}));
    let dir = tempfile::tempdir().unwrap();
    let stderr = eval_models(&server, dir.path(), &["a", "b", "c"], 3);
    assert_eq!(server.requests(), 9);
    // Three models, one slot: one request at a time, not one per model.
    assert_eq!(server.max_in_flight(), 1, "{stderr}");
    assert!(
        stderr.contains("has 1 slot (requests it works on at once); concurrency 1 (models a, b, c), from the slots: the models that set none take turns"),
        "{stderr}"
    );
    assert!(!stderr.contains("queues requests"), "{stderr}");
}

#[test]
fn a_server_without_props_gets_no_note() {
    let server = ScriptedServer::start(answering);
    let dir = tempfile::tempdir().unwrap();
    let (stderr, run) = eval(&server, dir.path(), "plain", 3, &["--concurrency", "4"]);
    assert!(server.info_requests() >= 1, "it asked");
    assert!(!stderr.contains("slot"), "{stderr}");
    assert_eq!(warnings(&run), Vec::<String>::new());
    assert_eq!(server.requests(), 3);
}

/// A server whose one-token probes count `with` prompt tokens when the
/// request has tools and `without` when not; tasks get native tool calls.
fn native_server(with: u64, without: u64) -> ScriptedServer {
    ScriptedServer::start(move |r| {
        if r.body["max_tokens"] == 1 {
            let tokens = if r.body.get("tools").is_some() {
                with
            } else {
                without
            };
            return Reply::Json(json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "I"}, "finish_reason": "length"}],
                "usage": {"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1},
            }));
        }
        let Some(tool) = r.body["tools"][0]["function"]["name"].as_str() else {
            return answering(r);
        };
        Reply::Json(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": tool, "arguments": "{}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": with, "completion_tokens": 9, "total_tokens": with + 9},
        }))
    })
}

fn probes(server: &ScriptedServer) -> Vec<Value> {
    server
        .log()
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap())
        .filter(|b| b["max_tokens"] == 1)
        .collect()
}

#[test]
fn native_mode_warns_when_the_server_ignores_the_tools() {
    let server = native_server(37, 37);
    let dir = tempfile::tempdir().unwrap();
    let (stderr, run) = eval(
        &server,
        dir.path(),
        "blind",
        3,
        &["--mode", "native", "--concurrency", "1"],
    );
    let sent = probes(&server);
    assert_eq!(sent.len(), 2, "one probe pair");
    assert!(sent[0].get("tools").is_none() && sent[1]["tools"].is_array());
    assert_eq!(sent[0]["messages"], sent[1]["messages"], "the same prompt");
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("does not show the tools"))
        .collect();
    assert_eq!(warned.len(), 1, "{stderr}");
    assert!(
        warned[0].starts_with("warning: model `blind`: the server at ")
            && warned[0].contains("counts the same prompt tokens (37) with and without the"),
        "{stderr}"
    );
    assert_eq!(
        warnings(&run),
        vec![warned[0].trim_start_matches("warning: ").to_string()]
    );
    // The tool calls still became calls.
    let predictions =
        std::fs::read_to_string(dir.path().join("runs/blind/predictions.jsonl")).unwrap();
    assert!(
        predictions.lines().all(|l| l.contains("\"calls\":[{")),
        "{predictions}"
    );

    // A re-run takes the probes from the cache: no request, same warning.
    let before = server.requests();
    let (stderr, run) = eval(
        &server,
        dir.path(),
        "blind-again",
        3,
        &["--mode", "native", "--concurrency", "1"],
    );
    assert_eq!(
        server.requests(),
        before,
        "the probes and answers are cached"
    );
    assert!(stderr.contains("does not show the tools"), "{stderr}");
    assert_eq!(warnings(&run).len(), 1);
}

#[test]
fn native_mode_is_quiet_when_the_tools_reach_the_prompt() {
    let server = native_server(120, 37);
    let dir = tempfile::tempdir().unwrap();
    let (stderr, run) = eval(
        &server,
        dir.path(),
        "seeing",
        3,
        &["--mode", "native", "--concurrency", "1"],
    );
    assert_eq!(probes(&server).len(), 2, "probed");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(warnings(&run), Vec::<String>::new());
    // Other modes send no probe.
    let server = native_server(37, 37);
    let (stderr, _) = eval(&server, dir.path(), "prompted", 3, &["--concurrency", "1"]);
    assert!(
        probes(&server).is_empty() && !stderr.contains("warning"),
        "{stderr}"
    );
}
