//! Reading the folders `itc report` combines: `itc eval` run directories
//! and `itc score --out` folders. Both hold `task_scores.jsonl` (one row per
//! task and model, with the task's kind, language, country and category) and,
//! when written by this version, `manifest.json`; that is all a report needs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::bail;

use crate::score::manifest::{Manifest, task_set_sha256};
use crate::spec::jsonl::read_records;
use crate::spec::records::{Task, TaskScore};

/// One folder given to `itc report`.
#[derive(Debug)]
pub struct Input {
    /// The folder as given.
    pub dir: PathBuf,
    /// Its manifest, when it has one.
    pub manifest: Option<Manifest>,
    /// The identity of its task set: the manifest's task-set hash, else
    /// the hash of a run directory's `tasks.jsonl`, else `None`.
    pub task_set: Option<String>,
    /// Its per-task scores, in file order.
    pub scores: Vec<TaskScore>,
}

impl Input {
    /// Reads a folder; errors name the folder and what is missing.
    pub fn read(dir: &Path) -> anyhow::Result<Input> {
        let path = dir.join("task_scores.jsonl");
        if !path.is_file() {
            bail!(
                "{}: no task_scores.jsonl; give itc eval run directories or itc score --out folders",
                dir.display()
            );
        }
        let (scores, _) = read_records::<TaskScore>(&path, false)?;
        if scores.is_empty() {
            bail!("{}: no scores", path.display());
        }
        let manifest = Manifest::read(dir)?;
        let task_set = match &manifest {
            Some(m) => Some(m.task_set_sha256.clone()),
            None => run_task_set(dir)?,
        };
        Ok(Input {
            dir: dir.to_path_buf(),
            manifest,
            task_set,
            scores,
        })
    }

    /// The models of this input, in order of first appearance.
    pub fn models(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.scores
            .iter()
            .map(|s| s.model.as_str())
            .filter(|m| seen.insert(*m))
            .collect()
    }

    /// The task ids of this input, in order of first appearance.
    pub fn task_ids(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.scores
            .iter()
            .map(|s| s.task_id.as_str())
            .filter(|t| seen.insert(*t))
            .collect()
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
        .map(|i| i.task_ids().into_iter().collect())
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
        for m in input.models() {
            holders.entry(m).or_default().push(i);
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
