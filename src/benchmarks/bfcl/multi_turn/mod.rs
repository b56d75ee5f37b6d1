//! BFCL's multi-turn categories (`multi_turn_base`, `_miss_func`,
//! `_miss_param`, `_long_context`): the stateful API classes the model's
//! calls run against, written in Rust from the official classes, and what
//! runs a call string on them without evaluating anything a model wrote.
//!
//! - [`api`]: the interface every API class offers ([`api::ApiClass`]) and
//!   Python's argument binding with CPython's `TypeError` texts.
//! - [`apis`]: the eight classes and the long-context data.
//! - [`state`]: an instance's public state, its reference-trace id and
//!   Python's `==` on it.
//! - [`exec`]: call strings run on an entry's instances as the official
//!   executor runs them, without `eval`.
//! - [`decode`]: a result file's raw turns into call strings.
//! - [`checker`]: the official verdict on one entry.
//! - [`files`]: the question files; [`score`]: a result file scored.

pub mod api;
pub mod apis;
pub mod checker;
pub mod decode;
pub mod exec;
pub mod files;
pub mod score;
pub mod state;
pub mod tasks;
