//! Scoring (SPEC §3–4): one task's selection and invocation scores, streaming
//! evaluation of prediction files, aggregates with bootstrap intervals, and
//! the tables and files `itc score` writes, and the manifest that records
//! what made them.
//!
//! Uses [`crate::spec`] and [`crate::util`] only.

pub mod aggregate;
pub mod bootstrap;
pub mod files;
pub mod manifest;
pub mod outcome;
pub mod report;
pub mod steps;
pub mod stream;
pub mod task;
