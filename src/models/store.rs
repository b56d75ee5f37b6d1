//! The run's `predictions.jsonl`: appended one flushed line per finished
//! task, repaired and compacted on resume.
//!
//! On resume, a torn last line (a crash mid-write) is cut off, lines that
//! do not parse are dropped, and errored predictions are removed so their
//! tasks run again; the file then holds at most one finished prediction per
//! (model, task), and new lines are appended after them.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::spec::records::Prediction;

/// What an existing predictions file held when a run resumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resumed {
    /// Finished predictions kept (first per model and task), in file order.
    pub kept: Vec<Prediction>,
    /// Errored predictions removed (their tasks run again).
    pub errored: usize,
    /// Repeated predictions for a (model, task) already kept, removed.
    pub duplicates: usize,
    /// Lines that did not parse, removed.
    pub invalid: usize,
    /// Bytes of a torn last line cut off.
    pub torn_bytes: usize,
}

impl Resumed {
    /// `(model, task id)` pairs already finished.
    pub fn finished(&self) -> HashSet<(String, String)> {
        self.kept
            .iter()
            .map(|p| (p.model.clone(), p.task_id.clone()))
            .collect()
    }
}

/// An open predictions file, appending.
#[derive(Debug)]
pub struct PredictionStore {
    path: PathBuf,
    file: File,
}

impl PredictionStore {
    /// Starts a new file; an existing non-empty one is an error unless
    /// `resume`, in which case it is repaired and compacted (see the module
    /// docs) and its finished predictions returned.
    pub fn open(path: &Path, resume: bool) -> anyhow::Result<(PredictionStore, Resumed)> {
        let existing = match std::fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut resumed = Resumed::default();
        if let Some(bytes) = existing.filter(|b| holds_records(b)) {
            if !resume {
                bail!(refusal(path));
            }
            resumed = compact(path, &bytes)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok((
            PredictionStore {
                path: path.to_path_buf(),
                file,
            },
            resumed,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one prediction as one line, written and flushed at once.
    pub fn append(&mut self, prediction: &Prediction) -> anyhow::Result<()> {
        self.append_all([prediction])
    }

    /// Appends several predictions with one write: each line is complete
    /// before the next starts, so a kill can at worst tear the last line,
    /// which resuming repairs.
    pub fn append_all<'a>(
        &mut self,
        predictions: impl IntoIterator<Item = &'a Prediction>,
    ) -> anyhow::Result<()> {
        let mut lines = Vec::with_capacity(1024);
        for prediction in predictions {
            serde_json::to_writer(&mut lines, prediction)?;
            lines.push(b'\n');
        }
        self.file
            .write_all(&lines)
            .and_then(|()| self.file.flush())
            .with_context(|| format!("appending to {}", self.path.display()))
    }
}

fn holds_records(bytes: &[u8]) -> bool {
    !bytes.iter().all(u8::is_ascii_whitespace)
}

fn refusal(path: &Path) -> String {
    format!(
        "{} already holds predictions: pass --resume to continue that run, or choose another --run-dir",
        path.display()
    )
}

/// Fails, before anything is written, when a new run would start over an
/// existing predictions file.
pub fn check_start(path: &Path, resume: bool) -> anyhow::Result<()> {
    if !resume && std::fs::read(path).is_ok_and(|b| holds_records(&b)) {
        bail!(refusal(path));
    }
    Ok(())
}

/// Reads the existing lines and rewrites the file with the finished,
/// first-per-task predictions only (atomically: temporary file, rename).
fn compact(path: &Path, bytes: &[u8]) -> anyhow::Result<Resumed> {
    let mut resumed = Resumed::default();
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => &bytes[..=last],
        None => &bytes[..0],
    };
    resumed.torn_bytes = bytes.len() - complete.len();
    let mut seen = HashSet::new();
    for line in complete.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(prediction) = serde_json::from_slice::<Prediction>(line) else {
            resumed.invalid += 1;
            continue;
        };
        if prediction.error.is_some() {
            resumed.errored += 1;
        } else if !seen.insert((prediction.model.clone(), prediction.task_id.clone())) {
            resumed.duplicates += 1;
        } else {
            resumed.kept.push(prediction);
        }
    }
    let dropped = resumed.errored + resumed.duplicates + resumed.invalid;
    if dropped > 0 || resumed.torn_bytes > 0 {
        let tmp = path.with_extension("jsonl.tmp");
        let mut out = io::BufWriter::new(
            File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?,
        );
        for p in &resumed.kept {
            serde_json::to_writer(&mut out, p)?;
            out.write_all(b"\n")?;
        }
        out.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    }
    Ok(resumed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prediction(task: &str, error: Option<&str>) -> Prediction {
        Prediction {
            task_id: task.into(),
            model: "m".into(),
            output: error.is_none().then(|| "{}".to_string()),
            calls: None,
            error: error.map(str::to_string),
            reasoning: None,
            latency_ms: Some(5),
            usage: None,
            steps: None,
            error_kind: error.map(|_| "server".to_string()),
            attempts: Some(1),
        }
    }

    fn line(p: &Prediction) -> String {
        serde_json::to_string(p).unwrap() + "\n"
    }

    #[test]
    fn fresh_runs_refuse_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let (mut store, resumed) = PredictionStore::open(&path, false).unwrap();
        assert_eq!(resumed, Resumed::default());
        store.append(&prediction("a", None)).unwrap();
        drop(store);
        let err = PredictionStore::open(&path, false).unwrap_err().to_string();
        assert!(err.contains("--resume"), "{err}");
        assert!(check_start(&path, false).is_err());
        assert!(check_start(&path, true).is_ok());
        assert!(check_start(&dir.path().join("none.jsonl"), false).is_ok());
    }

    #[test]
    fn resume_repairs_torn_lines_and_drops_errors_and_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let full = line(&prediction("c", None));
        let torn = &full[..full.len() / 2];
        let text = [
            line(&prediction("a", None)),
            line(&prediction("b", Some("HTTP 500"))),
            "not json\n".to_string(),
            line(&prediction("a", None)),
            torn.to_string(),
        ]
        .concat();
        std::fs::write(&path, &text).unwrap();
        let (mut store, resumed) = PredictionStore::open(&path, true).unwrap();
        assert_eq!(resumed.kept, vec![prediction("a", None)]);
        assert_eq!(
            (
                resumed.errored,
                resumed.duplicates,
                resumed.invalid,
                resumed.torn_bytes
            ),
            (1, 1, 1, torn.len())
        );
        assert!(
            resumed
                .finished()
                .contains(&("m".to_string(), "a".to_string()))
        );
        store.append(&prediction("b", None)).unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            after,
            line(&prediction("a", None)) + &line(&prediction("b", None))
        );
    }

    #[test]
    fn a_clean_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let text = line(&prediction("a", None)) + &line(&prediction("b", None));
        std::fs::write(&path, &text).unwrap();
        let (_, resumed) = PredictionStore::open(&path, true).unwrap();
        assert_eq!(resumed.kept.len(), 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
