//! Step-by-step runs under attack (issue 34): a model answer of many calls
//! to an endpoint with huge bodies, a tool model with a huge answer or none,
//! a host key made of URL-special characters that endpoints echo or make
//! fail, and arguments that try to climb a URL's path or add parameters.
//! Each run's bounds and masks are checked on what the run writes and on
//! what the model is sent.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use itc::util::loopback::{Answer, LoopbackServer, Response, ServerOptions};
use itc::util::runtime::Threads;
use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer, completion};
use support::{itc, scripted_models_toml, text};

/// A key with every character URLs, JSON and headers write differently.
const KEY: &str = "k3y/+=~&%?#:\"\\ end";
const KEY_ENV: &str = "ITC_TEST_HOSTILE_KEY";

/// Bytes of each `/big` body.
const BIG: usize = 4_000;

/// Endpoints on loopback; every request target is logged.
struct Endpoints {
    server: LoopbackServer,
    targets: Arc<Mutex<Vec<String>>>,
}

impl Endpoints {
    fn start() -> Endpoints {
        let targets = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&targets);
        let options = ServerOptions {
            thread_name: "hostile-apis".into(),
            threads: Threads::Exactly(2),
            on_thread_start: None,
        };
        let server = LoopbackServer::start(options, move |request| {
            log.lock().unwrap().push(request.path.to_string());
            let path = request.path.split('?').next().unwrap_or_default();
            let query = request.path.split_once('?').map_or("", |(_, q)| q);
            let answer = match path {
                "/big" => Answer::Respond(Response::new(200, "x".repeat(BIG).into_bytes())),
                // The key echoed back as it came (percent-encoded), and in a header.
                "/echo" => Answer::Respond(
                    Response::json(200, json!({"query": query}).to_string().into_bytes())
                        .with_header("x-echo", query.to_string()),
                ),
                "/echo-type" => {
                    let mut response =
                        Response::new(200, format!("query was {query}").into_bytes());
                    response
                        .headers
                        .push(("content-type", format!("text/plain; {query}")));
                    Answer::Respond(response)
                }
                "/close" => Answer::Reset,
                "/slow" => Answer::Respond(Response::json(200, &b"{\"late\":true}"[..])),
                _ => Answer::Respond(Response::json(
                    200,
                    json!({"path": path, "query": query})
                        .to_string()
                        .into_bytes(),
                )),
            };
            let slow = path == "/slow";
            async move {
                if slow {
                    tokio::time::sleep(Duration::from_secs(3)).await;
                }
                answer
            }
        })
        .unwrap();
        Endpoints { server, targets }
    }

    fn base(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    fn host(&self) -> String {
        self.server.addr().to_string()
    }

    fn targets(&self) -> Vec<String> {
        self.targets.lock().unwrap().clone()
    }
}

/// A one-call task on tool `t` at `url`.
fn task(id: &str, url: &str, arguments: Value) -> Value {
    json!({"id": id, "kind": "single", "language": "en", "query": format!("Go. [[task:{id}]]"),
        "tools": [{"name": "t", "description": "A tool", "method": "GET", "url": url,
                   "required_parameters": []}],
        "gold": {"thought": "One call.", "calls": [{"name": "t", "arguments": arguments}]}})
}

fn write_tasks(dir: &Path, tasks: &[Value]) -> PathBuf {
    let path = dir.join("tasks.jsonl");
    let lines: Vec<String> = tasks.iter().map(Value::to_string).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The model: at its first step, the calls `calls(task)` gives; then no
/// calls. The tool model `toolsim` answers `tool_answer`.
fn start_model(
    calls: impl Fn(&str) -> String + Send + Sync + 'static,
    tool_answer: Reply,
) -> ScriptedServer {
    ScriptedServer::start(move |request: &Request| {
        if request.body["model"] == "toolsim" {
            return tool_answer.clone();
        }
        let messages = request.body["messages"].as_array().unwrap();
        let step = messages.iter().filter(|m| m["role"] == "assistant").count();
        let action = match step {
            0 => calls(request.task.as_deref().unwrap()),
            _ => "[]".to_string(),
        };
        Reply::Json(completion(
            &json!({"Thought": "Calling.", "Action": action}).to_string(),
        ))
    })
}

fn models_file(dir: &Path, model: &ScriptedServer, endpoints: &Endpoints) -> PathBuf {
    let path = dir.join("models.toml");
    let hosts = format!(
        "[[hosts]]\nhost = \"{}\"\nkey_env = \"{KEY_ENV}\"\nquery = \"apikey\"\n",
        endpoints.host()
    );
    std::fs::write(
        &path,
        scripted_models_toml(&model.base_url(), &["m", "toolsim"]) + &hosts,
    )
    .unwrap();
    path
}

/// Runs `itc eval` for model `m`; returns the output and the run directory.
fn eval(
    dir: &Path,
    config: &Path,
    tasks: &Path,
    extra: &[&str],
) -> (std::process::Output, PathBuf) {
    let run = dir.join("run");
    let mut args = vec![
        "eval",
        "--config",
        config.to_str().unwrap(),
        "--models",
        "m",
        "--tasks",
        tasks.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--bootstrap",
        "10",
        "--no-cache",
    ];
    args.extend_from_slice(extra);
    (itc(&args, &[(KEY_ENV, KEY)]), run)
}

/// The first step's tool outputs of each task, by task id.
fn first_outputs(run: &Path) -> Vec<(String, Vec<Value>)> {
    let mut all: Vec<(String, Vec<Value>)> = std::fs::read_to_string(run.join("predictions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|p| {
            let outputs = p["steps"][0]["tool_outputs"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            (p["task_id"].as_str().unwrap().to_string(), outputs)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

fn error_of(output: &Value) -> &str {
    output["error"].as_str().unwrap_or_default()
}

#[test]
fn one_answer_of_many_calls_to_huge_bodies_is_bounded_per_step_and_task() {
    let endpoints = Endpoints::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write_tasks(
        dir.path(),
        &[task(
            "big-1",
            &format!("{}/big", endpoints.base()),
            json!({}),
        )],
    );
    let model = start_model(
        |_| format!("[{}]", vec!["t()"; 40].join(", ")),
        Reply::Status(500, None),
    );
    let config = models_file(dir.path(), &model, &endpoints);
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &[
            "--steps",
            "execute",
            "--allow-host",
            &endpoints.host(),
            "--max-tool-bytes",
            "1000",
            "--max-task-tool-bytes",
            "2500",
            "--max-calls-per-step",
            "6",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outputs = &first_outputs(&run)[0].1;
    assert_eq!(outputs.len(), 40, "one output per call");
    // Two cut bodies fit the task's 2,500 bytes; the third passes them.
    for output in &outputs[..2] {
        assert_eq!(output["truncated"], true);
        assert_eq!(output["body"].as_str().unwrap().len(), 1000);
    }
    for output in &outputs[2..6] {
        assert!(
            error_of(output).contains("--max-task-tool-bytes"),
            "{output}"
        );
    }
    for output in &outputs[6..] {
        assert!(
            error_of(output).contains("--max-calls-per-step"),
            "{output}"
        );
    }
    // Once an output did not fit, the task's budget is spent: no more calls.
    assert_eq!(endpoints.targets().len(), 3, "calls made of 40");
    assert_eq!(outputs[2]["bytes"], 1028, "{}", outputs[2]);
    let shown: usize = outputs.iter().map(|o| o.to_string().len()).sum();
    let errors: usize = outputs[2..].iter().map(|o| o.to_string().len()).sum();
    assert!(shown - errors <= 2500, "{shown} bytes shown");
    // The second request shows those outputs: bounded, not 40 bodies.
    let second = model.log().into_iter().nth(1).unwrap();
    assert!(
        second.body.len() < 2500 + errors + 8_000,
        "{} bytes sent",
        second.body.len()
    );
}

#[test]
fn a_step_is_bounded_in_time() {
    let endpoints = Endpoints::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write_tasks(
        dir.path(),
        &[task(
            "slow-1",
            &format!("{}/slow", endpoints.base()),
            json!({}),
        )],
    );
    let model = start_model(|_| "[t(), t(), t()]".to_string(), Reply::Status(500, None));
    let config = models_file(dir.path(), &model, &endpoints);
    let started = std::time::Instant::now();
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &[
            "--steps",
            "execute",
            "--allow-host",
            &endpoints.host(),
            "--max-step-ms",
            "500",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outputs = &first_outputs(&run)[0].1;
    assert_eq!(outputs.len(), 3);
    for output in outputs {
        assert!(error_of(output).contains("--max-step-ms"), "{output}");
    }
    // Three 3 s calls would take 9 s; the step stops at 0.5 s.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_tool_models_huge_answer_is_cut_and_its_failure_fails_the_task() {
    let endpoints = Endpoints::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write_tasks(
        dir.path(),
        &[task("sim-1", "http://unused.example/x", json!({}))],
    );
    let huge = Reply::Answer(format!("{{\"a\": \"{}\"}}", "y".repeat(5_000)));
    let model = start_model(|_| "[t()]".to_string(), huge);
    let config = models_file(dir.path(), &model, &endpoints);
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &[
            "--steps",
            "simulate",
            "--tool-model",
            "toolsim",
            "--max-tool-bytes",
            "1000",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let output = &first_outputs(&run)[0].1[0];
    assert_eq!(output["truncated"], true, "{output}");
    assert_eq!(output["body"].as_str().unwrap().len(), 1000);

    // A tool model that refuses every call: the task is an error, the run
    // says so and exits as a run whose model failed does.
    let dir = tempfile::tempdir().unwrap();
    let tasks = write_tasks(
        dir.path(),
        &[task("sim-2", "http://unused.example/x", json!({}))],
    );
    let model = start_model(|_| "[t()]".to_string(), Reply::Status(401, None));
    let config = models_file(dir.path(), &model, &endpoints);
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &["--steps", "simulate", "--tool-model", "toolsim"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("ended with an error"),
        "{}",
        text(&out.stderr)
    );
    let prediction: Value = serde_json::from_str(
        std::fs::read_to_string(run.join("predictions.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(
        prediction["error"]
            .as_str()
            .unwrap()
            .contains("the tool model failed"),
        "{prediction}"
    );
    assert_eq!(prediction["error_kind"], "client");
}

/// Every spelling of the key a file, header or URL could hold.
fn key_spellings() -> Vec<String> {
    let mut query = reqwest::Url::parse("http://h/").unwrap();
    query.query_pairs_mut().append_pair("k", KEY);
    let json = serde_json::to_string(KEY).unwrap();
    let percent: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
    vec![
        KEY.to_string(),
        query.query().unwrap()[2..].to_string(),
        query.query().unwrap()[2..].to_lowercase(),
        json[1..json.len() - 1].to_string(),
        percent.clone(),
        percent.to_lowercase(),
        // Distinctive parts, whatever else surrounds them.
        "k3y%2F%2B".to_string(),
        "k3y%2f%2b".to_string(),
        "k3y/+=".to_string(),
    ]
}

fn assert_no_key(what: &str, text: &str) {
    for spelled in key_spellings() {
        assert!(
            !text.contains(&spelled),
            "{what} holds the key as {spelled}: {text}"
        );
    }
}

#[test]
fn a_host_key_of_url_special_characters_appears_nowhere() {
    let endpoints = Endpoints::start();
    let dir = tempfile::tempdir().unwrap();
    let base = endpoints.base();
    let tasks = write_tasks(
        dir.path(),
        &[
            task("close-1", &format!("{base}/close"), json!({})),
            task("echo-1", &format!("{base}/echo"), json!({})),
            task("type-1", &format!("{base}/echo-type"), json!({})),
        ],
    );
    let model = start_model(|_| "[t()]".to_string(), Reply::Status(500, None));
    let config = models_file(dir.path(), &model, &endpoints);
    let cassette = dir.path().join("cassette.jsonl");
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &[
            "--steps",
            "execute",
            "--allow-host",
            &endpoints.host(),
            "--cassette",
            cassette.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The key was sent, percent-encoded, to every endpoint.
    let sent = endpoints.targets();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        sent.iter().all(|t| t.contains("apikey=k3y%2F%2B")),
        "{sent:?}"
    );
    let outputs = first_outputs(&run);
    assert!(!error_of(&outputs[0].1[0]).is_empty(), "{:?}", outputs[0]);
    assert!(
        outputs[1].1[0]["query"]
            .as_str()
            .unwrap()
            .contains("apikey=***"),
        "{:?}",
        outputs[1]
    );
    assert_no_key("the cassette", &std::fs::read_to_string(&cassette).unwrap());
    assert_no_key(
        "predictions.jsonl",
        &std::fs::read_to_string(run.join("predictions.jsonl")).unwrap(),
    );
    for logged in model.log() {
        assert_no_key("a request to the model", &logged.body);
    }
    assert_no_key("stdout", &text(&out.stdout));
    assert_no_key("stderr", &text(&out.stderr));
}

#[test]
fn arguments_cannot_climb_the_path_or_add_query_parameters() {
    let endpoints = Endpoints::start();
    let dir = tempfile::tempdir().unwrap();
    let base = endpoints.base();
    let tasks = write_tasks(
        dir.path(),
        &[
            task(
                "climb-1",
                &format!("{base}/api/v1/{{id}}/info"),
                json!({"id": ".."}),
            ),
            task(
                "query-1",
                &format!("{base}/search?q={{q}}&lang=en"),
                json!({"q": "a&admin=1"}),
            ),
        ],
    );
    let model = start_model(
        |task| match task {
            "climb-1" => "[t(id='..')]".to_string(),
            _ => "[t(q='a&admin=1;x=2')]".to_string(),
        },
        Reply::Status(500, None),
    );
    let config = models_file(dir.path(), &model, &endpoints);
    let (out, run) = eval(
        dir.path(),
        &config,
        &tasks,
        &["--steps", "execute", "--allow-host", &endpoints.host()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = endpoints.targets();
    assert!(
        sent.iter().all(|t| !t.starts_with("/api/info")),
        "the path was climbed: {sent:?}"
    );
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(
        sent[0].starts_with("/search?q=a%26admin%3D1%3Bx%3D2&lang=en"),
        "{sent:?}"
    );
    let outputs = first_outputs(&run);
    assert!(
        error_of(&outputs[0].1[0]).contains("would change the path"),
        "{:?}",
        outputs[0]
    );
}
