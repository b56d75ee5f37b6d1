//! Judged task success in a report (SPEC §8): the figures `itc judge`
//! wrote into each input's `judged/*/judged.json`, beside §3's scores and
//! never mixed into them, each with its judge's model id, its samples (runs,
//! rounds) and its spread; and, for the task browser, every judge's labels
//! and reasons of a task (`judgments.jsonl`).
//!
//! A folder that cannot be read is named in a note and left out; the §3
//! report does not depend on it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::spec::jsonl::for_each_line;
use crate::util::table::{Table, num};

/// Characters of one judge reason shown in the task browser.
const REASON_CHARS: usize = 300;

/// One judge's figure for one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgedFigure {
    /// The model, as named in the report.
    pub model: String,
    /// `pass-rate`, `sopr`, `win-rate` or `toolalpaca`.
    pub metric: String,
    /// The judge's name and model id.
    pub judge: String,
    /// The figure, in percent (pass rate, SoPR, win rate, ToolAlpaca's Overall).
    pub value: f64,
    /// Its spread: SoPR's standard deviation over runs.
    pub spread: Option<f64>,
    /// What else it rests on: samples, runs or rounds, the reference, the parts.
    pub detail: String,
    /// Tasks judged.
    pub tasks: u64,
    /// The folder it was read from.
    pub folder: String,
}

impl JudgedFigure {
    /// The figure as a short text: `SoPR 45.0 ± 2.1`.
    pub fn text(&self) -> String {
        let name = match self.metric.as_str() {
            "pass-rate" => "pass rate",
            "sopr" => "SoPR",
            "win-rate" => "win rate",
            "toolalpaca" => "ToolAlpaca overall",
            other => other,
        };
        match self.spread {
            Some(s) => format!("{name} {:.1} ± {s:.1}", self.value),
            None => format!("{name} {:.1}", self.value),
        }
    }
}

/// The judged folders of a run directory, sorted.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir.join("judged")) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("judged.json").is_file())
        .collect();
    found.sort();
    found
}

/// Every judged figure of the inputs' folders; `rename` gives each input's
/// model names in the report. Folders that cannot be read go to `notes`.
pub fn figures(
    dirs: &[&Path],
    rename: &[HashMap<String, String>],
    notes: &mut Vec<String>,
) -> Vec<JudgedFigure> {
    let mut all = Vec::new();
    for (dir, rename) in dirs.iter().zip(rename) {
        for folder in folders(dir) {
            let path = folder.join("judged.json");
            let read = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
            match read {
                Ok(judged) => all.extend(read_figures(&judged, rename, &folder)),
                Err(e) => notes.push(format!(
                    "note: {} left out of the judged figures: {e}",
                    path.display()
                )),
            }
        }
    }
    all
}

/// The figures of one `judged.json`.
fn read_figures(
    judged: &Value,
    rename: &HashMap<String, String>,
    folder: &Path,
) -> Vec<JudgedFigure> {
    let settings = &judged["settings"];
    let metric = settings["metric"].as_str().unwrap_or_default().to_string();
    let count = |key: &str| settings[key].as_u64().unwrap_or(0);
    let models = judged["models"].as_array().cloned().unwrap_or_default();
    let mut figures = Vec::with_capacity(models.len());
    for m in &models {
        let name = m["model"].as_str().unwrap_or_default();
        let (value, spread, detail) = match metric.as_str() {
            "pass-rate" => (
                m["pass_rate"]["pass_rate"].as_f64(),
                None,
                format!(
                    "{} samples, seed {}; {}/{} passed",
                    count("samples"),
                    count("seed"),
                    m["pass_rate"]["passed"],
                    m["pass_rate"]["tasks"]
                ),
            ),
            "sopr" => (
                m["sopr"]["sopr"].as_f64(),
                m["sopr"]["sopr_std"].as_f64(),
                format!("{} runs", count("runs")),
            ),
            "win-rate" => (
                m["win_rate"]["sowr"].as_f64(),
                None,
                format!(
                    "{} rounds, seed {}; {} wins, {} ties",
                    count("rounds"),
                    count("seed"),
                    m["win_rate"]["wins"],
                    m["win_rate"]["ties"]
                ),
            ),
            "toolalpaca" => (
                m["toolalpaca"]["overall"].as_f64(),
                None,
                format!(
                    "procedure {}, response {}",
                    m["toolalpaca"]["procedure"]
                        .as_f64()
                        .map_or("–".into(), num),
                    m["toolalpaca"]["response"].as_f64().map_or("–".into(), num)
                ),
            ),
            _ => (None, None, String::new()),
        };
        let Some(value) = value else { continue };
        figures.push(JudgedFigure {
            model: rename
                .get(name)
                .cloned()
                .unwrap_or_else(|| name.to_string()),
            metric: metric.clone(),
            judge: format!(
                "{} ({})",
                m["judge"].as_str().unwrap_or_default(),
                m["judge_model"].as_str().unwrap_or_default()
            ),
            value,
            spread,
            detail,
            tasks: m["tasks"].as_u64().unwrap_or(0),
            folder: folder.display().to_string(),
        });
    }
    figures
}

/// The columns of the judged figures' table: four of text, then numbers.
pub const HEADER: [&str; 7] = [
    "Model", "Metric", "Judge", "Rests on", "%", "± std", "Tasks",
];

/// The rows of the judged figures' table, unescaped, as [`HEADER`].
pub fn rows(figures: &[JudgedFigure]) -> Vec<Vec<String>> {
    figures
        .iter()
        .map(|f| {
            vec![
                f.model.clone(),
                f.metric.clone(),
                f.judge.clone(),
                f.detail.clone(),
                num(f.value),
                f.spread.map_or("–".to_string(), num),
                f.tasks.to_string(),
            ]
        })
        .collect()
}

/// The terminal table of the judged figures.
pub fn table(figures: &[JudgedFigure], wide: bool) -> String {
    let mut t = Table::new(HEADER).with_labels(4);
    for row in rows(figures) {
        t.push(row);
    }
    t.render(wide)
}

/// Each shown task's judge labels and reasons, by (input, model as the
/// input names it, task id): one line per judge request.
pub type Reasons = HashMap<(usize, String, String), Vec<String>>;

/// The labels and reasons of the judged folders of the inputs, for the
/// tasks in `shown` only.
pub fn reasons(dirs: &[&Path], shown: &HashSet<&str>) -> Reasons {
    let mut reasons: Reasons = HashMap::new();
    for (index, dir) in dirs.iter().enumerate() {
        for folder in folders(dir) {
            let metric = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // The browser is a view: a line it cannot read is left out.
            let _ = for_each_line(&folder.join("judgments.jsonl"), |_, line| {
                // Read as plain JSON: the report reads `itc judge`'s files,
                // it does not depend on its code.
                let Ok(j) = serde_json::from_str::<Value>(line) else {
                    return Ok(());
                };
                let field = |name: &str| j[name].as_str().unwrap_or_default().to_string();
                let task_id = field("task_id");
                if !shown.contains(task_id.as_str()) {
                    return Ok(());
                }
                let label = j["label"].as_str().unwrap_or("unreadable");
                let full = field("reason");
                let reason: String = full.chars().take(REASON_CHARS).collect();
                let more = if reason.len() < full.len() { "…" } else { "" };
                reasons
                    .entry((index, field("model"), task_id))
                    .or_default()
                    .push(format!(
                        "{metric} #{} {} by {}: {label} — {reason}{more}",
                        j["sample"],
                        field("stage"),
                        field("judge")
                    ));
                Ok(())
            });
        }
    }
    reasons
}
