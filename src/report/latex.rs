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
        "% {title}: ITC Table 2 and Table 3, written by itc report.\n% {} task(s), {} model(s); rates in %; 95% intervals from a seeded paired\n% Poisson bootstrap ({} resamples, seed {}). Needs \\usepackage{{booktabs}}.\n% ASCII for pdflatex: text without a glyph there is written [U+XXXX].\n\n",
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

/// A report over several task sets: a section per set, headed by its name
/// and size, holding what [`render`] writes of it (its labels made
/// `tab:itc-setN-…`, so that they stay unique).
pub fn render_sets(title: &str, sections: &[super::Section]) -> String {
    let mut out = format!(
        "% {}: {} task sets, a section each, written by itc report.\n\n",
        escape(title),
        sections.len()
    );
    for (i, s) in sections.iter().enumerate() {
        let _ = writeln!(out, "\\section*{{{}}}\n", s.heading(escape));
        out.push_str(&render(&s.report).replace(
            "\\label{tab:itc-",
            &format!("\\label{{tab:itc-set{}-", i + 1),
        ));
        out.push('\n');
    }
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
        assert_eq!(capitalised("extra tool"), "Extra tool");
    }
}
