//! Dates: reading them in the query (digits with separators, with a time of
//! day, with CJK unit characters) and writing them in the format a
//! parameter's description spells (`YYYYMMDD`, `DD/MM/YYYY`, …).

/// A calendar date read from the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct DateParts {
    /// Year, 1900 to 2100.
    pub(super) year: u32,
    /// Month, 1 to 12.
    pub(super) month: u32,
    /// Day of the month, when given.
    pub(super) day: Option<u32>,
    /// A time of day follows (`2025-01-20T08:00`): kept as written.
    pub(super) timed: bool,
}
/// Whether the numbers make a plausible date (years 1900 to 2100).
pub(super) fn valid_date(year: u32, month: u32, day: Option<u32>) -> bool {
    (1900..=2100).contains(&year)
        && (1..=12).contains(&month)
        && day.is_none_or(|d| (1..=31).contains(&d))
}

/// Reads a date written with digits and separators; `month_first` settles
/// `01/02/2024`.
pub(super) fn parse_date(text: &str, month_first: bool) -> Option<DateParts> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if text.len() == 8 && digits(text) {
        let (y, m, d) = (
            text[..4].parse().ok()?,
            text[4..6].parse().ok()?,
            text[6..].parse().ok()?,
        );
        return valid_date(y, m, Some(d)).then_some(DateParts {
            year: y,
            month: m,
            day: Some(d),
            timed: false,
        });
    }
    let sep = text.chars().find(|c| matches!(c, '-' | '/' | '.'))?;
    let parts: Vec<&str> = text.split(sep).collect();
    if !parts.iter().all(|p| digits(p)) {
        return None;
    }
    let num = |s: &str| s.parse::<u32>().ok();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() <= 2 && d.len() <= 2 => {
            let (y, m, d) = (num(y)?, num(m)?, num(d)?);
            valid_date(y, m, Some(d)).then_some(DateParts {
                year: y,
                month: m,
                day: Some(d),
                timed: false,
            })
        }
        [a, b, y] if y.len() == 4 && a.len() <= 2 && b.len() <= 2 => {
            let (a, b, y) = (num(a)?, num(b)?, num(y)?);
            let (m, d) = if a > 12 || (!month_first && b <= 12) {
                (b, a)
            } else {
                (a, b)
            };
            valid_date(y, m, Some(d)).then_some(DateParts {
                year: y,
                month: m,
                day: Some(d),
                timed: false,
            })
        }
        [y, m] if y.len() == 4 && m.len() == 2 && sep != '.' => {
            let (y, m) = (num(y)?, num(m)?);
            valid_date(y, m, None).then_some(DateParts {
                year: y,
                month: m,
                day: None,
                timed: false,
            })
        }
        _ => None,
    }
}

/// `2025-01-20T08:00`, `20250418T070000`: a date and a time of day.
pub(super) fn parse_datetime(text: &str, month_first: bool) -> Option<DateParts> {
    let (date, time) = text.split_once('T')?;
    let digits = time.chars().filter(char::is_ascii_digit).count();
    let time_like =
        time.chars().all(|c| c.is_ascii_digit() || c == ':') && (4..=6).contains(&digits);
    let parts = parse_date(date, month_first).filter(|p| p.day.is_some() && time_like)?;
    Some(DateParts {
        timed: true,
        ..parts
    })
}

/// One part of a date format a parameter asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum DateField {
    /// Four-digit year.
    Year,
    /// Two-digit month.
    Month,
    /// Two-digit day.
    Day,
    /// A separator character (`-`, `/`, `.`).
    Sep(char),
}

/// A date format spelled in a description: `YYYYMMDD`, `DD/MM/YYYY`, `AAAA-MM-DD`, ….
pub(super) fn date_format(description: &str) -> Option<Vec<DateField>> {
    let upper: Vec<char> = description.to_uppercase().chars().collect();
    let letter = |c: char| matches!(c, 'Y' | 'A' | 'J' | 'M' | 'D' | 'T' | 'G');
    let mut k = 0;
    while k < upper.len() {
        if !letter(upper[k]) || (k > 0 && upper[k - 1].is_alphanumeric()) {
            k += 1;
            continue;
        }
        let mut fields = Vec::new();
        let mut j = k;
        loop {
            let c = upper.get(j).copied();
            let Some(c) = c.filter(|&c| letter(c)) else {
                break;
            };
            let mut len = 0;
            while upper.get(j + len) == Some(&c) {
                len += 1;
            }
            let field = match (c, len) {
                (_, 4) if matches!(c, 'Y' | 'A' | 'J') => DateField::Year,
                ('M', 2) => DateField::Month,
                ('D' | 'T' | 'J' | 'G', 2) => DateField::Day,
                _ => break,
            };
            fields.push(field);
            j += len;
            match upper.get(j) {
                Some(&s)
                    if matches!(s, '-' | '/' | '.')
                        && upper.get(j + 1).is_some_and(|&c| letter(c)) =>
                {
                    fields.push(DateField::Sep(s));
                    j += 1;
                }
                Some(&c) if letter(c) => {}
                _ => break,
            }
        }
        let count = |f: DateField| fields.iter().filter(|&&x| x == f).count();
        let ends_clean = !upper.get(j).is_some_and(|c| c.is_alphanumeric());
        if ends_clean
            && count(DateField::Year) == 1
            && count(DateField::Month) == 1
            && count(DateField::Day) <= 1
        {
            return Some(fields);
        }
        k = j.max(k + 1);
    }
    None
}

/// A date written in a format (`None`: the format has a day, the date none).
pub(super) fn format_date(parts: DateParts, format: &[DateField]) -> Option<String> {
    let mut out = String::new();
    for f in format {
        match f {
            DateField::Year => out.push_str(&format!("{:04}", parts.year)),
            DateField::Month => out.push_str(&format!("{:02}", parts.month)),
            DateField::Day => out.push_str(&format!("{:02}", parts.day?)),
            DateField::Sep(c) => out.push(*c),
        }
    }
    Some(out)
}
