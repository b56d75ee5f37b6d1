//! Tool confusion (ITC paper §3.2, "Tool Confusion"): every sampled API gets
//! a candidate list of the gold API plus `k` distractors that are hard to
//! tell apart from it, "APIs with overlapping functionalities" in its
//! category, from any country.
//!
//! Similarity is the cosine of TF-IDF vectors over an API's name (counted
//! twice), description and parameter names and descriptions. Tokens are
//! NFKC-normalised, lower-cased Unicode words, with camelCase and snake_case
//! names split; scripts written without spaces (Han, kana, Hangul, Thai, Lao,
//! Khmer, Myanmar) give overlapping character bigrams. Difficulties:
//!
//! - `random`: distractors drawn uniformly from the whole catalog;
//! - `category`: drawn uniformly from the gold API's category;
//! - `nearest`: the most similar APIs of the category.
//!
//! When a category has fewer than `k` other APIs, the list is filled from
//! the rest of the catalog (at random, or by similarity for `nearest`). The
//! list is shuffled with the seed. Names are unique within a list: a
//! distractor whose name equals (after NFKC, case and punctuation folding)
//! the gold's or an earlier distractor's is renamed `name_2`, `name_3`, …
//! and keeps its original name in `renamed_from`; the gold is never renamed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use crate::build::catalog::{CatalogEntry, normalized_name, read_catalog};
use crate::spec::jsonl::write_records;
use crate::spec::records::Tool;
use crate::util::table::{Table, num};

/// How hard the distractors are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Difficulty {
    /// Uniformly from the whole catalog.
    Random,
    /// Uniformly from the gold API's category.
    Category,
    /// The most similar APIs of the gold API's category.
    Nearest,
}

impl Difficulty {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Difficulty::Random => "random",
            Difficulty::Category => "category",
            Difficulty::Nearest => "nearest",
        }
    }
}

impl std::str::FromStr for Difficulty {
    type Err = String;

    /// Reads a name as [`Difficulty::as_str`] writes it, in any case.
    fn from_str(name: &str) -> Result<Self, String> {
        [
            Difficulty::Random,
            Difficulty::Category,
            Difficulty::Nearest,
        ]
        .into_iter()
        .find(|d| d.as_str().eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown difficulty `{name}`"))
    }
}

/// English function words left out of the vectors.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "eg", "etc", "for", "from", "in", "is", "it",
    "its", "of", "on", "or", "the", "this", "that", "to", "with", "you", "your",
];

/// Characters of scripts written without spaces between words.
pub fn is_dense(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x1780..=0x17FF    // Khmer
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2A6DF) // CJK extension B
}

/// Inserts spaces at camelCase boundaries (`getHTTPStatus` → `get HTTP Status`).
fn split_camel(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

fn flush_word(word: &mut String, tokens: &mut Vec<String>) {
    if word.chars().count() >= 2 && !STOPWORDS.contains(&word.as_str()) {
        tokens.push(std::mem::take(word));
    }
    word.clear();
}

fn flush_dense(run: &mut Vec<char>, tokens: &mut Vec<String>) {
    match run.len() {
        0 => {}
        1 => tokens.push(run[0].to_string()),
        _ => tokens.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
    }
    run.clear();
}

/// The tokens of a text (see the module documentation).
pub fn tokenize(text: &str) -> Vec<String> {
    let normalized: String = text.nfkc().collect();
    let spaced = split_camel(&normalized);
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    for c in spaced.chars() {
        if is_dense(c) {
            flush_word(&mut word, &mut tokens);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_dense(&mut run, &mut tokens);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut tokens);
            flush_dense(&mut run, &mut tokens);
        }
    }
    flush_word(&mut word, &mut tokens);
    flush_dense(&mut run, &mut tokens);
    tokens
}

/// The text an API is compared on: name twice, description, parameters.
pub fn tool_text(tool: &Tool) -> String {
    let mut text = format!("{} {} {}", tool.name, tool.name, tool.description);
    for p in tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
    {
        text.push(' ');
        text.push_str(&p.name.replace('_', " "));
        text.push(' ');
        text.push_str(&p.description);
    }
    text
}

/// A sparse, L2-normalised TF-IDF vector: (term id, weight), sorted by id.
pub type Vector = Vec<(u32, f64)>;

/// TF-IDF over a catalog (sublinear tf `1 + ln tf`, idf `ln((1+N)/(1+df)) + 1`).
#[derive(Debug, Clone)]
pub struct Index {
    terms: HashMap<String, u32>,
    idf: Vec<f64>,
    /// One vector per catalog entry, in catalog order.
    pub vectors: Vec<Vector>,
}

fn term_counts(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for t in tokenize(text) {
        *counts.entry(t).or_default() += 1;
    }
    counts
}

impl Index {
    /// Builds the index of a catalog.
    pub fn build(tools: &[&Tool]) -> Index {
        let docs: Vec<BTreeMap<String, usize>> =
            tools.iter().map(|t| term_counts(&tool_text(t))).collect();
        let mut terms: HashMap<String, u32> = HashMap::new();
        let mut df: Vec<usize> = Vec::new();
        for doc in &docs {
            for term in doc.keys() {
                let next = terms.len() as u32;
                let id = *terms.entry(term.clone()).or_insert(next);
                if id as usize == df.len() {
                    df.push(0);
                }
                df[id as usize] += 1;
            }
        }
        let n = docs.len() as f64;
        let idf = df
            .iter()
            .map(|&d| ((1.0 + n) / (1.0 + d as f64)).ln() + 1.0)
            .collect();
        let mut index = Index {
            terms,
            idf,
            vectors: Vec::new(),
        };
        index.vectors = docs.iter().map(|d| index.weigh(d)).collect();
        index
    }

    fn weigh(&self, counts: &BTreeMap<String, usize>) -> Vector {
        let mut v: Vector = counts
            .iter()
            .filter_map(|(t, &c)| {
                let id = *self.terms.get(t)?;
                Some((id, (1.0 + (c as f64).ln()) * self.idf[id as usize]))
            })
            .collect();
        v.sort_by_key(|(id, _)| *id);
        let norm = v.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|(_, w)| *w /= norm);
        }
        v
    }

    /// The vector of any tool, over this index's vocabulary.
    pub fn vector(&self, tool: &Tool) -> Vector {
        self.weigh(&term_counts(&tool_text(tool)))
    }
}

/// Cosine similarity of two normalised vectors.
pub fn cosine(a: &Vector, b: &Vector) -> f64 {
    let (mut i, mut j, mut dot) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    dot
}

/// Picks `k` distractors (catalog index, similarity to the gold) for `gold`.
pub fn distractors(
    entries: &[CatalogEntry],
    index: &Index,
    gold: &CatalogEntry,
    k: usize,
    difficulty: Difficulty,
    rng: &mut fastrand::Rng,
) -> Vec<(usize, f64)> {
    let gold_key = gold.dedup_key();
    let gold_vector = index.vector(&gold.tool);
    let scored: Vec<(usize, f64)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.dedup_key() != gold_key)
        .map(|(i, _)| (i, cosine(&gold_vector, &index.vectors[i])))
        .collect();
    let (mut same, mut other): (Vec<_>, Vec<_>) = scored
        .into_iter()
        .partition(|&(i, _)| entries[i].tool.category == gold.tool.category);
    match difficulty {
        Difficulty::Random => {
            same.append(&mut other);
            rng.shuffle(&mut same);
            same.truncate(k);
            same
        }
        Difficulty::Category => {
            rng.shuffle(&mut same);
            rng.shuffle(&mut other);
            same.into_iter().chain(other).take(k).collect()
        }
        Difficulty::Nearest => {
            let by_similarity =
                |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
            same.sort_by(by_similarity);
            other.sort_by(by_similarity);
            same.into_iter().chain(other).take(k).collect()
        }
    }
}

/// Whether a candidate is the gold API or a distractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The API the task is about.
    Gold,
    /// A confusable other API.
    Distractor,
}

/// One candidate tool: a catalog entry (flattened, so it reads as a
/// [`Tool`]) plus its role and similarity to the gold API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The API; `name` may have been renamed (see `renamed_from`).
    #[serde(flatten)]
    pub entry: CatalogEntry,
    /// Gold or distractor.
    pub role: Role,
    /// TF-IDF cosine similarity to the gold API (1 for the gold).
    pub similarity: f64,
    /// The catalog name, when the name was changed to keep names unique.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

/// One line of `itc confuse`'s output: a sampled API and its candidate list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateSet {
    /// The sampled API.
    pub api: CatalogEntry,
    /// How the distractors were chosen.
    pub difficulty: Difficulty,
    /// Position of the gold API in `candidates`.
    pub gold_index: usize,
    /// The gold API and the distractors, shuffled.
    pub candidates: Vec<Candidate>,
    /// How many distractors were renamed.
    pub renamed: usize,
}

/// Renames distractors whose names clash with the gold's or an earlier
/// distractor's (`name_2`, `name_3`, …). Returns how many were renamed.
pub fn make_names_unique(gold: &str, distractors: &mut [Candidate]) -> usize {
    let mut taken: HashSet<String> = HashSet::from([normalized_name(gold)]);
    let mut renamed = 0;
    for candidate in distractors.iter_mut() {
        let original = candidate.entry.tool.name.clone();
        let mut name = original.clone();
        let mut n = 2;
        while taken.contains(&normalized_name(&name)) {
            name = format!("{original}_{n}");
            n += 1;
        }
        taken.insert(normalized_name(&name));
        if name != original {
            candidate.entry.tool.name = name;
            candidate.renamed_from = Some(original);
            renamed += 1;
        }
    }
    renamed
}

/// Builds the candidate set of one sampled API.
pub fn candidate_set(
    entries: &[CatalogEntry],
    index: &Index,
    gold: &CatalogEntry,
    k: usize,
    difficulty: Difficulty,
    rng: &mut fastrand::Rng,
) -> CandidateSet {
    let picked = distractors(entries, index, gold, k, difficulty, rng);
    let mut list: Vec<Candidate> = picked
        .into_iter()
        .map(|(i, similarity)| Candidate {
            entry: entries[i].clone(),
            role: Role::Distractor,
            similarity,
            renamed_from: None,
        })
        .collect();
    let renamed = make_names_unique(&gold.tool.name, &mut list);
    list.push(Candidate {
        entry: gold.clone(),
        role: Role::Gold,
        similarity: 1.0,
        renamed_from: None,
    });
    rng.shuffle(&mut list);
    let gold_index = list
        .iter()
        .position(|c| c.role == Role::Gold)
        .expect("the gold is in the list");
    CandidateSet {
        api: gold.clone(),
        difficulty,
        gold_index,
        candidates: list,
        renamed,
    }
}

/// Options of `itc confuse`.
#[derive(Debug, Clone)]
pub struct ConfuseOptions {
    /// Catalog the distractors come from (JSON Lines, from `itc catalog import`).
    pub catalog: PathBuf,
    /// Sampled APIs (JSON Lines, from `itc sample`).
    pub sampled: PathBuf,
    /// Distractors per sampled API (the candidate list holds k + 1 tools).
    pub k: usize,
    /// How the distractors are chosen.
    pub difficulty: Difficulty,
    /// Seed of the draws and shuffles.
    pub seed: u64,
    /// Where to write the candidate sets (JSON Lines).
    pub output: PathBuf,
}

impl Default for ConfuseOptions {
    /// 4 nearest distractors, seed 1; no files yet.
    fn default() -> Self {
        ConfuseOptions {
            catalog: PathBuf::new(),
            sampled: PathBuf::new(),
            k: 4,
            difficulty: Difficulty::Nearest,
            seed: 1,
            output: PathBuf::new(),
        }
    }
}

/// Summary numbers of a run, for the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// Candidate sets.
    pub sets: usize,
    /// Distractors in all.
    pub distractors: usize,
    /// Mean similarity of distractors to their gold.
    pub mean_similarity: f64,
    /// Share of distractors from the gold's category.
    pub same_category: f64,
    /// Share of distractors from another country than the gold's.
    pub other_country: f64,
    /// Distractors renamed.
    pub renamed: usize,
    /// Sets with fewer than k distractors (catalog too small).
    pub short: usize,
}

/// Summarises candidate sets built with `k` distractors each.
pub fn summarize(sets: &[CandidateSet], k: usize) -> Summary {
    let mut s = Summary {
        sets: sets.len(),
        ..Summary::default()
    };
    let (mut sim, mut same, mut other) = (0.0, 0, 0);
    for set in sets {
        let distractors: Vec<&Candidate> = set
            .candidates
            .iter()
            .filter(|c| c.role == Role::Distractor)
            .collect();
        s.short += usize::from(distractors.len() < k);
        s.renamed += set.renamed;
        for d in distractors {
            s.distractors += 1;
            sim += d.similarity;
            same += usize::from(d.entry.tool.category == set.api.tool.category);
            other += usize::from(d.entry.country() != set.api.country());
        }
    }
    if s.distractors > 0 {
        let n = s.distractors as f64;
        s.mean_similarity = sim / n;
        s.same_category = same as f64 / n;
        s.other_country = other as f64 / n;
    }
    s
}

fn summary_table(difficulty: Difficulty, s: &Summary) -> String {
    let mut t = Table::new([
        "Difficulty",
        "APIs",
        "Distractors",
        "Mean similarity",
        "Same category %",
        "Other country %",
        "Renamed",
        "Short lists",
    ]);
    t.push([
        difficulty.as_str().to_string(),
        s.sets.to_string(),
        s.distractors.to_string(),
        num(s.mean_similarity),
        num(100.0 * s.same_category),
        num(100.0 * s.other_country),
        s.renamed.to_string(),
        s.short.to_string(),
    ]);
    t.render(false)
}

/// Runs `itc confuse`.
pub fn run(args: &ConfuseOptions, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let entries = read_catalog(&args.catalog)?;
    let sampled = read_catalog(&args.sampled)?;
    let tools: Vec<&Tool> = entries.iter().map(|e| &e.tool).collect();
    let index = Index::build(&tools);
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let sets: Vec<CandidateSet> = sampled
        .iter()
        .map(|gold| candidate_set(&entries, &index, gold, args.k, args.difficulty, &mut rng))
        .collect();
    let summary = summarize(&sets, args.k);
    writeln!(out, "{}", summary_table(args.difficulty, &summary))?;
    if summary.renamed > 0 {
        writeln!(
            out,
            "{} distractor(s) renamed to keep names unique within their list (name_2, name_3, …; original in renamed_from)",
            summary.renamed
        )?;
    }
    if summary.short > 0 {
        writeln!(
            err,
            "{} list(s) have fewer than {} distractors: the catalog is too small",
            summary.short, args.k
        )?;
    }
    write_records(&args.output, &sets)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.output.display()))?;
    writeln!(
        err,
        "wrote {} candidate sets to {}",
        sets.len(),
        args.output.display()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::catalog::RawEntry;
    use crate::spec::records::Parameter;

    fn api(
        name: &str,
        description: &str,
        category: &str,
        country: &str,
        url: &str,
    ) -> CatalogEntry {
        let mut raw = RawEntry::new(name, None, "");
        raw.tool.description = description.into();
        raw.tool.category = category.into();
        raw.tool.country = country.into();
        raw.tool.url = url.into();
        CatalogEntry {
            id: name.into(),
            tool: raw.tool,
            country_source: None,
            home_url: None,
            auth: None,
            source: None,
            original_name: None,
        }
    }

    fn catalog() -> Vec<CatalogEntry> {
        vec![
            api(
                "jma_forecast",
                "Weather forecast for Japanese prefectures: rain, temperature",
                "Weather",
                "JP",
                "https://jma.go.jp/f",
            ),
            api(
                "kma_forecast",
                "Weather forecast for Korean cities: rain, temperature",
                "Weather",
                "KR",
                "https://kma.go.kr/f",
            ),
            api(
                "open_meteo",
                "Global weather forecast by coordinates: temperature, wind",
                "Weather",
                "GLOBAL",
                "https://open-meteo.com",
            ),
            api(
                "air_quality",
                "Air pollution index of a city",
                "Weather",
                "CN",
                "https://aqi.cn",
            ),
            api(
                "pollen_count",
                "Pollen levels in the air today",
                "Weather",
                "GB",
                "https://pollen.uk",
            ),
            api(
                "uv_index",
                "Ultraviolet radiation index",
                "Weather",
                "AU",
                "https://uv.au",
            ),
            api(
                "tide_tables",
                "Ocean tide times for harbours",
                "Weather",
                "NZ",
                "https://tides.nz",
            ),
            api(
                "天气查询",
                "查询中国城市的天气预报",
                "Weather",
                "CN",
                "https://juhe.cn/w",
            ),
            api(
                "Cat Facts",
                "Random cat facts",
                "Animals",
                "GLOBAL",
                "https://catfact.ninja",
            ),
            api(
                "Cat Facts",
                "Daily cat facts",
                "Animals",
                "GLOBAL",
                "https://cat-facts.github.io",
            ),
            api(
                "cat_facts",
                "More cat facts",
                "Animals",
                "GLOBAL",
                "https://cf.example.com",
            ),
            api(
                "Dogs",
                "Dog pictures",
                "Animals",
                "GLOBAL",
                "https://dog.ceo",
            ),
            api(
                "exchange_rates",
                "Currency exchange rates",
                "Finance",
                "GLOBAL",
                "https://frankfurter.app",
            ),
            api(
                "stock_quotes",
                "Stock market quotes",
                "Finance",
                "US",
                "https://stocks.example.com",
            ),
        ]
    }

    fn setup() -> (Vec<CatalogEntry>, Index) {
        let entries = catalog();
        let tools: Vec<&Tool> = entries.iter().map(|e| &e.tool).collect();
        let index = Index::build(&tools);
        (entries, index)
    }

    #[test]
    fn tokens_are_unicode_aware() {
        assert_eq!(
            tokenize("getWeatherForecast"),
            ["get", "weather", "forecast"]
        );
        assert_eq!(tokenize("HTTPStatus of the API"), ["http", "status", "api"]);
        assert_eq!(tokenize("天气查询"), ["天气", "气查", "查询"]);
        assert_eq!(tokenize("東京の天気"), ["東京", "京の", "の天", "天気"]);
        assert_eq!(tokenize("ＡＰＩ Ｋｅｙ"), ["api", "key"]);
        assert_eq!(tokenize("Wetter für München"), ["wetter", "für", "münchen"]);
        assert_eq!(tokenize("날씨 예보"), ["날씨", "예보"]);
        assert_eq!(tokenize("雨"), ["雨"]);
    }

    #[test]
    fn similarity_prefers_look_alikes() {
        let (entries, index) = setup();
        let v = |i: usize| &index.vectors[i];
        assert!((cosine(v(0), v(0)) - 1.0).abs() < 1e-9);
        assert!(cosine(v(0), v(1)) > cosine(v(0), v(6)));
        assert!(cosine(v(0), v(1)) > cosine(v(0), v(12)));
        let mut tool = entries[0].tool.clone();
        tool.required_parameters.push(Parameter {
            name: "prefecture_name".into(),
            kind: "string".into(),
            description: "Prefecture".into(),
            default: None,
            ..Default::default()
        });
        assert!(index.vector(&tool).iter().any(|(_, w)| *w > 0.0));
    }

    #[test]
    fn nearest_distractors_are_more_similar_than_random_ones() {
        let (entries, index) = setup();
        let mean = |difficulty| {
            let mut rng = fastrand::Rng::with_seed(7);
            let mut total = 0.0;
            let mut n = 0;
            for gold in &entries {
                for (_, s) in distractors(&entries, &index, gold, 3, difficulty, &mut rng) {
                    total += s;
                    n += 1;
                }
            }
            total / n as f64
        };
        let (random, category, nearest) = (
            mean(Difficulty::Random),
            mean(Difficulty::Category),
            mean(Difficulty::Nearest),
        );
        assert!(
            nearest > category && nearest > random,
            "{random} {category} {nearest}"
        );
        let mut rng = fastrand::Rng::with_seed(1);
        let near = distractors(
            &entries,
            &index,
            &entries[0],
            2,
            Difficulty::Nearest,
            &mut rng,
        );
        let names: Vec<_> = near
            .iter()
            .map(|(i, _)| entries[*i].tool.name.as_str())
            .collect();
        assert_eq!(names, ["kma_forecast", "open_meteo"]);
    }

    #[test]
    fn category_difficulty_stays_in_category_and_fills_from_outside() {
        let (entries, index) = setup();
        let mut rng = fastrand::Rng::with_seed(3);
        let finance = &entries[12];
        let picked = distractors(&entries, &index, finance, 4, Difficulty::Category, &mut rng);
        assert_eq!(picked.len(), 4);
        assert_eq!(entries[picked[0].0].tool.name, "stock_quotes");
        assert!(picked.iter().all(|(i, _)| *i != 12));
    }

    #[test]
    fn lists_keep_the_gold_have_unique_names_and_are_deterministic() {
        let (entries, index) = setup();
        let gold = &entries[8];
        let build = |seed| {
            let mut rng = fastrand::Rng::with_seed(seed);
            candidate_set(&entries, &index, gold, 3, Difficulty::Nearest, &mut rng)
        };
        let set = build(5);
        assert_eq!(set.candidates.len(), 4);
        assert_eq!(set.candidates[set.gold_index].role, Role::Gold);
        assert_eq!(set.candidates[set.gold_index].entry, *gold);
        assert_eq!(
            set.candidates
                .iter()
                .filter(|c| c.role == Role::Gold)
                .count(),
            1
        );
        let names: HashSet<String> = set
            .candidates
            .iter()
            .map(|c| normalized_name(&c.entry.tool.name))
            .collect();
        assert_eq!(names.len(), 4, "{:?}", set.candidates);
        assert_eq!(set.renamed, 2);
        let renamed: Vec<_> = set
            .candidates
            .iter()
            .filter_map(|c| {
                c.renamed_from
                    .as_ref()
                    .map(|r| (r.as_str(), c.entry.tool.name.as_str()))
            })
            .collect();
        assert!(
            renamed.contains(&("Cat Facts", "Cat Facts_2")),
            "{renamed:?}"
        );
        assert!(
            renamed.contains(&("cat_facts", "cat_facts_3")),
            "{renamed:?}"
        );
        assert_eq!(build(5), set);
        let positions: HashSet<usize> = (0..20).map(|s| build(s).gold_index).collect();
        assert!(positions.len() > 1, "the gold moves with the seed");
    }

    #[test]
    fn renaming_skips_taken_suffixes() {
        let (entries, _) = setup();
        let mut list: Vec<Candidate> = ["a", "A", "a_2"]
            .iter()
            .map(|n| {
                let mut e = entries[0].clone();
                e.tool.name = n.to_string();
                Candidate {
                    entry: e,
                    role: Role::Distractor,
                    similarity: 0.0,
                    renamed_from: None,
                }
            })
            .collect();
        assert_eq!(make_names_unique("a", &mut list), 3);
        let names: Vec<_> = list.iter().map(|c| c.entry.tool.name.as_str()).collect();
        assert_eq!(names, ["a_2", "A_3", "a_2_2"]);
    }
}
