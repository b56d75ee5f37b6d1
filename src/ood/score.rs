//! `itc ood score`: predictions scored by a benchmark's official scorer,
//! reproduced exactly (SPEC §5), printed as a table or JSON lines.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::seal_tools::{self, Subset};
use super::{Hub, apibench};
use crate::score::files::OutputFormat;
use crate::util::table::{Table, num, num_or_absent};

/// Scoring rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The benchmark's own official scorer, quirks included (SPEC §5).
    #[default]
    Official,
}

/// What `itc ood score seal-tools` scores.
#[derive(Debug, Clone)]
pub struct SealScoreOptions {
    /// Scoring rules.
    pub compat: Compat,
    /// Gold file: `dataset_for_finetune/test_*.json` (gold in `conversations[1].value`).
    pub gold: PathBuf,
    /// Prediction files: JSONL of `{"id", "output"}` or `itc eval` predictions
    /// (`task_id`, `model`, `output`); one result per model.
    pub predictions: Vec<PathBuf>,
    /// Records to score, by id (`-easy-` / `-difficult-`).
    pub subset: Subset,
    /// Only the record ids listed in this file (one per line).
    pub ids: Option<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The table in one piece, however wide (default: split to fit 100 columns).
    pub wide: bool,
}

/// What `itc ood score apibench` scores.
#[derive(Debug, Clone)]
pub struct ApibenchScoreOptions {
    /// Scoring rules.
    pub compat: Compat,
    /// The hub: picks `ast_eval_hf`, `ast_eval_tf` or `ast_eval_th`.
    pub hub: Hub,
    /// The hub's API database (`data/api/<hub>_api.jsonl`).
    pub api_db: PathBuf,
    /// Gold question/answer pairs (`data/apibench/<hub>_eval.json`, JSON Lines).
    pub gold: PathBuf,
    /// Response files (JSONL of `{"question_id", "text"}`); one result per file.
    pub responses: Vec<PathBuf>,
    /// Write per-question verdicts (JSONL) to this file (one response file:
    /// exactly its verdicts; several: all of them, one file after another).
    pub per_item: Option<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The table in one piece, however wide (default: split to fit 100 columns).
    pub wide: bool,
}

/// The record ids listed in a file, one per line.
fn read_id_file(path: &Path) -> anyhow::Result<HashSet<String>> {
    let text = crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// Runs `itc ood score seal-tools`: one result per model on `out`, warnings
/// on `err`.
pub fn score_seal_tools(
    options: &SealScoreOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let gold = seal_tools::read_gold_calls(&options.gold)?;
    anyhow::ensure!(
        !gold.is_empty(),
        "{}: no Seal-Tools record in it (empty?)",
        options.gold.display()
    );
    let mut predictions = Vec::new();
    for p in &options.predictions {
        let read = seal_tools::read_predictions(p)?;
        anyhow::ensure!(
            !read.is_empty(),
            "{}: no prediction in it (empty?)",
            p.display()
        );
        predictions.extend(read);
    }
    let ids = options.ids.as_deref().map(read_id_file).transpose()?;
    let reports = seal_tools::score_official(&gold, &predictions, options.subset, ids.as_ref())?;
    for r in &reports {
        if r.missing > 0 {
            writeln!(
                err,
                "warning: {}: {} gold record(s) have no prediction; scored as unparsed (-1)",
                r.model, r.missing
            )?;
        }
    }
    match options.format {
        OutputFormat::Json => {
            for r in &reports {
                writeln!(out, "{}", serde_json::to_string(r)?)?;
            }
        }
        OutputFormat::Table => {
            let mut t = Table::new(SEAL_HEADER).with_groups(SEAL_GROUPS);
            for r in &reports {
                t.push([
                    r.model.clone(),
                    r.n.to_string(),
                    num_or_absent(r.parsed_fraction),
                    num_or_absent(r.tool_p),
                    num_or_absent(r.tool_r),
                    num_or_absent(r.tool_f1),
                    num_or_absent(r.param_p),
                    num_or_absent(r.param_r),
                    num_or_absent(r.param_f1),
                ]);
            }
            writeln!(
                out,
                "Seal-Tools, official calculate_score_ToolLearning ({} records, subset {:?})",
                reports.first().map_or(0, |r| r.n),
                options.subset
            )?;
            writeln!(out, "{FRACTIONS}\n\n{}", t.render(options.wide))?;
        }
    }
    Ok(())
}

/// Runs `itc ood score apibench`: one result per response file on `out`,
/// warnings on `err`, per-question verdicts to `per_item` when asked.
pub fn score_apibench(
    options: &ApibenchScoreOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = apibench::ApiDatabase::read(&options.api_db, options.hub)?;
    let gold = apibench::read_gold_domains(&options.gold)?;
    let mut reports = Vec::new();
    let mut per_item = Vec::new();
    for path in &options.responses {
        let responses = apibench::read_responses(path)?;
        let (report, items) = apibench::score_official(&db, &gold, &responses, options.hub)
            .with_context(|| format!("scoring {}", path.display()))?;
        for w in &report.warnings {
            writeln!(err, "warning: {}: {w}", path.display())?;
        }
        reports.push((path.clone(), report));
        per_item.extend(items);
    }
    if let Some(p) = &options.per_item {
        crate::spec::jsonl::write_records(p, &per_item)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    match options.format {
        OutputFormat::Json => {
            for (path, r) in &reports {
                let mut v = serde_json::to_value(r)?;
                v["responses"] = serde_json::Value::String(path.display().to_string());
                writeln!(out, "{}", serde_json::to_string(&v)?)?;
            }
        }
        OutputFormat::Table => {
            let mut t = Table::new([
                "Response file",
                "Total",
                "Correct",
                "Halluc.",
                "AST acc.",
                "Halluc.",
            ])
            .with_groups(APIBENCH_GROUPS);
            for (path, r) in &reports {
                t.push([
                    path.file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    r.total.to_string(),
                    r.correct.to_string(),
                    r.hallucinated.to_string(),
                    num(r.accuracy),
                    num(r.hallucination),
                ]);
            }
            writeln!(
                out,
                "APIBench {}, official {}: AST accuracy and hallucination (of all responses)",
                options.hub.as_str(),
                apibench::script_name(options.hub)
            )?;
            writeln!(out, "{FRACTIONS}\n\n{}", t.render(options.wide))?;
        }
    }
    Ok(())
}

/// The value columns of the official Seal-Tools tables.
pub const SEAL_HEADER: [&str; 9] = ["Model", "n", "Parsed", "P", "R", "F1", "P", "R", "F1"];

/// Their groups: records, tool names, parameters.
pub const SEAL_GROUPS: [(&str, usize); 3] = [("Records", 2), ("Tool", 3), ("Parameters", 3)];

/// The groups of the official APIBench tables' value columns: counts
/// (total, correct, hallucinated), fractions (AST accuracy, hallucination).
pub const APIBENCH_GROUPS: [(&str, usize); 2] = [("Counts", 3), ("Fractions", 2)];

/// How the official tables show fractions.
pub const FRACTIONS: &str =
    "Fractions to 4 significant digits; the JSON output (--format json, official.json) has all.";
