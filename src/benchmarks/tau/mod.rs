//! τ³-bench (`sierra-research/tau2-bench`): its domains as Rust
//! environments, each tool answering with the official output string.

pub mod retail;
