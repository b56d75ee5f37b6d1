use std::cell::{Ref, RefCell};
use std::sync::LazyLock;

/// A text in lower case, as `str::to_lowercase` makes it.
///
/// itc: held as characters, not a `String`, since the detectors only walk
/// its characters; most characters are lowered through a table of the Basic
/// Multilingual Plane built once from `char::to_lowercase`. A text with a
/// character that lowers to several characters or depends on its context
/// (final sigma) is lowered by `str::to_lowercase` itself.
#[derive(Debug)]
pub struct LowercaseText {
    inner: Vec<char>,
}

/// No single-character lower case without context (see [`LowercaseText`]).
const NOT_SIMPLE: u32 = u32::MAX;

static BMP_LOWERCASE: LazyLock<Box<[u32]>> = LazyLock::new(|| {
    (0u32..0x10000)
        .map(|code| match char::from_u32(code) {
            None => NOT_SIMPLE,
            Some('\u{03A3}') => NOT_SIMPLE,
            Some(ch) => {
                let mut lower = ch.to_lowercase();
                match (lower.next(), lower.next()) {
                    (Some(one), None) => one as u32,
                    _ => NOT_SIMPLE,
                }
            }
        })
        .collect()
});

impl LowercaseText {
    pub fn new(original_text: &str) -> Self {
        let table = &**BMP_LOWERCASE;
        let mut inner = Vec::with_capacity(original_text.len());
        for ch in original_text.chars() {
            let code = ch as u32;
            let lower = if code < 0x80 {
                ch.to_ascii_lowercase()
            } else if code < 0x10000 && table[code as usize] != NOT_SIMPLE {
                char::from_u32(table[code as usize]).unwrap_or(ch)
            } else {
                return Self {
                    inner: original_text.to_lowercase().chars().collect(),
                };
            };
            inner.push(lower);
        }
        Self { inner }
    }

    /// The characters, in order.
    #[inline]
    pub fn chars(&self) -> impl Iterator<Item = char> + '_ {
        self.inner.iter().copied()
    }

    /// The number of characters.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.inner.len()
    }
}

#[derive(Debug)]
pub struct Text<'a> {
    original: &'a str,
    lowercase: RefCell<Option<LowercaseText>>,
}

impl<'a> Text<'a> {
    pub fn new(original_text: &'a str) -> Self {
        Self {
            original: original_text,
            lowercase: RefCell::new(None),
        }
    }

    pub fn lowercase(&self) -> Ref<'_, LowercaseText> {
        if self.lowercase.borrow().is_none() {
            let lowercase_text = LowercaseText::new(self.original);
            self.lowercase.replace(Some(lowercase_text));
        }

        let ref_opt_lowercase = self.lowercase.borrow();
        Ref::map(ref_opt_lowercase, |r| r.as_ref().unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_text() {
        let text = Text::new("Hello THERE");
        assert_eq!(text.lowercase().chars().collect::<String>(), "hello there");
    }

    #[test]
    fn lowercase_equals_str_to_lowercase() {
        let texts = [
            "Hello THERE",
            "ΟΔΥΣΣΕΥΣ ΣΑΣ Σ",
            "İstanbul DİYARBAKIR",
            "Straße ẞ ǅ ǈ Ａｂ 𐐀𐐁 ДЖ",
            "",
        ];
        for text in texts {
            assert_eq!(
                LowercaseText::new(text).chars().collect::<String>(),
                text.to_lowercase(),
                "{text}"
            );
        }
        for code in 0..0x10000u32 {
            let Some(ch) = char::from_u32(code) else {
                continue;
            };
            let text = format!("a{ch}b {ch} {ch}");
            assert_eq!(
                LowercaseText::new(&text).chars().collect::<String>(),
                text.to_lowercase(),
                "U+{code:04X}"
            );
        }
    }
}
