//! It's a hard-core optimized implementation of a relatively simple algorithm.
//! The explanation of the algorithm can be found in the parent module [crate::alphabets].

use super::RawOutcome;
use crate::core::{FilterList, LowercaseText};
use crate::utils::is_stop_char;
use crate::{Lang, Script};
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::LazyLock;

/// At least the number of languages (`Lang::all().len()`).
const LANGS: usize = 128;

/// Inverted map binding a character to a set of languages.
pub struct InvertedMap {
    /// The alphabets' characters, sorted.
    chars: Vec<char>,
    /// The languages of each character.
    langs: Vec<Vec<Lang>>,
    /// itc: the position in `chars` of each character below U+0800 (`NONE`
    /// when absent): ASCII, Latin-1, Latin Extended and Cyrillic skip the
    /// binary search.
    low: Box<[u16; LOW]>,
}

/// Characters below this have their position in a table.
const LOW: usize = 0x800;

const NONE: u16 = u16::MAX;

impl InvertedMap {
    #[inline]
    fn position(&self, ch: char) -> Option<usize> {
        if (ch as usize) < LOW {
            let at = self.low[ch as usize];
            (at != NONE).then_some(at as usize)
        } else {
            self.chars.binary_search(&ch).ok()
        }
    }
}

/// Builds the [`InvertedMap`] of some alphabets.
pub fn build_inverted_map(alphabets: &[(Lang, &str)]) -> InvertedMap {
    let mut map = HashMap::new();

    for (lang, alphabet) in alphabets {
        for c in alphabet.chars() {
            let entry = map.entry(c).or_insert_with(Vec::new);
            entry.push(*lang);
        }
    }

    let mut char_lang: Vec<_> = map.into_iter().collect();

    char_lang.sort_unstable_by_key(|(c, _)| *c);

    let mut chars = Vec::with_capacity(char_lang.len());
    let mut langs = Vec::with_capacity(char_lang.len());
    let mut low = Box::new([NONE; LOW]);
    for (ch, languages) in char_lang {
        if (ch as usize) < LOW {
            low[ch as usize] = chars.len() as u16;
        }
        chars.push(ch);
        langs.push(languages);
    }

    InvertedMap { chars, langs, low }
}

pub fn generic_alphabet_calculate_scores(
    script: Script,
    lang_map: &LazyLock<InvertedMap>,
    text: &LowercaseText,
    filter_list: &FilterList,
) -> RawOutcome {
    let InvertedMap { chars, langs, .. } = &**lang_map;
    let script_langs = script.langs();

    // score of each character (itc: kept per thread with the list of the
    // characters touched, so that only those are read and reset; the sums
    // below are integer sums, the same in any order).
    thread_local! {
        static CHAR_SCORES: RefCell<(Vec<usize>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    }
    let mut max_raw_score = 0;
    let mut lang_scores = [0usize; LANGS];
    let mut common_score: usize = 0;
    CHAR_SCORES.with_borrow_mut(|(char_scores, touched)| {
        char_scores.resize(char_scores.len().max(chars.len()), 0);
        // iterate over the text and scores characters.
        for ch in text.chars() {
            if is_stop_char(ch) {
                continue;
            }

            max_raw_score += 1;

            if let Some(position) = lang_map.position(ch) {
                // add 2 and remove max_raw_score at the end,
                // to keep the score interval of -max_raw_score..max_raw_score
                if char_scores[position] == 0 {
                    touched.push(position as u32);
                }
                char_scores[position] += 2;
            }
        }

        // iterate over scored characters to compute language's scores.
        for position in touched.drain(..) {
            let char_score = std::mem::take(&mut char_scores[position as usize]);
            let languages = &langs[position as usize];
            // if current character is common to all Languages, increment a common score
            // instead of iterating over all Languages scores.
            if languages.len() == script_langs.len() {
                common_score += char_score;
            } else {
                for &lang in languages {
                    lang_scores[lang as usize] += char_score;
                }
            }
        }
    });

    // remap languages with theirs scores.
    let mut raw_scores: Vec<(Lang, usize)> = script_langs
        .iter()
        .filter(|&&l| filter_list.is_allowed(l))
        .map(|&l| {
            let score = (lang_scores[l as usize] + common_score).saturating_sub(max_raw_score);
            (l, score)
        })
        .collect();

    raw_scores.sort_unstable_by_key(|(_, score)| Reverse(*score));

    let mut normalized_scores = Vec::with_capacity(raw_scores.len());

    for &(lang, raw_score) in raw_scores.iter() {
        let normalized_score = raw_score as f64 / max_raw_score as f64;
        normalized_scores.push((lang, normalized_score));
    }

    RawOutcome {
        count: max_raw_score,
        raw_scores,
        scores: normalized_scores,
    }
}

#[cfg(test)]
mod itc_tests {
    use super::*;

    #[test]
    fn language_table_holds_every_language() {
        assert!(Lang::all().iter().all(|&l| (l as usize) < LANGS));
    }
}
