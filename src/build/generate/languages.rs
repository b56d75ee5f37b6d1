//! The language queries are written in: the main language of the API's
//! country (ITC §3.3), English for global APIs.
//!
//! One language per country, the one most of its people read online; where
//! a country has several (India, Switzerland, Belgium, Canada), the largest.
//! `itc generate --language CC=xx` overrides any entry.

/// ISO 3166-1 alpha-2 country code → ISO 639-1 language code.
const COUNTRY_LANGUAGES: &[(&str, &str)] = &[
    ("AD", "ca"),
    ("AE", "ar"),
    ("AL", "sq"),
    ("AM", "hy"),
    ("AR", "es"),
    ("AT", "de"),
    ("AU", "en"),
    ("AZ", "az"),
    ("BA", "bs"),
    ("BD", "bn"),
    ("BE", "nl"),
    ("BG", "bg"),
    ("BH", "ar"),
    ("BN", "ms"),
    ("BO", "es"),
    ("BR", "pt"),
    ("BY", "ru"),
    ("CA", "en"),
    ("CH", "de"),
    ("CI", "fr"),
    ("CL", "es"),
    ("CM", "fr"),
    ("CN", "zh"),
    ("CO", "es"),
    ("CR", "es"),
    ("CU", "es"),
    ("CY", "el"),
    ("CZ", "cs"),
    ("DE", "de"),
    ("DK", "da"),
    ("DO", "es"),
    ("DZ", "ar"),
    ("EC", "es"),
    ("EE", "et"),
    ("EG", "ar"),
    ("ES", "es"),
    ("ET", "am"),
    ("FI", "fi"),
    ("FR", "fr"),
    ("GB", "en"),
    ("GE", "ka"),
    ("GH", "en"),
    ("GR", "el"),
    ("GT", "es"),
    ("HK", "zh"),
    ("HN", "es"),
    ("HR", "hr"),
    ("HU", "hu"),
    ("ID", "id"),
    ("IE", "en"),
    ("IL", "he"),
    ("IN", "hi"),
    ("IQ", "ar"),
    ("IR", "fa"),
    ("IS", "is"),
    ("IT", "it"),
    ("JM", "en"),
    ("JO", "ar"),
    ("JP", "ja"),
    ("KE", "en"),
    ("KG", "ky"),
    ("KH", "km"),
    ("KR", "ko"),
    ("KW", "ar"),
    ("KZ", "ru"),
    ("LA", "lo"),
    ("LB", "ar"),
    ("LI", "de"),
    ("LK", "si"),
    ("LT", "lt"),
    ("LU", "fr"),
    ("LV", "lv"),
    ("LY", "ar"),
    ("MA", "ar"),
    ("MC", "fr"),
    ("MD", "ro"),
    ("MK", "mk"),
    ("MM", "my"),
    ("MN", "mn"),
    ("MT", "mt"),
    ("MU", "en"),
    ("MX", "es"),
    ("MY", "ms"),
    ("NG", "en"),
    ("NI", "es"),
    ("NL", "nl"),
    ("NO", "no"),
    ("NP", "ne"),
    ("NZ", "en"),
    ("OM", "ar"),
    ("PA", "es"),
    ("PE", "es"),
    ("PH", "tl"),
    ("PK", "ur"),
    ("PL", "pl"),
    ("PS", "ar"),
    ("PT", "pt"),
    ("PY", "es"),
    ("QA", "ar"),
    ("RO", "ro"),
    ("RS", "sr"),
    ("RU", "ru"),
    ("RW", "rw"),
    ("SA", "ar"),
    ("SC", "en"),
    ("SD", "ar"),
    ("SE", "sv"),
    ("SG", "en"),
    ("SI", "sl"),
    ("SK", "sk"),
    ("SN", "fr"),
    ("SV", "es"),
    ("SY", "ar"),
    ("TH", "th"),
    ("TN", "ar"),
    ("TR", "tr"),
    ("TT", "en"),
    ("TW", "zh"),
    ("TZ", "sw"),
    ("UA", "uk"),
    ("UG", "en"),
    ("US", "en"),
    ("UY", "es"),
    ("UZ", "uz"),
    ("VE", "es"),
    ("VN", "vi"),
    ("YE", "ar"),
    ("ZA", "en"),
    ("ZM", "en"),
    ("ZW", "en"),
];

/// ISO 639-1 code → the language's English name, for prompts.
const LANGUAGE_NAMES: &[(&str, &str)] = &[
    ("am", "Amharic"),
    ("ar", "Arabic"),
    ("az", "Azerbaijani"),
    ("bg", "Bulgarian"),
    ("bn", "Bengali"),
    ("bs", "Bosnian"),
    ("ca", "Catalan"),
    ("cs", "Czech"),
    ("da", "Danish"),
    ("de", "German"),
    ("el", "Greek"),
    ("en", "English"),
    ("es", "Spanish"),
    ("et", "Estonian"),
    ("fa", "Persian"),
    ("fi", "Finnish"),
    ("fr", "French"),
    ("he", "Hebrew"),
    ("hi", "Hindi"),
    ("hr", "Croatian"),
    ("hu", "Hungarian"),
    ("hy", "Armenian"),
    ("id", "Indonesian"),
    ("is", "Icelandic"),
    ("it", "Italian"),
    ("ja", "Japanese"),
    ("ka", "Georgian"),
    ("km", "Khmer"),
    ("ko", "Korean"),
    ("ky", "Kyrgyz"),
    ("lo", "Lao"),
    ("lt", "Lithuanian"),
    ("lv", "Latvian"),
    ("mk", "Macedonian"),
    ("mn", "Mongolian"),
    ("ms", "Malay"),
    ("mt", "Maltese"),
    ("my", "Burmese"),
    ("ne", "Nepali"),
    ("nl", "Dutch"),
    ("no", "Norwegian"),
    ("pl", "Polish"),
    ("pt", "Portuguese"),
    ("ro", "Romanian"),
    ("ru", "Russian"),
    ("rw", "Kinyarwanda"),
    ("si", "Sinhala"),
    ("sk", "Slovak"),
    ("sl", "Slovenian"),
    ("sq", "Albanian"),
    ("sr", "Serbian"),
    ("sv", "Swedish"),
    ("sw", "Swahili"),
    ("th", "Thai"),
    ("tl", "Tagalog"),
    ("tr", "Turkish"),
    ("uk", "Ukrainian"),
    ("ur", "Urdu"),
    ("uz", "Uzbek"),
    ("vi", "Vietnamese"),
    ("zh", "Chinese"),
];

/// The language of a country's queries: `en` for `GLOBAL` (or an empty
/// country), the table's entry otherwise, `None` for a country not in it.
pub fn language_of_country(country: &str) -> Option<&'static str> {
    let code = country.trim().to_ascii_uppercase();
    if code.is_empty() || code == "GLOBAL" {
        return Some("en");
    }
    COUNTRY_LANGUAGES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, l)| *l)
}

/// The English name of a language code, or the code itself when unknown.
pub fn language_name(code: &str) -> &str {
    LANGUAGE_NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
        .unwrap_or(code)
}

/// Parses a `--language CC=xx` override.
pub fn parse_override(text: &str) -> Result<(String, String), String> {
    let (country, language) = text
        .split_once('=')
        .ok_or_else(|| format!("expected COUNTRY=LANGUAGE, such as CH=fr (got {text:?})"))?;
    let (country, language) = (country.trim(), language.trim());
    let is_code =
        |s: &str, len: usize| s.len() == len && s.chars().all(|c| c.is_ascii_alphabetic());
    if !(is_code(country, 2) || country.eq_ignore_ascii_case("GLOBAL")) {
        return Err(format!(
            "{country:?} is not an ISO 3166-1 alpha-2 code or GLOBAL"
        ));
    }
    if !is_code(language, 2) {
        return Err(format!("{language:?} is not an ISO 639-1 code"));
    }
    Ok((country.to_ascii_uppercase(), language.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_map_to_their_main_language() {
        assert_eq!(language_of_country("jp"), Some("ja"));
        assert_eq!(language_of_country("SA"), Some("ar"));
        assert_eq!(language_of_country("BR"), Some("pt"));
        assert_eq!(language_of_country("GLOBAL"), Some("en"));
        assert_eq!(language_of_country(""), Some("en"));
        assert_eq!(language_of_country("XX"), None);
    }

    #[test]
    fn every_language_of_the_table_has_a_name_and_the_table_is_sorted() {
        for (country, language) in COUNTRY_LANGUAGES {
            assert_ne!(language_name(language), *language, "{country}: {language}");
        }
        // The table is sorted, so a reader can find a country at a glance.
        assert!(COUNTRY_LANGUAGES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn overrides_are_checked() {
        assert_eq!(parse_override("ch=FR"), Ok(("CH".into(), "fr".into())));
        assert!(parse_override("CH").is_err());
        assert!(parse_override("Swiss=fr").is_err());
        assert!(parse_override("CH=french").is_err());
    }
}
