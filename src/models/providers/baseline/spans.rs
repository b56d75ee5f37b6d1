//! Step 6 of the method, first half: the candidate values (*spans*) of the
//! query, each of a kind: quoted strings, dates, numbers, currency codes,
//! language codes, other codes, capitalised names and plain words. Terms in
//! scripts without spaces depend on the tool and are read in
//! [`dense_terms`](super::dense_terms).

use std::ops::Range;

use super::dates::{DateParts, parse_date, parse_datetime, valid_date};
use super::terms::{is_dense, is_stopword, is_word_char, listed};

/// What kind of value a span is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    /// Text between quotes.
    Quoted,
    /// A date (with its parts).
    Date(DateParts),
    /// A number; `int` when written without a decimal point.
    Number { value: f64, int: bool },
    /// An ISO 4217 currency code.
    Currency,
    /// A lowercase language code (`en`, `pt-br`); `common` when it is also a
    /// function word of some language (`de`, `it`, `no`).
    LangCode { common: bool },
    /// Capitals and digits (`SW1A 2AA`, `NY.GDP.MKTP.CD`, `OLED TV`).
    Code,
    /// Capitalised words (`Rio de Janeiro`).
    Name,
    /// A term of a script without spaces.
    Term,
    /// Any other word.
    Word,
}

/// A candidate value: where it is in the (normalised) query, its text and kind.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Span {
    /// Byte offset of the first character.
    pub(super) start: usize,
    /// Byte offset after the last character.
    pub(super) end: usize,
    /// The value as written (a quoted string without its quotes).
    pub(super) text: String,
    /// What kind of value it is.
    pub(super) kind: Kind,
}

/// ISO 4217 currency codes.
const CURRENCIES: &str = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND \
BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB \
EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY \
KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR \
MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF \
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS \
UAH UGX USD UYU UZS VES VND VUV WST XAF XAG XAU XCD XOF XPF YER ZAR ZMW ZWL";

/// Whether a word is an ISO 4217 code in capitals.
pub(super) fn is_currency(code: &str) -> bool {
    code.len() == 3
        && code.bytes().all(|b| b.is_ascii_uppercase())
        && CURRENCIES.split(' ').any(|c| c == code)
}

/// ISO 639-1 language codes (and `fil`).
const LANGUAGE_CODES: &str = "af am ar az be bg bn bs ca cs cy da de el en es et eu fa fi fil \
fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko ky lo lt lv mk ml mn mr ms my nb ne nl no \
pa pl ps pt ro ru si sk sl sq sr sv sw ta te th tl tr uk ur uz vi zh zu";

/// `en`, `EN`, `en-GB`, `zh_CN`: an ISO 639-1 code, with an optional region.
pub(super) fn is_language_code(word: &str) -> bool {
    let (language, region) = match word.split_once(['-', '_']) {
        Some((l, r)) => (l, Some(r)),
        None => (word, None),
    };
    let lower = language.to_lowercase();
    LANGUAGE_CODES.split(' ').any(|c| c == lower)
        && region.is_none_or(|r| r.len() == 2 && r.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Whether a word is written in a script without letter case (Arabic,
/// Devanagari, …), where capitals cannot mark names.
pub(super) fn caseless(word: &str) -> bool {
    word.chars()
        .all(|c| !c.is_alphabetic() || (!c.is_uppercase() && !c.is_lowercase()))
}

/// Opening and closing quotes. ASCII quotes only count at word boundaries.
const QUOTE_PAIRS: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('‘', '’'),
    ('«', '»'),
    ('„', '“'),
    ('「', '」'),
    ('『', '』'),
    ('《', '》'),
];

/// Text between a pair of quotes, on one line.
fn quoted_spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(c) = text[pos..].chars().next() {
        let i = pos;
        pos += c.len_utf8();
        let Some(&(_, close)) = QUOTE_PAIRS.iter().find(|(o, _)| *o == c) else {
            continue;
        };
        if c.is_ascii()
            && text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        let body_start = pos;
        let found = text[body_start..].char_indices().find(|&(j, d)| {
            d == close
                && j > 0
                && (!d.is_ascii()
                    || !text[body_start + j + 1..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric))
        });
        let Some((j, d)) = found else {
            continue;
        };
        let body = text[body_start..body_start + j].trim();
        if body.is_empty() || body.contains('\n') {
            continue;
        }
        let end = body_start + j + d.len_utf8();
        out.push(Span {
            start: i,
            end,
            text: body.to_string(),
            kind: Kind::Quoted,
        });
        pos = end;
    }
    out
}
/// An atom: letters/digits joined by inner `- . _ / :` (`:` between digits
/// only), in one script density.
fn atoms(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let end_of = |k: usize| if k < n { chars[k].0 } else { text.len() };
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let c = chars[k].1;
        if !is_word_char(c) {
            k += 1;
            continue;
        }
        let dense = is_dense(c);
        let start = k;
        let mut j = k + 1;
        loop {
            if j < n && is_word_char(chars[j].1) && is_dense(chars[j].1) == dense {
                j += 1;
                continue;
            }
            if !dense && j + 1 < n {
                let (p, s, q) = (chars[j - 1].1, chars[j].1, chars[j + 1].1);
                let joins = is_word_char(q)
                    && !is_dense(q)
                    && match s {
                        '-' | '.' | '_' | '/' => true,
                        ':' => p.is_ascii_digit() && q.is_ascii_digit(),
                        _ => false,
                    };
                if joins {
                    j += 2;
                    continue;
                }
            }
            break;
        }
        out.push(chars[start].0..end_of(j));
        k = j;
    }
    out
}

/// Short English words that are also language codes.
const ENGLISH_SHORT_WORDS: &str = "am be he hi id is it my no so ";

/// Lowercase words inside names (`Rio de Janeiro`, `Ludwig van Beethoven`).
const NAME_PARTICLES: &str = "de da do dos das del di du la le von van der den of al el bin ";

/// A capital, then at least one lowercase letter (`Lisbon`, `McLaren`).
fn is_capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.any(char::is_lowercase)
}

/// Letters with digits (`SW1A`), or two or more letters all in capitals (`NY`).
fn is_code_like(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let upper = word.chars().filter(|c| c.is_uppercase()).count();
    let digits = word.chars().filter(char::is_ascii_digit).count();
    letters > 0 && (digits > 0 || (upper == letters && upper >= 2))
}

/// Whether `at` begins a sentence, where a capital says nothing about a name.
fn sentence_start(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    before.is_empty()
        || before.ends_with([
            '.', '?', '!', '。', '？', '！', ':', '¿', '¡', '"', '«', '(', '\n',
        ])
}

/// Candidate values that do not depend on the tool.
pub(super) fn general_spans(text: &str, month_first: bool) -> Vec<Span> {
    let mut spans = quoted_spans(text);
    spans.extend(cjk_dates(text));
    let covered =
        |spans: &[Span], r: &Range<usize>| spans.iter().any(|s| s.start < r.end && r.start < s.end);
    let atom_list: Vec<Range<usize>> = atoms(text)
        .into_iter()
        .filter(|r| !covered(&spans, r))
        .collect();
    let mut k = 0;
    while k < atom_list.len() {
        let (span, next) = span_at(text, &atom_list, k, month_first);
        spans.extend(span);
        k = next;
    }
    spans.sort_by_key(|s| s.start);
    spans
}

/// The value that starts at atom `k` (if any), and the index of the first
/// atom after it.
fn span_at(
    text: &str,
    atoms: &[Range<usize>],
    k: usize,
    month_first: bool,
) -> (Option<Span>, usize) {
    let r = atoms[k].clone();
    let word = &text[r.clone()];
    let first = word.chars().next().unwrap_or(' ');
    let next = k + 1;
    if is_dense(first) {
        return (None, next);
    }
    if first.is_ascii_digit() {
        return (Some(numeric_span(text, r, month_first)), next);
    }
    if is_currency(word) {
        return (Some(span_of(text, r, Kind::Currency)), next);
    }
    if is_code_like(word) {
        let (end, next) = code_end(text, atoms, &r, next);
        return (Some(span_of(text, r.start..end, Kind::Code)), next);
    }
    if is_capitalised(word) && !sentence_start(text, r.start) {
        let (end, next) = name_end(text, atoms, &r, next);
        return (Some(span_of(text, r.start..end, Kind::Name)), next);
    }
    (plain_word_span(text, r), next)
}

/// The span of `text` over `range`, of a kind.
fn span_of(text: &str, range: Range<usize>, kind: Kind) -> Span {
    Span {
        start: range.start,
        end: range.end,
        text: text[range].to_string(),
        kind,
    }
}

/// A value starting with a digit: a date, a number, or else a code.
fn numeric_span(text: &str, r: Range<usize>, month_first: bool) -> Span {
    let word = &text[r.clone()];
    // `5-day`, `3-Tage`: the number before a hyphenated unit.
    let word = match word.split_once('-') {
        Some((n, unit))
            if n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && !unit.is_empty()
                && unit.chars().all(char::is_alphabetic) =>
        {
            n
        }
        _ => word,
    };
    let r = r.start..r.start + word.len();
    if let Some(parts) = parse_date(word, month_first).or_else(|| parse_datetime(word, month_first))
    {
        return span_of(text, r, Kind::Date(parts));
    }
    number_span(text, r.clone()).unwrap_or_else(|| span_of(text, r, Kind::Code))
}

/// Digits with at most one inner decimal point, with a `-` sign before them
/// when that does not join two words; an integer of more than 18 digits is a
/// code.
fn number_span(text: &str, r: Range<usize>) -> Option<Span> {
    let word = &text[r.clone()];
    let number_like = word.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && word.matches('.').count() <= 1
        && !word.ends_with('.');
    if !number_like {
        return None;
    }
    let signed = text[..r.start].ends_with('-')
        && !text[..r.start - 1]
            .chars()
            .next_back()
            .is_some_and(is_word_char);
    let (start, shown) = if signed {
        (r.start - 1, format!("-{word}"))
    } else {
        (r.start, word.to_string())
    };
    let int = !word.contains('.');
    let value = shown.parse::<f64>().unwrap_or(0.0);
    let kind = if int && word.len() > 18 {
        Kind::Code
    } else {
        Kind::Number { value, int }
    };
    Some(Span {
        start,
        end: r.end,
        text: shown,
        kind,
    })
}

/// Where a code that starts at atom `r` ends, and the index of the first atom
/// after it: a two-part postcode (`SW1A 2AA`, `M1 1AE`) or words in capitals
/// that go together (`OLED TV`) take the atoms that follow.
fn code_end(text: &str, atoms: &[Range<usize>], r: &Range<usize>, next: usize) -> (usize, usize) {
    let word = &text[r.clone()];
    let mut end = r.end;
    let mut next = next;
    if let Some(after) = atoms.get(next)
        && text[r.end..after.start] == *" "
    {
        let w2 = &text[after.clone()];
        let shape = |w: &str, digit_first: bool| {
            (2..=4).contains(&w.len())
                && w.chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit() == digit_first)
                && w.chars().any(|c| c.is_ascii_digit())
        };
        if shape(word, false) && w2.len() == 3 && shape(w2, true) {
            end = after.end;
            next += 1;
        }
    }
    let capitals =
        |w: &str| w.chars().count() >= 2 && w.chars().all(char::is_uppercase) && !is_currency(w);
    if end == r.end && capitals(word) {
        while let Some(after) = atoms.get(next)
            && text[end..after.start] == *" "
            && capitals(&text[after.clone()])
        {
            end = after.end;
            next += 1;
        }
    }
    (end, next)
}

/// Where a name that starts at atom `r` ends, and the index of the first atom
/// after it: following capitalised words join it, and so do name particles
/// between two of them (`Rio de Janeiro`).
fn name_end(text: &str, atoms: &[Range<usize>], r: &Range<usize>, next: usize) -> (usize, usize) {
    let mut end = r.end;
    let mut j = next;
    while let Some(after) = atoms.get(j) {
        let gap = &text[end..after.start];
        if gap != " " {
            break;
        }
        let w = &text[after.clone()];
        if is_capitalised(w) {
            end = after.end;
            j += 1;
            continue;
        }
        if listed(NAME_PARTICLES, w)
            && let Some(then) = atoms.get(j + 1)
            && &text[after.end..then.start] == " "
            && is_capitalised(&text[then.clone()])
        {
            end = then.end;
            j += 2;
            continue;
        }
        break;
    }
    (end, j)
}

/// A lowercase language code, or a plain word that is not a function word.
fn plain_word_span(text: &str, r: Range<usize>) -> Option<Span> {
    let word = &text[r.clone()];
    let lower = word.to_lowercase();
    if lower == word && word.len() <= 5 && word.is_ascii() && is_language_code(word) {
        let common = is_stopword(word) || listed(ENGLISH_SHORT_WORDS, word);
        return Some(span_of(text, r, Kind::LangCode { common }));
    }
    if is_stopword(&lower) || word.chars().count() < 2 {
        return None;
    }
    Some(span_of(text, r, Kind::Word))
}

/// `2024年3月1日`, `2024년 3월 1일`: dates written with CJK unit characters,
/// each followed by its year, month and day as numbers of their own.
pub(super) fn cjk_dates(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let number = |start: usize, end: usize| {
        let t = &text[start..end];
        Span {
            start,
            end,
            text: t.to_string(),
            kind: Kind::Number {
                value: t.parse().unwrap_or(0.0),
                int: true,
            },
        }
    };
    for (units, spaced) in [(['年', '月', '日'], false), (['년', '월', '일'], true)] {
        let mut from = 0;
        while let Some(found) = text[from..].find(units[0]) {
            let year_end = from + found;
            let year_start = text[..year_end]
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_ascii_digit())
                .last()
                .map_or(year_end, |(i, _)| i);
            from = year_end + units[0].len_utf8();
            let Ok(year) = text[year_start..year_end].parse::<u32>() else {
                continue;
            };
            let Some((month, month_range, after_month)) = unit_number(text, units[1], from, spaced)
            else {
                continue;
            };
            let day = unit_number(text, units[2], after_month, spaced);
            let end = day.as_ref().map_or(after_month, |d| d.2);
            if valid_date(year, month, day.as_ref().map(|d| d.0)) {
                out.push(Span {
                    start: year_start,
                    end,
                    text: text[year_start..end].to_string(),
                    kind: Kind::Date(DateParts {
                        year,
                        month,
                        day: day.as_ref().map(|d| d.0),
                        timed: false,
                    }),
                });
                // The parts, for parameters that take a year or a month alone.
                out.push(number(year_start, year_end));
                out.push(number(month_range.start, month_range.end));
                if let Some((_, r, _)) = &day {
                    out.push(number(r.start, r.end));
                }
                from = end;
            }
        }
    }
    out
}

/// Reads `<digits><unit>` at byte `rest` of `text` (after spaces when
/// `spaced`): the number, its byte range, and where the unit ends.
fn unit_number(
    text: &str,
    unit: char,
    rest: usize,
    spaced: bool,
) -> Option<(u32, Range<usize>, usize)> {
    let mut s = &text[rest..];
    if spaced {
        s = s.trim_start();
    }
    let at = text.len() - s.len();
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !s[digits..].starts_with(unit) {
        return None;
    }
    Some((
        s[..digits].parse().ok()?,
        at..at + digits,
        at + digits + unit.len_utf8(),
    ))
}
