//! Python's numbers as the API classes meet them in model-written
//! arguments: comparisons (exact across `int` and `float`, as Python
//! compares), `+=`/`-=`, `float()`, `int()`, `abs()` and `'{:.2f}'`, each
//! with CPython 3.11's exception text where Python raises.
//!
//! Bound (where itc differs from Python): integer `+`/`-` results beyond
//! 128 bits are refused with a text of itc's own ([`INT_TOO_LARGE`]);
//! Python's integers are unbounded. Comparisons are exact for every
//! integer size.

use std::cmp::Ordering;

use crate::ood::python::PyValue;

/// The error text when an integer sum or difference leaves 128 bits
/// (Python would compute it; itc refuses).
pub(super) const INT_TOO_LARGE: &str = "itc: integer arithmetic beyond 128 bits is not supported";

/// A Python number: `bool` and `int` as their decimal text, or a `float`.
#[derive(Debug, Clone)]
enum Number {
    Int(String),
    Float(f64),
}

fn number(v: &PyValue) -> Option<Number> {
    match v {
        PyValue::Bool(b) => Some(Number::Int(u8::from(*b).to_string())),
        PyValue::Int(t) => Some(Number::Int(t.clone())),
        PyValue::Float(x) => Some(Number::Float(*x)),
        _ => None,
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    fn symbol(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    fn holds(self, order: Ordering) -> bool {
        match self {
            Cmp::Le => order != Ordering::Greater,
            Cmp::Gt => order == Ordering::Greater,
            Cmp::Ge => order != Ordering::Less,
        }
    }
}

/// `a <op> b` for numbers (exact across `int` and `float`, false with a
/// NaN), else `'<=' not supported between instances of 'str' and 'int'`.
pub(super) fn compare(a: &PyValue, op: Cmp, b: &PyValue) -> Result<bool, String> {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => Ok(number_order(&x, &y).is_some_and(|o| op.holds(o))),
        _ => Err(format!(
            "'{}' not supported between instances of '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        )),
    }
}

fn number_order(a: &Number, b: &Number) -> Option<Ordering> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => Some(int_order(x, y)),
        (Number::Float(x), Number::Float(y)) => x.partial_cmp(y),
        (Number::Int(i), Number::Float(f)) => int_float_order(i, *f),
        (Number::Float(f), Number::Int(i)) => int_float_order(i, *f).map(Ordering::reverse),
    }
}

/// The order of two normalised decimal integer texts.
fn int_order(a: &str, b: &str) -> Ordering {
    let (na, da) = a.strip_prefix('-').map_or((false, a), |d| (true, d));
    let (nb, db) = b.strip_prefix('-').map_or((false, b), |d| (true, d));
    let magnitude = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
    match (na, nb) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

/// An `int` against a `float`, exactly (as Python compares them).
fn int_float_order(i: &str, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let floor = f.floor();
    // Rust writes an integral float's exact digits.
    let floor_text = format!("{floor:.0}");
    let floor_text = if floor_text == "-0" {
        "0".to_string()
    } else {
        floor_text
    };
    match int_order(i, &floor_text) {
        Ordering::Equal if floor < f => Some(Ordering::Less),
        order => Some(order),
    }
}

/// `float(v)` of an `int` text: `int too large to convert to float` past
/// the largest float (Rust's parse rounds to nearest-even as Python does).
fn int_to_float(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().unwrap_or(f64::INFINITY);
    if x.is_finite() {
        Ok(x)
    } else {
        Err("int too large to convert to float".into())
    }
}

/// `float(v)` for a number (`bool`, `int`, `float`); `None` for another
/// type (whose text of error depends on the call).
pub(super) fn to_float(v: &PyValue) -> Option<Result<f64, String>> {
    match number(v)? {
        Number::Int(t) => Some(int_to_float(&t)),
        Number::Float(x) => Some(Ok(x)),
    }
}

/// `float(x) * int(y)` for numbers `x`, `y`, with Python's errors in
/// Python's order.
pub(super) fn float_times_int(x: &PyValue, y: &PyValue) -> Result<f64, String> {
    let left = to_float(x).unwrap_or_else(|| {
        Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            x.type_name()
        ))
    })?;
    let right = match number(y) {
        Some(Number::Float(f)) if f.is_nan() => {
            return Err("cannot convert float NaN to integer".into());
        }
        Some(Number::Float(f)) if f.is_infinite() => {
            return Err("cannot convert float infinity to integer".into());
        }
        // An integral float converts back exactly.
        Some(Number::Float(f)) => f.trunc(),
        Some(Number::Int(t)) => int_to_float(&t)?,
        None => {
            return Err(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                y.type_name()
            ));
        }
    };
    Ok(left * right)
}

/// `a + b` (`minus`: `a - b`) as the augmented assignment `a += b` /
/// `a -= b`: numbers by Python's rules (`int` if both are `bool`/`int`,
/// else `float`), else the `TypeError` text.
pub(super) fn add(a: &PyValue, b: &PyValue, minus: bool) -> Result<PyValue, String> {
    let op = if minus { "-=" } else { "+=" };
    let unsupported = || {
        if !minus && let PyValue::Str(_) | PyValue::List(_) = a {
            return format!(
                "can only concatenate {} (not \"{}\") to {}",
                a.type_name(),
                b.type_name(),
                a.type_name()
            );
        }
        format!(
            "unsupported operand type(s) for {op}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )
    };
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        return Err(unsupported());
    };
    match (x, y) {
        (Number::Int(x), Number::Int(y)) => {
            let (x, y) = (x.parse::<i128>(), y.parse::<i128>());
            let (Ok(x), Ok(y)) = (x, y) else {
                return Err(INT_TOO_LARGE.into());
            };
            let sum = if minus {
                x.checked_sub(y)
            } else {
                x.checked_add(y)
            };
            sum.map(|s| PyValue::Int(s.to_string()))
                .ok_or_else(|| INT_TOO_LARGE.into())
        }
        (x, y) => {
            let as_float = |n: Number| match n {
                Number::Int(t) => int_to_float(&t),
                Number::Float(f) => Ok(f),
            };
            let (x, y) = (as_float(x)?, as_float(y)?);
            Ok(PyValue::Float(if minus { x - y } else { x + y }))
        }
    }
}

/// `abs(v)` for a number, else `bad operand type for abs(): 'str'`.
pub(super) fn abs(v: &PyValue) -> Result<PyValue, String> {
    match number(v) {
        Some(Number::Float(x)) => Ok(PyValue::Float(x.abs())),
        Some(Number::Int(t)) => Ok(PyValue::Int(t.trim_start_matches('-').to_string())),
        None => Err(format!("bad operand type for abs(): '{}'", v.type_name())),
    }
}

/// `format(x, '.2f')`: the exact binary value rounded to two decimals,
/// ties to even, as Rust's `{:.2}` rounds too; `inf`, `-inf`, `nan`.
pub(super) fn fixed2(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else {
        format!("{x:.2}")
    }
}

/// `format(v, '.2f')` for a number, else Python's `ValueError` text.
pub(super) fn format_fixed2(v: &PyValue) -> Result<String, String> {
    match to_float(v) {
        Some(x) => Ok(fixed2(x?)),
        None => Err(format!(
            "Unknown format code 'f' for object of type '{}'",
            v.type_name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ood::python::literal_eval;

    fn lit(text: &str) -> PyValue {
        literal_eval(text).unwrap()
    }

    #[test]
    fn comparisons_are_exact_across_int_and_float() {
        let c = |a: &str, op, b: &str| compare(&lit(a), op, &lit(b)).unwrap();
        assert!(c("9007199254740993", Cmp::Gt, "9007199254740992.0"));
        assert!(!c("9007199254740993", Cmp::Le, "9007199254740992.0"));
        assert!(!c("-1", Cmp::Ge, "-0.5"));
        assert!(c("0", Cmp::Le, "0.0"));
        assert!(c("True", Cmp::Gt, "0"));
        assert!(!c(&"9".repeat(400), Cmp::Ge, "1e400"));
        assert!(c(&"9".repeat(400), Cmp::Gt, "1e300"));
        assert!(!compare(&lit("1"), Cmp::Le, &PyValue::Float(f64::NAN)).unwrap());
        assert_eq!(
            compare(&lit("'5'"), Cmp::Le, &lit("0")).unwrap_err(),
            "'<=' not supported between instances of 'str' and 'int'"
        );
    }

    #[test]
    fn sums_follow_pythons_types_and_errors() {
        assert_eq!(add(&lit("1"), &lit("True"), false).unwrap(), lit("2"));
        assert_eq!(
            add(&lit("10000.0"), &lit("5000"), false).unwrap(),
            lit("15000.0")
        );
        assert_eq!(
            add(&lit("0.1"), &lit("0.2"), false).unwrap(),
            PyValue::Float(0.1 + 0.2)
        );
        assert_eq!(
            add(&lit("1.0"), &lit("'a'"), true).unwrap_err(),
            "unsupported operand type(s) for -=: 'float' and 'str'"
        );
        assert_eq!(
            add(&lit("'a'"), &lit("1"), false).unwrap_err(),
            "can only concatenate str (not \"int\") to str"
        );
        assert_eq!(
            add(&lit("1.0"), &lit(&"9".repeat(400)), false).unwrap_err(),
            "int too large to convert to float"
        );
        let big = i128::MAX.to_string();
        assert_eq!(
            add(&lit(&big), &lit("1"), false).unwrap_err(),
            INT_TOO_LARGE
        );
    }

    #[test]
    fn two_decimals_round_the_exact_value_half_to_even() {
        assert_eq!(fixed2(0.125), "0.12");
        assert_eq!(fixed2(2.675), "2.67");
        assert_eq!(fixed2(f64::INFINITY), "inf");
        assert_eq!(fixed2(f64::NAN), "nan");
        assert_eq!(format_fixed2(&lit("True")).unwrap(), "1.00");
    }
}
