//! `itc ood convert`: another benchmark's files into SPEC §0 tasks (JSONL),
//! through that benchmark's converter.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::apibench::{self, Hub};
use super::bfcl::{self, CategorySet};
use super::dataset::OodDataset;
use super::{fetch, nexusraven, seal_tools, stabletoolbench, toolalpaca};
use crate::spec::records::Task;

/// The benchmarks `itc ood convert` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Gorilla APIBench (`data/apibench/<hub>_eval.json` + the hub's API database).
    Apibench,
    /// Seal-Tools (`dataset_for_finetune/*.json`).
    SealTools,
    /// NexusRaven (`*_queries.json` with Python signatures).
    Nexusraven,
    /// ToolAlpaca (`eval_simulated.json`, `eval_real.json`).
    Toolalpaca,
    /// StableToolBench solvable queries (`solvable_queries/test_instruction/<group>.json`)
    /// or ToolBench's `data_example/instruction/G*_query.json`.
    Stabletoolbench,
    /// BFCL v4 (`BFCL_v4_<category>.json` and `possible_answer/BFCL_v4_<category>.json`).
    Bfcl,
}

impl Source {
    /// The benchmark's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Apibench => "apibench",
            Source::SealTools => "seal-tools",
            Source::Nexusraven => "nexusraven",
            Source::Toolalpaca => "toolalpaca",
            Source::Stabletoolbench => "stabletoolbench",
            Source::Bfcl => "bfcl",
        }
    }
}

/// What `itc ood convert` converts, and where the tasks go.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Which benchmark the input files come from.
    pub source: Source,
    /// Input files in the benchmark's own format (BFCL: may be empty, for
    /// the fetch cache or the built-in copies).
    pub inputs: Vec<PathBuf>,
    /// BFCL: the categories (required for BFCL).
    pub categories: Option<CategorySet>,
    /// APIBench: the hub of the input files (required for APIBench).
    pub hub: Option<Hub>,
    /// APIBench: the hub's API database, the candidate tools (required for APIBench).
    pub api_db: Option<PathBuf>,
    /// APIBench: candidate tools per task besides the gold API.
    pub candidates: usize,
    /// Output task file (JSONL).
    pub output: PathBuf,
}

/// Runs `itc ood convert`: converts the input files into SPEC tasks and
/// writes them as JSON Lines; warnings and a summary line on `err`.
pub fn convert(options: &ConvertOptions, err: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(
        !options.inputs.is_empty() || options.source == Source::Bfcl,
        "--input is required for {}",
        options.source.as_str()
    );
    let (tasks, warnings): (Vec<Task>, Vec<String>) = match options.source {
        Source::SealTools => seal_tools::convert(&seal_tools::ConvertOptions {
            inputs: options.inputs.clone(),
        })?,
        Source::Apibench => {
            let hub = options.hub.context("--hub is required for apibench")?;
            let api_db = options
                .api_db
                .as_ref()
                .context("--api-db is required for apibench")?;
            apibench::convert(&apibench::ConvertOptions {
                hub,
                api_db: api_db.clone(),
                inputs: options.inputs.clone(),
                candidates: options.candidates,
            })?
        }
        Source::Nexusraven => nexusraven::convert(&options.inputs)?,
        Source::Toolalpaca => toolalpaca::convert(&options.inputs)?,
        Source::Stabletoolbench => stabletoolbench::convert(&options.inputs)?,
        Source::Bfcl => {
            let set = options
                .categories
                .context("--category is required for bfcl (a category, several separated by commas, all, non-live or live)")?;
            let dataset = OodDataset::Bfcl(set);
            let (files, origin) =
                dataset.resolve_files(&options.inputs, &fetch::default_cache_dir())?;
            writeln!(err, "{dataset}: reading {origin}")?;
            (bfcl::convert::convert_files(set, &files)?, Vec::new())
        }
    };
    for w in &warnings {
        writeln!(err, "warning: {w}")?;
    }
    if tasks.is_empty() {
        anyhow::bail!(
            "{}: no {} record in it (empty, or another benchmark's file?)",
            options
                .inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            options.source.as_str()
        );
    }
    let mut seen = HashSet::new();
    for t in &tasks {
        anyhow::ensure!(seen.insert(t.id.as_str()), "duplicate task id {:?}", t.id);
    }
    crate::spec::jsonl::write_records(&options.output, &tasks)
        .with_context(|| format!("writing {}", options.output.display()))?;
    let note = match options.source {
        Source::Stabletoolbench => {
            "; gold calls are the relevant APIs without arguments: SPEC §3 scores tool selection only"
        }
        _ => "",
    };
    writeln!(
        err,
        "wrote {} tasks to {}{note}",
        tasks.len(),
        options.output.display()
    )?;
    Ok(())
}
