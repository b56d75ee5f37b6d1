//! The official metrics (`tau2.metrics.agent_metrics.compute_metrics` with
//! pandas 2.3.3 and numpy 2.3.5, the versions its `uv.lock` pins): average
//! reward and pass^k, to the last bit.
//!
//! - A trial succeeds when `1 − 1e-6 ≤ reward ≤ 1 + 1e-6` (a missing reward never does).
//! - Runs that ended `infrastructure_error` are left out of everything but
//!   their own count (pandas 2.3.3 compares the enum column as intended).
//! - Per task, pass^k = C(successes, k) / C(trials, k), a correctly rounded
//!   quotient as Python's `int / int`; k runs from 1 to `info.num_trials`,
//!   lowered to the smallest number of trials of a task.
//! - pass^k is the mean over tasks, the tasks ordered as the official
//!   `prepare_dfs` leaves them: by task id (a string), then by the task's
//!   number of gold actions (−1 for a lone transfer action); ties keep
//!   the id order (see `docs/tau.md` for the one case where numpy's
//!   unstable sort may not).
//! - `avg_reward` is the mean of the rewards in the runs' order, a missing
//!   reward left out of the count but summed as 0 in its place (pandas'
//!   `nanmean`), so the sum's pairwise blocks are numpy's.
//! - Means are numpy's pairwise sums ([`numpy_sum`]) divided by the count.

use std::collections::{BTreeMap, HashMap};

use anyhow::bail;

use serde_json::{Value, json};

use super::format::{Task, TerminationReason};
use crate::benchmarks::python::numpy::numpy_sum;
use crate::score::bootstrap::{Bootstrap, percentile_interval};

/// One run, as the metrics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The task it ran.
    pub task_id: String,
    /// Its reward (`None`: no reward info).
    pub reward: Option<f64>,
    /// Why it ended.
    pub termination: TerminationReason,
}

/// The official metrics of a set of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Mean reward over the runs that have one (0 when no run counts; NaN
    /// when none of them has a reward).
    pub avg_reward: f64,
    /// `(k, pass^k)` for k = 1 … the largest k.
    pub pass_hat_ks: Vec<(usize, f64)>,
    /// Per task id, pass^1 … pass^k.
    pub per_task: BTreeMap<String, Vec<f64>>,
    /// Runs counted (infrastructure errors excluded).
    pub total_simulations: usize,
    /// Distinct tasks among them.
    pub total_tasks: usize,
    /// Runs that ended `infrastructure_error`.
    pub infra_error_count: usize,
}

/// The official `is_successful`.
pub fn is_successful(reward: f64) -> bool {
    ((1.0 - 1e-6)..=(1.0 + 1e-6)).contains(&reward)
}

/// The largest number of trials per task pass^k is computed for: C(n, k)
/// stays exact in 128 bits up to here.
pub const MAX_TRIALS: u64 = 120;

/// The official `pass_hat_k(num_trials, success_count, k)`: C(s, k) / C(n, k).
pub fn pass_hat_k(num_trials: u64, success_count: u64, k: u64) -> anyhow::Result<f64> {
    if num_trials < k {
        bail!("Number of trials {num_trials} is less than k {k}.");
    }
    if num_trials > MAX_TRIALS {
        bail!("{num_trials} trials of one task: pass^k is computed for at most {MAX_TRIALS}");
    }
    Ok(ratio(comb(success_count, k), comb(num_trials, k)))
}

/// C(n, k), exact (n ≤ [`MAX_TRIALS`]).
fn comb(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u128, |c, i| c * u128::from(n - i) / u128::from(i + 1))
}

/// `a / b` correctly rounded (ties to even), as Python divides two ints; `a ≤ b`, `b > 0`.
fn ratio(a: u128, b: u128) -> f64 {
    const EXACT: u128 = 1 << 53;
    if a == 0 {
        return 0.0;
    }
    if a <= EXACT && b <= EXACT {
        return a as f64 / b as f64;
    }
    // Long division: 54 quotient bits from the first 1, then round.
    let (mut r, mut exp) = (a, 0i32);
    while r < b {
        r <<= 1;
        exp -= 1;
    }
    let mut q: u64 = 0;
    for _ in 0..54 {
        q <<= 1;
        if r >= b {
            q |= 1;
            r -= b;
        }
        r <<= 1;
    }
    let (mut mantissa, guard, sticky) = (q >> 1, q & 1 == 1, r != 0);
    if guard && (sticky || mantissa & 1 == 1) {
        mantissa += 1;
    }
    mantissa as f64 * 2f64.powi(exp - 52)
}

/// The number of gold actions the official metrics sort tasks by
/// (`task_num_actions`): every action, or −1 when the only one is a transfer.
/// `None` for a task without evaluation criteria (the official raises).
pub fn task_num_actions(task: &Task) -> Option<i64> {
    let criteria = task.evaluation_criteria.as_ref()?;
    let actions = criteria.actions.as_deref().unwrap_or(&[]);
    if let [only] = actions
        && only.name.to_lowercase().contains("transfer")
    {
        return Some(-1);
    }
    Some(actions.len() as i64)
}

/// pandas' `Series.mean()` of a float64 column (`nanmean`): missing values
/// are summed as 0 in place and not counted.
fn pandas_mean(values: &[Option<f64>]) -> f64 {
    let filled: Vec<f64> = values.iter().map(|v| v.unwrap_or(0.0)).collect();
    let count = values.iter().filter(|v| v.is_some()).count();
    if count == 0 {
        return f64::NAN;
    }
    numpy_sum(&filled) / count as f64
}

/// `compute_metrics` (the fields above) of `trials`, with `num_trials`
/// from the results' `info` and the tasks for their action counts.
pub fn compute_metrics(
    num_trials: i64,
    trials: &[Trial],
    tasks: &[Task],
) -> anyhow::Result<Metrics> {
    let infra_error_count = trials
        .iter()
        .filter(|t| t.termination == TerminationReason::InfrastructureError)
        .count();
    let counted: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.termination != TerminationReason::InfrastructureError)
        .collect();
    let mut metrics = Metrics {
        avg_reward: 0.0,
        pass_hat_ks: Vec::new(),
        per_task: BTreeMap::new(),
        total_simulations: counted.len(),
        total_tasks: 0,
        infra_error_count,
    };
    if counted.is_empty() {
        return Ok(metrics);
    }
    let rewards: Vec<Option<f64>> = counted
        .iter()
        .map(|t| t.reward.filter(|r| !r.is_nan()))
        .collect();
    metrics.avg_reward = pandas_mean(&rewards);

    // (trials, successes) per task, in task-id order (groupby sorts).
    let mut tally: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for t in &counted {
        let entry = tally.entry(t.task_id.as_str()).or_default();
        entry.0 += 1;
        entry.1 += u64::from(t.reward.is_some_and(is_successful));
    }
    metrics.total_tasks = tally.len();
    let fewest = tally.values().map(|(n, _)| *n).min().unwrap_or(0);
    let max_k = if num_trials <= 0 {
        0
    } else {
        (num_trials as u64).min(fewest)
    };

    let by_id: HashMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut rows: Vec<(i64, &str)> = Vec::with_capacity(tally.len());
    for (id, (n, s)) in &tally {
        let Some(task) = by_id.get(id) else {
            bail!("simulation of task {id}: the task is not among the results' tasks");
        };
        let Some(actions) = task_num_actions(task) else {
            bail!(
                "task {id} has no evaluation_criteria: the official metrics cannot count its actions"
            );
        };
        let values = (1..=max_k)
            .map(|k| pass_hat_k(*n, *s, k))
            .collect::<anyhow::Result<Vec<f64>>>()?;
        metrics.per_task.insert(id.to_string(), values);
        rows.push((actions, id));
    }
    // `sort_values(by="num_actions")`: stable here (see the module doc).
    rows.sort_by_key(|(actions, _)| *actions);
    for k in 1..=max_k as usize {
        let column: Vec<Option<f64>> = rows
            .iter()
            .map(|(_, id)| Some(metrics.per_task[*id][k - 1]))
            .collect();
        metrics.pass_hat_ks.push((k, pandas_mean(&column)));
    }
    Ok(metrics)
}

/// The bootstrap behind pass^k's 95% intervals: tasks resampled (a
/// Poisson weight each, as every interval of itc), the mean of the tasks'
/// pass^k in each resample, its 2.5th and 97.5th percentiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intervals {
    /// Resamples (0: no intervals).
    pub resamples: usize,
    /// Seed of the resamples.
    pub seed: u64,
}

impl Default for Intervals {
    fn default() -> Self {
        let scoring = crate::score::files::ScoringOptions::default();
        Intervals {
            resamples: scoring.bootstrap,
            seed: scoring.seed,
        }
    }
}

/// Per k, the 95% interval of pass^k (fractions), `null` without resamples.
pub fn pass_hat_k_intervals(metrics: &Metrics, intervals: Intervals) -> Value {
    let tasks: Vec<&Vec<f64>> = metrics.per_task.values().collect();
    if intervals.resamples == 0 || tasks.is_empty() {
        return Value::Null;
    }
    let bootstrap = Bootstrap::new(tasks.len(), intervals.resamples, intervals.seed);
    Value::Object(
        metrics
            .pass_hat_ks
            .iter()
            .map(|(k, _)| {
                let values: Vec<f64> = tasks.iter().map(|v| v[k - 1]).collect();
                let ci = percentile_interval(bootstrap.resampled_means(&values));
                (k.to_string(), json!([ci.lo / 100.0, ci.hi / 100.0]))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::reference::{data_path, read_exact_json, tasks};
    use super::*;

    fn reference() -> Value {
        read_exact_json(&data_path("reference/pass_k.json"))
    }

    fn trials_of(set: &Value) -> Vec<Trial> {
        set["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| Trial {
                task_id: i["task_id"].as_str().unwrap().to_string(),
                reward: i["reward"].as_f64(),
                termination: match i.get("termination_reason") {
                    Some(r) => serde_json::from_value(r.clone()).unwrap(),
                    None => TerminationReason::UserStop,
                },
            })
            .collect()
    }

    /// Every output of every set equal bit for bit, but one pass^k mean
    /// whose ties on the action count the official's unstable sort put in
    /// another order (see the next test).
    #[test]
    fn every_reference_set_reproduced_bit_for_bit() {
        let tasks = tasks();
        let sets = reference()["sets"].as_array().unwrap().clone();
        assert_eq!(sets.len(), 8);
        let mut tie_order = Vec::new();
        for set in &sets {
            let name = set["name"].as_str().unwrap();
            let num_trials = set["info_num_trials"].as_i64().unwrap();
            let ours = compute_metrics(num_trials, &trials_of(set), &tasks).unwrap();
            let out = &set["outputs"];
            assert_eq!(
                ours.avg_reward.to_bits(),
                out["avg_reward"].as_f64().unwrap().to_bits(),
                "{name}"
            );
            let expected = out["pass_hat_ks"].as_object().unwrap();
            assert_eq!(ours.pass_hat_ks.len(), expected.len(), "{name}");
            for (k, value) in &ours.pass_hat_ks {
                let theirs = expected[&k.to_string()].as_f64().unwrap();
                if value.to_bits() != theirs.to_bits() {
                    assert_eq!(
                        value.to_bits().abs_diff(theirs.to_bits()),
                        1,
                        "{name} k={k}"
                    );
                    tie_order.push((name.to_string(), *k));
                }
            }
            let per_task = out["per_task"].as_object().unwrap();
            assert_eq!(ours.per_task.len(), per_task.len(), "{name}");
            for (id, columns) in per_task {
                let expected: Vec<u64> = (1..=columns.as_object().unwrap().len())
                    .map(|k| columns[format!("pass^{k}")].as_f64().unwrap().to_bits())
                    .collect();
                let got: Vec<u64> = ours.per_task[id].iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, expected, "{name} task {id}");
            }
            assert_eq!(
                ours.total_simulations as u64,
                out["total_simulations"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                ours.total_tasks as u64,
                out["total_tasks"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                ours.infra_error_count as u64,
                out["infra_error_count"].as_u64().unwrap(),
                "{name}"
            );
        }
        assert_eq!(tie_order, [("premature_terminations".to_string(), 2)]);
    }

    /// The one difference is the order of two tasks with 5 gold actions
    /// (10 and 43): numpy's `argsort(kind="quicksort")` is not stable (on
    /// x86 it runs x86-simd-sort's sorting networks), and put 43 first; in
    /// that order the same pairwise sum gives the official figure.
    #[test]
    fn the_official_mean_is_the_same_sum_over_its_own_tie_order() {
        let tasks = tasks();
        let set = reference()["sets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "premature_terminations")
            .unwrap()
            .clone();
        let ours = compute_metrics(4, &trials_of(&set), &tasks).unwrap();
        let actions =
            |id: &str| task_num_actions(tasks.iter().find(|t| t.id == id).unwrap()).unwrap();
        let mut stable: Vec<&str> = ours.per_task.keys().map(String::as_str).collect();
        stable.sort_by_key(|id| actions(id));
        assert_eq!(stable, ["98", "37", "10", "43", "27", "16"]);
        assert_eq!(actions("10"), actions("43"));
        let mean = |order: &[&str]| {
            pandas_mean(
                &order
                    .iter()
                    .map(|id| Some(ours.per_task[*id][1]))
                    .collect::<Vec<_>>(),
            )
        };
        let official = set["outputs"]["pass_hat_ks"]["2"].as_f64().unwrap();
        assert_eq!(mean(&stable).to_bits(), ours.pass_hat_ks[1].1.to_bits());
        assert_ne!(mean(&stable).to_bits(), official.to_bits());
        assert_eq!(
            mean(&["98", "37", "43", "10", "27", "16"]).to_bits(),
            official.to_bits()
        );
    }

    /// Eight values or more are summed in numpy's blocks, not left to right:
    /// with 1e16 first, each 1 added alone is lost to rounding, while the
    /// block sums keep them.
    #[test]
    fn means_use_numpys_pairwise_blocks() {
        let mut values = vec![Some(1e16)];
        values.extend(std::iter::repeat_n(Some(1.0), 8));
        let left_to_right = values.iter().flatten().fold(0.0, |s, x| s + x);
        assert_eq!(left_to_right, 1e16);
        // ((1e16 + 1) + (1 + 1)) + ((1 + 1) + (1 + 1)) = 1e16 + 6, then + 1 (a tie, to even).
        assert_eq!(pandas_mean(&values), (1e16 + 8.0) / 9.0);
        // A missing value is summed as 0 in its place and not counted.
        values[3] = None;
        assert_eq!(pandas_mean(&values), (1e16 + 4.0) / 8.0);
    }

    #[test]
    fn pass_hat_k_grid_and_is_successful_examples() {
        let reference = reference();
        for row in reference["pass_hat_k_grid"].as_array().unwrap() {
            let n = row["num_trials"].as_u64().unwrap();
            let s = row["success_count"].as_u64().unwrap();
            let k = row["k"].as_u64().unwrap();
            let got = pass_hat_k(n, s, k).unwrap();
            assert_eq!(
                got.to_bits(),
                row["pass_hat_k"].as_f64().unwrap().to_bits(),
                "{row}"
            );
        }
        for row in reference["is_successful"].as_array().unwrap() {
            let reward = row["reward"].as_f64().unwrap();
            assert_eq!(
                is_successful(reward),
                row["is_successful"].as_bool().unwrap(),
                "{reward}"
            );
        }
        assert!(!is_successful(f64::NAN));
        assert!(pass_hat_k(3, 3, 4).is_err());
        assert!(pass_hat_k(MAX_TRIALS + 1, 3, 1).is_err());
    }

    /// Quotients beyond 2^53, correctly rounded as Python's `int / int`
    /// (the expected values are Python's `math.comb(s, k) / math.comb(n, k)`).
    #[test]
    fn large_binomials_divide_as_python_ints_do() {
        assert_eq!(pass_hat_k(120, 97, 50).unwrap(), 6.660180850417513e-07);
        assert_eq!(pass_hat_k(100, 73, 37).unwrap(), 2.5528004072583543e-07);
        // Here dividing the two binomials as f64s would round twice, and differ.
        assert_eq!(pass_hat_k(67, 35, 29).unwrap(), 2.0581244381539307e-13);
        assert_eq!(pass_hat_k(67, 40, 38).unwrap(), 9.890196048202678e-17);
        assert_eq!(pass_hat_k(67, 47, 29).unwrap(), 5.792926363888181e-07);
        assert_eq!(pass_hat_k(64, 63, 32).unwrap(), 0.5);
        assert_eq!(pass_hat_k(120, 119, 60).unwrap(), 0.5);
        assert_eq!(pass_hat_k(120, 120, 60).unwrap(), 1.0);
    }

    #[test]
    fn lone_transfer_actions_count_minus_one_and_missing_criteria_are_errors() {
        let tasks = tasks();
        let transfer_only = tasks
            .iter()
            .filter(|t| task_num_actions(t) == Some(-1))
            .map(|t| {
                t.evaluation_criteria
                    .as_ref()
                    .unwrap()
                    .actions
                    .as_ref()
                    .unwrap()[0]
                    .name
                    .clone()
            })
            .collect::<Vec<_>>();
        assert!(
            transfer_only
                .iter()
                .all(|n| n == "transfer_to_human_agents")
        );
        let mut bare = tasks[0].clone();
        bare.evaluation_criteria = None;
        assert_eq!(task_num_actions(&bare), None);
        let trial = Trial {
            task_id: bare.id.clone(),
            reward: Some(1.0),
            termination: TerminationReason::UserStop,
        };
        let err = compute_metrics(1, std::slice::from_ref(&trial), &[bare])
            .unwrap_err()
            .to_string();
        assert!(err.contains("no evaluation_criteria"), "{err}");
        let err = compute_metrics(1, &[trial], &[]).unwrap_err().to_string();
        assert!(err.contains("not among the results' tasks"), "{err}");
    }

    #[test]
    fn empty_and_all_infrastructure_runs_give_zero() {
        let none = compute_metrics(4, &[], &[]).unwrap();
        assert_eq!(
            (
                none.avg_reward,
                none.pass_hat_ks.len(),
                none.total_simulations
            ),
            (0.0, 0, 0)
        );
        let infra = Trial {
            task_id: "0".to_string(),
            reward: None,
            termination: TerminationReason::InfrastructureError,
        };
        let all_infra = compute_metrics(4, &[infra.clone(), infra], &[]).unwrap();
        assert_eq!(
            (
                all_infra.avg_reward,
                all_infra.infra_error_count,
                all_infra.total_tasks
            ),
            (0.0, 2, 0)
        );
    }

    #[test]
    fn intervals_hold_the_estimate_and_shrink_to_it_when_every_task_agrees() {
        let metrics = |per_task: Vec<Vec<f64>>| {
            let ks = per_task[0].len();
            let mean =
                |k: usize| per_task.iter().map(|v| v[k]).sum::<f64>() / per_task.len() as f64;
            Metrics {
                avg_reward: 0.0,
                pass_hat_ks: (1..=ks).map(|k| (k, mean(k - 1))).collect(),
                per_task: per_task
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (i.to_string(), v))
                    .collect(),
                total_simulations: 0,
                total_tasks: 0,
                infra_error_count: 0,
            }
        };
        let on = Intervals::default();
        let mixed = metrics(
            (0..40)
                .map(|i| vec![f64::from(i % 2), f64::from(i % 4 == 0)])
                .collect(),
        );
        let ci = pass_hat_k_intervals(&mixed, on);
        for (k, estimate) in &mixed.pass_hat_ks {
            let pair = ci[k.to_string()].as_array().unwrap();
            let (lo, hi) = (pair[0].as_f64().unwrap(), pair[1].as_f64().unwrap());
            assert!(
                lo < *estimate && *estimate < hi,
                "pass^{k}: {lo} {estimate} {hi}"
            );
            assert!(hi - lo < 0.5, "pass^{k}: {lo} {hi}");
        }
        let same = metrics((0..10).map(|_| vec![1.0]).collect());
        assert_eq!(pass_hat_k_intervals(&same, on)["1"], json!([1.0, 1.0]));
        let off = Intervals {
            resamples: 0,
            seed: 0,
        };
        assert_eq!(pass_hat_k_intervals(&mixed, off), Value::Null);
    }
}
