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
//! p = 1.
//!
//! The ranking sorts models by a metric; going down the list, a model
//! shares the rank of the first model of the current group unless it is
//! significantly worse than it (p < 0.05), in which case it opens a new
//! group whose rank is its position (1, 1, 3, …).

use serde::Serialize;

use crate::score::aggregate::metric_values;
use crate::score::bootstrap::{Bootstrap, Interval, percentile_interval};
use crate::score::stream::ModelRun;

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
    /// Tasks compared.
    pub tasks: usize,
}

impl Comparison {
    /// Whether the difference is significant at [`ALPHA`].
    pub fn significant(&self) -> bool {
        self.p_value < ALPHA
    }
}

/// Compares A with B on `metric` over the tasks `bootstrap` covers (both
/// runs indexed like the task list).
pub fn compare(a: &ModelRun, b: &ModelRun, metric: Metric, bootstrap: &Bootstrap) -> Comparison {
    let diffs: Vec<f64> = metric
        .per_task(a)
        .iter()
        .zip(metric.per_task(b))
        .map(|(x, y)| x - y)
        .collect();
    let n = diffs.len();
    let observed = if n == 0 {
        0.0
    } else {
        diffs.iter().sum::<f64>() / n as f64
    };
    let resampled = bootstrap.resampled_means(&diffs);
    let below = resampled.iter().filter(|&&d| d <= 0.0).count();
    let above = resampled.iter().filter(|&&d| d >= 0.0).count();
    let p_value = if resampled.is_empty() {
        1.0
    } else {
        (2.0 * below.min(above) as f64 / resampled.len() as f64).min(1.0)
    };
    Comparison {
        a: a.model.clone(),
        b: b.model.clone(),
        metric,
        diff: 100.0 * observed,
        ci: percentile_interval(resampled),
        p_value,
        tasks: n,
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

/// Ranks the runs on `metric` (see the module documentation).
pub fn rank(runs: &[ModelRun], metric: Metric, bootstrap: &Bootstrap) -> Vec<Ranked> {
    let mean = |run: &ModelRun| {
        let values = metric.per_task(run);
        if values.is_empty() {
            0.0
        } else {
            100.0 * values.iter().sum::<f64>() / values.len() as f64
        }
    };
    let mut order: Vec<(usize, f64)> = runs.iter().map(mean).enumerate().collect();
    // Highest first; ties keep the input order.
    order.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let mut ranked: Vec<Ranked> = Vec::with_capacity(runs.len());
    let mut leader = 0;
    for (position, &(index, score)) in order.iter().enumerate() {
        let rank = if position == 0 {
            1
        } else {
            let (lead_index, _) = order[leader];
            let gap = compare(&runs[lead_index], &runs[index], metric, bootstrap);
            if gap.significant() {
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
        let c = compare(&a, &b, Metric::SelectionF1, &bootstrap);
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
        let back = compare(&b, &a, Metric::SelectionF1, &bootstrap);
        assert_eq!((back.diff, back.p_value), (-25.0, 0.5));
        // Identical models: every resample is 0, p = 1.
        assert_eq!(compare(&a, &a, Metric::Fm, &bootstrap).p_value, 1.0);
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
        let c = compare(&strong, &weak, Metric::InvocationF1, &bootstrap);
        assert_eq!(c.diff, 100.0);
        assert_eq!(c.p_value, 0.0);
        let ranked = rank(
            &[weak.clone(), near.clone(), strong.clone()],
            Metric::InvocationF1,
            &bootstrap,
        );
        let places: Vec<(usize, &str)> =
            ranked.iter().map(|r| (r.rank, r.model.as_str())).collect();
        assert_eq!(places, [(1, "strong"), (1, "near"), (3, "weak")]);
        assert_eq!(pairs(3, None), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairs(3, Some(1)), [(0, 1), (2, 1)]);
    }
}
