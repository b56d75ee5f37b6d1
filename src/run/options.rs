//! What `itc eval` is asked: the models (a configuration file, flags, or
//! the offline baseline), settings replacing theirs, the tasks and their
//! selection, the run directory, and how requests go out.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::select::Selection;
use super::shard::Shard;
use super::steps::StepOptions;
use crate::models::cache::CacheSetting;
use crate::models::config::{
    AD_HOC_MAX_TOKENS, Backend, ConfigFile, Mode, ModelConfig, OpenAiApi, PromptStyle,
};
use crate::score::files::ScoringOptions;

/// Which models a run asks.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ModelSource {
    /// The offline baseline.
    #[default]
    Baseline,
    /// Models of a configuration file (TOML, `[[models]]` tables): these
    /// names, or all when empty.
    ConfigFile {
        /// The file.
        path: PathBuf,
        /// Names of the models to run; all when empty.
        names: Vec<String>,
    },
    /// One model given on the command line.
    AdHoc(AdHocModel),
}

/// A model given by flags, without a configuration file.
#[derive(Debug, Clone, PartialEq)]
pub struct AdHocModel {
    /// The API it speaks.
    pub backend: Backend,
    /// Endpoint root, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: Option<String>,
    /// Model id sent to the server.
    pub model_id: Option<String>,
    /// Name in predictions and tables (default: the model id).
    pub name: Option<String>,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
}

/// Settings that replace each model's configured ones when given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOverrides {
    /// Answer mode.
    pub mode: Option<Mode>,
    /// Answer format asked for in the prompt mode.
    pub prompt_style: Option<PromptStyle>,
    /// The OpenAI API BFCL's official requests go to.
    pub openai_api: Option<OpenAiApi>,
    /// A minijinja template replacing `prompts/system.jinja`.
    pub system_prompt: Option<PathBuf>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Answer length limit in tokens.
    pub max_tokens: Option<u32>,
    /// Requests in flight per model.
    pub concurrency: Option<usize>,
    /// Requests per minute per model.
    pub rpm: Option<u32>,
    /// Tokens per minute per model.
    pub tpm: Option<u64>,
    /// USD per million prompt tokens.
    pub price_input: Option<f64>,
    /// USD per million completion tokens.
    pub price_output: Option<f64>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Requests per task at most, retries included.
    pub max_attempts: Option<u32>,
    /// First retry delay in milliseconds, doubling per retry.
    pub retry_base_ms: Option<u64>,
    /// Longest retry delay in milliseconds.
    pub retry_cap_ms: Option<u64>,
}

impl ModelOverrides {
    /// The flags of the settings given that the offline baseline never
    /// uses (all but `--concurrency`, which still bounds its workers, and
    /// `--prompt-style`, which [`check_prompt_styles`] judges).
    pub fn unused_by_baseline(&self) -> Vec<&'static str> {
        let given = [
            ("--mode", self.mode.is_some()),
            ("--system-prompt", self.system_prompt.is_some()),
            ("--temperature", self.temperature.is_some()),
            ("--max-tokens", self.max_tokens.is_some()),
            ("--rpm", self.rpm.is_some()),
            ("--tpm", self.tpm.is_some()),
            ("--price-input", self.price_input.is_some()),
            ("--price-output", self.price_output.is_some()),
            ("--timeout-ms", self.timeout_ms.is_some()),
            ("--max-attempts", self.max_attempts.is_some()),
            ("--retry-base-ms", self.retry_base_ms.is_some()),
            ("--retry-cap-ms", self.retry_cap_ms.is_some()),
        ];
        given
            .into_iter()
            .filter(|(_, set)| *set)
            .map(|(flag, _)| flag)
            .collect()
    }

    /// Replaces the model's settings with the given ones.
    pub fn apply(&self, m: &mut ModelConfig) {
        if let Some(v) = self.mode {
            m.mode = v;
        }
        if let Some(v) = self.prompt_style {
            m.prompt_style = v;
        }
        if let Some(v) = self.openai_api {
            m.openai_api = Some(v);
        }
        if let Some(v) = &self.system_prompt {
            m.system_prompt = Some(v.clone());
        }
        m.temperature = self.temperature.or(m.temperature);
        m.max_tokens = self.max_tokens.unwrap_or(m.max_tokens);
        m.concurrency = self.concurrency.or(m.concurrency);
        m.requests_per_minute = self.rpm.or(m.requests_per_minute);
        m.tokens_per_minute = self.tpm.or(m.tokens_per_minute);
        m.price_input_per_mtok = self.price_input.or(m.price_input_per_mtok);
        m.price_output_per_mtok = self.price_output.or(m.price_output_per_mtok);
        m.timeout_ms = self.timeout_ms.or(m.timeout_ms);
        m.max_attempts = self.max_attempts.or(m.max_attempts);
        m.retry_base_ms = self.retry_base_ms.or(m.retry_base_ms);
        m.retry_cap_ms = self.retry_cap_ms.or(m.retry_cap_ms);
    }
}

/// Everything `itc eval` needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOptions {
    /// The models to run.
    pub models: ModelSource,
    /// Settings replacing the models' own.
    pub overrides: ModelOverrides,
    /// Task file (JSONL, SPEC §0); `None`: the sample set. Ignored when a
    /// [`Benchmark`](super::Benchmark) brings the tasks.
    pub tasks: Option<PathBuf>,
    /// The subset of the tasks to run.
    pub selection: Selection,
    /// Run directory; `None`: `runs/<model name>-<UTC timestamp>`.
    pub run_dir: Option<PathBuf>,
    /// Continue the run directory: skip finished tasks, retry errored ones.
    pub resume: bool,
    /// With `resume`: a run directory that does not exist yet is started
    /// afresh rather than refused (a scheduler's task that may be a retry).
    pub start_if_missing: bool,
    /// The response cache (default: `cache/` beside the run directory).
    pub cache: CacheSetting,
    /// Draw the progress bar (on a terminal).
    pub show_progress: bool,
    /// How the predictions are scored and shown.
    pub scoring: ScoringOptions,
    /// Whether tasks are asked once or step by step, and how.
    pub steps: StepOptions,
    /// Run only this share of the selected tasks (`itc merge` joins shards).
    pub shard: Option<Shard>,
    /// Send requests, or write them to batch files, or read batch results.
    pub batch: BatchMode,
}

impl EvalOptions {
    /// The models to run: from the configuration file, the ad-hoc flags, or
    /// the baseline; overrides applied and each checked.
    pub fn model_configs(&self) -> anyhow::Result<Vec<ModelConfig>> {
        let mut models = match &self.models {
            ModelSource::ConfigFile { path, names } => {
                let origin = path.display().to_string();
                ConfigFile::load(path)?.select(names, &origin)?
            }
            ModelSource::AdHoc(m) => {
                let name = m
                    .name
                    .clone()
                    .or_else(|| m.model_id.clone())
                    .unwrap_or_else(|| m.backend.as_str().to_string());
                let mut model = ModelConfig::new(name, m.backend);
                model.base_url = m.base_url.clone();
                model.model_id = m.model_id.clone();
                model.api_key_env = m.api_key_env.clone();
                model.max_tokens = AD_HOC_MAX_TOKENS;
                vec![model]
            }
            ModelSource::Baseline => vec![ModelConfig::new("baseline", Backend::Baseline)],
        };
        let unused = self.overrides.unused_by_baseline();
        if !unused.is_empty() && models.iter().all(|m| m.backend == Backend::Baseline) {
            bail!(
                "{}: the offline baseline sends no request, so {} nothing; give a model (--backend …, or --config FILE) or drop {}",
                unused.join(", "),
                if unused.len() == 1 {
                    "this flag changes"
                } else {
                    "these flags change"
                },
                if unused.len() == 1 { "it" } else { "them" }
            );
        }
        for model in &mut models {
            self.overrides.apply(model);
            model.validate(&format!("model `{}`", model.name))?;
        }
        Ok(models)
    }
}

/// Whether a run sends its requests or goes through a batch engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum BatchMode {
    /// Requests are sent.
    #[default]
    Off,
    /// Requests are written to batch files in this folder, not sent; no
    /// prediction is made (`--emit-batch DIR`).
    Emit(PathBuf),
    /// Requests are answered from these batch result files, not sent
    /// (`--import-batch FILE…`).
    Import(Vec<PathBuf>),
}

/// The default cache: `cache/` in the run directory's parent.
pub fn default_cache_dir(run_dir: &Path) -> PathBuf {
    match run_dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join("cache"),
        _ => PathBuf::from("cache"),
    }
}

/// Rejects benchmark prompt styles where they cannot work: the baseline
/// answers in the ITC format only, other formats need the prompt mode and,
/// without a [`Benchmark`](super::Benchmark), have no official scorer to read them.
pub fn check_prompt_styles(models: &[ModelConfig], with_benchmark: bool) -> anyhow::Result<()> {
    for m in models {
        let style = m.prompt_style;
        if style.is_itc() {
            continue;
        }
        let place = format!("model `{}`: prompt_style {}", m.name, style.as_str());
        if m.backend == Backend::Baseline {
            bail!("{place}: the offline baseline answers in the ITC format only");
        }
        // BFCL's style also asks native models: BFCL's function-calling requests.
        let native_ok = style == PromptStyle::Bfcl && m.mode == Mode::Native;
        if m.mode != Mode::Prompt && !native_ok {
            bail!(
                "{place}: needs mode prompt (mode {} asks for its own format)",
                m.mode
            );
        }
        if !with_benchmark {
            bail!("{place}: needs --dataset (an OOD benchmark)");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_model_means_the_baseline() {
        let models = EvalOptions::default().model_configs().unwrap();
        assert_eq!(
            models,
            vec![ModelConfig::new("baseline", Backend::Baseline)]
        );
    }

    #[test]
    fn run_dir_defaults() {
        assert_eq!(
            default_cache_dir(Path::new("runs/x")),
            PathBuf::from("runs/cache")
        );
        assert_eq!(default_cache_dir(Path::new("x")), PathBuf::from("cache"));
    }
}
