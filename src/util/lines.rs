//! Input files cut into blocks of whole lines, for the readers of JSON
//! Lines files ([`crate::spec::jsonl`] and the parallel scorer).
//!
//! A large file on disk is mapped, and its blocks are slices of the map:
//! nothing is copied, and a block lets go of its pages when it is dropped,
//! so memory stays flat however large the file. Anything else (an embedded
//! file, a pipe, a small file) is read. Either way a leading UTF-8 byte
//! order mark is skipped, and the bytes can be hashed as the blocks are
//! handed out, so that a manifest records the SHA-256 of exactly the bytes
//! read without reading the file twice.

use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use sha2::{Digest, Sha256};

use super::embedded::{self, BOM};
use super::hash::to_hex;

/// Bytes handed out at a time: a block holds the whole lines among them (and
/// the whole of a line that is longer). Unit tests use small blocks, so that
/// small files make many.
pub const BLOCK_BYTES: usize = if cfg!(test) { 1 << 16 } else { 1 << 20 };

/// The lines of a file, a block at a time.
///
/// Blocks are cut alike whether the file is mapped or read: a block takes
/// the `block_bytes` that follow the previous one up to the last `\n` among
/// them, or, when there is none, up to the end of the line they begin; the
/// last block takes the rest of the file.
pub struct LineBlocks {
    /// The file, for messages.
    path: PathBuf,
    source: Source,
    block_bytes: usize,
    next_line: usize,
    /// Whether the next block is the file's first (which loses a byte order
    /// mark).
    first: bool,
    /// SHA-256 and length of the bytes read (byte order mark included).
    hashed: Option<(Sha256, u64)>,
}

enum Source {
    Mapped {
        map: Arc<Mmap>,
        position: usize,
    },
    Read {
        reader: Box<dyn Read + Send>,
        /// What was read past the last block.
        carry: Vec<u8>,
    },
}

/// Whole lines of a file, numbered from [`Block::first_line`].
pub struct Block {
    first_line: usize,
    bytes: BlockBytes,
}

enum BlockBytes {
    Owned(Vec<u8>),
    Mapped { map: Arc<Mmap>, range: Range<usize> },
}

impl LineBlocks {
    /// Opens an embedded file or a file on disk; with `hash`, the bytes are
    /// hashed as they are read ([`LineBlocks::digest`]). An error names the
    /// file.
    pub fn open(path: &Path, hash: bool) -> anyhow::Result<LineBlocks> {
        let opened = embedded::map_large(path).and_then(|map| match map {
            Some(map) => Ok(Source::mapped(map)),
            None => embedded::open_bytes(path).map(|reader| Source::Read {
                reader,
                carry: Vec::new(),
            }),
        });
        let source = opened.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(LineBlocks::new(path, source, BLOCK_BYTES, hash))
    }

    fn new(path: &Path, source: Source, block_bytes: usize, hash: bool) -> LineBlocks {
        LineBlocks {
            path: path.to_path_buf(),
            source,
            block_bytes,
            next_line: 1,
            first: true,
            hashed: hash.then(|| (Sha256::new(), 0)),
        }
    }

    /// The next block of whole lines, or `None` at the end of the file. A
    /// read error names the file and the line the block would start with.
    pub fn next_block(&mut self) -> anyhow::Result<Option<Block>> {
        let next_line = self.next_line;
        self.read_block()
            .map_err(|e| anyhow::anyhow!("{}:{next_line}: {e}", self.path.display()))
    }

    fn read_block(&mut self) -> io::Result<Option<Block>> {
        loop {
            let mut bytes = match &mut self.source {
                Source::Mapped { map, position } => {
                    let Some(range) = next_mapped(map, *position, self.block_bytes) else {
                        return Ok(None);
                    };
                    add_to_hash(&mut self.hashed, &map[range.clone()]);
                    *position = range.end;
                    BlockBytes::Mapped {
                        map: Arc::clone(map),
                        range,
                    }
                }
                Source::Read { reader, carry } => {
                    let read = next_read(reader, carry, self.block_bytes, &mut self.hashed)?;
                    let Some(bytes) = read else {
                        return Ok(None);
                    };
                    BlockBytes::Owned(bytes)
                }
            };
            if std::mem::replace(&mut self.first, false) {
                bytes.skip_bom();
            }
            let block = Block {
                first_line: self.next_line,
                bytes,
            };
            if !block.bytes().is_empty() {
                self.next_line += memchr::memchr_iter(b'\n', block.bytes()).count();
                return Ok(Some(block));
            }
        }
    }

    /// Lower-case hex SHA-256 and length of the bytes read so far (of the
    /// whole file once [`LineBlocks::next_block`] gave `None`); `None`
    /// unless opened with `hash`.
    pub fn digest(&self) -> Option<(String, u64)> {
        let (hasher, bytes) = self.hashed.as_ref()?;
        Some((to_hex(&hasher.clone().finalize()), *bytes))
    }
}

impl Source {
    fn mapped(map: Mmap) -> Source {
        // Read-ahead of the whole file. Without huge pages: the kernel maps a
        // file's 2 MiB folios whole, so that letting go of a block's pages
        // (see `Block`'s `drop`) kept most of them mapped through the next
        // block. A failure only loses the hint.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::NoHugePage);
        Source::Mapped {
            map: Arc::new(map),
            position: 0,
        }
    }
}

impl BlockBytes {
    fn skip_bom(&mut self) {
        match self {
            BlockBytes::Owned(bytes) if bytes.starts_with(BOM) => {
                bytes.drain(..BOM.len());
            }
            BlockBytes::Mapped { map, range } if map[range.clone()].starts_with(BOM) => {
                range.start += BOM.len();
            }
            _ => {}
        }
    }
}

fn add_to_hash(hashed: &mut Option<(Sha256, u64)>, bytes: &[u8]) {
    if let Some((hasher, length)) = hashed {
        hasher.update(bytes);
        *length += bytes.len() as u64;
    }
}

/// The range of the block of a map that starts at `start`.
fn next_mapped(map: &[u8], start: usize, block_bytes: usize) -> Option<Range<usize>> {
    let len = map.len();
    if start >= len {
        return None;
    }
    let window_end = len.min(start + block_bytes);
    let end = if window_end == len {
        len
    } else {
        match memchr::memrchr(b'\n', &map[start..window_end]) {
            Some(i) => start + i + 1,
            None => memchr::memchr(b'\n', &map[window_end..]).map_or(len, |i| window_end + i + 1),
        }
    };
    Some(start..end)
}

/// The next block read, cut as [`next_mapped`] cuts a map. Each byte is
/// searched for `\n` at most twice, so a long line is read in linear time.
fn next_read(
    reader: &mut Box<dyn Read + Send>,
    carry: &mut Vec<u8>,
    block_bytes: usize,
    hashed: &mut Option<(Sha256, u64)>,
) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = std::mem::take(carry);
    // One byte past the window tells whether the file ends within it.
    read_up_to(reader, &mut bytes, block_bytes + 1, hashed)?;
    if bytes.len() <= block_bytes {
        return Ok((!bytes.is_empty()).then_some(bytes));
    }
    let end = match memchr::memrchr(b'\n', &bytes[..block_bytes]) {
        Some(i) => i + 1,
        None => {
            let mut searched = block_bytes;
            loop {
                if let Some(i) = memchr::memchr(b'\n', &bytes[searched..]) {
                    break searched + i + 1;
                }
                searched = bytes.len();
                if read_up_to(reader, &mut bytes, searched + block_bytes, hashed)? == 0 {
                    break searched;
                }
            }
        }
    };
    *carry = bytes.split_off(end);
    Ok(Some(bytes))
}

/// Reads until `bytes` holds `len` bytes or the reader is at its end;
/// returns how many were read.
fn read_up_to(
    reader: &mut Box<dyn Read + Send>,
    bytes: &mut Vec<u8>,
    len: usize,
    hashed: &mut Option<(Sha256, u64)>,
) -> io::Result<usize> {
    let before = bytes.len();
    if len > before {
        reader
            .by_ref()
            .take((len - before) as u64)
            .read_to_end(bytes)?;
    }
    add_to_hash(hashed, &bytes[before..]);
    Ok(bytes.len() - before)
}

impl Block {
    /// The number of the block's first line (the first line of a file is 1).
    pub fn first_line(&self) -> usize {
        self.first_line
    }

    /// The block's bytes: whole lines, each ending in `\n` but perhaps the
    /// file's last.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            BlockBytes::Owned(bytes) => bytes,
            BlockBytes::Mapped { map, range } => &map[range.clone()],
        }
    }

    /// Calls `f` with each line that is not blank and its number, without
    /// its line ending (`\n` or `\r\n`, and any `\r` before it). A line that
    /// is not UTF-8 ends the block with an error naming `path` and the line;
    /// the lines before it were seen.
    pub fn for_each_line(
        &self,
        path: &Path,
        mut f: impl FnMut(usize, &str) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let bytes = self.bytes();
        // One check of the whole block, with SIMD; line by line only to find
        // the line at fault.
        let all_utf8 = simdutf8::basic::from_utf8(bytes).is_ok();
        let mut start = 0;
        let mut number = self.first_line;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let raw = &bytes[start..end];
            let line = if all_utf8 {
                // SAFETY: the block is UTF-8 and `\n` is a character of its own.
                unsafe { std::str::from_utf8_unchecked(raw) }
            } else {
                match simdutf8::basic::from_utf8(raw) {
                    Ok(line) => line,
                    Err(_) => anyhow::bail!(
                        "{}:{number}: stream did not contain valid UTF-8",
                        path.display()
                    ),
                }
            };
            let line = line.trim_end_matches('\r');
            if !line.trim().is_empty() {
                f(number, line)?;
            }
            start = end + 1;
            number += 1;
        }
        Ok(())
    }
}

impl Drop for Block {
    /// Lets go of the map's pages that lie wholly within the block: they are
    /// read once, and keeping them would make the process's memory grow
    /// with the file.
    #[cfg(unix)]
    fn drop(&mut self) {
        /// A multiple of every common page size (4, 16 and 64 KiB).
        const ALIGN: usize = 1 << 16;
        if let BlockBytes::Mapped { map, range } = &self.bytes {
            let start = range.start.next_multiple_of(ALIGN);
            let end = range.end / ALIGN * ALIGN;
            if start < end {
                // SAFETY: no other block holds these bytes, and this one is
                // going; the map is read-only, so the pages would be read
                // again from the file if anything touched them later.
                // A failure only keeps the pages.
                let _ = unsafe {
                    map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        start,
                        end - start,
                    )
                };
            }
        }
    }

    #[cfg(not(unix))]
    fn drop(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block as (first line, bytes).
    type Seen = (usize, Vec<u8>);

    /// Every block of a source, and its digest.
    fn all_blocks(mut lines: LineBlocks) -> (Vec<Seen>, Option<(String, u64)>) {
        let mut out = Vec::new();
        while let Some(block) = lines.next_block().unwrap() {
            out.push((block.first_line(), block.bytes().to_vec()));
        }
        (out, lines.digest())
    }

    fn mapped(path: &Path, block_bytes: usize) -> LineBlocks {
        let file = std::fs::File::open(path).unwrap();
        // SAFETY: a test's own file, not changed while mapped.
        let map = unsafe { Mmap::map(&file) }.unwrap();
        LineBlocks::new(path, Source::mapped(map), block_bytes, true)
    }

    fn read(path: &Path, block_bytes: usize) -> LineBlocks {
        let file = std::fs::File::open(path).unwrap();
        LineBlocks::new(
            path,
            Source::Read {
                reader: Box::new(file),
                carry: Vec::new(),
            },
            block_bytes,
            true,
        )
    }

    /// Lines of every kind a block must cut right: a BOM, CR LF, blank
    /// lines, lines longer than a block, no newline at the end.
    fn awkward_file() -> Vec<u8> {
        let mut text = BOM.to_vec();
        for i in 0..400 {
            let line = match i % 7 {
                0 => "x".repeat(3000),
                1 => String::new(),
                2 => format!("{{\"n\": {i}}}\r"),
                3 => "é".repeat(i),
                _ => format!("line {i}"),
            };
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
        text.extend_from_slice(b"last line, no newline");
        text
    }

    /// [`awkward_file`] written into `dir`: its path and bytes.
    fn write_awkward_file(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
        let path = dir.join("lines.jsonl");
        let text = awkward_file();
        std::fs::write(&path, &text).unwrap();
        (path, text)
    }

    #[test]
    fn mapped_and_read_files_give_the_same_blocks_lines_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let (path, text) = write_awkward_file(dir.path());
        let whole = (crate::util::hash::sha256_hex(&text), text.len() as u64);
        for block_bytes in [1, 7, 1000, 4096, 1 << 20] {
            let (mapped_blocks, mapped_digest) = all_blocks(mapped(&path, block_bytes));
            let (read_blocks, read_digest) = all_blocks(read(&path, block_bytes));
            assert!(mapped_blocks == read_blocks, "block_bytes {block_bytes}");
            assert_eq!(mapped_digest.as_ref(), Some(&whole));
            assert_eq!(read_digest.as_ref(), Some(&whole));
            // Blocks join into the file without its BOM, each of whole lines,
            // numbered as the lines before them.
            let joined: Vec<u8> = mapped_blocks.iter().flat_map(|(_, b)| b.clone()).collect();
            assert_eq!(joined, text[BOM.len()..]);
            let mut line = 1;
            for (i, (first, bytes)) in mapped_blocks.iter().enumerate() {
                assert_eq!(*first, line);
                assert!(i + 1 == mapped_blocks.len() || bytes.ends_with(b"\n"));
                assert!(block_bytes > 1 || bytes.iter().filter(|&&b| b == b'\n').count() <= 1);
                line += bytes.iter().filter(|&&b| b == b'\n').count();
            }
        }
    }

    #[test]
    fn lines_are_numbered_trimmed_and_blank_ones_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (path, text) = write_awkward_file(dir.path());
        let expected: Vec<(usize, String)> = String::from_utf8(text[BOM.len()..].to_vec())
            .unwrap()
            .split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r').to_string()))
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        for lines in [mapped(&path, 1000), read(&path, 999)] {
            let mut lines = lines;
            let mut seen = Vec::new();
            while let Some(block) = lines.next_block().unwrap() {
                block
                    .for_each_line(&path, |n, l| {
                        seen.push((n, l.to_string()));
                        Ok(())
                    })
                    .unwrap();
            }
            assert_eq!(seen, expected);
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named_after_the_lines_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, b"one\ntwo\n\xff\xfe\nfour\n").unwrap();
        let mut lines = LineBlocks::open(&path, false).unwrap();
        let block = lines.next_block().unwrap().unwrap();
        let mut seen = Vec::new();
        let error = block
            .for_each_line(&path, |n, l| {
                seen.push((n, l.to_string()));
                Ok(())
            })
            .unwrap_err();
        assert_eq!(seen, [(1, "one".to_string()), (2, "two".to_string())]);
        assert!(
            error
                .to_string()
                .ends_with("bad.jsonl:3: stream did not contain valid UTF-8")
        );
        assert_eq!(lines.digest(), None);
    }

    #[test]
    fn large_files_are_mapped_and_embedded_ones_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.jsonl");
        let line = format!("{}\n", "y".repeat(999));
        std::fs::write(&path, line.repeat(3000)).unwrap();
        let lines = LineBlocks::open(&path, true).unwrap();
        assert!(matches!(lines.source, Source::Mapped { .. }));
        let (found, _) = all_blocks(lines);
        assert_eq!(found.len(), 3000usize.div_ceil(BLOCK_BYTES / 1000));
        assert_eq!(found[1].0, 1 + BLOCK_BYTES / 1000);
        let embedded = embedded::name("datasets/sample/tasks.jsonl");
        let lines = LineBlocks::open(&embedded, true).unwrap();
        assert!(matches!(lines.source, Source::Read { .. }));
        let (found, digest) = all_blocks(lines);
        assert!(found[0].1.starts_with(b"{"));
        let stored = embedded::read(&embedded).unwrap();
        assert_eq!(digest.unwrap().1, stored.len() as u64);
    }

    /// The process's resident pages of mapped files, in KiB.
    #[cfg(target_os = "linux")]
    fn resident_file_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("RssFile:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Blocks let go of their pages: reading a 96 MiB file leaves a few
    /// MiB of it resident, not the file.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_file_does_not_stay_resident() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.jsonl");
        let line = format!("{}\n", "z".repeat(4095));
        std::fs::write(&path, line.repeat(96 * 256)).unwrap();
        let before = resident_file_kib();
        let mut lines = mapped(&path, 1 << 20);
        let (mut length, mut touched) = (0, 0);
        while let Some(block) = lines.next_block().unwrap() {
            length += block.bytes().len();
            // One byte of every page: each is mapped in.
            touched += block
                .bytes()
                .iter()
                .step_by(4096)
                .filter(|&&b| b == b'z')
                .count();
        }
        assert_eq!((length, touched), (96 << 20, 96 * 256));
        let grown = resident_file_kib().saturating_sub(before);
        assert!(grown < 32 * 1024, "{grown} KiB of the file stayed resident");
    }

    #[test]
    fn an_empty_file_has_no_block() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.jsonl");
        std::fs::write(&path, b"").unwrap();
        let (blocks, digest) = all_blocks(LineBlocks::open(&path, true).unwrap());
        assert!(blocks.is_empty());
        assert_eq!(digest, Some((crate::util::hash::sha256_hex(b""), 0)));
        std::fs::write(&path, BOM).unwrap();
        let (blocks, digest) = all_blocks(mapped(&path, 10));
        assert!(blocks.is_empty());
        assert_eq!(digest, Some((crate::util::hash::sha256_hex(BOM), 3)));
    }
}
