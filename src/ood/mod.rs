//! Out-of-distribution (OOD) benchmarks: converters from other benchmarks'
//! formats into SPEC §0 tasks (`itc ood convert`), and their official
//! scorers reproduced exactly (`itc ood score … --compat official`, SPEC §5):
//! Seal-Tools, and APIBench on code and prose answers alike (its parse trees
//! come from tree-sitter itself, see [`python::parse`]).
//!
//! - [`convert`]: `itc ood convert`: a benchmark's files to SPEC tasks, through its converter.
//! - [`score`]: `itc ood score`: predictions scored by a benchmark's official scorer.
//! - [`seal_tools`]: Seal-Tools' output parser and `calculate_score_ToolLearning`; its converter.
//! - [`apibench`]: Gorilla's `ast_eval_{hf,tf,th}` (AST accuracy, hallucination); its converter.
//! - [`bfcl`]: the Berkeley Function Calling Leaderboard's AST categories: decoder, checker, runner.
//! - [`nexusraven`]: NexusRaven queries (Python signatures, docstrings, call strings) to tasks.
//! - [`toolalpaca`]: ToolAlpaca (OpenAPI documentation, golden answers) to tasks.
//! - [`toolalpaca_eval`]: ToolAlpaca's official `statistics` recounted from its judge texts.
//! - [`stabletoolbench_results`]: SoPR and SoWR from StableToolBench's own result files.
//! - [`stabletoolbench`]: StableToolBench / ToolBench queries (RapidAPI `api_list`, relevant APIs) to tasks.
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
pub mod stabletoolbench_results;
pub mod toolalpaca;
pub mod toolalpaca_eval;

/// A warning of a conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertWarning {
    /// The id of the task it is about, when the converter knows it.
    pub task: Option<String>,
    /// The warning.
    pub text: String,
}

/// The three APIBench hubs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hub {
    /// Hugging Face (`ast_eval_hf.py`).
    Huggingface,
    /// TensorFlow Hub (`ast_eval_tf.py`).
    Tensorflowhub,
    /// PyTorch Hub (`ast_eval_th.py`).
    Torchhub,
}

impl Hub {
    /// Every hub, in APIBench's order of file names.
    pub const ALL: [Hub; 3] = [Hub::Huggingface, Hub::Tensorflowhub, Hub::Torchhub];

    /// The hub's name in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Hub::Huggingface => "huggingface",
            Hub::Tensorflowhub => "tensorflowhub",
            Hub::Torchhub => "torchhub",
        }
    }
}
