//! The pieces of Python's behaviour that the travel and ticket classes
//! apply to model-written values: truth, hashing, `==`-free numeric
//! arithmetic and `<` on `bool`/`int`/`float` with CPython 3.11's
//! `TypeError` texts, `float()`, `round(x, 2)`, subscripting
//! with its `KeyError`, and `datetime.strptime(s, "%Y-%m-%d")`.
//!
//! Limits (each a clear error or a documented approximation, never a
//! panic): integers are exact within 128 bits; an `int` result beyond that
//! raises `integer result beyond 128 bits (itc limit)` where Python would
//! go on with a bigger integer. Digits are ASCII digits: Python also takes
//! other Unicode decimal digits in `float()`, `int()`, `str.isdigit` and
//! `strptime`'s `\d` (a model practically never writes them).

use super::py_ops::{int, text};
use crate::ood::python::value::py_eq;
use crate::ood::python::{PyStr, PyValue, py_repr, py_str};

/// `str(v)` as a Rust string (lone surrogates become U+FFFD).
pub fn str_text(v: &PyValue) -> String {
    PyStr(py_str(v)).to_string_lossy()
}

/// `repr(v)` as a Rust string.
pub fn repr_text(v: &PyValue) -> String {
    PyStr(py_repr(v)).to_string_lossy()
}

/// `v == text` for a `str` literal (only a `str` equals one).
pub fn is_str(v: &PyValue, text: &str) -> bool {
    matches!(v, PyValue::Str(x) if *x == PyStr::new(text))
}

/// `container[key]` for a string key: the value, or the exception text
/// (`KeyError` is `str()`-ed as the key's `repr`).
pub fn subscript<'a>(container: &'a PyValue, key: &str) -> Result<&'a PyValue, String> {
    match container {
        PyValue::Dict(_) => container.get_str(key).ok_or_else(|| repr_text(&text(key))),
        PyValue::List(_) => Err("list indices must be integers or slices, not str".into()),
        PyValue::Tuple(_) => Err("tuple indices must be integers or slices, not str".into()),
        PyValue::Str(_) => Err("string indices must be integers, not 'str'".into()),
        PyValue::Bytes(_) => Err("byte indices must be integers or slices, not str".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        )),
    }
}

/// `container[key] = value` on a dict (an existing key keeps its place).
pub fn set_item(container: &mut PyValue, key: &str, value: PyValue) -> Result<(), String> {
    match container {
        PyValue::Dict(entries) => {
            let k = text(key);
            match entries.iter_mut().find(|(e, _)| py_eq(e, &k)) {
                Some(slot) => slot.1 = value,
                None => entries.push((k, value)),
            }
            Ok(())
        }
        other => Err(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        )),
    }
}

/// A number: `bool` and `int` as integers (within 128 bits), `float`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
}

/// What an operand is, for the arithmetic below.
enum Operand {
    Num(Num),
    /// An `int` beyond 128 bits, as its decimal text.
    Big(String),
    Other,
}

fn operand(v: &PyValue) -> Operand {
    match v {
        PyValue::Bool(b) => Operand::Num(Num::Int(i128::from(*b))),
        PyValue::Int(text) => match text.parse::<i128>() {
            Ok(i) => Operand::Num(Num::Int(i)),
            Err(_) => Operand::Big(text.clone()),
        },
        PyValue::Float(x) => Operand::Num(Num::Float(*x)),
        _ => Operand::Other,
    }
}

impl Num {
    /// The value as a Python value (`int` or `float`).
    pub fn value(self) -> PyValue {
        match self {
            Num::Int(i) => int(i),
            Num::Float(x) => PyValue::Float(x),
        }
    }

    /// `float(self)` (exact conversion, rounded to nearest even).
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(x) => x,
        }
    }
}

const TOO_BIG: &str = "integer result beyond 128 bits (itc limit)";
const INT_TO_FLOAT: &str = "int too large to convert to float";

/// `float(big)` for an integer beyond 128 bits.
fn big_to_f64(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(INT_TO_FLOAT.into()),
    }
}

/// An arithmetic operator of the classes' code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
        }
    }
}

/// `a <op> b` (`a <op>= b` when `in_place`, which only changes the error
/// text) on numbers, or the `TypeError` / `OverflowError` text.
pub fn arith(op: Op, a: &PyValue, b: &PyValue, in_place: bool) -> Result<Num, String> {
    let unsupported = || {
        format!(
            "unsupported operand type(s) for {}{}: '{}' and '{}'",
            op.symbol(),
            if in_place { "=" } else { "" },
            a.type_name(),
            b.type_name()
        )
    };
    let float_of = |o: &Operand| -> Result<f64, String> {
        match o {
            Operand::Num(n) => Ok(n.to_f64()),
            Operand::Big(t) => big_to_f64(t),
            Operand::Other => Err(unsupported()),
        }
    };
    let (x, y) = (operand(a), operand(b));
    match (&x, &y) {
        (Operand::Other, _) | (_, Operand::Other) => Err(unsupported()),
        (Operand::Num(Num::Int(i)), Operand::Num(Num::Int(j))) => match op {
            Op::Add => i.checked_add(*j),
            Op::Sub => i.checked_sub(*j),
            Op::Mul => i.checked_mul(*j),
        }
        .map(Num::Int)
        .ok_or_else(|| TOO_BIG.to_string()),
        (Operand::Num(Num::Float(_)), _) | (_, Operand::Num(Num::Float(_))) => {
            let (p, q) = (float_of(&x)?, float_of(&y)?);
            Ok(Num::Float(match op {
                Op::Add => p + q,
                Op::Sub => p - q,
                Op::Mul => p * q,
            }))
        }
        _ => Err(TOO_BIG.into()),
    }
}

/// `a / b` on numbers: an `int` quotient correctly rounded as Python
/// rounds it, or the exception text.
pub fn true_divide(a: &PyValue, b: &PyValue) -> Result<f64, String> {
    let (x, y) = (operand(a), operand(b));
    let float_of = |o: &Operand| match o {
        Operand::Num(n) => Ok(n.to_f64()),
        Operand::Big(t) => big_to_f64(t),
        Operand::Other => Err(String::new()),
    };
    match (&x, &y) {
        (Operand::Other, _) | (_, Operand::Other) => Err(format!(
            "unsupported operand type(s) for /: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
        (Operand::Num(Num::Int(i)), Operand::Num(Num::Int(j))) => {
            if *j == 0 {
                return Err("division by zero".into());
            }
            Ok(int_ratio(*i, *j))
        }
        (Operand::Num(Num::Float(_)), _) | (_, Operand::Num(Num::Float(_))) => {
            let (p, q) = (float_of(&x)?, float_of(&y)?);
            if q == 0.0 {
                return Err("float division by zero".into());
            }
            Ok(p / q)
        }
        _ => Err(TOO_BIG.into()),
    }
}

/// `i / j` for integers, correctly rounded (as CPython's `long_true_divide`).
fn int_ratio(i: i128, j: i128) -> f64 {
    const EXACT: u128 = 1 << 53;
    let (n, d) = (i.unsigned_abs(), j.unsigned_abs());
    let negative = (i < 0) != (j < 0);
    let magnitude = if n <= EXACT && d <= EXACT {
        n as f64 / d as f64
    } else {
        // Long division to at least 64 quotient bits, then one sticky bit:
        // the u128 -> f64 conversion then rounds as the exact ratio would.
        let (mut q, mut r) = (n / d, n % d);
        let mut shift = 0i32;
        while q < (1u128 << 64) && shift < 1100 {
            let (r2, carry) = r.overflowing_shl(1);
            let bit = carry || r2 >= d || (r >> 127) == 1;
            r = if bit { r2.wrapping_sub(d) } else { r2 };
            q = (q << 1) | u128::from(bit);
            shift += 1;
        }
        if r != 0 {
            q = (q << 1) | 1;
            shift += 1;
        }
        scale(q as f64, -shift)
    };
    if negative { -magnitude } else { magnitude }
}

/// `x * 2**e` for a value whose result stays normal here.
fn scale(mut x: f64, mut e: i32) -> f64 {
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// `a < b`, or the `TypeError` text.
pub fn less_than(a: &PyValue, b: &PyValue) -> Result<bool, String> {
    let unsupported = || {
        format!(
            "'<' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )
    };
    match (a, b) {
        (PyValue::Str(x), PyValue::Str(y)) => return Ok(x.0 < y.0),
        (PyValue::Bytes(x), PyValue::Bytes(y)) => return Ok(x < y),
        _ => {}
    }
    match (operand(a), operand(b)) {
        (Operand::Num(x), Operand::Num(y)) => Ok(num_less(x, y)),
        (Operand::Other, _) | (_, Operand::Other) => Err(unsupported()),
        (Operand::Big(x), Operand::Big(y)) => Ok(big_less(&x, &y)),
        (Operand::Big(x), Operand::Num(Num::Int(_))) => Ok(x.starts_with('-')),
        (Operand::Num(Num::Int(_)), Operand::Big(y)) => Ok(!y.starts_with('-')),
        // Compared through the big integer's nearest float: exact unless
        // the two round to the same float.
        (Operand::Big(x), Operand::Num(Num::Float(f))) => Ok(big_approx(&x) < f),
        (Operand::Num(Num::Float(f)), Operand::Big(y)) => Ok(f < big_approx(&y)),
    }
}

fn big_approx(text: &str) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

fn big_less(x: &str, y: &str) -> bool {
    let (xn, yn) = (x.starts_with('-'), y.starts_with('-'));
    let (xd, yd) = (x.trim_start_matches('-'), y.trim_start_matches('-'));
    let magnitude_less = (xd.len(), xd) < (yd.len(), yd);
    match (xn, yn) {
        (true, false) => true,
        (false, true) => false,
        (false, false) => magnitude_less,
        (true, true) => (yd.len(), yd) < (xd.len(), xd),
    }
}

/// `x < y` on numbers, exact between `int` and `float`.
pub fn num_less(x: Num, y: Num) -> bool {
    match (x, y) {
        (Num::Int(i), Num::Int(j)) => i < j,
        (Num::Float(p), Num::Float(q)) => p < q,
        (Num::Int(i), Num::Float(f)) => int_float_cmp(i, f) == Some(std::cmp::Ordering::Less),
        (Num::Float(f), Num::Int(i)) => int_float_cmp(i, f) == Some(std::cmp::Ordering::Greater),
    }
}

fn int_float_cmp(i: i128, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0; // 2**127
    if f.is_nan() {
        return None;
    }
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i128)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        other => Some(other),
    }
}

/// `float(v)`: the value, or the exception text.
pub fn to_float(v: &PyValue) -> Result<f64, String> {
    match v {
        PyValue::Bool(b) => Ok(f64::from(u8::from(*b))),
        PyValue::Int(text) => match text.parse::<i128>() {
            Ok(i) => Ok(i as f64),
            Err(_) => big_to_f64(text),
        },
        PyValue::Float(x) => Ok(*x),
        PyValue::Str(text) => parse_float(&text.0)
            .ok_or_else(|| format!("could not convert string to float: {}", repr_text(v))),
        PyValue::Bytes(bytes) => {
            let cps: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
            parse_float(&cps)
                .ok_or_else(|| format!("could not convert string to float: {}", repr_text(v)))
        }
        other => Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            other.type_name()
        )),
    }
}

/// Python's `str.isspace` for one code point.
fn is_py_space(c: u32) -> bool {
    matches!(c, 0x1c..=0x1f) || char::from_u32(c).is_some_and(char::is_whitespace)
}

/// Python's `float(str)` syntax: surrounding white space, a sign, `inf`,
/// `infinity`, `nan` in any case, or digits with single underscores
/// between them, a point, an exponent.
fn parse_float(text: &[u32]) -> Option<f64> {
    let start = text.iter().position(|&c| !is_py_space(c))?;
    let end = text.iter().rposition(|&c| !is_py_space(c))? + 1;
    let body: String = text[start..end]
        .iter()
        .map(|&c| char::from_u32(c).filter(char::is_ascii))
        .collect::<Option<String>>()?;
    let (negative, unsigned) = match body.as_bytes().first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body.as_str()),
    };
    let lower = unsigned.to_ascii_lowercase();
    let magnitude = match lower.as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => parse_decimal(unsigned)?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `digits[.digits][e[sign]digits]` with `_` only between two digits.
fn parse_decimal(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut cleaned = String::with_capacity(text.len());
    let mut mantissa_digits = 0usize;
    let mut i = 0;
    let digits = |i: &mut usize, cleaned: &mut String| -> usize {
        let mut n = 0;
        while *i < bytes.len() {
            let c = bytes[*i];
            if c.is_ascii_digit() {
                cleaned.push(c as char);
                n += 1;
            } else if c == b'_' && n > 0 && bytes.get(*i + 1).is_some_and(u8::is_ascii_digit) {
            } else {
                break;
            }
            *i += 1;
        }
        n
    };
    mantissa_digits += digits(&mut i, &mut cleaned);
    if bytes.get(i) == Some(&b'.') {
        cleaned.push('.');
        i += 1;
        mantissa_digits += digits(&mut i, &mut cleaned);
    }
    if mantissa_digits == 0 {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        cleaned.push('e');
        i += 1;
        if let Some(&sign @ (b'+' | b'-')) = bytes.get(i) {
            cleaned.push(sign as char);
            i += 1;
        }
        if digits(&mut i, &mut cleaned) == 0 {
            return None;
        }
    }
    if i != bytes.len() {
        return None;
    }
    cleaned.parse::<f64>().ok()
}

/// Python's `round(x, 2)` (correctly rounded, ties to even on the exact
/// binary value).
pub fn round2(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.2}").parse().unwrap_or(x)
}

/// `datetime.strptime(value, "%Y-%m-%d")`: `Err` with the `TypeError` text
/// when `value` is not a `str`; `Ok(None)` where Python raises
/// `ValueError` (no match, data left over, a day the month lacks, year 0).
pub fn strptime_ymd(value: &PyValue) -> Result<Option<(i64, u32, u32)>, String> {
    let PyValue::Str(text) = value else {
        // Argument Clinic names `None` itself, other values by their type.
        let name = match value {
            PyValue::None => "None",
            other => other.type_name(),
        };
        return Err(format!("strptime() argument 1 must be str, not {name}"));
    };
    Ok(match_ymd(&text.0))
}

fn digit(c: Option<&u32>) -> Option<u32> {
    c.and_then(|&c| char::from_u32(c))
        .and_then(|c| c.to_digit(10))
}

/// The regex `(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])`
/// matched at the start (alternatives in order), then the whole text
/// consumed, then a valid date.
fn match_ymd(t: &[u32]) -> Option<(i64, u32, u32)> {
    let mut year = 0i64;
    for k in 0..4 {
        year = year * 10 + i64::from(digit(t.get(k))?);
    }
    if t.get(4) != Some(&u32::from('-')) {
        return None;
    }
    let dash = u32::from('-');
    let months = month_options(&t[5..]);
    let (month, rest) = months
        .into_iter()
        .find(|(_, len)| t.get(5 + len) == Some(&dash))
        .map(|(m, len)| (m, &t[6 + len..]))?;
    let (day, used) = day_options(rest).into_iter().next()?;
    if used != rest.len() || year == 0 {
        return None;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (day <= days).then_some((year, month, day))
}

/// The month alternatives that match at the start: (value, length).
fn month_options(t: &[u32]) -> Vec<(u32, usize)> {
    let (a, b) = (digit(t.first()), digit(t.get(1)));
    let mut out = Vec::new();
    if let (Some(1), Some(b @ 0..=2)) = (a, b) {
        out.push((10 + b, 2));
    }
    if let (Some(0), Some(b @ 1..=9)) = (a, b) {
        out.push((b, 2));
    }
    if let Some(a @ 1..=9) = a {
        out.push((a, 1));
    }
    out
}

/// The day alternatives that match at the start, in the regex's order.
fn day_options(t: &[u32]) -> Vec<(u32, usize)> {
    let (a, b) = (digit(t.first()), digit(t.get(1)));
    let mut out = Vec::new();
    if let (Some(3), Some(b @ 0..=1)) = (a, b) {
        out.push((30 + b, 2));
    }
    if let (Some(a @ 1..=2), Some(b)) = (a, b) {
        out.push((a * 10 + b, 2));
    }
    if let (Some(0), Some(b @ 1..=9)) = (a, b) {
        out.push((b, 2));
    }
    if let Some(a @ 1..=9) = a {
        out.push((a, 1));
    }
    if let (true, Some(b @ 1..=9)) = (t.first() == Some(&u32::from(' ')), b) {
        out.push((b, 2));
    }
    out
}

/// What the class tests share: a call written as one tuple literal.
#[cfg(test)]
pub(crate) mod testing {
    use super::repr_text;
    use crate::ood::bfcl::multi_turn::api::ApiClass;
    use crate::ood::python::{PyValue, literal_eval};

    /// `instance.method(*args)` where `args` is a tuple literal such as
    /// `"('tok', [1])"`: the executor's result string (`py_ops`' runner).
    pub fn run(instance: &mut dyn ApiClass, method: &str, args: &str) -> String {
        let PyValue::Tuple(items) = literal_eval(args).unwrap() else {
            panic!("not a tuple: {args}")
        };
        let texts: Vec<String> = items.iter().map(repr_text).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        super::super::py_ops::testing::run(instance, method, &texts)
    }
}

#[cfg(test)]
mod tests {
    use super::super::py_ops::hashable as check_hashable;
    use super::*;
    use crate::ood::python::testing::lit;

    fn s(t: &str) -> PyValue {
        text(t)
    }

    // Every expected value below is CPython 3.11.7's.
    #[test]
    fn strptime_takes_the_regex_alternatives_in_order() {
        let ok = [
            ("2024-1-5", (2024, 1, 5)),
            ("2024-01- 5", (2024, 1, 5)),
            ("2024-02-29", (2024, 2, 29)),
            ("2024-10-5", (2024, 10, 5)),
            ("2024-1-10", (2024, 1, 10)),
        ];
        for (text, want) in ok {
            assert_eq!(strptime_ymd(&s(text)), Ok(Some(want)), "{text}");
        }
        for text in [
            "2024-02-30",
            "2024-12-3x",
            " 2024-01-01",
            "0000-01-01",
            "2023-02-29",
            "2024-011-01",
            "99999-01-01",
            "2024-01-01\n",
            "",
        ] {
            assert_eq!(strptime_ymd(&s(text)), Ok(None), "{text}");
        }
        assert_eq!(
            strptime_ymd(&PyValue::None).unwrap_err(),
            "strptime() argument 1 must be str, not None"
        );
        assert_eq!(
            strptime_ymd(&lit("20240101")).unwrap_err(),
            "strptime() argument 1 must be str, not int"
        );
    }

    #[test]
    fn float_reads_strings_as_python_does() {
        let ok = [
            ("1e3", 1000.0),
            (" 12.5 ", 12.5),
            ("1_000", 1000.0),
            ("-Infinity", f64::NEG_INFINITY),
            ("1.", 1.0),
            (".5", 0.5),
            ("5.e3", 5000.0),
        ];
        for (text, want) in ok {
            assert_eq!(to_float(&s(text)), Ok(want), "{text}");
        }
        assert!(to_float(&s("nan")).unwrap().is_nan());
        for text in ["_1", "1_", "1__0", "0x10", "", "1e"] {
            assert_eq!(
                to_float(&s(text)).unwrap_err(),
                format!("could not convert string to float: '{text}'")
            );
        }
        assert_eq!(
            to_float(&lit(&"9".repeat(340))).unwrap_err(),
            "int too large to convert to float"
        );
        assert_eq!(
            to_float(&lit("[1]")).unwrap_err(),
            "float() argument must be a string or a real number, not 'list'"
        );
    }

    #[test]
    fn integer_division_is_correctly_rounded() {
        let cases = [
            ("100000000000000000001", "7", 1.4285714285714287e+19),
            ("18446744073709551623", "110", 1.6769767339735955e+17),
            (
                "-1267650600228229401496703205377",
                "3",
                -4.2255020007607644e+29,
            ),
            ("1", "3458764513820540928", 2.8912057932946783e-19),
            (
                "170141183460469231731687303715884105727",
                "170141183460469231731687303715884105725",
                1.0,
            ),
        ];
        for (a, b, want) in cases {
            assert_eq!(true_divide(&lit(a), &lit(b)), Ok(want), "{a} / {b}");
        }
        assert_eq!(
            true_divide(&lit("1"), &lit("0")).unwrap_err(),
            "division by zero"
        );
        assert_eq!(
            true_divide(&lit("1"), &lit("0.0")).unwrap_err(),
            "float division by zero"
        );
    }

    #[test]
    fn round_and_comparisons_are_exact() {
        assert_eq!(round2(2.675), 2.67);
        assert_eq!(round2(0.125), 0.12);
        assert!(round2(-0.001).is_sign_negative());
        assert_eq!(round2(1e300), 1e300);
        let big = lit("9007199254740993"); // 2**53 + 1
        let near = PyValue::Float(9007199254740992.0);
        assert_eq!(less_than(&big, &near), Ok(false));
        assert_eq!(less_than(&near, &big), Ok(true));
        assert_eq!(
            less_than(&PyValue::Float(1.0), &s("2")).unwrap_err(),
            "'<' not supported between instances of 'float' and 'str'"
        );
        assert_eq!(
            arith(Op::Sub, &lit("5"), &s("x"), true).unwrap_err(),
            "unsupported operand type(s) for -=: 'int' and 'str'"
        );
        assert_eq!(
            arith(
                Op::Mul,
                &lit("170141183460469231731687303715884105727"),
                &lit("2"),
                false
            )
            .unwrap_err(),
            TOO_BIG
        );
    }

    #[test]
    fn hashability_follows_python() {
        assert_eq!(
            check_hashable(&lit("(1, [2])")).unwrap_err(),
            "unhashable type: 'list'"
        );
        assert!(check_hashable(&lit("(1, 'a')")).is_ok());
    }
}
