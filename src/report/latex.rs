//! `report.tex`: ITC Table 2 (with its 95% intervals) and Table 3 as LaTeX
//! tables, ready to paste into a paper. They use booktabs' rules
//! (`\toprule`, `\midrule`, `\bottomrule`): the paper needs
//! `\usepackage{booktabs}`. Text from the inputs (model names, the title)
//! goes through [`escape`], so a name such as `qwen_2.5 & co` neither
//! breaks a row nor stops the document from compiling.

use std::fmt::Write as _;

use super::Report;
use super::charts::ERROR_TYPES;
use crate::score::bootstrap::Interval;

/// Text for LaTeX in running text or a table cell: the ten special
/// characters `& % $ # _ { } ~ ^ \` escaped (the last three as text
/// commands), `<`, `>` and `|` as text commands (in the default font
/// encoding they print other glyphs), line breaks and other control
/// characters as spaces.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A rate and its interval: `86.95 {\scriptsize [82.97, 90.53]}`.
fn with_ci(value: f64, ci: Option<Interval>) -> String {
    match ci {
        Some(i) => format!("{value:.2} {{\\scriptsize [{:.2}, {:.2}]}}", i.lo, i.hi),
        None => format!("{value:.2}"),
    }
}

/// One booktabs table: caption, label, column spec (`l` then `r`s), the
/// header and the rows (cells already LaTeX).
fn table(out: &mut String, caption: &str, label: &str, header: &[&str], rows: &[Vec<String>]) {
    let spec: String = std::iter::once('l')
        .chain(std::iter::repeat_n('r', header.len() - 1))
        .collect();
    let _ = writeln!(
        out,
        "\\begin{{table}}[t]\n\\centering\n\\caption{{{caption}}}\n\\label{{{label}}}\n\\begin{{tabular}}{{{spec}}}\n\\toprule"
    );
    let _ = writeln!(out, "{} \\\\\n\\midrule", header.join(" & "));
    for row in rows {
        let _ = writeln!(out, "{} \\\\", row.join(" & "));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
}

/// The whole file: a comment saying what it holds, Table 2, Table 3.
pub fn render(report: &Report) -> String {
    let title = escape(&report.title);
    let mut out = format!(
        "% {title}: ITC Table 2 and Table 3, written by itc report.\n% {} task(s), {} model(s); rates in %; 95% intervals from a seeded paired\n% Poisson bootstrap ({} resamples, seed {}). Needs \\usepackage{{booktabs}}.\n\n",
        report.tasks,
        report.models.len(),
        report.resamples,
        report.seed
    );
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let (s, ci) = (&m.summary, m.summary.ci);
            vec![
                escape(&m.model),
                s.n.to_string(),
                with_ci(s.selection.f1, ci.map(|c| c.selection_f1)),
                with_ci(s.invocation.f1, ci.map(|c| c.invocation_f1)),
                with_ci(s.lm, ci.map(|c| c.lm)),
                with_ci(s.fm, ci.map(|c| c.fm)),
            ]
        })
        .collect();
    table(
        &mut out,
        &format!(
            "{title}: tool selection and invocation F1 (macro), language match (LM) and format match (FM), in \\%, with 95\\% bootstrap intervals."
        ),
        "tab:itc-main",
        &["Model", "Tasks", "Sel.\\ F1", "Inv.\\ F1", "LM", "FM"],
        &rows,
    );
    out.push('\n');
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let (s, i) = (&m.summary.selection_errors, &m.summary.invocation_errors);
            let mut row = vec![escape(&m.model)];
            row.extend([s.hall, s.mis, s.ex, i.incor, i.miss, i.ext].map(|x| format!("{x:.2}")));
            row
        })
        .collect();
    let mut header = vec!["Model".to_string()];
    header.extend(ERROR_TYPES.iter().map(|t| capitalised(t)));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    table(
        &mut out,
        &format!(
            "{title}: error analysis, each error type's share of its group's errors in \\% (selection: hallucinated, missed, extra tool; invocation: incorrect, missing, extra value)."
        ),
        "tab:itc-errors",
        &header,
        &rows,
    );
    out
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_character_is_escaped() {
        assert_eq!(
            escape(r"a&b%c$d#e_f{g}h~i^j\k"),
            r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
        );
        assert_eq!(
            escape("<x>|y\nz"),
            r"\textless{}x\textgreater{}\textbar{}y z"
        );
        for plain in ["gpt-4o", "Qwen/Qwen2.5-7B-Instruct", "café", ""] {
            assert_eq!(escape(plain), plain);
        }
    }

    #[test]
    fn intervals_are_in_a_group_of_their_own() {
        let ci = Interval { lo: 1.0, hi: 2.5 };
        assert_eq!(with_ci(1.5, Some(ci)), r"1.50 {\scriptsize [1.00, 2.50]}");
        assert_eq!(with_ci(1.5, None), "1.50");
        assert_eq!(capitalised("extra tool"), "Extra tool");
    }
}
