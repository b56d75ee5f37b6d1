//! Python's `decimal.Decimal` as far as `MathAPI.square_root` uses it:
//! `Decimal(x)` of an `int` or a `float` (exact), `sqrt()` in a context of
//! `prec` digits (ROUND_HALF_EVEN), and `repr()`. The square root is a
//! port of `_pydecimal.Decimal.sqrt` (the specification's algorithm, which
//! the C `_decimal` module follows digit for digit, ideal exponent
//! included: `Decimal(16.0).sqrt()` is `Decimal('4')`).
//!
//! The default context's exponent limits (`Emin = -999999`,
//! `Emax = 999999`) are never reached from an `int` of at most 4300 digits
//! or a `float`, so overflow and subnormal results are not modelled.

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;

/// A `Decimal`.
#[derive(Debug, Clone, PartialEq)]
pub enum Decimal {
    /// `(-1)^neg * coefficient * 10^exp`.
    Finite {
        /// Negative (zero has a sign too).
        neg: bool,
        /// The coefficient's digits.
        coefficient: BigUint,
        /// The decimal exponent.
        exp: i64,
    },
    /// `Infinity`, negative when `true`.
    Infinity(bool),
    /// `NaN`, negative when `true`.
    NaN(bool),
}

impl Decimal {
    /// `Decimal(i)`.
    pub fn from_int(i: &BigInt) -> Decimal {
        Decimal::Finite {
            neg: i.sign() == Sign::Minus,
            coefficient: i.magnitude().clone(),
            exp: 0,
        }
    }

    /// `Decimal(x)`, exactly (`Decimal.from_float`).
    pub fn from_f64(x: f64) -> Decimal {
        let neg = x.is_sign_negative();
        if x.is_nan() {
            return Decimal::NaN(neg);
        }
        if x.is_infinite() {
            return Decimal::Infinity(neg);
        }
        let (mut man, mut exp) = super::py_num::f64_parts(x);
        if man == 0 {
            exp = 0;
        } else {
            let zeros = man.trailing_zeros();
            man >>= zeros;
            exp += i64::from(zeros);
        }
        // x = man * 2^exp = man * 5^-exp * 10^exp when exp < 0.
        if exp >= 0 {
            Decimal::Finite {
                neg,
                coefficient: BigUint::from(man) << (exp as u64),
                exp: 0,
            }
        } else {
            Decimal::Finite {
                neg,
                coefficient: BigUint::from(man) * BigUint::from(5u8).pow((-exp) as u32),
                exp,
            }
        }
    }

    /// `self.sqrt()` with `getcontext().prec == prec`; `None` for the
    /// `InvalidOperation` of a negative operand.
    pub fn sqrt(&self, prec: u64) -> Option<Decimal> {
        let (neg, coefficient, exp) = match self {
            Decimal::NaN(_) => return Some(self.clone()),
            Decimal::Infinity(false) => return Some(self.clone()),
            Decimal::Infinity(true) => return None,
            Decimal::Finite {
                neg,
                coefficient,
                exp,
            } => (*neg, coefficient, *exp),
        };
        if coefficient.bits() == 0 {
            return Some(Decimal::Finite {
                neg,
                coefficient: BigUint::from(0u8),
                exp: Integer::div_floor(&exp, &2),
            });
        }
        if neg {
            return None;
        }
        let digits = coefficient.to_string().len() as i64;
        let work = prec as i64 + 1;
        let mut e = exp >> 1;
        let (mut c, l) = if exp & 1 == 1 {
            (coefficient * 10u8, (digits >> 1) + 1)
        } else {
            (coefficient.clone(), (digits + 1) >> 1)
        };
        let shift = work - l;
        let hundred = BigUint::from(100u8);
        let mut exact = true;
        if shift >= 0 {
            c *= hundred.pow(shift as u32);
        } else {
            let (q, r) = c.div_rem(&hundred.pow((-shift) as u32));
            c = q;
            exact = r.bits() == 0;
        }
        e -= shift;
        let mut n = c.sqrt();
        exact = exact && &n * &n == c;
        let ten = BigUint::from(10u8);
        if exact {
            if shift >= 0 {
                n /= ten.pow(shift as u32);
            } else {
                n *= ten.pow((-shift) as u32);
            }
            e += shift;
        } else if (&n % 5u8).bits() == 0 {
            n += 1u8;
        }
        Some(fix(n, e, prec))
    }

    /// `repr()`: `Decimal('1.414')`.
    pub fn repr(&self) -> String {
        format!("Decimal('{}')", self.to_sci_string())
    }

    /// `str()`: the specification's to-scientific-string.
    pub fn to_sci_string(&self) -> String {
        let (neg, coefficient, exp) = match self {
            Decimal::NaN(neg) => return format!("{}NaN", if *neg { "-" } else { "" }),
            Decimal::Infinity(neg) => {
                return format!("{}Infinity", if *neg { "-" } else { "" });
            }
            Decimal::Finite {
                neg,
                coefficient,
                exp,
            } => (*neg, coefficient, *exp),
        };
        let int = coefficient.to_string();
        let len = int.len() as i64;
        let leftdigits = exp + len;
        let dotplace = if exp <= 0 && leftdigits > -6 {
            leftdigits
        } else {
            1
        };
        let (intpart, fracpart) = if dotplace <= 0 {
            (
                "0".to_string(),
                format!(".{}{int}", "0".repeat((-dotplace) as usize)),
            )
        } else if dotplace >= len {
            (
                format!("{int}{}", "0".repeat((dotplace - len) as usize)),
                String::new(),
            )
        } else {
            (
                int[..dotplace as usize].to_string(),
                format!(".{}", &int[dotplace as usize..]),
            )
        };
        let exponent = if leftdigits == dotplace {
            String::new()
        } else {
            format!("E{:+}", leftdigits - dotplace)
        };
        let sign = if neg { "-" } else { "" };
        format!("{sign}{intpart}{fracpart}{exponent}")
    }
}

/// `_fix` of a positive `n * 10^e` to `prec` digits, ROUND_HALF_EVEN.
fn fix(n: BigUint, e: i64, prec: u64) -> Decimal {
    let int = n.to_string();
    let len = int.len() as i64;
    let mut exp_min = len + e - prec as i64;
    if e >= exp_min {
        return Decimal::Finite {
            neg: false,
            coefficient: n,
            exp: e,
        };
    }
    let keep = (len + e - exp_min) as usize;
    let bytes = int.as_bytes();
    let rest = &bytes[keep..];
    let exact_half = rest[0] == b'5' && rest[1..].iter().all(|&d| d == b'0');
    let last_even = keep == 0 || (bytes[keep - 1] - b'0').is_multiple_of(2);
    let up = if exact_half && last_even {
        false
    } else {
        rest[0] >= b'5'
    };
    let mut coefficient: BigUint = if keep == 0 {
        BigUint::from(0u8)
    } else {
        int[..keep].parse().unwrap_or_default()
    };
    if up {
        coefficient += 1u8;
        if coefficient.to_string().len() as u64 > prec {
            coefficient /= 10u8;
            exp_min += 1;
        }
    }
    Decimal::Finite {
        neg: false,
        coefficient,
        exp: exp_min,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqrt(x: f64, prec: u64) -> String {
        Decimal::from_f64(x).sqrt(prec).unwrap().repr()
    }

    // Expected texts: CPython 3.11, `getcontext().prec = p;
    // repr(Decimal(x).sqrt())`.
    #[test]
    fn square_roots_match_cpythons_decimal() {
        assert_eq!(sqrt(16.0, 4), "Decimal('4')");
        assert_eq!(sqrt(2.0, 10), "Decimal('1.414213562')");
        assert_eq!(sqrt(0.1, 30), "Decimal('0.316227766016837941976973025885')");
        assert_eq!(sqrt(1e-7, 5), "Decimal('0.00031623')");
        assert_eq!(sqrt(1e22, 5), "Decimal('1.0000E+11')");
        assert_eq!(sqrt(100.0, 1), "Decimal('1E+1')");
        assert_eq!(sqrt(0.0, 5), "Decimal('0')");
        assert_eq!(sqrt(-0.0, 5), "Decimal('-0')");
        assert_eq!(sqrt(f64::INFINITY, 5), "Decimal('Infinity')");
        assert_eq!(
            Decimal::from_int(&BigInt::from(2)).sqrt(10).unwrap().repr(),
            "Decimal('1.414213562')"
        );
    }
}
