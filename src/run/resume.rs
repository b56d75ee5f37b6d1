//! What a resumed run may change. A run directory's `models.json` records
//! each model's settings; `--resume` must send the same requests, so a
//! setting that changes requests (backend, endpoint, model id, mode, prompt,
//! sampling, length limit, extra body fields) may not differ from the record.
//! Settings that only pace or price the requests (concurrency, rate limits,
//! timeouts, retries, prices, the key's variable) may change. Nor may the
//! tasks: a resume must ask every task the run holds, unchanged (it may add
//! some), and is refused before anything is written otherwise, naming the
//! run's task source (`task_set.json`) and this session's.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::models::config::ModelConfig;
use crate::score::manifest::task_set_sha256;
use crate::spec::jsonl::read_records;
use crate::spec::records::Task;
use crate::util::regular::read_capped;

/// The file recording which tasks a run directory's run asks.
pub const TASK_SET_FILE: &str = "task_set.json";

/// Most bytes read of `task_set.json` (it holds a label and a hash).
const TASK_SET_FILE_MAX_BYTES: u64 = 64 * 1024;

/// Which tasks a run asks: where they came from, how many, and their hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSetRecord {
    /// The task file or `--dataset …` they were selected from.
    pub source: String,
    /// How many tasks the run asks (a shard: its share).
    pub tasks: usize,
    /// SHA-256 of the tasks as `tasks.jsonl` holds them.
    pub sha256: String,
}

impl TaskSetRecord {
    /// The record of `tasks`, selected from `source`.
    pub fn of(source: &str, tasks: &[Task]) -> TaskSetRecord {
        TaskSetRecord {
            source: source.to_string(),
            tasks: tasks.len(),
            sha256: task_set_sha256(tasks),
        }
    }

    /// Writes the record into `run_dir`.
    pub fn write(&self, run_dir: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::util::atomic::write(&run_dir.join(TASK_SET_FILE), text.as_bytes())
    }

    /// `run_dir`'s `task_set.json`; none for a run made before the file
    /// existed (or a folder that is not a run directory).
    pub fn read(run_dir: &Path) -> anyhow::Result<Option<TaskSetRecord>> {
        let path = run_dir.join(TASK_SET_FILE);
        match read_capped(&path, TASK_SET_FILE_MAX_BYTES) {
            Ok(bytes) => serde_json::from_slice::<TaskSetRecord>(&bytes)
                .map(Some)
                .with_context(|| format!("{}: not a task set record", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// Where `run_dir`'s tasks came from, as its `task_set.json` says;
    /// none for a run made before the file existed.
    fn recorded_source(run_dir: &Path) -> anyhow::Result<Option<String>> {
        Ok(TaskSetRecord::read(run_dir)?.map(|r| r.source))
    }
}

/// Refuses to resume `run_dir` unless this session asks every task the run
/// holds, unchanged: its predictions would otherwise be appended beside
/// another task set's. A resume may add tasks (a larger `--limit`), as the
/// tasks answered stay answered.
pub fn check_same_tasks(run_dir: &Path, now: &TaskSetRecord, tasks: &[Task]) -> anyhow::Result<()> {
    let tasks_path = run_dir.join("tasks.jsonl");
    if !tasks_path.exists() {
        return Ok(());
    }
    let before = read_records::<Task>(&tasks_path, false)?.0;
    let asked: HashMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut lost = before
        .iter()
        .filter(|t| asked.get(t.id.as_str()) != Some(t));
    let Some(first) = lost.next() else {
        return Ok(());
    };
    let lost = 1 + lost.count();
    let source = TaskSetRecord::recorded_source(run_dir)?
        .unwrap_or_else(|| format!("the tasks of {}", tasks_path.display()));
    let how = match asked.get(first.id.as_str()) {
        Some(_) => "changes",
        None => "lacks",
    };
    bail!(
        "--resume: {} was run on {source} ({} task(s)), this session asks {} ({} task(s)), which \
         {how} {lost} of the run's tasks (the first: {:?}); a resumed run must ask every task it \
         ran, unchanged (the same --tasks or --dataset and selection; it may add tasks), or use a \
         new --run-dir",
        run_dir.display(),
        before.len(),
        now.source,
        now.tasks,
        first.id
    );
}

/// The settings that shape a model's requests, each as its name and its
/// value written for a message.
fn request_settings(m: &ModelConfig) -> Vec<(&'static str, String)> {
    vec![
        ("backend", m.backend.as_str().to_string()),
        ("base_url", m.effective_base_url()),
        ("model_id", json(&m.model_id)),
        ("mode", m.mode.to_string()),
        ("prompt_style", m.prompt_style.as_str().to_string()),
        ("system_prompt", json(&m.system_prompt)),
        ("system_prompt_sha256", json(&m.system_prompt_sha256)),
        ("temperature", json(&m.temperature)),
        ("max_tokens", m.max_tokens.to_string()),
        ("extra_body", json(&m.extra_body)),
    ]
}

/// A value written as JSON (`null` for none), for messages.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The first request-shaping setting in which `now` differs from `recorded`:
/// its name, the recorded value and the new one.
pub fn changed_setting(
    recorded: &ModelConfig,
    now: &ModelConfig,
) -> Option<(&'static str, String, String)> {
    request_settings(recorded)
        .into_iter()
        .zip(request_settings(now))
        // Runs recorded before the template's hash was kept compare by path.
        .filter(|((name, _), _)| {
            *name != "system_prompt_sha256" || recorded.system_prompt_sha256.is_some()
        })
        .find(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| (name, a, b))
}

/// The models `models.json` in `run_dir` records; none when the file is
/// missing (a run that never started).
pub fn recorded_models(run_dir: &Path) -> anyhow::Result<Vec<ModelConfig>> {
    let path = run_dir.join("models.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{}: not a list of model configurations", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Refuses a resumed run whose models would send other requests than the
/// recorded ones of the same name. New models may join.
pub fn check_same_requests(recorded: &[ModelConfig], now: &[ModelConfig]) -> anyhow::Result<()> {
    for model in now {
        let Some(before) = recorded.iter().find(|r| r.name == model.name) else {
            continue;
        };
        if let Some((field, was, is)) = changed_setting(before, model) {
            bail!(
                "--resume: model `{}` was run with {field} {was}, now {is}; a resumed run must \
                 send the same requests (keep the setting, or start a new --run-dir)",
                model.name
            );
        }
    }
    Ok(())
}

/// The models to record after a resumed run: the recorded ones in their
/// order (replaced by the new settings where the name is the same), then the
/// new ones, so `models.json` keeps describing every model whose
/// predictions the run directory holds.
pub fn merged(recorded: Vec<ModelConfig>, now: &[&ModelConfig]) -> Vec<ModelConfig> {
    let mut all: Vec<ModelConfig> = recorded
        .into_iter()
        .map(|r| match now.iter().find(|m| m.name == r.name) {
            Some(m) => (*m).clone(),
            None => r,
        })
        .collect();
    for m in now {
        if !all.iter().any(|r| r.name == m.name) {
            all.push((*m).clone());
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::config::{Backend, Mode};

    fn model(name: &str) -> ModelConfig {
        let mut m = ModelConfig::new(name, Backend::Openai);
        m.base_url = Some("http://127.0.0.1:8080/v1".into());
        m.model_id = Some("x".into());
        m
    }

    #[test]
    fn request_settings_may_not_change() {
        let before = model("m");
        let mut after = before.clone();
        after.max_tokens = 64;
        let err = check_same_requests(std::slice::from_ref(&before), &[after])
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_tokens 1024, now 64"), "{err}");
        for change in [
            |m: &mut ModelConfig| m.mode = Mode::Native,
            |m: &mut ModelConfig| m.temperature = Some(0.7),
            |m: &mut ModelConfig| m.model_id = Some("y".into()),
            |m: &mut ModelConfig| m.base_url = Some("http://127.0.0.1:9/v1".into()),
            |m: &mut ModelConfig| m.system_prompt = Some("mine.jinja".into()),
        ] {
            let mut after = before.clone();
            change(&mut after);
            assert!(check_same_requests(std::slice::from_ref(&before), &[after]).is_err());
        }
    }

    #[test]
    fn an_edited_system_prompt_is_refused_under_the_same_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.jinja");
        let loaded = |text: &str| {
            std::fs::write(&path, text).unwrap();
            let mut m = model("m");
            m.system_prompt = Some(path.clone());
            m.load_system_prompt().unwrap();
            m
        };
        let before = loaded("Answer with calls.");
        let same = loaded("Answer with calls.");
        check_same_requests(std::slice::from_ref(&before), &[same]).unwrap();
        let edited = loaded("Answer in prose.");
        let err = check_same_requests(std::slice::from_ref(&before), std::slice::from_ref(&edited))
            .unwrap_err()
            .to_string();
        assert!(err.contains("system_prompt_sha256"), "{err}");
        // A run recorded before the hash was kept is compared by path only.
        let mut old = before.clone();
        old.system_prompt_sha256 = None;
        let old: ModelConfig = serde_json::from_str(&serde_json::to_string(&old).unwrap()).unwrap();
        check_same_requests(&[old], &[edited]).unwrap();
    }

    #[test]
    fn pacing_may_change_and_new_models_may_join() {
        let before = model("m");
        let mut after = before.clone();
        after.concurrency = Some(9);
        after.requests_per_minute = Some(5);
        after.timeout_ms = Some(1);
        after.max_attempts = Some(1);
        after.price_input_per_mtok = Some(1.0);
        check_same_requests(std::slice::from_ref(&before), &[after.clone(), model("n")]).unwrap();
        let all = merged(vec![before, model("old")], &[&after, &model("n")]);
        let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["m", "old", "n"]);
        assert_eq!(all[0].concurrency, Some(9));
    }
}
