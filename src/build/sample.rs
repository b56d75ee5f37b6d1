//! Biased sampling of APIs (ITC paper §3.2, "Biased Sampling"): API
//! catalogs are long-tailed (GLOBAL, the US and China hold most APIs), so
//! APIs are drawn with country weights that flatten the distribution.
//!
//! A country with `n_c` APIs in the catalog gets weight `n_c^α`
//! (`α = 1`: proportional to the catalog; `α = 0`: every country alike;
//! `α = 0.5`, the default, in between). `GLOBAL` counts as one country. The
//! sample size is apportioned to countries in proportion to their weights,
//! never beyond the APIs a country has (sampling is without replacement; the
//! surplus goes to the other countries), rounding by largest remainder.
//! `--quota XX=k` fixes a country's count; `--category-quota Weather=k`
//! fixes a category's count (those APIs are drawn first, favouring countries
//! by the same weights; the rest of the sample comes from other categories).
//! Everything is drawn from one seeded RNG: a seed always gives the same
//! sample.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;

use crate::build::catalog::{CatalogEntry, country, read_catalog};
use crate::spec::jsonl::write_records;
use crate::util::table::{Table, num};

/// Options of `itc sample`.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleOptions {
    /// Catalog to draw from (JSON Lines, from `itc catalog import`).
    pub catalog: PathBuf,
    /// Number of APIs to draw (without replacement).
    pub n: usize,
    /// Exponent of the country weights n_c^α (1: proportional, 0: uniform over countries).
    pub alpha: f64,
    /// Seed of the random draws.
    pub seed: u64,
    /// Exact number of APIs from a country, as CODE=N (repeatable).
    pub quotas: Vec<(String, usize)>,
    /// Exact number of APIs from a category, as NAME=N (repeatable).
    pub category_quotas: Vec<(String, usize)>,
    /// Where to write the sampled APIs (JSON Lines, catalog records).
    pub output: PathBuf,
    /// List every country of the catalog in the table, not only those drawn.
    pub all_countries: bool,
}

impl Default for SampleOptions {
    /// α = 0.5 and seed 1; no catalog, count or output yet.
    fn default() -> Self {
        SampleOptions {
            catalog: PathBuf::new(),
            n: 0,
            alpha: 0.5,
            seed: 1,
            quotas: Vec::new(),
            category_quotas: Vec::new(),
            output: PathBuf::new(),
            all_countries: false,
        }
    }
}

/// Reads `KEY=N` (the key may contain `=`: the last one splits).
pub fn parse_quota(text: &str) -> Result<(String, usize), String> {
    let (key, n) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected KEY=N, found {text:?}"))?;
    let n = n
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("{text:?}: {n:?} is not a count"))?;
    if key.trim().is_empty() {
        return Err(format!("{text:?}: empty key"));
    }
    Ok((key.trim().to_string(), n))
}

/// Settings of one draw.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawOptions {
    /// Sample size.
    pub n: usize,
    /// Exponent of the country weights.
    pub alpha: f64,
    /// RNG seed.
    pub seed: u64,
    /// Exact counts per country code.
    pub country_quotas: BTreeMap<String, usize>,
    /// Exact counts per category.
    pub category_quotas: BTreeMap<String, usize>,
}

/// Country weights `n_c^α`, normalised to sum to 1.
pub fn weights(counts: &BTreeMap<String, usize>, alpha: f64) -> BTreeMap<String, f64> {
    let raw: BTreeMap<String, f64> = counts
        .iter()
        .map(|(c, &n)| (c.clone(), (n as f64).powf(alpha)))
        .collect();
    let sum: f64 = raw.values().sum();
    raw.into_iter().map(|(c, w)| (c, w / sum)).collect()
}

/// Bounds of one share in [`apportion`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// Relative weight (> 0).
    pub weight: f64,
    /// Fewest units.
    pub lo: usize,
    /// Most units.
    pub hi: usize,
}

fn fill(shares: &[Share], lambda: f64) -> f64 {
    shares
        .iter()
        .map(|s| (lambda * s.weight).clamp(s.lo as f64, s.hi as f64))
        .sum()
}

/// Splits `total` units in proportion to the weights within each share's
/// bounds (water-filling: a share held at a bound passes the rest on), then
/// rounds by largest remainder (ties to the earlier share). `None` when the
/// bounds cannot add up to `total`.
pub fn apportion(total: usize, shares: &[Share]) -> Option<Vec<usize>> {
    let lo_sum: usize = shares.iter().map(|s| s.lo).sum();
    let hi_sum: usize = shares.iter().map(|s| s.hi).sum();
    if total < lo_sum || total > hi_sum || shares.iter().any(|s| s.lo > s.hi) {
        return None;
    }
    let target = total as f64;
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while fill(shares, high) < target && high < 1e300 {
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if fill(shares, mid) <= target {
            low = mid;
        } else {
            high = mid;
        }
    }
    // `low` never overshoots, so the floors leave a remainder ≥ 0.
    let exact: Vec<f64> = shares
        .iter()
        .map(|s| (low * s.weight).clamp(s.lo as f64, s.hi as f64))
        .collect();
    let mut counts: Vec<usize> = exact
        .iter()
        .zip(shares)
        .map(|(x, s)| (x.floor() as usize).clamp(s.lo, s.hi))
        .collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = exact[a] - exact[a].floor();
        let fb = exact[b] - exact[b].floor();
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let mut remaining = total - counts.iter().sum::<usize>();
    while remaining > 0 {
        let before = remaining;
        for &i in &order {
            if remaining > 0 && counts[i] < shares[i].hi {
                counts[i] += 1;
                remaining -= 1;
            }
        }
        if before == remaining {
            return None;
        }
    }
    Some(counts)
}

/// One row of the before/after table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Country code or GLOBAL.
    pub country: String,
    /// APIs of this country in the catalog.
    pub in_catalog: usize,
    /// Share of the catalog, in [0, 1].
    pub share_before: f64,
    /// APIs drawn.
    pub sampled: usize,
    /// Share of the sample, in [0, 1].
    pub share_after: f64,
}

/// A drawn sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Indices into the catalog of the APIs drawn, ascending.
    pub picked: Vec<usize>,
    /// The distribution before and after, most catalog APIs first.
    pub rows: Vec<Row>,
}

fn country_counts(entries: &[CatalogEntry]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for e in entries {
        *counts.entry(e.country().to_string()).or_default() += 1;
    }
    counts
}

fn check_options(entries: &[CatalogEntry], options: &DrawOptions) -> anyhow::Result<()> {
    anyhow::ensure!(
        options.alpha.is_finite() && options.alpha >= 0.0,
        "--alpha must be a finite number ≥ 0, got {}",
        options.alpha
    );
    anyhow::ensure!(
        options.n <= entries.len(),
        "cannot draw {} APIs without replacement from a catalog of {}",
        options.n,
        entries.len()
    );
    let counts = country_counts(entries);
    for (code, &q) in &options.country_quotas {
        let have = counts.get(code).copied().unwrap_or(0);
        anyhow::ensure!(
            q <= have,
            "quota {code}={q}: the catalog has {have} API(s) from {code}"
        );
    }
    let categories: BTreeSet<&str> = entries.iter().map(|e| e.tool.category.as_str()).collect();
    for (category, &q) in &options.category_quotas {
        anyhow::ensure!(
            q == 0 || categories.contains(category.as_str()),
            "category quota {category}={q}: no API of that category in the catalog"
        );
    }
    for (what, sum) in [
        ("country", options.country_quotas.values().sum::<usize>()),
        ("category", options.category_quotas.values().sum::<usize>()),
    ] {
        anyhow::ensure!(
            sum <= options.n,
            "the {what} quotas add up to {sum}, more than the {} APIs to draw",
            options.n
        );
    }
    Ok(())
}

/// Draws `k` of `candidates` with probability ∝ their weights, without
/// replacement (Efraimidis–Spirakis keys), skipping those `allow` refuses.
fn weighted_draw(
    rng: &mut fastrand::Rng,
    candidates: &[(usize, f64)],
    k: usize,
    mut allow: impl FnMut(usize) -> bool,
) -> Vec<usize> {
    let mut keyed: Vec<(f64, usize)> = candidates
        .iter()
        .map(|&(i, w)| ((1.0 - rng.f64()).ln() / w, i))
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen = Vec::new();
    for (_, i) in keyed {
        if chosen.len() == k {
            break;
        }
        if allow(i) {
            chosen.push(i);
        }
    }
    chosen
}

/// Draws the APIs of the category quotas first.
fn draw_category_quotas(
    entries: &[CatalogEntry],
    options: &DrawOptions,
    weight: &BTreeMap<String, f64>,
    counts: &BTreeMap<String, usize>,
    rng: &mut fastrand::Rng,
) -> anyhow::Result<Vec<usize>> {
    let mut picked: Vec<usize> = Vec::new();
    let mut per_country: BTreeMap<String, usize> = BTreeMap::new();
    for (category, &quota) in &options.category_quotas {
        let candidates: Vec<(usize, f64)> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| &e.tool.category == category)
            .map(|(i, e)| (i, weight[e.country()] / counts[e.country()] as f64))
            .collect();
        let chosen = weighted_draw(rng, &candidates, quota, |i| {
            let c = entries[i].country();
            let cap = options.country_quotas.get(c).copied().unwrap_or(usize::MAX);
            let ok = per_country.get(c).copied().unwrap_or(0) < cap;
            if ok {
                *per_country.entry(c.to_string()).or_default() += 1;
            }
            ok
        });
        anyhow::ensure!(
            chosen.len() == quota,
            "category quota {category}={quota}: only {} API(s) of that category can be drawn",
            chosen.len()
        );
        picked.extend(chosen);
    }
    Ok(picked)
}

/// Draws a sample from the catalog.
pub fn sample(entries: &[CatalogEntry], options: &DrawOptions) -> anyhow::Result<Sample> {
    check_options(entries, options)?;
    let counts = country_counts(entries);
    let weight = weights(&counts, options.alpha);
    let mut rng = fastrand::Rng::with_seed(options.seed);
    let first = draw_category_quotas(entries, options, &weight, &counts, &mut rng)?;
    let taken: BTreeSet<usize> = first.iter().copied().collect();

    // The APIs left for the country draw: not taken, not of a quota category.
    let mut available: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        if !taken.contains(&i) && !options.category_quotas.contains_key(&e.tool.category) {
            available.entry(e.country()).or_default().push(i);
        }
    }
    let mut already: BTreeMap<&str, usize> = BTreeMap::new();
    for &i in &first {
        *already.entry(entries[i].country()).or_default() += 1;
    }
    let countries: Vec<&String> = counts.keys().collect();
    let mut shares = Vec::with_capacity(countries.len());
    for code in &countries {
        let drawn = already.get(code.as_str()).copied().unwrap_or(0);
        let free = available.get(code.as_str()).map_or(0, Vec::len);
        let (lo, hi) = match options.country_quotas.get(*code) {
            Some(&q) => {
                anyhow::ensure!(
                    drawn <= q && q <= drawn + free,
                    "quota {code}={q} cannot be met together with the category quotas ({drawn} drawn for them, {free} other APIs)"
                );
                (q, q)
            }
            None => (drawn, drawn + free),
        };
        shares.push(Share {
            weight: weight[*code],
            lo,
            hi,
        });
    }
    let targets = apportion(options.n, &shares).ok_or_else(|| {
        anyhow::anyhow!(
            "the quotas cannot be met with {} APIs: they need between {} and {}",
            options.n,
            shares.iter().map(|s| s.lo).sum::<usize>(),
            shares.iter().map(|s| s.hi).sum::<usize>()
        )
    })?;

    let mut picked = first.clone();
    for (code, target) in countries.iter().zip(targets) {
        let drawn = already.get(code.as_str()).copied().unwrap_or(0);
        let mut pool = available.get(code.as_str()).cloned().unwrap_or_default();
        rng.shuffle(&mut pool);
        picked.extend(pool.into_iter().take(target - drawn));
    }
    picked.sort_unstable();
    let rows = distribution(entries, &picked);
    Ok(Sample { picked, rows })
}

/// The before/after distribution of a sample, most catalog APIs first.
pub fn distribution(entries: &[CatalogEntry], picked: &[usize]) -> Vec<Row> {
    let counts = country_counts(entries);
    let mut drawn: BTreeMap<&str, usize> = BTreeMap::new();
    for &i in picked {
        *drawn.entry(entries[i].country()).or_default() += 1;
    }
    let fraction = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let mut rows: Vec<Row> = counts
        .iter()
        .map(|(c, &n)| {
            let k = drawn.get(c.as_str()).copied().unwrap_or(0);
            Row {
                country: c.clone(),
                in_catalog: n,
                share_before: fraction(n, entries.len()),
                sampled: k,
                share_after: fraction(k, picked.len()),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.in_catalog
            .cmp(&a.in_catalog)
            .then(a.country.cmp(&b.country))
    });
    rows
}

/// The table `itc sample` prints: the countries drawn (every country of the
/// catalog with `all_countries`), then the totals over the whole catalog.
pub fn distribution_table(rows: &[Row], all_countries: bool) -> String {
    let mut t = Table::new([
        "Country",
        "APIs in catalog",
        "Share before %",
        "Sampled",
        "Share after %",
    ]);
    for r in rows.iter().filter(|r| all_countries || r.sampled > 0) {
        t.push([
            r.country.clone(),
            r.in_catalog.to_string(),
            num(100.0 * r.share_before),
            r.sampled.to_string(),
            num(100.0 * r.share_after),
        ]);
    }
    let total: usize = rows.iter().map(|r| r.in_catalog).sum();
    let sampled: usize = rows.iter().map(|r| r.sampled).sum();
    t.push([
        "total".to_string(),
        total.to_string(),
        num(100.0),
        sampled.to_string(),
        num(100.0),
    ]);
    t.render(false)
}

fn draw_options(args: &SampleOptions) -> anyhow::Result<DrawOptions> {
    let mut country_quotas = BTreeMap::new();
    for (key, n) in &args.quotas {
        let code = country::normalize(key).ok_or_else(|| {
            anyhow::anyhow!("--quota {key}={n}: {key:?} is not a country code or GLOBAL")
        })?;
        country_quotas.insert(code, *n);
    }
    Ok(DrawOptions {
        n: args.n,
        alpha: args.alpha,
        seed: args.seed,
        country_quotas,
        category_quotas: args.category_quotas.iter().cloned().collect(),
    })
}

/// Runs `itc sample`: draws, prints the distribution, writes the sample.
pub fn run(args: &SampleOptions, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let options = draw_options(args)?;
    let entries = read_catalog(&args.catalog)?;
    let sample = sample(&entries, &options)?;
    writeln!(
        out,
        "Sampled {} of {} APIs (α = {}, seed {}); country weights ∝ n^α\n",
        sample.picked.len(),
        entries.len(),
        options.alpha,
        options.seed
    )?;
    writeln!(
        out,
        "{}",
        distribution_table(&sample.rows, args.all_countries)
    )?;
    let categories: BTreeSet<&str> = sample
        .picked
        .iter()
        .map(|&i| entries[i].tool.category.as_str())
        .collect();
    let all: BTreeSet<&str> = entries.iter().map(|e| e.tool.category.as_str()).collect();
    let drawn = sample.rows.iter().filter(|r| r.sampled > 0).count();
    writeln!(
        out,
        "\n{} of {} categories and {drawn} of {} countries represented",
        categories.len(),
        all.len(),
        sample.rows.len()
    )?;
    if !args.all_countries && drawn < sample.rows.len() {
        writeln!(
            out,
            "(the table lists the countries drawn; --all-countries lists all {})",
            sample.rows.len()
        )?;
    }
    write_records(&args.output, sample.picked.iter().map(|&i| &entries[i]))
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.output.display()))?;
    writeln!(
        err,
        "wrote {} APIs to {}",
        sample.picked.len(),
        args.output.display()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::catalog::RawEntry;

    fn catalog(spec: &[(&str, &str, usize)]) -> Vec<CatalogEntry> {
        let mut entries = Vec::new();
        for (country, category, n) in spec {
            for i in 0..*n {
                let mut raw = RawEntry::new(format!("{country}-{category}-{i}"), None, "");
                raw.tool.country = country.to_string();
                raw.tool.category = category.to_string();
                entries.push(CatalogEntry {
                    id: raw.tool.name.clone(),
                    tool: raw.tool,
                    country_source: None,
                    home_url: None,
                    auth: None,
                    source: None,
                    original_name: None,
                });
            }
        }
        entries
    }

    fn long_tail() -> Vec<CatalogEntry> {
        catalog(&[
            ("GLOBAL", "Weather", 300),
            ("GLOBAL", "Finance", 300),
            ("US", "Weather", 100),
            ("US", "Finance", 100),
            ("CN", "Finance", 150),
            ("JP", "Weather", 36),
            ("BR", "Finance", 9),
            ("KE", "Weather", 4),
            ("NZ", "Finance", 1),
        ])
    }

    fn options(n: usize, alpha: f64) -> DrawOptions {
        DrawOptions {
            n,
            alpha,
            seed: 1,
            country_quotas: BTreeMap::new(),
            category_quotas: BTreeMap::new(),
        }
    }

    fn sampled(s: &Sample, country: &str) -> usize {
        s.rows
            .iter()
            .find(|r| r.country == country)
            .unwrap()
            .sampled
    }

    #[test]
    fn weights_follow_alpha() {
        let counts: BTreeMap<String, usize> =
            [("A".to_string(), 100), ("B".into(), 25), ("C".into(), 1)].into();
        let w1 = weights(&counts, 1.0);
        assert!((w1["A"] - 100.0 / 126.0).abs() < 1e-12);
        let w0 = weights(&counts, 0.0);
        assert!(w0.values().all(|w| (w - 1.0 / 3.0).abs() < 1e-12));
        let w5 = weights(&counts, 0.5);
        assert!((w5["A"] - 10.0 / 16.0).abs() < 1e-12);
        assert!((w5["B"] - 5.0 / 16.0).abs() < 1e-12);
        assert!((w5["C"] - 1.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn apportion_respects_bounds_and_totals() {
        let s = |weight, lo, hi| Share { weight, lo, hi };
        assert_eq!(
            apportion(10, &[s(1.0, 0, 100), s(1.0, 0, 100), s(2.0, 0, 100)]),
            Some(vec![3, 2, 5])
        );
        // A capped share passes its surplus on.
        assert_eq!(
            apportion(10, &[s(1.0, 0, 1), s(1.0, 0, 100), s(1.0, 0, 100)]),
            Some(vec![1, 5, 4])
        );
        // Fixed shares (quotas) stay fixed.
        assert_eq!(
            apportion(10, &[s(100.0, 2, 2), s(1.0, 0, 100)]),
            Some(vec![2, 8])
        );
        assert_eq!(apportion(10, &[s(1.0, 0, 3), s(1.0, 0, 3)]), None);
        assert_eq!(apportion(1, &[s(1.0, 2, 3)]), None);
    }

    #[test]
    fn alpha_one_is_proportional_and_alpha_zero_uniform() {
        let entries = long_tail();
        let total = entries.len() as f64;
        let proportional = sample(&entries, &options(100, 1.0)).unwrap();
        for row in &proportional.rows {
            let expected = 100.0 * row.in_catalog as f64 / total;
            assert!(
                (row.sampled as f64 - expected).abs() < 1.0,
                "{row:?} expected {expected}"
            );
        }
        // α = 0: 100 / 7 countries ≈ 14.3 each, but KE has 4 and NZ 1, BR 9:
        // the surplus goes to the others, which then get (100-14)/4 = 21.5.
        let uniform = sample(&entries, &options(100, 0.0)).unwrap();
        assert_eq!(sampled(&uniform, "NZ"), 1);
        assert_eq!(sampled(&uniform, "KE"), 4);
        assert_eq!(sampled(&uniform, "BR"), 9);
        for c in ["GLOBAL", "US", "CN", "JP"] {
            assert!((21..=22).contains(&sampled(&uniform, c)), "{c}");
        }
    }

    #[test]
    fn long_tail_gains_share_below_alpha_one() {
        let entries = long_tail();
        let tail = |s: &Sample| -> usize {
            s.rows
                .iter()
                .filter(|r| !["GLOBAL", "US", "CN"].contains(&r.country.as_str()))
                .map(|r| r.sampled)
                .sum()
        };
        let a1 = sample(&entries, &options(200, 1.0)).unwrap();
        let a05 = sample(&entries, &options(200, 0.5)).unwrap();
        let a0 = sample(&entries, &options(200, 0.0)).unwrap();
        assert!(tail(&a1) < tail(&a05) && tail(&a05) < tail(&a0));
        for row in &a05.rows {
            if row.country != "GLOBAL" && row.in_catalog < 100 {
                assert!(row.share_after > row.share_before, "{row:?}");
            }
        }
        assert_eq!(a05.picked.len(), 200);
    }

    #[test]
    fn draws_are_deterministic_distinct_and_seeded() {
        let entries = long_tail();
        let a = sample(&entries, &options(50, 0.5)).unwrap();
        let b = sample(&entries, &options(50, 0.5)).unwrap();
        assert_eq!(a, b);
        let unique: BTreeSet<_> = a.picked.iter().collect();
        assert_eq!(unique.len(), 50);
        let mut other = options(50, 0.5);
        other.seed = 2;
        let c = sample(&entries, &other).unwrap();
        assert_ne!(a.picked, c.picked);
        assert_eq!(a.rows, c.rows, "the counts do not depend on the seed");
    }

    #[test]
    fn quotas_are_respected() {
        let entries = long_tail();
        let mut o = options(60, 0.5);
        o.country_quotas.insert("US".into(), 10);
        o.country_quotas.insert("NZ".into(), 0);
        o.category_quotas.insert("Weather".into(), 25);
        let s = sample(&entries, &o).unwrap();
        assert_eq!(s.picked.len(), 60);
        assert_eq!(sampled(&s, "US"), 10);
        assert_eq!(sampled(&s, "NZ"), 0);
        let weather = s
            .picked
            .iter()
            .filter(|&&i| entries[i].tool.category == "Weather")
            .count();
        assert_eq!(weather, 25);

        let mut too_many = options(10, 0.5);
        too_many.country_quotas.insert("KE".into(), 5);
        let err = sample(&entries, &too_many).unwrap_err().to_string();
        assert!(err.contains("quota KE=5: the catalog has 4"), "{err}");
        let mut conflict = options(10, 0.5);
        conflict.country_quotas.insert("US".into(), 8);
        conflict.category_quotas.insert("Finance".into(), 5);
        assert!(sample(&entries, &conflict).is_err());
        assert!(sample(&entries, &options(2000, 0.5)).is_err());
    }

    #[test]
    fn quota_arguments_parse() {
        assert_eq!(parse_quota("JP=10"), Ok(("JP".into(), 10)));
        assert_eq!(
            parse_quota("Science & Math=3"),
            Ok(("Science & Math".into(), 3))
        );
        assert!(parse_quota("JP").is_err());
        assert!(parse_quota("JP=x").is_err());
    }
}
