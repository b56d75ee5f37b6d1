//! numpy's float64 reductions, to the last bit: StableToolBench's SoPR
//! arithmetic and τ³-bench's means (pandas' `Series.mean`) use them.

/// numpy's `add.reduce` over a float64 array (its pairwise summation:
/// below 8 values one after the other, up to 128 in 8 interleaved partial
/// sums, above that the two halves), so sums equal numpy's to the last bit.
pub fn numpy_sum(xs: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = xs.len();
    if n < 8 {
        return xs.iter().fold(0.0, |sum, x| sum + x);
    }
    if n <= BLOCK {
        let mut r = [0.0; 8];
        r.copy_from_slice(&xs[..8]);
        let whole = n - n % 8;
        for chunk in xs[8..whole].chunks_exact(8) {
            for (acc, x) in r.iter_mut().zip(chunk) {
                *acc += x;
            }
        }
        let sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return xs[whole..].iter().fold(sum, |sum, x| sum + x);
    }
    let half = n / 2 - (n / 2) % 8;
    numpy_sum(&xs[..half]) + numpy_sum(&xs[half..])
}

/// `numpy.std(xs)`: the population standard deviation, computed as numpy does.
pub fn numpy_std(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = numpy_sum(xs) / n;
    let squares: Vec<f64> = xs.iter().map(|x| (x - mean) * (x - mean)).collect();
    (numpy_sum(&squares) / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_sums_as_numpy_does() {
        // Figures of numpy 2.4 (`np.add.reduce`, `np.std`) on
        // xs = [(i * 0.37) % 1.3 + 0.1 for i in range(n)]; a plain sum in
        // order gives 13.019999999999996, 96.84999999999987 and
        // 227.59999999999917 for 17, 130 and 300 values.
        let xs =
            |n: u32| -> Vec<f64> { (0..n).map(|i| (f64::from(i) * 0.37) % 1.3 + 0.1).collect() };
        for (n, sum, std) in [
            (10, 7.249_999_999_999_999, 0.389_647_276_392_380_3),
            (17, 13.019_999_999_999_998, 0.385_365_507_530_790_4),
            (130, 96.849_999_999_999_85, 0.375_266_571_919_215_75),
            (300, 227.599_999_999_999_23, 0.376_503_504_484_206_44),
        ] {
            assert_eq!(numpy_sum(&xs(n)), sum, "{n}");
            assert_eq!(numpy_std(&xs(n)), std, "{n}");
        }
        // np.add.reduce([0.1] * 10) == 1.0; sum([0.1] * 10) == 0.9999999999999999.
        assert_eq!(numpy_sum(&[0.1; 10]), 1.0);
    }
}
