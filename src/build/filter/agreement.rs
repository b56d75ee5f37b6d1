//! How much the two judges agree, per dimension and on the total:
//! quadratic-weighted Cohen's kappa and Spearman's rank correlation.
//!
//! - **Kappa** treats scores as the ordered categories 1–5. A half point
//!   (or any fraction) is rounded to the nearest whole score, halves
//!   upwards (4.5 → 5, 3.5 → 4): a judge that wrote 4.5 leant to 5. With
//!   weights `w_ij = (i − j)²`, `κ = 1 − Σ w·O / Σ w·E`, where `O` counts
//!   the pairs `(a, b)` and `E` is the table the judges' own marginals would
//!   give by chance. Undefined (shown as `n/a`) when `Σ w·E = 0`, that is
//!   when both judges always gave one and the same score.
//! - **Spearman's ρ** is Pearson's correlation of the ranks of the raw
//!   scores (fractions kept), tied scores taking the average of their ranks.
//!   Undefined when either judge gave every query the same score.
//!
//! Only queries both judges scored count (`n`).

use std::fmt::Write as _;

use serde::Serialize;

use super::parse::Dimension;
use crate::spec::records::JudgeScores;
use crate::util::table::{Table, num};

/// Agreement on one dimension (or the total).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgreementRow {
    /// `relevance`, …, `language`, or `total`.
    pub dimension: String,
    /// Queries both judges scored.
    pub n: usize,
    /// Quadratic-weighted Cohen's kappa; `None` when undefined.
    pub kappa: Option<f64>,
    /// Spearman's rho; `None` when undefined.
    pub spearman: Option<f64>,
    /// Mean score of the first judge.
    pub mean_a: Option<f64>,
    /// Mean score of the second judge.
    pub mean_b: Option<f64>,
}

/// Agreement of two judges: one row per dimension, then the total.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The two judges' names.
    pub judges: [String; 2],
    /// Five dimension rows and a `total` row.
    pub rows: Vec<AgreementRow>,
}

/// One query both judges scored: each judge's five scores and total.
pub type ScorePair = ((JudgeScores, f64), (JudgeScores, f64));

impl Agreement {
    /// The agreement over the queries both judges scored.
    pub fn compute(judges: [String; 2], pairs: &[ScorePair]) -> Agreement {
        let mut rows: Vec<AgreementRow> = Dimension::ALL
            .iter()
            .map(|d| {
                let a: Vec<f64> = pairs.iter().map(|((s, _), _)| d.of(s)).collect();
                let b: Vec<f64> = pairs.iter().map(|(_, (s, _))| d.of(s)).collect();
                row(d.as_str(), &a, &b)
            })
            .collect();
        let a: Vec<f64> = pairs.iter().map(|((_, t), _)| *t).collect();
        let b: Vec<f64> = pairs.iter().map(|(_, (_, t))| *t).collect();
        rows.push(row("total", &a, &b));
        Agreement { judges, rows }
    }

    /// The terminal table.
    pub fn table(&self) -> String {
        let mut t = Table::new([
            "Dimension".to_string(),
            "n".to_string(),
            "kappa (quadratic)".to_string(),
            "Spearman rho".to_string(),
            format!("mean {}", self.judges[0]),
            format!("mean {}", self.judges[1]),
        ]);
        for r in &self.rows {
            t.push([
                r.dimension.clone(),
                r.n.to_string(),
                show(r.kappa),
                show(r.spearman),
                show(r.mean_a),
                show(r.mean_b),
            ]);
        }
        t.render(false)
    }

    /// CSV: `dimension,n,kappa,spearman,mean_a,mean_b` (undefined values empty).
    pub fn to_csv(&self) -> String {
        let mut out = String::from("dimension,n,kappa,spearman,mean_a,mean_b\n");
        for r in &self.rows {
            let cell = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "{},{},{},{},{},{}",
                r.dimension,
                r.n,
                cell(r.kappa),
                cell(r.spearman),
                cell(r.mean_a),
                cell(r.mean_b)
            );
        }
        out
    }
}

fn show(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), num)
}

fn row(dimension: &str, a: &[f64], b: &[f64]) -> AgreementRow {
    let mean = |x: &[f64]| (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64);
    AgreementRow {
        dimension: dimension.to_string(),
        n: a.len(),
        kappa: quadratic_kappa(a, b),
        spearman: spearman(a, b),
        mean_a: mean(a),
        mean_b: mean(b),
    }
}

/// The 1–5 category of a score: rounded to the nearest whole, halves up.
pub fn category(score: f64) -> usize {
    // Scores are positive, so rounding half away from zero rounds halves up.
    (score.round() as usize).clamp(1, 5)
}

/// Quadratic-weighted Cohen's kappa of two raters over the categories 1–5
/// (scores rounded by [`category`]); `None` when undefined.
pub fn quadratic_kappa(a: &[f64], b: &[f64]) -> Option<f64> {
    assert_eq!(a.len(), b.len(), "one score per rater per item");
    let n = a.len();
    if n == 0 {
        return None;
    }
    let mut observed = [[0.0f64; 5]; 5];
    for (&x, &y) in a.iter().zip(b) {
        observed[category(x) - 1][category(y) - 1] += 1.0;
    }
    let rows: Vec<f64> = observed.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<f64> = (0..5)
        .map(|j| observed.iter().map(|r| r[j]).sum())
        .collect();
    let (mut disagreement, mut chance) = (0.0, 0.0);
    for i in 0..5 {
        for j in 0..5 {
            let w = (i as f64 - j as f64).powi(2);
            disagreement += w * observed[i][j];
            chance += w * rows[i] * cols[j] / n as f64;
        }
    }
    (chance > 0.0).then(|| 1.0 - disagreement / chance)
}

/// Unweighted Cohen's kappa of two raters' categorical labels, one pair per
/// item: (observed − chance agreement) / (1 − chance); `None` when there is
/// no pair or chance agreement is 1 (both raters always gave one label).
pub fn cohen_kappa<T: Eq + std::hash::Hash>(pairs: &[(T, T)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.is_empty() {
        return None;
    }
    let mut first: std::collections::HashMap<&T, f64> = std::collections::HashMap::new();
    let mut second: std::collections::HashMap<&T, f64> = std::collections::HashMap::new();
    let mut agree = 0.0;
    for (a, b) in pairs {
        *first.entry(a).or_default() += 1.0;
        *second.entry(b).or_default() += 1.0;
        agree += f64::from(u8::from(a == b));
    }
    let observed = agree / n;
    let chance: f64 = first
        .iter()
        .map(|(label, count)| count / n * second.get(label).copied().unwrap_or(0.0) / n)
        .sum();
    (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
}

/// Ranks 1..n of the values, ties sharing the average of their ranks.
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    let mut ranks = vec![0.0; x.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]] == x[order[start]] {
            end += 1;
        }
        // Positions start..end hold ranks start+1 ..= end.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's rho: Pearson's correlation of the average ranks; `None` when
/// undefined (fewer than two items, or one rater constant).
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    assert_eq!(a.len(), b.len(), "one score per rater per item");
    if a.len() < 2 {
        return None;
    }
    pearson(&average_ranks(a), &average_ranks(b))
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests {
    #[test]
    fn unweighted_kappa_of_categorical_labels() {
        // 10 items: 4 (x, x), 1 (x, y), 2 (y, x), 3 (y, y). Observed 0.7;
        // chance 0.5·0.6 + 0.5·0.4 = 0.5; kappa 0.4.
        let mut pairs = vec![("x", "x"); 4];
        pairs.push(("x", "y"));
        pairs.extend(vec![("y", "x"); 2]);
        pairs.extend(vec![("y", "y"); 3]);
        assert!((cohen_kappa(&pairs).unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(cohen_kappa(&[("x", "x"), ("x", "x")]), None);
        assert_eq!(cohen_kappa::<&str>(&[]), None);
        assert!((cohen_kappa(&[("x", "x"), ("y", "y")]).unwrap() - 1.0).abs() < 1e-12);
    }

    use super::*;

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("defined");
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(
            average_ranks(&[3.0, 1.0, 3.0, 2.0, 3.0]),
            [4.0, 1.0, 4.0, 2.0, 4.0]
        );
        assert_eq!(average_ranks(&[]), Vec::<f64>::new());
    }

    #[test]
    fn rounding_of_half_points() {
        assert_eq!(
            [1.0, 1.4, 1.5, 2.5, 3.5, 4.49, 4.5, 5.0].map(category),
            [1, 1, 2, 3, 4, 4, 5, 5]
        );
    }

    // Expected values worked out by hand and checked with a short
    // independent Python script (plain Python, no libraries):
    //   a = [1, 2, 3, 4, 5, 4, 3, 4.5]  (4.5 counts as category 5)
    //   b = [1, 3, 3, 5, 4, 4, 2, 4]
    //   categories: a = [1,2,3,4,5,4,3,5], b = [1,3,3,5,4,4,2,4]
    //   Σ w·O = 0+1+0+1+1+0+1+1 = 5
    //   marginals: a {1:1,2:1,3:2,4:2,5:2}, b {1:1,2:1,3:2,4:3,5:1}
    //   Σ w·E = Σ_ij (i−j)² r_i c_j / 8 = 204 / 8 = 25.5
    //   κ = 1 − 5/25.5 = 0.803921…
    //   ranks a = [1, 2, 3.5, 5.5, 8, 5.5, 3.5, 7]
    //   ranks b = [1, 3.5, 3.5, 8, 6, 6, 2, 6]
    //   Σ dx·dy = 32.25, Σ dx² = 41, Σ dy² = 39.5
    //   ρ = 32.25 / sqrt(41 · 39.5) = 0.801381…
    #[test]
    fn kappa_and_spearman_against_hand_computed_values() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 4.0, 3.0, 4.5];
        let b = [1.0, 3.0, 3.0, 5.0, 4.0, 4.0, 2.0, 4.0];
        close(quadratic_kappa(&a, &b), 1.0 - 5.0 / 25.5);
        close(spearman(&a, &b), 32.25 / (41.0f64 * 39.5).sqrt());
        assert!((quadratic_kappa(&a, &b).unwrap() - 0.803921568627451).abs() < 1e-12);
        assert!((spearman(&a, &b).unwrap() - 0.8013813714460624).abs() < 1e-12);
    }

    #[test]
    fn perfect_opposite_and_undefined() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        close(quadratic_kappa(&a, &a), 1.0);
        close(spearman(&a, &a), 1.0);
        let reversed = [5.0, 4.0, 3.0, 2.0, 1.0];
        close(spearman(&a, &reversed), -1.0);
        // Σ w·O = 16+4+0+4+16 = 40, Σ w·E = Σ_ij (i−j)²/5 = 100/5 = 20: κ = 1 − 40/20.
        close(quadratic_kappa(&a, &reversed), -1.0);
        let constant = [4.0; 5];
        assert_eq!(quadratic_kappa(&constant, &constant), None);
        assert_eq!(spearman(&a, &constant), None);
        // One judge constant: no agreement beyond chance, κ = 0.
        close(quadratic_kappa(&a, &constant), 0.0);
        assert_eq!(quadratic_kappa(&[], &[]), None);
        assert_eq!(spearman(&[3.0], &[3.0]), None);
    }

    #[test]
    fn table_and_csv_rows() {
        let s = |x: f64| JudgeScores {
            relevance: x,
            clarity: x,
            specificity: 4.0,
            practicality: x,
            language: x,
        };
        let pairs = vec![
            ((s(3.0), 3.0), (s(3.0), 3.5)),
            ((s(5.0), 5.0), (s(4.0), 4.0)),
        ];
        let agreement = Agreement::compute(["A".into(), "B".into()], &pairs);
        assert_eq!(agreement.rows.len(), 6);
        assert_eq!(agreement.rows[2].kappa, None, "specificity constant");
        let csv = agreement.to_csv();
        assert!(csv.starts_with("dimension,n,kappa,spearman,mean_a,mean_b\nrelevance,2,"));
        assert!(
            csv.contains("\nspecificity,2,,,4.000000,4.000000\n"),
            "{csv}"
        );
        let table = agreement.table();
        assert!(table.contains("mean A") && table.contains("n/a"), "{table}");
    }
}
