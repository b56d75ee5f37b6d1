//! `itc eval --dataset`: an OOD benchmark run like any task file, with its
//! conversion before and its official scorer after (`OodRun` implements
//! [`crate::run::Benchmark`]).

use std::io::Write;
use std::path::PathBuf;

use super::eval::OodRun;
use super::tau::ask::TauRun;
use crate::models::config::{Backend, Mode, ModelConfig, PromptStyle};
use crate::run::{EvalOptions, ModelSource, eval_models};

/// Which benchmark to run and where its files are.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetOptions {
    /// A name of [`super::dataset::names`] (or BFCL categories separated
    /// by commas: `bfcl:simple_python,multiple`).
    pub name: String,
    /// The benchmark's files; empty: the `itc ood fetch` cache, else the
    /// copies of `datasets/ood` embedded in the binary.
    pub files: Vec<PathBuf>,
    /// Where `itc ood fetch` put the files; `None`: its default.
    pub cache_dir: Option<PathBuf>,
    /// APIBench: distractor tools per task besides the gold API.
    pub candidates: usize,
    /// τ³-bench: the user model, trials and limits.
    pub tau: TauRun,
}

impl Default for DatasetOptions {
    fn default() -> Self {
        DatasetOptions {
            name: String::new(),
            files: Vec::new(),
            cache_dir: None,
            candidates: super::apibench::DEFAULT_CANDIDATES,
            tau: TauRun::default(),
        }
    }
}

/// On BFCL, models are asked as bfcl-eval asks them (prompt-mode models
/// with BFCL's system prompt, native ones with its tools) unless
/// `--prompt-style` says otherwise; a model with its own system template,
/// a structured-mode model and the baseline keep ITC's requests.
fn bfcl_prompt_style(configs: &mut [ModelConfig], err: &mut dyn Write) -> anyhow::Result<()> {
    for m in configs.iter_mut() {
        if matches!(m.mode, Mode::Prompt | Mode::Native)
            && m.prompt_style == PromptStyle::Itc
            && m.system_prompt.is_none()
            && m.backend != Backend::Baseline
        {
            m.prompt_style = PromptStyle::Bfcl;
            writeln!(
                err,
                "model `{}`: asked as bfcl-eval asks it ({} mode; --prompt-style itc sends ITC's requests)",
                m.name, m.mode
            )?;
        }
    }
    Ok(())
}

/// Runs `itc eval --dataset`: converts the benchmark, runs the models on it,
/// scores with SPEC §3 and with the benchmark's official scorer.
pub fn eval_dataset(
    options: &EvalOptions,
    dataset: &DatasetOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    // Every check that needs no request comes first: configuration, keys, tasks.
    let mut configs = options.model_configs()?;
    if dataset
        .name
        .trim()
        .to_ascii_lowercase()
        .starts_with("bfcl:")
        && options.overrides.prompt_style.is_none()
    {
        bfcl_prompt_style(&mut configs, err)?;
    }
    let run = OodRun::prepare(
        &dataset.name,
        &dataset.files,
        dataset.cache_dir.as_deref(),
        dataset.candidates,
        &configs,
        Some(TauRun {
            models_file: match &options.models {
                ModelSource::ConfigFile { path, .. } => Some(path.clone()),
                _ => None,
            },
            ..dataset.tau.clone()
        }),
        err,
    )?;
    eval_models(options, configs, Some(&run), out, err)
}
