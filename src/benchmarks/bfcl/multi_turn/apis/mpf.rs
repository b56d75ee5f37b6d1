//! mpmath's binary floating-point numbers (`mpf`, mpmath 1.3.0, its pure
//! Python backend) as far as `MathAPI.logarithm` uses them: conversion of
//! Python values, `log` (to a complex value for a negative argument),
//! correctly rounded division (real and complex, with mpmath's formulas
//! and intermediate precisions), and `repr` (`mpf('2.7993393')`,
//! `mpc(real='2.0', imag='1.753357')`) through a port of mpmath's
//! `to_str`, digit for digit.
//!
//! Rounding is mpmath's default, to nearest with ties to even, at
//! `mp.prec` bits. `log` and `pi` are computed to enough bits to round
//! correctly (Ziv's strategy: the interval of the approximation is
//! widened until both ends round alike). mpmath computes them with
//! 20-odd guard bits and rounds once, so the two can differ only where the
//! exact logarithm lies within about 2^-(prec+20) (relative) of a midpoint
//! between two neighbouring `prec`-bit floats: roughly one argument in a
//! million, none among the reference traces.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::{Integer, Roots};

/// `math.log(10, 2)` as Python computes it (mpmath's constant too).
pub const LOG2_10: f64 = 3.3219280948873626;

/// A real mpmath value (mpmath has no negative zero).
#[derive(Debug, Clone, PartialEq)]
pub enum Mpf {
    /// Zero.
    Zero,
    /// `(-1)^neg * man * 2^exp`, `man` odd.
    Finite {
        /// Negative.
        neg: bool,
        /// The mantissa (odd).
        man: BigUint,
        /// The binary exponent.
        exp: i64,
    },
    /// Infinity, negative when `true`.
    Inf(bool),
    /// Not a number.
    Nan,
}

impl Mpf {
    /// An exact value `(-1)^neg * man * 2^exp`.
    pub fn exact(neg: bool, man: BigUint, exp: i64) -> Mpf {
        let Some(zeros) = man.trailing_zeros() else {
            return Mpf::Zero;
        };
        Mpf::Finite {
            neg,
            man: man >> zeros,
            exp: exp + zeros as i64,
        }
    }

    /// An `int`, exactly.
    pub fn from_int(i: &BigInt) -> Mpf {
        Mpf::exact(i.sign() == Sign::Minus, i.magnitude().clone(), 0)
    }

    /// A `float`, exactly.
    pub fn from_f64(x: f64) -> Mpf {
        if x.is_nan() {
            return Mpf::Nan;
        }
        if x.is_infinite() {
            return Mpf::Inf(x < 0.0);
        }
        let (man, exp) = super::py_num::f64_parts(x);
        Mpf::exact(x < 0.0, BigUint::from(man), exp)
    }

    fn is_neg(&self) -> bool {
        matches!(self, Mpf::Finite { neg: true, .. } | Mpf::Inf(true))
    }

    fn neg(self) -> Mpf {
        match self {
            Mpf::Finite { neg, man, exp } => Mpf::Finite {
                neg: !neg,
                man,
                exp,
            },
            Mpf::Inf(n) => Mpf::Inf(!n),
            other => other,
        }
    }

    /// The value rounded to `prec` bits.
    pub fn round(self, prec: u64) -> Mpf {
        match self {
            Mpf::Finite { neg, man, exp } => round_bits(neg, man, exp, prec, false),
            other => other,
        }
    }
}

/// `(-1)^neg * (man + sticky) * 2^exp` rounded to `prec` bits, to nearest
/// with ties to even; `sticky` means "a little more than `man`" and needs
/// `man` to have more than `prec + 1` bits.
fn round_bits(neg: bool, man: BigUint, exp: i64, prec: u64, sticky: bool) -> Mpf {
    let bc = man.bits();
    if bc <= prec {
        return Mpf::exact(neg, man, exp);
    }
    let shift = bc - prec;
    let kept = &man >> shift;
    let rest = man - (&kept << shift);
    let half = BigUint::from(1u8) << (shift - 1);
    let up = match rest.cmp(&half) {
        Ordering::Greater => true,
        Ordering::Equal => sticky || kept.bit(0),
        Ordering::Less => false,
    };
    let kept = if up { kept + 1u8 } else { kept };
    Mpf::exact(neg, kept, exp + shift as i64)
}

/// A fixed-point value `v * 2^-g` rounded to `prec` bits.
fn round_fixed(v: &BigInt, g: u64, prec: u64) -> Mpf {
    round_bits(
        v.sign() == Sign::Minus,
        v.magnitude().clone(),
        -(g as i64),
        prec,
        false,
    )
}

/// Exact product (mpmath's `mpf_mul` without a precision).
pub fn mul(a: &Mpf, b: &Mpf) -> Mpf {
    match (a, b) {
        (Mpf::Nan, _) | (_, Mpf::Nan) => Mpf::Nan,
        (Mpf::Inf(_), Mpf::Zero) | (Mpf::Zero, Mpf::Inf(_)) => Mpf::Nan,
        (Mpf::Zero, _) | (_, Mpf::Zero) => Mpf::Zero,
        (Mpf::Inf(_), _) | (_, Mpf::Inf(_)) => Mpf::Inf(a.is_neg() != b.is_neg()),
        (
            Mpf::Finite {
                neg: n1,
                man: m1,
                exp: e1,
            },
            Mpf::Finite {
                neg: n2,
                man: m2,
                exp: e2,
            },
        ) => Mpf::exact(n1 != n2, m1 * m2, e1 + e2),
    }
}

/// `a + b` rounded to `prec` bits (mpmath's `mpf_add`, which rounds
/// correctly).
pub fn add(a: &Mpf, b: &Mpf, prec: u64) -> Mpf {
    match (a, b) {
        (Mpf::Nan, _) | (_, Mpf::Nan) => Mpf::Nan,
        (Mpf::Inf(x), Mpf::Inf(y)) if x != y => Mpf::Nan,
        (Mpf::Inf(x), _) | (_, Mpf::Inf(x)) => Mpf::Inf(*x),
        (Mpf::Zero, x) | (x, Mpf::Zero) => x.clone().round(prec),
        (
            Mpf::Finite {
                neg: n1,
                man: m1,
                exp: e1,
            },
            Mpf::Finite {
                neg: n2,
                man: m2,
                exp: e2,
            },
        ) => {
            let e = (*e1).min(*e2);
            let signed = |neg: bool, man: &BigUint, exp: i64| {
                let v = BigInt::from(man.clone() << ((exp - e) as u64));
                if neg { -v } else { v }
            };
            let sum = signed(*n1, m1, *e1) + signed(*n2, m2, *e2);
            round_bits(
                sum.sign() == Sign::Minus,
                sum.magnitude().clone(),
                e,
                prec,
                false,
            )
        }
    }
}

/// `a - b` rounded to `prec` bits.
pub fn sub(a: &Mpf, b: &Mpf, prec: u64) -> Mpf {
    add(a, &b.clone().neg(), prec)
}

/// `a / b` rounded to `prec` bits (mpmath's `mpf_div`); `Err` for
/// mpmath's `ZeroDivisionError` (its text is empty).
pub fn div(a: &Mpf, b: &Mpf, prec: u64) -> Result<Mpf, String> {
    Ok(match (a, b) {
        (_, Mpf::Zero) => return Err(String::new()),
        (Mpf::Nan, _) | (_, Mpf::Nan) => Mpf::Nan,
        (Mpf::Zero, _) => Mpf::Zero,
        (Mpf::Inf(_), Mpf::Inf(_)) => Mpf::Nan,
        (Mpf::Inf(_), _) => Mpf::Inf(a.is_neg() != b.is_neg()),
        (_, Mpf::Inf(_)) => Mpf::Zero,
        (
            Mpf::Finite {
                neg: n1,
                man: m1,
                exp: e1,
            },
            Mpf::Finite {
                neg: n2,
                man: m2,
                exp: e2,
            },
        ) => {
            let extra = (prec as i64 + 3 + m2.bits() as i64 - m1.bits() as i64).max(0) as u64;
            let (q, r) = (m1 << extra).div_rem(m2);
            let sticky = r.bits() > 0;
            round_bits(n1 != n2, q, e1 - e2 - extra as i64, prec, sticky)
        }
    })
}

/// `atanh(1/q) * 2^g` (or `atan(1/q) * 2^g` when `alternating`)
/// truncated, for an integer `q >= 2`, with its error bound in units of
/// `2^-g`.
fn arc_inv(q: u32, g: u64, alternating: bool) -> (BigInt, u64) {
    let q2 = BigUint::from(q) * q;
    let mut power = (BigUint::from(1u8) << g) / q;
    let mut sum = BigInt::from(0u8);
    let mut k = 0u64;
    while power.bits() > 0 {
        let term = BigInt::from(&power / (2 * k + 1));
        if alternating && !k.is_multiple_of(2) {
            sum -= term;
        } else {
            sum += term;
        }
        power /= &q2;
        k += 1;
    }
    (sum, 2 * k + 2)
}

/// Rounds an approximation computed by `approx(g)` (a fixed-point value at
/// scale `2^-g` and its error bound in units) to `prec` bits, increasing
/// `g` until the rounding is certain (or a generous bound is reached).
fn ziv(prec: u64, approx: impl Fn(u64) -> (BigInt, u64)) -> Mpf {
    let mut g = prec + 40;
    let limit = 8 * prec + 4096;
    loop {
        let (v, err) = approx(g);
        let lo = round_fixed(&(&v - err), g, prec);
        let hi = round_fixed(&(&v + err), g, prec);
        if (lo == hi && v.magnitude().bits() > err.max(1).ilog2() as u64 + 2) || g > limit {
            return round_fixed(&v, g, prec);
        }
        g += g / 2 + 32;
    }
}

/// `pi` rounded to `prec` bits.
pub fn pi(prec: u64) -> Mpf {
    ziv(prec, |g| {
        let (a, ea) = arc_inv(5, g, true);
        let (b, eb) = arc_inv(239, g, true);
        (a * 16 - b * 4, 16 * ea + 4 * eb + 8)
    })
}

/// `ln(man * 2^exp)` for a positive odd `man` other than 1 at exponent 0,
/// at scale `2^-g`, with its error bound in units.
fn ln_fixed(man: &BigUint, exp: i64, g: u64) -> (BigInt, u64) {
    let t = man.bits();
    // x = m * 2^k with m in [1/sqrt(2), sqrt(2)).
    let mut k = exp + t as i64;
    let mut top = t;
    if (man * man) << 1u8 < BigUint::from(1u8) << (2 * t) {
        k -= 1;
        top -= 1;
    }
    let r = (g.sqrt() / 2).clamp(2, 40);
    let gi = g + r + 24 + 2 * (64 - g.leading_zeros() as u64);
    let mut m = if gi >= top {
        man << (gi - top)
    } else {
        man >> (top - gi)
    };
    for _ in 0..r {
        m = (m << gi).sqrt();
    }
    let one = BigInt::from(1u8) << gi;
    let m = BigInt::from(m);
    let z = ((&m - &one) << gi) / (&m + &one);
    // atanh is odd: sum the series on |z|, then give it z's sign.
    let negative = z.sign() == Sign::Minus;
    let z = z.magnitude().clone();
    let z2 = (&z * &z) >> gi;
    let mut power = z;
    let mut sum = BigUint::from(0u8);
    let mut n = 0u64;
    while power.bits() > 0 {
        sum += &power / (2 * n + 1);
        power = (&power * &z2) >> gi;
        n += 1;
    }
    let sum = if negative {
        -BigInt::from(sum)
    } else {
        BigInt::from(sum)
    };
    let mut v = sum << (r + 1);
    let mut err = (n + 8) << (r + 1);
    if k != 0 {
        let (ln2, e2) = arc_inv(3, gi, false);
        v += ln2 * 2 * k;
        err += k.unsigned_abs() * (2 * e2 + 2);
    }
    // Back to scale 2^-g, rounding the error bound up.
    let drop = gi - g;
    (v >> drop, err.checked_shr(drop as u32).unwrap_or(0) + 2)
}

/// `log(x)` at `prec` bits: a real value, or `(re, im)` for a negative `x`
/// (mpmath's `mpc_log`: `log|x|` and `pi`).
pub fn log(x: &Mpf, prec: u64) -> Complex {
    match x {
        Mpf::Zero => Complex::Real(Mpf::Inf(true)),
        Mpf::Inf(false) => Complex::Real(Mpf::Inf(false)),
        Mpf::Nan => Complex::Real(Mpf::Nan),
        Mpf::Inf(true) => Complex::Pair(Mpf::Inf(false), pi(prec)),
        Mpf::Finite { neg, man, exp } => {
            let re = if *exp == 0 && *man == BigUint::from(1u8) {
                Mpf::Zero
            } else {
                ziv(prec, |g| ln_fixed(man, *exp, g))
            };
            if *neg {
                Complex::Pair(re, pi(prec))
            } else {
                Complex::Real(re)
            }
        }
    }
}

/// An mpmath result: `mpf` or `mpc`.
#[derive(Debug, Clone, PartialEq)]
pub enum Complex {
    /// An `mpf`.
    Real(Mpf),
    /// An `mpc` (real, imaginary).
    Pair(Mpf, Mpf),
}

/// `a / b` as mpmath divides `mpf`s and `mpc`s at `prec` bits.
pub fn divide(a: &Complex, b: &Complex, prec: u64) -> Result<Complex, String> {
    Ok(match (a, b) {
        (Complex::Real(x), Complex::Real(y)) => Complex::Real(div(x, y, prec)?),
        // mpc_div_mpf
        (Complex::Pair(x, y), Complex::Real(p)) => {
            Complex::Pair(div(x, p, prec)?, div(y, p, prec)?)
        }
        // mpc_mpf_div
        (Complex::Real(p), Complex::Pair(x, y)) => {
            let m = add(&mul(x, x), &mul(y, y), prec + 10);
            Complex::Pair(div(&mul(x, p), &m, prec)?, div(&mul(y, p).neg(), &m, prec)?)
        }
        // mpc_div
        (Complex::Pair(a, b), Complex::Pair(c, d)) => {
            let wp = prec + 10;
            let mag = add(&mul(c, c), &mul(d, d), wp);
            let t = add(&mul(a, c), &mul(b, d), wp);
            let u = sub(&mul(b, c), &mul(a, d), wp);
            Complex::Pair(div(&t, &mag, prec)?, div(&u, &mag, prec)?)
        }
    })
}

/// mpmath's `prec_to_dps`.
fn prec_to_dps(prec: u64) -> i64 {
    (((prec as f64) / LOG2_10).round_ties_even() as i64 - 1).max(1)
}

/// mpmath's `repr_dps`: the digits `repr` shows at `prec` bits.
pub fn repr_dps(prec: u64) -> usize {
    let dps = prec_to_dps(prec);
    if dps == 15 { 17 } else { (dps + 3) as usize }
}

/// `repr()` of an mpmath result at `prec` bits.
pub fn repr(value: &Complex, prec: u64) -> Result<String, String> {
    let dps = repr_dps(prec);
    Ok(match value {
        Complex::Real(x) => format!("mpf('{}')", to_str(x, dps)?),
        Complex::Pair(re, im) => format!(
            "mpc(real='{}', imag='{}')",
            to_str(re, dps)?,
            to_str(im, dps)?
        ),
    })
}

/// mpmath's `to_digits_exp`: the sign, the digits (truncated) and the
/// decimal exponent of `x` with `dps` digits.
fn to_digits_exp(
    neg: bool,
    man: &BigUint,
    exp: i64,
    dps: usize,
) -> Result<(bool, String, i64), String> {
    let bitprec = (dps as f64 * LOG2_10) as i64 + 10;
    let bc = man.bits() as i64;
    if (exp + bc).abs() > 3500 {
        return Err("itc does not print mpmath values beyond 2**3500 or below 2**-3500".into());
    }
    let fixprec = (bitprec - exp - bc).max(0);
    let fixdps = (fixprec as f64 / LOG2_10 + 0.5) as i64;
    let offset = exp + fixprec;
    let sf = if offset >= 0 {
        man << (offset as u64)
    } else {
        man >> ((-offset) as u64)
    };
    let sd = (sf * BigUint::from(10u8).pow(fixdps as u32)) >> (fixprec as u64);
    let digits = sd.to_string();
    let exponent = digits.len() as i64 - fixdps - 1;
    Ok((neg, digits, exponent))
}

/// mpmath's `to_str(x, dps)` with its defaults (trailing zeros stripped,
/// fixed notation for exponents in `(min(-dps/3, -5), dps)`).
pub fn to_str(x: &Mpf, dps: usize) -> Result<String, String> {
    let (neg, man, exp) = match x {
        Mpf::Zero => return Ok("0.0".into()),
        Mpf::Inf(false) => return Ok("+inf".into()),
        Mpf::Inf(true) => return Ok("-inf".into()),
        Mpf::Nan => return Ok("nan".into()),
        Mpf::Finite { neg, man, exp } => (*neg, man, *exp),
    };
    let min_fixed = (-((dps / 3) as i64)).min(-5);
    let max_fixed = dps as i64;
    let (neg, digits, mut exponent) = to_digits_exp(neg, man, exp, dps + 3)?;
    let mut digits: Vec<u8> = digits.into_bytes();
    if digits.len() > dps && digits[dps] >= b'5' {
        digits.truncate(dps);
        match digits.iter().rposition(|&d| d != b'9') {
            Some(i) => {
                digits[i] += 1;
                for d in &mut digits[i + 1..] {
                    *d = b'0';
                }
            }
            None => {
                digits = std::iter::once(b'1')
                    .chain(std::iter::repeat_n(b'0', dps - 1))
                    .collect();
                exponent += 1;
            }
        }
    } else {
        digits.truncate(dps);
    }
    let split;
    if min_fixed < exponent && exponent < max_fixed {
        if exponent < 0 {
            let mut padded = vec![b'0'; (-exponent) as usize];
            padded.extend_from_slice(&digits);
            digits = padded;
            split = 1;
        } else {
            split = (exponent + 1) as usize;
            if split > dps {
                digits.extend(std::iter::repeat_n(b'0', split - dps));
            }
        }
        exponent = 0;
    } else {
        split = 1;
    }
    let split = split.min(digits.len());
    let mut text = String::from_utf8_lossy(&digits[..split]).into_owned();
    text.push('.');
    text.push_str(&String::from_utf8_lossy(&digits[split..]));
    let mut text = text.trim_end_matches('0').to_string();
    if text.ends_with('.') {
        text.push('0');
    }
    let sign = if neg { "-" } else { "" };
    Ok(match exponent.cmp(&0) {
        Ordering::Equal => format!("{sign}{text}"),
        Ordering::Greater => format!("{sign}{text}e+{exponent}"),
        Ordering::Less => format!("{sign}{text}e{exponent}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dps_to_prec(dps: i64) -> u64 {
        (((dps + 1) as f64 * LOG2_10).round_ties_even() as i64).max(1) as u64
    }

    fn log_ratio(value: f64, base: f64, dps: i64) -> String {
        let prec = dps_to_prec(dps);
        let a = log(&Mpf::from_f64(value), prec);
        let b = log(&Mpf::from_f64(base), prec);
        repr(&divide(&a, &b, prec).unwrap(), prec).unwrap()
    }

    // Expected texts: mpmath 1.3.0, `mp.dps = dps; repr(log(v) / log(b))`.
    #[test]
    fn logarithms_print_as_mpmath_prints_them() {
        assert_eq!(log_ratio(630.0, 10.0, 5), "mpf('2.7993393')");
        assert_eq!(log_ratio(980.0, 20.0, 10), "mpf('2.299121531134')");
        assert_eq!(log_ratio(36.0, 6.0, 4), "mpf('2.0')");
        assert_eq!(log_ratio(20.0, 10.0, 2), "mpf('1.3027')");
        assert_eq!(log_ratio(-36.0, 6.0, 4), "mpc(real='2.0', imag='1.753357')");
        assert_eq!(
            log_ratio(10.0, -10.0, 5),
            "mpc(real='0.34946442', imag='-0.47680092')"
        );
        assert_eq!(log_ratio(-10.0, -10.0, 5), "mpc(real='1.0', imag='0.0')");
        assert_eq!(log_ratio(3.0, 10.0, 15), "mpf('0.47712125471966244')");
        assert_eq!(
            log_ratio(0.001, 10.0, 20),
            "mpf('-2.9999999999999999909571')"
        );
        assert_eq!(log_ratio(7.0, 10.0, 1), "mpf('0.8438')");
        assert_eq!(
            log_ratio(1e308, 1.0000000000000002, 30),
            "mpf('3193935780973428005.54006853087003')"
        );
        assert_eq!(
            log_ratio(1e-300, 7.0, 50),
            "mpf('-354.98839873648149803250074273865260921149302120163745')"
        );
        assert_eq!(
            log_ratio(2.0, 1e-300, 50),
            "mpf('-0.0010034333188799373174155309497542778738009792160218352')"
        );
        assert_eq!(
            log_ratio(20.0, 10.0, 102),
            "mpf('1.30102999566398119521373889472449302676818988146210854131042746112710818927442450948692725211818617204073')"
        );
    }

    #[test]
    fn special_values_follow_mpmath() {
        assert_eq!(log_ratio(0.0, 10.0, 5), "mpf('-inf')");
        assert_eq!(log_ratio(0.0, 0.0, 5), "mpf('nan')");
        assert_eq!(log_ratio(10.0, 0.0, 5), "mpf('0.0')");
        assert_eq!(log_ratio(f64::INFINITY, 3.0, 20), "mpf('+inf')");
        assert_eq!(
            log_ratio(f64::NEG_INFINITY, 2.0, 5),
            "mpc(real='+inf', imag='4.5323639')"
        );
        let prec = dps_to_prec(5);
        let zero = log(&Mpf::from_f64(1.0), prec);
        assert_eq!(divide(&zero, &zero, prec), Err(String::new()));
    }
}
