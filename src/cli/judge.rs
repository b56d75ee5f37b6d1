//! `itc judge`: flags → [`JudgeOptions`] → [`judge::run`].

use crate::benchmarks::score::Compat;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::flags::CacheFlags;
use crate::judge::{
    self, DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_SHOWN_CHARS, DEFAULT_ROUNDS, DEFAULT_RUNS,
    DEFAULT_SAMPLES, DEFAULT_SEED, JudgeOptions, Metric,
};
use crate::models::cache::CacheSetting;
use crate::run::BatchMode;
use crate::score::files::OutputFormat;

value_enum!(Metric {
    PassRate => "pass-rate": "ToolEval's pass rate: N judge samples per task, ties pass",
    Sopr => "sopr": "StableToolBench's solvable pass rate: answer statuses over R judge runs, ± std",
    WinRate => "win-rate": "ToolEval's win rate (SoWR) against --reference, over K rounds",
    Toolalpaca => "toolalpaca": "ToolAlpaca's process and response correctness, one request per task",
});

/// Arguments of `itc judge`.
#[derive(Debug, Clone, Args)]
pub struct JudgeArgs {
    /// Run directories of `itc eval` (tasks.jsonl, predictions.jsonl); for
    /// win rate, the candidates.
    #[arg(required = true)]
    pub run_dirs: Vec<PathBuf>,
    /// What the judges measure (SPEC §8).
    #[arg(long, value_enum)]
    pub metric: Metric,
    /// A judge model of the configuration; give it twice for two judges
    /// (their agreement, Cohen's kappa, is reported).
    #[arg(long = "judge", required = true)]
    pub judges: Vec<String>,
    /// Model configuration file (TOML, `[[models]]` tables), as `itc eval --config` reads.
    #[arg(long, default_value = "models.toml")]
    pub config: PathBuf,
    /// The reference run directory of --metric win-rate.
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// Pass-rate judge samples per task.
    #[arg(long, default_value_t = DEFAULT_SAMPLES)]
    pub samples: u32,
    /// SoPR judge runs.
    #[arg(long, default_value_t = DEFAULT_RUNS)]
    pub runs: u32,
    /// Win-rate rounds.
    #[arg(long, default_value_t = DEFAULT_ROUNDS)]
    pub rounds: u32,
    /// Seed of the coin flips (pass rate's undecided samples, win rate's order).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Output folder. Default: RUN_DIR/judged/METRIC (one run directory only).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Continue a folder that holds the judgments of an earlier session
    /// (same settings only): recorded judgments are reused.
    #[arg(long)]
    pub resume: bool,
    /// The response cache (default `cache/` beside the output folder).
    #[command(flatten)]
    pub cache: CacheFlags,
    /// Write the judge requests the folder and the cache cannot answer to
    /// batch files in this folder instead of sending them (OpenAI/vLLM
    /// batch input, Anthropic Message Batches); each task stops at its
    /// first such request, so emit and import again for later stages.
    #[arg(long, value_name = "DIR", conflicts_with = "import_batch")]
    pub emit_batch: Option<PathBuf>,
    /// Answer the judge requests from these batch output files instead of
    /// sending them, and cache the answers.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub import_batch: Vec<PathBuf>,
    /// `official`: the pass rate as ToolEval computes it, tasks without a
    /// prediction left out of it rather than failed (judged.json has both).
    #[arg(long, value_enum)]
    pub compat: Option<Compat>,
    /// `table` or `json` (judged.json's object, one line per run directory).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Most bytes of a judge's reply read: a longer one is not read beyond
    /// them and counts as unreadable (then is asked again).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_REPLY_BYTES)]
    pub max_judge_reply_bytes: u64,
    /// Most characters of each text from the run (a final answer, the
    /// whole run) a judge is shown; the request says how many more there were.
    #[arg(long, value_name = "CHARS", default_value_t = DEFAULT_MAX_SHOWN_CHARS)]
    pub max_shown_chars: usize,
    /// Never draw the progress bar (drawn on stderr only when it is a terminal).
    #[arg(long)]
    pub no_progress: bool,
}

impl JudgeArgs {
    /// The library's options.
    pub fn options(&self) -> JudgeOptions {
        JudgeOptions {
            run_dirs: self.run_dirs.clone(),
            metric: self.metric,
            judges: self.judges.clone(),
            config: self.config.clone(),
            reference: self.reference.clone(),
            samples: self.samples,
            runs: self.runs,
            rounds: self.rounds,
            seed: self.seed,
            out: self.output.clone(),
            resume: self.resume,
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
            format: self.format,
            official_pass_rate: self.compat.is_some(),
            batch: match (&self.emit_batch, self.import_batch.is_empty()) {
                (Some(dir), _) => BatchMode::Emit(dir.clone()),
                (None, false) => BatchMode::Import(self.import_batch.clone()),
                (None, true) => BatchMode::Off,
            },
            max_reply_bytes: self.max_judge_reply_bytes,
            max_shown_chars: self.max_shown_chars,
            show_progress: !self.no_progress,
        }
    }

    /// Runs `itc judge`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        judge::run(&self.options(), out, err).map(|_| ())
    }
}
