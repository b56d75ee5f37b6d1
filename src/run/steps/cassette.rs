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

/// A cassette open for a run. Its exchanges stay in the file: the cassette
/// keeps only where each request's latest line is, and reads that line again
/// when the request is looked up, so memory does not grow with the bodies.
#[derive(Debug)]
pub struct Cassette {
    path: PathBuf,
    mode: CassetteMode,
    max_body_bytes: usize,
    /// SHA-256 of a request's key → its latest line's place in the file.
    places: Mutex<HashMap<[u8; 32], Place>>,
    /// The file, open for reading (and appending, unless replaying).
    file: Mutex<File>,
}

/// Where a line is in the cassette file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    offset: u64,
    len: usize,
}

impl Cassette {
    /// Opens (in `Replay` mode: reads; else also creates) the cassette at
    /// `path`, whose bodies are cut to `max_body_bytes` when they are read
    /// back. A bad line is an error naming the file and line; a last line
    /// without a line end is kept when it is a whole exchange, and cut from
    /// the file otherwise (an interrupted write). Anything that is not a
    /// regular file (a FIFO, a device, a symbolic link) is refused.
    pub fn open(
        path: &Path,
        mode: CassetteMode,
        max_body_bytes: usize,
    ) -> anyhow::Result<Cassette> {
        let exists = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_file() => true,
            Ok(_) => anyhow::bail!(
                "the cassette {} is not a regular file (a symbolic link, FIFO or device): give the path of a file",
                path.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && mode != CassetteMode::Replay => {
                false
            }
            Err(e) => {
                return Err(e).with_context(|| format!("reading the cassette {}", path.display()));
            }
        };
        if !exists && let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut options = OpenOptions::new();
        options.read(true);
        if mode != CassetteMode::Replay {
            options.append(true).create(true);
        }
        let file = crate::util::regular::open_own(path, &mut options)
            .with_context(|| format!("opening the cassette {}", path.display()))?;
        let (places, whole) = read_places(path, &file, max_body_bytes)?;
        if mode != CassetteMode::Replay {
            repair_end(path, &file, whole)?;
        }
        Ok(Cassette {
            path: path.to_path_buf(),
            mode,
            max_body_bytes,
            places: Mutex::new(places),
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
        self.places.lock().map_or(0, |e| e.len())
    }

    /// Whether it holds no exchange.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The recorded answer to a request (its body cut to the size limit),
    /// unless this run records afresh.
    pub fn lookup(&self, request: &CassetteRequest) -> Option<Recorded> {
        if self.mode == CassetteMode::Record {
            return None;
        }
        let place = *self.places.lock().ok()?.get(&key_digest(request))?;
        let mut line = vec![0; place.len];
        {
            let file = self.file.lock().ok()?;
            read_exact_at(&file, &mut line, place.offset).ok()?;
        }
        let recorded: Recorded = serde_json::from_slice(&line).ok()?;
        Some(cut_body(recorded, self.max_body_bytes))
    }

    /// Whether a request missing from the cassette may be sent.
    pub fn may_call(&self) -> bool {
        self.mode != CassetteMode::Replay
    }

    /// Appends an exchange (one line, flushed) and keeps its place for
    /// lookups.
    pub fn record(&self, exchange: &Recorded) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(exchange)?;
        let len = line.len();
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| anyhow::anyhow!("the cassette {} is poisoned", self.path.display()))?;
        let offset = file
            .metadata()
            .with_context(|| format!("reading the cassette {}", self.path.display()))?
            .len();
        file.write_all(&line)
            .with_context(|| format!("writing the cassette {}", self.path.display()))?;
        drop(file);
        if let Ok(mut places) = self.places.lock() {
            places.insert(key_digest(&exchange.request), Place { offset, len });
        }
        Ok(())
    }
}

/// The digest a request is found by.
fn key_digest(request: &CassetteRequest) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(request.key().as_bytes()).into()
}

/// `recorded` with its body cut to `max` bytes (at a character boundary),
/// `truncated` set when anything was cut.
fn cut_body(mut recorded: Recorded, max: usize) -> Recorded {
    let (kept, cut) = super::limits::cut_text(&recorded.body, max);
    if cut {
        recorded.body.truncate(kept.len());
        recorded.truncated = true;
    }
    recorded
}

/// Reads `buf.len()` bytes at `offset` without moving the file's cursor
/// (which appending does not use either).
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let mut file = file;
        file.seek(std::io::SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// The longest cassette line read: an itc cassette's lines hold bodies of
/// at most `--max-tool-bytes`, which JSON escapes can make up to six times
/// longer.
fn line_cap(max_body_bytes: usize) -> usize {
    max_body_bytes
        .saturating_mul(6)
        .saturating_add(1 << 20)
        .max(crate::util::lines::MAX_LINE_BYTES)
}

/// The places of a cassette file's exchanges, later lines replacing earlier
/// ones, and the length of its whole lines (every byte but a torn last
/// line's).
fn read_places(
    path: &Path,
    file: &File,
    max_body_bytes: usize,
) -> anyhow::Result<(HashMap<[u8; 32], Place>, u64)> {
    use crate::util::lines::{LineRead, read_line_capped};
    let mut places = HashMap::new();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let (mut offset, mut number) = (0u64, 0usize);
    let cap = line_cap(max_body_bytes);
    loop {
        number += 1;
        let read = read_line_capped(&mut reader, &mut line, cap)
            .with_context(|| format!("{}:{number}: reading the cassette", path.display()))?;
        let whole = match read {
            LineRead::End => return Ok((places, offset)),
            LineRead::TooLong => anyhow::bail!(
                "{}:{number}: a line longer than {cap} bytes is not an exchange itc records (bodies are cut at --max-tool-bytes); remove it or record the cassette again",
                path.display()
            ),
            LineRead::Ended => true,
            LineRead::Unended => false,
        };
        let bytes = line.strip_suffix(b"\n").unwrap_or(&line);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let start = if number == 1 && bytes.starts_with(crate::util::embedded::BOM) {
            crate::util::embedded::BOM.len()
        } else {
            0
        };
        let text = &bytes[start..];
        let place = Place {
            offset: offset + start as u64,
            len: text.len(),
        };
        if !text.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice::<Recorded>(text) {
                Ok(exchange) => {
                    places.insert(key_digest(&exchange.request), place);
                }
                Err(_) if !whole => return Ok((places, offset)), // torn by an interrupted write
                Err(e) => {
                    anyhow::bail!("{}:{number}: not a cassette exchange: {e}", path.display())
                }
            }
        }
        offset += line.len() as u64;
    }
}

/// Makes the file end with a whole line before new lines are appended: a
/// torn last line (its bytes past `whole`) is cut off; a whole exchange
/// that only lacks its line end gets one.
fn repair_end(path: &Path, file: &File, whole: u64) -> anyhow::Result<()> {
    let len = file
        .metadata()
        .with_context(|| format!("reading the cassette {}", path.display()))?
        .len();
    let repaired = if whole < len {
        file.set_len(whole)
    } else if len > 0 {
        let mut last = [0u8];
        read_exact_at(file, &mut last, len - 1).and_then(|()| {
            if last[0] == b'\n' {
                Ok(())
            } else {
                (&*file).write_all(b"\n")
            }
        })
    } else {
        Ok(())
    };
    repaired.with_context(|| format!("repairing the cassette {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMIT: usize = 1 << 20;

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
            let c = Cassette::open(&path, CassetteMode::RecordMissing, LIMIT).unwrap();
            assert!(c.lookup(&first.request).is_none());
            c.record(&first).unwrap();
            c.record(&exchange("http://h/x", "2")).unwrap();
            assert_eq!(c.lookup(&first.request).unwrap().body, "2");
        }
        let replay = Cassette::open(&path, CassetteMode::Replay, LIMIT).unwrap();
        assert_eq!((replay.len(), replay.may_call()), (1, false));
        assert_eq!(replay.lookup(&first.request).unwrap().body, "2");
        // Record mode calls afresh even when the cassette knows the answer.
        let record = Cassette::open(&path, CassetteMode::Record, LIMIT).unwrap();
        assert!(record.lookup(&first.request).is_none());
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let whole = serde_json::to_string(&exchange("http://h/x", "1")).unwrap();
        std::fs::write(&path, format!("{whole}\n{}", &whole[..20])).unwrap();
        let c = Cassette::open(&path, CassetteMode::RecordMissing, LIMIT).unwrap();
        assert_eq!(c.len(), 1);
        c.record(&exchange("http://h/y", "2")).unwrap();
        drop(c);
        let again = Cassette::open(&path, CassetteMode::Replay, LIMIT).unwrap();
        assert_eq!(again.len(), 2, "the torn line is cut, the new one whole");
        std::fs::write(&path, format!("{{\"x\":1}}\n{whole}\n")).unwrap();
        let error = Cassette::open(&path, CassetteMode::Replay, LIMIT)
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
        let error = Cassette::open(&dir.path().join("none.jsonl"), CassetteMode::Replay, LIMIT)
            .unwrap_err()
            .to_string();
        assert!(error.contains("reading the cassette"), "{error}");
    }

    #[test]
    fn a_whole_last_exchange_without_a_line_end_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let first = exchange("http://h/x", "1");
        std::fs::write(&path, serde_json::to_string(&first).unwrap()).unwrap();
        let c = Cassette::open(&path, CassetteMode::RecordMissing, LIMIT).unwrap();
        assert_eq!(c.lookup(&first.request).unwrap().body, "1");
        c.record(&exchange("http://h/y", "2")).unwrap();
        drop(c);
        let again = Cassette::open(&path, CassetteMode::Replay, LIMIT).unwrap();
        assert_eq!(again.len(), 2, "the unended line was kept and ended");
        assert_eq!(again.lookup(&first.request).unwrap().body, "1");
    }

    #[test]
    fn bodies_are_cut_to_the_limit_and_overlong_lines_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let big = exchange("http://h/x", &"é".repeat(100));
        std::fs::write(&path, serde_json::to_string(&big).unwrap() + "\n").unwrap();
        let c = Cassette::open(&path, CassetteMode::Replay, 9).unwrap();
        let found = c.lookup(&big.request).unwrap();
        assert_eq!((found.body.as_str(), found.truncated), ("éééé", true));
        let line = serde_json::to_string(&exchange("http://h/y", &"x".repeat(70 << 20))).unwrap();
        std::fs::write(&path, format!("\n{line}\n")).unwrap();
        let error = Cassette::open(&path, CassetteMode::Replay, 9)
            .unwrap_err()
            .to_string();
        assert!(error.contains("c.jsonl:2: a line longer than"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_symbolic_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let error = Cassette::open(&fifo, CassetteMode::RecordMissing, LIMIT)
                .unwrap_err()
                .to_string();
            assert!(error.contains("not a regular file"), "{error}");
        }
        let outside = dir.path().join("outside.jsonl");
        std::fs::write(&outside, "").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let error = Cassette::open(&link, CassetteMode::RecordMissing, LIMIT)
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }
}
