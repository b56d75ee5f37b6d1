//! Reading TOML files (`models.toml`, `pipeline.toml`) with errors that name
//! the file, the field and the line, and keep toml's source excerpt intact.

use serde::de::DeserializeOwned;

/// Parses `text` as a `T`; `origin` (usually the file's path) starts every
/// error. A type error names the field (``field `models[0].backend` ``) before
/// toml's own message, whose multi-line excerpt (line number, the line, a
/// caret under the value) is kept as it is.
pub fn from_str<T: DeserializeOwned>(text: &str, origin: &str) -> anyhow::Result<T> {
    from_str_hiding(text, origin, &[])
}

/// [`from_str`], with the fields `hidden` (internal ones, that a program
/// writes and a person should not) left out of the accepted fields an
/// unknown key's error lists.
pub fn from_str_hiding<T: DeserializeOwned>(
    text: &str,
    origin: &str,
    hidden: &[&str],
) -> anyhow::Result<T> {
    let de = toml::Deserializer::parse(text)
        .map_err(|e| anyhow::anyhow!("{origin}: {}", describe(&e, text, hidden)))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        // A key may be any length; its path is cut like the excerpt.
        let path = super::bounded::clip(&e.path().to_string(), 2 * EXCERPT_CHARS);
        let inner = describe(e.inner(), text, hidden);
        if path.is_empty() || path == "." {
            anyhow::anyhow!("{origin}: {inner}")
        } else {
            anyhow::anyhow!("{origin}: field `{path}`: {inner}")
        }
    })
}

/// The widest excerpt of the offending line an error shows, in characters:
/// a 50 MB line must not become a 50 MB message.
const EXCERPT_CHARS: usize = 80;

/// toml's error in toml's shape (position, the line, a caret, the message),
/// with the line cut to a window around the error.
fn describe(error: &toml::de::Error, text: &str, hidden: &[&str]) -> String {
    let message = message_of(error.message().trim_end(), hidden);
    let Some(span) = error.span() else {
        return message;
    };
    let start = text.floor_char_boundary(span.start.min(text.len()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line_number = text[..line_start].matches('\n').count() + 1;
    let line = text[line_start..line_end].trim_end_matches('\r');
    let column = text[line_start..start].chars().count();
    // A window of the line that holds the error's start.
    let skip = column.saturating_sub(EXCERPT_CHARS / 2);
    let shown: String = line.chars().skip(skip).take(EXCERPT_CHARS).collect();
    let cut_before = if skip > 0 { "…" } else { "" };
    let cut_after = if line.chars().count() > skip + EXCERPT_CHARS {
        "…"
    } else {
        ""
    };
    let caret_at = column - skip + cut_before.chars().count();
    let width = text[start..span.end.clamp(start, line_end).max(start)]
        .chars()
        .count()
        .clamp(1, EXCERPT_CHARS);
    let gutter = " ".repeat(line_number.to_string().len());
    format!(
        "TOML parse error at line {line_number}, column {}\n{gutter} |\n{line_number} | {cut_before}{shown}{cut_after}\n{gutter} | {}{}\n{message}",
        column + 1,
        " ".repeat(caret_at),
        "^".repeat(width),
    )
}

/// toml's message, cut to a bounded length. An unknown key's message
/// (serde's ``unknown field `k`, expected one of `a`, `b`, …``) keeps its
/// whole list of accepted fields, which the type bounds, less `hidden`; only
/// the key is cut.
fn message_of(message: &str, hidden: &[&str]) -> String {
    const UNKNOWN: &str = "unknown field `";
    const EXPECTED: &str = "`, expected ";
    let clip = super::bounded::clip;
    let Some((key, expected)) = message.strip_prefix(UNKNOWN).and_then(|rest| {
        rest.rfind(EXPECTED)
            .map(|at| (&rest[..at], &rest[at + EXPECTED.len()..]))
    }) else {
        return clip(message, 4 * EXCERPT_CHARS);
    };
    // serde writes `a`, `a` or `b`, or one of `a`, `b`, `c`.
    let fields: Vec<&str> = expected
        .trim_start_matches("one of ")
        .split(", ")
        .flat_map(|part| part.split(" or "))
        .map(|f| f.trim_matches('`'))
        .filter(|f| !hidden.contains(f))
        .collect();
    let quoted: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
    let list = match quoted.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => format!("one of {}", quoted.join(", ")),
    };
    format!("{UNKNOWN}{}`, expected {list}", clip(key, EXCERPT_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[allow(dead_code)]
        models: Vec<Model>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Model {
        #[allow(dead_code)]
        name: String,
        #[allow(dead_code)]
        count: usize,
    }

    #[test]
    fn a_type_error_names_file_field_and_line_and_keeps_the_excerpt() {
        let text = "[[models]]\nname = \"a\"\ncount = \"forty\"\n";
        let err = from_str::<File>(text, "m.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("m.toml: field `models[0].count`: "),
            "{err}"
        );
        assert!(err.contains("line 3"), "{err}");
        // The excerpt keeps its own lines: the source line, then the caret.
        let lines: Vec<&str> = err.lines().collect();
        assert!(lines.len() >= 3, "{err}");
        assert!(
            lines.iter().any(|l| l.contains("count = \"forty\"")),
            "{err}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.trim_start().starts_with('|') && l.contains('^')),
            "{err}"
        );
    }

    #[test]
    fn a_syntax_error_names_the_file_and_line() {
        let err = from_str::<File>("[[models]\n", "m.toml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("m.toml: "), "{err}");
        assert!(err.contains("line 1"), "{err}");
        assert!(err.lines().count() >= 3, "{err}");
    }

    #[test]
    fn a_huge_line_is_cut_to_a_window_around_the_error() {
        let text = format!(
            "[[models]]\nname = \"{}\"\ncount = \"x{}\"\n",
            "a",
            "y".repeat(1_000_000)
        );
        let err = from_str::<File>(&text, "m.toml").unwrap_err().to_string();
        assert!(err.len() < 1_000, "{} bytes", err.len());
        assert!(err.contains("line 3, column 9"), "{err}");
        assert!(err.contains("count = \"xyyy"), "{err}");
        assert!(err.contains('…'), "{err}");
    }

    #[test]
    fn the_caret_points_at_the_column_past_multibyte_text() {
        let text = "[[models]]\nname = \"é\"\ncount = \"forty\"\n";
        let err = from_str::<File>(text, "m.toml").unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        let source = lines.iter().position(|l| l.starts_with("3 | ")).unwrap();
        let caret = lines[source + 1];
        assert_eq!(caret.find('^'), lines[source].find('"'), "{err}");
    }

    #[test]
    fn an_unknown_key_lists_the_fields_but_the_hidden_ones_and_a_huge_key_is_cut() {
        let text = "[[models]]\nname = \"a\"\ncount = 1\ncolour = 2\n";
        let err = from_str_hiding::<File>(text, "m.toml", &["count"])
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("unknown field `colour`, expected `name`"),
            "{err}"
        );
        let err = from_str::<File>(text, "m.toml").unwrap_err().to_string();
        assert!(err.ends_with("expected `name` or `count`"), "{err}");
        let key = "k".repeat(100_000);
        let text = format!("[[models]]\nname = \"a\"\ncount = 1\n{key} = 2\n");
        let err = from_str::<File>(&text, "m.toml").unwrap_err().to_string();
        assert!(err.len() < 1_000, "{} bytes", err.len());
        assert!(err.ends_with("expected `name` or `count`"), "{err}");
    }

    #[test]
    fn an_unknown_key_is_named() {
        let text = "[[models]]\nname = \"a\"\ncount = 1\ncolour = 2\n";
        let err = from_str::<File>(text, "m.toml").unwrap_err().to_string();
        assert!(err.contains("colour"), "{err}");
        assert!(err.contains("models[0]"), "{err}");
    }
}
