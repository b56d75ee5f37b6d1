//! The run's `predictions.jsonl`: appended one flushed line per finished
//! task, repaired and compacted on resume.
//!
//! On resume, a torn last line (a crash mid-write) is cut off, lines that
//! do not parse are dropped, and errored predictions are removed so their
//! tasks run again; the file then holds at most one finished prediction per
//! (model, task), and new lines are appended after them.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::spec::records::{Prediction, Usage};
use crate::util::atomic::AtomicFile;
use crate::util::lines::{LineRead, MAX_LINE_BYTES, complete_len, read_line_capped, skip_line};

/// What an existing predictions file held when a run resumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resumed {
    /// Finished predictions kept (first per model and task), in file order,
    /// without their answers (which stay in the file).
    pub kept: Vec<KeptPrediction>,
    /// Errored predictions removed (their tasks run again).
    pub errored: usize,
    /// Repeated predictions for a (model, task) already kept, removed.
    pub duplicates: usize,
    /// Lines that did not parse, removed.
    pub invalid: usize,
    /// Bytes of a torn last line cut off.
    pub torn_bytes: usize,
}

/// A finished prediction kept on resume: who answered what, and the
/// figures a run reports of it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptPrediction {
    /// Model name.
    pub model: String,
    /// Task id.
    pub task_id: String,
    /// Its latency.
    pub latency_ms: Option<u64>,
    /// Its tokens.
    pub usage: Option<Usage>,
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
        let mut resumed = Resumed::default();
        if holds_records(path)? {
            if !resume {
                bail!(refusal(path));
            }
            resumed = compact(path)?;
        }
        let file =
            crate::util::regular::open_own(path, OpenOptions::new().create(true).append(true))
                .map_err(|e| match e.kind() {
                    io::ErrorKind::InvalidInput => anyhow::anyhow!(not_regular(path)),
                    _ => anyhow::Error::new(e).context(format!("opening {}", path.display())),
                })?;
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

/// Whether the file exists and holds anything but white space (read until
/// the first other byte).
fn holds_records(path: &Path) -> anyhow::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => bail!(not_regular(path)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    loop {
        let buffer = reader
            .fill_buf()
            .with_context(|| format!("reading {}", path.display()))?;
        if buffer.is_empty() {
            return Ok(false);
        }
        if !buffer.iter().all(u8::is_ascii_whitespace) {
            return Ok(true);
        }
        let n = buffer.len();
        reader.consume(n);
    }
}

/// Why a predictions file that is a link, FIFO or device is refused: a
/// run writes only a regular file of its own folder (a link could make it
/// append to a file elsewhere; a FIFO would hang it).
fn not_regular(path: &Path) -> String {
    format!(
        "{} is not a regular file (a symbolic link, FIFO, device or folder): a run writes its predictions only to a regular file in its run directory; move it away or choose another --run-dir",
        path.display()
    )
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
    if !resume && holds_records(path).unwrap_or(false) {
        bail!(refusal(path));
    }
    Ok(())
}

/// Reads the existing lines one at a time and, when any must go, rewrites
/// the file with the finished, first-per-task predictions only, copied as
/// they were (atomically: temporary file, rename). Only where each kept
/// line is stays in memory, so a run of millions of predictions resumes in
/// little memory.
fn compact(path: &Path) -> anyhow::Result<Resumed> {
    let reading = || format!("reading {}", path.display());
    let mut file = File::open(path).with_context(reading)?;
    let len = file.metadata().with_context(reading)?.len();
    let complete = complete_len(&mut file, len).with_context(reading)?;
    let mut resumed = Resumed {
        torn_bytes: usize::try_from(len - complete).unwrap_or(usize::MAX),
        ..Resumed::default()
    };
    let mut places: Vec<(u64, usize)> = Vec::new();
    let mut seen = HashSet::new();
    file.seek(SeekFrom::Start(0)).with_context(reading)?;
    let mut reader = BufReader::with_capacity(1 << 20, (&mut file).take(complete));
    let (mut line, mut offset) = (Vec::new(), 0u64);
    loop {
        let read =
            read_line_capped(&mut reader, &mut line, MAX_LINE_BYTES).with_context(reading)?;
        let start = offset;
        match read {
            LineRead::End => break,
            LineRead::TooLong => {
                // Longer than any prediction itc writes: not one.
                let rest = skip_line(&mut reader).with_context(reading)?;
                offset += line.len() as u64 + rest;
                resumed.invalid += 1;
                continue;
            }
            LineRead::Ended | LineRead::Unended => {}
        }
        let n = line.len();
        offset += n as u64;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(prediction) = serde_json::from_slice::<Prediction>(&line) else {
            resumed.invalid += 1;
            continue;
        };
        if prediction.error.is_some() {
            resumed.errored += 1;
        } else if !seen.insert((prediction.model.clone(), prediction.task_id.clone())) {
            resumed.duplicates += 1;
        } else {
            places.push((start, n));
            resumed.kept.push(KeptPrediction {
                model: prediction.model,
                task_id: prediction.task_id,
                latency_ms: prediction.latency_ms,
                usage: prediction.usage,
            });
        }
    }
    drop(reader);
    let dropped = resumed.errored + resumed.duplicates + resumed.invalid;
    if dropped > 0 || resumed.torn_bytes > 0 {
        rewrite(path, &mut file, &places)?;
    }
    Ok(resumed)
}

/// Replaces the file with the lines at `places` (offset, length with its
/// `\n`), read from `file`.
fn rewrite(path: &Path, file: &mut File, places: &[(u64, usize)]) -> anyhow::Result<()> {
    let mut out = AtomicFile::create(path)?;
    let mut bytes = Vec::new();
    for &(start, n) in places {
        bytes.resize(n, 0);
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_exact(&mut bytes))
            .with_context(|| format!("reading {}", path.display()))?;
        out.write_all(&bytes)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    out.commit()
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
            solver: None,
            error_kind: error.map(|_| "server".to_string()),
            attempts: Some(1),
            official: None,
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
        let a = prediction("a", None);
        assert_eq!(
            resumed.kept,
            vec![KeptPrediction {
                model: a.model,
                task_id: a.task_id,
                latency_ms: a.latency_ms,
                usage: a.usage,
            }]
        );
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

    #[test]
    fn resume_reads_any_bytes_and_long_torn_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("predictions.jsonl");
        let mut text: Vec<u8> = Vec::new();
        text.extend(line(&prediction("a", None)).replace('\n', "\r\n").bytes());
        text.extend(b"\xff\xfe not UTF-8\n");
        text.extend(b"  \n");
        text.extend(line(&prediction("b", None)).bytes());
        // A torn line longer than the chunks the end is searched in.
        let torn = format!(
            "{{\"task_id\": \"c\", \"output\": \"{}",
            "x".repeat(200_000)
        );
        text.extend(torn.bytes());
        std::fs::write(&path, &text).unwrap();
        let (_, resumed) = PredictionStore::open(&path, true).unwrap();
        let kept: Vec<&str> = resumed.kept.iter().map(|k| k.task_id.as_str()).collect();
        assert_eq!(kept, ["a", "b"]);
        assert_eq!((resumed.invalid, resumed.torn_bytes), (1, torn.len()));
        // The kept lines are copied as they were, CR LF included.
        let after = std::fs::read(&path).unwrap();
        let expected =
            line(&prediction("a", None)).replace('\n', "\r\n") + &line(&prediction("b", None));
        assert_eq!(after, expected.as_bytes());
        // Only white space: nothing to resume, and a fresh run may start.
        std::fs::write(&path, " \n\t\n").unwrap();
        assert!(check_start(&path, false).is_ok());
        let (_, resumed) = PredictionStore::open(&path, false).unwrap();
        assert_eq!(resumed, Resumed::default());
    }
}
