//! Batch runs end to end: `itc eval --emit-batch` writes the exact requests
//! a direct run sends; a results file made with the scripted server's own
//! logic is read back with `--import-batch` (no server running) into the
//! same predictions and scores as the direct run, and fills the cache so
//! that a later normal run sends nothing. Errors stay typed, unknown
//! results are reported, Anthropic's formats go both ways, and a
//! step-by-step run goes through one batch per step.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer, completion, task_marker};
use support::tasks::{answer, generate, write};
use support::{itc, scripted_models_toml, text};

const TASKS: usize = 12;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(path: &Path) -> Vec<Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The task id of a request body (its `[[task:ID]]` marker).
fn task_of(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .find_map(|m| m["content"].as_str().and_then(task_marker))
        .unwrap()
}

/// The scripted server's logic as a function of a body: the same answer
/// the server gives.
fn reply_body(body: &Value) -> Value {
    completion(&answer(&task_of(body)))
}

struct Setup {
    dir: tempfile::TempDir,
    tasks: PathBuf,
    config: PathBuf,
}

impl Setup {
    fn new(base_url: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("tasks.jsonl");
        write(&tasks, &generate(TASKS));
        let config = dir.path().join("models.toml");
        std::fs::write(&config, scripted_models_toml(base_url, &["m"])).unwrap();
        Setup { dir, tasks, config }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `itc eval` on the tasks with model `m`, the cache `cache`, plus `extra`.
    fn eval(&self, cache: &str, extra: &[&str]) -> std::process::Output {
        let mut args: Vec<String> = [
            "eval",
            "--config",
            self.config.to_str().unwrap(),
            "--models",
            "m",
            "--tasks",
            self.tasks.to_str().unwrap(),
            "--no-progress",
            "--cache",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(self.path(cache).display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        itc(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[])
    }
}

fn ok(out: std::process::Output) -> std::process::Output {
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// OpenAI/vLLM batch output lines answering every input line.
fn answer_openai_batch(input: &Path) -> Vec<Value> {
    lines(input)
        .iter()
        .enumerate()
        .map(|(i, line)| {
            json!({"id": format!("batch_req_{i}"), "custom_id": line["custom_id"],
                   "response": {"status_code": 200, "request_id": format!("req_{i}"), "body": reply_body(&line["body"])},
                   "error": null})
        })
        .collect()
}

/// A batch emitted for model `m` (the server then stopped), and each of
/// its requests answered as the scripted server would.
fn emitted_and_answered() -> (Setup, Vec<Value>) {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let s = Setup::new(&server.base_url());
    let batch = s.path("batch");
    ok(s.eval("cache", &["--emit-batch", batch.to_str().unwrap()]));
    drop(server);
    let answered = answer_openai_batch(&batch.join("m.openai.jsonl"));
    (s, answered)
}

/// The first of the warnings a run recorded in `run.json`.
fn first_warning(run: &Path) -> String {
    let run_json: Value = serde_json::from_str(&read(&run.join("run.json"))).unwrap();
    run_json["warnings"][0].as_str().unwrap().to_string()
}

fn write_lines(path: &Path, lines: &[Value]) {
    std::fs::write(
        path,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
}

#[test]
fn an_emitted_batch_answered_and_imported_scores_as_a_direct_run() {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let s = Setup::new(&server.base_url());
    let direct = s.path("direct");
    ok(s.eval("cache-direct", &["--run-dir", direct.to_str().unwrap()]));
    let sent: Vec<Value> = server
        .log()
        .iter()
        .map(|l| serde_json::from_str(&l.body).unwrap())
        .collect();
    let before = server.requests();

    // Emit: the bodies the direct run sent, nothing sent now.
    let batch = s.path("batch");
    let out = ok(s.eval("cache-batch", &["--emit-batch", batch.to_str().unwrap()]));
    assert_eq!(server.requests(), before, "emitting sends nothing");
    assert!(
        text(&out.stderr).contains(&format!("wrote {TASKS} request(s)")),
        "{}",
        text(&out.stderr)
    );
    let input = batch.join("m.openai.jsonl");
    let emitted = lines(&input);
    assert_eq!(emitted.len(), TASKS);
    for line in &emitted {
        assert_eq!(
            (line["method"].as_str(), line["url"].as_str()),
            (Some("POST"), Some("/v1/chat/completions"))
        );
        let id = line["custom_id"].as_str().unwrap();
        let task = task_of(&line["body"]);
        assert!(id.starts_with(&format!("m--{task}--s1--")), "{id}");
        assert!(
            sent.iter().any(|b| *b == line["body"]),
            "{task}: the body the direct run sent"
        );
    }

    // Answer it with the server's logic; import with the server stopped.
    let results = s.path("results.jsonl");
    write_lines(&results, &answer_openai_batch(&input));
    let base_url = server.base_url();
    drop(server);
    let imported = s.path("imported");
    ok(s.eval(
        "cache-batch",
        &[
            "--run-dir",
            imported.to_str().unwrap(),
            "--import-batch",
            results.to_str().unwrap(),
        ],
    ));
    let summary =
        |run: &Path| serde_json::from_str::<Value>(&read(&run.join("summary.json"))).unwrap();
    assert_eq!(summary(&imported), summary(&direct));
    let outputs = |run: &Path| {
        let mut v: Vec<(String, Value)> = lines(&run.join("predictions.jsonl"))
            .into_iter()
            .map(|p| {
                (
                    p["task_id"].as_str().unwrap().to_string(),
                    p["output"].clone(),
                )
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(outputs(&imported), outputs(&direct));

    // The cache now holds every answer: a normal run against the stopped
    // server (every request would fail) sends nothing and scores the same.
    let again = s.path("again");
    ok(s.eval("cache-batch", &["--run-dir", again.to_str().unwrap()]));
    assert_eq!(summary(&again), summary(&direct));
    assert!(base_url.starts_with("http://127.0.0.1:"));
}

#[test]
fn batch_errors_stay_typed_and_unknown_results_are_reported() {
    let (s, mut results) = emitted_and_answered();
    let id = |i: usize| results[i]["custom_id"].as_str().unwrap().to_string();
    let (failed, expired, dropped) = (id(0), id(1), id(2));
    results[0]["response"] = json!({"status_code": 500, "body": {"error": {"message": "boom"}}});
    results[1] = json!({"id": "x", "custom_id": expired, "response": null, "error": {"code": "batch_expired", "message": "expired"}});
    results.remove(2);
    results.push(
        json!({"id": "y", "custom_id": "m--gen-9999--s1--00000000deadbeef",
        "response": {"status_code": 200, "body": completion("[]")}, "error": null}),
    );
    let path = s.path("results.jsonl");
    write_lines(&path, &results);
    let run = s.path("run");
    let out = s.eval(
        "cache",
        &[
            "--run-dir",
            run.to_str().unwrap(),
            "--import-batch",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("1 of 12 batch result(s) matched no request")
            && stderr.contains("gen-9999"),
        "{stderr}"
    );
    let predictions = lines(&run.join("predictions.jsonl"));
    assert_eq!(predictions.len(), TASKS, "nothing dropped");
    let kind_of = |custom: &str| {
        let task = custom.split("--").nth(1).unwrap();
        let p = predictions.iter().find(|p| p["task_id"] == task).unwrap();
        (
            p["error_kind"].as_str().unwrap_or("").to_string(),
            p["error"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(kind_of(&failed).0, "server");
    assert_eq!(kind_of(&expired).0, "batch");
    assert!(
        kind_of(&expired).1.contains("batch_expired"),
        "{:?}",
        kind_of(&expired)
    );
    let (kind, message) = kind_of(&dropped);
    assert_eq!(kind, "batch");
    assert!(
        message.contains("no result in the batch files") && message.contains(&dropped),
        "{message}"
    );
    assert!(first_warning(&run).contains("gen-9999"));
    // A result whose custom_id itc did not write is refused, naming the line.
    write_lines(
        &path,
        &[
            json!({"custom_id": "by-hand", "response": {"status_code": 200, "body": {}}, "error": null}),
        ],
    );
    let out = s.eval(
        "cache",
        &[
            "--run-dir",
            s.path("bad").to_str().unwrap(),
            "--import-batch",
            path.to_str().unwrap(),
        ],
    );
    assert!(
        text(&out.stderr).contains("results.jsonl:1: field `custom_id`"),
        "{}",
        text(&out.stderr)
    );
}

/// A result is taken only by the request whose whole `custom_id` it
/// carries: the same key digits under another model or task are a `batch`
/// error naming the file, line and field, and an id without every part
/// itc writes is refused when the file is read.
#[test]
fn a_result_of_another_custom_id_is_not_taken() {
    let (s, mut results) = emitted_and_answered();
    let id = |i: usize| results[i]["custom_id"].as_str().unwrap().to_string();
    let (first, second, third) = (id(0), id(1), id(2));
    let part = |id: &str, n: usize| id.split("--").nth(n).unwrap().to_string();
    // Another model's line, and another task's, with these requests' keys.
    let other_model = format!("other--{}--s1--{}", part(&first, 1), part(&first, 3));
    let other_task = format!("m--{}--s1--{}", part(&third, 1), part(&second, 3));
    results[0]["custom_id"] = other_model.clone().into();
    results[1]["custom_id"] = other_task.clone().into();
    let path = s.path("results.jsonl");
    write_lines(&path, &results);
    let run = s.path("run");
    let import = |run: &Path| {
        s.eval(
            "cache",
            &[
                "--run-dir",
                run.to_str().unwrap(),
                "--import-batch",
                path.to_str().unwrap(),
            ],
        )
    };
    let out = import(&run);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "2 request(s) met a batch result with their key digits but another custom_id"
        ),
        "{stderr}"
    );
    let predictions = lines(&run.join("predictions.jsonl"));
    let of = |custom: &str| {
        let task = part(custom, 1);
        predictions
            .iter()
            .find(|p| p["task_id"] == task.as_str())
            .unwrap()
            .clone()
    };
    for (mine, line, theirs) in [(&first, 1, &other_model), (&second, 2, &other_task)] {
        let p = of(mine);
        assert_eq!(p["error_kind"], "batch", "{p}");
        let why = p["error"].as_str().unwrap();
        assert!(
            why.contains(&format!(
                "results.jsonl:{line}: field `custom_id`: `{theirs}` is not this request's `{mine}`"
            )),
            "{why}"
        );
    }
    assert!(of(&third)["error"].is_null(), "its own line is taken");
    // An id missing a part (here the model) is refused on reading.
    results[0]["custom_id"] = format!("{}--s1--{}", part(&first, 1), part(&first, 3)).into();
    write_lines(&path, &results);
    let out = import(&s.path("run-2"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("results.jsonl:1: field `custom_id`"),
        "{}",
        text(&out.stderr)
    );
}

/// A batch run again for its failures: whatever the order of the files,
/// each request keeps its success over an error, and the repeats are told.
#[test]
fn a_retried_batch_keeps_each_success_over_an_error() {
    let (s, answered) = emitted_and_answered();
    let failed = |line: &Value| {
        let mut line = line.clone();
        line["response"] = json!({"status_code": 503, "body": {"error": {"message": "busy"}}});
        line
    };
    let mut first = answered.clone();
    first[0] = failed(&answered[0]);
    let retry = vec![answered[0].clone(), failed(&answered[1])];
    let (first_path, retry_path) = (s.path("first.jsonl"), s.path("retry.jsonl"));
    write_lines(&first_path, &first);
    write_lines(&retry_path, &retry);
    let mut outputs = Vec::new();
    for (run, files) in [
        ("run-a", [&first_path, &retry_path]),
        ("run-b", [&retry_path, &first_path]),
    ] {
        let run = s.path(run);
        let out = ok(s.eval(
            &format!("cache-{}", outputs.len()),
            &[
                "--run-dir",
                run.to_str().unwrap(),
                "--import-batch",
                files[0].to_str().unwrap(),
                files[1].to_str().unwrap(),
            ],
        ));
        let stderr = text(&out.stderr);
        assert!(
            stderr
                .contains("2 batch result line(s) answered a request an earlier line had answered"),
            "{stderr}"
        );
        let predictions = lines(&run.join("predictions.jsonl"));
        assert_eq!(predictions.len(), TASKS);
        assert!(
            predictions
                .iter()
                .all(|p| p["error"].is_null() && p["output"].is_string()),
            "{predictions:?}"
        );
        assert!(first_warning(&run).contains("a success was kept"));
        let mut answers: Vec<(String, String)> = predictions
            .iter()
            .map(|p| (p["task_id"].to_string(), p["output"].to_string()))
            .collect();
        answers.sort();
        outputs.push(answers);
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn emitting_needs_no_key_and_sending_names_the_missing_one() {
    let s = Setup::new("http://127.0.0.1:9/v1");
    std::fs::write(
        &s.config,
        "[[models]]\nname = \"claude\"\nbackend = \"anthropic\"\nmodel_id = \"claude-x\"\napi_key_env = \"ITC_TEST_KEY_NEVER_SET\"\n",
    )
    .unwrap();
    let batch = s.path("batch");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--config",
            s.config.to_str().unwrap(),
            "--tasks",
            s.tasks.to_str().unwrap(),
            "--no-progress",
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        itc(&args, &[])
    };
    let out = run(&["--emit-batch", batch.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(lines(&batch.join("claude.anthropic.jsonl")).len(), TASKS);
    let out = run(&["--run-dir", s.path("sent").to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("ITC_TEST_KEY_NEVER_SET"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn anthropic_models_get_message_batches_both_ways() {
    let s = Setup::new("http://127.0.0.1:9/v1");
    std::fs::write(
        &s.config,
        "[[models]]\nname = \"claude\"\nbackend = \"anthropic\"\nmodel_id = \"claude-x\"\napi_key_env = \"ITC_TEST_ANTHROPIC_KEY\"\n",
    )
    .unwrap();
    let env = [("ITC_TEST_ANTHROPIC_KEY", "sk-ant-test-1234")];
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "eval",
            "--config",
            s.config.to_str().unwrap(),
            "--tasks",
            s.tasks.to_str().unwrap(),
            "--no-progress",
            "--cache",
            s.path("cache").to_str().unwrap(),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect();
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let batch = s.path("batch");
    let out = itc(
        &args(&["--emit-batch", batch.to_str().unwrap()])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &env,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let emitted = lines(&batch.join("claude.anthropic.jsonl"));
    assert_eq!(emitted.len(), TASKS);
    assert_eq!(emitted[0]["params"]["model"], "claude-x");
    assert!(emitted.iter().all(|l| l.get("method").is_none()));
    assert!(
        !read(&batch.join("claude.anthropic.jsonl")).contains("sk-ant-test-1234"),
        "no key in batch files"
    );
    let results: Vec<Value> = emitted
        .iter()
        .map(|l| {
            let task = task_of(&json!({"messages": l["params"]["messages"]}));
            json!({"custom_id": l["custom_id"], "result": {"type": "succeeded", "message": {
                "type": "message", "role": "assistant", "content": [{"type": "text", "text": answer(&task)}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}}})
        })
        .collect();
    let path = s.path("results.jsonl");
    write_lines(&path, &results);
    let run = s.path("run");
    let out = itc(
        &args(&[
            "--run-dir",
            run.to_str().unwrap(),
            "--import-batch",
            path.to_str().unwrap(),
        ])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
        &env,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_str(&read(&run.join("summary.json"))).unwrap();
    // The scripted answers: every seventh task the wrong tool (as in eval tests).
    let f1 = summary[0]["summary"]["selection"]["f1"].as_f64().unwrap();
    assert!(f1 > 50.0 && f1 < 100.0, "{f1}");
}

#[test]
fn a_step_by_step_run_goes_through_one_batch_per_step() {
    let dir = tempfile::tempdir().unwrap();
    // The sample's INE → forecast task, asked in two steps.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl");
    let task = read(&sample)
        .lines()
        .find(|l| l.contains("\"id\": \"itc-0010\""))
        .unwrap()
        .to_string();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, task + "\n").unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        scripted_models_toml("http://127.0.0.1:9/v1", &["m"]),
    )
    .unwrap();
    let eval = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "m",
            "--tasks",
            tasks.to_str().unwrap(),
            "--steps",
            "replay",
            "--no-progress",
            "--cache",
            dir.path().join("cache").to_str().unwrap(),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect();
        a.extend(extra.iter().map(|x| x.to_string()));
        itc(&a.iter().map(String::as_str).collect::<Vec<_>>(), &[])
    };
    // The model's answer at each step, as a function of the request.
    let step_answer = |body: &Value| {
        let step = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .count();
        let action = match step {
            0 => "[ine_codigo_municipio(nombre='Zaragoza')]",
            1 => "[aemet_prediccion_municipio(municipio='50297')]",
            _ => "[]",
        };
        completion(
            &json!({"Thought": "Primero el código, luego la predicción.", "Action": action})
                .to_string(),
        )
    };
    let run = dir.path().join("run");
    for step in 1..=3 {
        let batch = dir.path().join(format!("batch-{step}"));
        let out = eval(&["--emit-batch", batch.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let input = lines(&batch.join("m.openai.jsonl"));
        assert_eq!(input.len(), 1, "step {step}: one request");
        assert!(
            input[0]["custom_id"]
                .as_str()
                .unwrap()
                .contains(&format!("--s{step}--"))
        );
        let messages = input[0]["body"]["messages"].as_array().unwrap().len();
        assert_eq!(messages, 2 * step, "step {step} carries the earlier steps");
        let results = dir.path().join(format!("results-{step}.jsonl"));
        write_lines(
            &results,
            &[json!({"id": "b", "custom_id": input[0]["custom_id"],
            "response": {"status_code": 200, "body": step_answer(&input[0]["body"])}, "error": null})],
        );
        let mut args = vec![
            "--run-dir",
            run.to_str().unwrap(),
            "--import-batch",
            results.to_str().unwrap(),
        ];
        if step > 1 {
            args.push("--resume");
        }
        let out = eval(&args);
        // Steps 1 and 2 end waiting for the next batch (exit 3); step 3 completes.
        assert_eq!(
            out.status.code(),
            Some(if step < 3 { 3 } else { 0 }),
            "{}",
            text(&out.stderr)
        );
    }
    let prediction = &lines(&run.join("predictions.jsonl"))[0];
    assert_eq!(prediction["steps"].as_array().unwrap().len(), 3);
    let summary: Value = serde_json::from_str(&read(&run.join("summary.json"))).unwrap();
    assert_eq!(summary[0]["summary"]["invocation"]["f1"], 100.0);
    // Everything is cached: one more emit has nothing to send.
    let out = eval(&["--emit-batch", dir.path().join("batch-4").to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("nothing to send"),
        "{}",
        text(&out.stderr)
    );
}
