//! `itc catalog stats`: a catalog's APIs counted by country, by category,
//! by both, and by how the country was decided, as terminal tables ([`crate::util::table`])
//! and CSV files (polars), so that the long tail is visible.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use polars::prelude::{Column, DataFrame};

use super::country::{self, GLOBAL};
use super::{CatalogEntry, read_catalog};
use crate::util::table::{Table, num};

/// Options of `itc catalog stats`.
#[derive(Debug, Clone, PartialEq)]
pub struct StatsOptions {
    /// Catalog file (JSON Lines, as written by `itc catalog import`).
    pub catalog: PathBuf,
    /// Directory for by_country.csv, by_category.csv, country_category.csv and country_source.csv.
    pub out: Option<PathBuf>,
    /// An HTML page with the long tail chart.
    pub html: Option<PathBuf>,
    /// APIs drawn from the catalog (`itc sample --out`), shown beside it
    /// in the chart: the long tail before and after biased sampling.
    pub sampled: Option<PathBuf>,
}

/// Counts of one catalog.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stats {
    /// Number of APIs.
    pub total: usize,
    /// APIs per country, most first (ties by code).
    pub by_country: Vec<(String, usize)>,
    /// APIs and distinct countries per category, most APIs first.
    pub by_category: Vec<(String, usize, usize)>,
    /// APIs per (country, category), sorted by country then category.
    pub by_country_category: Vec<(String, String, usize)>,
    /// APIs per way the country was decided (`unknown` for plain tool files).
    pub by_source: Vec<(String, usize)>,
}

fn sorted_desc<K: Ord + Clone>(counts: &BTreeMap<K, usize>) -> Vec<(K, usize)> {
    let mut rows: Vec<(K, usize)> = counts.iter().map(|(k, n)| (k.clone(), *n)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

/// Counts a catalog.
pub fn compute(entries: &[CatalogEntry]) -> Stats {
    let mut countries: BTreeMap<String, usize> = BTreeMap::new();
    let mut categories: BTreeMap<String, usize> = BTreeMap::new();
    let mut category_countries: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut sources: BTreeMap<String, usize> = BTreeMap::new();
    for e in entries {
        let country = e.country().to_string();
        let category = e.tool.category.clone();
        *countries.entry(country.clone()).or_default() += 1;
        *categories.entry(category.clone()).or_default() += 1;
        category_countries
            .entry(category.clone())
            .or_default()
            .insert(country.clone());
        *pairs.entry((country, category)).or_default() += 1;
        let source = e.country_source.map_or("unknown", |s| s.as_str());
        *sources.entry(source.to_string()).or_default() += 1;
    }
    Stats {
        total: entries.len(),
        by_country: sorted_desc(&countries),
        by_category: sorted_desc(&categories)
            .into_iter()
            .map(|(c, n)| {
                let k = category_countries[&c].len();
                (c, n, k)
            })
            .collect(),
        by_country_category: pairs.into_iter().map(|((a, b), n)| (a, b, n)).collect(),
        by_source: sorted_desc(&sources),
    }
}

fn share(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

/// The name shown beside a country code.
pub fn country_label(code: &str) -> &'static str {
    if code == GLOBAL {
        "(all countries)"
    } else {
        country::name_of(code).unwrap_or("?")
    }
}

/// Country, name, APIs, share and cumulative share, most APIs first.
pub fn country_table(stats: &Stats) -> String {
    let mut t = Table::new(["Country", "Name", "APIs", "Share %", "Cum. %"]).with_labels(2);
    let mut cumulative = 0;
    for (code, n) in &stats.by_country {
        cumulative += n;
        t.push([
            code.clone(),
            country_label(code).to_string(),
            n.to_string(),
            num(share(*n, stats.total)),
            num(share(cumulative, stats.total)),
        ]);
    }
    t.render(false)
}

/// Category, APIs, share and number of countries.
pub fn category_table(stats: &Stats) -> String {
    let mut t = Table::new(["Category", "APIs", "Share %", "Countries"]);
    for (category, n, k) in &stats.by_category {
        t.push([
            category.clone(),
            n.to_string(),
            num(share(*n, stats.total)),
            k.to_string(),
        ]);
    }
    t.render(false)
}

/// One line: how the countries were decided.
pub fn country_source_line(entries: &[CatalogEntry]) -> String {
    let stats = compute(entries);
    let parts: Vec<String> = stats
        .by_source
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    format!("country decided by: {}", parts.join(", "))
}

/// One line on the head and the long tail: GLOBAL, the two largest
/// countries, and all others (the paper's "long-tail APIs").
pub fn long_tail_line(stats: &Stats) -> String {
    let global = stats
        .by_country
        .iter()
        .find(|(c, _)| c == GLOBAL)
        .map_or(0, |(_, n)| *n);
    let national: Vec<&(String, usize)> = stats
        .by_country
        .iter()
        .filter(|(c, _)| c != GLOBAL)
        .collect();
    let head: Vec<String> = national
        .iter()
        .take(2)
        .map(|(c, n)| format!("{c} {n} ({:.1}%)", share(*n, stats.total)))
        .collect();
    let tail: Vec<&&(String, usize)> = national.iter().skip(2).collect();
    let tail_apis: usize = tail.iter().map(|(_, n)| n).sum();
    let singles = national.iter().filter(|(_, n)| *n == 1).count();
    format!(
        "{} APIs, {} countries + GLOBAL, {} categories. GLOBAL {} ({:.1}%); largest: {}; long tail: {} other countries with {} APIs ({:.1}%), {} of them with a single API",
        stats.total,
        national.len(),
        stats.by_category.len(),
        global,
        share(global, stats.total),
        if head.is_empty() {
            "-".to_string()
        } else {
            head.join(", ")
        },
        tail.len(),
        tail_apis,
        share(tail_apis, stats.total),
        singles
    )
}

fn write_csv(path: &Path, columns: Vec<Column>, rows: usize) -> anyhow::Result<()> {
    crate::util::atomic::write_csv(path, &mut DataFrame::new(rows, columns)?)
}

/// Writes the four CSV files into `dir`; returns their names.
pub fn write_outputs(dir: &Path, stats: &Stats) -> anyhow::Result<Vec<String>> {
    fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let t = stats.total;
    let c = &stats.by_country;
    write_csv(
        &dir.join("by_country.csv"),
        vec![
            Column::new(
                "country".into(),
                c.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ),
            Column::new(
                "name".into(),
                c.iter().map(|r| country_label(&r.0)).collect::<Vec<_>>(),
            ),
            Column::new(
                "apis".into(),
                c.iter().map(|r| r.1 as u64).collect::<Vec<_>>(),
            ),
            Column::new(
                "share".into(),
                c.iter().map(|r| share(r.1, t)).collect::<Vec<_>>(),
            ),
        ],
        c.len(),
    )?;
    let g = &stats.by_category;
    write_csv(
        &dir.join("by_category.csv"),
        vec![
            Column::new(
                "category".into(),
                g.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ),
            Column::new(
                "apis".into(),
                g.iter().map(|r| r.1 as u64).collect::<Vec<_>>(),
            ),
            Column::new(
                "share".into(),
                g.iter().map(|r| share(r.1, t)).collect::<Vec<_>>(),
            ),
            Column::new(
                "countries".into(),
                g.iter().map(|r| r.2 as u64).collect::<Vec<_>>(),
            ),
        ],
        g.len(),
    )?;
    let x = &stats.by_country_category;
    write_csv(
        &dir.join("country_category.csv"),
        vec![
            Column::new(
                "country".into(),
                x.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ),
            Column::new(
                "category".into(),
                x.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
            ),
            Column::new(
                "apis".into(),
                x.iter().map(|r| r.2 as u64).collect::<Vec<_>>(),
            ),
        ],
        x.len(),
    )?;
    let s = &stats.by_source;
    write_csv(
        &dir.join("country_source.csv"),
        vec![
            Column::new(
                "country_source".into(),
                s.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ),
            Column::new(
                "apis".into(),
                s.iter().map(|r| r.1 as u64).collect::<Vec<_>>(),
            ),
        ],
        s.len(),
    )?;
    Ok(vec![
        "by_country.csv".into(),
        "by_category.csv".into(),
        "country_category.csv".into(),
        "country_source.csv".into(),
    ])
}

/// Runs `itc catalog stats`.
pub fn run(args: &StatsOptions, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let entries = read_catalog(&args.catalog)?;
    let stats = compute(&entries);
    writeln!(out, "{}\n", long_tail_line(&stats))?;
    writeln!(out, "APIs by country\n\n{}\n", country_table(&stats))?;
    writeln!(out, "APIs by category\n\n{}\n", category_table(&stats))?;
    writeln!(out, "{}", country_source_line(&entries))?;
    if let Some(dir) = &args.out {
        let files = write_outputs(dir, &stats)?;
        writeln!(err, "wrote {} in {}", files.join(", "), dir.display())?;
    }
    if let Some(path) = &args.html {
        let sampled = match &args.sampled {
            Some(file) => Some(compute(&read_catalog(file)?)),
            None => None,
        };
        crate::util::atomic::write(
            path,
            long_tail_page(args, &stats, sampled.as_ref())?.as_bytes(),
        )?;
        writeln!(err, "wrote {}", path.display())?;
    }
    Ok(())
}

/// The HTML page of the long tail: every country of the catalog, most APIs
/// first, with its share of the sample beside its share of the catalog.
fn long_tail_page(
    args: &StatsOptions,
    stats: &Stats,
    sampled: Option<&Stats>,
) -> anyhow::Result<String> {
    let drawn = |code: &str| {
        sampled.map(|s| {
            let n = s
                .by_country
                .iter()
                .find(|(c, _)| c == code)
                .map_or(0, |(_, n)| *n);
            (n, share(n, s.total))
        })
    };
    let bars: Vec<(String, f64, Option<f64>)> = stats
        .by_country
        .iter()
        .map(|(code, n)| {
            (
                code.clone(),
                share(*n, stats.total),
                drawn(code).map(|d| d.1),
            )
        })
        .collect();
    let rows: Vec<[String; 6]> = stats
        .by_country
        .iter()
        .map(|(code, n)| {
            let d = drawn(code);
            [
                code.clone(),
                country_label(code).to_string(),
                n.to_string(),
                num(share(*n, stats.total)),
                d.map_or_else(String::new, |d| d.0.to_string()),
                d.map_or_else(String::new, |d| num(d.1)),
            ]
        })
        .collect();
    let svg = crate::report::charts::long_tail(&bars)?;
    let title = format!("APIs by country: {}", args.catalog.display());
    Ok(crate::report::html::catalog_page(
        &title,
        &long_tail_line(stats),
        &svg,
        &rows,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::catalog::{CountrySource, RawEntry};

    fn entry(country: &str, category: &str, source: CountrySource) -> CatalogEntry {
        let mut raw = RawEntry::new("x", None, "");
        raw.tool.country = country.into();
        raw.tool.category = category.into();
        CatalogEntry {
            id: String::new(),
            tool: raw.tool,
            country_source: Some(source),
            home_url: None,
            auth: None,
            source: None,
            original_name: None,
        }
    }

    #[test]
    fn counts_by_country_category_and_source() {
        use CountrySource::*;
        let entries = vec![
            entry("GLOBAL", "Weather", Url),
            entry("GLOBAL", "Finance", Url),
            entry("GLOBAL", "Weather", Default),
            entry("JP", "Weather", Url),
            entry("JP", "Weather", Field),
            entry("BR", "Finance", Text),
            entry("", "Finance", Default),
        ];
        let stats = compute(&entries);
        assert_eq!(stats.total, 7);
        assert_eq!(
            stats.by_country,
            [
                ("GLOBAL".to_string(), 4),
                ("JP".into(), 2),
                ("BR".into(), 1)
            ]
        );
        assert_eq!(
            stats.by_category,
            [("Weather".to_string(), 4, 2), ("Finance".into(), 3, 2)]
        );
        assert!(
            stats
                .by_country_category
                .contains(&("JP".into(), "Weather".into(), 2))
        );
        assert_eq!(stats.by_source[0], ("url".to_string(), 3));
        let table = country_table(&stats);
        assert!(
            table.contains("Japan") && table.contains("57.14"),
            "{table}"
        );
        let line = long_tail_line(&stats);
        assert!(line.contains("GLOBAL 4 (57.1%)"), "{line}");
        assert!(line.contains("long tail: 0 other countries"), "{line}");
    }
}
