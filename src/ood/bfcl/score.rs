//! `itc ood score bfcl --compat official`: BFCL result files scored as the
//! official checker scores them, one category at a time.
//!
//! The results are a BFCL result file (JSON Lines `{"id", "result"}`), a
//! folder holding `BFCL_v4_<category>_result.json` files (BFCL's own
//! layout, at any depth up to two folders down), or the run directory of
//! `itc eval --dataset bfcl:…` (its `official/<model>/` result files, one
//! score per model). The questions and possible answers come from `--data`
//! (BFCL's `data` folder), else the `itc ood fetch bfcl` cache, else the
//! copies built into itc.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::convert::category_files;
use super::files::{read_possible_answers, read_questions};
use super::official::{ItemVerdict, read_results, score_results};
use super::{Category, CategorySet};
use crate::ood::dataset::OodDataset;
use crate::ood::fetch;
use crate::ood::score::Compat;
use crate::score::files::OutputFormat;
use crate::util::table::{Table, num};

/// What `itc ood score bfcl` scores.
#[derive(Debug, Clone)]
pub struct BfclScoreOptions {
    /// Scoring rules.
    pub compat: Compat,
    /// The categories; `None`: one result file's own (from its name), or
    /// every category a folder holds.
    pub categories: Option<CategorySet>,
    /// A result file, a folder of result files, or an itc run directory.
    pub results: PathBuf,
    /// BFCL's data folder (`BFCL_v4_<cat>.json`, `possible_answer/…`).
    pub data: Option<PathBuf>,
    /// The fetch cache (default: `itc ood fetch`'s).
    pub cache_dir: Option<PathBuf>,
    /// Writes one verdict per result line here (JSON Lines), file after file.
    pub per_item: Option<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The table in one piece, however wide.
    pub wide: bool,
}

/// One result file's score, as BFCL's score-file header has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileScore {
    /// The model (run directories only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The category.
    pub category: String,
    /// `correct_count / total_count`.
    pub accuracy: f64,
    /// Correct entries.
    pub correct_count: usize,
    /// Entries in the result file.
    pub total_count: usize,
}

/// The result files to score: (model, category, file).
fn result_files(
    options: &BfclScoreOptions,
) -> anyhow::Result<Vec<(Option<String>, Category, PathBuf)>> {
    let path = &options.results;
    if path.is_file() {
        let category = match options.categories {
            Some(set) => match set.categories().as_slice() {
                [one] => *one,
                _ => anyhow::bail!(
                    "{}: a result file holds one category; give one with --category",
                    path.display()
                ),
            },
            None => category_of_file(path).with_context(|| {
                format!(
                    "{}: say which category it holds with --category (its name is not BFCL_v4_<category>_result.json)",
                    path.display()
                )
            })?,
        };
        return Ok(vec![(None, category, path.clone())]);
    }
    anyhow::ensure!(
        path.is_dir(),
        "--results {}: no such file or folder",
        path.display()
    );
    // An itc run directory: one folder of result files per model.
    let official = path.join("official");
    let folders: Vec<(Option<String>, PathBuf)> =
        if path.join("ood.json").is_file() && official.is_dir() {
            let mut models: Vec<PathBuf> = std::fs::read_dir(&official)
                .with_context(|| format!("reading {}", official.display()))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            models.sort();
            models
                .into_iter()
                .map(|p| (p.file_name().map(|n| n.to_string_lossy().into_owned()), p))
                .collect()
        } else {
            vec![(None, path.clone())]
        };
    let mut found = Vec::new();
    for (model, folder) in folders {
        for file in files_below(&folder, 2) {
            let Some(category) = category_of_file(&file) else {
                continue;
            };
            if options.categories.is_none_or(|set| set.contains(category)) {
                found.push((model.clone(), category, file));
            }
        }
    }
    found.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    anyhow::ensure!(
        !found.is_empty(),
        "{}: no BFCL_v4_<category>_result.json file of {} in it",
        path.display(),
        options
            .categories
            .map_or("any category".to_string(), |s| s.to_string())
    );
    Ok(found)
}

/// Files in `dir` and in its folders down to `depth` levels.
fn files_below(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p in entries.filter_map(Result::ok).map(|e| e.path()) {
        if p.is_dir() && depth > 0 {
            out.extend(files_below(&p, depth - 1));
        } else if p.is_file() {
            out.push(p);
        }
    }
    out
}

/// `BFCL_v4_simple_python_result.json` → `simple_python`.
fn category_of_file(path: &Path) -> Option<Category> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("BFCL_v4_")?
        .strip_suffix("_result.json")?
        .parse()
        .ok()
}

/// The question file and possible answers of a category: under `--data`,
/// else in the fetch cache, else built in.
fn data_files(
    category: Category,
    options: &BfclScoreOptions,
) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
    let files = match &options.data {
        Some(dir) => {
            let question = dir.join(category.question_file());
            anyhow::ensure!(
                question.is_file(),
                "--data {}: no {} in it",
                dir.display(),
                category.question_file()
            );
            let answers = dir.join(category.possible_answer_file());
            let mut files = vec![question];
            if category.has_possible_answers() {
                anyhow::ensure!(
                    answers.is_file(),
                    "--data {}: no {} in it",
                    dir.display(),
                    category.possible_answer_file()
                );
                files.push(answers);
            }
            files
        }
        None => {
            let cache = options
                .cache_dir
                .clone()
                .unwrap_or_else(fetch::default_cache_dir);
            OodDataset::Bfcl(CategorySet::one(category))
                .resolve_files(&[], &cache)?
                .0
        }
    };
    category_files(category, &files)
}

/// Runs `itc ood score bfcl`: one score per result file on `out`.
pub fn score_bfcl(options: &BfclScoreOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let Compat::Official = options.compat;
    let mut scores = Vec::new();
    let mut items: Vec<ItemVerdict> = Vec::new();
    for (model, category, file) in result_files(options)? {
        let (question_file, answer_file) = data_files(category, options)?;
        let questions = read_questions(&question_file)?;
        let answers = match &answer_file {
            Some(p) => read_possible_answers(p)?,
            None => Vec::new(),
        };
        let results = read_results(&file)?;
        let score = score_results(category, &questions, &answers, &results)
            .with_context(|| format!("scoring {} as {category}", file.display()))?;
        scores.push(FileScore {
            model,
            category: category.as_str().into(),
            accuracy: score.accuracy,
            correct_count: score.correct_count,
            total_count: score.total_count,
        });
        if options.per_item.is_some() {
            items.extend(score.items);
        }
    }
    if let Some(path) = &options.per_item {
        crate::spec::jsonl::write_records(path, &items)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    match options.format {
        OutputFormat::Json => {
            for s in &scores {
                writeln!(out, "{}", serde_json::to_string(s)?)?;
            }
        }
        OutputFormat::Table => {
            let mut t =
                Table::new(["Model", "Category", "Total", "Correct", "Accuracy"]).with_labels(2);
            for s in &scores {
                t.push([
                    s.model.clone().unwrap_or_default(),
                    s.category.clone(),
                    s.total_count.to_string(),
                    s.correct_count.to_string(),
                    num(s.accuracy),
                ]);
            }
            writeln!(
                out,
                "BFCL, official AST checker (accuracy = correct / entries in the result file)\n\n{}",
                t.render(options.wide)
            )?;
        }
    }
    Ok(())
}
