//! Scoring (SPEC §3–4): one task's selection and invocation scores, streaming
//! evaluation of prediction files, aggregates with bootstrap intervals, and
//! the tables and files `itc score` writes.
//!
//! Uses [`crate::spec`] only.

pub mod aggregate;
pub mod files;
pub mod report;
pub mod stream;
pub mod task;
