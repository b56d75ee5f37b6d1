//! `itc eval --dataset NAME`: running models on an OOD benchmark.
//!
//! Before the run, the benchmark's files are converted into SPEC tasks
//! ([`OodRun::prepare`]) and `ood.json` records what was run. After it:
//!
//! - answers given in a benchmark's own format (`--prompt-style gorilla` or
//!   `seal-tools`) are read into SPEC calls and written, beside their raw
//!   text, to `predictions.spec.jsonl`, which is what `itc score` scores
//!   ([`OodRun::scoring_predictions`]); ITC-style answers are scored as they are;
//! - APIBench and Seal-Tools runs are also scored by the benchmark's official
//!   scorer ([`OodRun::official`]): raw answers when they are in that
//!   benchmark's format, otherwise the SPEC calls written in it. The numbers go
//!   to `official.json`, the scorer's inputs to `official/`.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use serde::Serialize;

use super::ConvertWarning;
use super::apibench::{self, Hub};
use super::dataset::{OodDataset, RunInfo, split_apibench_files};
use super::python::PyStr;
use super::score::{APIBENCH_GROUPS, FRACTIONS, SEAL_GROUPS, SEAL_HEADER};
use super::tau::ask::TauRun;
use super::{answers, bfcl, fetch, seal_tools, tau};
use crate::models::batch::Transport;
use crate::models::config::ModelConfig;
use crate::models::config::{Mode, PromptStyle};
use crate::run::dialogue::SharedAsker;
use crate::run::{Benchmark, check_prompt_styles};
use crate::score::files::OutputFormat;
use crate::spec::jsonl::{read_records, write_records};
use crate::spec::records::{Prediction, Task};
use crate::util::table::{Table, fraction_percent_or_na, num_or_absent};

/// Checks that each model's prompt style can be used: the benchmark styles
/// need the *prompt* mode, a model behind an API (the baseline answers in
/// the ITC format only) and an OOD dataset (Gorilla's: an APIBench hub).
pub fn check_styles(dataset: Option<OodDataset>, models: &[ModelConfig]) -> anyhow::Result<()> {
    check_prompt_styles(models, dataset.is_some())?;
    for m in models {
        if let (PromptStyle::Gorilla, Some(d)) = (m.prompt_style, dataset)
            && !matches!(d, OodDataset::Apibench(_))
        {
            bail!(
                "model `{}`: prompt_style {}: the Gorilla format is for APIBench hubs, not {d}",
                m.name,
                m.prompt_style.as_str()
            );
        }
        if let (PromptStyle::Bfcl | PromptStyle::BfclItc, Some(d)) = (m.prompt_style, dataset)
            && !matches!(d, OodDataset::Bfcl(_))
        {
            bail!(
                "model `{}`: prompt_style {}: BFCL's requests are for --dataset bfcl:…, not {d}",
                m.name,
                m.prompt_style.as_str()
            );
        }
    }
    Ok(())
}

/// The asker of a BFCL dataset: its multi-turn entries always go through
/// the official loop, its single-turn ones through the official requests
/// for models in BFCL's prompt style. `None` when it would ask nothing.
fn bfcl_asker(
    dataset: OodDataset,
    models: &[ModelConfig],
) -> Option<std::sync::Arc<bfcl::ask::BfclAsker>> {
    let OodDataset::Bfcl(set) = dataset else {
        return None;
    };
    let multi_turn = set.categories().iter().any(|c| c.is_multi_turn());
    let official = models.iter().any(|m| m.prompt_style == PromptStyle::Bfcl);
    (multi_turn || official).then(|| std::sync::Arc::new(bfcl::ask::BfclAsker::for_models(models)))
}

/// An OOD dataset ready to run.
#[derive(Debug, Clone)]
pub struct OodRun {
    /// What `ood.json` records.
    pub info: RunInfo,
    /// The converted tasks, every one (the run's filters come later).
    pub tasks: Vec<Task>,
    /// The conversion's warnings about one task each: shown for the tasks
    /// the run asks ([`Benchmark::chosen`]).
    pub task_warnings: Vec<ConvertWarning>,
    /// What asks BFCL's multi-turn tasks the official way.
    pub asker: Option<std::sync::Arc<bfcl::ask::BfclAsker>>,
    /// τ³-bench: the run's settings (user model, trials, limits).
    pub tau: Option<TauRun>,
}

/// Most conversion warnings printed; the others are counted.
const SHOWN_WARNINGS: usize = 3;

/// Prints conversion warnings, the first [`SHOWN_WARNINGS`] whole.
fn print_warnings(warnings: &[&str], err: &mut dyn Write) -> anyhow::Result<()> {
    for w in warnings.iter().take(SHOWN_WARNINGS) {
        writeln!(err, "warning: {w}")?;
    }
    if warnings.len() > SHOWN_WARNINGS {
        writeln!(
            err,
            "warning: … and {} more conversion warning(s) (see `itc ood convert`)",
            warnings.len() - SHOWN_WARNINGS
        )?;
    }
    Ok(())
}

impl OodRun {
    /// Finds the dataset's files (`files` if given, else the fetch cache, else
    /// the shipped copies), converts them and notes where they came from.
    pub fn prepare(
        name: &str,
        files: &[PathBuf],
        cache_dir: Option<&Path>,
        candidates: usize,
        models: &[ModelConfig],
        tau: Option<TauRun>,
        err: &mut dyn Write,
    ) -> anyhow::Result<OodRun> {
        let dataset: OodDataset = name.parse()?;
        check_styles(Some(dataset), models)?;
        let cache = cache_dir.map_or_else(fetch::default_cache_dir, Path::to_path_buf);
        let (files, origin) = dataset.resolve_files(files, &cache)?;
        let mut tau = match dataset {
            OodDataset::Tau(_) => Some(tau.unwrap_or_default().checked(models)?),
            _ => None,
        };
        let (tasks, warnings) = match (dataset, &mut tau) {
            (OodDataset::Tau(domain), Some(run)) => {
                let (tau_tasks, tasks) = tau::ask::convert_keeping(domain, &files, run.trials)?;
                run.tasks = tau_tasks;
                (tasks, Vec::new())
            }
            _ => dataset.convert_for_run(&files, candidates)?,
        };
        writeln!(
            err,
            "{dataset}: {} task(s) converted from {origin} ({})",
            tasks.len(),
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        let (task_warnings, general): (Vec<_>, Vec<_>) =
            warnings.into_iter().partition(|w| w.task.is_some());
        let general: Vec<&str> = general.iter().map(|w| w.text.as_str()).collect();
        print_warnings(&general, err)?;
        let mut seen = HashSet::new();
        for t in &tasks {
            anyhow::ensure!(
                seen.insert(t.id.as_str()),
                "{dataset}: duplicate task id {:?}",
                t.id
            );
        }
        Ok(OodRun {
            info: RunInfo {
                dataset,
                prompt_styles: models
                    .iter()
                    .map(|m| (m.name.clone(), m.prompt_style))
                    .collect(),
                files,
                tasks: tasks.len(),
            },
            asker: bfcl_asker(dataset, models),
            tau,
            tasks,
            task_warnings,
        })
    }

    fn style_of(&self, model: &str) -> PromptStyle {
        self.info
            .prompt_styles
            .get(model)
            .copied()
            .unwrap_or_default()
    }

    fn hub(&self) -> Option<Hub> {
        match self.info.dataset {
            OodDataset::Apibench(h) => Some(h),
            _ => None,
        }
    }

    /// One answer as the official scorer should read it: the raw text when
    /// it is in that benchmark's format, else its SPEC calls written in it.
    fn official_text(
        &self,
        style: PromptStyle,
        output: Option<&str>,
        native: Option<&[crate::spec::records::Call]>,
        task: &Task,
    ) -> String {
        let native_ok = native.filter(|_| style.is_itc());
        match (self.info.dataset, style) {
            (OodDataset::Bfcl(_), PromptStyle::Bfcl | PromptStyle::BfclItc) => {
                output.unwrap_or("").to_string()
            }
            (OodDataset::Bfcl(_), _) => {
                answers::bfcl_text(&answers::calls_of(style, output, native_ok, task, None))
            }
            (OodDataset::Apibench(_), PromptStyle::Gorilla) => output.unwrap_or("").to_string(),
            (OodDataset::SealTools, PromptStyle::SealTools) => output.unwrap_or("").to_string(),
            (OodDataset::Apibench(_), _) => answers::gorilla_text(
                &answers::calls_of(style, output, native_ok, task, self.hub()),
                task,
            ),
            _ => answers::seal_tools_text(&answers::calls_of(
                style,
                output,
                native_ok,
                task,
                self.hub(),
            )),
        }
    }

    /// One prediction as the official scorer reads it: what the official
    /// requests' answer recorded, else its text (see
    /// [`OodRun::official_text`]); a failed one is BFCL's error text, and
    /// nothing for the other benchmarks.
    fn official_answer(
        &self,
        style: PromptStyle,
        p: &Prediction,
        task: &Task,
    ) -> Option<serde_json::Value> {
        match &p.error {
            Some(e) if matches!(self.info.dataset, OodDataset::Bfcl(_)) => {
                Some(format!("Error during inference: {e}").into())
            }
            Some(_) => None,
            None if p.official.is_some() => p.official.clone(),
            None => Some(
                self.official_text(style, p.output.as_deref(), p.calls.as_deref(), task)
                    .into(),
            ),
        }
    }

    fn official_model(
        &self,
        model: &str,
        style: PromptStyle,
        decoder: bfcl::result_decoder::ResultDecoder,
        texts: &[(&Task, Option<serde_json::Value>)],
        dir: &Path,
    ) -> anyhow::Result<serde_json::Value> {
        let stem = file_stem(model);
        match self.info.dataset {
            OodDataset::Bfcl(_) => official_bfcl(model, style, decoder, texts, dir, &stem),
            OodDataset::Tau(domain) => {
                let run = self
                    .tau
                    .as_ref()
                    .context("a τ³-bench run without its settings")?;
                official_tau(model, domain, run, texts, dir, &stem)
            }
            OodDataset::Apibench(hub) => {
                let (db_path, eval) = split_apibench_files(&self.info.files)?;
                let db = apibench::ApiDatabase::read(&db_path, hub)?;
                let gold = apibench::read_gold_domains(&eval[0])?;
                let mut responses = Vec::new();
                let mut lines = Vec::new();
                for (task, text) in texts {
                    let qid = question_id(&task.id)?;
                    // An errored or missing answer is an empty response.
                    let text = text_of(text).unwrap_or_default();
                    lines.push(ResponseLine {
                        question_id: qid,
                        text: text.clone(),
                        model_id: model.to_string(),
                    });
                    responses.push(apibench::Response {
                        question_id: Some(qid),
                        text: Some(text),
                    });
                }
                let path = dir.join(format!("{stem}.responses.jsonl"));
                write_records(&path, &lines)
                    .with_context(|| format!("writing {}", path.display()))?;
                let (report, items) = apibench::score_official(&db, &gold, &responses, hub)?;
                let path = dir.join(format!("{stem}.per_item.jsonl"));
                write_records(&path, &items)
                    .with_context(|| format!("writing {}", path.display()))?;
                let mut v = serde_json::to_value(&report)?;
                v["model"] = model.into();
                v["prompt_style"] = style.as_str().into();
                Ok(v)
            }
            _ => {
                let gold = seal_tools::read_gold_calls(&self.info.files[0])?;
                let ids: HashSet<String> = texts.iter().map(|(t, _)| t.id.clone()).collect();
                let mut lines = Vec::new();
                let mut predictions = Vec::new();
                for (task, text) in texts {
                    let text = text_of(text);
                    lines.push(OutputLine {
                        id: task.id.clone(),
                        output: text.clone(),
                    });
                    predictions.push(seal_tools::PredictionLine {
                        id: task.id.clone(),
                        model: model.to_string(),
                        output: text.as_deref().map(PyStr::new),
                    });
                }
                let path = dir.join(format!("{stem}.outputs.jsonl"));
                write_records(&path, &lines)
                    .with_context(|| format!("writing {}", path.display()))?;
                let reports = seal_tools::score_official(
                    &gold,
                    &predictions,
                    seal_tools::Subset::All,
                    Some(&ids),
                )?;
                let report = reports
                    .into_iter()
                    .next()
                    .context("the Seal-Tools scorer returned nothing")?;
                let mut v = serde_json::to_value(&report)?;
                v["prompt_style"] = style.as_str().into();
                Ok(v)
            }
        }
    }
}

impl Benchmark for OodRun {
    fn label(&self) -> String {
        format!("--dataset {}", self.info.dataset)
    }

    fn tasks(&self) -> Vec<Task> {
        self.tasks.clone()
    }

    fn finish_protocol(&self) -> bool {
        matches!(self.info.dataset, OodDataset::StableToolBench(_))
    }

    /// The conversion warnings about the tasks the run asks.
    fn chosen(&self, tasks: &[Task], err: &mut dyn Write) -> anyhow::Result<()> {
        let asked: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        let warnings: Vec<&str> = self
            .task_warnings
            .iter()
            .filter(|w| w.task.as_deref().is_some_and(|id| asked.contains(id)))
            .map(|w| w.text.as_str())
            .collect();
        print_warnings(&warnings, err)
    }

    fn write_info(&self, run_dir: &Path) -> anyhow::Result<()> {
        self.info.write(run_dir)
    }

    /// BFCL's multi-turn tasks go through the official loop, τ³-bench's
    /// trials through the official conversation.
    fn asker(
        &self,
        cache_dir: Option<&Path>,
        transport: &Transport,
    ) -> anyhow::Result<Option<SharedAsker>> {
        if let (OodDataset::Tau(domain), Some(run)) = (self.info.dataset, &self.tau) {
            return Ok(Some(Arc::new(run.asker(domain, cache_dir, transport)?)));
        }
        Ok(self.asker.clone().map(|a| a as SharedAsker))
    }

    /// The prediction file `itc score` should score: the run's own when
    /// every model answered in the ITC style, else `predictions.spec.jsonl`,
    /// where each benchmark-style answer also carries the SPEC calls read
    /// from it (in `calls`).
    fn scoring_predictions(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
    ) -> anyhow::Result<PathBuf> {
        if self.info.prompt_styles.values().all(PromptStyle::is_itc) {
            return Ok(predictions.to_path_buf());
        }
        let (tasks, _) = read_records::<Task>(tasks_path, false)?;
        let by_id: HashMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
        let (mut lines, _) = read_records::<Prediction>(predictions, false)?;
        for p in &mut lines {
            let style = self.style_of(&p.model);
            if style.is_itc() || p.error.is_some() || p.calls.is_some() {
                continue;
            }
            let Some(task) = by_id.get(p.task_id.as_str()) else {
                continue;
            };
            p.calls = Some(answers::calls_of(
                style,
                p.output.as_deref(),
                None,
                task,
                self.hub(),
            ));
        }
        let path = run_dir.join("predictions.spec.jsonl");
        write_records(&path, &lines).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }

    /// Scores the run with the benchmark's official scorer (APIBench and
    /// Seal-Tools; nothing for the others), writes `official.json` and the
    /// scorer's inputs under `official/`, and prints the numbers.
    fn official(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
        format: OutputFormat,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> anyhow::Result<()> {
        if let OodDataset::StableToolBench(_) = self.info.dataset {
            writeln!(
                err,
                "note: {}: the SPEC §3 scores above measure tool selection only; StableToolBench's \
                 SoPR and SoWR come from judge models: itc judge {} --metric sopr --judge NAME \
                 (a step-by-step run: --steps … --solver chain|dfsdt)",
                self.info.dataset,
                run_dir.display()
            )?;
            return Ok(());
        }
        if !matches!(
            self.info.dataset,
            OodDataset::Apibench(_)
                | OodDataset::SealTools
                | OodDataset::Bfcl(_)
                | OodDataset::Tau(_)
        ) {
            return Ok(());
        }
        let (tasks, _) = read_records::<Task>(tasks_path, false)?;
        let (lines, _) = read_records::<Prediction>(predictions, false)?;
        // Models in order of appearance; the first prediction per task is kept.
        let mut models: Vec<String> = self.info.prompt_styles.keys().cloned().collect();
        for p in &lines {
            if !models.contains(&p.model) {
                models.push(p.model.clone());
            }
        }
        let mut first: HashMap<(&str, &str), &Prediction> = HashMap::new();
        for p in &lines {
            first
                .entry((p.model.as_str(), p.task_id.as_str()))
                .or_insert(p);
        }
        let dir = run_dir.join("official");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        // Models asked through function calling: their prompt style is unused.
        let recorded = crate::run::resume::recorded_models(run_dir)?;
        let native: HashSet<&str> = recorded
            .iter()
            .filter(|m| m.mode == Mode::Native)
            .map(|m| m.name.as_str())
            .collect();
        // Answers to BFCL's own requests are read as bfcl-eval reads the
        // model's; every other answer is written as a prompt-mode text.
        let decoder = |model: &str, style: PromptStyle| {
            recorded
                .iter()
                .find(|m| m.name == model && style == PromptStyle::Bfcl)
                .map_or(bfcl::result_decoder::ResultDecoder::Prompt, |m| {
                    bfcl::result_decoder::ResultDecoder::for_model(m.backend, m.mode)
                })
        };
        let mut results = Vec::new();
        for model in &models {
            let style = self.style_of(model);
            // What the official scorer reads for each task, in task order.
            let texts: Vec<(&Task, Option<serde_json::Value>)> = tasks
                .iter()
                .map(|t| {
                    let p = first.get(&(model.as_str(), t.id.as_str()));
                    (t, p.and_then(|p| self.official_answer(style, p, t)))
                })
                .collect();
            if texts.iter().all(|(_, t)| t.is_none()) && !first.keys().any(|(m, _)| m == model) {
                continue;
            }
            let mut result =
                self.official_model(model, style, decoder(model, style), &texts, &dir)?;
            if native.contains(model.as_str()) {
                result["mode"] = Mode::Native.as_str().into();
            }
            results.push(result);
        }
        let benchmark = match self.info.dataset {
            OodDataset::Apibench(_) => "apibench",
            OodDataset::Bfcl(_) => "bfcl",
            OodDataset::Tau(_) => "tau",
            _ => "seal-tools",
        };
        // Fractions (0–1), as the official scorers write them; tables show %.
        let json = serde_json::json!({
            "dataset": self.info.dataset,
            "benchmark": benchmark,
            "unit": crate::util::table::FRACTION_UNIT,
            "results": results,
        });
        let path = run_dir.join("official.json");
        std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
        match format {
            OutputFormat::Table => {
                writeln!(out, "{}", official_table(self.info.dataset, &results))?
            }
            OutputFormat::Json => writeln!(
                err,
                "official {benchmark} scores written to {}",
                path.display()
            )?,
        }
        Ok(())
    }
}

/// A τ³-bench run's official scores for one model: each trial rewarded
/// as the official evaluator rewards it (verdicts to
/// `official/<model>.per_item.jsonl`), then average reward and pass^k.
fn official_tau(
    model: &str,
    domain: tau::Domain,
    run: &TauRun,
    texts: &[(&Task, Option<serde_json::Value>)],
    dir: &Path,
    stem: &str,
) -> anyhow::Result<serde_json::Value> {
    let trials: Vec<tau::score::TrialRecord<'_>> = texts
        .iter()
        .map(|(task, record)| {
            let official = task.gold.official.as_ref();
            tau::score::TrialRecord {
                id: &task.id,
                task_id: official
                    .and_then(|o| o["task_id"].as_str())
                    .unwrap_or_default(),
                trial: official.and_then(|o| o["trial"].as_u64()).unwrap_or(0) as usize,
                record: record.as_ref(),
            }
        })
        .collect();
    let data = tau::domain::DomainData::of(domain)?;
    let judge = match (&run.nl_judge, &run.models_file) {
        (Some(name), Some(file)) => {
            let run_dir = dir.parent().unwrap_or(dir);
            let cache = run
                .cache
                .dir(|| crate::run::options::default_cache_dir(run_dir));
            Some(Arc::new(tau::nl_judge::NlJudge::load(
                file,
                name,
                cache.as_deref(),
            )?))
        }
        _ => None,
    };
    let (mut summary, lines) = tau::score::score_trials(
        data,
        &run.tasks,
        &trials,
        run.trials,
        judge.as_ref(),
        run.intervals,
    )?;
    let path = dir.join(format!("{stem}.per_item.jsonl"));
    write_records(&path, &lines).with_context(|| format!("writing {}", path.display()))?;
    summary["model"] = model.into();
    summary["folder"] = stem.into();
    summary["domain"] = domain.as_str().into();
    Ok(summary)
}

/// A BFCL run's official scores for one model: each answer checked against
/// its task's `gold.official`, BFCL result files written under
/// `official/<model>/`, the verdicts to `official/<model>.per_item.jsonl`,
/// the accuracy per category and the leaderboard's columns returned.
fn official_bfcl(
    model: &str,
    style: PromptStyle,
    decoder: bfcl::result_decoder::ResultDecoder,
    texts: &[(&Task, Option<serde_json::Value>)],
    dir: &Path,
    stem: &str,
) -> anyhow::Result<serde_json::Value> {
    let answered: Vec<(&Task, serde_json::Value)> = texts
        .iter()
        .filter_map(|(t, text)| text.clone().map(|text| (*t, text)))
        .collect();
    let results_dir = dir.join(stem);
    std::fs::create_dir_all(&results_dir)
        .with_context(|| format!("creating {}", results_dir.display()))?;
    let (scores, items) = bfcl::run::score_answers(&answered, decoder)?;
    for score in &scores {
        let lines: Vec<BfclResultLine> = answered
            .iter()
            .filter(|(t, _)| t.category == score.category)
            .map(|(t, result)| BfclResultLine {
                id: t.id.clone(),
                result: result.clone(),
            })
            .collect();
        let path = results_dir.join(format!("BFCL_v4_{}_result.json", score.category));
        write_records(&path, &lines).with_context(|| format!("writing {}", path.display()))?;
    }
    let path = dir.join(format!("{stem}.per_item.jsonl"));
    write_records(&path, &items).with_context(|| format!("writing {}", path.display()))?;
    let figures = scores
        .iter()
        .filter_map(|s| {
            let c: bfcl::Category = s.category.parse().ok()?;
            let figure = bfcl::leaderboard::CategoryFigure {
                accuracy: s.accuracy,
                total_count: s.total_count,
            };
            Some((c, figure))
        })
        .collect();
    let columns: Vec<serde_json::Value> = bfcl::leaderboard::leaderboard(&figures)
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "value": c.value, "shown": c.shown, "missing": c.missing, "cell": c.cell()}))
            .collect();
    Ok(serde_json::json!({
        "model": model,
        "folder": stem,
        "prompt_style": style.as_str(),
        "categories": scores,
        "leaderboard": columns,
        "decoder": decoder.as_str(),
        "errored": answered
            .iter()
            .filter(|(_, t)| t.as_str().is_some_and(|t| t.starts_with("Error during inference: ")))
            .count(),
        "unanswered": texts.len() - answered.len(),
    }))
}

/// An answer's text (APIBench's and Seal-Tools' answers are texts).
fn text_of(answer: &Option<serde_json::Value>) -> Option<String> {
    answer.as_ref().map(|a| match a {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

/// A line of a BFCL result file.
#[derive(Serialize)]
struct BfclResultLine {
    id: String,
    result: serde_json::Value,
}

/// A line of a Gorilla response file.
#[derive(Serialize)]
struct ResponseLine {
    question_id: i64,
    text: String,
    model_id: String,
}

/// A line of a Seal-Tools output file.
#[derive(Serialize)]
struct OutputLine {
    id: String,
    output: Option<String>,
}

/// `apibench-torchhub-17` → 17 (the 1-based line of the question file).
fn question_id(task_id: &str) -> anyhow::Result<i64> {
    task_id
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("task id {task_id:?} does not end with a question number"))
}

/// A model name made safe as a file name.
fn file_stem(model: &str) -> String {
    model
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '.' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The Style cell of a model's official result: `native` for a model
/// asked through function calling (its prompt style unused), else its
/// prompt style.
fn style_cell(result: &serde_json::Value) -> String {
    match result["mode"].as_str() {
        Some(mode) if mode == Mode::Native.as_str() => mode.to_string(),
        _ => result["prompt_style"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

fn ratio(v: &serde_json::Value, key: &str) -> String {
    num_or_absent(v[key].as_f64())
}

/// The line saying which leaderboard columns of a model's official result
/// are complete and which categories the others miss.
fn completeness(result: &serde_json::Value) -> String {
    let columns: Vec<(String, Vec<String>)> = result["leaderboard"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let missing = c["missing"].as_array().into_iter().flatten();
            let missing = missing.filter_map(|m| m.as_str().map(str::to_string));
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                missing.collect(),
            )
        })
        .collect();
    crate::util::table::completeness(&columns)
}

/// The official numbers of a run, as a table that fits 100 columns (BFCL's
/// in percent with two decimals, the others' fractions to 4 significant
/// digits; `official.json` has every digit, as fractions).
pub fn official_table(dataset: OodDataset, results: &[serde_json::Value]) -> String {
    let text = |r: &serde_json::Value, key: &str| r[key].as_str().unwrap_or_default().to_string();
    let (title, t) = match dataset {
        OodDataset::Bfcl(_) => {
            let mut t = Table::new([
                "Model",
                "Style",
                "Category",
                "Total",
                "Correct",
                "Accuracy (%)",
            ])
            .with_labels(3);
            for r in results {
                for c in r["categories"].as_array().into_iter().flatten() {
                    t.push([
                        text(r, "model"),
                        style_cell(r),
                        text(c, "category"),
                        c["total_count"].to_string(),
                        c["correct_count"].to_string(),
                        fraction_percent_or_na(c["accuracy"].as_f64()),
                    ]);
                }
                for c in r["leaderboard"].as_array().into_iter().flatten() {
                    let shown = c["shown"].as_bool() != Some(false);
                    let value = fraction_percent_or_na(c["value"].as_f64().filter(|_| shown));
                    let dash = || crate::util::table::ABSENT.to_string();
                    t.push([
                        text(r, "model"),
                        style_cell(r),
                        text(c, "name"),
                        dash(),
                        dash(),
                        value,
                    ]);
                }
            }
            let title = format!(
                "BFCL, official checker: accuracy per category, then the leaderboard's columns\n{}\n{}",
                bfcl::leaderboard::NOTE,
                bfcl::leaderboard::PERCENT
            );
            let complete: String = results
                .iter()
                .map(|r| {
                    format!(
                        "{} ({}): {}\n",
                        text(r, "model"),
                        style_cell(r),
                        completeness(r)
                    )
                })
                .collect();
            return format!("{title}\n\n{}\n{complete}", t.render(false));
        }
        OodDataset::Tau(domain) => return tau::score::table(domain, results),
        OodDataset::Apibench(hub) => {
            let mut t = Table::new([
                "Model", "Style", "Total", "Correct", "Halluc.", "AST acc.", "Halluc.",
            ])
            .with_labels(2)
            .with_groups(APIBENCH_GROUPS);
            for r in results {
                t.push([
                    text(r, "model"),
                    style_cell(r),
                    r["total"].to_string(),
                    r["correct"].to_string(),
                    r["hallucinated"].to_string(),
                    ratio(r, "accuracy"),
                    ratio(r, "hallucination"),
                ]);
            }
            let title = format!(
                "APIBench {}, official {} (AST accuracy and hallucination, fractions)",
                hub.as_str(),
                apibench::script_name(hub)
            );
            (title, t)
        }
        _ => {
            let header = ["Model", "Style"]
                .into_iter()
                .chain(SEAL_HEADER.into_iter().skip(1));
            let mut t = Table::new(header).with_labels(2).with_groups(SEAL_GROUPS);
            for r in results {
                t.push([
                    text(r, "model"),
                    style_cell(r),
                    r["n"].to_string(),
                    ratio(r, "parsed_fraction"),
                    ratio(r, "tool_p"),
                    ratio(r, "tool_r"),
                    ratio(r, "tool_f1"),
                    ratio(r, "param_p"),
                    ratio(r, "param_r"),
                    ratio(r, "param_f1"),
                ]);
            }
            let title = "Seal-Tools, official calculate_score_ToolLearning (fractions, pooled)";
            (title.to_string(), t)
        }
    };
    format!("{title}\n{FRACTIONS}\n\n{}\n", t.render(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::config::{Backend, Mode};

    #[test]
    fn styles_are_checked_against_mode_backend_and_dataset() {
        let mut m = ModelConfig::new("m", Backend::Openai);
        m.prompt_style = PromptStyle::Gorilla;
        let apibench = Some(OodDataset::Apibench(Hub::Torchhub));
        assert!(check_styles(apibench, std::slice::from_ref(&m)).is_ok());
        let e = check_styles(Some(OodDataset::SealTools), std::slice::from_ref(&m))
            .unwrap_err()
            .to_string();
        assert!(e.contains("for APIBench hubs"), "{e}");
        let e = check_styles(None, std::slice::from_ref(&m))
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs --dataset"), "{e}");
        m.mode = Mode::Native;
        let e = check_styles(apibench, std::slice::from_ref(&m))
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs mode prompt"), "{e}");
        let mut b = ModelConfig::new("b", Backend::Baseline);
        b.prompt_style = PromptStyle::SealTools;
        let e = check_styles(Some(OodDataset::SealTools), &[b])
            .unwrap_err()
            .to_string();
        assert!(e.contains("baseline"), "{e}");
        assert!(check_styles(None, &[ModelConfig::new("x", Backend::Baseline)]).is_ok());
    }

    #[test]
    fn question_ids_come_from_task_ids() {
        assert_eq!(question_id("apibench-torchhub-17").unwrap(), 17);
        assert!(question_id("seal").is_err());
        assert_eq!(file_stem("qwen/2.5 7b"), "qwen_2.5_7b");
    }
}
