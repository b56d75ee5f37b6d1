//! Test support for the `eval_*` tests: a scripted OpenAI-compatible server
//! on loopback, generated tasks, and helpers to run the library or binary.
#![allow(dead_code)] // each test file uses a different part

pub mod server;
pub mod tasks;

use std::path::Path;
use std::process::{Command, Output};

use itc::records::Task;
use itc::run::{Backend, ModelConfig, ModelSpec, RunOptions, RunReport};

/// An OpenAI-compatible model on `base_url` with fast retries for tests.
pub fn scripted_model(base_url: &str, name: &str) -> ModelConfig {
    let mut m = ModelConfig::new(name, Backend::Openai);
    m.base_url = Some(base_url.to_string());
    m.model_id = Some("scripted".into());
    m.temperature = Some(0.0);
    m.concurrency = 8;
    m.timeout_ms = Some(2_000);
    m.max_attempts = Some(4);
    m.retry_base_ms = Some(2);
    m.retry_cap_ms = Some(20);
    m
}

/// Runs models in-process on a fresh runtime.
pub fn run_blocking(tasks: &[Task], models: &[ModelConfig], options: &RunOptions) -> RunReport {
    let specs: Vec<ModelSpec> = models
        .iter()
        .cloned()
        .map(|m| ModelSpec::resolve(m).unwrap())
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(itc::run::run(tasks, &specs, options))
        .unwrap()
}

/// Run options for a run directory, with or without a cache.
pub fn options(run_dir: &Path, cache: Option<&Path>, resume: bool) -> RunOptions {
    RunOptions {
        run_dir: run_dir.to_path_buf(),
        cache_dir: cache.map(Path::to_path_buf),
        resume,
        show_progress: false,
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

/// Text of process output bytes.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
