//! Running models on tasks (`itc eval`): backends, prompts, configuration,
//! retries, rate limits, the response cache, resumable prediction files and
//! the run summary.
//!
//! - [`config`]: `models.toml`, ad-hoc models, API keys from the environment.
//! - [`prompt`]: system prompts from the templates in `prompts/`.
//! - [`tools`]: tools as native function declarations; API-safe names.
//! - [`backend`]: the [`BackendApi`] trait and what backends share;
//!   [`api`] picks the one of a model;
//!   [`openai`], [`anthropic`], [`gemini`] implement it.
//! - [`reasoning`]: `<think>` blocks and reasoning fields kept apart from answers.
//! - [`steps`]: step-by-step runs (SPEC §6, §7): the conversation, and the
//!   tool outputs shown after each step (replayed, executed or simulated).
//! - [`http`]: sending one request; typed failures.
//! - [`retry`]: backoff with jitter; `Retry-After`.
//! - [`ratelimit`]: requests and tokens per minute.
//! - [`cache`]: responses keyed by a SHA-256 of the canonical request.
//! - [`resume`]: what a resumed run may change in its models' settings.
//! - [`store`]: `predictions.jsonl`, appended per task and repaired on resume.
//! - [`select`]: task subsets.
//! - [`server_probe`]: checks of the servers before a run (slots; tools ignored).
//! - [`exchange`]: one model's requests through its limits, retries and
//!   cache; the prediction an answer or a failure becomes.
//! - [`runner`]: the run itself ([`run()`]).
//! - [`chat`]: a model answering free-form chats ([`ChatModel`]).
//! - [`progress`] and [`stats`]: the progress bar and the run figures.
//! - [`mod@eval`]: `itc eval` ([`eval()`]; its flags: `cli::eval::EvalArgs`).
//! - [`baseline`]: the offline baseline model (lexical retrieval and slot filling).
//!
//! Uses [`crate::score`] (a run is scored where it ran) and [`crate::spec`].

pub mod anthropic;
pub mod api;
pub mod backend;
pub mod baseline;
pub mod batch;
pub mod cache;
pub mod chat;
pub mod config;
pub mod eval;
pub mod exchange;
pub mod gemini;
pub mod http;
pub mod key;
pub mod merge;
pub mod openai;
pub mod progress;
pub mod prompt;
pub mod ratelimit;
pub mod reasoning;
pub mod resume;
pub mod retry;
pub mod runner;
pub mod select;
pub mod server_probe;
pub mod shard;
pub mod stats;
pub mod steps;
pub mod store;
pub mod tools;

pub use api::api_for;
pub use backend::{Answer, ApiRequest, BackendApi, Chat};
pub use chat::{ChatModel, Completion};
pub use config::{ApiKey, Backend, ConfigFile, Mode, ModelConfig};
pub use eval::{EvalOptions, eval};
pub use exchange::ModelSpec;
pub use http::ErrorKind;
pub use retry::RetryPolicy;
pub use runner::{RunOptions, RunReport, predictions_path, run, run_shared};
pub use select::Selection;
pub use stats::ModelStats;
