//! Reading the folders `itc report` combines: `itc eval` run directories
//! and `itc score --out` folders. Both hold `task_scores.jsonl` (one row per
//! task and model, with the task's kind, language, country and category) and,
//! when written by this version, `manifest.json`; that is all a report needs.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::bail;
use serde::Deserialize;

use crate::score::manifest::{Manifest, task_set_sha256};
use crate::score::stream::{Outcomes, TaskOutcome};
use crate::spec::jsonl::{describe_error, for_each_line, read_records};
use crate::spec::records::{Gold, Task, TaskScore};

/// One folder given to `itc report`: what its `task_scores.jsonl` says,
/// kept as outcomes (16 bytes a row, in scratch files: see
/// [`Outcomes`]) rather than as rows, so a study of millions of answers
/// does not hold them all in memory.
#[derive(Debug)]
pub struct Input {
    /// The folder as given.
    pub dir: PathBuf,
    /// Its manifest, when it has one.
    pub manifest: Option<Manifest>,
    /// The identity of its task set: the manifest's task-set hash, else
    /// the hash of a run directory's `tasks.jsonl`, else `None`.
    pub task_set: Option<String>,
    /// Its tasks in order of first appearance, as a report knows them: id
    /// and breakdown keys (kind, language, country, category), from each
    /// task's first row.
    pub tasks: Vec<Task>,
    /// Its models, in order of first appearance.
    pub models: Vec<String>,
    /// Per model (as `models`), its outcome on each task (as `tasks`); a
    /// slot without a row stays empty, and of two rows for one task and
    /// model the later counts.
    pub outcomes: Vec<Outcomes>,
}

/// The two fields of a score row that place it.
#[derive(Deserialize)]
struct RowKey<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
    #[serde(borrow)]
    model: Cow<'a, str>,
}

impl Input {
    /// Reads a folder; errors name the folder and what is missing, or the
    /// file, line and field of a bad row.
    pub fn read(dir: &Path) -> anyhow::Result<Input> {
        let path = dir.join("task_scores.jsonl");
        if !path.is_file() {
            bail!(
                "{}: no task_scores.jsonl; give itc eval run directories or itc score --out folders",
                dir.display()
            );
        }
        let (tasks, models, outcomes) = read_scores(&path)?;
        let manifest = Manifest::read(dir)?;
        let task_set = match &manifest {
            Some(m) => Some(m.task_set_sha256.clone()),
            None => run_task_set(dir)?,
        };
        Ok(Input {
            dir: dir.to_path_buf(),
            manifest,
            task_set,
            tasks,
            models,
            outcomes,
        })
    }
}

/// A `task_scores.jsonl` in two passes, a line at a time: the first finds
/// the tasks and models (so every model's outcomes are sized once), the
/// second reads every row into its slot.
fn read_scores(path: &Path) -> anyhow::Result<(Vec<Task>, Vec<String>, Vec<Outcomes>)> {
    let mut tasks = Vec::new();
    let mut task_index: HashMap<String, usize> = HashMap::new();
    let mut models = Vec::new();
    let mut model_index: HashMap<String, usize> = HashMap::new();
    for_each_line(path, |number, line| {
        let bad = || describe_error::<TaskScore>(path, number, line);
        let key: RowKey = serde_json::from_str(line).map_err(|_| bad())?;
        if !task_index.contains_key(key.task_id.as_ref()) {
            let row: TaskScore = serde_json::from_str(line).map_err(|_| bad())?;
            task_index.insert(row.task_id.clone(), tasks.len());
            tasks.push(task_of(row));
        }
        if !model_index.contains_key(key.model.as_ref()) {
            model_index.insert(key.model.to_string(), models.len());
            models.push(key.model.into_owned());
        }
        Ok(())
    })?;
    if tasks.is_empty() {
        bail!("{}: no scores", path.display());
    }
    let mut outcomes: Vec<Outcomes> = models.iter().map(|_| Outcomes::new(tasks.len())).collect();
    for_each_line(path, |number, line| {
        let row: TaskScore = serde_json::from_str(line)
            .map_err(|_| describe_error::<TaskScore>(path, number, line))?;
        let (Some(&t), Some(&m)) = (
            task_index.get(row.task_id.as_str()),
            model_index.get(row.model.as_str()),
        ) else {
            bail!("{}: changed while it was read", path.display());
        };
        outcomes[m].set(t, &TaskOutcome::from_score(&row));
        Ok(())
    })?;
    for o in &outcomes {
        o.release();
    }
    Ok((tasks, models, outcomes))
}

/// What a report knows of a task: its id and the breakdown keys.
fn task_of(score: TaskScore) -> Task {
    Task {
        id: score.task_id,
        kind: score.kind,
        language: score.language,
        country: score.country,
        category: score.category,
        query: String::new(),
        tools: Vec::new(),
        gold: Gold::default(),
        turns: Vec::new(),
    }
}

/// The task-set hash of a run directory written before manifests existed.
fn run_task_set(dir: &Path) -> anyhow::Result<Option<String>> {
    let path = dir.join("tasks.jsonl");
    if !path.is_file() {
        return Ok(None);
    }
    let (tasks, _) = read_records::<Task>(&path, false)?;
    Ok(Some(task_set_sha256(&tasks)))
}

/// Which tasks the report compares on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskChoice {
    /// Every input scored the same task set: all its tasks.
    Same,
    /// The inputs differ (allowed by the user): the tasks every input
    /// scored, `shared` of them.
    Shared {
        /// Tasks compared.
        shared: usize,
        /// Tasks of the largest input.
        largest: usize,
    },
}

/// Checks that the inputs scored the same task set. When they did not,
/// refuses unless `allow_different` (then the tasks all inputs share).
pub fn check_task_sets(inputs: &[Input], allow_different: bool) -> anyhow::Result<TaskChoice> {
    let known: BTreeSet<&str> = inputs
        .iter()
        .filter_map(|i| i.task_set.as_deref())
        .collect();
    let ids: Vec<BTreeSet<&str>> = inputs
        .iter()
        .map(|i| i.tasks.iter().map(|t| t.id.as_str()).collect())
        .collect();
    // Folders without a task-set hash are compared by their task ids.
    let same = known.len() <= 1 && ids.windows(2).all(|w| w[0] == w[1]);
    if same {
        return Ok(TaskChoice::Same);
    }
    if !allow_different {
        let lines: Vec<String> = inputs
            .iter()
            .zip(&ids)
            .map(|(i, ids)| {
                format!(
                    "  {}: {} task(s), task set {}",
                    i.dir.display(),
                    ids.len(),
                    i.task_set
                        .as_deref()
                        .map_or("unknown", |h| h.get(..12).unwrap_or(h))
                )
            })
            .collect();
        bail!(
            "the inputs were scored on different task sets:\n{}\n(--allow-different-tasks compares them on the tasks they share)",
            lines.join("\n")
        );
    }
    let shared = ids.iter().skip(1).fold(ids[0].clone(), |acc, s| {
        acc.intersection(s).copied().collect()
    });
    if shared.is_empty() {
        bail!("the inputs share no task: nothing to compare");
    }
    Ok(TaskChoice::Shared {
        shared: shared.len(),
        largest: ids.iter().map(BTreeSet::len).max().unwrap_or(0),
    })
}

/// Model names made unique across inputs: a name found in more than one
/// input becomes `name@folder` in each (the folder's last component, or its
/// position when those repeat too). Keyed by (input index, model name).
pub fn unique_names(inputs: &[Input]) -> BTreeMap<(usize, String), String> {
    let mut holders: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, input) in inputs.iter().enumerate() {
        for m in &input.models {
            holders.entry(m.as_str()).or_default().push(i);
        }
    }
    let folder = |i: usize| {
        inputs[i].dir.file_name().map_or_else(
            || format!("input{}", i + 1),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let mut names = BTreeMap::new();
    for (model, at) in holders {
        let folders: BTreeSet<String> = at.iter().map(|&i| folder(i)).collect();
        for &i in &at {
            let name = match at.len() {
                1 => model.to_string(),
                _ if folders.len() == at.len() => format!("{model}@{}", folder(i)),
                _ => format!("{model}@input{}", i + 1),
            };
            names.insert((i, model.to_string()), name);
        }
    }
    names
}
