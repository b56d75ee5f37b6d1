//! `itc benchmarks` (alias `itc ood`): other benchmarks. `convert` (another benchmark's
//! files to SPEC tasks), `score` (its official scorer), `fetch` (its public
//! files into a cache) and `report` (the results as published tables); each
//! turns its arguments into the options of one [`crate::benchmarks`] call.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::flags::{CacheFlags, OodCacheFlags, TableFlags};
use crate::benchmarks::apibench::{self, Hub};
use crate::benchmarks::bfcl::CategorySet;
use crate::benchmarks::bfcl::result_decoder::ResultDecoder;
use crate::benchmarks::convert::{self, ConvertOptions, Source};
use crate::benchmarks::fetch::{self, FetchOptions};
use crate::benchmarks::report::{self, ReportOptions};
use crate::benchmarks::score::BfclScoreOptions;
use crate::benchmarks::score::{self, ApibenchScoreOptions, Compat, SealScoreOptions};
use crate::benchmarks::seal_tools::Subset;
use crate::benchmarks::stabletoolbench::{self, results::StabletoolbenchScoreOptions};
use crate::benchmarks::tau;
use crate::benchmarks::toolalpaca::{self, eval::ToolalpacaScoreOptions};
use crate::models::cache::CacheSetting;
use crate::score::files::OutputFormat;

value_enum!(Source {
    Apibench => "apibench": "Gorilla APIBench (`data/apibench/<hub>_eval.json` + the hub's API database)",
    SealTools => "seal-tools": "Seal-Tools (`dataset_for_finetune/*.json`)",
    Nexusraven => "nexusraven": "NexusRaven (`*_queries.json` with Python signatures)",
    Toolalpaca => "toolalpaca": "ToolAlpaca (`eval_simulated.json`, `eval_real.json`)",
    Stabletoolbench => "stabletoolbench": "StableToolBench solvable queries (`<group>.json`) or ToolBench `G*_query.json`; selection only",
    Bfcl => "bfcl": "BFCL v4 (`BFCL_v4_<category>.json` and `possible_answer/…`; without --input: the fetch cache, else the built-in copies)",
});

value_enum!(Hub {
    Huggingface => "huggingface": "Hugging Face (`ast_eval_hf.py`)",
    Tensorflowhub => "tensorflowhub": "TensorFlow Hub (`ast_eval_tf.py`)",
    Torchhub => "torchhub": "PyTorch Hub (`ast_eval_th.py`)",
});

value_enum!(Compat {
    Official => "official": "The benchmark's own official scorer, quirks included (SPEC §5)",
});

value_enum!(Subset {
    All => "all": "Every record",
    Easy => "easy": "Ids containing `-easy-` (single-tool)",
    Difficult => "difficult": "Ids containing `-difficult-` (multi-tool)",
});

/// `--compat` of the official scorers.
#[derive(Debug, Clone, Args)]
pub struct CompatFlag {
    /// Scoring rules: `official` (the benchmark's own scorer, quirks
    /// included; SPEC §5) is the only value so far, so the default; the
    /// flag is there for rules to come.
    #[arg(long, value_enum, default_value_t = Compat::default())]
    pub compat: Compat,
}

/// Arguments of `itc benchmarks` (`itc ood`).
#[derive(Debug, Clone, Args)]
pub struct BenchmarksArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: BenchmarksCommand,
}

/// The `itc benchmarks` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchmarksCommand {
    /// Convert another benchmark's files into SPEC §0 tasks (JSONL).
    Convert(ConvertArgs),
    /// Score predictions with another benchmark's official scorer, reproduced exactly.
    Score(ScoreCommand),
    /// Download a benchmark's public files (pinned commit, SHA-256 checked) into a cache.
    Fetch(FetchArgs),
    /// Tables of OOD results: ITC's Table 5 (selection/invocation F1) and ToolLLM's APIBench table.
    Report(ReportArgs),
}

impl BenchmarksArgs {
    /// Runs `itc ood`: results on `out`, warnings on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        match &self.command {
            BenchmarksCommand::Convert(args) => args.run(err),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::SealTools(args),
            }) => args.run(out, err),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Apibench(args),
            }) => args.run(out, err),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Toolalpaca(args),
            }) => args.run(out, err),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Stabletoolbench(args),
            }) => args.run(out, err),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Bfcl(args),
            }) => score::score_bfcl(&args.options(), out),
            BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Tau(args),
            }) => tau::score::score_results_file(&args.options(), out),
            BenchmarksCommand::Fetch(args) => args.run(out, err),
            BenchmarksCommand::Report(args) => args.run(out, err),
        }
    }
}

/// Arguments of `itc ood fetch`.
#[derive(Debug, Clone, Args)]
pub struct FetchArgs {
    /// Dataset: apibench (all hubs), apibench-huggingface, apibench-tensorflowhub,
    /// apibench-torchhub, seal-tools, toolalpaca, nexusraven, stabletoolbench (all six
    /// groups) or `stabletoolbench-<group>` (G1_instruction, G1_category, G1_tool,
    /// G2_instruction, G2_category, G3_instruction), bfcl (all 11 categories) or
    /// `bfcl-<category>`; `itc datasets` lists what is cached.
    pub name: String,
    /// Where the files go.
    #[command(flatten)]
    pub cache: OodCacheFlags,
    /// Replaces `https://raw.githubusercontent.com` (a mirror, or a local server).
    #[arg(long)]
    pub base_url: Option<String>,
}

impl FetchArgs {
    /// The options of [`fetch::run`]; what is not given is the library's default.
    pub fn options(&self) -> FetchOptions {
        let default = FetchOptions::default();
        FetchOptions {
            cache_dir: self.cache.ood_cache.clone().unwrap_or(default.cache_dir),
            base_url: self.base_url.clone().unwrap_or(default.base_url),
        }
    }

    /// Runs `itc ood fetch`: one line per file on `out`, notices on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        fetch::run(&self.name, &self.options(), out, err)
    }
}

/// Arguments of `itc ood convert`.
#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    /// Which benchmark the input files come from.
    #[arg(value_enum)]
    pub source: Source,
    /// Input files in the benchmark's own format (required but for bfcl).
    #[arg(long, num_args = 1..)]
    pub input: Vec<PathBuf>,
    /// BFCL: the categories: simple_python, multiple, parallel,
    /// parallel_multiple, irrelevance, live_simple, live_multiple, live_parallel,
    /// live_parallel_multiple, live_irrelevance, live_relevance; several
    /// separated by commas; or all, non-live, live.
    #[arg(long)]
    pub category: Option<CategorySet>,
    /// APIBench: the hub of the input files.
    #[arg(long, value_enum)]
    pub hub: Option<Hub>,
    /// APIBench: the hub's API database (`data/api/<hub>_api.jsonl`), the candidate tools.
    #[arg(long)]
    pub api_db: Option<PathBuf>,
    /// APIBench: candidate tools per task besides the gold API (deterministic choice).
    #[arg(long, default_value_t = apibench::DEFAULT_CANDIDATES)]
    pub candidates: usize,
    /// Output task file (JSONL).
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

impl ConvertArgs {
    /// The options of [`convert::convert`].
    pub fn options(&self) -> ConvertOptions {
        ConvertOptions {
            source: self.source,
            inputs: self.input.clone(),
            categories: self.category,
            hub: self.hub,
            api_db: self.api_db.clone(),
            candidates: self.candidates,
            output: self.output.clone(),
        }
    }

    /// Runs `itc ood convert`: warnings and a summary line on `err`.
    pub fn run(&self, err: &mut dyn Write) -> anyhow::Result<()> {
        convert::convert(&self.options(), err)
    }
}

/// Arguments of `itc ood score`.
#[derive(Debug, Clone, Args)]
pub struct ScoreCommand {
    /// Which benchmark's scorer.
    #[command(subcommand)]
    pub benchmark: ScoreBenchmark,
}

/// The benchmarks `itc ood score` knows.
#[derive(Debug, Clone, Subcommand)]
pub enum ScoreBenchmark {
    /// Seal-Tools' `calculate_score_ToolLearning`.
    SealTools(SealScoreArgs),
    /// Gorilla's `ast_eval_{hf,tf,th}.py`.
    Apibench(ApibenchScoreArgs),
    /// ToolAlpaca's `statistics`, recounted from an official evaluation file's judge texts.
    Toolalpaca(ToolalpacaScoreArgs),
    /// StableToolBench's SoPR and SoWR from its own pass-rate and preference result files.
    Stabletoolbench(StabletoolbenchScoreArgs),
    /// BFCL's AST checker (`default_decode_ast_prompting`, `ast_checker`), on BFCL result files.
    Bfcl(BfclScoreArgs),
    /// τ³-bench's evaluator and pass^k, on the official harness's results file.
    Tau(TauScoreArgs),
}

/// Arguments of `itc ood score tau`.
#[derive(Debug, Clone, Args)]
pub struct TauScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// The official results file (`Results.save`'s JSON: `{timestamp, info, tasks, simulations}`).
    #[arg(long)]
    pub results: PathBuf,
    /// Write one verdict per simulation here (JSON Lines: id, task_id, trial, reward, …).
    #[arg(long, value_name = "OUT")]
    pub per_item: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Ask this model of --config to judge the NL assertions of the simulations
    /// whose reward waits on them (as the official evaluator asks its judge).
    #[arg(long, value_name = "NAME", requires = "config")]
    pub nl_judge: Option<String>,
    /// The models file the NL judge is read from.
    #[arg(long, value_name = "FILE", requires = "nl_judge")]
    pub config: Option<PathBuf>,
    /// The NL judge's response cache (default `cache/` beside the results file).
    #[command(flatten)]
    pub cache: CacheFlags,
}

impl TauScoreArgs {
    /// The options of [`tau::score::score_results_file`].
    pub fn options(&self) -> tau::score::TauScoreOptions {
        tau::score::TauScoreOptions {
            results: self.results.clone(),
            per_item: self.per_item.clone(),
            format: self.format,
            nl_judge: self.nl_judge.clone().zip(self.config.clone()),
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
        }
    }
}

/// Arguments of `itc ood score bfcl`.
#[derive(Debug, Clone, Args)]
pub struct BfclScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// The category (several separated by commas, all, non-live or live with a
    /// folder of results); default: a result file's own (from its name), or
    /// every category a folder holds.
    #[arg(long)]
    pub category: Option<CategorySet>,
    /// A BFCL result file (JSON Lines `{"id", "result"}`), a folder of
    /// `BFCL_v4_<category>_result.json` files, or a run directory of
    /// `itc eval --dataset bfcl:…`.
    #[arg(long)]
    pub results: PathBuf,
    /// BFCL's data folder (`BFCL_v4_<category>.json`, `possible_answer/…`);
    /// default: the `itc ood fetch bfcl` cache, else the copies built into itc.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Where `itc ood fetch` put the data (without --data).
    #[command(flatten)]
    pub cache: OodCacheFlags,
    /// Score only the questions the results answer (BFCL's `--partial-eval`;
    /// for runs with `--limit`). Default: every question must be answered.
    #[arg(long)]
    pub partial: bool,
    /// Write one verdict per result line (`{"id", "valid", "error_type", "errors"}`) here.
    #[arg(long)]
    pub per_item: Option<PathBuf>,
    /// Multi-turn: the model name the official runner would use (it names the API
    /// instances, whose names can show in results). Default: the result file's
    /// model folder (`<model>/multi_turn/…` in bfcl-eval's layout), else its folder.
    #[arg(long)]
    pub model_name: Option<String>,
    /// How the model's handler reads each single-turn result (bfcl-eval's
    /// `decode_ast`). Default: in a run directory, what each model was asked
    /// through (`official.json`); else prompt.
    #[arg(long, value_enum)]
    pub decoder: Option<ResultDecoder>,
    /// Output on stdout (json: one `{"category", "accuracy", "correct_count", "total_count"}` per file).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl BfclScoreArgs {
    /// The options of [`score::score_bfcl`].
    pub fn options(&self) -> BfclScoreOptions {
        BfclScoreOptions {
            compat: self.compat.compat,
            categories: self.category,
            results: self.results.clone(),
            data: self.data.clone(),
            cache_dir: self.cache.ood_cache.clone(),
            partial: self.partial,
            per_item: self.per_item.clone(),
            model_name: self.model_name.clone(),
            decoder: self.decoder,
            format: self.format,
            wide: self.table.wide,
        }
    }
}

value_enum!(ResultDecoder {
    Prompt => "prompt": "A prompt-mode model's text, decoded as a Python list of calls",
    GeminiPrompt => "gemini-prompt": "The same, after removing Gemini's `tool_code` fences",
    FunctionCalling => "fc": "OpenAI's and Anthropic's function calling: `[{name: \"<JSON arguments>\"}]`; expected names with `.` written `_`",
    GeminiFunctionCalling => "gemini-fc": "Gemini's function calling: `[{name: {arguments}}]`; expected names with `.` written `_`",
});

/// Arguments of `itc ood score toolalpaca`.
#[derive(Debug, Clone, Args)]
pub struct ToolalpacaScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// Official evaluation files (`evalution_outputs/ToolAlpaca*.json`); one result each.
    #[arg(long, num_args = 1.., required = true)]
    pub evaluations: Vec<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl ToolalpacaScoreArgs {
    /// The options of [`toolalpaca::eval::run`].
    pub fn options(&self) -> ToolalpacaScoreOptions {
        ToolalpacaScoreOptions {
            evaluations: self.evaluations.clone(),
            format: self.format,
            wide: self.table.wide,
        }
    }

    /// Runs `itc ood score toolalpaca`: results on `out`, warnings on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        toolalpaca::eval::run(&self.options(), out, err)
    }
}

/// Arguments of `itc ood score stabletoolbench`.
#[derive(Debug, Clone, Args)]
pub struct StabletoolbenchScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// Pass-rate result files (`pass_rate_results/<model>/<set>_<model>.json` or `.csv`): SoPR each.
    #[arg(long, num_args = 1..)]
    pub pass_rate_results: Vec<PathBuf>,
    /// The judge runs SoPR is over: runs 0 to N − 1, a run absent from a query
    /// scoring 0 (the official `--evaluate_times`, which the files do not record).
    #[arg(long, value_name = "N", default_value_t = stabletoolbench::results::OFFICIAL_EVALUATE_TIMES)]
    pub evaluate_times: usize,
    /// Preference result files (`preference_results/<set>_<ref>_<cand>.json` or `.csv`): SoWR each.
    #[arg(long, num_args = 1..)]
    pub preference_results: Vec<PathBuf>,
    /// The reference model in `.json` preference files (default: the first model of the file name).
    #[arg(long)]
    pub reference: Option<String>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl StabletoolbenchScoreArgs {
    /// The options of [`stabletoolbench::results::run`].
    pub fn options(&self) -> StabletoolbenchScoreOptions {
        StabletoolbenchScoreOptions {
            pass_rate_results: self.pass_rate_results.clone(),
            evaluate_times: self.evaluate_times,
            preference_results: self.preference_results.clone(),
            reference: self.reference.clone(),
            format: self.format,
            wide: self.table.wide,
        }
    }

    /// Runs `itc ood score stabletoolbench`: results on `out`, notes on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        stabletoolbench::results::run(&self.options(), out, err)
    }
}

/// Arguments of `itc ood score seal-tools`.
#[derive(Debug, Clone, Args)]
pub struct SealScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// Gold file: `dataset_for_finetune/test_*.json` (gold in `conversations[1].value`).
    #[arg(long)]
    pub gold: PathBuf,
    /// Prediction files: JSONL of `{"id", "output"}` or `itc eval` predictions
    /// (`task_id`, `model`, `output`); one result per model.
    #[arg(long, num_args = 1.., required = true)]
    pub predictions: Vec<PathBuf>,
    /// Records to score, by id (`-easy-` / `-difficult-`).
    #[arg(long, value_enum, default_value_t = Subset::default())]
    pub subset: Subset,
    /// Only the record ids listed in this file (one per line).
    #[arg(long)]
    pub ids: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl SealScoreArgs {
    /// The options of [`score::score_seal_tools`].
    pub fn options(&self) -> SealScoreOptions {
        SealScoreOptions {
            compat: self.compat.compat,
            gold: self.gold.clone(),
            predictions: self.predictions.clone(),
            subset: self.subset,
            ids: self.ids.clone(),
            format: self.format,
            wide: self.table.wide,
        }
    }

    /// Runs `itc ood score seal-tools`: results on `out`, warnings on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        score::score_seal_tools(&self.options(), out, err)
    }
}

/// Arguments of `itc ood score apibench`.
#[derive(Debug, Clone, Args)]
pub struct ApibenchScoreArgs {
    /// Scoring rules.
    #[command(flatten)]
    pub compat: CompatFlag,
    /// The hub: picks `ast_eval_hf`, `ast_eval_tf` or `ast_eval_th`.
    #[arg(long, value_enum)]
    pub hub: Hub,
    /// The hub's API database (`data/api/<hub>_api.jsonl`).
    #[arg(long)]
    pub api_db: PathBuf,
    /// Gold question/answer pairs (`data/apibench/<hub>_eval.json`, JSON Lines).
    #[arg(long)]
    pub gold: PathBuf,
    /// Response files (JSONL of `{"question_id", "text"}`); one result per file.
    #[arg(long, num_args = 1.., required = true)]
    pub responses: Vec<PathBuf>,
    /// Write per-question verdicts (JSONL) to this file (one file: exactly; several: appended).
    #[arg(long)]
    pub per_item: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl ApibenchScoreArgs {
    /// The options of [`score::score_apibench`].
    pub fn options(&self) -> ApibenchScoreOptions {
        ApibenchScoreOptions {
            compat: self.compat.compat,
            hub: self.hub,
            api_db: self.api_db.clone(),
            gold: self.gold.clone(),
            responses: self.responses.clone(),
            per_item: self.per_item.clone(),
            format: self.format,
            wide: self.table.wide,
        }
    }

    /// Runs `itc ood score apibench`: results on `out`, warnings on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        score::score_apibench(&self.options(), out, err)
    }
}

/// Arguments of `itc ood report`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Run directories of `itc eval --dataset …` (each holds `ood.json`,
    /// `summary.json` and, for APIBench and Seal-Tools, `official.json`).
    #[arg(long, num_args = 1..)]
    pub run: Vec<PathBuf>,
    /// Output files of `itc ood score apibench --format json` (one line per
    /// response file; the model is the file name without `response_<hub>_`).
    #[arg(long, num_args = 1..)]
    pub apibench_scores: Vec<PathBuf>,
    /// Write `table5.csv`, `apibench.csv` (and `seal_tools.csv`) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// How tables are laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl ReportArgs {
    /// The options of [`report::run`].
    pub fn options(&self) -> ReportOptions {
        ReportOptions {
            runs: self.run.clone(),
            apibench_scores: self.apibench_scores.clone(),
            out: self.out.clone(),
            format: self.format,
            wide: self.table.wide,
        }
    }

    /// Runs `itc ood report`: tables on `out`, the CSV files written on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        report::run(&self.options(), out, err)
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        ood: BenchmarksArgs,
    }

    #[test]
    fn every_official_scorer_says_official_is_the_only_value_and_the_default() {
        let mut command = Cli::command();
        let score = command.find_subcommand_mut("score").unwrap();
        let names: Vec<String> = score
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(names.len(), 6, "{names:?}");
        for name in names {
            let help = score
                .find_subcommand_mut(&name)
                .unwrap()
                .render_long_help()
                .to_string();
            let compat = &help[help.find("--compat").unwrap()..];
            let compat = &compat[..compat.find("\n      --").unwrap_or(compat.len())];
            assert!(
                compat.contains("only value") && compat.contains("[default: official]"),
                "{name}: {compat}"
            );
        }
    }

    #[test]
    fn the_fetch_cache_is_ood_cache_and_cache_dir_still_works() {
        for flag in ["--ood-cache", "--cache-dir"] {
            let cli = Cli::try_parse_from(["itc", "fetch", "bfcl", flag, "c"]).unwrap();
            let BenchmarksCommand::Fetch(fetch) = cli.ood.command else {
                panic!("not fetch");
            };
            assert_eq!(fetch.options().cache_dir, PathBuf::from("c"));
            let cli =
                Cli::try_parse_from(["itc", "score", "bfcl", "--results", "r", flag, "c"]).unwrap();
            let BenchmarksCommand::Score(ScoreCommand {
                benchmark: ScoreBenchmark::Bfcl(bfcl),
            }) = cli.ood.command
            else {
                panic!("not score bfcl");
            };
            assert_eq!(bfcl.options().cache_dir, Some(PathBuf::from("c")));
        }
        let mut command = Cli::command();
        for path in [&["fetch"][..], &["score", "bfcl"]] {
            let mut sub = &mut command;
            for name in path {
                sub = sub.find_subcommand_mut(name).unwrap();
            }
            let help = sub.render_long_help().to_string();
            assert!(
                help.contains("--ood-cache <DIR>") && !help.contains("--cache-dir"),
                "{help}"
            );
        }
    }
}
