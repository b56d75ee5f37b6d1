//! Test support for the `eval_*` tests: a scripted OpenAI-compatible server
//! on loopback, generated tasks, and helpers to run the library or binary.
#![allow(dead_code)] // each test file uses a different part

pub mod apis;
pub mod batch;
pub mod bfcl;
pub mod browser;
pub mod judged;
pub mod latex;
pub mod proxy;
pub mod runs;
pub mod server;
pub mod tasks;
pub mod tau;
pub mod terminal;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use itc::models::{Backend, ModelConfig, ModelSpec};
use itc::run::{RunOptions, RunReport};
use itc::spec::records::Task;
use itc::util::runtime::{Threads, block_on};

/// An OpenAI-compatible model on `base_url` with fast retries for tests.
pub fn scripted_model(base_url: &str, name: &str) -> ModelConfig {
    let mut m = ModelConfig::new(name, Backend::Openai);
    m.base_url = Some(base_url.to_string());
    m.model_id = Some("scripted".into());
    m.temperature = Some(0.0);
    m.concurrency = Some(8);
    m.timeout_ms = Some(2_000);
    m.max_attempts = Some(4);
    m.retry_base_ms = Some(2);
    m.retry_cap_ms = Some(20);
    m
}

/// A model configuration (`models.toml` text) naming each of `names` as an
/// OpenAI-compatible model on `base_url`, its `model_id` its name (so a
/// script can tell them apart), with fast retries for tests.
pub fn scripted_models_toml(base_url: &str, names: &[&str]) -> String {
    names
        .iter()
        .map(|name| {
            format!(
                "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\n\n"
            )
        })
        .collect()
}

/// Runs models in-process on a fresh runtime.
pub fn run_blocking(tasks: &[Task], models: &[ModelConfig], options: &RunOptions) -> RunReport {
    let specs: Vec<ModelSpec> = models
        .iter()
        .cloned()
        .map(|m| ModelSpec::resolve(m).unwrap())
        .collect();
    block_on(Threads::Exactly(2), itc::run::run(tasks, &specs, options))
        .unwrap()
        .unwrap()
}

/// Run options for a run directory, with or without a cache.
pub fn options(run_dir: &Path, cache: Option<&Path>, resume: bool) -> RunOptions {
    RunOptions {
        run_dir: run_dir.to_path_buf(),
        cache_dir: cache.map(Path::to_path_buf),
        resume,
        show_progress: false,
        steps: None,
        asker: None,
        transport: Default::default(),
    }
}

/// Runs the `itc` binary with arguments and extra environment.
pub fn itc(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_itc"));
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("itc runs")
}

/// Whether the tests run under CI (`CI` set and not empty, `0` or
/// `false`), where a test that needs a service must fail, not skip, when
/// the service is missing.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| {
        let v = v.trim();
        !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false")
    })
}

/// Text of process output bytes.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// SHA-256 (hex) of a request's system message, user message and reply
/// schema, each part ended by a NUL byte but the last: what provenance
/// records call `prompt_sha256`, computed here from the request as sent.
pub fn request_prompt_hash(body: &Value) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    hasher.update(body["messages"][0]["content"].as_str().unwrap().as_bytes());
    hasher.update([0]);
    hasher.update(body["messages"][1]["content"].as_str().unwrap().as_bytes());
    hasher.update([0]);
    hasher.update(
        body["response_format"]["json_schema"]["schema"]
            .to_string()
            .as_bytes(),
    );
    itc::util::hash::to_hex(&hasher.finalize())
}

/// The table row of a stage: stage, status, records, chats, requests,
/// cached, errors, tokens in, tokens out, cost, seconds. The stage table comes
/// last and may be split in parts that each repeat stage and status: the
/// row's cells are gathered from every part.
pub fn stage_row<'a>(stdout: &'a str, stage: &str) -> Vec<&'a str> {
    let start = stdout
        .find("│ stage ")
        .unwrap_or_else(|| panic!("no stage table: {stdout}"));
    let mut row: Vec<&str> = Vec::new();
    for line in stdout[start..]
        .lines()
        .filter(|l| l.starts_with(&format!("│ {stage} ")))
    {
        let cells: Vec<&str> = line.split('│').map(str::trim).collect();
        let cells = &cells[1..cells.len() - 1];
        row.extend(if row.is_empty() { cells } else { &cells[2..] });
    }
    assert!(!row.is_empty(), "no row for {stage}: {stdout}");
    row
}
