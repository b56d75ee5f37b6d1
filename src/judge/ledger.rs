//! The files of a judged folder: the settings every session must share
//! (`settings.json`) and `judgments.jsonl`, one line per judge request,
//! appended as each completes. A session reuses every recorded line and
//! asks only what is missing; a torn last line (a kill mid-write) is cut
//! off and asked again.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::labels::{Label, Stage};

/// The settings file of a judged folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// The judgments file of a judged folder.
pub const JUDGMENTS_FILE: &str = "judgments.jsonl";

/// Which answer of a win-rate comparison a request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The run being judged.
    Candidate,
    /// The reference run.
    Reference,
}

/// One judge request and its answer: a line of `judgments.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    /// The task.
    pub task_id: String,
    /// The candidate model (the run's model being judged).
    pub model: String,
    /// Win rate: whose answer a status request is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// The sample (pass rate), run (SoPR) or round (win rate), from 1.
    pub sample: u32,
    /// The kind of request.
    pub stage: Stage,
    /// The judge's name in the configuration.
    pub judge: String,
    /// The judge's model id.
    pub judge_model: String,
    /// Which ask of this request it was (1, then 2… after unreadable replies).
    pub ask: u32,
    /// SHA-256 of the request's messages and schema.
    pub prompt_sha256: String,
    /// The label read; `None`: unreadable. ToolAlpaca: the process label.
    pub label: Option<Label>,
    /// ToolAlpaca: the final response label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_label: Option<Label>,
    /// The judge's reason (ToolAlpaca: its whole text).
    pub reason: String,
    /// The seeded coin flip that settled the sample, where one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coin: Option<bool>,
    /// Prompt tokens reported.
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
    /// Cost at the judge's configured prices (USD); 0 when the cache answered.
    pub cost_usd: f64,
    /// Whether the response cache answered.
    pub cache_hit: bool,
}

impl Judgment {
    /// The key a session looks a request up by.
    pub fn key(&self) -> String {
        request_key(
            &self.judge,
            self.stage,
            &self.task_id,
            &self.model,
            self.side,
            self.sample,
            &self.prompt_sha256,
        )
    }
}

/// The lookup key of one request.
pub fn request_key(
    judge: &str,
    stage: Stage,
    task: &str,
    model: &str,
    side: Option<Side>,
    sample: u32,
    prompt: &str,
) -> String {
    format!(
        "{judge}\u{1f}{}\u{1f}{task}\u{1f}{model}\u{1f}{side:?}\u{1f}{sample}\u{1f}{prompt}",
        stage.as_str()
    )
}

/// `judgments.jsonl`, read and open for appending.
pub struct Ledger {
    path: PathBuf,
    recorded: HashMap<String, Judgment>,
    file: Mutex<File>,
    /// Bytes of a torn last line cut off when opened.
    pub torn_bytes: u64,
    /// Lines that did not read as judgments (dropped).
    pub bad_lines: usize,
}

impl Ledger {
    /// Opens (or creates) the judgments file of `dir`, cutting a torn last line.
    pub fn open(dir: &Path) -> anyhow::Result<Ledger> {
        let path = dir.join(JUDGMENTS_FILE);
        let reading = || format!("reading {}", path.display());
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(reading),
        };
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let torn_bytes = (bytes.len() - complete) as u64;
        let (mut recorded, mut bad_lines) = (HashMap::new(), 0);
        for line in bytes[..complete].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Judgment>(line) {
                Ok(j) => {
                    recorded.insert(j.key(), j);
                }
                Err(_) => bad_lines += 1,
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        if torn_bytes > 0 {
            file.set_len(complete as u64)
                .with_context(|| format!("cutting the torn last line of {}", path.display()))?;
        }
        Ok(Ledger {
            path,
            recorded,
            file: Mutex::new(file),
            torn_bytes,
            bad_lines,
        })
    }

    /// The recorded answer to a request.
    pub fn find(&self, key: &str) -> Option<&Judgment> {
        self.recorded.get(key)
    }

    /// Lines recorded before this session.
    pub fn recorded(&self) -> usize {
        self.recorded.len()
    }

    /// Appends one line (whole, then flushed).
    pub fn append(&self, judgment: &Judgment) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(judgment)?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// Every judgment of a folder's file (after a session: for the figures).
pub fn read_all(dir: &Path) -> anyhow::Result<Vec<Judgment>> {
    let path = dir.join(JUDGMENTS_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// A judge's request settings, as kept in the settings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeSettings {
    /// The name in the configuration.
    pub name: String,
    /// The model id asked.
    pub model_id: String,
    /// The backend.
    pub backend: String,
    /// The base URL, when set.
    pub base_url: Option<String>,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// The most tokens of a reply.
    pub max_tokens: u32,
}

/// What every session writing one judged folder must share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The metric.
    pub metric: super::Metric,
    /// The judges, in order.
    pub judges: Vec<JudgeSettings>,
    /// Pass-rate samples.
    pub samples: u32,
    /// SoPR runs.
    pub runs: u32,
    /// Win-rate rounds.
    pub rounds: u32,
    /// The coin-flip seed.
    pub seed: u64,
    /// The reference run (win rate).
    pub reference: Option<String>,
    /// SHA-256 of each prompt template.
    pub prompt_sha256: BTreeMap<String, String>,
}

/// Writes the settings of `dir`, or checks them against those recorded: a
/// difference is refused, naming the first setting that differs. Returns
/// whether the folder already held judgments.
pub fn claim_settings(dir: &Path, settings: &Settings, resume: bool) -> anyhow::Result<bool> {
    let path = dir.join(SETTINGS_FILE);
    let held = dir
        .join(JUDGMENTS_FILE)
        .metadata()
        .is_ok_and(|m| m.len() > 0);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let earlier: Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not valid JSON", path.display()))?;
            let now = serde_json::to_value(settings)?;
            if let Some(field) = first_difference(&earlier, &now) {
                bail!(
                    "{}: field `{field}`: this folder was judged with {}, this session asks {}; mixing judges or settings in one folder is forbidden: give another -o",
                    path.display(),
                    earlier.get(&field).unwrap_or(&Value::Null),
                    now.get(&field).unwrap_or(&Value::Null)
                );
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    if held && !resume {
        bail!(
            "{} holds the judgments of an earlier session: give --resume to continue it, or another -o",
            dir.display()
        );
    }
    let text = serde_json::to_string_pretty(settings)? + "\n";
    crate::util::atomic::write(&path, text.as_bytes())?;
    Ok(held)
}

/// The first top-level field whose values differ.
fn first_difference(a: &Value, b: &Value) -> Option<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Some("(the whole file)".into());
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.dedup();
    keys.into_iter()
        .find(|k| a.get(*k) != b.get(*k))
        .map(|k| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judgment(task: &str) -> Judgment {
        Judgment {
            task_id: task.into(),
            model: "m".into(),
            side: None,
            sample: 1,
            stage: Stage::AnswerStatus,
            judge: "j".into(),
            judge_model: "j".into(),
            ask: 1,
            prompt_sha256: "ab".into(),
            label: Some(Label::Solved),
            response_label: None,
            reason: String::new(),
            coin: None,
            prompt_tokens: 1,
            completion_tokens: 1,
            cost_usd: 0.0,
            cache_hit: false,
        }
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path()).unwrap();
        ledger.append(&judgment("t1")).unwrap();
        ledger.append(&judgment("t2")).unwrap();
        drop(ledger);
        let path = dir.path().join(JUDGMENTS_FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.truncate(text.len() - 10);
        std::fs::write(&path, &text).unwrap();
        let ledger = Ledger::open(dir.path()).unwrap();
        assert_eq!(ledger.recorded(), 1);
        assert!(ledger.torn_bytes > 0);
        assert!(ledger.find(&judgment("t1").key()).is_some());
        ledger.append(&judgment("t2")).unwrap();
        assert_eq!(read_all(dir.path()).unwrap().len(), 2);
    }
}
