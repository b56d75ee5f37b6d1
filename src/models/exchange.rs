//! One model's requests: the model ready to run ([`ModelSpec`]), what its
//! workers share (`ModelContext`: rate limits, concurrency slots, retries,
//! the cache, the HTTP client), sending one request through all of them
//! (`exchange`), and the prediction an answer or a failure becomes.
//!
//! The runner ([`crate::run::runner`]), step-by-step runs ([`crate::run::steps`]) and
//! free-form chats ([`super::chat`]) all send requests through here.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::Semaphore;

use super::api::api_for;
use super::backend::{Answer, ApiRequest, BackendApi};
use super::batch::{RequestLabel, Transport, custom_id};
use super::cache::{Cache, CachedResponse, cache_key, sampled_key};
use super::config::{ApiKey, Backend, DEFAULT_TEMPERATURE, ModelConfig, resolve_key};
use super::http::{ErrorKind, Failure, send};
use super::ratelimit::RateLimiter;
use super::retry::RetryPolicy;

/// A model ready to run: its configuration and its key, if it needs one.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    /// The configuration.
    pub config: ModelConfig,
    /// The API key, read from the environment.
    pub key: Option<ApiKey>,
    /// The local server whose slots this model shares with the other
    /// models on it that set no concurrency, when they outnumber the slots
    /// left for them: their tasks then wait for one pool of
    /// `config.concurrency` permits, so the server never gets more requests
    /// than its slots ([`super::server_probe::check_servers`]).
    pub slot_pool: Option<String>,
}

impl ModelSpec {
    /// Validates a configuration, gives a model of an API the
    /// [`DEFAULT_TEMPERATURE`] when it sets none, and reads its key from the
    /// environment (an error naming the variable when it is missing).
    pub fn resolve(config: ModelConfig) -> anyhow::Result<ModelSpec> {
        let mut spec = ModelSpec::resolve_without_key(config)?;
        spec.key = resolve_key(&spec.config)?;
        Ok(spec)
    }

    /// Validates a configuration without reading its key: for requests
    /// that are written to batch files, never sent.
    pub fn resolve_without_key(mut config: ModelConfig) -> anyhow::Result<ModelSpec> {
        config.validate(&format!("model `{}`", config.name))?;
        if config.backend != Backend::Baseline {
            config.temperature.get_or_insert(DEFAULT_TEMPERATURE);
        }
        config.load_system_prompt()?;
        Ok(ModelSpec {
            config,
            key: None,
            slot_pool: None,
        })
    }
}

/// Everything a task's worker needs about its model.
pub struct ModelContext {
    /// The model's configuration.
    pub config: ModelConfig,
    /// Its API key, if it needs one.
    pub key: Option<ApiKey>,
    /// Its provider; `None` for the offline baseline.
    pub api: Option<Box<dyn BackendApi>>,
    limiter: RateLimiter,
    /// One permit per request the model may have in flight.
    pub slots: Arc<Semaphore>,
    retry: RetryPolicy,
    timeout: Duration,
    /// The response cache, if the run has one.
    pub cache: Option<Cache>,
    client: reqwest::Client,
    /// Whether any request of this session got a response from the server
    /// (of any status): until one does, a server that cannot be reached
    /// ends the run instead of being retried.
    reached: AtomicBool,
    /// The model's requests waiting on the server.
    pub in_flight: InFlight,
    /// Whether requests are sent, written to a batch file or answered
    /// from batch results.
    pub transport: Transport,
    /// Most bytes of a response body read (`None`: all); a longer body is
    /// an [`ErrorKind::TooLarge`] failure, and a cache entry of more than
    /// twice this counts as absent. Judges set it (`--max-judge-reply-bytes`).
    pub max_reply_bytes: Option<u64>,
}

impl ModelContext {
    /// The context of a model: its limits from its configuration, the
    /// cache, and the HTTP client for its server (`loopback_client` for a
    /// server on this machine, which must bypass any proxy).
    pub fn new(
        spec: &ModelSpec,
        cache: Option<Cache>,
        client: &reqwest::Client,
        loopback_client: &reqwest::Client,
        transport: Transport,
    ) -> ModelContext {
        let config = &spec.config;
        let loopback = super::http::is_loopback(&config.effective_base_url());
        ModelContext {
            config: config.clone(),
            key: spec.key.clone(),
            api: api_for(config),
            limiter: RateLimiter::new(config.requests_per_minute, config.tokens_per_minute),
            slots: Arc::new(Semaphore::new(config.concurrency())),
            retry: config.retry_policy(),
            timeout: config.timeout(),
            cache,
            client: if loopback { loopback_client } else { client }.clone(),
            in_flight: InFlight::default(),
            transport,
            reached: AtomicBool::new(false),
            max_reply_bytes: None,
        }
    }
}

/// The permits of each local server whose slots several models take turns
/// at ([`ModelSpec::slot_pool`]): one semaphore per server.
#[derive(Debug, Default)]
pub struct SlotPools(std::collections::HashMap<String, Arc<Semaphore>>);

impl SlotPools {
    /// Gives `context` its server's pool when its model takes turns at one
    /// (the first model's permits become the pool).
    pub fn join(&mut self, spec: &ModelSpec, context: &mut ModelContext) {
        if let Some(server) = &spec.slot_pool {
            let pool = self
                .0
                .entry(server.clone())
                .or_insert_with(|| Arc::clone(&context.slots));
            context.slots = Arc::clone(pool);
        }
    }
}

/// The HTTP client; `direct` ignores proxy settings (for loopback servers,
/// which a proxy from `HTTP_PROXY` could not reach).
pub fn http_client(direct: bool) -> anyhow::Result<reqwest::Client> {
    let builder = reqwest::Client::builder();
    let builder = if direct { builder.no_proxy() } else { builder };
    builder.build().context("building the HTTP client")
}

/// Opens the response cache of a directory, if one is given.
pub fn open_cache(dir: Option<&Path>) -> anyhow::Result<Option<Cache>> {
    match dir {
        Some(dir) => {
            Ok(Some(Cache::open(dir).with_context(|| {
                format!("opening the cache {}", dir.display())
            })?))
        }
        None => Ok(None),
    }
}

/// Most bytes of a cache entry read for a model whose replies are capped
/// at `max_reply` (an entry is the stored body, written again, plus its
/// latency: about the reply's size).
pub fn entry_cap(max_reply: Option<u64>) -> u64 {
    max_reply.map_or(super::cache::MAX_ENTRY_BYTES, |m| {
        m.saturating_mul(2).saturating_add(4096)
    })
}

/// What sending one request (with its retries) came to.
pub struct Exchange {
    /// The answer and the latency of the request that gave it, or the last failure.
    pub result: Result<(Answer, u64), Failure>,
    /// Requests sent (0 on a cache hit).
    pub requests: u32,
    pub cache_hit: bool,
    /// Time waiting on the server, summed over the requests.
    pub server: Duration,
    /// Time waiting for the rate limits and between retries.
    pub throttle: Duration,
}

impl Exchange {
    /// An exchange that sent nothing and ends with `failure`.
    pub fn failed(failure: Failure) -> Exchange {
        Exchange {
            result: Err(failure),
            requests: 0,
            cache_hit: false,
            server: Duration::ZERO,
            throttle: Duration::ZERO,
        }
    }
}

/// Sends a request: from the cache when it holds the answer, else to the
/// server within the rate limits, retrying what can be retried (or, in a
/// batch run, to the batch file or from the batch results; `label` names
/// the task and step there).
pub async fn exchange(
    context: &ModelContext,
    api: &dyn BackendApi,
    request: &ApiRequest,
    label: Option<RequestLabel<'_>>,
) -> Exchange {
    let batch = !matches!(context.transport, Transport::Send);
    let sample = label.as_ref().map_or(0, |l| l.sample);
    let key = (context.cache.is_some() || batch)
        .then(|| sampled_key(cache_key(api.kind(), request), sample));
    if let (Some(cache), Some(key)) = (&context.cache, &key)
        && let Some(hit) = cache.get_within(key, entry_cap(context.max_reply_bytes))
        && let Ok(answer) = read_reply(api, request, &hit.body)
    {
        return cache_hit(answer, hit);
    }
    if let Some(key) = key.as_deref().filter(|_| batch) {
        return batch_exchange(context, api, request, key, label);
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
    let (mut attempt, mut timeouts) = (0, 0);
    let (mut server, mut throttle) = (Duration::ZERO, Duration::ZERO);
    loop {
        attempt += 1;
        let waiting = Instant::now();
        context.limiter.acquire(estimate).await;
        throttle += waiting.elapsed();
        let sent = Instant::now();
        let result = {
            let _flying = context.in_flight.enter();
            send(
                &context.client,
                request,
                &auth,
                context.timeout,
                context.max_reply_bytes,
            )
            .await
        };
        // A key the server echoes (in an answer, its reasoning, a tool
        // call) is masked before anything is parsed, cached or stored.
        let result = result.map(|mut body| {
            if let Some(key) = &context.key {
                key.redact_value(&mut body);
            }
            body
        });
        if !matches!(&result, Err(f) if f.unusable_server) {
            context.reached.store(true, Ordering::SeqCst);
        }
        let took = sent.elapsed();
        server += took;
        let latency_ms = took.as_millis() as u64;
        let failure = match result {
            Ok(body) => match read_reply(api, request, &body) {
                Ok(mut answer) => {
                    let used = answer.usage.map_or(estimate, |u| {
                        u.prompt_tokens.saturating_add(u.completion_tokens)
                    });
                    context.limiter.settle(estimate, used);
                    let cached = CachedResponse { body, latency_ms };
                    if let (Some(cache), Some(key)) = (&context.cache, &key) {
                        // A cache that cannot be written only costs a later re-run requests.
                        let _ = cache.put(key, &cached);
                    }
                    answer.raw = Some(cached.body);
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
        // A server never reached in this session is not retried: the
        // caller stops the run. Once it has answered, a refused connection
        // is a failure like any other.
        let never_reached = failure.unusable_server && !context.reached.load(Ordering::SeqCst);
        let mut failure = Failure {
            unusable_server: never_reached,
            ..failure
        };
        timeouts += u32::from(failure.kind == ErrorKind::Timeout);
        if never_reached || gives_up(&mut failure, attempt, timeouts, &context.retry) {
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

/// The answer in a response body: parsed by the provider, unless the
/// sender reads the body itself (it gets it in [`Answer::raw`]).
fn read_reply(
    api: &dyn BackendApi,
    request: &ApiRequest,
    body: &serde_json::Value,
) -> Result<Answer, String> {
    if request.read_by_caller {
        Ok(Answer::default())
    } else {
        api.parse(body, &request.names)
    }
}

/// The exchange of a request the cache answered with `hit`.
fn cache_hit(mut answer: Answer, hit: CachedResponse) -> Exchange {
    answer.raw = Some(hit.body);
    Exchange {
        result: Ok((answer, hit.latency_ms)),
        requests: 0,
        cache_hit: true,
        server: Duration::ZERO,
        throttle: Duration::ZERO,
    }
}

/// Timeouts a request may have before it is no longer sent, whatever
/// `max_attempts`: a request that timed out is retried once, with the same
/// settings; one that timed out again would most likely time out a third time.
pub const MAX_TIMEOUTS: u32 = 2;

/// Whether a failed attempt is the last one: its kind is not retried, the
/// attempts are spent, or the request timed out [`MAX_TIMEOUTS`] times
/// (which its message then says).
fn gives_up(failure: &mut Failure, attempt: u32, timeouts: u32, retry: &RetryPolicy) -> bool {
    if failure.kind == ErrorKind::Timeout && timeouts >= MAX_TIMEOUTS {
        if attempt < retry.max_attempts {
            failure.message = format!(
                "{}; timed out {timeouts} times, not sent again (a timeout is retried once)",
                failure.message
            );
        }
        return true;
    }
    !failure.kind.retryable() || attempt >= retry.max_attempts
}

/// A request of a batch run: written to the batch file (a `batch` failure,
/// so a step-by-step task stops at its first request not yet answered), or
/// answered from the batch results (and cached), never sent.
fn batch_exchange(
    context: &ModelContext,
    api: &dyn BackendApi,
    request: &ApiRequest,
    key: &str,
    label: Option<RequestLabel<'_>>,
) -> Exchange {
    let label = label.unwrap_or(RequestLabel {
        task_id: "chat",
        step: 0,
        sample: 0,
    });
    let id = custom_id(&context.config.name, label, key);
    let result = match &context.transport {
        Transport::Emit(sink) => {
            sink.push(
                &context.config.name,
                api.kind(),
                id,
                &request.url,
                &request.body,
            );
            Err(Failure::new(
                ErrorKind::Batch,
                "written to the batch file, not sent",
            ))
        }
        Transport::Import(results) => match results.take(key, &id) {
            None => Err(Failure::new(
                ErrorKind::Batch,
                format!("no result in the batch files for this request (custom_id {id})"),
            )),
            Some(found) => match found.outcome {
                Err((kind, message)) => {
                    Err(Failure::new(kind, format!("batch result {id}: {message}")))
                }
                Ok(mut body) => {
                    if let Some(k) = &context.key {
                        k.redact_value(&mut body);
                    }
                    match read_reply(api, request, &body) {
                        Ok(mut answer) => {
                            let cached = CachedResponse {
                                body,
                                latency_ms: 0,
                            };
                            if let Some(cache) = &context.cache {
                                // A cache that cannot be written only costs a later run requests.
                                let _ = cache.put(key, &cached);
                            }
                            answer.raw = Some(cached.body);
                            Ok((answer, 0))
                        }
                        Err(message) => Err(Failure::new(ErrorKind::InvalidResponse, message)),
                    }
                }
            },
        },
        Transport::Send => Err(Failure::new(ErrorKind::Internal, "not a batch run")),
    };
    Exchange {
        result,
        requests: 0,
        cache_hit: false,
        server: Duration::ZERO,
        throttle: Duration::ZERO,
    }
}

/// Counts the requests waiting on a server right now, and the most at
/// once. Clones share the counts.
#[derive(Debug, Clone, Default)]
pub struct InFlight(Arc<Counts>);

#[derive(Debug, Default)]
struct Counts {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl InFlight {
    /// Counts one request in flight until the guard is dropped (which also
    /// happens when the request's future is cancelled).
    pub fn enter(&self) -> InFlightGuard {
        let now = self.0.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.most.fetch_max(now, Ordering::SeqCst);
        InFlightGuard(self.clone())
    }

    /// Requests in flight now.
    pub fn now(&self) -> usize {
        self.0.now.load(Ordering::SeqCst)
    }

    /// The most requests that were in flight at once.
    pub fn most(&self) -> usize {
        self.0.most.load(Ordering::SeqCst)
    }
}

/// One request in flight, from [`InFlight::enter`] until dropped.
#[derive(Debug)]
pub struct InFlightGuard(InFlight);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_retried_once_whatever_the_attempts_left() {
        let retry = RetryPolicy {
            max_attempts: 5,
            ..RetryPolicy::default()
        };
        let timeout = || Failure::new(ErrorKind::Timeout, "operation timed out");
        let mut first = timeout();
        assert!(!gives_up(&mut first, 1, 1, &retry));
        let mut second = timeout();
        assert!(gives_up(&mut second, 2, 2, &retry));
        assert_eq!(
            second.message,
            "operation timed out; timed out 2 times, not sent again (a timeout is retried once)"
        );
        // Other failures between the timeouts do not reset the count, and
        // count against the attempts as before.
        let mut server = Failure::new(ErrorKind::Server, "HTTP 500");
        assert!(!gives_up(&mut server, 4, 1, &retry));
        assert!(gives_up(&mut server, 5, 1, &retry));
        assert_eq!(server.message, "HTTP 500");
        // Attempts spent first: the message stays as it was.
        let mut last = timeout();
        assert!(gives_up(
            &mut last,
            2,
            2,
            &RetryPolicy {
                max_attempts: 2,
                ..retry
            }
        ));
        assert_eq!(last.message, "operation timed out");
    }
}
