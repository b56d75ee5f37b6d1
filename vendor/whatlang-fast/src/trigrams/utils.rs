use super::TEXT_TRIGRAMS_SIZE;
use super::pack;
use crate::core::LowercaseText;
use crate::utils::is_stop_char;

pub struct TrigramsWithPositions {
    pub(crate) _total_trigrams: u32,
    /// The text's most frequent trigrams (packed, see [`pack`]) with their
    /// rank (itc: a list, not a map, since the detector only walks it).
    pub(crate) trigram_positions: Vec<(u64, u32)>,
}

/// itc: the trigrams are collected packed into a list and sorted, so equal
/// ones are adjacent and counted in one pass, instead of counted in a hash
/// map; then ranked by (count, trigram), both descending, exactly as
/// upstream sorts its `(count, Trigram)` pairs.
#[inline]
pub fn get_trigrams_with_positions(text: &LowercaseText) -> TrigramsWithPositions {
    let mut packed = all_trigrams(text);
    let total_trigrams = packed.len() as u32;
    packed.sort_unstable();
    let runs: Vec<(u64, usize)> = packed
        .chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len()))
        .collect();
    let trigram_positions = rank(&runs)
        .into_iter()
        .take(TEXT_TRIGRAMS_SIZE) // we're interested only in the first 600 (2 * MAX_TRIGRAM_DISTANCE)
        .enumerate()
        .map(|(i, trigram)| (trigram, i as u32))
        .collect();
    TrigramsWithPositions {
        _total_trigrams: total_trigrams,
        trigram_positions,
    }
}

/// The trigrams of `runs` (ascending, each with its count) by count, then
/// trigram, both descending: a counting sort, linear in the runs and the
/// largest count.
fn rank(runs: &[(u64, usize)]) -> Vec<u64> {
    let max_count = runs.iter().map(|&(_, n)| n).max().unwrap_or(0);
    // starts[n]: where the trigrams seen n times begin (higher counts first).
    let mut starts = vec![0usize; max_count + 2];
    for &(_, n) in runs {
        starts[n] += 1;
    }
    let mut next = 0;
    for n in (1..=max_count).rev() {
        let seen = starts[n];
        starts[n] = next;
        next += seen;
    }
    let mut ranked = vec![0u64; runs.len()];
    for &(trigram, n) in runs.iter().rev() {
        ranked[starts[n]] = trigram;
        starts[n] += 1;
    }
    ranked
}

/// Every trigram of the text, packed, in text order (with repeats).
#[inline]
fn all_trigrams(text: &LowercaseText) -> Vec<u64> {
    let mut trigrams = Vec::with_capacity(text.len() + 1);
    let mut chars_iter = text.chars().map(to_trigram_char).chain(Some(' '));
    let mut c1 = ' ';
    // unwrap is safe, because we always chain a space character on the end of the iterator
    let mut c2 = chars_iter.next().unwrap();
    for c3 in chars_iter {
        if !(c2 == ' ' && (c1 == ' ' || c3 == ' ')) {
            trigrams.push(pack(c1, c2, c3));
        }
        c1 = c2;
        c2 = c3;
    }
    trigrams
}

// Convert punctuations and digits to a space.
#[inline]
fn to_trigram_char(ch: char) -> char {
    if is_stop_char(ch) { ' ' } else { ch }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trigrams::Trigram;

    fn assert_valuable_trigram_chars(chars: &[char]) {
        for &ch in chars.iter() {
            assert_eq!(to_trigram_char(ch), ch);
        }
    }

    fn assert_not_valuable_trigram_chars(chars: &[char]) {
        for &ch in chars.iter() {
            assert_eq!(to_trigram_char(ch), ' ');
        }
    }

    #[test]
    fn test_to_trigram_char() {
        // valuable chars, that matters
        assert_valuable_trigram_chars(&['a', 'z', 'A', 'Z', 'Ж', 'ß']);

        // punctuations, digits, etc..
        //
        // 0x00 - 0x40
        assert_not_valuable_trigram_chars(&['\t', '\n', ' ', '.', '0', '9', ',', '@']);
        // 0x5B - 0x60
        assert_not_valuable_trigram_chars(&['[', ']', '^', '\\', '`']);
        // 0x7B - 0x7E
        assert_not_valuable_trigram_chars(&['[', '|', '{', '}', '~']);
    }

    fn assert_count(text: &str, pairs: &[(&str, u32)]) {
        let lowercase_text = LowercaseText::new(text);
        let mut trigram_occurances = std::collections::HashMap::new();
        for t in all_trigrams(&lowercase_text) {
            *trigram_occurances.entry(t).or_insert(0u32) += 1;
        }
        for &(trigram_str, expected_n) in pairs.iter() {
            let chars: Vec<char> = trigram_str.chars().collect();
            let trigram = Trigram(chars[0], chars[1], chars[2]);
            let actual_n = trigram_occurances[&trigram.packed()];
            assert_eq!(
                actual_n, expected_n,
                "trigram '{:?}' expected to occur {} times, got {}",
                trigram, expected_n, actual_n
            );
        }
        assert_eq!(trigram_occurances.len(), pairs.len());
    }

    #[test]
    fn test_count() {
        assert_count("", &[]);
        assert_count(",", &[]);
        assert_count("a", &[(" a ", 1)]);
        assert_count("-a-", &[(" a ", 1)]);
        assert_count("yes", &[(" ye", 1), ("yes", 1), ("es ", 1)]);
        assert_count(
            "Give - IT...",
            &[
                (" gi", 1),
                ("giv", 1),
                ("ive", 1),
                ("ve ", 1),
                (" it", 1),
                ("it ", 1),
            ],
        );
    }

    #[test]
    fn test_get_trigrams_with_positions() {
        let lowercase_text = LowercaseText::new("xaaaaabbbb    d");
        let TrigramsWithPositions {
            _total_trigrams,
            trigram_positions,
        } = get_trigrams_with_positions(&lowercase_text);

        assert_eq!(trigram_positions[0], (Trigram('a', 'a', 'a').packed(), 0));
        assert_eq!(trigram_positions[1], (Trigram('b', 'b', 'b').packed(), 1));
        assert_eq!(_total_trigrams, 11);
    }
}
