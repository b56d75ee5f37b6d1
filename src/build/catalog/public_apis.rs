//! The public-apis list (`README.md` of public-apis/public-apis): one
//! Markdown table per `### Category` section, with the columns
//! `API | Description | Auth | HTTPS | CORS` and the API's link in the first
//! cell (`[Name](URL)`). Each row becomes a tool without parameters; the
//! section heading is its category and the link its URL. Tables with other
//! columns (the sponsor table at the top) are not read.

use std::path::Path;

use super::{CatalogError, Parsed, RawEntry};

/// The columns a category table must have, in order.
const COLUMNS: [&str; 5] = ["API", "Description", "Auth", "HTTPS", "CORS"];

/// Splits a table row into trimmed cells (outer pipes optional, `\|` kept in a cell).
pub fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    let mut cells = vec![String::new()];
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().expect("one cell").push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().expect("one cell").push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

fn is_separator(cells: &[String]) -> bool {
    cells
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

fn is_header(cells: &[String]) -> bool {
    let named: Vec<&str> = cells
        .iter()
        .map(String::as_str)
        .filter(|c| !c.is_empty())
        .collect();
    named.len() == COLUMNS.len()
        && named
            .iter()
            .zip(COLUMNS)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// Reads a Markdown link `[text](url)`, allowing parentheses inside the URL.
pub fn link(cell: &str) -> Option<(String, String)> {
    let rest = cell.trim().strip_prefix('[')?;
    let close = rest.find("](")?;
    let text = rest[..close].trim();
    let after = &rest[close + 2..];
    let mut depth = 1;
    for (i, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let tail = after[i + 1..].trim();
                    let ok = !text.is_empty() && tail.is_empty();
                    return ok.then(|| (text.to_string(), after[..i].trim().to_string()));
                }
            }
            _ => {}
        }
    }
    None
}

fn row(
    file: &Path,
    number: usize,
    cells: &[String],
    category: &str,
) -> Result<RawEntry, CatalogError> {
    let error = |field: &str, message: String| CatalogError {
        file: file.to_path_buf(),
        line: Some(number),
        field: field.to_string(),
        message,
    };
    // Trailing empty cells (`| … | No | |`) are tolerated.
    let used = cells.len() - cells.iter().rev().take_while(|c| c.is_empty()).count();
    if used > COLUMNS.len() || cells.len() < COLUMNS.len() {
        return Err(error(
            ".",
            format!(
                "expected {} cells (API | Description | Auth | HTTPS | CORS), found {}",
                COLUMNS.len(),
                cells.len()
            ),
        ));
    }
    let (name, url) = link(&cells[0]).ok_or_else(|| {
        error(
            "API",
            format!("expected a Markdown link [Name](URL), found {:?}", cells[0]),
        )
    })?;
    if !matches!(cells[3].to_ascii_lowercase().as_str(), "yes" | "no") {
        return Err(error(
            "HTTPS",
            format!("expected Yes or No, found {:?}", cells[3]),
        ));
    }
    let auth = cells[2].trim_matches('`').trim();
    let mut raw = RawEntry::new(name, Some(number), "");
    raw.tool.description = cells[1].clone();
    raw.tool.category = category.to_string();
    raw.tool.url = url;
    raw.auth = (!auth.is_empty() && !auth.eq_ignore_ascii_case("no")).then(|| auth.to_string());
    Ok(raw)
}

/// Reads every API row of the list.
pub fn parse(file: &Path, text: &str) -> Parsed {
    let mut parsed = Vec::new();
    let mut category: Option<String> = None;
    let mut in_table = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let level = 1 + heading.chars().take_while(|&c| c == '#').count();
            let title = heading.trim_start_matches('#').trim();
            category = (level == 3).then(|| title.to_string());
            in_table = false;
            continue;
        }
        // A blank line, an HTML comment or stray bytes between rows do not
        // end the table: every row up to the next heading is read (or
        // reported), none silently dropped.
        if !trimmed.contains('|') {
            continue;
        }
        let cells = cells(trimmed);
        match (&category, in_table) {
            (Some(_), _) if is_header(&cells) => in_table = true,
            (Some(name), true) if !is_separator(&cells) => {
                parsed.push(row(file, number, &cells, name));
            }
            _ => {}
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
## APILayer APIs
| API | Description | Call this API |
|:---|:---|:---|
| [IPstack](https://ipstack.com/) | Locate visitors | [Run](x) |

### Animals
API | Description | Auth | HTTPS | CORS
|:---|:---|:---|:---|:---|
| [Axolotl](https://theaxolotlapi.netlify.app/) | Collection of axolotl pictures and facts | No | Yes | No |
| [Cat Facts](https://alexwohlbruck.github.io/cat-facts/) | Daily cat facts | No | Yes | No | |
| [Cats](https://docs.thecatapi.com/) | Pictures of cats \\| gifs | `apiKey` | Yes | No |

**[⬆ Back to Index](#index)**
### Government
API | Description | Auth | HTTPS | CORS |
|:---|:---|:---|:---|:---|
| [Wiki (en)](https://en.wikipedia.org/w/api.php_(x)) | Encyclopedia | No | Yes | Yes |
";

    #[test]
    fn rows_become_tools_with_category_and_url() {
        let parsed = parse(Path::new("README.md"), SAMPLE);
        let entries: Vec<_> = parsed.into_iter().map(Result::unwrap).collect();
        let names: Vec<_> = entries.iter().map(|e| e.tool.name.as_str()).collect();
        assert_eq!(names, ["Axolotl", "Cat Facts", "Cats", "Wiki (en)"]);
        assert_eq!(entries[0].tool.category, "Animals");
        assert_eq!(entries[0].tool.url, "https://theaxolotlapi.netlify.app/");
        assert_eq!(entries[0].line, Some(9));
        assert_eq!(entries[0].auth, None);
        assert_eq!(entries[2].auth.as_deref(), Some("apiKey"));
        assert_eq!(entries[2].tool.description, "Pictures of cats | gifs");
        assert_eq!(entries[3].tool.category, "Government");
        assert_eq!(
            entries[3].tool.url,
            "https://en.wikipedia.org/w/api.php_(x)"
        );
    }

    #[test]
    fn malformed_rows_name_line_and_column() {
        let text = "### Books\nAPI | Description | Auth | HTTPS | CORS\n|---|---|---|---|---|\n\
                    | Gutendex | Books | No | Yes | Yes |\n\
                    | [A](https://a.org) | x | No | Maybe | Yes |\n\
                    | [B](https://b.org) | x | No |\n";
        let errors: Vec<_> = parse(Path::new("R.md"), text)
            .into_iter()
            .map(Result::unwrap_err)
            .collect();
        assert_eq!(
            errors[0].to_string(),
            "R.md:4: field `API`: expected a Markdown link [Name](URL), found \"Gutendex\""
        );
        assert_eq!(
            (errors[1].line, errors[1].field.as_str()),
            (Some(5), "HTTPS")
        );
        assert_eq!((errors[2].line, errors[2].field.as_str()), (Some(6), "."));
    }

    #[test]
    fn a_break_inside_a_table_drops_no_row() {
        let text = "### Books\nAPI | Description | Auth | HTTPS | CORS\n|---|---|---|---|---|\n\
                    | [A](https://a.org) | x | No | Yes | Yes |\n\
                    \n\
                    | [B](https://b.org) | x | No | Yes | Yes |\n\
                    <!-- a comment -->\n\
                    \0\n\
                    | [C](https://c.org) | x | No | Yes | Yes |\n\
                    **[Back to Index](#index)**\n\
                    ### Music\n\
                    | [D](https://d.org) | not in a table | No | Yes | Yes |\n";
        let parsed = parse(Path::new("R.md"), text);
        let names: Vec<_> = parsed.into_iter().map(|e| e.unwrap().tool.name).collect();
        assert_eq!(names, ["A", "B", "C"]);
    }

    #[test]
    fn links_parse() {
        assert_eq!(
            link("[A B](http://x.org/(y))"),
            Some(("A B".into(), "http://x.org/(y)".into()))
        );
        assert_eq!(link("A B"), None);
        assert_eq!(link("[A](x) trailing"), None);
    }
}
