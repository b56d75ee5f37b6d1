//! References to an earlier call's output (SPEC §3): the [`Reference`] type,
//! the ways one is written, and the one reader of each.
//!
//! - In task files a reference is `{"$ref": "<call index>.<field>"}`, the
//!   call counted from 0 ([`Reference::parse`] reads the target text).
//! - Gold answers and generated drafts write the placeholder `'$N.field'`,
//!   the call counted from 1, as the prompts teach ([`parse_placeholder`]
//!   reads it, [`Reference::placeholder`] writes it).
//! - A model's answer may use any common [`Style`]; the scorer decides
//!   whether it names the right call and field.
//!
//! A placeholder is `$`, a call number, and optionally `.` and a field path:
//!
//! ```text
//! placeholder := '$' digit+ [ '.' path ]      (white space around it is ignored)
//! path        := first rest*
//! first       := letter | '_' | '['           (a letter of any script)
//! rest        := letter | digit | '_' | '-' | '.' | '[' | ']'
//! ```
//!
//! So `$1.city`, `$1.results[0].id`, `$1.[0]` and `$2` are placeholders,
//! while `$5.00` is money: a path never starts with a digit.

use std::fmt;

/// The value at a field path in a tool output: keys joined by `.`, list
/// positions as `[0]` or as a `.0` key (`address.city`, `results[0].id`,
/// `results.0.id`, `[0]`); an empty path is the whole output. `None` when
/// the output has no such field.
pub fn field_value<'v>(output: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    let mut value = output;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        // `results[0][1]`: a key, then positions.
        let (key, positions) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !key.is_empty() {
            value = match value {
                serde_json::Value::Object(map) => map.get(key)?,
                serde_json::Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        for position in positions.split('[').skip(1) {
            let index = position.strip_suffix(']')?.parse::<usize>().ok()?;
            value = value.as_array()?.get(index)?;
        }
    }
    Some(value)
}

/// A reference to an earlier call's output inside a gold call: `{"$ref": "0.field"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// 0-based index of the earlier call.
    pub call: usize,
    /// Field of its output (may be a dotted path; empty for the whole output).
    pub field: String,
}

impl Reference {
    /// Reads the target of a `{"$ref": …}` object, `"<call index>.<field>"`
    /// with the call counted from 0. The `$ref` key already says the text is
    /// a reference, so the field is not held to the placeholder grammar.
    pub fn parse(text: &str) -> Option<Reference> {
        let (index, field) = match text.split_once('.') {
            Some((i, f)) => (i, f),
            None => (text, ""),
        };
        let call = index.trim().trim_start_matches('$').parse().ok()?;
        Some(Reference {
            call,
            field: field.trim().to_string(),
        })
    }

    /// The placeholder that [`parse_placeholder`] reads back: `$N.field`
    /// (N counted from 1), or `$N` for the whole output.
    pub fn placeholder(&self) -> String {
        if self.field.is_empty() {
            format!("${}", self.call + 1)
        } else {
            format!("${}.{}", self.call + 1, self.field)
        }
    }
}

impl fmt::Display for Reference {
    /// The `{"$ref": …}` target: `<call index>.<field>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.call)
        } else {
            write!(f, "{}.{}", self.call, self.field)
        }
    }
}

/// Why a text shaped like a placeholder names no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceholderError {
    /// `$0…`: placeholders count calls from 1.
    CountedFromZero,
    /// The call number is too large for any call list.
    TooLarge,
}

impl fmt::Display for PlaceholderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlaceholderError::CountedFromZero => "calls are counted from 1",
            PlaceholderError::TooLarge => "call number too large",
        })
    }
}

/// Reads a gold placeholder (see the grammar above): `Ok(None)` for text
/// that is not one (`$5.00`, `$5.00 fee`, `Graz`), an error for one whose
/// call number names no call (`$0.x`).
pub fn parse_placeholder(text: &str) -> Result<Option<Reference>, PlaceholderError> {
    let Some((digits, path)) = split_placeholder(text) else {
        return Ok(None);
    };
    let number: usize = digits.parse().map_err(|_| PlaceholderError::TooLarge)?;
    if number == 0 {
        return Err(PlaceholderError::CountedFromZero);
    }
    Ok(Some(Reference {
        call: number - 1,
        field: path.to_string(),
    }))
}

/// The call number and path of a placeholder, as written.
fn split_placeholder(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim().strip_prefix('$')?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, after) = rest.split_at(end);
    if digits.is_empty() {
        return None;
    }
    if after.is_empty() {
        return Some((digits, ""));
    }
    let path = after.strip_prefix('.')?;
    is_path(path).then_some((digits, path))
}

/// Whether text is a field path: `city`, `results[0].id`, `[0]`, `都市`.
fn is_path(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '[')
        && chars.all(|c| c.is_alphanumeric() || "_-.[]".contains(c))
}

/// Whether text starts as an amount of money, `$5.00`: a number after `$`
/// followed by `.` and a digit, which no placeholder path can be.
fn is_money(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('$') else {
        return false;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut after = rest[digits..].chars();
    digits > 0 && after.next() == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit())
}

/// The common ways a model writes "the output of an earlier call" (SPEC §3).
/// The placeholder word of the gold Thought is the one style not told by
/// its shape, so it is not here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `$1.password`, `$0`, `${password}`: a dollar sign first (money aside).
    Dollar,
    /// `{{password}}`, `{password}`: in braces.
    Braces,
    /// `<output of call 1>`: in angle brackets.
    Angle,
    /// `API_call_0`, `call_1`: the label of the call.
    CallLabel,
}

impl Style {
    /// The style a (trimmed) text is written in, if any.
    pub fn of(text: &str) -> Option<Style> {
        let lower = text.to_ascii_lowercase();
        if text.starts_with('$') {
            (!is_money(text)).then_some(Style::Dollar)
        } else if text.starts_with('{') && text.ends_with('}') {
            Some(Style::Braces)
        } else if text.starts_with('<') && text.ends_with('>') {
            Some(Style::Angle)
        } else if lower.starts_with("api_call_") || lower.starts_with("call_") {
            Some(Style::CallLabel)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<(usize, String)>, PlaceholderError> {
        parse_placeholder(text).map(|r| r.map(|r| (r.call, r.field)))
    }

    fn at(call: usize, field: &str) -> Result<Option<(usize, String)>, PlaceholderError> {
        Ok(Some((call, field.to_string())))
    }

    #[test]
    fn field_paths_reach_keys_and_list_positions() {
        let output = serde_json::json!({
            "codigo_ine": "50297",
            "address": {"city": "Zaragoza"},
            "results": [{"id": 7}, {"id": 8, "tags": [["a", "b"]]}]
        });
        let at = |path: &str| field_value(&output, path).cloned();
        assert_eq!(at("codigo_ine"), Some("50297".into()));
        assert_eq!(at("address.city"), Some("Zaragoza".into()));
        assert_eq!(at("results[1].id"), Some(8.into()));
        assert_eq!(at("results.0.id"), Some(7.into()));
        assert_eq!(at("results[1].tags[0][1]"), Some("b".into()));
        assert_eq!(at(""), Some(output.clone()));
        for missing in [
            "nope",
            "address.town",
            "results[2]",
            "results[x]",
            "codigo_ine.x",
            "results[1",
        ] {
            assert_eq!(at(missing), None, "{missing}");
        }
        let list = serde_json::json!([{"id": 1}]);
        assert_eq!(field_value(&list, "[0].id"), Some(&serde_json::json!(1)));
    }

    #[test]
    fn placeholders_count_from_one() {
        assert_eq!(read("$1.city"), at(0, "city"));
        assert_eq!(read("$1.lat"), at(0, "lat"));
        assert_eq!(read("$2"), at(1, ""));
        assert_eq!(read(" $2.token "), at(1, "token"));
        assert_eq!(read("$1.results[0].id"), at(0, "results[0].id"));
        assert_eq!(read("$1.[0]"), at(0, "[0]"));
        assert_eq!(read("$1.data.0.id"), at(0, "data.0.id"));
        assert_eq!(read("$1._id"), at(0, "_id"));
        assert_eq!(read("$1.都市"), at(0, "都市"));
        assert_eq!(read("$1.código_postal"), at(0, "código_postal"));
        assert_eq!(read("$12.x"), at(11, "x"));
        assert_eq!(
            read("$5"),
            at(4, ""),
            "a bare call number is its whole output"
        );
        assert_eq!(read("$0.x"), Err(PlaceholderError::CountedFromZero));
        assert_eq!(read("$0"), Err(PlaceholderError::CountedFromZero));
        assert_eq!(
            read("$99999999999999999999999.x"),
            Err(PlaceholderError::TooLarge)
        );
    }

    #[test]
    fn money_and_other_text_are_not_placeholders() {
        for text in [
            "$5.00",
            "$5.00 fee",
            "$1.5",
            "$1.0abc",
            "$12abc",
            "$1.",
            "$1.-x",
            "$1.a b",
            "$x",
            "${city}",
            "$",
            "5",
            "Graz",
            "$1[0]",
        ] {
            assert_eq!(read(text), Ok(None), "{text}");
        }
    }

    #[test]
    fn placeholders_read_back() {
        for r in [
            Reference {
                call: 0,
                field: "results[0].id".into(),
            },
            Reference {
                call: 2,
                field: String::new(),
            },
        ] {
            assert_eq!(parse_placeholder(&r.placeholder()), Ok(Some(r.clone())));
        }
    }

    #[test]
    fn ref_targets_count_from_zero() {
        let r = Reference::parse("0.password").unwrap();
        assert_eq!((r.call, r.field.as_str()), (0, "password"));
        assert_eq!(r.to_string(), "0.password");
        let r = Reference::parse(" 2 ").unwrap();
        assert_eq!((r.call, r.field.as_str()), (2, ""));
        assert_eq!(r.to_string(), "2");
        assert_eq!(Reference::parse("0.5").unwrap().field, "5");
        assert_eq!(Reference::parse("x.y"), None);
    }

    #[test]
    fn styles_are_told_by_shape() {
        assert_eq!(Style::of("$1.password"), Some(Style::Dollar));
        assert_eq!(Style::of("$0"), Some(Style::Dollar));
        assert_eq!(Style::of("${password}"), Some(Style::Dollar));
        assert_eq!(Style::of("$5.00"), None, "money");
        assert_eq!(Style::of("$5.00 fee"), None, "money");
        assert_eq!(Style::of("{{password}}"), Some(Style::Braces));
        assert_eq!(Style::of("<output of call 1>"), Some(Style::Angle));
        assert_eq!(Style::of("API_call_0"), Some(Style::CallLabel));
        assert_eq!(Style::of("call_1"), Some(Style::CallLabel));
        assert_eq!(Style::of("password"), None);
        assert_eq!(Style::of("{open"), None);
    }
}
