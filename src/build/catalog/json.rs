//! An order-preserving JSON tree and a cursor that knows where each value
//! sits, so that the import formats can report `file:line: field `path``
//! errors and keep parameters in the order their source wrote them
//! (`serde_json::Value` sorts object keys).

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::CatalogError;

/// A JSON value whose objects keep their members in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// Any number.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in document order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses one JSON document.
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// What kind of value this is, for error messages ("a string").
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// The first member called `key`, when this is an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value`.
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => serde_json::Value::Number(n.clone()),
            Json::String(s) => serde_json::Value::String(s.clone()),
            Json::Array(items) => items.iter().map(Json::to_value).collect(),
            Json::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<Key, Json>()? {
            members.push((k.0, v));
        }
        Ok(Json::Object(members))
    }
}

/// An object key. JSON keys are strings; YAML ones may be numbers or
/// booleans (`200:` under `responses`), kept as their text.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        match Json::deserialize(d)? {
            Json::String(s) => Ok(Key(s)),
            Json::Number(n) => Ok(Key(n.to_string())),
            Json::Bool(b) => Ok(Key(b.to_string())),
            Json::Null => Ok(Key("null".to_string())),
            other => Err(de::Error::custom(format!(
                "expected a scalar key, found {}",
                other.kind()
            ))),
        }
    }
}

/// Where a document came from: the file and, for JSON Lines, the line.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The input file.
    pub file: &'a Path,
    /// 1-based line of the record, for line-oriented files.
    pub line: Option<usize>,
}

impl Ctx<'_> {
    /// An error at `field` (a JSON path; empty for the whole record).
    pub fn error(&self, field: &str, message: impl Into<String>) -> CatalogError {
        CatalogError {
            file: self.file.to_path_buf(),
            line: self.line,
            field: if field.is_empty() {
                ".".to_string()
            } else {
                field.to_string()
            },
            message: message.into(),
        }
    }
}

/// A value inside a document together with its JSON path.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    /// The value.
    pub value: &'a Json,
    /// JSON path from the record's root (`entries[3].API`); empty at the root.
    pub path: String,
    /// The file and line.
    pub ctx: Ctx<'a>,
}

/// Appends a member name to a path.
pub fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key:?}]"),
    }
}

/// Result of the cursor's accessors.
pub type Res<T> = Result<T, CatalogError>;

impl<'a> Node<'a> {
    /// The root of a record.
    pub fn root(value: &'a Json, ctx: Ctx<'a>, path: &str) -> Node<'a> {
        Node {
            value,
            path: path.to_string(),
            ctx,
        }
    }

    /// An error about this value.
    pub fn error(&self, message: impl Into<String>) -> CatalogError {
        self.ctx.error(&self.path, message)
    }

    /// An error about member `key` of this value (which may be absent).
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> CatalogError {
        self.ctx.error(&join(&self.path, key), message)
    }

    fn child(&self, value: &'a Json, path: String) -> Node<'a> {
        Node {
            value,
            path,
            ctx: self.ctx,
        }
    }

    /// Member `key`, when this is an object that has it (a `null` member counts as absent).
    pub fn key(&self, key: &str) -> Option<Node<'a>> {
        match self.value.get(key) {
            None | Some(Json::Null) => None,
            Some(v) => Some(self.child(v, join(&self.path, key))),
        }
    }

    /// Whether this is an object with a non-null member `key`.
    pub fn has(&self, key: &str) -> bool {
        self.key(key).is_some()
    }

    /// The members of an object, in document order.
    pub fn members(&self) -> Res<Vec<(&'a str, Node<'a>)>> {
        match self.value {
            Json::Object(members) => Ok(members
                .iter()
                .map(|(k, v)| (k.as_str(), self.child(v, join(&self.path, k))))
                .collect()),
            other => Err(self.error(format!("expected an object, found {}", other.kind()))),
        }
    }

    /// The elements of an array.
    pub fn items(&self) -> Res<Vec<Node<'a>>> {
        match self.value {
            Json::Array(items) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, v)| self.child(v, format!("{}[{i}]", self.path)))
                .collect()),
            other => Err(self.error(format!("expected an array, found {}", other.kind()))),
        }
    }

    /// Checks that this is an object.
    pub fn expect_object(&self) -> Res<()> {
        self.members().map(|_| ())
    }

    /// This value as a string.
    pub fn str(&self) -> Res<&'a str> {
        match self.value {
            Json::String(s) => Ok(s),
            other => Err(self.error(format!("expected a string, found {}", other.kind()))),
        }
    }

    /// Member `key` as a non-empty (after trimming) string.
    pub fn req_str(&self, key: &str) -> Res<String> {
        let node = self.key(key).ok_or_else(|| self.error_at(key, "missing"))?;
        let text = node.str()?.trim();
        if text.is_empty() {
            return Err(node.error("empty"));
        }
        Ok(text.to_string())
    }

    /// Member `key` as a trimmed string; absent or `null` gives `""`.
    pub fn opt_str(&self, key: &str) -> Res<String> {
        match self.key(key) {
            None => Ok(String::new()),
            Some(node) => Ok(node.str()?.trim().to_string()),
        }
    }

    /// Member `key` as an array; absent or `null` gives no elements.
    pub fn opt_items(&self, key: &str) -> Res<Vec<Node<'a>>> {
        match self.key(key) {
            None => Ok(Vec::new()),
            Some(node) => node.items(),
        }
    }

    /// Member `key` as a boolean, when present.
    pub fn opt_bool(&self, key: &str) -> Res<Option<bool>> {
        match self.key(key) {
            None => Ok(None),
            Some(node) => match node.value {
                Json::Bool(b) => Ok(Some(*b)),
                other => Err(node.error(format!("expected a boolean, found {}", other.kind()))),
            },
        }
    }
}

/// Parses a whole file as one JSON document; syntax errors name line and column.
pub fn parse_document(file: &Path, text: &str) -> Res<Json> {
    Json::parse(text).map_err(|e| CatalogError {
        file: file.to_path_buf(),
        line: Some(e.line()),
        field: ".".to_string(),
        message: format!("invalid JSON at column {}: {e}", e.column()),
    })
}

/// Parses one YAML document (OpenAPI and Swagger files are often YAML).
pub fn parse_yaml_document(file: &Path, text: &str) -> Res<Json> {
    super::yaml_depth::check(text).map_err(|deep| CatalogError {
        file: file.to_path_buf(),
        line: Some(deep.line),
        field: ".".to_string(),
        message: format!(
            "invalid YAML at column {}: nested deeper than {} levels",
            deep.column,
            super::yaml_depth::MAX_FLOW_DEPTH
        ),
    })?;
    serde_norway::from_str::<Json>(text).map_err(|e| {
        // The YAML reader also counts NEL, LS and PS as line breaks (YAML
        // 1.1); lines are numbered here as everywhere else, from its byte
        // offset, so that the line is one an editor shows.
        let location = e.location().map(|l| line_and_column(text, l.index()));
        CatalogError {
            file: file.to_path_buf(),
            line: location.map(|(line, _)| line),
            field: ".".to_string(),
            message: match location {
                Some((_, column)) => format!(
                    "invalid YAML at column {column}: {}",
                    without_yaml_positions(&e.to_string())
                ),
                None => format!("invalid YAML: {e}"),
            },
        }
    })
}

/// The YAML reader's message without its own ` at line L column C`
/// positions, which count lines its way (the error names the line already).
fn without_yaml_positions(message: &str) -> String {
    const AT_LINE: &str = " at line ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(AT_LINE) {
        out.push_str(&rest[..at]);
        let after = &rest[at + AT_LINE.len()..];
        let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let line = digits(after);
        let column = after[line..]
            .strip_prefix(" column ")
            .map(digits)
            .filter(|&n| line > 0 && n > 0);
        match column {
            Some(n) => rest = &after[line + " column ".len() + n..],
            None => {
                out.push_str(AT_LINE);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The 1-based line and column (in characters) of a byte offset, counting
/// `\n`, `\r\n` and a lone `\r` as line breaks; an offset past the end (or
/// inside a character) is taken at the next character boundary.
fn line_and_column(text: &str, index: usize) -> (usize, usize) {
    let mut end = index.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let before = &text[..end];
    let bytes = before.as_bytes();
    let breaks = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count();
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    (breaks + 1, before[line_start..].chars().count() + 1)
}

/// Parses a document that is JSON, or else YAML: JSON when its first
/// non-blank character opens an object or array, or the file is `.json`.
pub fn parse_json_or_yaml(file: &Path, text: &str) -> Res<Json> {
    let json_like = matches!(text.trim_start().chars().next(), Some('{' | '['))
        || file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json_like {
        parse_document(file, text)
    } else {
        parse_yaml_document(file, text)
    }
}

/// Parses one line of a JSON Lines file.
pub fn parse_line(file: &Path, number: usize, line: &str) -> Res<Json> {
    Json::parse(line).map_err(|e| CatalogError {
        file: file.to_path_buf(),
        line: Some(number),
        field: ".".to_string(),
        message: format!("invalid JSON at column {}: {e}", e.column()),
    })
}

/// The non-blank lines of a text with their 1-based numbers.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`catalog_openapi`): the YAML reader counts NEL
    /// (U+0085) as a line break, so an error after some NELs was reported
    /// on a line past the end of the file.
    #[test]
    fn yaml_errors_are_on_lines_an_editor_shows() {
        let text = "openapi: 3.0.0\ninfo:\n  title: a\u{85}\u{85}\u{85}\u{85}b\u{85}c d\npaths\n";
        let err = parse_yaml_document(Path::new("api.yaml"), text).unwrap_err();
        assert!(err.message.contains("invalid YAML"), "{err}");
        // The reader stops at `c`, which it places on its line 8; here it
        // is on line 3 of 4, at column 17.
        assert_eq!(err.line, Some(3), "{err}");
        assert_eq!(
            err.message,
            "invalid YAML at column 17: could not find expected ':', while scanning a simple key",
            "{err}"
        );
        assert_eq!(
            without_yaml_positions("x at line 3 column 4, y at line 9 at line 1 column 2z"),
            "x, y at line 9z"
        );
    }

    #[test]
    fn lines_and_columns_of_byte_offsets() {
        let text = "ab\r\ncd\ref\ngé h";
        assert_eq!(line_and_column(text, 0), (1, 1));
        assert_eq!(line_and_column(text, 4), (2, 1));
        assert_eq!(line_and_column(text, 6), (2, 3));
        assert_eq!(line_and_column(text, 7), (3, 1));
        assert_eq!(line_and_column(text, 10), (4, 1));
        // After a two-byte `é`, inside it, and past the end.
        assert_eq!(line_and_column(text, 13), (4, 3));
        assert_eq!(line_and_column(text, 12), (4, 3));
        assert_eq!(line_and_column(text, 99), (4, 5));
    }

    #[test]
    fn objects_keep_document_order() {
        let json = Json::parse(r#"{"z":1,"a":[true,null],"m":{"y":"s","b":2.5}}"#).unwrap();
        let Json::Object(members) = &json else {
            panic!()
        };
        let keys: Vec<_> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a", "m"]);
        assert_eq!(
            json.to_value(),
            serde_json::json!({"z":1,"a":[true,null],"m":{"y":"s","b":2.5}})
        );
    }

    #[test]
    fn cursor_names_paths() {
        let json = Json::parse(r#"{"entries":[{"API":"x"},{"API":7},{"API":"  "}]}"#).unwrap();
        let ctx = Ctx {
            file: Path::new("f.json"),
            line: None,
        };
        let root = Node::root(&json, ctx, "");
        let items = root.key("entries").unwrap().items().unwrap();
        assert_eq!(items[0].req_str("API").unwrap(), "x");
        let err = items[1].req_str("API").unwrap_err();
        assert_eq!(err.field, "entries[1].API");
        assert!(err.message.contains("expected a string, found a number"));
        assert_eq!(items[2].req_str("API").unwrap_err().message, "empty");
        assert_eq!(
            items[0].req_str("Link").unwrap_err().field,
            "entries[0].Link"
        );
        assert_eq!(join("paths", "/pets/{id}"), r#"paths["/pets/{id}"]"#);
    }
}
