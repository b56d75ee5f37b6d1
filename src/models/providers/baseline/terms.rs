//! Step 1 of the method: characters and terms.
//!
//! Script classes of characters, NFKC normalisation, the function-word lists,
//! identifier splitting, the crude stemmer, and the terms a text gives for
//! retrieval ([`terms`]) or as cue words around a value ([`term_groups`] with
//! [`TermMode::Cue`]).

use std::collections::HashSet;
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;

/// Scripts written without spaces between words: bigrams stand for words.
pub(super) fn is_dense(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x0F00..=0x0FFF // Tibetan
        | 0x1000..=0x109F // Myanmar
        | 0x1100..=0x11FF // Hangul Jamo
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0x31F0..=0x31FF // Katakana extension
        | 0x3400..=0x4DBF // Han extension A
        | 0x4E00..=0x9FFF // Han
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // Han compatibility
        | 0x20000..=0x3FFFF) // Han extensions
}

/// Combining marks (Latin accents, Hebrew and Arabic vowels, Indic signs, kana voicing).
pub(super) fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05C7 | 0x0610..=0x061A
        | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED | 0x0900..=0x0DFF
        | 0x3099..=0x309A)
}

/// A letter, digit or combining mark: part of a word.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_mark(c)
}

/// Hiragana, the script of Japanese grammatical endings and particles.
pub(super) fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x309F)
}

/// Katakana, the script of Japanese loan words and names.
pub(super) fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF)
}

/// Hangul syllables and Jamo (Korean).
pub(super) fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

/// Han characters and the other dense scripts that are not kana or Hangul.
pub(super) fn is_han(c: char) -> bool {
    is_dense(c) && !is_hiragana(c) && !is_katakana(c) && !is_hangul(c)
}

/// NFKC normalisation: full-width digits and letters become ASCII.
pub(super) fn normalize(text: &str) -> String {
    text.nfkc().collect()
}

/// Function words dropped from retrieval terms and never taken as values.
const STOPWORDS: &str = concat!(
    // English
    "a an the and or of to in on at for from by with about is are was were be been am do ",
    "does did can could would will should may might must i me my we our you your he she it ",
    "its they them their this that these those what which who when where why how please tell ",
    "show give get find let know want need like just also any some all there here now right ",
    "today s m much many so up look out into than then if not no yes as too there whats ",
    "what's i'm it's today's over next soon ",
    // German
    "der die das den dem des ein eine einen einem einer und oder ist sind war mit für von ",
    "vom zu zum zur im am auf aus bei nach wie was wer wo welche welcher welches ich mir ",
    "mich du sie es wir bitte zeig zeige gib mal heute gibt kannst können ob auch noch dann ",
    // French
    "le la les un une des du de et ou est sont pour par avec dans sur au aux quel quelle ",
    "quels quelles je moi me tu vous nous il elle ce cette ces qui que quoi s'il plaît donne ",
    "montre aujourd'hui combien est-ce ",
    // Spanish, Italian, Portuguese
    "el los las una unos y o es son por para con en del al qué que cuál cuáles cuánto me mi ",
    "yo tú usted hoy dame muestra favor il lo gli uno di da e è per con su nel nella della ",
    "dei delle quale quali quanto mi oggi dimmi os as um uma do da dos das no na nos nas em ",
    "com qual quais quanto quanta eu hoje me ",
    // Russian
    "и в во на с со по для от до из к о об а но или что какой какая какие каков как где ",
    "когда мне я ты вы мы это этот покажи скажи пожалуйста сегодня ли есть будет ",
    // Turkish
    "ve veya ile bir bu şu ne için mi mı mu mü bana göster lütfen bugün nedir kadar misin ",
    // Arabic
    "في من إلى على عن ما ماذا هل هو هي لي أن كم و أو مع هذا هذه التي الذي اليوم أريد أعطني ",
    // Hindi
    "का की के में है हैं को से और या पर क्या मुझे बताओ बताइए दिखाओ कितना कितने कौन आज यह वह ",
    "भी तो लिए कृपया दो ",
);

/// Single Han characters that are function words or request verbs.
pub(super) const STOP_HAN: &str = concat!(
    "的 了 吗 呢 吧 啊 呀 我 你 他 她 它 们 这 那 哪 些 个 把 被 在 和 与 及 或 是 有 没 不 也 都 就 还 要 想 请 帮 给 让 对 从 到 去 来 ",
    "看 查 找 问 说 下 一 几 多 少 么 什 怎 样 如 何 能 可 以 会 该 得 着 过 再 又 很 太 最 更 先 后 为 所 等 之 其 而 且 于 但 教 調 何 ",
    "今 明 昨 每 各 用 做 嗎 們 這 個 說 請 幫 給 讓 對 來 還 沒 ",
);

/// The entries of a space-separated word list, in order.
pub(super) fn entries(list: &'static str) -> impl Iterator<Item = &'static str> {
    list.split_whitespace()
}

/// Whether a space-separated word list holds `word`.
pub(super) fn listed(list: &'static str, word: &str) -> bool {
    entries(list).any(|w| w == word)
}

/// Whether a lowercased word is in [`STOPWORDS`].
pub(super) fn is_stopword(word: &str) -> bool {
    static SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| entries(STOPWORDS).collect());
    SET.contains(word)
}

/// Splits an identifier-like run at `_ . - /`, camelCase humps and
/// letter/digit changes.
pub(super) fn split_identifier(run: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in run.split(['_', '.', '-', '/', ':', '\'', '’']) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for k in 1..chars.len() {
            let (i, c) = chars[k];
            let prev = chars[k - 1].1;
            let next = chars.get(k + 1).map(|x| x.1);
            let hump = c.is_uppercase()
                && (prev.is_lowercase()
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            let digit_change = c.is_ascii_digit() != prev.is_ascii_digit() && !is_mark(c);
            if hump || digit_change {
                parts.push(&piece[start..i]);
                start = i;
            }
        }
        if start < piece.len() {
            parts.push(&piece[start..]);
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// A word without its Arabic article prefix, when enough of it is left.
fn strip_arabic_article(word: &str) -> &str {
    let n = word.chars().count();
    for (prefix, min) in [
        ("وال", 6),
        ("بال", 6),
        ("فال", 6),
        ("كال", 6),
        ("ال", 5),
        ("لل", 5),
    ] {
        if n >= min
            && let Some(rest) = word.strip_prefix(prefix)
        {
            return rest;
        }
    }
    word
}

/// The comparable form of one lowercased word: Arabic article removed, cut to
/// a prefix of 6 (Latin) or 5 (other scripts) characters.
fn stem(word: &str) -> String {
    let word = strip_arabic_article(word);
    let latin = word
        .chars()
        .all(|c| c.is_ascii() || ('\u{00C0}'..='\u{024F}').contains(&c));
    // A plain plural `-s` (not `-ss`) of a Latin-script word.
    let word = match word.strip_suffix('s') {
        Some(w) if latin && w.chars().count() >= 3 && !w.ends_with('s') => w,
        _ => word,
    };
    let keep = if latin { 6 } else { 5 };
    word.chars().take(keep).collect()
}

/// One retrieval term or cue group, with the byte offset where it starts.
#[derive(Debug, Clone)]
pub(super) struct Positioned {
    /// Byte offset in the text.
    pub(super) at: usize,
    /// The terms read there.
    pub(super) terms: Vec<String>,
}

/// How [`term_groups`] treats words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum TermMode {
    /// Retrieval: stopwords dropped, dense scripts give bigrams.
    Retrieval,
    /// Cues: stopwords kept, dense scripts give bigrams and (non-Hiragana) unigrams.
    Cue,
}

/// Maximal runs of word characters of one density: `(start, end, dense)`.
pub(super) fn runs(text: &str) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        let class = is_word_char(c).then(|| is_dense(c));
        match (current, class) {
            (Some((_, d)), Some(d2)) if d == d2 => {}
            (Some((s, d)), _) => {
                out.push((s, i, d));
                current = class.map(|d2| (i, d2));
            }
            (None, Some(d2)) => current = Some((i, d2)),
            (None, None) => {}
        }
    }
    if let Some((s, d)) = current {
        out.push((s, text.len(), d));
    }
    out
}

/// Terms of a (normalised) text, grouped by position.
pub(super) fn term_groups(text: &str, mode: TermMode) -> Vec<Positioned> {
    let mut out = Vec::new();
    for (start, end, dense) in runs(text) {
        let run = &text[start..end];
        if dense {
            let chars: Vec<(usize, char)> = run.char_indices().collect();
            if chars.len() == 1 {
                out.push(Positioned {
                    at: start,
                    terms: vec![run.to_string()],
                });
                continue;
            }
            for k in 0..chars.len() {
                let mut terms = Vec::new();
                if k + 1 < chars.len() {
                    terms.push(format!("{}{}", chars[k].1, chars[k + 1].1));
                }
                if mode == TermMode::Cue
                    && !is_hiragana(chars[k].1)
                    && !STOP_HAN.contains(chars[k].1)
                {
                    terms.push(chars[k].1.to_string());
                }
                if !terms.is_empty() {
                    out.push(Positioned {
                        at: start + chars[k].0,
                        terms,
                    });
                }
            }
        } else {
            // Keep the word whole for the stopword check, then split it.
            let lower_whole = run.to_lowercase();
            if mode == TermMode::Retrieval && is_stopword(&lower_whole) {
                continue;
            }
            let base = run.as_ptr() as usize;
            for part in split_identifier(run) {
                let lower = part.to_lowercase();
                if part.chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                if mode == TermMode::Retrieval && (lower.chars().count() < 2 || is_stopword(&lower))
                {
                    continue;
                }
                out.push(Positioned {
                    at: start + (part.as_ptr() as usize - base),
                    terms: vec![stem(&lower)],
                });
            }
        }
    }
    out
}

/// Retrieval terms of a text (not normalised yet).
pub(super) fn terms(text: &str) -> Vec<String> {
    term_groups(&normalize(text), TermMode::Retrieval)
        .into_iter()
        .flat_map(|g| g.terms)
        .collect()
}
