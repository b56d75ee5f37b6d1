use std::cmp::Reverse;
use std::sync::LazyLock;

use super::chars;
use super::script::Script;
use crate::utils::is_stop_char;

/// Detect only a script by a given text.
/// Works much faster than a complete detection with `detect`.
///
/// # Example
/// ```
/// use whatlang::{detect_script, Script};
/// let script = detect_script("Благодаря Эсперанто вы обрётете друзей по всему миру!").unwrap();
/// assert_eq!(script, Script::Cyrillic);
/// ```
pub fn detect_script(text: &str) -> Option<Script> {
    let raw_info = raw_detect_script(text);
    raw_info.main_script()
}

#[derive(Debug)]
pub struct RawScriptInfo {
    pub counters: Vec<(Script, usize)>,
}

impl RawScriptInfo {
    fn new(mut counters: Vec<(Script, usize)>) -> Self {
        counters.sort_unstable_by_key(|(_, score)| Reverse(*score));
        Self { counters }
    }

    pub(crate) fn main_script(&self) -> Option<Script> {
        // expect - is safe because self.counters is never expected to be empty
        // See raw_detect_script().
        let pair = self.counters.first().expect("counters must not be empty");
        if pair.1 > 0 { Some(pair.0) } else { None }
    }

    pub(crate) fn count(&self, script: Script) -> usize {
        // expect - is safe because self.counters always have all scripts
        // See raw_detect_script().
        self.counters
            .iter()
            .find(|(s, _count)| *s == script)
            .expect("count() failed because script is not found")
            .1
    }
}

type ScriptCheck = (Script, fn(char) -> bool);

/// The scripts in upstream's initial order, with their character tests.
const SCRIPT_CHECKS: [ScriptCheck; 25] = [
    (Script::Latin, chars::is_latin),
    (Script::Cyrillic, chars::is_cyrillic),
    (Script::Arabic, chars::is_arabic),
    (Script::Mandarin, chars::is_mandarin),
    (Script::Devanagari, chars::is_devanagari),
    (Script::Hebrew, chars::is_hebrew),
    (Script::Ethiopic, chars::is_ethiopic),
    (Script::Georgian, chars::is_georgian),
    (Script::Bengali, chars::is_bengali),
    (Script::Hangul, chars::is_hangul),
    (Script::Hiragana, chars::is_hiragana),
    (Script::Katakana, chars::is_katakana),
    (Script::Greek, chars::is_greek),
    (Script::Kannada, chars::is_kannada),
    (Script::Tamil, chars::is_tamil),
    (Script::Thai, chars::is_thai),
    (Script::Gujarati, chars::is_gujarati),
    (Script::Gurmukhi, chars::is_gurmukhi),
    (Script::Telugu, chars::is_telugu),
    (Script::Malayalam, chars::is_malayalam),
    (Script::Oriya, chars::is_oriya),
    (Script::Myanmar, chars::is_myanmar),
    (Script::Sinhala, chars::is_sinhala),
    (Script::Khmer, chars::is_khmer),
    (Script::Armenian, chars::is_armenian),
];

/// No script (stop characters and characters of no listed script).
const NO_SCRIPT: u8 = u8::MAX;
/// A character in more than one script's set (U+1D2B and U+1D78 are both
/// Latin and Cyrillic): the one first in the current order counts.
const SEVERAL_SCRIPTS: u8 = u8::MAX - 1;

/// itc: the script (index into [`SCRIPT_CHECKS`]) of every character of the
/// Basic Multilingual Plane, computed once with the same tests.
static BMP_SCRIPTS: LazyLock<Box<[u8]>> = LazyLock::new(|| {
    (0u32..0x10000)
        .map(|code| char::from_u32(code).map_or(NO_SCRIPT, script_by_tests))
        .collect()
});

fn script_by_tests(ch: char) -> u8 {
    if is_stop_char(ch) {
        return NO_SCRIPT;
    }
    let mut matching = SCRIPT_CHECKS
        .iter()
        .enumerate()
        .filter(|(_, (_, test))| test(ch));
    match (matching.next(), matching.next()) {
        (None, _) => NO_SCRIPT,
        (Some((i, _)), None) => i as u8,
        (Some(_), Some(_)) => SEVERAL_SCRIPTS,
    }
}

/// Counts the characters of each script.
///
/// itc: upstream tests each character against the scripts in turn, moving
/// the script found one place forward, so that ties in the final (unstable)
/// sort break by that order. A table lookup finds the same script, since
/// only two characters are in two scripts' sets (`table_matches_tests`
/// checks every character), and those are resolved by the order as
/// upstream does; the order is kept with the same swaps, so the result is
/// identical.
pub fn raw_detect_script(text: &str) -> RawScriptInfo {
    let table = &**BMP_SCRIPTS;
    let mut counts = [0usize; 25];
    // order[i]: the script at place i; place[s]: where script s is.
    let mut order: [u8; 25] = std::array::from_fn(|i| i as u8);
    let mut place: [u8; 25] = order;
    for ch in text.chars() {
        let code = ch as u32;
        let mut script = if code < 0x10000 {
            table[code as usize]
        } else {
            script_by_tests(ch)
        };
        if script == SEVERAL_SCRIPTS {
            script = *order
                .iter()
                .find(|&&s| (SCRIPT_CHECKS[s as usize].1)(ch))
                .expect("in several scripts");
        }
        if script == NO_SCRIPT {
            continue;
        }
        counts[script as usize] += 1;
        let i = place[script as usize];
        if i > 0 {
            let before = order[i as usize - 1];
            order.swap(i as usize - 1, i as usize);
            place[script as usize] = i - 1;
            place[before as usize] = i;
        }
    }

    let counters: Vec<(Script, usize)> = order
        .iter()
        .map(|&s| (SCRIPT_CHECKS[s as usize].0, counts[s as usize]))
        .collect();

    RawScriptInfo::new(counters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_script_name() {
        assert_eq!(Script::Cyrillic.name(), "Cyrillic");
        assert_eq!(Script::Katakana.name(), "Katakana");
    }

    #[test]
    fn test_detect_script() {
        assert_eq!(detect_script("1234567890-,;!"), None);

        // One script
        assert_eq!(detect_script("Hello!"), Some(Script::Latin));
        assert_eq!(detect_script("Привет всем!"), Some(Script::Cyrillic));
        assert_eq!(
            detect_script("ქართული ენა მსოფლიო "),
            Some(Script::Georgian)
        );
        assert_eq!(
            detect_script("県見夜上温国阪題富販"),
            Some(Script::Mandarin)
        );
        assert_eq!(
            detect_script(" ككل حوالي 1.6، ومعظم الناس "),
            Some(Script::Arabic)
        );
        assert_eq!(
            detect_script("हिमालयी वन चिड़िया (जूथेरा सालिमअली) चिड़िया की एक प्रजाति है"),
            Some(Script::Devanagari)
        );
        assert_eq!(
            detect_script("היסטוריה והתפתחות של האלפבית העברי"),
            Some(Script::Hebrew)
        );
        assert_eq!(
            detect_script("የኢትዮጵያ ፌዴራላዊ ዴሞክራሲያዊሪፐብሊክ"),
            Some(Script::Ethiopic)
        );

        // Mixed scripts
        assert_eq!(
            detect_script("Привет! Текст на русском with some English."),
            Some(Script::Cyrillic)
        );
        assert_eq!(
            detect_script("Russian word любовь means love."),
            Some(Script::Latin)
        );
    }

    #[test]
    fn table_matches_tests() {
        let mut several = Vec::new();
        for code in 0..=0x10FFFFu32 {
            let Some(ch) = char::from_u32(code) else {
                continue;
            };
            let matching: Vec<u8> = (0..25u8)
                .filter(|&i| !is_stop_char(ch) && (SCRIPT_CHECKS[i as usize].1)(ch))
                .collect();
            let expected = match matching[..] {
                [] => NO_SCRIPT,
                [one] => one,
                _ => {
                    several.push(code);
                    SEVERAL_SCRIPTS
                }
            };
            assert_eq!(script_by_tests(ch), expected, "U+{code:04X}");
            if code < 0x10000 {
                assert_eq!(BMP_SCRIPTS[code as usize], expected, "U+{code:04X}");
            }
        }
        assert_eq!(several, [0x1D2B, 0x1D78]);
    }

    /// Upstream's loop, kept as the reference.
    fn raw_detect_script_by_tests(text: &str) -> RawScriptInfo {
        let mut counters: Vec<(Script, fn(char) -> bool, usize)> =
            SCRIPT_CHECKS.iter().map(|&(s, f)| (s, f, 0)).collect();
        for ch in text.chars() {
            if is_stop_char(ch) {
                continue;
            }
            if let Some(i) = counters.iter().position(|(_, f, _)| f(ch)) {
                counters[i].2 += 1;
                if i > 0 {
                    counters.swap(i - 1, i);
                }
            }
        }
        RawScriptInfo::new(counters.iter().map(|&(s, _, n)| (s, n)).collect())
    }

    #[test]
    fn table_counts_equal_upstream_loop() {
        let texts = [
            "",
            "Привет! Текст на русском with some English.",
            "Russian word любовь means love.",
            "東京の天気 weather 날씨 𞸀 ሰላም ab αβ אב ab",
            "a\u{10E60}b\u{1F600} ﬀ ǅ",
            "ᴫ Ж ᵸ a ᴫ ᴫ ж ᵸ",
        ];
        for text in texts {
            assert_eq!(
                raw_detect_script(text).counters,
                raw_detect_script_by_tests(text).counters,
                "{text}"
            );
        }
    }
}
