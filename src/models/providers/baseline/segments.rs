//! Steps 4 and 5 of the method: cutting the query into requests (at sentence
//! ends, commas and conjunctions) or into list items (at conjunctions and list
//! commas), in every supported script.

use std::ops::Range;

use super::terms::{entries, is_hangul, is_hiragana, is_word_char, listed, runs};

/// Conjunction words of scripts written with spaces, and Korean ones.
const CONJUNCTIONS: &str = concat!(
    "and or also plus then und oder sowie et ou y o e ed и или а также और तथा ve veya ile 및 ",
    "그리고 또 또한 و أو ثم ",
);

/// Chinese conjunctions, cut inside a run of a dense script.
const DENSE_CONJUNCTIONS: &str = "以及 还有 并且 和 与 及 再 跟 ";

/// Korean particles that join two nouns (`서울과 부산`).
const KOREAN_CONJUNCTION_SUFFIXES: &str = "이랑 하고 와 과 랑 ";

/// Where [`segments`] cuts a query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Cuts {
    /// Sentence ends, commas and conjunctions: the requests of a query.
    Requests,
    /// Conjunctions and list commas only: the items of a list.
    Items,
}

/// Whether the comma at `at` sits between two decimal numbers (`51.5, -0.12`).
fn coordinate_comma(text: &str, at: usize) -> bool {
    let decimal =
        |w: &str| w.contains('.') && w.trim_start_matches(['-', '+']).parse::<f64>().is_ok();
    let before = text[..at].split_whitespace().next_back().unwrap_or("");
    let after = text[at + 1..].split_whitespace().next().unwrap_or("");
    let after = after.trim_end_matches(|c: char| !c.is_ascii_digit());
    decimal(before.trim_start_matches(['(', '['])) && decimal(after)
}

/// Whether a conjunction word comes before the end of the sentence.
fn closes_with_conjunction(rest: &str) -> bool {
    let sentence = rest
        .split(['?', '!', '。', '？', '！', ';', '；', '\n'])
        .next()
        .unwrap_or("");
    runs(sentence).iter().any(|&(s, e, dense)| {
        let word = sentence[s..e].to_lowercase();
        if dense {
            entries(DENSE_CONJUNCTIONS).any(|c| word.contains(c))
        } else {
            listed(CONJUNCTIONS, &word)
        }
    })
}

/// Byte ranges of the requests (or list items) of a (normalised) query.
pub(super) fn segments(text: &str, mode: Cuts) -> Vec<Range<usize>> {
    let mut cuts = separator_cuts(text, mode);
    cuts.extend(conjunction_cuts(text));
    pieces_between(text, cuts)
}

/// Punctuation that separates requests (or list items): the byte range of
/// each separator to remove.
fn separator_cuts(text: &str, mode: Cuts) -> Vec<Range<usize>> {
    let mut cuts: Vec<Range<usize>> = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let next_visible = chars[k + 1..]
            .iter()
            .map(|x| x.1)
            .find(|c| !c.is_whitespace());
        let prev = k.checked_sub(1).map(|j| chars[j].1);
        let cut = match (mode, c) {
            (Cuts::Requests, '?' | '!' | '。' | '？' | '！' | ';' | '；' | '\n') => true,
            (Cuts::Requests, '.') => {
                next.is_none_or(char::is_whitespace) && prev.is_some_and(|p| !p.is_ascii_digit())
            }
            (Cuts::Requests, ',' | '，' | '、') => {
                !next_visible.is_some_and(|n| n.is_ascii_digit() || n == '-' || n == '+')
                    && !prev.is_some_and(|p| p.is_ascii_digit())
            }
            // A list comma; after Hiragana it is a Japanese clause comma.
            (Cuts::Items, '、') => !prev.is_some_and(is_hiragana),
            // A comma of a list closed by a conjunction (`NZ, AU and IE`),
            // unless it separates the two numbers of a coordinate pair.
            (Cuts::Items, ',' | '，') => {
                !coordinate_comma(text, i) && closes_with_conjunction(&text[i..])
            }
            _ => false,
        };
        if cut {
            cuts.push(i..i + c.len_utf8());
        }
    }
    cuts
}

/// Conjunctions in every script (whole words, the Arabic prefix `و`, Korean
/// particles, Chinese and Japanese conjunction characters): the byte range of
/// each to remove.
fn conjunction_cuts(text: &str) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    for (start, end, dense) in runs(text) {
        let word = &text[start..end];
        if !dense {
            cuts.extend(spaced_conjunction(word, start));
        } else if word.chars().all(is_hangul) {
            cuts.extend(korean_conjunction(word, start));
        } else {
            cuts.extend(dense_conjunctions(word, start));
        }
    }
    cuts
}

/// A conjunction word, or the conjunction prefix `و` of an Arabic word, in a
/// word starting at byte `start`.
fn spaced_conjunction(word: &str, start: usize) -> Option<Range<usize>> {
    let lower = word.to_lowercase();
    if listed(CONJUNCTIONS, &lower) {
        Some(start..start + word.len())
    } else if let Some(rest) = word.strip_prefix('و')
        && rest.chars().count() >= 3
        && rest.chars().all(|c| ('\u{0600}'..='\u{06FF}').contains(&c))
    {
        Some(start..start + 'و'.len_utf8())
    } else {
        None
    }
}

/// Korean: a conjunction word, or the conjunction particle that ends a word
/// (and with it a request).
fn korean_conjunction(word: &str, start: usize) -> Option<Range<usize>> {
    let end = start + word.len();
    if listed(CONJUNCTIONS, word) {
        return Some(start..end);
    }
    entries(KOREAN_CONJUNCTION_SUFFIXES)
        .find(|s| word.ends_with(s) && word.chars().count() > s.chars().count() + 1)
        .map(|suffix| end - suffix.len()..end)
}

/// Chinese conjunctions and Japanese `と` between non-Hiragana text, inside a
/// run of a dense script starting at byte `start`.
fn dense_conjunctions(word: &str, start: usize) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    let run_chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut k = 0;
    while k < run_chars.len() {
        let (i, c) = run_chars[k];
        let at = start + i;
        if let Some(conj) = entries(DENSE_CONJUNCTIONS).find(|w| word[i..].starts_with(w)) {
            if k > 0 {
                cuts.push(at..at + conj.len());
            }
            k += conj.chars().count();
            continue;
        }
        if c == 'と'
            && k > 0
            && !is_hiragana(run_chars[k - 1].1)
            && run_chars.get(k + 1).is_some_and(|x| !is_hiragana(x.1))
        {
            cuts.push(at..at + c.len_utf8());
        }
        k += 1;
    }
    cuts
}

/// The pieces of `text` left between the cuts (overlapping cuts count once),
/// those with at least one word character.
fn pieces_between(text: &str, mut cuts: Vec<Range<usize>>) -> Vec<Range<usize>> {
    cuts.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut from = 0;
    for cut in cuts {
        if cut.start >= from {
            out.push(from..cut.start);
            from = cut.end;
        }
    }
    out.push(from..text.len());
    out.retain(|r| text[r.clone()].chars().any(is_word_char));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::providers::baseline::terms::normalize;

    #[test]
    fn segments_cut_at_separators_in_several_scripts() {
        let cut = |text: &str, mode| -> Vec<String> {
            let text = normalize(text);
            segments(&text, mode)
                .into_iter()
                .map(|r| text[r].trim().to_string())
                .collect()
        };
        assert_eq!(
            cut("Weather in Oslo and rates for USD", Cuts::Items),
            ["Weather in Oslo", "rates for USD"]
        );
        assert_eq!(
            cut("成都、重庆和西安的天气", Cuts::Items),
            ["成都", "重庆", "西安的天气"]
        );
        assert_eq!(
            cut("大阪府と京都府の天気", Cuts::Items),
            ["大阪府", "京都府の天気"]
        );
        assert_eq!(cut("서울과 부산 날씨", Cuts::Items), ["서울", "부산 날씨"]);
        assert_eq!(
            cut("forecast at 51.5, -0.12 please", Cuts::Items),
            ["forecast at 51.5, -0.12 please"]
        );
        assert_eq!(
            cut("Is it raining? Show rates, then stop.", Cuts::Requests),
            ["Is it raining", "Show rates", "stop"]
        );
    }
}
