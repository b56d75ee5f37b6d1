//! The OOD datasets `itc eval --dataset NAME` runs and `itc ood report`
//! tabulates: their names, where their files are found (files given by the
//! user, else the `itc ood fetch` cache, else the copies of `datasets/ood/`
//! embedded in the binary), and their conversion into SPEC tasks.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::apibench::{self, Hub};
use super::bfcl::{self, CategorySet};
use super::stabletoolbench::{self, Group};
use super::tau::{self, Domain as TauDomain};
use super::{ConvertWarning, fetch, nexusraven, seal_tools, toolalpaca};
use crate::models::config::PromptStyle;
use crate::spec::records::Task;
use crate::util::embedded;

/// One OOD dataset.
/// Ordered as report columns: ITC's Table 5 (NexusRaven, Seal-Tools,
/// ToolAlpaca), then the hubs in ToolLLM's order (HuggingFace, TorchHub,
/// TensorHub).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OodDataset {
    /// NexusRaven (CC-BY-NC data: never shipped, fetched or given by the user).
    NexusRaven,
    /// Seal-Tools, in-domain test set.
    SealTools,
    /// ToolAlpaca, simulated evaluation set.
    ToolAlpaca,
    /// One APIBench hub.
    Apibench(Hub),
    /// One StableToolBench group of solvable test queries (selection only).
    StableToolBench(Group),
    /// BFCL v4 Python AST categories.
    Bfcl(CategorySet),
    /// One τ³-bench domain.
    Tau(TauDomain),
}

/// Every dataset `--dataset` names on its own, in the order `itc datasets`
/// lists them: the APIBench hubs, Seal-Tools, ToolAlpaca, NexusRaven, the
/// StableToolBench groups, then BFCL (all, single-turn, non-live, live,
/// multi-turn, then each category). BFCL also takes categories separated by commas
/// (`bfcl:simple_python,multiple`).
pub fn all() -> Vec<OodDataset> {
    let mut all: Vec<OodDataset> = Hub::ALL.into_iter().map(OodDataset::Apibench).collect();
    all.extend([
        OodDataset::SealTools,
        OodDataset::ToolAlpaca,
        OodDataset::NexusRaven,
    ]);
    all.extend(Group::ALL.into_iter().map(OodDataset::StableToolBench));
    all.extend(
        [
            CategorySet::ALL,
            CategorySet::SINGLE_TURN,
            CategorySet::NON_LIVE,
            CategorySet::LIVE,
            CategorySet::MULTI_TURN,
        ]
        .into_iter()
        .chain(bfcl::Category::every().map(CategorySet::one))
        .map(OodDataset::Bfcl),
    );
    all.extend(TauDomain::ALL.into_iter().map(OodDataset::Tau));
    all
}

/// The names `--dataset` accepts: [`all`]'s, as `--dataset` spells them.
pub fn names() -> Vec<String> {
    all().iter().map(OodDataset::to_string).collect()
}

/// The families of `--dataset` names, for `itc eval --help`: each name
/// pattern with the values its part takes, from the same lists that parse
/// them.
pub fn families() -> String {
    let list = |names: Vec<&str>| names.join(", ");
    let sets = [
        CategorySet::ALL,
        CategorySet::SINGLE_TURN,
        CategorySet::NON_LIVE,
        CategorySet::LIVE,
        CategorySet::MULTI_TURN,
    ];
    format!(
        "apibench:<hub> ({}); seal-tools; toolalpaca; nexusraven; stabletoolbench:<group> ({}); \
         bfcl:<category> ({}; several separated by commas) or bfcl:{}; tau:<domain> ({})",
        list(Hub::ALL.iter().map(|h| h.as_str()).collect()),
        list(Group::ALL.iter().map(|g| g.as_str()).collect()),
        list(bfcl::Category::every().map(|c| c.as_str()).collect()),
        sets.map(|s| s.to_string()).join("|"),
        list(TauDomain::ALL.iter().map(|d| d.as_str()).collect()),
    )
}

impl FromStr for OodDataset {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<OodDataset> {
        let lower = s.trim().to_ascii_lowercase();
        const STB: &str = "stabletoolbench:";
        if lower.starts_with(STB) || lower.starts_with("stabletoolbench-") {
            // The group as written (ASCII prefix, so the same byte length).
            return Ok(OodDataset::StableToolBench(s.trim()[STB.len()..].parse()?));
        }
        if let Some(set) = lower.strip_prefix("bfcl:") {
            return Ok(OodDataset::Bfcl(set.parse()?));
        }
        if let Some(domain) = lower
            .strip_prefix("tau:")
            .or_else(|| lower.strip_prefix("tau-"))
        {
            return Ok(OodDataset::Tau(domain.parse()?));
        }
        Ok(match lower.as_str() {
            "apibench:huggingface" | "apibench-huggingface" => {
                OodDataset::Apibench(Hub::Huggingface)
            }
            "apibench:tensorflowhub" | "apibench-tensorflowhub" => {
                OodDataset::Apibench(Hub::Tensorflowhub)
            }
            "apibench:torchhub" | "apibench-torchhub" => OodDataset::Apibench(Hub::Torchhub),
            "seal-tools" => OodDataset::SealTools,
            "toolalpaca" => OodDataset::ToolAlpaca,
            "nexusraven" => OodDataset::NexusRaven,
            other => bail!(
                "unknown OOD dataset {other:?}; known: {}",
                names().join(", ")
            ),
        })
    }
}

impl fmt::Display for OodDataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OodDataset::Apibench(hub) => write!(f, "apibench:{}", hub.as_str()),
            OodDataset::SealTools => f.write_str("seal-tools"),
            OodDataset::ToolAlpaca => f.write_str("toolalpaca"),
            OodDataset::NexusRaven => f.write_str("nexusraven"),
            OodDataset::StableToolBench(g) => write!(f, "stabletoolbench:{g}"),
            OodDataset::Bfcl(set) => write!(f, "bfcl:{set}"),
            OodDataset::Tau(domain) => write!(f, "tau:{}", domain.as_str()),
        }
    }
}

impl PartialOrd for OodDataset {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OodDataset {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl Serialize for OodDataset {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OodDataset {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OodDataset, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl OodDataset {
    fn rank(self) -> u8 {
        match self {
            OodDataset::NexusRaven => 0,
            OodDataset::SealTools => 1,
            OodDataset::ToolAlpaca => 2,
            OodDataset::Apibench(Hub::Huggingface) => 3,
            OodDataset::Apibench(Hub::Torchhub) => 4,
            OodDataset::Apibench(Hub::Tensorflowhub) => 5,
            OodDataset::StableToolBench(g) => 6 + g as u8,
            OodDataset::Bfcl(_) => 12,
            OodDataset::Tau(d) => 13 + d as u8,
        }
    }

    /// The column heading in reports.
    pub fn label(self) -> &'static str {
        match self {
            OodDataset::NexusRaven => "NexusRaven",
            OodDataset::SealTools => "Seal-Tools",
            OodDataset::ToolAlpaca => "ToolAlpaca",
            OodDataset::Apibench(Hub::Huggingface) => "APIBench HuggingFace",
            OodDataset::Apibench(Hub::Torchhub) => "APIBench TorchHub",
            OodDataset::Apibench(Hub::Tensorflowhub) => "APIBench TensorHub",
            OodDataset::StableToolBench(g) => match g {
                Group::G1Instruction => "StableToolBench G1_instruction",
                Group::G1Category => "StableToolBench G1_category",
                Group::G1Tool => "StableToolBench G1_tool",
                Group::G2Instruction => "StableToolBench G2_instruction",
                Group::G2Category => "StableToolBench G2_category",
                Group::G3Instruction => "StableToolBench G3_instruction",
            },
            OodDataset::Bfcl(_) => "BFCL",
            OodDataset::Tau(TauDomain::Retail) => "τ³-bench retail",
        }
    }

    /// The name `itc ood fetch` knows it by (one BFCL category: its own,
    /// `bfcl-<category>`; other BFCL sets: every category, `bfcl`).
    pub fn fetch_name(self) -> String {
        if let OodDataset::Bfcl(set) = self
            && let [category] = set.categories()[..]
        {
            return format!("bfcl-{category}");
        }
        let name = match self {
            OodDataset::Apibench(Hub::Huggingface) => "apibench-huggingface",
            OodDataset::Apibench(Hub::Tensorflowhub) => "apibench-tensorflowhub",
            OodDataset::Apibench(Hub::Torchhub) => "apibench-torchhub",
            OodDataset::SealTools => "seal-tools",
            OodDataset::ToolAlpaca => "toolalpaca",
            OodDataset::NexusRaven => "nexusraven",
            OodDataset::StableToolBench(g) => match g {
                Group::G1Instruction => "stabletoolbench-G1_instruction",
                Group::G1Category => "stabletoolbench-G1_category",
                Group::G1Tool => "stabletoolbench-G1_tool",
                Group::G2Instruction => "stabletoolbench-G2_instruction",
                Group::G2Category => "stabletoolbench-G2_category",
                Group::G3Instruction => "stabletoolbench-G3_instruction",
            },
            OodDataset::Bfcl(_) => "bfcl",
            OodDataset::Tau(TauDomain::Retail) => "tau-retail",
        };
        name.to_string()
    }

    /// The embedded copies of the files shipped in `datasets/ood/` (every
    /// dataset but NexusRaven, whose licence forbids it), in the order of the
    /// fetch manifest; their names read `embedded:datasets/ood/…`.
    pub fn shipped_files(self) -> Option<Vec<PathBuf>> {
        let ood = |path: &str| embedded::name(&format!("datasets/ood/{path}"));
        match self {
            OodDataset::Apibench(hub) => {
                let eval = match hub {
                    Hub::Tensorflowhub => "tensorflow",
                    h => h.as_str(),
                };
                Some(vec![
                    ood(&format!("gorilla/api/{}_api.jsonl", hub.as_str())),
                    ood(&format!("gorilla/apibench/{eval}_eval.json")),
                ])
            }
            OodDataset::SealTools => Some(vec![ood("seal-tools/test_in_domain.json")]),
            OodDataset::ToolAlpaca => Some(vec![ood("toolalpaca/eval_simulated.json")]),
            OodDataset::StableToolBench(g) => Some(vec![ood(&format!(
                "stabletoolbench/solvable_queries/test_instruction/{g}.json"
            ))]),
            OodDataset::Bfcl(set) => Some(
                bfcl_file_names(set)
                    .iter()
                    .map(|p| ood(&format!("bfcl/{p}")))
                    .collect(),
            ),
            OodDataset::Tau(domain) => {
                Some(vec![ood(&format!("tau/{}/tasks.json", domain.as_str()))])
            }
            OodDataset::NexusRaven => None,
        }
    }

    /// The files to read: `given` when not empty, else the fetch cache when
    /// it holds every file, else the embedded copies. Also says where they
    /// came from.
    pub fn resolve_files(
        self,
        given: &[PathBuf],
        cache_dir: &Path,
    ) -> anyhow::Result<(Vec<PathBuf>, String)> {
        if !given.is_empty() {
            for p in given {
                anyhow::ensure!(
                    embedded::is_file(p),
                    "--dataset-files: {} is not a file",
                    p.display()
                );
            }
            return Ok((given.to_vec(), "the files given".into()));
        }
        if let Some(files) = self.locate_cached(cache_dir)? {
            return Ok((files, format!("the fetch cache {}", cache_dir.display())));
        }
        if let Some(files) = self.shipped_files() {
            return Ok((files, "the copies of datasets/ood built into itc".into()));
        }
        bail!(
            "no files for --dataset {self}: run `itc ood fetch {}` (cache {}), or give them with --dataset-files",
            self.fetch_name(),
            cache_dir.display()
        )
    }

    /// The fetch manifest's entries of the dataset's files (BFCL: only
    /// those of its categories), in the order of [`Self::shipped_files`].
    pub fn manifest_files(self) -> anyhow::Result<Vec<fetch::ManifestFile>> {
        match self {
            OodDataset::Bfcl(set) => {
                let mut files = Vec::new();
                for c in set.categories() {
                    files.extend(fetch::dataset_files(&format!("bfcl-{c}"))?);
                }
                Ok(files)
            }
            _ => fetch::dataset_files(&self.fetch_name()),
        }
    }

    /// The dataset's files in the fetch cache, when every one is there.
    pub fn locate_cached(self, cache_dir: &Path) -> anyhow::Result<Option<Vec<PathBuf>>> {
        let OodDataset::Bfcl(set) = self else {
            return fetch::locate(&self.fetch_name(), cache_dir);
        };
        // Each category on its own: `itc ood fetch bfcl-<category>` is enough.
        let mut files = Vec::new();
        for c in set.categories() {
            match fetch::locate(&format!("bfcl-{c}"), cache_dir)? {
                Some(found) => files.extend(found),
                None => return Ok(None),
            }
        }
        Ok(Some(files))
    }

    /// Converts the dataset's files into SPEC tasks; returns warnings too.
    /// APIBench: the files are the hub's API database (`*_api.jsonl`) and
    /// its question/answer pairs; `candidates` distractor tools per task.
    pub fn convert(
        self,
        files: &[PathBuf],
        candidates: usize,
    ) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
        match self {
            OodDataset::Apibench(hub) => {
                let (db, eval) = split_apibench_files(files)?;
                apibench::convert(&apibench::ConvertOptions {
                    hub,
                    api_db: db,
                    inputs: eval,
                    candidates,
                })
            }
            OodDataset::SealTools => seal_tools::convert(&seal_tools::ConvertOptions {
                inputs: files.to_vec(),
            }),
            OodDataset::ToolAlpaca => toolalpaca::convert(files),
            OodDataset::NexusRaven => nexusraven::convert(files),
            OodDataset::StableToolBench(_) => stabletoolbench::convert(files),
            OodDataset::Bfcl(set) => Ok((bfcl::convert::convert_files(set, files)?, Vec::new())),
            OodDataset::Tau(domain) => Ok((tau::ask::convert(domain, files, 1)?, Vec::new())),
        }
    }

    /// [`Self::convert`], each warning with the task it is about where the
    /// converter knows it (StableToolBench), so that a run shows only the
    /// warnings of the tasks it asks.
    pub fn convert_for_run(
        self,
        files: &[PathBuf],
        candidates: usize,
    ) -> anyhow::Result<(Vec<Task>, Vec<ConvertWarning>)> {
        if let OodDataset::StableToolBench(_) = self {
            return stabletoolbench::convert_by_task(files);
        }
        let (tasks, warnings) = self.convert(files, candidates)?;
        let warnings = warnings
            .into_iter()
            .map(|text| ConvertWarning { task: None, text })
            .collect();
        Ok((tasks, warnings))
    }
}

/// The files of BFCL categories, relative to BFCL's data folder: each
/// question file, then its possible answers when it has them.
pub fn bfcl_file_names(set: CategorySet) -> Vec<String> {
    let mut names = Vec::new();
    for c in set.categories() {
        names.push(c.question_file());
        if c.has_possible_answers() {
            names.push(c.possible_answer_file());
        }
    }
    names
}

/// The API database (the one file named `*_api.jsonl`) and the other files.
pub fn split_apibench_files(files: &[PathBuf]) -> anyhow::Result<(PathBuf, Vec<PathBuf>)> {
    let is_db = |p: &PathBuf| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("_api.jsonl"))
    };
    let dbs: Vec<&PathBuf> = files.iter().filter(|p| is_db(p)).collect();
    let [db] = dbs.as_slice() else {
        bail!(
            "APIBench needs exactly one API database file named <hub>_api.jsonl among the files, found {}",
            dbs.len()
        );
    };
    let eval: Vec<PathBuf> = files.iter().filter(|p| !is_db(p)).cloned().collect();
    if eval.is_empty() {
        bail!("APIBench needs a question/answer file (<hub>_eval.json) besides the API database");
    }
    Ok(((*db).clone(), eval))
}

/// What `itc eval --dataset` records in a run directory (`ood.json`), for
/// `itc ood report`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The dataset run.
    pub dataset: OodDataset,
    /// Each model's prompt style (`itc`, `gorilla`, `seal-tools`).
    pub prompt_styles: BTreeMap<String, PromptStyle>,
    /// The benchmark files the tasks were converted from.
    pub files: Vec<PathBuf>,
    /// Tasks converted (before `--limit` and the other filters).
    pub tasks: usize,
}

impl RunInfo {
    /// Reads `DIR/ood.json`.
    pub fn read(run_dir: &Path) -> anyhow::Result<RunInfo> {
        let path = run_dir.join("ood.json");
        let text = crate::util::embedded::read_to_string(&path).with_context(|| {
            format!(
                "reading {} (is {} a run of `itc eval --dataset`?)",
                path.display(),
                run_dir.display()
            )
        })?;
        let de = &mut serde_json::Deserializer::from_str(&text);
        serde_path_to_error::deserialize(de)
            .map_err(|e| anyhow::anyhow!("{}: field `{}`: {}", path.display(), e.path(), e.inner()))
    }

    /// Writes `DIR/ood.json`.
    pub fn write(&self, run_dir: &Path) -> anyhow::Result<()> {
        let path = run_dir.join("ood.json");
        std::fs::write(&path, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("writing {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in names() {
            let d: OodDataset = name.parse().unwrap();
            assert_eq!(d.to_string(), name);
            assert!(fetch::dataset_files(&d.fetch_name()).is_ok());
        }
        assert_eq!(
            "apibench-torchhub".parse::<OodDataset>().unwrap(),
            OodDataset::Apibench(Hub::Torchhub)
        );
        let e = "apibench".parse::<OodDataset>().unwrap_err().to_string();
        assert!(e.contains("apibench:torchhub"), "{e}");
        assert_eq!(
            "StableToolBench-g2_CATEGORY".parse::<OodDataset>().unwrap(),
            OodDataset::StableToolBench(Group::G2Category)
        );
        let e = "stabletoolbench:G4".parse::<OodDataset>().unwrap_err();
        assert!(
            e.to_string().contains("\"G4\"; known: G1_instruction"),
            "{e}"
        );
    }

    #[test]
    fn shipped_copies_exist_and_convert() {
        let d = OodDataset::Apibench(Hub::Torchhub);
        let files = d.shipped_files().unwrap();
        assert!(files.iter().all(|f| embedded::is_file(f)));
        let (tasks, _) = d.convert(&files, 4).unwrap();
        assert_eq!(tasks.len(), 186);
        assert_eq!(tasks[0].id, "apibench-torchhub-1");
        let empty = tempfile::tempdir().unwrap();
        let (found, from) = d.resolve_files(&[], empty.path()).unwrap();
        assert_eq!(
            (found, from.as_str()),
            (files, "the copies of datasets/ood built into itc")
        );
        let e = OodDataset::NexusRaven
            .resolve_files(&[], empty.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("itc ood fetch nexusraven"), "{e}");
    }

    /// Files given first, else a complete fetch cache, else the embedded
    /// copies: ToolAlpaca has all three.
    #[test]
    fn given_files_come_before_the_cache_and_the_cache_before_the_embedded_copies() {
        let d = OodDataset::ToolAlpaca;
        let embedded_copy = d.shipped_files().unwrap();
        assert_eq!(
            embedded_copy,
            [Path::new(
                "embedded:datasets/ood/toolalpaca/eval_simulated.json"
            )]
        );
        let cache = tempfile::tempdir().unwrap();
        let (found, from) = d.resolve_files(&[], cache.path()).unwrap();
        assert_eq!(
            (&found, from.as_str()),
            (&embedded_copy, "the copies of datasets/ood built into itc")
        );
        let (tasks, _) = d.convert(&found, 4).unwrap();
        assert_eq!(tasks.len(), 100);
        assert!(
            tasks[0].id.starts_with("toolalpaca-eval_simulated-"),
            "{}",
            tasks[0].id
        );

        let cached = cache.path().join("toolalpaca/data/eval_simulated.json");
        std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
        std::fs::write(&cached, embedded::read(&embedded_copy[0]).unwrap()).unwrap();
        let (found, from) = d.resolve_files(&[], cache.path()).unwrap();
        assert_eq!(found, [cached]);
        assert!(from.starts_with("the fetch cache"), "{from}");

        let given = cache.path().join("mine.json");
        std::fs::write(&given, "[]").unwrap();
        let (found, from) = d
            .resolve_files(std::slice::from_ref(&given), cache.path())
            .unwrap();
        assert_eq!((found, from.as_str()), (vec![given], "the files given"));
        let missing = d.resolve_files(&[cache.path().join("no.json")], cache.path());
        assert!(
            missing
                .unwrap_err()
                .to_string()
                .contains("no.json is not a file")
        );
    }

    #[test]
    fn apibench_files_are_told_apart_by_name() {
        let files = [
            PathBuf::from("x/torchhub_eval.json"),
            PathBuf::from("y/torchhub_api.jsonl"),
        ];
        let (db, eval) = split_apibench_files(&files).unwrap();
        assert_eq!(db, PathBuf::from("y/torchhub_api.jsonl"));
        assert_eq!(eval, [PathBuf::from("x/torchhub_eval.json")]);
        assert!(split_apibench_files(&files[..1]).is_err());
    }
}
