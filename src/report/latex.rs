//! `report.tex` and `table-*.tex`: ITC Table 2 (with its 95% intervals),
//! Table 3, the judged figures and the official scores as LaTeX
//! tables, each in a file of its own ready to `\input` into a paper, and
//! `report.tex`, a whole document that `\input`s them ([`files`]). They
//! use booktabs' rules (`\toprule`, `\midrule`, `\bottomrule`; the
//! judged figures also tabularx: [`PACKAGES`]) and fit an article's text
//! column (345 pt): `\small`, 4 pt column gaps, Table 2 in two panels,
//! Table 3's headers abbreviated and explained in its caption, a BFCL table
//! per model. Text from the inputs (model names, the title)
//! goes through [`escape`], so a name such as `qwen_2.5 & co` neither
//! breaks a row nor stops the document from compiling.

use std::fmt::Write as _;

use super::Report;
use super::charts::ERROR_TYPES;
use crate::score::bootstrap::Interval;
use crate::score::report::{ERROR_HEADER, fm_cell, fm_note};

/// Text for LaTeX in running text or a table cell, in ASCII that pdflatex
/// compiles in any font encoding (the default OT1 or T1):
///
/// - the ten special characters `& % $ # _ { } ~ ^ \` escaped (the last
///   three as text commands), `<`, `>` and `|` as text commands (in OT1
///   they print other glyphs);
/// - Latin letters with accents as accent commands (`é` → `\'{e}`), and
///   `ß æ Æ œ Œ ø Ø ł Ł ı` as their commands; Greek letters, `° × ÷ ± µ ·
///   −` in math (`Ω` → `\ensuremath{\Omega}`, accents on Greek dropped);
///   dashes, curly quotes and `…` as text commands;
/// - control characters, line and paragraph separators and other spaces as
///   a space, a no-break space as `~`;
/// - any other character (CJK, Cyrillic, emoji, zero-width and other
///   invisible ones) as `[U+XXXX]`, so that it stays visible;
/// - a text that starts with `[` or `*` gets `{}` before it, which
///   `\\` and `\midrule` would otherwise read as their own arguments.
///
/// The text is put in NFC first, so a decomposed `é` is one letter.
pub fn escape(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(text.len());
    for c in text.nfc() {
        push_char(&mut out, c);
    }
    if out.trim_start().starts_with(['[', '*']) {
        out.insert_str(0, "{}");
    }
    out
}

/// Appends one character of [`escape`].
fn push_char(out: &mut String, c: char) {
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
        '\u{a0}' => out.push('~'),
        c if c.is_control() || c.is_whitespace() => out.push(' '),
        c if c.is_ascii() => out.push(c),
        c => {
            if let Some(command) = symbol(c) {
                out.push_str(command);
            } else if let Some(letter) = greek(c) {
                let _ = write!(out, "\\ensuremath{{{letter}}}");
            } else if !accented(out, c) {
                let _ = write!(out, "[U+{:04X}]", u32::from(c));
            }
        }
    }
}

/// Letters and signs of their own that pdflatex has in OT1 and T1 (or in
/// math, which needs no text font).
fn symbol(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "\\ss{}",
        'æ' => "\\ae{}",
        'Æ' => "\\AE{}",
        'œ' => "\\oe{}",
        'Œ' => "\\OE{}",
        'ø' => "\\o{}",
        'Ø' => "\\O{}",
        'ł' => "\\l{}",
        'Ł' => "\\L{}",
        'ı' => "\\i{}",
        '¡' => "\\textexclamdown{}",
        '¿' => "\\textquestiondown{}",
        '–' => "\\textendash{}",
        '—' => "\\textemdash{}",
        '‘' => "\\textquoteleft{}",
        '’' => "\\textquoteright{}",
        '“' => "\\textquotedblleft{}",
        '”' => "\\textquotedblright{}",
        '…' => "\\ldots{}",
        '§' => "\\S{}",
        '¶' => "\\P{}",
        '©' => "\\copyright{}",
        '£' => "\\pounds{}",
        '†' => "\\dag{}",
        '‡' => "\\ddag{}",
        '•' => "\\ensuremath{\\bullet}",
        '°' => "\\ensuremath{^\\circ}",
        '×' => "\\ensuremath{\\times}",
        '÷' => "\\ensuremath{\\div}",
        '±' => "\\ensuremath{\\pm}",
        'µ' => "\\ensuremath{\\mu}",
        '·' => "\\ensuremath{\\cdot}",
        '−' => "\\ensuremath{-}",
        _ => return None,
    })
}

/// The math command of a Greek letter (its accents dropped): `Ω` →
/// `\Omega`, `ώ` → `\omega`; capitals that look Latin as `\mathrm{A}`.
fn greek(c: char) -> Option<&'static str> {
    use unicode_normalization::char::decompose_canonical;
    const SMALL: [&str; 25] = [
        "\\alpha",
        "\\beta",
        "\\gamma",
        "\\delta",
        "\\epsilon",
        "\\zeta",
        "\\eta",
        "\\theta",
        "\\iota",
        "\\kappa",
        "\\lambda",
        "\\mu",
        "\\nu",
        "\\xi",
        "o",
        "\\pi",
        "\\rho",
        "\\varsigma",
        "\\sigma",
        "\\tau",
        "\\upsilon",
        "\\phi",
        "\\chi",
        "\\psi",
        "\\omega",
    ];
    const CAPITAL: [&str; 25] = [
        "\\mathrm{A}",
        "\\mathrm{B}",
        "\\Gamma",
        "\\Delta",
        "\\mathrm{E}",
        "\\mathrm{Z}",
        "\\mathrm{H}",
        "\\Theta",
        "\\mathrm{I}",
        "\\mathrm{K}",
        "\\Lambda",
        "\\mathrm{M}",
        "\\mathrm{N}",
        "\\Xi",
        "\\mathrm{O}",
        "\\Pi",
        "\\mathrm{P}",
        "",
        "\\Sigma",
        "\\mathrm{T}",
        "\\Upsilon",
        "\\Phi",
        "\\mathrm{X}",
        "\\Psi",
        "\\Omega",
    ];
    let mut base = None;
    decompose_canonical(c, |d| {
        base.get_or_insert(d);
    });
    let base = u32::from(base?);
    let letter = match base {
        0x3b1..=0x3c9 => SMALL[(base - 0x3b1) as usize],
        0x391..=0x3a9 => CAPITAL[(base - 0x391) as usize],
        _ => return None,
    };
    (!letter.is_empty()).then_some(letter)
}

/// Writes a Latin letter with accents as accent commands (`ế` →
/// `\'{\^{e}}`), when it is an ASCII letter under accents LaTeX has in OT1
/// and T1; `false` (nothing written) otherwise.
fn accented(out: &mut String, c: char) -> bool {
    use unicode_normalization::char::decompose_canonical;
    let mut parts = Vec::with_capacity(4);
    decompose_canonical(c, |d| parts.push(d));
    let Some((&base, marks)) = parts.split_first() else {
        return false;
    };
    let commands: Option<Vec<&str>> = marks.iter().map(|&m| accent(m)).collect();
    let Some(commands) = commands.filter(|c| !c.is_empty() && base.is_ascii_alphabetic()) else {
        return false;
    };
    let above = |m: char| !matches!(m, '\u{323}' | '\u{327}' | '\u{331}');
    let mut text = match base {
        'i' | 'j' if marks.first().copied().is_some_and(above) => format!("\\{base}"),
        _ => base.to_string(),
    };
    for command in commands {
        text = format!("{command}{{{text}}}");
    }
    out.push_str(&text);
    true
}

/// The accent command of a combining mark, for the marks OT1 and T1 both
/// have (the ogonek, `\k`, is T1's only).
fn accent(mark: char) -> Option<&'static str> {
    Some(match mark {
        '\u{300}' => "\\`",
        '\u{301}' => "\\'",
        '\u{302}' => "\\^",
        '\u{303}' => "\\~",
        '\u{304}' => "\\=",
        '\u{306}' => "\\u",
        '\u{307}' => "\\.",
        '\u{308}' => "\\\"",
        '\u{30a}' => "\\r",
        '\u{30b}' => "\\H",
        '\u{30c}' => "\\v",
        '\u{323}' => "\\d",
        '\u{327}' => "\\c",
        '\u{331}' => "\\b",
        _ => return None,
    })
}

/// A rate and its interval: `86.95 {\scriptsize [82.97, 90.53]}`.
fn with_ci(value: f64, ci: Option<Interval>) -> String {
    match ci {
        Some(i) => format!("{value:.2} {{\\scriptsize [{:.2}, {:.2}]}}", i.lo, i.hi),
        None => format!("{value:.2}"),
    }
}

/// The packages the tables need: booktabs' rules everywhere, tabularx for
/// the judged figures' last column.
pub const PACKAGES: &str = "\\usepackage{booktabs}\n\\usepackage{tabularx}\n";

/// One booktabs tabular: column spec, header and rows (cells already
/// LaTeX); `width` makes it a `tabularx` of that width.
fn tabular(
    out: &mut String,
    width: Option<&str>,
    spec: &str,
    header: &[&str],
    rows: &[Vec<String>],
) {
    let (env, arg) = match width {
        Some(w) => ("tabularx", format!("{{{w}}}")),
        None => ("tabular", String::new()),
    };
    let _ = writeln!(out, "\\begin{{{env}}}{arg}{{{spec}}}\n\\toprule");
    let _ = writeln!(out, "{} \\\\\n\\midrule", header.join(" & "));
    for row in rows {
        let _ = writeln!(out, "{} \\\\", row.join(" & "));
    }
    let _ = writeln!(out, "\\bottomrule\n\\end{{{env}}}");
}

/// A table float around `body` (tabulars), set in `\small` with narrower
/// column gaps so that the tables fit an article's text column.
fn float(out: &mut String, caption: &str, label: &str, body: &str) {
    let _ = write!(
        out,
        "\\begin{{table}}[tbp]\n\\centering\n\\small\n\\setlength{{\\tabcolsep}}{{4pt}}\n\\caption{{{caption}}}\n\\label{{{label}}}\n{body}\\end{{table}}\n"
    );
}

/// A column spec: `l`, then `n` times `r`.
fn numbers(n: usize) -> String {
    std::iter::once('l')
        .chain(std::iter::repeat_n('r', n))
        .collect()
}

/// A row spanning `columns` that names the model of the rows below it.
fn model_row(model: &str, columns: usize) -> Vec<String> {
    vec![format!(
        "\\multicolumn{{{columns}}}{{@{{}}l}}{{\\textit{{{}}}}}",
        escape(model)
    )]
}

/// Table 2: (a) selection and invocation F1, (b) LM and FM, each with its
/// interval; two panels, as four rates with intervals are too wide for a
/// text column.
fn main_table(report: &Report, title: &str) -> String {
    let (mut f1, mut matches) = (Vec::new(), Vec::new());
    for m in &report.models {
        let (s, ci) = (&m.summary, m.summary.ci);
        f1.push(vec![
            escape(&m.model),
            s.n.to_string(),
            with_ci(s.selection.f1, ci.map(|c| c.selection_f1)),
            with_ci(s.invocation.f1, ci.map(|c| c.invocation_f1)),
        ]);
        matches.push(vec![
            escape(&m.model),
            with_ci(s.lm, ci.map(|c| c.lm)),
            fm_cell(s, |fm| with_ci(fm, ci.map(|c| c.fm))),
        ]);
    }
    let mut body = String::from("(a) Tool selection and invocation\\\\[2pt]\n");
    tabular(
        &mut body,
        None,
        &numbers(3),
        &["Model", "Tasks", "Sel.\\ F1", "Inv.\\ F1"],
        &f1,
    );
    body.push_str("\\par\\medskip\n(b) Language and format\\\\[2pt]\n");
    tabular(
        &mut body,
        None,
        &numbers(2),
        &["Model", "LM", "FM"],
        &matches,
    );
    // The reason FM is N/A, where it is, goes into the caption.
    let fm_reason = fm_note(report.models.iter().map(|m| &m.summary))
        .map(|note| format!(" {}", escape(&note.replace('\n', " "))))
        .unwrap_or_default();
    let mut out = String::new();
    float(
        &mut out,
        &format!(
            "{title}: (a) tool selection and invocation F1 (macro), (b) language match (LM) and format match (FM), in \\%, with 95\\% bootstrap intervals in brackets.{fm_reason}"
        ),
        "tab:itc-main",
        &body,
    );
    out
}

/// Table 3: the six error types' shares, abbreviated as in the terminal.
fn error_table(report: &Report, title: &str) -> String {
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
    let mut header = vec!["Model"];
    header.extend(ERROR_HEADER);
    let mut body = String::new();
    tabular(&mut body, None, &numbers(6), &header, &rows);
    let names: Vec<String> = ERROR_HEADER
        .iter()
        .zip(ERROR_TYPES)
        .map(|(short, long)| format!("{long} ({short})"))
        .collect();
    let mut out = String::new();
    float(
        &mut out,
        &format!(
            "{title}: error analysis, each error type's share of its group's errors in \\% (selection: {}; invocation: {}).",
            names[..3].join(", "),
            names[3..].join(", ")
        ),
        "tab:itc-errors",
        &body,
    );
    out
}

/// The judged figures (SPEC §8), as the HTML and Markdown show them: a row
/// per model's figure under the model's name, the judge and what the
/// figure rests on in a last column that takes the rest of the line.
fn judged_table(report: &Report, title: &str) -> Option<String> {
    if report.judged.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    let mut last: Option<&str> = None;
    for (f, cells) in report
        .judged
        .iter()
        .zip(super::judged::rows(&report.judged))
    {
        if last != Some(f.model.as_str()) {
            rows.push(model_row(&f.model, 5));
            last = Some(&f.model);
        }
        // Model, Metric, Judge, Rests on, %, ± std, Tasks.
        rows.push(vec![
            escape(&cells[1]),
            escape(&cells[4]),
            escape(&cells[5]),
            escape(&cells[6]),
            format!("{}; {}", escape(&cells[2]), escape(&cells[3])),
        ]);
    }
    let mut body = String::new();
    tabular(
        &mut body,
        Some("\\linewidth"),
        "lrrr>{\\raggedright\\arraybackslash}X",
        &["Metric", "\\%", "Std", "Tasks", "Judge; rests on"],
        &rows,
    );
    let mut out = String::new();
    float(
        &mut out,
        &format!(
            "{title}: judged task success (SPEC \\S 8, \\texttt{{itc judge}}), beside the scores above and never mixed into them: pass rate, SoPR, win rate or ToolAlpaca's overall in \\%, SoPR's standard deviation over runs (Std), the tasks judged, the judge (model id) and the samples, runs or rounds the figure rests on."
        ),
        "tab:itc-judged",
        &body,
    );
    Some(out)
}

/// The official scores of other benchmarks (BFCL, τ³-bench), a table per
/// model: each category's accuracy and the leaderboard's columns, or τ³-bench's
/// average reward and pass^k, as every other
/// output shows them (percent, `N/A`).
fn official_tables(report: &Report, title: &str) -> Option<String> {
    if report.official.is_empty() {
        return None;
    }
    let rows = super::official::rows(&report.official);
    let mut models: Vec<&str> = Vec::new();
    for f in &report.official {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    let mut out = String::new();
    for (n, model) in models.iter().enumerate() {
        // Model, Benchmark, Score, %, 95% CI, Correct / total.
        let mine: Vec<Vec<String>> = report
            .official
            .iter()
            .zip(&rows)
            .filter(|(f, _)| f.model == *model)
            .map(|(_, r)| r[2..].iter().map(|c| escape(c)).collect())
            .collect();
        let mut body = String::new();
        tabular(
            &mut body,
            None,
            &numbers(3),
            &["Score", "\\%", "95\\% CI", "Correct / total"],
            &mine,
        );
        if n > 0 {
            out.push('\n');
        }
        float(
            &mut out,
            &format!(
                "{title}: official scores of {}. {}",
                escape(model),
                escape(&format!(
                    "{} CI: 95% Wilson interval (BFCL categories), 95% bootstrap interval over tasks (τ³-bench).",
                    super::official::intro(&report.official)
                ))
            ),
            &format!("tab:itc-official-{}", n + 1),
            &body,
        );
    }
    Some(out)
}

/// The tables of a report, each with the name of its file and what it
/// is: Table 2, Table 3, and the judged figures and official scores
/// when the inputs have them.
fn tables(report: &Report, title: &str) -> Vec<(&'static str, &'static str, String)> {
    let all = [
        ("main", "ITC Table 2", Some(main_table(report, title))),
        ("errors", "ITC Table 3", Some(error_table(report, title))),
        ("judged", "judged figures", judged_table(report, title)),
        (
            "official",
            "official scores",
            official_tables(report, title),
        ),
    ];
    all.into_iter()
        .filter_map(|(name, what, table)| Some((name, what, table?)))
        .collect()
}

/// The comment lines at the head of a file of a report's.
fn file_head(report: &Report, title: &str, what: &str, needs: &str) -> String {
    format!(
        "% {title}: {what}, written by itc report.\n% {} task(s), {} model(s); rates in %; 95% intervals from a seeded paired\n% Poisson bootstrap ({} resamples, seed {}).\n% {needs}\n% ASCII for pdflatex: text without a glyph there is written [U+XXXX].\n\n",
        report.tasks,
        report.models.len(),
        report.resamples,
        report.seed
    )
}

/// What a table file's head says it needs.
const TABLE_NEEDS: &str =
    "To \\input into a paper: needs \\usepackage{booktabs} (and tabularx for the judged figures).";

/// What `report.tex`'s head says it is.
const DOCUMENT_NEEDS: &str =
    "A document of its own: pdflatex report.tex. Its tables are the table-*.tex files it inputs.";

/// The start and the end of `report.tex` around its `\input` lines.
fn document(head: String, inputs: &str) -> String {
    format!(
        "{head}\\documentclass{{article}}\n{PACKAGES}\\begin{{document}}\n{inputs}\\end{{document}}\n"
    )
}

/// The LaTeX files of a report, in order: each table in a file of its own
/// (`table-main.tex`, `table-errors.tex`, and `table-judged.tex`,
/// `table-official.tex` when the inputs have such figures) to `\input`
/// into a paper, then `report.tex`, a whole document that `\input`s them
/// and compiles on its own (`pdflatex report.tex`).
pub fn files(report: &Report) -> Vec<(String, String)> {
    let title = escape(&report.title);
    let mut files = Vec::new();
    let mut inputs = String::new();
    for (name, what, table) in tables(report, &title) {
        let file = format!("table-{name}.tex");
        let _ = writeln!(inputs, "\\input{{{file}}}");
        files.push((file, file_head(report, &title, what, TABLE_NEEDS) + &table));
    }
    let head = file_head(report, &title, "the whole report", DOCUMENT_NEEDS);
    files.push(("report.tex".to_string(), document(head, &inputs)));
    files
}

/// [`escape`] with a line break allowed after each `:` and `_`, so that a
/// long name such as `stabletoolbench:G1_instruction` in a heading can
/// wrap instead of running into the margin.
fn breakable(text: &str) -> String {
    escape(text)
        .replace(':', ":\\allowbreak{}")
        .replace("\\_", "\\_\\allowbreak{}")
}

/// The LaTeX files of a report over several task sets: the tables of set
/// N in `table-setN-*.tex` (their labels `tab:itc-setN-…`, so that they
/// stay unique), and `report.tex` with a section per set, headed by its
/// name and size, that `\input`s them.
pub fn files_sets(title: &str, sections: &[super::Section]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut inputs = String::new();
    for (i, s) in sections.iter().enumerate() {
        let report = &s.report;
        let set_title = escape(&report.title);
        // Ragged right: a justified heading would rather run into the
        // margin than end a line early at a break it is allowed.
        let _ = writeln!(
            inputs,
            "\\section*{{\\raggedright {}}}",
            s.heading(breakable)
        );
        for (name, what, table) in tables(report, &set_title) {
            let file = format!("table-set{}-{name}.tex", i + 1);
            let _ = writeln!(inputs, "\\input{{{file}}}");
            let table = table.replace(
                "\\label{tab:itc-",
                &format!("\\label{{tab:itc-set{}-", i + 1),
            );
            let what = format!("{what} of task set {}", s.name);
            files.push((
                file,
                file_head(report, &set_title, &what, TABLE_NEEDS) + &table,
            ));
        }
    }
    let head = format!(
        "% {}: {} task sets, a section each, written by itc report.\n% {DOCUMENT_NEEDS}\n\n",
        escape(title),
        sections.len()
    );
    files.push(("report.tex".to_string(), document(head, &inputs)));
    files
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
        for plain in ["gpt-4o", "Qwen/Qwen2.5-7B-Instruct", "(a) b", ""] {
            assert_eq!(escape(plain), plain);
        }
    }

    #[test]
    fn text_without_a_pdflatex_glyph_is_mapped_or_shown_by_its_code_point() {
        let cases = [
            ("café", r"caf\'{e}"),
            ("cafe\u{301}", r"caf\'{e}"),
            ("Nẵng", r"N\~{\u{a}}ng"),
            ("ï ç ọ", r#"\"{\i} \c{c} \d{o}"#),
            ("Straße Øl łódź", r"Stra\ss{}e \O{}l \l{}\'{o}d\'{z}"),
            (
                "Ω ω ώ Α",
                r"\ensuremath{\Omega} \ensuremath{\omega} \ensuremath{\omega} \ensuremath{\mathrm{A}}",
            ),
            ("Ω", r"\ensuremath{\Omega}"), // the ohm sign, NFC's Omega
            (
                "10°±2×",
                r"10\ensuremath{^\circ}\ensuremath{\pm}2\ensuremath{\times}",
            ),
            (
                "“a” – b…",
                r"\textquotedblleft{}a\textquotedblright{} \textendash{} b\ldots{}",
            ),
            ("x北京", "x[U+5317][U+4EAC]"),
            ("x🤖", "x[U+1F916]"),
            ("a\u{200b}b\u{feff}", "a[U+200B]b[U+FEFF]"),
            (
                "xПривет",
                "x[U+041F][U+0440][U+0438][U+0432][U+0435][U+0442]",
            ),
            ("xą", "x[U+0105]"),
            ("a\u{2028}b\u{2029}c\u{3000}d\u{85}e\u{a0}f", "a b c d e~f"),
            ("\u{1b}[31m", "{} [31m"),
            ("[x]", "{}[x]"),
            (" *y", "{} *y"),
            ("🤖 bot", "{}[U+1F916] bot"),
            ("a [b] *c", "a [b] *c"),
        ];
        for (text, want) in cases {
            assert_eq!(escape(text), want, "{text:?}");
        }
        // Whatever the input, the output is ASCII.
        let all: String = (0..0x3_0000).filter_map(char::from_u32).collect();
        assert!(escape(&all).is_ascii());
    }

    #[test]
    fn intervals_are_in_a_group_of_their_own() {
        let ci = Interval { lo: 1.0, hi: 2.5 };
        assert_eq!(with_ci(1.5, Some(ci)), r"1.50 {\scriptsize [1.00, 2.50]}");
        assert_eq!(with_ci(1.5, None), "1.50");
    }
}
