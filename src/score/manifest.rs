//! `manifest.json`: what made a score folder or a run directory, so that a
//! number can be trusted and re-created later. `itc score --out` and
//! `itc eval` write one; `itc report` copies its inputs' manifests.
//!
//! It holds the itc version, the command line, the SHA-256 of the task file
//! and of every prediction file, the scoring settings (bootstrap resamples
//! and seed), start and end times, and for `itc eval` the models' settings
//! (the names of key variables, never keys) and the hashes of the prompt
//! templates.
//!
//! A file's path is written as a reader of the folder finds it: relative to
//! the folder holding the manifest (`tasks.jsonl` in a run directory,
//! `../data/tasks.jsonl` beside a score folder), absolute when the two share
//! nothing below the root, or `embedded:…` for a built-in file. Manifests
//! written before this held the path as given on the command line, relative
//! to the directory itc ran in; [`FileDigest::candidates`] still finds those.

use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use sha2::{Digest, Sha256};

use crate::spec::records::Task;
use crate::util::embedded;
use crate::util::hash::{sha256_file, to_hex};
use crate::util::time::rfc3339;

/// The file name in a score folder or run directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The largest `manifest.json` read (a manifest of thousands of prediction
/// files is a few megabytes).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// A file and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Where the file is: relative to the folder holding the manifest,
    /// absolute, or `embedded:…` for a built-in file (in manifests of older
    /// versions: the path as given, relative to where itc ran).
    pub path: String,
    /// Lower-case hex SHA-256 of its bytes.
    pub sha256: String,
    /// Its length in bytes.
    pub bytes: u64,
}

impl FileDigest {
    /// Hashes a file; the error names it.
    pub fn of(path: &Path) -> anyhow::Result<FileDigest> {
        let (sha256, bytes) =
            sha256_file(path).with_context(|| format!("hashing {}", path.display()))?;
        Ok(FileDigest {
            path: path.display().to_string(),
            sha256,
            bytes,
        })
    }

    /// The same file, its path as a reader of a manifest in `dir` finds it:
    /// relative to `dir` when the two share a directory below the root,
    /// else absolute; an embedded file's name as it is. `dir` must exist.
    pub fn placed_in(self, dir: &Path) -> FileDigest {
        if self.path.starts_with(embedded::PREFIX) {
            return self;
        }
        let given = Path::new(&self.path);
        let placed = relative_path(dir, given)
            .or_else(|| std::path::absolute(given).ok())
            .map_or_else(|| self.path.clone(), |p| p.display().to_string());
        FileDigest {
            path: placed,
            ..self
        }
    }

    /// Where a reader of the manifest in `dir` looks for the file, in this
    /// order: an embedded or absolute path as it is; a relative path in
    /// `dir`, then (a manifest of an older version) relative to the current
    /// directory, then its file name in `dir` (an older run directory read
    /// from elsewhere). Only a file with the recorded SHA-256 may be used.
    pub fn candidates(&self, dir: &Path) -> Vec<PathBuf> {
        let path = Path::new(&self.path);
        if self.path.starts_with(embedded::PREFIX) || path.is_absolute() {
            return vec![path.to_path_buf()];
        }
        let mut found = vec![dir.join(path), path.to_path_buf()];
        if let Some(name) = path.file_name() {
            found.push(dir.join(name));
        }
        let mut seen = std::collections::HashSet::new();
        found.retain(|p| seen.insert(p.clone()));
        found
    }
}

/// `file` relative to the directory `dir` (both resolved, symbolic links
/// too), or `None` when one cannot be resolved or they share only the root.
fn relative_path(dir: &Path, file: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    let file = file.canonicalize().ok()?;
    let d: Vec<Component> = dir.components().collect();
    let f: Vec<Component> = file.components().collect();
    let common = d.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let below_root = d
        .iter()
        .take(common)
        .any(|c| matches!(c, Component::Normal(_)));
    if !below_root {
        return None;
    }
    let mut relative: PathBuf = d[common..].iter().map(|_| Component::ParentDir).collect();
    relative.extend(&f[common..]);
    Some(relative)
}

/// The settings that decide the numbers of a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoringRecord {
    /// SPEC §3's loose value rules turned off.
    pub strict_values: bool,
    /// Bootstrap resamples of the intervals (0: none).
    pub bootstrap_resamples: usize,
    /// Seed of the bootstrap.
    pub bootstrap_seed: u64,
}

/// The contents of `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The version of itc that wrote it.
    pub itc_version: String,
    /// The git commit that itc was built from (absent in manifests written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itc_commit: Option<String>,
    /// The command line, program name first.
    pub command: Vec<String>,
    /// When the command started (RFC 3339, UTC).
    pub started: String,
    /// When the scores were written (RFC 3339, UTC).
    pub finished: String,
    /// The task file.
    pub tasks: FileDigest,
    /// SHA-256 of the tasks as itc reads them, written back as JSON Lines
    /// ([`task_set_sha256`]): the same for a task file and a run
    /// directory's copy of it, whatever their spacing or key order.
    pub task_set_sha256: String,
    /// The prediction files, in the order given.
    pub predictions: Vec<FileDigest>,
    /// How the scores were computed.
    pub scoring: ScoringRecord,
    /// For `itc eval`: the models' settings and the prompt templates'
    /// hashes (written by the run; absent for `itc score`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<serde_json::Value>,
}

impl Manifest {
    /// The manifest, to be written in `dir`, of a score of `predictions`
    /// (as they were read) against `tasks`, started at `started` and
    /// finished now; paths as a reader of `dir` finds them
    /// ([`FileDigest::placed_in`]).
    pub fn new(
        started: SystemTime,
        dir: &Path,
        tasks: &Path,
        task_set: &[Task],
        predictions: Vec<FileDigest>,
        scoring: ScoringRecord,
    ) -> anyhow::Result<Manifest> {
        Ok(Manifest {
            itc_version: crate::util::version::VERSION.to_string(),
            itc_commit: Some(crate::util::version::COMMIT.to_string()),
            command: std::env::args().collect(),
            started: rfc3339(started),
            finished: rfc3339(SystemTime::now()),
            tasks: FileDigest::of(tasks)?.placed_in(dir),
            task_set_sha256: task_set_sha256(task_set),
            predictions: predictions.into_iter().map(|p| p.placed_in(dir)).collect(),
            scoring,
            eval: None,
        })
    }

    /// Writes `manifest.json` into `dir` (whole or not at all).
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(MANIFEST_FILE);
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::util::atomic::write(&path, text.as_bytes())
    }

    /// Reads `manifest.json` from `dir`; `None` when there is none (a
    /// folder written before manifests existed). Anything but a regular
    /// file of at most 64 MiB is refused.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Manifest>> {
        let path = dir.join(MANIFEST_FILE);
        let text = match crate::util::regular::read_capped(&path, MAX_MANIFEST_BYTES) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let manifest = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not an itc manifest", path.display()))?;
        Ok(Some(manifest))
    }
}

/// SHA-256 of tasks written as itc writes a task file (one compact JSON
/// object a line, fields in itc's order): the identity of a task set.
pub fn task_set_sha256(tasks: &[Task]) -> String {
    let mut hasher = Sha256::new();
    for task in tasks {
        hasher.update(serde_json::to_vec(task).expect("a task serialises"));
        hasher.update(b"\n");
    }
    to_hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_hashes_its_files_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("tasks.jsonl");
        let predictions = dir.path().join("p.jsonl");
        std::fs::write(&tasks, b"abc").unwrap();
        std::fs::write(&predictions, b"").unwrap();
        let scoring = ScoringRecord {
            strict_values: false,
            bootstrap_resamples: 1000,
            bootstrap_seed: 7,
        };
        let read = vec![FileDigest::of(&predictions).unwrap()];
        let m = Manifest::new(SystemTime::now(), dir.path(), &tasks, &[], read, scoring).unwrap();
        // Paths are written relative to the folder of the manifest.
        assert_eq!(
            (m.tasks.path.as_str(), m.predictions[0].path.as_str()),
            ("tasks.jsonl", "p.jsonl")
        );
        assert_eq!(
            m.tasks.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(m.predictions[0].bytes, 0);
        assert!(m.started.ends_with('Z') && m.started <= m.finished);
        m.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), Some(m));
        assert_eq!(Manifest::read(&dir.path().join("none")).unwrap(), None);
        std::fs::write(dir.path().join(MANIFEST_FILE), "{}").unwrap();
        let err = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("manifest.json: not an itc manifest"), "{err}");
    }

    #[test]
    fn paths_are_placed_relative_to_the_folder_and_found_from_it() {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data/tasks.jsonl");
        let out = root.path().join("runs/scored");
        std::fs::create_dir_all(data.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(&data, b"abc").unwrap();
        let digest = FileDigest::of(&data).unwrap();
        let placed = digest.clone().placed_in(&out);
        assert_eq!(placed.path, "../../data/tasks.jsonl");
        assert_eq!((&placed.sha256, placed.bytes), (&digest.sha256, 3));
        let found = placed.candidates(&out);
        assert_eq!(found[0], out.join("../../data/tasks.jsonl"));
        assert_eq!(std::fs::read(&found[0]).unwrap(), b"abc");
        // Older manifests' cwd-relative paths come after, then the file name
        // in the folder; absolute and embedded paths are taken as they are.
        assert_eq!(found[1], Path::new("../../data/tasks.jsonl"));
        assert_eq!(found[2], out.join("tasks.jsonl"));
        let embedded = FileDigest {
            path: "embedded:datasets/sample/tasks.jsonl".into(),
            ..digest.clone()
        };
        assert_eq!(embedded.clone().placed_in(&out), embedded);
        assert_eq!(
            embedded.candidates(&out),
            [Path::new("embedded:datasets/sample/tasks.jsonl")]
        );
        let absolute = FileDigest {
            path: "/dev/zero".into(),
            ..digest
        };
        assert_eq!(absolute.candidates(&out), [Path::new("/dev/zero")]);
        // Sharing only the root: absolute.
        let elsewhere = FileDigest::of(Path::new("/dev/null")).unwrap();
        assert_eq!(elsewhere.placed_in(&out).path, "/dev/null");
    }

    #[test]
    fn a_manifest_that_is_not_a_regular_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(MANIFEST_FILE)).unwrap();
        let err = format!("{:#}", Manifest::read(dir.path()).unwrap_err());
        assert!(err.contains("not a regular file (a directory)"), "{err}");
    }

    #[test]
    fn a_task_set_hashes_alike_however_its_file_is_written() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/sample/tasks.jsonl"
        ))
        .unwrap();
        let tasks: Vec<Task> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // Spaced out, keys in another order: the same tasks.
        let respaced: Vec<Task> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let mut pairs: Vec<_> = v.as_object().unwrap().iter().collect();
                pairs.reverse();
                let reordered: serde_json::Map<_, _> = pairs
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let spaced = serde_json::to_string_pretty(&reordered).unwrap();
                serde_json::from_str(&spaced).unwrap()
            })
            .collect();
        assert_eq!(task_set_sha256(&tasks), task_set_sha256(&respaced));
        // A run directory's copy is that very text.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("tasks.jsonl");
        crate::spec::jsonl::write_records(&copy, &tasks).unwrap();
        assert_eq!(
            FileDigest::of(&copy).unwrap().sha256,
            task_set_sha256(&tasks)
        );
        assert_ne!(task_set_sha256(&tasks), task_set_sha256(&tasks[1..]));
    }
}
