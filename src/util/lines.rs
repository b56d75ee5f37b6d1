//! Input files cut into blocks of whole lines, for the readers of JSON
//! Lines files ([`crate::spec::jsonl`] and the parallel scorer).
//!
//! A large file on disk is mapped, and its blocks are slices of the map:
//! nothing is copied, and the map's pages are let go a region at a time
//! once every block over the region is dropped (`Regions`), so memory
//! stays flat however large the file. Anything else (an embedded
//! file, a pipe, a small file) is read. Either way a leading UTF-8 byte
//! order mark is skipped, and the bytes can be hashed as the blocks are
//! handed out, so that a manifest records the SHA-256 of exactly the bytes
//! read without reading the file twice.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// Bytes of the file given out in blocks so far (a byte order mark
    /// included): where the next block starts.
    consumed: u64,
    /// SHA-256 and length of the bytes read (byte order mark included).
    hashed: Option<(Sha256, u64)>,
}

enum Source {
    Mapped {
        map: Arc<MappedFile>,
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
    /// Where the block's bytes start in the file.
    offset: u64,
    bytes: BlockBytes,
}

enum BlockBytes {
    Owned(Vec<u8>),
    Mapped {
        map: Arc<MappedFile>,
        range: Range<usize>,
        /// The regions of the map counted as in use by this block.
        regions: Range<usize>,
    },
}

/// A mapped file, and which of its regions blocks still use.
struct MappedFile {
    map: Mmap,
    regions: Mutex<Regions>,
}

impl std::ops::Deref for MappedFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl MappedFile {
    /// Counts a new block over `range` (blocks come in file order) and lets
    /// go of the regions that no block uses or will use; returns the
    /// regions counted.
    fn hand_out(&self, range: &Range<usize>) -> Range<usize> {
        let regions = Regions::of(range);
        let done = self.lock().hand_out(regions.clone(), range.end);
        self.let_go(done);
        regions
    }

    /// Uncounts a dropped block's regions and lets go of those now unused.
    fn give_back(&self, regions: Range<usize>) {
        let done = self.lock().give_back(regions);
        self.let_go(done);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Regions> {
        self.regions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[cfg(unix)]
    fn let_go(&self, regions: Range<usize>) {
        let start = regions.start * Regions::BYTES;
        let end = (regions.end * Regions::BYTES).min(self.map.len());
        if start < end {
            // SAFETY: the map is a read-only mapping of a file, so a page
            // let go is read again from the file if anything touches it
            // later. A failure only keeps the pages.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end - start,
                )
            };
        }
    }

    #[cfg(not(unix))]
    fn let_go(&self, _regions: Range<usize>) {}
}

/// Blocks in use per region of a map, for letting go of its pages.
///
/// A block's own pages cannot simply be let go when it is dropped: the
/// kernel maps a file's large folios (up to 2 MiB) whole when any of their
/// pages is touched, so the next block's first read maps the dropped
/// block's pages back (a 96 MiB file read in 128 KiB blocks stayed wholly
/// resident). A region of 2 MiB, aligned as folios are, is let go once the
/// reader is past it and no block over it is alive: nothing maps it again.
#[derive(Debug, Default)]
struct Regions {
    /// Region index of `live[0]`; regions before it were let go.
    first: usize,
    /// Live blocks per region from `first` on.
    live: VecDeque<u32>,
    /// Regions before this one get no new block (the reader is past them).
    passed: usize,
}

impl Regions {
    /// Bytes of a region: a multiple of every page size and of the largest
    /// folio the kernel maps a file with on x86-64 and 4 KiB-page arm64.
    const BYTES: usize = 2 << 20;

    /// The regions `range` overlaps.
    fn of(range: &Range<usize>) -> Range<usize> {
        range.start / Self::BYTES
            ..range
                .end
                .div_ceil(Self::BYTES)
                .max(range.start / Self::BYTES + 1)
    }

    /// Counts a block over `regions`, the next block starting at `next`;
    /// returns the regions to let go.
    fn hand_out(&mut self, regions: Range<usize>, next: usize) -> Range<usize> {
        while self.first + self.live.len() < regions.end {
            self.live.push_back(0);
        }
        for r in regions {
            if let Some(live) = r.checked_sub(self.first).and_then(|i| self.live.get_mut(i)) {
                *live += 1;
            }
        }
        self.passed = self.passed.max(next / Self::BYTES);
        self.unused()
    }

    /// Uncounts a block over `regions`; returns the regions to let go.
    fn give_back(&mut self, regions: Range<usize>) -> Range<usize> {
        for r in regions {
            if let Some(live) = r.checked_sub(self.first).and_then(|i| self.live.get_mut(i)) {
                *live = live.saturating_sub(1);
            }
        }
        self.unused()
    }

    /// Drops the leading regions that are passed and unused.
    fn unused(&mut self) -> Range<usize> {
        let start = self.first;
        while self.first < self.passed && self.live.front().is_some_and(|&n| n == 0) {
            self.live.pop_front();
            self.first += 1;
        }
        start..self.first
    }
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

    /// The lines of an open reader (a file opened with checks of its own,
    /// perhaps limited with [`Read::take`]), named `path` in messages; with
    /// `hash`, hashed as [`LineBlocks::open`] hashes.
    pub fn from_reader(path: &Path, reader: Box<dyn Read + Send>, hash: bool) -> LineBlocks {
        let source = Source::Read {
            reader,
            carry: Vec::new(),
        };
        LineBlocks::new(path, source, BLOCK_BYTES, hash)
    }

    fn new(path: &Path, source: Source, block_bytes: usize, hash: bool) -> LineBlocks {
        LineBlocks {
            path: path.to_path_buf(),
            source,
            block_bytes,
            next_line: 1,
            first: true,
            consumed: 0,
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
                        regions: map.hand_out(&range),
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
            let before = bytes.len();
            if std::mem::replace(&mut self.first, false) {
                bytes.skip_bom();
            }
            let block = Block {
                first_line: self.next_line,
                offset: self.consumed + (before - bytes.len()) as u64,
                bytes,
            };
            self.consumed += before as u64;
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
            map: Arc::new(MappedFile {
                map,
                regions: Mutex::default(),
            }),
            position: 0,
        }
    }
}

impl BlockBytes {
    fn len(&self) -> usize {
        match self {
            BlockBytes::Owned(bytes) => bytes.len(),
            BlockBytes::Mapped { range, .. } => range.len(),
        }
    }

    fn skip_bom(&mut self) {
        match self {
            BlockBytes::Owned(bytes) if bytes.starts_with(BOM) => {
                bytes.drain(..BOM.len());
            }
            BlockBytes::Mapped { map, range, .. } if map[range.clone()].starts_with(BOM) => {
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
                if searched > MAX_LINE_BYTES {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "a line longer than {} MiB (read from a pipe or device, whose lines itc keeps in memory)",
                            MAX_LINE_BYTES >> 20
                        ),
                    ));
                }
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
            BlockBytes::Mapped { map, range, .. } => &map[range.clone()],
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
        self.for_each_line_at(path, |number, _, line| f(number, line))
    }

    /// [`Block::for_each_line`], with each line's byte offset in the file:
    /// the line's bytes are the file's `line.len()` bytes from there.
    pub fn for_each_line_at(
        &self,
        path: &Path,
        mut f: impl FnMut(usize, u64, &str) -> anyhow::Result<()>,
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
                f(number, self.offset + start as u64, line)?;
            }
            start = end + 1;
            number += 1;
        }
        Ok(())
    }
}

impl Drop for Block {
    /// Gives the block's regions back, so that those no block uses any more
    /// are let go: they are read once, and keeping them would make the
    /// process's memory grow with the file.
    fn drop(&mut self) {
        if let BlockBytes::Mapped { map, regions, .. } = &self.bytes {
            map.give_back(regions.clone());
        }
    }
}

/// The longest line itc keeps in memory: of a file it reads a line at a
/// time (cassettes, a run's predictions on `--resume`), or of an input read
/// from a pipe or device rather than mapped. Far beyond any line itc
/// writes, and small enough that a file with no line end (`/dev/zero`) is an
/// error after this many bytes rather than an allocation of all memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// One line read by [`read_line_capped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// The file has no more bytes.
    End,
    /// A line, ended by `\n` (which is kept in the buffer).
    Ended,
    /// The file's last line, with no `\n`.
    Unended,
    /// A line longer than the cap: only its first `cap` bytes were read.
    TooLong,
}

/// Reads the next line into `line` (cleared first), keeping at most `cap`
/// bytes of it: memory stays within `cap` whatever the file holds.
pub fn read_line_capped(
    reader: &mut impl io::BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<LineRead> {
    line.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if line.is_empty() {
                LineRead::End
            } else {
                LineRead::Unended
            });
        }
        let (take, ended) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if line.len() + take > cap.saturating_add(usize::from(ended)) {
            let room = cap.saturating_sub(line.len()).min(take);
            line.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Ok(LineRead::TooLong);
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        if ended {
            return Ok(LineRead::Ended);
        }
    }
}

/// The length of the file's complete lines: up to and including its last
/// `\n` (what follows is a line torn by a crash).
pub fn complete_len(file: &mut (impl Read + io::Seek), len: u64) -> io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut end = len;
    let mut buffer = vec![0; CHUNK as usize];
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let chunk = &mut buffer[..(end - start) as usize];
        file.seek(io::SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(at) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + at as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Reads past the rest of the current line (its `\n` included) without
/// keeping it; returns the bytes passed.
pub fn skip_line(reader: &mut impl io::BufRead) -> io::Result<u64> {
    let mut passed = 0u64;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(passed);
        }
        let (take, ended) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        reader.consume(take);
        passed += take as u64;
        if ended {
            return Ok(passed);
        }
    }
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
    fn each_line_is_found_again_at_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let (path, text) = write_awkward_file(dir.path());
        for block_bytes in [1, 7, 999, 1 << 20] {
            for mut lines in [mapped(&path, block_bytes), read(&path, block_bytes)] {
                let mut seen = 0;
                while let Some(block) = lines.next_block().unwrap() {
                    block
                        .for_each_line_at(&path, |n, offset, line| {
                            let at = offset as usize;
                            assert_eq!(&text[at..at + line.len()], line.as_bytes(), "line {n}");
                            seen += 1;
                            Ok(())
                        })
                        .unwrap();
                }
                assert_eq!(seen, 344, "block_bytes {block_bytes}");
            }
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

    /// Blocks let go of their pages, those at their ends included: reading
    /// a 96 MiB file in 768 blocks whose ends fall inside pages leaves a
    /// few MiB of it resident, not the file (keeping the shared pages kept
    /// about 48 MiB).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_file_does_not_stay_resident() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.jsonl");
        let line = format!("{}\n", "z".repeat(999));
        std::fs::write(&path, line.repeat(96 * 1024 * 1024 / 1000)).unwrap();
        let size = std::fs::metadata(&path).unwrap().len() as usize;
        let before = resident_file_kib();
        let mut lines = mapped(&path, 1 << 17);
        let (mut length, mut touched) = (0, 0);
        while let Some(block) = lines.next_block().unwrap() {
            length += block.bytes().len();
            // One byte of every page: each is mapped in.
            touched += block
                .bytes()
                .iter()
                .step_by(4096)
                .filter(|&&b| b != 0)
                .count();
        }
        assert_eq!(length, size);
        assert!(touched >= size / 4096, "{touched} pages touched");
        let grown = resident_file_kib().saturating_sub(before);
        assert!(grown < 32 * 1024, "{grown} KiB of the file stayed resident");
    }

    /// A region is let go only when the reader is past it and every block
    /// over it was dropped, in whatever order the blocks go.
    #[test]
    fn regions_are_let_go_when_passed_and_unused() {
        const R: usize = Regions::BYTES;
        let gone = |r: Range<usize>| r.collect::<Vec<_>>();
        let mut regions = Regions::default();
        let a = Regions::of(&(0..R / 2));
        let b = Regions::of(&(R / 2..R + 10));
        let c = Regions::of(&(R + 10..3 * R + 5));
        assert_eq!((a.clone(), b.clone(), c.clone()), (0..1, 0..2, 1..4));
        assert!(regions.hand_out(a.clone(), R / 2).is_empty());
        assert!(regions.hand_out(b.clone(), R + 10).is_empty());
        // Dropped out of order: b first, then a frees region 0 only.
        assert!(regions.give_back(b).is_empty());
        assert_eq!(gone(regions.give_back(a)), vec![0]);
        // Region 1 is unused but the reader is still in it.
        assert!(regions.hand_out(c.clone(), 3 * R + 5).is_empty());
        assert_eq!(gone(regions.give_back(c)), vec![1, 2]);
        // The reader is not past region 3 yet; a block of one huge line
        // past it lets regions 3 and 4 go when dropped.
        let d = Regions::of(&(3 * R + 5..5 * R));
        assert!(regions.hand_out(d.clone(), 5 * R).is_empty());
        assert_eq!(gone(regions.give_back(d)), vec![3, 4]);
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

    #[test]
    fn capped_lines_stop_at_the_cap_and_say_how_they_ended() {
        let mut reader = io::BufReader::with_capacity(3, &b"ab\ncdefgh\nij"[..]);
        let mut line = Vec::new();
        let read =
            |r: &mut io::BufReader<&[u8]>, l: &mut Vec<u8>| read_line_capped(r, l, 4).unwrap();
        assert_eq!(read(&mut reader, &mut line), LineRead::Ended);
        assert_eq!(line, b"ab\n");
        assert_eq!(read(&mut reader, &mut line), LineRead::TooLong);
        assert_eq!(line, b"cdef");
        let mut exact = io::BufReader::new(&b"abcd\nxyz"[..]);
        assert_eq!(read(&mut exact, &mut line), LineRead::Ended);
        assert_eq!(line, b"abcd\n", "the cap counts the line, not its end");
        assert_eq!(read(&mut exact, &mut line), LineRead::Unended);
        assert_eq!(line, b"xyz");
        assert_eq!(read(&mut exact, &mut line), LineRead::End);
        // No line end at all: memory stays within the cap.
        let mut zeros = io::BufReader::new(io::repeat(0));
        assert_eq!(
            read_line_capped(&mut zeros, &mut line, 4).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(line.len(), 4);
    }

    #[test]
    fn a_device_with_no_line_end_is_an_error_not_all_memory() {
        let reader: Box<dyn Read + Send> = Box::new(io::repeat(b'x'));
        let source = Source::Read {
            reader,
            carry: Vec::new(),
        };
        let mut blocks = LineBlocks::new(Path::new("/dev/zero"), source, 1 << 20, false);
        let error = blocks.next_block().err().expect("an error").to_string();
        assert!(
            error.starts_with("/dev/zero:1: a line longer than 64 MiB"),
            "{error}"
        );
        let mut reader = io::BufReader::with_capacity(4, &b"abcdefgh\nz"[..]);
        assert_eq!(skip_line(&mut reader).unwrap(), 9);
        assert_eq!(skip_line(&mut reader).unwrap(), 1);
        assert_eq!(skip_line(&mut reader).unwrap(), 0);
    }
}
