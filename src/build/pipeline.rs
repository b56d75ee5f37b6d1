//! `itc pipeline --config pipeline.toml`: the task-set building stages in
//! order, from a catalog to filtered tasks with gold answers.
//!
//! | stage      | command          | writes (in `output_dir`)                                           |
//! |------------|------------------|--------------------------------------------------------------------|
//! | `catalog`  | `itc catalog import` | `catalog.jsonl`                                                |
//! | `sample`   | `itc sample`     | `sampled.jsonl`                                                    |
//! | `confuse`  | `itc confuse`    | `candidates.jsonl`                                                 |
//! | `generate` | `itc generate`   | `queries.jsonl`, `queries.rejects.jsonl`                           |
//! | `filter`   | `itc filter`     | `kept.jsonl`, `judge_rejects.jsonl`, `agreement.csv`               |
//! | `answer`   | `itc answer`     | `tasks.jsonl`, `provenance.jsonl`, `tasks.rejects.jsonl`, `train.jsonl`, `test.jsonl`, `train.sharegpt.json` |
//!
//! Every stage is the command of the same name, run with the settings of
//! its `[section]`. Two things make a re-run cheap:
//!
//! - **The manifest** (`manifest.json`): for each finished stage, a
//!   fingerprint of its settings, the model configuration it used and its
//!   input files, and the SHA-256 of each file it wrote. A stage whose
//!   fingerprint is unchanged and whose files are intact is skipped.
//! - **The response cache** (`cache/`): every model chat is stored under
//!   the hash of its request, so a stage that does run again (its output
//!   was deleted, a later setting changed) sends only the requests it has
//!   never sent.
//!
//! `--dry-run` runs the stages that need no model and writes the prompts
//! the model stages would send (those of `filter` and `answer` only for
//! queries an earlier run produced), without calling any model.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::build::answer::{self, AnswerOptions};
use crate::build::catalog::{self, Format, ImportFilesOptions};
use crate::build::chat::{StageStats, prompt_sha256, read_queries};
use crate::build::confuse::{self, ConfuseOptions, Difficulty};
use crate::build::filter::{self, FilterOptions};
use crate::build::generate::{self, GenerateOptions, validate::ValueCheck};
use crate::build::sample::{self, SampleOptions};
use crate::models::cache::CacheSetting;
use crate::spec::jsonl::write_records;
use crate::util::hash::{sha256_hex, to_hex};
use crate::util::table::Table;

/// Options of `itc pipeline`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PipelineOptions {
    /// Pipeline file (TOML; see the README for every key).
    pub config: PathBuf,
    /// Run the stages that need no model and write the model stages'
    /// prompts (`prompts.<stage>.jsonl`) instead of calling models.
    pub dry_run: bool,
    /// Run every stage even when the manifest says it is up to date (the
    /// response cache still answers requests sent before).
    pub force: bool,
}

/// `pipeline.toml`. Relative paths are relative to the file's directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    /// Where every stage writes its files, the manifest and the cache.
    pub output_dir: PathBuf,
    /// The model configuration (`models.toml`) the model stages use.
    pub models: PathBuf,
    /// Seed of every random choice (sampling, distractors, examples, split).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// `itc catalog import`.
    pub catalog: CatalogStage,
    /// `itc sample`.
    pub sample: SampleStage,
    /// `itc confuse`.
    #[serde(default)]
    pub confuse: ConfuseStage,
    /// `itc generate`.
    pub generate: GenerateStage,
    /// `itc filter`.
    pub filter: FilterStage,
    /// `itc answer`.
    pub answer: AnswerStage,
}

fn default_seed() -> u64 {
    SampleOptions::default().seed
}

/// Settings of the catalog stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogStage {
    /// Input format: itc, toolbench, openapi, public-apis, seal-tools, toolalpaca.
    pub format: String,
    /// Input files.
    pub files: Vec<PathBuf>,
    /// Country for APIs whose country cannot be inferred.
    #[serde(default)]
    pub country: Option<String>,
    /// Category for APIs without one.
    #[serde(default)]
    pub category: Option<String>,
    /// Skip invalid records (listed on stderr) instead of stopping.
    #[serde(default)]
    pub skip_invalid: bool,
}

/// Settings of the sampling stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleStage {
    /// APIs to draw.
    pub count: usize,
    /// Exponent of the country weights.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Exact numbers of APIs per country.
    #[serde(default)]
    pub quotas: BTreeMap<String, usize>,
    /// Exact numbers of APIs per category.
    #[serde(default)]
    pub category_quotas: BTreeMap<String, usize>,
}

fn default_alpha() -> f64 {
    SampleOptions::default().alpha
}

/// Settings of the tool-confusion stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfuseStage {
    /// Distractors per sampled API.
    #[serde(default = "default_k")]
    pub k: usize,
    /// random, category or nearest.
    #[serde(default = "default_difficulty")]
    pub difficulty: String,
}

impl Default for ConfuseStage {
    fn default() -> Self {
        ConfuseStage {
            k: default_k(),
            difficulty: default_difficulty(),
        }
    }
}

fn default_k() -> usize {
    ConfuseOptions::default().k
}

fn default_difficulty() -> String {
    ConfuseOptions::default().difficulty.as_str().into()
}

/// Settings of the generation stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateStage {
    /// The generator model (a name in the model configuration).
    pub model: String,
    /// Kinds to write.
    #[serde(default = "default_kinds")]
    pub kinds: Vec<String>,
    /// Requests per prompt.
    #[serde(default = "default_per_prompt")]
    pub per_prompt: usize,
    /// At most this many prompts.
    #[serde(default)]
    pub limit: Option<usize>,
    /// literal or present.
    #[serde(default = "default_value_check")]
    pub value_check: String,
    /// Country → language overrides.
    #[serde(default)]
    pub languages: BTreeMap<String, String>,
}

fn default_kinds() -> Vec<String> {
    GenerateOptions::default().kinds
}

fn default_per_prompt() -> usize {
    GenerateOptions::default().per_prompt
}

fn default_value_check() -> String {
    GenerateOptions::default().value_check.as_str().into()
}

/// Settings of the dual-judge stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterStage {
    /// The two judge models.
    pub judges: Vec<String>,
    /// Both judges' totals must reach this.
    #[serde(default = "default_min_total")]
    pub min_total: f64,
    /// Every score of both judges must reach this, when set.
    #[serde(default)]
    pub min_each: Option<f64>,
}

fn default_min_total() -> f64 {
    FilterOptions::default().min_total
}

/// Settings of the gold-answer stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerStage {
    /// The answer model.
    pub model: String,
    /// The checker of multi-call answers, when wanted.
    #[serde(default)]
    pub checker: Option<String>,
    /// Accept gold calls to candidates other than the target APIs.
    #[serde(default)]
    pub allow_other_apis: bool,
    /// Record example tool outputs as the tasks' `turns` (`itc answer --with-outputs`).
    #[serde(default)]
    pub with_outputs: bool,
    /// Share of tasks in the test split.
    #[serde(default = "default_test_fraction")]
    pub test_fraction: f64,
}

fn default_test_fraction() -> f64 {
    AnswerOptions::default().test_fraction
}

/// A stage of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `itc catalog import`.
    Catalog,
    /// `itc sample`.
    Sample,
    /// `itc confuse`.
    Confuse,
    /// `itc generate`.
    Generate,
    /// `itc filter`.
    Filter,
    /// `itc answer`.
    Answer,
}

impl Stage {
    /// The stages, in order.
    pub const ALL: [Stage; 6] = [
        Stage::Catalog,
        Stage::Sample,
        Stage::Confuse,
        Stage::Generate,
        Stage::Filter,
        Stage::Answer,
    ];

    /// The name in tables, messages and the manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Catalog => "catalog",
            Stage::Sample => "sample",
            Stage::Confuse => "confuse",
            Stage::Generate => "generate",
            Stage::Filter => "filter",
            Stage::Answer => "answer",
        }
    }

    /// Whether the stage calls models.
    pub fn uses_models(self) -> bool {
        matches!(self, Stage::Generate | Stage::Filter | Stage::Answer)
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the manifest keeps of a finished stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    /// Hash of the settings, model configuration and input files.
    pub fingerprint: String,
    /// File name → SHA-256 of each file the stage wrote.
    pub outputs: BTreeMap<String, String>,
    /// Model name → what its chats cost, when the stage last ran.
    #[serde(default)]
    pub models: Vec<(String, StageStats)>,
    /// Wall time of the last run, in seconds.
    pub seconds: f64,
    /// The itc version and git commit that ran it (`VERSION (commit …)`;
    /// empty in manifests written before it was recorded).
    #[serde(default)]
    pub itc: String,
}

/// `manifest.json`: the finished stages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Stage name → record.
    pub stages: BTreeMap<String, StageRecord>,
}

impl Manifest {
    fn load(path: &Path) -> anyhow::Result<Manifest> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{}: not a pipeline manifest", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// Written through a temporary file, so a crash never leaves half a manifest.
    fn save(&self, path: &Path) -> anyhow::Result<()> {
        crate::util::atomic::write(
            path,
            (serde_json::to_string_pretty(self)? + "\n").as_bytes(),
        )
    }
}

/// SHA-256 (hex) of a file's bytes.
pub fn file_sha256(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(sha256_hex(&bytes))
}

/// A loaded pipeline: the configuration with its paths resolved.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// The configuration as written.
    pub config: PipelineConfig,
    /// Where the configuration file lives (relative paths start here).
    pub base: PathBuf,
}

impl Pipeline {
    /// Reads and checks `pipeline.toml`.
    pub fn load(path: &Path) -> anyhow::Result<Pipeline> {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let config: PipelineConfig =
            crate::util::toml_file::from_str(&text, &path.display().to_string())?;
        let pipeline = Pipeline {
            config,
            base: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        };
        pipeline
            .check()
            .with_context(|| format!("{}", path.display()))?;
        Ok(pipeline)
    }

    fn check(&self) -> anyhow::Result<()> {
        let c = &self.config;
        c.catalog.format.parse::<Format>().map_err(|_| {
            anyhow::anyhow!("[catalog] format: unknown format `{}`", c.catalog.format)
        })?;
        c.confuse.difficulty.parse::<Difficulty>().map_err(|_| {
            anyhow::anyhow!(
                "[confuse] difficulty: `{}` is not random, category or nearest",
                c.confuse.difficulty
            )
        })?;
        c.generate.value_check.parse::<ValueCheck>().map_err(|_| {
            anyhow::anyhow!(
                "[generate] value_check: `{}` is not literal or present",
                c.generate.value_check
            )
        })?;
        if c.filter.judges.len() != 2 {
            bail!(
                "[filter] judges: give exactly two judge models (got {})",
                c.filter.judges.len()
            );
        }
        if c.catalog.files.is_empty() {
            bail!("[catalog] files: give at least one input file");
        }
        Ok(())
    }

    fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }

    /// The output directory.
    pub fn output_dir(&self) -> PathBuf {
        self.path(&self.config.output_dir)
    }

    fn out(&self, file: &str) -> PathBuf {
        self.output_dir().join(file)
    }

    /// The files a stage reads (its inputs, for the fingerprint).
    fn inputs(&self, stage: Stage) -> Vec<PathBuf> {
        match stage {
            Stage::Catalog => self
                .config
                .catalog
                .files
                .iter()
                .map(|f| self.path(f))
                .collect(),
            Stage::Sample => vec![self.out("catalog.jsonl")],
            Stage::Confuse => vec![self.out("catalog.jsonl"), self.out("sampled.jsonl")],
            Stage::Generate => vec![self.out("candidates.jsonl")],
            Stage::Filter => vec![self.out("queries.jsonl")],
            Stage::Answer => vec![self.out("kept.jsonl")],
        }
    }

    /// The files a stage writes.
    pub fn outputs(&self, stage: Stage) -> Vec<&'static str> {
        match stage {
            Stage::Catalog => vec!["catalog.jsonl"],
            Stage::Sample => vec!["sampled.jsonl"],
            Stage::Confuse => vec!["candidates.jsonl"],
            Stage::Generate => vec!["queries.jsonl", "queries.rejects.jsonl"],
            Stage::Filter => vec!["kept.jsonl", "judge_rejects.jsonl", "agreement.csv"],
            Stage::Answer => vec![
                "tasks.jsonl",
                "provenance.jsonl",
                "tasks.rejects.jsonl",
                "train.jsonl",
                "test.jsonl",
                "train.sharegpt.json",
                "train.sharegpt.dataset_info.json",
            ],
        }
    }

    /// Hash of what decides a stage's output: its settings, the seed, the
    /// model configuration (model stages) and its input files.
    fn fingerprint(&self, stage: Stage) -> anyhow::Result<String> {
        let c = &self.config;
        let settings = match stage {
            Stage::Catalog => serde_json::to_value(&c.catalog)?,
            Stage::Sample => serde_json::to_value(&c.sample)?,
            Stage::Confuse => serde_json::to_value(&c.confuse)?,
            Stage::Generate => serde_json::to_value(&c.generate)?,
            Stage::Filter => serde_json::to_value(&c.filter)?,
            Stage::Answer => serde_json::to_value(&c.answer)?,
        };
        let mut hasher = Sha256::new();
        hasher.update(format!("{stage}\0{settings}\0{}\0", c.seed));
        if stage.uses_models() {
            hasher.update(file_sha256(&self.path(&c.models))?);
        }
        for input in self.inputs(stage) {
            hasher.update(file_sha256(&input)?);
        }
        Ok(to_hex(&hasher.finalize()))
    }

    /// Whether the manifest's record of a stage still holds.
    fn up_to_date(&self, record: Option<&StageRecord>, fingerprint: &str) -> bool {
        let Some(record) = record else {
            return false;
        };
        record.fingerprint == fingerprint
            && record
                .outputs
                .iter()
                .all(|(file, sha)| file_sha256(&self.out(file)).is_ok_and(|now| &now == sha))
    }

    fn cache(&self) -> CacheSetting {
        CacheSetting::Dir(self.out("cache"))
    }

    /// Runs one stage with its settings.
    fn run_stage(
        &self,
        stage: Stage,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> anyhow::Result<Vec<(String, StageStats)>> {
        match stage {
            Stage::Catalog => {
                catalog::import_files(&self.catalog_options()?, out, err)?;
                Ok(Vec::new())
            }
            Stage::Sample => {
                sample::run(&self.sample_options(), out, err)?;
                Ok(Vec::new())
            }
            Stage::Confuse => {
                confuse::run(&self.confuse_options()?, out, err)?;
                Ok(Vec::new())
            }
            Stage::Generate => generate::run(&self.generate_options(false), out, err),
            Stage::Filter => filter::run(&self.filter_options(), out, err),
            Stage::Answer => answer::run(&self.answer_options(), out, err),
        }
    }

    fn catalog_options(&self) -> anyhow::Result<ImportFilesOptions> {
        let c = &self.config.catalog;
        Ok(ImportFilesOptions {
            format: c.format.parse().map_err(anyhow::Error::msg)?,
            files: self.inputs(Stage::Catalog),
            output: self.out("catalog.jsonl"),
            country: c.country.clone(),
            category: c.category.clone(),
            skip_invalid: c.skip_invalid,
        })
    }

    fn sample_options(&self) -> SampleOptions {
        let s = &self.config.sample;
        SampleOptions {
            catalog: self.out("catalog.jsonl"),
            n: s.count,
            alpha: s.alpha,
            seed: self.config.seed,
            quotas: s.quotas.clone().into_iter().collect(),
            category_quotas: s.category_quotas.clone().into_iter().collect(),
            output: self.out("sampled.jsonl"),
            ..SampleOptions::default()
        }
    }

    fn confuse_options(&self) -> anyhow::Result<ConfuseOptions> {
        let c = &self.config.confuse;
        Ok(ConfuseOptions {
            catalog: self.out("catalog.jsonl"),
            sampled: self.out("sampled.jsonl"),
            k: c.k,
            difficulty: c.difficulty.parse().map_err(anyhow::Error::msg)?,
            seed: self.config.seed,
            output: self.out("candidates.jsonl"),
        })
    }

    fn generate_options(&self, dry_run: bool) -> GenerateOptions {
        let g = &self.config.generate;
        GenerateOptions {
            candidates: self.out("candidates.jsonl"),
            config: Some(self.path(&self.config.models)),
            generator: Some(g.model.clone()),
            kinds: g.kinds.clone(),
            per_prompt: g.per_prompt,
            limit: g.limit,
            seed: self.config.seed,
            language: g.languages.clone().into_iter().collect(),
            value_check: g.value_check.parse().unwrap_or_default(),
            cache: self.cache(),
            dry_run,
            output: if dry_run {
                self.out("prompts.generate.jsonl")
            } else {
                self.out("queries.jsonl")
            },
            rejects: None,
        }
    }

    fn filter_options(&self) -> FilterOptions {
        let f = &self.config.filter;
        FilterOptions {
            queries: self.out("queries.jsonl"),
            config: self.path(&self.config.models),
            judges: f.judges.clone(),
            min_total: f.min_total,
            min_each: f.min_each,
            cache: self.cache(),
            output: self.out("kept.jsonl"),
            rejects: self.out("judge_rejects.jsonl"),
            agreement: Some(self.out("agreement.csv")),
        }
    }

    fn answer_options(&self) -> AnswerOptions {
        let a = &self.config.answer;
        AnswerOptions {
            queries: self.out("kept.jsonl"),
            config: self.path(&self.config.models),
            answerer: a.model.clone(),
            checker: a.checker.clone(),
            allow_other_apis: a.allow_other_apis,
            with_outputs: a.with_outputs,
            cache: self.cache(),
            output: self.out("tasks.jsonl"),
            provenance: self.out("provenance.jsonl"),
            rejects: None,
            test_fraction: a.test_fraction,
            seed: self.config.seed,
            train: Some(self.out("train.jsonl")),
            test: Some(self.out("test.jsonl")),
            sharegpt: Some(self.out("train.sharegpt.json")),
        }
    }

    /// Writes the prompts the model stages would send (`--dry-run`).
    fn write_prompts(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        generate::run(&self.generate_options(true), out, err)?;
        let later = [
            ("queries.jsonl", Stage::Filter, "prompts.filter.jsonl"),
            ("kept.jsonl", Stage::Answer, "prompts.answer.jsonl"),
        ];
        for (input, stage, file) in later {
            let input = self.out(input);
            if !input.exists() {
                writeln!(
                    out,
                    "{stage}: no prompts yet ({} comes from the stage before)",
                    input.display()
                )?;
                continue;
            }
            let queries = read_queries(&input)?;
            let chats: Vec<_> = queries
                .iter()
                .map(|q| match stage {
                    Stage::Filter => filter::judge_chat(q),
                    _ => answer::answer_chat(q, self.config.answer.with_outputs),
                })
                .collect();
            let path = self.out(file);
            write_records(
                &path,
                queries
                    .iter()
                    .zip(&chats)
                    .map(|(q, c)| generate::RenderedPrompt {
                        unit: &q.id,
                        system: &c.system,
                        user: &c.user,
                        prompt_sha256: prompt_sha256(c),
                    }),
            )?;
            writeln!(
                out,
                "wrote {} {stage} prompt(s) to {}",
                queries.len(),
                path.display()
            )?;
        }
        Ok(())
    }
}

/// One row of the end-of-run table.
#[derive(Debug, Clone, PartialEq)]
pub struct StageReport {
    /// The stage.
    pub stage: Stage,
    /// `ran`, `up to date`, or `prompts only` (dry run).
    pub status: &'static str,
    /// Lines in the stage's main output file.
    pub records: usize,
    /// What its models cost, all models together.
    pub stats: StageStats,
    /// Wall time of this run's stage, in seconds (0 when skipped).
    pub seconds: f64,
}

fn count_lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count())
        .unwrap_or(0)
}

/// Runs `itc pipeline`: every stage in order (skipping those up to date),
/// then prints the per-stage table; returns one report per stage.
pub fn run(
    args: &PipelineOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<StageReport>> {
    let pipeline = Pipeline::load(&args.config)?;
    let dir = pipeline.output_dir();
    let _lock = crate::util::lock::FolderLock::acquire(&dir, err)?;
    let manifest_path = dir.join("manifest.json");
    let mut manifest = Manifest::load(&manifest_path)?;
    let mut reports = Vec::new();
    for stage in Stage::ALL {
        if args.dry_run && stage.uses_models() {
            writeln!(err, "== {stage}: prompts only (dry run)")?;
            if stage == Stage::Generate {
                pipeline.write_prompts(out, err)?;
            }
            reports.push(StageReport {
                stage,
                status: "prompts only",
                records: 0,
                stats: StageStats::default(),
                seconds: 0.0,
            });
            continue;
        }
        let fingerprint = pipeline.fingerprint(stage)?;
        let main_output = dir.join(pipeline.outputs(stage)[0]);
        if !args.force && pipeline.up_to_date(manifest.stages.get(stage.as_str()), &fingerprint) {
            writeln!(err, "== {stage}: up to date")?;
            reports.push(StageReport {
                stage,
                status: "up to date",
                records: count_lines(&main_output),
                stats: StageStats::default(),
                seconds: 0.0,
            });
            continue;
        }
        writeln!(err, "== {stage}")?;
        let started = Instant::now();
        let models = pipeline
            .run_stage(stage, out, err)
            .with_context(|| format!("stage `{stage}`"))?;
        let seconds = started.elapsed().as_secs_f64();
        let mut outputs = BTreeMap::new();
        for file in pipeline.outputs(stage) {
            outputs.insert(file.to_string(), file_sha256(&dir.join(file))?);
        }
        let mut total = StageStats::default();
        for (_, s) in &models {
            total.add(s);
        }
        manifest.stages.insert(
            stage.as_str().to_string(),
            StageRecord {
                fingerprint,
                outputs,
                models,
                seconds,
                itc: crate::util::version::LONG_VERSION.to_string(),
            },
        );
        // Saved after every stage: a later failure keeps the earlier ones done.
        manifest.save(&manifest_path)?;
        reports.push(StageReport {
            stage,
            status: "ran",
            records: count_lines(&main_output),
            stats: total,
            seconds,
        });
    }
    writeln!(out, "\n{}", report_table(&reports))?;
    Ok(reports)
}

/// The end-of-run table: stage, status, records, requests, cache hits,
/// tokens, cost and time.
pub fn report_table(reports: &[StageReport]) -> String {
    let mut t = Table::new([
        "stage",
        "status",
        "records",
        "chats",
        "requests",
        "cached",
        "errors",
        "tokens in",
        "tokens out",
        "cost $",
        "seconds",
    ])
    .with_labels(2);
    let mut total = StageStats::default();
    for r in reports {
        total.add(&r.stats);
        t.push(stats_row(
            r.stage.as_str(),
            r.status,
            &r.records.to_string(),
            &r.stats,
            r.seconds,
        ));
    }
    let seconds: f64 = reports.iter().map(|r| r.seconds).sum();
    t.push(stats_row("total", "", "", &total, seconds));
    t.render(false)
}

fn stats_row(
    stage: &str,
    status: &str,
    records: &str,
    s: &StageStats,
    seconds: f64,
) -> Vec<String> {
    vec![
        stage.to_string(),
        status.to_string(),
        records.to_string(),
        s.chats.to_string(),
        s.requests.to_string(),
        s.cache_hits.to_string(),
        s.errors.to_string(),
        s.prompt_tokens.to_string(),
        s.completion_tokens.to_string(),
        format!("{:.4}", s.cost_usd),
        format!("{seconds:.1}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
output_dir = "build"
models = "models.toml"
[catalog]
format = "public-apis"
files = ["README.md"]
[sample]
count = 10
[generate]
model = "writer"
[filter]
judges = ["a", "b"]
[answer]
model = "answerer"
"#;

    fn load(text: &str) -> anyhow::Result<Pipeline> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("pipeline.toml");
        std::fs::write(&path, text)?;
        Pipeline::load(&path)
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let p = load(MINIMAL).unwrap();
        assert_eq!(p.config.seed, 1);
        assert_eq!(p.config.sample.alpha, 0.5);
        assert_eq!(p.config.confuse.k, 4);
        assert_eq!(p.config.generate.kinds.len(), 5);
        assert_eq!(p.config.filter.min_total, 4.0);
        assert_eq!(p.config.answer.test_fraction, 0.2);
        assert!(p.output_dir().ends_with("build"));
    }

    #[test]
    fn mistakes_name_the_section_and_key() {
        let err = load(&MINIMAL.replace("public-apis", "csv")).unwrap_err();
        assert!(
            format!("{err:#}").contains("[catalog] format: unknown format `csv`"),
            "{err:#}"
        );
        let err = load(&MINIMAL.replace("[\"a\", \"b\"]", "[\"a\"]")).unwrap_err();
        assert!(format!("{err:#}").contains("[filter] judges"), "{err:#}");
        let err = load(&MINIMAL.replace("count = 10", "count = 10\ncuont = 3")).unwrap_err();
        assert!(format!("{err:#}").contains("cuont"), "{err:#}");
        let err = load(&MINIMAL.replace(
            "model = \"writer\"",
            "model = \"writer\"\nvalue_check = \"fuzzy\"",
        ))
        .unwrap_err();
        assert!(format!("{err:#}").contains("value_check"), "{err:#}");
        // The message lists the values that work, and the shipped file offers only those.
        let err = load(&format!(
            "{MINIMAL}[confuse]\ndifficulty = \"same_category\"\n"
        ))
        .unwrap_err();
        assert!(
            format!("{err:#}").contains("is not random, category or nearest"),
            "{err:#}"
        );
        assert!(load(&format!("{MINIMAL}[confuse]\ndifficulty = \"category\"\n")).is_ok());
        let shipped = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/pipeline/pipeline.toml"
        ));
        assert!(shipped.contains("random | category | nearest"));
    }

    #[test]
    fn fingerprints_follow_settings_and_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pipeline.toml");
        std::fs::write(&path, MINIMAL).unwrap();
        std::fs::write(dir.path().join("README.md"), "| a |").unwrap();
        let p = Pipeline::load(&path).unwrap();
        let first = p.fingerprint(Stage::Catalog).unwrap();
        assert_eq!(p.fingerprint(Stage::Catalog).unwrap(), first);
        std::fs::write(dir.path().join("README.md"), "| b |").unwrap();
        assert_ne!(
            p.fingerprint(Stage::Catalog).unwrap(),
            first,
            "input changed"
        );
        let mut q = p.clone();
        q.config.catalog.country = Some("JP".into());
        assert_ne!(
            q.fingerprint(Stage::Catalog).unwrap(),
            p.fingerprint(Stage::Catalog).unwrap()
        );
        // A model stage also depends on the model configuration.
        std::fs::create_dir_all(p.output_dir()).unwrap();
        std::fs::write(p.out("candidates.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("models.toml"), "a").unwrap();
        let generate = p.fingerprint(Stage::Generate).unwrap();
        std::fs::write(dir.path().join("models.toml"), "b").unwrap();
        assert_ne!(p.fingerprint(Stage::Generate).unwrap(), generate);
    }
}
