//! A run directory as the judges read it: its tasks (`tasks.jsonl`), its
//! models (`models.json`, else those of the predictions) and each model's
//! prediction of each task (`predictions.jsonl`; a later line of the same
//! model and task replaces an earlier one). Only a step-by-step run (its
//! `steps.json`) is judged: a single-shot answer has no final answer to judge.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::run::claim::STEPS_FILE;
use crate::run::runner::predictions_path;
use crate::run::steps::StepMode;
use crate::spec::jsonl::read_records;
use crate::spec::records::{Prediction, Task, first_of_each_id};
use crate::util::regular::read_capped;

/// One run directory, read.
#[derive(Debug, Clone)]
pub struct RunInput {
    /// The folder.
    pub dir: PathBuf,
    /// The tasks, in file order.
    pub tasks: Vec<Task>,
    /// The models, in order.
    pub models: Vec<String>,
    /// Each (model, task id)'s prediction.
    pub predictions: HashMap<(String, String), Prediction>,
    /// Ids of the tasks marked `"solvable": false` (SoPR leaves them out;
    /// a task without the field is solvable).
    pub unsolvable: HashSet<String>,
    /// Ids of the later tasks of `tasks.jsonl` that repeat an earlier
    /// task's id, skipped as every command skips them ([`first_of_each_id`]).
    pub repeated_ids: Vec<String>,
}

impl RunInput {
    /// Reads a run directory.
    pub fn read(dir: &Path) -> anyhow::Result<RunInput> {
        let tasks_path = dir.join("tasks.jsonl");
        if !tasks_path.is_file() {
            bail!(
                "{}: no tasks.jsonl: not a run directory of `itc eval`",
                dir.display()
            );
        }
        check_step_by_step(dir)?;
        let (tasks, repeated_ids) = first_of_each_id(read_records::<Task>(&tasks_path, false)?.0);
        let mut unsolvable = HashSet::new();
        crate::spec::jsonl::for_each_line(&tasks_path, |_, line| {
            if let Ok(v) = serde_json::from_str::<Value>(line)
                && v["solvable"] == Value::Bool(false)
                && let Some(id) = v["id"].as_str()
            {
                unsolvable.insert(id.to_string());
            }
            Ok(())
        })?;
        let path = predictions_path(dir);
        let predictions: Vec<Prediction> = if path.is_file() {
            read_records(&path, false)?.0
        } else {
            Vec::new()
        };
        let mut models = listed_models(dir)?;
        for p in &predictions {
            if !models.contains(&p.model) {
                models.push(p.model.clone());
            }
        }
        let predictions = predictions
            .into_iter()
            .map(|p| ((p.model.clone(), p.task_id.clone()), p))
            .collect();
        Ok(RunInput {
            dir: dir.to_path_buf(),
            tasks,
            models,
            predictions,
            unsolvable,
            repeated_ids,
        })
    }

    /// The prediction of `model` for `task`.
    pub fn prediction(&self, model: &str, task: &str) -> Option<&Prediction> {
        self.predictions.get(&(model.to_string(), task.to_string()))
    }
}

/// Most bytes read of a run's `steps.json`.
const STEPS_FILE_MAX_BYTES: u64 = 1024 * 1024;

/// The one field of a run's `steps.json` the judges read.
#[derive(serde::Deserialize)]
struct RecordedSteps {
    mode: StepMode,
}

/// Refuses a run that was not step by step (its `steps.json` says
/// `single`, or it has none: runs made before the file existed were all
/// single-shot): the judges read a run's final answer and its path, which
/// only a step-by-step run has.
fn check_step_by_step(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(STEPS_FILE);
    let mode = match read_capped(&path, STEPS_FILE_MAX_BYTES) {
        Ok(bytes) => {
            serde_json::from_slice::<RecordedSteps>(&bytes)
                .with_context(|| format!("{}: not the step settings of a run", path.display()))?
                .mode
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => StepMode::Single,
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if mode == StepMode::Single {
        bail!(
            "{}: a single-shot run (no --steps): the judges read the final answer and the path \
             of a step-by-step run. Run the tasks step by step first, for example `itc eval \
             --steps replay` (or execute, simulate), with `--solver chain` or `--solver dfsdt` \
             for ToolEval's solvers, then judge that run directory",
            dir.display()
        );
    }
    Ok(())
}

/// The model names of `models.json`, when the folder has one.
fn listed_models(dir: &Path) -> anyhow::Result<Vec<String>> {
    let path = dir.join("models.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not valid JSON", path.display()))?;
    Ok(value
        .as_array()
        .map(|models| {
            models
                .iter()
                .filter_map(|m| m["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}
