//! # itc — International Tool Calling benchmark harness
//!
//! The library mirrors the pipeline, one folder a stage. Each stage reads and
//! writes JSON Lines files of the types in [`spec::records`]:
//!
//! - [`cli`]: the command line: clap arguments → plain options → one library call.
//! - [`spec`]: the contract: records, JSONL reading, the action grammar,
//!   reading calls out of answers, language match (SPEC §0–3).
//! - [`score`]: per-task scores, streaming evaluation, aggregates and reports
//!   (SPEC §3–4, `itc score`).
//! - [`report`]: comparing runs (`itc report`): several run directories and
//!   score folders in one report, paired bootstrap comparisons, rankings,
//!   Markdown, CSV, Parquet and JSON.
//! - [`run`]: running an evaluation (`itc eval`): choosing the tasks,
//!   claiming the run directory, feeding the workers, storing predictions,
//!   summarising; step-by-step runs, batch files, shards and their merge.
//! - [`models`]: talking to one model: configuration, prompts, the model
//!   interface and its providers (OpenAI-compatible, Anthropic, Gemini, the
//!   offline baseline), HTTP, retries, rate limits, the response cache.
//! - [`build`]: building task sets: catalog, sampling, confusion, generation,
//!   filtering, answers, split, pipeline (ITC §3).
//! - [`ood`]: out-of-distribution sets: converters to SPEC tasks and the
//!   official scorers of Seal-Tools and APIBench (`itc ood`, SPEC §5).
//! - [`judge`]: judged task success (`itc judge`, SPEC §8): judge models give
//!   pass rate, SoPR, win rate and ToolAlpaca's correctness of run directories.
//! - [`perf`]: synthetic inputs and the benchmarks (`itc bench scoring`, `itc bench http`,
//!   `itc bench soak`).
//! - [`util`]: SHA-256 in hex, the async runtime.
//!
//! Dependencies run one way: `cli` → `ood` and `perf` → `run` → `models` → `score` → `spec`,
//! `cli` → `build` → `models` (the chats of the model stages), and
//! `cli` → `judge` → `ood`, `build` (the chat helpers, agreement), `models`, `spec`,
//! `cli` → `report` → `score` (`build` → `report` for the catalog's chart);
//! every folder may use `util`, which uses nothing of the crate.

pub mod benchmarks;
pub mod build;
pub mod cli;
pub mod judge;
pub mod models;
pub mod ood;
pub mod perf;
pub mod report;
pub mod run;
pub mod score;
pub mod spec;
pub mod util;
