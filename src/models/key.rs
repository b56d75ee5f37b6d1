//! API keys: kept out of every file, log and message itc writes.

use std::fmt;

use serde_json::Value;

/// An API key read from the environment. It is only ever put in request
/// headers: it has no `Display`, and `Debug` prints `ApiKey(***)`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key (tests; the CLI reads keys with `resolve_key`).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for a request header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Removes every occurrence of the key from a message, each of its
    /// characters written plainly, with a JSON escape (`\u0073` in either
    /// case, `\/`, `\"`, `\\`, `\n`…) or percent-encoded (`%2F`, `%2f`,
    /// `+` for a space), as URLs, error bodies and headers may carry it.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        let key: Vec<char> = self.0.chars().collect();
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            match spelled_match(rest, &key) {
                Some(len) => {
                    out.push_str("***");
                    rest = &rest[len..];
                }
                None => {
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        out
    }

    /// Removes the key from every string of a JSON value (a response body:
    /// its escapes are decoded already), keys of objects included.
    pub fn redact_value(&self, value: &mut Value) {
        match value {
            Value::String(s) if s.contains(&self.0) => *s = self.redact(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v)),
            Value::Object(map) if map.keys().any(|k| k.contains(&self.0)) => {
                let entries = std::mem::take(map);
                for (k, mut v) in entries {
                    self.redact_value(&mut v);
                    map.insert(self.redact(&k), v);
                }
            }
            Value::Object(map) => map.values_mut().for_each(|v| self.redact_value(v)),
            _ => {}
        }
    }
}

/// The length in bytes of the key at the start of `text`, each character
/// in any of the spellings [`ApiKey::redact`] knows (the longest, when
/// several match). The ends the key's characters so far can reach are
/// followed together, so a character spelled two ways (`%` and `%25`) costs
/// no backtracking.
fn spelled_match(text: &str, key: &[char]) -> Option<usize> {
    let (&first, rest) = key.split_first()?;
    let mut ends: Vec<usize> = char_spellings(text, first).into_iter().flatten().collect();
    if ends.is_empty() {
        return None;
    }
    let mut next = Vec::new();
    for &want in rest {
        next.clear();
        for &at in &ends {
            for len in char_spellings(&text[at..], want).into_iter().flatten() {
                if !next.contains(&(at + len)) {
                    next.push(at + len);
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        std::mem::swap(&mut ends, &mut next);
    }
    ends.into_iter().max()
}

/// The lengths `want` can have at the start of `text`: plain, JSON-escaped
/// (short or `\uXXXX`), `+` for a space, or percent-encoded.
fn char_spellings(text: &str, want: char) -> [Option<usize>; 2] {
    let plain = text.starts_with(want).then_some(want.len_utf8());
    let bytes = text.as_bytes();
    let escaped = match bytes.first() {
        Some(b'\\') => json_escape(text, want),
        Some(b'%') => percent_encoded(text, want),
        Some(b'+') if want == ' ' => Some(1),
        _ => None,
    };
    [plain, escaped]
}

/// The length of `want` written as a JSON escape at the start of `text`.
fn json_escape(text: &str, want: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let short = match want {
        '/' => Some(b'/'),
        '"' => Some(b'"'),
        '\\' => Some(b'\\'),
        '\n' => Some(b'n'),
        '\r' => Some(b'r'),
        '\t' => Some(b't'),
        '\u{8}' => Some(b'b'),
        '\u{c}' => Some(b'f'),
        _ => None,
    };
    if short.is_some() && bytes.get(1).copied() == short {
        return Some(2);
    }
    let code = text
        .get(2..6)
        .filter(|c| bytes[1] == b'u' && c.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let code = u32::from_str_radix(code, 16).ok()?;
    (char::from_u32(code) == Some(want)).then_some(6)
}

/// The length of `want` percent-encoded (hex digits in either case) at the
/// start of `text`.
fn percent_encoded(text: &str, want: char) -> Option<usize> {
    let mut utf8 = [0u8; 4];
    let mut at = 0;
    for &byte in want.encode_utf8(&mut utf8).as_bytes() {
        let hex = text
            .get(at..at + 3)
            .filter(|h| h.starts_with('%') && h[1..].bytes().all(|b| b.is_ascii_hexdigit()))?;
        if u8::from_str_radix(&hex[1..], 16).ok()? != byte {
            return None;
        }
        at += 3;
    }
    Some(at)
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    use proptest::prelude::*;

    /// Every spelling of `key` that URLs, JSON bodies and headers give it.
    fn spellings(key: &str) -> Vec<String> {
        let upper = utf8_percent_encode(key, NON_ALPHANUMERIC).to_string();
        let mut lower = String::new();
        let mut chars = upper.chars();
        while let Some(c) = chars.next() {
            lower.push(c);
            if c == '%' {
                lower.extend(chars.by_ref().take(2).map(|h| h.to_ascii_lowercase()));
            }
        }
        let json = serde_json::to_string(key).unwrap();
        let escaped: String = key
            .chars()
            .map(|c| format!("\\u{:04X}", c as u32))
            .collect();
        let mut query = reqwest::Url::parse("http://h/p").unwrap();
        query.query_pairs_mut().append_pair("k", key);
        vec![
            key.to_string(),
            upper,
            lower,
            json[1..json.len() - 1].to_string(),
            escaped,
            json[1..json.len() - 1].replace('/', "\\/"),
            query.query().unwrap()[2..].to_string(),
        ]
    }

    #[test]
    fn url_special_keys_are_masked_in_every_spelling() {
        let key = ApiKey::new("a/b+c=d~e&f%g h\"i\\j?k#");
        for spelled in spellings(key.expose()) {
            let text = format!("<{spelled}>");
            let masked = key.redact(&text);
            assert_eq!(masked, "<***>", "{spelled}");
        }
        // A near miss is left alone.
        assert_eq!(key.redact("a/b+c=d~e&f%g"), "a/b+c=d~e&f%g");
        assert_eq!(ApiKey::new("abcd").redact("%6%61bcd"), "%6***");
    }

    proptest! {
        #[test]
        fn random_keys_are_masked_in_every_spelling(
            key in "[a-zA-Z0-9/+=~&%?#: \"\\\\éß-]{4,24}",
            prefix in "[<>|!*]{0,5}",
            suffix in "[<>|!*]{0,5}",
        ) {
            let api_key = ApiKey::new(key.clone());
            for spelled in spellings(&key) {
                let masked = api_key.redact(&format!("{prefix}{spelled}{suffix}"));
                prop_assert_eq!(masked, format!("{prefix}***{suffix}"), "{}", spelled);
            }
        }
    }
}
