//! Python built-in operations the API classes apply to model-written
//! arguments of any type, with CPython 3.11's exception texts: truth value,
//! `in`, iteration, hashing for dict keys, `d.get(k)`, `d[k]` and
//! `d[k] = v` (with their `KeyError` / `TypeError` texts), `str.splitlines`,
//! `str.split()`, a linear-time substring search, and f-string texts
//! ([`Text`]). Numbers (and iteration) are in `py_num`.

use crate::benchmarks::python::value::is_space;
use crate::benchmarks::python::value::py_eq;
use crate::benchmarks::python::{PyStr, PyValue, py_repr, py_str};

/// Python's truth value (`bool(v)`), the decoder's rule.
pub(super) use crate::benchmarks::bfcl::arith::truthy;

/// `str(v)` as a Rust string (lone surrogates become U+FFFD).
pub(super) fn str_text(v: &PyValue) -> String {
    PyStr(py_str(v)).to_string_lossy()
}

/// `repr(v)` as a Rust string.
pub(super) fn repr_text(v: &PyValue) -> String {
    PyStr(py_repr(v)).to_string_lossy()
}

/// A `str` value.
pub(super) fn text(s: &str) -> PyValue {
    PyValue::Str(PyStr::new(s))
}

/// A dict with `str` keys, in order.
pub(super) fn dict<const N: usize>(entries: [(&str, PyValue); N]) -> PyValue {
    PyValue::Dict(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

/// An `int` value.
pub(super) fn int(i: i128) -> PyValue {
    PyValue::Int(i.to_string())
}

/// `AttributeError: 'int' object has no attribute 'split'`.
pub(super) fn no_attribute(v: &PyValue, name: &str) -> String {
    format!("'{}' object has no attribute '{name}'", v.type_name())
}

/// `TypeError: unhashable type: 'list'` when `v` cannot be a dict key or
/// set item.
pub(super) fn hashable(v: &PyValue) -> Result<(), String> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Err(format!("unhashable type: '{}'", v.type_name()))
        }
        PyValue::Tuple(items) => items.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

/// The position of `key` among a dict's keys (`key in d`), or the
/// `TypeError` of an unhashable key.
pub(super) fn key_position<'a, V: 'a>(
    entries: impl IntoIterator<Item = &'a (PyValue, V)>,
    key: &PyValue,
) -> Result<Option<usize>, String> {
    hashable(key)?;
    Ok(entries.into_iter().position(|(k, _)| py_eq(k, key)))
}

/// `item in container`.
pub(super) fn contains(container: &PyValue, item: &PyValue) -> Result<bool, String> {
    match container {
        PyValue::Str(s) => match item {
            PyValue::Str(needle) => Ok(Finder::new(&needle.0).is_in(&s.0)),
            other => Err(format!(
                "'in <string>' requires string as left operand, not {}",
                other.type_name()
            )),
        },
        PyValue::List(items) | PyValue::Tuple(items) => Ok(items.iter().any(|x| py_eq(x, item))),
        PyValue::Set(items) => {
            hashable(item)?;
            Ok(items.iter().any(|x| py_eq(x, item)))
        }
        PyValue::Dict(entries) => Ok(key_position(entries, item)?.is_some()),
        PyValue::Bytes(_) => Err(format!(
            "a bytes-like object is required, not '{}'",
            item.type_name()
        )),
        other => Err(format!(
            "argument of type '{}' is not iterable",
            other.type_name()
        )),
    }
}

/// `len(v)`.
pub(super) fn len(v: &PyValue) -> Result<usize, String> {
    match v {
        PyValue::Str(s) => Ok(s.len()),
        PyValue::Bytes(b) => Ok(b.len()),
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => Ok(items.len()),
        PyValue::Dict(entries) => Ok(entries.len()),
        other => Err(format!(
            "object of type '{}' has no len()",
            other.type_name()
        )),
    }
}

/// Whether `str.splitlines` breaks a line at this code point.
fn is_line_break(c: u32) -> bool {
    matches!(
        c,
        0x0a | 0x0b | 0x0c | 0x0d | 0x1c | 0x1d | 0x1e | 0x85 | 0x2028 | 0x2029
    )
}

/// `str.splitlines()`: the lines without their ends (`\r\n` is one end).
pub(super) fn splitlines(s: &[u32]) -> Vec<&[u32]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < s.len() {
        if is_line_break(s[i]) {
            lines.push(&s[start..i]);
            if s[i] == 0x0d && s.get(i + 1) == Some(&0x0a) {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// `len(s.split())`.
pub(super) fn count_words(s: &[u32]) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for &c in s {
        let space = is_space(c);
        if !space && !in_word {
            count += 1;
        }
        in_word = !space;
    }
    count
}

/// `'\n'.join(parts)` of code-point strings.
pub(super) fn join_lines<'a>(parts: impl IntoIterator<Item = &'a [u32]>) -> PyStr {
    let mut out = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(0x0a);
        }
        out.extend_from_slice(part);
    }
    PyStr(out)
}

/// `needle in haystack` for strings in time linear in both (Knuth-Morris-
/// Pratt): prepared once for a needle searched in many haystacks.
pub(super) struct Finder<'a> {
    needle: &'a [u32],
    /// For each prefix length `i + 1`, the length of its longest proper
    /// border.
    border: Vec<usize>,
}

impl<'a> Finder<'a> {
    /// Prepares the search for `needle`.
    pub(super) fn new(needle: &'a [u32]) -> Finder<'a> {
        let mut border = vec![0; needle.len()];
        let mut k = 0;
        for i in 1..needle.len() {
            while k > 0 && needle[i] != needle[k] {
                k = border[k - 1];
            }
            if needle[i] == needle[k] {
                k += 1;
            }
            border[i] = k;
        }
        Finder { needle, border }
    }

    /// Whether the needle occurs in `haystack`.
    pub(super) fn is_in(&self, haystack: &[u32]) -> bool {
        if self.needle.is_empty() {
            return true;
        }
        let mut k = 0;
        for &c in haystack {
            while k > 0 && c != self.needle[k] {
                k = self.border[k - 1];
            }
            if c == self.needle[k] {
                k += 1;
                if k == self.needle.len() {
                    return true;
                }
            }
        }
        false
    }
}

/// `key in container` for a dict-like state value; a non-dict container
/// has no keys here (its text of error is the caller's).
pub(super) fn dict_get<'a>(
    container: &'a PyValue,
    key: &PyValue,
) -> Result<Option<&'a PyValue>, String> {
    match container {
        PyValue::Dict(entries) => Ok(key_position(entries, key)?.map(|i| &entries[i].1)),
        other => {
            hashable(key)?;
            Err(no_attribute(other, "get"))
        }
    }
}

/// `d[key] = value`: an existing key keeps its place.
pub(super) fn dict_set(
    entries: &mut Vec<(PyValue, PyValue)>,
    key: PyValue,
    value: PyValue,
) -> Result<(), String> {
    match key_position(entries.iter(), &key)? {
        Some(i) => entries[i].1 = value,
        None => entries.push((key, value)),
    }
    Ok(())
}

/// `v == "text"`.
pub(super) fn same_text(v: &PyValue, text: &str) -> bool {
    matches!(v, PyValue::Str(s) if s.0.iter().copied().eq(text.chars().map(u32::from)))
}

/// `item in items` for a list: the first position of an equal item.
pub(super) fn list_position(items: &[PyValue], item: &PyValue) -> Option<usize> {
    items.iter().position(|x| py_eq(x, item))
}

/// `str(KeyError(key))`: the key's `repr()`.
pub(super) fn key_error(key: &str) -> String {
    format!("'{key}'")
}

/// `value[key]` for a string key: a dict's value, else Python's error.
pub(super) fn get_item<'a>(value: &'a PyValue, key: &str) -> Result<&'a PyValue, String> {
    match value {
        PyValue::Dict(entries) => entries
            .iter()
            .find(|(k, _)| matches!(k, PyValue::Str(s) if s.0.iter().copied().eq(key.chars().map(u32::from))))
            .map(|(_, v)| v)
            .ok_or_else(|| key_error(key)),
        PyValue::Str(_) => Err("string indices must be integers, not 'str'".into()),
        PyValue::List(_) => Err("list indices must be integers or slices, not str".into()),
        PyValue::Tuple(_) => Err("tuple indices must be integers or slices, not str".into()),
        PyValue::Bytes(_) => Err("byte indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object is not subscriptable", other.type_name())),
    }
}

/// `container[key] = value` for a string key (an existing key keeps its
/// place), or Python's error for a container that is not a dict.
pub(super) fn set_item(container: &mut PyValue, key: &str, value: PyValue) -> Result<(), String> {
    dict_set(dict_entries_mut(container)?, text(key), value)
}

/// The mutable entries of a dict state value for `value[key] = ...`, or
/// Python's error for another type.
pub(super) fn dict_entries_mut(
    value: &mut PyValue,
) -> Result<&mut Vec<(PyValue, PyValue)>, String> {
    match value {
        PyValue::Dict(entries) => Ok(entries),
        other => Err(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        )),
    }
}

/// A Python `str` built from pieces, as an f-string builds one.
#[derive(Debug, Default)]
pub(super) struct Text(Vec<u32>);

impl Text {
    /// An empty text.
    pub(super) fn new() -> Text {
        Text::default()
    }

    /// Appends literal text.
    pub(super) fn text(mut self, literal: &str) -> Text {
        self.0.extend(literal.chars().map(u32::from));
        self
    }

    /// Appends `str(v)`.
    pub(super) fn v(mut self, v: &PyValue) -> Text {
        self.0.extend(py_str(v));
        self
    }

    /// The `str` value.
    pub(super) fn value(self) -> PyValue {
        PyValue::Str(PyStr(self.0))
    }
}

/// What the classes' tests share: a call as the executor runs it.
#[cfg(test)]
pub(super) mod testing {
    use crate::benchmarks::bfcl::multi_turn::api::ApiClass;
    use crate::benchmarks::python::literal_eval;

    /// The result string of `method(*args)`, arguments written as Python
    /// literals, the omitted ones taking their defaults.
    pub fn run(api: &mut dyn ApiClass, method: &str, args: &[&str]) -> String {
        let sig = api.methods().iter().find(|s| s.name == method).unwrap();
        let mut values: Vec<_> = args.iter().map(|a| literal_eval(a).unwrap()).collect();
        for p in &sig.params[args.len()..] {
            values.push(literal_eval(p.default.unwrap()).unwrap());
        }
        match api.call(method, values) {
            Ok(output) => output.result_string(),
            Err(e) => format!("Error during execution: {e}"),
        }
    }

    /// [`run`] with the arguments written as one tuple literal, such as
    /// `"('tok', [1])"`.
    pub fn run_tuple(api: &mut dyn ApiClass, method: &str, args: &str) -> String {
        let crate::benchmarks::python::PyValue::Tuple(items) = literal_eval(args).unwrap() else {
            panic!("not a tuple: {args}")
        };
        let texts: Vec<String> = items.iter().map(super::repr_text).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        run(api, method, &texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> PyValue {
        crate::benchmarks::python::literal_eval(text).unwrap()
    }
    use crate::benchmarks::python::cps;

    fn lines(s: &str) -> Vec<String> {
        splitlines(&cps(s))
            .into_iter()
            .map(|l| PyStr(l.to_vec()).to_string_lossy())
            .collect()
    }

    #[test]
    fn hashability_follows_python() {
        assert_eq!(
            hashable(&lit("(1, [2])")).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert!(hashable(&lit("(1, 'a')")).is_ok());
    }

    // Expected values are CPython 3.11's for the same calls.
    #[test]
    fn splitlines_and_split_follow_python() {
        assert_eq!(
            lines("a\r\nb\rc\n\nd\u{2028}e\n"),
            ["a", "b", "c", "", "d", "e"]
        );
        assert!(lines("").is_empty());
        assert_eq!(lines("\n"), [""]);
        assert_eq!(count_words(&cps("  a\u{a0}b\tc\u{3000} ")), 3);
        assert_eq!(count_words(&cps(" \n ")), 0);
    }

    #[test]
    fn the_finder_finds_every_occurrence_kind() {
        let hay = cps("aabaabaaab");
        for (needle, found) in [
            ("aaab", true),
            ("abaaa", true),
            ("aabaaab", true),
            ("bb", false),
            ("aaaa", false),
            ("", true),
            ("b", true),
        ] {
            assert_eq!(Finder::new(&cps(needle)).is_in(&hay), found, "{needle}");
        }
    }

    #[test]
    fn membership_raises_pythons_type_errors() {
        let int = PyValue::Int("5".into());
        assert_eq!(
            contains(&int, &text("/")).unwrap_err(),
            "argument of type 'int' is not iterable"
        );
        assert_eq!(
            contains(&text("ab"), &int).unwrap_err(),
            "'in <string>' requires string as left operand, not int"
        );
        let list = PyValue::List(vec![text("/")]);
        assert!(contains(&list, &text("/")).unwrap());
        let d = PyValue::Dict(vec![(text("a"), PyValue::None)]);
        assert_eq!(contains(&d, &list).unwrap_err(), "unhashable type: 'list'");
    }

    #[test]
    fn unhashable_keys_and_bad_subscripts_read_as_python() {
        let d = lit("{'a': 1}");
        assert_eq!(
            dict_get(&d, &lit("(1, [2])")).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert_eq!(dict_get(&d, &lit("'a'")).unwrap(), Some(&lit("1")));
        assert_eq!(get_item(&d, "b").unwrap_err(), "'b'");
        assert_eq!(
            get_item(&lit("'Buy'"), "status").unwrap_err(),
            "string indices must be integers, not 'str'"
        );
    }
}
