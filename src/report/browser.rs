//! The rows of the report's per-task browser: every task with its query,
//! language, kind and gold calls, and each model's calls, scores and
//! outcome, the place to see *why* a model failed.
//!
//! Queries and gold calls come from the task file an input names (a run's
//! `tasks.jsonl`, or the task file in a score folder's manifest); a model's
//! calls are read from its predictions as the scorer reads them. When a
//! file is gone, its rows keep their scores and say what is missing.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use super::inputs::Input;
use crate::spec::action::print_actions;
use crate::spec::jsonl::read_records;
use crate::spec::records::{Call, Prediction, Task, TaskScore};
use crate::spec::response::read_prediction;

/// Why a model's answer to a task fell short (one answer may have several).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every call and value right.
    Correct,
    /// A gold tool not called, or a candidate called that the gold does not call.
    WrongTool,
    /// A tool that is not among the candidates.
    HallucinatedTool,
    /// A parameter with a wrong value.
    WrongValue,
    /// A gold parameter left out.
    MissingValue,
    /// The Thought is not in the task's language.
    WrongLanguage,
    /// The answer is not in the strict format.
    BadFormat,
}

impl Outcome {
    /// Every outcome, in filter order.
    pub const ALL: [Outcome; 7] = [
        Outcome::Correct,
        Outcome::WrongTool,
        Outcome::HallucinatedTool,
        Outcome::WrongValue,
        Outcome::MissingValue,
        Outcome::WrongLanguage,
        Outcome::BadFormat,
    ];

    /// The name in the page (`wrong_tool`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::WrongTool => "wrong_tool",
            Outcome::HallucinatedTool => "hallucinated_tool",
            Outcome::WrongValue => "wrong_value",
            Outcome::MissingValue => "missing_value",
            Outcome::WrongLanguage => "wrong_language",
            Outcome::BadFormat => "bad_format",
        }
    }

    /// The outcomes of one task score.
    pub fn of(score: &TaskScore) -> Vec<Outcome> {
        let c = &score.counts;
        let mut out = Vec::new();
        if score.selection.f1 >= 1.0 && score.invocation.f1 >= 1.0 {
            out.push(Outcome::Correct);
        }
        let checks = [
            (c.mis + c.ex > 0, Outcome::WrongTool),
            (c.hall > 0, Outcome::HallucinatedTool),
            (c.incor > 0, Outcome::WrongValue),
            (c.miss > 0, Outcome::MissingValue),
            (!score.language_outcome.is_match(), Outcome::WrongLanguage),
            (!score.format_match, Outcome::BadFormat),
        ];
        out.extend(checks.iter().filter(|(on, _)| *on).map(|(_, o)| *o));
        out
    }
}

/// One row of the browser: a task and one model's answer to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Task id.
    pub task_id: String,
    /// The model, as named in the report.
    pub model: String,
    /// Task kind.
    pub kind: &'static str,
    /// Task language.
    pub language: String,
    /// The query (`None` when the task file is gone).
    pub query: Option<String>,
    /// The gold calls as an action string.
    pub gold: Option<String>,
    /// The model's calls as an action string (`None`: predictions gone).
    pub calls: Option<String>,
    /// Selection F1 in percent.
    pub selection_f1: f64,
    /// Invocation F1 in percent.
    pub invocation_f1: f64,
    /// Its outcomes.
    pub outcomes: Vec<Outcome>,
}

/// The task and prediction files an input names.
fn sources(input: &Input) -> (Option<PathBuf>, Vec<PathBuf>) {
    if let Some(m) = &input.manifest {
        return (
            Some(PathBuf::from(&m.tasks.path)),
            m.predictions
                .iter()
                .map(|p| PathBuf::from(&p.path))
                .collect(),
        );
    }
    let run = |name: &str| Some(input.dir.join(name)).filter(|p| p.is_file());
    (
        run("tasks.jsonl"),
        run("predictions.jsonl").into_iter().collect(),
    )
}

/// Tasks by id, from a file that may be gone.
fn tasks_by_id(path: Option<PathBuf>) -> HashMap<String, Task> {
    let Some(path) = path else {
        return HashMap::new();
    };
    read_records::<Task>(&path, true)
        .map(|(tasks, _)| tasks.into_iter().map(|t| (t.id.clone(), t)).collect())
        .unwrap_or_default()
}

/// Each (model, task id)'s calls as an action string, from prediction
/// files that may be gone; the first prediction of a pair counts, as in
/// scoring.
fn calls_by_pair(
    paths: &[PathBuf],
    tasks: &HashMap<String, Task>,
) -> HashMap<(String, String), String> {
    let mut calls = HashMap::new();
    for path in paths {
        let Ok((predictions, _)) = read_records::<Prediction>(path, true) else {
            continue;
        };
        for p in predictions {
            let key = (p.model.clone(), p.task_id.clone());
            if calls.contains_key(&key) {
                continue;
            }
            let candidates: Vec<&str> = tasks
                .get(&p.task_id)
                .map(|t| t.tools.iter().map(|tool| tool.name.as_str()).collect())
                .unwrap_or_default();
            let read = |output: Option<&str>, calls: Option<&[Call]>| {
                read_prediction(output, calls, &candidates).calls
            };
            let text = match (&p.steps, &p.error) {
                // A step-by-step answer: the calls of every step, one list a step.
                (Some(steps), _) if !steps.is_empty() => steps
                    .iter()
                    .map(|s| print_actions(&read(s.output.as_deref(), s.calls.as_deref())))
                    .collect::<Vec<_>>()
                    .join(" → "),
                (_, Some(e)) => format!("(error: {e})"),
                _ => print_actions(&read(p.output.as_deref(), p.calls.as_deref())),
            };
            calls.insert(key, text);
        }
    }
    calls
}

/// The browser's rows for the tasks the report compares (`task_ids`), in
/// task order, then by model in report order. `names` maps each input's
/// model names to the report's.
pub fn rows(inputs: &[Input], names: &[Vec<(String, String)>], task_ids: &[String]) -> Vec<Row> {
    let mut by_task: HashMap<&str, Vec<Row>> = HashMap::new();
    for (input, names) in inputs.iter().zip(names) {
        let (task_file, prediction_files) = sources(input);
        let tasks = tasks_by_id(task_file);
        let calls = calls_by_pair(&prediction_files, &tasks);
        let rename: HashMap<&str, &str> = names
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let mut seen = std::collections::HashSet::new();
        for s in &input.scores {
            if !seen.insert((&s.model, &s.task_id)) {
                continue;
            }
            let task = tasks.get(&s.task_id);
            let row = Row {
                task_id: s.task_id.clone(),
                model: rename
                    .get(s.model.as_str())
                    .unwrap_or(&s.model.as_str())
                    .to_string(),
                kind: s.kind.as_str(),
                language: s.language.clone(),
                query: task.map(|t| t.query.clone()),
                gold: task.map(|t| print_actions(&t.gold.calls)),
                calls: calls.get(&(s.model.clone(), s.task_id.clone())).cloned(),
                selection_f1: 100.0 * s.selection.f1,
                invocation_f1: 100.0 * s.invocation.f1,
                outcomes: Outcome::of(s),
            };
            by_task.entry(s.task_id.as_str()).or_default().push(row);
        }
    }
    task_ids
        .iter()
        .flat_map(|id| by_task.remove(id.as_str()).unwrap_or_default())
        .collect()
}
