//! `itc ood score`: predictions scored by a benchmark's official scorer,
//! reproduced exactly (SPEC §5), printed as a table or JSON lines.
//!
//! BFCL (`itc ood score bfcl`) reads a BFCL result file (JSON Lines
//! `{"id", "result"}`), a folder holding `BFCL_v4_<category>_result.json`
//! files (BFCL's own layout, up to two folders down), or the run directory
//! of `itc eval --dataset bfcl:…` (its `official/<model>/` result files, one
//! score per model). Questions and possible answers come from `--data`
//! (BFCL's `data` folder), else the `itc ood fetch bfcl` cache, else the
//! copies built into itc.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::apibench::{self, Hub};
use super::bfcl::convert::category_files;
use super::bfcl::files::{
    PossibleAnswer, Question, read_possible_answers, read_question_ids, read_questions,
};
use super::bfcl::multi_turn::files::{MultiTurnQuestion, read_multi_turn_questions};
use super::bfcl::multi_turn::score::score_multi_turn;
use super::bfcl::official::{
    ItemVerdict, OfficialScore, ResultLine, read_results, score_results_with,
};
use super::bfcl::result_decoder::ResultDecoder;
use super::bfcl::{Category, CategorySet};
use super::dataset::OodDataset;
use super::fetch;
use super::seal_tools::{self, Subset};
use crate::score::files::OutputFormat;
use crate::util::table::{Table, fraction_percent, fraction_percent_or_na, num, num_or_absent};

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
    /// Score only the questions a result file answers (BFCL's
    /// `--partial-eval`); otherwise a result file must answer every question
    /// of its category, as the official runner demands.
    pub partial: bool,
    /// Writes one verdict per result line here (JSON Lines), file after file.
    pub per_item: Option<PathBuf>,
    /// Multi-turn categories: the model name that names the API instances
    /// (`None`: from the result file's folders, see [`multi_turn_model_name`]).
    pub model_name: Option<String>,
    /// How single-turn results are decoded; `None`: in a run directory,
    /// what `official.json` says of each model, else prompt-mode.
    pub decoder: Option<ResultDecoder>,
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
    /// `correct_count / total_count`, a fraction (0–1) as in BFCL's score
    /// file; tables show it in percent.
    pub accuracy: f64,
    /// The unit of `accuracy`: always `fraction`.
    pub unit: &'static str,
    /// Correct entries.
    pub correct_count: usize,
    /// Entries in the result file.
    pub total_count: usize,
    /// The result file.
    pub results: String,
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

/// The questions (and their possible answers, paired by position) that a
/// result file answers, in question order.
fn answered_only<Q: Clone>(
    results: &[ResultLine],
    questions: &[Q],
    id: impl Fn(&Q) -> &str,
    answers: &[PossibleAnswer],
) -> (Vec<Q>, Vec<PossibleAnswer>) {
    let ids: HashSet<&str> = results.iter().map(|r| r.id.as_str()).collect();
    let keep: Vec<bool> = questions.iter().map(|q| ids.contains(id(q))).collect();
    let answers = answers
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(a, _)| a.clone())
        .collect();
    let questions = questions
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(q, _)| q.clone())
        .collect();
    (questions, answers)
}

/// The questions and possible answers of each category scored, read once.
#[derive(Default)]
struct CategoryData {
    ast: HashMap<Category, (Vec<Question>, Vec<PossibleAnswer>)>,
    multi_turn: HashMap<Category, (Vec<MultiTurnQuestion>, Vec<PossibleAnswer>)>,
}

impl CategoryData {
    /// Scores one result file of `category` (by the multi-turn runner for a
    /// multi-turn category).
    fn score(
        &mut self,
        category: Category,
        file: &Path,
        model: Option<&str>,
        results: &[ResultLine],
        options: &BfclScoreOptions,
        decoder: ResultDecoder,
    ) -> anyhow::Result<OfficialScore> {
        if category.is_multi_turn() {
            if let Entry::Vacant(slot) = self.multi_turn.entry(category) {
                let (question_file, answer_file) = data_files(category, options)?;
                let answer_file =
                    answer_file.context("a multi-turn category has possible answers")?;
                slot.insert((
                    read_multi_turn_questions(&question_file)?,
                    read_possible_answers(&answer_file)?,
                ));
            }
            let (questions, answers) = &self.multi_turn[&category];
            let subset;
            let (questions, answers) = if options.partial {
                subset = answered_only(results, questions, |q| q.id.as_str(), answers);
                (&subset.0, &subset.1)
            } else {
                (questions, answers)
            };
            let model_name = options
                .model_name
                .clone()
                .or_else(|| model.map(str::to_string))
                .unwrap_or_else(|| multi_turn_model_name(file));
            return score_multi_turn(category, questions, answers, results, &model_name, decoder);
        }
        if let Entry::Vacant(slot) = self.ast.entry(category) {
            let (question_file, answer_file) = data_files(category, options)?;
            let answers = match &answer_file {
                Some(p) => read_possible_answers(p)?,
                None => Vec::new(),
            };
            let questions = if category.has_possible_answers() {
                read_questions(&question_file)?
            } else {
                read_question_ids(&question_file)?
            };
            slot.insert((questions, answers));
        }
        let (questions, answers) = &self.ast[&category];
        let subset;
        let (questions, answers) = if options.partial {
            subset = answered_only(results, questions, |q| q.id.as_str(), answers);
            (&subset.0, &subset.1)
        } else {
            (questions, answers)
        };
        score_results_with(category, questions, answers, results, decoder)
    }
}

/// The decoder of each model folder of a run directory, as `official.json`
/// records it (`folder`, `decoder`); empty when it records none.
fn recorded_decoders(run_dir: &Path) -> anyhow::Result<HashMap<String, ResultDecoder>> {
    let path = run_dir.join("official.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(HashMap::new());
    };
    let official: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    let mut decoders = HashMap::new();
    for result in official["results"].as_array().into_iter().flatten() {
        if let (Some(folder), Some(decoder)) =
            (result["folder"].as_str(), result["decoder"].as_str())
        {
            let decoder = decoder
                .parse()
                .with_context(|| format!("{}: results[].decoder", path.display()))?;
            decoders.insert(folder.to_string(), decoder);
        }
    }
    Ok(decoders)
}

/// The model name of a multi-turn result file: its model folder in
/// bfcl-eval's layout (`<model>/multi_turn/BFCL_v4_…_result.json`), else
/// the folder it is in, else `model`.
pub fn multi_turn_model_name(file: &Path) -> String {
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    };
    let parent = file.parent();
    match name(parent).as_deref() {
        Some("multi_turn") => name(parent.and_then(Path::parent)),
        Some(_) => name(parent),
        None => None,
    }
    .unwrap_or_else(|| "model".to_string())
}

/// Runs `itc ood score bfcl`: one score per result file on `out`.
pub fn score_bfcl(options: &BfclScoreOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let Compat::Official = options.compat;
    let mut scores = Vec::new();
    let mut items: Vec<ItemVerdict> = Vec::new();
    // Each category's data is read once, however many result files it has.
    let mut data = CategoryData::default();
    let recorded = recorded_decoders(&options.results)?;
    for (model, category, file) in result_files(options)? {
        let results = read_results(&file)?;
        let decoder = options
            .decoder
            .or_else(|| model.as_ref().and_then(|m| recorded.get(m).copied()))
            .unwrap_or_default();
        let score = data
            .score(
                category,
                &file,
                model.as_deref(),
                &results,
                options,
                decoder,
            )
            .with_context(|| {
                format!(
                    "scoring {} as {category} (--partial: only the questions it answers)",
                    file.display()
                )
            })?;
        scores.push(FileScore {
            results: file.display().to_string(),
            model,
            category: category.as_str().into(),
            accuracy: score.accuracy,
            unit: super::bfcl::leaderboard::UNIT,
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
            // A model column only for run directories, which name one.
            let by_model = scores.iter().any(|s| s.model.is_some());
            let header = ["Model", "Category", "Total", "Correct", "Accuracy (%)"];
            let skip = usize::from(!by_model);
            let mut t = Table::new(header.into_iter().skip(skip)).with_labels(2 - skip);
            for s in &scores {
                let row = [
                    s.model.clone().unwrap_or_default(),
                    s.category.clone(),
                    s.total_count.to_string(),
                    s.correct_count.to_string(),
                    fraction_percent(s.accuracy),
                ];
                t.push(row.into_iter().skip(skip));
            }
            writeln!(
                out,
                "BFCL, official checker (accuracy = correct / entries in the result file)\n{}\n\n{}",
                super::bfcl::leaderboard::PERCENT,
                t.render(options.wide)
            )?;
            writeln!(out, "\n{}", leaderboard_table(&scores, options.wide))?;
        }
    }
    Ok(())
}

/// The leaderboard's columns of each model's scores (one model when the
/// results are no run directory), then the line saying which are complete.
/// A model with two result files of one category gets no columns, only a
/// line saying so: BFCL's leaderboard takes one score per category.
fn leaderboard_table(scores: &[FileScore], wide: bool) -> String {
    use super::bfcl::leaderboard::{self, CategoryFigure};
    let by_model = scores.iter().any(|s| s.model.is_some());
    let mut models: Vec<Option<&str>> = Vec::new();
    for s in scores {
        if !models.contains(&s.model.as_deref()) {
            models.push(s.model.as_deref());
        }
    }
    let header = ["Model", "Column", "Value (%)"];
    let skip = usize::from(!by_model);
    let mut t = Table::new(header.into_iter().skip(skip)).with_labels(2 - skip);
    let mut lines = Vec::new();
    for model in models {
        let label = model.map_or(String::new(), |m| format!("{m}: "));
        let mut figures = std::collections::BTreeMap::new();
        let mut repeated = None;
        for s in scores.iter().filter(|s| s.model.as_deref() == model) {
            let Ok(category) = s.category.parse::<Category>() else {
                continue;
            };
            let figure = CategoryFigure {
                accuracy: s.accuracy,
                total_count: s.total_count,
            };
            if figures.insert(category, figure).is_some() {
                repeated = Some(category);
            }
        }
        if let Some(c) = repeated {
            lines.push(format!(
                "{label}no leaderboard columns: several result files of {c}"
            ));
            continue;
        }
        let columns = leaderboard::leaderboard(&figures);
        for c in &columns {
            let value = fraction_percent_or_na(c.shown.then_some(c.value));
            let row = [
                model.unwrap_or_default().to_string(),
                c.name.to_string(),
                value,
            ];
            t.push(row.into_iter().skip(skip));
        }
        lines.push(format!("{label}{}", leaderboard::completeness(&columns)));
    }
    format!(
        "The leaderboard's columns\n{}\n\n{}\n{}",
        leaderboard::NOTE,
        t.render(wide),
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_score(model: Option<&str>, category: &str, correct: usize) -> FileScore {
        FileScore {
            model: model.map(str::to_string),
            category: category.into(),
            accuracy: correct as f64 / 200.0,
            unit: super::super::bfcl::leaderboard::UNIT,
            correct_count: correct,
            total_count: 200,
            results: format!("BFCL_v4_{category}_result.json"),
        }
    }

    #[test]
    fn the_leaderboard_table_is_per_model_and_none_for_a_repeated_category() {
        let scores = [
            file_score(Some("a"), "multi_turn_base", 100),
            file_score(Some("b"), "multi_turn_base", 50),
            file_score(Some("b"), "multi_turn_base", 60),
        ];
        let shown = leaderboard_table(&scores, true);
        assert!(shown.contains("│ a     │ Multi Turn Base "), "{shown}");
        assert!(!shown.contains("│ b "), "{shown}");
        assert!(
            shown.contains("\na: Complete columns: Multi Turn Base. N/A"),
            "{shown}"
        );
        assert!(
            shown.ends_with("\nb: no leaderboard columns: several result files of multi_turn_base"),
            "{shown}"
        );
    }
}
