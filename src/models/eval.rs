//! `itc eval`: run models on tasks into a run directory, then score the
//! predictions there with the same functions as `itc score`.
//!
//! A run directory holds `tasks.jsonl` (the tasks selected), `models.json`
//! (the model configurations; key variable names only, never keys),
//! `predictions.jsonl`, `run.json` (the run figures) and the files
//! `itc score --out` writes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use clap::Args;

use super::config::{Backend, ConfigFile, Mode, ModelConfig};
use super::retry::civil_from_days;
use super::runner::{ModelSpec, RunOptions, RunReport, predictions_path, run_shared};
use super::select::{Selection, parse_kind};
use super::stats::run_table;
use super::store::check_start;
use crate::score::files::{OutputFormat, ScoreArgs, sample_tasks, score};
use crate::spec::jsonl::{read_records, write_records};
use crate::spec::records::Task;

/// Arguments of `itc eval`.
#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// Model configuration file (TOML, `[[models]]` tables).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Models of the configuration to run, comma-separated. Default: all.
    #[arg(long, value_delimiter = ',', requires = "config")]
    pub models: Vec<String>,

    /// Ad-hoc model: backend (no configuration file needed).
    #[arg(long, value_enum, conflicts_with = "config")]
    pub backend: Option<Backend>,
    /// Ad-hoc model: endpoint root, e.g. http://127.0.0.1:8080/v1.
    #[arg(long, requires = "backend")]
    pub base_url: Option<String>,
    /// Ad-hoc model: model id sent to the server.
    #[arg(long, requires = "backend")]
    pub model_id: Option<String>,
    /// Ad-hoc model: name in predictions and tables (default: the model id).
    #[arg(long, requires = "backend")]
    pub name: Option<String>,
    /// Ad-hoc model: environment variable holding the API key.
    #[arg(long, requires = "backend")]
    pub api_key_env: Option<String>,

    /// Answer mode (overrides the configuration's).
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Sampling temperature (overrides the configuration's).
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Answer length limit in tokens (overrides the configuration's).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Requests in flight per model (overrides the configuration's).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Requests per minute per model (overrides the configuration's).
    #[arg(long)]
    pub rpm: Option<u32>,
    /// Tokens per minute per model (overrides the configuration's).
    #[arg(long)]
    pub tpm: Option<u64>,
    /// USD per million prompt tokens (overrides the configuration's).
    #[arg(long)]
    pub price_input: Option<f64>,
    /// USD per million completion tokens (overrides the configuration's).
    #[arg(long)]
    pub price_output: Option<f64>,
    /// Per-request timeout in milliseconds (default 120000).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Requests per task at most, retries included (default 5).
    #[arg(long)]
    pub max_attempts: Option<u32>,
    /// First retry delay in milliseconds (default 1000), doubling per retry.
    #[arg(long)]
    pub retry_base_ms: Option<u64>,
    /// Longest retry delay in milliseconds (default 60000).
    #[arg(long)]
    pub retry_cap_ms: Option<u64>,

    /// Task file (JSONL, SPEC §0). Default: the sample set.
    #[arg(long)]
    pub tasks: Option<PathBuf>,
    /// Run an OOD benchmark instead of a task file: apibench:huggingface,
    /// apibench:tensorflowhub, apibench:torchhub, seal-tools, toolalpaca,
    /// nexusraven (files from --dataset-files, else the `itc ood fetch`
    /// cache, else the copies in datasets/ood).
    #[arg(long, conflicts_with = "tasks")]
    pub dataset: Option<String>,
    /// The benchmark's files (APIBench: the hub's `*_api.jsonl` and `*_eval.json`).
    #[arg(long, num_args = 1.., requires = "dataset")]
    pub dataset_files: Vec<PathBuf>,
    /// Where `itc ood fetch` put the files. Default: $ITC_CACHE/ood, else ~/.cache/itc/ood.
    #[arg(long, requires = "dataset")]
    pub ood_cache: Option<PathBuf>,
    /// APIBench: distractor tools per task besides the gold API (default 4).
    #[arg(long, requires = "dataset")]
    pub candidates: Option<usize>,
    /// Answer format asked for in the prompt mode (overrides the
    /// configuration's): itc, or a benchmark's own: gorilla (APIBench),
    /// seal-tools.
    #[arg(long, value_enum)]
    pub prompt_style: Option<super::prompt::PromptStyle>,
    /// Your own system prompt: a minijinja template file replacing
    /// `prompts/system.jinja` (prompt and structured modes, ITC style).
    #[arg(long)]
    pub system_prompt: Option<PathBuf>,
    /// Run at most this many tasks (the first, after the other filters).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Only these task ids, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<String>,
    /// Only these task kinds, comma-separated (single, repeated, parallel, nested, no_tool).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// Only these languages, comma-separated ISO 639-1 codes.
    #[arg(long, value_delimiter = ',')]
    pub languages: Vec<String>,

    /// Run directory. Default: `runs/<model name>-<UTC timestamp>`.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// Continue the run directory: skip finished tasks, retry errored ones.
    #[arg(long)]
    pub resume: bool,
    /// Response cache directory. Default: `cache/` beside the run directory.
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Send every request, store nothing.
    #[arg(long)]
    pub no_cache: bool,
    /// Never draw the progress bar.
    #[arg(long)]
    pub no_progress: bool,

    /// Output of the scores on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Compare values exactly (after NFKC) instead of SPEC §3's loose rules.
    #[arg(long)]
    pub strict_values: bool,
    /// Bootstrap resamples for the 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 20250101)]
    pub seed: u64,
}

impl EvalArgs {
    /// The models to run: from the configuration file, the ad-hoc flags, or
    /// the baseline when neither is given; command line overrides applied.
    pub fn model_configs(&self) -> anyhow::Result<Vec<ModelConfig>> {
        let mut models = if let Some(path) = &self.config {
            let origin = path.display().to_string();
            ConfigFile::load(path)?.select(&self.models, &origin)?
        } else if let Some(backend) = self.backend {
            let name = self
                .name
                .clone()
                .or_else(|| self.model_id.clone())
                .unwrap_or_else(|| backend.as_str().to_string());
            let mut model = ModelConfig::new(name, backend);
            model.base_url = self.base_url.clone();
            model.model_id = self.model_id.clone();
            model.api_key_env = self.api_key_env.clone();
            vec![model]
        } else {
            vec![ModelConfig::new("baseline", Backend::Baseline)]
        };
        for model in &mut models {
            self.apply_overrides(model);
            model.validate(&format!("model `{}`", model.name))?;
        }
        Ok(models)
    }

    fn apply_overrides(&self, m: &mut ModelConfig) {
        if let Some(v) = self.mode {
            m.mode = v;
        }
        if let Some(v) = self.prompt_style {
            m.prompt_style = v;
        }
        if let Some(v) = &self.system_prompt {
            m.system_prompt = Some(v.clone());
        }
        m.temperature = self.temperature.or(m.temperature);
        m.max_tokens = self.max_tokens.unwrap_or(m.max_tokens);
        m.concurrency = self.concurrency.unwrap_or(m.concurrency);
        m.requests_per_minute = self.rpm.or(m.requests_per_minute);
        m.tokens_per_minute = self.tpm.or(m.tokens_per_minute);
        m.price_input_per_mtok = self.price_input.or(m.price_input_per_mtok);
        m.price_output_per_mtok = self.price_output.or(m.price_output_per_mtok);
        m.timeout_ms = self.timeout_ms.or(m.timeout_ms);
        m.max_attempts = self.max_attempts.or(m.max_attempts);
        m.retry_base_ms = self.retry_base_ms.or(m.retry_base_ms);
        m.retry_cap_ms = self.retry_cap_ms.or(m.retry_cap_ms);
    }

    /// The task subset the flags ask for.
    pub fn selection(&self) -> anyhow::Result<Selection> {
        Ok(Selection {
            ids: self
                .ids
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            kinds: self
                .kinds
                .iter()
                .map(|k| parse_kind(k))
                .collect::<anyhow::Result<_>>()?,
            languages: self
                .languages
                .iter()
                .map(|s| s.trim().to_string())
                .collect(),
            limit: self.limit,
        })
    }
}

/// `YYYYMMDD-HHMMSS` in UTC.
pub fn timestamp(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}{mo:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The default cache: `cache/` in the run directory's parent.
pub fn default_cache_dir(run_dir: &Path) -> PathBuf {
    match run_dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join("cache"),
        _ => PathBuf::from("cache"),
    }
}

fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.trim_matches('_').to_string()
}

/// Runs `itc eval`: run tables and scores on `out`, notes on `err`.
pub fn eval(args: &EvalArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    // Every check that needs no request comes first: configuration, keys, tasks.
    let configs = args.model_configs()?;
    let ood = match &args.dataset {
        Some(name) => Some(crate::ood::eval::OodRun::prepare(
            name,
            &args.dataset_files,
            args.ood_cache.as_deref(),
            args.candidates.unwrap_or(4),
            &configs,
            err,
        )?),
        None => {
            crate::ood::eval::check_styles(None, &configs)?;
            None
        }
    };
    let specs: Vec<ModelSpec> = configs
        .into_iter()
        .map(ModelSpec::resolve)
        .collect::<anyhow::Result<_>>()?;
    let (all, task_file) = match &ood {
        Some(o) => (
            o.tasks.clone(),
            PathBuf::from(format!("--dataset {}", o.info.dataset)),
        ),
        None => {
            let file = args.tasks.clone().unwrap_or_else(sample_tasks);
            (read_records::<Task>(&file, false)?.0, file)
        }
    };
    let (tasks, repeated) = args.selection()?.apply(all)?;
    if repeated > 0 {
        writeln!(
            err,
            "note: {repeated} task(s) repeat an earlier id in {} and are skipped",
            task_file.display()
        )?;
    }
    if tasks.is_empty() {
        bail!("no task of {} matches the selection", task_file.display());
    }

    let run_dir = match &args.run_dir {
        Some(dir) => dir.clone(),
        None => {
            let name = match specs.as_slice() {
                [one] => slug(&one.config.name),
                _ => "eval".to_string(),
            };
            PathBuf::from("runs").join(format!("{name}-{}", timestamp(SystemTime::now())))
        }
    };
    let offline = specs.iter().all(|s| s.config.backend == Backend::Baseline);
    let cache_dir = if args.no_cache || offline {
        None
    } else {
        Some(
            args.cache
                .clone()
                .unwrap_or_else(|| default_cache_dir(&run_dir)),
        )
    };
    check_start(&predictions_path(&run_dir), args.resume)?;
    std::fs::create_dir_all(&run_dir).with_context(|| format!("creating {}", run_dir.display()))?;
    let tasks_path = run_dir.join("tasks.jsonl");
    write_records(&tasks_path, &tasks)
        .with_context(|| format!("writing {}", tasks_path.display()))?;
    let configs: Vec<&ModelConfig> = specs.iter().map(|s| &s.config).collect();
    std::fs::write(
        run_dir.join("models.json"),
        serde_json::to_string_pretty(&configs)? + "\n",
    )?;
    if let Some(o) = &ood {
        o.info.write(&run_dir)?;
    }

    writeln!(
        err,
        "running {} model(s) on {} task(s) from {} into {}",
        specs.len(),
        tasks.len(),
        task_file.display(),
        run_dir.display()
    )?;
    let options = RunOptions {
        run_dir: run_dir.clone(),
        cache_dir,
        resume: args.resume,
        show_progress: !args.no_progress,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(run_shared(std::sync::Arc::new(tasks), &specs, &options))?;
    drop(runtime);
    write_run_json(&run_dir, &report)?;
    if let Some(r) = report.resume {
        writeln!(
            err,
            "resumed: {} finished prediction(s) kept, {} errored re-run, {} bad line(s) dropped, {} torn byte(s) cut",
            r.kept, r.errored, r.discarded, r.torn_bytes
        )?;
    }
    // The run figures go with the tables; beside JSON output they go to stderr.
    let figures = format!(
        "Run {} ({:.1} s)\n\n{}",
        run_dir.display(),
        report.elapsed.as_secs_f64(),
        run_table(&report.models)
    );
    match args.format {
        OutputFormat::Table => writeln!(out, "{figures}")?,
        OutputFormat::Json => writeln!(err, "{figures}")?,
    }

    // Benchmark-format answers are scored through the SPEC calls read from them.
    let scored = match &ood {
        Some(o) => o.scoring_predictions(&run_dir, &tasks_path, &report.predictions)?,
        None => report.predictions.clone(),
    };
    let score_args = ScoreArgs {
        tasks: Some(tasks_path.clone()),
        predictions: vec![scored],
        out: Some(run_dir.clone()),
        format: args.format,
        strict_values: args.strict_values,
        skip_invalid: false,
        bootstrap: args.bootstrap,
        seed: args.seed,
        threads: None,
    };
    score(&score_args, out, err)?;
    if let Some(o) = &ood {
        o.official(
            &run_dir,
            &tasks_path,
            &report.predictions,
            args.format,
            out,
            err,
        )?;
    }
    Ok(())
}

fn write_run_json(run_dir: &Path, report: &RunReport) -> anyhow::Result<()> {
    let json = serde_json::json!({
        "predictions": report.predictions,
        "elapsed_ms": report.elapsed.as_millis() as u64,
        "models": report.models,
    });
    let path = run_dir.join("run.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        eval: EvalArgs,
    }

    fn parse(args: &[&str]) -> Result<EvalArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("itc").chain(args.iter().copied())).map(|c| c.eval)
    }

    #[test]
    fn no_arguments_means_the_baseline() {
        let models = parse(&[]).unwrap().model_configs().unwrap();
        assert_eq!(
            models,
            vec![ModelConfig::new("baseline", Backend::Baseline)]
        );
    }

    #[test]
    fn ad_hoc_models_from_flags() {
        let args = parse(&[
            "--backend",
            "openai",
            "--base-url",
            "http://127.0.0.1:8080/v1",
            "--model-id",
            "x",
            "--mode",
            "native",
            "--concurrency",
            "3",
            "--retry-base-ms",
            "5",
        ])
        .unwrap();
        let m = &args.model_configs().unwrap()[0];
        assert_eq!(
            (m.name.as_str(), m.mode, m.concurrency),
            ("x", Mode::Native, 3)
        );
        assert_eq!(m.retry_policy().base, std::time::Duration::from_millis(5));
        assert_eq!(m.effective_key_env(), None);
        let err = parse(&["--backend", "openai", "--base-url", "http://h/v1"])
            .unwrap()
            .model_configs()
            .unwrap_err();
        assert!(err.to_string().contains("model_id: required"), "{err}");
        assert!(parse(&["--config", "m.toml", "--backend", "openai"]).is_err());
        assert!(
            parse(&["--model-id", "x"]).is_err(),
            "ad-hoc flags need --backend"
        );
    }

    #[test]
    fn selection_flags() {
        let args = parse(&[
            "--kinds",
            "single,no_tool",
            "--languages",
            "ja,zh",
            "--limit",
            "5",
            "--ids",
            "a,b",
        ])
        .unwrap();
        let s = args.selection().unwrap();
        assert_eq!(s.kinds.len(), 2);
        assert_eq!(s.languages, ["ja", "zh"]);
        assert_eq!((s.limit, s.ids.len()), (Some(5), 2));
        assert!(parse(&["--kinds", "triple"]).unwrap().selection().is_err());
    }

    #[test]
    fn run_dir_defaults() {
        assert_eq!(
            timestamp(UNIX_EPOCH + std::time::Duration::from_secs(784_111_777)),
            "19941106-084937"
        );
        assert_eq!(
            default_cache_dir(Path::new("runs/x")),
            PathBuf::from("runs/cache")
        );
        assert_eq!(default_cache_dir(Path::new("x")), PathBuf::from("cache"));
        assert_eq!(slug("Qwen/Qwen2.5 7B"), "Qwen_Qwen2.5_7B");
    }
}
