//! Reading TOML files (`models.toml`, `pipeline.toml`) with errors that name
//! the file, the field and the line, and keep toml's source excerpt intact.

use serde::de::DeserializeOwned;

/// Parses `text` as a `T`; `origin` (usually the file's path) starts every
/// error. A type error names the field (`field `models[0].backend``) before
/// toml's own message, whose multi-line excerpt (line number, the line, a
/// caret under the value) is kept as it is.
pub fn from_str<T: DeserializeOwned>(text: &str, origin: &str) -> anyhow::Result<T> {
    let de = toml::Deserializer::parse(text)
        .map_err(|e| anyhow::anyhow!("{origin}: {}", e.to_string().trim_end()))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let inner = inner.trim_end();
        if path.is_empty() || path == "." {
            anyhow::anyhow!("{origin}: {inner}")
        } else {
            anyhow::anyhow!("{origin}: field `{path}`: {inner}")
        }
    })
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
    fn an_unknown_key_is_named() {
        let text = "[[models]]\nname = \"a\"\ncount = 1\ncolour = 2\n";
        let err = from_str::<File>(text, "m.toml").unwrap_err().to_string();
        assert!(err.contains("colour"), "{err}");
        assert!(err.contains("models[0]"), "{err}");
    }
}
