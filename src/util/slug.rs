//! Names made safe for ids and file names: one rule with its two styles.

/// What a slug is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlugStyle {
    /// Part of an id (generated query ids): ASCII lowercase letters and
    /// digits, everything else `_`, at most 32 characters.
    Id,
    /// A file or directory name (default run directories): letters and
    /// digits of any script, `-` and `.` kept, everything else `_`.
    FileName,
}

/// `name` with the characters its style does not allow replaced by `_`,
/// and `_` trimmed from both ends.
pub fn slug(name: &str, style: SlugStyle) -> String {
    let keep = |c: char| match style {
        SlugStyle::Id => c.is_ascii_alphanumeric(),
        SlugStyle::FileName => c.is_alphanumeric() || c == '-' || c == '.',
    };
    let mapped = name.chars().map(|c| {
        let c = if keep(c) { c } else { '_' };
        match style {
            SlugStyle::Id => c.to_ascii_lowercase(),
            SlugStyle::FileName => c,
        }
    });
    let s: String = match style {
        SlugStyle::Id => mapped.take(32).collect(),
        SlugStyle::FileName => mapped.collect(),
    };
    s.trim_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_styles() {
        assert_eq!(
            slug("Qwen/Qwen2.5 7B", SlugStyle::FileName),
            "Qwen_Qwen2.5_7B"
        );
        assert_eq!(slug("Qwen/Qwen2.5 7B", SlugStyle::Id), "qwen_qwen2_5_7b");
        assert_eq!(slug("天気-API", SlugStyle::FileName), "天気-API");
        assert_eq!(slug("天気-API", SlugStyle::Id), "api");
        assert_eq!(slug(&"a".repeat(40), SlugStyle::Id).len(), 32);
        assert_eq!(slug("__x__", SlugStyle::FileName), "x");
    }
}
