//! Checks the fuzz targets share (`fuzz_targets/*.rs`).
//!
//! Every target asserts invariants, not just "no panic": a failed assertion
//! is a crash libFuzzer saves and minimises like any other.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use itc::build::catalog::{self, CatalogError, Format, ImportOptions, Parsed};
use itc::spec::action::ParseError;
use itc::spec::records::Value;

/// The fuzz input as text: invalid UTF-8 becomes U+FFFD, so no input is wasted.
pub fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Splits `head \x01 body`; without the separator the head is `None`.
pub fn split_head(input: &str) -> (Option<&str>, &str) {
    match input.split_once('\u{1}') {
        Some((head, body)) => (Some(head), body),
        None => (None, input),
    }
}

/// A parse error points into the input: a character boundary, the line and
/// column of that offset, and an excerpt of what is there.
pub fn check_parse_error(input: &str, e: &ParseError) {
    assert!(e.offset <= input.len(), "offset past the end: {e:?}");
    assert!(
        input.is_char_boundary(e.offset),
        "offset inside a character: {e:?}"
    );
    let before = &input[..e.offset];
    assert_eq!(e.line, before.matches('\n').count() + 1, "line of {e:?}");
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    assert_eq!(e.column, column, "column of {e:?}");
    assert!(input[e.offset..].starts_with(&e.found), "excerpt of {e:?}");
    assert!(!e.expected.is_empty());
    assert!(!e.to_string().is_empty());
}

/// Whether two floats differ by at most `ulps` units in the last place
/// (serde_json's default float reader is not always correctly rounded, so
/// a value written by ryu may read back one ulp off).
pub fn close_f64(a: f64, b: f64, ulps: u64) -> bool {
    if a == b {
        return true;
    }
    if a.is_nan() || b.is_nan() || a.is_sign_negative() != b.is_sign_negative() {
        return false;
    }
    a.to_bits().abs_diff(b.to_bits()) <= ulps
}

/// JSON equality with floats compared within two ulps.
pub fn json_close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            if x.is_f64() || y.is_f64() {
                match (x.as_f64(), y.as_f64()) {
                    (Some(x), Some(y)) => close_f64(x, y, 2),
                    _ => false,
                }
            } else {
                x == y
            }
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_close(a, b))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && json_close(va, vb))
        }
        _ => a == b,
    }
}

/// Argument-value equality with floats compared within two ulps.
pub fn value_close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => close_f64(*x, *y, 2),
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| value_close(a, b))
        }
        (Value::Dict(x), Value::Dict(y)) => arguments_close(x, y),
        _ => a == b,
    }
}

/// Arguments equal in order, values compared by [`value_close`].
pub fn arguments_close(a: &[(String, Value)], b: &[(String, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && value_close(va, vb))
}

/// Whether a value holds an object with a key twice (JSON allows it; a
/// `serde_json::Value` keeps only the last).
pub fn has_duplicate_keys(v: &Value) -> bool {
    match v {
        Value::List(items) | Value::Tuple(items) => items.iter().any(has_duplicate_keys),
        Value::Dict(entries) => {
            let mut keys = std::collections::HashSet::new();
            entries.iter().any(|(k, _)| !keys.insert(k))
                || entries.iter().any(|(_, v)| has_duplicate_keys(v))
        }
        _ => false,
    }
}

/// A scratch file of this process (forked fuzz workers have their own).
pub fn scratch_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("itc-fuzz-{}-{name}", std::process::id()))
}

/// The lines `itc::spec::jsonl::for_each_line` hands on: 1-based numbers of
/// the non-blank lines (a leading byte order mark dropped).
pub fn non_blank_lines(text: &str) -> Vec<usize> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split_inclusive('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_end_matches(['\n', '\r']).trim().is_empty())
        .map(|(i, _)| i + 1)
        .collect()
}

/// Characters a tool name must not hold (the action grammar reserves them).
const RESERVED: [char; 12] = [
    '(', ')', '[', ']', '{', '}', ',', '"', '\'', '=', '\n', '\r',
];

fn check_catalog_error(e: &CatalogError, file: &Path, text: &str) {
    assert_eq!(e.file, file, "{e}");
    assert!(!e.field.is_empty(), "error without a field: {e:?}");
    assert!(!e.message.is_empty(), "error without a message: {e:?}");
    if let Some(line) = e.line {
        // Line breaks are `\n`, `\r\n` or a lone `\r` (YAML counts all
        // three); one past the last line is the end of the input, where
        // the YAML reader places errors about it.
        let lines = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .count();
        assert!(
            (1..=lines + 1).contains(&line),
            "line {line} of a {lines}-line file: {e:?}"
        );
    }
    let shown = e.to_string();
    assert!(shown.starts_with(&file.display().to_string()), "{shown}");
}

/// One catalog import in memory, as `itc catalog import --skip-invalid`
/// does it: the format's parser, validation, de-duplication, ids.
///
/// Asserts: every error names the file, a field and a line inside the file;
/// every entry kept has a callable, trimmed name, unique non-empty
/// parameter names, a category and a country; ids are unique; and the
/// catalog written as JSON Lines imports again (format `itc`) to the same
/// entries.
pub fn check_catalog(format: Format, data: &[u8]) {
    let text = text(data);
    let file = Path::new("fuzz-input");
    let parsed: Parsed = match parse(format, file, &text) {
        Ok(parsed) => parsed,
        Err(e) => {
            check_catalog_error(&e, file, &text);
            return;
        }
    };
    let options = ImportOptions {
        format,
        country: None,
        category: None,
        skip_invalid: true,
    };
    let mut entries = Vec::new();
    for item in parsed {
        match item.and_then(|raw| catalog::finish(raw, file, &options)) {
            Ok((entry, _)) => entries.push(entry),
            Err(e) => check_catalog_error(&e, file, &text),
        }
    }
    let (mut entries, _) = catalog::dedup(entries);
    catalog::assign_ids(&mut entries, format);
    let mut ids = std::collections::HashSet::new();
    for entry in &entries {
        let name = &entry.tool.name;
        assert!(!name.is_empty());
        assert!(!name.contains(RESERVED), "reserved character in {name:?}");
        assert_eq!(name.trim(), name, "untrimmed name");
        assert_eq!(&catalog::callable_name(name), name, "name not callable");
        assert!(!entry.tool.category.is_empty(), "no category: {entry:?}");
        assert!(!entry.country().is_empty());
        let mut names = std::collections::HashSet::new();
        for p in entry
            .tool
            .required_parameters
            .iter()
            .chain(&entry.tool.optional_parameters)
        {
            assert!(!p.name.is_empty(), "empty parameter name: {entry:?}");
            assert!(names.insert(&p.name), "parameter twice: {entry:?}");
        }
        assert!(!entry.id.is_empty());
        assert!(ids.insert(entry.id.clone()), "id twice: {}", entry.id);
    }
    if !entries.is_empty() {
        check_reimport(&entries);
    }
}

/// The catalog this import wrote, imported again as `itc`, is the same.
fn check_reimport(entries: &[catalog::CatalogEntry]) {
    let mut jsonl = String::new();
    for e in entries {
        jsonl.push_str(&serde_json::to_string(e).expect("catalog entries serialise"));
        jsonl.push('\n');
    }
    let file = Path::new("fuzz-catalog.jsonl");
    let options = ImportOptions {
        format: Format::Itc,
        country: None,
        category: None,
        skip_invalid: false,
    };
    let parsed = catalog::itc::parse(file, &jsonl)
        .unwrap_or_else(|e| panic!("own catalog does not re-import: {e}\n{jsonl}"));
    let mut again = Vec::new();
    for item in parsed {
        let (entry, _) = item
            .and_then(|raw| catalog::finish(raw, file, &options))
            .unwrap_or_else(|e| panic!("own catalog entry does not re-import: {e}\n{jsonl}"));
        again.push(entry);
    }
    let (mut again, _) = catalog::dedup(again);
    catalog::assign_ids(&mut again, Format::Itc);
    assert_eq!(again.len(), entries.len(), "re-import count\n{jsonl}");
    for (a, b) in entries.iter().zip(&again) {
        assert_eq!(a.id, b.id, "re-import id\n{jsonl}");
        assert_eq!(a.tool, b.tool, "re-import tool\n{jsonl}");
    }
}

fn parse(format: Format, file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    match format {
        Format::Itc => catalog::itc::parse(file, text),
        Format::Toolbench => catalog::toolbench::parse(file, text),
        Format::Openapi => catalog::openapi::parse(file, text),
        Format::PublicApis => Ok(catalog::public_apis::parse(file, text)),
        Format::SealTools => Ok(catalog::seal_tools::parse(file, text)),
        Format::Toolalpaca => catalog::toolalpaca::parse(file, text),
    }
}
