//! The task and prediction files a folder's manifest names, found and
//! checked before the report reads them.
//!
//! A relative path is looked for in the folder holding the manifest first
//! ([`FileDigest::candidates`]: an older manifest's path relative to where
//! itc ran comes after). A candidate is used only when it is a regular file
//! (never a device, FIFO or directory: those are refused on the opened
//! handle, without blocking) of the recorded length whose SHA-256, taken
//! as its lines are read, is the recorded one; at most the recorded length
//! and one byte more is read. Anything else is a [`NotUsed`]: the report
//! warns, and the task browser shows "not available" instead of the
//! queries or calls of a file that was not scored.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::score::manifest::{FileDigest, MANIFEST_FILE};
use crate::util::embedded;
use crate::util::hash::sha256_reader;
use crate::util::lines::LineBlocks;
use crate::util::regular;

/// A file of another length than the scored one is hashed for the message
/// only up to this size (its length already shows it differs).
const HASH_OTHER_FILE_BYTES: u64 = 256 << 20;

/// A file a folder's manifest names that the report did not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotUsed {
    /// The manifest's field: `tasks`, `predictions[0]`, ….
    pub field: String,
    /// The path as the manifest names it.
    pub path: String,
    /// Why: not found, not a regular file, or not the file that was scored
    /// (with the SHA-256 prefixes expected and found).
    pub reason: String,
}

impl NotUsed {
    /// The warning for the folder `dir`, saying what the browser lacks.
    pub fn warning(&self, dir: &Path) -> String {
        let lacks = if self.field == "tasks" {
            "queries and gold calls"
        } else {
            "model calls"
        };
        format!(
            "warning: {}: {} names {}: {}; not used: the task browser shows \"not available\" for its {lacks}",
            dir.join(MANIFEST_FILE).display(),
            self.field,
            self.path,
            self.reason
        )
    }
}

/// The start of a SHA-256 for messages.
fn prefix(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// Reads the file that `digest` (the manifest's `field`) names for the
/// folder `dir`, a line at a time, each line given to `each` with what it
/// collects so far; returns what was collected from the first candidate
/// that is the file scored, else why none was.
pub fn read_checked<T: Default>(
    dir: &Path,
    field: &str,
    digest: &FileDigest,
    mut each: impl FnMut(&mut T, &str),
) -> Result<T, NotUsed> {
    let mut first_problem = None;
    for path in digest.candidates(dir) {
        match read_one(&path, digest, &mut each) {
            Ok(collected) => return Ok(collected),
            Err(Problem::Missing) => {}
            Err(Problem::Other(reason)) => {
                first_problem.get_or_insert(reason);
            }
        }
    }
    let reason = first_problem.unwrap_or_else(|| {
        if Path::new(&digest.path).is_absolute() || digest.path.starts_with(embedded::PREFIX) {
            "not found".to_string()
        } else {
            format!(
                "not found in {} (nor, for a manifest of an older itc, in the current directory)",
                dir.display()
            )
        }
    });
    Err(NotUsed {
        field: field.to_string(),
        path: digest.path.clone(),
        reason,
    })
}

/// Why a candidate is not used.
enum Problem {
    /// Nothing there: the next candidate is tried.
    Missing,
    /// Something else, said for the warning.
    Other(String),
}

/// Reads one candidate as [`read_checked`] does.
fn read_one<T: Default>(
    path: &Path,
    digest: &FileDigest,
    each: &mut impl FnMut(&mut T, &str),
) -> Result<T, Problem> {
    let shown = path.display();
    let reader: Box<dyn Read + Send> = if embedded::is_embedded(path) {
        embedded::open_bytes(path).map_err(|e| Problem::Other(format!("{shown}: {e}")))?
    } else {
        match regular::open(path) {
            Ok((file, len)) if len == digest.bytes => Box::new(file),
            Ok((file, len)) => return Err(Problem::Other(other_length(path, file, digest, len))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Problem::Missing),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                return Err(Problem::Other(format!("{shown} is {e}")));
            }
            Err(e) => return Err(Problem::Other(format!("{shown}: {e}"))),
        }
    };
    let mut blocks = LineBlocks::from_reader(path, Box::new(reader.take(digest.bytes + 1)), true);
    let mut collected = T::default();
    let read: anyhow::Result<()> = (|| {
        while let Some(block) = blocks.next_block()? {
            block.for_each_line(path, |_, line| {
                each(&mut collected, line);
                Ok(())
            })?;
        }
        Ok(())
    })();
    if let Err(e) = read {
        return Err(Problem::Other(format!("could not be read: {e:#}")));
    }
    let (sha256, bytes) = blocks.digest().expect("read with a hash");
    if (sha256.as_str(), bytes) != (digest.sha256.as_str(), digest.bytes) {
        return Err(Problem::Other(format!(
            "{shown} is not the file scored: SHA-256 {}… expected, {}… found",
            prefix(&digest.sha256),
            prefix(&sha256)
        )));
    }
    Ok(collected)
}

/// Why a regular file of length `len` is not the file scored.
fn other_length(path: &Path, file: File, digest: &FileDigest, len: u64) -> String {
    let found = if len <= HASH_OTHER_FILE_BYTES {
        sha256_reader(file.take(len))
            .map_or_else(|_| "unread".into(), |(h, _)| format!("{}…", prefix(&h)))
    } else {
        "not taken".into()
    };
    format!(
        "{} is not the file scored: SHA-256 {}… expected, {found} found ({} bytes expected, {len} found)",
        path.display(),
        prefix(&digest.sha256),
        digest.bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(dir: &Path, digest: &FileDigest) -> Result<Vec<String>, NotUsed> {
        read_checked(dir, "tasks", digest, |all: &mut Vec<String>, line| {
            all.push(line.to_string())
        })
    }

    #[test]
    fn only_the_file_scored_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tasks.jsonl");
        std::fs::write(&file, "a\nb\n").unwrap();
        let digest = FileDigest::of(&file).unwrap().placed_in(dir.path());
        assert_eq!(lines(dir.path(), &digest).unwrap(), ["a", "b"]);

        // Same length, other bytes; then another length.
        std::fs::write(&file, "a\nc\n").unwrap();
        let reason = lines(dir.path(), &digest).unwrap_err().reason;
        assert!(
            reason.contains("is not the file scored: SHA-256 "),
            "{reason}"
        );
        assert!(reason.contains(&format!("{}… expected", prefix(&digest.sha256))));
        std::fs::write(&file, "a\nbb\n").unwrap();
        let reason = lines(dir.path(), &digest).unwrap_err().reason;
        assert!(reason.contains("(4 bytes expected, 5 found)"), "{reason}");

        std::fs::remove_file(&file).unwrap();
        let missing = lines(dir.path(), &digest).unwrap_err();
        assert!(missing.reason.starts_with("not found in "), "{missing:?}");
        assert_eq!(
            (missing.field.as_str(), missing.path.as_str()),
            ("tasks", "tasks.jsonl")
        );
    }

    #[test]
    fn devices_directories_and_fifos_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let named = |path: &str| FileDigest {
            path: path.into(),
            sha256: "0".repeat(64),
            bytes: 10,
        };
        let reason = |path: &str| lines(dir.path(), &named(path)).unwrap_err().reason;
        assert!(reason(".").ends_with("is not a regular file (a directory)"));
        #[cfg(unix)]
        {
            assert_eq!(
                reason("/dev/zero"),
                "/dev/zero is not a regular file (a character device)"
            );
            let made = std::process::Command::new("mkfifo")
                .arg(dir.path().join("fifo"))
                .status();
            if made.is_ok_and(|s| s.success()) {
                assert!(reason("fifo").ends_with("is not a regular file (a FIFO)"));
            }
        }
    }

    #[test]
    fn embedded_files_are_checked_too() {
        let name = "embedded:datasets/sample/tasks.jsonl";
        let real = FileDigest::of(Path::new(name)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        assert!(!lines(dir.path(), &real).unwrap().is_empty());
        let other = FileDigest {
            sha256: "f".repeat(64),
            ..real
        };
        let reason = lines(dir.path(), &other).unwrap_err().reason;
        assert!(reason.contains("ffffffffffff… expected"), "{reason}");
    }
}
