//! τ³-bench (sierra-research/tau2-bench): an agent follows a store's policy
//! with its tools while a second model plays the customer; a trial passes
//! when the database ends as the gold actions leave it.
//!
//! - [`protocol`]: the official prompts, greeting and stop tokens (benchmark data).

pub mod protocol;
