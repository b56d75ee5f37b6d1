//! One writer per folder: an advisory lock (`flock`) on a lock file.
//!
//! `itc eval` locks its run directory and `itc score --out` (like every
//! command writing a folder of results) its output folder for as long as it
//! writes there. The lock is the kernel's exclusive `flock` on `.itc.lock`,
//! taken in one step and released by the kernel when the holder exits or
//! dies; the file also records the holder's process id and command line, so
//! that a second writer is refused with a message naming the holder. The
//! file stays in the folder: released, it is emptied; one that still names
//! a process but is locked by none was left by a writer that died, and is
//! taken over with a notice.
//! A folder the user did not name (`itc eval`'s default run directory, the
//! benches' scratch folders) is claimed by creating it
//! ([`create_fresh_dir`]), so two processes never pick the same one.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::util::bounded::clip;

/// The lock file's name inside the locked folder.
pub const LOCK_FILE: &str = ".itc.lock";

/// How long a refused writer waits for the holder to record itself (it
/// takes the lock first, then writes its name) before refusing without it.
const NAME_WAIT: Duration = Duration::from_secs(1);

/// Who holds a lock: what the lock file records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The holder's process id.
    pub pid: u32,
    /// The holder's command line (its first 1,000 characters).
    pub command: String,
}

impl Holder {
    fn this_process() -> Holder {
        Holder {
            pid: std::process::id(),
            command: clip(&std::env::args().collect::<Vec<_>>().join(" "), 1000),
        }
    }

    fn describe(&self) -> String {
        format!("process {} (`{}`)", self.pid, clip(&self.command, 200))
    }
}

/// The folders (canonical paths) this process holds: a second lock of one
/// of them in this process is an inner writer of the same command. `flock`
/// cannot tell, as a second open of the file would conflict with the first.
static HELD: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn held_folders() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A held lock; dropping it empties the lock file and releases the lock.
#[derive(Debug)]
pub struct FolderLock {
    /// The folder (canonical) and its lock file, open and locked; `None`
    /// when this process already held the lock (an inner writer of the same
    /// command, which must not release it).
    held: Option<(PathBuf, File)>,
}

impl FolderLock {
    /// Locks `dir` (created if missing) for this process. `notes` hears of
    /// a lock taken over from a writer that died.
    pub fn acquire(dir: &Path, notes: &mut dyn Write) -> anyhow::Result<FolderLock> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let canonical = dir
            .canonicalize()
            .with_context(|| format!("resolving {}", dir.display()))?;
        let mut held = held_folders();
        if held.contains(&canonical) {
            return Ok(FolderLock { held: None });
        }
        let path = dir.join(LOCK_FILE);
        let mut file =
            open_lock_file(&path).with_context(|| format!("opening {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                drop(held);
                return Err(refusal(dir, &path, &file));
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        let me = Holder::this_process();
        let gone = read_holder(&file).filter(|h| h.pid != me.pid);
        record(&mut file, Some(&me)).with_context(|| format!("writing {}", path.display()))?;
        held.insert(canonical.clone());
        let lock = FolderLock {
            held: Some((canonical, file)),
        };
        if let Some(gone) = gone {
            writeln!(
                notes,
                "note: {} was locked by {}, which is gone: taking the lock over",
                dir.display(),
                gone.describe()
            )?;
        }
        Ok(lock)
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        if let Some((dir, mut file)) = self.held.take() {
            // Emptied while still locked: a lock file that names a process
            // but is not locked is then one left by a writer that died.
            let _ = record(&mut file, None);
            let mut held = held_folders();
            drop(file);
            held.remove(&dir);
        }
    }
}

/// Creates a new, empty folder named `base`, or `base-2`, `base-3`, … when
/// that name is taken (its parents are created as needed), and returns it.
/// Creating the folder is the claim: of two processes asking for the same
/// name at once, each gets a folder of its own.
pub fn create_fresh_dir(base: &Path) -> anyhow::Result<PathBuf> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let mut name = base.as_os_str().to_owned();
    for n in 2u32.. {
        let dir = PathBuf::from(&name);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && n <= 10_000 => {}
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
        name = base.as_os_str().to_owned();
        name.push(format!("-{n}"));
    }
    unreachable!("the loop returns by n = 10,001")
}

/// Opens (creating) the lock file, never through a symbolic link: a link
/// planted there must not make itc write elsewhere.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path)
}

/// The refusal of a second writer, naming the holder once it has recorded
/// itself (until then the file is empty, or still names the writer that
/// died before it, which no running process is).
fn refusal(dir: &Path, path: &Path, file: &File) -> anyhow::Error {
    let deadline = Instant::now() + NAME_WAIT;
    let holder = loop {
        match read_holder(file).filter(|h| is_running(h.pid)) {
            Some(holder) => break holder.describe(),
            None if Instant::now() >= deadline => {
                break format!("another process (not named in {})", path.display());
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    anyhow::anyhow!(
        "{} is in use by {holder}: two writers must not share a folder (use another folder, or wait for it to finish)",
        dir.display()
    )
}

/// The holder the lock file names; `None` when it names none (emptied on
/// release, or not yet filled by a writer that has just taken the lock).
fn read_holder(mut file: impl Read + Seek) -> Option<Holder> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(64 * 1024).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Whether a process with this id runs (on Unix; elsewhere any may).
fn is_running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        // Signal 0 checks the process exists without signalling it; a
        // process of another user answers EPERM. Id 0 would mean our group.
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: a plain system call; signal 0 is never delivered.
        let answer = unsafe { libc::kill(pid, 0) };
        answer == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        pid != 0
    }
}

/// Replaces what the lock file records: the holder, or nothing.
fn record(file: &mut File, holder: Option<&Holder>) -> std::io::Result<()> {
    file.set_len(0)?;
    if let Some(holder) = holder {
        let text = serde_json::to_string(holder).map_err(std::io::Error::other)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_folders_never_share_a_name() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("runs").join("m-20261127-131500");
        let first = create_fresh_dir(&base).unwrap();
        assert_eq!(first, base);
        std::fs::write(first.join("predictions.jsonl"), "x").unwrap();
        let second = create_fresh_dir(&base).unwrap();
        assert_eq!(second, dir.path().join("runs").join("m-20261127-131500-2"));
        let third = create_fresh_dir(&base).unwrap();
        assert_eq!(third, dir.path().join("runs").join("m-20261127-131500-3"));
        assert_eq!(std::fs::read_dir(&second).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_to_string(first.join("predictions.jsonl")).unwrap(),
            "x",
            "the taken folder is left as it was"
        );
        // Threads racing for one name each get a folder of their own.
        let racing = dir.path().join("race");
        let dirs: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| create_fresh_dir(&racing).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let distinct: std::collections::BTreeSet<_> = dirs.iter().collect();
        assert_eq!(distinct.len(), 8, "{dirs:?}");
    }

    /// Another writer holding `path` through an open file of its own,
    /// recording `holder`.
    fn hold(path: &Path, holder: Option<&Holder>) -> File {
        let mut file = open_lock_file(path).unwrap();
        file.try_lock().unwrap();
        record(&mut file, holder).unwrap();
        file
    }

    /// Whether nobody holds the lock file's lock.
    fn free(path: &Path) -> bool {
        File::open(path).unwrap().try_lock().is_ok()
    }

    fn recorded(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_second_writer_is_refused_and_the_lock_is_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        let lock = FolderLock::acquire(&folder, &mut Vec::new()).unwrap();
        let lock_file = folder.join(LOCK_FILE);
        let me: Holder = serde_json::from_str(&recorded(&lock_file)).unwrap();
        assert_eq!(me.pid, std::process::id());
        assert!(!free(&lock_file));
        drop(lock);
        assert_eq!(recorded(&lock_file), "", "emptied and left in place");
        assert!(free(&lock_file));

        let other = Holder {
            pid: std::os::unix::process::parent_id(),
            command: "itc eval --run-dir out".into(),
        };
        let _other = hold(&lock_file, Some(&other));
        let err = FolderLock::acquire(&folder, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "is in use by process {} (`itc eval --run-dir out`)",
                other.pid
            )),
            "{err}"
        );
        assert!(err.contains("two writers must not share a folder"), "{err}");
        assert_eq!(
            recorded(&lock_file),
            serde_json::to_string(&other).unwrap(),
            "a refusal leaves the holder's lock alone"
        );
    }

    #[test]
    fn a_lock_left_by_a_writer_that_died_is_taken_over_with_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let lock_file = dir.path().join(LOCK_FILE);
        // A process id above Linux's maximum (4194304) never runs; and a
        // live process that does not hold the lock does not hold the folder.
        for pid in [4_194_305, std::os::unix::process::parent_id()] {
            let gone = Holder {
                pid,
                command: "itc score --out x".into(),
            };
            std::fs::write(&lock_file, serde_json::to_string(&gone).unwrap()).unwrap();
            let mut notes = Vec::new();
            let lock = FolderLock::acquire(dir.path(), &mut notes).unwrap();
            let notes = String::from_utf8(notes).unwrap();
            assert!(
                notes.contains(&format!(
                    "was locked by process {pid} (`itc score --out x`), which is gone: taking the lock over"
                )),
                "{notes}"
            );
            let now: Holder = serde_json::from_str(&recorded(&lock_file)).unwrap();
            assert_eq!(now.pid, std::process::id());
            drop(lock);
            assert_eq!(recorded(&lock_file), "");
        }
    }

    #[test]
    fn the_same_process_may_lock_again_without_releasing_early() {
        let dir = tempfile::tempdir().unwrap();
        let lock_file = dir.path().join(LOCK_FILE);
        let outer = FolderLock::acquire(dir.path(), &mut Vec::new()).unwrap();
        // The same folder by another name.
        let inner = FolderLock::acquire(&dir.path().join("."), &mut Vec::new()).unwrap();
        drop(inner);
        assert!(!free(&lock_file), "the outer writer still holds it");
        assert!(!recorded(&lock_file).is_empty());
        drop(outer);
        assert!(free(&lock_file));
        let again = FolderLock::acquire(dir.path(), &mut Vec::new()).unwrap();
        assert!(!free(&lock_file), "released, it can be taken again");
        drop(again);
    }

    #[test]
    fn an_empty_or_unreadable_lock_file_nobody_holds_is_taken_quietly() {
        let dir = tempfile::tempdir().unwrap();
        for text in ["", "{\"pid\": 12", "not json"] {
            std::fs::write(dir.path().join(LOCK_FILE), text).unwrap();
            let mut notes = Vec::new();
            let lock = FolderLock::acquire(dir.path(), &mut notes).unwrap();
            assert!(notes.is_empty(), "{text:?}: a lock named nobody");
            drop(lock);
        }
    }

    /// Issue 34: a writer that found the lock file created but not yet
    /// filled took it for a dead writer's and took the folder over.
    #[test]
    fn an_empty_lock_file_held_by_another_writer_is_never_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let lock_file = dir.path().join(LOCK_FILE);
        // Not yet filled, or still naming the writer that died before it.
        let dead = Holder {
            pid: 4_194_305,
            command: "itc score --out x".into(),
        };
        for before in [None, Some(&dead)] {
            let other = hold(&lock_file, before);
            let left = recorded(&lock_file);
            let started = Instant::now();
            let err = FolderLock::acquire(dir.path(), &mut Vec::new())
                .unwrap_err()
                .to_string();
            assert!(started.elapsed() >= NAME_WAIT, "waited for a name");
            assert!(err.contains("is in use by another process"), "{err}");
            assert!(err.contains("two writers must not share a folder"), "{err}");
            assert_eq!(recorded(&lock_file), left, "left as it was");
            drop(other);
        }
        let mut other = hold(&lock_file, None);
        // A holder that records itself while the refused writer waits is
        // named.
        let holder = Holder {
            pid: std::os::unix::process::parent_id(),
            command: "itc merge a b -o out".into(),
        };
        let err = std::thread::scope(|s| {
            let refused = s.spawn(|| FolderLock::acquire(dir.path(), &mut Vec::new()));
            std::thread::sleep(Duration::from_millis(100));
            record(&mut other, Some(&holder)).unwrap();
            refused.join().unwrap().unwrap_err().to_string()
        });
        assert!(
            err.contains(&format!(
                "is in use by process {} (`itc merge a b -o out`)",
                holder.pid
            )),
            "{err}"
        );
        drop(other);
        assert!(FolderLock::acquire(dir.path(), &mut Vec::new()).is_ok());
    }

    #[test]
    fn a_symlink_planted_as_the_lock_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        let outside = dir.path().join("precious.txt");
        std::fs::write(&outside, "keep me").unwrap();
        std::os::unix::fs::symlink(&outside, folder.join(LOCK_FILE)).unwrap();
        let err = FolderLock::acquire(&folder, &mut Vec::new()).unwrap_err();
        assert!(format!("{err:#}").contains(LOCK_FILE), "{err:#}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
    }
}
