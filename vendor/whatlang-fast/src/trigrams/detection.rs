use std::cell::RefCell;
use std::rc::Rc;

use hashbrown::HashMap;

use super::utils::{TrigramScratch, rank_trigrams};
use super::{ARABIC_LANGS, CYRILLIC_LANGS, DEVANAGARI_LANGS, HEBREW_LANGS, LATIN_LANGS};
use super::{LangProfile, LangProfileList};
use super::{MAX_TOTAL_DISTANCE, MAX_TRIGRAM_DISTANCE, Trigram};
use crate::Lang;
use crate::core::{FilterList, Info, InternalQuery, Text, calculate_confidence};
use crate::scripts::grouping::MultiLangScript;

#[derive(Debug)]
pub struct RawOutcome {
    pub trigrams_count: usize,
    #[allow(dead_code)]
    pub raw_distances: Vec<(Lang, u32)>,
    pub scores: Vec<(Lang, f64)>,
}

#[inline]
pub fn detect(iquery: &InternalQuery) -> Option<Info> {
    let raw_outcome = raw_detect(iquery);
    let RawOutcome {
        trigrams_count,
        scores,
        ..
    } = raw_outcome;

    let mut raw_scores_iter = scores.into_iter();

    let opt_lang_score1 = raw_scores_iter.next();
    let opt_lang_score2 = raw_scores_iter.next();

    // TODO: Logic is duplicated in alphabets. Consider refactoring
    opt_lang_score1.map(|(lang1, score1)| {
        let script = iquery.multi_lang_script.to_script();
        let confidence = if let Some((_, score2)) = opt_lang_score2 {
            calculate_confidence(score1, score2, trigrams_count)
        } else {
            1.0
        };
        Info::new(script, lang1, confidence)
    })
}

#[inline]
pub fn raw_detect(iquery: &InternalQuery) -> RawOutcome {
    let lang_profile_list = script_to_lang_profile_list(iquery.multi_lang_script);
    calculate_scores_in_profiles(&iquery.text, iquery.filter_list, lang_profile_list)
}

pub(crate) fn script_to_lang_profile_list(script: MultiLangScript) -> LangProfileList {
    use MultiLangScript as MLS;
    match script {
        MLS::Latin => LATIN_LANGS,
        MLS::Cyrillic => CYRILLIC_LANGS,
        MLS::Arabic => ARABIC_LANGS,
        MLS::Devanagari => DEVANAGARI_LANGS,
        MLS::Hebrew => HEBREW_LANGS,
    }
}

/// itc: the buffers of one text's scoring, kept per thread between texts.
#[derive(Default)]
struct Scratch {
    trigrams: TrigramScratch,
    sums: Vec<i64>,
    ranges: Vec<(u32, u32)>,
}

#[inline]
fn calculate_scores_in_profiles(
    text: &Text,
    filter_list: &FilterList,
    lang_profile_list: LangProfileList,
) -> RawOutcome {
    thread_local! {
        static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    }
    let index = inverted_index(lang_profile_list, filter_list);
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch {
            trigrams,
            sums,
            ranges,
        } = scratch;
        let ranked = rank_trigrams(&text.lowercase(), trigrams);

        // Inverted index: visit only the text's trigrams. Identical sums to
        // `calculate_distance`: len*300 + sum over found (|n - i| - 300),
        // where a trigram's rank n is its place in `ranked`.
        sums.clear();
        sums.extend(
            lang_profile_list
                .iter()
                .map(|(_, p)| p.len() as i64 * MAX_TRIGRAM_DISTANCE as i64),
        );
        // itc: the postings' ranges are all found first, so that their table
        // reads overlap instead of waiting behind each trigram's postings loop.
        ranges.clear();
        ranges.extend(ranked.iter().map(|&trigram| index.range(trigram)));
        for (n, &(start, end)) in ranges.iter().enumerate() {
            for &(l, i) in &index.postings[start as usize..end as usize] {
                sums[l as usize] += (n as i64 - i as i64).abs() - MAX_TRIGRAM_DISTANCE as i64;
            }
        }
        distances_to_outcome(lang_profile_list, filter_list, sums, ranked.len())
    })
}

/// The allowed languages' distances from their sums, sorted, and their
/// scores for a text of `unique_trigrams_count` ranked trigrams.
fn distances_to_outcome(
    lang_profile_list: LangProfileList,
    filter_list: &FilterList,
    sums: &[i64],
    unique_trigrams_count: usize,
) -> RawOutcome {
    let mut lang_distances: Vec<(Lang, u32)> = Vec::with_capacity(lang_profile_list.len());
    let count = unique_trigrams_count as i64;
    for (l, &(lang, _)) in lang_profile_list.iter().enumerate() {
        if !filter_list.is_allowed(lang) {
            continue;
        }
        let mut total = sums[l];
        if (MAX_TRIGRAM_DISTANCE as i64) > count {
            total -= (MAX_TRIGRAM_DISTANCE as i64 - count) * MAX_TRIGRAM_DISTANCE as i64;
        }
        let dist = total.clamp(0, MAX_TOTAL_DISTANCE as i64) as u32;
        lang_distances.push((lang, dist));
    }

    // Sort languages by distance
    lang_distances.sort_unstable_by_key(|(_, dist)| *dist);

    let max_dist = unique_trigrams_count as u32 * MAX_TRIGRAM_DISTANCE;

    let raw_scores = lang_distances
        .iter()
        .map(|&(lang, distance)| (lang, distance_to_raw_score(distance, max_dist)))
        .collect();

    RawOutcome {
        trigrams_count: unique_trigrams_count,
        scores: raw_scores,
        raw_distances: lang_distances,
    }
}

// The upstream per-profile distance, kept as the reference the inverted index reproduces.
#[allow(dead_code)]
#[inline]
fn calculate_distance(lang_trigrams: LangProfile, text_trigrams: &HashMap<Trigram, u32>) -> u32 {
    let mut total_dist = 0u32;

    for (i, &trigram) in lang_trigrams.iter().enumerate() {
        let dist = match text_trigrams.get(&trigram) {
            Some(&n) => (n as i32 - i as i32).unsigned_abs(),
            None => MAX_TRIGRAM_DISTANCE,
        };
        total_dist += dist;
    }

    let count = text_trigrams.len() as u32;

    if MAX_TRIGRAM_DISTANCE > count {
        let delta = MAX_TRIGRAM_DISTANCE - count;
        total_dist -= delta * MAX_TRIGRAM_DISTANCE;
    }

    total_dist.clamp(0, MAX_TOTAL_DISTANCE)
}

#[inline]
fn distance_to_raw_score(distance: u32, max_distance: u32) -> f64 {
    let similarity = max_distance - distance;
    similarity as f64 / max_distance as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_table_agrees_with_the_map() {
        for list in [
            LATIN_LANGS,
            CYRILLIC_LANGS,
            ARABIC_LANGS,
            DEVANAGARI_LANGS,
            HEBREW_LANGS,
        ] {
            let index = Index::build(list, &FilterList::default());
            let mut dense_hits = 0;
            for (&trigram, &(start, end)) in &index.ranges {
                dense_hits += usize::from(dense_slot(&index.codes, trigram).is_some());
                assert_eq!(
                    index.postings(trigram),
                    &index.postings[start as usize..end as usize]
                );
            }
            // A trigram in no profile has no postings, through either table.
            let coded: Vec<char> = (0..CODED_CHARS as u32)
                .filter(|&c| index.codes[c as usize] != NO_CODE)
                .filter_map(char::from_u32)
                .collect();
            let absent = coded
                .iter()
                .flat_map(|&a| coded.iter().map(move |&b| super::super::pack(a, b, b)))
                .find(|t| !index.ranges.contains_key(t))
                .expect("some trigram of coded characters is in no profile");
            assert!(index.postings(absent).is_empty());
            assert!(
                index
                    .postings(super::super::pack('\u{10000}', 'a', 'b'))
                    .is_empty()
            );
            if !std::ptr::eq(list, DEVANAGARI_LANGS) {
                assert!(
                    dense_hits * 2 > index.ranges.len(),
                    "most trigrams are dense"
                );
            }
        }
    }

    #[test]
    fn test_when_german_is_given() {
        let text = "Die Ordnung muss für immer in diesem Codebase bleiben";
        let iq = InternalQuery {
            text: Text::new(text),
            filter_list: &FilterList::default(),
            multi_lang_script: MultiLangScript::Latin,
        };
        let raw_outcome = raw_detect(&iq);

        assert_eq!(raw_outcome.trigrams_count, 50);

        let &(first_lang, first_score) = raw_outcome.scores.first().unwrap();
        let &(_last_lang, last_score) = raw_outcome.scores.last().unwrap();

        assert_eq!(first_lang, Lang::Deu);

        assert!(first_score >= 0.0);
        assert!(first_score <= 1.0);

        assert!(last_score >= 0.0);
        assert!(last_score <= 1.0);
    }
}

/// itc: for each trigram (packed) of a script's profiles, where its
/// postings (language, rank) start and end in one flat list: one small
/// table probed per text trigram, and the postings read contiguously.
///
/// itc: trigrams made of the index's [`DENSE_CHARS`] most common characters
/// (nearly all of a text's, for every script) find their range in a dense
/// table indexed by the three characters' codes, without hashing; the
/// others in the map.
struct Index {
    ranges: HashMap<u64, (u32, u32)>,
    /// `codes[c]`: the code of character `c` (below [`CODED_CHARS`]) in the
    /// dense table, or [`NO_CODE`].
    codes: Box<[u8]>,
    /// Ranges of the trigrams of coded characters, at `(c1 * 32 + c2) * 32 + c3`,
    /// each as `start << 8 | length` (half the size of a pair: the table is
    /// read at random and fits the CPU's caches better).
    dense: Box<[u32]>,
    postings: Vec<(u16, u16)>,
}

/// Characters with a code in an index's dense table.
const DENSE_CHARS: usize = 32;
/// Characters below this can have a code (Latin to Arabic and Hebrew; the
/// Devanagari block's are looked up in the map).
const CODED_CHARS: usize = 0x800;
const NO_CODE: u8 = u8::MAX;

impl Index {
    /// The index of the profiles of the languages `filter_list` allows
    /// (the sums of the others are never read).
    fn build(list: LangProfileList, filter_list: &FilterList) -> Index {
        let mut by_trigram: Vec<(u64, u16, u16)> = list
            .iter()
            .enumerate()
            .filter(|(_, (lang, _))| filter_list.is_allowed(*lang))
            .flat_map(|(l, (_, profile))| {
                profile
                    .iter()
                    .enumerate()
                    .map(move |(i, t)| (t.packed(), l as u16, i as u16))
            })
            .collect();
        // Stable: each trigram's postings stay in (language, rank) order.
        by_trigram.sort_by_key(|&(t, _, _)| t);
        let mut ranges = HashMap::new();
        let mut postings = Vec::with_capacity(by_trigram.len());
        for run in by_trigram.chunk_by(|a, b| a.0 == b.0) {
            let start = postings.len() as u32;
            postings.extend(run.iter().map(|&(_, l, i)| (l, i)));
            ranges.insert(run[0].0, (start, postings.len() as u32));
        }
        let codes = dense_codes(&by_trigram);
        let mut dense = vec![0u32; DENSE_CHARS * DENSE_CHARS * DENSE_CHARS];
        for (&trigram, &(start, end)) in &ranges {
            if let Some(slot) = dense_slot(&codes, trigram) {
                // A script has fewer than 256 languages and 2^24 postings.
                assert!(end - start < 1 << 8 && start < 1 << 24);
                dense[slot] = start << 8 | (end - start);
            }
        }
        Index {
            ranges,
            codes,
            dense: dense.into_boxed_slice(),
            postings,
        }
    }

    /// Where `trigram`'s postings start and end in [`Self::postings`].
    #[inline]
    fn range(&self, trigram: u64) -> (u32, u32) {
        match dense_slot(&self.codes, trigram) {
            Some(slot) => {
                let packed = self.dense[slot];
                (packed >> 8, (packed >> 8) + (packed & 0xff))
            }
            None => self.ranges.get(&trigram).copied().unwrap_or((0, 0)),
        }
    }

    #[cfg(test)]
    fn postings(&self, trigram: u64) -> &[(u16, u16)] {
        let (start, end) = self.range(trigram);
        &self.postings[start as usize..end as usize]
    }
}

/// Codes for the [`DENSE_CHARS`] characters below [`CODED_CHARS`] that occur
/// most often in the index's trigrams (ties to the lower character).
fn dense_codes(by_trigram: &[(u64, u16, u16)]) -> Box<[u8]> {
    let mut counts = vec![0usize; CODED_CHARS];
    for &(trigram, _, _) in by_trigram {
        for c in unpack(trigram) {
            if (c as usize) < CODED_CHARS {
                counts[c as usize] += 1;
            }
        }
    }
    let mut by_count: Vec<usize> = (0..CODED_CHARS).filter(|&c| counts[c] > 0).collect();
    by_count.sort_by_key(|&c| (std::cmp::Reverse(counts[c]), c));
    let mut codes = vec![NO_CODE; CODED_CHARS];
    for (code, &c) in by_count.iter().take(DENSE_CHARS).enumerate() {
        codes[c] = code as u8;
    }
    codes.into_boxed_slice()
}

/// Where `trigram`'s range is in the dense table, if its three characters
/// have codes.
#[inline]
fn dense_slot(codes: &[u8], trigram: u64) -> Option<usize> {
    let mut slot = 0;
    for c in unpack(trigram) {
        let code = *codes.get(c as usize)?;
        if code == NO_CODE {
            return None;
        }
        slot = slot * DENSE_CHARS + code as usize;
    }
    Some(slot)
}

/// The three code points of a packed trigram (see [`super::pack`]).
#[inline]
fn unpack(trigram: u64) -> [u32; 3] {
    const MASK: u64 = (1 << 21) - 1;
    [
        (trigram >> 42) as u32,
        ((trigram >> 21) & MASK) as u32,
        (trigram & MASK) as u32,
    ]
}

/// itc: the inverted index of a script's profiles for a filter list, built
/// once per thread for each of the last few (script, filter list) pairs.
fn inverted_index(list: LangProfileList, filter_list: &FilterList) -> Rc<Index> {
    const CACHED: usize = 8;
    thread_local! {
        static CACHE: RefCell<Vec<(usize, FilterList, Rc<Index>)>> = const { RefCell::new(Vec::new()) };
    }
    let lists = [
        LATIN_LANGS,
        CYRILLIC_LANGS,
        ARABIC_LANGS,
        DEVANAGARI_LANGS,
        HEBREW_LANGS,
    ];
    let k = lists
        .iter()
        .position(|l| std::ptr::eq(*l, list))
        .expect("known list");
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((_, _, index)) = cache.iter().find(|(s, f, _)| *s == k && f == filter_list) {
            return Rc::clone(index);
        }
        let index = Rc::new(Index::build(list, filter_list));
        if cache.len() == CACHED {
            cache.remove(0);
        }
        cache.push((k, filter_list.clone(), Rc::clone(&index)));
        index
    })
}
