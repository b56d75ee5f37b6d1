//! `itc datasets`: every dataset itc knows, with its size, licence, origin,
//! whether it is built into the binary or in the `itc ood fetch` cache, and
//! the command that runs it.
//!
//! The datasets are the sample set (`datasets/sample/`, what `itc eval` runs
//! when given no tasks) and each name `itc eval --dataset` accepts
//! ([`dataset::all`]), in that order, every BFCL category on its own row. Sizes are counted from the files a run would
//! read (the fetch cache when it holds them, else the built-in copies):
//! records of the benchmark's own format, one task each; a dataset with no
//! files at hand (NexusRaven before `itc ood fetch nexusraven`) gets the
//! bytes its fetch would download.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde_json::Value as J;

use super::dataset::{self, OodDataset, split_apibench_files};
use super::fetch;
use crate::util::embedded;
use crate::util::table::Table;

/// The sample set's task file, in the repository and in the binary.
const SAMPLE_TASKS: &str = "datasets/sample/tasks.jsonl";

/// What `itc datasets` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOptions {
    /// The `itc ood fetch` cache looked in.
    pub cache_dir: PathBuf,
}

impl Default for ListOptions {
    /// The cache `itc ood fetch` and `itc eval --dataset` use by default.
    fn default() -> ListOptions {
        ListOptions {
            cache_dir: fetch::default_cache_dir(),
        }
    }
}

/// One dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DatasetEntry {
    /// The name: `sample`, or the `--dataset` value.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Tasks it makes, when cheap to count from files at hand.
    pub tasks: Option<usize>,
    /// Bytes of its files (uncompressed).
    pub bytes: u64,
    /// Licence of the data.
    pub licence: String,
    /// Where it comes from: a GitHub repository, or this project.
    pub source: String,
    /// The commit the files are pinned to (none for the sample set).
    pub commit: Option<String>,
    /// A copy is compiled into `itc`.
    pub built_in: bool,
    /// The fetch cache holds every file, with the pinned hashes.
    pub cached: bool,
    /// Where a run reads it from: `cache`, `built in`, or `none` (fetch it first).
    pub reads_from: ReadsFrom,
    /// The command that downloads it (none for the sample set).
    pub fetch: Option<String>,
    /// The command that runs it.
    pub command: String,
}

/// Where a run of a dataset reads its files from, given no files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadsFrom {
    /// The `itc ood fetch` cache.
    Cache,
    /// The copy compiled into `itc`.
    BuiltIn,
    /// Nowhere yet: `itc ood fetch` it, or give the files.
    None,
}

impl ReadsFrom {
    /// The words a table shows.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadsFrom::Cache => "cache",
            ReadsFrom::BuiltIn => "built in",
            ReadsFrom::None => "none",
        }
    }
}

/// Every dataset itc knows: the sample set, then each `--dataset` name.
pub fn list(options: &ListOptions) -> anyhow::Result<Vec<DatasetEntry>> {
    let mut entries = vec![sample()?];
    for dataset in dataset::all() {
        entries.push(ood_entry(dataset, &options.cache_dir)?);
    }
    Ok(entries)
}

/// The sample set, counted from its embedded task file.
fn sample() -> anyhow::Result<DatasetEntry> {
    let path = embedded::name(SAMPLE_TASKS);
    let bytes = embedded::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let tasks = bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.trim_ascii().is_empty())
        .count();
    Ok(DatasetEntry {
        name: "sample".into(),
        description: "hand-made sample in the ITC format (datasets/sample/)".into(),
        tasks: Some(tasks),
        bytes: bytes.len() as u64,
        licence: "CC0-1.0 or MIT".into(),
        source: "this project".into(),
        commit: None,
        built_in: true,
        cached: false,
        reads_from: ReadsFrom::BuiltIn,
        fetch: None,
        command: "itc eval".into(),
    })
}

/// One `--dataset` name: its fetch manifest, and its files in the cache or the binary.
fn ood_entry(dataset: OodDataset, cache_dir: &Path) -> anyhow::Result<DatasetEntry> {
    let fetch_name = dataset.fetch_name();
    let manifest = dataset.manifest_files()?;
    let upstream = manifest
        .first()
        .map(|f| f.upstream)
        .with_context(|| format!("no files in the fetch manifest of {fetch_name}"))?;
    let cached = dataset.locate_cached(cache_dir)?;
    let shipped = dataset.shipped_files();
    let (files, reads_from) = match (cached, shipped.clone()) {
        (Some(files), _) => (Some(files), ReadsFrom::Cache),
        (None, Some(files)) => (Some(files), ReadsFrom::BuiltIn),
        (None, None) => (None, ReadsFrom::None),
    };
    let tasks = match &files {
        Some(files) => count_records(dataset, files)?,
        None => None,
    };
    let description = fetch::DATASETS
        .iter()
        .find(|(name, _)| *name == fetch_name)
        .map_or_else(
            || format!("{} {dataset}", dataset.label()),
            |(_, what)| what.to_string(),
        );
    Ok(DatasetEntry {
        name: dataset.to_string(),
        description,
        tasks,
        bytes: manifest.iter().map(|f| f.size).sum(),
        licence: upstream.licence.to_string(),
        source: format!("https://github.com/{}", upstream.repo),
        commit: Some(upstream.commit.to_string()),
        built_in: shipped.is_some(),
        cached: reads_from == ReadsFrom::Cache,
        reads_from,
        fetch: Some(format!("itc ood fetch {fetch_name}")),
        command: format!("itc eval --dataset {dataset}"),
    })
}

/// The records of a dataset's files, one task each, where that is cheap:
/// the question/answer lines of an APIBench hub, Seal-Tools' and StableToolBench's lists, the
/// instructions of ToolAlpaca's APIs. `None` for NexusRaven, whose files
/// come in several shapes.
fn count_records(dataset: OodDataset, files: &[PathBuf]) -> anyhow::Result<Option<usize>> {
    let read = |path: &Path| {
        embedded::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    let json_list = |path: &Path| -> anyhow::Result<Vec<J>> {
        serde_json::from_str(&read(path)?)
            .with_context(|| format!("{}: not a JSON list", path.display()))
    };
    let mut count = 0;
    match dataset {
        OodDataset::Apibench(_) => {
            for path in split_apibench_files(files)?.1 {
                count += read(&path)?
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .count();
            }
        }
        OodDataset::SealTools | OodDataset::StableToolBench(_) | OodDataset::Tau(_) => {
            for path in files {
                count += json_list(path)?.len();
            }
        }
        OodDataset::ToolAlpaca => {
            for path in files {
                for api in json_list(path)? {
                    let length = |field: &str| api[field].as_array().map_or(0, Vec::len);
                    count += length("Instructions").min(length("Golden_Answers"));
                }
            }
        }
        OodDataset::Bfcl(_) => {
            let is_question = |p: &&PathBuf| {
                p.parent()
                    .and_then(Path::file_name)
                    .is_none_or(|d| d != "possible_answer")
            };
            for path in files.iter().filter(is_question) {
                count += read(path)?.lines().filter(|l| !l.trim().is_empty()).count();
            }
        }
        OodDataset::NexusRaven => return Ok(None),
    }
    Ok(Some(count))
}

/// The JSON `itc datasets --format json` prints: the cache looked in and
/// every dataset.
pub fn to_json(entries: &[DatasetEntry], options: &ListOptions) -> J {
    serde_json::json!({"cache_dir": options.cache_dir, "datasets": entries})
}

/// The terminal table of `itc datasets`: one row per dataset, every column
/// left-aligned, in one piece (narrow enough for [`MAX_WIDTH`] columns;
/// `wide` only keeps a name that would not fit whole). Licences are shortened to their
/// identifiers (`CC0-1.0/MIT` for a choice of two) and built in/cached become where a run reads the files (the
/// JSON has them whole); the commands are in [`footer`].
///
/// [`MAX_WIDTH`]: crate::util::table::MAX_WIDTH
pub fn table(entries: &[DatasetEntry], wide: bool) -> String {
    let header = ["dataset", "tasks", "licence", "source", "read from"];
    let mut table = Table::new(header).with_labels(header.len());
    for e in entries {
        let size = match e.tasks {
            Some(n) => n.to_string(),
            None => format!("{} kB", e.bytes.div_ceil(1000)),
        };
        let licence = e
            .licence
            .split(" (")
            .next()
            .unwrap_or_default()
            .replace(" or ", "/");
        let source = e.source.trim_start_matches("https://github.com/");
        table.push([
            e.name.as_str(),
            &size,
            &licence,
            source,
            e.reads_from.as_str(),
        ]);
    }
    table.render(wide)
}

/// The lines under the table: how to run a dataset and how to fetch one.
pub fn footer() -> [&'static str; 2] {
    [
        "run one with `itc eval --dataset <dataset>` (the sample set: `itc eval`); \
         tasks without a number: the download's size",
        "read from: built in (the copy in itc), cache (`itc ood fetch`), none (fetch it first)",
    ]
}

/// A line for each dataset a run cannot read yet (no files at hand): how to
/// get it.
pub fn notes(entries: &[DatasetEntry]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.reads_from == ReadsFrom::None)
        .map(|e| {
            format!(
                "{}: not built in and not in the cache: run `{}` first, or give the files with --dataset-files (licence {})",
                e.name,
                e.fetch.as_deref().unwrap_or_default(),
                e.licence
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &Path) -> ListOptions {
        ListOptions {
            cache_dir: dir.to_path_buf(),
        }
    }

    /// With an empty cache, sizes come from the built-in copies, NexusRaven
    /// has only its download size, and nothing is cached.
    #[test]
    fn empty_cache_lists_built_in_copies() {
        let dir = tempfile::tempdir().unwrap();
        let entries = list(&options(dir.path())).unwrap();
        let names = dataset::names();
        assert_eq!(entries.len(), 1 + names.len());
        assert_eq!(entries[0].name, "sample");
        for (e, name) in entries[1..].iter().zip(names) {
            assert_eq!(e.name, name);
            assert!(!e.cached, "{name}");
            assert_eq!(e.command, format!("itc eval --dataset {name}"));
        }
        let raven = entries.iter().find(|e| e.name == "nexusraven").unwrap();
        assert_eq!(
            (raven.built_in, raven.reads_from, raven.tasks),
            (false, ReadsFrom::None, None)
        );
        let alpaca = entries.iter().find(|e| e.name == "toolalpaca").unwrap();
        let (tasks, _) = OodDataset::ToolAlpaca
            .convert(&OodDataset::ToolAlpaca.shipped_files().unwrap(), 0)
            .unwrap();
        assert_eq!(alpaca.tasks, Some(tasks.len()), "one task per instruction");
        assert_eq!(alpaca.reads_from, ReadsFrom::BuiltIn);
        let g3 = entries
            .iter()
            .find(|e| e.name == "stabletoolbench:G3_instruction")
            .unwrap();
        let d: OodDataset = "stabletoolbench:G3_instruction".parse().unwrap();
        let (tasks, _) = d.convert(&d.shipped_files().unwrap(), 0).unwrap();
        assert_eq!(g3.tasks, Some(tasks.len()), "one task per query");
        assert_eq!((g3.built_in, g3.reads_from), (true, ReadsFrom::BuiltIn));
        assert_eq!(
            g3.command,
            "itc eval --dataset stabletoolbench:G3_instruction"
        );
    }

    /// A row shows the size in tasks, or in kB when not counted.
    #[test]
    fn table_rows_show_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let entries = list(&options(dir.path())).unwrap();
        let text = table(&entries, true);
        let raven = entries.iter().find(|e| e.name == "nexusraven").unwrap();
        let row = text.lines().find(|l| l.contains("nexusraven")).unwrap();
        assert!(
            row.contains(&format!("{} kB", raven.bytes.div_ceil(1000))),
            "{row}"
        );
        let sample = text.lines().find(|l| l.contains(" sample ")).unwrap();
        assert!(sample.contains(&format!(" {} ", entries[0].tasks.unwrap())));
    }
}
