//! # itc — International Tool Calling benchmark harness
//!
//! The library mirrors the pipeline. Each stage reads and writes JSON Lines
//! files of the types in [`records`]:
//!
//! - [`records`]: tools, tasks, calls, predictions, per-task scores (SPEC §0).
//! - [`action`]: the action-string parser and printer (SPEC §1).
//! - [`response`]: format match and lenient extraction of calls (SPEC §2).
//! - [`language`]: language match with whatlang (SPEC §3).
//! - [`scoring`]: per-task selection and invocation scores (SPEC §3).
//! - [`jsonl`]: reading record files with errors that name file, line and field.
//! - [`evaluate`]: scoring prediction files against a task file, streaming.
//! - [`aggregate`]: macro and micro averages, error shares, breakdowns, bootstrap CIs (SPEC §4).
//! - [`report`]: terminal tables, JSON, and CSV/JSONL output files.
//! - [`synth`] and [`bench`]: synthetic inputs and the `itc bench` throughput measurement.
//! - [`bench_http`]: `itc bench-http`, the harness's requests per second against an instant loopback server, beside `wrk`.
//! - [`baseline`]: the offline baseline model (lexical retrieval and slot filling) of `itc eval`.
//! - [`run`]: running models on tasks through OpenAI-compatible, Anthropic and Gemini APIs (`itc eval`).
//! - [`commands`]: what each command of the `itc` binary does.
//! - [`catalog`]: `itc catalog import|stats`: API lists of several formats normalised to ITC tools with country (and how it was decided) and category, de-duplicated, counted (ITC §3.1).
//! - [`sampling`]: `itc sample`: biased sampling of APIs, country weights ∝ n^α with quotas, against the long tail (ITC §3.2).
//! - [`confusion`]: `itc confuse`: candidate lists of confusable distractors by lexical similarity at graded difficulty (ITC §3.2 tool confusion).
//! - [`stage`]: what the LLM stages of task-set building share: many chats to one model, their tokens and cost.
//! - [`generation`]: `itc generate`: a generator model writes requests of four kinds in each API's country's language, read robustly and checked deterministically (ITC §3.3).
//! - [`judging`]: `itc filter`: two judge models score each generated query on five dimensions; a keep rule, rejects with reasons, inter-judge agreement (ITC §3.3).
//! - [`answering`]: `itc answer`: gold Thought and Action for kept queries by an answer model, a checker for tasks of several calls, deterministic validation; the train/test split without shared APIs and the ShareGPT export (ITC §3.4).
//! - [`pipeline`]: `itc pipeline`: the building stages in order from one TOML file, with a manifest that skips finished stages and a shared response cache.
//! - [`ood`]: out-of-distribution sets: converters to SPEC tasks and the official scorers of Seal-Tools and APIBench (`itc ood`, SPEC §5).

pub mod action;
pub mod aggregate;
pub mod answering;
pub mod baseline;
pub mod bench;
pub mod bench_http;
pub mod catalog;
pub mod commands;
pub mod confusion;
pub mod evaluate;
pub mod generation;
pub mod jsonl;
pub mod judging;
pub mod language;
pub mod ood;
pub mod pipeline;
pub mod records;
pub mod report;
pub mod response;
pub mod run;
pub mod sampling;
pub mod scoring;
pub mod stage;
pub mod synth;
