//! The cassette (SPEC §7): every executed or simulated exchange of a run,
//! kept as JSON Lines so that the run can be replayed exactly, offline.
//!
//! One line per exchange: the request (`method`, `url`, `arguments`), the
//! status, the content type, the body (cut at the size limit, `truncated`
//! then set). An exchange is found by the canonical JSON of its request
//! (keys sorted, no white space); a later line for the same request wins.
//! Credentials are never part of a request as stored.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::models::cache::canonical_json;

/// What a run does with its cassette.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CassetteMode {
    /// Calls every endpoint and records each exchange (replacing older ones).
    Record,
    /// Answers only from the cassette: an exchange it lacks becomes a tool
    /// error, never a request.
    Replay,
    /// Answers from the cassette what it holds, calls and records the rest.
    #[default]
    RecordMissing,
}

impl CassetteMode {
    /// The flag's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CassetteMode::Record => "record",
            CassetteMode::Replay => "replay",
            CassetteMode::RecordMissing => "record-missing",
        }
    }
}

/// A request as the cassette keys it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteRequest {
    /// HTTP method, or `SIMULATE` for a simulated tool.
    pub method: String,
    /// The endpoint (path placeholders filled, no credentials), or
    /// `tool:NAME` for a simulated tool.
    pub url: String,
    /// The call's arguments.
    pub arguments: Value,
}

impl CassetteRequest {
    /// The canonical JSON the cassette looks requests up by.
    pub fn key(&self) -> String {
        canonical_json(&serde_json::json!({
            "method": self.method, "url": self.url, "arguments": self.arguments,
        }))
    }
}

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    /// The request.
    pub request: CassetteRequest,
    /// HTTP status of the answer.
    pub status: u16,
    /// Its `content-type`, when it had one.
    #[serde(default)]
    pub content_type: Option<String>,
    /// The body, as text (invalid UTF-8 replaced).
    pub body: String,
    /// Whether the body was cut at the size limit.
    #[serde(default)]
    pub truncated: bool,
}

/// A cassette open for a run.
#[derive(Debug)]
pub struct Cassette {
    path: PathBuf,
    mode: CassetteMode,
    entries: Mutex<HashMap<String, Recorded>>,
    file: Mutex<Option<File>>,
}

impl Cassette {
    /// Opens (in `Replay` mode: reads; else also creates) the cassette at
    /// `path`. A bad line is an error naming the file and line; a torn last
    /// line (an interrupted write) is dropped.
    pub fn open(path: &Path, mode: CassetteMode) -> anyhow::Result<Cassette> {
        let entries = match std::fs::read(path) {
            Ok(bytes) => read_entries(path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && mode != CassetteMode::Replay => {
                HashMap::new()
            }
            Err(e) => {
                return Err(e).with_context(|| format!("reading the cassette {}", path.display()));
            }
        };
        let file = if mode == CassetteMode::Replay {
            None
        } else {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening the cassette {}", path.display()))?;
            // A torn last line (an interrupted write) is cut off, so that
            // new lines start on a line of their own.
            let bytes = std::fs::read(path).unwrap_or_default();
            if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                file.set_len(whole as u64)
                    .with_context(|| format!("repairing the cassette {}", path.display()))?;
            }
            Some(file)
        };
        Ok(Cassette {
            path: path.to_path_buf(),
            mode,
            entries: Mutex::new(entries),
            file: Mutex::new(file),
        })
    }

    /// The cassette's mode.
    pub fn mode(&self) -> CassetteMode {
        self.mode
    }

    /// The cassette's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Exchanges held.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }

    /// Whether it holds no exchange.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The recorded answer to a request, unless this run records afresh.
    pub fn lookup(&self, request: &CassetteRequest) -> Option<Recorded> {
        if self.mode == CassetteMode::Record {
            return None;
        }
        self.entries.lock().ok()?.get(&request.key()).cloned()
    }

    /// Whether a request missing from the cassette may be sent.
    pub fn may_call(&self) -> bool {
        self.mode != CassetteMode::Replay
    }

    /// Appends an exchange (one line, flushed) and keeps it for lookups.
    pub fn record(&self, exchange: &Recorded) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(exchange)?;
        line.push('\n');
        if let Ok(mut file) = self.file.lock()
            && let Some(file) = file.as_mut()
        {
            file.write_all(line.as_bytes())
                .with_context(|| format!("writing the cassette {}", self.path.display()))?;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(exchange.request.key(), exchange.clone());
        }
        Ok(())
    }
}

/// The exchanges of a cassette file, later lines replacing earlier ones.
fn read_entries(path: &Path, bytes: &[u8]) -> anyhow::Result<HashMap<String, Recorded>> {
    let mut entries = HashMap::new();
    let text = String::from_utf8_lossy(bytes);
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Recorded>(line) {
            Ok(exchange) => {
                entries.insert(exchange.request.key(), exchange);
            }
            Err(_) if i + 1 == lines.len() && !complete => {} // torn by an interrupted write
            Err(e) => anyhow::bail!("{}:{}: not a cassette exchange: {e}", path.display(), i + 1),
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exchange(url: &str, body: &str) -> Recorded {
        Recorded {
            request: CassetteRequest {
                method: "GET".into(),
                url: url.into(),
                arguments: json!({"b": 2, "a": 1}),
            },
            status: 200,
            content_type: Some("application/json".into()),
            body: body.into(),
            truncated: false,
        }
    }

    #[test]
    fn keys_ignore_argument_order() {
        let a = exchange("http://h/x", "{}").request;
        let mut b = a.clone();
        b.arguments = json!({"a": 1, "b": 2});
        assert_eq!(a.key(), b.key());
        assert_eq!(
            a.key(),
            r#"{"arguments":{"a":1,"b":2},"method":"GET","url":"http://h/x"}"#
        );
    }

    #[test]
    fn records_replays_and_later_lines_win() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let first = exchange("http://h/x", "1");
        {
            let c = Cassette::open(&path, CassetteMode::RecordMissing).unwrap();
            assert!(c.lookup(&first.request).is_none());
            c.record(&first).unwrap();
            c.record(&exchange("http://h/x", "2")).unwrap();
            assert_eq!(c.lookup(&first.request).unwrap().body, "2");
        }
        let replay = Cassette::open(&path, CassetteMode::Replay).unwrap();
        assert_eq!((replay.len(), replay.may_call()), (1, false));
        assert_eq!(replay.lookup(&first.request).unwrap().body, "2");
        // Record mode calls afresh even when the cassette knows the answer.
        let record = Cassette::open(&path, CassetteMode::Record).unwrap();
        assert!(record.lookup(&first.request).is_none());
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let whole = serde_json::to_string(&exchange("http://h/x", "1")).unwrap();
        std::fs::write(&path, format!("{whole}\n{}", &whole[..20])).unwrap();
        let c = Cassette::open(&path, CassetteMode::RecordMissing).unwrap();
        assert_eq!(c.len(), 1);
        c.record(&exchange("http://h/y", "2")).unwrap();
        drop(c);
        let again = Cassette::open(&path, CassetteMode::Replay).unwrap();
        assert_eq!(again.len(), 2, "the torn line is cut, the new one whole");
        std::fs::write(&path, format!("{{\"x\":1}}\n{whole}\n")).unwrap();
        let error = Cassette::open(&path, CassetteMode::Replay)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("c.jsonl:1: not a cassette exchange"),
            "{error}"
        );
    }

    #[test]
    fn replay_of_a_missing_cassette_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = Cassette::open(&dir.path().join("none.jsonl"), CassetteMode::Replay)
            .unwrap_err()
            .to_string();
        assert!(error.contains("reading the cassette"), "{error}");
    }
}
