use super::TEXT_TRIGRAMS_SIZE;
use super::pack;
use crate::core::LowercaseText;
use crate::utils::is_stop_char;

/// itc: the buffers of [`rank_trigrams`], kept between texts so that
/// ranking a text allocates nothing once they have grown.
#[derive(Default)]
pub(crate) struct TrigramScratch {
    /// Every trigram of the text, packed, then sorted.
    packed: Vec<u64>,
    /// Each distinct trigram with its count, ascending by trigram.
    runs: Vec<(u64, usize)>,
    /// Where each count's trigrams begin in [`Self::ranked`].
    starts: Vec<usize>,
    /// The text's distinct trigrams, most frequent first.
    ranked: Vec<u64>,
}

/// itc: the trigrams are collected packed into a list and sorted, so equal
/// ones are adjacent and counted in one pass, instead of counted in a hash
/// map; then ranked by (count, trigram), both descending, exactly as
/// upstream sorts its `(count, Trigram)` pairs. Returns the text's most
/// frequent trigrams (at most [`TEXT_TRIGRAMS_SIZE`]): a trigram's place in
/// the slice is its rank.
#[inline]
pub(crate) fn rank_trigrams<'s>(
    text: &LowercaseText,
    scratch: &'s mut TrigramScratch,
) -> &'s [u64] {
    let TrigramScratch {
        packed,
        runs,
        starts,
        ranked,
    } = scratch;
    all_trigrams(text, packed);
    packed.sort_unstable();
    runs.clear();
    runs.extend(
        packed
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], run.len())),
    );
    rank(runs, starts, ranked);
    // we're interested only in the first 600 (2 * MAX_TRIGRAM_DISTANCE)
    &ranked[..ranked.len().min(TEXT_TRIGRAMS_SIZE)]
}

/// Puts the trigrams of `runs` (ascending, each with its count) in `ranked`
/// by count, then trigram, both descending: a counting sort, linear in the
/// runs and the largest count.
fn rank(runs: &[(u64, usize)], starts: &mut Vec<usize>, ranked: &mut Vec<u64>) {
    let max_count = runs.iter().map(|&(_, n)| n).max().unwrap_or(0);
    // starts[n]: where the trigrams seen n times begin (higher counts first).
    starts.clear();
    starts.resize(max_count + 2, 0);
    for &(_, n) in runs {
        starts[n] += 1;
    }
    let mut next = 0;
    for n in (1..=max_count).rev() {
        let seen = starts[n];
        starts[n] = next;
        next += seen;
    }
    ranked.clear();
    ranked.resize(runs.len(), 0);
    for &(trigram, n) in runs.iter().rev() {
        ranked[starts[n]] = trigram;
        starts[n] += 1;
    }
}

/// Every trigram of the text, packed, in text order (with repeats), into
/// `trigrams`.
#[inline]
fn all_trigrams(text: &LowercaseText, trigrams: &mut Vec<u64>) {
    trigrams.clear();
    trigrams.reserve(text.len() + 1);
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
        let mut trigrams = Vec::new();
        all_trigrams(&lowercase_text, &mut trigrams);
        for t in trigrams {
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
    fn test_rank_trigrams() {
        let mut scratch = TrigramScratch::default();
        let lowercase_text = LowercaseText::new("xaaaaabbbb    d");
        let ranked = rank_trigrams(&lowercase_text, &mut scratch);
        assert_eq!(ranked[0], Trigram('a', 'a', 'a').packed());
        assert_eq!(ranked[1], Trigram('b', 'b', 'b').packed());
        assert_eq!(scratch.packed.len(), 11);
        // The buffers are reused: a shorter text leaves nothing of the longer.
        let ranked = rank_trigrams(&LowercaseText::new("yes"), &mut scratch).to_vec();
        let expected: Vec<u64> = [
            Trigram('y', 'e', 's'),
            Trigram('e', 's', ' '),
            Trigram(' ', 'y', 'e'),
        ]
        .map(Trigram::packed)
        .to_vec();
        assert_eq!(ranked, expected);
        assert!(rank_trigrams(&LowercaseText::new(""), &mut scratch).is_empty());
    }
}
