//! The two in-process clients measured against the instant server: the real
//! runner (as `itc eval` runs it) and reqwest alone (the HTTP stack the
//! runner uses, nothing else).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::models::{Backend, Mode, ModelConfig, ModelSpec};
use crate::run::{RunOptions, run_shared};
use crate::spec::records::Task;
use crate::util::runtime::{Threads, block_on, runtime};

use super::cpu::{CpuPerRequest, CpuSnapshot};
use super::server::{CapturedRequest, InstantServer};

/// Requests per second and CPU of a bare client run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientRun {
    /// Requests per second.
    pub requests_per_sec: f64,
    /// CPU per request of the client and of the server.
    pub cpu: CpuPerRequest,
}

/// One run of the real runner on `tasks` at concurrency `c`, on a fresh
/// runtime as `itc eval` builds it: its wall time and its errored tasks.
pub(super) fn run_itc(
    server: &InstantServer,
    tasks: &Arc<Vec<Task>>,
    concurrency: usize,
    run_dir: &Path,
) -> anyhow::Result<(Duration, usize)> {
    let mut config = ModelConfig::new("instant", Backend::Openai);
    config.base_url = Some(server.base_url());
    config.model_id = Some("instant".into());
    config.mode = Mode::Prompt;
    config.temperature = Some(0.0);
    config.concurrency = Some(concurrency);
    let specs = [ModelSpec::resolve(config)?];
    let options = RunOptions {
        run_dir: run_dir.to_path_buf(),
        cache_dir: None,
        resume: false,
        show_progress: false,
        steps: None,
        asker: None,
        transport: Default::default(),
    };
    let report = block_on(
        Threads::PerCore,
        run_shared(Arc::clone(tasks), &specs, &options),
    )??;
    Ok((report.elapsed, report.models[0].errors))
}

/// The HTTP stack alone: reqwest, built as the runner builds its loopback
/// client, on a fresh runtime as `itc eval` builds it, with `concurrency`
/// loops sending the captured request `requests` times in all and reading
/// each answer as JSON.
pub(super) fn run_reqwest(
    server: &InstantServer,
    request: &CapturedRequest,
    concurrency: usize,
    requests: u64,
) -> anyhow::Result<ClientRun> {
    // Built before the clock starts, so that its start is not measured.
    let runtime = runtime(Threads::PerCore)?;
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .context("building the HTTP client")?;
    let sender = Sender {
        client,
        url: format!("http://{}{}", server.addr(), request.path),
        headers: request
            .headers
            .iter()
            .filter(|(n, _)| {
                !n.eq_ignore_ascii_case("host") && !n.eq_ignore_ascii_case("content-length")
            })
            .cloned()
            .collect(),
        body: request.body.clone(),
    };
    let left = Arc::new(AtomicU64::new(requests));
    let before = CpuSnapshot::take(server.cpu_time());
    let started = Instant::now();
    let failures: u64 = runtime.block_on(async {
        let mut loops = tokio::task::JoinSet::new();
        for _ in 0..concurrency {
            loops.spawn(sender.clone().send_until_done(Arc::clone(&left)));
        }
        let mut failures = 0;
        while let Some(joined) = loops.join_next().await {
            failures += joined.unwrap_or(1);
        }
        failures
    });
    let elapsed = started.elapsed();
    anyhow::ensure!(failures == 0, "reqwest alone: {failures} request(s) failed");
    Ok(ClientRun {
        requests_per_sec: requests as f64 / elapsed.as_secs_f64().max(1e-9),
        cpu: before.per_request(&CpuSnapshot::take(server.cpu_time()), requests, false),
    })
}

/// One loop of [`run_reqwest`]: the client and the request it sends.
#[derive(Clone)]
struct Sender {
    client: reqwest::Client,
    url: String,
    /// The captured headers but `Host` and `Content-Length` (reqwest sets them).
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Sender {
    /// Sends the request while `left` counts down from above zero; returns
    /// how many were not answered with a JSON body.
    async fn send_until_done(self, left: Arc<AtomicU64>) -> u64 {
        let mut failures = 0u64;
        while left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
        {
            let mut builder = self
                .client
                .post(&self.url)
                .timeout(Duration::from_secs(120))
                .body(self.body.clone());
            for (name, value) in &self.headers {
                builder = builder.header(name, value);
            }
            let answered = match builder.send().await {
                Ok(response) if response.status().is_success() => response
                    .bytes()
                    .await
                    .ok()
                    .is_some_and(|b| serde_json::from_slice::<serde_json::Value>(&b).is_ok()),
                _ => false,
            };
            failures += u64::from(!answered);
        }
        failures
    }
}
