//! `itc`'s BFCL requests equal the official harness's: for every
//! single-turn question, the body `bfcl-eval` 2026.3.23 sent (recorded in
//! `datasets/ood/bfcl/requests/`, from `shared/reference/bfcl/requests/`)
//! equals the one itc builds, the model name aside.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::read::GzDecoder;
use itc::ood::bfcl::Category;
use itc::ood::bfcl::files::{Question, read_questions};
use itc::ood::bfcl::requests::claude::Claude;
use itc::ood::bfcl::requests::gemini::Gemini;
use itc::ood::bfcl::requests::openai::OpenAiResponses;
use itc::ood::bfcl::requests::{CallMode, Handler, Protocol, Sampling};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every question of the 11 categories, by id.
fn questions() -> HashMap<String, Question> {
    let mut all = HashMap::new();
    for category in Category::ALL {
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
    use itc::ood::bfcl::convert::question_task;
    use itc::ood::bfcl::requests::official_question;
    let questions = questions();
    let mut seen = 0;
    for category in Category::ALL {
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
