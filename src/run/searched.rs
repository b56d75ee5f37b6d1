//! What a solver's run came to (SPEC §8), per model: model requests per
//! task and how the searches ended. Read from the predictions file, so a
//! resumed run counts every task, not only this session's.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::spec::solver::{Ending, SolverRecord};
use crate::util::table::Table;

/// One model's searches.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Searched {
    /// The model.
    pub model: String,
    /// Tasks with a solver record (error predictions have none).
    pub tasks: usize,
    /// Model requests over those tasks (one a node, retries not counted).
    pub requests: u64,
    /// The most requests one task took.
    pub max_requests: u32,
    /// Tasks by how their search ended (`finish`, `gave_up`, …).
    pub endings: BTreeMap<String, usize>,
}

impl Searched {
    /// Model requests per task.
    pub fn requests_per_task(&self) -> f64 {
        if self.tasks == 0 {
            return 0.0;
        }
        self.requests as f64 / self.tasks as f64
    }
}

/// The fields of a prediction line this needs.
#[derive(Deserialize)]
struct Line {
    model: String,
    #[serde(default)]
    solver: Option<SolverRecord>,
}

/// Each model's searches in a predictions file, in `models` order.
pub fn searched(predictions: &Path, models: &[String]) -> anyhow::Result<Vec<Searched>> {
    let file = std::fs::File::open(predictions)
        .with_context(|| format!("reading {}", predictions.display()))?;
    let mut by_model: Vec<Searched> = models
        .iter()
        .map(|m| Searched {
            model: m.clone(),
            ..Searched::default()
        })
        .collect();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.with_context(|| format!("reading {}", predictions.display()))?;
        // The run wrote the file; a line it cannot read here is not this table's to judge.
        let Ok(Line {
            model,
            solver: Some(record),
        }) = serde_json::from_str::<Line>(&line)
        else {
            continue;
        };
        let Some(entry) = by_model.iter_mut().find(|s| s.model == model) else {
            continue;
        };
        entry.tasks += 1;
        entry.requests += u64::from(record.requests);
        entry.max_requests = entry.max_requests.max(record.requests);
        *entry.endings.entry(ending_name(record.ending)).or_default() += 1;
    }
    Ok(by_model)
}

fn ending_name(ending: Ending) -> String {
    serde_json::to_value(ending)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The table of the searches: requests per task and endings.
pub fn searched_table(searched: &[Searched], wide: bool) -> String {
    let endings = [
        "finish",
        "answer",
        "gave_up",
        "depth_limit",
        "request_limit",
        "error",
    ];
    let mut header = vec!["Model", "Tasks", "Requests", "Per task", "Most"];
    header.extend(endings);
    let mut table = Table::new(header).with_groups([("Searches", 4), ("Ended by", endings.len())]);
    for s in searched {
        let mut row = vec![
            s.model.clone(),
            s.tasks.to_string(),
            s.requests.to_string(),
            format!("{:.1}", s.requests_per_task()),
            s.max_requests.to_string(),
        ];
        row.extend(
            endings
                .iter()
                .map(|e| s.endings.get(*e).copied().unwrap_or(0).to_string()),
        );
        table.push(row);
    }
    table.render(wide)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_endings_are_counted_per_model_and_other_lines_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let record = |requests: u32, ending: &str| {
            serde_json::json!({"kind": "dfsdt", "tries": 1, "max_depth": 12, "max_requests": 200,
                "finish": true, "requests": requests, "path": [0], "ending": ending})
        };
        let lines = [
            serde_json::json!({"task_id": "a", "model": "m", "solver": record(3, "finish")}),
            serde_json::json!({"task_id": "b", "model": "m", "solver": record(8, "request_limit")}),
            serde_json::json!({"task_id": "c", "model": "m", "error": "timeout"}),
            serde_json::json!({"task_id": "a", "model": "n", "solver": record(1, "finish")}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text + "not json\n").unwrap();
        let got = searched(&path, &["m".into(), "n".into()]).unwrap();
        assert_eq!(
            (got[0].tasks, got[0].requests, got[0].max_requests),
            (2, 11, 8)
        );
        assert_eq!(got[0].requests_per_task(), 5.5);
        assert_eq!(got[0].endings["request_limit"], 1);
        assert_eq!((got[1].tasks, got[1].endings["finish"]), (1, 1));
        let table = searched_table(&got, true);
        assert!(
            table.contains("5.5") && table.contains("request_limit"),
            "{table}"
        );
    }
}
