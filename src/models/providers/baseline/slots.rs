//! Step 6 of the method, second half: parameters as *slots*. A parameter's
//! slot comes from its declared type, name and description; a span fits a
//! slot by its kind ([`type_fit`]) and by the cue words around it
//! ([`cue_score`]); [`value_of`] writes the value the call gets.

use std::collections::HashMap;
use std::ops::Range;

use super::dates::{DateField, date_format, format_date};
use super::spans::{Kind, Span, caseless, is_currency, is_language_code};
use super::terms::{
    Positioned, TermMode, entries, is_dense, is_stopword, listed, normalize, split_identifier,
    term_groups,
};
use crate::spec::records::{Parameter, Value};

/// The kind of value a parameter takes, read from its type, name and description.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slot {
    /// A latitude (by name).
    Latitude,
    /// A longitude (by name).
    Longitude,
    /// An integer (by type).
    Integer,
    /// A number (by type).
    Number,
    /// A boolean (by type).
    Boolean,
    /// A date, with the output format the description spells, if any.
    Date(Option<Vec<DateField>>),
    /// A currency code.
    Currency,
    /// A language code.
    Language,
    /// Free text: a query, keyword, title, ….
    Text,
    /// A list (by type).
    Array,
    /// Any other string.
    Plain,
}

impl Slot {
    /// Whether a missing value for this slot makes the call impossible.
    pub(super) fn typed(&self) -> bool {
        matches!(
            self,
            Slot::Latitude
                | Slot::Longitude
                | Slot::Integer
                | Slot::Number
                | Slot::Date(_)
                | Slot::Currency
                | Slot::Language
        )
    }
}

/// Words of a parameter name that ask for a date.
const DATE_CUES: &str =
    "date datum fecha data tarih дата 日付 日期 날짜 तारीख تاريخ day dt yyyy aaaa jjjj ";
/// Words that ask for a currency.
const CURRENCY_CUES: &str = concat!(
    "currency currencies moeda moneda divisa valuta währung devise валют 通貨 货币 币种 통화 عملة ",
    "العملة मुद्रा döviz doviz 4217 ",
);
/// Words that ask for a language.
const LANGUAGE_CUES: &str =
    "lang language idioma sprache langue lingua язык 言語 语言 언어 لغة भाषा dil ";
/// Words that ask for a code, an id or a number.
pub(super) const CODE_CUES: &str = concat!(
    "code codes id ids symbol ticker number nr nummer numero número código codice kod kodu ",
    "код номер コード 番号 代码 编码 编号 코드 번호 رمز رقم कोड संख्या ",
);
/// Words that ask for a year or a season.
pub(super) const YEAR_CUES: &str =
    "year season jahr año anno ano année annee yil yıl год 年 연도 년 वर्ष سنة عام ";
/// Parameter names that take free text.
const TEXT_NAMES: &str = concat!(
    "q query text keyword keywords search word term title searchword search_word search_term ",
    "name t s kw content ",
);

/// Whether a text holds one of the cue words: a whole word of an identifier
/// (or its start or end, for cues of four letters or more), or a substring for
/// cues with digits or in dense scripts.
pub(super) fn contains_cue(haystack: &str, cues: &'static str) -> bool {
    let words: Vec<&str> = split_identifier_words(haystack);
    entries(cues).any(|cue| {
        if cue.chars().all(|c| c.is_alphabetic() && !is_dense(c)) {
            words.iter().any(|w| {
                let w = w.to_lowercase();
                w == *cue || (cue.chars().count() >= 4 && (w.starts_with(cue) || w.ends_with(cue)))
            })
        } else {
            haystack.to_lowercase().contains(cue)
        }
    })
}

/// The words of a text, identifiers split at `_`, camelCase humps and digits.
fn split_identifier_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .flat_map(split_identifier)
        .collect()
}

/// The slot of a parameter.
pub(super) fn slot_of(p: &Parameter) -> Slot {
    let kind = p.kind.to_lowercase();
    let name_words: Vec<String> = split_identifier_words(&p.name)
        .iter()
        .map(|w| w.to_lowercase())
        .collect();
    let has_name = |ws: &[&str]| name_words.iter().any(|w| ws.contains(&w.as_str()));
    if has_name(&[
        "lat",
        "latitude",
        "latitud",
        "latitudine",
        "breitengrad",
        "широта",
    ]) {
        return Slot::Latitude;
    }
    if has_name(&[
        "lon",
        "lng",
        "long",
        "longitude",
        "longitud",
        "longitudine",
        "längengrad",
        "долгота",
    ]) {
        return Slot::Longitude;
    }
    match kind.as_str() {
        "integer" | "int" | "int32" | "int64" => return Slot::Integer,
        "number" | "float" | "double" | "decimal" => return Slot::Number,
        "boolean" | "bool" => return Slot::Boolean,
        "array" | "list" => return Slot::Array,
        _ => {}
    }
    let described = format!("{} {}", p.name, p.description);
    let days_word = name_words.iter().any(|w| w == "days");
    if !days_word && (contains_cue(&p.name, DATE_CUES) || date_format(&p.description).is_some()) {
        return Slot::Date(date_format(&p.description));
    }
    if contains_cue(&described, CURRENCY_CUES) {
        return Slot::Currency;
    }
    if contains_cue(&p.name, LANGUAGE_CUES)
        || (has_name(&["source", "target", "from", "to", "src", "tgt"])
            && contains_cue(&p.description, LANGUAGE_CUES))
    {
        return Slot::Language;
    }
    let lower = p.name.to_lowercase();
    if listed(TEXT_NAMES, &lower) || has_name(&["query", "keyword", "text", "search"]) {
        return Slot::Text;
    }
    Slot::Plain
}

/// How well a span's type suits a slot (`None`: not at all).
pub(super) fn type_fit(slot: &Slot, span: &Span) -> Option<f64> {
    use Kind::*;
    let fit = match (slot, span.kind) {
        (Slot::Latitude, Number { value, int }) if value.abs() <= 90.0 => {
            if int {
                1.0
            } else {
                3.0
            }
        }
        (Slot::Longitude, Number { value, int }) if value.abs() <= 180.0 => {
            if int {
                1.0
            } else {
                3.0
            }
        }
        (Slot::Integer, Number { int: true, .. }) => 2.0,
        (Slot::Number, Number { .. }) => 2.0,
        (Slot::Date(_), Date(_)) => 4.0,
        (Slot::Currency, Currency) => 4.0,
        (Slot::Currency, Code) if span.text.len() == 3 => 1.0,
        (Slot::Language, LangCode { common: false }) => 3.0,
        (Slot::Language, LangCode { common: true }) => 1.5,
        (Slot::Language, Word | Code) if is_language_code(&span.text) => 3.0,
        (Slot::Currency, Word) if is_currency(&span.text.to_uppercase()) => 2.0,
        (Slot::Text, Quoted) => 5.0,
        (Slot::Text, Name | Term) => 2.0,
        (Slot::Text, Word | Code) => 1.0,
        (Slot::Plain | Slot::Array, Quoted) => 3.0,
        (Slot::Plain | Slot::Array, Code | Name | Term) => 2.0,
        (Slot::Plain | Slot::Array, Currency) => 1.5,
        (Slot::Plain | Slot::Array, Number { .. }) => 1.5,
        (Slot::Plain | Slot::Array, Date(_)) => 0.5,
        (Slot::Plain | Slot::Array, Word)
            if span.text.chars().any(char::is_uppercase) || !caseless(&span.text) =>
        {
            0.5
        }
        (Slot::Plain | Slot::Array, Word) => 1.0,
        _ => return None,
    };
    Some(fit)
}

/// Weighted cue terms of a parameter: name terms count 2, description terms 1.
pub(super) fn param_cues(p: &Parameter) -> HashMap<String, f64> {
    let mut cues: HashMap<String, f64> = HashMap::new();
    for g in term_groups(&normalize(&p.description), TermMode::Cue) {
        for t in g.terms {
            if t.chars().count() > 1 || t.chars().all(is_dense) {
                let key = t;
                if !is_stopword(&key) {
                    cues.entry(key).or_insert(1.0);
                }
            }
        }
    }
    for g in term_groups(&normalize(&p.name), TermMode::Cue) {
        for t in g.terms {
            cues.insert(t, 2.0);
        }
    }
    cues
}

/// Weights of the cue words just before a span, nearest first.
const BEFORE_WEIGHTS: [f64; 3] = [1.0, 0.6, 0.4];
/// Weights of the cue words just after a span, nearest first.
const AFTER_WEIGHTS: [f64; 2] = [0.5, 0.3];

/// How strongly the words around a span point to a parameter.
///
/// Words inside `examples` (query spans that are example values of the
/// parameter's description) are values, not cues, and weigh nothing.
pub(super) fn cue_score(
    groups: &[Positioned],
    span: &Span,
    cues: &HashMap<String, f64>,
    examples: &[Range<usize>],
) -> f64 {
    let weight = |g: &Positioned| {
        if examples.iter().any(|r| r.contains(&g.at)) {
            return 0.0;
        }
        g.terms
            .iter()
            .filter_map(|t| cues.get(t))
            .fold(0.0, |a: f64, &b| a.max(b))
    };
    let before = groups
        .iter()
        .rev()
        .filter(|g| g.at < span.start)
        .take(BEFORE_WEIGHTS.len());
    let after = groups
        .iter()
        .filter(|g| g.at >= span.end)
        .take(AFTER_WEIGHTS.len());
    let score: f64 = before
        .zip(BEFORE_WEIGHTS)
        .map(|(g, w)| w * weight(g))
        .sum::<f64>()
        + after
            .zip(AFTER_WEIGHTS)
            .map(|(g, w)| w * weight(g))
            .sum::<f64>();
    score.min(3.0)
}

/// The typed value a span gives a slot: integers and numbers as numbers,
/// arrays as one-element lists, dates in the format asked for, else the text.
pub(super) fn value_of(slot: &Slot, span: &Span) -> Value {
    match (slot, span.kind) {
        (Slot::Integer, Kind::Number { value, .. }) => Value::Int(value as i64),
        (Slot::Number | Slot::Latitude | Slot::Longitude, Kind::Number { value, int }) => {
            if int {
                Value::Int(value as i64)
            } else {
                Value::Float(value)
            }
        }
        (Slot::Date(Some(format)), Kind::Date(parts)) if !parts.timed => {
            Value::Str(format_date(parts, format).unwrap_or_else(|| span.text.clone()))
        }
        (Slot::Array, _) => Value::List(vec![Value::Str(span.text.clone())]),
        _ => Value::Str(span.text.clone()),
    }
}
