//! `itc ood report`: OOD results side by side, in the shapes of two published
//! tables.
//!
//! - **Table 5 of the ITC paper**: one row per model; for each OOD dataset
//!   (NexusRaven, Seal-Tools, ToolAlpaca, and here also the APIBench hubs)
//!   the tool selection F1 and tool invocation F1 of SPEC §3 (macro, %).
//!   Read from run directories of `itc eval --dataset` (`ood.json` and
//!   `summary.json`).
//! - **ToolLLM's APIBench table** (its Table 5): one row per model; for
//!   HuggingFace, TorchHub and TensorHub the hallucination rate (↓) and the
//!   AST accuracy (↑) of the official Gorilla scripts, in %. Read from run
//!   directories (`official.json`) or from the JSON lines of
//!   `itc ood score apibench --format json`.
//!
//! Runs with the official Seal-Tools scorer also get a third table (tool and
//! parameter F1, %). `--out DIR` writes each table as a CSV file in long
//! form (one row per model and dataset) through polars.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars::prelude::{Column, DataFrame};
use serde::Serialize;

use super::apibench::Hub;
use super::dataset::{OodDataset, RunInfo};
use crate::models::config::PromptStyle;
use crate::score::files::OutputFormat;
use crate::util::table::{Table, fraction_percent_or_na, num_or_absent};

/// What `itc ood report` reads and writes.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Run directories of `itc eval --dataset …` (each holds `ood.json`,
    /// `summary.json` and, for APIBench and Seal-Tools, `official.json`).
    pub runs: Vec<PathBuf>,
    /// Output files of `itc ood score apibench --format json` (one line per
    /// response file; the model is the file name without `response_<hub>_`).
    pub apibench_scores: Vec<PathBuf>,
    /// Write `table5.csv`, `apibench.csv` (and `seal_tools.csv`) here.
    pub out: Option<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// Tables in one piece, however wide (default: split to fit 100 columns).
    pub wide: bool,
}

/// One model on one dataset, by SPEC §3 (macro averages, %).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpecRow {
    /// Row label: the model, with its prompt style when not `itc`.
    pub model: String,
    /// The dataset.
    pub dataset: OodDataset,
    /// Tasks scored.
    pub n: u64,
    /// Tool selection F1 (%).
    pub selection_f1: f64,
    /// Tool invocation F1 (%).
    pub invocation_f1: f64,
}

/// One model on one APIBench hub, by the official scripts (%).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApibenchRow {
    /// Row label.
    pub model: String,
    /// The hub.
    pub hub: Hub,
    /// Responses scored (the official denominator).
    pub total: u64,
    /// AST accuracy (%).
    pub ast_accuracy: f64,
    /// Hallucination rate (%).
    pub hallucination: f64,
}

/// One model on Seal-Tools, by the official scorer (%; absent where the
/// official dict has no key).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SealRow {
    /// Row label.
    pub model: String,
    /// Records scored.
    pub n: u64,
    /// Fraction of outputs that parsed (%).
    pub parsed: Option<f64>,
    /// Tool F1 (%).
    pub tool_f1: Option<f64>,
    /// Parameter F1 (%).
    pub param_f1: Option<f64>,
}

/// One model's BFCL figure, by the official checker: a category's accuracy
/// or a leaderboard column, as a fraction (0–1; the table shows percent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BfclRow {
    /// Row label.
    pub model: String,
    /// The category or the leaderboard column.
    pub column: String,
    /// The figure, a fraction (0–1).
    pub value: f64,
    /// The unit of `value`: always `fraction`.
    pub unit: &'static str,
    /// Entries scored (categories only).
    pub total: Option<u64>,
    /// Whether it is shown (false: N/A, a category it rests on was not run).
    pub shown: bool,
    /// A leaderboard column's categories that were not run (empty when
    /// shown, and for categories).
    pub missing: Vec<String>,
}

/// Everything a report shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OodReport {
    /// BFCL official cells.
    pub bfcl: Vec<BfclRow>,
    /// Table 5 cells.
    pub spec: Vec<SpecRow>,
    /// APIBench cells.
    pub apibench: Vec<ApibenchRow>,
    /// Seal-Tools official cells.
    pub seal: Vec<SealRow>,
}

/// The row label of a model run with a prompt style.
pub fn row_label(model: &str, prompt_style: PromptStyle) -> String {
    if prompt_style.is_itc() {
        model.to_string()
    } else {
        format!("{model} ({} prompt)", prompt_style.as_str())
    }
}

fn read_json(path: &Path) -> anyhow::Result<serde_json::Value> {
    let text = crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
}

fn number(v: &serde_json::Value, path: &Path, at: &str, field: &str) -> anyhow::Result<f64> {
    v.pointer(field)
        .and_then(serde_json::Value::as_f64)
        .with_context(|| {
            format!(
                "{}: {at}: field `{}`: missing or not a number",
                path.display(),
                field.trim_start_matches('/').replace('/', ".")
            )
        })
}

fn hub_of(text: &str) -> Option<Hub> {
    match text {
        "huggingface" => Some(Hub::Huggingface),
        "tensorflowhub" => Some(Hub::Tensorflowhub),
        "torchhub" => Some(Hub::Torchhub),
        _ => None,
    }
}

fn apibench_row(
    model: String,
    v: &serde_json::Value,
    path: &Path,
    at: &str,
) -> anyhow::Result<ApibenchRow> {
    let hub = v["hub"]
        .as_str()
        .and_then(hub_of)
        .with_context(|| format!("{}: {at}: field `hub`: not a hub name", path.display()))?;
    Ok(ApibenchRow {
        model,
        hub,
        total: number(v, path, at, "/total")? as u64,
        ast_accuracy: 100.0 * number(v, path, at, "/accuracy")?,
        hallucination: 100.0 * number(v, path, at, "/hallucination")?,
    })
}

impl OodReport {
    /// Adds a run directory of `itc eval --dataset`.
    pub fn add_run(&mut self, dir: &Path) -> anyhow::Result<()> {
        let info = RunInfo::read(dir)?;
        let style_of = |m: &str| info.prompt_styles.get(m).copied().unwrap_or_default();
        let summary_path = dir.join("summary.json");
        let summary = read_json(&summary_path)?;
        let models = summary
            .as_array()
            .with_context(|| format!("{}: not a list of models", summary_path.display()))?;
        for (i, m) in models.iter().enumerate() {
            let at = format!("[{i}]");
            let model = m["model"].as_str().with_context(|| {
                format!("{}: {at}: field `model`: missing", summary_path.display())
            })?;
            self.spec.push(SpecRow {
                model: row_label(model, style_of(model)),
                dataset: info.dataset,
                n: number(m, &summary_path, &at, "/summary/n")? as u64,
                selection_f1: number(m, &summary_path, &at, "/summary/selection/f1")?,
                invocation_f1: number(m, &summary_path, &at, "/summary/invocation/f1")?,
            });
        }
        let official_path = dir.join("official.json");
        if !official_path.exists() {
            return Ok(());
        }
        let official = read_json(&official_path)?;
        let results = official["results"]
            .as_array()
            .with_context(|| format!("{}: field `results`: not a list", official_path.display()))?;
        for (i, r) in results.iter().enumerate() {
            let at = format!("results[{i}]");
            let model = r["model"].as_str().with_context(|| {
                format!("{}: {at}: field `model`: missing", official_path.display())
            })?;
            let label = row_label(model, style_of(model));
            match info.dataset {
                OodDataset::Apibench(_) => {
                    self.apibench
                        .push(apibench_row(label, r, &official_path, &at)?);
                }
                OodDataset::SealTools => {
                    let pct = |k: &str| r[k].as_f64().map(|x| 100.0 * x);
                    self.seal.push(SealRow {
                        model: label,
                        n: number(r, &official_path, &at, "/n")? as u64,
                        parsed: pct("parsed_fraction"),
                        tool_f1: pct("tool_f1"),
                        param_f1: pct("param_f1"),
                    });
                }
                OodDataset::Bfcl(_) => self.add_bfcl(&label, r),
                _ => {}
            }
        }
        Ok(())
    }

    /// Adds one model's BFCL categories and leaderboard columns.
    fn add_bfcl(&mut self, label: &str, result: &serde_json::Value) {
        for c in result["categories"].as_array().into_iter().flatten() {
            self.bfcl.push(BfclRow {
                model: label.to_string(),
                column: c["category"].as_str().unwrap_or_default().to_string(),
                value: c["accuracy"].as_f64().unwrap_or(0.0),
                unit: super::bfcl::leaderboard::UNIT,
                total: c["total_count"].as_u64(),
                shown: true,
                missing: Vec::new(),
            });
        }
        for c in result["leaderboard"].as_array().into_iter().flatten() {
            self.bfcl.push(BfclRow {
                model: label.to_string(),
                column: c["name"].as_str().unwrap_or_default().to_string(),
                value: c["value"].as_f64().unwrap_or(0.0),
                unit: super::bfcl::leaderboard::UNIT,
                total: None,
                shown: c["shown"].as_bool().unwrap_or(true),
                missing: c["missing"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m.as_str().map(str::to_string))
                    .collect(),
            });
        }
    }

    /// Adds the JSON lines of `itc ood score apibench --format json`.
    pub fn add_apibench_scores(&mut self, path: &Path) -> anyhow::Result<()> {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("line {}", i + 1);
            let v: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not JSON", path.display(), i + 1))?;
            let hub = v["hub"].as_str().unwrap_or_default();
            let model = match (v["model"].as_str(), v["responses"].as_str()) {
                (Some(m), _) => m.to_string(),
                (None, Some(file)) => model_of_response_file(file, hub),
                (None, None) => anyhow::bail!(
                    "{}:{}: neither `model` nor `responses` names the model",
                    path.display(),
                    i + 1
                ),
            };
            self.apibench.push(apibench_row(model, &v, path, &at)?);
        }
        Ok(())
    }
}

/// `…/response_torchhub_Gorilla_FT_0_shot.jsonl` → `Gorilla_FT_0_shot`.
pub fn model_of_response_file(file: &str, hub: &str) -> String {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string());
    let prefix = format!("response_{hub}_");
    stem.strip_prefix(&prefix)
        .map(str::to_string)
        .unwrap_or(stem)
}

/// Rows in first-seen order.
fn models_in_order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.iter().any(|m| m == n) {
            out.push(n.to_string());
        }
    }
    out
}

/// A table with a spanning first header row over column pairs.
fn grouped(groups: &[&str], sub: [&str; 2], rows: Vec<Vec<String>>, wide: bool) -> String {
    let mut header = vec!["Model".to_string()];
    for _ in groups {
        header.extend(sub.map(String::from));
    }
    let mut t = Table::new(header).with_groups(groups.iter().map(|g| (*g, 2)));
    for r in rows {
        t.push(r);
    }
    t.render(wide)
}

/// Table 5 of the ITC paper: selection and invocation F1 per dataset and
/// model. `wide`: one table whatever its width (see [`crate::util::table`]).
pub fn table5(rows: &[SpecRow], wide: bool) -> String {
    let mut datasets: Vec<OodDataset> = rows.iter().map(|r| r.dataset).collect();
    datasets.sort();
    datasets.dedup();
    let cells: BTreeMap<(&str, OodDataset), &SpecRow> = rows
        .iter()
        .map(|r| ((r.model.as_str(), r.dataset), r))
        .collect();
    let body = models_in_order(rows.iter().map(|r| r.model.as_str()))
        .into_iter()
        .map(|m| {
            let mut line = vec![m.clone()];
            for d in &datasets {
                let c = cells.get(&(m.as_str(), *d));
                line.push(num_or_absent(c.map(|c| c.selection_f1)));
                // StableToolBench's gold calls carry no arguments: no invocation score.
                let selection_only = matches!(d, OodDataset::StableToolBench(_));
                let invocation = c.filter(|_| !selection_only).map(|c| c.invocation_f1);
                line.push(num_or_absent(invocation));
            }
            line
        })
        .collect();
    let labels: Vec<&str> = datasets.iter().map(|d| d.label()).collect();
    grouped(&labels, ["Tool Selection", "Tool Invocation"], body, wide)
}

/// The hubs in ToolLLM's column order.
const HUBS: [(Hub, &str); 3] = [
    (Hub::Huggingface, "HuggingFace"),
    (Hub::Torchhub, "TorchHub"),
    (Hub::Tensorflowhub, "TensorHub"),
];

/// ToolLLM's APIBench table: hallucination and AST accuracy per hub and model.
pub fn apibench_table(rows: &[ApibenchRow], wide: bool) -> String {
    let hubs: Vec<(Hub, &str)> = HUBS
        .iter()
        .copied()
        .filter(|(h, _)| rows.iter().any(|r| r.hub == *h))
        .collect();
    let body = models_in_order(rows.iter().map(|r| r.model.as_str()))
        .into_iter()
        .map(|m| {
            let mut line = vec![m.clone()];
            for (h, _) in &hubs {
                let c = rows.iter().find(|r| r.model == m && r.hub == *h);
                line.push(num_or_absent(c.map(|c| c.hallucination)));
                line.push(num_or_absent(c.map(|c| c.ast_accuracy)));
            }
            line
        })
        .collect();
    let labels: Vec<&str> = hubs.iter().map(|(_, l)| *l).collect();
    grouped(&labels, ["Hallu. (↓)", "AST (↑)"], body, wide)
}

/// The official Seal-Tools numbers per model.
pub fn seal_table(rows: &[SealRow], wide: bool) -> String {
    let mut t = Table::new(["Model", "n", "Parsed", "Tool F1", "Param F1"]);
    for r in rows {
        t.push([
            r.model.clone(),
            r.n.to_string(),
            num_or_absent(r.parsed),
            num_or_absent(r.tool_f1),
            num_or_absent(r.param_f1),
        ]);
    }
    t.render(wide)
}

/// BFCL by its official checker: one row per model, a column per category
/// run and per leaderboard aggregate (percent with two decimals; `N/A` for
/// an aggregate resting on a category that was not run).
pub fn bfcl_table(rows: &[BfclRow], wide: bool) -> String {
    let columns = models_in_order(rows.iter().map(|r| r.column.as_str()));
    let mut t = Table::new(std::iter::once("Model".to_string()).chain(columns.iter().cloned()));
    for m in models_in_order(rows.iter().map(|r| r.model.as_str())) {
        let mut line = vec![m.clone()];
        for c in &columns {
            let cell = rows.iter().find(|r| r.model == m && &r.column == c);
            line.push(match cell {
                Some(r) => fraction_percent_or_na(r.shown.then_some(r.value)),
                None => num_or_absent(None),
            });
        }
        t.push(line);
    }
    let mut out = t.render(wide);
    for m in models_in_order(rows.iter().map(|r| r.model.as_str())) {
        let columns: Vec<(&str, Vec<&str>)> = rows
            .iter()
            .filter(|r| r.model == m && r.total.is_none())
            .map(|r| {
                (
                    r.column.as_str(),
                    r.missing.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        if !columns.is_empty() {
            out.push_str(&format!(
                "\n{m}: {}",
                crate::util::table::completeness(&columns)
            ));
        }
    }
    out
}

/// A data frame with one column per `"name" => |row| value` over the rows.
macro_rules! frame {
    ($rows:expr; $($name:literal => $value:expr),+ $(,)?) => {
        DataFrame::new(
            $rows.len(),
            vec![$(Column::new($name.into(), $rows.iter().map($value).collect::<Vec<_>>())),+],
        )
    };
}

/// Writes the tables present as CSV files into `dir`; returns their names.
pub fn write_csvs(report: &OodReport, dir: &Path) -> anyhow::Result<Vec<String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tables = Vec::new();
    if !report.spec.is_empty() {
        let frame = frame!(report.spec;
            "model" => |x: &SpecRow| x.model.clone(),
            "dataset" => |x: &SpecRow| x.dataset.to_string(),
            "n" => |x: &SpecRow| x.n,
            "selection_f1" => |x: &SpecRow| x.selection_f1,
            "invocation_f1" => |x: &SpecRow| x.invocation_f1,
        )?;
        tables.push(("table5.csv", frame));
    }
    if !report.apibench.is_empty() {
        let frame = frame!(report.apibench;
            "model" => |x: &ApibenchRow| x.model.clone(),
            "hub" => |x: &ApibenchRow| x.hub.as_str(),
            "total" => |x: &ApibenchRow| x.total,
            "hallucination" => |x: &ApibenchRow| x.hallucination,
            "ast_accuracy" => |x: &ApibenchRow| x.ast_accuracy,
        )?;
        tables.push(("apibench.csv", frame));
    }
    if !report.seal.is_empty() {
        let frame = frame!(report.seal;
            "model" => |x: &SealRow| x.model.clone(),
            "n" => |x: &SealRow| x.n,
            "parsed" => |x: &SealRow| x.parsed,
            "tool_f1" => |x: &SealRow| x.tool_f1,
            "param_f1" => |x: &SealRow| x.param_f1,
        )?;
        tables.push(("seal_tools.csv", frame));
    }
    if !report.bfcl.is_empty() {
        let frame = frame!(report.bfcl;
            "model" => |x: &BfclRow| x.model.clone(),
            "column" => |x: &BfclRow| x.column.clone(),
            "value" => |x: &BfclRow| x.value,
            "unit" => |x: &BfclRow| x.unit,
            "total" => |x: &BfclRow| x.total,
            "shown" => |x: &BfclRow| x.shown,
            "missing" => |x: &BfclRow| x.missing.join(" "),
        )?;
        tables.push(("bfcl.csv", frame));
    }
    let mut written = Vec::new();
    for (name, mut frame) in tables {
        crate::util::atomic::write_csv(&dir.join(name), &mut frame)?;
        written.push(name.to_string());
    }
    Ok(written)
}

/// Runs `itc ood report`: the tables on `out`, the CSV files written on `err`.
pub fn run(
    options: &ReportOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        !options.runs.is_empty() || !options.apibench_scores.is_empty(),
        "give run directories (--run) or APIBench score files (--apibench-scores)"
    );
    let mut report = OodReport::default();
    for dir in &options.runs {
        report.add_run(dir)?;
    }
    for path in &options.apibench_scores {
        report.add_apibench_scores(path)?;
    }
    match options.format {
        OutputFormat::Json => {
            for r in &report.spec {
                let mut v = serde_json::to_value(r)?;
                v["table"] = "table5".into();
                writeln!(out, "{v}")?;
            }
            for r in &report.apibench {
                let mut v = serde_json::to_value(r)?;
                v["table"] = "apibench".into();
                writeln!(out, "{v}")?;
            }
            for r in &report.seal {
                let mut v = serde_json::to_value(r)?;
                v["table"] = "seal_tools".into();
                writeln!(out, "{v}")?;
            }
            for r in &report.bfcl {
                let mut v = serde_json::to_value(r)?;
                v["table"] = "bfcl".into();
                writeln!(out, "{v}")?;
            }
        }
        OutputFormat::Table => {
            if !report.spec.is_empty() {
                writeln!(
                    out,
                    "OOD results, shaped like Table 5 of the ITC paper:\ntool selection and invocation F1 (SPEC §3, macro, %)\n\n{}\n",
                    table5(&report.spec, options.wide)
                )?;
            }
            if !report.apibench.is_empty() {
                writeln!(
                    out,
                    "APIBench, shaped like ToolLLM's table:\nhallucination rate and AST accuracy of the official Gorilla scripts (%)\n\n{}\n",
                    apibench_table(&report.apibench, options.wide)
                )?;
            }
            if !report.seal.is_empty() {
                writeln!(
                    out,
                    "Seal-Tools, official calculate_score_ToolLearning (%)\n\n{}\n",
                    seal_table(&report.seal, options.wide)
                )?;
            }
            if !report.bfcl.is_empty() {
                writeln!(
                    out,
                    "BFCL, official checker: accuracy per category and the leaderboard's columns (%)\n{}\n{}\n\n{}\n",
                    super::bfcl::leaderboard::NOTE,
                    super::bfcl::leaderboard::PERCENT,
                    bfcl_table(&report.bfcl, options.wide)
                )?;
            }
        }
    }
    if let Some(dir) = &options.out {
        let written = write_csvs(&report, dir)?;
        writeln!(err, "wrote {} in {}", written.join(", "), dir.display())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_model_names() {
        assert_eq!(row_label("m", PromptStyle::Itc), "m");
        assert_eq!(row_label("m", PromptStyle::Gorilla), "m (gorilla prompt)");
        assert_eq!(
            model_of_response_file(
                "datasets/ood/gorilla/responses/torchhub/response_torchhub_Gorilla_FT_0_shot.jsonl",
                "torchhub"
            ),
            "Gorilla_FT_0_shot"
        );
        assert_eq!(model_of_response_file("mine.jsonl", "torchhub"), "mine");
    }

    #[test]
    fn stabletoolbench_shows_selection_and_no_invocation() {
        let row = SpecRow {
            model: "m".into(),
            dataset: "stabletoolbench:G2_category".parse().unwrap(),
            n: 3,
            selection_f1: 61.25,
            invocation_f1: 12.5,
        };
        let t = table5(std::slice::from_ref(&row), true);
        assert!(t.contains("StableToolBench G2_category"), "{t}");
        let line = t.lines().find(|l| l.contains("│ m ")).unwrap();
        let cells: Vec<&str> = line
            .split('│')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(cells, ["m", "61.25", crate::util::table::ABSENT], "{t}");
    }

    #[test]
    fn table5_has_a_column_pair_per_dataset_and_blanks_for_gaps() {
        let rows = vec![
            SpecRow {
                model: "a".into(),
                dataset: OodDataset::ToolAlpaca,
                n: 1,
                selection_f1: 77.05,
                invocation_f1: 49.96,
            },
            SpecRow {
                model: "a".into(),
                dataset: OodDataset::NexusRaven,
                n: 1,
                selection_f1: 90.57,
                invocation_f1: 59.97,
            },
            SpecRow {
                model: "b".into(),
                dataset: OodDataset::SealTools,
                n: 1,
                selection_f1: 89.91,
                invocation_f1: 76.16,
            },
        ];
        let t = table5(&rows, true);
        let lines: Vec<&str> = t.lines().collect();
        // The paper's column order: NexusRaven, Seal-Tools, ToolAlpaca.
        let head = lines[1];
        assert!(
            head.find("NexusRaven").unwrap() < head.find("Seal-Tools").unwrap()
                && head.find("Seal-Tools").unwrap() < head.find("ToolAlpaca").unwrap(),
            "{t}"
        );
        assert_eq!(lines[3].matches("Tool Selection").count(), 3, "{t}");
        let a = lines.iter().find(|l| l.contains("│ a ")).unwrap();
        let cells: Vec<&str> = a
            .split('│')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(cells, ["a", "90.57", "59.97", "—", "—", "77.05", "49.96"]);
        // By default, parts of at most 100 columns, in the same order.
        let fit = table5(&rows, false);
        assert!(fit.lines().all(|l| l.chars().count() <= 100), "{fit}");
        assert!(fit.split("\n\n").count() > 1, "{fit}");
        let at = |name: &str| fit.find(name).unwrap();
        assert!(at("NexusRaven") < at("Seal-Tools") && at("Seal-Tools") < at("ToolAlpaca"));
        let a_cells: Vec<&str> = fit
            .lines()
            .filter(|l| l.contains("│ a "))
            .flat_map(|l| {
                l.split('│')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .skip(1)
            })
            .collect();
        assert_eq!(a_cells, ["90.57", "59.97", "—", "—", "77.05", "49.96"]);
    }
}
