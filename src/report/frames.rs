//! The report's tables as data frames, written as CSV and as Parquet (the
//! same rows; loadable by pandas, polars and DuckDB), in long form:
//!
//! - `task_scores`: one row per task and model (its breakdown keys, format
//!   and language outcome, how the calls were read, P/R/F1, error counts);
//! - `scores`: one row per model, dimension, group and metric (`dimension`
//!   `all` for the whole task set), with the interval where there is one;
//! - `comparisons`: one row per pair of models and metric;
//! - `ranking`: one row per model;
//! - `official` (only when an input has them): one row per model and
//!   official figure of another benchmark (BFCL's categories and columns,
//!   τ³-bench's average reward and pass^k), fractions, with the interval
//!   where there is one and `value` empty for a figure not shown (N/A).

use std::path::Path;

use polars::prelude::{Column, DataFrame};

use super::Report;
use super::paired::Metric;
use crate::score::aggregate::Summary;
use crate::score::bootstrap::Interval;
use crate::score::stream::Evaluation;
use crate::spec::records::TaskScore;
use crate::util::atomic::{write_csv, write_csv_and_parquet_in_batches, write_parquet};

/// Writes every frame as `<name>.csv` and `<name>.parquet`; returns the
/// file names.
pub fn write(dir: &Path, report: &Report, evaluation: &Evaluation) -> anyhow::Result<Vec<String>> {
    write_task_scores(dir, evaluation, TASK_SCORE_BATCH)?;
    let mut written = vec![
        "task_scores.csv".to_string(),
        "task_scores.parquet".to_string(),
    ];
    let mut frames = vec![
        ("scores", scores(report)?),
        ("comparisons", comparisons(report)?),
        ("ranking", ranking(report)?),
    ];
    if !report.official.is_empty() {
        frames.push(("official", official(report)?));
    }
    for (name, mut frame) in frames {
        write_csv(&dir.join(format!("{name}.csv")), &mut frame)?;
        write_parquet(&dir.join(format!("{name}.parquet")), &mut frame)?;
        written.extend([format!("{name}.csv"), format!("{name}.parquet")]);
    }
    Ok(written)
}

/// Writes every frame of a report over several task sets, each the rows
/// of every set with a first column `task_set` naming it; returns the file
/// names.
pub fn write_sets(dir: &Path, sections: &[super::Section]) -> anyhow::Result<Vec<String>> {
    let sets: Vec<(&str, &Evaluation)> = sections
        .iter()
        .map(|s| (s.name.as_str(), &s.evaluation))
        .collect();
    write_task_scores_of(dir, &sets, true, TASK_SCORE_BATCH)?;
    let mut written = vec![
        "task_scores.csv".to_string(),
        "task_scores.parquet".to_string(),
    ];
    let mut kinds: Vec<(&str, FrameOf)> = vec![
        ("scores", scores),
        ("comparisons", comparisons),
        ("ranking", ranking),
    ];
    if sections.iter().any(|s| !s.report.official.is_empty()) {
        kinds.push(("official", official));
    }
    for (name, frame_of) in kinds {
        let mut all: Option<DataFrame> = None;
        for s in sections {
            let mut frame = frame_of(&s.report)?;
            let column = vec![s.name.as_str(); frame.height()];
            frame.insert_column(0, Column::new(TASK_SET_COLUMN.into(), column))?;
            all = Some(match all {
                None => frame,
                Some(before) => before.vstack(&frame)?,
            });
        }
        let mut frame = all.unwrap_or_default();
        write_csv(&dir.join(format!("{name}.csv")), &mut frame)?;
        write_parquet(&dir.join(format!("{name}.parquet")), &mut frame)?;
        written.extend([format!("{name}.csv"), format!("{name}.parquet")]);
    }
    Ok(written)
}

/// How a frame is made of a report.
type FrameOf = fn(&Report) -> anyhow::Result<DataFrame>;

/// The column naming each row's task set in a report over several.
const TASK_SET_COLUMN: &str = "task_set";

/// Rows of `task_scores` in memory at once (one Parquet row group): a
/// study of 200 models × 5,000 tasks has a million.
const TASK_SCORE_BATCH: usize = 65_536;

/// `task_scores.csv` and `.parquet`, `batch_rows` rows at a time.
fn write_task_scores(dir: &Path, evaluation: &Evaluation, batch_rows: usize) -> anyhow::Result<()> {
    write_task_scores_of(dir, &[("", evaluation)], false, batch_rows)
}

/// `task_scores.csv` and `.parquet` of the rows of each (task set,
/// evaluation), `batch_rows` rows at a time; with `named`, a first column
/// [`TASK_SET_COLUMN`] names each row's task set.
fn write_task_scores_of(
    dir: &Path,
    sets: &[(&str, &Evaluation)],
    named: bool,
    batch_rows: usize,
) -> anyhow::Result<()> {
    let mut rows = sets
        .iter()
        .flat_map(|&(name, e)| e.task_scores().map(move |row| (name, row)));
    let mut first = true;
    write_csv_and_parquet_in_batches(
        &dir.join("task_scores.csv"),
        &dir.join("task_scores.parquet"),
        || {
            let (names, batch): (Vec<&str>, Vec<_>) = rows.by_ref().take(batch_rows).unzip();
            if batch.is_empty() && !std::mem::replace(&mut first, false) {
                return Ok(None);
            }
            let mut frame = task_scores(&batch)?;
            if named {
                frame.insert_column(0, Column::new(TASK_SET_COLUMN.into(), names))?;
            }
            Ok(Some(frame))
        },
    )
}

fn strings<'a>(name: &str, values: impl Iterator<Item = &'a str>) -> Column {
    Column::new(name.into(), values.collect::<Vec<_>>())
}

/// One row per task and model, of the given rows.
fn task_scores(rows: &[TaskScore<&str>]) -> anyhow::Result<DataFrame> {
    let floats = |name: &str, get: fn(&TaskScore<&str>) -> f64| {
        Column::new(name.into(), rows.iter().map(get).collect::<Vec<_>>())
    };
    let counts = |name: &str, get: fn(&TaskScore<&str>) -> u32| {
        Column::new(name.into(), rows.iter().map(get).collect::<Vec<_>>())
    };
    let columns = vec![
        strings("task_id", rows.iter().map(|r| r.task_id)),
        strings("model", rows.iter().map(|r| r.model)),
        strings("kind", rows.iter().map(|r| r.kind.as_str())),
        strings("language", rows.iter().map(|r| r.language)),
        strings("country", rows.iter().map(|r| r.country)),
        strings("category", rows.iter().map(|r| r.category)),
        Column::new(
            "format_match".into(),
            rows.iter().map(|r| r.format_match).collect::<Vec<_>>(),
        ),
        strings(
            "language_outcome",
            rows.iter().map(|r| r.language_outcome.as_str()),
        ),
        strings("extraction", rows.iter().map(|r| r.extraction.as_str())),
        floats("selection_p", |r| r.selection.p),
        floats("selection_r", |r| r.selection.r),
        floats("selection_f1", |r| r.selection.f1),
        floats("invocation_p", |r| r.invocation.p),
        floats("invocation_r", |r| r.invocation.r),
        floats("invocation_f1", |r| r.invocation.f1),
        counts("hall", |r| r.counts.hall),
        counts("mis", |r| r.counts.mis),
        counts("ex", |r| r.counts.ex),
        counts("incor", |r| r.counts.incor),
        counts("miss", |r| r.counts.miss),
        counts("ext", |r| r.counts.ext),
    ];
    Ok(DataFrame::new(rows.len(), columns)?)
}

/// The metrics of a summary in the long frame: name, value, interval.
fn metrics(s: &Summary) -> Vec<(&'static str, f64, Option<Interval>)> {
    let ci = s.ci;
    vec![
        (
            Metric::SelectionF1.as_str(),
            s.selection.f1,
            ci.map(|c| c.selection_f1),
        ),
        (
            Metric::InvocationF1.as_str(),
            s.invocation.f1,
            ci.map(|c| c.invocation_f1),
        ),
        (Metric::Lm.as_str(), s.lm, ci.map(|c| c.lm)),
        (Metric::Fm.as_str(), s.fm, ci.map(|c| c.fm)),
        ("selection_p", s.selection.p, None),
        ("selection_r", s.selection.r, None),
        ("invocation_p", s.invocation.p, None),
        ("invocation_r", s.invocation.r, None),
        ("selection_micro_f1", s.selection_micro.f1, None),
        ("invocation_micro_f1", s.invocation_micro.f1, None),
        ("hall", s.selection_errors.hall, None),
        ("mis", s.selection_errors.mis, None),
        ("ex", s.selection_errors.ex, None),
        ("incor", s.invocation_errors.incor, None),
        ("miss", s.invocation_errors.miss, None),
        ("ext", s.invocation_errors.ext, None),
    ]
}

/// One row per model, dimension, group and metric.
pub fn scores(report: &Report) -> anyhow::Result<DataFrame> {
    struct Row<'a> {
        model: &'a str,
        dimension: &'a str,
        group: &'a str,
        tasks: u64,
        metric: &'static str,
        value: f64,
        ci: Option<Interval>,
    }
    let mut rows: Vec<Row> = Vec::new();
    for m in &report.models {
        let mut groups = vec![("all", "all", &m.summary)];
        for b in &m.breakdowns {
            groups.extend(
                b.groups
                    .iter()
                    .map(|(g, s)| (b.dimension.as_str(), g.as_str(), s)),
            );
        }
        for (dimension, group, s) in groups {
            for (metric, value, ci) in metrics(s) {
                rows.push(Row {
                    model: &m.model,
                    dimension,
                    group,
                    tasks: s.n as u64,
                    metric,
                    value,
                    ci,
                });
            }
        }
    }
    let columns = vec![
        strings("model", rows.iter().map(|r| r.model)),
        strings("dimension", rows.iter().map(|r| r.dimension)),
        strings("group", rows.iter().map(|r| r.group)),
        Column::new(
            "tasks".into(),
            rows.iter().map(|r| r.tasks).collect::<Vec<_>>(),
        ),
        strings("metric", rows.iter().map(|r| r.metric)),
        Column::new(
            "value".into(),
            rows.iter().map(|r| r.value).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_lo".into(),
            rows.iter().map(|r| r.ci.map(|c| c.lo)).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_hi".into(),
            rows.iter().map(|r| r.ci.map(|c| c.hi)).collect::<Vec<_>>(),
        ),
    ];
    Ok(DataFrame::new(rows.len(), columns)?)
}

/// One row per pair and metric.
pub fn comparisons(report: &Report) -> anyhow::Result<DataFrame> {
    let c = &report.comparisons;
    let columns = vec![
        strings("a", c.iter().map(|c| c.a.as_str())),
        strings("b", c.iter().map(|c| c.b.as_str())),
        strings("metric", c.iter().map(|c| c.metric.as_str())),
        Column::new("diff".into(), c.iter().map(|c| c.diff).collect::<Vec<_>>()),
        Column::new(
            "ci_lo".into(),
            c.iter().map(|c| c.ci.lo).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_hi".into(),
            c.iter().map(|c| c.ci.hi).collect::<Vec<_>>(),
        ),
        Column::new(
            "p_value".into(),
            c.iter().map(|c| c.p_value).collect::<Vec<_>>(),
        ),
        Column::new(
            "p_holm".into(),
            c.iter().map(|c| c.p_holm).collect::<Vec<_>>(),
        ),
        Column::new(
            "significant".into(),
            c.iter().map(|c| c.significant()).collect::<Vec<_>>(),
        ),
        Column::new(
            "tasks".into(),
            c.iter().map(|c| c.tasks as u64).collect::<Vec<_>>(),
        ),
    ];
    Ok(DataFrame::new(c.len(), columns)?)
}

/// One row per model and official figure (fractions).
pub fn official(report: &Report) -> anyhow::Result<DataFrame> {
    let f = &report.official;
    let columns = vec![
        strings("model", f.iter().map(|f| f.model.as_str())),
        strings("benchmark", f.iter().map(|f| f.benchmark.as_str())),
        strings("figure", f.iter().map(|f| f.name.as_str())),
        Column::new(
            "value".into(),
            f.iter()
                .map(|f| f.shown.then_some(f.value))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_lo".into(),
            f.iter()
                .map(|f| f.interval.map(|c| c.0))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_hi".into(),
            f.iter()
                .map(|f| f.interval.map(|c| c.1))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "correct".into(),
            f.iter().map(|f| f.correct).collect::<Vec<_>>(),
        ),
        Column::new(
            "total".into(),
            f.iter().map(|f| f.total).collect::<Vec<_>>(),
        ),
    ];
    Ok(DataFrame::new(f.len(), columns)?)
}

/// One row per model, best first.
pub fn ranking(report: &Report) -> anyhow::Result<DataFrame> {
    let r = &report.ranking;
    let columns = vec![
        Column::new(
            "rank".into(),
            r.iter().map(|r| r.rank as u64).collect::<Vec<_>>(),
        ),
        strings("model", r.iter().map(|r| r.model.as_str())),
        strings("metric", r.iter().map(|_| report.rank_by.as_str())),
        Column::new(
            "score".into(),
            r.iter().map(|r| r.score).collect::<Vec<_>>(),
        ),
    ];
    Ok(DataFrame::new(r.len(), columns)?)
}

#[cfg(test)]
mod tests {
    use polars::prelude::{ParquetReader, SerReader};

    use super::*;
    use crate::score::stream::{ModelRun, TaskOutcome};
    use crate::spec::records::{Extraction, Gold, LanguageOutcome, Prf, Task, TaskKind};

    fn evaluation(tasks: usize, models: usize) -> Evaluation {
        let tasks: Vec<Task> = (0..tasks)
            .map(|i| Task {
                id: format!("t{i}"),
                kind: TaskKind::Single,
                language: ["en", "de", "ar"][i % 3].into(),
                country: "X".into(),
                category: "C".into(),
                query: String::new(),
                tools: Vec::new(),
                gold: Gold::default(),
                turns: Vec::new(),
            })
            .collect();
        let models = (0..models)
            .map(|m| ModelRun {
                model: format!("m{m}"),
                outcomes: tasks
                    .iter()
                    .enumerate()
                    .map(|(i, t)| match (i + m) % 3 {
                        0 => TaskOutcome::unanswered(t, Extraction::Missing),
                        k => TaskOutcome {
                            format_match: k == 1,
                            language: LanguageOutcome::Match,
                            detected_language: None,
                            extraction: Extraction::Strict,
                            selection: Prf {
                                p: 0.5,
                                r: 1.0,
                                f1: 2.0 / 3.0,
                            },
                            invocation: Prf {
                                p: 1.0,
                                r: 1.0,
                                f1: 1.0,
                            },
                            counts: Default::default(),
                            read_limits: Default::default(),
                            steps: None,
                        },
                    })
                    .collect(),
                errors: 0,
                missing: 0,
                duplicates: 0,
            })
            .collect();
        Evaluation::of(tasks, models)
    }

    fn read_parquet(path: &Path) -> DataFrame {
        ParquetReader::new(std::fs::File::open(path).unwrap())
            .finish()
            .unwrap()
    }

    #[test]
    fn task_scores_in_batches_are_the_table_in_one_piece() {
        let evaluation = evaluation(7, 3);
        let whole = tempfile::tempdir().unwrap();
        let mut frame = task_scores(&evaluation.task_scores().collect::<Vec<_>>()).unwrap();
        assert_eq!(frame.height(), 21);
        write_csv(&whole.path().join("t.csv"), &mut frame).unwrap();
        write_parquet(&whole.path().join("t.parquet"), &mut frame).unwrap();
        let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
        for batch_rows in [4, 7, 21, 1000] {
            let dir = tempfile::tempdir().unwrap();
            write_task_scores(dir.path(), &evaluation, batch_rows).unwrap();
            assert_eq!(
                read(dir.path(), "task_scores.csv"),
                read(whole.path(), "t.csv"),
                "{batch_rows} rows a batch"
            );
            let parquet = dir.path().join("task_scores.parquet");
            assert!(read_parquet(&parquet).equals(&frame), "{batch_rows}");
            if batch_rows >= 21 {
                assert_eq!(
                    read(dir.path(), "task_scores.parquet"),
                    read(whole.path(), "t.parquet")
                );
            }
        }
    }

    #[test]
    fn an_empty_evaluation_writes_the_header() {
        let dir = tempfile::tempdir().unwrap();
        write_task_scores(dir.path(), &evaluation(0, 2), 4).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("task_scores.csv")).unwrap();
        assert!(csv.starts_with("task_id,model,kind,"), "{csv}");
        assert_eq!(csv.lines().count(), 1);
        assert_eq!(
            read_parquet(&dir.path().join("task_scores.parquet")).height(),
            0
        );
    }
}
