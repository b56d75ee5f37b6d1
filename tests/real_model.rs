//! `itc eval` end to end against a real model: SmolLM2-135M-Instruct served
//! by llama.cpp's OpenAI-compatible server on loopback, which
//! `scripts/local-llm.sh start` installs and starts and whose base URL
//! `.ci/run` exports as `ITC_LOCAL_LLM_URL`.
//!
//! The tiny model answers badly and rarely makes a native tool call, so
//! these tests check the plumbing (requests answered, predictions, scores
//! and reports written, the schema and the action pattern enforced in
//! structured mode, the tools shown to the model and tool calls read back in
//! native mode, the slot note), never what the model scores. Without `ITC_LOCAL_LLM_URL` they skip, except under CI (`CI`
//! set and not `false` or `0`), where they fail so that CI cannot skip them.

mod support;

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use itc::spec::records::{Prediction, Task};
use serde_json::Value;
use support::{stage_row, under_ci};

const URL_VAR: &str = "ITC_LOCAL_LLM_URL";
/// Tasks per mode (prompt and structured).
const TASKS: usize = 20;
/// Tasks in native mode, where the model rambles to the length limit more
/// (each answer costs the most time there; six keep the run within minutes
/// on a loaded two-core machine).
const NATIVE_TASKS: usize = 6;
/// Answers required of `tasks`: a couple of timeouts on an overloaded
/// machine are tolerated, a broken pipeline is not.
fn min_answered(tasks: usize) -> usize {
    tasks - tasks / 10
}
/// Wall time allowed per `itc eval` run (about 2-5 minutes on 2 CPU cores).
const DEADLINE: Duration = Duration::from_secs(30 * 60);
/// The files `itc eval` leaves in its run directory.
const RUN_FILES: [&str; 11] = [
    "tasks.jsonl",
    "models.json",
    "predictions.jsonl",
    "run.json",
    "task_scores.jsonl",
    "summary.json",
    "summary.csv",
    "by_kind.csv",
    "by_language.csv",
    "by_country.csv",
    "by_category.csv",
];

/// The server answers one request at a time: the tests take turns.
static SERVER: Mutex<()> = Mutex::new(());

/// The server's base URL, or `None` (after saying so) when the test skips.
fn server_url(test: &str) -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_string()),
        _ if under_ci() => panic!(
            "{URL_VAR} is not set under CI: start the model with `scripts/local-llm.sh start` \
             and export its URL (as .ci/run does)"
        ),
        _ => {
            eprintln!(
                "SKIPPED {test}: {URL_VAR} is not set; run \
                 `export {URL_VAR}=$(scripts/local-llm.sh start)` to test against a real model"
            );
            None
        }
    }
}

/// One finished `itc eval` run.
struct Run {
    _dir: tempfile::TempDir,
    run_dir: PathBuf,
    cache: PathBuf,
    tasks: usize,
    name: String,
    stdout: String,
    stderr: String,
}

impl Run {
    fn context(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
}

/// Runs the real binary on the first `tasks` sample tasks in `mode`, with a
/// fresh cache so that every request reaches the server.
fn eval(url: &str, mode: &str, tasks: usize) -> Run {
    eval_with(url, mode, tasks, &[])
}

/// [`eval`] with more flags.
fn eval_with(url: &str, mode: &str, tasks: usize, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("smollm2-{mode}");
    let run_dir = dir.path().join("runs").join(&name);
    let cache = dir.path().join("cache");
    let (out_path, err_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let limit = tasks.to_string();
    let args = [
        "eval",
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model-id",
        "smollm2",
        "--name",
        &name,
        "--mode",
        mode,
        "--limit",
        &limit,
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--no-progress",
        "--temperature",
        "0",
        "--max-tokens",
        "256",
        "--concurrency",
        "1",
        "--timeout-ms",
        "120000",
        "--max-attempts",
        "3",
        "--bootstrap",
        "200",
    ];
    let args: Vec<&str> = args.iter().chain(extra).copied().collect();
    eprintln!("itc {}", args.join(" "));
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "itc eval --mode {mode} did not finish in {DEADLINE:?}; stderr:\n{}",
                fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let run = Run {
        run_dir,
        cache,
        tasks,
        name,
        stdout: fs::read_to_string(&out_path).unwrap(),
        stderr: fs::read_to_string(&err_path).unwrap(),
        _dir: dir,
    };
    eprintln!(
        "itc eval --mode {mode}: {status} after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // 3: the run finished and was scored, but some tasks ended with an error
    // (a timeout on a loaded machine); min_answered bounds how many.
    assert!(
        status.success() || status.code() == Some(3),
        "itc eval --mode {mode} failed\n{}",
        run.context()
    );
    run
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}: {line}", path.display()))
        })
        .collect()
}

fn percentage(v: &Value, what: &str) {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!((0.0..=100.0).contains(&x), "{what} = {x}");
}

fn clip(s: &str, n: usize) -> String {
    let clipped: String = s.chars().take(n).collect();
    if clipped.len() < s.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

/// The checks common to all modes; returns the predictions that answered.
fn check_run(run: &Run, url: &str, mode: &str) -> Vec<Prediction> {
    let dir = &run.run_dir;
    let n = run.tasks;
    for file in RUN_FILES {
        let path = dir.join(file);
        let len = fs::metadata(&path).map_or(0, |m| m.len());
        assert!(
            len > 0,
            "{} missing or empty\n{}",
            path.display(),
            run.context()
        );
    }

    // The tasks run, and one prediction per task, answered or with a typed error.
    let tasks: Vec<Task> = read_lines(&dir.join("tasks.jsonl"));
    assert_eq!(tasks.len(), n);
    let ids: BTreeSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), n);
    let predictions: Vec<Prediction> = read_lines(&dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), n, "{}", run.context());
    let predicted: BTreeSet<&str> = predictions.iter().map(|p| p.task_id.as_str()).collect();
    assert_eq!(predicted, ids, "one prediction per task");
    let mut answered = Vec::new();
    let mut errors = Vec::new();
    for p in &predictions {
        assert_eq!(p.model, run.name);
        let attempts = p.attempts.unwrap_or(0);
        assert!(attempts >= 1, "{}: no request was sent: {p:?}", p.task_id);
        if let Some(error) = &p.error {
            assert!(p.error_kind.is_some(), "untyped error: {p:?}");
            errors.push(format!("{}: {error}", p.task_id));
            continue;
        }
        assert!(
            p.output.is_some() || p.calls.is_some(),
            "neither answer nor error: {p:?}"
        );
        assert!(p.latency_ms.is_some_and(|l| l > 0), "no latency: {p:?}");
        let usage = p.usage.unwrap_or_else(|| panic!("no token counts: {p:?}"));
        assert!(
            usage.prompt_tokens > 0 && usage.completion_tokens > 0,
            "token counts: {p:?}"
        );
        answered.push(p.clone());
    }
    assert!(
        answered.len() >= min_answered(n),
        "only {} of {n} tasks answered:\n{}\n{}",
        answered.len(),
        errors.join("\n"),
        run.context()
    );

    // The configuration as run, never a key.
    let models = read_json(&dir.join("models.json"));
    assert_eq!(models[0]["name"], run.name.as_str());
    assert_eq!(models[0]["mode"], mode);
    assert_eq!(models[0]["base_url"], url);

    // The run figures agree with the predictions.
    let figures = &read_json(&dir.join("run.json"))["models"][0];
    assert_eq!(figures["model"], run.name.as_str());
    assert_eq!(figures["tasks"], n);
    assert_eq!(figures["answered"], answered.len());
    assert_eq!(figures["errors"], errors.len());
    assert_eq!(figures["cache_hits"], 0);
    assert!(figures["requests"].as_u64().unwrap() >= n as u64);
    let sent: u64 = predictions
        .iter()
        .filter_map(|p| p.usage)
        .map(|u| u.prompt_tokens)
        .sum();
    assert_eq!(figures["prompt_tokens"], sent);
    assert!(figures["completion_tokens"].as_u64().unwrap() > 0);

    // Scores: per task, the summary, the breakdowns.
    let scores: Vec<Value> = read_lines(&dir.join("task_scores.jsonl"));
    assert_eq!(scores.len(), n);
    assert!(scores.iter().all(|s| s["model"] == run.name.as_str()));
    let summary = &read_json(&dir.join("summary.json"))[0];
    assert_eq!(summary["model"], run.name.as_str());
    let s = &summary["summary"];
    assert_eq!(s["n"], n);
    assert_eq!(s["errors"], errors.len());
    for (v, what) in [
        (&s["lm"], "LM"),
        (&s["fm"], "FM"),
        (&s["selection"]["f1"], "selection F1"),
        (&s["invocation"]["f1"], "invocation F1"),
    ] {
        percentage(v, what);
    }
    let csv = fs::read_to_string(dir.join("summary.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(rows[1].starts_with(&format!("{},{n},", run.name)), "{csv}");
    let by_kind = fs::read_to_string(dir.join("by_kind.csv")).unwrap();
    assert!(by_kind.lines().count() >= 2, "{by_kind}");

    // The tables on stdout: run figures, scores, error analysis.
    for needle in [
        "Run ",
        "Done",
        "Queue ms",
        "Sel. F1",
        "Inv. F1",
        "Error analysis",
        run.name.as_str(),
    ] {
        assert!(
            run.stdout.contains(needle),
            "stdout lacks {needle:?}\n{}",
            run.context()
        );
    }

    // llama.cpp reports its slots (`GET /props`): the run names them once,
    // and one request at a time queues nothing.
    let slot_notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with(&format!("note: the server at {url} has ")))
        .collect();
    assert_eq!(slot_notes.len(), 1, "{}", run.context());
    assert!(!slot_notes[0].contains("queues"), "{}", slot_notes[0]);
    eprintln!("{}", slot_notes[0]);

    eprintln!(
        "{}: {} answered, {} errors; first answers:",
        run.name,
        answered.len(),
        errors.len()
    );
    for p in answered.iter().take(3) {
        eprintln!(
            "  {}: {:?}",
            p.task_id,
            clip(p.output.as_deref().unwrap_or_default(), 120)
        );
    }
    answered
}

#[test]
fn prompt_mode_against_a_real_model() {
    let Some(url) = server_url("prompt_mode_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let run = eval(&url, "prompt", TASKS);
    let answered = check_run(&run, &url, "prompt");
    // Free text came back (its quality is the model's business).
    let texts = answered
        .iter()
        .filter(|p| p.output.as_deref().is_some_and(|o| !o.trim().is_empty()))
        .count();
    assert!(
        texts * 2 >= answered.len(),
        "{texts} non-empty answers of {}",
        answered.len()
    );
}

#[test]
fn structured_mode_against_a_real_model() {
    let Some(url) = server_url("structured_mode_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let run = eval(&url, "structured", TASKS);
    let answered = check_run(&run, &url, "structured");
    // The server enforces the answer schema from the first token: every
    // output is (the start of) a `{"Thought": …, "Action": …}` object, cut
    // off only by the length limit.
    for p in &answered {
        let output = p.output.as_deref().unwrap_or_default().trim_start();
        assert!(
            output.starts_with('{') && output.contains("\"Thought\""),
            "{}: not the answer schema: {output:?}",
            p.task_id
        );
    }
    // And the action pattern: every complete answer's `Action` follows the
    // action grammar, so it passes the strict format check (FM), which the
    // tiny model never does unconstrained.
    let mut complete = 0;
    for p in &answered {
        let Ok(Value::Object(o)) = serde_json::from_str::<Value>(p.output.as_deref().unwrap())
        else {
            continue;
        };
        complete += 1;
        let action = o["Action"].as_str().expect("Action is a string");
        assert!(
            itc::spec::action::parse_actions(action, itc::spec::action::Mode::Strict).is_ok(),
            "{}: Action {action:?} does not follow the action grammar",
            p.task_id
        );
        assert!(
            itc::spec::response::strict_format(p.output.as_deref().unwrap()).is_some(),
            "{}: fails the strict format check",
            p.task_id
        );
    }
    let fm = read_json(&run.run_dir.join("summary.json"))[0]["summary"]["fm"]
        .as_f64()
        .unwrap();
    eprintln!(
        "structured: {complete} of {} answers complete, all following the action pattern; FM {fm:.2}",
        answered.len()
    );
    assert!(
        complete > 0,
        "no answer ended within the length limit\n{}",
        run.context()
    );
    assert!(fm > 0.0, "FM {fm}\n{}", run.context());
}

/// `usage.prompt_tokens` of a one-token request.
fn prompt_tokens(client: &reqwest::Client, request: &itc::models::ApiRequest) -> u64 {
    let body: Value = itc::util::runtime::block_on(itc::util::runtime::Threads::Current, async {
        client
            .post(&request.url)
            .json(&request.body)
            .send()
            .await
            .unwrap()
            .error_for_status()
            .unwrap()
            .json()
            .await
            .unwrap()
    })
    .unwrap();
    body["usage"]["prompt_tokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("no usage: {body}"))
}

/// Every response body stored in a cache directory.
fn cached_bodies(cache: &Path) -> Vec<Value> {
    let mut bodies = Vec::new();
    for shard in fs::read_dir(cache).unwrap() {
        for entry in fs::read_dir(shard.unwrap().path()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                bodies.push(read_json(&path)["body"].clone());
            }
        }
    }
    bodies
}

#[test]
fn native_mode_against_a_real_model() {
    let Some(url) = server_url("native_mode_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());

    // The server shows the tools to the model: the chat template of
    // scripts/local-llm.sh renders them into the prompt, which grows.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl");
    let task: Task = read_lines::<Task>(&sample)
        .into_iter()
        .find(|t| !t.tools.is_empty())
        .unwrap();
    let mut config = itc::models::ModelConfig::new("probe", itc::models::Backend::Openai);
    config.base_url = Some(url.clone());
    config.model_id = Some("smollm2".into());
    config.mode = itc::models::Mode::Native;
    let request = itc::models::api_for(&config).unwrap().build(&task);
    let (with_tools, without) = itc::models::server_probe::probe_pair(request, &url);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let (with, without) = (
        prompt_tokens(&client, &with_tools),
        prompt_tokens(&client, &without),
    );
    eprintln!(
        "native: {with} prompt tokens with the {} tools of {}, {without} without",
        task.tools.len(),
        task.id
    );
    assert!(
        with > without + 20 * task.tools.len() as u64,
        "the tools did not reach the prompt: {with} tokens with them, {without} without"
    );

    let run = eval(&url, "native", NATIVE_TASKS);
    let answered = check_run(&run, &url, "native");
    // `itc eval`'s own probe agrees: no warning that the tools were ignored.
    assert!(
        !run.stderr.contains("does not show the tools"),
        "{}",
        run.context()
    );
    let warnings = &read_json(&run.run_dir.join("run.json"))["warnings"];
    assert_eq!(warnings, &serde_json::json!([]), "{}", run.context());
    // Every `tool_calls` the server returned became `calls`, named after
    // the task's tools (the cache holds the responses as received; the
    // probes' one-token answers hold no call).
    let with_calls = cached_bodies(&run.cache)
        .iter()
        .filter(|b| {
            b.pointer("/choices/0/message/tool_calls")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty())
        })
        .count();
    let tasks: Vec<Task> = read_lines(&run.run_dir.join("tasks.jsonl"));
    let mut predicted_calls = 0;
    for p in &answered {
        let Some(calls) = &p.calls else { continue };
        predicted_calls += 1;
        let task = tasks.iter().find(|t| t.id == p.task_id).unwrap();
        for call in calls {
            assert!(
                task.tools.iter().any(|t| t.name == call.name),
                "{}: call {call:?} names no tool of the task",
                p.task_id
            );
        }
    }
    eprintln!(
        "native: {predicted_calls} of {} answers made native calls",
        answered.len()
    );
    assert_eq!(predicted_calls, with_calls, "{}", run.context());
}

/// Nested sample tasks asked step by step (`--steps replay`) in a mode:
/// every task ends with its steps in the prediction, and every step after
/// the first was asked with the previous step's outputs in the request (an
/// `Observation:` message in prompt mode, `tool` messages in native mode),
/// which a recording proxy between itc and the server sees.
fn replay_steps(url: &str, mode: &str) {
    let proxy = support::proxy::RecordingProxy::start(url);
    let run = eval_with(
        &proxy.base_url(),
        mode,
        STEP_TASKS,
        &["--steps", "replay", "--kinds", "nested"],
    );
    let predictions: Vec<Prediction> = read_lines(&run.run_dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), STEP_TASKS, "{}", run.context());
    let chats: Vec<Value> = proxy
        .bodies()
        .into_iter()
        .filter(|b| b.get("messages").is_some() && b["max_tokens"] != 1)
        .collect();
    let (mut later_steps, mut carried) = (0, 0);
    for p in &predictions {
        let Some(steps) = &p.steps else {
            assert!(
                p.error.is_some(),
                "{}: neither steps nor an error",
                p.task_id
            );
            continue;
        };
        assert!(!steps.is_empty() || p.error.is_some(), "{}", p.task_id);
        for k in 1..steps.len() {
            later_steps += 1;
            let before = &steps[k - 1];
            assert!(
                !before.tool_outputs.is_empty(),
                "{}: a step without calls ended the task",
                p.task_id
            );
            // The request of step k holds step k-1's outputs.
            let shown = chats
                .iter()
                .any(|body| carries(body, &before.tool_outputs, before.calls.is_some()));
            assert!(
                shown,
                "{} step {}: no request carried {:?}",
                p.task_id,
                k + 1,
                before.tool_outputs
            );
            carried += 1;
        }
    }
    eprintln!(
        "--steps replay --mode {mode}: {} task(s), {later_steps} step(s) after a first, {carried} carried the outputs shown",
        predictions.len()
    );
    let summary = read_json(&run.run_dir.join("summary.json"));
    assert_eq!(
        summary[0]["summary"]["step_tasks"],
        predictions
            .iter()
            .filter(|p| p.steps.is_some() && p.error.is_none())
            .count()
    );
}

/// Tasks of each step-by-step run.
const STEP_TASKS: usize = 3;

/// Whether a request body shows these outputs to the model: as `tool`
/// messages after native calls, else as an `Observation:` message (prompt
/// mode, or a native-mode answer whose calls came as text).
fn carries(body: &Value, outputs: &[Value], native_calls: bool) -> bool {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    match native_calls {
        true => {
            let shown: Vec<Value> = messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    serde_json::from_str(m["content"].as_str().unwrap_or("")).unwrap_or(Value::Null)
                })
                .collect();
            outputs.iter().all(|o| shown.contains(o))
        }
        false => messages.iter().any(|m| {
            m["content"].as_str().is_some_and(|c| {
                c.strip_prefix("Observation: ")
                    .and_then(|list| serde_json::from_str::<Vec<Value>>(list).ok())
                    .is_some_and(|items| items.iter().map(|i| &i["output"]).eq(outputs.iter()))
            })
        }),
    }
}

#[test]
fn replay_steps_against_a_real_model() {
    let Some(url) = server_url("replay_steps_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    replay_steps(&url, "prompt");
    // Structured answers parse more often, so the `Observation:` message is
    // seen carrying outputs (SmolLM2 made a second step of itc-0023 there).
    replay_steps(&url, "structured");
    replay_steps(&url, "native");
}

/// Lines of a JSON Lines file (none when it does not exist).
fn jsonl_values(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

/// Runs `itc pipeline`, returning stdout; fails with stderr on error.
fn pipeline(config: &Path) -> String {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["pipeline", "--config", config.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    eprintln!(
        "itc pipeline: {} after {:.1} s\n{stdout}",
        output.status,
        started.elapsed().as_secs_f64()
    );
    assert!(output.status.success(), "itc pipeline failed\n{stderr}");
    stdout
}

/// The task-set pipeline from the shipped public-apis catalog through every
/// stage on the real model: a handful of queries written, judged by two
/// judges and answered; then a re-run that sends nothing.
#[test]
fn pipeline_connects_every_stage_on_a_real_model() {
    let Some(url) = server_url("pipeline_connects_every_stage_on_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let catalog =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/catalog/public-apis-README.md");
    let mut models = String::new();
    for (name, temperature) in [
        ("writer", 0.7),
        ("judge-a", 0.0),
        ("judge-b", 0.5),
        ("answerer", 0.0),
    ] {
        models.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"smollm2\"\ntemperature = {temperature}\nmax_tokens = 200\nconcurrency = 1\ntimeout_ms = 120000\nmax_attempts = 3\n\n"
        ));
    }
    fs::write(dir.path().join("models.toml"), models).unwrap();
    // English-language APIs and no value check: the tiny model has a
    // chance to write queries that pass, so the later stages get input.
    let config = dir.path().join("pipeline.toml");
    fs::write(
        &config,
        format!(
            r#"output_dir = "build"
models = "models.toml"
[catalog]
format = "public-apis"
files = [{catalog:?}]
skip_invalid = true
[sample]
count = 3
quotas = {{ US = 3 }}
[confuse]
k = 2
[generate]
model = "writer"
kinds = ["single"]
per_prompt = 2
value_check = "present"
[filter]
judges = ["judge-a", "judge-b"]
min_total = 1.0
[answer]
model = "answerer"
"#
        ),
    )
    .unwrap();
    let out = |f: &str| dir.path().join("build").join(f);

    let stdout = pipeline(&config);
    for stage in itc::build::pipeline::Stage::ALL.map(|s| s.as_str()) {
        assert_eq!(stage_row(&stdout, stage)[1], "ran", "{stage}");
    }
    // Three prompts, each answered and read: every item it wrote is a
    // query or a reject with a reason.
    let generate = stage_row(&stdout, "generate");
    assert_eq!(generate[3], "3", "chats: {generate:?}");
    let queries = jsonl_values(&out("queries.jsonl"));
    let rejects = jsonl_values(&out("queries.rejects.jsonl"));
    assert!(!queries.is_empty() || !rejects.is_empty());
    assert!(
        rejects
            .iter()
            .all(|r| r["reason"].as_str().is_some_and(|s| !s.is_empty()))
    );
    for q in &queries {
        assert_eq!(q["language"], "en");
        assert!(!q["provenance"]["raw"].as_str().unwrap().is_empty());
    }
    // Both judges saw every query; kept and rejected add up.
    let filter = stage_row(&stdout, "filter");
    assert_eq!(filter[3], (2 * queries.len()).to_string(), "{filter:?}");
    let kept = jsonl_values(&out("kept.jsonl"));
    let judged_out = jsonl_values(&out("judge_rejects.jsonl"));
    assert_eq!(kept.len() + judged_out.len(), queries.len());
    // The answer model saw every kept query; tasks and rejects add up.
    let answer = stage_row(&stdout, "answer");
    assert_eq!(answer[3], kept.len().to_string(), "{answer:?}");
    let tasks = jsonl_values(&out("tasks.jsonl"));
    let unanswered = jsonl_values(&out("tasks.rejects.jsonl"));
    assert_eq!(tasks.len() + unanswered.len(), kept.len());
    eprintln!(
        "pipeline on SmolLM2: {} queries ({} rejected), {} kept, {} tasks",
        queries.len(),
        rejects.len(),
        kept.len(),
        tasks.len()
    );

    // A re-run is free.
    let stdout = pipeline(&config);
    for stage in itc::build::pipeline::Stage::ALL.map(|s| s.as_str()) {
        let row = stage_row(&stdout, stage);
        assert_eq!((row[1], row[4]), ("up to date", "0"), "{stage}");
    }

    // The tiny model rarely writes a query that passes the checks, so the
    // judge and answer stages also get hand-written queries over the
    // pipeline's own candidate sets: their requests, the schema-constrained
    // replies and the files must connect whatever the model's quality.
    let sets = jsonl_values(&out("candidates.jsonl"));
    let queries: String = sets
        .iter()
        .enumerate()
        .map(|(i, set)| {
            let gold = &set["candidates"][set["gold_index"].as_u64().unwrap() as usize];
            let tools: Vec<Value> = set["candidates"].as_array().unwrap().clone();
            let query = serde_json::json!({
                "id": format!("hand-{i}"),
                "kind": "single",
                "language": "en",
                "country": "US",
                "category": gold["category"],
                "query": format!("Could you look up what {} has for New York City today?", gold["name"].as_str().unwrap()),
                "apis": [gold["name"]],
                "tools": tools,
                "provenance": {"stage": "hand", "model": "", "prompt_sha256": "", "raw": ""}
            });
            format!("{query}\n")
        })
        .collect();
    let hand = dir.path().join("hand.jsonl");
    fs::write(&hand, queries).unwrap();
    let models = dir.path().join("models.toml");
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_itc"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "itc {args:?} failed\n{stderr}");
        eprintln!("{}{stderr}", String::from_utf8_lossy(&output.stdout));
    };
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    run(&[
        "filter",
        "--queries",
        &path("hand.jsonl"),
        "--config",
        models.to_str().unwrap(),
        "--judges",
        "judge-a,judge-b",
        "--min-total",
        "1",
        "-o",
        &path("hand-kept.jsonl"),
        "--rejects",
        &path("hand-rejects.jsonl"),
    ]);
    let kept = jsonl_values(&dir.path().join("hand-kept.jsonl"));
    let rejected = jsonl_values(&dir.path().join("hand-rejects.jsonl"));
    assert_eq!(kept.len() + rejected.len(), sets.len());
    // llama.cpp enforces the score schema, so judgements come back readable.
    let readable: usize = kept
        .iter()
        .chain(&rejected)
        .map(|q| q["judgements"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        readable >= sets.len(),
        "{readable} readable judgements of {}",
        2 * sets.len()
    );
    if !kept.is_empty() {
        run(&[
            "answer",
            "--queries",
            &path("hand-kept.jsonl"),
            "--config",
            models.to_str().unwrap(),
            "--answerer",
            "answerer",
            "-o",
            &path("hand-tasks.jsonl"),
            "--provenance",
            &path("hand-provenance.jsonl"),
        ]);
        let tasks = jsonl_values(&dir.path().join("hand-tasks.jsonl"));
        let unanswered = jsonl_values(&dir.path().join("hand-tasks.rejects.jsonl"));
        assert_eq!(tasks.len() + unanswered.len(), kept.len());
        eprintln!(
            "hand-written queries: {} kept, {} tasks",
            kept.len(),
            tasks.len()
        );
    }
}

/// `--solver dfsdt` on a StableToolBench task against the real model, the
/// same model playing the tools (SPEC §8; plumbing only): the tree is
/// recorded with its parents, within the request limit, and its chosen
/// path names real nodes.
#[test]
fn dfsdt_on_stabletoolbench_against_a_real_model() {
    let Some(url) = server_url("dfsdt_on_stabletoolbench_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut models = String::new();
    for name in ["smollm2", "toolsim"] {
        models.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"smollm2\"\ntemperature = 0.0\nmax_tokens = 128\nconcurrency = 1\ntimeout_ms = 120000\nmax_attempts = 3\n\n"
        ));
    }
    let config = dir.path().join("models.toml");
    fs::write(&config, models).unwrap();
    let run_dir = dir.path().join("dfsdt");
    let max_requests = 6;
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args([
            "eval",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "smollm2",
            "--dataset",
            "stabletoolbench:G1_instruction",
            "--limit",
            "1",
            "--steps",
            "simulate",
            "--tool-model",
            "toolsim",
            "--solver",
            "dfsdt",
            "--max-requests",
            &max_requests.to_string(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--cache",
            dir.path().join("cache").to_str().unwrap(),
            "--no-progress",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || out.status.code() == Some(3),
        "{stderr}"
    );
    let predictions: Vec<Prediction> = read_lines(&run_dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), 1, "{stderr}");
    let p = &predictions[0];
    if p.error.is_some() {
        eprintln!("dfsdt task ended with an error (tolerated): {:?}", p.error);
        return;
    }
    let steps = p.steps.as_ref().expect("steps");
    let record = p.solver.as_ref().expect("solver record");
    assert_eq!(record.kind, itc::spec::solver::SolverKind::Dfsdt);
    assert!(
        record.finish,
        "StableToolBench runs use the finish protocol"
    );
    assert_eq!(record.requests as usize, steps.len());
    assert!(steps.len() <= max_requests, "{} requests", steps.len());
    assert!(!record.path.is_empty());
    for (i, step) in steps.iter().enumerate() {
        assert!(step.parent.is_none_or(|parent| parent < i), "step {i}");
    }
    for pair in record.path.windows(2) {
        assert_eq!(steps[pair[1]].parent, Some(pair[0]));
    }
    eprintln!(
        "dfsdt: {} request(s), ending {:?}, path {:?}",
        steps.len(),
        record.ending,
        record.path
    );
}

/// BFCL on the real model, asked as bfcl-eval asks an OpenAI-compatible
/// server, in prompt mode and in function-calling mode at once: the run
/// ends, the official checker scores every answer from the task file (each
/// read as its handler reads it), and `itc report` shows the official
/// figures beside the SPEC scores.
#[test]
fn bfcl_prompt_and_native_against_a_real_model() {
    let Some(url) = server_url("bfcl_prompt_and_native_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut models = String::new();
    for (name, mode) in [
        ("smollm2-bfcl", "prompt"),
        ("smollm2-bfcl-native", "native"),
    ] {
        // A BFCL answer is one short line of calls: 32 tokens hold it.
        models.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"smollm2\"\nmode = \"{mode}\"\ntemperature = 0.0\nmax_tokens = 32\nconcurrency = 1\ntimeout_ms = 120000\nmax_attempts = 3\n\n"
        ));
    }
    let config = dir.path().join("models.toml");
    fs::write(&config, models).unwrap();
    let run_dir = dir.path().join("bfcl");
    let args = [
        "--dataset",
        "bfcl:simple_python",
        "--limit",
        "20",
        "--concurrency",
        "1",
    ];
    let cache = dir.path().join("cache");
    let stderr = eval_dataset(&config, &run_dir, &cache, &args, "bfcl: 2 × 20 tasks");
    assert!(
        stderr.contains("model `smollm2-bfcl`: asked as bfcl-eval asks it (prompt mode"),
        "{stderr}"
    );
    let official = read_json(&run_dir.join("official.json"));
    let results = official["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{official}");
    for r in results {
        let category = &r["categories"][0];
        assert_eq!(category["category"], "simple_python");
        // Every task is scored: an answer, or BFCL's error text for a failed request.
        assert_eq!(category["total_count"], 20, "{r}");
        assert!(r["leaderboard"].as_array().unwrap().len() == 12, "{r}");
        let model = r["model"].as_str().unwrap();
        let file = run_dir.join(format!(
            "official/{model}/BFCL_v4_simple_python_result.json"
        ));
        assert_eq!(fs::read_to_string(file).unwrap().lines().count(), 20);
    }
    let prompt_style = results
        .iter()
        .find(|r| r["model"] == "smollm2-bfcl")
        .unwrap();
    assert_eq!(prompt_style["prompt_style"], "bfcl");
    assert_eq!(prompt_style["decoder"], "prompt");
    let native = results
        .iter()
        .find(|r| r["model"] == "smollm2-bfcl-native")
        .unwrap();
    assert_eq!(native["decoder"], "fc", "{native}");
    let report_dir = dir.path().join("report");
    let report = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args([
            "report",
            run_dir.to_str().unwrap(),
            "--out",
            report_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&report.stdout);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    assert!(
        shown.contains("Official scores") && shown.contains("Non-Live Overall Acc"),
        "{shown}"
    );
}

/// A SmolLM2 entry of a models file, served at `url`.
fn smol_entry(url: &str, name: &str, mode: &str, max_tokens: u32) -> String {
    format!(
        "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"smollm2\"\nmode = \"{mode}\"\nmax_tokens = {max_tokens}\nconcurrency = 1\ntimeout_ms = 120000\nmax_attempts = 2\n"
    )
}

/// `itc eval --config CONFIG ARGS --run-dir RUN --cache CACHE`: a complete
/// run, or one whose tasks failed (exit 3); says how long `what` took and
/// returns the run's stderr.
fn eval_dataset(config: &Path, run_dir: &Path, cache: &Path, args: &[&str], what: &str) -> String {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["eval", "--config", config.to_str().unwrap()])
        .args(args)
        .args(["--run-dir", run_dir.to_str().unwrap()])
        .args(["--cache", cache.to_str().unwrap(), "--no-progress"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || out.status.code() == Some(3),
        "{stderr}"
    );
    eprintln!("{what} in {:.1} s", started.elapsed().as_secs_f64());
    stderr.into_owned()
}

/// BFCL's multi-turn loop on the real model (plumbing only): three
/// `multi_turn_base` entries in prompt mode, then in native mode (one run
/// after the other, so that the server's prompt cache serves each
/// conversation's growing history). Every entry is asked turn by turn and
/// recorded in bfcl-eval's shape, and the official checker scores it.
#[test]
fn bfcl_multi_turn_against_a_real_model() {
    let Some(url) = server_url("bfcl_multi_turn_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    for mode in ["prompt", "native"] {
        let name = format!("smollm2-mt-{mode}");
        let config = dir.path().join(format!("{mode}.toml"));
        fs::write(&config, smol_entry(&url, &name, mode, 32)).unwrap();
        let run_dir = dir.path().join(mode);
        let cache = dir.path().join(format!("cache-{mode}"));
        let args = ["--dataset", "bfcl:multi_turn_base", "--limit", "3"];
        eval_dataset(
            &config,
            &run_dir,
            &cache,
            &args,
            &format!("bfcl multi-turn, {mode}: 3 tasks"),
        );
        let predictions: Vec<Prediction> = read_lines(&run_dir.join("predictions.jsonl"));
        assert_eq!(predictions.len(), 3);
        for p in &predictions {
            let Some(turns) = &p.official else {
                panic!("{mode}: no recorded turns: {:?}", p.error);
            };
            // At least the first turn was asked and answered.
            let turns = turns.as_array().unwrap();
            assert!(
                !turns.is_empty() && !turns[0].as_array().unwrap().is_empty(),
                "{turns:?}"
            );
            assert!(p.attempts.unwrap_or(0) as usize >= turns.len(), "{p:?}");
        }
        let official = read_json(&run_dir.join("official.json"));
        let category = &official["results"][0]["categories"][0];
        assert_eq!(category["category"], "multi_turn_base");
        assert_eq!(category["total_count"], 3, "{official}");
        let file = run_dir.join(format!(
            "official/{name}/BFCL_v4_multi_turn_base_result.json"
        ));
        for line in fs::read_to_string(file).unwrap().lines() {
            let line: Value = serde_json::from_str(line).unwrap();
            assert!(line["result"].is_array(), "{line}");
        }
    }
}

/// τ³-bench with SmolLM2 as both the agent and the customer, on 3 retail
/// tasks, conversations cut at 6 steps: the plumbing only (who is asked,
/// what is recorded, the official scores written), never the quality.
#[test]
fn tau_retail_against_a_real_model() {
    let Some(url) = server_url("tau_retail_against_a_real_model") else {
        return;
    };
    let _turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    let models = [
        smol_entry(&url, "smol-agent", "native", 48),
        smol_entry(&url, "smol-user", "native", 48),
    ];
    fs::write(&config, models.join("\n")).unwrap();
    let run_dir = dir.path().join("run");
    let args = [
        "--models",
        "smol-agent",
        "--user-model",
        "smol-user",
        "--dataset",
        "tau:retail",
        "--limit",
        "3",
        "--tau-max-steps",
        "6",
    ];
    let stderr = eval_dataset(
        &config,
        &run_dir,
        &dir.path().join("cache"),
        &args,
        "tau retail: 3 trials",
    );
    let predictions: Vec<Prediction> = read_lines(&run_dir.join("predictions.jsonl"));
    assert_eq!(predictions.len(), 3);
    let mut answered = 0;
    for p in &predictions {
        let Some(record) = &p.official else {
            eprintln!("{}: no conversation: {:?}", p.task_id, p.error);
            continue;
        };
        answered += 1;
        let messages = record["messages"].as_array().unwrap();
        // The greeting, then the user simulator's first message at least.
        assert_eq!(messages[0]["content"], "Hi! How can I help you today?");
        assert!(messages.len() >= 2, "{record}");
        assert_eq!(messages[1]["role"], "user", "{record}");
        let reason = record["termination_reason"].as_str().unwrap();
        assert!(
            [
                "user_stop",
                "max_steps",
                "too_many_errors",
                "infrastructure_error"
            ]
            .contains(&reason),
            "{reason}"
        );
        assert!(record["steps"].as_u64().unwrap() <= 6, "{record}");
    }
    assert!(answered >= 2, "{stderr}");
    let official = read_json(&run_dir.join("official.json"));
    let result = &official["results"][0];
    assert_eq!(official["benchmark"], "tau", "{official}");
    assert_eq!(result["model"], "smol-agent");
    let lines = fs::read_to_string(run_dir.join("official/smol-agent.per_item.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 3);
}
