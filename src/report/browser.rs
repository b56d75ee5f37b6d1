//! The rows of the report's per-task browser: every task with its query,
//! language, kind and gold calls, and each model's calls, scores and
//! outcome, the place to see *why* a model failed.
//!
//! Queries and gold calls come from the task file an input's manifest
//! names (a run directory from before manifests: its `tasks.jsonl`); a
//! model's calls are read from its predictions as the scorer reads them.
//! A file the manifest names is found from the folder and used only when it
//! is the file scored ([`sources`]). When a file is gone or differs, its
//! rows keep their scores and say what is missing, and the report says why.
//!
//! A page holds at most `itc report --browser-rows` rows (20,000 by
//! default): the report's first tasks, each with every model's answer. A
//! large study (200 models × 5,000 tasks) otherwise made a 751 MB page no
//! browser opens, and reading every prediction to fill it took gigabytes;
//! the files are now read a line at a time and only the shown tasks'
//! answers kept. Every task's scores are in `task_scores.csv` and
//! `task_scores.parquet`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::charts::ERROR_TYPES;
use super::inputs::Input;
use super::judged;
use super::sources::{self, NotUsed};
use crate::score::manifest::Manifest;
use crate::spec::action::print_actions;
use crate::spec::jsonl::{describe_error, for_each_line};
use crate::spec::records::{Call, Prediction, Step, Task, TaskScore};
use crate::spec::response::read_prediction;

/// Why a model's answer to a task fell short (one answer may have several).
/// The six errors are Table 3's, named as the tables name them
/// ([`ERROR_TYPES`]): an answer with no call has a *missed tool*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every call and value right.
    Correct,
    /// A tool that is not among the candidates.
    HallucinatedTool,
    /// A gold tool not called (no call at all, or another candidate instead).
    MissedTool,
    /// A candidate called that the gold does not call.
    ExtraTool,
    /// A parameter with a wrong value.
    IncorrectValue,
    /// A gold parameter left out.
    MissingValue,
    /// A parameter the gold does not give.
    ExtraValue,
    /// The Thought is not in the task's language.
    WrongLanguage,
    /// The answer is not in the strict format.
    BadFormat,
}

impl Outcome {
    /// Every outcome, in filter order.
    pub const ALL: [Outcome; 9] = [
        Outcome::Correct,
        Outcome::HallucinatedTool,
        Outcome::MissedTool,
        Outcome::ExtraTool,
        Outcome::IncorrectValue,
        Outcome::MissingValue,
        Outcome::ExtraValue,
        Outcome::WrongLanguage,
        Outcome::BadFormat,
    ];

    /// The words shown in the page: Table 3's error types as the tables
    /// and charts name them ([`ERROR_TYPES`], in its order).
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::HallucinatedTool => ERROR_TYPES[0],
            Outcome::MissedTool => ERROR_TYPES[1],
            Outcome::ExtraTool => ERROR_TYPES[2],
            Outcome::IncorrectValue => ERROR_TYPES[3],
            Outcome::MissingValue => ERROR_TYPES[4],
            Outcome::ExtraValue => ERROR_TYPES[5],
            Outcome::WrongLanguage => "wrong language",
            Outcome::BadFormat => "bad format",
        }
    }

    /// The name in the page's filter and address (`missed_tool`, …): the
    /// label with `_` for spaces.
    pub fn as_str(self) -> String {
        self.label().replace(' ', "_")
    }

    /// The outcomes of one task score.
    pub fn of(score: &TaskScore) -> Vec<Outcome> {
        let c = &score.counts;
        let mut out = Vec::new();
        if score.selection.f1 >= 1.0 && score.invocation.f1 >= 1.0 {
            out.push(Outcome::Correct);
        }
        let checks = [
            (c.hall > 0, Outcome::HallucinatedTool),
            (c.mis > 0, Outcome::MissedTool),
            (c.ex > 0, Outcome::ExtraTool),
            (c.incor > 0, Outcome::IncorrectValue),
            (c.miss > 0, Outcome::MissingValue),
            (c.ext > 0, Outcome::ExtraValue),
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
    /// The model's raw answer, at most [`RAW_CHARS`] characters (`None`:
    /// predictions gone, or no text: an error, native calls alone).
    pub raw: Option<String>,
    /// The Thought read from it: the text whose language is checked.
    pub thought: Option<String>,
    /// Selection F1 in percent.
    pub selection_f1: f64,
    /// Invocation F1 in percent.
    pub invocation_f1: f64,
    /// Its outcomes.
    pub outcomes: Vec<Outcome>,
    /// The labels and reasons of every judge request about it (`itc
    /// judge`), one a line; `None` when no judge read it.
    pub judged: Option<String>,
}

/// Where an input's task and prediction files are read from.
enum Sources<'a> {
    /// The files its manifest names, each used only if it is the file that
    /// was scored ([`sources::read_checked`]).
    Manifest(&'a Manifest),
    /// A run directory from before manifests: its own copies, if there.
    Run {
        tasks: Option<PathBuf>,
        predictions: Option<PathBuf>,
    },
}

impl Sources<'_> {
    fn of(input: &Input) -> Sources<'_> {
        if let Some(m) = &input.manifest {
            return Sources::Manifest(m);
        }
        let run = |name: &str| Some(input.dir.join(name)).filter(|p| p.is_file());
        Sources::Run {
            tasks: run("tasks.jsonl"),
            predictions: run("predictions.jsonl"),
        }
    }
}

/// What `each` collects from the lines of a file without a manifest to
/// check it by (a line that cannot be read ends it: what was read so far).
fn collect_unchecked<T: Default>(path: &Path, mut each: impl FnMut(&mut T, &str)) -> T {
    let mut collected = T::default();
    let _ = for_each_line(path, |_, line| {
        each(&mut collected, line);
        Ok(())
    });
    collected
}

/// The browser's rows, and how many of the report's tasks they show.
#[derive(Debug, Clone, PartialEq)]
pub struct Browser {
    /// The shown tasks' rows, in task order, then by model in report order.
    pub rows: Vec<Row>,
    /// Tasks shown: the report's first ones.
    pub tasks_shown: usize,
    /// Tasks in the report.
    pub tasks: usize,
    /// Rows at most, as asked.
    pub max_rows: usize,
    /// Per input (in order), the files its manifest names that were not
    /// used, and why.
    pub not_used: Vec<Vec<NotUsed>>,
}

/// How many of `tasks` tasks the browser shows for `models` models in at
/// most `max_rows` rows: the first ones, each with every model's row (at
/// least one task, whatever the limit).
pub fn tasks_shown(tasks: usize, models: usize, max_rows: usize) -> usize {
    (max_rows / models.max(1)).max(1).min(tasks)
}

/// The shown tasks by id, from the input's task file when it is there
/// and is the file scored (a bad line is passed over); else none, and why
/// in `not_used`.
fn tasks_by_id(
    input: &Input,
    shown: &HashSet<&str>,
    not_used: &mut Vec<NotUsed>,
) -> HashMap<String, Task> {
    let each = |tasks: &mut HashMap<String, Task>, line: &str| {
        if let Ok(task) = serde_json::from_str::<Task>(line)
            && shown.contains(task.id.as_str())
        {
            tasks.entry(task.id.clone()).or_insert(task);
        }
    };
    match Sources::of(input) {
        Sources::Manifest(m) => sources::read_checked(&input.dir, "tasks", &m.tasks, each)
            .unwrap_or_else(|e| {
                not_used.push(e);
                HashMap::new()
            }),
        Sources::Run { tasks: Some(p), .. } => collect_unchecked(&p, each),
        Sources::Run { tasks: None, .. } => HashMap::new(),
    }
}

/// The two fields that say whether a prediction is shown.
#[derive(serde::Deserialize)]
struct PredictionKey<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
    #[serde(borrow)]
    model: Cow<'a, str>,
}

/// What the browser shows of one prediction.
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    /// Its calls as an action string, or its error.
    calls: String,
    /// Its raw text, clipped.
    raw: Option<String>,
    /// Its Thought, clipped.
    thought: Option<String>,
}

/// Characters of a raw answer or Thought shown at most (the rest: `…`),
/// so that a model that rambles does not swell the page.
pub const RAW_CHARS: usize = 2_000;

/// `text` cut to [`RAW_CHARS`] characters; `None` when empty.
fn clipped(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match text.char_indices().nth(RAW_CHARS) {
        Some((at, _)) => Some(format!("{}…", &text[..at])),
        None => Some(text.to_string()),
    }
}

/// Each (model, task id)'s answer (calls, raw text, Thought) for the shown tasks,
/// from the input's prediction files that are there and are the files
/// scored (the others said in `not_used`), a line at a time; the first
/// prediction of a pair counts, as in scoring.
fn calls_by_pair(
    input: &Input,
    tasks: &HashMap<String, Task>,
    shown: &HashSet<&str>,
    not_used: &mut Vec<NotUsed>,
) -> HashMap<(String, String), Answer> {
    type Calls = HashMap<(String, String), Answer>;
    let each = |calls: &mut Calls, line: &str| {
        if let Ok(key) = serde_json::from_str::<PredictionKey>(line)
            && shown.contains(key.task_id.as_ref())
            && !calls.contains_key(&(key.model.to_string(), key.task_id.to_string()))
            && let Ok(p) = serde_json::from_str::<Prediction>(line)
        {
            calls.insert((p.model.clone(), p.task_id.clone()), answer_of(&p, tasks));
        }
    };
    let files: Vec<Calls> = match Sources::of(input) {
        Sources::Manifest(m) => m
            .predictions
            .iter()
            .enumerate()
            .filter_map(|(i, digest)| {
                let field = format!("predictions[{i}]");
                sources::read_checked(&input.dir, &field, digest, each)
                    .map_err(|e| not_used.push(e))
                    .ok()
            })
            .collect(),
        Sources::Run { predictions, .. } => predictions
            .iter()
            .map(|p| collect_unchecked(p, each))
            .collect(),
    };
    let mut calls = Calls::new();
    for file in files {
        for (pair, answer) in file {
            calls.entry(pair).or_insert(answer);
        }
    }
    calls
}

/// A prediction's calls as an action string (a step-by-step answer's
/// steps joined by arrows) or its error, its raw text and its Thought (a
/// step-by-step answer's steps one a line, numbered).
fn answer_of(p: &Prediction, tasks: &HashMap<String, Task>) -> Answer {
    let candidates: Vec<&str> = tasks
        .get(&p.task_id)
        .map(|t| t.tools.iter().map(|tool| tool.name.as_str()).collect())
        .unwrap_or_default();
    // Calls, raw text and Thought of one response.
    let read = |output: Option<&str>, calls: Option<&[Call]>| {
        let read = read_prediction(output, calls, &candidates);
        (
            print_actions(&read.calls),
            output.unwrap_or("").to_string(),
            read.language_text.trim().to_string(),
        )
    };
    match (&p.steps, &p.error) {
        // A step-by-step answer: the calls of the chosen path, one list a
        // step; every step (every node of a solver's tree) with its outputs.
        (Some(steps), _) if !steps.is_empty() => {
            let each: Vec<(String, String, String)> = steps
                .iter()
                .map(|s| read(s.output.as_deref(), s.calls.as_deref()))
                .collect();
            let path: Vec<usize> = match &p.solver {
                Some(record) => record
                    .path
                    .iter()
                    .copied()
                    .filter(|&i| i < steps.len())
                    .collect(),
                None => (0..steps.len()).collect(),
            };
            let thoughts: Vec<String> = path
                .iter()
                .enumerate()
                .filter(|(_, i)| !each[**i].2.is_empty())
                .map(|(k, &i)| format!("step {}: {}", k + 1, each[i].2))
                .collect();
            Answer {
                calls: path
                    .iter()
                    .map(|&i| each[i].0.as_str())
                    .collect::<Vec<_>>()
                    .join(" → "),
                raw: clipped(&steps_listing(p, steps, &each, &path)),
                thought: clipped(&thoughts.join("\n")),
            }
        }
        (_, Some(e)) => Answer {
            calls: format!("(error: {e})"),
            raw: p.output.as_deref().and_then(clipped),
            thought: None,
        },
        _ => {
            let (calls, raw, thought) = read(p.output.as_deref(), p.calls.as_deref());
            Answer {
                calls,
                raw: clipped(&raw),
                thought: clipped(&thought),
            }
        }
    }
}

/// Characters of one step's tool outputs shown in the listing.
const OUTPUT_CHARS: usize = 300;

/// Every step of a step-by-step answer, numbered, with the outputs it was
/// shown; for a solver's tree each node names the node it continues, the
/// chosen path is marked `*`, and the search's ending closes the list.
fn steps_listing(
    p: &Prediction,
    steps: &[Step],
    each: &[(String, String, String)],
    path: &[usize],
) -> String {
    let mut lines = Vec::with_capacity(steps.len() + 1);
    for (i, (step, (_, raw, _))) in steps.iter().zip(each).enumerate() {
        let mark = if p.solver.is_some() && path.contains(&i) {
            "*"
        } else {
            ""
        };
        let after = match (&p.solver, step.parent) {
            (Some(_), Some(parent)) => format!(" (after #{})", parent + 1),
            (Some(_), None) => " (first request)".to_string(),
            (None, _) => String::new(),
        };
        let text = match &step.error {
            Some(error) => format!("(request failed: {error})"),
            None => raw.clone(),
        };
        let name = match &p.solver {
            Some(_) => format!("#{}", i + 1),
            None => format!("step {}", i + 1),
        };
        lines.push(format!("{name}{mark}{after}: {text}"));
        if !step.tool_outputs.is_empty() {
            let outputs = serde_json::to_string(&step.tool_outputs).unwrap_or_default();
            let cut: String = outputs.chars().take(OUTPUT_CHARS).collect();
            let more = if cut.len() < outputs.len() { "…" } else { "" };
            lines.push(format!("   outputs: {cut}{more}"));
        }
    }
    if let Some(record) = &p.solver {
        let ending = serde_json::to_value(record.ending).unwrap_or_default();
        lines.push(format!(
            "{} ended by {}, {} request(s); path {}",
            record.kind.as_str(),
            ending.as_str().unwrap_or_default(),
            record.requests,
            path.iter()
                .map(|i| format!("#{}", i + 1))
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    }
    lines.join("\n")
}

/// The browser for the tasks the report compares (`task_ids`, of which the
/// first [`tasks_shown`] are shown in at most `max_rows` rows). `names`
/// maps each input's model names to the report's.
pub fn rows(
    inputs: &[Input],
    names: &[Vec<(String, String)>],
    task_ids: &[String],
    max_rows: usize,
) -> anyhow::Result<Browser> {
    let models = names.iter().map(Vec::len).sum();
    let shown_ids = &task_ids[..tasks_shown(task_ids.len(), models, max_rows)];
    let shown: HashSet<&str> = shown_ids.iter().map(String::as_str).collect();
    let mut by_task: HashMap<&str, Vec<Row>> = HashMap::new();
    let mut not_used = Vec::new();
    let dirs: Vec<&Path> = inputs.iter().map(|i| i.dir.as_path()).collect();
    let mut reasons = judged::reasons(&dirs, &shown);
    for (index, (input, names)) in inputs.iter().zip(names).enumerate() {
        let mut unused = Vec::new();
        let tasks = tasks_by_id(input, &shown, &mut unused);
        let calls = calls_by_pair(input, &tasks, &shown, &mut unused);
        not_used.push(unused);
        let rename: HashMap<&str, &str> = names
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let mut seen = HashSet::new();
        let path = input.dir.join("task_scores.jsonl");
        for_each_line(&path, |number, line| {
            let key: ScoreKey = serde_json::from_str(line)
                .map_err(|_| describe_error::<TaskScore>(&path, number, line))?;
            if !shown.contains(key.task_id.as_ref()) {
                return Ok(());
            }
            let s: TaskScore = serde_json::from_str(line)
                .map_err(|_| describe_error::<TaskScore>(&path, number, line))?;
            if !seen.insert((s.model.clone(), s.task_id.clone())) {
                return Ok(());
            }
            let task = tasks.get(&s.task_id);
            let answer = calls.get(&(s.model.clone(), s.task_id.clone()));
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
                calls: answer.map(|a| a.calls.clone()),
                raw: answer.and_then(|a| a.raw.clone()),
                thought: answer.and_then(|a| a.thought.clone()),
                selection_f1: 100.0 * s.selection.f1,
                invocation_f1: 100.0 * s.invocation.f1,
                outcomes: Outcome::of(&s),
                judged: reasons
                    .remove(&(index, s.model.clone(), s.task_id.clone()))
                    .map(|lines| lines.join("\n")),
            };
            by_task
                .entry(key_of(&shown, &s.task_id))
                .or_default()
                .push(row);
            Ok(())
        })?;
    }
    Ok(Browser {
        rows: shown_ids
            .iter()
            .flat_map(|id| by_task.remove(id.as_str()).unwrap_or_default())
            .collect(),
        tasks_shown: shown_ids.len(),
        tasks: task_ids.len(),
        max_rows,
        not_used,
    })
}

/// The shown set's own copy of a task id, so the rows can be keyed by it.
fn key_of<'a>(shown: &HashSet<&'a str>, id: &str) -> &'a str {
    shown.get(id).expect("only shown tasks are kept")
}

/// The task id of a score row, read before the rest.
#[derive(serde::Deserialize)]
struct ScoreKey<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_answers_and_thoughts_are_kept_and_clipped() {
        let p: Prediction = serde_json::from_value(serde_json::json!({
            "task_id": "t", "model": "m",
            "output": "{\"Thought\": \"<b>Look</b> it up.\", \"Action\": \"[search(q='x')]\"}",
        }))
        .unwrap();
        let a = answer_of(&p, &HashMap::new());
        assert_eq!(a.calls, "[search(q='x')]");
        assert_eq!(a.thought.as_deref(), Some("<b>Look</b> it up."));
        assert_eq!(a.raw.as_deref(), p.output.as_deref());
        let long = "é".repeat(RAW_CHARS + 5);
        let clip = clipped(&long).unwrap();
        assert_eq!(clip.chars().count(), RAW_CHARS + 1);
        assert!(clip.ends_with('…'));
        assert_eq!(clipped("  \n"), None);
        let failed: Prediction = serde_json::from_value(serde_json::json!({
            "task_id": "t", "model": "m", "output": null, "error": "timeout",
        }))
        .unwrap();
        let a = answer_of(&failed, &HashMap::new());
        assert_eq!(
            (a.calls.as_str(), a.raw, a.thought),
            ("(error: timeout)", None, None)
        );
    }

    #[test]
    fn the_first_tasks_that_fit_are_shown_and_always_one() {
        assert_eq!(tasks_shown(5_000, 200, 20_000), 100);
        assert_eq!(tasks_shown(50, 200, 20_000), 50);
        assert_eq!(tasks_shown(5_000, 30_000, 20_000), 1);
        assert_eq!(tasks_shown(5_000, 0, 20_000), 5_000);
        assert_eq!(tasks_shown(0, 3, 20_000), 0);
        assert_eq!(tasks_shown(243, 5, 27), 5);
    }
}
