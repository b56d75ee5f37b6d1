//! Aggregates (SPEC §4): macro (per-task) averages as headline numbers,
//! micro (pooled) averages beside them, the two error-analysis share groups,
//! breakdowns by kind, language, country and category, and seeded bootstrap
//! 95% confidence intervals.
//!
//! The bootstrap is a Poisson bootstrap: each resample gives every task an
//! independent Poisson(1) weight. One weight matrix (resamples × tasks) is
//! drawn once from the seed and shared by every model and every breakdown
//! group, so intervals are paired across models and cost one pass of
//! multiply-adds per resample.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::score::stream::{Evaluation, ModelRun, TaskOutcome};
use crate::score::task::prf;
use crate::spec::records::{Counts, Prf, Task, TaskKind};

/// How aggregates are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggregateOptions {
    /// Bootstrap resamples (0 turns intervals off).
    pub resamples: usize,
    /// Seed of the bootstrap weights.
    pub seed: u64,
    /// Whether to compute the breakdowns by kind, language, country and category.
    pub breakdowns: bool,
}

impl Default for AggregateOptions {
    fn default() -> Self {
        AggregateOptions {
            resamples: 1000,
            seed: 20250101,
            breakdowns: true,
        }
    }
}

/// A 95% confidence interval, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// 2.5th percentile.
    pub lo: f64,
    /// 97.5th percentile.
    pub hi: f64,
}

/// Bootstrap intervals of the headline numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Intervals {
    /// Language match.
    pub lm: Interval,
    /// Format match.
    pub fm: Interval,
    /// Selection F1 (macro).
    pub selection_f1: Interval,
    /// Invocation F1 (macro).
    pub invocation_f1: Interval,
}

/// Selection error shares (percent of all selection errors).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SelectionErrors {
    /// Predicted names not among the candidates.
    pub hall: f64,
    /// Gold names left unmatched.
    pub mis: f64,
    /// Extra calls to candidate tools.
    pub ex: f64,
}

/// Invocation error shares (percent of all invocation errors).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct InvocationErrors {
    /// Wrong values.
    pub incor: f64,
    /// Missing parameters.
    pub miss: f64,
    /// Extra parameters.
    pub ext: f64,
}

/// Every aggregate over one set of tasks. Rates are in percent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Tasks counted.
    pub n: usize,
    /// Language match (macro).
    pub lm: f64,
    /// Format match (macro).
    pub fm: f64,
    /// Selection P/R/F1 (macro).
    pub selection: Prf,
    /// Invocation P/R/F1 (macro).
    pub invocation: Prf,
    /// Selection P/R/F1 from pooled counts.
    pub selection_micro: Prf,
    /// Invocation P/R/F1 from pooled counts.
    pub invocation_micro: Prf,
    /// Shares of selection errors.
    pub selection_errors: SelectionErrors,
    /// Shares of invocation errors.
    pub invocation_errors: InvocationErrors,
    /// Pooled counts behind the micro numbers and the shares.
    pub counts: Counts,
    /// Tasks whose language guess was flagged unreliable.
    pub lm_unreliable: usize,
    /// Answered tasks in which no language could be detected.
    pub lm_undetectable: usize,
    /// Tasks whose prediction carried an error.
    pub errors: usize,
    /// Tasks with no prediction.
    pub missing: usize,
    /// Bootstrap intervals, when asked for.
    pub ci: Option<Intervals>,
    /// Mean step F1 (SPEC §6, percent) over the tasks answered step by
    /// step; absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_f1: Option<f64>,
    /// Tasks answered step by step.
    #[serde(skip_serializing_if = "is_zero")]
    pub step_tasks: usize,
    /// Share of the calls that executed (their endpoint answered 2xx;
    /// SPEC §7, percent), in runs that execute tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_calls: Option<f64>,
    /// Share of the tasks with calls whose calls all executed (percent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_tasks: Option<f64>,
    /// Pooled executed and made calls, and tasks with calls, behind the two shares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<ExecutionCounts>,
}

/// The counts behind the execution shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ExecutionCounts {
    /// Calls made in execute runs.
    pub calls: u32,
    /// Calls that executed.
    pub executed: u32,
    /// Tasks that made calls.
    pub tasks: u32,
    /// Tasks whose calls all executed.
    pub tasks_executed: u32,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One dimension of a breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Task kind.
    Kind,
    /// Task language.
    Language,
    /// Task country.
    Country,
    /// Task category.
    Category,
}

impl Dimension {
    /// All dimensions, in report order.
    pub const ALL: [Dimension; 4] = [
        Dimension::Kind,
        Dimension::Language,
        Dimension::Country,
        Dimension::Category,
    ];

    /// Name used in file names and headers.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Kind => "kind",
            Dimension::Language => "language",
            Dimension::Country => "country",
            Dimension::Category => "category",
        }
    }

    fn key(self, task: &Task) -> String {
        match self {
            Dimension::Kind => task.kind.as_str().to_string(),
            Dimension::Language => task.language.clone(),
            Dimension::Country => task.country.clone(),
            Dimension::Category => task.category.clone(),
        }
    }
}

/// One model's aggregates over a dimension's groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    /// The dimension.
    pub dimension: Dimension,
    /// `(group, summary)` rows, in a stable order.
    pub groups: Vec<(String, Summary)>,
}

/// Everything reported for one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReport {
    /// Model name.
    pub model: String,
    /// Over all tasks.
    pub summary: Summary,
    /// Predictions beyond the first for a task (ignored).
    pub duplicates: usize,
    /// Per dimension.
    pub breakdowns: Vec<Breakdown>,
}

/// Aggregates every model of an evaluation.
pub fn aggregate(evaluation: &Evaluation, options: AggregateOptions) -> Vec<ModelReport> {
    let bootstrap = (options.resamples > 0)
        .then(|| Bootstrap::new(evaluation.tasks.len(), options.resamples, options.seed));
    let all: Vec<usize> = (0..evaluation.tasks.len()).collect();
    let groups: Vec<(Dimension, Vec<Group>)> = if options.breakdowns {
        Dimension::ALL
            .iter()
            .map(|&d| (d, group_tasks(&evaluation.tasks, d)))
            .collect()
    } else {
        Vec::new()
    };
    // Each group's weights are cut out once and shared by every model.
    let group_bootstraps: Vec<Vec<Option<Bootstrap>>> = groups
        .iter()
        .map(|(_, groups)| {
            groups
                .iter()
                .map(|(_, members)| bootstrap.as_ref().map(|b| b.restrict(members)))
                .collect()
        })
        .collect();
    evaluation
        .models
        .iter()
        .map(|run| ModelReport {
            model: run.model.clone(),
            summary: summarize(run, &all, bootstrap.as_ref()),
            duplicates: run.duplicates,
            breakdowns: groups
                .iter()
                .zip(&group_bootstraps)
                .map(|((dimension, groups), bootstraps)| Breakdown {
                    dimension: *dimension,
                    groups: groups
                        .iter()
                        .zip(bootstraps)
                        .map(|((key, members), b)| {
                            (key.clone(), summarize(run, members, b.as_ref()))
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

/// A group of a breakdown: its key and the indices of its tasks.
type Group = (String, Vec<usize>);

/// Task indices per group of a dimension; kinds in table order, others sorted.
fn group_tasks(tasks: &[Task], dimension: Dimension) -> Vec<Group> {
    let mut map: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, task) in tasks.iter().enumerate() {
        map.entry(dimension.key(task)).or_default().push(i);
    }
    let mut groups: Vec<Group> = map.into_iter().collect();
    if dimension == Dimension::Kind {
        let rank = |k: &str| TaskKind::ALL.iter().position(|kind| kind.as_str() == k);
        groups.sort_by_key(|(k, _)| rank(k));
    }
    groups
}

fn percent(x: f64) -> f64 {
    100.0 * x
}

fn percent_prf(p: Prf) -> Prf {
    Prf {
        p: percent(p.p),
        r: percent(p.r),
        f1: percent(p.f1),
    }
}

fn share(part: u32, total: u32) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * f64::from(part) / f64::from(total)
    }
}

/// Aggregates one model over the tasks with the given indices.
pub fn summarize(run: &ModelRun, members: &[usize], bootstrap: Option<&Bootstrap>) -> Summary {
    let n = members.len();
    let mut sums = [0f64; 8];
    let mut counts = Counts::default();
    let (mut unreliable, mut undetectable, mut errors, mut missing) = (0, 0, 0, 0);
    let (mut step_sum, mut step_tasks) = (0.0, 0);
    let mut execution: Option<ExecutionCounts> = None;
    for &i in members {
        let o = &run.outcomes[i];
        if let Some(steps) = o.steps {
            step_sum += steps.step_f1;
            step_tasks += 1;
            if let Some(e) = steps.execution {
                let sum = execution.get_or_insert_with(ExecutionCounts::default);
                sum.calls += e.calls;
                sum.executed += e.executed;
                sum.tasks += u32::from(e.calls > 0);
                sum.tasks_executed += u32::from(e.task_executed());
            }
        }
        for (sum, value) in sums.iter_mut().zip(metric_values(o)) {
            *sum += value;
        }
        add_counts(&mut counts, &o.counts);
        unreliable += usize::from(o.language.is_unreliable());
        undetectable += usize::from(
            o.answered() && o.language == crate::spec::records::LanguageOutcome::Undetectable,
        );
        errors += usize::from(o.extraction == crate::spec::records::Extraction::Error);
        missing += usize::from(o.extraction == crate::spec::records::Extraction::Missing);
    }
    let mean = |s: f64| if n == 0 { 0.0 } else { percent(s / n as f64) };
    let selection_error_total = counts.hall + counts.mis + counts.ex;
    let invocation_error_total = counts.incor + counts.miss + counts.ext;
    Summary {
        n,
        lm: mean(sums[0]),
        fm: mean(sums[1]),
        selection: Prf {
            p: mean(sums[2]),
            r: mean(sums[3]),
            f1: mean(sums[4]),
        },
        invocation: Prf {
            p: mean(sums[5]),
            r: mean(sums[6]),
            f1: mean(sums[7]),
        },
        selection_micro: percent_prf(prf(counts.sel_tp, counts.sel_pred, counts.sel_gold)),
        invocation_micro: percent_prf(prf(counts.inv_tp, counts.inv_pred, counts.inv_gold)),
        selection_errors: SelectionErrors {
            hall: share(counts.hall, selection_error_total),
            mis: share(counts.mis, selection_error_total),
            ex: share(counts.ex, selection_error_total),
        },
        invocation_errors: InvocationErrors {
            incor: share(counts.incor, invocation_error_total),
            miss: share(counts.miss, invocation_error_total),
            ext: share(counts.ext, invocation_error_total),
        },
        counts,
        lm_unreliable: unreliable,
        lm_undetectable: undetectable,
        errors,
        missing,
        ci: bootstrap
            .filter(|_| n > 0)
            .map(|b| b.intervals(run, members)),
        step_f1: (step_tasks > 0).then(|| percent(step_sum / step_tasks as f64)),
        step_tasks,
        executed_calls: execution.map(|e| share(e.executed, e.calls)),
        executed_tasks: execution.map(|e| share(e.tasks_executed, e.tasks)),
        execution,
    }
}

/// LM, FM, selection P/R/F1, invocation P/R/F1 of one outcome, in `[0, 1]`.
pub fn metric_values(o: &TaskOutcome) -> [f64; 8] {
    [
        f64::from(u8::from(o.language.is_match())),
        f64::from(u8::from(o.format_match)),
        o.selection.p,
        o.selection.r,
        o.selection.f1,
        o.invocation.p,
        o.invocation.r,
        o.invocation.f1,
    ]
}

fn add_counts(total: &mut Counts, c: &Counts) {
    total.sel_tp += c.sel_tp;
    total.sel_pred += c.sel_pred;
    total.sel_gold += c.sel_gold;
    total.inv_tp += c.inv_tp;
    total.inv_pred += c.inv_pred;
    total.inv_gold += c.inv_gold;
    total.hall += c.hall;
    total.mis += c.mis;
    total.ex += c.ex;
    total.incor += c.incor;
    total.miss += c.miss;
    total.ext += c.ext;
}

/// Seeded Poisson bootstrap weights, shared by all models and groups.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    tasks: usize,
    resamples: usize,
    /// Row-major: `weights[b * tasks + t]`.
    weights: Vec<f32>,
}

impl Bootstrap {
    /// Draws `resamples` × `tasks` Poisson(1) weights from `seed`.
    pub fn new(tasks: usize, resamples: usize, seed: u64) -> Bootstrap {
        // Cumulative Poisson(1) probabilities for k = 0, 1, 2, …
        let mut cdf = Vec::new();
        let (mut p, mut total) = ((-1f64).exp(), 0.0);
        for k in 0..16 {
            total += p;
            cdf.push(total);
            p /= f64::from(k + 1);
        }
        let mut rng = fastrand::Rng::with_seed(seed);
        let weights = (0..tasks * resamples)
            .map(|_| {
                let u = rng.f64();
                cdf.iter().position(|&c| u < c).unwrap_or(cdf.len()) as f32
            })
            .collect();
        Bootstrap {
            tasks,
            resamples,
            weights,
        }
    }

    /// A bootstrap with the given weights, row-major (`weights[b * tasks + t]`
    /// is task `t`'s weight in resample `b`): for tests and for re-creating
    /// a published resample.
    pub fn from_weights(tasks: usize, weights: Vec<f32>) -> Bootstrap {
        assert!(
            tasks > 0 && weights.len().is_multiple_of(tasks),
            "weights: resamples × tasks"
        );
        Bootstrap {
            tasks,
            resamples: weights.len() / tasks,
            weights,
        }
    }

    /// The weighted mean of `values` (one per task) in every resample; a
    /// resample whose weights are all zero has no mean and is left out.
    pub fn resampled_means(&self, values: &[f64]) -> Vec<f64> {
        assert_eq!(values.len(), self.tasks, "one value per task");
        (0..self.resamples)
            .filter_map(|b| {
                let row = &self.weights[b * self.tasks..(b + 1) * self.tasks];
                let total: f64 = row.iter().map(|&w| f64::from(w)).sum();
                let sum: f64 = row.iter().zip(values).map(|(&w, v)| f64::from(w) * v).sum();
                (total > 0.0).then(|| sum / total)
            })
            .collect()
    }

    /// The weights of the given tasks only, in that order: the bootstrap of
    /// a breakdown group, paired with the full one.
    pub fn restrict(&self, members: &[usize]) -> Bootstrap {
        let weights = (0..self.resamples)
            .flat_map(|b| {
                let row = &self.weights[b * self.tasks..(b + 1) * self.tasks];
                members.iter().map(move |&i| row[i])
            })
            .collect();
        Bootstrap {
            tasks: members.len(),
            resamples: self.resamples,
            weights,
        }
    }

    /// 95% percentile intervals of LM, FM and both F1s over the given tasks;
    /// the bootstrap must have one weight per member (see [`Bootstrap::restrict`]).
    fn intervals(&self, run: &ModelRun, members: &[usize]) -> Intervals {
        assert_eq!(
            members.len(),
            self.tasks,
            "bootstrap not restricted to the group"
        );
        let columns: [Vec<f32>; 4] = [0usize, 1, 4, 7].map(|m| {
            members
                .iter()
                .map(|&i| metric_values(&run.outcomes[i])[m] as f32)
                .collect()
        });
        let mut means: [Vec<f64>; 4] = Default::default();
        for b in 0..self.resamples {
            let row = &self.weights[b * self.tasks..(b + 1) * self.tasks];
            let weight_sum = row.iter().sum::<f32>();
            let sums = columns.each_ref().map(|c| dot(row, c));
            if weight_sum > 0.0 {
                for (m, s) in means.iter_mut().zip(sums) {
                    m.push(f64::from(s / weight_sum));
                }
            }
        }
        let [lm, fm, sel, inv] = means.map(percentile_interval);
        Intervals {
            lm,
            fm,
            selection_f1: sel,
            invocation_f1: inv,
        }
    }
}

/// Dot product written in eight lanes so the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = a.len() / 8 * 8;
    for (x, y) in a[..chunks].chunks_exact(8).zip(b[..chunks].chunks_exact(8)) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    let tail: f32 = a[chunks..]
        .iter()
        .zip(&b[chunks..])
        .map(|(x, y)| x * y)
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// The 2.5th and 97.5th percentiles (linear interpolation) of values in
/// `[0, 1]` (or differences of them), in percent.
pub fn percentile_interval(mut values: Vec<f64>) -> Interval {
    if values.is_empty() {
        return Interval { lo: 0.0, hi: 0.0 };
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (values.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        let frac = pos - lo as f64;
        percent(values[lo] * (1.0 - frac) + values[hi] * frac)
    };
    Interval {
        lo: at(0.025),
        hi: at(0.975),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::{Extraction, Gold, LanguageOutcome};

    fn task(id: usize, kind: TaskKind, language: &str) -> Task {
        Task {
            id: format!("t{id}"),
            kind,
            language: language.into(),
            country: "JP".into(),
            category: "Weather".into(),
            query: String::new(),
            tools: vec![],
            gold: Gold::default(),
            turns: vec![],
        }
    }

    fn outcome(f1: f64, lm: bool, fm: bool, counts: Counts) -> TaskOutcome {
        TaskOutcome {
            format_match: fm,
            language: if lm {
                LanguageOutcome::Match
            } else {
                LanguageOutcome::Mismatch
            },
            detected_language: None,
            extraction: Extraction::Strict,
            selection: Prf { p: f1, r: f1, f1 },
            invocation: Prf {
                p: f1,
                r: f1,
                f1: f1 / 2.0,
            },
            counts,
            read_limits: Default::default(),
            steps: None,
        }
    }

    fn evaluation(outcomes: Vec<TaskOutcome>, tasks: Vec<Task>) -> Evaluation {
        Evaluation {
            tasks,
            models: vec![ModelRun {
                model: "m".into(),
                outcomes,
                errors: 0,
                missing: 0,
                duplicates: 0,
            }],
            skipped: vec![],
            unknown: vec![],
            duplicate_task_ids: vec![],
            unsupported_languages: vec![],
        }
    }

    #[test]
    fn macro_and_micro_differ_as_defined() {
        let c1 = Counts {
            sel_tp: 1,
            sel_pred: 1,
            sel_gold: 1,
            ..Counts::default()
        };
        let c2 = Counts {
            sel_tp: 0,
            sel_pred: 3,
            sel_gold: 3,
            ..Counts::default()
        };
        let eval = evaluation(
            vec![outcome(1.0, true, true, c1), outcome(0.0, false, true, c2)],
            vec![
                task(0, TaskKind::Single, "ja"),
                task(1, TaskKind::Parallel, "en"),
            ],
        );
        let reports = aggregate(
            &eval,
            AggregateOptions {
                resamples: 0,
                ..Default::default()
            },
        );
        let s = &reports[0].summary;
        assert_eq!((s.n, s.lm, s.fm), (2, 50.0, 100.0));
        assert_eq!(s.selection.f1, 50.0);
        assert_eq!(s.invocation.f1, 25.0);
        assert_eq!(s.selection_micro.p, 25.0); // 1 / 4 pooled
        assert!(s.ci.is_none());
    }

    #[test]
    fn error_shares_sum_to_100_per_group() {
        let c = Counts {
            hall: 1,
            mis: 2,
            ex: 1,
            incor: 3,
            miss: 0,
            ext: 1,
            ..Counts::default()
        };
        let eval = evaluation(
            vec![outcome(0.0, true, true, c)],
            vec![task(0, TaskKind::Single, "ja")],
        );
        let s = &aggregate(&eval, AggregateOptions::default())[0].summary;
        assert_eq!(
            (
                s.selection_errors.hall,
                s.selection_errors.mis,
                s.selection_errors.ex
            ),
            (25.0, 50.0, 25.0)
        );
        assert_eq!(
            (
                s.invocation_errors.incor,
                s.invocation_errors.miss,
                s.invocation_errors.ext
            ),
            (75.0, 0.0, 25.0)
        );
    }

    #[test]
    fn unreliable_undetectable_errors_and_missing_are_counted() {
        let mut outcomes = vec![outcome(1.0, true, true, Counts::default()); 5];
        outcomes[0].language = LanguageOutcome::MatchUnreliable;
        outcomes[1].language = LanguageOutcome::MismatchUnreliable;
        outcomes[2].language = LanguageOutcome::Undetectable;
        let tasks: Vec<Task> = (0..5).map(|i| task(i, TaskKind::Single, "en")).collect();
        outcomes[3] = TaskOutcome::unanswered(&tasks[3], Extraction::Error);
        outcomes[4] = TaskOutcome::unanswered(&tasks[4], Extraction::Missing);
        let s = &aggregate(&evaluation(outcomes, tasks), AggregateOptions::default())[0].summary;
        assert_eq!(
            (s.lm_unreliable, s.lm_undetectable, s.errors, s.missing),
            (2, 1, 1, 1)
        );
        // Unreliable guesses still decide: one match of five.
        assert_eq!(s.lm, 20.0);
        assert_eq!(s.selection.f1, 60.0);
    }

    #[test]
    fn breakdowns_partition_tasks() {
        let tasks: Vec<Task> = (0..10)
            .map(|i| {
                task(
                    i,
                    if i < 4 {
                        TaskKind::Nested
                    } else {
                        TaskKind::Single
                    },
                    if i % 2 == 0 { "ja" } else { "de" },
                )
            })
            .collect();
        let outcomes = (0..10)
            .map(|i| outcome(if i < 4 { 1.0 } else { 0.0 }, true, true, Counts::default()))
            .collect();
        let reports = aggregate(&evaluation(outcomes, tasks), AggregateOptions::default());
        let kinds = &reports[0].breakdowns[0];
        assert_eq!(kinds.dimension, Dimension::Kind);
        let rows: Vec<(&str, usize, f64)> = kinds
            .groups
            .iter()
            .map(|(k, s)| (k.as_str(), s.n, s.selection.f1))
            .collect();
        assert_eq!(rows, [("single", 6, 0.0), ("nested", 4, 100.0)]);
        let languages = &reports[0].breakdowns[1];
        assert_eq!(languages.groups.iter().map(|(_, s)| s.n).sum::<usize>(), 10);
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_mean() {
        let tasks: Vec<Task> = (0..200).map(|i| task(i, TaskKind::Single, "en")).collect();
        let outcomes: Vec<TaskOutcome> = (0..200)
            .map(|i| {
                outcome(
                    f64::from(u8::from(i % 3 == 0)),
                    i % 2 == 0,
                    true,
                    Counts::default(),
                )
            })
            .collect();
        let eval = evaluation(outcomes, tasks);
        let a = aggregate(&eval, AggregateOptions::default());
        let b = aggregate(&eval, AggregateOptions::default());
        assert_eq!(a, b);
        let s = &a[0].summary;
        let ci = s.ci.unwrap();
        assert!(
            ci.selection_f1.lo < s.selection.f1 && s.selection.f1 < ci.selection_f1.hi,
            "{ci:?}"
        );
        // The standard error of a 1/3 proportion over 200 tasks is ~3.3 points.
        let width = ci.selection_f1.hi - ci.selection_f1.lo;
        assert!((8.0..18.0).contains(&width), "{width}");
        assert_eq!((ci.fm.lo, ci.fm.hi), (100.0, 100.0));
        // A breakdown group holding every task is resampled exactly like the headline.
        let kinds = &a[0].breakdowns[0].groups;
        assert_eq!(kinds.len(), 1);
        assert_eq!(kinds[0].1.ci, s.ci);
        let other_seed = aggregate(
            &eval,
            AggregateOptions {
                seed: 7,
                ..Default::default()
            },
        );
        assert_ne!(other_seed[0].summary.ci, s.ci);
    }
}
