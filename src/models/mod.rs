//! Talking to one model: the model interface, its configuration and
//! providers, and one request through the model's limits, retries and cache.
//!
//! - [`config`]: `models.toml`, ad-hoc models, API keys from the environment;
//!   [`key`]: keys, masked wherever they could be echoed;
//!   [`hosts`]: credentials per tool host (`[[hosts]]`), from environment variables.
//! - [`prompt`]: system prompts from the templates in `prompts/`.
//! - [`tools`]: tools as native function declarations; API-safe names.
//! - [`backend`]: the [`BackendApi`] trait and what backends share;
//!   [`api`] picks the one of a model; [`providers`] implement it
//!   (OpenAI-compatible, Anthropic, Gemini, and the offline baseline).
//! - [`reasoning`]: `<think>` blocks and reasoning fields kept apart from answers.
//! - [`http`]: sending one request; typed failures.
//! - [`retry`]: backoff with jitter; `Retry-After`.
//! - [`ratelimit`]: requests and tokens per minute.
//! - [`cache`]: responses keyed by a SHA-256 of the canonical request.
//! - [`batch`]: batch APIs' request and result lines, and the [`Transport`]
//!   a request takes (sent, written to a batch file, read from batch results).
//! - [`exchange`]: one model's requests through its limits, retries and cache.
//! - [`chat`]: a model answering free-form chats ([`ChatModel`]).
//! - [`server_probe`]: checks of the servers before a run (slots; tools ignored).
//!
//! Running an evaluation over tasks is [`crate::run`]'s; this folder names
//! nothing of it. Uses [`crate::spec`].

pub mod api;
pub mod backend;
pub mod batch;
pub mod cache;
pub mod chat;
pub mod config;
pub mod exchange;
pub mod hosts;
pub mod http;
pub mod key;
pub mod prompt;
pub mod providers;
pub mod ratelimit;
pub mod reasoning;
pub mod retry;
pub mod server_probe;
pub mod tools;

pub use api::api_for;
pub use backend::{Answer, ApiRequest, BackendApi, Chat};
pub use batch::Transport;
pub use chat::{ChatModel, Completion};
pub use config::{ApiKey, Backend, ConfigFile, Mode, ModelConfig};
pub use exchange::ModelSpec;
pub use http::ErrorKind;
pub use retry::RetryPolicy;
