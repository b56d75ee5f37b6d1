//! Other benchmarks ("out of distribution", OOD, for ITC), a folder each
//! holding its data loading, conversion into SPEC §0 tasks (`itc ood
//! convert`), requests and official scorer reproduced exactly (`itc ood
//! score … --compat official`, SPEC §5); the Python semantics those scorers
//! depend on beside them ([`python`]), and what every benchmark shares:
//! fetching, the dataset names `itc eval --dataset` runs, official scores in
//! a run, the published tables. `itc benchmarks` is the command's full name.
//!
//! - [`convert`]: `itc ood convert`: a benchmark's files to SPEC tasks, through its converter.
//! - [`score`]: `itc ood score`: predictions scored by a benchmark's official scorer.
//! - [`seal_tools`]: Seal-Tools' output parser and `calculate_score_ToolLearning`; its converter.
//! - [`apibench`]: Gorilla's `ast_eval_{hf,tf,th}` (AST accuracy, hallucination); its converter.
//! - [`bfcl`]: the Berkeley Function Calling Leaderboard's AST categories: decoder, checker, runner.
//! - [`nexusraven`]: NexusRaven queries (Python signatures, docstrings, call strings) to tasks.
//! - [`toolalpaca`]: ToolAlpaca (OpenAPI documentation, golden answers) to tasks; its official
//!   `statistics` recounted from its judge texts ([`toolalpaca::eval`]).
//! - [`stabletoolbench`]: StableToolBench / ToolBench queries (RapidAPI `api_list`, relevant APIs)
//!   to tasks; SoPR and SoWR from its own result files ([`stabletoolbench::results`]).
//! - [`tau`]: τ³-bench's retail domain, its simulated user and its reward.
//! - [`python`]: the Python semantics the official scorers depend on: values, `str()`/`repr()`,
//!   `json.loads`, literal `eval`, tree-sitter parse trees.
//! - [`fetch`]: `itc ood fetch`: the public files, pinned and hash-checked, into a cache.
//! - [`listing`]: `itc datasets`: every dataset itc knows, its size, licence, origin and command.
//! - [`dataset`]: the datasets `itc eval --dataset` runs: names, files, conversion.
//! - [`eval`]: what `itc eval --dataset` adds to a run: benchmark-format answers read as SPEC calls, official scores.
//! - [`answers`]: Gorilla and Seal-Tools answers to SPEC calls, and SPEC calls to their formats.
//! - [`report`]: `itc ood report`: Table-5-shaped (ITC) and APIBench (ToolLLM) tables.

pub mod answers;
pub mod apibench;
pub mod benchmark;
pub mod bfcl;
pub mod convert;
pub mod dataset;
pub mod eval;
pub mod fetch;
pub mod listing;
pub mod nexusraven;
pub mod python;
pub mod report;
pub mod score;
pub mod seal_tools;
pub mod stabletoolbench;
pub mod tau;
pub mod toolalpaca;

/// A warning of a conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertWarning {
    /// The id of the task it is about, when the converter knows it.
    pub task: Option<String>,
    /// The warning.
    pub text: String,
}
