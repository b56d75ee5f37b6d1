//! Reading JSON Lines record files with errors that name the file, the line
//! and the field, and writing them back.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::util::atomic::AtomicFile;
use serde::de::DeserializeOwned;

use crate::util::lines::LineBlocks;

/// A record that could not be read: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// Path of the offending field inside the record (`tools[0].name`), or `.` for the whole line.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: field `{}`: {}",
            self.file.display(),
            self.line,
            self.field,
            self.message
        )
    }
}

impl std::error::Error for RecordError {}

/// Builds a [`RecordError`] for a line that failed to deserialize, naming the
/// field through `serde_path_to_error` (only run on failure: the fast path
/// deserializes directly).
pub fn describe_error<T: DeserializeOwned>(
    file: &Path,
    line_number: usize,
    line: &str,
) -> RecordError {
    let mut de = serde_json::Deserializer::from_str(line);
    let (field, message) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => match de.end() {
            Ok(()) => (".".to_string(), "invalid record".to_string()),
            Err(e) => (".".to_string(), e.to_string()),
        },
        Err(e) => {
            // The whole record (`?` when serde never reached a field) is `.`.
            let path = match e.path().to_string() {
                p if p == "?" || p.is_empty() => ".".to_string(),
                p => p,
            };
            let inner = e.into_inner();
            (path, strip_position(&inner.to_string()))
        }
    };
    RecordError {
        file: file.to_path_buf(),
        line: line_number,
        field,
        message,
    }
}

/// serde_json appends " at line 1 column N"; the line is ours to report, the
/// column stays useful.
fn strip_position(message: &str) -> String {
    message.replace(" at line 1 column", " at column")
}

/// Calls `f` with each non-blank line of a file (or an embedded copy, see
/// [`embedded`](crate::util::embedded)) and its 1-based number, without its
/// line ending; a block of lines at a time ([`LineBlocks`]), so memory does
/// not grow with the file.
pub fn for_each_line(
    path: &Path,
    f: impl FnMut(usize, &str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    read_lines(path, false, f).map(|_| ())
}

/// [`for_each_line`], with each line's byte offset in the file (the line
/// is the file's `line.len()` bytes from there), for reading it again
/// later without keeping it. Files on disk only: an embedded copy has no
/// offsets to read at.
pub fn for_each_line_at(
    path: &Path,
    mut f: impl FnMut(usize, u64, &str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut blocks = LineBlocks::open(path, false)?;
    while let Some(block) = blocks.next_block()? {
        block.for_each_line_at(path, &mut f)?;
    }
    Ok(())
}

/// [`for_each_line`], returning the SHA-256 and length of the file's bytes
/// as they were read: a manifest then records exactly what was scored, and
/// the file is not read a second time.
pub fn for_each_line_hashed(
    path: &Path,
    f: impl FnMut(usize, &str) -> anyhow::Result<()>,
) -> anyhow::Result<(String, u64)> {
    let digest = read_lines(path, true, f)?;
    Ok(digest.expect("opened to hash"))
}

fn read_lines(
    path: &Path,
    hash: bool,
    mut f: impl FnMut(usize, &str) -> anyhow::Result<()>,
) -> anyhow::Result<Option<(String, u64)>> {
    let mut blocks = LineBlocks::open(path, hash)?;
    while let Some(block) = blocks.next_block()? {
        block.for_each_line(path, &mut f)?;
    }
    Ok(blocks.digest())
}

/// Reads every record of a file. With `skip_invalid`, bad lines are
/// collected and returned instead of stopping at the first.
pub fn read_records<T: DeserializeOwned>(
    path: &Path,
    skip_invalid: bool,
) -> anyhow::Result<(Vec<T>, Vec<RecordError>)> {
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for_each_line(path, |number, line| {
        match serde_json::from_str::<T>(line) {
            Ok(record) => records.push(record),
            Err(_) => {
                let error = describe_error::<T>(path, number, line);
                if !skip_invalid {
                    return Err(error.into());
                }
                skipped.push(error);
            }
        }
        Ok(())
    })?;
    Ok((records, skipped))
}

/// Writes records as JSON Lines, one per line.
pub fn write_records<T: Serialize>(
    path: &Path,
    records: impl IntoIterator<Item = T>,
) -> io::Result<()> {
    write_lines(path, records, |record, out| {
        serde_json::to_writer(out, record)
    })
}

/// Writes records as JSON Lines with `encode`, which appends one record's
/// JSON to a buffer (a faster writer of the same bytes as serde's).
pub fn write_lines<T>(
    path: &Path,
    records: impl IntoIterator<Item = T>,
    mut encode: impl FnMut(&T, &mut Vec<u8>) -> serde_json::Result<()>,
) -> io::Result<()> {
    // Whole or not at all: a full disk leaves no torn file under `path`.
    // `{:#}`: the cause (a missing folder, a read-only disk) with the context.
    let mut out = AtomicFile::create(path).map_err(|e| io::Error::other(format!("{e:#}")))?;
    let write_error =
        |e: io::Error| io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
    // Records are encoded into memory and written in large pieces: the
    // encoder's many small writes then cost a copy, not a call each.
    const CHUNK: usize = 1 << 18;
    let mut chunk = Vec::with_capacity(CHUNK + 4096);
    for record in records {
        encode(&record, &mut chunk)
            .map_err(|e| io::Error::other(format!("writing {}: {e}", path.display())))?;
        chunk.push(b'\n');
        if chunk.len() >= CHUNK {
            out.write_all(&chunk).map_err(write_error)?;
            chunk.clear();
        }
    }
    out.write_all(&chunk).map_err(write_error)?;
    out.commit().map_err(|e| io::Error::other(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::Task;

    #[test]
    fn a_file_in_a_missing_folder_says_why_it_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("p.jsonl");
        let error = write_records(&path, Vec::<Task>::new())
            .unwrap_err()
            .to_string();
        assert!(error.contains("creating a temporary file in"), "{error}");
        assert!(error.contains("No such file or directory"), "{error}");
    }

    #[test]
    fn invalid_utf8_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.jsonl");
        std::fs::write(&path, b"{\"a\":\"\xc3\xa9\"}\n{\"a\":\"\xc3\x28\"}\n").unwrap();
        let mut seen = Vec::new();
        let error = for_each_line(&path, |number, line| {
            seen.push((number, line.to_string()));
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert_eq!(seen, [(1, "{\"a\":\"é\"}".to_string())]);
        assert!(
            error.ends_with("p.jsonl:2: stream did not contain valid UTF-8"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.jsonl");
        let good = r#"{"id":"a","kind":"single","language":"en","query":"q","tools":[{"name":"f"}],"gold":{"calls":[]}}"#;
        let bad_kind = good.replace("\"single\"", "\"triple\"");
        let bad_tool = good.replace(r#"{"name":"f"}"#, r#"{"name":7}"#);
        std::fs::write(
            &path,
            format!("{good}\n\n{bad_kind}\n{bad_tool}\nnot json\n"),
        )
        .unwrap();

        let err = read_records::<Task>(&path, false).unwrap_err();
        let err = err.downcast::<RecordError>().unwrap();
        assert_eq!((err.line, err.field.as_str()), (3, "kind"));
        assert!(err.message.contains("triple"), "{}", err.message);
        assert!(
            err.to_string()
                .starts_with(&format!("{}:3: field `kind`", path.display()))
        );

        let (records, skipped) = read_records::<Task>(&path, true).unwrap();
        assert_eq!(records.len(), 1);
        let places: Vec<_> = skipped.iter().map(|e| (e.line, e.field.as_str())).collect();
        assert_eq!(places, [(3, "kind"), (4, "tools[0].name"), (5, ".")]);
    }

    #[test]
    fn a_line_that_is_not_json_is_the_whole_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.jsonl");
        std::fs::write(&path, "{\"id\": \"a\",\nnot json at all\n").unwrap();
        let (_, skipped) = read_records::<crate::spec::records::JudgedQuery>(&path, true).unwrap();
        let places: Vec<_> = skipped.iter().map(|e| (e.line, e.field.as_str())).collect();
        assert_eq!(places, [(1, "."), (2, ".")]);
    }

    #[test]
    fn missing_fields_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(
            &path,
            r#"{"id":"a","kind":"single","language":"en","tools":[],"gold":{}}"#,
        )
        .unwrap();
        let err = read_records::<Task>(&path, false)
            .unwrap_err()
            .downcast::<RecordError>()
            .unwrap();
        assert!(err.message.contains("missing field `query`"), "{err}");
    }
}
