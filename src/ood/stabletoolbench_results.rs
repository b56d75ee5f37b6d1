//! `itc ood score stabletoolbench --compat official`: SoPR and SoWR (SPEC §8)
//! from StableToolBench's own result files, `.json` or `.csv` (tab-separated,
//! as its `eval_pass_rate.py` and `eval_preference.py` write them).
//!
//! - Pass rate: per query, `is_solved` maps each judge run to an answer
//!   status (`AnswerStatus.Solved` 1, `…Unsure` 0.5, `…Unsolved` or missing 0);
//!   a run's score is the mean over queries; SoPR = 100 × the mean of the
//!   runs' scores ± 100 × their population standard deviation.
//! - Preference: per query, the votes of the reference and of the candidate
//!   (`.json`), or the label `1` (reference more votes), `2` (candidate
//!   more), `3` (equal) (`.csv`); SoWR = 100 × (wins + ties / 2) / queries.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use super::python::{PyValue, literal_eval};
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

/// One query's answer status in each judge run, as `(run, status)`.
pub type QueryRuns = Vec<(String, AnswerStatus)>;

/// SoPR of one pass-rate file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassRate {
    /// The file.
    pub file: String,
    /// 100 × the mean of the runs' scores, one decimal.
    pub sopr: f64,
    /// 100 × their population standard deviation, one decimal.
    pub sopr_std: f64,
    /// Judge runs (distinct run keys over all queries).
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

/// Rounds a percentage to one decimal, as the papers print them.
fn one_decimal(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// SoPR from each query's run statuses (`file` names the source).
pub fn pass_rate(file: &str, queries: &[QueryRuns]) -> PassRate {
    // Each run's total in one pass: a query missing from a run adds nothing.
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    for (run, status) in queries.iter().flatten() {
        *totals.entry(run.as_str()).or_default() += status.score();
    }
    let n = queries.len().max(1) as f64;
    let scores: Vec<f64> = totals.values().map(|t| t / n).collect();
    let r = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / r;
    let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / r;
    PassRate {
        file: file.to_string(),
        sopr: one_decimal(100.0 * mean),
        sopr_std: one_decimal(100.0 * var.sqrt()),
        runs: scores.len(),
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

/// Parses `is_solved` (a JSON object, or a Python dict literal in `.csv`).
fn runs_of_value(v: &Value) -> Result<QueryRuns, String> {
    let Some(map) = v.as_object() else {
        return Err("field `is_solved` is not an object of run → status".into());
    };
    map.iter()
        .map(|(run, s)| {
            let text = s.as_str().unwrap_or_default();
            AnswerStatus::parse(text)
                .map(|st| (run.clone(), st))
                .ok_or_else(|| format!("field `is_solved`, run {run}: unknown status {s}"))
        })
        .collect()
}

fn runs_of_literal(text: &str) -> Result<QueryRuns, String> {
    let bad = || format!("field `is_solved` is not a dict of run → status: {text:.80}");
    let Ok(PyValue::Dict(entries)) = literal_eval(text) else {
        return Err(bad());
    };
    entries
        .iter()
        .map(|(k, v)| {
            let run = match k {
                PyValue::Int(s) => s.clone(),
                PyValue::Str(s) => s.to_string_lossy(),
                _ => return Err(bad()),
            };
            let PyValue::Str(s) = v else {
                return Err(bad());
            };
            let s = s.to_string_lossy();
            AnswerStatus::parse(&s)
                .map(|st| (run.clone(), st))
                .ok_or_else(|| format!("field `is_solved`, run {run}: unknown status {s:?}"))
        })
        .collect()
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

/// What `itc ood score stabletoolbench` reads and prints.
#[derive(Debug, Clone, Default)]
pub struct StabletoolbenchScoreOptions {
    /// Pass-rate result files (`pass_rate_results/<model>/<set>_<model>.{json,csv}`).
    pub pass_rate_results: Vec<PathBuf>,
    /// Preference result files (`preference_results/<set>_<ref>_<cand>.{json,csv}`).
    pub preference_results: Vec<PathBuf>,
    /// The reference model's name in the preference files (default: from the file name).
    pub reference: Option<String>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The tables in one piece, however wide.
    pub wide: bool,
}

/// Runs `itc ood score stabletoolbench`: one result per file on `out`.
pub fn run(options: &StabletoolbenchScoreOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(
        !options.pass_rate_results.is_empty() || !options.preference_results.is_empty(),
        "give --pass-rate-results or --preference-results (or both)"
    );
    let mut rates = Vec::new();
    for path in &options.pass_rate_results {
        let source = path.display().to_string();
        let queries = read_pass_rate(&read_file(path)?, &source, is_csv(path))?;
        rates.push(pass_rate(&source, &queries));
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

use super::toolalpaca_eval::short_name;

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

    fn q(statuses: &[(&str, AnswerStatus)]) -> QueryRuns {
        statuses.iter().map(|(r, s)| (r.to_string(), *s)).collect()
    }

    use AnswerStatus::{Solved as S, Unsolved as U, Unsure as N};

    #[test]
    fn unsure_scores_half_and_std_is_population() {
        // Run 0: (1 + 0.5)/2 = 0.75; run 1: (0 + 0.5)/2 = 0.25 → 50 ± 25.
        let r = pass_rate("f", &[q(&[("0", S), ("1", U)]), q(&[("0", N), ("1", N)])]);
        assert_eq!((r.sopr, r.sopr_std, r.runs, r.queries), (50.0, 25.0, 2, 2));
    }

    #[test]
    fn a_query_missing_from_a_run_scores_zero() {
        let r = pass_rate("f", &[q(&[("0", S), ("1", S)]), q(&[("0", S)])]);
        // Run 0: 1.0, run 1: 0.5 → 75 ± 25.
        assert_eq!((r.sopr, r.sopr_std), (75.0, 25.0));
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
        assert_eq!(r, [q(&[("1", N), ("0", S)])]);
    }
}
