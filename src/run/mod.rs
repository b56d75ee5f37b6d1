//! Running an evaluation (`itc eval`): models on tasks into a run directory.
//!
//! - [`mod@eval`]: `itc eval` ([`eval()`]).
//! - [`select`], [`shard`]: the tasks of a run.
//! - [`resume`]: what a resumed run may change in its models' settings.
//! - [`runner`]: the run itself ([`run()`]); [`outcome`]: a task's prediction.
//! - [`store`]: `predictions.jsonl`, appended per task and repaired on resume.
//! - [`progress`] and [`stats`]: the progress bar and the run figures.
//! - [`steps`]: step-by-step runs (SPEC §6, §7).
//! - [`merge`]: joining shards.
//!
//! Uses [`crate::models`] to talk to models and [`crate::score`] (a run is
//! scored where it ran).

pub mod eval;
pub mod merge;
pub mod outcome;
pub mod progress;
pub mod resume;
pub mod runner;
pub mod select;
pub mod shard;
pub mod stats;
pub mod steps;
pub mod store;

pub use eval::{EvalOptions, eval};
pub use runner::{RunOptions, RunReport, predictions_path, run, run_shared};
pub use select::Selection;
pub use stats::ModelStats;
