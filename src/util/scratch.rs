//! Zero-filled byte areas kept in unlinked scratch files mapped into
//! memory, whose resident pages can be let go.
//!
//! Scoring keeps one small record per (model, task) pair until the end of a
//! run, since every interval resamples tasks. Kept on the heap, they grow
//! the process with the number of predictions; kept in a mapped file, the
//! kernel holds them in its page cache (writing them to disk under
//! pressure), and [`ScratchArea::release`] drops them from the process
//! once a pass over them is done, so its resident memory stays flat. A page
//! let go is read back from the file on the next access: nothing is lost.
//!
//! The file is created in the system's temporary folder (`TMPDIR`), is
//! unlinked from the start (nothing is left behind, even after `kill -9`)
//! and has its blocks reserved up front, so a full disk is met here, where
//! the area falls back to the heap, never as a fault on a later write.

use std::io;

/// A fixed number of zero-initialised bytes, in a mapped scratch file when
/// one could be made, on the heap otherwise.
pub struct ScratchArea {
    storage: Storage,
}

enum Storage {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl ScratchArea {
    /// `len` zero bytes, mapped from a scratch file when possible.
    pub fn zeroed(len: usize) -> ScratchArea {
        let storage = match mapped(len) {
            Ok(Some(map)) => Storage::Mapped(map),
            Ok(None) | Err(_) => Storage::Heap(vec![0; len]),
        };
        ScratchArea { storage }
    }

    /// `len` zero bytes on the heap.
    pub fn on_heap(len: usize) -> ScratchArea {
        ScratchArea {
            storage: Storage::Heap(vec![0; len]),
        }
    }

    /// Whether the bytes live in a mapped scratch file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(bytes) => bytes,
            Storage::Mapped(map) => map,
        }
    }

    /// The bytes, to write.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.storage {
            Storage::Heap(bytes) => bytes,
            Storage::Mapped(map) => map,
        }
    }

    /// Lets the process's copy of the pages go (they stay in the file and
    /// come back on the next access). Nothing to do on the heap.
    pub fn release(&self) {
        if let Storage::Mapped(map) = &self.storage {
            // SAFETY: the map is a shared mapping of a file, so dropping its
            // pages keeps their contents (dirty pages stay in the page cache
            // and the file) and the next access, through any reference
            // into the map, reads them back: the advice changes no byte
            // and moves nothing.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

impl Default for ScratchArea {
    /// No bytes.
    fn default() -> ScratchArea {
        ScratchArea::on_heap(0)
    }
}

impl Clone for ScratchArea {
    fn clone(&self) -> ScratchArea {
        let mut copy = ScratchArea::zeroed(self.bytes().len());
        copy.bytes_mut().copy_from_slice(self.bytes());
        copy
    }
}

impl std::fmt::Debug for ScratchArea {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchArea")
            .field("len", &self.bytes().len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

/// A shared mapping of `len` reserved, zeroed bytes of a new unlinked file;
/// `None` where no such file can be had (empty area, no space, not Unix).
#[cfg(unix)]
fn mapped(len: usize) -> io::Result<Option<memmap2::MmapMut>> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(None);
    }
    let file = tempfile::tempfile()?;
    let Ok(size) = libc::off_t::try_from(len) else {
        return Ok(None);
    };
    // SAFETY: a plain system call on a descriptor this function owns.
    let reserved = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, size) };
    if reserved != 0 {
        return Ok(None);
    }
    // SAFETY: the file is this process's alone: it was created unlinked and
    // no other handle to it exists, so nothing can truncate it under the map.
    let map = unsafe { memmap2::MmapMut::map_mut(&file) }?;
    let _ = map.advise(memmap2::Advice::NoHugePage);
    Ok(Some(map))
}

#[cfg(not(unix))]
fn mapped(_len: usize) -> io::Result<Option<memmap2::MmapMut>> {
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resident pages of this process's mapping that holds `address`, in KiB
    /// (`Rss:` of its entry in /proc/self/smaps).
    #[cfg(target_os = "linux")]
    fn resident_kib(address: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((start, end)) = range.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                inside = (start..end).contains(&address);
            } else if inside && let Some(rest) = line.strip_prefix("Rss:") {
                return rest.trim().trim_end_matches("kB").trim().parse().unwrap();
            }
        }
        panic!("no mapping holds {address:#x}");
    }

    /// A mapped area starts zeroed, keeps what was written through a
    /// release, and a release drops its pages from the process.
    #[cfg(target_os = "linux")]
    #[test]
    fn released_pages_leave_the_process_and_keep_their_bytes() {
        let len = 8 << 20;
        let mut area = ScratchArea::zeroed(len);
        assert!(area.is_mapped());
        assert!(area.bytes().iter().all(|&b| b == 0));
        for (i, b) in area.bytes_mut().iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        let address = area.bytes().as_ptr() as usize;
        assert!(resident_kib(address) >= 8 << 10);
        area.release();
        assert!(resident_kib(address) < 1 << 10);
        assert!(
            area.bytes()
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (i % 251) as u8)
        );
        let copy = area.clone();
        assert_eq!(copy.bytes(), area.bytes());
    }

    #[test]
    fn an_empty_area_and_a_heap_area_work_alike() {
        let empty = ScratchArea::zeroed(0);
        assert!(!empty.is_mapped() && empty.bytes().is_empty());
        empty.release();
        let mut heap = ScratchArea::on_heap(3);
        heap.bytes_mut()[1] = 7;
        heap.release();
        assert_eq!(heap.bytes(), [0, 7, 0]);
        assert_eq!(ScratchArea::default().bytes().len(), 0);
    }
}
