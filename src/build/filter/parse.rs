//! Reading a judge's scores from its reply, whatever shape the judge chose.
//!
//! The judge is asked for a JSON object (and OpenAI-compatible servers and
//! Gemini enforce the schema), but a judge may still answer in prose. The
//! reader tries, in order:
//!
//! 1. **JSON**: the first JSON object in the text (also inside a code fence
//!    or prose) that names at least one dimension. Keys are matched loosely
//!    (`Relevance`, `language_appropriateness`, `linguistic applicability`,
//!    `overall` …), values may be numbers or strings (`"4"`, `"4/5"`,
//!    `"4.5"`), or objects holding a `score`; scores may sit under a
//!    `scores` object or in a list of `{"dimension": …, "score": …}`.
//!    The first object holding all five scores wins; when objects name
//!    scores but none holds all five, the reply is unparsable (JSON
//!    decides alone: lines elsewhere in the text do not fill its gaps).
//! 2. **Lines and Markdown tables**: `Relevance: 4/5`, `**Clarity** - 4`,
//!    `1. Specificity (4.5)`, `| Practicality | 4 | … |`, or a table whose
//!    header row names the dimensions and whose next row holds the scores.
//!    A line counts only when the score follows the dimension's name
//!    directly (after `:`, `-`, `=`, `(` or the words `score`/`rating`), so
//!    a number in an explanation is never taken for a score.
//!
//! `x/N` is read as `x·5/N` (`8/10` → 4). Every dimension must be present
//! and in 1–5, else the reply is unparsable (the query is then rejected,
//! never kept by default). A missing total is the mean of the five.

use serde_json::{Map, Value};

use crate::spec::records::JudgeScores;

/// The five quality dimensions a judge scores (ITC §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// The query fits what the target APIs do.
    Relevance,
    /// The query is unambiguous and easy to understand.
    Clarity,
    /// The query gives the concrete details the calls need.
    Specificity,
    /// A real user could plausibly ask it.
    Practicality,
    /// The query is natural in its language and fits its country.
    Language,
}

impl Dimension {
    /// Every dimension, in table order.
    pub const ALL: [Dimension; 5] = [
        Dimension::Relevance,
        Dimension::Clarity,
        Dimension::Specificity,
        Dimension::Practicality,
        Dimension::Language,
    ];

    /// The name used in prompts, JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Relevance => "relevance",
            Dimension::Clarity => "clarity",
            Dimension::Specificity => "specificity",
            Dimension::Practicality => "practicality",
            Dimension::Language => "language",
        }
    }

    /// This dimension's score in a set of scores.
    pub fn of(self, scores: &JudgeScores) -> f64 {
        match self {
            Dimension::Relevance => scores.relevance,
            Dimension::Clarity => scores.clarity,
            Dimension::Specificity => scores.specificity,
            Dimension::Practicality => scores.practicality,
            Dimension::Language => scores.language,
        }
    }
}

/// Which shape the scores were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A JSON object.
    Json,
    /// `Name: score` lines and/or Markdown tables.
    Text,
}

/// Scores read from one reply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedScores {
    /// The five scores, each in 1–5.
    pub scores: JudgeScores,
    /// The judge's total, or the mean of the five when it gave none.
    pub total: f64,
    /// Whether the judge gave the total itself.
    pub total_given: bool,
    /// Where the scores were found.
    pub shape: Shape,
}

/// A slot of the reply: one of the five dimensions (0–4) or the total (5).
type Slot = usize;
const TOTAL: Slot = 5;
const SLOT_NAMES: [&str; 6] = [
    "relevance",
    "clarity",
    "specificity",
    "practicality",
    "language",
    "total",
];

/// What one method found: a value per slot, or why a slot's value is bad.
#[derive(Debug, Default)]
struct Found {
    values: [Option<f64>; 6],
    bad: Vec<(Slot, String)>,
}

impl Found {
    fn any(&self) -> bool {
        self.values.iter().any(Option::is_some) || !self.bad.is_empty()
    }

    /// Records a slot's value or why it is bad (the first one found wins).
    fn put(&mut self, slot: Slot, value: Result<f64, String>) {
        if self.values[slot].is_some() || self.bad.iter().any(|(s, _)| *s == slot) {
            return;
        }
        match value {
            Ok(x) => self.values[slot] = Some(x),
            Err(why) => {
                self.bad
                    .push((slot, format!("{}: {why}", SLOT_NAMES[slot])));
            }
        }
    }

    fn finish(self, shape: Shape) -> Result<ParsedScores, String> {
        let missing: Vec<&str> = (0..5)
            .filter(|&s| self.values[s].is_none() && !self.bad.iter().any(|(b, _)| *b == s))
            .map(|s| SLOT_NAMES[s])
            .collect();
        let mut problems: Vec<String> = self.bad.into_iter().map(|(_, why)| why).collect();
        if !missing.is_empty() {
            problems.push(format!("no score for {}", missing.join(", ")));
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let v: Vec<f64> = self.values.iter().map(|x| x.unwrap_or(0.0)).collect();
        let scores = JudgeScores {
            relevance: v[0],
            clarity: v[1],
            specificity: v[2],
            practicality: v[3],
            language: v[4],
        };
        let (total, total_given) = match self.values[TOTAL] {
            Some(t) => (t, true),
            None => (v[..5].iter().sum::<f64>() / 5.0, false),
        };
        Ok(ParsedScores {
            scores,
            total,
            total_given,
            shape,
        })
    }
}

/// Reads the five scores and the total from a judge's reply; the error says
/// what is missing or out of range.
pub fn parse_scores(text: &str) -> Result<ParsedScores, String> {
    let mut json_error = None;
    for object in json_objects(text) {
        let mut found = Found::default();
        collect_json(&Value::Object(object), &mut found, 0);
        if found.any() {
            match found.finish(Shape::Json) {
                Ok(parsed) => return Ok(parsed),
                Err(why) => {
                    json_error.get_or_insert(why);
                }
            }
        }
    }
    if let Some(why) = json_error {
        return Err(why);
    }
    let found = collect_text(text);
    if !found.any() {
        return Err("no scores found in the reply".to_string());
    }
    found.finish(Shape::Text)
}

/// Every JSON object in a text, in order: the text itself, objects inside
/// code fences, or objects embedded in prose (nested ones are not listed
/// apart from the object holding them).
pub fn json_objects(text: &str) -> Vec<Map<String, Value>> {
    let mut objects = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(map))) => {
                at = start + stream.byte_offset();
                objects.push(map);
            }
            _ => at = start + 1,
        }
    }
    objects
}

/// The slot a key or label names, if any.
fn slot_of_key(key: &str) -> Option<Slot> {
    let k: String = key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if k.starts_with("relevan") {
        Some(0)
    } else if k.starts_with("clarity") || k == "clear" {
        Some(1)
    } else if k.starts_with("specific") {
        Some(2)
    } else if k.starts_with("practical") {
        Some(3)
    } else if k.starts_with("language") || k.starts_with("linguistic") {
        Some(4)
    } else if matches!(
        k.as_str(),
        "total" | "totalscore" | "overall" | "overallscore" | "final" | "finalscore"
    ) {
        Some(TOTAL)
    } else {
        None
    }
}

/// Keys whose value names a dimension, in lists of `{"dimension": …, "score": …}`.
const LABEL_KEYS: [&str; 5] = ["dimension", "name", "criterion", "aspect", "category"];
/// Keys holding a score inside an object.
const SCORE_KEYS: [&str; 4] = ["score", "value", "rating", "points"];

fn collect_json(value: &Value, found: &mut Found, depth: usize) {
    if depth > 4 {
        return;
    }
    match value {
        Value::Object(map) => {
            // {"dimension": "Clarity", "score": 4}
            let label = LABEL_KEYS
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
                .and_then(slot_of_key);
            if let Some(slot) = label
                && let Some(score) = inner_score(map)
            {
                found.put(slot, score);
                return;
            }
            for (key, v) in map {
                match slot_of_key(key) {
                    Some(slot) => match json_score(v) {
                        Some(score) => found.put(slot, score),
                        None => collect_json(v, found, depth + 1),
                    },
                    None if v.is_object() || v.is_array() => collect_json(v, found, depth + 1),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_json(item, found, depth + 1);
            }
        }
        _ => {}
    }
}

/// The score a JSON value gives: a number, a string holding one, or an
/// object with a `score`. `None` when the value holds no score at all.
fn json_score(value: &Value) -> Option<Result<f64, String>> {
    match value {
        Value::Number(n) => Some(in_range(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => {
            Some(text_score(s).unwrap_or_else(|| Err(format!("{s:?} is not a score"))))
        }
        Value::Object(map) => inner_score(map),
        Value::Null => Some(Err("null".to_string())),
        _ => None,
    }
}

fn inner_score(map: &Map<String, Value>) -> Option<Result<f64, String>> {
    SCORE_KEYS
        .iter()
        .find_map(|k| map.get(*k))
        .and_then(|v| match v {
            Value::Object(_) => None,
            other => json_score(other),
        })
}

/// A score written as text at the start of `s` (after stray markup):
/// `4`, `4.5`, `4/5`, `8 / 10`, `4 out of 5`. `None` when `s` does not
/// start with a number.
fn text_score(s: &str) -> Option<Result<f64, String>> {
    let s = s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '[' | '"' | '\'' | '`')
    });
    let (value, rest) = leading_number(s)?;
    let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | ']'));
    let scale = rest
        .strip_prefix('/')
        .or_else(|| rest.strip_prefix("out of"))
        .and_then(|r| leading_number(r.trim_start()))
        .map(|(n, _)| n);
    Some(match scale {
        Some(n) if n > 0.0 => in_range(value * 5.0 / n),
        Some(n) => Err(format!("{value}/{n} is not a score")),
        None => in_range(value),
    })
}

fn in_range(x: f64) -> Result<f64, String> {
    if (1.0..=5.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{x} is outside 1–5"))
    }
}

/// A decimal number at the very start of `s`, and the rest.
fn leading_number(s: &str) -> Option<(f64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let mut end = digits;
    if s[end..].starts_with('.') {
        let fraction = s[end + 1..].bytes().take_while(u8::is_ascii_digit).count();
        if fraction > 0 {
            end += 1 + fraction;
        }
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// The words that start a dimension's label in a line or table cell.
const LINE_KEYWORDS: [(&str, Slot); 10] = [
    ("relevance", 0),
    ("relevancy", 0),
    ("clarity", 1),
    ("specificity", 2),
    ("practicality", 3),
    ("language", 4),
    ("linguistic", 4),
    ("total", TOTAL),
    ("overall", TOTAL),
    ("final", TOTAL),
];

fn collect_text(text: &str) -> Found {
    let mut found = Found::default();
    // Columns of a table whose header row names the dimensions.
    let mut header: Option<Vec<Option<Slot>>> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('|') || line.matches('|').count() >= 2 {
            table_row(line, &mut header, &mut found);
        } else {
            header = None;
            if let Some((slot, score)) = labelled_score(line) {
                found.put(slot, score);
            }
        }
    }
    found
}

fn table_row(line: &str, header: &mut Option<Vec<Option<Slot>>>, found: &mut Found) {
    let cells: Vec<&str> = line
        .trim()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect();
    if cells
        .iter()
        .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    {
        return; // the |---|---| separator
    }
    let slots: Vec<Option<Slot>> = cells.iter().map(|c| label_slot(c)).collect();
    if slots.iter().filter(|s| s.is_some()).count() >= 2
        && cells.iter().all(|c| text_score(c).is_none())
    {
        *header = Some(slots); // | Relevance | Clarity | … |
        return;
    }
    if let Some(columns) = header.as_ref()
        && cells.iter().any(|c| text_score(c).is_some())
    {
        for (cell, slot) in cells.iter().zip(columns) {
            if let (Some(slot), Some(score)) = (slot, text_score(cell)) {
                found.put(*slot, score);
            }
        }
        *header = None;
        return;
    }
    // | Relevance | 4 | explanation |
    if let Some(at) = slots.iter().position(Option::is_some)
        && let Some(score) = cells[at + 1..].iter().find_map(|c| text_score(c))
    {
        found.put(slots[at].unwrap_or(TOTAL), score);
    }
}

/// The slot a table cell names: the cell starts with a dimension keyword.
fn label_slot(cell: &str) -> Option<Slot> {
    let words = strip_markup(cell).to_lowercase();
    let first = words
        .split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())?;
    LINE_KEYWORDS
        .iter()
        .find(|(k, _)| first == *k)
        .map(|(_, slot)| *slot)
}

/// Markdown emphasis and the quotes of JSON keys (`"relevance": 4,` in a
/// reply cut off before its object closed).
fn strip_markup(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '#' | '"'))
        .collect()
}

/// `Relevance: 4/5`, `**Clarity** - 4`, `1. Specificity (4.5)`,
/// `Language appropriateness score: 4`, `Total = 4.2`.
fn labelled_score(line: &str) -> Option<(Slot, Result<f64, String>)> {
    let lower = strip_markup(line).to_lowercase();
    // Skip list numbering and bullets.
    let body = lower.trim_start_matches(|c: char| {
        c.is_ascii_digit() || c.is_whitespace() || matches!(c, '.' | ')' | '-' | '•' | '>')
    });
    let (slot, rest) = LINE_KEYWORDS
        .iter()
        .find_map(|(k, slot)| body.strip_prefix(k).map(|rest| (*slot, rest)))?;
    // The rest of the keyword's word, then up to three more words of the label.
    let mut rest = rest.trim_start_matches(char::is_alphabetic);
    for _ in 0..3 {
        let trimmed = rest.trim_start();
        let word = trimmed
            .split(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or("");
        if word.is_empty() {
            break;
        }
        rest = &trimmed[word.len()..];
    }
    let rest = rest.trim_start();
    let separated = rest.starts_with([':', '-', '=', '(', '–', '—', '：']);
    let rest = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '-' | '=' | '(' | '–' | '—' | '：')
    });
    if !separated && !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    text_score(rest).map(|score| (slot, score))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five(p: &ParsedScores) -> [f64; 5] {
        Dimension::ALL.map(|d| d.of(&p.scores))
    }

    #[test]
    fn json_cut_off_by_the_length_limit_is_read_line_by_line() {
        let reply = "{\n  \"relevance\": 4,\n  \"clarity\": 5,\n  \"specificity\": 3,\n  \"practicality\": 4,\n  \"language\": 5,\n  \"total\": 4.2,\n  \"comment\": \"The request is fine. The request is";
        let p = parse_scores(reply).unwrap();
        assert_eq!(five(&p), [4.0, 5.0, 3.0, 4.0, 5.0]);
        assert_eq!((p.total, p.total_given, p.shape), (4.2, true, Shape::Text));
    }

    #[test]
    fn plain_json() {
        let p = parse_scores(
            r#"{"relevance": 5, "clarity": 4, "specificity": 3, "practicality": 4, "language": 5, "total": 4.2, "comment": "fine"}"#,
        )
        .unwrap();
        assert_eq!(five(&p), [5.0, 4.0, 3.0, 4.0, 5.0]);
        assert_eq!((p.total, p.total_given, p.shape), (4.2, true, Shape::Json));
    }

    #[test]
    fn json_in_a_fence_with_string_values_and_loose_keys() {
        let reply = "Here is my rating.\n```json\n{\"Relevance\": \"4/5\", \"Clarity\": \"4.5\", \"Specificity\": \"3 / 5\",\n \"Practicality\": \"8/10\", \"Language Appropriateness\": \"5\"}\n```\nHope this helps.";
        let p = parse_scores(reply).unwrap();
        assert_eq!(five(&p), [4.0, 4.5, 3.0, 4.0, 5.0]);
        // No total given: the mean of the five.
        assert!(!p.total_given);
        assert!((p.total - 4.1).abs() < 1e-12, "{}", p.total);
    }

    #[test]
    fn json_nested_shapes() {
        let nested = r#"{"scores": {"relevance": {"score": 4, "reason": "ok"}, "clarity": {"score": "5/5"},
            "specificity": 4, "practicality": 4, "linguistic_applicability": 3}, "overall": 4}"#;
        let p = parse_scores(nested).unwrap();
        assert_eq!(five(&p), [4.0, 5.0, 4.0, 4.0, 3.0]);
        assert_eq!(p.total, 4.0);
        let listed = r#"[{"dimension": "Relevance", "score": 2}] {"scores": [{"dimension": "Relevance", "score": 2},
            {"dimension": "Clarity", "score": 3}, {"name": "Specificity", "score": 4},
            {"criterion": "Practicality", "rating": 5}, {"aspect": "Language", "score": 1}], "total": 3}"#;
        let p = parse_scores(listed).unwrap();
        assert_eq!(five(&p), [2.0, 3.0, 4.0, 5.0, 1.0]);
    }

    #[test]
    fn labelled_lines() {
        let reply = "Evaluation of the query\n\n1. **Relevance**: 4/5 - it needs the weather API with 2 cities\n2. Clarity - 5\n3. Specificity (4.5): the dates are given\n- Practicality score: 4\n* Language appropriateness: 3 out of 5\n\nTotal = 4.1\nConclusion: keep";
        let p = parse_scores(reply).unwrap();
        assert_eq!(five(&p), [4.0, 5.0, 4.5, 4.0, 3.0]);
        assert_eq!((p.total, p.total_given, p.shape), (4.1, true, Shape::Text));
    }

    #[test]
    fn a_number_in_an_explanation_is_not_a_score() {
        let reply = "Relevance: the query uses 2 APIs well.\nClarity: 4\nSpecificity: 4\nPracticality: 4\nLanguage: 4";
        let err = parse_scores(reply).unwrap_err();
        assert_eq!(err, "no score for relevance");
    }

    #[test]
    fn markdown_tables_both_ways() {
        let rows = "| Dimension | Score | Why |\n|---|:---:|---|\n| Relevance | 4 | fits |\n| **Clarity** | 5/5 | clear |\n| Specificity | 3 | vague date |\n| Practicality | 4 | |\n| Language appropriateness | 4.5 | natural |\n| **Total** | **4** | |";
        let p = parse_scores(rows).unwrap();
        assert_eq!(five(&p), [4.0, 5.0, 3.0, 4.0, 4.5]);
        assert_eq!(p.total, 4.0);
        let columns = "| Relevance | Clarity | Specificity | Practicality | Language | Total |\n|---|---|---|---|---|---|\n| 5 | 4 | 4 | 3 | 5 | 4.2 |";
        let p = parse_scores(columns).unwrap();
        assert_eq!(five(&p), [5.0, 4.0, 4.0, 3.0, 5.0]);
        assert_eq!(p.total, 4.2);
    }

    #[test]
    fn out_of_range_and_missing_are_unparsable() {
        let err = parse_scores(
            r#"{"relevance": 6, "clarity": 4, "specificity": 4, "practicality": 4, "language": 4}"#,
        )
        .unwrap_err();
        assert_eq!(err, "relevance: 6 is outside 1–5");
        let err = parse_scores(
            r#"{"relevance": 4, "clarity": "high", "specificity": 4, "practicality": 0, "total": 4}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            "clarity: \"high\" is not a score; practicality: 0 is outside 1–5; no score for language"
        );
        // A JSON object with scores decides alone: lines after it do not fill its gaps.
        let err = parse_scores("{\"relevance\": 4}\nClarity: 4").unwrap_err();
        assert!(err.contains("no score for clarity"), "{err}");
        assert_eq!(
            parse_scores("I like it.").unwrap_err(),
            "no scores found in the reply"
        );
        let err = parse_scores(
            "Relevance: 4\nClarity: 4\nSpecificity: 4\nPracticality: 4\nLanguage: 4\nTotal: 12/5",
        )
        .unwrap_err();
        assert_eq!(err, "total: 12 is outside 1–5");
    }

    #[test]
    fn json_objects_in_prose() {
        let objects = json_objects("a {\"x\": {\"y\": 1}} b {not json} {\"z\": 2}");
        assert_eq!(objects.len(), 2);
        assert_eq!(objects[1]["z"], 2);
    }
}
