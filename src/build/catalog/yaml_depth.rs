//! A linear pre-check of a YAML document's flow nesting (`[`, `{`).
//!
//! The YAML parser refuses nesting deeper than its recursion limit, but only
//! after work that grows with the square of the depth (100 KB of `{a: ` took
//! seconds, 400 KB minutes). This scan finds such a document in one pass and
//! names the line, so the parser never sees it.

/// The deepest flow nesting accepted: the YAML parser's own recursion
/// limit, so no document it would accept is refused.
pub use crate::spec::limits::MAX_YAML_FLOW_DEPTH as MAX_FLOW_DEPTH;

/// Where a document first nests deeper than [`MAX_FLOW_DEPTH`]: its line
/// (1-based) and column (1-based, in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// Scans `text` once. Outside flow collections only the start of a value
/// can open one (`key: [`, `- {`, a line starting with `[`), so brackets in
/// plain text (`description: see [docs`) do not count; inside, quoted
/// strings and comments are skipped.
pub fn check(text: &str) -> Result<(), TooDeep> {
    let mut depth = 0usize;
    for (index, line) in text.lines().enumerate() {
        let mut chars = line.char_indices().peekable();
        let mut column = 0usize;
        let mut value_start = true;
        while let Some((_, c)) = chars.next() {
            column += 1;
            if depth == 0 {
                match c {
                    ' ' | '\t' => continue,
                    '-' if value_start && chars.peek().is_none_or(|&(_, n)| n == ' ') => continue,
                    '[' | '{' if value_start => {}
                    '#' => break,
                    ':' if chars.peek().is_none_or(|&(_, n)| n == ' ') => {
                        value_start = true;
                        continue;
                    }
                    _ => {
                        value_start = false;
                        continue;
                    }
                }
            }
            match c {
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Err(TooDeep {
                            line: index + 1,
                            column,
                        });
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                '#' => break,
                quote @ ('"' | '\'') => {
                    // Skip to the closing quote on this line (`\"` and `''`
                    // escape); an unclosed one ends the line's scan.
                    while let Some((_, q)) = chars.next() {
                        column += 1;
                        if q == '\\' && quote == '"' {
                            chars.next();
                            column += 1;
                        } else if q == quote {
                            if quote == '\'' && chars.peek().is_some_and(|&(_, n)| n == '\'') {
                                chars.next();
                                column += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, n: usize) -> String {
        format!("paths:\n  x: {}1{}\n", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn the_limit_is_the_parsers_own() {
        assert_eq!(check(&nested("[", "]", MAX_FLOW_DEPTH)), Ok(()));
        assert_eq!(
            check(&nested("[", "]", MAX_FLOW_DEPTH + 1)),
            Err(TooDeep {
                line: 2,
                column: 5 + MAX_FLOW_DEPTH + 1
            })
        );
        assert!(check(&nested("{a: ", "}", 20_000)).is_err());
        // The YAML parser agrees at the boundary.
        let ok = nested("[", "]", MAX_FLOW_DEPTH - 2);
        assert!(serde_norway::from_str::<serde_json::Value>(&ok).is_ok());
        let deep = nested("[", "]", MAX_FLOW_DEPTH + 1);
        assert!(serde_norway::from_str::<serde_json::Value>(&deep).is_err());
    }

    #[test]
    fn brackets_in_text_strings_and_comments_do_not_count() {
        let many = "[".repeat(500);
        let text = format!(
            "a: see {many}\nb: \"{many}\"\nc: '{many}'\nd: [\"{many}\", 'it''s {many}'] # {many}\n# {many}\ne: x{many}\n"
        );
        assert_eq!(check(&text), Ok(()));
    }

    #[test]
    fn nesting_across_lines_counts() {
        let mut text = String::from("a:\n");
        for _ in 0..=MAX_FLOW_DEPTH {
            text.push_str("  - [\n");
        }
        assert_eq!(check(&text).map_err(|e| e.line), Err(MAX_FLOW_DEPTH + 2));
    }
}
