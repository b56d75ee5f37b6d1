//! `report.md`: the report as Markdown tables, to paste into a paper or a
//! pull request. Rates in percent with two decimals; intervals in brackets.
//!
//! Text from the inputs (model names, folders, languages, countries,
//! categories) goes through [`escape`] wherever it is put: a viewer that
//! renders the file must neither run HTML from it nor see a table broken
//! by it. Numbers and the report's own words are written as they are.

use std::fmt::Write as _;

use super::Report;
use crate::score::aggregate::Summary;
use crate::score::bootstrap::Interval;
use crate::score::report::{fm_cell, fm_note};

/// Text from an input file, safe to put into Markdown, in a table cell or a
/// heading: `<`, `>` and `&` as HTML entities (no tag, no entity of the
/// input's own survives); backticks, pipes, square brackets and backslashes
/// escaped with a backslash (no code span or link opens, no cell ends, and
/// the input's own backslash escapes none of ours); each line break
/// (`\r\n`, `\n`, `\r`) a space (no row or heading ends).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' | '|' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A Markdown table: header, alignment row (the first `text` columns left,
/// the numbers right), rows. Cells are written as given: text from the
/// inputs must already be [`escape`]d.
fn table(out: &mut String, text: usize, header: &[&str], rows: &[Vec<String>]) {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push_str(&line(header.iter().map(|h| h.to_string()).collect()));
    let align = header
        .iter()
        .enumerate()
        .map(|(i, _)| if i < text { "---" } else { "---:" }.to_string())
        .collect();
    out.push_str(&line(align));
    for row in rows {
        out.push_str(&line(row.clone()));
    }
    out.push('\n');
}

/// A p-value for a table: below the bootstrap's resolution (no resample on
/// the other side of zero) it is written `< 1/B`.
pub fn p_text(p: f64, resamples: usize) -> String {
    if p == 0.0 {
        format!("< {}", 1.0 / resamples.max(1) as f64)
    } else {
        format!("{p:.4}")
    }
}

fn pct(x: f64) -> String {
    format!("{x:.2}")
}

fn with_ci(value: f64, ci: Option<Interval>) -> String {
    match ci {
        Some(i) => format!("{value:.2} [{:.2}, {:.2}]", i.lo, i.hi),
        None => pct(value),
    }
}

/// A headline row of `s`, a summary of the model whose overall summary is
/// `model` (FM is N/A in every row of a model it does not apply to).
fn headline_row(label: Vec<String>, s: &Summary, model: &Summary) -> Vec<String> {
    let ci = s.ci;
    let mut row = label;
    row.extend([
        s.n.to_string(),
        with_ci(s.selection.f1, ci.map(|c| c.selection_f1)),
        with_ci(s.invocation.f1, ci.map(|c| c.invocation_f1)),
        with_ci(s.lm, ci.map(|c| c.lm)),
        fm_cell(model, |_| with_ci(s.fm, ci.map(|c| c.fm))),
    ]);
    row
}

/// The whole report as Markdown.
pub fn render(report: &Report) -> String {
    let mut out = format!("# {}\n\n", escape(&report.title));
    let _ = writeln!(
        out,
        "{} task(s){}, {} model(s). Rates in %; 95% intervals from a seeded paired Poisson bootstrap ({} resamples, seed {}).\n",
        report.tasks,
        if report.shared_tasks_only {
            " shared by every input (the inputs' task sets differ)"
        } else {
            ""
        },
        report.models.len(),
        report.resamples,
        report.seed
    );
    inputs(&mut out, report);
    settings(&mut out, report);
    summary(&mut out, report);
    judged(&mut out, report);
    official(&mut out, report);
    ranking(&mut out, report);
    comparisons(&mut out, report);
    breakdowns(&mut out, report);
    out
}

/// A report over several task sets: the title, then a section per set,
/// headed by its name and size, holding what [`render`] writes of it (its
/// headings a level down).
pub fn render_sets(title: &str, sections: &[super::Section]) -> String {
    let mut out = format!("# {}\n\n", escape(title));
    let _ = writeln!(
        out,
        "{} task sets, a section each; models are compared within a task set only.\n",
        sections.len()
    );
    for s in sections {
        let _ = writeln!(out, "## {}\n", s.heading(escape));
        let whole = render(&s.report);
        let body = whole.split_once("\n\n").map_or("", |(_, body)| body);
        for line in body.split_inclusive('\n') {
            if line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
        }
    }
    out
}

/// Judged task success (SPEC §8), apart from §3's scores.
fn judged(out: &mut String, report: &Report) {
    if report.judged.is_empty() {
        return;
    }
    out.push_str("## Judged task success\n\nFigures of judge models (`itc judge`, SPEC §8), beside the scores above and never mixed into them.\n\n");
    let rows: Vec<Vec<String>> = super::judged::rows(&report.judged)
        .into_iter()
        .map(|row| row.iter().map(|cell| escape(cell)).collect())
        .collect();
    table(out, 4, &super::judged::HEADER, &rows);
}

/// Other benchmarks' official figures (BFCL), apart from §3's scores.
fn official(out: &mut String, report: &Report) {
    if report.official.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Official scores\n\n{}\n",
        escape(&super::official::intro(&report.official))
    );
    let rows: Vec<Vec<String>> = super::official::rows(&report.official)
        .into_iter()
        .map(|row| row.iter().map(|cell| escape(cell)).collect())
        .collect();
    table(out, 3, &super::official::HEADER, &rows);
    let lines = super::official::completeness(&report.official);
    for line in &lines {
        let _ = writeln!(out, "- {}", escape(line));
    }
    if !lines.is_empty() {
        out.push('\n');
    }
}

fn inputs(out: &mut String, report: &Report) {
    out.push_str("## Inputs\n\n");
    let rows: Vec<Vec<String>> = report
        .inputs
        .iter()
        .map(|i| {
            vec![
                escape(&i.dir),
                i.models
                    .iter()
                    .map(|m| escape(m))
                    .collect::<Vec<_>>()
                    .join(", "),
                i.task_set_sha256.as_deref().map_or("unknown".into(), |h| {
                    format!("`{}`", h.get(..16).unwrap_or(h))
                }),
                i.manifest.as_deref().map_or("none".into(), escape),
            ]
        })
        .collect();
    table(out, 4, &["Folder", "Models", "Task set", "Manifest"], &rows);
    not_used(out, report);
}

/// Each model's settings as its input records them.
fn settings(out: &mut String, report: &Report) {
    out.push_str("## Models\n\nEach model's settings as its input records them; — where unknown. Times in UTC.\n\n");
    let rows: Vec<Vec<String>> = report
        .settings
        .iter()
        .map(|s| {
            let mut row = vec![escape(&s.model)];
            row.extend(super::settings::cells(s).iter().map(|c| escape(c)));
            row
        })
        .collect();
    let mut header = vec!["Model"];
    header.extend(super::settings::HEADER);
    table(out, header.len(), &header, &rows);
}

/// The files the inputs' manifests name that were not used, if any.
fn not_used(out: &mut String, report: &Report) {
    let lines: Vec<String> = report
        .inputs
        .iter()
        .flat_map(|i| {
            i.files_not_used.iter().map(|n| {
                format!(
                    "- {}: {} names {}: {}\n",
                    escape(&i.dir),
                    escape(&n.field),
                    escape(&n.path),
                    escape(&n.reason)
                )
            })
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    out.push_str("**Files not used.** These files named by the inputs' manifests are gone or are not the files that were scored; `report.html`'s task browser shows \"not available\" for their queries, gold calls or model calls. The scores are unaffected.\n\n");
    out.push_str(&lines.concat());
    out.push('\n');
}

fn summary(out: &mut String, report: &Report) {
    out.push_str("## Summary (ITC Table 2)\n\n");
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let s = &m.summary;
            let mut row = headline_row(vec![escape(&m.model)], s, s);
            row.extend([s.selection.p, s.selection.r, s.invocation.p, s.invocation.r].map(pct));
            row
        })
        .collect();
    table(
        out,
        1,
        &[
            "Model", "Tasks", "Sel. F1", "Inv. F1", "LM", "FM", "Sel. P", "Sel. R", "Inv. P",
            "Inv. R",
        ],
        &rows,
    );
    if let Some(note) = fm_note(report.models.iter().map(|m| &m.summary)) {
        let _ = writeln!(out, "{note}\n");
    }
    if report.models.iter().any(|m| m.summary.step_tasks > 0) {
        out.push_str("Step by step (SPEC §6): each step's calls against the same gold step.\n\n");
        let executed = report.models.iter().any(|m| m.summary.execution.is_some());
        let rows: Vec<Vec<String>> = report
            .models
            .iter()
            .map(|m| {
                let s = &m.summary;
                let mut row = vec![
                    escape(&m.model),
                    s.step_tasks.to_string(),
                    s.step_f1.map_or_else(|| "—".into(), pct),
                ];
                if executed {
                    row.extend(crate::score::report::execution_cells(s));
                }
                row
            })
            .collect();
        let mut header = vec!["Model", "Tasks in steps", "Step F1"];
        if executed {
            header.extend(["Calls executed", "Tasks executed"]);
        }
        table(out, 1, &header, &rows);
    }

    out.push_str("## Error analysis (ITC Table 3; shares of each group's errors)\n\n");
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let (s, i) = (&m.summary.selection_errors, &m.summary.invocation_errors);
            let mut row = vec![escape(&m.model)];
            row.extend([s.hall, s.mis, s.ex, i.incor, i.miss, i.ext].map(pct));
            row
        })
        .collect();
    table(
        out,
        1,
        &[
            "Model",
            "Hallucinated",
            "Missed",
            "Extra",
            "Incorrect value",
            "Missing value",
            "Extra value",
        ],
        &rows,
    );
}

fn ranking(out: &mut String, report: &Report) {
    let _ = writeln!(
        out,
        "## Ranking by {}\n\nModels whose difference from the first model of their group is not significant (Holm-adjusted p ≥ 0.05 over every pair on this metric) share its rank.\n",
        report.rank_by.label()
    );
    let rows: Vec<Vec<String>> = report
        .ranking
        .iter()
        .map(|r| vec![r.rank.to_string(), escape(&r.model), pct(r.score)])
        .collect();
    table(out, 2, &["Rank", "Model", report.rank_by.label()], &rows);
}

fn comparisons(out: &mut String, report: &Report) {
    if !report.comparisons.is_empty() {
        out.push_str("## Paired comparisons (A − B, percentage points)\n\n");
        out.push_str("p: two-sided paired-bootstrap p-value; p (Holm): adjusted by Holm–Bonferroni over the comparisons of the same metric in this report. Significant: p (Holm) < 0.05.\n\n");
        let rows: Vec<Vec<String>> = report
            .comparisons
            .iter()
            .map(|c| {
                vec![
                    escape(&c.a),
                    escape(&c.b),
                    c.metric.label().into(),
                    format!("{:+.2}", c.diff),
                    format!("[{:.2}, {:.2}]", c.ci.lo, c.ci.hi),
                    p_text(c.p_value, report.resamples),
                    p_text(c.p_holm, report.resamples),
                    if c.significant() { "yes" } else { "no" }.into(),
                ]
            })
            .collect();
        table(
            out,
            3,
            &[
                "A",
                "B",
                "Metric",
                "A − B",
                "95% CI",
                "p",
                "p (Holm)",
                "Significant",
            ],
            &rows,
        );
    }
}

fn breakdowns(out: &mut String, report: &Report) {
    let dimensions = report.models.first().map_or(0, |m| m.breakdowns.len());
    for d in 0..dimensions {
        let name = report.models[0].breakdowns[d].dimension.as_str();
        let _ = writeln!(out, "## By {name}\n");
        let rows: Vec<Vec<String>> = report
            .models
            .iter()
            .flat_map(|m| {
                m.breakdowns[d].groups.iter().map(|(group, s)| {
                    headline_row(vec![escape(&m.model), escape(group)], s, &m.summary)
                })
            })
            .collect();
        table(
            out,
            2,
            &["Model", name, "Tasks", "Sel. F1", "Inv. F1", "LM", "FM"],
            &rows,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_html_code_span_link_cell_or_line_end() {
        assert_eq!(
            escape("<script>alert(1)</script>|x\ny"),
            "&lt;script&gt;alert(1)&lt;/script&gt;\\|x y"
        );
        assert_eq!(escape("a & b &amp; c"), "a &amp; b &amp;amp; c");
        assert_eq!(escape("`code`"), "\\`code\\`");
        assert_eq!(
            escape("[x](javascript:alert(1))"),
            "\\[x\\](javascript:alert(1))"
        );
        assert_eq!(escape("a\\|b"), "a\\\\\\|b");
        assert_eq!(escape("a\r\nb\rc\nd\n\ne"), "a b c d  e");
    }

    #[test]
    fn escape_leaves_plain_text_alone() {
        for text in [
            "gpt-4o",
            "Qwen/Qwen2.5-7B-Instruct",
            "日本語",
            "=HYPERLINK(1)",
            "",
        ] {
            assert_eq!(escape(text), text);
        }
    }

    #[test]
    fn a_hostile_model_name_keeps_every_table_whole() {
        let row = vec![escape("<b>|x\ny"), "1".to_string()];
        let mut out = String::new();
        table(&mut out, 1, &["Model", "Tasks"], &[row]);
        assert_eq!(
            out,
            "| Model | Tasks |\n| --- | ---: |\n| &lt;b&gt;\\|x y | 1 |\n\n"
        );
    }
}
