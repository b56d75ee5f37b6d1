//! End-to-end tests of `itc answer`: the real binary, an answer model and a
//! checker model on the scripted OpenAI-compatible server, and the files it
//! writes (SPEC §0 tasks, the provenance sidecar, rejects, the train/test
//! split and the ShareGPT export). The tasks it writes are scored with
//! `itc score` to show they are valid SPEC tasks.

mod support;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer};
use support::{itc, request_prompt_hash, text};

/// A candidate tool of the fixture catalog.
fn tool(name: &str) -> Value {
    let p = |name: &str, kind: &str| json!({"name": name, "type": kind, "description": format!("the {name}")});
    let (required, optional) = match name {
        "uk_weather" => (vec![p("city", "string")], vec![p("days", "integer")]),
        "fr_weather" => (vec![p("ville", "string")], vec![]),
        "db_trains" => (vec![p("from", "string"), p("to", "string")], vec![]),
        "dwd_weather" => (vec![p("ort", "string")], vec![]),
        "shop_login" => (vec![p("user", "string"), p("password", "string")], vec![]),
        "shop_orders" => (vec![p("token", "string")], vec![p("limit", "integer")]),
        _ => (vec![p("q", "string")], vec![]),
    };
    json!({
        "name": name,
        "description": format!("The {name} API"),
        "category": "Misc",
        "country": "GLOBAL",
        "required_parameters": required,
        "optional_parameters": optional
    })
}

/// One query of a fixture, with what the answer model and the checker say.
#[derive(Clone)]
struct Entry {
    id: &'static str,
    kind: &'static str,
    language: &'static str,
    country: &'static str,
    query: String,
    apis: Vec<&'static str>,
    tools: Vec<&'static str>,
    /// The answer model's reply.
    answer: String,
    /// The checker's reply, when it is asked.
    check: Option<String>,
}

impl Entry {
    fn line(&self) -> Value {
        json!({
            "id": self.id,
            "kind": self.kind,
            "language": self.language,
            "country": self.country,
            "category": "Misc",
            "query": self.query,
            "apis": self.apis,
            "tools": self.tools.iter().map(|t| tool(t)).collect::<Vec<_>>(),
            "provenance": {
                "stage": "generate",
                "model": "writer",
                "prompt_sha256": format!("{:0>64}", self.id.len()),
                "raw": format!("written for {}", self.id)
            }
        })
    }
}

/// A `{"Thought", "Action"}` reply.
fn reply(thought: &str, action: &str) -> String {
    json!({"Thought": thought, "Action": action}).to_string()
}

/// A checker's reply.
fn verdict(verdict: &str, problems: &str, thought: &str, action: &str) -> String {
    json!({"verdict": verdict, "problems": problems, "Thought": thought, "Action": action})
        .to_string()
}

#[allow(clippy::too_many_arguments)]
fn entry(
    id: &'static str,
    kind: &'static str,
    language: &'static str,
    query: &str,
    apis: &[&'static str],
    tools: &[&'static str],
    answer: String,
    check: Option<String>,
) -> Entry {
    Entry {
        id,
        kind,
        language,
        country: "GLOBAL",
        query: query.to_string(),
        apis: apis.to_vec(),
        tools: tools.to_vec(),
        answer,
        check,
    }
}

const S1_THOUGHT: &str = "The UK forecast covers Leeds, and the user wants 2 days.";
const S1_ACTION: &str = "[uk_weather(city='Leeds', days=2)]";
const P1_ACTION_WRONG: &str = "[db_trains(from='Berlin', to='Bremen'), dwd_weather(ort='Hamburg')]";
const P1_THOUGHT_FIXED: &str = "Die Züge nach Hamburg und das Wetter in Hamburg.";
const P1_ACTION_FIXED: &str =
    "[db_trains(from='Berlin', to='Hamburg'), dwd_weather(ort='Hamburg')]";
const N1_THOUGHT: &str = "まずログインしてトークンを得て、そのトークンで注文を取得します。";
const N1_ACTION: &str =
    "[shop_login(user='taro', password='hunter2'), shop_orders(token='$1.token', limit=5)]";

/// Single, parallel (the checker corrects it) and nested (the checker
/// confirms it, with a `'$1.token'` placeholder).
fn gold_entries() -> Vec<Entry> {
    vec![
        entry(
            "s1",
            "single",
            "en",
            "What will the weather be in Leeds over the next 2 days?",
            &["uk_weather"],
            &["fr_weather", "uk_weather"],
            reply(S1_THOUGHT, S1_ACTION),
            None,
        ),
        entry(
            "p1",
            "parallel",
            "de",
            "Zeige mir Züge von Berlin nach Hamburg und das Wetter in Hamburg.",
            &["db_trains", "dwd_weather"],
            &["dwd_weather", "uk_weather", "db_trains"],
            reply("Ich suche die Züge und das Wetter.", P1_ACTION_WRONG),
            Some(verdict(
                "wrong",
                "The destination is Hamburg, not Bremen.",
                P1_THOUGHT_FIXED,
                P1_ACTION_FIXED,
            )),
        ),
        entry(
            "n1",
            "nested",
            "ja",
            "ユーザーtaroでログインして、最新の注文を5件見せてください。パスワードはhunter2です。",
            &["shop_login", "shop_orders"],
            &["shop_orders", "shop_login"],
            reply(N1_THOUGHT, N1_ACTION),
            Some(verdict("correct", "", N1_THOUGHT, N1_ACTION)),
        ),
    ]
}

/// The entry a request is about (its query is in the user message).
fn entry_of<'a>(entries: &'a [Entry], body: &Value) -> Option<&'a Entry> {
    let user = body["messages"][1]["content"].as_str()?;
    entries.iter().find(|e| user.contains(&e.query))
}

/// The scripted answer model (`answerer`) and checker (`checker`).
fn start_models(entries: &[Entry]) -> ScriptedServer {
    let entries = entries.to_vec();
    ScriptedServer::start(move |r| {
        let Some(entry) = entry_of(&entries, &r.body) else {
            return Reply::Status(400, None);
        };
        match (r.body["model"].as_str(), &entry.check) {
            (Some("answerer"), _) => Reply::Answer(entry.answer.clone()),
            (Some("checker"), Some(check)) => Reply::Answer(check.clone()),
            _ => Reply::Status(400, None),
        }
    })
}

struct Fixture {
    dir: tempfile::TempDir,
    queries: PathBuf,
    config: PathBuf,
}

impl Fixture {
    /// Query lines (with `extra` fields merged in, as `itc filter` adds),
    /// and a `models.toml` naming `answerer` and `checker` on the server.
    fn new(server: &ScriptedServer, entries: &[Entry], extra: Value) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let queries = dir.path().join("queries.jsonl");
        let lines: String = entries
            .iter()
            .map(|e| {
                let mut line = e.line();
                for (k, v) in extra.as_object().unwrap() {
                    line[k] = v.clone();
                }
                line.to_string() + "\n"
            })
            .collect();
        std::fs::write(&queries, lines).unwrap();
        let mut toml = String::new();
        for name in ["answerer", "checker"] {
            toml.push_str(&format!(
                "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"{name}\"\ntemperature = 0.0\nconcurrency = 4\ntimeout_ms = 5000\nmax_attempts = 2\nretry_base_ms = 2\nretry_cap_ms = 10\n\n",
                server.base_url()
            ));
        }
        let config = dir.path().join("models.toml");
        std::fs::write(&config, toml).unwrap();
        Fixture {
            dir,
            queries,
            config,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// `itc answer` writing `tasks.jsonl` and `provenance.jsonl` with the
    /// cache in `cache/`, plus `extra`.
    fn answer(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "answer".to_string(),
            "--queries".into(),
            self.queries.display().to_string(),
            "--config".into(),
            self.config.display().to_string(),
            "--answerer".into(),
            "answerer".into(),
            "--cache".into(),
            self.arg("cache"),
            "--output".into(),
            self.arg("tasks.jsonl"),
            "--provenance".into(),
            self.arg("provenance.jsonl"),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        itc(&args, &[])
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn records(&self, name: &str) -> Vec<Value> {
        read_records(&self.path(name))
    }
}

fn read_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn succeeded(output: &Output) -> (String, String) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

fn ids(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| {
            r.get("id")
                .or_else(|| r.get("task_id"))
                .and_then(Value::as_str)
                .unwrap()
        })
        .collect()
}

/// The prompt hash of each (model, query id), from the requests received.
fn sent_prompt_hashes(
    server: &ScriptedServer,
    entries: &[Entry],
) -> HashMap<(String, String), String> {
    let mut hashes = HashMap::new();
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        let key = (
            body["model"].as_str().unwrap().to_string(),
            entry_of(entries, &body).unwrap().id.to_string(),
        );
        let previous = hashes.insert(key.clone(), request_prompt_hash(&body));
        assert!(previous.is_none(), "{key:?} asked twice");
    }
    hashes
}

#[test]
fn gold_answers_become_spec_tasks_with_checker_corrections_and_provenance() {
    let entries = gold_entries();
    let server = start_models(&entries);
    // Input as `itc filter` writes it: judged queries.
    let fixture = Fixture::new(&server, &entries, json!({"judgements": [], "kept": true}));
    let (stdout, stderr) = succeeded(&fixture.answer(&["--checker", "checker"]));
    assert!(
        stdout.contains("accepted 3 of 3 (1 corrected by the checker), rejected 0"),
        "{stdout}"
    );
    assert!(
        stderr.contains("answerer: 3 chats (0 cached, 0 errors), 3 requests"),
        "{stderr}"
    );
    assert!(
        stderr.contains("checker: 2 chats (0 cached, 0 errors), 2 requests"),
        "{stderr}"
    );

    // Three answers, and checks for the two tasks of several calls only;
    // the checker sees the answer model's reply as it came.
    let log = server.log();
    assert_eq!(log.len(), 5);
    let mut checked = Vec::new();
    for logged in &log {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        let entry = entry_of(&entries, &body).unwrap();
        if body["model"] == "checker" {
            let user = body["messages"][1]["content"].as_str().unwrap();
            assert!(
                user.ends_with(&format!("Proposed answer:\n{}", entry.answer)),
                "{user}"
            );
            checked.push(entry.id);
        }
    }
    checked.sort();
    assert_eq!(checked, ["n1", "p1"]);

    // The tasks, exactly: SPEC §0 fields, the corrected gold for p1, a
    // `$ref` to call 0's `token` for n1.
    let tasks = fixture.records("tasks.jsonl");
    let tools = |i: usize| entries[i].line()["tools"].clone();
    let expected = [
        json!({
            "id": "s1", "kind": "single", "language": "en", "country": "GLOBAL", "category": "Misc",
            "query": entries[0].query, "tools": tools(0),
            "gold": {"thought": S1_THOUGHT, "calls": [
                {"name": "uk_weather", "arguments": {"city": "Leeds", "days": 2}}
            ]}
        }),
        json!({
            "id": "p1", "kind": "parallel", "language": "de", "country": "GLOBAL", "category": "Misc",
            "query": entries[1].query, "tools": tools(1),
            "gold": {"thought": P1_THOUGHT_FIXED, "calls": [
                {"name": "db_trains", "arguments": {"from": "Berlin", "to": "Hamburg"}},
                {"name": "dwd_weather", "arguments": {"ort": "Hamburg"}}
            ]}
        }),
        json!({
            "id": "n1", "kind": "nested", "language": "ja", "country": "GLOBAL", "category": "Misc",
            "query": entries[2].query, "tools": tools(2),
            "gold": {"thought": N1_THOUGHT, "calls": [
                {"name": "shop_login", "arguments": {"user": "taro", "password": "hunter2"}},
                {"name": "shop_orders", "arguments": {"token": {"$ref": "0.token"}, "limit": 5}}
            ]}
        }),
    ];
    assert_eq!(tasks.len(), 3);
    for (task, expected) in tasks.iter().zip(&expected) {
        assert_eq!(task, expected);
        // The library reads it as a task, the reference as a reference.
        let typed: itc::spec::records::Task = serde_json::from_value(task.clone()).unwrap();
        assert_eq!(typed.id, expected["id"].as_str().unwrap());
    }
    let n1: itc::spec::records::Task = serde_json::from_value(tasks[2].clone()).unwrap();
    assert_eq!(
        n1.gold.calls[1].arguments[0].1,
        itc::spec::records::Value::Ref(itc::spec::records::Reference {
            call: 0,
            field: "token".into()
        })
    );

    // One provenance line per task.
    let hashes = sent_prompt_hashes(&server, &entries);
    let provenance = fixture.records("provenance.jsonl");
    assert_eq!(ids(&provenance), ["s1", "p1", "n1"]);
    for (record, entry) in provenance.iter().zip(&entries) {
        let id = entry.id;
        assert_eq!(
            record["answer"],
            json!({
                "stage": "answer",
                "model": "answerer",
                "prompt_sha256": hashes[&("answerer".to_string(), id.to_string())],
                "raw": entry.answer
            }),
            "{id}"
        );
        assert_eq!(record["query"], entry.line()["provenance"], "{id}");
        assert_eq!(record["checker_changed"], id == "p1", "{id}");
        match &entry.check {
            None => {
                assert!(record.get("check").is_none(), "{record}");
                assert!(record.get("verdict").is_none(), "{record}");
            }
            Some(check) => {
                assert_eq!(
                    record["check"],
                    json!({
                        "stage": "check",
                        "model": "checker",
                        "prompt_sha256": hashes[&("checker".to_string(), id.to_string())],
                        "raw": check
                    }),
                    "{id}"
                );
                assert_eq!(
                    record["verdict"],
                    if id == "p1" { "wrong" } else { "correct" }
                );
            }
        }
    }
    // Answer and check prompts differ, so their hashes do.
    assert_ne!(
        hashes[&("answerer".to_string(), "p1".to_string())],
        hashes[&("checker".to_string(), "p1".to_string())]
    );
    // Rejects go beside the output by default; there are none.
    assert_eq!(fixture.read("tasks.rejects.jsonl"), "");
}

#[test]
fn answers_failing_deterministic_checks_are_rejected_with_the_reason() {
    let tools = ["fr_weather", "uk_weather"];
    let single = |id: &'static str, query: &str, answer: String| {
        entry(
            id,
            "single",
            "en",
            query,
            &["uk_weather"],
            &tools,
            answer,
            None,
        )
    };
    let entries = vec![
        single(
            "ok",
            "Weather in York for 3 days, please.",
            reply("York, 3 days.", "[uk_weather(city='York', days=3)]"),
        ),
        single(
            "unknown",
            "Weather in Leeds today?",
            reply("Met Office.", "[met_office(city='Leeds')]"),
        ),
        single(
            "missing",
            "Forecast for 2 days in Bath.",
            reply("Two days.", "[uk_weather(days=2)]"),
        ),
        single(
            "type",
            "Weather in Hull for two days?",
            reply("Hull.", "[uk_weather(city='Hull', days='two')]"),
        ),
        entry(
            "later",
            "nested",
            "en",
            "Log in as taro with password hunter2 and list my orders.",
            &["shop_login", "shop_orders"],
            &["shop_login", "shop_orders"],
            reply(
                "Orders first.",
                "[shop_orders(token='$2.token'), shop_login(user='taro', password='hunter2')]",
            ),
            None,
        ),
        entry(
            "self",
            "nested",
            "en",
            "Log in as jiro with password pw and list my orders.",
            &["shop_login", "shop_orders"],
            &["shop_login", "shop_orders"],
            reply(
                "Login, then orders.",
                "[shop_login(user='jiro', password='pw'), shop_orders(token='$2.token')]",
            ),
            None,
        ),
        single(
            "target",
            "Weather in Lyon tomorrow?",
            reply("French forecast.", "[fr_weather(ville='Lyon')]"),
        ),
        single(
            "loose",
            "Weather in Derby?",
            reply("Derby.", "uk_weather(city='Derby')"),
        ),
        single(
            "empty",
            "Weather in Ely?",
            reply(" ", "[uk_weather(city='Ely')]"),
        ),
    ];
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    let rejects_path = fixture.arg("rejected.jsonl");
    let (stdout, stderr) = succeeded(&fixture.answer(&["--rejects", &rejects_path]));
    assert!(
        stdout.contains("accepted 1 of 9 (0 corrected by the checker), rejected 8"),
        "{stdout}"
    );
    assert_eq!(ids(&fixture.records("tasks.jsonl")), ["ok"]);
    assert_eq!(fixture.read("provenance.jsonl").lines().count(), 1);

    let rejects = fixture.records("rejected.jsonl");
    assert_eq!(
        ids(&rejects),
        [
            "unknown", "missing", "type", "later", "self", "target", "loose", "empty"
        ]
    );
    let reasons: HashMap<&str, &str> = rejects
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons["unknown"],
        "answer: call 1 (`met_office`): not among the candidate tools"
    );
    assert_eq!(
        reasons["missing"],
        "answer: call 1 (`uk_weather`): required parameter `city` is missing"
    );
    assert_eq!(
        reasons["type"],
        "answer: call 1 (`uk_weather`): `days` is declared integer, got string 'two'"
    );
    assert_eq!(
        reasons["later"],
        "answer: call 1 (`shop_orders`): `token` refers to the output of call 2, which does not come before it"
    );
    assert_eq!(
        reasons["self"],
        "answer: call 2 (`shop_orders`): `token` refers to the output of call 2, which does not come before it"
    );
    assert_eq!(
        reasons["target"],
        "answer: the calls use {fr_weather} but the query was written for {uk_weather}"
    );
    assert!(
        reasons["loose"].starts_with("answer: the Action does not parse strictly ("),
        "{}",
        reasons["loose"]
    );
    assert_eq!(reasons["empty"], "answer: the Thought is empty");
    for reject in &rejects {
        let id = reject["id"].as_str().unwrap();
        let entry = entries.iter().find(|e| e.id == id).unwrap();
        // The whole query is kept, with the reply that failed.
        let mut query = reject.clone();
        let object = query.as_object_mut().unwrap();
        object.remove("reason");
        let replies = object.remove("replies").unwrap();
        assert_eq!(query, entry.line(), "{id}");
        let replies = replies.as_array().unwrap();
        assert_eq!(replies.len(), 1, "{id}");
        assert_eq!(replies[0]["stage"], "answer");
        assert_eq!(replies[0]["model"], "answerer");
        assert_eq!(replies[0]["raw"], entry.answer.as_str());
        assert!(
            stderr.contains(&format!("rejected {id}: {}", reasons[id])),
            "{stderr}"
        );
    }

    // --allow-other-apis accepts the French forecast; the cache answers.
    let requests = server.requests();
    assert_eq!(requests, 9);
    let (stdout, _) =
        succeeded(&fixture.answer(&["--rejects", &rejects_path, "--allow-other-apis"]));
    assert!(stdout.contains("accepted 2 of 9"), "{stdout}");
    assert_eq!(ids(&fixture.records("tasks.jsonl")), ["ok", "target"]);
    assert_eq!(server.requests(), requests);
}

#[test]
fn checker_verdicts_that_cannot_be_trusted_reject_the_query() {
    const LOGIN: &str = "shop_login(user='taro', password='hunter2')";
    let nested = |id: &'static str, query: &str, answer: String, check: String| {
        entry(
            id,
            "nested",
            "en",
            query,
            &["shop_login", "shop_orders"],
            &["shop_login", "shop_orders"],
            answer,
            Some(check),
        )
    };
    let parallel = |id: &'static str, query: &str, answer: String, check: String| {
        entry(
            id,
            "parallel",
            "de",
            query,
            &["db_trains", "dwd_weather"],
            &["db_trains", "dwd_weather"],
            answer,
            Some(check),
        )
    };
    let good_orders = format!("[{LOGIN}, shop_orders(token='$1.token')]");
    let later = format!("[shop_orders(token='$2.token'), {LOGIN}]");
    let entries = vec![
        // The checker calls an invalid answer correct.
        nested(
            "blind",
            "Show my orders (user taro, password hunter2).",
            reply("t", &later),
            verdict("correct", "", "t", &later),
        ),
        // Its correction names an unknown tool.
        parallel(
            "typo",
            "Züge Köln nach Bonn und Wetter in Bonn.",
            reply(
                "t",
                "[db_trains(from='Köln', to='Bonn'), dwd_weather(ort='Bonn')]",
            ),
            verdict(
                "wrong",
                "style",
                "t",
                "[db_trains(from='Köln', to='Bonn'), dwd_wetter(ort='Bonn')]",
            ),
        ),
        // It says wrong but gives the same calls.
        nested(
            "same",
            "List the orders of taro, password hunter2.",
            reply("t", &good_orders),
            verdict("wrong", "I am unsure.", "t2", &good_orders),
        ),
        // Its reply has no verdict.
        parallel(
            "prose",
            "Züge Ulm nach Bonn und Wetter in Ulm.",
            reply(
                "t",
                "[db_trains(from='Ulm', to='Bonn'), dwd_weather(ort='Ulm')]",
            ),
            "Looks good to me.".to_string(),
        ),
        // It fixes an answer that misses a required parameter: accepted.
        nested(
            "fixed",
            "Log taro in (hunter2) and list 3 orders.",
            reply(
                "t",
                "[shop_login(user='taro'), shop_orders(token='$1.token', limit=3)]",
            ),
            verdict(
                "wrong",
                "password missing",
                "Login, then orders.",
                &format!("[{LOGIN}, shop_orders(token='$1.token', limit=3)]"),
            ),
        ),
    ];
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    let (stdout, _) = succeeded(&fixture.answer(&["--checker", "checker"]));
    assert!(
        stdout.contains("accepted 1 of 5 (1 corrected by the checker), rejected 4"),
        "{stdout}"
    );
    let tasks = fixture.records("tasks.jsonl");
    assert_eq!(ids(&tasks), ["fixed"]);
    assert_eq!(tasks[0]["gold"]["thought"], "Login, then orders.");
    assert_eq!(
        tasks[0]["gold"]["calls"][0]["arguments"],
        json!({"user": "taro", "password": "hunter2"})
    );
    let provenance = fixture.records("provenance.jsonl");
    assert_eq!(provenance[0]["checker_changed"], true);
    assert_eq!(provenance[0]["verdict"], "wrong");

    let rejects = fixture.records("tasks.rejects.jsonl");
    assert_eq!(ids(&rejects), ["blind", "typo", "same", "prose"]);
    let reasons: Vec<&str> = rejects
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "answer: call 1 (`shop_orders`): `token` refers to the output of call 2, which does not come before it (checker checker found it correct)",
            "checker checker's correction: call 2 (`dwd_wetter`): not among the candidate tools",
            "checker checker found the answer wrong but gave the same calls: I am unsure.",
            "checker checker: unparsable reply: no JSON object with a \"verdict\"",
        ]
    );
    // Each reject keeps both replies: the answer, then the check.
    for (reject, id) in rejects.iter().zip(["blind", "typo", "same", "prose"]) {
        let entry = entries.iter().find(|e| e.id == id).unwrap();
        let replies = reject["replies"].as_array().unwrap();
        let stages: Vec<&str> = replies
            .iter()
            .map(|r| r["stage"].as_str().unwrap())
            .collect();
        assert_eq!(stages, ["answer", "check"], "{id}");
        assert_eq!(replies[0]["raw"], entry.answer.as_str());
        assert_eq!(replies[1]["raw"], entry.check.as_deref().unwrap());
        assert_eq!(replies[1]["model"], "checker");
    }
}

/// Queries over the APIs api_a … api_e and the shop: t1–t2 share api_a;
/// t3, t4 (parallel, api_b and api_c) and t5 form one group; t7–t8 share
/// api_e; t6 and n1 stand alone.
fn split_entries() -> Vec<Entry> {
    const TOOLS: [&str; 5] = ["api_a", "api_b", "api_c", "api_d", "api_e"];
    let single = |id: &'static str, api: &'static str| {
        entry(
            id,
            "single",
            "en",
            &format!("Please look up item {id} for me."),
            &[api],
            &TOOLS,
            reply(&format!("Use {api}."), &format!("[{api}(q='{id}')]")),
            None,
        )
    };
    vec![
        single("t1", "api_a"),
        single("t2", "api_a"),
        single("t3", "api_b"),
        entry(
            "t4",
            "parallel",
            "en",
            "Please look up item t4 in both b and c.",
            &["api_b", "api_c"],
            &TOOLS,
            reply("Use b and c.", "[api_b(q='t4'), api_c(q='t4')]"),
            None,
        ),
        single("t5", "api_c"),
        single("t6", "api_d"),
        single("t7", "api_e"),
        single("t8", "api_e"),
        entry(
            "n1",
            "nested",
            "ja",
            "ユーザーtaroでログインして、注文を見せてください。パスワードはhunter2です。",
            &["shop_login", "shop_orders"],
            &["shop_login", "shop_orders"],
            reply(
                N1_THOUGHT,
                "[shop_login(user='taro', password='hunter2'), shop_orders(token='$1.token')]",
            ),
            None,
        ),
    ]
}

fn gold_apis(tasks: &[Value]) -> HashSet<String> {
    tasks
        .iter()
        .flat_map(|t| t["gold"]["calls"].as_array().unwrap().iter())
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn split_keeps_apis_apart_and_exports_training_tasks_as_sharegpt() {
    let entries = split_entries();
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    let (stdout, stderr) = succeeded(&fixture.answer(&[
        "--test-fraction",
        "0.25",
        "--seed",
        "1",
        "--train",
        &fixture.arg("train.jsonl"),
        "--test",
        &fixture.arg("test.jsonl"),
        "--sharegpt",
        &fixture.arg("itc_train.json"),
    ]));
    assert!(stdout.contains("accepted 9 of 9"), "{stdout}");
    let all = fixture.records("tasks.jsonl");
    let train = fixture.records("train.jsonl");
    let test = fixture.records("test.jsonl");
    assert!(
        stdout.contains(&format!(
            "split: {} train, {} test",
            train.len(),
            test.len()
        )),
        "{stdout}"
    );

    // Together they hold every task once, each side in input order.
    let mut together: Vec<&str> = ids(&train).into_iter().chain(ids(&test)).collect();
    together.sort();
    let mut every = ids(&all);
    every.sort();
    assert_eq!(together, every);
    for side in [&train, &test] {
        let positions: Vec<usize> = ids(side)
            .iter()
            .map(|id| ids(&all).iter().position(|x| x == id).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    }
    // No gold API on both sides; the test side stays within round(0.25 · 9) = 2
    // and is not empty (groups of one and two fit).
    assert!(gold_apis(&train).is_disjoint(&gold_apis(&test)));
    assert!((1..=2).contains(&test.len()), "{:?}", ids(&test));
    // The group of three (t3–t5, linked by the parallel t4) never fits.
    for id in ["t3", "t4", "t5"] {
        assert!(ids(&train).contains(&id), "{id}");
    }
    // The split is whole tasks, unchanged.
    for task in train.iter().chain(&test) {
        assert!(all.contains(task));
    }

    // ShareGPT: one conversation per training task, in order.
    let sharegpt: Value = serde_json::from_str(&fixture.read("itc_train.json")).unwrap();
    let records = sharegpt.as_array().unwrap();
    assert_eq!(records.len(), train.len());
    for (record, task) in records.iter().zip(&train) {
        check_sharegpt_record(record, task, &entries);
    }
    let info: Value = serde_json::from_str(&fixture.read("itc_train.dataset_info.json")).unwrap();
    assert_eq!(
        info,
        json!({"itc_train": {
            "file_name": "itc_train.json",
            "formatting": "sharegpt",
            "columns": {"messages": "conversations", "system": "system"}
        }})
    );
    assert!(stderr.contains("dataset_info.json"), "{stderr}");

    // Everything to training: the nested task's placeholder is written back
    // as the prompt teaches it. The cache answers every chat.
    assert_eq!(server.requests(), 9);
    succeeded(&fixture.answer(&[
        "--test-fraction",
        "0",
        "--sharegpt",
        &fixture.arg("all.json"),
    ]));
    assert_eq!(server.requests(), 9);
    let sharegpt: Value = serde_json::from_str(&fixture.read("all.json")).unwrap();
    let records = sharegpt.as_array().unwrap();
    assert_eq!(records.len(), 9);
    for (record, task) in records.iter().zip(&all) {
        check_sharegpt_record(record, task, &entries);
    }
    let nested: Value =
        serde_json::from_str(records[8]["conversations"][1]["value"].as_str().unwrap()).unwrap();
    assert_eq!(
        nested["Action"],
        "[shop_login(user='taro', password='hunter2'), shop_orders(token='$1.token')]"
    );
}

/// A ShareGPT record holds the task's query, its gold answer in the
/// `{"Thought", "Action"}` format, and a system prompt listing its tools.
fn check_sharegpt_record(record: &Value, task: &Value, entries: &[Entry]) {
    let id = task["id"].as_str().unwrap();
    let entry = entries.iter().find(|e| e.id == id).unwrap();
    let conversations = record["conversations"].as_array().unwrap();
    assert_eq!(conversations.len(), 2, "{id}");
    assert_eq!(
        conversations[0],
        json!({"from": "human", "value": entry.query}),
        "{id}"
    );
    assert_eq!(conversations[1]["from"], "gpt");
    let answer = conversations[1]["value"].as_str().unwrap();
    assert!(
        itc::spec::response::strict_format(answer).is_some(),
        "{id}: {answer}"
    );
    // The gold answer is the answer model's reply, re-printed.
    let given: Value = serde_json::from_str(&entry.answer).unwrap();
    let written: Value = serde_json::from_str(answer).unwrap();
    assert_eq!(written, given, "{id}");
    let system = record["system"].as_str().unwrap();
    for tool in &entry.tools {
        assert!(
            system.contains(&format!("\"name\": \"{tool}\"")),
            "{id}: {system}"
        );
        assert!(
            record["tools"]
                .as_str()
                .unwrap()
                .contains(&format!("\"name\": \"{tool}\""))
        );
    }
}

#[test]
fn a_rerun_with_the_cache_sends_nothing_and_writes_the_same_files() {
    let entries = gold_entries();
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    succeeded(&fixture.answer(&["--checker", "checker"]));
    assert_eq!(server.requests(), 5);
    let files = ["tasks.jsonl", "provenance.jsonl", "tasks.rejects.jsonl"];
    let first: Vec<String> = files.iter().map(|f| fixture.read(f)).collect();
    for f in &files {
        std::fs::remove_file(fixture.path(f)).unwrap();
    }
    let (stdout, stderr) = succeeded(&fixture.answer(&["--checker", "checker"]));
    assert_eq!(server.requests(), 5, "no request on the re-run");
    let second: Vec<String> = files.iter().map(|f| fixture.read(f)).collect();
    assert_eq!(first, second);
    assert!(
        stdout.contains("accepted 3 of 3 (1 corrected by the checker)"),
        "{stdout}"
    );
    assert!(
        stderr.contains("answerer: 3 chats (3 cached, 0 errors), 0 requests"),
        "{stderr}"
    );
    assert!(
        stderr.contains("checker: 2 chats (2 cached, 0 errors), 0 requests"),
        "{stderr}"
    );
}

#[test]
fn itc_score_gives_the_gold_answers_full_marks_on_the_produced_tasks() {
    let entries = gold_entries();
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    succeeded(&fixture.answer(&["--checker", "checker"]));

    // `gold` answers as the gold says (p1 as corrected, n1 with its
    // placeholder); `uncorrected` answers as the answer model first did.
    let prediction = |model: &str, id: &str, output: &str| {
        json!({"task_id": id, "model": model, "output": output, "calls": null, "error": null})
            .to_string()
            + "\n"
    };
    let mut lines = String::new();
    for entry in &entries {
        let gold = match entry.id {
            "p1" => reply(P1_THOUGHT_FIXED, P1_ACTION_FIXED),
            _ => entry.answer.clone(),
        };
        lines.push_str(&prediction("gold", entry.id, &gold));
    }
    for entry in &entries {
        lines.push_str(&prediction("uncorrected", entry.id, &entry.answer));
    }
    let predictions = fixture.path("predictions.jsonl");
    std::fs::write(&predictions, lines).unwrap();
    let out = itc(
        &[
            "score",
            "--tasks",
            &fixture.arg("tasks.jsonl"),
            "--predictions",
            predictions.to_str().unwrap(),
            "--format",
            "json",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    let (stdout, _) = succeeded(&out);
    let models: HashMap<String, Value> = stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (v["model"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-6;
    let gold = &models["gold"];
    assert_eq!(gold["n"], 3);
    assert!(close(&gold["selection"]["f1"], 100.0), "{gold}");
    assert!(close(&gold["invocation"]["f1"], 100.0), "{gold}");
    assert!(close(&gold["fm"], 100.0), "{gold}");
    // The uncorrected p1 (to='Bremen') shares 2 of 3 triples: (1 + 2/3 + 1) / 3.
    let uncorrected = &models["uncorrected"];
    assert!(
        close(&uncorrected["selection"]["f1"], 100.0),
        "{uncorrected}"
    );
    assert!(
        close(&uncorrected["invocation"]["f1"], 800.0 / 9.0),
        "{uncorrected}"
    );
}

/// A reply with example outputs (`itc answer --with-outputs`).
fn reply_with_outputs(thought: &str, action: &str, outputs: Value) -> String {
    json!({"Thought": thought, "Action": action, "Outputs": outputs}).to_string()
}

#[test]
fn with_outputs_records_turns_that_a_replay_run_uses() {
    let nested = |id: &'static str, outputs: Value| {
        entry(
            id,
            "nested",
            "ja",
            &format!(
                "ユーザーtaroでログインして、最新の注文を5件見せてください。パスワードはhunter2です。({id})"
            ),
            &["shop_login", "shop_orders"],
            &["shop_orders", "shop_login"],
            reply_with_outputs(N1_THOUGHT, N1_ACTION, outputs),
            None,
        )
    };
    let entries = vec![
        nested(
            "good",
            json!([{"token": "tok-77"}, {"orders": [{"id": 1}]}]),
        ),
        // The placeholder reads `token`, which the example output lacks.
        nested("nofield", json!([{"session": "tok-77"}, {"orders": []}])),
        nested("short", json!([{"token": "tok-77"}])),
        entry(
            "p2",
            "parallel",
            "de",
            "Züge von Berlin nach Hamburg und das Wetter in Hamburg, bitte.",
            &["db_trains", "dwd_weather"],
            &["dwd_weather", "db_trains"],
            reply_with_outputs(
                P1_THOUGHT_FIXED,
                P1_ACTION_FIXED,
                json!([{"verbindungen": 12}, {"temperatur": 7}]),
            ),
            None,
        ),
    ];
    let server = start_models(&entries);
    let fixture = Fixture::new(&server, &entries, json!({}));
    let out = fixture.answer(&["--with-outputs"]);
    succeeded(&out);
    // The answer model was asked for outputs.
    let system = server.log()[0].body.clone();
    assert!(system.contains("Outputs"), "{system}");
    let tasks = fixture.records("tasks.jsonl");
    assert_eq!(ids(&tasks), ["good", "p2"]);
    let good = &tasks[0];
    assert_eq!(
        good["turns"],
        json!([
            {"calls": [{"name": "shop_login", "arguments": {"user": "taro", "password": "hunter2"}}],
             "tool_outputs": [{"token": "tok-77"}]},
            {"calls": [{"name": "shop_orders", "arguments": {"token": "tok-77", "limit": 5}}],
             "tool_outputs": [{"orders": [{"id": 1}]}]}
        ])
    );
    assert_eq!(
        tasks[1]["turns"].as_array().unwrap().len(),
        1,
        "parallel: one step"
    );
    let rejects = fixture.records("tasks.rejects.jsonl");
    let reason = |id: &str| {
        rejects.iter().find(|r| r["id"] == id).unwrap()["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        reason("nofield").contains("field `token`"),
        "{}",
        reason("nofield")
    );
    assert!(
        reason("short").contains("1 output(s) for 2 call(s)"),
        "{}",
        reason("short")
    );

    // The tasks run step by step: the offline baseline is shown the outputs.
    let run = fixture.path("run");
    let out = itc(
        &[
            "eval",
            "--tasks",
            &fixture.arg("tasks.jsonl"),
            "--run-dir",
            run.to_str().unwrap(),
            "--steps",
            "replay",
            "--no-progress",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Step F1"),
        "{}",
        text(&out.stdout)
    );
}
