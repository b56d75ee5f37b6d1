//! `itc`'s BFCL requests equal the official harness's: for every
//! single-turn question, the body `bfcl-eval` 2026.3.23 sent (recorded in
//! `datasets/ood/bfcl/requests/`, from `shared/reference/bfcl/requests/`)
//! equals the one itc builds, the model name aside.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::read::GzDecoder;
use itc::benchmarks::bfcl::Category;
use itc::benchmarks::bfcl::files::{Question, read_questions};
use itc::benchmarks::bfcl::requests::claude::Claude;
use itc::benchmarks::bfcl::requests::gemini::Gemini;
use itc::benchmarks::bfcl::requests::openai::OpenAiResponses;
use itc::benchmarks::bfcl::requests::{CallMode, Handler, Protocol, Sampling};
use serde_json::Value;

mod support;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every question of the 11 categories, by id.
fn questions() -> HashMap<String, Question> {
    let mut all = HashMap::new();
    for category in Category::SINGLE_TURN {
        let path = Path::new(ROOT)
            .join("datasets/ood/bfcl")
            .join(category.question_file());
        for q in read_questions(&path).unwrap() {
            all.insert(q.id.clone(), q);
        }
    }
    all
}

/// The recorded requests of a vector file: `(id, path, body)`.
fn vectors(file: &str) -> Vec<(String, String, Value)> {
    let path = Path::new(ROOT)
        .join("datasets/ood/bfcl/requests")
        .join(file);
    let reader = BufReader::new(GzDecoder::new(std::fs::File::open(&path).unwrap()));
    reader
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(&line.unwrap()).unwrap();
            (
                record["id"].as_str().unwrap().to_string(),
                record["path"].as_str().unwrap().to_string(),
                record["body"].clone(),
            )
        })
        .collect()
}

/// Compares every recorded request of `file` (its path and body) with the
/// one `handler` builds; fails naming the first few that differ.
fn check(file: &str, handler: &dyn Handler) {
    let questions = questions();
    let protocol = Protocol::builtin();
    let mut differ = Vec::new();
    let vectors = vectors(file);
    assert_eq!(vectors.len(), 3_491, "{file}");
    for (id, path, mut official) in vectors {
        let question = &questions[&id];
        // Gemini names the model in the path, the others in the body.
        let model = official["model"]
            .as_str()
            .or_else(|| path.strip_prefix("/v1/models/")?.split(':').next())
            .unwrap()
            .to_string();
        assert_eq!(path, format!("/v1{}", handler.path(&model)), "{id}");
        let ours = protocol.single_turn_body(handler, question, &model, &Sampling::default());
        official.as_object_mut().unwrap().remove("model");
        let mut ours_without = ours.clone();
        ours_without.as_object_mut().unwrap().remove("model");
        if ours_without != official {
            differ.push(format!(
                "{id}:\n official {}\n itc      {}",
                clip(&official),
                clip(&ours_without)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of 3491 requests differ; the first:\n{}",
        differ.len(),
        differ[..differ.len().min(3)].join("\n")
    );
}

fn clip(v: &Value) -> String {
    v.to_string().chars().take(1500).collect()
}

#[test]
fn prompt_mode_requests_equal_bfcl_evals() {
    check(
        "gpt-4.1-2025-04-14.prompt.jsonl.gz",
        &OpenAiResponses(CallMode::Prompt),
    );
}

#[test]
fn function_calling_requests_equal_bfcl_evals() {
    check(
        "gpt-4.1-2025-04-14-FC.jsonl.gz",
        &OpenAiResponses(CallMode::FunctionCalling),
    );
}

#[test]
fn claude_prompt_mode_requests_equal_bfcl_evals() {
    check(
        "claude-sonnet-4-5-20250929.prompt.jsonl.gz",
        &Claude(CallMode::Prompt),
    );
}

#[test]
fn claude_function_calling_requests_equal_bfcl_evals() {
    check(
        "claude-sonnet-4-5-20250929-FC.jsonl.gz",
        &Claude(CallMode::FunctionCalling),
    );
}

#[test]
fn gemini_prompt_mode_requests_equal_bfcl_evals() {
    check(
        "gemini-2.5-flash.prompt.jsonl.gz",
        &Gemini(CallMode::Prompt),
    );
}

#[test]
fn gemini_function_calling_requests_equal_bfcl_evals() {
    check(
        "gemini-2.5-flash-FC.jsonl.gz",
        &Gemini(CallMode::FunctionCalling),
    );
}

/// A task converted from a question keeps the question's turns and docs,
/// so the official request is built from the task as from the question.
#[test]
fn a_converted_task_gives_back_its_question() {
    use itc::benchmarks::bfcl::convert::question_task;
    use itc::benchmarks::bfcl::requests::official_question;
    let questions = questions();
    let mut seen = 0;
    for category in Category::SINGLE_TURN {
        let path = Path::new(ROOT)
            .join("datasets/ood/bfcl")
            .join(category.question_file());
        for q in read_questions(&path).unwrap() {
            let task = question_task(category, &q, None).unwrap();
            let back = official_question(&task).unwrap_or_else(|| panic!("{}", q.id));
            assert_eq!(back, questions[&q.id], "{}", q.id);
            seen += 1;
        }
    }
    assert_eq!(seen, 3_491);
}

/// A body without its model name, as a text in which every object's fields
/// are sorted but a parameter list's (`properties`), whose order the model
/// sees: field order is not kept by every client (Google's SDK writes a
/// schema's fields alphabetically, a few questions write `content` before
/// `role`, HTTP clients order top-level fields as they like).
fn body_key(mut body: Value) -> String {
    fn sort_fields(value: &mut Value, keep_order: bool) {
        match value {
            Value::Array(items) => items.iter_mut().for_each(|v| sort_fields(v, false)),
            Value::Object(fields) => {
                if !keep_order {
                    fields.sort_keys();
                }
                for (key, v) in fields.iter_mut() {
                    sort_fields(v, key == "properties");
                }
            }
            _ => {}
        }
    }
    body.as_object_mut().unwrap().remove("model");
    sort_fields(&mut body, false);
    body.to_string()
}

/// The last 400 characters of `text`.
fn tail(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars[chars.len().saturating_sub(400)..].iter().collect()
}

/// The bodies of a vector file, the model name removed, as a multiset.
fn recorded_bodies(file: &str) -> HashMap<String, usize> {
    let mut bodies = HashMap::new();
    for (_, _, body) in vectors(file) {
        *bodies.entry(body_key(body)).or_insert(0) += 1;
    }
    bodies
}

/// Item 1 end to end: `itc eval --dataset bfcl:single-turn` sends every question
/// to each kind of model exactly as bfcl-eval does (OpenAI's Responses API,
/// Claude, Gemini; prompt and function-calling modes), at the official
/// temperature and output length, with Claude's version header: the bodies
/// a loopback server receives are, model aside, the recorded ones.
#[test]
fn itc_eval_sends_the_recorded_requests_to_every_kind_of_model() {
    use support::server::{Reply, ScriptedServer};
    use support::{itc, text};
    let server = ScriptedServer::start(|r| {
        let answer = "I cannot help with that.";
        Reply::Json(if r.path.ends_with("/responses") {
            serde_json::json!({"output": [{"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": answer}]}],
                "usage": {"input_tokens": 3, "output_tokens": 2}})
        } else if r.path.ends_with("/messages") {
            assert_eq!(r.headers["anthropic-version"], "2023-06-01");
            serde_json::json!({"content": [{"type": "text", "text": answer}],
                "usage": {"input_tokens": 3, "output_tokens": 2}})
        } else {
            serde_json::json!({"candidates": [{"content": {"role": "model",
                "parts": [{"text": answer}]}}]})
        })
    });
    // (name, backend, mode, extra settings, vector file)
    let models = [
        (
            "oa-prompt",
            "openai",
            "prompt",
            "openai_api = \"responses\"\n",
            "gpt-4.1-2025-04-14.prompt.jsonl.gz",
        ),
        (
            "oa-fc",
            "openai",
            "native",
            "openai_api = \"responses\"\n",
            "gpt-4.1-2025-04-14-FC.jsonl.gz",
        ),
        (
            "claude-prompt",
            "anthropic",
            "prompt",
            "",
            "claude-sonnet-4-5-20250929.prompt.jsonl.gz",
        ),
        (
            "claude-fc",
            "anthropic",
            "native",
            "",
            "claude-sonnet-4-5-20250929-FC.jsonl.gz",
        ),
        (
            "gemini-prompt",
            "gemini",
            "prompt",
            "",
            "gemini-2.5-flash.prompt.jsonl.gz",
        ),
        (
            "gemini-fc",
            "gemini",
            "native",
            "",
            "gemini-2.5-flash-FC.jsonl.gz",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut toml = String::new();
    for (name, backend, mode, extra, _) in models {
        toml.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"{backend}\"\nbase_url = \"{}\"\n\
             model_id = \"{name}\"\nmode = \"{mode}\"\nconcurrency = 8\n{extra}\n",
            server.base_url()
        ));
    }
    let config = dir.path().join("models.toml");
    std::fs::write(&config, toml).unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "bfcl:single-turn",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--format",
            "json",
            // Two questions share a body; a cached answer would send it once.
            "--no-cache",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut sent: HashMap<&str, HashMap<String, usize>> = HashMap::new();
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        let model = match body.get("model").cloned() {
            Some(Value::String(model)) => model,
            _ => logged
                .path
                .split("/models/")
                .nth(1)
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .to_string(),
        };
        let (name, ..) = models.iter().find(|m| m.0 == model).unwrap();
        *sent
            .entry(name)
            .or_default()
            .entry(body_key(body))
            .or_insert(0) += 1;
    }
    for (name, .., file) in models {
        let official = recorded_bodies(file);
        let ours = &sent[name];
        let missing: Vec<&String> = official
            .keys()
            .filter(|b| ours.get(*b) != official.get(*b))
            .collect();
        assert!(
            missing.is_empty(),
            "{name}: {} of {} official bodies not sent as often by itc ({:?} vs {:?}); the \
             first ends:\n{}",
            missing.len(),
            official.len(),
            official.get(missing[0]),
            ours.get(missing[0]),
            tail(missing[0])
        );
        assert_eq!(ours.values().sum::<usize>(), 3_491, "{name}");
    }
}
