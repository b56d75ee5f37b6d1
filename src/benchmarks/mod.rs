//! Benchmarks whose environments itc reproduces in Rust: the official
//! tools, their output strings and their state, so that a model can be run
//! against them without the official Python code.

pub mod tau;
