//! The values an expression over digits, `+ - * / ( ) .` can make in
//! Python (`int`, `float`, `complex`, the empty tuple, `Ellipsis`) and
//! CPython 3.12's arithmetic on them, error texts included.

use num_bigint::{BigInt, Sign};
use num_integer::Integer;

use crate::benchmarks::bfcl::arith::{PowFail, float_divmod, float_pow};
use crate::benchmarks::bfcl::multi_turn::apis::py_num::{int_to_f64, ratio_to_f64};
use crate::benchmarks::python::float_repr;

/// Integers beyond this many bits (about 19,700 digits) are not computed:
/// CPython would (an `int` has no size limit), but a few operators on them
/// could take it hours, and an expression ending in a `float` rarely needs
/// them.
pub const INT_BITS_LIMIT: u64 = 65_536;

/// `sys.get_int_max_str_digits()`: `str()` of a longer `int` raises.
const MAX_STR_DIGITS: usize = 4300;

/// What an integer beyond [`INT_BITS_LIMIT`] gives: the error the final
/// `float()` would raise on it.
pub fn bits_limit_error() -> String {
    "int too large to convert to float".into()
}

/// A Python value.
#[derive(Debug, Clone)]
pub enum Value {
    /// `int`.
    Int(BigInt),
    /// `float`.
    Float(f64),
    /// `complex` (real, imaginary).
    Complex(f64, f64),
    /// `()`.
    Tuple,
    /// `...`.
    Ellipsis,
}

type R<T> = Result<T, String>;

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Complex(..) => "complex",
            Value::Tuple => "tuple",
            Value::Ellipsis => "ellipsis",
        }
    }

    /// `float(value)`.
    pub fn to_float(&self) -> R<f64> {
        match self {
            Value::Int(i) => int_to_float(i),
            Value::Float(x) => Ok(*x),
            other => Err(format!(
                "float() argument must be a string or a real number, not '{}'",
                other.type_name()
            )),
        }
    }

    /// `str(value)`.
    fn to_str(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Float(x) => float_repr(*x),
            Value::Complex(re, im) => complex_repr(*re, *im),
            Value::Tuple => "()".into(),
            Value::Ellipsis => "Ellipsis".into(),
        }
    }
}

/// The binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `//`.
    FloorDiv,
    /// `**`.
    Pow,
}

/// A call's argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// `f()`.
    None,
    /// `f(x)`.
    Plain,
    /// `f(*x)`.
    Star,
    /// `f(**x)`.
    DoubleStar,
}

/// `callee(arg)`, `callee(*arg)` or `callee(**arg)`: always CPython's
/// `TypeError`, since no value here is callable.
pub fn call(callee: Value, arg: Arg, value: Option<Value>) -> R<Value> {
    let name = || -> R<String> {
        let text = callee.to_str();
        if text.trim_start_matches('-').len() > MAX_STR_DIGITS {
            return Err(format!(
                "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
            ));
        }
        Ok(text)
    };
    match (arg, value) {
        (Arg::Star, Some(v)) if !matches!(v, Value::Tuple) => {
            return Err(format!(
                "{} argument after * must be an iterable, not {}",
                name()?,
                v.type_name()
            ));
        }
        (Arg::DoubleStar, Some(v)) => {
            return Err(format!(
                "{} argument after ** must be a mapping, not {}",
                name()?,
                v.type_name()
            ));
        }
        _ => {}
    }
    Err(format!("'{}' object is not callable", callee.type_name()))
}

/// `-v` (`negative`) or `+v`.
pub fn unary(negative: bool, v: Value) -> R<Value> {
    Ok(match (negative, v) {
        (true, Value::Int(i)) => Value::Int(-i),
        (true, Value::Float(x)) => Value::Float(-x),
        (true, Value::Complex(re, im)) => Value::Complex(-re, -im),
        (false, v @ (Value::Int(_) | Value::Float(_) | Value::Complex(..))) => v,
        (negative, other) => {
            return Err(format!(
                "bad operand type for unary {}: '{}'",
                if negative { '-' } else { '+' },
                other.type_name()
            ));
        }
    })
}

fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        BinOp::Pow => "** or pow()",
    }
}

fn unsupported(op: BinOp, a: &Value, b: &Value) -> String {
    format!(
        "unsupported operand type(s) for {}: '{}' and '{}'",
        symbol(op),
        a.type_name(),
        b.type_name()
    )
}

/// `a op b`.
pub fn binary(op: BinOp, a: Value, b: Value) -> R<Value> {
    use Value::{Complex, Float, Int};
    match (&a, &b) {
        (Int(x), Int(y)) => int_op(op, x, y),
        (Int(_) | Float(_), Int(_) | Float(_)) => float_op(op, a.to_float()?, b.to_float()?),
        (Int(_) | Float(_) | Complex(..), Int(_) | Float(_) | Complex(..)) => {
            if op == BinOp::FloorDiv {
                return Err(unsupported(op, &a, &b));
            }
            complex_op(op, complex_of(&a)?, complex_of(&b)?)
        }
        _ => sequence_op(op, &a, &b),
    }
}

/// An operator with a tuple or `Ellipsis` on one side.
fn sequence_op(op: BinOp, a: &Value, b: &Value) -> R<Value> {
    use Value::{Int, Tuple};
    match (op, a, b) {
        (BinOp::Add, Tuple, Tuple) => Ok(Tuple),
        (BinOp::Add, Tuple, other) => Err(format!(
            "can only concatenate tuple (not \"{}\") to tuple",
            other.type_name()
        )),
        (BinOp::Mul, Tuple, Int(n)) | (BinOp::Mul, Int(n), Tuple) => {
            if i64::try_from(n).is_err() {
                return Err("cannot fit 'int' into an index-sized integer".into());
            }
            Ok(Tuple)
        }
        (BinOp::Mul, Tuple, other) | (BinOp::Mul, other, Tuple) => Err(format!(
            "can't multiply sequence by non-int of type '{}'",
            other.type_name()
        )),
        _ => Err(unsupported(op, a, b)),
    }
}

fn check_bits(i: BigInt) -> R<Value> {
    if i.bits() > INT_BITS_LIMIT {
        return Err(bits_limit_error());
    }
    Ok(Value::Int(i))
}

fn int_op(op: BinOp, x: &BigInt, y: &BigInt) -> R<Value> {
    match op {
        BinOp::Add => check_bits(x + y),
        BinOp::Sub => check_bits(x - y),
        BinOp::Mul => {
            if x.bits() + y.bits() > INT_BITS_LIMIT + 1 {
                return Err(bits_limit_error());
            }
            check_bits(x * y)
        }
        BinOp::Div => int_true_divide(x, y).map(Value::Float),
        BinOp::FloorDiv => {
            if y.sign() == Sign::NoSign {
                return Err("integer division or modulo by zero".into());
            }
            Ok(Value::Int(x.div_floor(y)))
        }
        BinOp::Pow => int_pow(x, y),
    }
}

/// `x ** y` on ints: exact for `y >= 0`, through floats for `y < 0`.
fn int_pow(x: &BigInt, y: &BigInt) -> R<Value> {
    if y.sign() == Sign::Minus {
        return float_op(BinOp::Pow, int_to_float(x)?, int_to_float(y)?);
    }
    let one = BigInt::from(1u8);
    if y.sign() == Sign::NoSign {
        return Ok(Value::Int(one));
    }
    if x.magnitude().bits() <= 1 {
        // 0, 1 and -1 stay small for any exponent.
        let even_negative = x.sign() == Sign::Minus && y.is_even();
        return Ok(Value::Int(if even_negative { one } else { x.clone() }));
    }
    let exponent = u32::try_from(y)
        .ok()
        .filter(|&e| u64::from(e).saturating_mul(x.bits() - 1) <= INT_BITS_LIMIT);
    match exponent {
        Some(e) => check_bits(x.pow(e)),
        None => Err(bits_limit_error()),
    }
}

/// `float(i)`: correctly rounded, `OverflowError` beyond the float range.
fn int_to_float(i: &BigInt) -> R<f64> {
    int_to_f64(i).map_err(String::from)
}

/// `x / y` on ints: the correctly rounded quotient (`long_true_divide`).
fn int_true_divide(x: &BigInt, y: &BigInt) -> R<f64> {
    if y.sign() == Sign::NoSign {
        return Err("division by zero".into());
    }
    ratio_to_f64(x, y).ok_or_else(|| "integer division result too large for a float".into())
}

fn float_op(op: BinOp, x: f64, y: f64) -> R<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err("float division by zero".into());
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err("float floor division by zero".into());
            }
            float_divmod(x, y).0
        }
        BinOp::Pow => {
            return match float_pow(x, y) {
                Ok(z) => Ok(Value::Float(z)),
                Err(PowFail::Complex) => complex_pow((x, 0.0), (y, 0.0)),
                Err(fail) => Err(fail.text().into()),
            };
        }
    }))
}

fn complex_of(v: &Value) -> R<(f64, f64)> {
    match v {
        Value::Complex(re, im) => Ok((*re, *im)),
        other => Ok((other.to_float()?, 0.0)),
    }
}

type C = (f64, f64);

fn c_prod(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `_Py_c_quot`: `None` for a zero divisor.
fn c_quot(a: C, b: C) -> Option<C> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return None;
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Some(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Some(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        Some((f64::NAN, f64::NAN))
    }
}

fn complex_op(op: BinOp, a: C, b: C) -> R<Value> {
    let (re, im) = match op {
        BinOp::Add => (a.0 + b.0, a.1 + b.1),
        BinOp::Sub => (a.0 - b.0, a.1 - b.1),
        BinOp::Mul => c_prod(a, b),
        BinOp::Div => c_quot(a, b).ok_or("complex division by zero")?,
        BinOp::Pow => return complex_pow(a, b),
        BinOp::FloorDiv => unreachable!("refused by the caller"),
    };
    Ok(Value::Complex(re, im))
}

/// CPython's `complex_pow`: small integer exponents by repeated
/// multiplication, others through polar form.
fn complex_pow(a: C, b: C) -> R<Value> {
    const DIVIDE: &str = "0.0 to a negative or complex power";
    let p = if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        let mut power = (1.0, 0.0);
        let mut base = a;
        let mut m = n.unsigned_abs();
        while m > 0 {
            if m & 1 == 1 {
                power = c_prod(power, base);
            }
            base = c_prod(base, base);
            m >>= 1;
        }
        if n < 0 {
            c_quot((1.0, 0.0), power).ok_or(DIVIDE)?
        } else {
            power
        }
    } else if b == (0.0, 0.0) {
        (1.0, 0.0)
    } else if a == (0.0, 0.0) {
        if b.1 != 0.0 || b.0 < 0.0 {
            return Err(DIVIDE.into());
        }
        (0.0, 0.0)
    } else {
        let vabs = a.0.hypot(a.1);
        let mut len = vabs.powf(b.0);
        let at = a.1.atan2(a.0);
        let mut phase = at * b.0;
        if b.1 != 0.0 {
            len /= (at * b.1).exp();
            phase += b.1 * vabs.ln();
        }
        (len * phase.cos(), len * phase.sin())
    };
    if p.0.is_infinite() || p.1.is_infinite() {
        return Err("complex exponentiation".into());
    }
    Ok(Value::Complex(p.0, p.1))
}

/// `repr(complex)`: `2j`, `(1.5-0j)`, parts written like floats without a
/// trailing `.0`.
fn complex_repr(re: f64, im: f64) -> String {
    let part = |x: f64| {
        let text = float_repr(x);
        text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
    };
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", part(im));
    }
    let imag = part(im);
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", part(re))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_division_is_correctly_rounded() {
        let big = |s: &str| s.parse::<BigInt>().unwrap();
        // 2**60 + 1 over 3, and a quotient in the subnormal range, as
        // CPython computes them.
        assert_eq!(
            int_true_divide(&big("1152921504606846977"), &big("3")).unwrap(),
            384307168202282325.0
        );
        let tiny = int_true_divide(&BigInt::from(1u8), &(BigInt::from(1u8) << 1074u32)).unwrap();
        assert_eq!(tiny, 5e-324);
        let below_half =
            int_true_divide(&BigInt::from(1u8), &(BigInt::from(1u8) << 1076u32)).unwrap();
        assert_eq!(below_half, 0.0);
        assert_eq!(complex_repr(0.0, 2.0), "2j");
        assert_eq!(complex_repr(-0.0, -1.0), "(-0-1j)");
        assert_eq!(complex_repr(1.5, 0.5), "(1.5+0.5j)");
    }
}
