//! The checks Python 3.11 makes on an f-string's body (its literal text
//! with `{{`/`}}`, replacement fields, conversions and format specs), so
//! that an f-string the decoder only has to skip (a dropped positional
//! argument) is accepted or refused as Python does. Its value is never
//! computed: an f-string as a value fails to decode.

/// Parses the inside of one replacement field (the expression parser's
/// `parse_fstring_field`, passed in so that this file does not depend on it).
pub(crate) type FieldParser<'a> = &'a dyn Fn(&[char]) -> Result<(), String>;

/// Checks the body of an f-string (between its quotes, as written).
pub(crate) fn check(body: &[char], parse_field: FieldParser<'_>) -> Result<(), String> {
    let mut i = 0;
    literal_and_fields(body, &mut i, 0, parse_field)?;
    if i != body.len() {
        return Err("f-string: single '}' is not allowed".into());
    }
    Ok(())
}

/// Literal text and fields up to the end, or up to a `}` closing a format
/// spec (`level` > 0).
fn literal_and_fields(
    s: &[char],
    i: &mut usize,
    level: usize,
    parse_field: FieldParser<'_>,
) -> Result<(), String> {
    while *i < s.len() {
        match s[*i] {
            '{' if s.get(*i + 1) == Some(&'{') && level == 0 => *i += 2,
            '}' if s.get(*i + 1) == Some(&'}') && level == 0 => *i += 2,
            '{' => {
                if level >= 2 {
                    return Err("f-string: expressions nested too deeply".into());
                }
                *i += 1;
                field(s, i, level, parse_field)?;
            }
            '}' if level > 0 => return Ok(()),
            '}' => return Err("f-string: single '}' is not allowed".into()),
            _ => *i += 1,
        }
    }
    Ok(())
}

/// One replacement field, after its `{`, through its `}`.
fn field(
    s: &[char],
    i: &mut usize,
    level: usize,
    parse_field: FieldParser<'_>,
) -> Result<(), String> {
    let start = *i;
    let mut nest: Vec<char> = Vec::new();
    let mut quote: Option<(char, bool)> = None;
    while *i < s.len() {
        let c = s[*i];
        if c == '\\' {
            return Err("f-string expression part cannot include a backslash".into());
        }
        if let Some((q, triple)) = quote {
            let closes =
                c == q && (!triple || (s.get(*i + 1) == Some(&q) && s.get(*i + 2) == Some(&q)));
            if closes {
                quote = None;
                *i += if triple { 3 } else { 1 };
            } else {
                *i += 1;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                let triple = s.get(*i + 1) == Some(&c) && s.get(*i + 2) == Some(&c);
                quote = Some((c, triple));
                *i += if triple { 3 } else { 1 };
                continue;
            }
            '#' => return Err("f-string expression part cannot include '#'".into()),
            '(' | '[' | '{' => {
                if nest.len() >= 200 {
                    return Err("f-string: too many nested parenthesis".into());
                }
                nest.push(c);
            }
            ')' | ']' | '}' if !nest.is_empty() => {
                let open = nest.pop().expect("an open bracket");
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open != want {
                    return Err(format!(
                        "f-string: closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                    ));
                }
            }
            '}' | ':' => break,
            '!' if s.get(*i + 1) != Some(&'=') => break,
            '=' if nest.is_empty()
                && s.get(*i + 1) != Some(&'=')
                && !matches!(s.get(i.wrapping_sub(1)), Some('=' | '!' | '<' | '>')) =>
            {
                break;
            }
            _ => {}
        }
        *i += 1;
    }
    if quote.is_some() {
        return Err("f-string: unterminated string".into());
    }
    if !nest.is_empty() {
        return Err(format!("f-string: unmatched '{}'", nest[nest.len() - 1]));
    }
    let expr = &s[start..*i];
    if expr.iter().all(|c| c.is_whitespace()) {
        return Err("f-string: empty expression not allowed".into());
    }
    let wrapped: Vec<char> = expr
        .iter()
        .map(|&c| if c == '\n' { ' ' } else { c })
        .collect();
    parse_field(&wrapped).map_err(|e| format!("f-string: {e}"))?;
    if s.get(*i) == Some(&'=') {
        *i += 1;
    }
    if s.get(*i) == Some(&'!') {
        *i += 1;
        if !matches!(s.get(*i), Some('s' | 'r' | 'a')) || !matches!(s.get(*i + 1), Some(':' | '}'))
        {
            return Err("f-string: invalid conversion character".into());
        }
        *i += 1;
    }
    if s.get(*i) == Some(&':') {
        *i += 1;
        literal_and_fields(s, i, level + 1, parse_field)?;
    }
    if s.get(*i) != Some(&'}') {
        return Err("f-string: expecting '}'".into());
    }
    *i += 1;
    Ok(())
}
