//! One writer per folder: a lock file holding the writer's process id.
//!
//! `itc eval` locks its run directory and `itc score --out` (like every
//! command writing a folder of results) its output folder for as long as it
//! writes there. A second writer is refused with a message naming the
//! holder; a lock left by a process that is gone is taken over with a notice.
//! A folder the user did not name (`itc eval`'s default run directory, the
//! benches' scratch folders) is claimed by creating it
//! ([`create_fresh_dir`]), so two processes never pick the same one.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The lock file's name inside the locked folder.
pub const LOCK_FILE: &str = ".itc.lock";

/// Who holds a lock: what the lock file records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The holder's process id.
    pub pid: u32,
    /// The holder's command line.
    pub command: String,
}

impl Holder {
    fn this_process() -> Holder {
        Holder {
            pid: std::process::id(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
        }
    }

    fn describe(&self) -> String {
        format!("process {} (`{}`)", self.pid, self.command)
    }
}

/// A held lock; dropping it removes the lock file.
#[derive(Debug)]
pub struct FolderLock {
    /// The lock file, or `None` when this process already held the lock
    /// (an inner writer of the same command, which must not release it).
    path: Option<PathBuf>,
}

impl FolderLock {
    /// Locks `dir` (created if missing) for this process. `notes` hears of
    /// a stale lock taken over.
    pub fn acquire(dir: &Path, notes: &mut dyn Write) -> anyhow::Result<FolderLock> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(LOCK_FILE);
        let me = Holder::this_process();
        match create(&path, &me) {
            Ok(()) => return Ok(FolderLock { path: Some(path) }),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
        }
        let holder = read_holder(&path)?;
        if holder.pid == me.pid {
            return Ok(FolderLock { path: None });
        }
        if is_alive(holder.pid) {
            anyhow::bail!(
                "{} is in use by {}: two writers must not share a folder (use another folder, or wait for it to finish; if that process is not an itc writer, delete {})",
                dir.display(),
                holder.describe(),
                path.display()
            );
        }
        writeln!(
            notes,
            "note: {} was locked by {}, which is gone: taking the lock over",
            dir.display(),
            holder.describe()
        )?;
        std::fs::remove_file(&path)
            .or_else(|e| {
                if e.kind() == ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            })
            .with_context(|| format!("removing the stale lock {}", path.display()))?;
        match create(&path, &me) {
            Ok(()) => Ok(FolderLock { path: Some(path) }),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let winner = read_holder(&path)?;
                anyhow::bail!(
                    "{} was just locked by {}: two writers must not share a folder",
                    dir.display(),
                    winner.describe()
                )
            }
            Err(e) => Err(e).with_context(|| format!("creating {}", path.display())),
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
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

/// Creates the lock file, failing with `AlreadyExists` when there is one.
fn create(path: &Path, holder: &Holder) -> std::io::Result<()> {
    let mut file: File = OpenOptions::new().write(true).create_new(true).open(path)?;
    let text = serde_json::to_string(holder).map_err(std::io::Error::other)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// The holder a lock file names. A file that cannot be read as one (a
/// writer killed between creating and filling it) names no live process.
fn read_holder(path: &Path) -> anyhow::Result<Holder> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    Ok(serde_json::from_str(&text).unwrap_or(Holder {
        pid: 0,
        command: "unknown (an unreadable lock file)".into(),
    }))
}

/// Whether a process with this id runs. Where `/proc` is missing (not
/// Linux), every named process counts as alive: a stale lock is then
/// removed by hand, as the refusal says.
fn is_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return true;
    }
    proc.join(pid.to_string()).exists()
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

    #[test]
    fn a_second_writer_is_refused_and_the_lock_is_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        let lock = FolderLock::acquire(&folder, &mut Vec::new()).unwrap();
        let lock_file = folder.join(LOCK_FILE);
        assert!(lock_file.exists());
        // Another live process holds it: pretend with our parent's id.
        let other = Holder {
            pid: std::os::unix::process::parent_id(),
            command: "itc eval --run-dir out".into(),
        };
        drop(lock);
        assert!(!lock_file.exists());
        std::fs::write(&lock_file, serde_json::to_string(&other).unwrap()).unwrap();
        let err = FolderLock::acquire(&folder, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is in use by process"), "{err}");
        assert!(err.contains("itc eval --run-dir out"), "{err}");
        assert!(
            lock_file.exists(),
            "a refusal leaves the holder's lock alone"
        );
    }

    #[test]
    fn a_stale_lock_is_taken_over_with_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let lock_file = dir.path().join(LOCK_FILE);
        // A process id above Linux's maximum (4194304) never runs.
        let gone = Holder {
            pid: 4_194_305,
            command: "itc score --out x".into(),
        };
        std::fs::write(&lock_file, serde_json::to_string(&gone).unwrap()).unwrap();
        let mut notes = Vec::new();
        let lock = FolderLock::acquire(dir.path(), &mut notes).unwrap();
        let notes = String::from_utf8(notes).unwrap();
        assert!(
            notes.contains("which is gone: taking the lock over"),
            "{notes}"
        );
        let now: Holder =
            serde_json::from_str(&std::fs::read_to_string(&lock_file).unwrap()).unwrap();
        assert_eq!(now.pid, std::process::id());
        drop(lock);
        assert!(!lock_file.exists());
    }

    #[test]
    fn the_same_process_may_lock_again_without_releasing_early() {
        let dir = tempfile::tempdir().unwrap();
        let outer = FolderLock::acquire(dir.path(), &mut Vec::new()).unwrap();
        let inner = FolderLock::acquire(dir.path(), &mut Vec::new()).unwrap();
        drop(inner);
        assert!(
            dir.path().join(LOCK_FILE).exists(),
            "the outer writer still holds it"
        );
        drop(outer);
        assert!(!dir.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn an_empty_lock_file_counts_as_stale() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "").unwrap();
        let mut notes = Vec::new();
        let _lock = FolderLock::acquire(dir.path(), &mut notes).unwrap();
        assert!(
            String::from_utf8(notes)
                .unwrap()
                .contains("unreadable lock file")
        );
    }
}
