//! `MathAPI` (`math_api.py`): stateless arithmetic, statistics, unit
//! conversions, an mpmath logarithm and a `Decimal` square root.
//!
//! The methods compute on whatever a model passes, as Python does
//! (`add(a='ab', b='c')` is `{"result": "abc"}`), and catch what the
//! official code catches (mostly `TypeError`, turned into its fixed error
//! dict); any other exception becomes the call's error text
//! (`power(base=1e200, exponent=2)` fails with
//! `(34, 'Numerical result out of range')`).
//!
//! Results Python cannot `json.dumps` are rendered with `str()` of the
//! dict, as the executor does: `{'result': mpf('2.7993393')}` (mpmath, see
//! [`super::mpf`]), `{'result': Decimal('4')}` ([`super::decimal`]),
//! `{'result': (1.7319121124709868e-16+2.8284271247461903j)}`.
//!
//! Nothing here is random or depends on the date or on string hashing.
//! mpmath's `mp.dps` and decimal's `getcontext().prec` are process-wide in
//! Python, but each method sets them before use, so no call sees another's.
//!
//! Bounds of itc's own (Python would compute on, for minutes or without
//! end), each an error text naming the bound:
//! - `logarithm` and `square_root` compute at most [`MAX_DIGITS`] digits;
//!   `logarithm` reads a string argument only as mpmath reads decimal
//!   literals with an exponent within ±400, fractions `p/q` and
//!   `inf`/`nan`, and prints no result beyond 2^±3500.
//! - `round_number` of an `int` to more than its own number of digits
//!   (a huge negative `decimal_places`) is 0 without computing `10**n`.
//! - `int` results beyond 4300 digits fail as printing them fails in
//!   Python (`Exceeds the limit (4300 digits) ...`), and `int ** int` that
//!   would exceed it fails so without being computed.
//! - A `complex` argument (only a Python literal such as `1j` can be one,
//!   never a model's JSON) is refused; a `complex` inside a list counts as
//!   a non-number (Python would add it: `mean(numbers=[1j])` is
//!   `{'result': 1j}` there, the "All elements ... numbers" error here).

use num_bigint::{BigInt, Sign};
use num_integer::Integer;

use super::decimal::Decimal;
use super::mpf::{self, Mpf};
use super::py_num::{
    Cmp, ExcKind, INT_MAX_STR_DIGITS, Num, Op, PyExc, abs, binop, compare, f64_to_int, int_to_f64,
    iterate, num_of, parse_float_literal, parse_int_string, py_int, round_float, round_half_even,
    str_limit_error, to_f64, value_of,
};
use crate::benchmarks::bfcl::arith::{PowFail, float_pow, truthy};
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::value::py_eq;
use crate::benchmarks::python::{PyStr, PyValue, float_repr, py_repr, py_str};

/// The most digits `logarithm` and `square_root` compute.
pub const MAX_DIGITS: u64 = 2000;

const fn p(name: &'static str) -> Param {
    Param::required(name)
}

const METHODS: &[Signature] = &[
    Signature {
        name: "logarithm",
        params: &[p("value"), p("base"), p("precision")],
    },
    Signature {
        name: "mean",
        params: &[p("numbers")],
    },
    Signature {
        name: "standard_deviation",
        params: &[p("numbers")],
    },
    Signature {
        name: "si_unit_conversion",
        params: &[p("value"), p("unit_in"), p("unit_out")],
    },
    Signature {
        name: "imperial_si_conversion",
        params: &[p("value"), p("unit_in"), p("unit_out")],
    },
    Signature {
        name: "add",
        params: &[p("a"), p("b")],
    },
    Signature {
        name: "subtract",
        params: &[p("a"), p("b")],
    },
    Signature {
        name: "multiply",
        params: &[p("a"), p("b")],
    },
    Signature {
        name: "divide",
        params: &[p("a"), p("b")],
    },
    Signature {
        name: "power",
        params: &[p("base"), p("exponent")],
    },
    Signature {
        name: "square_root",
        params: &[p("number"), p("precision")],
    },
    Signature {
        name: "absolute_value",
        params: &[p("number")],
    },
    Signature {
        name: "round_number",
        params: &[p("number"), Param::optional("decimal_places", "0")],
    },
    Signature {
        name: "percentage",
        params: &[p("part"), p("whole")],
    },
    Signature {
        name: "min_value",
        params: &[p("numbers")],
    },
    Signature {
        name: "max_value",
        params: &[p("numbers")],
    },
    Signature {
        name: "sum_values",
        params: &[p("numbers")],
    },
];

fn s(text: &str) -> PyValue {
    PyValue::Str(PyStr::new(text))
}

fn error(text: &str) -> Output {
    Output::Value(PyValue::Dict(vec![(s("error"), s(text))]))
}

fn result(value: PyValue) -> Output {
    Output::Value(PyValue::Dict(vec![(s("result"), value)]))
}

/// `try: ... except TypeError: return {"error": text}`; other exceptions
/// propagate as the call's error.
fn catch_type(r: Result<Output, PyExc>, text: &str) -> Result<Output, String> {
    match r {
        Err(e) if e.kind == ExcKind::Type => Ok(error(text)),
        other => other.map_err(String::from),
    }
}

fn type_error(text: String) -> PyExc {
    PyExc::new(ExcKind::Type, text)
}

fn lossy(code_points: Vec<u32>) -> String {
    PyStr(code_points).to_string_lossy()
}

/// `isinstance(v, (int, float))`.
fn is_number(v: &PyValue) -> bool {
    matches!(v, PyValue::Bool(_) | PyValue::Int(_) | PyValue::Float(_))
}

fn refuse_complex(values: &[&PyValue]) -> Result<(), String> {
    if values.iter().any(|v| matches!(v, PyValue::Complex(_))) {
        return Err("complex arguments are not supported by itc".into());
    }
    Ok(())
}

/// Python's `sum(items)`: `0 + x1 + x2 + ...`.
fn sum(items: &[PyValue]) -> Result<PyValue, PyExc> {
    items
        .iter()
        .try_fold(PyValue::Int("0".into()), |acc, x| binop(Op::Add, &acc, x))
}

fn len_value(n: usize) -> PyValue {
    PyValue::Int(n.to_string())
}

/// `mpmath.mp.dps = n`: the working precision in bits.
fn set_dps(n: &PyValue) -> Result<u64, PyExc> {
    let i = py_int(n)? + 1u8;
    let scaled = (int_to_f64(&i)? * mpf::LOG2_10).round_ties_even();
    let max = ((MAX_DIGITS + 1) as f64 * mpf::LOG2_10).round_ties_even();
    if scaled > max {
        return Err(PyExc::new(
            ExcKind::Itc,
            format!("itc computes logarithms to at most {MAX_DIGITS} digits"),
        ));
    }
    Ok(scaled.max(1.0) as u64)
}

/// mpmath's `convert` of a Python value at `prec` bits.
fn to_mpf(v: &PyValue, prec: u64) -> Result<Mpf, PyExc> {
    let cannot = || type_error(format!("cannot create mpf from {}", lossy(py_repr(v))));
    match v {
        PyValue::Float(x) => Ok(Mpf::from_f64(*x)),
        PyValue::Str(text) => mpf_from_str(&text.to_string_lossy(), prec)?.ok_or_else(cannot),
        other => match num_of(other)? {
            Some(Num::Int(i)) => Ok(Mpf::from_int(&i)),
            _ => Err(cannot()),
        },
    }
}

/// mpmath's `from_str`; `None` where it raises `ValueError` (then
/// `convert` reports that it cannot create an mpf).
fn mpf_from_str(text: &str, prec: u64) -> Result<Option<Mpf>, PyExc> {
    let x = text.to_lowercase();
    let x = x.trim();
    match x {
        "inf" | "+inf" => return Ok(Some(Mpf::Inf(false))),
        "-inf" => return Ok(Some(Mpf::Inf(true))),
        "nan" => return Ok(Some(Mpf::Nan)),
        _ => {}
    }
    if let Some((p, q)) = x.split_once('/') {
        let (Some(p), Some(q)) = (
            parse_int_string(p.trim_end_matches('l')),
            parse_int_string(q.trim_end_matches('l')),
        ) else {
            return Ok(None);
        };
        return ratio(&p, &q, prec).map(Some);
    }
    let x = x.trim_end_matches('l');
    if parse_float_literal(x).is_none() {
        return Ok(None);
    }
    let (mantissa, mut exp) = match x.split_once('e') {
        Some((m, e)) => match parse_int_string(e).and_then(|e| i64::try_from(e).ok()) {
            Some(e) => (m, e),
            None => return Ok(None),
        },
        None => (x, 0),
    };
    let digits = match mantissa.split_once('.') {
        Some((a, b)) => {
            let b = b.trim_end_matches('0');
            exp -= b.len() as i64;
            format!("{a}{b}")
        }
        None => mantissa.to_string(),
    };
    let Some(man) = parse_int_string(&digits) else {
        return Ok(None);
    };
    if exp.abs() > 400 {
        return Err(PyExc::new(
            ExcKind::Itc,
            "itc reads mpmath decimal strings with exponents within 400 only",
        ));
    }
    let ten = BigInt::from(10u8).pow(exp.unsigned_abs() as u32);
    if exp >= 0 {
        Ok(Some(Mpf::from_int(&(man * ten)).round(prec)))
    } else {
        ratio(&man, &ten, prec).map(Some)
    }
}

/// mpmath's `from_rational(p, q, prec)`.
fn ratio(p: &BigInt, q: &BigInt, prec: u64) -> Result<Mpf, PyExc> {
    mpf::div(&Mpf::from_int(p), &Mpf::from_int(q), prec)
        .map_err(|text| PyExc::new(ExcKind::ZeroDivision, text))
}

fn logarithm(value: &PyValue, base: &PyValue, precision: &PyValue) -> Result<Output, String> {
    let computed = (|| -> Result<String, PyExc> {
        let prec = set_dps(precision)?;
        let a = mpf::log(&to_mpf(value, prec)?, prec);
        let b = mpf::log(&to_mpf(base, prec)?, prec);
        let quotient =
            mpf::divide(&a, &b, prec).map_err(|text| PyExc::new(ExcKind::ZeroDivision, text))?;
        mpf::repr(&quotient, prec).map_err(|text| PyExc::new(ExcKind::Itc, text))
    })();
    Ok(match computed {
        Ok(repr) => Output::Rendered(format!("{{'result': {repr}}}")),
        Err(e) => error(&e.text),
    })
}

fn mean(numbers: &PyValue) -> Result<Output, String> {
    if !truthy(numbers) {
        return Ok(error("Cannot calculate mean of an empty list"));
    }
    catch_type(
        (|| {
            let items = iterate(numbers)?;
            let total = sum(&items)?;
            Ok(result(binop(Op::Div, &total, &len_value(items.len()))?))
        })(),
        "All elements in the list must be numbers",
    )
}

fn standard_deviation(numbers: &PyValue) -> Result<Output, String> {
    if !truthy(numbers) {
        return Ok(error(
            "Cannot calculate standard deviation of an empty list",
        ));
    }
    catch_type(
        (|| {
            let items = iterate(numbers)?;
            let n = len_value(items.len());
            let mean = binop(Op::Div, &sum(&items)?, &n)?;
            let squares = items
                .iter()
                .map(|x| {
                    let d = binop(Op::Sub, x, &mean)?;
                    power_of(&d, &PyValue::Int("2".into()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let variance = binop(Op::Div, &sum(&squares)?, &n)?;
            let variance = match num_of(&variance)? {
                Some(n) => to_f64(&n)?,
                None => return Err(type_error("must be real number".into())),
            };
            if variance < 0.0 {
                return Err(PyExc::new(ExcKind::Value, "math domain error"));
            }
            Ok(result(PyValue::Float(variance.sqrt())))
        })(),
        "All elements in the list must be numbers",
    )
}

/// `value in ("km", "m", ...)` for the dict keys of a conversion table:
/// the `TypeError` of an unhashable value, else whether it is one of them.
fn key_in(value: &PyValue, keys: &[&str]) -> Result<bool, String> {
    if let PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) = value {
        return Err(format!("unhashable type: '{}'", value.type_name()));
    }
    Ok(keys.iter().any(|k| py_eq(value, &s(k))))
}

fn unsupported(unit_in: &PyValue, unit_out: &PyValue) -> Output {
    error(&format!(
        "Conversion from '{}' to '{}' is not supported",
        lossy(py_str(unit_in)),
        lossy(py_str(unit_out))
    ))
}

/// `except OverflowError` of the conversions.
fn catch_overflow(r: Result<PyValue, PyExc>) -> Result<Output, String> {
    match r {
        Ok(v) => Ok(result(v)),
        Err(e) if e.kind == ExcKind::Overflow => Ok(error(
            "Conversion resulted in a value too large to represent",
        )),
        Err(e) => Err(e.text),
    }
}

const TO_METERS: &[(&str, f64, bool)] = &[
    ("km", 1000.0, true),
    ("m", 1.0, true),
    ("cm", 0.01, false),
    ("mm", 0.001, false),
    ("um", 1e-6, false),
    ("nm", 1e-9, false),
];

fn si_unit_conversion(
    value: &PyValue,
    unit_in: &PyValue,
    unit_out: &PyValue,
) -> Result<Output, String> {
    if !is_number(value) {
        return Ok(error("Value must be a number"));
    }
    let units: Vec<&str> = TO_METERS.iter().map(|(u, _, _)| *u).collect();
    if !key_in(unit_in, &units)? || !key_in(unit_out, &units)? {
        return Ok(unsupported(unit_in, unit_out));
    }
    let factor = |unit: &PyValue| {
        TO_METERS
            .iter()
            .find(|(u, _, _)| py_eq(unit, &s(u)))
            .map(|(_, f, int)| (*f, *int))
            .unwrap_or((1.0, true))
    };
    let (to, to_is_int) = factor(unit_in);
    let to = if to_is_int {
        PyValue::Int((to as i64).to_string())
    } else {
        PyValue::Float(to)
    };
    let from = PyValue::Float(1.0 / factor(unit_out).0);
    catch_overflow(binop(Op::Mul, value, &to).and_then(|m| binop(Op::Mul, &m, &from)))
}

const IMPERIAL: &[(&str, f64)] = &[
    ("cm_to_in", 0.393701),
    ("in_to_cm", 2.54),
    ("m_to_ft", 3.28084),
    ("ft_to_m", 0.3048),
    ("m_to_yd", 1.09361),
    ("yd_to_m", 0.9144),
    ("km_to_miles", 0.621371),
    ("miles_to_km", 1.60934),
    ("kg_to_lb", 2.20462),
    ("lb_to_kg", 0.453592),
    ("celsius_to_fahrenheit", 1.8),
    ("fahrenheit_to_celsius", 5.0 / 9.0),
];

fn imperial_si_conversion(
    value: &PyValue,
    unit_in: &PyValue,
    unit_out: &PyValue,
) -> Result<Output, String> {
    if !is_number(value) {
        return Ok(error("Value must be a number"));
    }
    if py_eq(unit_in, unit_out) {
        return Ok(result(value.clone()));
    }
    let key = format!("{}_to_{}", lossy(py_str(unit_in)), lossy(py_str(unit_out)));
    let Some((_, factor)) = IMPERIAL.iter().find(|(k, _)| *k == key) else {
        return Ok(unsupported(unit_in, unit_out));
    };
    let factor = PyValue::Float(*factor);
    let is = |v: &PyValue, t: &str| py_eq(v, &s(t));
    let converted = if is(unit_in, "celsius") && is(unit_out, "fahrenheit") {
        binop(Op::Mul, value, &factor).and_then(|v| binop(Op::Add, &v, &PyValue::Int("32".into())))
    } else if is(unit_in, "fahrenheit") && is(unit_out, "celsius") {
        binop(Op::Sub, value, &PyValue::Int("32".into())).and_then(|v| binop(Op::Mul, &v, &factor))
    } else {
        binop(Op::Mul, value, &factor)
    };
    catch_overflow(converted)
}

/// What `base ** exponent` gives: a value, or a `complex` (a negative
/// float to a fractional power).
enum Power {
    Value(PyValue),
    Complex(f64, f64),
}

/// `base ** exponent` where the result is real.
fn power_of(base: &PyValue, exponent: &PyValue) -> Result<PyValue, PyExc> {
    match power(base, exponent)? {
        Power::Value(v) => Ok(v),
        Power::Complex(..) => Err(type_error("must be real number, not complex".into())),
    }
}

/// Python's `base ** exponent` on numbers.
fn power(base: &PyValue, exponent: &PyValue) -> Result<Power, PyExc> {
    let (Some(x), Some(y)) = (num_of(base)?, num_of(exponent)?) else {
        return Err(type_error(format!(
            "unsupported operand type(s) for ** or pow(): '{}' and '{}'",
            base.type_name(),
            exponent.type_name()
        )));
    };
    if let (Num::Int(b), Num::Int(e)) = (&x, &y)
        && e.sign() != Sign::Minus
    {
        return int_power(b, e).map(Power::Value);
    }
    let (b, e) = (to_f64(&x)?, to_f64(&y)?);
    match float_pow(b, e) {
        Ok(r) => Ok(Power::Value(PyValue::Float(r))),
        Err(PowFail::Complex) => complex_pow(b, e),
        Err(e @ PowFail::ZeroToNegative) => Err(PyExc::new(ExcKind::ZeroDivision, e.text())),
        Err(e @ PowFail::Overflow) => Err(PyExc::new(ExcKind::Overflow, e.text())),
    }
}

/// `int ** int` for a non-negative exponent; results beyond 4300 digits
/// fail as printing them would, before being computed.
fn int_power(b: &BigInt, e: &BigInt) -> Result<PyValue, PyExc> {
    let magnitude = b.magnitude();
    if magnitude.bits() <= 1 {
        // 0, 1 or -1: no growth.
        let odd = e.is_odd();
        let v = match (b.sign(), magnitude.bits()) {
            (_, 0) => BigInt::from(u8::from(e.sign() == Sign::NoSign)),
            (Sign::Minus, _) if odd => BigInt::from(-1),
            _ => BigInt::from(1),
        };
        return value_of(Num::Int(v));
    }
    // |b|^e has at least e * (bits(b) - 1) * log10(2) digits.
    let limit_bits = (INT_MAX_STR_DIGITS as u64 + 1) * 10 / 3 + 8;
    let e = match u64::try_from(e) {
        Ok(e) if e.saturating_mul(magnitude.bits() - 1) <= limit_bits => e,
        _ => return Err(str_limit_error()),
    };
    value_of(Num::Int(b.pow(e as u32)))
}

/// CPython's `_Py_c_pow` of a negative real base and a fractional real
/// exponent.
fn complex_pow(a: f64, b: f64) -> Result<Power, PyExc> {
    let vabs = a.abs().hypot(0.0);
    let len = vabs.powf(b);
    let phase = 0.0f64.atan2(a) * b;
    let (re, im) = (len * phase.cos(), len * phase.sin());
    if re.is_infinite() || im.is_infinite() {
        return Err(PyExc::new(ExcKind::Overflow, "complex exponentiation"));
    }
    Ok(Power::Complex(re, im))
}

/// `repr(complex(re, im))`.
fn complex_repr(re: f64, im: f64) -> String {
    let plain = |x: f64| {
        let r = float_repr(x);
        r.strip_suffix(".0").map(str::to_string).unwrap_or(r)
    };
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", plain(im));
    }
    let imag = plain(im);
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", plain(re))
}

fn power_method(base: &PyValue, exponent: &PyValue) -> Result<Output, String> {
    match power(base, exponent) {
        Ok(Power::Value(v)) => Ok(result(v)),
        Ok(Power::Complex(re, im)) => Ok(Output::Rendered(format!(
            "{{'result': {}}}",
            complex_repr(re, im)
        ))),
        Err(e) if e.kind == ExcKind::Type => Ok(error("Both inputs must be numbers")),
        Err(e) => Err(e.text),
    }
}

fn square_root(number: &PyValue, precision: &PyValue) -> Result<Output, String> {
    let invalid = "Input must be a number or computation resulted in an invalid operation";
    let outcome = (|| -> Result<Option<Decimal>, PyExc> {
        if compare(Cmp::Lt, number, &PyValue::Int("0".into()))? {
            return Ok(None);
        }
        let prec = match precision {
            PyValue::Int(_) | PyValue::Bool(_) => match num_of(precision)? {
                Some(Num::Int(p)) => p,
                _ => BigInt::from(0),
            },
            other => {
                return Err(type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    other.type_name()
                )));
            }
        };
        if i64::try_from(&prec).is_err() {
            return Err(PyExc::new(
                ExcKind::Overflow,
                "Python int too large to convert to C ssize_t",
            ));
        }
        if prec < BigInt::from(1) || prec > BigInt::from(999_999_999_999_999_999i64) {
            return Err(PyExc::new(
                ExcKind::Value,
                "valid range for prec is [1, MAX_PREC]",
            ));
        }
        let prec = u64::try_from(&prec).unwrap_or(u64::MAX);
        if prec > MAX_DIGITS {
            return Err(PyExc::new(
                ExcKind::Itc,
                format!("itc computes square roots to at most {MAX_DIGITS} digits"),
            ));
        }
        let decimal = match num_of(number)? {
            Some(Num::Float(x)) => Decimal::from_f64(x),
            Some(Num::Int(i)) => Decimal::from_int(&i),
            None => {
                return Err(type_error(
                    "conversion from this type to Decimal is not supported".into(),
                ));
            }
        };
        Ok(decimal.sqrt(prec))
    })();
    match outcome {
        Ok(None) => Ok(error("Cannot calculate square root of a negative number")),
        Ok(Some(root)) => Ok(Output::Rendered(format!("{{'result': {}}}", root.repr()))),
        Err(e) if e.kind == ExcKind::Type => Ok(error(invalid)),
        Err(e) => Err(e.text),
    }
}

fn absolute_value(number: &PyValue) -> Result<Output, String> {
    if !is_number(number) {
        return Ok(error("Input must be a number"));
    }
    Ok(result(abs(number)?))
}

/// `round(number, ndigits)`.
fn round_number(number: &PyValue, ndigits: &PyValue) -> Result<Output, String> {
    let not_int = || {
        Ok(error(
            "First input must be a number, second input must be an integer",
        ))
    };
    let n = match ndigits {
        PyValue::None => None,
        PyValue::Int(_) | PyValue::Bool(_) => match num_of(ndigits)? {
            Some(Num::Int(i)) => Some(i),
            _ => None,
        },
        _ => return not_int(),
    };
    match num_of(number)? {
        Some(Num::Int(i)) => Ok(result(value_of(Num::Int(round_int(&i, n.as_ref())))?)),
        Some(Num::Float(x)) => match n {
            None => {
                if x.is_nan() {
                    return Err("cannot convert float NaN to integer".into());
                }
                if x.is_infinite() {
                    return Err("cannot convert float infinity to integer".into());
                }
                let r = f64_to_int(x.round_ties_even());
                Ok(result(value_of(Num::Int(r))?))
            }
            Some(n) => Ok(result(PyValue::Float(round_float(x, &n)?))),
        },
        None => not_int(),
    }
}

/// `round(int, n)`: unchanged for `n >= 0` (or `None`), else to a multiple
/// of `10**-n`, ties to even.
fn round_int(i: &BigInt, n: Option<&BigInt>) -> BigInt {
    let Some(n) = n else { return i.clone() };
    if n.sign() != Sign::Minus {
        return i.clone();
    }
    let digits = i.magnitude().to_string().len() as u64;
    let shift = match u64::try_from(-n) {
        Ok(s) if s <= digits + 1 => s,
        _ => return BigInt::from(0),
    };
    let unit = BigInt::from(10u8).pow(shift as u32);
    round_half_even(i, &unit) * unit
}

fn percentage(part: &PyValue, whole: &PyValue) -> Result<Output, String> {
    if py_eq(whole, &PyValue::Int("0".into())) {
        return Ok(error("Whole value cannot be zero"));
    }
    catch_type(
        binop(Op::Div, part, whole)
            .and_then(|q| binop(Op::Mul, &q, &PyValue::Int("100".into())))
            .map(result),
        "Both inputs must be numbers",
    )
}

/// `min(numbers)` (`smaller`: `<`) or `max(numbers)` (`>`): the first of
/// the extreme items.
fn extreme(numbers: &PyValue, op: Cmp, empty: &str) -> Result<Output, String> {
    if !truthy(numbers) {
        return Ok(error(empty));
    }
    catch_type(
        (|| {
            let items = iterate(numbers)?;
            let mut best = items[0].clone();
            for item in &items[1..] {
                if compare(op, item, &best)? {
                    best = item.clone();
                }
            }
            Ok(result(best))
        })(),
        "All elements in the list must be numbers",
    )
}

/// An instance of `MathAPI` (stateless: no public attributes).
#[derive(Debug, Default)]
pub struct MathApi;

impl ApiClass for MathApi {
    fn class_name(&self) -> &'static str {
        "MathAPI"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String> {
        let none = PyValue::None;
        let arg = |i: usize| args.get(i).unwrap_or(&none);
        refuse_complex(&args.iter().collect::<Vec<_>>())?;
        let numbers_error = "All elements in the list must be numbers";
        let (a, b) = (arg(0), arg(1));
        match method {
            "logarithm" => logarithm(a, b, arg(2)),
            "mean" => mean(a),
            "standard_deviation" => standard_deviation(a),
            "si_unit_conversion" => si_unit_conversion(a, b, arg(2)),
            "imperial_si_conversion" => imperial_si_conversion(a, b, arg(2)),
            "add" => catch_type(
                binop(Op::Add, a, b).map(result),
                "Both inputs must be numbers",
            ),
            "subtract" => catch_type(
                binop(Op::Sub, a, b).map(result),
                "Both inputs must be numbers",
            ),
            "multiply" => {
                if !is_number(a) || !is_number(b) {
                    return Ok(error("Both inputs must be numbers"));
                }
                catch_type(
                    binop(Op::Mul, a, b).map(result),
                    "Both inputs must be numbers",
                )
            }
            "divide" => {
                if py_eq(b, &PyValue::Int("0".into())) {
                    return Ok(error("Cannot divide by zero"));
                }
                catch_type(
                    binop(Op::Div, a, b).map(result),
                    "Both inputs must be numbers",
                )
            }
            "power" => power_method(a, b),
            "square_root" => square_root(a, b),
            "absolute_value" => absolute_value(a),
            "round_number" => round_number(a, b),
            "percentage" => percentage(a, b),
            "min_value" => extreme(a, Cmp::Lt, "Cannot find minimum of an empty list"),
            "max_value" => extreme(a, Cmp::Gt, "Cannot find maximum of an empty list"),
            "sum_values" => {
                if !truthy(a) {
                    return Ok(error("Cannot calculate sum of an empty list"));
                }
                catch_type(
                    iterate(a).and_then(|items| sum(&items)).map(result),
                    numbers_error,
                )
            }
            other => Err(format!("'MathAPI' object has no attribute '{other}'")),
        }
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::bfcl::multi_turn::apis::Globals;
    use crate::benchmarks::bfcl::multi_turn::exec::{EntrySetup, Instances};

    fn run(call: &str) -> String {
        let setup = EntrySetup {
            entry_id: "multi_turn_base_0".into(),
            involved_classes: vec!["MathAPI".into()],
            initial_config: PyValue::Dict(vec![]),
            long_context: false,
        };
        let mut instances = Instances::new(setup, "m");
        let mut executed = instances.execute(&[call.to_string()], &Globals::default());
        executed.remove(0).result.expect("a ported class")
    }

    /// Calls with model-typed arguments and what the official class gives
    /// for them (CPython 3.11.7, mpmath 1.3.0, through the official
    /// executor's rendering).
    const CASES: &[(&str, &str)] = &[
        (
            "logarithm(value=1,base=10,precision=5)",
            "{'result': mpf('0.0')}",
        ),
        (
            "logarithm(value=10,base=1,precision=5)",
            "{\"error\": \"\"}",
        ),
        (
            "logarithm(value=0,base=10,precision=5)",
            "{'result': mpf('-inf')}",
        ),
        (
            "logarithm(value=10,base=2,precision=0)",
            "{'result': mpf('3.5')}",
        ),
        (
            "logarithm(value=10,base=2,precision=-7)",
            "{'result': mpf('4.0')}",
        ),
        (
            "logarithm(value=10,base=2,precision=2.7)",
            "{'result': mpf('3.3164')}",
        ),
        (
            "logarithm(value=10,base=2,precision='5')",
            "{'result': mpf('3.3219299')}",
        ),
        (
            "logarithm(value=10,base=2,precision='abc')",
            "{\"error\": \"invalid literal for int() with base 10: 'abc'\"}",
        ),
        (
            "logarithm(value=10,base=2,precision=None)",
            "{\"error\": \"int() argument must be a string, a bytes-like object or a real number, not 'NoneType'\"}",
        ),
        (
            "logarithm(value=10,base=2,precision=[1])",
            "{\"error\": \"int() argument must be a string, a bytes-like object or a real number, not 'list'\"}",
        ),
        (
            "logarithm(value=10,base=2,precision=True)",
            "{'result': mpf('3.313')}",
        ),
        (
            "logarithm(value='10',base=2,precision=5)",
            "{'result': mpf('3.3219299')}",
        ),
        (
            "logarithm(value='abc',base=2,precision=5)",
            "{\"error\": \"cannot create mpf from 'abc'\"}",
        ),
        (
            "logarithm(value=[1],base=2,precision=5)",
            "{\"error\": \"cannot create mpf from [1]\"}",
        ),
        (
            "logarithm(value=None,base=2,precision=5)",
            "{\"error\": \"cannot create mpf from None\"}",
        ),
        (
            "logarithm(value=True,base=2,precision=5)",
            "{'result': mpf('0.0')}",
        ),
        (
            "logarithm(value='1/3',base=2,precision=5)",
            "{'result': mpf('-1.5849628')}",
        ),
        (
            "logarithm(value=' 5L ',base=2,precision=5)",
            "{'result': mpf('2.3219299')}",
        ),
        (
            "logarithm(value='-nan',base=2,precision=5)",
            "{\"error\": \"cannot create mpf from '-nan'\"}",
        ),
        (
            "logarithm(value='2.5e3',base='1_0',precision=8)",
            "{'result': mpf('3.3979400098')}",
        ),
        (
            "logarithm(value={'a': 1},base=2,precision=5)",
            "{\"error\": \"cannot create mpf from {'a': 1}\"}",
        ),
        (
            "logarithm(value=2,base=-2,precision=5)",
            "{'result': mpc(real='0.046420217', imag='-0.21039343')}",
        ),
        (
            "logarithm(value=-1,base=2,precision=5)",
            "{'result': mpc(real='0.0', imag='4.5323639')}",
        ),
        (
            "logarithm(value=1.0000000000000002,base=2,precision=40)",
            "{'result': mpf('3.203426503814917330334121037829290364330178e-16')}",
        ),
        (
            "logarithm(value=0.9999999999999999,base=3,precision=25)",
            "{'result': mpf('-1.010568547318110792668419159e-16')}",
        ),
        (
            "logarithm(value=2,base=10,precision=14)",
            "{'result': mpf('0.30102999566398125')}",
        ),
        (
            "logarithm(value=2,base=10,precision=15)",
            "{'result': mpf('0.30102999566398114')}",
        ),
        (
            "logarithm(value=2,base=10,precision=16)",
            "{'result': mpf('0.301029995663981198')}",
        ),
        (
            "logarithm(value=1e-320,base=10,precision=12)",
            "{'result': mpf('-320.000004834961')}",
        ),
        (
            "mean(numbers='abc')",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "mean(numbers=5)",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "mean(numbers=None)",
            "{\"error\": \"Cannot calculate mean of an empty list\"}",
        ),
        (
            "mean(numbers=[True, 2, 3.5])",
            "{\"result\": 2.1666666666666665}",
        ),
        (
            "mean(numbers={'a': 1})",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "mean(numbers=[1000000000000000000000000000000, 1])",
            "{\"result\": 5e+29}",
        ),
        ("mean(numbers=[1e+308, 1e+308])", "{\"result\": Infinity}"),
        (
            "standard_deviation(numbers=[1, 2, 3, 4])",
            "{\"result\": 1.118033988749895}",
        ),
        (
            "standard_deviation(numbers=[1e+200, -1e+200])",
            "Error during execution: (34, 'Numerical result out of range')",
        ),
        (
            "standard_deviation(numbers=['a'])",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        ("standard_deviation(numbers=[5])", "{\"result\": 0.0}"),
        (
            "si_unit_conversion(value=5,unit_in='km',unit_out='m')",
            "{\"result\": 5000.0}",
        ),
        (
            "si_unit_conversion(value=5,unit_in='um',unit_out='nm')",
            "{\"result\": 4999.999999999999}",
        ),
        (
            "si_unit_conversion(value=5.5,unit_in='mm',unit_out='km')",
            "{\"result\": 5.5e-06}",
        ),
        (
            "si_unit_conversion(value='5',unit_in='km',unit_out='m')",
            "{\"error\": \"Value must be a number\"}",
        ),
        (
            "si_unit_conversion(value=5,unit_in=['km'],unit_out='m')",
            "Error during execution: unhashable type: 'list'",
        ),
        (
            "si_unit_conversion(value=5,unit_in='mi',unit_out=None)",
            "{\"error\": \"Conversion from 'mi' to 'None' is not supported\"}",
        ),
        (
            "imperial_si_conversion(value=100,unit_in='celsius',unit_out='fahrenheit')",
            "{\"result\": 212.0}",
        ),
        (
            "imperial_si_conversion(value=212,unit_in='fahrenheit',unit_out='celsius')",
            "{\"result\": 100.0}",
        ),
        (
            "imperial_si_conversion(value=3,unit_in='miles',unit_out='km')",
            "{\"result\": 4.82802}",
        ),
        (
            "imperial_si_conversion(value=3,unit_in='x',unit_out='x')",
            "{\"result\": 3}",
        ),
        (
            "imperial_si_conversion(value=3,unit_in=1,unit_out=2)",
            "{\"error\": \"Conversion from '1' to '2' is not supported\"}",
        ),
        ("add(a='ab',b='c')", "{\"result\": \"abc\"}"),
        ("add(a=[1],b=[2, 3])", "{\"result\": [1, 2, 3]}"),
        (
            "add(a=1,b='x')",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        (
            "add(a=1000000000000000000000000000000,b=1)",
            "{\"result\": 1000000000000000000000000000001}",
        ),
        ("add(a=True,b=True)", "{\"result\": 2}"),
        (
            "add(a=None,b=None)",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        (
            "subtract(a=0.1,b=0.3)",
            "{\"result\": -0.19999999999999998}",
        ),
        (
            "multiply(a='a',b=3)",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        ("multiply(a=2.5,b=True)", "{\"result\": 2.5}"),
        ("divide(a=1,b=0)", "{\"error\": \"Cannot divide by zero\"}"),
        (
            "divide(a=1,b=0.0)",
            "{\"error\": \"Cannot divide by zero\"}",
        ),
        (
            "divide(a=1,b=False)",
            "{\"error\": \"Cannot divide by zero\"}",
        ),
        (
            "divide(a='a',b='b')",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        ("divide(a=7,b=2)", "{\"result\": 3.5}"),
        ("power(base=2,exponent=10)", "{\"result\": 1024}"),
        ("power(base=2,exponent=-2)", "{\"result\": 0.25}"),
        (
            "power(base=0,exponent=-1)",
            "Error during execution: 0.0 cannot be raised to a negative power",
        ),
        (
            "power(base=-8,exponent=0.5)",
            "{'result': (1.7319121124709868e-16+2.8284271247461903j)}",
        ),
        (
            "power(base=-8,exponent=0.3333333333333333)",
            "{'result': (1.0000000000000002+1.7320508075688772j)}",
        ),
        (
            "power(base=1e+200,exponent=2)",
            "Error during execution: (34, 'Numerical result out of range')",
        ),
        (
            "power(base=2,exponent=100000)",
            "Error during execution: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit",
        ),
        (
            "power(base='a',exponent=2)",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        ("power(base=2.5,exponent=3)", "{\"result\": 15.625}"),
        ("power(base=-2.0,exponent=3)", "{\"result\": -8.0}"),
        (
            "square_root(number=2,precision=0)",
            "Error during execution: valid range for prec is [1, MAX_PREC]",
        ),
        (
            "square_root(number=2,precision=True)",
            "{'result': Decimal('1')}",
        ),
        (
            "square_root(number=-1,precision=3)",
            "{\"error\": \"Cannot calculate square root of a negative number\"}",
        ),
        (
            "square_root(number=2,precision=100000000000000000000)",
            "Error during execution: Python int too large to convert to C ssize_t",
        ),
        ("absolute_value(number=-5)", "{\"result\": 5}"),
        ("absolute_value(number=-2.5)", "{\"result\": 2.5}"),
        ("absolute_value(number=True)", "{\"result\": 1}"),
        (
            "absolute_value(number='x')",
            "{\"error\": \"Input must be a number\"}",
        ),
        (
            "round_number(number=2.675,decimal_places=2)",
            "{\"result\": 2.67}",
        ),
        ("round_number(number=2.5)", "{\"result\": 2.0}"),
        (
            "round_number(number=2.5,decimal_places=None)",
            "{\"result\": 2}",
        ),
        (
            "round_number(number=15,decimal_places=-1)",
            "{\"result\": 20}",
        ),
        (
            "round_number(number=25,decimal_places=-1)",
            "{\"result\": 20}",
        ),
        (
            "round_number(number=1e+300,decimal_places=-400)",
            "{\"result\": 0.0}",
        ),
        ("round_number(number=-0.4)", "{\"result\": -0.0}"),
        (
            "round_number(number=1.5,decimal_places=1.5)",
            "{\"error\": \"First input must be a number, second input must be an integer\"}",
        ),
        (
            "round_number(number='x',decimal_places=1)",
            "{\"error\": \"First input must be a number, second input must be an integer\"}",
        ),
        (
            "round_number(number=1.7976931348623157e+308,decimal_places=-308)",
            "Error during execution: rounded value too large to represent",
        ),
        (
            "round_number(number=123.456,decimal_places=-1)",
            "{\"result\": 120.0}",
        ),
        (
            "round_number(number=True,decimal_places=3)",
            "{\"result\": 1}",
        ),
        (
            "round_number(number=0.1,decimal_places=400)",
            "{\"result\": 0.1}",
        ),
        (
            "percentage(part=1,whole=3)",
            "{\"result\": 33.33333333333333}",
        ),
        (
            "percentage(part=1,whole=0)",
            "{\"error\": \"Whole value cannot be zero\"}",
        ),
        (
            "percentage(part='a',whole=3)",
            "{\"error\": \"Both inputs must be numbers\"}",
        ),
        ("min_value(numbers=[3, 1.0, 1, 2])", "{\"result\": 1.0}"),
        ("min_value(numbers='cab')", "{\"result\": \"a\"}"),
        ("min_value(numbers=[[1, 2], [1]])", "{\"result\": [1]}"),
        (
            "min_value(numbers=[1, 'a'])",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "min_value(numbers=5)",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        ("max_value(numbers=[1, True, 1.0])", "{\"result\": 1}"),
        ("max_value(numbers={'b': 1, 'a': 2})", "{\"result\": \"b\"}"),
        (
            "sum_values(numbers=[0.1, 0.2, 0.3])",
            "{\"result\": 0.6000000000000001}",
        ),
        ("sum_values(numbers=[1, 2])", "{\"result\": 3}"),
        (
            "sum_values(numbers=['a'])",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "sum_values(numbers=[])",
            "{\"error\": \"Cannot calculate sum of an empty list\"}",
        ),
        (
            "sum_values(numbers=5)",
            "{\"error\": \"All elements in the list must be numbers\"}",
        ),
        (
            "power(base=-1,exponent=1000000000000000000000000000000)",
            "{\"result\": 1}",
        ),
    ];

    #[test]
    fn hostile_arguments_give_the_official_results() {
        let mismatches: Vec<String> = CASES
            .iter()
            .filter_map(|(call, want)| {
                let got = run(call);
                (got != *want).then(|| format!("{call}\n  itc:      {got}\n  official: {want}"))
            })
            .collect();
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }

    #[test]
    fn huge_integers_fail_as_printing_them_fails_without_being_computed() {
        let limit = "Error during execution: Exceeds the limit (4300 digits) for integer \
                     string conversion; use sys.set_int_max_str_digits() to increase the limit";
        assert_eq!(run("power(base=2, exponent=100000)"), limit);
        // Python would compute 10**(10**30) for ever; 5 rounds to 0 long before.
        assert_eq!(
            run("round_number(number=5, decimal_places=-1000000000000000000000000000000)"),
            r#"{"result": 0}"#
        );
        assert_eq!(
            run("power(base=7, exponent=1000000000000000000000000000000)"),
            limit
        );
    }

    #[test]
    fn precision_is_bounded_with_a_clear_error() {
        assert_eq!(
            run("logarithm(value=10, base=2, precision=1000000000)"),
            r#"{"error": "itc computes logarithms to at most 2000 digits"}"#
        );
        assert_eq!(
            run("square_root(number=2, precision=1000000)"),
            "Error during execution: itc computes square roots to at most 2000 digits"
        );
        // At the bound, every one of mpmath's 2003 digits (2024 characters).
        let long = run("logarithm(value=3, base=7, precision=2000)");
        assert!(long.starts_with("{'result': mpf('0.564575034"), "{long}");
        assert!(long.ends_with("8228940542928280047649290713')}"), "{long}");
        assert_eq!(long.len(), 2024);
    }
}
