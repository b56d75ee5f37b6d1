//! Agentic benchmarks run and scored as their official harnesses do.
//!
//! - [`tau`]: τ³-bench (`sierra-research/tau2-bench`): its formats, the
//!   evaluator's checks and reward, pass^k.

pub mod tau;
