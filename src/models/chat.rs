//! A configured model answering free-form chats, for the stages that build
//! task sets and for the tool model of simulated runs.

use std::path::Path;
use std::sync::Arc;

use super::backend::{Answer, ApiRequest, BackendApi, Chat};
use super::batch::{RequestLabel, Transport};
use super::cache::cache_key;
use super::config::ModelConfig;
use super::exchange::{
    Exchange, InFlight, ModelContext, ModelSpec, SlotPools, entry_cap, exchange, http_client,
    open_cache,
};
use super::http::{ErrorKind, Failure};

/// A configured model answering free-form chats ([`Chat`]) with the same
/// machinery as [`crate::run::runner::run`]: its concurrency and rate limits, retries, and the
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
        ChatModel::with_transport(spec, cache_dir, Transport::Send)
    }

    /// [`ChatModel::new`] whose requests travel by `transport`: sent, or
    /// written to batch files, or answered from batch results (as
    /// `itc eval --emit-batch` / `--import-batch` do).
    pub fn with_transport(
        spec: &ModelSpec,
        cache_dir: Option<&Path>,
        transport: Transport,
    ) -> anyhow::Result<ChatModel> {
        ChatModel::capped(spec, cache_dir, transport, None, &mut SlotPools::default())
    }

    /// [`ChatModel::with_transport`] reading at most `max_reply_bytes` of a
    /// response body (see [`ModelContext::max_reply_bytes`]), and taking
    /// turns with the other models of `pools` at its server's slots when
    /// its spec says so.
    pub fn capped(
        spec: &ModelSpec,
        cache_dir: Option<&Path>,
        transport: Transport,
        max_reply_bytes: Option<u64>,
        pools: &mut SlotPools,
    ) -> anyhow::Result<ChatModel> {
        if spec.config.backend == super::config::Backend::Baseline {
            anyhow::bail!(
                "model `{}` is the offline baseline, which only answers tasks; give an LLM backend",
                spec.config.name
            );
        }
        let (client, loopback_client) = (http_client(false)?, http_client(true)?);
        let mut context = ModelContext::new(
            spec,
            open_cache(cache_dir)?,
            &client,
            &loopback_client,
            transport,
        );
        context.max_reply_bytes = max_reply_bytes;
        pools.join(spec, &mut context);
        Ok(ChatModel {
            context: Arc::new(context),
        })
    }

    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.context.config
    }

    /// The counter of its requests in flight (for a progress bar).
    pub fn in_flight(&self) -> InFlight {
        self.context.in_flight.clone()
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
            let key = cache_key(api.kind(), &api.build_chat(chat));
            cache
                .get_within(&key, entry_cap(self.context.max_reply_bytes))
                .is_some()
        })
    }

    /// Sends a request built elsewhere (a benchmark's dialogue with this
    /// model, [`crate::run::dialogue`]), waiting for one of the model's
    /// concurrency slots; `label` names the task and step in batch files.
    pub async fn send(&self, request: &ApiRequest, label: Option<RequestLabel<'_>>) -> Exchange {
        let Ok(_slot) = Arc::clone(&self.context.slots).acquire_owned().await else {
            return Exchange::failed(Failure::new(ErrorKind::Internal, "the model was shut down"));
        };
        exchange(&self.context, self.api(), request, label).await
    }

    /// `message` with the model's API key, if it has one, hidden.
    pub fn redact(&self, message: &str) -> String {
        match &self.context.key {
            Some(key) => key.redact(message),
            None => message.to_string(),
        }
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
        let exchange = exchange(&self.context, api, &api.build_chat(chat), None).await;
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
