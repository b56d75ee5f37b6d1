//! The official BFCL v4 leaderboard's aggregate columns, computed from
//! per-category figures exactly as `bfcl-eval` 2026.3.23 computes them
//! (`generate_leaderboard_csv`; see `scripts/bfcl/LEADERBOARD.md`).
//!
//! # How the columns are computed
//!
//! Every category enters as its accuracy (correct answers over the entries
//! of the result file) and that entry count. A category that was not
//! scored still enters: with accuracy 0 and, as its count, the size of its
//! full dataset, as BFCL counts it; the number of every column is computed
//! exactly as BFCL computes it.
//!
//! **N/A.** itc shows a column (`shown`) only when every category it rests
//! on was run, and says which were not ([`Column::missing`],
//! [`completeness`]): an aggregate over parts that were not run is `N/A`
//! (issue 49), where BFCL's own CSV shows Non-Live Overall, Live, Multi
//! Turn and Overall Acc anyway, with the missing parts as 0. Columns BFCL
//! marks "N/A" stay so. The categories itc never runs (simple_java,
//! simple_javascript, agentic) count as 0 as BFCL counts them and hide
//! only Non-Live AST Acc, as in BFCL: Overall would never show otherwise
//! ([`NOTE`] says what they cost).
//!
//! - **Non-Live AST Acc** is the plain (unweighted) mean of four figures:
//!   Simple AST, multiple, parallel and parallel_multiple. Simple AST is
//!   itself the plain mean of simple_python, simple_java and
//!   simple_javascript; itc runs only the Python one, so Java and
//!   JavaScript count as 0 and Simple AST is a third of simple_python's
//!   accuracy. The cell is "N/A" when any of the six is missing, which here
//!   is always.
//! - **Non-Live Overall Acc** is the same number; N/A unless all four of
//!   simple_python, multiple, parallel and parallel_multiple were run
//!   (BFCL: never N/A). Irrelevance is not part of it.
//! - **Live AST Acc** (the live file's "AST Summary") is the mean of
//!   live_simple, live_multiple, live_parallel and live_parallel_multiple
//!   weighted by their entry counts, i.e. correct answers over answers when
//!   all four are scored in full (live_multiple is 78% of the weight). It is
//!   "N/A" when any of the four is missing.
//! - **Live Acc** (the live file's "Live Overall Acc") is the same number;
//!   N/A unless the four were run (BFCL: never N/A). live_irrelevance and
//!   live_relevance are not part of it.
//! - **Multi Turn Acc** (the multi-turn file's "Multi Turn Overall Acc") is
//!   the plain mean of multi_turn_base, multi_turn_miss_func,
//!   multi_turn_miss_param and multi_turn_long_context (not weighted by
//!   their counts); N/A unless the four were run (BFCL: never N/A).
//!   **Multi Turn Base**, **Miss Func**, **Miss Param** and **Long
//!   Context** are the four categories' accuracies, as the leaderboard's
//!   overall CSV repeats them; N/A when not run.
//! - **Irrelevance Detection** is the plain mean of irrelevance and
//!   live_irrelevance (not weighted by their 240 and 884 entries); "N/A"
//!   when either is missing.
//! - **Relevance Detection** is live_relevance's accuracy; "N/A" when it is
//!   missing. It is part of no other column.
//! - **Overall Acc**, the ranking column, is the sum of 0.1 × Non-Live
//!   Overall, 0.1 × Live, 0.1 × Irrelevance Detection, 0.3 × Multi Turn and
//!   0.4 × Agentic; N/A unless the 14 categories of the first four were run
//!   (BFCL: never N/A). Agentic (web search, memory) is never run by itc,
//!   so it counts as 0 and a perfect model reaches
//!   0.1 × (0.8333 + 1 + 1) + 0.3 × 1 = 58.33% (see [`NOTE`]).
//!
//! Cells are percentages with two decimals ([`percent_cell`], through
//! [`fraction_percent`], which every human-facing BFCL figure uses).

use std::collections::BTreeMap;

use super::Category;
use crate::util::table::{FRACTION_UNIT, NOT_AVAILABLE, fraction_percent};

/// The caveat that goes with these columns wherever they are shown.
pub const NOTE: &str = "BFCL's Overall Acc also weighs the agentic categories (web search and \
memory, 40% of it), which itc does not run and which count as 0, as do simple_java and \
simple_javascript (a third of Simple AST), so a perfect model's Overall here is 58.33%.";

/// How the tables show BFCL's figures, said under each of them.
pub const PERCENT: &str = "Accuracies in percent with two decimals, as BFCL's leaderboard writes them; \
N/A: an aggregate resting on a category that was not run. JSON outputs hold fractions (0-1, \"unit\": \"fraction\").";

/// The `unit` field of BFCL's JSON outputs: their figures are fractions (0–1).
pub const UNIT: &str = FRACTION_UNIT;

/// One category's figure: accuracy (fraction) and the number of entries scored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CategoryFigure {
    /// Correct entries over scored entries, as the score file's header states it.
    pub accuracy: f64,
    /// The number of entries scored (the result file's length).
    pub total_count: usize,
}

/// One aggregate column: its value (fraction), whether itc shows it
/// (false = "N/A": a category it rests on was not run) and which of its
/// categories were not run.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column's name as the leaderboard's CSV files name it.
    pub name: &'static str,
    /// The value as a fraction; computed even when the cell shows "N/A".
    pub value: f64,
    /// Whether the cell shows the value (`false`: the cell is "N/A").
    /// Never shown where BFCL's leaderboard shows "N/A"; also hidden where
    /// it shows a number over categories that were not run.
    pub shown: bool,
    /// The categories it rests on that were not run, by BFCL's names, in
    /// BFCL's order (`simple_java` and `simple_javascript` always for
    /// Non-Live AST Acc): empty exactly when the column is shown.
    pub missing: Vec<&'static str>,
}

impl Column {
    /// The cell text: [`percent_cell`] of the value, or `N/A`.
    pub fn cell(&self) -> String {
        if self.shown {
            percent_cell(self.value)
        } else {
            NOT_AVAILABLE.to_string()
        }
    }
}

/// The line saying which of `columns` are complete and what the others
/// miss ([`completeness`](crate::util::table::completeness)).
pub fn completeness(columns: &[Column]) -> String {
    let named: Vec<(&str, Vec<&str>)> = columns
        .iter()
        .map(|c| (c.name, c.missing.clone()))
        .collect();
    crate::util::table::completeness(&named)
}

/// The leaderboard's cell text for a fraction: Python's
/// `"{:.2f}%".format(x * 100)`, i.e. [`fraction_percent`] and `%`
/// (`0.32125` → `"32.12%"`).
pub fn percent_cell(x: f64) -> String {
    format!("{}%", fraction_percent(x))
}

/// A figure as the combiners see it: accuracy and entry count.
#[derive(Debug, Clone, Copy)]
struct Part {
    accuracy: f64,
    count: usize,
}

/// Dataset sizes BFCL uses as the count of a category that was not scored.
const SIMPLE_JAVA_SIZE: usize = 100;
const SIMPLE_JAVASCRIPT_SIZE: usize = 50;
const WEB_SEARCH_SIZE: usize = 100;
const MEMORY_SIZE: usize = 155;

/// The categories of Simple AST that itc never runs, by BFCL's names.
const NEVER_RUN_SIMPLE: [&str; 2] = ["simple_java", "simple_javascript"];

/// Non-Live Overall's categories (Simple AST through simple_python).
const NON_LIVE: [Category; 4] = [
    Category::SimplePython,
    Category::Multiple,
    Category::Parallel,
    Category::ParallelMultiple,
];

/// Live Acc's categories.
const LIVE: [Category; 4] = [
    Category::LiveSimple,
    Category::LiveMultiple,
    Category::LiveParallel,
    Category::LiveParallelMultiple,
];

/// Irrelevance Detection's categories.
const IRRELEVANCE: [Category; 2] = [Category::Irrelevance, Category::LiveIrrelevance];

/// The multi-turn per-category columns, BFCL's names for them.
const MULTI_TURN_COLUMNS: [(&str, Category); 4] = [
    ("Multi Turn Base", Category::MultiTurnBase),
    ("Multi Turn Miss Func", Category::MultiTurnMissFunc),
    ("Multi Turn Miss Param", Category::MultiTurnMissParam),
    ("Multi Turn Long Context", Category::MultiTurnLongContext),
];

/// The number of entries in a category's full dataset.
fn dataset_size(c: Category) -> usize {
    match c {
        Category::SimplePython => 400,
        Category::Multiple | Category::Parallel | Category::ParallelMultiple => 200,
        Category::Irrelevance => 240,
        Category::LiveSimple => 258,
        Category::LiveMultiple => 1053,
        Category::LiveParallel => 16,
        Category::LiveParallelMultiple => 24,
        Category::LiveIrrelevance => 884,
        Category::LiveRelevance => 16,
        Category::MultiTurnBase
        | Category::MultiTurnMissFunc
        | Category::MultiTurnMissParam
        | Category::MultiTurnLongContext => 200,
    }
}

/// `get_category_score`: the figure, or 0 with the dataset size.
fn part(figures: &BTreeMap<Category, CategoryFigure>, c: Category) -> Part {
    match figures.get(&c) {
        Some(f) => Part {
            accuracy: f.accuracy,
            count: f.total_count,
        },
        None => absent(dataset_size(c)),
    }
}

/// A category that was not scored: accuracy 0 over its dataset size.
fn absent(size: usize) -> Part {
    Part {
        accuracy: 0.0,
        count: size,
    }
}

/// `calculate_unweighted_accuracy`: sum in order over the number of inputs.
fn unweighted(parts: &[Part]) -> Part {
    let sum: f64 = parts.iter().fold(0.0, |s, p| s + p.accuracy);
    Part {
        accuracy: sum / parts.len() as f64,
        count: parts.iter().map(|p| p.count).sum(),
    }
}

/// `calculate_weighted_accuracy`: sum of accuracy × count over the sum of
/// counts. (A zero total, which the official code cannot reach since an
/// empty result file already fails to score, gives 0.)
fn weighted(parts: &[Part]) -> Part {
    let sum: f64 = parts
        .iter()
        .fold(0.0, |s, p| s + p.accuracy * p.count as f64);
    let count: usize = parts.iter().map(|p| p.count).sum();
    Part {
        accuracy: if count == 0 { 0.0 } else { sum / count as f64 },
        count,
    }
}

/// `calculate_percentage_weighted_accuracy`: weights divided by their sum,
/// then the sum of accuracy × weight in order.
fn percentage_weighted(parts: &[Part], weights: &[f64]) -> Part {
    let total: f64 = weights.iter().sum();
    let sum = parts
        .iter()
        .zip(weights)
        .fold(0.0, |s, (p, w)| s + p.accuracy * (w / total));
    Part {
        accuracy: sum,
        count: parts.iter().map(|p| p.count).sum(),
    }
}

/// A column over `part`, resting on `rests_on` (and on `never_run`, the
/// categories itc has no data for): shown when every one was run.
fn column(
    figures: &BTreeMap<Category, CategoryFigure>,
    name: &'static str,
    part: Part,
    rests_on: &[Category],
    never_run: &[&'static str],
) -> Column {
    let missing: Vec<&'static str> = rests_on
        .iter()
        .filter(|c| !figures.contains_key(c))
        .map(|c| c.as_str())
        .chain(never_run.iter().copied())
        .collect();
    Column {
        name,
        value: part.accuracy,
        shown: missing.is_empty(),
        missing,
    }
}

/// The leaderboard's aggregate columns over per-category figures, in this
/// order: "Non-Live AST Acc", "Non-Live Overall Acc", "Live AST Acc",
/// "Live Acc", "Multi Turn Acc", "Multi Turn Base", "Multi Turn Miss
/// Func", "Multi Turn Miss Param", "Multi Turn Long Context",
/// "Irrelevance Detection", "Relevance Detection", "Overall Acc" (see the
/// module documentation for the formulas). A category absent from
/// `figures` counts as 0 with its dataset size.
pub fn leaderboard(figures: &BTreeMap<Category, CategoryFigure>) -> Vec<Column> {
    let get = |c| part(figures, c);
    let simple = unweighted(&[
        get(Category::SimplePython),
        absent(SIMPLE_JAVA_SIZE),
        absent(SIMPLE_JAVASCRIPT_SIZE),
    ]);
    let non_live = unweighted(&[
        simple,
        get(Category::Multiple),
        get(Category::Parallel),
        get(Category::ParallelMultiple),
    ]);
    let live = weighted(&LIVE.map(get));
    let irrelevance = unweighted(&IRRELEVANCE.map(get));
    let multi_turn = unweighted(&Category::MULTI_TURN.map(get));
    // Agentic: web search (2 categories) and memory (3); never run by itc.
    let web_search = unweighted(&[absent(WEB_SEARCH_SIZE); 2]);
    let memory = unweighted(&[absent(MEMORY_SIZE); 3]);
    let agentic = unweighted(&[web_search, memory]);
    let overall = percentage_weighted(
        &[non_live, live, irrelevance, multi_turn, agentic],
        &[10.0, 10.0, 10.0, 30.0, 40.0],
    );
    let overall_rests_on: Vec<Category> =
        [&NON_LIVE[..], &LIVE, &IRRELEVANCE, &Category::MULTI_TURN].concat();
    let col = |name, part, rests_on: &[Category]| column(figures, name, part, rests_on, &[]);
    let mut columns = vec![
        column(
            figures,
            "Non-Live AST Acc",
            non_live,
            &NON_LIVE,
            &NEVER_RUN_SIMPLE,
        ),
        col("Non-Live Overall Acc", non_live, &NON_LIVE),
        col("Live AST Acc", live, &LIVE),
        col("Live Acc", live, &LIVE),
        col("Multi Turn Acc", multi_turn, &Category::MULTI_TURN),
    ];
    for (name, c) in MULTI_TURN_COLUMNS {
        columns.push(col(name, get(c), &[c]));
    }
    columns.extend([
        col("Irrelevance Detection", irrelevance, &IRRELEVANCE),
        col(
            "Relevance Detection",
            get(Category::LiveRelevance),
            &[Category::LiveRelevance],
        ),
        col("Overall Acc", overall, &overall_rests_on),
    ]);
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::Path;

    /// Round `k` of a reference summary: category name → figure.
    fn summary_round(file: &str, k: usize) -> BTreeMap<Category, CategoryFigure> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut out = BTreeMap::new();
        for (name, block) in summary["categories"].as_object().unwrap() {
            let round = &block["rounds"][k];
            let figure = CategoryFigure {
                accuracy: round["accuracy"].as_f64().unwrap(),
                total_count: round["total_count"].as_u64().unwrap() as usize,
            };
            out.insert(name.parse::<Category>().unwrap(), figure);
        }
        out
    }

    /// Round `k` of all 11 categories: the non-live and live reference summaries.
    fn round(k: usize) -> BTreeMap<Category, CategoryFigure> {
        let mut figures = summary_round("datasets/ood/bfcl/reference/summary.json", k);
        figures.extend(summary_round(
            "datasets/ood/bfcl/reference-live/summary.json",
            k,
        ));
        assert_eq!(figures.len(), 11);
        figures
    }

    /// Round 1 as LEADERBOARD.md's test vectors saw it. Those were made with
    /// `scripts/bench-bfcl.sh`, which generates 5 live rounds for every
    /// category; `reference-live/` keeps 4 rounds of live_multiple and
    /// live_irrelevance, and the generator draws different answers for a
    /// different round count, so those two figures are the ones the doc
    /// lists (398/1053, 428/884) rather than the summary's (528, 578).
    fn round_1_of_the_doc() -> BTreeMap<Category, CategoryFigure> {
        let mut figures = round(1);
        let fig = |correct: usize, total: usize| CategoryFigure {
            accuracy: correct as f64 / total as f64,
            total_count: total,
        };
        assert_eq!(figures[&Category::LiveMultiple], fig(528, 1053));
        assert_eq!(figures[&Category::LiveIrrelevance], fig(578, 884));
        figures.insert(Category::LiveMultiple, fig(398, 1053));
        figures.insert(Category::LiveIrrelevance, fig(428, 884));
        figures
    }

    fn only(
        figures: &BTreeMap<Category, CategoryFigure>,
        keep: &[Category],
    ) -> BTreeMap<Category, CategoryFigure> {
        keep.iter().map(|c| (*c, figures[c])).collect()
    }

    fn is_multi_turn_column(c: &Column) -> bool {
        c.name.starts_with("Multi Turn")
    }

    /// The cells in column order ("N/A" for hidden ones), without the five
    /// multi-turn columns (the AST tests run none: they are all N/A).
    fn cells(figures: &BTreeMap<Category, CategoryFigure>) -> Vec<String> {
        let columns = leaderboard(figures);
        let (multi_turn, ast): (Vec<&Column>, Vec<&Column>) =
            columns.iter().partition(|c| is_multi_turn_column(c));
        if Category::MULTI_TURN
            .iter()
            .all(|c| !figures.contains_key(c))
        {
            assert!(multi_turn.iter().all(|c| !c.shown), "{multi_turn:?}");
        }
        ast.into_iter().map(Column::cell).collect()
    }

    /// Every column's number as BFCL's CSV writes it, N/A or not (without
    /// the multi-turn columns).
    fn numbers(figures: &BTreeMap<Category, CategoryFigure>) -> Vec<String> {
        leaderboard(figures)
            .iter()
            .filter(|c| !is_multi_turn_column(c))
            .map(|c| percent_cell(c.value))
            .collect()
    }

    fn named(figures: &BTreeMap<Category, CategoryFigure>, name: &str) -> Column {
        let columns = leaderboard(figures);
        columns.into_iter().find(|c| c.name == name).unwrap()
    }

    fn value(figures: &BTreeMap<Category, CategoryFigure>, name: &str) -> f64 {
        named(figures, name).value
    }

    fn fig(correct: usize, total: usize) -> CategoryFigure {
        CategoryFigure {
            accuracy: correct as f64 / total as f64,
            total_count: total,
        }
    }

    /// Every one of the 15 categories right on every entry of its dataset.
    fn perfect() -> BTreeMap<Category, CategoryFigure> {
        Category::every()
            .map(|c| (c, fig(dataset_size(c), dataset_size(c))))
            .collect()
    }

    #[test]
    fn column_names_in_order() {
        let names: Vec<&str> = leaderboard(&BTreeMap::new())
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(
            names,
            [
                "Non-Live AST Acc",
                "Non-Live Overall Acc",
                "Live AST Acc",
                "Live Acc",
                "Multi Turn Acc",
                "Multi Turn Base",
                "Multi Turn Miss Func",
                "Multi Turn Miss Param",
                "Multi Turn Long Context",
                "Irrelevance Detection",
                "Relevance Detection",
                "Overall Acc"
            ]
        );
    }

    #[test]
    fn round_0_all_categories() {
        // Overall is N/A: no multi-turn category was run (BFCL: 28.28%).
        assert_eq!(
            cells(&round(0)),
            [
                "N/A", "83.21%", "99.63%", "99.63%", "100.00%", "100.00%", "N/A"
            ]
        );
        assert_eq!(numbers(&round(0))[6], "28.28%");
    }

    #[test]
    fn round_1_all_categories() {
        let figures = round_1_of_the_doc();
        assert_eq!(
            cells(&figures),
            [
                "N/A", "32.12%", "38.27%", "38.27%", "45.67%", "50.00%", "N/A"
            ]
        );
        assert_eq!(numbers(&figures)[6], "11.61%");
        // The checks of the doc, as Python computes them: the sum is
        // 0.32125000000000004, whose × 100 is the tie 32.125 exactly,
        // written "32.12%" (ties to even).
        let non_live = value(&figures, "Non-Live Overall Acc");
        assert_eq!(non_live, 0.32125000000000004);
        assert_eq!(non_live * 100.0, 32.125);
        assert_eq!(value(&figures, "Live Acc"), 517.0 / 1351.0);
    }

    /// Round 1 of the doc with four multi-turn figures (base: the
    /// reference's round 1, 67 of 200; the others made up). BFCL's
    /// `generate_leaderboard_csv` on these 15 score files
    /// (`official_leaderboard.py --synthetic`, scripts/bfcl/LEADERBOARD.md)
    /// writes Multi Turn Overall Acc 30.12%, Base 33.50%, Miss Func 27.50%,
    /// Miss Param 24.00%, Long Context 35.50% and Overall Acc 20.64%.
    #[test]
    fn multi_turn_and_overall_as_bfcl_combines_them() {
        let mut figures = round_1_of_the_doc();
        let multi_turn = [(67, 200), (55, 200), (48, 200), (71, 200)];
        for (c, (correct, total)) in Category::MULTI_TURN.into_iter().zip(multi_turn) {
            figures.insert(c, fig(correct, total));
        }
        let columns = leaderboard(&figures);
        let cells: Vec<String> = columns.iter().map(Column::cell).collect();
        assert_eq!(
            cells,
            [
                "N/A", "32.12%", "38.27%", "38.27%", "30.12%", "33.50%", "27.50%", "24.00%",
                "35.50%", "45.67%", "50.00%", "20.64%"
            ]
        );
        // By hand: the unweighted mean in BFCL's order, then the weights.
        let mt = (((0.335 + 0.275) + 0.24) + 0.355) / 4.0;
        assert_eq!(value(&figures, "Multi Turn Acc"), mt);
        let parts = [
            value(&figures, "Non-Live Overall Acc"),
            value(&figures, "Live Acc"),
            value(&figures, "Irrelevance Detection"),
            mt,
            0.0,
        ];
        let weights = [0.1, 0.1, 0.1, 0.3, 0.4];
        let overall = parts.iter().zip(weights).fold(0.0, |s, (p, w)| s + p * w);
        assert_eq!(value(&figures, "Overall Acc"), overall);
        assert!(
            columns
                .iter()
                .skip(1)
                .all(|c| c.shown && c.missing.is_empty())
        );
        // The multi-turn counts are not weights: 4 entries of base weigh as much.
        figures.insert(Category::MultiTurnBase, fig(1, 4));
        let mt = (((0.25 + 0.275) + 0.24) + 0.355) / 4.0;
        assert_eq!(value(&figures, "Multi Turn Acc"), mt);
    }

    #[test]
    fn round_1_non_live_only() {
        let r1 = round_1_of_the_doc();
        let figures = only(&r1, &Category::SINGLE_TURN[..5]);
        // BFCL's CSV: "N/A", "32.12%", "N/A", "0.00%", "N/A", "N/A", "5.36%";
        // itc shows no aggregate over the live categories that were not run.
        assert_eq!(
            cells(&figures),
            ["N/A", "32.12%", "N/A", "N/A", "N/A", "N/A", "N/A"]
        );
        assert_eq!(
            numbers(&figures),
            [
                "32.12%", "32.12%", "0.00%", "0.00%", "21.46%", "0.00%", "5.36%"
            ]
        );
        let irrelevance = value(&figures, "Irrelevance Detection");
        assert_eq!(format!("{irrelevance:.4}"), "0.2146");
    }

    #[test]
    fn round_1_live_simple_and_live_irrelevance_only() {
        let r1 = round_1_of_the_doc();
        let figures = only(&r1, &[Category::LiveSimple, Category::LiveIrrelevance]);
        // BFCL's CSV: "N/A", "0.00%", "N/A", "7.40%", "N/A", "N/A", "3.16%".
        assert_eq!(cells(&figures), ["N/A"; 7]);
        assert_eq!(
            numbers(&figures),
            [
                "0.00%", "0.00%", "7.40%", "7.40%", "24.21%", "0.00%", "3.16%"
            ]
        );
        assert_eq!(value(&figures, "Live Acc"), 100.0 / 1351.0);
        let irrelevance = value(&figures, "Irrelevance Detection");
        assert_eq!(format!("{irrelevance:.4}"), "0.2421");
    }

    #[test]
    fn round_1_simple_python_only() {
        let figures = only(&round(1), &[Category::SimplePython]);
        // BFCL's CSV: "N/A", "2.75%", "N/A", "0.00%", "N/A", "N/A", "0.28%".
        assert_eq!(cells(&figures), ["N/A"; 7]);
        assert_eq!(
            numbers(&figures),
            [
                "2.75%", "2.75%", "0.00%", "0.00%", "0.00%", "0.00%", "0.28%"
            ]
        );
    }

    #[test]
    fn a_perfect_model_reaches_58_33_percent() {
        let columns = leaderboard(&perfect());
        let cells: Vec<String> = columns.iter().map(Column::cell).collect();
        let mut expected = vec!["100.00%"; 12];
        expected[0] = "N/A";
        expected[1] = "83.33%";
        expected[11] = "58.33%";
        assert_eq!(cells, expected);
        // 0.1 × (1/3 + 1 + 1 + 1) / 4 + 0.1 + 0.1 + 0.3: Java, JavaScript
        // and agentic count 0.
        let expected = 0.1 * ((1.0 / 3.0 + 3.0) / 4.0) + 0.5;
        assert!((columns[11].value - expected).abs() < 1e-12);
        assert_eq!(columns[0].missing, ["simple_java", "simple_javascript"]);
        assert!(NOTE.contains("58.33%"));
    }

    #[test]
    fn one_multi_turn_category_missing_makes_multi_turn_and_overall_na() {
        let mut figures = perfect();
        figures.remove(&Category::MultiTurnMissParam);
        let columns = leaderboard(&figures);
        let by_name = |name: &str| columns.iter().find(|c| c.name == name).unwrap();
        for name in ["Multi Turn Acc", "Multi Turn Miss Param", "Overall Acc"] {
            let c = by_name(name);
            assert_eq!(
                (c.cell(), &c.missing[..]),
                ("N/A".into(), &["multi_turn_miss_param"][..])
            );
        }
        for name in [
            "Multi Turn Base",
            "Multi Turn Miss Func",
            "Multi Turn Long Context",
        ] {
            assert_eq!(by_name(name).cell(), "100.00%");
        }
        // The numbers as BFCL's CSV has them: the missing category counts 0.
        assert_eq!(by_name("Multi Turn Acc").value, 0.75);
        assert_eq!(percent_cell(by_name("Overall Acc").value), "50.83%");
        assert_eq!(
            completeness(&columns),
            "Complete columns: Non-Live Overall Acc, Live AST Acc, Live Acc, Multi Turn Base, \
             Multi Turn Miss Func, Multi Turn Long Context, Irrelevance Detection, Relevance \
             Detection. N/A, not all run: Non-Live AST Acc (missing simple_java, \
             simple_javascript); Multi Turn Acc (missing multi_turn_miss_param); Multi Turn Miss \
             Param (missing multi_turn_miss_param); Overall Acc (missing multi_turn_miss_param)."
        );
    }

    #[test]
    fn missing_categories_count_as_zero_with_their_dataset_size() {
        // Nothing scored: every number 0, no column shown.
        assert_eq!(cells(&BTreeMap::new()), ["N/A"; 7]);
        assert_eq!(numbers(&BTreeMap::new()), ["0.00%"; 7]);
        // One live category, scored in part: the others weigh their dataset size.
        let figures = BTreeMap::from([(
            Category::LiveParallel,
            CategoryFigure {
                accuracy: 0.5,
                total_count: 8,
            },
        )]);
        assert_eq!(
            value(&figures, "Live Acc"),
            4.0 / (258.0 + 1053.0 + 8.0 + 24.0)
        );
        // All four live categories present: shown, weighted by the counts given.
        let fig = |accuracy, total_count| CategoryFigure {
            accuracy,
            total_count,
        };
        let figures = BTreeMap::from([
            (Category::LiveSimple, fig(1.0, 10)),
            (Category::LiveMultiple, fig(0.0, 30)),
            (Category::LiveParallel, fig(0.5, 4)),
            (Category::LiveParallelMultiple, fig(0.25, 4)),
        ]);
        let live_ast = named(&figures, "Live AST Acc");
        assert_eq!((live_ast.value, live_ast.shown), (13.0 / 48.0, true));
        assert_eq!(value(&figures, "Live Acc"), 13.0 / 48.0);
        // Irrelevance is unweighted, and shown only with both parts.
        let figures = BTreeMap::from([
            (Category::Irrelevance, fig(1.0, 240)),
            (Category::LiveIrrelevance, fig(0.5, 884)),
        ]);
        let irrelevance = named(&figures, "Irrelevance Detection");
        assert_eq!((irrelevance.value, irrelevance.shown), (0.75, true));
        let overall = named(&figures, "Overall Acc");
        assert_eq!((overall.value, overall.shown), (0.75 * 0.1, false));
        assert_eq!(overall.missing.len(), 12);
        // Relevance is in no other column.
        let figures = BTreeMap::from([(Category::LiveRelevance, fig(1.0, 16))]);
        assert_eq!(
            cells(&figures),
            ["N/A", "N/A", "N/A", "N/A", "N/A", "100.00%", "N/A"]
        );
    }

    #[test]
    fn an_aggregate_shows_only_when_every_category_it_rests_on_was_run() {
        let r0 = round(0);
        let non_live = only(&r0, &Category::SINGLE_TURN[..4]);
        let shown = |f: &BTreeMap<Category, CategoryFigure>| -> Vec<bool> {
            leaderboard(f).iter().map(|c| c.shown).collect()
        };
        let f = false;
        // The four non-live AST categories: Non-Live Overall, nothing else.
        let mut expected = [f; 12];
        expected[1] = true;
        assert_eq!(shown(&non_live), expected);
        // Three of them: not even that.
        let three = only(&r0, &Category::SINGLE_TURN[..3]);
        assert!(shown(&three).iter().all(|s| !s));
        // All 11 but no multi-turn: no Multi Turn, no Overall.
        let all = [f, true, true, true, f, f, f, f, f, true, true, f];
        assert_eq!(shown(&r0), all);
        // The 14 of Overall (all but live_relevance): Overall shows.
        let mut fourteen = only(&r0, &Category::SINGLE_TURN[..10]);
        for c in Category::MULTI_TURN {
            fourteen.insert(c, fig(100, 200));
        }
        let all = [
            f, true, true, true, true, true, true, true, true, true, f, true,
        ];
        assert_eq!(shown(&fourteen), all);
        // Each column is shown exactly when it misses nothing.
        for c in leaderboard(&fourteen) {
            assert_eq!(c.shown, c.missing.is_empty(), "{c:?}");
        }
    }

    #[test]
    fn percent_cells_round_the_exact_value_ties_to_even() {
        // 0.32125 * 100 is exactly 32.125: Python gives "32.12%".
        assert_eq!(0.32125 * 100.0, 32.125);
        assert_eq!(percent_cell(0.32125), "32.12%");
        // 0.00275 * 100 is 0.275000000000000022…: above the tie.
        assert_eq!(percent_cell(0.0275 * 0.1), "0.28%");
        // Python's '{:.2f}' of these exact values: 0.12, 0.38, 2.67.
        assert_eq!(percent_cell(0.00125), "0.12%");
        assert_eq!(percent_cell(0.00375), "0.38%");
        assert_eq!(percent_cell(0.02675), "2.67%");
        assert_eq!(percent_cell(1.0), "100.00%");
        assert_eq!(percent_cell(0.0), "0.00%");
        assert_eq!(percent_cell(f64::NAN), "nan%");
    }
}
