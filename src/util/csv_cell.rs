//! Text cells of the CSV files itc writes, made safe for spreadsheets (CSV
//! injection, as OWASP describes it): a spreadsheet runs a cell that starts
//! with `=`, `+`, `-` or `@` as a formula (`=HYPERLINK(...)`,
//! `=cmd|' /C calc'!A0`), and a leading tab or carriage return can hide
//! one. Model names, languages, categories and countries come from input
//! files, so every text cell is passed through [`neutralise`] before it is
//! written as CSV. Numeric columns are never touched, and Parquet keeps the
//! raw values.

use std::borrow::Cow;

use polars::prelude::{Column, DataFrame, DataType, IntoColumn, PolarsResult, StringChunked};

/// The characters that make a spreadsheet read a cell as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A text cell safe to open in a spreadsheet: a cell starting with `=`,
/// `+`, `-`, `@`, a tab or a carriage return gets a single quote `'` in
/// front (OWASP's advice), any other cell is returned as it is. The rule
/// is the same for every text cell, so a *text* cell holding `-3` is
/// written `'-3` too (numbers in numeric columns are never text cells).
/// Quoting the cell for CSV stays the CSV writer's job.
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(FORMULA_STARTS) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// `frame` with [`neutralise`] applied to every cell of its text (String)
/// columns; borrowed as it is when no cell needs it.
pub fn neutralise_frame(frame: &DataFrame) -> PolarsResult<Cow<'_, DataFrame>> {
    let mut safe: Option<DataFrame> = None;
    for (index, column) in frame.columns().iter().enumerate() {
        if column.dtype() != &DataType::String {
            continue;
        }
        let cells = column.str()?;
        let dangerous = |cell: Option<&str>| cell.is_some_and(|c| c.starts_with(FORMULA_STARTS));
        if !cells.iter().any(dangerous) {
            continue;
        }
        let neutralised: StringChunked = cells.iter().map(|c| c.map(neutralise)).collect();
        let neutralised: Column = neutralised.with_name(column.name().clone()).into_column();
        safe.get_or_insert_with(|| frame.clone())
            .replace_column(index, neutralised)?;
    }
    Ok(safe.map_or(Cow::Borrowed(frame), Cow::Owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_that_start_a_formula_get_a_quote() {
        for (cell, safe) in [
            ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+1", "'+1"),
            ("-3", "'-3"),
            ("-0.5", "'-0.5"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
        ] {
            assert_eq!(neutralise(cell), safe, "{cell:?}");
        }
    }

    #[test]
    fn other_cells_are_left_alone() {
        for cell in [
            "",
            "gpt-4o",
            "en",
            "a=b",
            " =1",
            "'=1",
            "日本語",
            "3",
            "x\n=1",
        ] {
            assert!(
                matches!(neutralise(cell), Cow::Borrowed(c) if c == cell),
                "{cell:?}"
            );
        }
    }

    #[test]
    fn only_text_columns_of_a_frame_change() {
        let frame = DataFrame::new(
            3,
            vec![
                Column::new("model".into(), ["=evil()", "good", "-x"]),
                Column::new("group".into(), [Some("@me"), None, Some("ok")]),
                Column::new("score".into(), [-1.5f64, 2.0, -0.25]),
                Column::new("n".into(), [-3i64, 4, 5]),
            ],
        )
        .unwrap();
        let safe = neutralise_frame(&frame).unwrap();
        assert!(matches!(safe, Cow::Owned(_)));
        let text = |name: &str| -> Vec<Option<String>> {
            let cells = safe.column(name).unwrap().str().unwrap();
            cells.iter().map(|c| c.map(str::to_string)).collect()
        };
        let some = |c: &str| Some(c.to_string());
        assert_eq!(text("model"), [some("'=evil()"), some("good"), some("'-x")]);
        assert_eq!(text("group"), [some("'@me"), None, some("ok")]);
        assert!(
            safe.column("score")
                .unwrap()
                .equals(frame.column("score").unwrap())
        );
        assert!(safe.column("n").unwrap().equals(frame.column("n").unwrap()));
        assert_eq!(safe.get_column_names(), frame.get_column_names());
    }

    #[test]
    fn a_safe_frame_is_borrowed() {
        let frame = DataFrame::new(1, vec![Column::new("model".into(), ["good"])]).unwrap();
        assert!(matches!(
            neutralise_frame(&frame).unwrap(),
            Cow::Borrowed(_)
        ));
    }
}
