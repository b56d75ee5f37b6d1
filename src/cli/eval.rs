//! `itc eval`: flags → [`EvalOptions`] → [`run::eval`], or, with
//! `--dataset`, [`benchmarks::benchmark::eval_dataset`].

use anyhow::bail;
use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;

use super::flags::{CacheFlags, OOD_CACHE_FLAG, ScoringFlags};
use super::with_default;
use crate::benchmarks::tau;
use crate::benchmarks::tau::ask::TauRun;
use crate::benchmarks::tau::conversation::Limits;
use crate::benchmarks::{self, apibench};
use crate::models::cache::CacheSetting;
use crate::models::config::{
    AD_HOC_MAX_TOKENS, Backend, DEFAULT_CONCURRENCY, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE,
    DEFAULT_TIMEOUT_MS, Mode, OpenAiApi, PromptStyle,
};
use crate::models::retry::RetryPolicy;
use crate::run::select::Selection;
use crate::run::shard::Shard;
use crate::run::steps::{
    CassetteMode, DEFAULT_MAX_STEPS, FinishProtocol, SolverOptions, StepMode, StepOptions, limits,
};
use crate::run::{self, AdHocModel, BatchMode, EvalOptions, ModelOverrides, ModelSource};
use crate::spec::records::TaskKind;
use crate::spec::solver::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_REQUESTS};

value_enum!(Backend {
    Openai => "openai": "OpenAI-compatible Chat Completions (OpenAI, vLLM, SGLang, llama.cpp server, Ollama, OpenRouter, …)",
    Anthropic => "anthropic": "Anthropic Messages",
    Gemini => "gemini": "Google Gemini `generateContent`",
    Baseline => "baseline": "The offline, gold-blind baseline: no server, no key",
});

value_enum!(Mode {
    Prompt => "prompt": "A system prompt lists the tools as JSON and asks for `{\"Thought\": …, \"Action\": \"[…]\"}` in text",
    Native => "native": "Tools are declared through the API's function calling; calls come back as structured tool calls",
    Structured => "structured": "Like `prompt`, with the server constraining the answer to a JSON schema `{Thought: string, Action: string}` where it can",
});

value_enum!(PromptStyle {
    Itc => "itc": "ITC's `{\"Thought\": …, \"Action\": \"[…]\"}` (`prompts/system.jinja`)",
    Gorilla => "gorilla": "Gorilla's labelled fields `<<<domain>>>`, `<<<api_call>>>`, `<<<api_provider>>>`, `<<<explanation>>>` (`prompts/gorilla.jinja`)",
    SealTools => "seal-tools": "Seal-Tools' JSON call list (`prompts/seal_tools.jinja`)",
    Bfcl => "bfcl": "BFCL's own requests, as bfcl-eval sends them for the model's kind (prompt or function-calling mode); the default on `--dataset bfcl:…`",
    BfclItc => "bfcl-itc": "ITC's wording of a BFCL prompt asking for `[f(a=1)]` (`prompts/bfcl.jinja`); not leaderboard-comparable",
});

value_enum!(OpenAiApi {
    Responses => "responses": "`POST /responses`, as bfcl-eval asks OpenAI's own models",
    ChatCompletions => "chat-completions": "`POST /chat/completions`, as bfcl-eval asks OpenAI-compatible servers",
});

value_enum!(FinishProtocol {
    Auto => "auto": "On for StableToolBench datasets, off otherwise",
    On => "on": "Add the `Finish` tool: its call answers (give_answer) or gives up (give_up_and_restart)",
    Off => "off": "No `Finish` tool: an answer without calls is the final answer",
});

value_enum!(StepMode {
    Single => "single": "Ask each task once; all its calls in one answer (the ITC paper's protocol)",
    Replay => "replay": "Ask step by step, showing the tool outputs the task records (SPEC §6)",
    Execute => "execute": "Ask step by step, calling the tools' real endpoints on allowed hosts (SPEC §7)",
    Simulate => "simulate": "Ask step by step, a second model (--tool-model) playing the tools (SPEC §6)",
});

/// How tasks are asked: once, or step by step with tool outputs.
#[derive(Debug, Clone, Args)]
pub struct StepFlags {
    /// Ask each task once or step by step.
    #[arg(long = "steps", id = "steps", value_name = "MODE", value_enum, help = with_default(
        "Ask each task once (single) or as a conversation, showing each step's tool outputs: \
         recorded (replay), from the real endpoints (execute) or from a tool model (simulate)",
        StepMode::default().as_str()))]
    pub step_mode: Option<StepMode>,
    /// Most steps per task.
    #[arg(long, help = with_default(
        "Most steps per task, never more than the gold's steps plus one", DEFAULT_MAX_STEPS))]
    pub max_steps: Option<usize>,
    /// Keep executed or simulated tool outputs in this JSON Lines file.
    #[arg(long)]
    pub cassette: Option<PathBuf>,
    /// Call every tool and record each exchange in the cassette.
    #[arg(long, requires = "cassette", conflicts_with_all = ["replay", "record_missing"])]
    pub record: bool,
    /// Answer only from the cassette; never open a connection.
    #[arg(long, requires = "cassette", conflicts_with = "record_missing")]
    pub replay: bool,
    /// Answer from the cassette what it holds, call and record the rest (default).
    #[arg(long, requires = "cassette")]
    pub record_missing: bool,
    /// A host executed calls may contact (`name` or `name:port`; repeatable).
    #[arg(long = "allow-host")]
    pub allow_hosts: Vec<String>,
    /// A TOML file of `[[hosts]]` credentials (key variables per host).
    #[arg(long = "hosts")]
    pub hosts_file: Option<PathBuf>,
    /// The model of --config that plays the tools in simulate runs.
    #[arg(long, requires = "config")]
    pub tool_model: Option<String>,
    /// How long one executed call may take.
    #[arg(long, help = with_default(
        "How long one executed call may take, in milliseconds", limits::DEFAULT_TOOL_TIMEOUT_MS))]
    pub tool_timeout_ms: Option<u64>,
    /// The largest output kept from one call.
    #[arg(long, help = with_default(
        "The largest output kept from one call (a response body, a recorded body, a tool model's answer), in bytes",
        limits::DEFAULT_MAX_TOOL_BYTES))]
    pub max_tool_bytes: Option<usize>,
    /// Calls of one step that are made.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help = with_default(
        "Calls of one step that are made; the others get an error output",
        limits::DEFAULT_MAX_CALLS_PER_STEP))]
    pub max_calls_per_step: Option<u64>,
    /// Bytes of tool output one task is shown over all its steps.
    #[arg(long, help = with_default(
        "Bytes of tool output one task is shown over all its steps (so also the most any request \
         carries); past it, outputs are replaced by an error",
        limits::DEFAULT_MAX_TASK_TOOL_BYTES))]
    pub max_task_tool_bytes: Option<usize>,
    /// How long the calls of one step may take together.
    #[arg(long, help = with_default(
        "How long the calls of one step may take together, in milliseconds", limits::DEFAULT_MAX_STEP_MS))]
    pub max_step_ms: Option<u64>,
    /// Search each task with a solver (SPEC §8): `chain` (ReAct), `chain:N`
    /// (started again after a give-up, N conversations at most) or `dfsdt`
    /// (ToolBench's depth-first search). Needs --steps replay, execute or simulate.
    #[arg(long, value_parser = SolverOptions::parse)]
    pub solver: Option<SolverOptions>,
    /// The finish protocol.
    #[arg(long, value_enum, requires = "solver", help = with_default(
        "The finish protocol: add the `Finish` tool that answers or gives up (auto: on for StableToolBench datasets)",
        FinishProtocol::default().as_str()))]
    pub finish: Option<FinishProtocol>,
    /// Most depth of a solver's conversation.
    #[arg(long, requires = "solver", value_parser = clap::value_parser!(u32).range(1..), help = with_default(
        "Most depth of a solver's conversation; each answer, call and output counts one", DEFAULT_MAX_DEPTH))]
    pub max_depth: Option<u32>,
    /// Most model requests a solver makes for one task.
    #[arg(long, requires = "solver", value_parser = clap::value_parser!(u32).range(1..), help = with_default(
        "Most model requests a solver makes for one task", DEFAULT_MAX_REQUESTS))]
    pub max_requests: Option<u32>,
}

impl StepFlags {
    /// The step flags given that the run's step mode never uses: every
    /// one without `--steps`, the tool flags in replay runs, the hosts'
    /// outside execute runs, the tool model's outside simulate runs.
    fn unused(&self) -> Vec<&'static str> {
        let mode = self.step_mode.unwrap_or_default();
        let stepwise = mode != StepMode::Single;
        let tools = matches!(mode, StepMode::Execute | StepMode::Simulate);
        let given = [
            (
                "--max-steps",
                self.max_steps.is_some(),
                stepwise && self.solver.is_none(),
            ),
            (
                "--max-calls-per-step",
                self.max_calls_per_step.is_some(),
                stepwise,
            ),
            (
                "--max-task-tool-bytes",
                self.max_task_tool_bytes.is_some(),
                stepwise,
            ),
            ("--max-step-ms", self.max_step_ms.is_some(), stepwise),
            ("--solver", self.solver.is_some(), stepwise),
            ("--tool-timeout-ms", self.tool_timeout_ms.is_some(), tools),
            ("--max-tool-bytes", self.max_tool_bytes.is_some(), tools),
            (
                "--allow-host",
                !self.allow_hosts.is_empty(),
                mode == StepMode::Execute,
            ),
            (
                "--hosts",
                self.hosts_file.is_some(),
                mode == StepMode::Execute,
            ),
            (
                "--tool-model",
                self.tool_model.is_some(),
                mode == StepMode::Simulate,
            ),
        ];
        given
            .into_iter()
            .filter(|(_, set, used)| *set && !used)
            .map(|(flag, _, _)| flag)
            .collect()
    }

    /// The library's step options.
    pub fn options(&self) -> StepOptions {
        let defaults = StepOptions::default();
        let cassette_mode = if self.record {
            CassetteMode::Record
        } else if self.replay {
            CassetteMode::Replay
        } else if self.record_missing {
            CassetteMode::RecordMissing
        } else {
            defaults.cassette_mode
        };
        StepOptions {
            mode: self.step_mode.unwrap_or(defaults.mode),
            max_steps: self.max_steps.unwrap_or(defaults.max_steps),
            cassette: self.cassette.clone(),
            cassette_mode,
            allow_hosts: self.allow_hosts.clone(),
            hosts_file: self.hosts_file.clone(),
            tool_model: self.tool_model.clone(),
            tool_timeout_ms: self.tool_timeout_ms.unwrap_or(defaults.tool_timeout_ms),
            max_tool_bytes: self.max_tool_bytes.unwrap_or(defaults.max_tool_bytes),
            max_calls_per_step: self
                .max_calls_per_step
                .map_or(defaults.max_calls_per_step, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX)
                }),
            max_task_tool_bytes: self
                .max_task_tool_bytes
                .unwrap_or(defaults.max_task_tool_bytes),
            max_step_ms: self.max_step_ms.unwrap_or(defaults.max_step_ms),
            solver: self.solver.clone().map(|solver| SolverOptions {
                finish: self.finish.unwrap_or(solver.finish),
                max_depth: self.max_depth.unwrap_or(solver.max_depth),
                max_requests: self.max_requests.unwrap_or(solver.max_requests),
                ..solver
            }),
        }
    }
}

/// The headings of `itc eval --help`, in the order they are shown.
const TASKS: &str = "Tasks";
const MODELS: &str = "Models";
const STEPS: &str = "Steps and solvers";
const OUTPUT: &str = "Output";
const SCALE: &str = "Scale";

/// The help of `--dataset`: every family of names, from the lists that parse them.
fn dataset_help() -> String {
    format!(
        "Run a benchmark instead of a task file (without either: the ITC sample set): {}. \
         Its files come from --dataset-files, \
         else the `itc ood fetch` cache (--ood-cache), else the copies built into itc (none \
         for nexusraven); `itc datasets` lists every one",
        benchmarks::dataset::families()
    )
}

/// Arguments of `itc eval`. Each flag is under one heading of `--help`
/// (tasks, models, steps and solvers, output, scale).
#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// Task file (JSONL, SPEC §0). Default: the sample set.
    #[arg(long, help_heading = TASKS)]
    pub tasks: Option<PathBuf>,
    /// Run an OOD benchmark instead of a task file (its help, from
    /// `dataset_help`, lists every family).
    #[arg(long, value_name = "NAME", conflicts_with = "tasks", help_heading = TASKS, help = dataset_help())]
    pub dataset: Option<String>,
    /// The benchmark's files (APIBench: the hub's `*_api.jsonl` and `*_eval.json`).
    #[arg(long, num_args = 1.., requires = "dataset", help_heading = TASKS)]
    pub dataset_files: Vec<PathBuf>,
    /// Where `itc ood fetch` put the files. Default: $ITC_CACHE/ood, else ~/.cache/itc/ood.
    #[arg(long = OOD_CACHE_FLAG, value_name = "DIR", requires = "dataset", help_heading = TASKS)]
    pub ood_cache: Option<PathBuf>,
    /// APIBench: distractor tools per task besides the gold API.
    #[arg(long, requires = "dataset", help_heading = TASKS, help = with_default(
        "APIBench: distractor tools per task besides the gold API", apibench::DEFAULT_CANDIDATES))]
    pub candidates: Option<usize>,
    /// τ³-bench: the model playing the customer, a model of --config.
    #[arg(long, value_name = "NAME", requires = "dataset", help_heading = TASKS)]
    pub user_model: Option<String>,
    /// τ³-bench: the model judging NL assertions (a model of --config), asked
    /// as the official evaluator asks its judge; without it, the trials whose
    /// reward waits on NL assertions are reported as needing a judge.
    #[arg(long, value_name = "NAME", requires = "user_model", help_heading = TASKS)]
    pub nl_judge: Option<String>,
    /// τ³-bench: trials per task (pass^k for k up to this).
    #[arg(long, requires = "dataset", help_heading = TASKS, help = with_default(
        "τ³-bench: trials per task (pass^k for k up to this)", TauRun::default().trials))]
    pub trials: Option<usize>,
    /// τ³-bench: steps before a conversation ends as `max_steps`.
    #[arg(long, requires = "dataset", help_heading = TASKS, help = with_default(
        "τ³-bench: steps before a conversation ends as max_steps", Limits::default().max_steps))]
    pub tau_max_steps: Option<usize>,
    /// τ³-bench: failed tool calls before a conversation ends as `too_many_errors`.
    #[arg(long, requires = "dataset", help_heading = TASKS, help = with_default(
        "τ³-bench: failed tool calls before a conversation ends as too_many_errors",
        Limits::default().max_errors))]
    pub tau_max_errors: Option<usize>,
    /// Run at most this many tasks (the first, after the other filters); from 1.
    #[arg(long, allow_hyphen_values = true, help_heading = TASKS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub limit: Option<usize>,
    /// Only these task ids, comma-separated.
    #[arg(long, value_delimiter = ',', help_heading = TASKS)]
    pub ids: Vec<String>,
    /// Only these task kinds, comma-separated (single, repeated, parallel, nested, no_tool).
    #[arg(long, value_delimiter = ',', help_heading = TASKS)]
    pub kinds: Vec<String>,
    /// Only these languages, comma-separated ISO 639-1 codes.
    #[arg(long, value_delimiter = ',', help_heading = TASKS)]
    pub languages: Vec<String>,

    /// Model configuration file (TOML, `[[models]]` tables). Without it and
    /// --backend: the offline baseline.
    #[arg(long, help_heading = MODELS)]
    pub config: Option<PathBuf>,
    /// Models of the configuration to run, comma-separated. Default: all.
    #[arg(long, value_delimiter = ',', requires = "config", help_heading = MODELS)]
    pub models: Vec<String>,
    /// Ad-hoc model: backend (no configuration file needed).
    #[arg(long, value_enum, conflicts_with = "config", help_heading = MODELS)]
    pub backend: Option<Backend>,
    /// Ad-hoc model: endpoint root, e.g. http://127.0.0.1:8080/v1.
    #[arg(long, requires = "backend", help_heading = MODELS)]
    pub base_url: Option<String>,
    /// Ad-hoc model: model id sent to the server (required but for the baseline).
    #[arg(long, requires = "backend", help_heading = MODELS)]
    pub model_id: Option<String>,
    /// Ad-hoc model: name in predictions and tables (default: the model id).
    #[arg(long, requires = "backend", help_heading = MODELS)]
    pub name: Option<String>,
    /// Ad-hoc model: environment variable holding the API key.
    #[arg(long, requires = "backend", help_heading = MODELS)]
    pub api_key_env: Option<String>,
    /// Answer mode (overrides the configuration's).
    #[arg(long, value_enum, help_heading = MODELS, help = with_default(
        "Answer mode (overrides the configuration's)", Mode::default().as_str()))]
    pub mode: Option<Mode>,
    /// Answer format asked for (overrides the configuration's): itc, or a
    /// benchmark's own: gorilla (APIBench), seal-tools, bfcl (BFCL's own
    /// requests, the default on `--dataset bfcl:…`), bfcl-itc.
    #[arg(long, value_enum, help_heading = MODELS)]
    pub prompt_style: Option<PromptStyle>,
    /// The OpenAI API that BFCL's own requests go to (overrides the
    /// configuration's). Default: responses for `https://api.openai.com`,
    /// chat-completions for any other server.
    #[arg(long, value_enum, help_heading = MODELS)]
    pub openai_api: Option<OpenAiApi>,
    /// Your own system prompt: a minijinja template file replacing
    /// `prompts/system.jinja` (prompt and structured modes, ITC style).
    #[arg(long, help_heading = MODELS)]
    pub system_prompt: Option<PathBuf>,
    /// Sampling temperature (overrides the configuration's).
    #[arg(long, help_heading = MODELS, help = with_default(
        "Sampling temperature (overrides the configuration's)", DEFAULT_TEMPERATURE))]
    pub temperature: Option<f64>,
    /// Answer length limit in tokens (overrides the configuration's).
    #[arg(long, help_heading = MODELS, help = format!(
        "Answer length limit in tokens (overrides the configuration's). Default: {AD_HOC_MAX_TOKENS} \
         for a model given by flags (--backend …), else models.toml's `max_tokens` (default {DEFAULT_MAX_TOKENS})"))]
    pub max_tokens: Option<u32>,
    /// USD per million prompt tokens (overrides the configuration's).
    #[arg(long, help_heading = MODELS)]
    pub price_input: Option<f64>,
    /// USD per million completion tokens (overrides the configuration's).
    #[arg(long, help_heading = MODELS)]
    pub price_output: Option<f64>,
    /// Per-request timeout in milliseconds.
    #[arg(long, help_heading = MODELS, help = with_default(
        "Per-request timeout in milliseconds, counted from the request's send; a request that \
         times out is retried once at most", DEFAULT_TIMEOUT_MS))]
    pub timeout_ms: Option<u64>,
    /// Requests per task at most, retries included.
    #[arg(long, help_heading = MODELS, help = with_default(
        "Requests per task at most, retries included (a second timeout ends them sooner)",
        RetryPolicy::default().max_attempts))]
    pub max_attempts: Option<u32>,
    /// First retry delay in milliseconds, doubling per retry.
    #[arg(long, help_heading = MODELS, help = with_default(
        "First retry delay in milliseconds, doubling per retry", RetryPolicy::default().base.as_millis()))]
    pub retry_base_ms: Option<u64>,
    /// Longest retry delay in milliseconds.
    #[arg(long, help_heading = MODELS, help = with_default(
        "Longest retry delay in milliseconds", RetryPolicy::default().cap.as_millis()))]
    pub retry_cap_ms: Option<u64>,

    /// Step-by-step runs.
    #[command(flatten, next_help_heading = STEPS)]
    pub steps: StepFlags,

    /// Run directory. Default: `runs/<model name>-<UTC timestamp>` (`-2`, `-3`… when taken).
    /// `{shard}` in it becomes the shard's K (`runs/study/shard-{shard}`).
    #[arg(long, help_heading = OUTPUT)]
    pub run_dir: Option<PathBuf>,
    /// Continue the run directory: skip finished tasks, retry errored ones.
    /// The folder must hold a run.
    #[arg(long, help_heading = OUTPUT)]
    pub resume: bool,
    /// `--resume` when the run directory exists, else a fresh run: for a
    /// scheduler's task that may be a retry (Slurm arrays, Kubernetes Jobs).
    #[arg(long, conflicts_with = "resume", help_heading = OUTPUT)]
    pub resume_or_start: bool,
    /// Never draw the progress bar.
    #[arg(long, help_heading = OUTPUT)]
    pub no_progress: bool,
    /// How the predictions are scored and shown.
    #[command(flatten, next_help_heading = OUTPUT)]
    pub scoring: ScoringFlags,

    /// Requests in flight per model (overrides the configuration's).
    #[arg(long, help_heading = SCALE, help = format!(
        "Requests in flight per model (overrides the configuration's). Unset everywhere: a local \
         server's slot count (llama.cpp `/props`), else {DEFAULT_CONCURRENCY}"))]
    pub concurrency: Option<usize>,
    /// Requests per minute per model (overrides the configuration's).
    #[arg(long, help_heading = SCALE)]
    pub rpm: Option<u32>,
    /// Tokens per minute per model (overrides the configuration's).
    #[arg(long, help_heading = SCALE)]
    pub tpm: Option<u64>,
    /// The response cache.
    #[command(flatten, next_help_heading = SCALE)]
    pub cache: CacheFlags,
    /// Write the requests to batch files in this folder instead of sending
    /// them (OpenAI/vLLM batch input, Anthropic Message Batches), per model.
    #[arg(long, value_name = "DIR", conflicts_with = "import_batch", help_heading = SCALE)]
    pub emit_batch: Option<PathBuf>,
    /// Answer the requests from these batch output files (OpenAI/vLLM,
    /// Anthropic) instead of sending them, and cache the answers.
    #[arg(long, value_name = "FILE", num_args = 1.., help_heading = SCALE)]
    pub import_batch: Vec<PathBuf>,
    /// Run only share K of N of the selected tasks (balanced, by a hash of
    /// the task id); `itc merge` joins the shards' run directories. `auto`:
    /// K and N from the Slurm array job or Kubernetes indexed Job itc runs in
    /// (SLURM_ARRAY_TASK_*, JOB_COMPLETION_INDEX; docs/scale-out.md).
    #[arg(long, value_name = "K/N|auto", help_heading = SCALE)]
    pub shard: Option<ShardFlag>,
    /// With `--shard auto`: the number of shards. A Kubernetes indexed
    /// Job's count (else ITC_SHARD_COUNT); a check of a Slurm array's.
    #[arg(long, value_name = "N", requires = "shard", help_heading = SCALE)]
    pub shards: Option<usize>,
}

/// `--shard`: a share given as `K/N`, or `auto`: the scheduler's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardFlag {
    /// `--shard K/N`.
    Given(Shard),
    /// `--shard auto`: from the environment ([`run::scheduler`]).
    Auto,
}

impl FromStr for ShardFlag {
    type Err = String;

    fn from_str(text: &str) -> Result<ShardFlag, String> {
        if text.trim() == "auto" {
            return Ok(ShardFlag::Auto);
        }
        text.parse::<Shard>()
            .map(ShardFlag::Given)
            .map_err(|e| format!("{e}, or auto"))
    }
}

/// What `{shard}` in `--run-dir` stands for.
const SHARD_PLACEHOLDER: &str = "{shard}";

impl EvalArgs {
    /// The library's options; flags the run would not use are refused.
    pub fn options(&self) -> anyhow::Result<EvalOptions> {
        self.options_in(&|name| std::env::var_os(name))
            .map(|(options, _)| options)
    }

    /// The shard the flags ask for, in the environment `var` reads, with
    /// where `--shard auto` found it.
    fn shard_in(
        &self,
        var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> anyhow::Result<Option<(Shard, Option<String>)>> {
        match self.shard {
            None => Ok(None),
            Some(ShardFlag::Given(shard)) => {
                if self.shards.is_some_and(|n| n != shard.count) {
                    bail!(
                        "--shards {} differs from --shard {shard}",
                        self.shards.unwrap_or_default()
                    );
                }
                Ok(Some((shard, None)))
            }
            Some(ShardFlag::Auto) => {
                let found = run::scheduler::shard_from_environment(var, self.shards)
                    .map_err(anyhow::Error::msg)?;
                Ok(Some((found.shard, Some(found.source))))
            }
        }
    }

    /// `--run-dir` with `{shard}` replaced by the shard's K.
    fn run_dir_of(&self, shard: Option<Shard>) -> anyhow::Result<Option<PathBuf>> {
        let Some(dir) = &self.run_dir else {
            return Ok(None);
        };
        let text = dir.to_string_lossy();
        if !text.contains(SHARD_PLACEHOLDER) {
            return Ok(Some(dir.clone()));
        }
        match shard {
            Some(shard) => Ok(Some(PathBuf::from(
                text.replace(SHARD_PLACEHOLDER, &shard.index.to_string()),
            ))),
            None => bail!(
                "--run-dir {}: {SHARD_PLACEHOLDER} stands for the shard's number, and this run is not a shard (--shard K/N or auto)",
                dir.display()
            ),
        }
    }

    /// [`EvalArgs::options`] in the environment `var` reads, with where
    /// `--shard auto` found the shard.
    fn options_in(
        &self,
        var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> anyhow::Result<(EvalOptions, Option<String>)> {
        let unused = self.steps.unused();
        if !unused.is_empty() {
            let run = match (self.steps.step_mode.unwrap_or_default(), &self.steps.solver) {
                (StepMode::Single, _) => "a single-shot run (no --steps)".to_string(),
                (mode, None) => format!("a run with --steps {}", mode.as_str()),
                (mode, Some(solver)) => format!(
                    "a run with --steps {} --solver {} (its limits are --max-depth and --max-requests)",
                    mode.as_str(),
                    solver.kind.as_str()
                ),
            };
            bail!(
                "{}: not used by {run} (see `itc eval --help`); drop {}",
                unused.join(", "),
                if unused.len() == 1 { "it" } else { "them" }
            );
        }
        let (shard, source) = self.shard_in(var)?.unzip();
        let options = EvalOptions {
            models: self.model_source(),
            overrides: self.overrides(),
            tasks: self.tasks.clone(),
            selection: self.selection()?,
            run_dir: self.run_dir_of(shard)?,
            resume: self.resume || self.resume_or_start,
            start_if_missing: self.resume_or_start,
            cache: CacheSetting::from_flags(self.cache.cache.as_deref(), self.cache.no_cache),
            show_progress: !self.no_progress,
            scoring: self.scoring.options(),
            steps: self.steps.options(),
            shard,
            batch: match (&self.emit_batch, self.import_batch.is_empty()) {
                (Some(dir), _) => BatchMode::Emit(dir.clone()),
                (None, false) => BatchMode::Import(self.import_batch.clone()),
                (None, true) => BatchMode::Off,
            },
        };
        Ok((options, source.flatten()))
    }

    /// Runs `itc eval`: run tables and scores on `out`, notes on `err`.
    pub fn run(&self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
        let (options, shard_source) = self.options_in(&|name| std::env::var_os(name))?;
        if let (Some(shard), Some(source)) = (options.shard, shard_source) {
            writeln!(err, "itc: shard {shard}, from {source}")?;
        }
        match &self.dataset {
            Some(name) => {
                let defaults = benchmarks::benchmark::DatasetOptions::default();
                let dataset = benchmarks::benchmark::DatasetOptions {
                    name: name.clone(),
                    files: self.dataset_files.clone(),
                    cache_dir: self.ood_cache.clone(),
                    candidates: self.candidates.unwrap_or(defaults.candidates),
                    tau: TauRun {
                        user_model: self.user_model.clone(),
                        nl_judge: self.nl_judge.clone(),
                        cache: options.cache.clone(),
                        intervals: tau::pass_k::Intervals {
                            resamples: options.scoring.bootstrap,
                            seed: options.scoring.seed,
                        },
                        trials: self.trials.unwrap_or(defaults.tau.trials),
                        limits: Limits {
                            max_steps: self.tau_max_steps.unwrap_or(defaults.tau.limits.max_steps),
                            max_errors: self
                                .tau_max_errors
                                .unwrap_or(defaults.tau.limits.max_errors),
                        },
                        ..defaults.tau.clone()
                    },
                };
                benchmarks::benchmark::eval_dataset(&options, &dataset, out, err)
            }
            None => run::eval(&options, out, err),
        }
    }

    fn model_source(&self) -> ModelSource {
        if let Some(path) = &self.config {
            ModelSource::ConfigFile {
                path: path.clone(),
                names: self.models.clone(),
            }
        } else if let Some(backend) = self.backend {
            ModelSource::AdHoc(AdHocModel {
                backend,
                base_url: self.base_url.clone(),
                model_id: self.model_id.clone(),
                name: self.name.clone(),
                api_key_env: self.api_key_env.clone(),
            })
        } else {
            ModelSource::Baseline
        }
    }

    fn overrides(&self) -> ModelOverrides {
        ModelOverrides {
            mode: self.mode,
            prompt_style: self.prompt_style,
            openai_api: self.openai_api,
            system_prompt: self.system_prompt.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            concurrency: self.concurrency,
            rpm: self.rpm,
            tpm: self.tpm,
            price_input: self.price_input,
            price_output: self.price_output,
            timeout_ms: self.timeout_ms,
            max_attempts: self.max_attempts,
            retry_base_ms: self.retry_base_ms,
            retry_cap_ms: self.retry_cap_ms,
        }
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
                .map(|k| TaskKind::from_name(k))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::config::ModelConfig;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        eval: EvalArgs,
    }

    fn parse(args: &[&str]) -> Result<EvalArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("itc").chain(args.iter().copied())).map(|c| c.eval)
    }

    fn model_configs(args: &EvalArgs) -> anyhow::Result<Vec<ModelConfig>> {
        args.options()?.model_configs()
    }

    #[test]
    fn flags_the_run_would_not_use_are_refused() {
        let refused = |args: &[&str]| match parse(args).unwrap().options() {
            Ok(_) => panic!("{args:?} accepted"),
            Err(e) => e.to_string(),
        };
        let message = refused(&["--max-steps", "3", "--cassette", "c.jsonl"]);
        assert!(
            message.starts_with("--max-steps: not used by a single-shot run"),
            "{message}"
        );
        let message = refused(&[
            "--steps",
            "replay",
            "--allow-host",
            "h",
            "--tool-model",
            "t",
            "--config",
            "m.toml",
        ]);
        assert!(
            message
                .starts_with("--allow-host, --tool-model: not used by a run with --steps replay"),
            "{message}"
        );
        assert!(
            refused(&[
                "--steps",
                "execute",
                "--tool-model",
                "t",
                "--config",
                "m.toml"
            ])
            .starts_with("--tool-model")
        );
        assert!(refused(&["--steps", "simulate", "--hosts", "h.toml"]).starts_with("--hosts"));
        // What each mode uses is accepted.
        for args in [
            &["--steps", "replay", "--max-steps", "3"][..],
            &[
                "--steps",
                "execute",
                "--allow-host",
                "h",
                "--tool-timeout-ms",
                "5",
            ],
            &[
                "--steps",
                "simulate",
                "--tool-model",
                "t",
                "--config",
                "m.toml",
                "--max-tool-bytes",
                "9",
            ],
        ] {
            assert!(parse(args).unwrap().options().is_ok(), "{args:?}");
        }
    }

    #[test]
    fn model_settings_without_a_model_are_refused() {
        let error = model_configs(&parse(&["--mode", "native", "--temperature", "0.5"]).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--mode, --temperature: the offline baseline sends no request"),
            "{error}"
        );
        // The baseline's workers still honour --concurrency; a model takes every setting.
        assert!(model_configs(&parse(&["--concurrency", "2"]).unwrap()).is_ok());
        let args = [
            "--backend",
            "openai",
            "--model-id",
            "x",
            "--temperature",
            "0.5",
        ];
        assert!(model_configs(&parse(&args).unwrap()).is_ok());
    }

    #[test]
    fn no_arguments_means_the_baseline() {
        let models = model_configs(&parse(&[]).unwrap()).unwrap();
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
        let m = &model_configs(&args).unwrap()[0];
        assert_eq!(
            (m.name.as_str(), m.mode, m.concurrency),
            ("x", Mode::Native, Some(3))
        );
        assert_eq!(m.retry_policy().base, std::time::Duration::from_millis(5));
        assert_eq!(m.effective_key_env(), None);
        let args = parse(&["--backend", "openai", "--base-url", "http://h/v1"]).unwrap();
        let err = model_configs(&args).unwrap_err();
        assert!(err.to_string().contains("model_id: required"), "{err}");
        assert!(parse(&["--config", "m.toml", "--backend", "openai"]).is_err());
        assert!(
            parse(&["--model-id", "x"]).is_err(),
            "ad-hoc flags need --backend"
        );
    }

    #[test]
    fn an_ad_hoc_model_answers_in_the_ad_hoc_length_its_help_states() {
        use crate::models::config::AD_HOC_MAX_TOKENS;
        use clap::CommandFactory;
        let flags = ["--backend", "openai", "--model-id", "x"];
        let m = &model_configs(&parse(&flags).unwrap()).unwrap()[0];
        assert_eq!(m.max_tokens, AD_HOC_MAX_TOKENS);
        let given = [&flags[..], &["--max-tokens", "2048"]].concat();
        assert_eq!(
            model_configs(&parse(&given).unwrap()).unwrap()[0].max_tokens,
            2048
        );
        let help = Cli::command().render_long_help().to_string();
        assert!(
            help.contains(&format!(
                "Default: {AD_HOC_MAX_TOKENS} for a model given by flags"
            )),
            "{help}"
        );
    }

    /// The text `--help` shows for `flag`: its line and the lines under it,
    /// up to the next flag.
    fn help_of(help: &str, flag: &str) -> String {
        let start = help
            .find(&format!("\n      {flag} "))
            .or_else(|| help.find(&format!("\n      {flag}\n")))
            .unwrap_or_else(|| panic!("{flag} not in {help}"));
        let rest = &help[start + 1..];
        let end = rest[1..].find("\n      --").map_or(rest.len(), |i| i + 1);
        rest[..end].to_string()
    }

    #[test]
    fn help_has_headings_every_dataset_family_and_the_library_defaults() {
        use crate::benchmarks::dataset::{OodDataset, all};
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        let mut at = 0;
        for heading in [TASKS, MODELS, STEPS, OUTPUT, SCALE] {
            let found = help[at..]
                .find(&format!("\n{heading}:\n"))
                .unwrap_or_else(|| panic!("no heading {heading} after byte {at}: {help}"));
            at += found + 1;
        }
        // Each flag sits under its heading.
        let under = |flag: &str, heading: &str| {
            let heading_of_flag = help
                .lines()
                .take_while(|l| !l.starts_with(&format!("      {flag} ")))
                .filter(|l| !l.starts_with(' ') && l.ends_with(':'))
                .last();
            assert_eq!(
                heading_of_flag,
                Some(format!("{heading}:").as_str()),
                "{flag}"
            );
        };
        under("--dataset", TASKS);
        under("--model-id", MODELS);
        under("--solver", STEPS);
        under("--bootstrap", OUTPUT);
        under("--shard", SCALE);
        under("--cache", SCALE);
        // `--dataset` names every family and each value of its part.
        let dataset = help_of(&help, "--dataset");
        for d in all() {
            let name = d.to_string();
            let (family, part) = name.split_once(':').unwrap_or((&name, ""));
            let family = if part.is_empty() {
                family.to_string()
            } else {
                format!("{family}:")
            };
            assert!(dataset.contains(&family), "{family}: {dataset}");
            for part in part.split(',') {
                assert!(dataset.contains(part), "{name}: {dataset}");
            }
            if let OodDataset::Bfcl(_) = d {
                assert!(dataset.contains("bfcl:<category>"), "{dataset}");
            }
        }
        assert!(dataset.contains("sample set"), "{dataset}");
        // Defaults of the library's options, shown as clap shows its own.
        let steps = StepOptions::default();
        let solver = SolverOptions::parse("chain").unwrap();
        let retry = RetryPolicy::default();
        for (flag, default) in [
            ("--steps", steps.mode.as_str().to_string()),
            ("--max-steps", steps.max_steps.to_string()),
            ("--tool-timeout-ms", steps.tool_timeout_ms.to_string()),
            ("--max-tool-bytes", steps.max_tool_bytes.to_string()),
            ("--max-calls-per-step", steps.max_calls_per_step.to_string()),
            (
                "--max-task-tool-bytes",
                steps.max_task_tool_bytes.to_string(),
            ),
            ("--max-step-ms", steps.max_step_ms.to_string()),
            ("--finish", solver.finish.as_str().to_string()),
            ("--max-depth", solver.max_depth.to_string()),
            ("--max-requests", solver.max_requests.to_string()),
            (
                "--candidates",
                benchmarks::benchmark::DatasetOptions::default()
                    .candidates
                    .to_string(),
            ),
            ("--mode", Mode::default().as_str().to_string()),
            ("--max-attempts", retry.max_attempts.to_string()),
            ("--retry-base-ms", retry.base.as_millis().to_string()),
            ("--retry-cap-ms", retry.cap.as_millis().to_string()),
            (
                "--timeout-ms",
                crate::models::config::ModelConfig::new("m", Backend::Openai)
                    .timeout()
                    .as_millis()
                    .to_string(),
            ),
            (
                "--bootstrap",
                crate::score::files::ScoringOptions::default()
                    .bootstrap
                    .to_string(),
            ),
        ] {
            let text = help_of(&help, flag);
            assert!(
                text.contains(&format!("[default: {default}]")),
                "{flag}: {text}"
            );
        }
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
    fn cache_and_scoring_flags() {
        let o = parse(&["--no-cache", "--format", "json", "--bootstrap", "0"])
            .unwrap()
            .options()
            .unwrap();
        assert_eq!(o.cache, CacheSetting::Off);
        assert_eq!(o.scoring.bootstrap, 0);
        assert!(parse(&["--no-cache", "--cache", "c"]).is_err());
        let o = parse(&["--cache", "c"]).unwrap().options().unwrap();
        assert_eq!(o.cache, CacheSetting::Dir(PathBuf::from("c")));
        let o = parse(&[]).unwrap().options().unwrap();
        assert_eq!(o.cache, CacheSetting::Default);
        assert_eq!(o.scoring, crate::score::files::ScoringOptions::default());
    }

    #[test]
    fn shards_given_or_from_the_scheduler_and_the_run_dir_placeholder() {
        let slurm = |name: &str| {
            [
                ("SLURM_ARRAY_JOB_ID", "7"),
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ]
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| std::ffi::OsString::from(v))
        };
        let none = |_: &str| None;
        let args = parse(&["--shard", "auto", "--run-dir", "runs/s/shard-{shard}"]).unwrap();
        let (o, source) = args.options_in(&slurm).unwrap();
        assert_eq!(o.shard, Some(Shard { index: 2, count: 3 }));
        assert_eq!(o.run_dir, Some(PathBuf::from("runs/s/shard-2")));
        assert!(
            source
                .unwrap()
                .starts_with("Slurm array job 7 (SLURM_ARRAY_TASK_ID=2")
        );
        let e = args.options_in(&none).unwrap_err().to_string();
        assert!(e.contains("no scheduler's shard"), "{e}");

        let args = parse(&["--shard", "2/4", "--run-dir", "r-{shard}-{shard}"]).unwrap();
        let (o, source) = args.options_in(&slurm).unwrap();
        assert_eq!(
            (o.shard, source),
            (Some(Shard { index: 2, count: 4 }), None)
        );
        assert_eq!(o.run_dir, Some(PathBuf::from("r-2-2")));
        let e = parse(&["--shard", "2/4", "--shards", "3"])
            .unwrap()
            .options_in(&none)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("--shards 3 differs from --shard 2/4")
        );
        let e = parse(&["--run-dir", "r-{shard}"])
            .unwrap()
            .options_in(&none)
            .unwrap_err();
        assert!(e.to_string().contains("this run is not a shard"), "{e}");
        assert!(parse(&["--shards", "3"]).is_err(), "--shards needs --shard");
        let e = parse(&["--shard", "autumn"]).err().unwrap().to_string();
        assert!(e.contains("K/N") && e.contains("or auto"), "{e}");
    }
}
