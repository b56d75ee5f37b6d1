//! Data files compiled into the binary, so that the defaults work from any
//! directory and without the checkout: the sample set (`datasets/sample/`,
//! read by `itc score` and `itc eval` when given no files) and the OOD
//! fallback copies (`datasets/ood/`, read by `itc eval --dataset` when
//! neither files nor the fetch cache are there). `build.rs` lists them and
//! stores them gzip-compressed.
//!
//! An embedded file is named like a path, `embedded:<path in the
//! repository>` (`embedded:datasets/sample/tasks.jsonl`), so the readers
//! that take paths read it through [`open_bytes`], [`read`] or
//! [`read_mapped`] (line by line through [`super::lines`], which skips a
//! byte order mark as [`read_to_string`] does), and their messages and the
//! run records say where the data came from. Nothing is written to disk.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

/// What names an embedded file: `embedded:` and its path in the repository.
pub const PREFIX: &str = "embedded:";

/// Every embedded file: path in the repository, gzip-compressed bytes.
const FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The name of the embedded copy of `path` (a path in the repository, such
/// as `datasets/sample/tasks.jsonl`); panics when there is none, a mistake
/// in the program.
pub fn name(path: &str) -> PathBuf {
    assert!(
        compressed(path).is_some(),
        "{path} is not embedded (see build.rs)"
    );
    PathBuf::from(format!("{PREFIX}{path}"))
}

/// The names of the embedded files under `dir` (a path in the repository,
/// such as `datasets/sample/predictions`) ending in `suffix`, sorted.
pub fn names_under(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = format!("{}/", dir.trim_end_matches('/'));
    let mut paths: Vec<&str> = FILES
        .iter()
        .map(|(path, _)| *path)
        .filter(|p| p.starts_with(&dir) && p.ends_with(suffix))
        .collect();
    paths.sort_unstable();
    paths.into_iter().map(name).collect()
}

fn compressed(path: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(p, _)| *p == path).map(|(_, gz)| *gz)
}

/// The compressed bytes when `path` names an embedded file.
fn lookup(path: &Path) -> Option<&'static [u8]> {
    compressed(path.to_str()?.strip_prefix(PREFIX)?)
}

/// Whether `path` names an embedded file.
pub fn is_embedded(path: &Path) -> bool {
    lookup(path).is_some()
}

/// Whether `path` names an embedded file or an existing file.
pub fn is_file(path: &Path) -> bool {
    lookup(path).is_some() || path.is_file()
}

/// The UTF-8 byte order mark some editors put first in a text file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Opens an embedded file (decompressed as it is read) or a file on disk,
/// every byte as stored.
pub fn open_bytes(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    Ok(match lookup(path) {
        Some(gz) => Box::new(GzDecoder::new(gz)),
        None => Box::new(std::fs::File::open(path)?),
    })
}

/// The bytes of an embedded file or a file on disk.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    match lookup(path) {
        Some(gz) => {
            let mut bytes = Vec::new();
            GzDecoder::new(gz).read_to_end(&mut bytes)?;
            Ok(bytes)
        }
        None => std::fs::read(path),
    }
}

/// The bytes of a file, read into memory or mapped.
pub enum FileBytes {
    /// Read (an embedded file, or a file that cannot be mapped).
    Owned(Vec<u8>),
    /// Mapped read-only from the page cache.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Owned(bytes) => bytes,
            FileBytes::Mapped(map) => map,
        }
    }
}

/// The bytes of an embedded file or a file on disk, mapped rather than
/// copied when the file is large ([`map_large`]): for the big gold files of
/// the official scorers, whose reading would otherwise mostly be the kernel
/// zeroing a fresh buffer as large as the file.
pub fn read_mapped(path: &Path) -> io::Result<FileBytes> {
    match map_large(path)? {
        Some(map) => Ok(FileBytes::Mapped(map)),
        None => read(path).map(FileBytes::Owned),
    }
}

/// A read-only map of `path` when it is a file on disk of 1 MiB or more
/// (below that a read is as fast and simpler) that can be mapped; `None`
/// for an embedded file or anything else.
pub fn map_large(path: &Path) -> io::Result<Option<memmap2::Mmap>> {
    const MAP_FROM_BYTES: u64 = 1 << 20;
    if lookup(path).is_some() {
        return Ok(None);
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() < MAP_FROM_BYTES {
        return Ok(None);
    }
    // SAFETY: the map is read-only and private to this process. Like
    // ripgrep, we accept that another process truncating the file while it
    // is being read would end this one (SIGBUS); changing its bytes would
    // only change what is read. itc itself never truncates a file in place
    // (a resumed run's predictions are rewritten to a new file and renamed).
    Ok(unsafe { memmap2::Mmap::map(&file) }.ok())
}

/// The text of an embedded file or a file on disk (UTF-8), without a
/// leading byte order mark.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut bytes = read(path)?;
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_files_are_mapped_and_read_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (small, large) = (dir.path().join("small"), dir.path().join("large"));
        std::fs::write(&small, b"[1]").unwrap();
        let bytes: Vec<u8> = (0..(3 << 20)).map(|i| (i % 251) as u8).collect();
        std::fs::write(&large, &bytes).unwrap();
        assert!(matches!(read_mapped(&small).unwrap(), FileBytes::Owned(_)));
        assert_eq!(&*read_mapped(&small).unwrap(), b"[1]");
        let mapped = read_mapped(&large).unwrap();
        assert!(matches!(mapped, FileBytes::Mapped(_)));
        assert_eq!(&*mapped, &bytes[..]);
        let embedded = read_mapped(&name("datasets/sample/tasks.jsonl")).unwrap();
        assert!(embedded.starts_with(b"{"));
        assert!(read_mapped(&dir.path().join("missing")).is_err());
    }

    /// The text of a file as the line readers see it.
    fn line_text(path: &Path) -> anyhow::Result<String> {
        let mut lines = crate::util::lines::LineBlocks::open(path, false)?;
        let mut text = Vec::new();
        while let Some(block) = lines.next_block()? {
            text.extend_from_slice(block.bytes());
        }
        Ok(String::from_utf8(text).unwrap())
    }

    #[test]
    fn a_byte_order_mark_is_dropped_by_every_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.jsonl");
        std::fs::write(&path, b"\xEF\xBB\xBF{\"a\":1}\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "{\"a\":1}\n");
        assert_eq!(line_text(&path).unwrap(), "{\"a\":1}\n");
        // Only a leading one, and the raw bytes stay raw.
        assert_eq!(read(&path).unwrap()[..3], *BOM);
    }

    /// The embedded bytes are those of the files in the repository: the
    /// two cannot drift apart.
    #[test]
    fn embedded_files_equal_the_files_in_the_repository() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (path, _) in FILES {
            let on_disk = std::fs::read(root.join(path)).unwrap();
            assert!(
                read(&name(path)).unwrap() == on_disk,
                "embedded {path} differs from the file"
            );
        }
    }

    #[test]
    fn names_read_embedded_copies_and_other_paths_read_files() {
        let tasks = name("datasets/sample/tasks.jsonl");
        assert_eq!(tasks, Path::new("embedded:datasets/sample/tasks.jsonl"));
        assert!(is_file(&tasks));
        let text = line_text(&tasks).unwrap();
        assert_eq!(text, read_to_string(&tasks).unwrap());
        assert!(text.starts_with('{'));

        let missing = Path::new("embedded:datasets/sample/nothing.jsonl");
        assert!(!is_file(missing));
        assert!(line_text(missing).is_err());
        assert!(open_bytes(missing).is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "on disk").unwrap();
        assert!(is_file(&file));
        assert_eq!(read_to_string(&file).unwrap(), "on disk");
    }

    #[test]
    fn files_under_a_directory_are_listed_sorted() {
        let predictions = names_under("datasets/sample/predictions", ".jsonl");
        let mut on_disk: Vec<PathBuf> = std::fs::read_dir(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/predictions"),
        )
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .map(|n| name(&format!("datasets/sample/predictions/{n}")))
        .collect();
        on_disk.sort();
        assert_eq!(predictions, on_disk);
    }
}
