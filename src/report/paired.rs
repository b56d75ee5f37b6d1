//! Paired comparisons: is model A really better than model B on these tasks,
//! or is it noise?
//!
//! Both models answered the same tasks, so the comparison is paired: per
//! task, the difference of A's and B's score; the observed difference is
//! their mean. Its 95% interval comes from the same seeded Poisson bootstrap
//! as every interval of the report (one weight per task and resample, shared
//! by every model, [`Bootstrap`]): the weighted mean difference in each
//! resample, and its 2.5th and 97.5th percentiles. The two-sided p-value is
//! twice the smaller share of resamples on either side of zero,
//! `p = min(1, 2·min(#{d* ≤ 0}, #{d* ≥ 0}) / B)`; identical scores give
//! p = 1. Each model's weighted sums are taken once and a resample's
//! difference is the difference of two sums ([`PairedScores`]); one within
//! 10⁻⁹ of zero counts as zero (a tie), not as a float's rounding.
//!
//! A report makes many comparisons, and at p < 0.05 one in twenty pairs
//! that do not differ would look different by chance. So the p-values of
//! one metric's comparisons in one report (its *family*) are also adjusted
//! by Holm–Bonferroni ([`holm`]): sorted ascending, the i-th smallest of m
//! (from 0) is multiplied by m − i, each kept at least as large as the one
//! before, and capped at 1. A comparison is significant when its adjusted
//! p-value is below 0.05; this keeps the chance of any false "significant"
//! in the family at 5%.
//!
//! The ranking sorts models by a metric; going down the list, a model
//! shares the rank of the first model of the current group unless it is
//! significantly worse than it (Holm-adjusted p < 0.05 in the family of
//! every pair of models on that metric), in which case it opens a new
//! group whose rank is its position (1, 1, 3, …).

use std::collections::HashMap;

use serde::Serialize;

use crate::score::aggregate::metric_values;
use crate::score::bootstrap::{Bootstrap, Interval, means, percentile_interval};
use crate::score::stream::ModelRun;

/// A resample's difference this close to zero is zero: two sums that are
/// equal in exact arithmetic (say 2/3 + 1/3 and 1/3 + 2/3) can differ in
/// the last bits of a float. Real differences are far larger: a mean of
/// values with small denominators over at most millions of tasks.
const TIE: f64 = 1e-9;

/// Significance level of the ranking.
pub const ALPHA: f64 = 0.05;

/// A headline metric two models are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Tool selection F1 (macro).
    SelectionF1,
    /// Tool invocation F1 (macro).
    InvocationF1,
    /// Language match.
    Lm,
    /// Format match.
    Fm,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 4] = [
        Metric::SelectionF1,
        Metric::InvocationF1,
        Metric::Lm,
        Metric::Fm,
    ];

    /// The name in files (`selection_f1`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::SelectionF1 => "selection_f1",
            Metric::InvocationF1 => "invocation_f1",
            Metric::Lm => "lm",
            Metric::Fm => "fm",
        }
    }

    /// The name in tables (`Sel. F1`, …).
    pub fn label(self) -> &'static str {
        match self {
            Metric::SelectionF1 => "Sel. F1",
            Metric::InvocationF1 => "Inv. F1",
            Metric::Lm => "LM",
            Metric::Fm => "FM",
        }
    }

    /// Its position in [`Metric::ALL`].
    pub fn position(self) -> usize {
        match self {
            Metric::SelectionF1 => 0,
            Metric::InvocationF1 => 1,
            Metric::Lm => 2,
            Metric::Fm => 3,
        }
    }

    /// Its position in [`metric_values`].
    fn index(self) -> usize {
        match self {
            Metric::Lm => 0,
            Metric::Fm => 1,
            Metric::SelectionF1 => 4,
            Metric::InvocationF1 => 7,
        }
    }

    /// The metric's value per task of a model, in `[0, 1]`.
    pub fn per_task(self, run: &ModelRun) -> Vec<f64> {
        run.outcomes
            .iter()
            .map(|o| metric_values(&o)[self.index()])
            .collect()
    }
}

/// One paired comparison: A − B on one metric, in percentage points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Model A.
    pub a: String,
    /// Model B.
    pub b: String,
    /// The metric.
    pub metric: Metric,
    /// A's score minus B's (percentage points).
    pub diff: f64,
    /// 95% paired-bootstrap interval of the difference.
    pub ci: Interval,
    /// Two-sided bootstrap p-value; 0 when no resample falls on the other
    /// side of zero (p below 1 / resamples).
    pub p_value: f64,
    /// `p_value` adjusted by Holm–Bonferroni over its family: every
    /// comparison of the same metric in the report ([`holm`]).
    pub p_holm: f64,
    /// Tasks compared.
    pub tasks: usize,
}

impl Comparison {
    /// Whether the difference is significant at [`ALPHA`], by the
    /// Holm-adjusted p-value.
    pub fn significant(&self) -> bool {
        self.p_holm < ALPHA
    }
}

/// Holm–Bonferroni adjusted p-values, in the order given: sorted
/// ascending, the i-th smallest of m (from 0) becomes (m − i)·p, raised to
/// the largest such value before it (so the order is kept) and capped at 1.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| p_values[x].total_cmp(&p_values[y]).then(x.cmp(&y)));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (i, &index) in order.iter().enumerate() {
        running = running.max(((m - i) as f64 * p_values[index]).min(1.0));
        adjusted[index] = running;
    }
    adjusted
}

/// The comparisons of `pairs` on `metric`, one family: their p-values
/// Holm-adjusted together.
pub fn family(scores: &PairedScores, pairs: &[(usize, usize)], metric: Metric) -> Vec<Comparison> {
    let mut compared: Vec<Comparison> = pairs
        .iter()
        .map(|&(a, b)| scores.compare(a, b, metric))
        .collect();
    let raw: Vec<f64> = compared.iter().map(|c| c.p_value).collect();
    for (c, p) in compared.iter_mut().zip(holm(&raw)) {
        c.p_holm = p;
    }
    compared
}

/// Every model's scores on every metric, ready to be compared in pairs.
///
/// A resample's paired difference is `Σ w·(a − b) / Σ w`, which is
/// `(Σ w·a − Σ w·b) / Σ w`: each model's weighted sums are taken once
/// (one pass over the weights per model, as for its own intervals), and a
/// comparison subtracts two lists of sums instead of passing over every
/// task's weights again. 200 models make 19,900 pairs × 4 metrics.
pub struct PairedScores<'a> {
    runs: &'a [ModelRun],
    /// Per model and metric (in [`Metric::ALL`] order): the value per task.
    values: Vec<[Vec<f64>; 4]>,
    /// Per model and metric: the weighted sum in every resample.
    sums: Vec<[Vec<f64>; 4]>,
    /// The total weight of every resample.
    totals: Vec<u32>,
}

impl<'a> PairedScores<'a> {
    /// Takes every run's values and weighted sums (runs indexed like the
    /// task list `bootstrap` covers).
    pub fn new(runs: &'a [ModelRun], bootstrap: &Bootstrap) -> PairedScores<'a> {
        let members: Vec<usize> = (0..bootstrap.tasks()).collect();
        let values: Vec<[Vec<f64>; 4]> = runs
            .iter()
            .map(|run| Metric::ALL.map(|m| m.per_task(run)))
            .collect();
        let sums = values
            .iter()
            .map(|v| {
                for column in v {
                    assert_eq!(column.len(), bootstrap.tasks(), "one value per task");
                }
                bootstrap.weighted_sums(&members, |t| std::array::from_fn(|k| v[k][t]))
            })
            .collect();
        PairedScores {
            runs,
            values,
            sums,
            totals: bootstrap.totals(&members),
        }
    }

    /// Compares run `a` with run `b` on `metric`.
    pub fn compare(&self, a: usize, b: usize, metric: Metric) -> Comparison {
        let k = metric.position();
        let (values_a, values_b) = (&self.values[a][k], &self.values[b][k]);
        let n = values_a.len();
        let observed = if n == 0 {
            0.0
        } else {
            values_a
                .iter()
                .zip(values_b)
                .map(|(x, y)| x - y)
                .sum::<f64>()
                / n as f64
        };
        let differences: Vec<f64> = self.sums[a][k]
            .iter()
            .zip(&self.sums[b][k])
            .map(|(x, y)| x - y)
            .collect();
        let mut resampled = means(&differences, &self.totals);
        for d in &mut resampled {
            if d.abs() <= TIE {
                *d = 0.0;
            }
        }
        let below = resampled.iter().filter(|&&d| d <= 0.0).count();
        let above = resampled.iter().filter(|&&d| d >= 0.0).count();
        let p_value = if resampled.is_empty() {
            1.0
        } else {
            (2.0 * below.min(above) as f64 / resampled.len() as f64).min(1.0)
        };
        Comparison {
            a: self.runs[a].model.clone(),
            b: self.runs[b].model.clone(),
            metric,
            diff: 100.0 * observed,
            ci: percentile_interval(resampled),
            p_value,
            p_holm: p_value,
            tasks: n,
        }
    }

    /// The mean of run `index` on `metric`, in percent (0 without tasks).
    fn mean(&self, index: usize, metric: Metric) -> f64 {
        let values = &self.values[index][metric.position()];
        if values.is_empty() {
            0.0
        } else {
            100.0 * values.iter().sum::<f64>() / values.len() as f64
        }
    }
}

/// The pairs to compare, as indices into the model list: every model
/// against `baseline` when given, else every pair (i < j).
pub fn pairs(models: usize, baseline: Option<usize>) -> Vec<(usize, usize)> {
    match baseline {
        Some(base) => (0..models)
            .filter(|&m| m != base)
            .map(|m| (m, base))
            .collect(),
        None => (0..models)
            .flat_map(|i| (i + 1..models).map(move |j| (i, j)))
            .collect(),
    }
}

/// A model's place in the ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// Shared by models whose difference is not significant.
    pub rank: usize,
    /// The model.
    pub model: String,
    /// Its score on the ranking metric (percent).
    pub score: f64,
}

/// Ranks the runs on `metric` (see the module documentation). `family`
/// holds the comparisons of every pair of runs on `metric`, Holm-adjusted
/// together ([`family`] of [`pairs`] without a baseline); a pair missing
/// from it is compared alone.
pub fn rank(scores: &PairedScores, metric: Metric, family: &[Comparison]) -> Vec<Ranked> {
    let runs = scores.runs;
    let adjusted: HashMap<(&str, &str), f64> = family
        .iter()
        .filter(|c| c.metric == metric)
        .flat_map(|c| {
            [
                ((c.a.as_str(), c.b.as_str()), c.p_holm),
                ((c.b.as_str(), c.a.as_str()), c.p_holm),
            ]
        })
        .collect();
    let mut order: Vec<(usize, f64)> = (0..runs.len())
        .map(|i| (i, scores.mean(i, metric)))
        .collect();
    // Highest first; ties keep the input order.
    order.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let mut ranked: Vec<Ranked> = Vec::with_capacity(runs.len());
    let mut leader = 0;
    for (position, &(index, score)) in order.iter().enumerate() {
        let rank = if position == 0 {
            1
        } else {
            let (lead_index, _) = order[leader];
            let key = (runs[lead_index].model.as_str(), runs[index].model.as_str());
            let p = match adjusted.get(&key) {
                Some(&p) => p,
                None => scores.compare(lead_index, index, metric).p_holm,
            };
            if p < ALPHA {
                leader = position;
                position + 1
            } else {
                ranked[leader].rank
            }
        };
        ranked.push(Ranked {
            rank,
            model: runs[index].model.clone(),
            score,
        });
    }
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::stream::TaskOutcome;
    use crate::spec::records::{Extraction, LanguageOutcome, Prf};

    fn run(name: &str, f1s: &[f64]) -> ModelRun {
        ModelRun {
            model: name.into(),
            outcomes: f1s
                .iter()
                .map(|&f1| TaskOutcome {
                    format_match: f1 > 0.0,
                    language: LanguageOutcome::Match,
                    detected_language: None,
                    extraction: Extraction::Strict,
                    selection: Prf { p: f1, r: f1, f1 },
                    invocation: Prf { p: f1, r: f1, f1 },
                    counts: Default::default(),
                    read_limits: Default::default(),
                    steps: None,
                })
                .collect(),
            errors: 0,
            missing: 0,
            duplicates: 0,
        }
    }

    #[test]
    fn a_paired_bootstrap_by_hand() {
        // Four tasks; A − B per task: 1, 0.5, 0, −0.5 (mean 0.25).
        let a = run("a", &[1.0, 1.0, 0.5, 0.0]);
        let b = run("b", &[0.0, 0.5, 0.5, 0.5]);
        // Five resamples, weights per task:
        //   [1,1,1,1] → (1+0.5+0−0.5)/4      =  0.25
        //   [2,0,1,1] → (2+0+0−0.5)/4        =  0.375
        //   [0,0,1,3] → (0+0+0−1.5)/4        = −0.375
        //   [0,0,0,0] → no mean, left out
        //   [0,2,0,0] → 1/2                  =  0.5
        let weights: [u8; 20] = [1, 1, 1, 1, 2, 0, 1, 1, 0, 0, 1, 3, 0, 0, 0, 0, 0, 2, 0, 0];
        let bootstrap = Bootstrap::from_weights(4, &weights);
        let runs = [a, b];
        let paired = PairedScores::new(&runs, &bootstrap);
        let c = paired.compare(0, 1, Metric::SelectionF1);
        assert_eq!(c.diff, 25.0);
        assert_eq!(c.tasks, 4);
        // Sorted: −0.375, 0.25, 0.375, 0.5. Percentile positions 0.075 and
        // 2.925: −0.375 + 0.075·0.625 = −0.328125; 0.375 + 0.925·0.125 = 0.490625.
        assert!((c.ci.lo - -32.8125).abs() < 1e-9, "{:?}", c.ci);
        assert!((c.ci.hi - 49.0625).abs() < 1e-9, "{:?}", c.ci);
        // One of four resamples at or below zero, three at or above: p = 2·1/4.
        assert_eq!(c.p_value, 0.5);
        assert!(!c.significant());
        // Swapped, the difference changes sign and p stays.
        let back = paired.compare(1, 0, Metric::SelectionF1);
        assert_eq!((back.diff, back.p_value), (-25.0, 0.5));
        // Identical models: every resample is 0, p = 1.
        assert_eq!(paired.compare(0, 0, Metric::Fm).p_value, 1.0);
    }

    #[test]
    fn a_clear_gap_is_significant_and_splits_the_ranking() {
        let tasks = 200;
        let bootstrap = Bootstrap::new(tasks, 1000, 7);
        let strong = run("strong", &vec![1.0; tasks]);
        // Equal to `strong` on all but one task: not significantly worse.
        let mut near_scores = vec![1.0; tasks];
        near_scores[0] = 0.0;
        let near = run("near", &near_scores);
        let weak = run("weak", &vec![0.0; tasks]);
        let runs = [weak, near, strong];
        let paired = PairedScores::new(&runs, &bootstrap);
        let c = paired.compare(2, 0, Metric::InvocationF1);
        assert_eq!(c.diff, 100.0);
        assert_eq!(c.p_value, 0.0);
        let all = family(&paired, &pairs(3, None), Metric::InvocationF1);
        let ranked = rank(&paired, Metric::InvocationF1, &all);
        let places: Vec<(usize, &str)> =
            ranked.iter().map(|r| (r.rank, r.model.as_str())).collect();
        assert_eq!(places, [(1, "strong"), (1, "near"), (3, "weak")]);
        assert_eq!(pairs(3, None), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairs(3, Some(1)), [(0, 1), (2, 1)]);
    }

    #[test]
    fn holm_by_hand() {
        // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04
        // raised to 0.06 to keep the order.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{adjusted:?}");
        }
        // Three raw p-values below 0.05, none after adjustment.
        let adjusted = holm(&[0.02, 0.03, 0.04]);
        assert!(adjusted.iter().all(|&p| p >= ALPHA), "{adjusted:?}");
        // Capped at 1; one comparison is its own family; 0 stays 0.
        assert_eq!(holm(&[0.5, 0.6, 0.0]), [1.0, 1.0, 0.0]);
        assert_eq!(holm(&[0.2]), [0.2]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn holm_keeps_the_order_never_lowers_and_caps_at_one() {
        for seed in 0..50 {
            let raw: Vec<f64> = scores(1 + seed as usize % 17, seed)
                .iter()
                .enumerate()
                .map(|(i, v)| (v * 0.13 + i as f64 * 0.007) % 1.0)
                .collect();
            let adjusted = holm(&raw);
            let m = raw.len() as f64;
            for (i, (&p, &a)) in raw.iter().zip(&adjusted).enumerate() {
                assert!(
                    a >= p && a <= 1.0 && a <= (m * p).min(1.0) + 1e-12,
                    "{raw:?}"
                );
                for (j, &q) in raw.iter().enumerate() {
                    if p < q {
                        assert!(a <= adjusted[j], "{i} {j} {raw:?} {adjusted:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_ranking_follows_the_adjusted_p_values() {
        let tasks = 200;
        let bootstrap = Bootstrap::new(tasks, 1000, 7);
        let runs = [
            run("weak", &vec![0.0; tasks]),
            run("strong", &vec![1.0; tasks]),
        ];
        let paired = PairedScores::new(&runs, &bootstrap);
        let mut all = family(&paired, &pairs(2, None), Metric::InvocationF1);
        assert_eq!((all[0].p_value, all[0].p_holm), (0.0, 0.0));
        let split = rank(&paired, Metric::InvocationF1, &all);
        assert_eq!((split[0].rank, split[1].rank), (1, 2));
        // The same raw p-value, but adjusted above 0.05: one rank.
        all[0].p_holm = 0.2;
        assert!(!all[0].significant());
        let shared = rank(&paired, Metric::InvocationF1, &all);
        assert_eq!((shared[0].rank, shared[1].rank), (1, 1));
        assert_eq!(shared[0].model, "strong");
    }

    /// Seeded pseudo-random values in [0, 1): a few fractions, ones and
    /// zeros, as F1s are.
    fn scores(tasks: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..tasks)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                match (state >> 33) % 6 {
                    0 | 1 => 1.0,
                    2 => 0.0,
                    3 => 0.5,
                    4 => 2.0 / 3.0,
                    _ => 0.4,
                }
            })
            .collect()
    }

    #[test]
    fn differences_of_sums_are_the_weighted_mean_differences() {
        let tasks = 300;
        let bootstrap = Bootstrap::new(tasks, 400, 11);
        let runs: Vec<ModelRun> = (0..4)
            .map(|i| run(&format!("m{i}"), &scores(tasks, i)))
            .collect();
        let paired = PairedScores::new(&runs, &bootstrap);
        for (a, b) in pairs(runs.len(), None) {
            for metric in Metric::ALL {
                let c = paired.compare(a, b, metric);
                // The definition: the weighted mean of the per-task
                // differences in every resample.
                let diffs: Vec<f64> = metric
                    .per_task(&runs[a])
                    .iter()
                    .zip(metric.per_task(&runs[b]))
                    .map(|(x, y)| x - y)
                    .collect();
                let direct = bootstrap.resampled_means(&diffs);
                let observed = 100.0 * (diffs.iter().sum::<f64>() / tasks as f64);
                assert_eq!(c.diff, observed);
                let interval = percentile_interval(direct.clone());
                assert!((c.ci.lo - interval.lo).abs() < 1e-9, "{c:?} {interval:?}");
                assert!((c.ci.hi - interval.hi).abs() < 1e-9, "{c:?} {interval:?}");
                let below = direct.iter().filter(|&&d| d <= TIE).count();
                let above = direct.iter().filter(|&&d| d >= -TIE).count();
                let p = (2.0 * below.min(above) as f64 / direct.len() as f64).min(1.0);
                assert!((c.p_value - p).abs() < 1e-12, "{} {p}", c.p_value);
                // A against B is B against A turned round.
                let back = paired.compare(b, a, metric);
                assert_eq!((back.diff, back.p_value), (-c.diff, c.p_value));
            }
        }
    }
}
