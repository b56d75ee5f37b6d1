//! Python's `str()` and `repr()` of a [`PyValue`], `repr(float)` included,
//! character for character: the official scorers compare these texts. And
//! [`PyValue::to_json`], which writes non-string keys and non-finite floats
//! with them.

use super::printable::NON_PRINTABLE;
use super::value::{PyValue, to_utf8};

/// Python's `str(value)`.
pub fn py_str(v: &PyValue) -> Vec<u32> {
    match v {
        PyValue::Str(s) => s.0.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(value)`.
pub fn py_repr(v: &PyValue) -> Vec<u32> {
    let mut out = Vec::new();
    repr_into(v, &mut out);
    out
}

fn push_ascii(out: &mut Vec<u32>, text: &str) {
    out.extend(text.chars().map(u32::from));
}

fn repr_into(v: &PyValue, out: &mut Vec<u32>) {
    match v {
        PyValue::None => push_ascii(out, "None"),
        PyValue::Bool(true) => push_ascii(out, "True"),
        PyValue::Bool(false) => push_ascii(out, "False"),
        PyValue::Int(text) => push_ascii(out, text),
        PyValue::Float(x) => push_ascii(out, &float_repr(*x)),
        PyValue::Complex(x) => push_ascii(out, &complex_repr(*x)),
        PyValue::Str(s) => str_repr_into(&s.0, out),
        PyValue::Bytes(b) => bytes_repr_into(b, out),
        PyValue::List(items) => seq_repr(items, "[", "]", false, out),
        PyValue::Tuple(items) => seq_repr(items, "(", ")", items.len() == 1, out),
        PyValue::Set(items) if items.is_empty() => push_ascii(out, "set()"),
        PyValue::Set(items) => seq_repr(items, "{", "}", false, out),
        PyValue::Dict(entries) => {
            out.push(u32::from('{'));
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    push_ascii(out, ", ");
                }
                repr_into(k, out);
                push_ascii(out, ": ");
                repr_into(val, out);
            }
            out.push(u32::from('}'));
        }
    }
}

fn seq_repr(items: &[PyValue], open: &str, close: &str, trailing: bool, out: &mut Vec<u32>) {
    push_ascii(out, open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            push_ascii(out, ", ");
        }
        repr_into(item, out);
    }
    if trailing {
        out.push(u32::from(','));
    }
    push_ascii(out, close);
}

/// Whether Python's `str.isprintable()` holds for one code point.
pub fn is_printable(c: u32) -> bool {
    if c < 0x80 {
        return (0x20..0x7f).contains(&c);
    }
    NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if c < lo {
                std::cmp::Ordering::Greater
            } else if c > hi {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_err()
}

/// CPython's `unicode_repr`: the quote is `'` unless the text holds `'` and
/// no `"`; `\\`, `\t`, `\n`, `\r` and the quote are escaped, other
/// non-printable code points become `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
fn str_repr_into(text: &[u32], out: &mut Vec<u32>) {
    let squote = text.contains(&u32::from('\''));
    let dquote = text.contains(&u32::from('"'));
    let quote = if squote && !dquote { '"' } else { '\'' } as u32;
    out.push(quote);
    for &c in text {
        match c {
            _ if c == quote || c == u32::from('\\') => {
                out.push(u32::from('\\'));
                out.push(c);
            }
            0x09 => push_ascii(out, "\\t"),
            0x0a => push_ascii(out, "\\n"),
            0x0d => push_ascii(out, "\\r"),
            _ if c < 0x20 || c == 0x7f => push_ascii(out, &format!("\\x{c:02x}")),
            _ if c < 0x7f => out.push(c),
            _ if is_printable(c) => out.push(c),
            _ if c <= 0xff => push_ascii(out, &format!("\\x{c:02x}")),
            _ if c <= 0xffff => push_ascii(out, &format!("\\u{c:04x}")),
            _ => push_ascii(out, &format!("\\U{c:08x}")),
        }
    }
    out.push(quote);
}

fn bytes_repr_into(bytes: &[u8], out: &mut Vec<u32>) {
    let squote = bytes.contains(&b'\'');
    let dquote = bytes.contains(&b'"');
    let quote = if squote && !dquote { b'"' } else { b'\'' };
    out.push(u32::from('b'));
    out.push(u32::from(quote));
    for &b in bytes {
        match b {
            _ if b == quote || b == b'\\' => {
                out.push(u32::from('\\'));
                out.push(u32::from(b));
            }
            b'\t' => push_ascii(out, "\\t"),
            b'\n' => push_ascii(out, "\\n"),
            b'\r' => push_ascii(out, "\\r"),
            0x20..=0x7e => out.push(u32::from(b)),
            _ => push_ascii(out, &format!("\\x{b:02x}")),
        }
    }
    out.push(u32::from(quote));
}

// Here rather than in `value`: the JSON of a value takes the `str()` of a
// key that is not a string and the `repr()` of a float JSON cannot hold.
impl PyValue {
    /// Converts to a `serde_json` value (for reports): tuples become lists,
    /// ints beyond 64 bits strings of their digits, non-finite floats
    /// `{"__float__": "nan"}`-style objects.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            PyValue::None => J::Null,
            PyValue::Bool(b) => J::Bool(*b),
            PyValue::Int(text) => text
                .parse::<i64>()
                .map(J::from)
                .or_else(|_| text.parse::<u64>().map(J::from))
                .unwrap_or_else(|_| J::String(text.clone())),
            PyValue::Float(x) => serde_json::Number::from_f64(*x)
                .map(J::Number)
                .unwrap_or_else(|| serde_json::json!({ "__float__": float_repr(*x) })),
            PyValue::Str(s) => J::String(s.to_string_lossy()),
            PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
                J::Array(items.iter().map(PyValue::to_json).collect())
            }
            PyValue::Dict(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            PyValue::Str(s) => s.to_string_lossy(),
                            other => String::from_utf8_lossy(&to_utf8(&py_str(other))).into(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
            PyValue::Bytes(b) => J::String(String::from_utf8_lossy(b).into()),
            PyValue::Complex(x) => J::String(complex_repr(*x)),
        }
    }
}

/// Python's `repr(complex)` of [`PyValue::Complex`]: `2j` (the real part
/// +0), `(-0-2j)` (the real part -0, as a negated literal has it). An
/// integral part is written without `.0`.
fn complex_repr(imag: f64) -> String {
    let r = float_repr(imag);
    let r = r.strip_suffix(".0").unwrap_or(&r);
    if imag.is_sign_negative() && !imag.is_nan() {
        format!("(-0{r}j)")
    } else {
        format!("{r}j")
    }
}

/// Python's `repr(float)`: the shortest text that reads back as the same
/// float, in positional notation when the decimal exponent is in
/// `-4 <= e < 16` (with `.0` for integral values), else as `1e-05`,
/// `1.5e+16`; `inf`, `-inf`, `nan`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust's `{:e}` is the shortest round-trip representation, like Python's.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let body = if decpt <= -4 || decpt > 16 {
        let mut s = digits[..1].to_string();
        if n > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        s.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
        s
    } else if decpt <= 0 {
        format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
    } else if decpt >= n {
        format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
    } else {
        format!(
            "{}.{}",
            &digits[..decpt as usize],
            &digits[decpt as usize..]
        )
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::benchmarks::python::testing::{lit, s};

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (2.5e-7, "2.5e-07"),
            (0.2907590418481535, "0.2907590418481535"),
            (100000.0, "100000.0"),
            (1.5e300, "1.5e+300"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
            (5e-324, "5e-324"),
            (9007199254740993.0, "9007199254740992.0"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
        }
    }

    /// CPython 3.11's `repr` of `2j`, `1e16j`, `1e309j` and the negations
    /// `-(1j)`, `-(0j)`, `-(1.5j)`, `-(1e16j)`, `-(1e-5j)`, `-(1e309j)`.
    #[test]
    fn complex_repr_matches_python() {
        let cases = [
            (2.0, "2j"),
            (1e16, "1e+16j"),
            (f64::INFINITY, "infj"),
            (-1.0, "(-0-1j)"),
            (-0.0, "(-0-0j)"),
            (-1.5, "(-0-1.5j)"),
            (-1e16, "(-0-1e+16j)"),
            (-1e-5, "(-0-1e-05j)"),
            (f64::NEG_INFINITY, "(-0-infj)"),
        ];
        for (imag, want) in cases {
            let v = PyValue::Complex(imag);
            assert_eq!(
                String::from_iter(py_repr(&v).iter().map(|&c| char::from_u32(c).unwrap())),
                want
            );
            assert_eq!(v.to_json(), serde_json::json!(want));
        }
    }

    #[test]
    fn str_of_values_matches_python() {
        assert_eq!(s(&lit("True")), "True");
        assert_eq!(s(&lit("None")), "None");
        assert_eq!(s(&lit("'abc'")), "abc");
        assert_eq!(
            s(&lit("['a', 1, 1.0, None, True]")),
            "['a', 1, 1.0, None, True]"
        );
        assert_eq!(
            s(&lit("{'k': 'v', 'n': [1e-05]}")),
            "{'k': 'v', 'n': [1e-05]}"
        );
        assert_eq!(s(&lit("(1,)")), "(1,)");
        assert_eq!(s(&lit("[\"it's\"]")), "[\"it's\"]");
        assert_eq!(s(&lit("['it\\'s \"q\"']")), "['it\\'s \"q\"']");
        assert_eq!(s(&lit("['a\\nb\\t\\\\']")), "['a\\nb\\t\\\\']");
        assert_eq!(s(&lit("['\\x00\\x7f\\xa0\\xe9']")), "['\\x00\\x7f\\xa0é']");
        assert_eq!(s(&lit("['\\u200b東京\\U0001f600']")), "['\\u200b東京😀']");
        assert_eq!(s(&lit("-0")), "0");
        assert_eq!(
            s(&lit("12345678901234567890123")),
            "12345678901234567890123"
        );
    }
}
