//! `itc ood fetch NAME`: downloads an OOD benchmark's public files from their
//! GitHub raw URLs, pinned to one commit, into a cache directory, and checks
//! each file's size and SHA-256 against the manifest below.
//!
//! A download goes to a temporary file beside its destination and is renamed
//! into place only when its hash matches, so a failed or altered download
//! leaves nothing behind. A file already in the cache with the right hash is
//! not downloaded again. The cache layout is `<cache>/<source>/<path in the
//! source repository>`, so files can also be placed there by hand.
//!
//! The hashes were computed from byte-for-byte copies of the files at the
//! pinned commits (`shared/datasets/SOURCES.md`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};

use super::bfcl::Category;
use super::stabletoolbench::Group;
use crate::models::http::is_loopback;
use crate::util::hash::{sha256_hex, to_hex};
use crate::util::runtime::{Threads, block_on};

/// A public repository files are fetched from, pinned to one commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upstream {
    /// `owner/name` on GitHub.
    pub repo: &'static str,
    /// Full commit hash the URLs are pinned to.
    pub commit: &'static str,
    /// Directory under the cache root.
    pub dir: &'static str,
    /// Licence of the data.
    pub licence: &'static str,
}

/// ShishirPatil/gorilla (APIBench).
pub const GORILLA: Upstream = Upstream {
    repo: "ShishirPatil/gorilla",
    commit: "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8",
    dir: "gorilla",
    licence: "Apache-2.0",
};

/// fairyshine/Seal-Tools.
pub const SEAL_TOOLS: Upstream = Upstream {
    repo: "fairyshine/Seal-Tools",
    commit: "ce753ecd60ed08dd376984035de531ab8421f1c6",
    dir: "seal-tools",
    licence: "Apache-2.0",
};

/// tangqiaoyu/ToolAlpaca.
pub const TOOLALPACA: Upstream = Upstream {
    repo: "tangqiaoyu/ToolAlpaca",
    commit: "189069998d64a7baf1b4a1c3c4b2e75eb9d05532",
    dir: "toolalpaca",
    licence: "Apache-2.0 (content generated with OpenAI models)",
};

/// THUNLP-MT/StableToolBench (its solvable queries come from OpenBMB/ToolBench, Apache-2.0).
pub const STABLETOOLBENCH: Upstream = Upstream {
    repo: "THUNLP-MT/StableToolBench",
    commit: "aa4ed9f4737ad98bd706663f01d63623c3427812",
    dir: "stabletoolbench",
    licence: "Apache-2.0",
};

/// sierra-research/tau2-bench (τ³-bench).
pub const TAU2_BENCH: Upstream = Upstream {
    repo: "sierra-research/tau2-bench",
    commit: "a2c024725189473d2d7cea3a5cfdbcc67478e41f",
    dir: "tau2-bench",
    licence: "MIT",
};

/// nexusflowai/NexusRaven.
pub const NEXUSRAVEN: Upstream = Upstream {
    repo: "nexusflowai/NexusRaven",
    commit: "f32882763bb3e220722883821919c14abdd3d156",
    dir: "nexusraven",
    licence: "CC-BY-NC-4.0",
};

/// One file of the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManifestFile {
    /// Where it comes from.
    pub upstream: Upstream,
    /// Path inside the repository.
    pub path: &'static str,
    /// Lower-case hex SHA-256 of its bytes.
    pub sha256: &'static str,
    /// Size in bytes.
    pub size: u64,
}

impl ManifestFile {
    /// The raw URL under `base` (default `https://raw.githubusercontent.com`).
    pub fn url(&self, base: &str) -> String {
        format!(
            "{}/{}/{}/{}",
            base.trim_end_matches('/'),
            self.upstream.repo,
            self.upstream.commit,
            self.path
        )
    }

    /// Where the file lives in a cache directory.
    pub fn cached_path(&self, cache_dir: &Path) -> PathBuf {
        cache_dir.join(self.upstream.dir).join(self.path)
    }
}

const fn file(
    upstream: Upstream,
    path: &'static str,
    sha256: &'static str,
    size: u64,
) -> ManifestFile {
    ManifestFile {
        upstream,
        path,
        sha256,
        size,
    }
}

const APIBENCH_HF: [ManifestFile; 2] = [
    file(
        GORILLA,
        "data/api/huggingface_api.jsonl",
        "6757c59091abcf6d0f32f878a765b4ae28a9db7f88c7a1a4ee8bfeda72472f6d",
        1_058_195,
    ),
    file(
        GORILLA,
        "data/apibench/huggingface_eval.json",
        "d314b1617fe4021bdd7b2e81ca7c1aeda0c7f9921b512aa5f222398e83744c43",
        2_518_870,
    ),
];

const APIBENCH_TF: [ManifestFile; 2] = [
    file(
        GORILLA,
        "data/api/tensorflowhub_api.jsonl",
        "bed9819b8d54cda1709fb0942f18d7cd5f39788b22ba03c9f89e9fc0287b2c0a",
        660_154,
    ),
    file(
        GORILLA,
        "data/apibench/tensorflow_eval.json",
        "14fd83b6e1fb61ccb43609483a13b658cc31bd55bd5e118bc19067ab73164f0a",
        1_428_974,
    ),
];

const APIBENCH_TH: [ManifestFile; 2] = [
    file(
        GORILLA,
        "data/api/torchhub_api.jsonl",
        "30c762a4f8ae1be605aa45c74669e8b64a806fa4f3be52bd625199000540b080",
        127_463,
    ),
    file(
        GORILLA,
        "data/apibench/torchhub_eval.json",
        "e575eec9289ee46a577b80ee3065111dd8accf4e6145d6ad5fd919879a79efe9",
        388_690,
    ),
];

const SEAL: [ManifestFile; 1] = [file(
    SEAL_TOOLS,
    "Seal-Tools_Dataset/dataset_for_finetune/test_in_domain.json",
    "75d51adc3521c6dce1b0f19628446a5e49d30e7a36425fada7809b0f5a4e4d7a",
    3_185_666,
)];

const ALPACA: [ManifestFile; 1] = [file(
    TOOLALPACA,
    "data/eval_simulated.json",
    "17085ffefae0a0e15c1d2d564263063932d692011edf27ce8ae3d3803432ba08",
    213_761,
)];

/// StableToolBench's six groups of solvable test queries, in [`Group::ALL`]'s order.
const STB: [ManifestFile; 6] = [
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G1_instruction.json",
        "500aa0105ed451538448f6ea04f10661536b013f3e1a293840fe401688160e7c",
        1_199_749,
    ),
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G1_category.json",
        "123cb9073c8b6e6473df91c8a51170277087e1c263eba2eb6077170edbe849c3",
        779_243,
    ),
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G1_tool.json",
        "05d0c180bbec9d060fd267cc79399bda05beddd0a6d0de68b5488926a9029a1a",
        1_266_963,
    ),
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G2_instruction.json",
        "82d569cd0fc8fc742a15a3011fb5cd6a8b11e0a5b344c884602347439f43cad7",
        903_088,
    ),
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G2_category.json",
        "71e18112f7940934f159d623b1c2b4740b1b4dc58a0b596c63b8151abbf8267e",
        865_527,
    ),
    file(
        STABLETOOLBENCH,
        "solvable_queries/test_instruction/G3_instruction.json",
        "f923d1a9452646bd1a415b266117d90675d0f8fc04cf014db58d3cd78c25634f",
        858_650,
    ),
];

/// BFCL v4's Python AST categories, in [`Category::SINGLE_TURN`]'s order, then its
/// multi-turn ones ([`Category::MULTI_TURN`]): each question file, then its
/// possible-answer file when it has one.
const BFCL: [ManifestFile; 27] = [
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_simple_python.json",
        "82dd63ba502eb2520c6b5d1d9a5c4b590e03ff261565175561f6228a367d1991",
        283_274,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_simple_python.json",
        "90cd5bc653690ee8e459b5b3f3fc9458606f7f3fcbf795bb51b7dc581f8c86dc",
        63_627,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_multiple.json",
        "aef168155ebd74b7ac2401198b201343bc7d16d7a3d7e0d4e6d8ee82c6969b2a",
        316_583,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_multiple.json",
        "244e00ce9395df948bcafc7bee64e8f9c87ef70887587d83cae45b13699f3047",
        32_254,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_parallel.json",
        "19f51a82eff42e5d62541aa500115a056eb78f437c2ba1f10415fd7c8e5dda84",
        171_896,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_parallel.json",
        "8a6aa19c1adddc6a5a2f7e40f9dbf30cc7e95815e7b830c90589ab318229e0f0",
        66_005,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_parallel_multiple.json",
        "8863ea8433239f55c5f016154cf0830853c89f693c6ea270396a2fa121960579",
        347_080,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_parallel_multiple.json",
        "5ebf24f458c1f16300c05505d83d6f0a1b68b79be273a033febd0d4f840507e3",
        74_602,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_irrelevance.json",
        "2b6ed4c2e992cdcf5f1678a701851f944bef7550ee026ed1ddb89efed5be01a6",
        159_940,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_simple.json",
        "1af2ac87dca47556db7b7e37e51e28b459a38b594e3c7b3c792b4903598ca0c4",
        260_140,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_live_simple.json",
        "fec9cfa9744a936f9126981e85a2023da1e63e273eafebc81923a1162fad70ce",
        46_972,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_multiple.json",
        "fd8ccfad4d911420d0e3341dbe2fff77d1d341da934248b9bb2bda24ab3a10c8",
        3_891_277,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_live_multiple.json",
        "97e90d59c5bd76c55a2920ce93e5566e9046307d3f558578f085f9d3a56c3084",
        199_668,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_parallel.json",
        "6c26e9fdc3350cf596e6d1ea9c179cbff834761bccf562f4141ed29a839ca421",
        15_649,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_live_parallel.json",
        "8a9f189ff0e832ebbbbdade1fd95a7dbcc67406e9177df3f0aad76f59ab00350",
        4_972,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_parallel_multiple.json",
        "21d4b9319c1faac431e22757b367ea28917fe467364c3a4b17f16ec06d4f6e79",
        82_332,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_live_parallel_multiple.json",
        "f5b5f360556c5feb51db46fb9f56ee4b304f4b45b161599bbb14161c98a2873f",
        7_420,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_irrelevance.json",
        "6559fda2beaceb609a2cd2e504c65b4a56cb448e1ef88fddfd199e163d163349",
        2_209_534,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_relevance.json",
        "e03f9e241657a137cba48a89ee12f47bf3fcb7e4f6274263e9c699a0c974203a",
        47_327,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_multi_turn_base.json",
        "1a21a995d06fd6f20ba55de7bced30ef953ec35e998f502ec2ecf4d66ef1c43a",
        390_425,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_base.json",
        "1fee67823b317571649177dd89d63969feaae4e810cc7448ee55ba797fb7c8fc",
        78_931,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_multi_turn_miss_func.json",
        "87d28ce10e37d864b72de85d5732eef2a867b241d6c1c99b4ae682c9e3ea921c",
        401_159,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_miss_func.json",
        "69e679b806d1c871b05393a4b95583bb973248e5b8d96c2d7f4ca05e29fc32e6",
        80_589,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_multi_turn_miss_param.json",
        "f0c66dda3795f5f53e3e1c0cc8ba0246b6761c8f58bdba8317203bf451ab8838",
        402_974,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_miss_param.json",
        "59c442901779e2c31c33abcd566d032e03736e5ad8069de2fe05489873046ecf",
        80_816,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_multi_turn_long_context.json",
        "78c3268c5cc8e97c0f4ec6c811b3b9a2bba14323b1830b7a874b06d822749324",
        392_016,
    ),
    file(
        GORILLA,
        "berkeley-function-call-leaderboard/bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_long_context.json",
        "e82aa0e839c39d23c64a05834f7ae024d7c9738ec21738ecee78dc876e3d0d18",
        114_439,
    ),
];

const TAU_RETAIL: [ManifestFile; 1] = [file(
    TAU2_BENCH,
    "data/tau2/domains/retail/tasks.json",
    "8e03ebce7901bd6218e7a7dc3105faa9324091a68058f7fe61c65262868812e8",
    345_982,
)];

const RAVEN: [ManifestFile; 2] = [
    file(
        NEXUSRAVEN,
        "raven/data/resources/toolalpaca_queries.json",
        "dfa26116703d1b4f851a5d8159de4f4ef6dec4f307ab534f7b670f406fc310bb",
        310_861,
    ),
    file(
        NEXUSRAVEN,
        "raven/data/resources/toolllm_queries.json",
        "849c34c519ad51022c075ecc6e33460f7c71f5981f58398d4a0ef7baf07a39df",
        101_802,
    ),
];

/// The names `itc ood fetch` accepts, with what each holds.
pub const DATASETS: [(&str, &str); 16] = [
    (
        "apibench",
        "APIBench, all three hubs (API databases and question/answer pairs)",
    ),
    (
        "apibench-huggingface",
        "APIBench Hugging Face: data/api/huggingface_api.jsonl, data/apibench/huggingface_eval.json",
    ),
    (
        "apibench-tensorflowhub",
        "APIBench TensorFlow Hub: data/api/tensorflowhub_api.jsonl, data/apibench/tensorflow_eval.json",
    ),
    (
        "apibench-torchhub",
        "APIBench Torch Hub: data/api/torchhub_api.jsonl, data/apibench/torchhub_eval.json",
    ),
    (
        "seal-tools",
        "Seal-Tools in-domain test set with retrieved tools (dataset_for_finetune/test_in_domain.json)",
    ),
    (
        "toolalpaca",
        "ToolAlpaca simulated evaluation set (data/eval_simulated.json)",
    ),
    (
        "stabletoolbench",
        "StableToolBench solvable test queries, all six groups (solvable_queries/test_instruction/*.json)",
    ),
    (
        "stabletoolbench-G1_instruction",
        "StableToolBench G1_instruction solvable queries (solvable_queries/test_instruction/G1_instruction.json)",
    ),
    (
        "stabletoolbench-G1_category",
        "StableToolBench G1_category solvable queries (solvable_queries/test_instruction/G1_category.json)",
    ),
    (
        "stabletoolbench-G1_tool",
        "StableToolBench G1_tool solvable queries (solvable_queries/test_instruction/G1_tool.json)",
    ),
    (
        "stabletoolbench-G2_instruction",
        "StableToolBench G2_instruction solvable queries (solvable_queries/test_instruction/G2_instruction.json)",
    ),
    (
        "stabletoolbench-G2_category",
        "StableToolBench G2_category solvable queries (solvable_queries/test_instruction/G2_category.json)",
    ),
    (
        "stabletoolbench-G3_instruction",
        "StableToolBench G3_instruction solvable queries (solvable_queries/test_instruction/G3_instruction.json)",
    ),
    (
        "bfcl",
        "BFCL v4 Python AST categories (non-live and live) and multi-turn categories: questions and possible answers (bfcl_eval/data/BFCL_v4_*.json; also bfcl-<category>)",
    ),
    (
        "tau-retail",
        "τ³-bench retail tasks (data/tau2/domains/retail/tasks.json; its database and tools are built in)",
    ),
    (
        "nexusraven",
        "NexusRaven ToolAlpaca- and ToolLLM-derived queries (CC-BY-NC-4.0: non-commercial)",
    ),
];

/// The files of a dataset name, or an error listing the known names.
pub fn dataset_files(name: &str) -> anyhow::Result<Vec<ManifestFile>> {
    let files: Vec<ManifestFile> = match name {
        "apibench" => [APIBENCH_HF, APIBENCH_TF, APIBENCH_TH].concat(),
        "apibench-huggingface" => APIBENCH_HF.to_vec(),
        "apibench-tensorflowhub" => APIBENCH_TF.to_vec(),
        "apibench-torchhub" => APIBENCH_TH.to_vec(),
        "seal-tools" => SEAL.to_vec(),
        "toolalpaca" => ALPACA.to_vec(),
        "nexusraven" => RAVEN.to_vec(),
        "stabletoolbench" => STB.to_vec(),
        "bfcl" => BFCL.to_vec(),
        "tau-retail" => TAU_RETAIL.to_vec(),
        other if other.starts_with("bfcl-") => {
            let category: Category = other["bfcl-".len()..].parse()?;
            // The question file and its possible answers share a file name.
            let name = category.question_file();
            BFCL.iter()
                .filter(|f| f.path.rsplit('/').next() == Some(name.as_str()))
                .copied()
                .collect()
        }
        other if other.starts_with("stabletoolbench-") => {
            let group: Group = other["stabletoolbench-".len()..].parse()?;
            let at = Group::ALL
                .iter()
                .position(|g| *g == group)
                .unwrap_or_default();
            vec![STB[at]]
        }
        other => {
            let known: Vec<&str> = DATASETS.iter().map(|(n, _)| *n).collect();
            anyhow::bail!("unknown OOD dataset {other:?}; known: {}", known.join(", "))
        }
    };
    Ok(files)
}

/// The default cache directory: `$ITC_CACHE/ood`, else
/// `$XDG_CACHE_HOME/itc/ood`, else `~/.cache/itc/ood`, else `.itc-cache/ood`.
pub fn default_cache_dir() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("ITC_CACHE") {
        return dir.join("ood");
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return dir.join("itc").join("ood");
    }
    if let Some(home) = var("HOME") {
        return home.join(".cache").join("itc").join("ood");
    }
    PathBuf::from(".itc-cache").join("ood")
}

/// The public host the files come from.
pub const GITHUB_RAW: &str = "https://raw.githubusercontent.com";

/// Whether a file exists with the manifest's size and hash.
pub fn is_valid(file: &ManifestFile, path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() == file.size => {
            std::fs::read(path).is_ok_and(|bytes| sha256_hex(&bytes) == file.sha256)
        }
        _ => false,
    }
}

/// The cached copies of a dataset's files, when every one is present and valid.
pub fn locate(name: &str, cache_dir: &Path) -> anyhow::Result<Option<Vec<PathBuf>>> {
    let files = dataset_files(name)?;
    let paths: Vec<PathBuf> = files.iter().map(|f| f.cached_path(cache_dir)).collect();
    Ok(files
        .iter()
        .zip(&paths)
        .all(|(f, p)| is_valid(f, p))
        .then_some(paths))
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Downloaded and checked.
    Downloaded,
    /// Already in the cache with the right hash; not downloaded.
    Cached,
}

/// One file after `fetch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The manifest entry.
    pub file: ManifestFile,
    /// Where it is now.
    pub path: PathBuf,
    /// Downloaded or found.
    pub status: Status,
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The host could not be reached (no network, DNS failure, refused connection).
    #[error(
        "could not reach {host} to download {url} ({cause}); this machine may be offline or the host blocked.\n\
         To use the data without downloading, place the files by hand (same bytes as the pinned commit):\n{manual}"
    )]
    Unreachable {
        /// Host of the URL.
        host: String,
        /// URL tried.
        url: String,
        /// The underlying error.
        cause: String,
        /// One line per file: URL, destination, expected SHA-256.
        manual: String,
    },
    /// The server answered with an error status.
    #[error("downloading {url}: HTTP {status}")]
    Status {
        /// URL tried.
        url: String,
        /// Status line.
        status: String,
    },
    /// The bytes differ from the pinned version.
    #[error(
        "downloading {url}: SHA-256 mismatch: expected {expected} ({expected_size} bytes), got {actual} ({actual_size} bytes); nothing was written"
    )]
    HashMismatch {
        /// URL tried.
        url: String,
        /// Hash in the manifest.
        expected: String,
        /// Hash of what arrived.
        actual: String,
        /// Size in the manifest.
        expected_size: u64,
        /// Size of what arrived.
        actual_size: u64,
    },
    /// The transfer broke off, or another transport error.
    #[error("downloading {url}: {cause}")]
    Transfer {
        /// URL tried.
        url: String,
        /// The underlying error.
        cause: String,
    },
}

/// Options of [`fetch`].
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Cache root.
    pub cache_dir: PathBuf,
    /// Replaces `https://raw.githubusercontent.com` (tests point it at loopback).
    pub base_url: String,
}

impl Default for FetchOptions {
    /// The [`default_cache_dir`] and [`GITHUB_RAW`].
    fn default() -> FetchOptions {
        FetchOptions {
            cache_dir: default_cache_dir(),
            base_url: GITHUB_RAW.to_string(),
        }
    }
}

/// The licence notice printed before fetching NexusRaven.
pub const NEXUSRAVEN_NOTICE: &str = "NexusRaven data is licensed CC-BY-NC-4.0 (nexusflowai/NexusRaven, DATA_LICENSE): \
non-commercial use only, with attribution. It is fetched for local evaluation; do not redistribute it \
or commit it to a repository.";

fn manual_instructions(files: &[ManifestFile], options: &FetchOptions) -> String {
    files
        .iter()
        .map(|f| {
            format!(
                "  {} -> {} (sha256 {})",
                f.url(GITHUB_RAW),
                f.cached_path(&options.cache_dir).display(),
                f.sha256
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Downloads one file into place after checking it.
async fn download(
    client: &reqwest::Client,
    file: &ManifestFile,
    all: &[ManifestFile],
    options: &FetchOptions,
) -> anyhow::Result<PathBuf> {
    let url = file.url(&options.base_url);
    let dest = file.cached_path(&options.cache_dir);
    let unreachable = |e: &reqwest::Error| FetchError::Unreachable {
        host: reqwest::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| url.clone()),
        url: url.clone(),
        cause: error_chain(e),
        manual: manual_instructions(all, options),
    };
    let transfer = |e: &reqwest::Error| FetchError::Transfer {
        url: url.clone(),
        cause: error_chain(e),
    };
    let mut response = client.get(&url).send().await.map_err(|e| {
        if e.is_connect() || e.is_timeout() {
            unreachable(&e)
        } else {
            transfer(&e)
        }
    })?;
    if !response.status().is_success() {
        return Err(FetchError::Status {
            url,
            status: response.status().to_string(),
        }
        .into());
    }
    let parent = dest.parent().context("cache path has no parent")?;
    tokio::fs::create_dir_all(parent)
        .await
        .with_context(|| format!("creating {}", parent.display()))?;
    // Removed when dropped, unless renamed into place.
    let (out, temp) = crate::util::atomic::temporary_beside(&dest)?;
    let mut out = tokio::fs::File::from_std(out);
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    while let Some(chunk) = response.chunk().await.map_err(|e| transfer(&e))? {
        hasher.update(&chunk);
        size += chunk.len() as u64;
        tokio::io::AsyncWriteExt::write_all(&mut out, &chunk)
            .await
            .with_context(|| format!("writing {}", temp.display()))?;
    }
    tokio::io::AsyncWriteExt::flush(&mut out).await?;
    out.sync_all().await.ok();
    drop(out);
    let actual = to_hex(&hasher.finalize());
    if actual != file.sha256 || size != file.size {
        return Err(FetchError::HashMismatch {
            url,
            expected: file.sha256.to_string(),
            actual,
            expected_size: file.size,
            actual_size: size,
        }
        .into());
    }
    let moving = format!("moving {} to {}", temp.display(), dest.display());
    temp.persist(&dest).map_err(|e| e.error).context(moving)?;
    Ok(dest)
}

/// An error and its sources, on one line.
/// reqwest's own top line repeats the URL, so only its sources are given.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let Some(first) = e.source() else {
        return e.to_string();
    };
    let mut text = first.to_string();
    let mut source = first.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// Fetches every file of a dataset (files already valid in the cache are
/// kept), in manifest order; stops at the first failure.
pub async fn fetch_async(name: &str, options: &FetchOptions) -> anyhow::Result<Vec<Fetched>> {
    let files = dataset_files(name)?;
    let direct = is_loopback(&options.base_url);
    let builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(600));
    let builder = if direct { builder.no_proxy() } else { builder };
    let client = builder.build().context("building the HTTP client")?;
    let mut done = Vec::new();
    for file in &files {
        let path = file.cached_path(&options.cache_dir);
        if is_valid(file, &path) {
            done.push(Fetched {
                file: *file,
                path,
                status: Status::Cached,
            });
            continue;
        }
        let path = download(&client, file, &files, options).await?;
        done.push(Fetched {
            file: *file,
            path,
            status: Status::Downloaded,
        });
    }
    Ok(done)
}

/// [`fetch_async`] on a runtime of its own (not to be called from async code).
pub fn fetch(name: &str, options: &FetchOptions) -> anyhow::Result<Vec<Fetched>> {
    block_on(Threads::Current, fetch_async(name, options))?
}

/// Runs `itc ood fetch NAME`: one line per file on `out`, notices on `err`.
pub fn run(
    name: &str,
    options: &FetchOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let files = dataset_files(name)?;
    if files.iter().any(|f| f.upstream == NEXUSRAVEN) {
        writeln!(err, "note: {NEXUSRAVEN_NOTICE}")?;
    }
    let fetched = fetch(name, options)?;
    for f in &fetched {
        writeln!(
            out,
            "{:<10} {}  ({} bytes, sha256 {}, {}@{})",
            match f.status {
                Status::Downloaded => "downloaded",
                Status::Cached => "cached",
            },
            f.path.display(),
            f.file.size,
            &f.file.sha256[..12],
            f.file.upstream.repo,
            &f.file.upstream.commit[..12],
        )?;
    }
    let downloaded = fetched
        .iter()
        .filter(|f| f.status == Status::Downloaded)
        .count();
    writeln!(
        err,
        "{name}: {} file(s) in {} ({downloaded} downloaded, {} cached); licence {}",
        fetched.len(),
        options.cache_dir.display(),
        fetched.len() - downloaded,
        files[0].upstream.licence
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_names_and_urls() {
        assert_eq!(dataset_files("apibench").unwrap().len(), 6);
        assert_eq!(dataset_files("stabletoolbench").unwrap().len(), 6);
        let g3 = dataset_files("stabletoolbench-G3_instruction").unwrap();
        assert_eq!(
            g3[0].url(GITHUB_RAW),
            "https://raw.githubusercontent.com/THUNLP-MT/StableToolBench/aa4ed9f4737ad98bd706663f01d63623c3427812/solvable_queries/test_instruction/G3_instruction.json"
        );
        assert!(dataset_files("stabletoolbench-G4_tool").is_err());
        for (name, _) in DATASETS {
            let files = dataset_files(name).unwrap();
            assert!(!files.is_empty());
            for f in files {
                assert_eq!(f.sha256.len(), 64);
                assert_eq!(f.upstream.commit.len(), 40);
            }
        }
        let f = dataset_files("apibench-torchhub").unwrap()[0];
        assert_eq!(
            f.url(GITHUB_RAW),
            "https://raw.githubusercontent.com/ShishirPatil/gorilla/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/data/api/torchhub_api.jsonl"
        );
        assert_eq!(
            f.cached_path(Path::new("/c")),
            Path::new("/c/gorilla/data/api/torchhub_api.jsonl")
        );
        let e = dataset_files("gorilla").unwrap_err().to_string();
        assert!(
            e.contains("unknown OOD dataset \"gorilla\"") && e.contains("seal-tools"),
            "{e}"
        );
    }

    #[test]
    fn shipped_copies_match_the_manifest() {
        // The copies in datasets/ood, and so the embedded ones, are the
        // pinned upstream bytes, file for file in the manifest's order.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        let datasets = crate::benchmarks::dataset::names()
            .into_iter()
            .map(|name| name.parse().unwrap());
        for dataset in datasets {
            let dataset: crate::benchmarks::dataset::OodDataset = dataset;
            let name = dataset.to_string();
            let Some(shipped) = dataset.shipped_files() else {
                continue;
            };
            let manifest = dataset.manifest_files().unwrap();
            assert_eq!(shipped.len(), manifest.len(), "{name}");
            for (f, copy) in manifest.iter().zip(&shipped) {
                let bytes = crate::util::embedded::read(copy).unwrap();
                assert_eq!(
                    (bytes.len() as u64, sha256_hex(&bytes).as_str()),
                    (f.size, f.sha256),
                    "{}",
                    copy.display()
                );
                let local = copy.to_str().unwrap().strip_prefix("embedded:").unwrap();
                assert!(is_valid(f, &root.join(local)), "{local}");
                checked += 1;
            }
        }
        assert_eq!(
            checked,
            14 + 27 + 19 + 9 + 10 + 8 + 27 + 1,
            "three hubs × 2, Seal-Tools, ToolAlpaca, six StableToolBench groups; \
             BFCL's 27 files for bfcl:all, 19 for single-turn, 9 for non-live, 10 for live, \
             8 for multi-turn, 27 for the categories one by one; τ³-bench retail's tasks"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
