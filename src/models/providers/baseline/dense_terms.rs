//! Step 6 of the method: candidate values in scripts without spaces. Han and
//! Katakana runs are cut at Hiragana, at function characters and at bigrams of
//! the tool's own name or description; Hangul words lose their particle.

use std::collections::HashSet;
use std::ops::Range;

use super::spans::{Kind, Span};
use super::terms::{STOP_HAN, entries, is_han, is_hangul, is_hiragana, is_katakana, listed, runs};

/// Several-character Han words that carry no value, like [`STOP_HAN`].
const STOP_HAN_WORDS: &str = "一下 什么 怎么 多少 现在 今天 明天 昨天 后天 最近 告诉 时候 今日 明日 昨日 今週 来週 週末 今後 現在 最新 周末 一些 哪些 ";

/// Korean words that carry no value.
const STOP_HANGUL: &str = concat!(
    "알려 알려줘 알려주세요 줘 좀 주세요 해줘 해 보여 보여줘 찾아 찾아줘 오늘 내일 지금 어떻게 뭐 무엇 얼마 있는 관련 어디 언제 그리고 및 또 대한 자세한 ",
    "싶어 해주세요 말해 검색해 조회해 ",
);

/// Korean particles stripped from the end of a word.
const HANGUL_PARTICLES: &str =
    "에서는 에서 으로 부터 까지 에게 한테 이랑 하고 와 과 랑 은 는 이 가 을 를 에 의 도 로 만 께 ";

/// Terms in scripts without spaces, cut at function characters and at
/// bigrams the tool's own name or description contains.
pub(super) fn dense_terms(text: &str, tool_bigrams: &HashSet<String>) -> Vec<Span> {
    let mut out = Vec::new();
    for (start, end, dense) in runs(text) {
        if !dense {
            continue;
        }
        let run = &text[start..end];
        // Hangul: one word per run (Korean has spaces).
        if run.chars().all(is_hangul) {
            out.extend(hangul_term(run, start, tool_bigrams));
        } else {
            out.extend(han_and_katakana_terms(text, start..end, tool_bigrams));
        }
    }
    out
}

/// A Korean word without its particle, unless it carries no value or only
/// repeats the tool's own words.
fn hangul_term(run: &str, start: usize, tool_bigrams: &HashSet<String>) -> Option<Span> {
    let mut word = run;
    for p in entries(HANGUL_PARTICLES) {
        if let Some(w) = word.strip_suffix(p)
            && w.chars().count() >= 2
        {
            word = w;
            break;
        }
    }
    let wchars: Vec<char> = word.chars().collect();
    let in_tool = wchars.len() >= 2
        && wchars
            .windows(2)
            .all(|w| tool_bigrams.contains(&format!("{}{}", w[0], w[1])));
    let keep =
        wchars.len() >= 2 && !listed(STOP_HANGUL, word) && !listed(STOP_HANGUL, run) && !in_tool;
    keep.then(|| Span {
        start,
        end: start + word.len(),
        text: word.to_string(),
        kind: Kind::Term,
    })
}

/// Han and Katakana: the runs of two or more characters of one script
/// (Han, or Katakana) left between characters that cannot be part of a value.
fn han_and_katakana_terms(
    text: &str,
    range: Range<usize>,
    tool_bigrams: &HashSet<String>,
) -> Vec<Span> {
    let (start, end) = (range.start, range.end);
    let run = &text[range];
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let blocked = blocked_characters(run, &chars, tool_bigrams);
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        if blocked[k] {
            k += 1;
            continue;
        }
        let katakana = is_katakana(chars[k].1);
        let mut j = k + 1;
        while j < chars.len() && !blocked[j] && is_katakana(chars[j].1) == katakana {
            j += 1;
        }
        if j - k >= 2 {
            let s = start + chars[k].0;
            let e = if j < chars.len() {
                start + chars[j].0
            } else {
                end
            };
            out.push(Span {
                start: s,
                end: e,
                text: text[s..e].to_string(),
                kind: Kind::Term,
            });
        }
        k = j;
    }
    out
}

/// Which characters of a run cannot be part of a value: kana endings,
/// Hangul, function characters and words, and bigrams of the tool's own.
fn blocked_characters(
    run: &str,
    chars: &[(usize, char)],
    tool_bigrams: &HashSet<String>,
) -> Vec<bool> {
    let mut blocked = vec![false; chars.len()];
    for (k, &(i, c)) in chars.iter().enumerate() {
        if is_hiragana(c) || is_hangul(c) || STOP_HAN.contains(c) {
            blocked[k] = true;
        }
        for w in entries(STOP_HAN_WORDS) {
            if run[i..].starts_with(w) {
                for b in blocked.iter_mut().skip(k).take(w.chars().count()) {
                    *b = true;
                }
            }
        }
        if let Some(&(_, d)) = chars.get(k + 1)
            && is_han(c)
            && is_han(d)
            && tool_bigrams.contains(&format!("{c}{d}"))
        {
            blocked[k] = true;
            blocked[k + 1] = true;
        }
    }
    blocked
}
