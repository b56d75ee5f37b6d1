//! Reports: the Table-2-shaped summary and Table-3-shaped error table in the
//! terminal ([`crate::util::table`]), one JSON object per model, and output files (per-task
//! scores as JSONL, summary and breakdowns as CSV through polars).

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::score::aggregate::{FM_NOT_APPLICABLE, FM_NOTE, ModelReport, Summary};
use crate::score::bootstrap::Interval;
use crate::score::stream::Evaluation;
use crate::spec::jsonl::write_lines;
use crate::spec::records::repeated_ids_note;
use crate::util::atomic::{self, write_csv};
use crate::util::table::{Table, num};
use anyhow::Context;
use polars::prelude::{Column, DataFrame};
use serde::Serialize;

fn fmt_ci(ci: Option<Interval>) -> String {
    ci.map_or_else(
        || "-".to_string(),
        |i| format!("{}–{}", num(i.lo), num(i.hi)),
    )
}

/// Table 2 of the ITC paper: LM, FM, selection and invocation P/R/F1 (macro,
/// %). `wide`: one table whatever its width (see [`crate::util::table`]).
pub fn main_table(reports: &[ModelReport], wide: bool) -> String {
    let mut t = Table::new([
        "Model", "LM", "FM", "Sel. P", "Sel. R", "Sel. F1", "Inv. P", "Inv. R", "Inv. F1",
    ]);
    for r in reports {
        let s = &r.summary;
        t.push([
            r.model.clone(),
            num(s.lm),
            fm_cell(s, num),
            num(s.selection.p),
            num(s.selection.r),
            num(s.selection.f1),
            num(s.invocation.p),
            num(s.invocation.r),
            num(s.invocation.f1),
        ]);
    }
    let mut text = t.render(wide);
    if let Some(note) = fm_note(reports.iter().map(|r| &r.summary)) {
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// FM's cell in a table: the figure as `show` writes it, or
/// [`FM_NOT_APPLICABLE`] where FM does not apply ([`Summary::fm_applies`]).
pub fn fm_cell(s: &Summary, show: impl FnOnce(f64) -> String) -> String {
    match s.fm_applies() {
        true => show(s.fm),
        false => FM_NOT_APPLICABLE.to_string(),
    }
}

/// The note a table with an FM cell of [`FM_NOT_APPLICABLE`] carries under it.
pub fn fm_note<'a>(mut summaries: impl Iterator<Item = &'a Summary>) -> Option<&'static str> {
    summaries.any(|s| !s.fm_applies()).then_some(FM_NOTE)
}

/// Table 3's six error types, abbreviated as its headers: hallucinated,
/// missed, extra tool; incorrect, missing, extra value.
pub const ERROR_HEADER: [&str; 6] = ["Hall.", "Mis.", "Ex.", "Incor.", "Miss.", "Ext."];

/// Table 3 of the ITC paper: shares (%) of selection and invocation errors.
pub fn error_table(reports: &[ModelReport], wide: bool) -> String {
    let mut t = Table::new(std::iter::once("Model").chain(ERROR_HEADER));
    for r in reports {
        let (s, i) = (&r.summary.selection_errors, &r.summary.invocation_errors);
        t.push([
            r.model.clone(),
            num(s.hall),
            num(s.mis),
            num(s.ex),
            num(i.incor),
            num(i.miss),
            num(i.ext),
        ]);
    }
    t.render(wide)
}

/// Counts and intervals that qualify the headline numbers: in two tables
/// (counts; intervals and micro averages) unless `wide`.
pub fn detail_table(reports: &[ModelReport], wide: bool) -> String {
    let mut t = Table::new([
        "Model",
        "Tasks",
        "Errors",
        "Missing",
        "Dup.",
        "LM unrel.",
        "LM undet.",
        "Sel. F1 95% CI",
        "Inv. F1 95% CI",
        "Sel. F1 micro",
        "Inv. F1 micro",
    ])
    .with_groups([("Counts", 6), ("Intervals and micro averages (%)", 4)]);
    for r in reports {
        let s = &r.summary;
        t.push([
            r.model.clone(),
            s.n.to_string(),
            s.errors.to_string(),
            s.missing.to_string(),
            r.duplicates.to_string(),
            s.lm_unreliable.to_string(),
            s.lm_undetectable.to_string(),
            fmt_ci(s.ci.map(|c| c.selection_f1)),
            fmt_ci(s.ci.map(|c| c.invocation_f1)),
            num(s.selection_micro.f1),
            num(s.invocation_micro.f1),
        ]);
    }
    t.render(wide)
}

/// The terminal report of `itc score` and `itc eval`: a heading naming the
/// task set (`tasks`), then Tables 2 and 3 and the details.
pub fn write_tables(
    out: &mut dyn Write,
    tasks: &str,
    evaluation: &Evaluation,
    reports: &[ModelReport],
    wide: bool,
) -> std::io::Result<()> {
    writeln!(out, "Tool calling on {tasks}")?;
    writeln!(
        out,
        "{} tasks, {} model(s); rates in %, macro averages\n",
        evaluation.tasks.len(),
        reports.len()
    )?;
    writeln!(out, "{}\n", main_table(reports, wide))?;
    writeln!(out, "Error analysis (shares of each group's errors, %)\n")?;
    writeln!(out, "{}\n", error_table(reports, wide))?;
    writeln!(out, "{}", detail_table(reports, wide))?;
    if let Some(steps) = step_table(reports, wide) {
        writeln!(
            out,
            "\nStep by step (SPEC §6): each step's calls against the same gold step\n"
        )?;
        writeln!(out, "{steps}")?;
    }
    Ok(())
}

/// Step F1 per model, when some model answered step by step (SPEC §6); its
/// breakdowns are in the `step_f1` column of the CSV files.
pub fn step_table(reports: &[ModelReport], wide: bool) -> Option<String> {
    if reports.iter().all(|r| r.summary.step_tasks == 0) {
        return None;
    }
    let executed = reports.iter().any(|r| r.summary.execution.is_some());
    let mut header = vec!["Model", "Tasks in steps", "Step F1"];
    if executed {
        header.extend(["Calls executed", "Tasks executed"]);
    }
    let mut t = Table::new(header);
    for r in reports {
        let s = &r.summary;
        let mut row = vec![
            r.model.clone(),
            s.step_tasks.to_string(),
            s.step_f1.map_or_else(|| "—".to_string(), num),
        ];
        if executed {
            row.extend(execution_cells(s));
        }
        t.push(row);
    }
    Some(t.render(wide))
}

/// The execution shares of a summary with their counts (`90.00 (9/10)`),
/// or dashes for a run that executed nothing.
pub fn execution_cells(s: &Summary) -> [String; 2] {
    match s.execution {
        Some(e) => [
            format!(
                "{} ({}/{})",
                num(s.executed_calls.unwrap_or(0.0)),
                e.executed,
                e.calls
            ),
            format!(
                "{} ({}/{})",
                num(s.executed_tasks.unwrap_or(0.0)),
                e.tasks_executed,
                e.tasks
            ),
        ],
        None => ["—".to_string(), "—".to_string()],
    }
}

/// The JSON object printed per model by `--format json`.
#[derive(Serialize)]
pub struct ModelJson<'a> {
    /// Model name.
    pub model: &'a str,
    /// Every headline aggregate (rates in percent).
    #[serde(flatten)]
    pub summary: &'a Summary,
    /// Ignored duplicate predictions.
    pub duplicates: usize,
}

/// One JSON object per model, one per line.
pub fn json_lines(reports: &[ModelReport]) -> String {
    reports
        .iter()
        .map(|r| {
            let object = ModelJson {
                model: &r.model,
                summary: &r.summary,
                duplicates: r.duplicates,
            };
            serde_json::to_string(&object).expect("summaries serialize") + "\n"
        })
        .collect()
}

/// A column of the summary CSVs: its header and how to read it.
type SummaryColumn = (&'static str, fn(&Summary) -> f64);

const SUMMARY_COLUMNS: &[SummaryColumn] = &[
    ("lm", |s| s.lm),
    ("fm", |s| s.fm),
    ("selection_p", |s| s.selection.p),
    ("selection_r", |s| s.selection.r),
    ("selection_f1", |s| s.selection.f1),
    ("invocation_p", |s| s.invocation.p),
    ("invocation_r", |s| s.invocation.r),
    ("invocation_f1", |s| s.invocation.f1),
    ("selection_micro_p", |s| s.selection_micro.p),
    ("selection_micro_r", |s| s.selection_micro.r),
    ("selection_micro_f1", |s| s.selection_micro.f1),
    ("invocation_micro_p", |s| s.invocation_micro.p),
    ("invocation_micro_r", |s| s.invocation_micro.r),
    ("invocation_micro_f1", |s| s.invocation_micro.f1),
    ("hall", |s| s.selection_errors.hall),
    ("mis", |s| s.selection_errors.mis),
    ("ex", |s| s.selection_errors.ex),
    ("incor", |s| s.invocation_errors.incor),
    ("miss", |s| s.invocation_errors.miss),
    ("ext", |s| s.invocation_errors.ext),
    ("lm_ci_lo", |s| s.ci.map_or(f64::NAN, |c| c.lm.lo)),
    ("lm_ci_hi", |s| s.ci.map_or(f64::NAN, |c| c.lm.hi)),
    ("fm_ci_lo", |s| s.ci.map_or(f64::NAN, |c| c.fm.lo)),
    ("fm_ci_hi", |s| s.ci.map_or(f64::NAN, |c| c.fm.hi)),
    ("selection_f1_ci_lo", |s| {
        s.ci.map_or(f64::NAN, |c| c.selection_f1.lo)
    }),
    ("selection_f1_ci_hi", |s| {
        s.ci.map_or(f64::NAN, |c| c.selection_f1.hi)
    }),
    ("invocation_f1_ci_lo", |s| {
        s.ci.map_or(f64::NAN, |c| c.invocation_f1.lo)
    }),
    ("invocation_f1_ci_hi", |s| {
        s.ci.map_or(f64::NAN, |c| c.invocation_f1.hi)
    }),
    ("step_f1", |s| s.step_f1.unwrap_or(f64::NAN)),
];

type CountColumn = (&'static str, fn(&Summary) -> u64);

const COUNT_COLUMNS: &[CountColumn] = &[
    ("n", |s| s.n as u64),
    ("errors", |s| s.errors as u64),
    ("missing", |s| s.missing as u64),
    ("lm_unreliable", |s| s.lm_unreliable as u64),
    ("lm_undetectable", |s| s.lm_undetectable as u64),
];

/// A data frame with one row per `(model, group, summary)`.
pub fn summary_frame(rows: &[(&str, Option<&str>, &Summary)]) -> anyhow::Result<DataFrame> {
    let mut columns = vec![Column::new(
        "model".into(),
        rows.iter().map(|(m, _, _)| *m).collect::<Vec<_>>(),
    )];
    if rows.iter().any(|(_, g, _)| g.is_some()) {
        columns.push(Column::new(
            "group".into(),
            rows.iter()
                .map(|(_, g, _)| g.unwrap_or(""))
                .collect::<Vec<_>>(),
        ));
    }
    for (name, get) in COUNT_COLUMNS {
        columns.push(Column::new(
            (*name).into(),
            rows.iter().map(|(_, _, s)| get(s)).collect::<Vec<_>>(),
        ));
    }
    for (name, get) in SUMMARY_COLUMNS {
        columns.push(Column::new(
            (*name).into(),
            rows.iter().map(|(_, _, s)| get(s)).collect::<Vec<_>>(),
        ));
    }
    Ok(DataFrame::new(rows.len(), columns)?)
}

/// Writes `task_scores.jsonl` into `dir` (made if missing), streamed: one
/// record in memory at a time, whatever the number of predictions. It needs
/// no aggregate, so it can be written while they are computed. Returns the
/// file's name.
pub fn write_task_scores(dir: &Path, evaluation: &Evaluation) -> anyhow::Result<String> {
    fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let task_scores = dir.join("task_scores.jsonl");
    write_lines(&task_scores, evaluation.task_scores(), |row, out| {
        row.write_json(out)
    })
    .with_context(|| format!("writing {}", task_scores.display()))?;
    Ok("task_scores.jsonl".to_string())
}

/// Writes `summary.csv`, `summary.json` and one `by_<dimension>.csv` per
/// breakdown into `dir` (made if missing). Returns the files written.
pub fn write_summaries(dir: &Path, reports: &[ModelReport]) -> anyhow::Result<Vec<String>> {
    fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let rows: Vec<_> = reports
        .iter()
        .map(|r| (r.model.as_str(), None, &r.summary))
        .collect();
    write_csv(&dir.join("summary.csv"), &mut summary_frame(&rows)?)?;
    written.push("summary.csv".to_string());

    // Streamed: the text (about 80 KB a model) is never held whole.
    let path = dir.join("summary.json");
    let mut file = atomic::AtomicFile::create(&path)?;
    serde_json::to_writer_pretty(&mut file, reports)
        .map_err(anyhow::Error::from)
        .and_then(|()| Ok(file.write_all(b"\n")?))
        .with_context(|| format!("writing {}", path.display()))?;
    file.commit()?;
    written.push("summary.json".to_string());

    let dimensions = reports.first().map_or(0, |r| r.breakdowns.len());
    for d in 0..dimensions {
        let name = reports[0].breakdowns[d].dimension.as_str();
        let rows: Vec<_> = reports
            .iter()
            .flat_map(|r| {
                r.breakdowns[d]
                    .groups
                    .iter()
                    .map(move |(g, s)| (r.model.as_str(), Some(g.as_str()), s))
            })
            .collect();
        let file = format!("by_{name}.csv");
        write_csv(&dir.join(&file), &mut summary_frame(&rows)?)?;
        written.push(file);
    }
    Ok(written)
}

/// Models listed one per line by [`input_problems`] before it sums them up.
pub const MAX_MODEL_LINES: usize = 5;

/// What went wrong with the inputs, one line each, for the terminal.
pub fn input_problems(evaluation: &Evaluation, reports: &[ModelReport]) -> Vec<String> {
    let mut lines = Vec::new();
    if !evaluation.skipped.is_empty() {
        lines.push(format!(
            "skipped {} invalid line(s):",
            evaluation.skipped.len()
        ));
        lines.extend(evaluation.skipped.iter().take(20).map(|e| format!("  {e}")));
    }
    if !evaluation.duplicate_task_ids.is_empty() {
        lines.push(repeated_ids_note(
            "the task file",
            &evaluation.duplicate_task_ids,
        ));
    }
    if !evaluation.unknown.is_empty() {
        lines.push(format!(
            "{} prediction(s) for unknown task ids (ignored):",
            evaluation.unknown.len()
        ));
        lines.extend(evaluation.unknown.iter().take(20).map(|u| {
            format!(
                "  {}:{}: task_id {:?} (model {})",
                u.file.display(),
                u.line,
                u.task_id,
                u.model
            )
        }));
    }
    let troubled: Vec<&ModelReport> = reports
        .iter()
        .filter(|r| r.summary.missing > 0 || r.summary.errors > 0 || r.duplicates > 0)
        .collect();
    // Past a handful of models, one line per model drowns the tables: sum
    // them up and name the first few (the JSON output has every count).
    let shown = if troubled.len() > MAX_MODEL_LINES {
        let (missing, errors, duplicates) = troubled.iter().fold((0, 0, 0), |acc, r| {
            (
                acc.0 + r.summary.missing,
                acc.1 + r.summary.errors,
                acc.2 + r.duplicates,
            )
        });
        lines.push(format!(
            "{} of {} models: {missing} task(s) without a prediction, {errors} errored (scored 0), {duplicates} duplicate(s); first {MAX_MODEL_LINES}:",
            troubled.len(),
            reports.len()
        ));
        &troubled[..MAX_MODEL_LINES]
    } else {
        &troubled[..]
    };
    for r in shown {
        let s = &r.summary;
        lines.push(format!(
            "{}: {} task(s) without a prediction, {} errored (scored 0), {} duplicate(s) ignored",
            r.model, s.missing, s.errors, r.duplicates
        ));
    }
    if !evaluation.unsupported_languages.is_empty() {
        lines.push(format!(
            "task language(s) the language detector does not know (LM never matches): {}",
            evaluation.unsupported_languages.join(", ")
        ));
    }
    lines
}
