//! The Python values the official scorers handle ([`PyValue`]), their text
//! ([`PyStr`], code points with lone surrogates allowed), and Python's `==`
//! and dict insertion on them.
//!
//! Text is kept as code points, not as Rust `String`s, because a Python
//! string may hold lone surrogates (`"\ud800"` in JSON) and `str()`
//! comparisons must see them exactly as Python does.
//!
//! Dicts are built and compared through a hash of their keys that agrees
//! with [`py_eq`] ([`KeyIndex`], [`DictBuilder`]), so that a dict of n keys
//! costs O(n) expected key comparisons, not O(n²), however a model or a
//! file writes it.

use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Python's `str.isspace()` for one code point: what `str.strip()` and
/// `str.split()` remove and a `\s` of a `str` pattern matches (Unicode
/// white space and the separators U+001C to U+001F).
pub fn is_space(c: u32) -> bool {
    matches!(
        c,
        0x09..=0x0d
            | 0x1c..=0x20
            | 0x85
            | 0xa0
            | 0x1680
            | 0x2000..=0x200a
            | 0x2028
            | 0x2029
            | 0x202f
            | 0x205f
            | 0x3000
    )
}

/// [`is_space`] of a `char` (for `str::trim_matches`).
pub fn is_space_char(c: char) -> bool {
    is_space(u32::from(c))
}

/// A Python `str`: a sequence of code points, lone surrogates allowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct PyStr(pub Vec<u32>);

impl PyStr {
    /// The code points of a Rust string.
    pub fn new(text: &str) -> PyStr {
        PyStr(text.chars().map(u32::from).collect())
    }

    /// A Rust string; lone surrogates become U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        self.0
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect()
    }

    /// The index of the first lone surrogate (U+D800..U+DFFF, which JSON's
    /// `"\ud800"` gives Python and which UTF-8 cannot encode), if any.
    pub fn first_surrogate(&self) -> Option<usize> {
        self.0.iter().position(|c| (0xd800..=0xdfff).contains(c))
    }

    /// Python's `needle in self` for strings.
    pub fn contains(&self, needle: &[u32]) -> bool {
        find(&self.0, needle, 0).is_some()
    }

    /// Number of code points (Python's `len`).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for PyStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// The first index `>= from` where `needle` occurs in `haystack`.
pub fn find(haystack: &[u32], needle: &[u32], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return (from <= haystack.len()).then_some(from);
    }
    if haystack.len() < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&i| haystack[i..i + needle.len()] == *needle)
}

/// Code points of an ASCII or UTF-8 literal (for comparisons).
pub fn cps(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// A Python value of the kinds JSON and Python literals produce.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int`, kept as its decimal text (arbitrary precision, `-0` is `0`).
    Int(String),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(PyStr),
    /// A `list`.
    List(Vec<PyValue>),
    /// A `tuple` (only from Python literals).
    Tuple(Vec<PyValue>),
    /// A `dict` in insertion order, keys unique under Python equality.
    Dict(Vec<(PyValue, PyValue)>),
    /// A `set` (only from Python literals; not JSON-serialisable).
    Set(Vec<PyValue>),
    /// A `bytes` literal (only from Python literals; not JSON-serialisable).
    Bytes(Vec<u8>),
    /// A `complex` literal such as `1j` (not JSON-serialisable), or its
    /// negation: the imaginary part; the real part is a zero of the same
    /// sign (`-(1j)` is `(-0-1j)` in Python), all that literals and unary
    /// signs make.
    Complex(f64),
}

impl PyValue {
    /// Python's type name, as error messages print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
            PyValue::Bytes(_) => "bytes",
            PyValue::Complex(_) => "complex",
        }
    }

    /// The value of `key` in a dict, by Python equality.
    pub fn get(&self, key: &PyValue) -> Option<&PyValue> {
        match self {
            PyValue::Dict(entries) => entries.iter().find(|(k, _)| py_eq(k, key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of a string key in a dict.
    pub fn get_str(&self, key: &str) -> Option<&PyValue> {
        self.get(&PyValue::Str(PyStr::new(key)))
    }
}

/// Python's `==` for the values compared by the scorers (dict keys, API
/// names): numbers compare by value across `bool`/`int`/`float`.
pub fn py_eq(a: &PyValue, b: &PyValue) -> bool {
    use PyValue as P;
    match (a, b) {
        (P::None, P::None) => true,
        (P::Str(x), P::Str(y)) => x == y,
        (P::Bytes(x), P::Bytes(y)) => x == y,
        (P::List(x), P::List(y)) | (P::Tuple(x), P::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (P::Dict(x), P::Dict(y)) => {
            if x.len() != y.len() {
                return false;
            }
            if y.len() <= SCAN_MAX_KEYS {
                return x.iter().all(|(k, v)| b.get(k).is_some_and(|w| py_eq(v, w)));
            }
            let index = KeyIndex::over(y.iter().map(|(k, _)| k));
            x.iter().all(|(k, v)| {
                index
                    .find(k, |i| &y[i].0)
                    .is_some_and(|i| py_eq(v, &y[i].1))
            })
        }
        (P::Set(x), P::Set(y)) => {
            if x.len() != y.len() {
                return false;
            }
            if y.len() <= SCAN_MAX_KEYS {
                return x.iter().all(|p| y.iter().any(|q| py_eq(p, q)));
            }
            let index = KeyIndex::over(y.iter());
            x.iter().all(|p| index.find(p, |i| &y[i]).is_some())
        }
        (P::Complex(x), P::Complex(y)) => x == y,
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// A number as an exact-enough rational for equality: integers as i128 when
/// they fit, else compared through their text.
#[derive(Debug)]
enum Num {
    Int(i128),
    Big(String),
    Float(f64),
}

fn numeric(v: &PyValue) -> Option<NumView> {
    match v {
        PyValue::Bool(b) => Some(NumView(Num::Int(i128::from(*b)))),
        PyValue::Int(text) => Some(NumView(
            text.parse::<i128>()
                .map(Num::Int)
                .unwrap_or_else(|_| Num::Big(text.clone())),
        )),
        PyValue::Float(x) => Some(NumView(Num::Float(*x))),
        _ => None,
    }
}

struct NumView(Num);

impl PartialEq for NumView {
    fn eq(&self, other: &NumView) -> bool {
        match (&self.0, &other.0) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Big(a), Num::Big(b)) => a == b,
            (Num::Float(a), Num::Float(b)) => a == b,
            (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => {
                f.is_finite() && f.fract() == 0.0 && float_int_eq(*f, *i)
            }
            (Num::Big(t), Num::Float(f)) | (Num::Float(f), Num::Big(t)) => {
                // Only integral floats can equal an integer; compare digits.
                f.is_finite() && f.fract() == 0.0 && format!("{f:.0}") == *t
            }
            (Num::Int(_), Num::Big(_)) | (Num::Big(_), Num::Int(_)) => false,
        }
    }
}

fn float_int_eq(f: f64, i: i128) -> bool {
    // |f| < 2^127 fits i128 exactly when integral.
    f.abs() < 1.7e38 && (f as i128) == i
}

/// Code points to UTF-8 bytes; lone surrogates are encoded as three bytes
/// (generalised UTF-8), so distinct Python strings stay distinct.
pub fn to_utf8(text: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        match char::from_u32(c) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => out.extend_from_slice(&[
                0xe0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
        }
    }
    out
}

/// Dicts and sets at most this long are compared by scanning (hashing
/// their keys would cost more); longer ones through a [`KeyIndex`].
const SCAN_MAX_KEYS: usize = 8;

/// A hash of a value that agrees with [`py_eq`]: values that are `==` hash
/// alike (`1`, `1.0` and `True` too). `None` for a value that equals
/// nothing, itself included (a NaN, or a tuple or list holding one), which
/// is never looked up.
fn key_hash(v: &PyValue) -> Option<u64> {
    let mut h = DefaultHasher::new();
    hash_into(v, &mut h)?;
    Some(h.finish())
}

fn hash_into(v: &PyValue, h: &mut DefaultHasher) -> Option<()> {
    // Tags: 1 an integral number within i128, 2 one beyond (by its
    // digits, as `py_eq` compares them), 3 any other float.
    match v {
        PyValue::None => 0u8.hash(h),
        PyValue::Bool(b) => (1u8, i128::from(*b)).hash(h),
        PyValue::Int(text) => match text.parse::<i128>() {
            Ok(i) => (1u8, i).hash(h),
            Err(_) => (2u8, text.as_str()).hash(h),
        },
        PyValue::Float(x) if x.is_nan() => return None,
        PyValue::Float(x) if x.fract() == 0.0 => {
            // Integral and finite (`fract` of an infinity is NaN).
            if x.abs() < 1.7e38 {
                (1u8, *x as i128).hash(h)
            } else {
                (2u8, format!("{x:.0}").as_str()).hash(h)
            }
        }
        PyValue::Float(x) => (3u8, x.to_bits()).hash(h),
        PyValue::Complex(x) if x.is_nan() => return None,
        // `0.0 + 0.0` turns -0.0 into 0.0, which `==` equals.
        PyValue::Complex(x) => (4u8, (x + 0.0).to_bits()).hash(h),
        PyValue::Str(s) => (5u8, &s.0).hash(h),
        PyValue::Bytes(b) => (6u8, b).hash(h),
        PyValue::List(items) | PyValue::Tuple(items) => {
            (
                if matches!(v, PyValue::List(_)) {
                    7u8
                } else {
                    8u8
                },
                items.len(),
            )
                .hash(h);
            for item in items {
                hash_into(item, h)?;
            }
        }
        // Unhashable in Python: never a key of a dict built here; equal
        // ones have equal lengths.
        PyValue::Dict(entries) => (9u8, entries.len()).hash(h),
        PyValue::Set(items) => (10u8, items.len()).hash(h),
    }
    Some(())
}

/// No position (the end of a chain in [`KeyIndex`]).
const NONE: usize = usize::MAX;

/// The distinct keys of a sequence (a dict's keys, a set's items) by
/// `key_hash`: [`KeyIndex::find`] takes O(1) expected [`py_eq`]
/// comparisons. The keys themselves stay where they are; the index holds
/// their positions.
#[derive(Debug, Default)]
pub struct KeyIndex {
    /// The last position registered under each hash.
    heads: HashMap<u64, usize>,
    /// For each position, the one registered before it under the same hash
    /// ([`NONE`] for none, and for a position not registered).
    chain: Vec<usize>,
    /// `py_eq` calls made by [`KeyIndex::find`], for the tests that check
    /// the work stays linear.
    #[cfg(test)]
    comparisons: std::cell::Cell<usize>,
}

impl KeyIndex {
    /// The index of `keys`, positions numbered from 0; a key equal to an
    /// earlier one is not registered (its first position is found).
    pub fn over<'a>(keys: impl Iterator<Item = &'a PyValue>) -> KeyIndex {
        let keys: Vec<&PyValue> = keys.collect();
        let mut index = KeyIndex::default();
        for key in &keys {
            let hash = key_hash(key);
            let seen = hash.and_then(|h| index.find_hashed(h, key, |j| keys[j]));
            index.push(if seen.is_some() { None } else { hash });
        }
        index
    }

    /// The position of the registered key equal to `key`; `key_at(i)` is
    /// the key at position `i`.
    pub fn find<'a>(&self, key: &PyValue, key_at: impl Fn(usize) -> &'a PyValue) -> Option<usize> {
        self.find_hashed(key_hash(key)?, key, key_at)
    }

    fn find_hashed<'a>(
        &self,
        hash: u64,
        key: &PyValue,
        key_at: impl Fn(usize) -> &'a PyValue,
    ) -> Option<usize> {
        let mut at = self.heads.get(&hash).copied().unwrap_or(NONE);
        while at != NONE {
            #[cfg(test)]
            self.comparisons.set(self.comparisons.get() + 1);
            if py_eq(key_at(at), key) {
                return Some(at);
            }
            at = self.chain[at];
        }
        None
    }

    /// Registers the next position under `hash` (`None`: not registered,
    /// the key equals nothing or an earlier key).
    fn push(&mut self, hash: Option<u64>) {
        let position = self.chain.len();
        let previous = match hash {
            Some(h) => self.heads.insert(h, position).unwrap_or(NONE),
            None => NONE,
        };
        self.chain.push(previous);
    }
}

/// A dict built as Python builds one: [`DictBuilder::insert`] of an
/// existing key keeps its position and takes the new value; each insertion
/// takes O(1) expected key comparisons.
#[derive(Debug, Default)]
pub struct DictBuilder {
    entries: Vec<(PyValue, PyValue)>,
    index: KeyIndex,
}

impl DictBuilder {
    /// An empty dict.
    pub fn new() -> DictBuilder {
        DictBuilder::default()
    }

    /// A dict holding `entries` (a dict's, so keys already unique), to
    /// insert more into.
    pub fn from_entries(entries: Vec<(PyValue, PyValue)>) -> DictBuilder {
        let index = KeyIndex::over(entries.iter().map(|(k, _)| k));
        DictBuilder { entries, index }
    }

    /// `d[key] = value`.
    pub fn insert(&mut self, key: PyValue, value: PyValue) {
        let hash = key_hash(&key);
        let entries = &self.entries;
        if let Some(i) = hash.and_then(|h| self.index.find_hashed(h, &key, |i| &entries[i].0)) {
            self.entries[i].1 = value;
            return;
        }
        self.index.push(hash);
        self.entries.push((key, value));
    }

    /// The entries, in insertion order.
    pub fn finish(self) -> Vec<(PyValue, PyValue)> {
        self.entries
    }

    /// `py_eq` calls made so far.
    #[cfg(test)]
    fn comparisons(&self) -> usize {
        self.index.comparisons.get()
    }
}

/// `str(int(text))` for an integer literal: no sign for zero, no leading zeros.
pub(crate) fn normalize_int(text: &str) -> String {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        "0".into()
    } else if neg {
        format!("-{digits}")
    } else {
        digits.into()
    }
}

/// CPython's limit on the digits of an `int` read from text (3.11+).
pub const INT_MAX_STR_DIGITS: usize = 4300;

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> PyValue {
        PyValue::Int(i.to_string())
    }

    fn s(text: &str) -> PyValue {
        PyValue::Str(PyStr::new(text))
    }

    /// Python's insertion rule, by scanning (the reference).
    fn scanned(pairs: &[(PyValue, PyValue)]) -> Vec<(PyValue, PyValue)> {
        let mut out: Vec<(PyValue, PyValue)> = Vec::new();
        for (k, v) in pairs.iter().cloned() {
            match out.iter_mut().find(|(x, _)| py_eq(x, &k)) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        out
    }

    fn built(pairs: &[(PyValue, PyValue)]) -> Vec<(PyValue, PyValue)> {
        let mut d = DictBuilder::new();
        for (k, v) in pairs.iter().cloned() {
            d.insert(k, v);
        }
        d.finish()
    }

    /// Keys `==` in Python across types, and some that only look alike.
    fn tricky_keys() -> Vec<PyValue> {
        let big = "1".repeat(50);
        vec![
            int(1),
            PyValue::Float(1.0),
            PyValue::Bool(true),
            s("1"),
            int(0),
            PyValue::Float(-0.0),
            PyValue::Bool(false),
            PyValue::Float(0.5),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NAN),
            PyValue::Complex(0.0),
            PyValue::Complex(-0.0),
            PyValue::Complex(f64::NAN),
            PyValue::None,
            PyValue::Int(big.clone()),
            PyValue::Float(big.parse().unwrap()),
            PyValue::Int("170141183460469231731687303715884105728".into()),
            PyValue::Float(2f64.powi(127)),
            PyValue::Int(format!("{:.0}", 1.7e38)),
            PyValue::Float(1.7e38),
            PyValue::Tuple(vec![int(1), s("a")]),
            PyValue::Tuple(vec![PyValue::Float(1.0), s("a")]),
            PyValue::Tuple(vec![PyValue::Float(f64::NAN)]),
            PyValue::List(vec![int(1)]),
            PyValue::Bytes(b"1".to_vec()),
        ]
    }

    /// `str.isspace()` is Unicode's White_Space plus the four separators
    /// U+001C to U+001F, and nothing else (CPython 3.12, every code point).
    #[test]
    fn isspace_is_white_space_and_the_separators() {
        for c in 0..=0x10_ffff_u32 {
            let expected = char::from_u32(c)
                .is_some_and(|ch| ch.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&ch));
            assert_eq!(is_space(c), expected, "U+{c:04X}");
        }
        assert!(!is_space(0x200b), "a zero-width space is not white space");
    }

    #[test]
    fn dict_builder_keeps_pythons_insertion_rule() {
        // `{1: 'a', True: 'b', 1.0: 'c', 'k': 1}` is `{1: 'c', 'k': 1}`.
        let got = built(&[
            (int(1), s("a")),
            (PyValue::Bool(true), s("b")),
            (PyValue::Float(1.0), s("c")),
            (s("k"), int(1)),
        ]);
        assert_eq!(got, vec![(int(1), s("c")), (s("k"), int(1))]);
        // Every ordered pair of tricky keys, and each sequence of them with
        // repeats, gives what scanning gives.
        let keys = tricky_keys();
        for a in &keys {
            for b in &keys {
                let pairs = [
                    (a.clone(), int(1)),
                    (b.clone(), int(2)),
                    (a.clone(), int(3)),
                ];
                assert_eq!(
                    format!("{:?}", built(&pairs)),
                    format!("{:?}", scanned(&pairs))
                );
            }
        }
        let pairs: Vec<(PyValue, PyValue)> = (0..300)
            .map(|i| (keys[(i * 7) % keys.len()].clone(), int(i as i64)))
            .collect();
        assert_eq!(
            format!("{:?}", built(&pairs)),
            format!("{:?}", scanned(&pairs))
        );
    }

    #[test]
    fn a_wide_dict_takes_linear_key_comparisons() {
        // 200,000 distinct keys of four kinds, then each again: scanning
        // makes about 2 * 10^10 comparisons; the index about one per repeat.
        let n = 200_000;
        let key = |i: usize| match i % 4 {
            0 => int(i as i64),
            1 => s(&format!("k{i}")),
            2 => PyValue::Float(i as f64 + 0.5),
            _ => PyValue::Tuple(vec![int(i as i64), s("t")]),
        };
        let mut d = DictBuilder::new();
        for i in 0..n {
            d.insert(key(i), int(0));
        }
        for i in 0..n {
            d.insert(key(i), int(1));
        }
        // A float equal to an int key replaces the int key's value.
        d.insert(PyValue::Float(4.0), int(2));
        let comparisons = d.comparisons();
        let entries = d.finish();
        assert_eq!(entries.len(), n);
        assert!(comparisons <= 2 * n + 1, "{comparisons} comparisons");
        assert_eq!(entries[4], (int(4), int(2)));
        assert_eq!(entries[n - 1].1, int(1));
    }

    #[test]
    fn nan_keys_are_never_merged_nor_chained() {
        let mut d = DictBuilder::new();
        for _ in 0..50_000 {
            d.insert(PyValue::Float(f64::NAN), int(0));
        }
        assert_eq!(d.comparisons(), 0);
        assert_eq!(d.finish().len(), 50_000);
    }

    #[test]
    fn wide_dicts_and_sets_compare_through_the_index() {
        let n = 10_000;
        let x: Vec<(PyValue, PyValue)> = (0..n).map(|i| (int(i), int(i))).collect();
        let mut y: Vec<(PyValue, PyValue)> = (0..n)
            .rev()
            .map(|i| (PyValue::Float(i as f64), PyValue::Float(i as f64)))
            .collect();
        assert!(py_eq(&PyValue::Dict(x.clone()), &PyValue::Dict(y.clone())));
        y[0].1 = int(-1);
        assert!(!py_eq(&PyValue::Dict(x.clone()), &PyValue::Dict(y.clone())));
        y[0] = (s("other"), int(n - 1));
        assert!(!py_eq(&PyValue::Dict(x), &PyValue::Dict(y)));
        let a: Vec<PyValue> = (0..n).map(int).collect();
        let mut b: Vec<PyValue> = (0..n).rev().map(|i| PyValue::Float(i as f64)).collect();
        assert!(py_eq(&PyValue::Set(a.clone()), &PyValue::Set(b.clone())));
        b[0] = s("x");
        assert!(!py_eq(&PyValue::Set(a), &PyValue::Set(b)));
        let nan = || PyValue::Set(vec![PyValue::Float(f64::NAN); 10]);
        assert!(!py_eq(&nan(), &nan()));
    }
}
