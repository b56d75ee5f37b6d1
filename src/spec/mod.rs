//! The contract (SPEC §0–3): the record types, reading JSON Lines files, the
//! action-string grammar, reading calls out of answers (and the limits on
//! that reading), language match, references to earlier outputs, the
//! shape of calls each task kind needs and the checks of a task's recorded
//! steps (SPEC §6); the shipped sample set.
//!
//! Everything else in the crate may use `spec`; `spec` uses nothing of the
//! crate but itself.

pub mod action;
pub mod jsonl;
pub mod kind;
pub mod language;
pub mod limits;
pub mod records;
pub mod reference;
pub mod response;
pub mod sample;
pub mod solver;
pub mod task_score_json;
pub mod turns;
