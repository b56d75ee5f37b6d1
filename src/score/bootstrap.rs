//! The seeded Poisson bootstrap behind every interval and p-value.
//!
//! Each resample gives every task an independent Poisson(1) weight. One
//! weight matrix (resamples × tasks) is drawn once from the seed and shared
//! by every model and every breakdown group, so intervals are paired across
//! models. The weights are small integers (a u8 each) stored task by task:
//! a group's sums read only its own tasks' rows, and a task whose value is
//! 1 (a language or format match, a perfect F1: most tasks) adds its row to
//! an integer accumulator, exactly and many lanes at a time. Only values
//! strictly between 0 and 1 (or negative, in paired differences) take the
//! floating-point path.

use serde::Serialize;

/// The largest weight drawn: Poisson(1) puts less than 1e-14 beyond it.
pub const MAX_WEIGHT: u8 = 16;

/// Rows added to a 16-bit accumulator before it is flushed into the 32-bit
/// one: 4,095 × 16 < 65,536, so it cannot overflow.
const ROWS_PER_FLUSH: usize = (u16::MAX / MAX_WEIGHT as u16) as usize;

/// A 95% confidence interval, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// 2.5th percentile.
    pub lo: f64,
    /// 97.5th percentile.
    pub hi: f64,
}

/// Seeded Poisson bootstrap weights, shared by all models and groups.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    tasks: usize,
    resamples: usize,
    /// Task-major: `weights[t * resamples + b]` is task `t`'s weight in
    /// resample `b`.
    weights: Vec<u8>,
}

impl Bootstrap {
    /// Draws `resamples` × `tasks` Poisson(1) weights from `seed`, resample
    /// by resample (so a seed gives the same resamples as it always has).
    pub fn new(tasks: usize, resamples: usize, seed: u64) -> Bootstrap {
        // Cumulative Poisson(1) probabilities for k = 0, 1, …, MAX_WEIGHT − 1.
        let mut cdf = Vec::new();
        let (mut p, mut total) = ((-1f64).exp(), 0.0);
        for k in 0..MAX_WEIGHT {
            total += p;
            cdf.push(total);
            p /= f64::from(k + 1);
        }
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut weights = vec![0u8; tasks * resamples];
        for b in 0..resamples {
            for t in 0..tasks {
                let u = rng.f64();
                weights[t * resamples + b] =
                    cdf.iter().position(|&c| u < c).unwrap_or(cdf.len()) as u8;
            }
        }
        Bootstrap {
            tasks,
            resamples,
            weights,
        }
    }

    /// A bootstrap with the given weights, resample by resample
    /// (`weights[b * tasks + t]` is task `t`'s weight in resample `b`): for
    /// tests and for re-creating a published resample.
    ///
    /// # Panics
    /// When `tasks` is 0, the length is not a multiple of it, or a weight
    /// exceeds [`MAX_WEIGHT`].
    pub fn from_weights(tasks: usize, weights: &[u8]) -> Bootstrap {
        assert!(
            tasks > 0 && weights.len().is_multiple_of(tasks),
            "weights: resamples × tasks"
        );
        assert!(
            weights.iter().all(|&w| w <= MAX_WEIGHT),
            "weights above {MAX_WEIGHT}"
        );
        let resamples = weights.len() / tasks;
        let mut by_task = vec![0u8; weights.len()];
        for (i, &w) in weights.iter().enumerate() {
            let (b, t) = (i / tasks, i % tasks);
            by_task[t * resamples + b] = w;
        }
        Bootstrap {
            tasks,
            resamples,
            weights: by_task,
        }
    }

    /// Tasks covered.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// Resamples drawn.
    pub fn resamples(&self) -> usize {
        self.resamples
    }

    fn row(&self, task: usize) -> &[u8] {
        &self.weights[task * self.resamples..(task + 1) * self.resamples]
    }

    /// The total weight of the given tasks in each resample.
    pub fn totals(&self, members: &[usize]) -> Vec<u32> {
        let mut sum = WeightedSum::new(self.resamples);
        for &t in members {
            sum.add(self.row(t), 1.0);
        }
        sum.finish_counts()
    }

    /// For each of `K` columns, the weighted sum of `values(t)[k]` over the
    /// given tasks in every resample: one pass over the tasks' weights.
    ///
    /// A task's weights are added once for all the columns whose value is
    /// exactly 1, to the sum of that pattern of columns (most tasks score 1
    /// or 0 on every column); a column's sum of ones is the integer sum of
    /// its patterns', so the result is the same as adding column by column.
    pub fn weighted_sums<const K: usize>(
        &self,
        members: &[usize],
        mut values: impl FnMut(usize) -> [f64; K],
    ) -> [Vec<f64>; K] {
        let mut others: [WeightedSum; K] =
            std::array::from_fn(|_| WeightedSum::new(self.resamples));
        let mut patterns: Vec<Option<WeightedSum>> = (0..1usize << K).map(|_| None).collect();
        for &t in members {
            let row = self.row(t);
            let mut ones = 0usize;
            for (k, (sum, value)) in others.iter_mut().zip(values(t)).enumerate() {
                if value == 1.0 {
                    ones |= 1 << k;
                } else {
                    sum.add(row, value);
                }
            }
            if ones != 0 {
                patterns[ones]
                    .get_or_insert_with(|| WeightedSum::new(self.resamples))
                    .add(row, 1.0);
            }
        }
        let patterns: Vec<(usize, Vec<u32>)> = patterns
            .into_iter()
            .enumerate()
            .filter_map(|(ones, sum)| Some((ones, sum?.finish_counts())))
            .collect();
        let mut k = 0;
        others.map(|other| {
            let mut ones = vec![0u32; self.resamples];
            for (_, counts) in patterns.iter().filter(|(p, _)| p & (1 << k) != 0) {
                for (total, n) in ones.iter_mut().zip(counts) {
                    *total += n;
                }
            }
            k += 1;
            other.finish_with_ones(&ones)
        })
    }

    /// The weighted mean of `values` (one per task, every task) in every
    /// resample; a resample whose weights are all zero has no mean and is
    /// left out.
    pub fn resampled_means(&self, values: &[f64]) -> Vec<f64> {
        assert_eq!(values.len(), self.tasks, "one value per task");
        let members: Vec<usize> = (0..self.tasks).collect();
        let [sums] = self.weighted_sums(&members, |t| [values[t]]);
        means(&sums, &self.totals(&members))
    }
}

/// Each resample's mean: `sums[b] / totals[b]`, leaving out the resamples
/// whose total weight is zero.
pub fn means(sums: &[f64], totals: &[u32]) -> Vec<f64> {
    // Sized at once: a filtered collect would grow it step by step.
    let mut means = Vec::with_capacity(sums.len());
    means.extend(
        sums.iter()
            .zip(totals)
            .filter(|(_, total)| **total > 0)
            .map(|(sum, &total)| sum / f64::from(total)),
    );
    means
}

/// Per-resample sums of weight × value over rows added one task at a time.
struct WeightedSum {
    /// Weights of the rows whose value is exactly 1, since the last flush.
    ones: Vec<u16>,
    ones_since_flush: usize,
    /// Flushed weights of rows whose value is 1.
    ones_total: Vec<u32>,
    /// Weight × value of every other non-zero value (allocated on first use).
    other: Vec<f64>,
}

impl WeightedSum {
    fn new(resamples: usize) -> WeightedSum {
        WeightedSum {
            ones: vec![0; resamples],
            ones_since_flush: 0,
            ones_total: vec![0; resamples],
            other: Vec::new(),
        }
    }

    fn add(&mut self, row: &[u8], value: f64) {
        if value == 1.0 {
            add_weights(&mut self.ones, row);
            self.ones_since_flush += 1;
            if self.ones_since_flush == ROWS_PER_FLUSH {
                self.flush();
            }
        } else if value != 0.0 {
            if self.other.is_empty() {
                self.other = vec![0.0; row.len()];
            }
            add_scaled_weights(&mut self.other, row, value);
        }
    }

    fn flush(&mut self) {
        for (total, part) in self.ones_total.iter_mut().zip(&mut self.ones) {
            *total += u32::from(std::mem::take(part));
        }
        self.ones_since_flush = 0;
    }

    fn finish_counts(mut self) -> Vec<u32> {
        self.flush();
        self.ones_total
    }

    /// The sums, with `ones` (the weights of rows whose value is 1, summed
    /// elsewhere) added to this sum's own.
    fn finish_with_ones(mut self, ones: &[u32]) -> Vec<f64> {
        self.flush();
        let mut sums: Vec<f64> = self
            .ones_total
            .iter()
            .zip(ones)
            .map(|(&n, &m)| f64::from(n + m))
            .collect();
        for (sum, other) in sums.iter_mut().zip(&self.other) {
            *sum += other;
        }
        sums
    }
}

/// `sums[b] += row[b]`: the inner loop of every interval. Compiled twice,
/// and the AVX2 copy (twice the lanes of the x86-64 baseline) is used on
/// CPUs that have it; both give the same integers.
fn add_weights(sums: &mut [u16], row: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { add_weights_avx2(sums, row) };
        return;
    }
    add_weights_portable(sums, row);
}

#[inline(always)]
fn add_weights_portable(sums: &mut [u16], row: &[u8]) {
    for (sum, &w) in sums.iter_mut().zip(row) {
        *sum += u16::from(w);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_weights_avx2(sums: &mut [u16], row: &[u8]) {
    add_weights_portable(sums, row);
}

/// `sums[b] += value · row[b]`, with the same dispatch as [`add_weights`].
fn add_scaled_weights(sums: &mut [f64], row: &[u8], value: f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { add_scaled_weights_avx2(sums, row, value) };
        return;
    }
    add_scaled_weights_portable(sums, row, value);
}

#[inline(always)]
fn add_scaled_weights_portable(sums: &mut [f64], row: &[u8], value: f64) {
    for (sum, &w) in sums.iter_mut().zip(row) {
        *sum += value * f64::from(w);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_scaled_weights_avx2(sums: &mut [f64], row: &[u8], value: f64) {
    add_scaled_weights_portable(sums, row, value);
}

/// The 2.5th and 97.5th percentiles (linear interpolation between order
/// statistics) of values in `[0, 1]` (or differences of them), in percent.
/// Selection, not a sort: linear in the number of values.
pub fn percentile_interval(mut values: Vec<f64>) -> Interval {
    if values.is_empty() {
        return Interval { lo: 0.0, hi: 0.0 };
    }
    Interval {
        lo: 100.0 * quantile(&mut values, 0.025),
        hi: 100.0 * quantile(&mut values, 0.975),
    }
}

/// The `q` quantile of `values` (reordered), interpolating linearly between
/// the order statistics around position `q · (n − 1)`.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    let pos = q * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let frac = pos - lo as f64;
    let (_, &mut below, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    if frac == 0.0 {
        return below;
    }
    // The next order statistic is the smallest of those above.
    let next = above
        .iter()
        .copied()
        .min_by(f64::total_cmp)
        .unwrap_or(below);
    below * (1.0 - frac) + next * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old, direct definition: sort, then interpolate.
    fn sorted_interval(mut values: Vec<f64>) -> Interval {
        values.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let pos = q * (values.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            let frac = pos - lo as f64;
            100.0 * (values[lo] * (1.0 - frac) + values[hi] * frac)
        };
        Interval {
            lo: at(0.025),
            hi: at(0.975),
        }
    }

    #[test]
    fn selection_gives_the_sorted_percentiles() {
        let mut rng = fastrand::Rng::with_seed(3);
        for n in [1, 2, 3, 7, 40, 41, 999, 1000, 1001] {
            // Many ties, as bootstrap means of few tasks have.
            let values: Vec<f64> = (0..n).map(|_| f64::from(rng.u8(0..12)) / 11.0).collect();
            assert_eq!(
                percentile_interval(values.clone()),
                sorted_interval(values),
                "n = {n}"
            );
        }
        assert_eq!(percentile_interval(vec![]), Interval { lo: 0.0, hi: 0.0 });
    }

    #[test]
    fn weighted_sums_match_a_direct_sum() {
        let (tasks, resamples) = (9000, 7);
        let bootstrap = Bootstrap::new(tasks, resamples, 11);
        assert!(bootstrap.weights.iter().any(|&w| w >= 4));
        // Values 1 (past one flush of the 16-bit sums), 0, fractions and negatives.
        let value = |t: usize| match t % 5 {
            0..=2 => 1.0,
            3 => 0.0,
            _ => (t % 7) as f64 / 3.0 - 1.0,
        };
        let members: Vec<usize> = (0..tasks).filter(|t| t % 11 != 0).collect();
        let [sums, ones] = bootstrap.weighted_sums(&members, |t| [value(t), 1.0]);
        let totals = bootstrap.totals(&members);
        for b in 0..resamples {
            let weight = |t: usize| f64::from(bootstrap.weights[t * resamples + b]);
            let direct: f64 = members.iter().map(|&t| weight(t) * value(t)).sum();
            assert!((sums[b] - direct).abs() < 1e-6, "{} vs {direct}", sums[b]);
            let total: f64 = members.iter().map(|&t| weight(t)).sum();
            assert_eq!((ones[b], f64::from(totals[b])), (total, total));
        }
    }

    #[test]
    fn dispatched_kernels_equal_the_portable_loops() {
        let row: Vec<u8> = (0..1003).map(|i| (i % 17) as u8).collect();
        let (mut fast, mut portable) = (vec![7u16; 1003], vec![7u16; 1003]);
        add_weights(&mut fast, &row);
        add_weights_portable(&mut portable, &row);
        assert_eq!(fast, portable);
        let (mut fast, mut portable) = (vec![0.5; 1003], vec![0.5; 1003]);
        add_scaled_weights(&mut fast, &row, -0.75);
        add_scaled_weights_portable(&mut portable, &row, -0.75);
        assert_eq!(fast, portable);
    }

    #[test]
    fn weights_keep_their_draw_order_and_transpose() {
        // Resample-major input, as published: resample 1 weighs only task 2.
        let bootstrap = Bootstrap::from_weights(3, &[1, 1, 1, 0, 0, 2]);
        assert_eq!((bootstrap.tasks(), bootstrap.resamples()), (3, 2));
        assert_eq!(bootstrap.resampled_means(&[0.0, 0.5, 1.0]), [0.5, 1.0]);
        // A seed draws resample by resample: the first resample of a bigger
        // draw starts like the smaller one's.
        let small = Bootstrap::new(5, 1, 9);
        let big = Bootstrap::new(5, 3, 9);
        let first = |b: &Bootstrap| (0..5).map(|t| b.row(t)[0]).collect::<Vec<_>>();
        assert_eq!(first(&small), first(&big));
        // Poisson(1): mean weight about 1.
        let many = Bootstrap::new(1000, 100, 1);
        let mean = many.weights.iter().map(|&w| f64::from(w)).sum::<f64>() / 100_000.0;
        assert!((0.98..1.02).contains(&mean), "{mean}");
    }
}
