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

    /// Removes every occurrence of the key from a message, written plainly
    /// or with JSON escapes (`\u0073\u006b…`, `\/`) as error bodies may
    /// echo it.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        let key: Vec<char> = self.0.chars().collect();
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            match escaped_match(rest, &key) {
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
/// written plainly or as a JSON escape (`\uXXXX` in either case, `\/`).
fn escaped_match(text: &str, key: &[char]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    for &want in key {
        let rest = &text[at..];
        if rest.starts_with(want) {
            at += want.len_utf8();
        } else if want == '/' && rest.starts_with("\\/") {
            at += 2;
        } else if rest.starts_with("\\u") && rest.len() >= 6 && rest.is_char_boundary(6) {
            let code = u32::from_str_radix(&rest[2..6], 16).ok()?;
            if char::from_u32(code) != Some(want) {
                return None;
            }
            at += 6;
        } else {
            return None;
        }
        debug_assert!(at <= bytes.len());
    }
    Some(at)
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}
