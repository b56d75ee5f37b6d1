//! Step-by-step runs end to end (SPEC §6, §7): `itc eval --steps replay`,
//! `execute` against fake APIs on loopback and `simulate` with a scripted
//! tool model, each with exact expected scores; a cassette recorded by an
//! executed or simulated run replays it with every server stopped.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::apis::{CONVERTER_KEY, FakeApis};
use support::server::{Reply, Request, ScriptedServer, completion, task_marker};
use support::{itc, scripted_models_toml, text};

/// The test tasks, their tools on `base`: a nested geocode → forecast task
/// whose recorded outputs differ from what the live geocoder says, a
/// converter call (the model gets its amount wrong), an item lookup that
/// answers 404, a slow endpoint, a huge body, and a task needing no tool.
fn tasks(base: &str) -> Vec<Value> {
    let geocode = json!({"name": "geocode", "description": "Coordinates of a city", "method": "GET",
        "url": format!("{base}/geocode"),
        "required_parameters": [{"name": "city", "type": "string", "description": "City name"}]});
    let forecast = json!({"name": "forecast", "description": "Weather at coordinates", "method": "GET",
        "url": format!("{base}/forecast"),
        "required_parameters": [{"name": "lat", "type": "float", "description": "Latitude"},
                                {"name": "lon", "type": "float", "description": "Longitude"}]});
    let convert = json!({"name": "convert", "description": "Currency conversion", "method": "POST",
        "url": format!("{base}/convert"),
        "required_parameters": [{"name": "amount", "type": "float", "description": "Amount"},
                                {"name": "from", "type": "string", "description": "ISO code"},
                                {"name": "to", "type": "string", "description": "ISO code"}]});
    let item = json!({"name": "item", "description": "An item by id", "method": "GET",
        "url": format!("{base}/items/{{id}}"),
        "required_parameters": [{"name": "id", "type": "string", "description": "Item id"}]});
    let slow =
        json!({"name": "slow", "description": "A slow report", "url": format!("{base}/slow")});
    let huge =
        json!({"name": "huge", "description": "Every reading", "url": format!("{base}/huge")});
    let single = |id: &str, query: &str, tool: &Value, call: Value| {
        json!({"id": id, "kind": "single", "language": "en", "query": format!("{query} [[task:{id}]]"),
            "tools": [tool], "gold": {"thought": "One call.", "calls": [call]}})
    };
    vec![
        json!({"id": "geo-1", "kind": "nested", "language": "en",
            "query": "What is the weather in Lyon? [[task:geo-1]]",
            "tools": [geocode, forecast],
            "gold": {"thought": "Coordinates first, then the forecast.", "calls": [
                {"name": "geocode", "arguments": {"city": "Lyon"}},
                {"name": "forecast", "arguments": {"lat": {"$ref": "0.lat"}, "lon": {"$ref": "0.lon"}}}]},
            "turns": [
                {"calls": [{"name": "geocode", "arguments": {"city": "Lyon"}}],
                 "tool_outputs": [{"name": "Lyon", "lat": 45.7578, "lon": 4.832}]},
                {"calls": [{"name": "forecast", "arguments": {"lat": 45.7578, "lon": 4.832}}],
                 "tool_outputs": [{"temp_c": 9.0}]}]}),
        single(
            "convert-1",
            "Convert 100 EUR to yen.",
            &convert,
            json!({"name": "convert", "arguments": {"amount": 100, "from": "EUR", "to": "JPY"}}),
        ),
        single(
            "item-1",
            "Show item 7.",
            &item,
            json!({"name": "item", "arguments": {"id": "7"}}),
        ),
        single(
            "slow-1",
            "Get the slow report.",
            &slow,
            json!({"name": "slow", "arguments": {}}),
        ),
        single(
            "huge-1",
            "Get every reading.",
            &huge,
            json!({"name": "huge", "arguments": {}}),
        ),
        json!({"id": "none-1", "kind": "no_tool", "language": "en", "query": "Tell me a joke. [[task:none-1]]",
            "tools": [item], "gold": {"thought": "No tool does this.", "calls": []}}),
    ]
}

fn write_tasks(dir: &Path, base: &str) -> PathBuf {
    let path = dir.join("tasks.jsonl");
    let lines: Vec<String> = tasks(base).iter().map(Value::to_string).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// What the model saw last: the outputs of its previous step, from the
/// tool messages (native) or the `Observation:` message (prompt).
fn last_outputs(messages: &[Value]) -> Vec<Value> {
    let tools: Vec<Value> = messages
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap_or(Value::Null))
        .collect();
    if !tools.is_empty() {
        return tools.into_iter().rev().collect();
    }
    let last = messages.last().unwrap()["content"].as_str().unwrap_or("");
    let Some(list) = last.strip_prefix("Observation: ") else {
        return Vec::new();
    };
    let items: Vec<Value> = serde_json::from_str(list).unwrap();
    items.into_iter().map(|i| i["output"].clone()).collect()
}

/// The scripted model's calls for a task at a step, given what it saw
/// (`None`: it answers without calls).
fn model_calls(task: &str, step: usize, seen: &[Value]) -> Option<Vec<(&'static str, Value)>> {
    match (task, step) {
        ("geo-1", 0) => Some(vec![("geocode", json!({"city": "Lyon"}))]),
        ("geo-1", 1) => {
            let place = &seen[0];
            Some(vec![(
                "forecast",
                json!({"lat": place["lat"], "lon": place["lon"]}),
            )])
        }
        ("convert-1", 0) => Some(vec![(
            "convert",
            json!({"amount": 10, "from": "EUR", "to": "JPY"}),
        )]),
        ("item-1", 0) => Some(vec![("item", json!({"id": "7"}))]),
        ("slow-1", 0) => Some(vec![("slow", json!({}))]),
        ("huge-1", 0) => Some(vec![("huge", json!({}))]),
        _ => None,
    }
}

/// A call as an action string (the values are JSON literals, which the
/// action grammar reads too).
fn action(calls: &[(&str, Value)]) -> String {
    let printed: Vec<String> = calls
        .iter()
        .map(|(name, args)| {
            let args: Vec<String> = args
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("{name}({})", args.join(", "))
        })
        .collect();
    format!("[{}]", printed.join(", "))
}

/// The model, step by step: its step is the number of its earlier answers.
fn model_reply(request: &Request) -> Reply {
    let messages = request.body["messages"].as_array().unwrap();
    // The tool model of simulate runs: a chat without tools about one call.
    if request.body["model"] == "toolsim" {
        let call = messages[1]["content"].as_str().unwrap();
        let reply = if call.starts_with("geocode(") {
            json!({"lat": 12.5, "lon": -3.25})
        } else {
            json!({"ok": true, "call": call})
        };
        return Reply::Answer(reply.to_string());
    }
    let task = request.task.clone().unwrap();
    let step = messages.iter().filter(|m| m["role"] == "assistant").count();
    let calls = model_calls(&task, step, &last_outputs(messages));
    let native = request.body.get("tools").is_some();
    match (calls, native) {
        (None, _) => Reply::Answer(json!({"Thought": "Done.", "Action": "[]"}).to_string()),
        (Some(calls), false) => Reply::Answer(
            json!({"Thought": "Calling the tool.", "Action": action(&calls)}).to_string(),
        ),
        (Some(calls), true) => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    json!({"id": format!("{task}-s{step}-c{i}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            let mut body = completion("");
            body["choices"][0]["message"] =
                json!({"role": "assistant", "content": null, "tool_calls": tool_calls});
            Reply::Json(body)
        }
    }
}

fn start_model() -> ScriptedServer {
    ScriptedServer::start(model_reply)
}

/// A models file with the answering model `m` and the tool model `toolsim`.
fn models_file(dir: &Path, model: &ScriptedServer) -> PathBuf {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        scripted_models_toml(&model.base_url(), &["m", "toolsim"]),
    )
    .unwrap();
    path
}

/// The task file on `apis` and the models file on `model`, in `dir`.
fn task_and_models_files(
    dir: &Path,
    apis: &FakeApis,
    model: &ScriptedServer,
) -> (PathBuf, PathBuf) {
    (write_tasks(dir, &apis.base()), models_file(dir, model))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The summary of model `m` in a run's `summary.json`.
fn summary(run: &Path) -> Value {
    read_json(&run.join("summary.json"))
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "m")
        .unwrap()["summary"]
        .clone()
}

/// Each task's steps, by task id.
fn steps(run: &Path) -> Vec<(String, Value)> {
    let mut all: Vec<(String, Value)> = std::fs::read_to_string(run.join("predictions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|p| {
            (
                p["task_id"].as_str().unwrap().to_string(),
                p["steps"].clone(),
            )
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

fn step_of<'a>(all: &'a [(String, Value)], task: &str) -> &'a Value {
    &all.iter().find(|(id, _)| id == task).unwrap().1
}

fn round2(x: &Value) -> f64 {
    (x.as_f64().unwrap() * 100.0).round() / 100.0
}

/// Selection F1, invocation F1 and step F1 of a summary, to 2 decimals.
fn headline(s: &Value) -> [f64; 3] {
    [
        round2(&s["selection"]["f1"]),
        round2(&s["invocation"]["f1"]),
        round2(&s["step_f1"]),
    ]
}

fn eval(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let out = itc(args, env);
    assert!(
        out.status.success(),
        "itc {args:?} failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

#[test]
fn replay_shows_recorded_outputs_as_observations_and_tool_messages() {
    let (dir, apis, model) = (
        tempfile::tempdir().unwrap(),
        FakeApis::start(),
        start_model(),
    );
    let (tasks, config) = task_and_models_files(dir.path(), &apis, &model);
    for mode in ["prompt", "native"] {
        let run = dir.path().join(format!("replay-{mode}"));
        let out = eval(
            &[
                "eval",
                "--config",
                config.to_str().unwrap(),
                "--models",
                "m",
                "--tasks",
                tasks.to_str().unwrap(),
                "--run-dir",
                run.to_str().unwrap(),
                "--mode",
                mode,
                "--steps",
                "replay",
                "--no-progress",
            ],
            &[],
        );
        // Replay reaches no API.
        assert_eq!(apis.requests(), 0);
        // Step by step: geo-1 takes 3 requests (two with calls, one closing
        // answer), the other tool tasks 2, the no-tool task 1.
        let all = steps(&run);
        let geo = step_of(&all, "geo-1").as_array().unwrap();
        assert_eq!(geo.len(), 3, "{mode}: {geo:?}");
        assert_eq!(
            geo[0]["tool_outputs"],
            json!([{"name": "Lyon", "lat": 45.7578, "lon": 4.832}])
        );
        assert_eq!(geo[1]["tool_outputs"], json!([{"temp_c": 9.0}]));
        assert_eq!(
            step_of(&all, "convert-1")[0]["tool_outputs"],
            json!([{"error": "no recorded output for this call"}])
        );
        assert_eq!(step_of(&all, "none-1").as_array().unwrap().len(), 1);
        // The second step's request of geo-1 carries the first step's output.
        let second = model
            .log()
            .into_iter()
            .filter(|l| l.task.as_deref() == Some("geo-1"))
            .map(|l| serde_json::from_str::<Value>(&l.body).unwrap())
            .filter(|b| b.get("tools").is_some() == (mode == "native"))
            .find(|b| b["messages"].as_array().unwrap().len() > 2)
            .unwrap();
        let messages = second["messages"].as_array().unwrap();
        match mode {
            "native" => {
                assert_eq!(messages[2]["tool_calls"][0]["id"], "geo-1-s0-c0");
                assert_eq!(messages[3]["role"], "tool");
                assert_eq!(messages[3]["tool_call_id"], "geo-1-s0-c0");
                assert_eq!(
                    serde_json::from_str::<Value>(messages[3]["content"].as_str().unwrap())
                        .unwrap(),
                    json!({"name": "Lyon", "lat": 45.7578, "lon": 4.832})
                );
            }
            _ => assert_eq!(
                messages[3]["content"],
                r#"Observation: [{"call":"geocode(city='Lyon')","output":{"name":"Lyon","lat":45.7578,"lon":4.832}}]"#
            ),
        }
        // Exact scores: every call right but the converter's amount (1 of
        // its 3 arguments wrong: invocation F1 2/3, step F1 (1 + 2/3) / 2);
        // the forecast's coordinates match the references through the
        // shown output. Means over 6 tasks: 100, (5 + 2/3) / 6, (5 + 5/6) / 6.
        let s = summary(&run);
        assert_eq!(headline(&s), [100.0, 94.44, 97.22], "{mode}: {s}");
        // Later steps are new requests, not retries: nothing failed here.
        let figures = read_json(&run.join("run.json"));
        let m = &figures["models"][0];
        assert!(m["requests"].as_u64().unwrap() > 6, "{mode}: {m}");
        assert_eq!(m["retries"], 0, "{mode}: {m}");
        assert_eq!(s["step_tasks"], 6);
        assert!(s.get("executed_calls").is_none(), "replay executes nothing");
        assert!(
            text(&out.stdout).contains("Step F1"),
            "{}",
            text(&out.stdout)
        );
    }
}

#[test]
fn execute_calls_the_apis_and_a_replayed_cassette_reproduces_it_offline() {
    let (dir, apis, model) = (
        tempfile::tempdir().unwrap(),
        FakeApis::start(),
        start_model(),
    );
    let (tasks, config) = task_and_models_files(dir.path(), &apis, &model);
    let hosts = dir.path().join("hosts.toml");
    std::fs::write(
        &hosts,
        format!("[[hosts]]\nhost = \"{}\"\nkey_env = \"ITC_TEST_CONVERTER_KEY\"\nheader = \"X-Api-Key\"\n", apis.host()),
    )
    .unwrap();
    let cassette = dir.path().join("cassette.jsonl");
    let recorded = dir.path().join("execute");
    let env = [("ITC_TEST_CONVERTER_KEY", CONVERTER_KEY)];
    let common = |run: &Path| -> Vec<String> {
        [
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "m",
            "--tasks",
            tasks.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--steps",
            "execute",
            "--cassette",
            cassette.to_str().unwrap(),
            "--hosts",
            hosts.to_str().unwrap(),
            "--tool-timeout-ms",
            "500",
            "--max-tool-bytes",
            "4096",
            "--no-progress",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    // Without an allowed host nothing is contacted: refused before any request.
    let mut refused = common(&dir.path().join("refused"));
    refused.push("--record".into());
    let out = itc(
        &refused.iter().map(String::as_str).collect::<Vec<_>>(),
        &env,
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--allow-host"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!((apis.requests(), model.requests()), (0, 0));

    let mut record = common(&recorded);
    record.extend(["--record".into(), "--allow-host".into(), apis.host()]);
    eval(&record.iter().map(String::as_str).collect::<Vec<_>>(), &env);
    assert_eq!(apis.requests(), 6, "one request per call");
    let all = steps(&recorded);
    let geo = step_of(&all, "geo-1");
    assert_eq!(
        geo[0]["tool_outputs"],
        json!([{"name": "Lyon", "lat": 45.76, "lon": 4.84}])
    );
    assert_eq!(geo[1]["tool_outputs"][0]["temp_c"], 11.5);
    assert_eq!(
        geo[1]["tool_outputs"][0]["lat"], 45.76,
        "the live coordinates were used"
    );
    assert_eq!(geo[0]["tool_status"], json!([200]));
    let convert = &step_of(&all, "convert-1")[0];
    assert_eq!(
        convert["tool_outputs"],
        json!([{"result": 1600.0, "key_used": "***"}])
    );
    assert_eq!(step_of(&all, "item-1")[0]["tool_status"], json!([404]));
    assert_eq!(
        step_of(&all, "item-1")[0]["tool_outputs"],
        json!([{"error": "HTTP 404", "body": {"error": "no such item"}}])
    );
    assert_eq!(step_of(&all, "slow-1")[0]["tool_status"], json!([0]));
    assert_eq!(
        step_of(&all, "slow-1")[0]["tool_outputs"],
        json!([{"error": "no answer within 500 ms"}])
    );
    let huge = &step_of(&all, "huge-1")[0]["tool_outputs"][0];
    assert_eq!(
        (
            huge["truncated"].as_bool(),
            huge["body"].as_str().map(str::len)
        ),
        (Some(true), Some(4096))
    );
    let s = summary(&recorded);
    assert_eq!(headline(&s), [100.0, 94.44, 97.22], "{s}");
    assert_eq!(
        round2(&s["executed_calls"]),
        66.67,
        "4 of 6 calls answered 2xx"
    );
    assert_eq!(
        round2(&s["executed_tasks"]),
        60.0,
        "3 of the 5 tasks with calls"
    );
    // The key is in no file the run wrote, nor in the cassette.
    for entry in std::fs::read_dir(&recorded)
        .unwrap()
        .chain(std::fs::read_dir(dir.path()).unwrap())
    {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(CONVERTER_KEY),
                "{}",
                path.display()
            );
        }
    }

    // Replay with every server stopped: same steps, same scores, no socket.
    let model_url = model.base_url();
    drop(model);
    drop(apis);
    let replayed = dir.path().join("replayed");
    let mut replay = common(&replayed);
    replay.push("--replay".into());
    eval(&replay.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert_eq!(steps(&replayed), all);
    assert_eq!(summary(&replayed), s);
    assert!(model_url.starts_with("http://127.0.0.1:"));
}

#[test]
fn simulate_asks_a_tool_model_and_its_cassette_replays_the_run() {
    let (dir, apis, model) = (
        tempfile::tempdir().unwrap(),
        FakeApis::start(),
        start_model(),
    );
    let (tasks, config) = task_and_models_files(dir.path(), &apis, &model);
    let cassette = dir.path().join("simulated.jsonl");
    let args = |run: &Path, extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "m",
            "--tasks",
            tasks.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--steps",
            "simulate",
            "--cassette",
            cassette.to_str().unwrap(),
            "--no-progress",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let first = dir.path().join("simulate");
    eval(
        &args(&first, &["--tool-model", "toolsim"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(apis.requests(), 0, "no real endpoint is called");
    let all = steps(&first);
    // The forecast was asked at the coordinates the tool model made up.
    let geo = step_of(&all, "geo-1");
    assert_eq!(geo[0]["tool_outputs"], json!([{"lat": 12.5, "lon": -3.25}]));
    let forecast = &geo[1]["output"];
    assert!(
        forecast.as_str().unwrap().contains("lat=12.5, lon=-3.25"),
        "{forecast}"
    );
    assert_eq!(headline(&summary(&first)), [100.0, 94.44, 97.22]);
    let lines = std::fs::read_to_string(&cassette).unwrap();
    assert_eq!(
        lines.lines().count(),
        6,
        "one simulated exchange per call:\n{lines}"
    );
    assert!(
        lines.contains(r#""method":"SIMULATE","url":"tool:geocode""#),
        "{lines}"
    );
    // Both models stopped: the answering model's requests come from the
    // response cache, the tool outputs from the cassette.
    drop(model);
    let again = dir.path().join("again");
    eval(
        &args(&again, &["--replay"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(steps(&again), all);
    assert_eq!(summary(&again), summary(&first));
}

#[test]
fn a_failed_step_resumes_from_the_cache_and_step_settings_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let apis = FakeApis::start();
    // The second step of geo-1 fails until the switch is set.
    let healthy = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&healthy);
    let model = ScriptedServer::start(move |request| {
        let steps = request.body["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
        if request.task.as_deref() == Some("geo-1")
            && steps == 1
            && !flag.load(std::sync::atomic::Ordering::SeqCst)
        {
            return Reply::Status(500, None);
        }
        model_reply(request)
    });
    let tasks = write_tasks(dir.path(), &apis.base());
    let config = models_file(dir.path(), &model);
    let run = dir.path().join("run");
    let base = [
        "eval",
        "--config",
        config.to_str().unwrap(),
        "--models",
        "m",
        "--tasks",
        tasks.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--steps",
        "replay",
        "--ids",
        "geo-1",
        "--no-progress",
    ];
    let out = itc(&base, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let failed = steps(&run);
    assert_eq!(
        step_of(&failed, "geo-1").as_array().unwrap().len(),
        1,
        "the first step is kept"
    );
    // Another step mode may not resume this run.
    let mut other = base.to_vec();
    let at = other.iter().position(|a| *a == "replay").unwrap();
    other[at] = "single";
    other.push("--resume");
    let out = itc(&other, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("steps.json: field `mode`"),
        "{}",
        text(&out.stderr)
    );
    // Resumed: the first step comes from the cache, the rest is asked.
    healthy.store(true, std::sync::atomic::Ordering::SeqCst);
    let before = model.requests();
    let mut resume = base.to_vec();
    resume.push("--resume");
    eval(&resume, &[]);
    assert_eq!(model.requests() - before, 2, "steps 2 and 3 only");
    assert_eq!(step_of(&steps(&run), "geo-1").as_array().unwrap().len(), 3);
}

#[test]
fn replay_refuses_turns_whose_references_name_no_recorded_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = tasks("http://127.0.0.1:9")[0].clone();
    bad["turns"][0]["tool_outputs"] = json!([{"name": "Lyon", "latitude": 45.7578, "lon": 4.832}]);
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, format!("{bad}\n")).unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--tasks",
            path.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--steps",
            "replay",
            "--no-progress",
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("bad.jsonl: 1 problem(s) in the recorded steps"),
        "{stderr}"
    );
    assert!(
        stderr.contains("task geo-1:") && stderr.contains("field `lat`"),
        "{stderr}"
    );
    assert!(!run.join("predictions.jsonl").exists(), "nothing was run");
}

#[test]
fn simulate_goes_through_batch_files_with_its_tool_model() {
    let (dir, apis, model) = (
        tempfile::tempdir().unwrap(),
        FakeApis::start(),
        start_model(),
    );
    let (tasks, config) = task_and_models_files(dir.path(), &apis, &model);
    let run = dir.path().join("run");
    let cache = dir.path().join("cache");
    let itc_eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "m",
            "--tasks",
            tasks.to_str().unwrap(),
            "--steps",
            "simulate",
            "--tool-model",
            "toolsim",
            "--cache",
            cache.to_str().unwrap(),
            "--no-progress",
        ];
        args.extend(extra);
        itc(&args, &[])
    };
    let rounds = support::batch::run_rounds(
        dir.path(),
        &run,
        |batch| itc_eval(&["--emit-batch", batch.to_str().unwrap()]),
        |results, first| {
            let mut args = vec!["--run-dir", run.to_str().unwrap(), "--import-batch"];
            args.extend(results.iter().map(|r| r.to_str().unwrap()));
            if !first {
                args.push("--resume");
            }
            itc_eval(&args)
        },
        |_, body| {
            let request = Request {
                task: task_marker(&body.to_string()),
                attempt: 1,
                count: 1,
                path: String::new(),
                headers: Default::default(),
                body: body.clone(),
            };
            model_reply(&request).success_body().unwrap()
        },
    );
    // The tool model's requests went through the batches too: no server was asked.
    assert_eq!((model.requests(), apis.requests()), (0, 0));
    assert_eq!(rounds[0].to("toolsim"), 0, "the model speaks first");
    assert!(rounds.iter().any(|r| r.to("toolsim") > 0), "{rounds:?}");
    // The same steps and scores as the direct run of the test above.
    let geo = step_of(&steps(&run), "geo-1").clone();
    assert_eq!(geo[0]["tool_outputs"], json!([{"lat": 12.5, "lon": -3.25}]));
    assert_eq!(headline(&summary(&run)), [100.0, 94.44, 97.22]);
}
