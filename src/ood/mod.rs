//! Out-of-distribution (OOD) benchmarks: converters from other benchmarks'
//! formats into SPEC §0 tasks (`itc ood convert`), and their official
//! scorers reproduced exactly (`itc ood score … --compat official`, SPEC §5):
//! Seal-Tools, and APIBench on code and prose answers alike (its parse trees
//! come from tree-sitter itself, see [`python::parse`]).
//!
//! - [`seal_tools`]: Seal-Tools' output parser and `calculate_score_ToolLearning`; its converter.
//! - [`apibench`]: Gorilla's `ast_eval_{hf,tf,th}` (AST accuracy, hallucination); its converter.
//! - [`nexusraven`]: NexusRaven queries (Python signatures, docstrings, call strings) to tasks.
//! - [`toolalpaca`]: ToolAlpaca (OpenAPI documentation, golden answers) to tasks.
//! - [`python`]: the Python semantics the official scorers depend on: values, `str()`/`repr()`,
//!   `json.loads`, literal `eval`, tree-sitter parse trees.
//! - [`fetch`]: `itc ood fetch`: the public files, pinned and hash-checked, into a cache.
//! - [`dataset`]: the datasets `itc eval --dataset` runs: names, files, conversion.
//! - [`eval`]: what `itc eval --dataset` adds to a run: benchmark-format answers read as SPEC calls, official scores.
//! - [`answers`]: Gorilla and Seal-Tools answers to SPEC calls, and SPEC calls to their formats.
//! - [`report`]: `itc ood report`: Table-5-shaped (ITC) and APIBench (ToolLLM) tables.

pub mod answers;
pub mod apibench;
pub mod dataset;
pub mod eval;
pub mod fetch;
pub mod nexusraven;
pub mod python;
pub mod report;
pub mod seal_tools;
pub mod toolalpaca;

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};

use crate::score::files::OutputFormat;
use crate::spec::records::Task;

/// Arguments of `itc ood`.
#[derive(Debug, Clone, Args)]
pub struct OodArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: OodCommand,
}

/// The `itc ood` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum OodCommand {
    /// Convert another benchmark's files into SPEC §0 tasks (JSONL).
    Convert(ConvertArgs),
    /// Score predictions with another benchmark's official scorer, reproduced exactly.
    Score(ScoreCommand),
    /// Download a benchmark's public files (pinned commit, SHA-256 checked) into a cache.
    Fetch(FetchArgs),
    /// Tables of OOD results: ITC's Table 5 (selection/invocation F1) and ToolLLM's APIBench table.
    Report(report::ReportArgs),
}

/// Arguments of `itc ood fetch`.
#[derive(Debug, Clone, Args)]
pub struct FetchArgs {
    /// Dataset: apibench (all hubs), apibench-huggingface, apibench-tensorflowhub,
    /// apibench-torchhub, seal-tools, toolalpaca, nexusraven.
    pub name: String,
    /// Cache directory. Default: $ITC_CACHE/ood, else ~/.cache/itc/ood.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Replaces https://raw.githubusercontent.com (a mirror, or a local server).
    #[arg(long)]
    pub base_url: Option<String>,
}

/// The benchmarks `itc ood convert` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// Gorilla APIBench (`data/apibench/<hub>_eval.json` + the hub's API database).
    Apibench,
    /// Seal-Tools (`dataset_for_finetune/*.json`).
    SealTools,
    /// NexusRaven (`*_queries.json` with Python signatures).
    Nexusraven,
    /// ToolAlpaca (`eval_simulated.json`, `eval_real.json`).
    Toolalpaca,
}

/// The three APIBench hubs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hub {
    /// Hugging Face (`ast_eval_hf.py`).
    Huggingface,
    /// TensorFlow Hub (`ast_eval_tf.py`).
    Tensorflowhub,
    /// PyTorch Hub (`ast_eval_th.py`).
    Torchhub,
}

impl Hub {
    /// The hub's name in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Hub::Huggingface => "huggingface",
            Hub::Tensorflowhub => "tensorflowhub",
            Hub::Torchhub => "torchhub",
        }
    }
}

/// Arguments of `itc ood convert`.
#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    /// Which benchmark the input files come from.
    #[arg(value_enum)]
    pub source: Source,
    /// Input files in the benchmark's own format.
    #[arg(long, num_args = 1.., required = true)]
    pub input: Vec<PathBuf>,
    /// APIBench: the hub of the input files.
    #[arg(long, value_enum)]
    pub hub: Option<Hub>,
    /// APIBench: the hub's API database (`data/api/<hub>_api.jsonl`), the candidate tools.
    #[arg(long)]
    pub api_db: Option<PathBuf>,
    /// APIBench: candidate tools per task besides the gold API (deterministic choice).
    #[arg(long, default_value_t = 4)]
    pub candidates: usize,
    /// Output task file (JSONL).
    #[arg(short = 'o', long)]
    pub output: PathBuf,
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
}

/// Scoring rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compat {
    /// The benchmark's own official scorer, quirks included (SPEC §5).
    Official,
}

/// Arguments of `itc ood score seal-tools`.
#[derive(Debug, Clone, Args)]
pub struct SealScoreArgs {
    /// Scoring rules.
    #[arg(long, value_enum, default_value_t = Compat::Official)]
    pub compat: Compat,
    /// Gold file: `dataset_for_finetune/test_*.json` (gold in `conversations[1].value`).
    #[arg(long)]
    pub gold: PathBuf,
    /// Prediction files: JSONL of `{"id", "output"}` or `itc eval` predictions
    /// (`task_id`, `model`, `output`); one result per model.
    #[arg(long, num_args = 1.., required = true)]
    pub predictions: Vec<PathBuf>,
    /// Records to score, by id (`-easy-` / `-difficult-`).
    #[arg(long, value_enum, default_value_t = seal_tools::Subset::All)]
    pub subset: seal_tools::Subset,
    /// Only the record ids listed in this file (one per line).
    #[arg(long)]
    pub ids: Option<PathBuf>,
    /// Output on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// Arguments of `itc ood score apibench`.
#[derive(Debug, Clone, Args)]
pub struct ApibenchScoreArgs {
    /// Scoring rules.
    #[arg(long, value_enum, default_value_t = Compat::Official)]
    pub compat: Compat,
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
}

/// Runs `itc ood`: results on `out`, warnings on `err`.
pub fn run(args: &OodArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    match &args.command {
        OodCommand::Convert(a) => convert(a, err),
        OodCommand::Score(ScoreCommand {
            benchmark: ScoreBenchmark::SealTools(a),
        }) => score_seal_tools(a, out, err),
        OodCommand::Score(ScoreCommand {
            benchmark: ScoreBenchmark::Apibench(a),
        }) => score_apibench(a, out, err),
        OodCommand::Fetch(a) => fetch::run(
            &a.name,
            a.cache_dir.as_deref(),
            a.base_url.as_deref(),
            out,
            err,
        ),
        OodCommand::Report(a) => report::run(a, out, err),
    }
}

fn convert(args: &ConvertArgs, err: &mut dyn Write) -> anyhow::Result<()> {
    let (tasks, warnings): (Vec<Task>, Vec<String>) = match args.source {
        Source::SealTools => seal_tools::convert(&seal_tools::ConvertOptions {
            inputs: args.input.clone(),
        })?,
        Source::Apibench => {
            let hub = args.hub.context("--hub is required for apibench")?;
            let api_db = args
                .api_db
                .as_ref()
                .context("--api-db is required for apibench")?;
            apibench::convert(&apibench::ConvertOptions {
                hub,
                api_db: api_db.clone(),
                inputs: args.input.clone(),
                candidates: args.candidates,
            })?
        }
        Source::Nexusraven => nexusraven::convert(&args.input)?,
        Source::Toolalpaca => toolalpaca::convert(&args.input)?,
    };
    for w in &warnings {
        writeln!(err, "warning: {w}")?;
    }
    let mut seen = HashSet::new();
    for t in &tasks {
        anyhow::ensure!(seen.insert(t.id.as_str()), "duplicate task id {:?}", t.id);
    }
    crate::spec::jsonl::write_records(&args.output, &tasks)
        .with_context(|| format!("writing {}", args.output.display()))?;
    writeln!(
        err,
        "wrote {} tasks to {}",
        tasks.len(),
        args.output.display()
    )?;
    Ok(())
}

fn read_id_file(path: &Path) -> anyhow::Result<HashSet<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// Python's `repr(float)` of an optional ratio, for tables.
fn ratio(x: Option<f64>) -> String {
    x.map(python::float_repr).unwrap_or_else(|| "—".into())
}

fn score_seal_tools(
    args: &SealScoreArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let gold = seal_tools::read_gold(&args.gold)?;
    let mut predictions = Vec::new();
    for p in &args.predictions {
        predictions.extend(seal_tools::read_predictions(p)?);
    }
    let ids = args.ids.as_deref().map(read_id_file).transpose()?;
    let reports = seal_tools::score_official(&gold, &predictions, args.subset, ids.as_ref())?;
    for r in &reports {
        if r.missing > 0 {
            writeln!(
                err,
                "warning: {}: {} gold record(s) have no prediction; scored as unparsed (-1)",
                r.model, r.missing
            )?;
        }
    }
    match args.format {
        OutputFormat::Json => {
            for r in &reports {
                writeln!(out, "{}", serde_json::to_string(r)?)?;
            }
        }
        OutputFormat::Table => {
            let mut b = tabled::builder::Builder::default();
            b.push_record([
                "Model", "n", "Parsed", "Tool P", "Tool R", "Tool F1", "Param P", "Param R",
                "Param F1",
            ]);
            for r in &reports {
                b.push_record([
                    r.model.clone(),
                    r.n.to_string(),
                    ratio(r.parsed_fraction),
                    ratio(r.tool_p),
                    ratio(r.tool_r),
                    ratio(r.tool_f1),
                    ratio(r.param_p),
                    ratio(r.param_r),
                    ratio(r.param_f1),
                ]);
            }
            writeln!(
                out,
                "Seal-Tools, official calculate_score_ToolLearning ({} records, subset {:?}); fractions, pooled\n",
                reports.first().map_or(0, |r| r.n),
                args.subset
            )?;
            writeln!(
                out,
                "{}",
                b.build().with(tabled::settings::Style::rounded())
            )?;
        }
    }
    Ok(())
}

fn score_apibench(
    args: &ApibenchScoreArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = apibench::ApiDatabase::read(&args.api_db, args.hub)?;
    let gold = apibench::read_gold_domains(&args.gold)?;
    let mut reports = Vec::new();
    let mut per_item = Vec::new();
    for path in &args.responses {
        let responses = apibench::read_responses(path)?;
        let (report, items) = apibench::score_official(&db, &gold, &responses, args.hub)
            .with_context(|| format!("scoring {}", path.display()))?;
        for w in &report.warnings {
            writeln!(err, "warning: {}: {w}", path.display())?;
        }
        reports.push((path.clone(), report));
        per_item.extend(items);
    }
    if let Some(p) = &args.per_item {
        crate::spec::jsonl::write_records(p, &per_item)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    match args.format {
        OutputFormat::Json => {
            for (path, r) in &reports {
                let mut v = serde_json::to_value(r)?;
                v["responses"] = serde_json::Value::String(path.display().to_string());
                writeln!(out, "{}", serde_json::to_string(&v)?)?;
            }
        }
        OutputFormat::Table => {
            let mut b = tabled::builder::Builder::default();
            b.push_record([
                "Responses",
                "Total",
                "Correct",
                "Halluc.",
                "Accuracy",
                "Hallucination",
            ]);
            for (path, r) in &reports {
                b.push_record([
                    path.file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    r.total.to_string(),
                    r.correct.to_string(),
                    r.hallucinated.to_string(),
                    python::float_repr(r.accuracy),
                    python::float_repr(r.hallucination),
                ]);
            }
            writeln!(
                out,
                "APIBench {}, official {} (AST accuracy and hallucination, fractions of all responses)\n",
                args.hub.as_str(),
                apibench::script_name(args.hub)
            )?;
            writeln!(
                out,
                "{}",
                b.build().with(tabled::settings::Style::rounded())
            )?;
        }
    }
    Ok(())
}
