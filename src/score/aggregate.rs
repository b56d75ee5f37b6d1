//! Aggregates (SPEC §4): macro (per-task) averages as headline numbers,
//! micro (pooled) averages beside them, the two error-analysis share groups,
//! breakdowns by kind, language, country and category, and seeded bootstrap
//! 95% confidence intervals.
//!
//! The intervals come from one shared [`Bootstrap`]: each group (all tasks,
//! or one breakdown group) totals its weights once and then makes one pass
//! over its tasks' weights per model.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::score::bootstrap::{Bootstrap, Interval, means, percentile_interval};
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
    /// Format match (macro); see [`Summary::fm_applies`].
    pub fm: f64,
    /// Answered tasks whose calls came as structured calls, not in ITC's
    /// Thought/Action text: native function calling, or a benchmark's own
    /// answer format (BFCL's `[f(a=1)]`) read into calls. FM, the check of
    /// that text (SPEC §2), does not apply to such a model.
    #[serde(skip_serializing_if = "is_zero")]
    pub native_answers: usize,
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

impl Summary {
    /// Whether FM means anything for these answers: none came as calls
    /// rather than ITC's text ([`Summary::native_answers`]). Where it does
    /// not, the tables show [`FM_NOT_APPLICABLE`] and [`FM_NOTE`].
    pub fn fm_applies(&self) -> bool {
        self.native_answers == 0
    }
}

/// FM's cell where FM does not apply ([`Summary::fm_applies`]).
pub const FM_NOT_APPLICABLE: &str = "N/A";

/// The note under a table with [`FM_NOT_APPLICABLE`] cells: why.
/// Two lines, so that it fits the terminal tables' 100 columns.
pub const FM_NOTE: &str = "FM N/A: the answers came as calls (native function calling, or a benchmark's own answer format\nsuch as BFCL's), not in ITC's Thought/Action text, which FM checks (SPEC §2).";

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
    aggregate_with(evaluation, options.breakdowns, bootstrap.as_ref())
}

/// Aggregates every model of an evaluation, with intervals from `bootstrap`
/// (drawn over the evaluation's tasks) when given.
pub fn aggregate_with(
    evaluation: &Evaluation,
    breakdowns: bool,
    bootstrap: Option<&Bootstrap>,
) -> Vec<ModelReport> {
    let all: Vec<usize> = (0..evaluation.tasks.len()).collect();
    let groups: Vec<(Dimension, Vec<Group>)> = if breakdowns {
        Dimension::ALL
            .iter()
            .map(|&d| (d, group_tasks(&evaluation.tasks, d)))
            .collect()
    } else {
        Vec::new()
    };
    let runs = &evaluation.models;
    let mut reports: Vec<ModelReport> = runs
        .iter()
        .map(|run| {
            // Unpacked once for all the groups, which visit every task again.
            let outcomes: Vec<TaskOutcome> = run.outcomes.iter().collect();
            ModelReport {
                model: run.model.clone(),
                summary: summarize(&outcomes, &all),
                duplicates: run.duplicates,
                breakdowns: groups
                    .iter()
                    .map(|(dimension, groups)| Breakdown {
                        dimension: *dimension,
                        groups: groups
                            .iter()
                            .map(|(key, members)| (key.clone(), summarize(&outcomes, members)))
                            .collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    if let Some(bootstrap) = bootstrap {
        assert_eq!(bootstrap.tasks(), all.len(), "bootstrap over other tasks");
        add_intervals(&mut reports, runs, bootstrap, &all, &groups);
    }
    reports
}

/// Fills in the 95% intervals of every summary. Each group's weights are
/// totalled once, then each model makes one pass over them; the headline
/// sums are the sums of the first dimension's groups (a partition of the
/// tasks), so they cost no pass of their own.
fn add_intervals(
    reports: &mut [ModelReport],
    runs: &[ModelRun],
    bootstrap: &Bootstrap,
    all: &[usize],
    groups: &[(Dimension, Vec<Group>)],
) {
    let group_totals: Vec<Vec<Vec<u32>>> = groups
        .iter()
        .map(|(_, groups)| groups.iter().map(|(_, m)| bootstrap.totals(m)).collect())
        .collect();
    let all_totals = bootstrap.totals(all);
    for (report, run) in reports.iter_mut().zip(runs) {
        let values = resampled_values(run);
        let mut headline: Option<MetricSums> = None;
        for (d, (_, dimension_groups)) in groups.iter().enumerate() {
            for (g, (_, members)) in dimension_groups.iter().enumerate() {
                let sums = metric_sums(bootstrap, &values, members);
                report.breakdowns[d].groups[g].1.ci = Some(intervals(&sums, &group_totals[d][g]));
                if d == 0 {
                    match &mut headline {
                        None => headline = Some(sums),
                        Some(total) => {
                            for (t, s) in total.iter_mut().zip(&sums) {
                                t.iter_mut().zip(s).for_each(|(t, s)| *t += s);
                            }
                        }
                    }
                }
            }
        }
        if !all.is_empty() {
            let sums = headline.unwrap_or_else(|| metric_sums(bootstrap, &values, all));
            report.summary.ci = Some(intervals(&sums, &all_totals));
        }
    }
}

/// Per-resample weighted sums of LM, FM, selection F1 and invocation F1.
type MetricSums = [Vec<f64>; 4];

/// Each task's LM, FM, selection F1 and invocation F1, read once in task
/// order: the groups visit tasks out of order, and reading these 32 bytes
/// there instead of the whole outcome keeps the passes in the CPU's caches.
fn resampled_values(run: &ModelRun) -> Vec<[f64; 4]> {
    run.outcomes
        .iter()
        .map(|o| {
            let v = metric_values(&o);
            [v[0], v[1], v[4], v[7]]
        })
        .collect()
}

fn metric_sums(bootstrap: &Bootstrap, values: &[[f64; 4]], members: &[usize]) -> MetricSums {
    bootstrap.weighted_sums(members, |t| values[t])
}

/// 95% percentile intervals of the four resampled means.
fn intervals(sums: &MetricSums, totals: &[u32]) -> Intervals {
    let [lm, fm, sel, inv] = sums
        .each_ref()
        .map(|s| percentile_interval(means(s, totals)));
    Intervals {
        lm,
        fm,
        selection_f1: sel,
        invocation_f1: inv,
    }
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

/// Aggregates one model's outcomes (one per task) over the tasks with the
/// given indices, without intervals (see [`aggregate_with`]).
pub fn summarize(outcomes: &[TaskOutcome], members: &[usize]) -> Summary {
    let n = members.len();
    let mut sums = [0f64; 8];
    let mut counts = Counts::default();
    let (mut unreliable, mut undetectable, mut errors, mut missing) = (0, 0, 0, 0);
    let mut native = 0;
    let (mut step_sum, mut step_tasks) = (0.0, 0);
    let mut execution: Option<ExecutionCounts> = None;
    for &i in members {
        let o = &outcomes[i];
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
        native += usize::from(o.extraction == crate::spec::records::Extraction::Native);
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
        native_answers: native,
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
        ci: None,
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
                outcomes: outcomes.into_iter().collect(),
                errors: 0,
                missing: 0,
                duplicates: 0,
            }],
            skipped: Default::default(),
            unknown: Default::default(),
            duplicate_task_ids: vec![],
            unsupported_languages: vec![],
            prediction_files: vec![],
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
