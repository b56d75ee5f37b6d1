//! Model configuration: the `models.toml` file, ad-hoc models from command
//! line flags, validation with errors that name the file and the field, and
//! API keys read from the environment only.
//!
//! A `models.toml` holds one `[[models]]` table per model:
//!
//! ```toml
//! [[models]]
//! name = "qwen2.5-7b"                  # how predictions and tables name it
//! backend = "openai"                   # openai | anthropic | gemini | baseline
//! base_url = "http://127.0.0.1:8000/v1"
//! model_id = "Qwen/Qwen2.5-7B-Instruct"
//! api_key_env = "VLLM_API_KEY"         # optional: local servers need none
//! mode = "prompt"                      # prompt | native | structured
//! temperature = 0.0
//! max_tokens = 1024
//! concurrency = 8
//! requests_per_minute = 600
//! tokens_per_minute = 400000
//! price_input_per_mtok = 0.0           # USD per million tokens
//! price_output_per_mtok = 0.0
//! [models.extra_body]                  # merged into every request body
//! top_p = 1.0
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

pub use super::key::ApiKey;
use super::retry::RetryPolicy;

/// The answer format a model is asked for in the *prompt* mode.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum PromptStyle {
    /// ITC's `{"Thought": …, "Action": "[…]"}` (`prompts/system.jinja`).
    #[default]
    Itc,
    /// Gorilla's labelled fields `<<<domain>>>`, `<<<api_call>>>`,
    /// `<<<api_provider>>>`, `<<<explanation>>>` (`prompts/gorilla.jinja`).
    Gorilla,
    /// Seal-Tools' JSON call list (`prompts/seal_tools.jinja`).
    SealTools,
    /// BFCL's own requests, as bfcl-eval sends them for the model's kind
    /// (`--dataset bfcl:…` only; prompt or function-calling mode).
    Bfcl,
    /// ITC's wording of a BFCL prompt: the Python call list `[f(a=1)]`,
    /// function docs as BFCL writes them (`prompts/bfcl.jinja`).
    BfclItc,
}

impl PromptStyle {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            PromptStyle::Itc => "itc",
            PromptStyle::Gorilla => "gorilla",
            PromptStyle::SealTools => "seal-tools",
            PromptStyle::Bfcl => "bfcl",
            PromptStyle::BfclItc => "bfcl-itc",
        }
    }

    /// Whether this is the default ITC style.
    pub fn is_itc(&self) -> bool {
        *self == PromptStyle::Itc
    }
}

/// Which of OpenAI's APIs BFCL's official requests go to (an `openai`
/// backend only; itc's own requests always use Chat Completions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpenAiApi {
    /// `POST /responses`, as bfcl-eval asks OpenAI's own models.
    Responses,
    /// `POST /chat/completions`, as bfcl-eval asks OpenAI-compatible servers
    /// (vLLM, SGLang, llama.cpp, Ollama).
    ChatCompletions,
}

impl OpenAiApi {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            OpenAiApi::Responses => "responses",
            OpenAiApi::ChatCompletions => "chat-completions",
        }
    }

    /// The default for a base URL: the Responses API for OpenAI's own API
    /// (`https://api.openai.com`), Chat Completions for any other server.
    pub fn for_base_url(base_url: &str) -> OpenAiApi {
        if base_url.contains("://api.openai.com") {
            OpenAiApi::Responses
        } else {
            OpenAiApi::ChatCompletions
        }
    }
}

/// Which service answers a model's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// OpenAI-compatible Chat Completions (OpenAI, vLLM, SGLang, llama.cpp
    /// server, Ollama, OpenRouter, …).
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
    /// The offline, gold-blind baseline: no server, no key.
    Baseline,
}

impl Backend {
    /// The name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Openai => "openai",
            Backend::Anthropic => "anthropic",
            Backend::Gemini => "gemini",
            Backend::Baseline => "baseline",
        }
    }

    /// The public endpoint used when no `base_url` is given.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Backend::Openai => Some("https://api.openai.com/v1"),
            Backend::Anthropic => Some("https://api.anthropic.com/v1"),
            Backend::Gemini => Some("https://generativelanguage.googleapis.com/v1beta"),
            Backend::Baseline => None,
        }
    }

    /// The key variable assumed when the public endpoint is used and no
    /// `api_key_env` is given.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            Backend::Openai => Some("OPENAI_API_KEY"),
            Backend::Anthropic => Some("ANTHROPIC_API_KEY"),
            Backend::Gemini => Some("GEMINI_API_KEY"),
            Backend::Baseline => None,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the model is asked to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A system prompt lists the tools as JSON and asks for
    /// `{"Thought": …, "Action": "[…]"}` in text.
    #[default]
    Prompt,
    /// Tools are declared through the API's function calling; calls come
    /// back as structured tool calls.
    Native,
    /// Like `prompt`, with the server constraining the answer to a JSON
    /// schema `{Thought: string, Action: string}` where it can.
    Structured,
}

impl Mode {
    /// The name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Prompt => "prompt",
            Mode::Native => "native",
            Mode::Structured => "structured",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The temperature of a model whose configuration sets none: greedy
/// decoding, so that a server's own default sampling never decides a
/// benchmark's numbers.
pub const DEFAULT_TEMPERATURE: f64 = 0.0;

/// The answer length limit of a `[[models]]` table that sets no `max_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

fn default_max_tokens() -> u32 {
    DEFAULT_MAX_TOKENS
}

/// The per-request timeout of a model that sets no `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// The answer length limit of a model given by flags (`--backend …`) that
/// sets no `--max-tokens`: room for a benchmark's answer (a thought and a
/// few calls), so that a small local model that rambles stops in time.
pub const AD_HOC_MAX_TOKENS: u32 = 512;

/// Requests a model sends at once when its configuration sets no
/// `concurrency` and no local server reports its slots
/// ([`ModelConfig::concurrency`]).
pub const DEFAULT_CONCURRENCY: usize = 4;

/// One model as configured (a `[[models]]` table, or the ad-hoc flags).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Name written in predictions and tables.
    pub name: String,
    /// Service kind.
    pub backend: Backend,
    /// Endpoint root (`…/v1` for OpenAI-compatible servers). Default: the
    /// backend's public endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Model id sent to the server. Required except for `baseline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    /// Name of the environment variable holding the API key. Absent: no key
    /// (local servers), unless the public endpoint is used, which implies
    /// the backend's usual variable (`OPENAI_API_KEY`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// How the model is asked to answer.
    #[serde(default)]
    pub mode: Mode,
    /// The answer format asked for in the *prompt* mode: `itc` (default),
    /// `gorilla` or `seal-tools` (OOD benchmarks' own formats).
    #[serde(default, skip_serializing_if = "PromptStyle::is_itc")]
    pub prompt_style: PromptStyle,
    /// The OpenAI API BFCL's official requests go to; `None`: by the base
    /// URL ([`OpenAiApi::for_base_url`]). Read it through
    /// [`ModelConfig::openai_api`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openai_api: Option<OpenAiApi>,
    /// A minijinja template replacing the system prompt of the *prompt* and
    /// *structured* modes in the ITC style (see docs/running-models.md for its variables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<PathBuf>,
    /// The text of `system_prompt`, read and checked by [`ModelConfig::load_system_prompt`].
    #[serde(skip)]
    pub system_prompt_text: Option<Arc<str>>,
    /// SHA-256 of the `system_prompt` file's text, recorded in a run's
    /// `models.json` so that a resumed run notices an edited template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_sha256: Option<String>,
    /// Sampling temperature. Absent in a file or from the flags, a model of
    /// an API gets [`DEFAULT_TEMPERATURE`] when it is resolved
    /// ([`ModelSpec::resolve`](super::exchange::ModelSpec::resolve)), so
    /// every request states one and a run records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Answer length limit, in tokens.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Requests in flight at once, as configured; `None` when neither
    /// `models.toml` nor `--concurrency` sets it: the run then sends a local
    /// server at most its slots, else [`DEFAULT_CONCURRENCY`]. Read it
    /// through [`ModelConfig::concurrency`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Request rate limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u32>,
    /// Token rate limit (prompt + completion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_minute: Option<u64>,
    /// USD per million prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_input_per_mtok: Option<f64>,
    /// USD per million completion tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_output_per_mtok: Option<f64>,
    /// Per-request timeout, in milliseconds (default 120 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Requests per task at most, retries included (default 5); a request
    /// that timed out twice is not sent again whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// First retry delay, in milliseconds (default 1 000); doubles per retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_base_ms: Option<u64>,
    /// Longest retry delay, in milliseconds (default 60 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_cap_ms: Option<u64>,
    /// Fields merged into every request body (`top_p`, `max_completion_tokens`,
    /// `chat_template_kwargs`, …). They take part in the cache key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_body: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ModelConfig {
    /// The fields itc writes (in a run's `models.json`) that a person does
    /// not: left out of the fields an unknown key's error lists.
    pub const INTERNAL_FIELDS: [&str; 1] = ["system_prompt_sha256"];

    /// Whether a price is configured (else costs are unknown, shown `—`).
    pub fn priced(&self) -> bool {
        self.price_input_per_mtok.is_some() || self.price_output_per_mtok.is_some()
    }

    /// A model with the given name and backend and every other field at its default.
    pub fn new(name: impl Into<String>, backend: Backend) -> ModelConfig {
        ModelConfig {
            name: name.into(),
            backend,
            base_url: None,
            model_id: None,
            api_key_env: None,
            mode: Mode::default(),
            prompt_style: PromptStyle::default(),
            openai_api: None,
            system_prompt: None,
            system_prompt_text: None,
            system_prompt_sha256: None,
            temperature: None,
            max_tokens: default_max_tokens(),
            concurrency: None,
            requests_per_minute: None,
            tokens_per_minute: None,
            price_input_per_mtok: None,
            price_output_per_mtok: None,
            timeout_ms: None,
            max_attempts: None,
            retry_base_ms: None,
            retry_cap_ms: None,
            extra_body: None,
        }
    }

    /// The endpoint root actually used, without a trailing slash.
    pub fn effective_base_url(&self) -> String {
        self.base_url
            .as_deref()
            .or(self.backend.default_base_url())
            .unwrap_or("")
            .trim_end_matches('/')
            .to_string()
    }

    /// The OpenAI API BFCL's official requests go to: as configured, else
    /// by the base URL.
    pub fn openai_api(&self) -> OpenAiApi {
        self.openai_api
            .unwrap_or_else(|| OpenAiApi::for_base_url(&self.effective_base_url()))
    }

    /// The key variable actually used, if any.
    pub fn effective_key_env(&self) -> Option<&str> {
        match (&self.api_key_env, &self.base_url) {
            (Some(env), _) => Some(env.as_str()),
            (None, None) => self.backend.default_key_env(),
            (None, Some(_)) => None,
        }
    }

    /// The retry policy this model's fields describe.
    pub fn retry_policy(&self) -> RetryPolicy {
        let defaults = RetryPolicy::default();
        RetryPolicy {
            max_attempts: self.max_attempts.unwrap_or(defaults.max_attempts),
            base: self
                .retry_base_ms
                .map_or(defaults.base, Duration::from_millis),
            cap: self
                .retry_cap_ms
                .map_or(defaults.cap, Duration::from_millis),
            ..defaults
        }
    }

    /// Requests in flight at once: the configured concurrency, else
    /// [`DEFAULT_CONCURRENCY`].
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(DEFAULT_CONCURRENCY)
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    /// Checks the values serde cannot; `place` prefixes every message
    /// (`models.toml: models[1]`).
    pub fn validate(&self, place: &str) -> anyhow::Result<()> {
        let field = |name: &str| format!("{place}.{name}");
        if self.name.trim().is_empty() {
            bail!("{}: must not be empty", field("name"));
        }
        if self.backend != Backend::Baseline {
            match &self.model_id {
                Some(id) if !id.trim().is_empty() => {}
                _ => bail!(
                    "{}: required for backend {}",
                    field("model_id"),
                    self.backend
                ),
            }
            let url = self.effective_base_url();
            let parsed = reqwest::Url::parse(&url).map_err(|e| {
                anyhow::anyhow!(
                    "{}: `{}` is not a URL: {e}",
                    field("base_url"),
                    without_query(&url)
                )
            })?;
            if let Some(part) = credential_in(&parsed) {
                bail!(
                    "{}: the URL carries a credential ({part}); give the key through api_key_env (--api-key-env) instead, so that it is never written to a file",
                    field("base_url")
                );
            }
            if !matches!(parsed.scheme(), "http" | "https") {
                bail!("{}: `{url}` must be http or https", field("base_url"));
            }
        }
        if let Some(env) = &self.api_key_env
            && (env.is_empty() || env.contains('='))
        {
            bail!(
                "{}: `{env}` is not an environment variable name",
                field("api_key_env")
            );
        }
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            bail!("{}: {t} is outside 0..=2", field("temperature"));
        }
        if self.max_tokens == 0 {
            bail!("{}: must be at least 1", field("max_tokens"));
        }
        if self.concurrency == Some(0) {
            bail!("{}: must be at least 1", field("concurrency"));
        }
        if self.requests_per_minute == Some(0) {
            bail!("{}: must be at least 1", field("requests_per_minute"));
        }
        if self.tokens_per_minute == Some(0) {
            bail!("{}: must be at least 1", field("tokens_per_minute"));
        }
        for (name, price) in [
            ("price_input_per_mtok", self.price_input_per_mtok),
            ("price_output_per_mtok", self.price_output_per_mtok),
        ] {
            if let Some(p) = price
                && !(p.is_finite() && p >= 0.0)
            {
                bail!("{}: {p} must be a non-negative number", field(name));
            }
        }
        if self.max_attempts == Some(0) {
            bail!("{}: must be at least 1", field("max_attempts"));
        }
        if self.timeout_ms == Some(0) {
            bail!("{}: must be at least 1", field("timeout_ms"));
        }
        Ok(())
    }
}

/// The contents of a `models.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The models, in file order.
    #[serde(default)]
    pub models: Vec<ModelConfig>,
    /// Credentials of the hosts executed calls may reach (SPEC §7).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<super::hosts::HostCredential>,
}

impl ConfigFile {
    /// Reads and validates a config file; errors name the file and the field.
    pub fn load(path: &Path) -> anyhow::Result<ConfigFile> {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let mut file = ConfigFile::parse(&text, &path.display().to_string())?;
        // A template path is relative to the file that names it.
        let base = path.parent().unwrap_or(Path::new("."));
        for model in &mut file.models {
            if let Some(template) = &model.system_prompt
                && template.is_relative()
            {
                model.system_prompt = Some(base.join(template));
            }
        }
        Ok(file)
    }

    /// Parses and validates config text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> anyhow::Result<ConfigFile> {
        let file: ConfigFile =
            crate::util::toml_file::from_str_hiding(text, origin, &ModelConfig::INTERNAL_FIELDS)?;
        let mut seen = std::collections::HashSet::new();
        for (i, model) in file.models.iter().enumerate() {
            let place = format!("{origin}: models[{i}]");
            model.validate(&place)?;
            if !seen.insert(model.name.as_str()) {
                bail!("{place}.name: `{}` is used by an earlier model", model.name);
            }
        }
        Ok(file)
    }

    /// The model named `name` in the config file at `path` (errors name
    /// the file and the model).
    pub fn load_one(path: &Path, name: &str) -> anyhow::Result<ModelConfig> {
        let origin = path.display().to_string();
        let mut models = ConfigFile::load(path)?.select(&[name.to_string()], &origin)?;
        Ok(models.remove(0))
    }

    /// The models named in `names` (all when empty), in the order asked.
    pub fn select(&self, names: &[String], origin: &str) -> anyhow::Result<Vec<ModelConfig>> {
        if names.is_empty() {
            if self.models.is_empty() {
                bail!("{origin}: no [[models]] defined");
            }
            return Ok(self.models.clone());
        }
        names
            .iter()
            .map(|name| {
                self.models
                    .iter()
                    .find(|m| &m.name == name)
                    .cloned()
                    .ok_or_else(|| {
                        let known: Vec<&str> =
                            self.models.iter().map(|m| m.name.as_str()).collect();
                        anyhow::anyhow!(
                            "{origin}: no model named `{name}` (known: {})",
                            known.join(", ")
                        )
                    })
            })
            .collect()
    }
}

/// Query parameters whose value is a credential.
const CREDENTIAL_PARAMETERS: [&str; 8] = [
    "key",
    "api-key",
    "api_key",
    "apikey",
    "token",
    "access_token",
    "secret",
    "password",
];

/// What part of a base URL holds a credential: user info, or a query
/// parameter named like a key (`?api-key=…`, `?key=…`).
fn credential_in(url: &reqwest::Url) -> Option<String> {
    if !url.username().is_empty() || url.password().is_some() {
        return Some("user info before the host".into());
    }
    url.query_pairs()
        .map(|(name, _)| name.to_ascii_lowercase())
        .find(|name| CREDENTIAL_PARAMETERS.contains(&name.as_str()))
        .map(|name| format!("the query parameter `{name}`"))
}

/// A URL as it may be shown: without its query, which may hold a key.
fn without_query(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// Reads a model's key from the environment. A configured variable that is
/// unset or empty is an error naming the variable (never a value).
pub fn resolve_key(model: &ModelConfig) -> anyhow::Result<Option<ApiKey>> {
    if model.backend == Backend::Baseline {
        return Ok(None);
    }
    let Some(env) = model.effective_key_env() else {
        return Ok(None);
    };
    match std::env::var(env) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(ApiKey::new(value.trim()))),
        _ => bail!(
            "model `{}`: environment variable {env} is not set or empty (set it, or set api_key_env to the variable that holds the key{})",
            model.name,
            if model.base_url.is_none() {
                "; with base_url set to a local server no key is needed"
            } else {
                ""
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prompt_paths_are_relative_to_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("models.toml");
        std::fs::write(
            &config,
            "[[models]]\nname = \"m\"\nbackend = \"openai\"\nmodel_id = \"x\"\nbase_url = \"http://127.0.0.1:1/v1\"\nsystem_prompt = \"prompts/mine.jinja\"\n",
        )
        .unwrap();
        let file = ConfigFile::load(&config).unwrap();
        let mut model = file.models[0].clone();
        assert_eq!(
            model.system_prompt.as_deref(),
            Some(dir.path().join("prompts/mine.jinja").as_path())
        );
        let err = model.load_system_prompt().unwrap_err().to_string();
        assert!(err.starts_with("model `m`.system_prompt: reading"), "{err}");
        std::fs::create_dir(dir.path().join("prompts")).unwrap();
        std::fs::write(dir.path().join("prompts/mine.jinja"), "Hi {{ language }}").unwrap();
        model.load_system_prompt().unwrap();
        assert_eq!(
            model.system_prompt_text.as_deref(),
            Some("Hi {{ language }}")
        );
    }

    const GOOD: &str = r#"
[[models]]
name = "local"
backend = "openai"
base_url = "http://127.0.0.1:8080/v1/"
model_id = "qwen"
mode = "native"
temperature = 0.0
concurrency = 2
requests_per_minute = 60
[models.extra_body]
top_p = 0.5

[[models]]
name = "claude"
backend = "anthropic"
model_id = "claude-x"
price_input_per_mtok = 3.0
price_output_per_mtok = 15.0

[[models]]
name = "base"
backend = "baseline"
"#;

    #[test]
    fn parses_models_with_defaults() {
        let file = ConfigFile::parse(GOOD, "m.toml").unwrap();
        assert_eq!(file.models.len(), 3);
        let local = &file.models[0];
        assert_eq!(local.mode, Mode::Native);
        assert_eq!(local.max_tokens, 1024);
        assert_eq!(local.effective_base_url(), "http://127.0.0.1:8080/v1");
        assert_eq!(local.effective_key_env(), None);
        assert_eq!(
            local.extra_body.as_ref().unwrap()["top_p"],
            serde_json::json!(0.5)
        );
        let claude = &file.models[1];
        assert_eq!(claude.effective_base_url(), "https://api.anthropic.com/v1");
        assert_eq!(claude.effective_key_env(), Some("ANTHROPIC_API_KEY"));
        assert_eq!(claude.mode, Mode::Prompt);
        let picked = file
            .select(&["base".into(), "local".into()], "m.toml")
            .unwrap();
        assert_eq!(picked[0].name, "base");
        let err = file
            .select(&["nope".into()], "m.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no model named `nope`") && err.contains("local, claude, base"),
            "{err}"
        );
    }

    fn error_of(text: &str) -> String {
        format!("{:#}", ConfigFile::parse(text, "models.toml").unwrap_err())
    }

    #[test]
    fn type_errors_name_file_and_field() {
        let text = GOOD.replace("temperature = 0.0", "temperature = \"cold\"");
        let err = error_of(&text);
        assert!(
            err.starts_with("models.toml: field `models[0].temperature`"),
            "{err}"
        );
        let text = GOOD.replace("mode = \"native\"", "mode = \"telepathy\"");
        let err = error_of(&text);
        assert!(
            err.contains("models[0].mode") && err.contains("telepathy"),
            "{err}"
        );
    }

    #[test]
    fn unknown_fields_are_named() {
        let err = error_of(&GOOD.replace("concurrency = 2", "concurency = 2"));
        assert!(
            err.contains("models.toml") && err.contains("concurency"),
            "{err}"
        );
    }

    /// An unknown key's error lists every field a person may write, and no
    /// field only itc writes (`system_prompt_sha256`, in a run's `models.json`).
    #[test]
    fn an_unknown_field_lists_the_user_fields_only() {
        let mut m = ModelConfig::new("m", Backend::Openai);
        m.base_url = Some("http://h/v1".into());
        m.model_id = Some("x".into());
        m.api_key_env = Some("K".into());
        m.prompt_style = PromptStyle::Gorilla;
        m.openai_api = Some(OpenAiApi::Responses);
        m.system_prompt = Some("p.jinja".into());
        m.system_prompt_sha256 = Some("00".into());
        m.temperature = Some(0.0);
        m.concurrency = Some(1);
        m.requests_per_minute = Some(1);
        m.tokens_per_minute = Some(1);
        m.price_input_per_mtok = Some(0.0);
        m.price_output_per_mtok = Some(0.0);
        m.timeout_ms = Some(1);
        m.max_attempts = Some(1);
        m.retry_base_ms = Some(1);
        m.retry_cap_ms = Some(1);
        m.extra_body = Some(serde_json::Map::new());
        let json = serde_json::to_value(&m).unwrap();
        let every: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for internal in ModelConfig::INTERNAL_FIELDS {
            assert!(every.contains(&internal), "{internal} is a field");
        }
        let err = error_of(&GOOD.replace("concurrency = 2", "concurency = 2"));
        let listed: std::collections::BTreeSet<&str> = err
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("{err}"))
            .split(", ")
            .map(|f| f.trim().trim_matches('`'))
            .collect();
        let user: std::collections::BTreeSet<&str> = every
            .into_iter()
            .filter(|f| !ModelConfig::INTERNAL_FIELDS.contains(f))
            .collect();
        assert_eq!(listed, user, "{err}");
    }

    #[test]
    fn every_backend_but_the_baseline_needs_a_model_id() {
        for backend in [Backend::Openai, Backend::Anthropic, Backend::Gemini] {
            let mut m = ModelConfig::new("m", backend);
            m.base_url = Some("http://127.0.0.1:1/v1".into());
            let err = m
                .validate("models.toml: models[0]")
                .unwrap_err()
                .to_string();
            assert_eq!(
                err,
                format!("models.toml: models[0].model_id: required for backend {backend}")
            );
        }
        assert!(
            ModelConfig::new("m", Backend::Baseline)
                .validate("models.toml: models[0]")
                .is_ok()
        );
    }

    #[test]
    fn missing_and_invalid_values_are_named() {
        let err = error_of(&GOOD.replace("model_id = \"claude-x\"", ""));
        assert_eq!(
            err,
            "models.toml: models[1].model_id: required for backend anthropic"
        );
        let err = error_of(&GOOD.replace("concurrency = 2", "concurrency = 0"));
        assert_eq!(
            err,
            "models.toml: models[0].concurrency: must be at least 1"
        );
        let err = error_of(&GOOD.replace("http://127.0.0.1:8080/v1/", "ftp://x"));
        assert!(err.starts_with("models.toml: models[0].base_url:"), "{err}");
        for url in [
            "http://user:sk-in-url-123@127.0.0.1:8080/v1",
            "https://example.org/v1?api-key=sk-in-url-123",
            "https://example.org/v1?x=1&KEY=sk-in-url-123",
        ] {
            let err = error_of(&GOOD.replace("http://127.0.0.1:8080/v1/", url));
            assert!(
                err.contains("base_url: the URL carries a credential"),
                "{err}"
            );
            assert!(err.contains("api_key_env"), "{err}");
            assert!(!err.contains("sk-in-url-123"), "{err}");
        }
        let err =
            error_of(&GOOD.replace("http://127.0.0.1:8080/v1/", "not a url?key=sk-in-url-123"));
        assert!(!err.contains("sk-in-url-123"), "{err}");
        let err = error_of(&GOOD.replace("name = \"base\"", "name = \"local\""));
        assert!(
            err.contains("models[2].name: `local` is used by an earlier model"),
            "{err}"
        );
        let err = error_of("[[models]]\nbackend = \"openai\"\n");
        assert!(err.contains("missing field `name`"), "{err}");
        let err = error_of("[[models]\n");
        assert!(err.starts_with("models.toml: "), "{err}");
    }

    #[test]
    fn missing_key_is_an_error_naming_the_variable() {
        let mut model = ModelConfig::new("m", Backend::Openai);
        model.model_id = Some("x".into());
        model.api_key_env = Some("ITC_TEST_SURELY_UNSET_KEY".into());
        let err = resolve_key(&model).unwrap_err().to_string();
        assert!(
            err.contains("ITC_TEST_SURELY_UNSET_KEY") && err.contains("`m`"),
            "{err}"
        );
        model.api_key_env = None;
        model.base_url = Some("http://127.0.0.1:1/v1".into());
        assert!(resolve_key(&model).unwrap().is_none());
    }

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.redact("bad key sk-secret-123!"), "bad key ***!");
        // Echoed with JSON escapes, in any mix and case.
        assert_eq!(
            key.redact(r#"{"error":"key \u0073\u006B-secret-123 is invalid"}"#),
            r#"{"error":"key *** is invalid"}"#
        );
        assert_eq!(
            key.redact("x \\u0073k-secret-12 y"),
            "x \\u0073k-secret-12 y"
        );
        let mut body = serde_json::json!({
            "choices": [{"message": {"content": "your key is sk-secret-123", "reasoning_content": "sk-secret-123"}}],
            "sk-secret-123": 1
        });
        key.redact_value(&mut body);
        let text = body.to_string();
        assert!(!text.contains("sk-secret-123"), "{text}");
        assert!(text.contains("your key is ***"), "{text}");
    }
}
