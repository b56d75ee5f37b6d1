//! Terminal tables, one rule for every command: rounded borders, row labels
//! on the left and values on the right, numbers with [`SIGNIFICANT_DIGITS`]
//! significant digits ([`num`]), and at most [`MAX_WIDTH`] columns. A table
//! wider than that is split into parts that each repeat the row labels,
//! unless it is asked for wide (`--wide`); full precision stays in the JSON
//! and CSV outputs.

use tabled::builder::Builder;
use tabled::grid::util::string::get_text_width;
use tabled::settings::object::Columns;
use tabled::settings::style::HorizontalLine;
use tabled::settings::{Alignment, Modify, Span, Style};

/// Columns a default table may take (a terminal of 100 columns).
pub const MAX_WIDTH: usize = 100;

/// Display columns a row label may take in a default table (longer ones
/// are cut in the middle with `…`; `--wide` shows them whole).
pub const MAX_LABEL_WIDTH: usize = 32;

/// Significant digits of the fractions and rates shown in tables.
pub const SIGNIFICANT_DIGITS: usize = 4;

/// Shown for a value that is absent.
pub const ABSENT: &str = "—";

/// A number with [`SIGNIFICANT_DIGITS`] significant digits, trailing zeros
/// kept so a column reads alike (`93.42`, `6.900`, `100.0`, `0.8235`); zero
/// is `0`. Values of 10,000 and more keep their integer digits.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    // Round first, so a carry (99.996 → 100.0) sets the magnitude.
    let rounded: f64 = format!("{:.*e}", SIGNIFICANT_DIGITS - 1, x)
        .parse()
        .unwrap_or(x);
    let magnitude = rounded.abs().log10().floor() as i64;
    let decimals = (SIGNIFICANT_DIGITS as i64 - 1 - magnitude).max(0) as usize;
    format!("{rounded:.decimals$}")
}

/// [`num`] of a value that may be absent ([`ABSENT`]).
pub fn num_or_absent(x: Option<f64>) -> String {
    x.map_or_else(|| ABSENT.to_string(), num)
}

/// Shown for a figure that cannot be given: an aggregate whose parts were
/// not all run. One spelling everywhere (terminal, HTML, Markdown, LaTeX).
pub const NOT_AVAILABLE: &str = "N/A";

/// The `unit` that JSON outputs holding fractions (0–1) name, where their
/// tables show the same figures in percent ([`fraction_percent`]).
pub const FRACTION_UNIT: &str = "fraction";

/// A fraction (0–1) in percent with two decimals, the way BFCL's
/// leaderboard writes its cells (Python's `"{:.2f}".format(x * 100)`,
/// without the `%`): the exact binary value of `x * 100` rounded to two
/// decimals, ties to even (`0.32125` → `32.12`), which Rust's `{:.2}` does
/// too; NaN is written `nan` as Python writes it. Every human-facing BFCL
/// figure goes through this function.
pub fn fraction_percent(x: f64) -> String {
    let p = x * 100.0;
    if p.is_nan() {
        "nan".to_string()
    } else {
        format!("{p:.2}")
    }
}

/// [`fraction_percent`] of a figure that may not be available ([`NOT_AVAILABLE`]).
pub fn fraction_percent_or_na(x: Option<f64>) -> String {
    x.map_or_else(|| NOT_AVAILABLE.to_string(), fraction_percent)
}

/// Which aggregate columns are complete (every category they rest on was
/// run) and which are [`NOT_AVAILABLE`], with the categories they miss, as
/// one line: `Complete columns: A, B. N/A, not all run: C (missing x, y);
/// D (missing z).` Columns come as (name, missing categories).
pub fn completeness<N: AsRef<str>, M: AsRef<str>>(columns: &[(N, Vec<M>)]) -> String {
    let names = |complete: bool| {
        columns
            .iter()
            .filter(|(_, missing)| missing.is_empty() == complete)
            .map(|(name, missing)| {
                let missing: Vec<&str> = missing.iter().map(AsRef::as_ref).collect();
                match complete {
                    true => name.as_ref().to_string(),
                    false => format!("{} (missing {})", name.as_ref(), missing.join(", ")),
                }
            })
            .collect::<Vec<_>>()
    };
    let complete = names(true);
    let mut line = format!(
        "Complete columns: {}.",
        match complete.is_empty() {
            true => "none".to_string(),
            false => complete.join(", "),
        }
    );
    let incomplete = names(false);
    if !incomplete.is_empty() {
        line.push_str(&format!(
            " {NOT_AVAILABLE}, not all run: {}.",
            incomplete.join("; ")
        ));
    }
    line
}

/// `part` of `whole` in percent, with [`num`] (0 when `whole` is 0).
pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return num(0.0);
    }
    num(100.0 * part as f64 / whole as f64)
}

/// A terminal table: a header, rows, optionally a spanning header row over
/// groups of value columns. The first `labels` columns name the rows.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    groups: Vec<(String, usize)>,
    rows: Vec<Vec<String>>,
    labels: usize,
}

impl Table {
    /// A table with these column headers; the first column labels the rows.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        Table {
            header: header.into_iter().map(Into::into).collect(),
            groups: Vec::new(),
            rows: Vec::new(),
            labels: 1,
        }
    }

    /// Sets how many leading columns label the rows (repeated in every part).
    pub fn with_labels(mut self, labels: usize) -> Table {
        self.labels = labels.min(self.header.len());
        self
    }

    /// Adds a header row above the header that spans groups of value columns:
    /// `(title, number of columns)`, in order, covering every value column.
    /// A split keeps a group whole.
    pub fn with_groups<S: Into<String>>(
        mut self,
        groups: impl IntoIterator<Item = (S, usize)>,
    ) -> Table {
        self.groups = groups.into_iter().map(|(t, n)| (t.into(), n)).collect();
        debug_assert_eq!(
            self.groups.iter().map(|g| g.1).sum::<usize>(),
            self.header.len() - self.labels
        );
        self
    }

    /// Adds a row (as many cells as the header).
    pub fn push<S: Into<String>>(&mut self, row: impl IntoIterator<Item = S>) {
        let mut row: Vec<String> = row.into_iter().map(Into::into).collect();
        row.resize(self.header.len(), String::new());
        self.rows.push(row);
    }

    /// The table as text: one table if `wide` or if it fits in
    /// [`MAX_WIDTH`] columns, else parts of at most that width (separated by
    /// a blank line) that each repeat the row labels. Row labels too long to
    /// leave room for a value column are shortened in the middle (`…`).
    pub fn render(&self, wide: bool) -> String {
        let units = self.units();
        if wide {
            return self.render_part(&units, None);
        }
        let width = |cols: &[usize]| {
            cols.iter()
                .map(|&c| self.column_width(c) + 3)
                .sum::<usize>()
        };
        let unit_width = |u: &Unit| (width(&u.columns)).max(u.title_width + 3);
        let widest_unit = units.iter().map(unit_width).max().unwrap_or(0);
        let labels: Vec<usize> = (0..self.labels).collect();
        // Room for the labels beside the widest unit, and no more than
        // MAX_LABEL_WIDTH for the first; shorten them if needed.
        let room = MAX_WIDTH
            .saturating_sub(1 + widest_unit)
            .min(MAX_LABEL_WIDTH + 3 + width(&labels[1..]));
        let label_limit = if width(&labels) > room {
            let others: usize = labels[1..].iter().map(|&c| self.column_width(c) + 3).sum();
            Some(room.saturating_sub(others + 3).max(8))
        } else {
            None
        };
        let label_width = match label_limit {
            Some(limit) => limit + 3 + width(&labels[1..]),
            None => width(&labels),
        };
        let mut parts: Vec<Vec<Unit>> = vec![Vec::new()];
        let mut used = 1 + label_width;
        for unit in units {
            let w = unit_width(&unit);
            let last = parts.last_mut().expect("one part");
            if !last.is_empty() && used + w > MAX_WIDTH {
                parts.push(Vec::new());
                used = 1 + label_width;
            }
            used += w;
            parts.last_mut().expect("one part").push(unit);
        }
        parts
            .iter()
            .map(|units| self.render_part(units, label_limit))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// The value columns in groups that a split keeps whole.
    fn units(&self) -> Vec<Unit> {
        let mut units = Vec::new();
        let mut next = self.labels;
        if self.groups.is_empty() {
            for c in self.labels..self.header.len() {
                units.push(Unit {
                    columns: vec![c],
                    title: None,
                    title_width: 0,
                });
            }
            return units;
        }
        for (title, n) in &self.groups {
            units.push(Unit {
                columns: (next..next + n).collect(),
                title: Some(title.clone()),
                title_width: get_text_width(title),
            });
            next += n;
        }
        units
    }

    fn column_width(&self, c: usize) -> usize {
        std::iter::once(&self.header)
            .chain(&self.rows)
            .map(|r| get_text_width(&r[c]))
            .max()
            .unwrap_or(0)
    }

    fn render_part(&self, units: &[Unit], label_limit: Option<usize>) -> String {
        let columns: Vec<usize> = (0..self.labels)
            .chain(units.iter().flat_map(|u| u.columns.iter().copied()))
            .collect();
        let cell = |row: &[String], c: usize| match label_limit {
            Some(limit) if c == 0 => shorten(&row[c], limit),
            _ => row[c].clone(),
        };
        let mut b = Builder::default();
        let grouped = !self.groups.is_empty();
        if grouped {
            let mut top: Vec<String> = (0..self.labels).map(|c| self.header[c].clone()).collect();
            for u in units {
                top.push(u.title.clone().unwrap_or_default());
                top.extend(std::iter::repeat_n(String::new(), u.columns.len() - 1));
            }
            b.push_record(top);
            let mut second: Vec<String> = vec![String::new(); self.labels];
            second.extend(
                units
                    .iter()
                    .flat_map(|u| u.columns.iter().map(|&c| self.header[c].clone())),
            );
            b.push_record(second);
        } else {
            b.push_record(columns.iter().map(|&c| self.header[c].clone()));
        }
        for row in &self.rows {
            b.push_record(columns.iter().map(|&c| cell(row, c)));
        }
        let mut table = b.build();
        if grouped {
            // A rule under both header rows, as under the one of other tables.
            let rule = HorizontalLine::full('─', '┼', '├', '┤');
            table.with(Style::rounded().horizontals([(1, rule), (2, rule)]));
        } else {
            table.with(Style::rounded());
        }
        table.with(Modify::new(Columns::new(self.labels..)).with(Alignment::right()));
        if grouped {
            let mut at = self.labels;
            for u in units {
                table.modify((0, at), Span::column(u.columns.len() as isize));
                table.modify((0, at), Alignment::center());
                at += u.columns.len();
            }
        }
        table.to_string()
    }
}

/// Value columns shown together: one column, or a titled group.
#[derive(Debug, Clone)]
struct Unit {
    columns: Vec<usize>,
    title: Option<String>,
    title_width: usize,
}

/// `text` cut to at most `limit` terminal columns in the middle, with `…`
/// (by display width: a CJK character takes two columns).
fn shorten(text: &str, limit: usize) -> String {
    if get_text_width(text) <= limit {
        return text.to_string();
    }
    let width = |c: &char| get_text_width(c.encode_utf8(&mut [0; 4]));
    let keep = limit.saturating_sub(1);
    let (head_room, tail_room) = (keep.div_ceil(2), keep / 2);
    let chars: Vec<char> = text.chars().collect();
    let (mut head, mut used) = (0, 0);
    while head < chars.len() && used + width(&chars[head]) <= head_room {
        used += width(&chars[head]);
        head += 1;
    }
    let (mut tail, mut used) = (chars.len(), 0);
    while tail > head && used + width(&chars[tail - 1]) <= tail_room {
        used += width(&chars[tail - 1]);
        tail -= 1;
    }
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completeness_names_complete_columns_then_what_the_others_miss() {
        let none: Vec<&str> = Vec::new();
        assert_eq!(
            completeness(&[("A", vec!["x", "y"]), ("B", none.clone())]),
            "Complete columns: B. N/A, not all run: A (missing x, y)."
        );
        assert_eq!(
            completeness(&[("A", vec!["x"])]),
            "Complete columns: none. N/A, not all run: A (missing x)."
        );
        assert_eq!(completeness(&[("A", none)]), "Complete columns: A.");
    }

    #[test]
    fn numbers_have_four_significant_digits() {
        let cases = [
            (93.4166, "93.42"),
            (6.9, "6.900"),
            (100.0, "100.0"),
            (99.996, "100.0"),
            (0.8028571428571428, "0.8029"),
            (0.053763440860215055, "0.05376"),
            (1.0, "1.000"),
            (0.0, "0"),
            (-12.345, "-12.35"),
            (1234.56, "1235"),
            (123456.0, "123500"),
        ];
        for (x, shown) in cases {
            assert_eq!(num(x), shown, "{x}");
        }
        assert_eq!(num_or_absent(None), ABSENT);
        assert_eq!(percent(1, 3), "33.33");
        assert_eq!(percent(0, 0), "0");
        // Two decimals of the exact value, ties to even, as Python's '{:.2f}'.
        assert_eq!(fraction_percent(0.32125), "32.12");
        assert_eq!(fraction_percent(0.0275 * 0.1), "0.28");
        assert_eq!(fraction_percent(1.0), "100.00");
        assert_eq!(fraction_percent(0.0), "0.00");
        assert_eq!(fraction_percent(f64::NAN), "nan");
        assert_eq!(fraction_percent_or_na(None), NOT_AVAILABLE);
        assert_eq!(fraction_percent_or_na(Some(0.5)), "50.00");
    }

    fn widest_line(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    fn wide_table() -> Table {
        let header: Vec<String> = std::iter::once("Model".to_string())
            .chain((0..12).map(|i| format!("Column {i}")))
            .collect();
        let mut t = Table::new(header);
        for m in ["first-model", "second-model"] {
            t.push(std::iter::once(m.to_string()).chain((0..12).map(|i| num(i as f64 / 7.0))));
        }
        t
    }

    #[test]
    fn a_wide_table_is_split_into_parts_that_repeat_the_labels() {
        let t = wide_table();
        let wide = t.render(true);
        assert!(widest_line(&wide) > MAX_WIDTH, "{wide}");
        let fit = t.render(false);
        assert!(widest_line(&fit) <= MAX_WIDTH, "{fit}");
        let parts = fit.split("\n\n").count();
        assert!(parts >= 2, "{fit}");
        assert_eq!(fit.matches("│ second-model").count(), parts, "{fit}");
        for i in 0..12 {
            assert_eq!(fit.matches(&format!("Column {i} ")).count(), 1, "{fit}");
        }
        // A table that fits is the same either way.
        let mut small = Table::new(["Model", "LM"]);
        small.push(["m", "1.000"]);
        assert_eq!(small.render(false), small.render(true));
    }

    #[test]
    fn cjk_and_arabic_labels_align_and_are_cut_by_display_width() {
        let mut t = Table::new([
            "Model", "Sel. F1", "Inv. F1", "LM", "FM", "Sel. P", "Sel. R",
        ]);
        let cjk = format!("千问-{}", "大模型".repeat(30));
        for name in [cjk.as_str(), "نموذج عربي كبير", "gpt-small"] {
            t.push([name, "93.42", "6.900", "100.0", "0.8235", "1.000", "2.000"]);
        }
        let fit = t.render(false);
        assert!(!fit.contains("\n\n"), "one part:\n{fit}");
        let widths: Vec<usize> = fit.lines().map(get_text_width).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{fit}");
        assert!(widths[0] <= MAX_WIDTH, "{fit}");
        assert!(
            fit.contains("千问-大") && fit.contains('…') && fit.contains("نموذج عربي كبير"),
            "{fit}"
        );
        assert!(t.render(true).contains(&cjk));
        // The cut keeps both ends within the limit, whatever the widths.
        for limit in 8..20 {
            let cut = shorten(&cjk, limit);
            assert!(get_text_width(&cut) <= limit, "{limit}: {cut}");
            assert!(get_text_width(&cut) + 2 >= limit, "{limit}: {cut}");
        }
    }

    #[test]
    fn groups_stay_whole_and_long_labels_are_shortened() {
        let header = ["Model", "P", "R", "P", "R", "P", "R", "P", "R"];
        let mut t = Table::new(header).with_groups([
            ("Seal-Tools dataset", 2),
            ("APIBench TorchHub", 2),
            ("APIBench HuggingFace", 2),
            ("APIBench TensorHub", 2),
        ]);
        let long = format!("model-{}-end", "x".repeat(120));
        t.push([long.as_str(), "1", "2", "3", "4", "5", "6", "7", "8"]);
        let fit = t.render(false);
        assert!(widest_line(&fit) <= MAX_WIDTH, "{fit}");
        for title in [
            "Seal-Tools dataset",
            "APIBench TorchHub",
            "APIBench HuggingFace",
        ] {
            assert_eq!(fit.matches(title).count(), 1, "{fit}");
        }
        assert!(
            fit.contains("model-x") && fit.contains("x-end") && fit.contains('…'),
            "{fit}"
        );
        // Each group's two columns are in the same part as its title.
        for part in fit.split("\n\n") {
            let titles = ["Seal-Tools", "TorchHub", "HuggingFace", "TensorHub"]
                .iter()
                .filter(|g| part.contains(*g))
                .count();
            let values = part.lines().find(|l| l.contains("model-")).unwrap();
            assert_eq!(values.matches('│').count(), 2 + 2 * titles, "{part}");
        }
        assert!(t.render(true).contains(&long));
    }
}
