//! Other benchmarks' official scores in a report: what `itc eval --dataset
//! bfcl:…` wrote into each input's `official.json` (BFCL's accuracy per
//! category, by its own checker, and its leaderboard's aggregate columns)
//! and what `--dataset tau:…` wrote (τ³-bench's average reward and pass^k
//! with their 95% bootstrap intervals over tasks, and, while NL assertions
//! wait on a judge, pass^k with the reward without them), beside SPEC §3's
//! scores and never mixed into them.
//!
//! The file is read as plain JSON (the report does not depend on the code
//! that wrote it); one that cannot be read is named in a note and left out.
//!
//! The figures stay fractions (0–1) in `report.json` (`"unit": "fraction"`);
//! every table shows them in percent with two decimals, as BFCL's
//! leaderboard does ([`fraction_percent`]), and an aggregate resting on a
//! category that was not run as `N/A`, without a number; a line per model
//! ([`completeness`]) says which aggregates are complete and which
//! categories the others miss (the `missing` of each column).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::util::table::{FRACTION_UNIT, Table, fraction_percent, fraction_percent_or_na};

/// One official figure of one model: a category's accuracy or an aggregate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfficialFigure {
    /// The model, as named in the report.
    pub model: String,
    /// The benchmark (`bfcl`).
    pub benchmark: String,
    /// The category or the leaderboard column.
    pub name: String,
    /// The figure, a fraction (0–1).
    pub value: f64,
    /// The unit of `value` and `interval`: always `fraction`.
    pub unit: &'static str,
    /// Entries correct and scored (categories only).
    pub correct: Option<u64>,
    /// Entries scored (categories only).
    pub total: Option<u64>,
    /// 95% Wilson interval of a category's accuracy, fractions.
    pub interval: Option<(f64, f64)>,
    /// Whether it is shown (false: "N/A", a category it rests on was not run).
    pub shown: bool,
    /// An aggregate's categories that were not run (empty for categories
    /// and for complete aggregates).
    pub missing: Vec<String>,
}

/// Every official figure of the inputs; `rename` gives each input's model
/// names in the report. Files that cannot be read go to `notes`.
pub fn figures(
    dirs: &[&Path],
    rename: &[HashMap<String, String>],
    notes: &mut Vec<String>,
) -> Vec<OfficialFigure> {
    let mut all = Vec::new();
    for (dir, rename) in dirs.iter().zip(rename) {
        let path = dir.join("official.json");
        if !path.is_file() {
            continue;
        }
        let read = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
        match read {
            Ok(official) if official["benchmark"] == "bfcl" => {
                all.extend(bfcl_figures(&official, rename));
            }
            Ok(official) if official["benchmark"] == "tau" => {
                all.extend(tau_figures(&official, rename));
            }
            Ok(_) => {}
            Err(e) => notes.push(format!(
                "note: {} left out of the official figures: {e}",
                path.display()
            )),
        }
    }
    all
}

fn bfcl_figures(official: &Value, rename: &HashMap<String, String>) -> Vec<OfficialFigure> {
    let mut out = Vec::new();
    for r in official["results"].as_array().into_iter().flatten() {
        let model = renamed(r, rename);
        for c in r["categories"].as_array().into_iter().flatten() {
            let (Some(correct), Some(total)) =
                (c["correct_count"].as_u64(), c["total_count"].as_u64())
            else {
                continue;
            };
            out.push(OfficialFigure {
                model: model.clone(),
                benchmark: "bfcl".into(),
                name: c["category"].as_str().unwrap_or_default().to_string(),
                value: c["accuracy"].as_f64().unwrap_or(0.0),
                unit: FRACTION_UNIT,
                correct: Some(correct),
                total: Some(total),
                interval: wilson(correct, total),
                shown: true,
                missing: Vec::new(),
            });
        }
        for column in r["leaderboard"].as_array().into_iter().flatten() {
            let Some(value) = column["value"].as_f64() else {
                continue;
            };
            let shown = column["shown"].as_bool().unwrap_or(true);
            let mut missing: Vec<String> = column["missing"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect();
            if !shown && missing.is_empty() {
                // An official.json written before the columns named them.
                missing.push(NOT_RECORDED.to_string());
            }
            out.push(OfficialFigure {
                model: model.clone(),
                benchmark: "bfcl".into(),
                name: column["name"].as_str().unwrap_or_default().to_string(),
                value,
                unit: FRACTION_UNIT,
                correct: None,
                total: None,
                interval: None,
                shown,
                missing,
            });
        }
    }
    out
}

/// A result's model as the report names it.
fn renamed(result: &Value, rename: &HashMap<String, String>) -> String {
    let name = result["model"].as_str().unwrap_or_default();
    rename
        .get(name)
        .cloned()
        .unwrap_or_else(|| name.to_string())
}

/// τ³-bench's figures of each model: average reward, pass^1 … pass^k with
/// their intervals, and pass^k without NL when some trials wait on a judge.
fn tau_figures(official: &Value, rename: &HashMap<String, String>) -> Vec<OfficialFigure> {
    let mut out = Vec::new();
    for r in official["results"].as_array().into_iter().flatten() {
        let model = renamed(r, rename);
        let benchmark = format!("tau-{}", r["domain"].as_str().unwrap_or_default());
        let figure =
            |name: String, value: Option<f64>, interval: Option<(f64, f64)>| OfficialFigure {
                model: model.clone(),
                benchmark: benchmark.clone(),
                name,
                value: value.unwrap_or(0.0),
                unit: FRACTION_UNIT,
                correct: None,
                total: None,
                interval,
                shown: value.is_some(),
                missing: Vec::new(),
            };
        out.push(figure("avg reward".into(), r["avg_reward"].as_f64(), None));
        let waiting = r["needs_nl_judge"].as_u64().unwrap_or(0) > 0;
        for (key, label) in [
            ("pass_hat_ks", ""),
            ("pass_hat_ks_without_nl", " (without NL)"),
        ] {
            if !label.is_empty() && !waiting {
                continue;
            }
            for (k, value) in r[key].as_object().into_iter().flatten() {
                let interval = match r[format!("{key}_ci")][k].as_array().map(Vec::as_slice) {
                    Some([lo, hi]) => lo.as_f64().zip(hi.as_f64()),
                    _ => None,
                };
                out.push(figure(format!("pass^{k}{label}"), value.as_f64(), interval));
            }
        }
    }
    out
}

/// What an N/A aggregate misses when its `official.json` does not say.
const NOT_RECORDED: &str = "categories not recorded";

/// One line per model with aggregates: `<model>: Complete columns: …; N/A,
/// not all run: <column> (missing <categories>); …`.
pub fn completeness(figures: &[OfficialFigure]) -> Vec<String> {
    let mut models: Vec<&str> = Vec::new();
    for f in figures {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    models
        .into_iter()
        .filter_map(|model| {
            let columns: Vec<(&str, Vec<&str>)> = figures
                .iter()
                .filter(|f| f.model == model && f.benchmark == "bfcl" && f.total.is_none())
                .map(|f| {
                    (
                        f.name.as_str(),
                        f.missing.iter().map(String::as_str).collect(),
                    )
                })
                .collect();
            (!columns.is_empty())
                .then(|| format!("{model}: {}", crate::util::table::completeness(&columns)))
        })
        .collect()
}

/// The 95% Wilson score interval of `correct` out of `total`, fractions.
fn wilson(correct: u64, total: u64) -> Option<(f64, f64)> {
    if total == 0 {
        return None;
    }
    let (n, z) = (total as f64, 1.96_f64);
    let p = correct as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// What the official figures' table shows, said above it (plain text):
/// a sentence per benchmark among `figures`.
pub fn intro(figures: &[OfficialFigure]) -> String {
    let has = |prefix: &str| figures.iter().any(|f| f.benchmark.starts_with(prefix));
    let mut parts = vec![
        "Each benchmark's own scores, beside the scores above and never mixed into them, in percent with two decimals (report.json keeps fractions).",
    ];
    if has("bfcl") {
        parts.push("BFCL: its accuracy per category by its own checker and its leaderboard's aggregate columns; N/A: an aggregate resting on a category that was not run.");
    }
    if has("tau-") {
        parts.push("τ³-bench: average reward and pass^k by its own evaluator, with 95% bootstrap intervals over tasks; \"without NL\": the trials whose NL assertions wait on a judge counted with their reward without them (an upper bound), where the plain row counts them as failed.");
    }
    parts.join(" ")
}

/// The columns of the official figures' table: three of text, then numbers.
pub const HEADER: [&str; 6] = [
    "Model",
    "Benchmark",
    "Score",
    "%",
    "95% CI",
    "Correct / total",
];

/// The rows of the official figures' table, unescaped, as [`HEADER`]:
/// percent with two decimals, `N/A` for a figure not shown.
pub fn rows(figures: &[OfficialFigure]) -> Vec<Vec<String>> {
    figures
        .iter()
        .map(|f| {
            vec![
                f.model.clone(),
                f.benchmark.clone(),
                f.name.clone(),
                fraction_percent_or_na(f.shown.then_some(f.value)),
                f.interval.map_or("–".to_string(), |(lo, hi)| {
                    format!("{}–{}", fraction_percent(lo), fraction_percent(hi))
                }),
                match (f.correct, f.total) {
                    (Some(c), Some(t)) => format!("{c} / {t}"),
                    _ => "–".to_string(),
                },
            ]
        })
        .collect()
}

/// The terminal table of the official figures.
pub fn table(figures: &[OfficialFigure], wide: bool) -> String {
    let mut t = Table::new(HEADER).with_labels(3);
    for row in rows(figures) {
        t.push(row);
    }
    let mut out = t.render(wide);
    for line in completeness(figures) {
        out.push('\n');
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_brackets_the_proportion() {
        let (lo, hi) = wilson(132, 400).unwrap();
        assert!(lo < 0.33 && 0.33 < hi, "{lo} {hi}");
        assert!((hi - lo - 0.091).abs() < 0.003, "{lo} {hi}");
        assert_eq!(wilson(0, 0), None);
        let (lo, hi) = wilson(10, 10).unwrap();
        assert!(lo > 0.6 && (hi - 1.0).abs() < 1e-9);
    }

    #[test]
    fn categories_and_columns_are_read_with_renamed_models() {
        let official = serde_json::json!({"benchmark": "bfcl", "results": [{
            "model": "m", "categories": [{"category": "simple_python", "accuracy": 0.5, "correct_count": 1, "total_count": 2}],
            "leaderboard": [{"name": "Non-Live AST Acc", "value": 0.125, "shown": false}]}]});
        let rename = HashMap::from([("m".to_string(), "m (run 1)".to_string())]);
        let f = bfcl_figures(&official, &rename);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].model.as_str(), f[0].value, f[0].total),
            ("m (run 1)", 0.5, Some(2))
        );
        let rows = rows(&f);
        assert_eq!(rows[1][2], "Non-Live AST Acc");
        assert_eq!(rows[1][3], "N/A", "{:?}", rows[1]);
        assert_eq!(rows[0][3], "50.00", "{:?}", rows[0]);
        assert_eq!(rows[0][5], "1 / 2");
        // Written before the columns named their missing categories.
        assert_eq!(
            completeness(&f),
            [
                "m (run 1): Complete columns: none. N/A, not all run: Non-Live AST Acc (missing categories not recorded)."
            ]
        );
    }

    #[test]
    fn each_model_says_which_columns_are_complete_and_what_the_others_miss() {
        let column = |name: &str, shown: bool, missing: &[&str]| serde_json::json!({"name": name, "value": 0.5, "shown": shown, "missing": missing});
        let official = serde_json::json!({"benchmark": "bfcl", "results": [
            {"model": "a", "categories": [], "leaderboard": [
                column("Live Acc", true, &[]),
                column("Multi Turn Acc", false, &["multi_turn_base", "multi_turn_miss_func"])]},
            {"model": "b", "categories": [], "leaderboard": [column("Live Acc", true, &[])]}]});
        let f = bfcl_figures(&official, &HashMap::new());
        assert_eq!(f[1].missing, ["multi_turn_base", "multi_turn_miss_func"]);
        let lines = [
            "a: Complete columns: Live Acc. N/A, not all run: Multi Turn Acc (missing multi_turn_base, multi_turn_miss_func).",
            "b: Complete columns: Live Acc.",
        ];
        assert_eq!(completeness(&f), lines);
        assert!(table(&f, true).ends_with(&lines.join("\n")));
    }

    #[test]
    fn tau_figures_carry_intervals_and_the_without_nl_rows_only_while_trials_wait() {
        let result = |waiting: u64| {
            serde_json::json!({"benchmark": "tau", "results": [{
                "model": "m", "domain": "retail", "avg_reward": 0.5, "needs_nl_judge": waiting,
                "pass_hat_ks": {"1": 0.5, "2": 0.25}, "pass_hat_ks_ci": {"1": [0.4, 0.6], "2": null},
                "pass_hat_ks_without_nl": {"1": 0.75, "2": 0.5},
                "pass_hat_ks_without_nl_ci": {"1": [0.6, 0.9], "2": [0.3, 0.7]}}]})
        };
        let rename = HashMap::from([("m".to_string(), "m@run".to_string())]);
        let f = tau_figures(&result(0), &rename);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["avg reward", "pass^1", "pass^2"]);
        assert_eq!(
            (f[1].model.as_str(), f[1].benchmark.as_str()),
            ("m@run", "tau-retail")
        );
        assert_eq!((f[1].interval, f[2].interval), (Some((0.4, 0.6)), None));
        let f = tau_figures(&result(3), &rename);
        assert_eq!(f.len(), 5);
        assert_eq!(
            (f[3].name.as_str(), f[3].value),
            ("pass^1 (without NL)", 0.75)
        );
        assert_eq!(rows(&f)[3][4], "60.00–90.00");
        assert!(completeness(&f).is_empty());
        assert!(intro(&f).contains("τ³-bench") && !intro(&f).contains("BFCL"));
    }
}
