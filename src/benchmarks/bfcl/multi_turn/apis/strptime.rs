//! Python's `datetime.strptime(text, format)` for the directives the API
//! classes use (`%Y %m %d %H %M %S`, `%%`), as CPython 3.11's `_strptime`
//! does it: the format becomes a regular expression of ordered
//! alternatives (`%m` is `1[0-2]|0[1-9]|[1-9]`), matched from the start
//! with backtracking and case-insensitive literals, then `unconverted data
//! remains`, then the date checks, each with CPython's error text.
//!
//! Where itc differs: Python's `\d` in `%Y` takes any Unicode decimal
//! digit, itc only ASCII ones; another directive is refused with a text of
//! itc's own.

use super::py_num::{ExcKind, PyExc};
use crate::benchmarks::python::value::is_space;
use crate::benchmarks::python::{PyStr, PyValue, py_repr};

/// A naive `datetime`, fields in comparison order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Moment {
    /// Year, 1..=9999.
    pub year: u32,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month.
    pub day: u32,
    /// Hour, 0..=23.
    pub hour: u32,
    /// Minute, 0..=59.
    pub minute: u32,
    /// Second, 0..=59.
    pub second: u32,
}

/// A piece of a `strptime` pattern.
#[derive(Debug, Clone, Copy)]
enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// One literal character (matched ignoring ASCII case).
    Literal(u32),
    /// A run of whitespace in the format: `\s+`.
    Space,
}

/// A digit class of a pattern alternative: the inclusive range of ASCII
/// characters one position accepts.
type Class = (u8, u8);

const D: Class = (b'0', b'9');

impl Field {
    /// CPython's alternatives for the directive, in order.
    fn alternatives(self) -> &'static [&'static [Class]] {
        match self {
            // (?P<Y>\d\d\d\d)
            Field::Year => &[&[D, D, D, D]],
            // (?P<m>1[0-2]|0[1-9]|[1-9])
            Field::Month => &[
                &[(b'1', b'1'), (b'0', b'2')],
                &[(b'0', b'0'), (b'1', b'9')],
                &[(b'1', b'9')],
            ],
            // (?P<d>3[01]|[12]\d|0[1-9]|[1-9]| [1-9])
            Field::Day => &[
                &[(b'3', b'3'), (b'0', b'1')],
                &[(b'1', b'2'), D],
                &[(b'0', b'0'), (b'1', b'9')],
                &[(b'1', b'9')],
                &[(b' ', b' '), (b'1', b'9')],
            ],
            // (?P<H>2[0-3]|[0-1]\d|\d)
            Field::Hour => &[&[(b'2', b'2'), (b'0', b'3')], &[(b'0', b'1'), D], &[D]],
            // (?P<M>[0-5]\d|\d)
            Field::Minute => &[&[(b'0', b'5'), D], &[D]],
            // (?P<S>6[0-1]|[0-5]\d|\d)
            Field::Second => &[&[(b'6', b'6'), (b'0', b'1')], &[(b'0', b'5'), D], &[D]],
            Field::Literal(_) | Field::Space => &[],
        }
    }
}

/// The fields of a format, or itc's error for a directive it does not know.
fn fields(format: &str) -> Result<Vec<Field>, PyExc> {
    let mut out = Vec::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        let field = match c {
            '%' => match chars.next() {
                Some('Y') => Field::Year,
                Some('m') => Field::Month,
                Some('d') => Field::Day,
                Some('H') => Field::Hour,
                Some('M') => Field::Minute,
                Some('S') => Field::Second,
                Some('%') => Field::Literal(u32::from('%')),
                other => {
                    let directive = other.map(String::from).unwrap_or_default();
                    return Err(PyExc::new(
                        ExcKind::Itc,
                        format!("itc: strptime directive %{directive} is not supported"),
                    ));
                }
            },
            c if c.is_whitespace() => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                Field::Space
            }
            c => Field::Literal(u32::from(c)),
        };
        out.push(field);
    }
    Ok(out)
}

/// `datetime.strptime(value, format)`, or its exception: a `TypeError`
/// for a value that is not a `str`, a `ValueError` for one that does not
/// match or names no date.
pub fn strptime(value: &PyValue, format: &str) -> Result<Moment, PyExc> {
    let PyValue::Str(text) = value else {
        // Argument Clinic names `None` itself, other values by their type.
        let name = match value {
            PyValue::None => "None",
            other => other.type_name(),
        };
        return Err(PyExc::new(
            ExcKind::Type,
            format!("strptime() argument 1 must be str, not {name}"),
        ));
    };
    let fields = fields(format)?;
    let value_error = |text: String| Err(PyExc::new(ExcKind::Value, text));
    let mut parsed = Parsed::default();
    let Some(end) = match_fields(&text.0, 0, &fields, &mut parsed) else {
        return value_error(format!(
            "time data {} does not match format {}",
            PyStr(py_repr(value)).to_string_lossy(),
            PyStr(py_repr(&PyValue::Str(PyStr::new(format)))).to_string_lossy()
        ));
    };
    if end != text.len() {
        return value_error(format!(
            "unconverted data remains: {}",
            PyStr(text.0[end..].to_vec()).to_string_lossy()
        ));
    }
    let (year, month, day) = (parsed.year, parsed.month, parsed.day);
    if year == 0 {
        return value_error("year 0 is out of range".into());
    }
    if day > days_in_month(year, month) {
        return value_error("day is out of range for month".into());
    }
    if parsed.second > 59 {
        return value_error("second must be in 0..59".into());
    }
    Ok(Moment {
        year,
        month,
        day,
        hour: parsed.hour,
        minute: parsed.minute,
        second: parsed.second,
    })
}

/// `datetime.strptime(value, format)` inside `try: ... except
/// ValueError:`: `None` where Python raises `ValueError`, the text of any
/// other exception.
pub fn strptime_or_none(value: &PyValue, format: &str) -> Result<Option<Moment>, String> {
    match strptime(value, format) {
        Ok(moment) => Ok(Some(moment)),
        Err(e) if e.kind == ExcKind::Value => Ok(None),
        Err(e) => Err(e.text),
    }
}

/// What the directives matched; `_strptime`'s defaults (1900-01-01 00:00:00).
#[derive(Debug, Clone, Copy)]
struct Parsed {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

impl Default for Parsed {
    fn default() -> Parsed {
        Parsed {
            year: 1900,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
        }
    }
}

impl Parsed {
    fn set(&mut self, field: Field, value: u32) {
        match field {
            Field::Year => self.year = value,
            Field::Month => self.month = value,
            Field::Day => self.day = value,
            Field::Hour => self.hour = value,
            Field::Minute => self.minute = value,
            Field::Second => self.second = value,
            Field::Literal(_) | Field::Space => {}
        }
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Matches `fields` from `at` as the regular expression would (ordered
/// alternatives, backtracking): the end position. Each directive has at
/// most 5 alternatives of at most 4 characters and every other field one
/// way to match, so a format of n fields costs at most 5^n tries (n is
/// fixed by the caller's format, not by the text).
fn match_fields(text: &[u32], at: usize, fields: &[Field], parsed: &mut Parsed) -> Option<usize> {
    let Some((&field, rest)) = fields.split_first() else {
        return Some(at);
    };
    match field {
        Field::Space => {
            // `\s+` is greedy; the directives that can follow start with a
            // digit or a space of `%d`, and giving whitespace back to a
            // `%d` would only make it match " 1" where "1" was next anyway.
            let n = text[at..].iter().take_while(|&&c| is_space(c)).count();
            if n == 0 {
                None
            } else {
                match_fields(text, at + n, rest, parsed)
            }
        }
        Field::Literal(c) => {
            let next = *text.get(at)?;
            let same = next == c
                || (c < 0x80 && next < 0x80 && (next as u8).eq_ignore_ascii_case(&(c as u8)));
            if same {
                match_fields(text, at + 1, rest, parsed)
            } else {
                None
            }
        }
        _ => {
            for alternative in field.alternatives() {
                let end = at + alternative.len();
                let Some(piece) = text.get(at..end) else {
                    continue;
                };
                let fits = piece
                    .iter()
                    .zip(alternative.iter())
                    .all(|(&c, &(lo, hi))| (u32::from(lo)..=u32::from(hi)).contains(&c));
                if !fits {
                    continue;
                }
                let value = piece
                    .iter()
                    .filter(|&&c| (0x30..=0x39).contains(&c))
                    .fold(0u32, |v, &c| v * 10 + (c - 0x30));
                let saved = *parsed;
                parsed.set(field, value);
                if let Some(end) = match_fields(text, end, rest, parsed) {
                    return Some(end);
                }
                *parsed = saved;
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::literal_eval;

    fn parse(text: &str, format: &str) -> Result<Moment, String> {
        strptime(&literal_eval(text).unwrap(), format).map_err(|e| e.text)
    }

    // Texts and values as CPython 3.11.7's `datetime.strptime` gives them.
    #[test]
    fn dates_parse_and_fail_as_cpython() {
        let date = "%Y-%m-%d";
        assert_eq!(
            parse("'2024-13-01'", date).unwrap_err(),
            "time data '2024-13-01' does not match format '%Y-%m-%d'"
        );
        assert_eq!(
            parse("'2024-02-30'", date).unwrap_err(),
            "day is out of range for month"
        );
        assert_eq!(
            parse("'2024-01-011'", date).unwrap_err(),
            "unconverted data remains: 1"
        );
        assert_eq!(
            parse("'0000-01-01'", date).unwrap_err(),
            "year 0 is out of range"
        );
        assert_eq!(
            parse("5", date).unwrap_err(),
            "strptime() argument 1 must be str, not int"
        );
        let m = parse("'2024-1-1'", date).unwrap();
        assert_eq!((m.year, m.month, m.day), (2024, 1, 1));
        assert_eq!(parse("'2024-01- 1'", date).unwrap().day, 1);
        // `1[0-2]` is tried first, then `[1-9]` when the rest fails.
        assert_eq!(parse("'2024-1-10'", date).unwrap().month, 1);
        let stamp = parse("'2024-09-02  05:40:15'", "%Y-%m-%d %H:%M:%S").unwrap();
        assert_eq!((stamp.day, stamp.hour, stamp.second), (2, 5, 15));
        assert_eq!(
            parse("'2024-09-02 05:40:61'", "%Y-%m-%d %H:%M:%S").unwrap_err(),
            "second must be in 0..59"
        );
        assert!(
            parse("'2024-09-02'", "%Y-%j")
                .unwrap_err()
                .starts_with("itc: ")
        );
    }

    // Cases of the `%Y-%m-%d` parser TravelAPI had (now this one).
    #[test]
    fn travel_dates_parse_and_fail_as_cpython() {
        let ymd = |text: &str| {
            let m = parse(&format!("{text:?}"), "%Y-%m-%d").ok()?;
            Some((m.year, m.month, m.day))
        };
        assert_eq!(ymd("2024-01- 5"), Some((2024, 1, 5)));
        assert_eq!(ymd("2024-02-29"), Some((2024, 2, 29)));
        assert_eq!(ymd("2024-10-5"), Some((2024, 10, 5)));
        for text in [
            "2024-12-3x",
            " 2024-01-01",
            "2023-02-29",
            "2024-011-01",
            "99999-01-01",
            "2024-01-01\n",
            "",
        ] {
            assert_eq!(ymd(text), None, "{text:?}");
        }
        let none = strptime_or_none(&PyValue::None, "%Y-%m-%d");
        // This module said `NoneType` before it took TravelAPI's parser's.
        assert_eq!(
            none.unwrap_err(),
            "strptime() argument 1 must be str, not None"
        );
        assert_eq!(
            strptime_or_none(&literal_eval("'2024-02-30'").unwrap(), "%Y-%m-%d"),
            Ok(None)
        );
    }
}
