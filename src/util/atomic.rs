//! Files that appear whole or not at all: written under a temporary name
//! beside the target and renamed into place once complete, so a failed write
//! (a full disk, a kill) never leaves a torn file that looks finished.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A file being written; [`AtomicFile::commit`] puts it in place. Dropped
/// without a commit, it leaves the target as it was and removes the
/// temporary file.
pub struct AtomicFile {
    target: PathBuf,
    temporary: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `target` (its folder must exist).
    pub fn create(target: &Path) -> anyhow::Result<AtomicFile> {
        let name = target
            .file_name()
            .with_context(|| format!("{} names no file", target.display()))?;
        let temporary = target.with_file_name(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&temporary).with_context(|| {
            format!(
                "creating {} (for {})",
                temporary.display(),
                target.display()
            )
        })?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            temporary,
            writer: Some(BufWriter::new(file)),
        })
    }

    /// Flushes, syncs and renames the file into place. Errors name the
    /// target.
    pub fn commit(mut self) -> anyhow::Result<()> {
        let writer = self.writer.take().expect("not committed yet");
        let finished = writer
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&self.temporary, &self.target));
        if finished.is_err() {
            let _ = std::fs::remove_file(&self.temporary);
        }
        finished.with_context(|| format!("writing {}", self.target.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("not committed").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Writes `bytes` to `path` whole or not at all; errors name `path`.
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

/// Writes a data frame as CSV (floats with 4 decimals, as every CSV of
/// itc), whole or not at all; errors name `path`.
pub fn write_csv(path: &Path, frame: &mut polars::prelude::DataFrame) -> anyhow::Result<()> {
    use polars::prelude::{CsvWriter, SerWriter};
    let mut file = AtomicFile::create(path)?;
    CsvWriter::new(&mut file)
        .with_float_precision(Some(4))
        .finish(frame)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

/// Writes a data frame as Parquet (uncompressed, so that equal frames give
/// equal bytes on every build), whole or not at all; errors name `path`.
pub fn write_parquet(path: &Path, frame: &mut polars::prelude::DataFrame) -> anyhow::Result<()> {
    use polars::prelude::{ParquetCompression, ParquetWriter};
    let mut file = AtomicFile::create(path)?;
    ParquetWriter::new(&mut file)
        .with_compression(ParquetCompression::Uncompressed)
        .finish(frame)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_committed_file_replaces_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("summary.json");
        std::fs::write(&target, "old").unwrap();
        write(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn an_uncommitted_file_leaves_the_target_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("task_scores.jsonl");
        std::fs::write(&target, "finished earlier\n").unwrap();
        {
            let mut file = AtomicFile::create(&target).unwrap();
            file.write_all(b"half a li").unwrap();
            // dropped: the write failed somewhere
        }
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "finished earlier\n"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn errors_name_the_target() {
        let err = write(Path::new("/nonexistent-dir/summary.csv"), b"x").unwrap_err();
        assert!(format!("{err:#}").contains("summary.csv"), "{err:#}");
    }

    #[test]
    fn a_full_disk_names_the_file_and_leaves_no_torn_target() {
        // /dev/full fails every write with ENOSPC; a target in a folder we
        // cannot write to shows the same for the create step.
        if !Path::new("/dev/full").exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("by_kind.csv");
        let mut file = AtomicFile::create(&target).unwrap();
        // Point the writer at /dev/full to simulate the disk filling up.
        file.writer = Some(BufWriter::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        ));
        file.write_all(&[b'x'; 100_000]).ok();
        let err = file.commit().unwrap_err();
        let message = format!("{err:#}");
        assert!(message.contains("by_kind.csv"), "{message}");
        assert!(!target.exists(), "no torn file under the final name");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temporary file left"
        );
    }
}
