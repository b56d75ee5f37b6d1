//! Running models over tasks: bounded concurrency and rate limits per
//! model, retries, the response cache, and one prediction per task written
//! to `predictions.jsonl` as soon as it is known.
//!
//! Every task ends with a prediction: an answer, or an error with its kind
//! and message. A task whose worker dies (a bug) still gets an `internal`
//! error prediction; nothing is dropped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::api::api_for;
use super::backend::{Answer, ApiRequest, BackendApi, Chat};
use super::cache::{Cache, CachedResponse, cache_key};
use super::config::{ApiKey, ModelConfig, resolve_key};
use super::http::{ErrorKind, Failure, is_loopback, send};
use super::progress::{InFlight, Progress};
use super::ratelimit::RateLimiter;
use super::retry::RetryPolicy;
use super::stats::{ModelStats, TaskTiming};
use super::steps::StepRun;
use super::steps::run::{answer_in_steps, baseline_in_steps};
use super::store::PredictionStore;
use crate::spec::records::{Prediction, Task};

/// A model ready to run: its configuration and its key, if it needs one.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    /// The configuration.
    pub config: ModelConfig,
    /// The API key, read from the environment.
    pub key: Option<ApiKey>,
}

impl ModelSpec {
    /// Validates a configuration and reads its key from the environment
    /// (an error naming the variable when it is missing).
    pub fn resolve(mut config: ModelConfig) -> anyhow::Result<ModelSpec> {
        config.validate(&format!("model `{}`", config.name))?;
        config.load_system_prompt()?;
        let key = resolve_key(&config)?;
        Ok(ModelSpec { config, key })
    }
}

/// Where and how a run happens.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Directory of `predictions.jsonl`.
    pub run_dir: PathBuf,
    /// Response cache directory; `None` for no cache.
    pub cache_dir: Option<PathBuf>,
    /// Continue an existing `predictions.jsonl` (skip finished tasks, retry errored ones).
    pub resume: bool,
    /// Draw a progress bar (only when stderr is a terminal).
    pub show_progress: bool,
    /// Ask each task step by step (SPEC §6) instead of once.
    pub steps: Option<Arc<StepRun>>,
}

/// What resuming found in the existing predictions file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResumeSummary {
    /// Finished predictions kept.
    pub kept: usize,
    /// Errored predictions removed; their tasks ran again.
    pub errored: usize,
    /// Repeated or unparsable lines removed.
    pub discarded: usize,
    /// Bytes of a torn last line cut off.
    pub torn_bytes: usize,
}

/// The result of [`run`].
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The predictions file.
    pub predictions: PathBuf,
    /// Figures per model, in the order given.
    pub models: Vec<ModelStats>,
    /// What resuming found, when the run resumed.
    pub resume: Option<ResumeSummary>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Most predictions written at once.
const MAX_BATCH: usize = 256;

/// The name of the predictions file inside a run directory.
pub const PREDICTIONS_FILE: &str = "predictions.jsonl";

/// The predictions file of a run directory.
pub fn predictions_path(run_dir: &Path) -> PathBuf {
    run_dir.join(PREDICTIONS_FILE)
}

/// Everything a task's worker needs about its model.
pub(in crate::models) struct ModelContext {
    pub(in crate::models) config: ModelConfig,
    pub(in crate::models) key: Option<ApiKey>,
    api: Option<Box<dyn BackendApi>>,
    limiter: RateLimiter,
    slots: Arc<Semaphore>,
    retry: RetryPolicy,
    timeout: Duration,
    cache: Option<Cache>,
    client: reqwest::Client,
    /// The model's requests waiting on the server.
    in_flight: InFlight,
}

/// A worker's result.
pub(in crate::models) struct Outcome {
    pub(in crate::models) prediction: Prediction,
    pub(in crate::models) cache_hit: bool,
    /// Where the task's time went and its requests sent (retries
    /// included); none when its worker stopped without a result.
    pub(in crate::models) timing: Option<TaskTiming>,
}

struct Done {
    model: usize,
    task: usize,
    outcome: Outcome,
}

/// Runs every model on every task not yet finished in the run directory
/// and appends the predictions to `RUN_DIR/predictions.jsonl`.
pub async fn run(
    tasks: &[Task],
    models: &[ModelSpec],
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    run_shared(Arc::new(tasks.to_vec()), models, options).await
}

/// [`run`] on tasks the caller hands over (or shares): the workers use them
/// as they are, without copying every task first.
pub async fn run_shared(
    tasks: Arc<Vec<Task>>,
    models: &[ModelSpec],
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    let started = Instant::now();
    std::fs::create_dir_all(&options.run_dir)
        .with_context(|| format!("creating {}", options.run_dir.display()))?;
    let path = predictions_path(&options.run_dir);
    let (store, resumed) = PredictionStore::open(&path, options.resume)?;
    let resume = options.resume.then(|| ResumeSummary {
        kept: resumed.kept.len(),
        errored: resumed.errored,
        discarded: resumed.duplicates + resumed.invalid,
        torn_bytes: resumed.torn_bytes,
    });
    let cache = match &options.cache_dir {
        Some(dir) => {
            Some(Cache::open(dir).with_context(|| format!("opening the cache {}", dir.display()))?)
        }
        None => None,
    };

    let (tx, rx) = mpsc::unbounded_channel::<Done>();
    let finished = resumed.finished();
    let Spawned {
        workers,
        expected,
        in_flight,
    } = spawn_workers(&tasks, models, &finished, cache, options.steps.clone(), &tx)?;
    drop(tx);

    let mut collector = Collector::new(
        &tasks,
        models,
        &resumed.kept,
        store,
        options,
        &expected,
        &in_flight,
    );
    let owed = collector.collect(rx, workers, expected, &path).await?;
    collector.record_owed(owed, &tasks, models)?;
    collector.progress.finish();
    let Collector {
        predictions,
        session,
        earlier,
        timings,
        ..
    } = collector;

    let stats: Vec<ModelStats> = models
        .iter()
        .enumerate()
        .map(|(m, spec)| {
            let mut figures =
                ModelStats::from_predictions(&spec.config, tasks.len(), &predictions[m]);
            figures.resumed = earlier[m];
            (figures.requests, figures.cache_hits, figures.retries) = session[m];
            figures.set_timings(&timings[m], in_flight[m].most());
            figures
        })
        .collect();
    Ok(RunReport {
        predictions: path,
        models: stats,
        resume,
        elapsed: started.elapsed(),
    })
}

/// A (model, task) pair whose prediction a worker owes.
type Owed = (usize, usize);

/// The workers of a run.
struct Spawned {
    workers: JoinSet<()>,
    /// The (model, task) pairs whose predictions the workers owe.
    expected: HashSet<Owed>,
    /// Per model: its requests waiting on the server.
    in_flight: Vec<InFlight>,
}

/// Starts one worker per model and unfinished task; each sends its
/// [`Done`] on `tx`. Every task is queued at the same instant, the start
/// of the run, and waits there for one of its model's slots.
fn spawn_workers(
    tasks: &Arc<Vec<Task>>,
    models: &[ModelSpec],
    finished: &HashSet<(String, String)>,
    cache: Option<Cache>,
    steps: Option<Arc<StepRun>>,
    tx: &mpsc::UnboundedSender<Done>,
) -> anyhow::Result<Spawned> {
    let client = http_client(false)?;
    let loopback_client = http_client(true)?;
    let mut workers = JoinSet::new();
    let mut expected: HashSet<(usize, usize)> = HashSet::new();
    let mut in_flight = Vec::with_capacity(models.len());
    let queued = Instant::now();
    for (m, spec) in models.iter().enumerate() {
        let context = Arc::new(ModelContext {
            config: spec.config.clone(),
            key: spec.key.clone(),
            api: api_for(&spec.config),
            limiter: RateLimiter::new(
                spec.config.requests_per_minute,
                spec.config.tokens_per_minute,
            ),
            slots: Arc::new(Semaphore::new(spec.config.concurrency)),
            retry: spec.config.retry_policy(),
            timeout: spec.config.timeout(),
            cache: cache.clone(),
            client: if is_loopback(&spec.config.effective_base_url()) {
                loopback_client.clone()
            } else {
                client.clone()
            },
            in_flight: InFlight::default(),
        });
        in_flight.push(context.in_flight.clone());
        for (t, task) in tasks.iter().enumerate() {
            if finished.contains(&(spec.config.name.clone(), task.id.clone())) {
                continue; // answered by an earlier session
            }
            expected.insert((m, t));
            let context = Arc::clone(&context);
            let tasks = Arc::clone(tasks);
            let tx = tx.clone();
            let steps = steps.clone();
            workers.spawn(async move {
                let Ok(_slot) = Arc::clone(&context.slots).acquire_owned().await else {
                    return;
                };
                let queue = queued.elapsed();
                let mut outcome = answer(&context, &tasks[t], steps.as_deref()).await;
                if let Some(timing) = &mut outcome.timing {
                    timing.queue = queue;
                    timing.total = queued.elapsed();
                }
                let _ = tx.send(Done {
                    model: m,
                    task: t,
                    outcome,
                });
            });
        }
    }
    Ok(Spawned {
        workers,
        expected,
        in_flight,
    })
}

/// What the run has received so far: the store it appends to, the progress
/// bar, and per model its predictions and this session's request figures.
struct Collector {
    store: PredictionStore,
    progress: Progress,
    /// Per model: requests, cache hits, retries of this session.
    session: Vec<(u64, u64, u64)>,
    /// Per model: its predictions for the selected tasks, earlier ones first.
    predictions: Vec<Vec<Prediction>>,
    /// Per model: how many predictions came from an earlier session.
    earlier: Vec<usize>,
    /// Per model: where the time of this session's tasks went.
    timings: Vec<Vec<TaskTiming>>,
}

impl Collector {
    fn new(
        tasks: &[Task],
        models: &[ModelSpec],
        kept: &[Prediction],
        store: PredictionStore,
        options: &RunOptions,
        expected: &HashSet<(usize, usize)>,
        in_flight: &[InFlight],
    ) -> Collector {
        let selected: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        let predictions: Vec<Vec<Prediction>> = models
            .iter()
            .map(|spec| {
                kept.iter()
                    .filter(|p| {
                        p.model == spec.config.name && selected.contains(p.task_id.as_str())
                    })
                    .cloned()
                    .collect()
            })
            .collect();
        Collector {
            store,
            progress: Progress::new(
                expected.len() as u64,
                options.show_progress,
                in_flight.to_vec(),
            ),
            session: vec![(0, 0, 0); models.len()],
            timings: vec![Vec::new(); models.len()],
            earlier: predictions.iter().map(Vec::len).collect(),
            predictions,
        }
    }

    /// Appends a batch in one write, then counts it.
    fn record(&mut self, batch: Vec<Done>) -> anyhow::Result<()> {
        self.store
            .append_all(batch.iter().map(|done| &done.outcome.prediction))?;
        for done in batch {
            self.progress.record(&done.outcome.prediction);
            let s = &mut self.session[done.model];
            let requests = done.outcome.timing.map_or(0, |t| t.requests);
            s.0 += u64::from(requests);
            s.1 += u64::from(done.outcome.cache_hit);
            s.2 += u64::from(requests.saturating_sub(1));
            self.timings[done.model].extend(done.outcome.timing);
            self.predictions[done.model].push(done.outcome.prediction);
        }
        Ok(())
    }

    /// Receives until every worker is done (or Ctrl-C), writing in batches:
    /// everything that arrived while the previous batch was written goes out
    /// in one write. Returns the (model, task) pairs still owed, sorted.
    async fn collect(
        &mut self,
        mut rx: mpsc::UnboundedReceiver<Done>,
        mut workers: JoinSet<()>,
        mut expected: HashSet<(usize, usize)>,
        path: &Path,
    ) -> anyhow::Result<Vec<(usize, usize)>> {
        let interrupt = tokio::signal::ctrl_c();
        tokio::pin!(interrupt);
        loop {
            tokio::select! {
                received = rx.recv() => {
                    let Some(first) = received else { break };
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH
                        && let Ok(done) = rx.try_recv()
                    {
                        batch.push(done);
                    }
                    // One result per spawned worker, so nothing is ever dropped here.
                    batch.retain(|done| expected.remove(&(done.model, done.task)));
                    self.record(batch)?;
                }
                _ = &mut interrupt => {
                    workers.abort_all();
                    self.progress.finish();
                    anyhow::bail!(
                        "interrupted; the finished predictions are in {}: continue with --resume",
                        path.display()
                    );
                }
            }
        }
        // Workers that died without a result still owe a prediction.
        while let Some(joined) = workers.join_next().await {
            if let Err(e) = joined
                && e.is_panic()
            {
                self.progress.println(&format!("a worker panicked: {e}"));
            }
        }
        let mut owed: Vec<(usize, usize)> = expected.into_iter().collect();
        owed.sort_unstable();
        Ok(owed)
    }

    /// Records an internal error for each task whose worker stopped without
    /// a result, so that every task has a prediction.
    fn record_owed(
        &mut self,
        owed: Vec<(usize, usize)>,
        tasks: &[Task],
        models: &[ModelSpec],
    ) -> anyhow::Result<()> {
        for (m, t) in owed {
            let failure = Failure::new(
                ErrorKind::Internal,
                "the task's worker stopped without a result",
            );
            let prediction = error_prediction(
                &models[m].config,
                &tasks[t],
                &failure,
                0,
                models[m].key.as_ref(),
            );
            let outcome = Outcome {
                prediction,
                cache_hit: false,
                timing: None,
            };
            self.record(vec![Done {
                model: m,
                task: t,
                outcome,
            }])?;
        }
        Ok(())
    }
}

/// The HTTP client; `direct` ignores proxy settings (for loopback servers,
/// which a proxy from `HTTP_PROXY` could not reach).
fn http_client(direct: bool) -> anyhow::Result<reqwest::Client> {
    let builder = reqwest::Client::builder();
    let builder = if direct { builder.no_proxy() } else { builder };
    builder.build().context("building the HTTP client")
}

/// Answers one task: from the baseline, the cache, or the server with
/// retries; step by step when `steps` is given.
async fn answer(context: &ModelContext, task: &Task, steps: Option<&StepRun>) -> Outcome {
    let api = match (&context.api, steps) {
        (None, None) => return baseline(context, task),
        (None, Some(run)) => return baseline_in_steps(context, task, run).await,
        (Some(api), Some(run)) => return answer_in_steps(context, api.as_ref(), task, run).await,
        (Some(api), None) => api,
    };
    let exchange = exchange(context, api.as_ref(), &api.build(task)).await;
    let prediction = match exchange.result {
        Ok((answer, latency_ms)) => {
            answer_prediction(&context.config, task, answer, latency_ms, exchange.requests)
        }
        Err(failure) => error_prediction(
            &context.config,
            task,
            &failure,
            exchange.requests,
            context.key.as_ref(),
        ),
    };
    Outcome {
        prediction,
        cache_hit: exchange.cache_hit,
        timing: Some(TaskTiming {
            server: exchange.server,
            throttle: exchange.throttle,
            requests: exchange.requests,
            ..TaskTiming::default()
        }),
    }
}

/// What sending one request (with its retries) came to.
pub(in crate::models) struct Exchange {
    /// The answer and the latency of the request that gave it, or the last failure.
    pub(in crate::models) result: Result<(Answer, u64), Failure>,
    /// Requests sent (0 on a cache hit).
    pub(in crate::models) requests: u32,
    pub(in crate::models) cache_hit: bool,
    /// Time waiting on the server, summed over the requests.
    pub(in crate::models) server: Duration,
    /// Time waiting for the rate limits and between retries.
    pub(in crate::models) throttle: Duration,
}

/// Sends a request: from the cache when it holds the answer, else to the
/// server within the rate limits, retrying what can be retried.
pub(in crate::models) async fn exchange(
    context: &ModelContext,
    api: &dyn BackendApi,
    request: &ApiRequest,
) -> Exchange {
    let key = context
        .cache
        .as_ref()
        .map(|_| cache_key(api.kind(), request));
    if let (Some(cache), Some(key)) = (&context.cache, &key)
        && let Some(hit) = cache.get(key)
        && let Ok(answer) = api.parse(&hit.body, &request.names)
    {
        return Exchange {
            result: Ok((answer, hit.latency_ms)),
            requests: 0,
            cache_hit: true,
            server: Duration::ZERO,
            throttle: Duration::ZERO,
        };
    }
    let auth = context
        .key
        .as_ref()
        .map(|k| api.auth_headers(k))
        .unwrap_or_default();
    // Only a tokens-per-minute limit uses the estimate, and serializing a
    // body just to measure it costs about as much as building the request.
    let estimate = if context.config.tokens_per_minute.is_some() {
        request.body.to_string().len() as u64 / 4 + u64::from(context.config.max_tokens)
    } else {
        0
    };
    let mut rng = fastrand::Rng::new();
    let mut attempt = 0;
    let (mut server, mut throttle) = (Duration::ZERO, Duration::ZERO);
    loop {
        attempt += 1;
        let waiting = Instant::now();
        context.limiter.acquire(estimate).await;
        throttle += waiting.elapsed();
        let sent = Instant::now();
        let result = {
            let _flying = context.in_flight.enter();
            send(&context.client, request, &auth, context.timeout).await
        };
        // A key the server echoes (in an answer, its reasoning, a tool
        // call) is masked before anything is parsed, cached or stored.
        let result = result.map(|mut body| {
            if let Some(key) = &context.key {
                key.redact_value(&mut body);
            }
            body
        });
        let took = sent.elapsed();
        server += took;
        let latency_ms = took.as_millis() as u64;
        let failure = match result {
            Ok(body) => match api.parse(&body, &request.names) {
                Ok(answer) => {
                    let used = answer
                        .usage
                        .map_or(estimate, |u| u.prompt_tokens + u.completion_tokens);
                    context.limiter.settle(estimate, used);
                    if let (Some(cache), Some(key)) = (&context.cache, &key) {
                        // A cache that cannot be written only costs a later re-run requests.
                        let _ = cache.put(key, &CachedResponse { body, latency_ms });
                    }
                    return Exchange {
                        result: Ok((answer, latency_ms)),
                        requests: attempt,
                        cache_hit: false,
                        server,
                        throttle,
                    };
                }
                Err(message) => Failure::new(ErrorKind::InvalidResponse, message),
            },
            Err(failure) => failure,
        };
        context.limiter.settle(estimate, 0);
        if !failure.kind.retryable() || attempt >= context.retry.max_attempts {
            return Exchange {
                result: Err(failure),
                requests: attempt,
                cache_hit: false,
                server,
                throttle,
            };
        }
        let pausing = Instant::now();
        tokio::time::sleep(context.retry.delay(attempt, failure.retry_after, &mut rng)).await;
        throttle += pausing.elapsed();
    }
}

/// A configured model answering free-form chats ([`Chat`]) with the same
/// machinery as [`run`]: its concurrency and rate limits, retries, and the
/// response cache, so a repeated chat costs no request. The stages that
/// build task sets (writing queries, judging, gold answers) use it.
#[derive(Clone)]
pub struct ChatModel {
    context: Arc<ModelContext>,
}

/// The reply to a [`Chat`].
#[derive(Debug, Clone)]
pub struct Completion {
    /// The answer, or why there is none (its message has any key redacted).
    pub result: Result<Answer, (ErrorKind, String)>,
    /// Requests sent, retries included (0 when the cache answered).
    pub requests: u32,
    /// Whether the cache answered.
    pub cache_hit: bool,
    /// Latency of the request that answered, in milliseconds.
    pub latency_ms: u64,
}

impl ChatModel {
    /// A model for chats, caching responses in `cache_dir` when given. The
    /// offline baseline cannot chat: an error.
    pub fn new(spec: &ModelSpec, cache_dir: Option<&Path>) -> anyhow::Result<ChatModel> {
        let config = &spec.config;
        let Some(api) = api_for(config) else {
            anyhow::bail!(
                "model `{}` is the offline baseline, which only answers tasks; give an LLM backend",
                config.name
            );
        };
        let cache = match cache_dir {
            Some(dir) => Some(
                Cache::open(dir).with_context(|| format!("opening the cache {}", dir.display()))?,
            ),
            None => None,
        };
        let client = http_client(is_loopback(&config.effective_base_url()))?;
        Ok(ChatModel {
            context: Arc::new(ModelContext {
                config: config.clone(),
                key: spec.key.clone(),
                api: Some(api),
                limiter: RateLimiter::new(config.requests_per_minute, config.tokens_per_minute),
                slots: Arc::new(Semaphore::new(config.concurrency)),
                retry: config.retry_policy(),
                timeout: config.timeout(),
                cache,
                client,
                in_flight: InFlight::default(),
            }),
        })
    }

    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.context.config
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.context.config.name
    }

    fn api(&self) -> &dyn BackendApi {
        self.context
            .api
            .as_deref()
            .expect("a chat model has an API")
    }

    /// The request a chat becomes (for `--dry-run`; it holds no key).
    pub fn request(&self, chat: &Chat) -> ApiRequest {
        self.api().build_chat(chat)
    }

    /// Whether the cache already holds the reply to a chat.
    pub fn is_cached(&self, chat: &Chat) -> bool {
        let api = self.api();
        self.context.cache.as_ref().is_some_and(|cache| {
            cache
                .get(&cache_key(api.kind(), &api.build_chat(chat)))
                .is_some()
        })
    }

    /// Sends a chat, waiting for one of the model's concurrency slots.
    pub async fn complete(&self, chat: &Chat) -> Completion {
        let Ok(_slot) = Arc::clone(&self.context.slots).acquire_owned().await else {
            return Completion {
                result: Err((ErrorKind::Internal, "the model was shut down".into())),
                requests: 0,
                cache_hit: false,
                latency_ms: 0,
            };
        };
        let api = self.api();
        let exchange = exchange(&self.context, api, &api.build_chat(chat)).await;
        let (result, latency_ms) = match exchange.result {
            Ok((answer, latency_ms)) => (Ok(answer), latency_ms),
            Err(failure) => {
                let message = match &self.context.key {
                    Some(key) => key.redact(&failure.message),
                    None => failure.message,
                };
                (Err((failure.kind, message)), 0)
            }
        };
        Completion {
            result,
            requests: exchange.requests,
            cache_hit: exchange.cache_hit,
            latency_ms,
        }
    }
}

pub(in crate::models) fn answer_prediction(
    config: &ModelConfig,
    task: &Task,
    answer: Answer,
    latency_ms: u64,
    attempts: u32,
) -> Prediction {
    Prediction {
        task_id: task.id.clone(),
        model: config.name.clone(),
        output: answer.output,
        calls: answer.calls,
        error: None,
        reasoning: answer.reasoning,
        latency_ms: Some(latency_ms),
        usage: answer.usage,
        steps: None,
        error_kind: None,
        attempts: Some(attempts),
    }
}

pub(in crate::models) fn error_prediction(
    config: &ModelConfig,
    task: &Task,
    failure: &Failure,
    attempts: u32,
    key: Option<&ApiKey>,
) -> Prediction {
    let plural = if attempts == 1 { "" } else { "s" };
    let message = format!(
        "{} after {attempts} request{plural}: {}",
        failure.kind, failure.message
    );
    Prediction {
        task_id: task.id.clone(),
        model: config.name.clone(),
        output: None,
        calls: None,
        error: Some(key.map_or_else(|| message.clone(), |k| k.redact(&message))),
        reasoning: None,
        latency_ms: None,
        usage: None,
        steps: None,
        error_kind: Some(failure.kind.as_str().to_string()),
        attempts: Some(attempts),
    }
}

/// The offline baseline's answer (`src/baseline.rs`: gold-blind, no
/// network). Should it panic, the task still ends with an `internal` error.
fn baseline(context: &ModelContext, task: &Task) -> Outcome {
    let started = Instant::now();
    let answer = Answer {
        output: Some(crate::models::baseline::respond(task)),
        ..Answer::default()
    };
    let latency_ms = started.elapsed().as_millis() as u64;
    Outcome {
        prediction: answer_prediction(&context.config, task, answer, latency_ms, 0),
        cache_hit: false,
        timing: Some(TaskTiming::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost/v1"));
        assert!(is_loopback("http://[::1]:1/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("not a url"));
    }
}
