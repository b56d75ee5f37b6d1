//! Scoring prediction files against a task file.
//!
//! Predictions are streamed: each line is read, scored and reduced to a small
//! [`TaskOutcome`] before the next, so memory does not grow with the size of
//! the prediction files. Nothing is dropped silently:
//! predictions for unknown tasks, duplicates, bad lines, errored answers and
//! tasks with no prediction are all counted and reported. The outcomes
//! themselves live in mapped scratch files ([`Outcomes`]), whose pages the
//! scorer lets go every `RELEASE_EVERY` lines, so the process's memory
//! does not grow with the number of predictions either.

use hashbrown::HashMap;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::Deserialize;

mod outcomes;
mod parallel;
mod view;

pub use crate::score::outcome::TaskOutcome;
pub use outcomes::Outcomes;

use crate::score::manifest::FileDigest;
use crate::score::steps::score_solver_steps;
use crate::score::task::{GoldSide, ScoreOptions, score_calls};
use crate::spec::jsonl::{RecordError, describe_error, for_each_line_hashed, read_records};
use crate::spec::language::LanguageDetector;
use crate::spec::records::{Call, Extraction, Prediction, Step, Task, TaskScore, first_of_each_id};
use crate::spec::response::read_prediction;
use crate::spec::solver::SolverRecord;
use crate::util::bounded::{FirstFew, clip};
use view::{TaskCopy, TaskView, TaskViews};

/// What `itc score` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// Value comparison options.
    pub score: ScoreOptions,
    /// Skip malformed lines (counted) instead of stopping at the first.
    pub skip_invalid: bool,
    /// Threads that parse and score prediction lines; 0 or 1 scores on the
    /// calling thread. Results are identical for any number (see `parallel`).
    pub threads: usize,
}

/// Scores one response (text and/or native calls) for a task on its own:
/// language detection chooses among the task's language and the major ones.
/// Scoring a task set uses [`score_response_in`] with the set's detector.
pub fn score_response(
    task: &Task,
    output: Option<&str>,
    native_calls: Option<&[Call]>,
    options: ScoreOptions,
) -> TaskOutcome {
    let languages = LanguageDetector::for_languages([task.language.as_str()]);
    score_response_in(&languages, task, output, native_calls, options)
}

/// Scores one response (text and/or native calls) for a task of a task set
/// whose language detector is `languages` (SPEC §3: built once per set, from
/// every task's `language`).
pub fn score_response_in(
    languages: &LanguageDetector,
    task: &Task,
    output: Option<&str>,
    native_calls: Option<&[Call]>,
    options: ScoreOptions,
) -> TaskOutcome {
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let view = TaskView {
        language: &task.language,
        candidates: &candidates,
        gold: GoldSide {
            calls: &task.gold.calls,
            thought: &task.gold.thought,
            tools: &task.tools,
            shown: &[],
        },
    };
    score_response_on(languages, &view, output, native_calls, options)
}

/// [`score_response_in`] on what scoring reads of the task.
fn score_response_on(
    languages: &LanguageDetector,
    task: &TaskView<'_>,
    output: Option<&str>,
    native_calls: Option<&[Call]>,
    options: ScoreOptions,
) -> TaskOutcome {
    let read = read_prediction(output, native_calls, task.candidates);
    let language = languages.check(&read.language_text, task.language);
    let score = score_calls(&task.gold, &read.calls, options);
    TaskOutcome {
        format_match: read.format_match,
        language: language.outcome,
        detected_language: language.detected,
        extraction: read.extraction,
        selection: score.selection,
        invocation: score.invocation,
        counts: score.counts,
        read_limits: read.limits,
        steps: None,
    }
}

/// One model's outcomes, indexed like the task list.
#[derive(Debug, Clone)]
pub struct ModelRun {
    /// Model name as written in the predictions.
    pub model: String,
    /// Outcome per task; `Extraction::Missing` where no prediction was given.
    pub outcomes: Outcomes,
    /// Tasks whose prediction carried an error.
    pub errors: usize,
    /// Tasks with no prediction at all.
    pub missing: usize,
    /// Predictions beyond the first for the same task (ignored, counted).
    pub duplicates: usize,
}

/// Characters of an unknown task's id and model kept to name it.
const MAX_ID_CHARS: usize = 200;

/// A prediction that names a task the task file does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTask {
    /// Where it is.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// The id it names (its first `MAX_ID_CHARS` characters).
    pub task_id: String,
    /// Its model (its first `MAX_ID_CHARS` characters).
    pub model: String,
}

/// Everything learned from scoring: per-model outcomes and input problems.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The tasks, in file order.
    pub tasks: Vec<Task>,
    /// One entry per model, in order of first appearance.
    pub models: Vec<ModelRun>,
    /// Malformed lines skipped under `skip_invalid` (tasks and predictions):
    /// all counted, the first few kept.
    pub skipped: FirstFew<RecordError>,
    /// Predictions for task ids not in the task file.
    pub unknown: FirstFew<UnknownTask>,
    /// Task ids that appear more than once in the task file (later ones ignored).
    pub duplicate_task_ids: Vec<String>,
    /// Task languages the language detector does not know (SPEC §3: their
    /// tasks never match).
    pub unsupported_languages: Vec<String>,
    /// The prediction files, each with the SHA-256 and length of the bytes
    /// that were scored (empty when the scores were not read from files).
    pub prediction_files: Vec<FileDigest>,
}

impl Evaluation {
    /// The evaluation of `models` on `tasks`, with nothing skipped or
    /// unknown and no prediction files (a report's, rebuilt from scores).
    pub fn of(tasks: Vec<Task>, models: Vec<ModelRun>) -> Evaluation {
        Evaluation {
            tasks,
            models,
            skipped: Default::default(),
            unknown: Default::default(),
            duplicate_task_ids: Vec::new(),
            unsupported_languages: Vec::new(),
            prediction_files: Vec::new(),
        }
    }

    /// Puts the models named in `order` first, in that order; the others
    /// keep their order after them.
    pub fn put_models_first(&mut self, order: &[String]) {
        let place = |model: &ModelRun| {
            order
                .iter()
                .position(|name| *name == model.model)
                .unwrap_or(order.len())
        };
        self.models.sort_by_key(place);
    }

    /// Per-task scores in record form, for writing out.
    pub fn task_scores(&self) -> impl Iterator<Item = TaskScore<&str>> + '_ {
        self.models.iter().flat_map(move |run| {
            self.tasks
                .iter()
                .zip(run.outcomes.iter())
                .map(move |(task, o)| TaskScore {
                    task_id: task.id.as_str(),
                    model: run.model.as_str(),
                    kind: task.kind,
                    language: task.language.as_str(),
                    country: task.country.as_str(),
                    category: task.category.as_str(),
                    format_match: o.format_match,
                    language_outcome: o.language,
                    detected_language: o.detected_language,
                    extraction: o.extraction,
                    selection: o.selection,
                    invocation: o.invocation,
                    counts: o.counts,
                    read_limits: o.read_limits,
                    steps: o.steps,
                })
        })
    }
}

/// The fields of a prediction the scorer reads, borrowed from the line where
/// possible (latency and usage are not needed to score).
#[derive(Deserialize)]
struct PredictionView<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
    #[serde(borrow)]
    model: Cow<'a, str>,
    #[serde(default, borrow)]
    output: Option<Cow<'a, str>>,
    #[serde(default)]
    calls: Option<Vec<Call>>,
    #[serde(default, borrow)]
    error: Option<Cow<'a, str>>,
    #[serde(default)]
    steps: Option<Vec<Step>>,
    #[serde(default)]
    solver: Option<SolverRecord>,
}

/// Reads tasks and scores every prediction file against them.
pub fn evaluate(
    tasks_path: &Path,
    prediction_paths: &[PathBuf],
    options: &EvalOptions,
) -> anyhow::Result<Evaluation> {
    let (all_tasks, task_errors) = read_records::<Task>(tasks_path, options.skip_invalid)?;
    let mut skipped: FirstFew<RecordError> = task_errors.into_iter().collect();
    let (tasks, duplicate_task_ids) = first_of_each_id(all_tasks);
    let index: HashMap<String, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, task)| (task.id.clone(), i))
        .collect();

    if tasks.is_empty() {
        anyhow::bail!(
            "{}: no task to score ({} invalid line(s) skipped)",
            tasks_path.display(),
            skipped.len()
        );
    }
    for path in prediction_paths {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            anyhow::bail!("{}: the prediction file is empty", path.display());
        }
    }

    let languages = LanguageDetector::for_languages(tasks.iter().map(|t| t.language.as_str()));
    let task_copy = TaskCopy::of(&tasks);
    let views = TaskViews::new(&tasks, &task_copy);
    let mut scorer = Scorer::new(&tasks, &views, &index, &languages, options);
    let mut prediction_files = Vec::with_capacity(prediction_paths.len());
    for path in prediction_paths {
        let (sha256, bytes) = if options.threads > 1 {
            parallel::score_file(path, &mut scorer, &mut skipped, options.threads)?
        } else {
            for_each_line_hashed(path, |number, line| {
                let read = scorer.read_line(path, number, line);
                scorer.apply(read, &mut skipped)
            })?
        };
        prediction_files.push(FileDigest {
            path: path.display().to_string(),
            sha256,
            bytes,
        });
    }
    scorer.release_written();
    let Scorer {
        models, unknown, ..
    } = scorer;
    if models.is_empty() && !prediction_paths.is_empty() && unknown.is_empty() {
        anyhow::bail!(
            "no prediction in {} ({} invalid line(s) skipped)",
            prediction_paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            skipped.len()
        );
    }
    let models = models
        .into_iter()
        .map(|partial| partial.finish(&tasks))
        .collect();
    Ok(Evaluation {
        tasks,
        models,
        skipped,
        unknown,
        duplicate_task_ids,
        unsupported_languages: languages.unsupported().to_vec(),
        prediction_files,
    })
}

struct PartialRun {
    model: String,
    /// Empty where no prediction was read yet.
    outcomes: Outcomes,
    /// Predictions that carried an error.
    errors: usize,
    duplicates: usize,
    /// Whether its outcomes were touched since their pages were let go.
    touched: bool,
}

impl PartialRun {
    fn finish(mut self, tasks: &[Task]) -> ModelRun {
        let mut missing = 0;
        for (i, task) in tasks.iter().enumerate() {
            if !self.outcomes.is_set(i) {
                missing += 1;
                self.outcomes
                    .set(i, &TaskOutcome::unanswered(task, Extraction::Missing));
            }
        }
        self.outcomes.release();
        ModelRun {
            model: self.model,
            outcomes: self.outcomes,
            errors: self.errors,
            missing,
            duplicates: self.duplicates,
        }
    }
}

struct Scorer<'t> {
    tasks: &'t [Task],
    /// What scoring reads of the tasks, copied together ([`view`]).
    views: &'t TaskViews<'t>,
    index: &'t HashMap<String, usize>,
    /// The task set's language detector, built once.
    languages: &'t LanguageDetector,
    options: &'t EvalOptions,
    models: Vec<PartialRun>,
    model_index: HashMap<String, usize>,
    unknown: FirstFew<UnknownTask>,
    /// Models whose outcomes were touched since the last release.
    written: Vec<usize>,
    /// Scored lines since the last release.
    since_release: usize,
}

/// Scored lines between two releases of the touched outcomes' pages. Each
/// line touches at most one page (4 KiB) of one model's outcomes, so at
/// most 16 MiB of outcomes are resident while scoring, whatever the order
/// of the lines; in the usual order (a model's answers together) a release
/// lets go of one or two models' pages.
const RELEASE_EVERY: usize = 4096;

/// What one prediction line comes to, before it is merged into the
/// per-model results (which needs the lines in file order).
enum LineResult {
    /// A prediction for a known task, scored (even if it turns out to be a duplicate).
    Scored {
        model: String,
        task_index: usize,
        outcome: TaskOutcome,
    },
    /// A prediction for a task id the task file does not have.
    Unknown(UnknownTask),
    /// A malformed line.
    Invalid(RecordError),
}

impl<'t> Scorer<'t> {
    /// A scorer with no model yet.
    fn new(
        tasks: &'t [Task],
        views: &'t TaskViews<'t>,
        index: &'t HashMap<String, usize>,
        languages: &'t LanguageDetector,
        options: &'t EvalOptions,
    ) -> Scorer<'t> {
        Scorer {
            tasks,
            views,
            index,
            languages,
            options,
            models: Vec::new(),
            model_index: HashMap::new(),
            unknown: FirstFew::new(),
            written: Vec::new(),
            since_release: 0,
        }
    }

    /// Parses and scores one line. It only reads the tasks, so worker
    /// threads can call it on shared references.
    fn read_line(&self, path: &Path, number: usize, line: &str) -> LineResult {
        let view = match serde_json::from_str::<PredictionView>(line) {
            Ok(view) => view,
            Err(_) => return LineResult::Invalid(describe_error::<Prediction>(path, number, line)),
        };
        let Some(&task_index) = self.index.get(view.task_id.as_ref()) else {
            return LineResult::Unknown(UnknownTask {
                file: path.to_path_buf(),
                line: number,
                task_id: clip(&view.task_id, MAX_ID_CHARS),
                model: clip(&view.model, MAX_ID_CHARS),
            });
        };
        let task = &self.tasks[task_index];
        let steps = view.steps.filter(|s| !s.is_empty());
        let outcome = if let Some(steps) = steps {
            let solver = view.solver.as_ref();
            score_solver_steps(self.languages, task, steps, solver, self.options.score)
        } else if view.error.is_some() && view.output.is_none() && view.calls.is_none() {
            TaskOutcome::unanswered(task, Extraction::Error)
        } else {
            score_response_on(
                self.languages,
                &self.views.view(task_index),
                view.output.as_deref(),
                view.calls.as_deref(),
                self.options.score,
            )
        };
        LineResult::Scored {
            model: view.model.into_owned(),
            task_index,
            outcome,
        }
    }

    /// Merges one line's result; lines must come in file order, so that the
    /// first prediction of a model for a task is the one kept.
    fn apply(
        &mut self,
        read: LineResult,
        skipped: &mut FirstFew<RecordError>,
    ) -> anyhow::Result<()> {
        match read {
            LineResult::Invalid(error) => {
                if !self.options.skip_invalid {
                    return Err(error.into());
                }
                skipped.push(error);
            }
            LineResult::Unknown(unknown) => self.unknown.push(unknown),
            LineResult::Scored {
                model,
                task_index,
                outcome,
            } => {
                let m = match self.model_index.get(&model) {
                    Some(&m) => m,
                    None => {
                        self.model_index.insert(model.clone(), self.models.len());
                        self.models.push(PartialRun {
                            model,
                            outcomes: Outcomes::new(self.tasks.len()),
                            errors: 0,
                            duplicates: 0,
                            touched: false,
                        });
                        self.models.len() - 1
                    }
                };
                let run = &mut self.models[m];
                if run.outcomes.is_set(task_index) {
                    run.duplicates += 1;
                } else {
                    run.errors += usize::from(outcome.extraction == Extraction::Error);
                    run.outcomes.set(task_index, &outcome);
                }
                if !run.touched {
                    run.touched = true;
                    self.written.push(m);
                }
                self.since_release += 1;
                if self.since_release == RELEASE_EVERY {
                    self.release_written();
                }
            }
        }
        Ok(())
    }

    /// Lets go of the pages of every model's outcomes touched since the
    /// last release (they stay in the scratch files).
    fn release_written(&mut self) {
        for m in self.written.drain(..) {
            self.models[m].touched = false;
            self.models[m].outcomes.release();
        }
        self.since_release = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::aggregate::{AggregateOptions, aggregate};
    use crate::spec::records::LanguageOutcome;

    #[test]
    fn listed_models_come_first_in_their_order_and_the_rest_keep_theirs() {
        let mut evaluation = run(&[("t1", "en", "hello there")], 1);
        let base = evaluation.models.pop().unwrap();
        evaluation.models = ["x", "c", "y", "a", "b"]
            .iter()
            .map(|name| ModelRun {
                model: name.to_string(),
                outcomes: base.outcomes.iter().collect(),
                errors: 0,
                missing: 0,
                duplicates: 0,
            })
            .collect();
        evaluation.put_models_first(&["a".into(), "b".into(), "c".into(), "absent".into()]);
        let names =
            |e: &Evaluation| -> Vec<String> { e.models.iter().map(|m| m.model.clone()).collect() };
        assert_eq!(names(&evaluation), ["a", "b", "c", "x", "y"]);
        evaluation.put_models_first(&[]);
        assert_eq!(names(&evaluation), ["a", "b", "c", "x", "y"]);
    }

    /// The sample set's first task, with another id and language.
    fn task_line(id: &str, language: &str) -> String {
        let sample = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/sample/tasks.jsonl"
        ));
        let mut task: Task = serde_json::from_str(sample.lines().next().unwrap()).unwrap();
        task.id = id.to_string();
        task.language = language.to_string();
        serde_json::to_string(&task).unwrap()
    }

    fn answer(id: &str, thought: &str) -> String {
        let output = serde_json::json!({"Thought": thought, "Action": "[]"}).to_string();
        serde_json::json!({"task_id": id, "model": "m", "output": output}).to_string()
    }

    /// Scores one answer per task with model `m`; tasks are `(id, language, thought)`.
    fn run(tasks: &[(&str, &str, &str)], threads: usize) -> Evaluation {
        let dir = tempfile::tempdir().unwrap();
        let tasks_path = dir.path().join("tasks.jsonl");
        let predictions = dir.path().join("predictions.jsonl");
        let lines: Vec<String> = tasks.iter().map(|(id, l, _)| task_line(id, l)).collect();
        std::fs::write(&tasks_path, lines.join("\n")).unwrap();
        let answers: Vec<String> = tasks.iter().map(|(id, _, t)| answer(id, t)).collect();
        std::fs::write(&predictions, answers.join("\n")).unwrap();
        let options = EvalOptions {
            threads,
            ..EvalOptions::default()
        };
        evaluate(&tasks_path, &[predictions], &options).unwrap()
    }

    /// The manifest's digest of a prediction file is taken as the file is
    /// scored: the whole file's bytes, byte order mark and blocks included,
    /// on one thread and on several.
    #[test]
    fn prediction_files_are_hashed_as_they_are_scored() {
        let dir = tempfile::tempdir().unwrap();
        let tasks_path = dir.path().join("tasks.jsonl");
        std::fs::write(&tasks_path, task_line("t-1", "en")).unwrap();
        let predictions = dir.path().join("predictions.jsonl");
        let line = answer("t-1", "The user wants the weather, so I will call the API.");
        let mut text = "\u{feff}".to_string();
        // Large enough to be mapped, and several of the readers' blocks.
        while text.len() <= (1 << 20) + 3 * crate::util::lines::BLOCK_BYTES {
            text += &line;
            text += "\n\n";
        }
        std::fs::write(&predictions, &text).unwrap();
        let expected = FileDigest::of(&predictions).unwrap();
        assert_eq!(expected.bytes, text.len() as u64);
        for threads in [1, 2] {
            let options = EvalOptions {
                threads,
                ..EvalOptions::default()
            };
            let evaluation =
                evaluate(&tasks_path, std::slice::from_ref(&predictions), &options).unwrap();
            assert_eq!(evaluation.prediction_files, std::slice::from_ref(&expected));
            assert_eq!(
                evaluation.models[0].duplicates,
                text.lines().count() / 2 - 1
            );
        }
    }

    /// Unknown task ids and bad lines are all counted but only the first
    /// few kept, ids clipped: a file of them cannot grow memory with its
    /// size, and the report still names the first ones in file order.
    #[test]
    fn unknown_ids_and_bad_lines_are_counted_and_the_first_few_kept() {
        let dir = tempfile::tempdir().unwrap();
        let tasks_path = dir.path().join("tasks.jsonl");
        std::fs::write(&tasks_path, task_line("t-1", "en")).unwrap();
        let predictions = dir.path().join("predictions.jsonl");
        let mut lines = vec![answer("t-1", "The user wants the weather.")];
        for i in 0..50 {
            lines.push(answer(&format!("{i}-{}", "x".repeat(10_000)), "hi"));
            lines.push(format!("{{\"task_id\": [{i}"));
        }
        std::fs::write(&predictions, lines.join("\n")).unwrap();
        for threads in [1, 2] {
            let options = EvalOptions {
                threads,
                skip_invalid: true,
                ..EvalOptions::default()
            };
            let evaluation =
                evaluate(&tasks_path, std::slice::from_ref(&predictions), &options).unwrap();
            assert_eq!(evaluation.unknown.len(), 50);
            assert_eq!(evaluation.skipped.len(), 50);
            let kept: Vec<&UnknownTask> = evaluation.unknown.iter().collect();
            assert_eq!(kept.len(), FirstFew::<UnknownTask>::KEPT);
            assert!(kept[0].task_id.starts_with("0-x") && kept[1].task_id.starts_with("1-x"));
            assert_eq!(kept[0].task_id.chars().count(), MAX_ID_CHARS + 1);
            assert_eq!(kept[0].line, 2);
            let skipped: Vec<usize> = evaluation.skipped.iter().map(|e| e.line).collect();
            assert_eq!(skipped[..3], [3, 5, 7]);
            assert_eq!(skipped.len(), FirstFew::<RecordError>::KEPT);
        }
    }

    const REFUSAL: &str = "I am sorry, but I cannot help with that request.";

    /// SPEC §3: the detector chooses among the task set's languages and the
    /// major ones. A Catalan task's Catalan Thought matches, a language
    /// whatlang does not know is reported, a Thought with no language is
    /// undetectable; in a set without Catalan, an English refusal is English.
    #[test]
    fn language_detection_chooses_among_the_task_set_languages() {
        let tasks = [
            (
                "t-ca",
                "ca",
                "L'usuari vol saber quin temps farà demà a Barcelona, així que faré servir l'eina del temps.",
            ),
            (
                "t-en",
                "en",
                "The user wants the weather in Sapporo tomorrow, so I will call the forecast API.",
            ),
            ("t-none", "en", "12345 !!!"),
            (
                "t-xx",
                "xx",
                "The user wants the weather in Barcelona tomorrow.",
            ),
        ];
        for threads in [1, 2] {
            let evaluation = run(&tasks, threads);
            let outcomes: Vec<TaskOutcome> = evaluation.models[0].outcomes.iter().collect();
            let detected: Vec<_> = outcomes.iter().map(|o| o.detected_language).collect();
            assert_eq!(detected, [Some("ca"), Some("en"), None, Some("en")]);
            assert!(outcomes[0].language.is_match() && outcomes[1].language.is_match());
            assert_eq!(outcomes[2].language, LanguageOutcome::Undetectable);
            assert!(!outcomes[3].language.is_match());
            assert_eq!(evaluation.unsupported_languages, ["xx".to_string()]);
            let summary = &aggregate(&evaluation, AggregateOptions::default())[0].summary;
            assert_eq!(summary.lm, 50.0);
            assert_eq!(summary.lm_undetectable, 1);
            let unreliable = outcomes
                .iter()
                .filter(|o| o.language.is_unreliable())
                .count();
            assert_eq!(summary.lm_unreliable, unreliable);
        }
        let english = run(&[("t-en", "en", REFUSAL), ("t-de", "de", REFUSAL)], 1);
        let outcomes: Vec<TaskOutcome> = english.models[0].outcomes.iter().collect();
        assert_eq!(outcomes[0].detected_language, Some("en"));
        assert!(outcomes[0].language.is_match());
        assert!(!outcomes[1].language.is_match());
        assert!(english.unsupported_languages.is_empty());
    }
}
