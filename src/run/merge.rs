//! `itc merge`: the run directories of a run's shards (`itc eval --shard
//! K/N`) joined into one run directory, then scored there as `itc eval`
//! scores a run.
//!
//! The shards must be shares of the same selection of tasks (`shard.json`),
//! run by the same models with the same settings (`models.json`) and asked
//! the same way (`steps.json`); anything else is refused, naming the folder
//! and the field. The selection is checked before it is trusted: every
//! shard records the same `task_ids`, each shard holds exactly its share of
//! them (`tasks.jsonl`), and, when all its tasks are at hand, they hash to
//! `selection_sha256` as when the shards were made. The tasks go back in
//! the selection's order, so the merged task set hashes like a single
//! run's. Only predictions of the models in `models.json` are merged and
//! count. A shard that is missing, a task without a prediction, a
//! prediction found in two shards, or predictions of a model not in
//! `models.json` (left out) are reported (in `merge.json` and on stderr);
//! of a repeated prediction an answer is kept over an error, otherwise the
//! first. Such a merge still writes and scores what it has, and ends with
//! [`MergeIncomplete`].

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::claim::STEPS_FILE;
use super::runner::predictions_path;
use super::shard::{SHARD_FILE, ShardRecord, shard_ids};
use crate::score::files::{ScoreFilesOptions, ScoringOptions, score};
use crate::score::manifest::task_set_sha256;
use crate::spec::jsonl::{
    describe_error, for_each_line_at, read_records, write_lines, write_records,
};
use crate::spec::records::{Prediction, Task};
use crate::util::lock::FolderLock;

/// What `itc merge` needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeOptions {
    /// The shards' run directories.
    pub runs: Vec<PathBuf>,
    /// The merged run directory (new, or empty).
    pub out: PathBuf,
    /// How the merged predictions are scored and shown.
    pub scoring: ScoringOptions,
}

/// A merge that wrote and scored what it had, with shards, tasks or
/// predictions missing, repeated or left out: `itc` exits with status 3,
/// as for a run whose tasks did not all succeed.
#[derive(Debug, thiserror::Error)]
#[error("the merge in {} is incomplete: {gaps} (see merge.json)", out.display())]
pub struct MergeIncomplete {
    /// What is missing or repeated.
    pub gaps: String,
    /// The merged run directory.
    pub out: PathBuf,
}

/// One shard's run directory, read.
struct ShardRun {
    dir: PathBuf,
    record: ShardRecord,
    models: Value,
    steps: Value,
    tasks: Vec<Task>,
}

impl ShardRun {
    fn read(dir: &Path) -> anyhow::Result<ShardRun> {
        let record = ShardRecord::read(dir)?.with_context(|| {
            format!(
                "{}: no {SHARD_FILE}: not the run directory of a shard (itc eval --shard K/N)",
                dir.display()
            )
        })?;
        let json = |name: &str, missing: Value| -> anyhow::Result<Value> {
            let path = dir.join(name);
            match std::fs::read_to_string(&path) {
                Ok(text) => serde_json::from_str(&text)
                    .with_context(|| format!("reading {}", path.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(missing),
                Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
            }
        };
        let models = json("models.json", Value::Null)?;
        let steps = json(
            STEPS_FILE,
            serde_json::to_value(super::steps::StepOptions::default())?,
        )?;
        let tasks = read_records::<Task>(&dir.join("tasks.jsonl"), false)?.0;
        Ok(ShardRun {
            dir: dir.to_path_buf(),
            record,
            models,
            steps,
            tasks,
        })
    }
}

/// Refuses shards that do not belong together, naming the folder and field.
fn check_alike(runs: &[ShardRun]) -> anyhow::Result<()> {
    let first = &runs[0];
    for run in &runs[1..] {
        let differs = |field: &str| {
            anyhow::anyhow!(
                "{} and {}: field `{field}` differs; only shards of one run can be merged",
                first.dir.display(),
                run.dir.display()
            )
        };
        if run.record.shard.count != first.record.shard.count {
            return Err(differs("shard.count (shard.json)"));
        }
        if run.record.selection_sha256 != first.record.selection_sha256 {
            return Err(differs("selection_sha256 (shard.json): other tasks"));
        }
        if run.record.task_ids != first.record.task_ids {
            return Err(differs("task_ids (shard.json): another list of tasks"));
        }
        if run.models != first.models {
            return Err(differs("models.json: the models or their settings"));
        }
        if run.steps != first.steps {
            return Err(differs("steps.json: how tasks were asked"));
        }
    }
    Ok(())
}

/// The selection's tasks found in the shards, in its order, once the
/// recorded selection is checked (the shards agree on it, see
/// [`check_alike`]): each shard must hold exactly its share of `task_ids`,
/// and when every task is found they must hash to `selection_sha256` as
/// when the shards were made. A shortened or edited list is refused, never
/// followed. Also says whether the hash could be checked (not with tasks
/// absent, where the shares are the check).
fn check_selection(runs: &[ShardRun]) -> anyhow::Result<(Vec<Task>, bool)> {
    let first = &runs[0];
    for run in runs {
        let share = shard_ids(&run.record.task_ids, run.record.shard);
        if !share
            .iter()
            .copied()
            .eq(run.tasks.iter().map(|t| t.id.as_str()))
        {
            bail!(
                "{}: field `task_ids`: shard {} of these {} task(s) is not the {} task(s) of {}: the list or the tasks changed since the shard was run; only whole shards can be merged",
                run.dir.join(SHARD_FILE).display(),
                run.record.shard,
                run.record.task_ids.len(),
                run.tasks.len(),
                run.dir.join("tasks.jsonl").display()
            );
        }
    }
    let mut by_id: HashMap<&str, &Task> = HashMap::new();
    for run in runs {
        for task in &run.tasks {
            by_id.entry(task.id.as_str()).or_insert(task);
        }
    }
    let ids = &first.record.task_ids;
    let tasks: Vec<Task> = ids
        .iter()
        .filter_map(|id| by_id.get(id.as_str()).map(|t| (*t).clone()))
        .collect();
    let whole = tasks.len() == ids.len();
    if whole && task_set_sha256(&tasks) != first.record.selection_sha256 {
        bail!(
            "{}: field `task_ids`: the {} task(s) listed (as found in the shards' tasks.jsonl) do not hash to its `selection_sha256`: the list or the tasks changed since the shards were made; only whole shards can be merged",
            first.dir.join(SHARD_FILE).display(),
            ids.len()
        );
    }
    Ok((tasks, whole))
}

/// The names of the models the shards ran (`models.json`), in order.
fn listed_models(run: &ShardRun) -> anyhow::Result<Vec<String>> {
    let path = run.dir.join("models.json");
    let Value::Array(models) = &run.models else {
        bail!(
            "{}: missing, or not a list of models: the shard's models are not known",
            path.display()
        );
    };
    models
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m["name"]
                .as_str()
                .map(str::to_string)
                .with_context(|| format!("{}: field `[{i}].name`: missing", path.display()))
        })
        .collect()
}

/// How many names of models not in `models.json` are shown.
const UNLISTED_SHOWN: usize = 5;

/// What the merge found missing, repeated or left out.
#[derive(Debug, Default)]
struct Gaps {
    shards_missing: Vec<usize>,
    shards_repeated: Vec<usize>,
    tasks_missing: usize,
    predictions_missing: usize,
    predictions_repeated: usize,
    /// Predictions of models not in `models.json`: not merged.
    predictions_unlisted: usize,
    /// The first few of those models' names.
    models_unlisted: Vec<String>,
}

impl Gaps {
    /// Counts a prediction of a model not in `models.json`.
    fn unlisted(&mut self, model: &str) {
        self.predictions_unlisted += 1;
        // One more name than shown, to tell whether there are more.
        if self.models_unlisted.len() <= UNLISTED_SHOWN
            && !self.models_unlisted.iter().any(|m| m == model)
        {
            self.models_unlisted.push(model.to_string());
        }
    }

    /// The names of models not in `models.json` to show.
    fn unlisted_shown(&self) -> &[String] {
        &self.models_unlisted[..self.models_unlisted.len().min(UNLISTED_SHOWN)]
    }

    fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.shards_missing.is_empty() {
            parts.push(format!("shard(s) {:?} missing", self.shards_missing));
        }
        if !self.shards_repeated.is_empty() {
            parts.push(format!("shard(s) {:?} given twice", self.shards_repeated));
        }
        if self.tasks_missing > 0 {
            parts.push(format!(
                "{} task(s) of the selection absent",
                self.tasks_missing
            ));
        }
        if self.predictions_missing > 0 {
            parts.push(format!(
                "{} prediction(s) missing",
                self.predictions_missing
            ));
        }
        if self.predictions_repeated > 0 {
            parts.push(format!(
                "{} prediction(s) repeated (the first kept)",
                self.predictions_repeated
            ));
        }
        if self.predictions_unlisted > 0 {
            let more = if self.models_unlisted.len() > UNLISTED_SHOWN {
                ", …"
            } else {
                ""
            };
            parts.push(format!(
                "{} prediction(s) of model(s) not in models.json left out ({}{more})",
                self.predictions_unlisted,
                self.unlisted_shown().join(", ")
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Runs `itc merge`: writes the merged run directory, scores it (tables on
/// `out`, notes on `err`).
pub fn merge(
    options: &MergeOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    if options.runs.is_empty() {
        bail!("itc merge needs the run directories of the shards");
    }
    let started = std::time::SystemTime::now();
    let runs: Vec<ShardRun> = options
        .runs
        .iter()
        .map(|d| ShardRun::read(d))
        .collect::<anyhow::Result<_>>()?;
    check_alike(&runs)?;
    let (tasks, selection_checked) = check_selection(&runs)?;
    let listed = listed_models(&runs[0])?;
    let _lock = FolderLock::acquire(&options.out, err)?;
    if predictions_path(&options.out).exists() {
        bail!(
            "{} already holds a run (predictions.jsonl); merge into a new folder",
            options.out.display()
        );
    }
    let mut gaps = Gaps {
        tasks_missing: runs[0].record.task_ids.len() - tasks.len(),
        ..Gaps::default()
    };
    let kept = join(&runs, &tasks, &listed, &mut gaps)?;
    let dir = &options.out;
    write_records(&dir.join("tasks.jsonl"), &tasks)
        .with_context(|| format!("writing {}", dir.display()))?;
    write_kept(&runs, &kept, &predictions_path(dir))?;
    let pretty = |value: &Value| serde_json::to_string_pretty(value).map(|t| t + "\n");
    let first = &runs[0];
    crate::util::atomic::write(&dir.join("models.json"), pretty(&first.models)?.as_bytes())?;
    crate::util::atomic::write(&dir.join(STEPS_FILE), pretty(&first.steps)?.as_bytes())?;
    let inputs: Vec<Value> = runs
        .iter()
        .map(|r| json!({"run_dir": r.dir, "shard": r.record.shard.to_string()}))
        .collect();
    let record = json!({
        "inputs": inputs,
        "shards": first.record.shard.count,
        "selection_sha256": first.record.selection_sha256,
        "selection_sha256_checked": selection_checked,
        "shards_missing": gaps.shards_missing,
        "shards_repeated": gaps.shards_repeated,
        "tasks_missing": gaps.tasks_missing,
        "predictions_missing": gaps.predictions_missing,
        "predictions_repeated": gaps.predictions_repeated,
        "predictions_unlisted": gaps.predictions_unlisted,
        "models_unlisted": gaps.unlisted_shown(),
    });
    crate::util::atomic::write(&dir.join("merge.json"), pretty(&record)?.as_bytes())?;
    writeln!(
        err,
        "merged {} shard run(s) of {} into {}: {} task(s), {} prediction(s)",
        runs.len(),
        first.record.shard.count,
        dir.display(),
        tasks.len(),
        kept.len()
    )?;
    let score_options = ScoreFilesOptions {
        tasks: Some(dir.join("tasks.jsonl")),
        predictions: vec![predictions_path(dir)],
        out: Some(dir.clone()),
        scoring: options.scoring,
        skip_invalid: false,
        threads: None,
        started: Some(started),
        eval_record: Some(
            json!({"models": first.models, "steps": first.steps, "merged_from": record["inputs"]}),
        ),
        model_order: listed,
    };
    score(&score_options, out, err)?;
    match gaps.summary() {
        Some(summary) => {
            writeln!(err, "warning: {summary}")?;
            Err(MergeIncomplete {
                gaps: summary,
                out: dir.clone(),
            }
            .into())
        }
        None => Ok(()),
    }
}

/// A prediction the merge keeps: where its line is in its shard's file
/// (read again when the merge is written, so that a large run's
/// predictions are never all in memory), and what it answers.
#[derive(Debug, Clone, Copy)]
struct KeptLine {
    shard: usize,
    offset: u64,
    len: usize,
    /// Its task's place in the selection.
    task: usize,
    /// Its model's place in `models.json`.
    model: usize,
    error: bool,
}

/// The predictions to keep of the selection's `tasks` by the `listed`
/// models, in task, then model order; what is missing, repeated or left out
/// is counted in `gaps`. Each shard's predictions are read a line at a
/// time; a bad line is named by file, line and field.
fn join(
    runs: &[ShardRun],
    tasks: &[Task],
    listed: &[String],
    gaps: &mut Gaps,
) -> anyhow::Result<Vec<KeptLine>> {
    let first = &runs[0].record;
    let mut seen_shards = HashSet::new();
    for run in runs {
        if !seen_shards.insert(run.record.shard.index) {
            gaps.shards_repeated.push(run.record.shard.index);
        }
    }
    gaps.shards_missing = (1..=first.shard.count)
        .filter(|k| !seen_shards.contains(k))
        .collect();
    let order: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let mut models: HashMap<&str, usize> = HashMap::new();
    for (i, name) in listed.iter().enumerate() {
        models.entry(name.as_str()).or_insert(i);
    }
    let mut kept: Vec<KeptLine> = Vec::new();
    let mut kept_index: HashMap<(usize, usize), usize> = HashMap::new();
    for (shard, run) in runs.iter().enumerate() {
        let path = predictions_path(&run.dir);
        for_each_line_at(&path, |number, offset, line| {
            let p: Prediction = serde_json::from_str(line)
                .map_err(|_| describe_error::<Prediction>(&path, number, line))?;
            let Some(&task) = order.get(p.task_id.as_str()) else {
                return Ok(()); // not a task of the selection
            };
            let Some(&model) = models.get(p.model.as_str()) else {
                gaps.unlisted(&p.model);
                return Ok(());
            };
            let line = KeptLine {
                shard,
                offset,
                len: line.len(),
                task,
                model,
                error: p.error.is_some(),
            };
            // A shard run twice (again after its errors): an answer is
            // kept over an error, otherwise the first.
            match kept_index.entry((model, task)) {
                Entry::Vacant(slot) => {
                    slot.insert(kept.len());
                    kept.push(line);
                }
                Entry::Occupied(slot) => {
                    gaps.predictions_repeated += 1;
                    let earlier = &mut kept[*slot.get()];
                    if earlier.error && !line.error {
                        *earlier = line;
                    }
                }
            }
            Ok(())
        })
        .map_err(|e| {
            anyhow::anyhow!(
                "{e:#}\n(a shard cut off while writing ends in a torn line: `itc eval --resume --run-dir {} --shard {}/{}`, with that run's other settings, cuts it and finishes the shard; then merge again)",
                run.dir.display(),
                run.record.shard.index,
                run.record.shard.count
            )
        })?;
    }
    kept.sort_by_key(|k| (k.task, k.model));
    gaps.predictions_missing = (tasks.len() * listed.len()).saturating_sub(kept.len());
    Ok(kept)
}

/// Writes the kept predictions' lines, read again from the shards' files,
/// as the merged run's predictions (whole or not at all).
fn write_kept(runs: &[ShardRun], kept: &[KeptLine], path: &Path) -> anyhow::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut files = runs
        .iter()
        .map(|run| {
            let shard = predictions_path(&run.dir);
            std::fs::File::open(&shard).with_context(|| format!("reading {}", shard.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    write_lines(path, kept, |line, out| {
        let start = out.len();
        out.resize(start + line.len, 0);
        let file = &mut files[line.shard];
        file.seek(SeekFrom::Start(line.offset))
            .and_then(|_| file.read_exact(&mut out[start..]))
            .map_err(serde_json::Error::io)
    })
    .with_context(|| format!("writing {}", path.display()))
}
