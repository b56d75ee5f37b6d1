//! `itc ood score stabletoolbench --compat official`: SoPR and SoWR (SPEC §8)
//! from StableToolBench's own result files, `.json` or `.csv` (tab-separated,
//! as its `eval_pass_rate.py` and `eval_preference.py` write them).
//!
//! - Pass rate: per query, `is_solved` maps each judge run (`int(key)`) to
//!   an answer status (`AnswerStatus.Solved` 1, `…Unsure` 0.5, `…Unsolved`
//!   or missing 0); runs 0 to `--evaluate_times` − 1 are scored (the file
//!   does not record how many were asked; default 4, the official script's);
//!   a run's score is the mean over queries; SoPR = 100 × the mean of the
//!   runs' scores ± 100 × their population standard deviation (`numpy.std`),
//!   printed as Python's `:.1f` prints them.
//! - Preference: per query, the votes of the reference and of the candidate
//!   (`.json`), or the label `1` (reference more votes), `2` (candidate
//!   more), `3` (equal) (`.csv`); SoWR = 100 × (wins + ties / 2) / queries.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use crate::benchmarks::python::numpy::numpy_std;
use crate::benchmarks::python::value::INT_MAX_STR_DIGITS;
use crate::benchmarks::python::{PyValue, literal_eval};
use crate::score::files::OutputFormat;
use crate::util::table::Table;

/// An answer status (SPEC §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerStatus {
    /// Solved: scores 1.
    Solved,
    /// Unsure: scores 0.5.
    Unsure,
    /// Unsolved: scores 0.
    Unsolved,
}

impl AnswerStatus {
    /// `AnswerStatus.Solved` or `Solved` (and the other two).
    pub fn parse(text: &str) -> Option<AnswerStatus> {
        match text.strip_prefix("AnswerStatus.").unwrap_or(text) {
            "Solved" => Some(AnswerStatus::Solved),
            "Unsure" => Some(AnswerStatus::Unsure),
            "Unsolved" => Some(AnswerStatus::Unsolved),
            _ => None,
        }
    }

    /// The score of a query in one run.
    pub fn score(self) -> f64 {
        match self {
            AnswerStatus::Solved => 1.0,
            AnswerStatus::Unsure => 0.5,
            AnswerStatus::Unsolved => 0.0,
        }
    }
}

/// One query's answer status in each judge run it has, by run number from
/// 0 (the official script's `int(key)`; a key given twice: the last wins,
/// as in a Python dict).
pub type QueryRuns = BTreeMap<u64, AnswerStatus>;

/// The official `eval_pass_rate.py`'s `--evaluate_times` default: the runs
/// SoPR is computed over when the number is not given.
pub const OFFICIAL_EVALUATE_TIMES: usize = 4;

/// SoPR of one pass-rate file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassRate {
    /// The file.
    pub file: String,
    /// 100 × the mean of the runs' scores, one decimal.
    pub sopr: f64,
    /// 100 × their population standard deviation, one decimal.
    pub sopr_std: f64,
    /// Judge runs counted (`--evaluate-times`; for `itc judge`, `--runs`),
    /// a run that no query has scoring 0.
    pub runs: usize,
    /// Queries.
    pub queries: usize,
}

/// SoWR of one preference file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinRate {
    /// The file.
    pub file: String,
    /// 100 × (wins + ties / 2) / queries, one decimal.
    pub sowr: f64,
    /// Queries where the candidate has more votes than the reference.
    pub wins: usize,
    /// Queries with equal votes.
    pub ties: usize,
    /// Queries.
    pub queries: usize,
}

/// A percentage to one decimal as Python's `f"{x:.1f}"` prints it: the
/// exact binary value correctly rounded, ties to even (31.25 → 31.2, while
/// 44.55, stored as 44.549999…, → 44.5). Rust's `{:.1}` formats the same way.
pub fn one_decimal(x: f64) -> f64 {
    format!("{x:.1}").parse().unwrap_or(x)
}

/// SoPR over runs 0 to `runs` − 1 (`file` names the source), with the
/// official script's arithmetic: each run's score is its total over the
/// queries divided by their number (a query without the run adds 0; runs
/// from `runs` on are not read), `sum(scores) / len(scores) * 100` (summed
/// in order, as Python does) and `numpy.std(scores) * 100`.
pub fn pass_rate(file: &str, queries: &[QueryRuns], runs: usize) -> PassRate {
    let mut totals = vec![0.0; runs];
    for query in queries {
        for (run, status) in query.range(..runs as u64) {
            totals[*run as usize] += status.score();
        }
    }
    let n = queries.len().max(1) as f64;
    let scores: Vec<f64> = totals.iter().map(|t| t / n).collect();
    let (sopr, std) = match scores.len() {
        0 => (0.0, 0.0),
        r => (
            scores.iter().fold(0.0, |sum, s| sum + s) / r as f64 * 100.0,
            numpy_std(&scores) * 100.0,
        ),
    };
    PassRate {
        file: file.to_string(),
        sopr: one_decimal(sopr),
        sopr_std: one_decimal(std),
        runs,
        queries: queries.len(),
    }
}

/// How one query's preference came out for the candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The candidate has more votes.
    Win,
    /// Equal votes.
    Tie,
    /// The reference has more votes.
    Loss,
}

impl Outcome {
    /// From the votes of the candidate and of the reference.
    pub fn from_votes(candidate: u64, reference: u64) -> Outcome {
        match candidate.cmp(&reference) {
            std::cmp::Ordering::Greater => Outcome::Win,
            std::cmp::Ordering::Equal => Outcome::Tie,
            std::cmp::Ordering::Less => Outcome::Loss,
        }
    }
}

/// SoWR from each query's outcome (`file` names the source).
pub fn win_rate(file: &str, outcomes: &[Outcome]) -> WinRate {
    let wins = outcomes.iter().filter(|o| **o == Outcome::Win).count();
    let ties = outcomes.iter().filter(|o| **o == Outcome::Tie).count();
    let queries = outcomes.len();
    let sowr = if queries == 0 {
        0.0
    } else {
        100.0 * (wins as f64 + ties as f64 / 2.0) / queries as f64
    };
    WinRate {
        file: file.to_string(),
        sowr: one_decimal(sowr),
        wins,
        ties,
        queries,
    }
}

/// A tab-separated file as Python's `csv` module writes it: fields may be
/// quoted (`""` is a quote inside), quoted fields may span lines. Rows with
/// the line each starts on. Linear in the text.
pub fn parse_tsv(text: &str, source: &str) -> anyhow::Result<Vec<(usize, Vec<String>)>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut row_line) = (1usize, 1usize);
    let mut quoted = false;
    let mut quote_line = 0;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => {
                    if c == '\n' {
                        line += 1;
                    }
                    field.push(c);
                }
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                quoted = true;
                quote_line = line;
            }
            '\t' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push((row_line, std::mem::take(&mut row)));
                line += 1;
                row_line = line;
            }
            _ => field.push(c),
        }
    }
    if quoted {
        bail!("{source}: line {quote_line}: a quoted field is never closed");
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push((row_line, row));
    }
    Ok(rows)
}

/// Column `name`'s index in the header row.
fn column(header: &[String], name: &str, source: &str) -> anyhow::Result<usize> {
    header
        .iter()
        .position(|h| h == name)
        .with_context(|| format!("{source}: line 1: no `{name}` column in the header"))
}

/// The run number of an `is_solved` key as Python's `int(key)` reads it
/// (spaces around, a sign, `_` between digits): `Ok(None)` for a negative
/// or too large number, which is never a run scored; `Err` when it is not
/// an integer (the official script stops there).
fn run_number(key: &str) -> Result<Option<u64>, String> {
    let text = key.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
        && digits.len() <= INT_MAX_STR_DIGITS;
    if !well_formed {
        return Err(format!(
            "field `is_solved`: run key {key:?} is not an integer"
        ));
    }
    let value = digits
        .bytes()
        .filter(|b| *b != b'_')
        .try_fold(0u64, |v, b| {
            v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        });
    Ok(match (negative, value) {
        (_, Some(0)) => Some(0),
        (true, _) => None,
        (false, v) => v,
    })
}

/// Adds run `key`'s status to `runs` (a later key of the same number
/// replaces it, as in a Python dict).
fn add_run(runs: &mut QueryRuns, key: &str, status: &str) -> Result<(), String> {
    let Some(st) = AnswerStatus::parse(status) else {
        return Err(format!(
            "field `is_solved`, run {key}: unknown status {status:?}"
        ));
    };
    if let Some(run) = run_number(key)? {
        runs.insert(run, st);
    }
    Ok(())
}

/// Parses `is_solved` (a JSON object, or a Python dict literal in `.csv`).
fn runs_of_value(v: &Value) -> Result<QueryRuns, String> {
    let Some(map) = v.as_object() else {
        return Err("field `is_solved` is not an object of run → status".into());
    };
    let mut runs = QueryRuns::new();
    for (key, s) in map {
        let Some(status) = s.as_str() else {
            return Err(format!(
                "field `is_solved`, run {key}: status {s} is not a string"
            ));
        };
        add_run(&mut runs, key, status)?;
    }
    Ok(runs)
}

fn runs_of_literal(text: &str) -> Result<QueryRuns, String> {
    let bad = || format!("field `is_solved` is not a dict of run → status: {text:.80}");
    let Ok(PyValue::Dict(entries)) = literal_eval(text) else {
        return Err(bad());
    };
    let mut runs = QueryRuns::new();
    for (k, v) in &entries {
        let key = match k {
            PyValue::Int(s) => s.clone(),
            PyValue::Str(s) => s.to_string_lossy(),
            _ => return Err(bad()),
        };
        let PyValue::Str(s) = v else {
            return Err(bad());
        };
        add_run(&mut runs, &key, &s.to_string_lossy())?;
    }
    Ok(runs)
}

fn is_csv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("tsv"))
}

fn read_file(path: &Path) -> anyhow::Result<String> {
    crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))
}

fn json_root(text: &str, source: &str) -> anyhow::Result<serde_json::Map<String, Value>> {
    match serde_json::from_str(text).with_context(|| format!("{source}: not valid JSON"))? {
        Value::Object(m) => Ok(m),
        _ => bail!("{source}: the top level is not an object keyed by query id"),
    }
}

/// Each query's run statuses from a pass-rate file's text.
pub fn read_pass_rate(text: &str, source: &str, csv: bool) -> anyhow::Result<Vec<QueryRuns>> {
    if csv {
        let rows = parse_tsv(text, source)?;
        let Some((_, header)) = rows.first() else {
            bail!("{source}: empty (no header row)");
        };
        let solved = column(header, "is_solved", source)?;
        let id = column(header, "query_id", source)?;
        return rows[1..]
            .iter()
            .map(|(line, row)| {
                let qid = row.get(id).map_or("?", String::as_str);
                row.get(solved)
                    .ok_or_else(|| "no `is_solved` field".to_string())
                    .and_then(|t| runs_of_literal(t))
                    .map_err(|e| anyhow::anyhow!("{source}: line {line} (query {qid}): {e}"))
            })
            .collect();
    }
    json_root(text, source)?
        .iter()
        .map(|(qid, entry)| {
            entry
                .get("is_solved")
                .ok_or_else(|| "no field `is_solved`".to_string())
                .and_then(runs_of_value)
                .map_err(|e| anyhow::anyhow!("{source}: query {qid}: {e}"))
        })
        .collect()
}

/// The reference among a preference entry's two models: `reference` when
/// given, else the one the file name (`<set>_<reference>_<candidate>`) puts first.
fn pick_reference<'a>(
    models: [&'a str; 2],
    reference: Option<&str>,
    stem: &str,
) -> Option<&'a str> {
    match reference {
        Some(r) => models.into_iter().find(|m| *m == r),
        None => {
            let [a, b] = models;
            if stem.ends_with(&format!("_{a}_{b}")) {
                Some(a)
            } else if stem.ends_with(&format!("_{b}_{a}")) {
                Some(b)
            } else {
                None
            }
        }
    }
}

fn json_outcome(entry: &Value, reference: Option<&str>, stem: &str) -> Result<Outcome, String> {
    let Some(map) = entry.as_object() else {
        return Err("not an object of model → votes".into());
    };
    let votes: Vec<(&str, u64)> = map
        .iter()
        .filter(|(k, _)| !k.starts_with("round_"))
        .map(|(k, v)| {
            v.as_u64()
                .map(|n| (k.as_str(), n))
                .ok_or_else(|| format!("field `{k}`: votes {v} are not a count"))
        })
        .collect::<Result<_, _>>()?;
    let [(a, va), (b, vb)] = votes[..] else {
        return Err(format!("{} models with votes, not 2", votes.len()));
    };
    let Some(r) = pick_reference([a, b], reference, stem) else {
        return Err(format!(
            "which of `{a}` and `{b}` is the reference? (give --reference)"
        ));
    };
    let (cand, refv) = if r == a { (vb, va) } else { (va, vb) };
    Ok(Outcome::from_votes(cand, refv))
}

/// Each query's outcome for the candidate, from a preference file's text.
pub fn read_preference(
    text: &str,
    source: &str,
    csv: bool,
    reference: Option<&str>,
    stem: &str,
) -> anyhow::Result<Vec<Outcome>> {
    if !csv {
        return json_root(text, source)?
            .iter()
            .map(|(qid, e)| {
                json_outcome(e, reference, stem)
                    .map_err(|m| anyhow::anyhow!("{source}: query {qid}: {m}"))
            })
            .collect();
    }
    let rows = parse_tsv(text, source)?;
    let Some((_, header)) = rows.first() else {
        bail!("{source}: empty (no header row)");
    };
    let label = column(header, "preference_label", source)?;
    let ref_col = column(header, "ref_model", source)?;
    let id = column(header, "query_id", source)?;
    rows[1..]
        .iter()
        .map(|(line, row)| {
            let qid = row.get(id).map_or("?", String::as_str);
            let fail = |m: String| anyhow::anyhow!("{source}: line {line} (query {qid}): {m}");
            if let (Some(want), Some(got)) = (reference, row.get(ref_col))
                && want != got
            {
                return Err(fail(format!("ref_model is `{got}`, not `{want}`")));
            }
            match row.get(label).map(String::as_str) {
                Some("1") => Ok(Outcome::Loss),
                Some("2") => Ok(Outcome::Win),
                Some("3") => Ok(Outcome::Tie),
                other => Err(fail(format!(
                    "field `preference_label` is {other:?}, not 1, 2 or 3"
                ))),
            }
        })
        .collect()
}

/// The most judge runs `--evaluate-times` may name (each is a score kept
/// in memory; the official script knows no bound).
pub const MAX_EVALUATE_TIMES: usize = 100_000;

/// What `itc ood score stabletoolbench` reads and prints.
#[derive(Debug, Clone)]
pub struct StabletoolbenchScoreOptions {
    /// Pass-rate result files (`pass_rate_results/<model>/<set>_<model>.{json,csv}`).
    pub pass_rate_results: Vec<PathBuf>,
    /// The judge runs SoPR is computed over (the official `--evaluate_times`):
    /// runs 0 to this − 1.
    pub evaluate_times: usize,
    /// Preference result files (`preference_results/<set>_<ref>_<cand>.{json,csv}`).
    pub preference_results: Vec<PathBuf>,
    /// The reference model's name in the preference files (default: from the file name).
    pub reference: Option<String>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The tables in one piece, however wide.
    pub wide: bool,
}

impl Default for StabletoolbenchScoreOptions {
    fn default() -> Self {
        StabletoolbenchScoreOptions {
            pass_rate_results: Vec::new(),
            evaluate_times: OFFICIAL_EVALUATE_TIMES,
            preference_results: Vec::new(),
            reference: None,
            format: OutputFormat::default(),
            wide: false,
        }
    }
}

/// A note when the runs a file holds are not runs 0 to `runs` − 1: which
/// it holds, and what SoPR does with the others.
fn runs_note(source: &str, queries: &[QueryRuns], runs: usize) -> Option<String> {
    let present: std::collections::BTreeSet<u64> =
        queries.iter().flat_map(|q| q.keys().copied()).collect();
    if present.iter().copied().eq(0..runs as u64) {
        return None;
    }
    let mut listed: Vec<String> = present.iter().take(10).map(u64::to_string).collect();
    if present.len() > 10 {
        listed.push(format!("… ({} in all)", present.len()));
    }
    Some(format!(
        "note: {source}: the file has judge runs [{}]; SoPR is over runs 0–{} (--evaluate-times {runs}; the official default is {OFFICIAL_EVALUATE_TIMES}): a run no query has scores 0, runs from {runs} on are not read",
        listed.join(", "),
        runs - 1
    ))
}

/// Runs `itc ood score stabletoolbench`: one result per file on `out`,
/// notes on `err`.
pub fn run(
    options: &StabletoolbenchScoreOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        !options.pass_rate_results.is_empty() || !options.preference_results.is_empty(),
        "give --pass-rate-results or --preference-results (or both)"
    );
    anyhow::ensure!(
        (1..=MAX_EVALUATE_TIMES).contains(&options.evaluate_times),
        "--evaluate-times must be from 1 to {MAX_EVALUATE_TIMES}, not {}",
        options.evaluate_times
    );
    let mut rates = Vec::new();
    for path in &options.pass_rate_results {
        let source = path.display().to_string();
        let queries = read_pass_rate(&read_file(path)?, &source, is_csv(path))?;
        if let Some(note) = runs_note(&source, &queries, options.evaluate_times) {
            writeln!(err, "{note}")?;
        }
        rates.push(pass_rate(&source, &queries, options.evaluate_times));
    }
    let mut wins = Vec::new();
    for path in &options.preference_results {
        let source = path.display().to_string();
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default();
        let outcomes = read_preference(
            &read_file(path)?,
            &source,
            is_csv(path),
            options.reference.as_deref(),
            &stem,
        )?;
        wins.push(win_rate(&source, &outcomes));
    }
    match options.format {
        OutputFormat::Json => {
            for r in &rates {
                writeln!(out, "{}", serde_json::to_string(r)?)?;
            }
            for w in &wins {
                writeln!(out, "{}", serde_json::to_string(w)?)?;
            }
        }
        OutputFormat::Table => write_tables(&rates, &wins, options.wide, out)?,
    }
    Ok(())
}

use crate::benchmarks::toolalpaca::eval::short_name;

fn write_tables(
    rates: &[PassRate],
    wins: &[WinRate],
    wide: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if !rates.is_empty() {
        let mut t = Table::new(["File", "Queries", "Runs", "SoPR %"]);
        for r in rates {
            t.push([
                short_name(&r.file),
                r.queries.to_string(),
                r.runs.to_string(),
                format!("{:.1} ± {:.1}", r.sopr, r.sopr_std),
            ]);
        }
        writeln!(
            out,
            "StableToolBench solvable pass rate (SPEC §8)\n\n{}",
            t.render(wide)
        )?;
    }
    if !wins.is_empty() {
        let mut t = Table::new(["File", "Queries", "Wins", "Ties", "SoWR %"]);
        for w in wins {
            t.push([
                short_name(&w.file),
                w.queries.to_string(),
                w.wins.to_string(),
                w.ties.to_string(),
                format!("{:.1}", w.sowr),
            ]);
        }
        writeln!(
            out,
            "StableToolBench solvable win rate of the candidate (SPEC §8)\n\n{}",
            t.render(wide)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(statuses: &[(u64, AnswerStatus)]) -> QueryRuns {
        statuses.iter().copied().collect()
    }

    use AnswerStatus::{Solved as S, Unsolved as U, Unsure as N};

    #[test]
    fn unsure_scores_half_and_std_is_population() {
        // Run 0: (1 + 0.5)/2 = 0.75; run 1: (0 + 0.5)/2 = 0.25 → 50 ± 25.
        let r = pass_rate("f", &[q(&[(0, S), (1, U)]), q(&[(0, N), (1, N)])], 2);
        assert_eq!((r.sopr, r.sopr_std, r.runs, r.queries), (50.0, 25.0, 2, 2));
    }

    #[test]
    fn a_query_missing_from_a_run_scores_zero() {
        let r = pass_rate("f", &[q(&[(0, S), (1, S)]), q(&[(0, S)])], 2);
        // Run 0: 1.0, run 1: 0.5 → 75 ± 25.
        assert_eq!((r.sopr, r.sopr_std), (75.0, 25.0));
    }

    #[test]
    fn runs_are_counted_up_to_evaluate_times_whatever_the_file_holds() {
        // Runs 0 and 1 of 40 queries: 27 and 21 Solved (0.675, 0.525). Over
        // the runs present: 60.0 ± 7.5; over 3 runs, run 2 scoring 0 (the
        // official script with --evaluate_times 3): 40.0 ± 28.9.
        let queries: Vec<QueryRuns> = (0..40)
            .map(|i| {
                q(&[
                    (0, if i < 27 { S } else { U }),
                    (1, if i < 21 { S } else { U }),
                ])
            })
            .collect();
        let two = pass_rate("f", &queries, 2);
        assert_eq!((two.sopr, two.sopr_std, two.runs), (60.0, 7.5, 2));
        let three = pass_rate("f", &queries, 3);
        assert_eq!((three.sopr, three.sopr_std, three.runs), (40.0, 28.9, 3));
        // The official default, 4 runs: scores 0.675, 0.525, 0, 0 (numpy:
        // 30.0 ± 30.465…).
        let four = pass_rate("f", &queries, OFFICIAL_EVALUATE_TIMES);
        assert_eq!((four.sopr, four.sopr_std, four.runs), (30.0, 30.5, 4));
        // Runs from evaluate_times on are not read.
        let one = pass_rate("f", &queries, 1);
        assert_eq!((one.sopr, one.sopr_std), (67.5, 0.0));
        assert!(runs_note("f", &queries, 2).is_none());
        let note = runs_note("f", &queries, 3).unwrap();
        assert!(
            note.contains("[0, 1]") && note.contains("runs 0–2"),
            "{note}"
        );
    }

    #[test]
    fn percentages_print_as_python_prints_them() {
        // Python: f"{31.25:.1f}" == "31.2" (a tie of the binary value: to
        // even), f"{44.55:.1f}" == "44.5" (44.55 is 44.549999…).
        for (x, want) in [
            (31.25, 31.2),
            (44.55, 44.5),
            (0.05, 0.1),
            (2.675, 2.7),
            (0.25, 0.2),
            (0.35, 0.3),
            (99.95, 100.0),
            (66.666_666_666_666_67, 66.7),
        ] {
            assert_eq!(one_decimal(x), want, "{x}");
        }
        // Every value k/2^j·100 (ties of the binary value and their
        // neighbours) and a sweep of arbitrary values, against the exact
        // decimal expansion rounded half to even.
        let mut values: Vec<f64> = Vec::new();
        for j in 1..=12 {
            for k in 0..(1u64 << j) {
                let x = 100.0 * k as f64 / (1u64 << j) as f64;
                values.extend([
                    x,
                    f64::from_bits(x.to_bits() + 1),
                    f64::from_bits(x.to_bits().saturating_sub(1)),
                ]);
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            values.push((seed >> 11) as f64 / (1u64 << 53) as f64 * 100.0);
        }
        for x in values {
            assert_eq!(format!("{x:.1}"), exact_one_decimal(x), "{x:e}");
            assert_eq!(one_decimal(x), exact_one_decimal(x).parse::<f64>().unwrap());
        }
    }

    /// `x` (0 ≤ x < 2^64 / 10) to one decimal from its exact value m / 2^k:
    /// q = ⌊10m / 2^k⌋ and the remainder against half of 2^k, ties to even.
    fn exact_one_decimal(x: f64) -> String {
        if x == 0.0 {
            return "0.0".into();
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let mantissa = u128::from(if exp == 0 {
            (bits & ((1 << 52) - 1)) << 1
        } else {
            (bits & ((1 << 52) - 1)) | (1 << 52)
        });
        // x = mantissa × 2^(exp − 1075).
        let shift = 1075 - exp.max(1);
        let tenfold = mantissa * 10;
        let q = if shift <= 0 {
            tenfold << -shift
        } else if shift >= 127 {
            0
        } else {
            let q = tenfold >> shift;
            let rem = tenfold - (q << shift);
            let half = 1u128 << (shift - 1);
            match rem.cmp(&half) {
                std::cmp::Ordering::Greater => q + 1,
                std::cmp::Ordering::Equal => q + (q & 1),
                std::cmp::Ordering::Less => q,
            }
        };
        format!("{}.{}", q / 10, q % 10)
    }

    #[test]
    fn run_keys_read_as_python_int_does() {
        assert_eq!(run_number("0"), Ok(Some(0)));
        assert_eq!(run_number(" 2 "), Ok(Some(2)));
        assert_eq!(run_number("+1_0"), Ok(Some(10)));
        assert_eq!(run_number("007"), Ok(Some(7)));
        assert_eq!(run_number("-0"), Ok(Some(0)));
        assert_eq!(run_number("-1"), Ok(None));
        assert_eq!(run_number("99999999999999999999999"), Ok(None));
        for bad in ["", "x", "1.0", "1__0", "_1", "1_", "--1", "١"] {
            assert!(run_number(bad).is_err(), "{bad:?}");
        }
        // "0" and "00" are both run 0: the later wins, as in a Python dict.
        let r = read_pass_rate(
            r#"{"1": {"is_solved": {"0": "AnswerStatus.Solved", "00": "AnswerStatus.Unsolved", "-1": "AnswerStatus.Solved"}}}"#,
            "f.json",
            false,
        )
        .unwrap();
        assert_eq!(r, [q(&[(0, U)])]);
        let e = read_pass_rate(
            r#"{"1": {"is_solved": {"first": "AnswerStatus.Solved"}}}"#,
            "f.json",
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("f.json: query 1") && e.contains("\"first\""),
            "{e}"
        );
    }

    #[test]
    fn a_tie_counts_half() {
        let w = win_rate(
            "f",
            &[Outcome::Win, Outcome::Tie, Outcome::Loss, Outcome::Tie],
        );
        assert_eq!((w.wins, w.ties, w.queries, w.sowr), (1, 2, 4, 50.0));
        assert_eq!(Outcome::from_votes(1, 1), Outcome::Tie);
        assert_eq!(Outcome::from_votes(2, 1), Outcome::Win);
    }

    #[test]
    fn json_preference_uses_the_file_name_or_the_flag() {
        let text = r#"{"7": {"ref_m": 1, "cand_m": 1, "round_0": "complete"},
                       "8": {"ref_m": 2, "cand_m": 1}}"#;
        let o = read_preference(text, "p.json", false, None, "G1_x_ref_m_cand_m").unwrap();
        assert_eq!(o, [Outcome::Tie, Outcome::Loss]);
        let o = read_preference(text, "p.json", false, Some("cand_m"), "p").unwrap();
        assert_eq!(o, [Outcome::Tie, Outcome::Win]);
        let e = read_preference(text, "p.json", false, None, "p").unwrap_err();
        assert!(e.to_string().contains("p.json: query 7"), "{e}");
    }

    #[test]
    fn malformed_files_name_file_and_entry() {
        let e = read_pass_rate(r#"{"5": {"is_solved": {"0": "Maybe"}}}"#, "a.json", false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a.json: query 5") && e.contains("is_solved"),
            "{e}"
        );
        let e = read_pass_rate(r#"{"5": {"query": "x"}}"#, "a.json", false).unwrap_err();
        assert!(e.to_string().contains("query 5"), "{e}");
        let csv = "query_id\tis_solved\n1\t{0: 'AnswerStatus.Solved'}\n2\tnot a dict\n";
        let e = read_pass_rate(csv, "b.csv", true).unwrap_err().to_string();
        assert!(e.contains("b.csv: line 3 (query 2)"), "{e}");
        let e = read_pass_rate("query_id\n1\n", "c.csv", true).unwrap_err();
        assert!(
            e.to_string().contains("c.csv: line 1: no `is_solved`"),
            "{e}"
        );
        let csv = "query_id\tpreference_label\tref_model\n1\t4\tr\n";
        let e = read_preference(csv, "d.csv", true, None, "d").unwrap_err();
        assert!(e.to_string().contains("d.csv: line 2 (query 1)"), "{e}");
        let e = parse_tsv("a\n\"open\n", "e.csv").unwrap_err();
        assert!(e.to_string().contains("e.csv: line 2"), "{e}");
    }

    #[test]
    fn tsv_quotes_span_lines_and_escape_quotes() {
        let rows = parse_tsv("a\tb\r\n\"x\ny\"\t\"say \"\"hi\"\"\"\nlast\t", "t").unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[1],
            (2, vec!["x\ny".to_string(), "say \"hi\"".to_string()])
        );
        assert_eq!(rows[2], (4, vec!["last".to_string(), String::new()]));
    }

    #[test]
    fn csv_pass_rate_reads_python_dicts() {
        let csv = "query_id\tis_solved\n1\t{1: 'AnswerStatus.Unsure', 0: 'AnswerStatus.Solved'}\n";
        let r = read_pass_rate(csv, "f.csv", true).unwrap();
        assert_eq!(r, [q(&[(1, N), (0, S)])]);
    }
}
