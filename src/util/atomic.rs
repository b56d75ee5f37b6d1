//! Files that appear whole or not at all: written under a temporary name
//! beside the target and renamed into place once complete, so a failed write
//! (a full disk, a kill) never leaves a torn file that looks finished.
//!
//! Every temporary file itc writes beside a target is made here
//! ([`temporary_beside`]): its name is random and it is created with
//! `O_EXCL`, so no name can be guessed in advance and a symbolic link
//! planted where it is created is never followed (nothing is written
//! outside the folder through it). The rename into place replaces the
//! target's directory entry: a target that is a symbolic link is replaced by
//! the file, and the file the link pointed to is left alone.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use tempfile::TempPath;

/// A new temporary file in `target`'s folder, named `.<target name>.<random>.tmp`,
/// created exclusively (never through a link) with the permissions a plain
/// create would give. The [`TempPath`] removes it when dropped;
/// [`TempPath::persist`] renames it onto the target.
/// A target that exists and is neither a regular file nor a symbolic link
/// (a device such as `/dev/null`, a FIFO, a socket, a folder) is refused:
/// renaming a file onto it would put a plain file in its place.
pub fn temporary_beside(target: &Path) -> anyhow::Result<(File, TempPath)> {
    if let Ok(meta) = std::fs::symlink_metadata(target) {
        let kind = meta.file_type();
        if !kind.is_file() && !kind.is_symlink() {
            anyhow::bail!(
                "{} is not a regular file (a device, FIFO, socket or folder): itc writes its outputs whole under a temporary name and renames them into place, which would replace it; give the path of a file",
                target.display()
            );
        }
    }
    let name = target
        .file_name()
        .with_context(|| format!("{} names no file", target.display()))?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let file = builder.tempfile_in(dir).with_context(|| {
        format!(
            "creating a temporary file in {} (for {})",
            dir.display(),
            target.display()
        )
    })?;
    Ok(file.into_parts())
}

use super::csv_cell;

/// A file being written; [`AtomicFile::commit`] puts it in place. Dropped
/// without a commit, it leaves the target as it was and removes the
/// temporary file.
pub struct AtomicFile {
    target: PathBuf,
    writer: BufWriter<File>,
    temporary: TempPath,
}

impl AtomicFile {
    /// Starts writing `target` (its folder must exist) in a file from
    /// [`temporary_beside`].
    pub fn create(target: &Path) -> anyhow::Result<AtomicFile> {
        let (file, temporary) = temporary_beside(target)?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            writer: BufWriter::new(file),
            temporary,
        })
    }

    /// Flushes, syncs and renames the file into place (replacing a target
    /// that is a symbolic link, not the file it points to). Errors name the
    /// target.
    pub fn commit(self) -> anyhow::Result<()> {
        let AtomicFile {
            target,
            writer,
            temporary,
        } = self;
        writer
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| temporary.persist(&target).map_err(|e| e.error))
            .with_context(|| format!("writing {}", target.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// Writes `bytes` to `path` whole or not at all; errors name `path`.
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

/// The CSV settings of every table itc writes: floats with 4 decimals.
/// Frames go through [`csv_cell::neutralise_frame`] before they reach it.
fn csv_writer<W: Write>(w: W) -> polars::prelude::CsvWriter<W> {
    use polars::prelude::SerWriter;
    polars::prelude::CsvWriter::new(w).with_float_precision(Some(4))
}

/// The Parquet settings of every table itc writes: uncompressed, so that
/// equal frames give equal bytes on every build.
fn parquet_writer<W: Write>(w: W) -> polars::prelude::ParquetWriter<W> {
    polars::prelude::ParquetWriter::new(w)
        .with_compression(polars::prelude::ParquetCompression::Uncompressed)
}

/// Writes a data frame as CSV, whole or not at all; errors name `path`.
/// Text cells that a spreadsheet would run as a formula are neutralised
/// ([`csv_cell::neutralise`]); `frame` itself is left as it is.
pub fn write_csv(path: &Path, frame: &mut polars::prelude::DataFrame) -> anyhow::Result<()> {
    use polars::prelude::SerWriter;
    let mut file = AtomicFile::create(path)?;
    let mut safe = csv_cell::neutralise_frame(frame)
        .with_context(|| format!("writing {}", path.display()))?
        .into_owned();
    csv_writer(&mut file)
        .finish(&mut safe)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

/// Writes a data frame as Parquet, whole or not at all; errors name `path`.
pub fn write_parquet(path: &Path, frame: &mut polars::prelude::DataFrame) -> anyhow::Result<()> {
    let mut file = AtomicFile::create(path)?;
    parquet_writer(&mut file)
        .finish(frame)
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()
}

/// Writes one table as CSV and as Parquet, a batch of rows at a time (one
/// Parquet row group per batch), so that a table of millions of rows is
/// never whole in memory: `next_batch` gives the frames in order, at least
/// one (it may be empty, for the header), then `None`. Both files appear
/// whole or not at all; a frame that fits one batch gives the same bytes
/// as [`write_csv`] and [`write_parquet`] (the CSV file's text cells
/// neutralised as there, the Parquet file's raw).
pub fn write_csv_and_parquet_in_batches(
    csv_path: &Path,
    parquet_path: &Path,
    mut next_batch: impl FnMut() -> anyhow::Result<Option<polars::prelude::DataFrame>>,
) -> anyhow::Result<()> {
    let mut csv_file = AtomicFile::create(csv_path)?;
    let mut parquet_file = AtomicFile::create(parquet_path)?;
    let first = next_batch()?.context("a table needs at least one batch")?;
    let schema = first.schema().as_ref().clone();
    let csv_error = || format!("writing {}", csv_path.display());
    let parquet_error = || format!("writing {}", parquet_path.display());
    let mut csv = csv_writer(&mut csv_file)
        .batched(&schema)
        .with_context(csv_error)?;
    let mut parquet = parquet_writer(&mut parquet_file)
        .batched(&schema)
        .with_context(parquet_error)?;
    let mut batch = Some(first);
    while let Some(frame) = batch {
        let safe = csv_cell::neutralise_frame(&frame).with_context(csv_error)?;
        csv.write_batch(&safe).with_context(csv_error)?;
        parquet.write_batch(&frame).with_context(parquet_error)?;
        batch = next_batch()?;
    }
    csv.finish().with_context(csv_error)?;
    parquet.finish().with_context(parquet_error)?;
    drop((csv, parquet));
    csv_file.commit()?;
    parquet_file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_that_is_not_a_regular_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let error = write(&fifo, b"x").unwrap_err().to_string();
        assert!(error.contains("is not a regular file"), "{error}");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        assert!(write(&folder, b"x").is_err());
        assert!(folder.is_dir());
    }

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

    /// Issue 34: the temporary file had a predictable name
    /// (`.summary.json.<pid>.tmp`), and a symbolic link planted there made
    /// itc write through it, outside its folder.
    #[test]
    fn links_planted_at_temporary_names_or_the_target_are_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        let outside = dir.path().join("precious.txt");
        std::fs::write(&outside, "keep me").unwrap();
        let old_name = folder.join(format!(".summary.json.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&outside, &old_name).unwrap();
        let target = folder.join("summary.json");
        write(&target, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
        assert!(old_name.symlink_metadata().unwrap().is_symlink());

        // A target that is a link: the link is replaced, not written through.
        let linked = folder.join("summary.csv");
        std::os::unix::fs::symlink(&outside, &linked).unwrap();
        write(&linked, b"model\n").unwrap();
        assert!(linked.symlink_metadata().unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&linked).unwrap(), "model\n");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
    }

    #[test]
    fn temporary_names_are_random_and_files_readable_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("task_scores.jsonl");
        let (_, first) = temporary_beside(&target).unwrap();
        let (_, second) = temporary_beside(&target).unwrap();
        assert_ne!(first.to_path_buf(), second.to_path_buf());
        let name = first.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name.starts_with(".task_scores.jsonl.") && name.ends_with(".tmp"),
            "{name}"
        );
        first.persist(&target).unwrap();
        // The mode a plain create gives (0666 less the umask), not 0600.
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| p.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&target), mode(&plain));
        drop(second);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn errors_name_the_target() {
        let err = write(Path::new("/nonexistent-dir/summary.csv"), b"x").unwrap_err();
        assert!(format!("{err:#}").contains("summary.csv"), "{err:#}");
    }

    #[test]
    fn csv_text_cells_are_neutralised_and_parquet_keeps_them_raw() {
        use polars::prelude::{Column, DataFrame, ParquetReader, SerReader};
        let dir = tempfile::tempdir().unwrap();
        let raw = || {
            DataFrame::new(
                2,
                vec![
                    Column::new("model".into(), ["=HYPERLINK(\"http://x\")", "ok"]),
                    Column::new("diff".into(), [-1.5f64, 2.0]),
                ],
            )
            .unwrap()
        };
        let expected = "model,diff\n\"'=HYPERLINK(\"\"http://x\"\")\",-1.5000\nok,2.0000\n";
        let mut frame = raw();
        write_csv(&dir.path().join("one.csv"), &mut frame).unwrap();
        assert!(frame.equals(&raw()), "the caller's frame is left as it is");
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("one.csv"), expected);
        let mut batches = vec![raw()].into_iter();
        write_csv_and_parquet_in_batches(
            &dir.path().join("batched.csv"),
            &dir.path().join("batched.parquet"),
            || Ok(batches.next()),
        )
        .unwrap();
        assert_eq!(read("batched.csv"), expected);
        let file = File::open(dir.path().join("batched.parquet")).unwrap();
        assert!(ParquetReader::new(file).finish().unwrap().equals(&raw()));
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
        file.writer = BufWriter::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
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
