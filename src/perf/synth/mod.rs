//! Synthetic benchmark inputs: many tasks and many models' predictions of
//! mixed kinds and answer styles, for measuring scoring throughput.
//!
//! Everything is drawn from one seeded [`fastrand::Rng`], so a seed always
//! gives byte-identical files. Tasks cover the five kinds of SPEC §0 in ten
//! languages, with 3–6 candidate tools whose names use several scripts and
//! separators, and parameters of every JSON type. Predictions mix the answer
//! styles models actually produce (see [`AnswerStyle`]) in proportions that
//! vary from model to model.
//!
//! [`write_synthetic`] streams the prediction file (memory does not grow with
//! the number of predictions); [`synthesize`] keeps everything in memory for
//! tests and micro-benchmarks. [`action_corpus`] and
//! [`lenient_action_corpus`] are action strings for parser benchmarks.
//!
//! The parts:
//! - `phrases`: what tasks and answers say, per language;
//! - `domain`: the call domains and the topics texts name;
//! - `tools`, `arguments`: the candidate tools and their calls' gold arguments;
//! - `tasks`: one task of each kind, with confusers;
//! - `generator`: the seeded rng, the models, every model answering every task;
//! - `predictions`: one answer in its style;
//! - `style`, `corpus`: [`AnswerStyle`] and the parser corpora.

mod arguments;
mod corpus;
mod domain;
mod generator;
mod phrases;
mod predictions;
mod style;
mod tasks;
mod tools;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use corpus::{action_corpus, lenient_action_corpus};
use generator::Generator;
pub use style::AnswerStyle;

use crate::spec::records::{Prediction, Task, TaskKind};

/// How much to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthSpec {
    /// Number of tasks.
    pub tasks: usize,
    /// Number of models; each answers every task once.
    pub models: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

/// The files written by [`write_synthetic`] and what they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthFiles {
    /// The task file (`tasks.jsonl`).
    pub tasks_path: PathBuf,
    /// The prediction file (`predictions.jsonl`), all models one after another.
    pub predictions_path: PathBuf,
    /// Size of the task file in bytes.
    pub tasks_bytes: u64,
    /// Size of the prediction file in bytes.
    pub predictions_bytes: u64,
    /// Number of tasks.
    pub task_count: usize,
    /// Number of predictions (tasks × models).
    pub prediction_count: usize,
    /// Predictions per answer style, in [`AnswerStyle::ALL`] order.
    pub style_counts: Vec<(AnswerStyle, usize)>,
    /// Tasks per kind, in [`TaskKind::ALL`] order.
    pub kind_counts: Vec<(TaskKind, usize)>,
}

/// Everything generated, in memory (for tests and micro-benchmarks).
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Predictions, model by model, each in task order.
    pub predictions: Vec<Prediction>,
    /// The style of each prediction.
    pub styles: Vec<AnswerStyle>,
}

/// Writes `tasks.jsonl` and `predictions.jsonl` into `dir` (created if
/// needed). The prediction file is streamed through a buffer.
pub fn write_synthetic(dir: &Path, spec: &SynthSpec) -> anyhow::Result<SynthFiles> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tasks_path = dir.join("tasks.jsonl");
    let predictions_path = dir.join("predictions.jsonl");
    let mut generator = Generator::new(spec);

    let mut out = BufWriter::with_capacity(1 << 20, create(&tasks_path)?);
    for task in &generator.tasks {
        serde_json::to_writer(&mut out, task)?;
        out.write_all(b"\n")?;
    }
    out.flush()
        .with_context(|| format!("writing {}", tasks_path.display()))?;
    drop(out);

    let mut out = BufWriter::with_capacity(1 << 20, create(&predictions_path)?);
    let mut styles = [0usize; AnswerStyle::ALL.len()];
    let mut result = Ok(());
    generator.for_each_prediction(|prediction, style| {
        styles[style.index()] += 1;
        if result.is_ok() {
            result = serde_json::to_writer(&mut out, prediction)
                .map_err(anyhow::Error::from)
                .and_then(|()| out.write_all(b"\n").map_err(anyhow::Error::from));
        }
    });
    result.with_context(|| format!("writing {}", predictions_path.display()))?;
    out.flush()
        .with_context(|| format!("writing {}", predictions_path.display()))?;
    drop(out);

    Ok(SynthFiles {
        tasks_bytes: std::fs::metadata(&tasks_path)?.len(),
        predictions_bytes: std::fs::metadata(&predictions_path)?.len(),
        tasks_path,
        predictions_path,
        task_count: spec.tasks,
        prediction_count: spec.tasks * spec.models,
        style_counts: AnswerStyle::ALL
            .iter()
            .map(|s| (*s, styles[s.index()]))
            .collect(),
        kind_counts: kind_counts(&generator.tasks),
    })
}

fn create(path: &Path) -> anyhow::Result<File> {
    File::create(path).with_context(|| format!("creating {}", path.display()))
}

/// Tasks per kind, in [`TaskKind::ALL`] order.
pub fn kind_counts(tasks: &[Task]) -> Vec<(TaskKind, usize)> {
    TaskKind::ALL
        .iter()
        .map(|k| (*k, tasks.iter().filter(|t| t.kind == *k).count()))
        .collect()
}

/// Generates the same tasks and predictions as [`write_synthetic`], in memory.
pub fn synthesize(spec: &SynthSpec) -> Synthetic {
    let mut generator = Generator::new(spec);
    let mut predictions = Vec::with_capacity(spec.tasks * spec.models);
    let mut styles = Vec::with_capacity(spec.tasks * spec.models);
    generator.for_each_prediction(|p, s| {
        predictions.push(p.clone());
        styles.push(s);
    });
    Synthetic {
        tasks: generator.tasks,
        predictions,
        styles,
    }
}

#[cfg(test)]
mod tests {
    use super::phrases::LANGUAGES;
    use super::*;
    use crate::score::stream::{EvalOptions, evaluate};
    use crate::spec::records::{Extraction, Value};

    fn spec() -> SynthSpec {
        SynthSpec {
            tasks: 50,
            models: 3,
            seed: 7,
        }
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let c = tempfile::tempdir().unwrap();
        let fa = write_synthetic(a.path(), &spec()).unwrap();
        let fb = write_synthetic(b.path(), &spec()).unwrap();
        let fc = write_synthetic(c.path(), &SynthSpec { seed: 8, ..spec() }).unwrap();
        let read = |p: &Path| std::fs::read(p).unwrap();
        assert_eq!(read(&fa.tasks_path), read(&fb.tasks_path));
        assert_eq!(read(&fa.predictions_path), read(&fb.predictions_path));
        assert_ne!(read(&fa.predictions_path), read(&fc.predictions_path));
        assert_eq!(fa.prediction_count, 150);
        assert_eq!(
            fa.predictions_bytes,
            read(&fa.predictions_path).len() as u64
        );
        assert_eq!(fa.style_counts.iter().map(|(_, n)| n).sum::<usize>(), 150);
    }

    #[test]
    fn files_match_the_in_memory_form() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let memory = synthesize(&spec());
        let lines: Vec<Prediction> = std::fs::read_to_string(&files.predictions_path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines, memory.predictions);
        let tasks: Vec<Task> = std::fs::read_to_string(&files.tasks_path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(tasks, memory.tasks);
    }

    #[test]
    fn every_kind_language_and_style_appears() {
        let s = synthesize(&SynthSpec {
            tasks: 200,
            models: 10,
            seed: 1,
        });
        for kind in TaskKind::ALL {
            assert!(s.tasks.iter().any(|t| t.kind == kind), "{kind}");
        }
        for lang in &LANGUAGES {
            assert!(
                s.tasks.iter().any(|t| t.language == lang.code),
                "{}",
                lang.code
            );
        }
        for style in AnswerStyle::ALL {
            assert!(s.styles.contains(&style), "{}", style.as_str());
        }
        for task in &s.tasks {
            assert!(
                (3..=6).contains(&task.tools.len()),
                "{}: {} tools",
                task.id,
                task.tools.len()
            );
            let names: std::collections::HashSet<&str> =
                task.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(
                names.len(),
                task.tools.len(),
                "tool names unique in {}",
                task.id
            );
            for call in &task.gold.calls {
                assert!(
                    names.contains(call.name.as_str()),
                    "gold tool {} is a candidate",
                    call.name
                );
            }
            assert_eq!(task.kind == TaskKind::NoTool, task.gold.calls.is_empty());
        }
        // Nested gold values are references.
        let refs = s
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Nested)
            .flat_map(|t| t.gold.calls.iter().flat_map(|c| c.arguments.iter()))
            .filter(|(_, v)| matches!(v, Value::Ref(_)))
            .count();
        assert!(refs > 0);
        // Parameter types of several kinds are declared.
        let kinds: std::collections::HashSet<&str> = s
            .tasks
            .iter()
            .flat_map(|t| t.tools.iter())
            .flat_map(|t| t.required_parameters.iter().chain(&t.optional_parameters))
            .map(|p| p.kind.as_str())
            .collect();
        for k in ["string", "integer", "number", "boolean", "array", "object"] {
            assert!(kinds.contains(k), "{k}");
        }
    }

    #[test]
    fn every_line_reads_as_its_record_type() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let tasks = std::fs::read_to_string(&files.tasks_path).unwrap();
        assert_eq!(tasks.lines().count(), 50);
        for line in tasks.lines() {
            serde_json::from_str::<Task>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        }
        let predictions = std::fs::read_to_string(&files.predictions_path).unwrap();
        assert_eq!(predictions.lines().count(), 150);
        for line in predictions.lines() {
            let p: Prediction =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            assert!(
                p.output.is_some() || p.calls.is_some() || p.error.is_some(),
                "{line}"
            );
        }
    }

    #[test]
    fn scoring_the_files_covers_every_model_and_task() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let evaluation = evaluate(
            &files.tasks_path,
            std::slice::from_ref(&files.predictions_path),
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(evaluation.tasks.len(), 50);
        assert_eq!(evaluation.models.len(), 3);
        assert!(evaluation.unknown.is_empty());
        assert!(evaluation.skipped.is_empty());
        assert!(evaluation.duplicate_task_ids.is_empty());
        for run in &evaluation.models {
            assert_eq!(run.outcomes.len(), 50);
            assert_eq!((run.missing, run.duplicates), (0, 0));
            assert!(
                run.outcomes
                    .iter()
                    .all(|o| o.extraction != Extraction::Missing)
            );
        }
    }
}
