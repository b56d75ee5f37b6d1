//! NexusRaven (nexusflowai/NexusRaven) query files to SPEC §0 tasks. No
//! Python is run: function signatures and docstrings are read by a small
//! parser here, gold call strings by [`crate::spec::action::parse_actions`].
//!
//! Three input shapes are recognised by content:
//! - a list of `{query, reference}` (raw API query files) plus the function
//!   definitions as Python source (`*.py`, passed among the inputs);
//! - a column-wise list of `{turns_1: {instruction, golden_answer, docstring}, …}`
//!   where `docstring` holds `OPTION:` blocks of `<func_start>def …<func_end>`
//!   and `<docstring_start>"""…"""<docstring_end>`;
//! - a list of `{Input, Output, context}` where `context` holds Python stub
//!   functions (signature and a docstring string).

use std::path::PathBuf;

use anyhow::{Context, bail};
use serde_json::Value as J;

use crate::spec::action::{Mode, parse_actions, parse_value};
use crate::spec::records::{Call, Gold, Parameter, Task, TaskKind, Tool, Value};

/// A parsed function definition.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// Function name.
    pub name: String,
    /// Parameters: name, annotation, default (as written).
    pub params: Vec<(String, String, Option<String>)>,
    /// Docstring (without quotes), if any.
    pub docstring: String,
}

/// Splits `text` on `sep` outside brackets and quotes.
fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            cur.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
            }
            '(' | '[' | '{' => {
                depth += 1;
                cur.push(c);
            }
            ')' | ']' | '}' => {
                depth -= 1;
                cur.push(c);
            }
            _ if c == sep && depth == 0 => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        parts.push(cur);
    }
    parts
}

/// The index of the `)` closing the `(` at `open`, quotes respected.
fn closing_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text[open..].char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reads the first Python string literal at the start of `text` (after
/// white space): `"""…"""`, `'''…'''`, `"…"`, `'…'`, with a prefix.
fn leading_string(text: &str) -> Option<String> {
    let t = text.trim_start();
    let t = t.trim_start_matches(['r', 'u', 'R', 'U']);
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(rest) = t.strip_prefix(q) {
            let end = if q.len() == 3 {
                rest.find(q)?
            } else {
                let mut escaped = false;
                rest.char_indices()
                    .find(|&(_, c)| {
                        let hit = !escaped && c.to_string() == q;
                        escaped = !escaped && c == '\\';
                        hit
                    })?
                    .0
            };
            let raw = &rest[..end];
            // Unescape the common escapes; the text is only a description.
            return Some(
                raw.replace("\\n", "\n")
                    .replace("\\'", "'")
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\"),
            );
        }
    }
    None
}

/// Parses every `def name(params) [-> ret][:]` in `source`, with the
/// docstring that follows (a string literal right after the signature, or a
/// `<docstring_start>…<docstring_end>` block).
pub fn parse_defs(source: &str) -> Vec<FunctionDef> {
    let mut defs = Vec::new();
    let mut search = 0;
    while let Some(found) = source[search..].find("def ") {
        let at = search + found;
        search = at + 4;
        // `def` must start a word.
        if at > 0
            && source[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &source[at + 4..];
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = rest[..name_len].to_string();
        let Some(open_rel) = rest[name_len..].find('(') else {
            continue;
        };
        if !rest[name_len..name_len + open_rel].trim().is_empty() || name.is_empty() {
            continue;
        }
        let open = at + 4 + name_len + open_rel;
        let Some(close) = closing_paren(source, open) else {
            continue;
        };
        let mut params = Vec::new();
        for part in split_top(&source[open + 1..close], ',') {
            let part = part.trim();
            if part.is_empty() || part == "*" || part == "/" || part.starts_with('*') {
                continue;
            }
            let (head, default) = match split_top(part, '=').as_slice() {
                [h, d, ..] => (h.trim().to_string(), Some(d.trim().to_string())),
                _ => (part.to_string(), None),
            };
            let (pname, ann) = match head.split_once(':') {
                Some((n, a)) => (n.trim().to_string(), a.trim().to_string()),
                None => (head.trim().to_string(), String::new()),
            };
            if pname == "self" {
                continue;
            }
            params.push((pname, ann, default));
        }
        // Skip `-> ret`, `:` and `<func_end>`, then look for the docstring.
        let mut after = &source[close + 1..];
        if let Some(colon) = after.find(':').filter(|&c| !after[..c].contains('\n')) {
            after = &after[colon + 1..];
        }
        let after = after.trim_start_matches("<func_end>");
        let docstring = if let Some(block) = after.trim_start().strip_prefix("<docstring_start>") {
            let end = block.find("<docstring_end>").unwrap_or(block.len());
            leading_string(&block[..end]).unwrap_or_else(|| block[..end].trim().to_string())
        } else {
            leading_string(after).unwrap_or_default()
        };
        search = close;
        defs.push(FunctionDef {
            name,
            params,
            docstring: docstring.trim().to_string(),
        });
    }
    defs
}

/// Python annotation to the SPEC's type names; `Optional[...]` marks an optional parameter.
fn kind_of(annotation: &str) -> (String, bool) {
    let a = annotation.trim().trim_matches(|c| c == '\'' || c == '"');
    let (inner, optional) = match a
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
    {
        Some(i) => (i, true),
        None => (a, false),
    };
    let base = inner
        .split('[')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let kind = match base.as_str() {
        "str" | "string" => "string",
        "int" | "integer" => "integer",
        "float" | "number" => "number",
        "bool" | "boolean" => "boolean",
        "list" | "tuple" | "set" | "sequence" => "array",
        "dict" | "mapping" => "object",
        "" | "any" => "string",
        other => return (other.to_string(), optional),
    };
    (kind.to_string(), optional)
}

/// Per-parameter descriptions from a docstring's `Args:` / `Parameters:`
/// lines (`name (type) required: text`, `- name: text`, `name: text`), and
/// whether the line says `required` / `optional`.
fn param_docs(doc: &str, name: &str) -> (String, Option<bool>) {
    for line in doc.lines() {
        let l = line.trim().trim_start_matches(['-', '*']).trim();
        let Some(rest) = l.strip_prefix(name) else {
            continue;
        };
        if !(rest.starts_with(' ') || rest.starts_with(':') || rest.starts_with('(')) {
            continue;
        }
        let Some((head, text)) = rest.split_once(':') else {
            continue;
        };
        let head = head.to_ascii_lowercase();
        let required = if head.contains("optional") {
            Some(false)
        } else if head.contains("required") {
            Some(true)
        } else {
            None
        };
        return (text.trim().to_string(), required);
    }
    (String::new(), None)
}

/// A default value as written in Python, as JSON.
fn default_json(text: &str) -> Option<J> {
    let (v, rest) = parse_value(text, Mode::Lenient).ok()?;
    if !rest.trim().is_empty() {
        return None;
    }
    serde_json::to_value(&v).ok()
}

/// A function definition as a SPEC tool. The description is the docstring up
/// to its `Args:`/`Parameters:`/`Returns:` section.
pub fn tool_of(def: &FunctionDef) -> Tool {
    let doc = &def.docstring;
    let description: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .take_while(|l| {
            !["Args:", "Parameters:", "Arguments:", "Returns:", "Example"]
                .iter()
                .any(|m| l.starts_with(m))
        })
        .collect();
    let mut tool = Tool {
        name: def.name.clone(),
        description: description.join("\n").trim().to_string(),
        country: "GLOBAL".into(),
        ..Tool::default()
    };
    for (name, ann, default) in &def.params {
        let (kind, optional_type) = kind_of(ann);
        let (description, said) = param_docs(doc, name);
        let default_value = default
            .as_deref()
            .and_then(default_json)
            .filter(|d| !d.is_null());
        let required = said.unwrap_or(default.is_none() && !optional_type);
        let p = Parameter {
            name: name.clone(),
            kind,
            description,
            default: default_value,
            ..Default::default()
        };
        if required {
            tool.required_parameters.push(p);
        } else {
            tool.optional_parameters.push(p);
        }
    }
    tool
}

/// Parses a gold call string (`f(a=1)`, `r = mod.f(a=1)`, `["f(a=1)", …]`)
/// into calls whose names are those of `tools` where a dotted prefix or an
/// assignment differs.
pub fn parse_gold(text: &str, tools: &[Tool]) -> Result<Vec<Call>, String> {
    let text = text.trim();
    let mut calls = Vec::new();
    // A JSON list of call strings.
    if text.starts_with('[')
        && let Ok(J::Array(items)) = serde_json::from_str::<J>(text)
    {
        for item in items {
            let s = item.as_str().ok_or("golden answer item is not a string")?;
            calls.extend(parse_gold(s, tools)?);
        }
        return Ok(calls);
    }
    let mut source = text.to_string();
    // `r = f(...)`: drop the assignment.
    if let Some(eq) = source.find('=')
        && let Some(paren) = source.find('(')
        && eq < paren
        && source[..eq]
            .trim()
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ',' || c == ' ')
    {
        source = source[eq + 1..].trim().to_string();
    }
    let parsed = parse_actions(&source, Mode::Lenient).map_err(|e| e.to_string())?;
    for mut call in parsed {
        if !tools.iter().any(|t| t.name == call.name)
            && let Some(last) = call.name.rsplit('.').next()
            && tools.iter().any(|t| t.name == last)
        {
            call.name = last.to_string();
        }
        calls.push(call);
    }
    Ok(calls)
}

fn nested(calls: &[Call]) -> bool {
    fn call_like(v: &Value) -> bool {
        match v {
            Value::Word(w) => w.contains('('),
            Value::List(items) | Value::Tuple(items) => items.iter().any(call_like),
            Value::Dict(e) => e.iter().any(|(_, v)| call_like(v)),
            _ => false,
        }
    }
    calls
        .iter()
        .any(|c| c.arguments.iter().any(|(_, v)| call_like(v)))
}

fn task(id: String, query: &str, tools: Vec<Tool>, calls: Vec<Call>) -> Task {
    let kind = TaskKind::of_calls(&calls);
    Task {
        id,
        kind,
        language: "en".into(),
        country: "GLOBAL".into(),
        category: String::new(),
        query: query.to_string(),
        tools,
        gold: Gold {
            thought: String::new(),
            calls,
            official: None,
        },
        turns: Vec::new(),
    }
}

/// Converts NexusRaven files into SPEC tasks (ids `nexusraven-<file stem>-<index>`).
pub fn convert(inputs: &[PathBuf]) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let mut warnings = Vec::new();
    let mut tasks = Vec::new();
    // Python sources first: the definitions raw query files refer to.
    let mut shared_defs = Vec::new();
    for path in inputs
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        let source = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        shared_defs.extend(parse_defs(&source));
    }
    let shared_tools: Vec<Tool> = shared_defs.iter().map(tool_of).collect();
    for path in inputs
        .iter()
        .filter(|p| p.extension().is_none_or(|e| e != "py"))
    {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let rows: Vec<J> = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON list", path.display()))?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut push = |index: String,
                        query: &str,
                        tools: Vec<Tool>,
                        gold: &str,
                        warnings: &mut Vec<String>| {
            match parse_gold(gold, &tools) {
                Ok(calls) => {
                    if nested(&calls) {
                        warnings.push(format!(
                            "{}: {index}: nested calls kept as text: {gold}",
                            path.display()
                        ));
                    }
                    for c in &calls {
                        if !tools.iter().any(|t| t.name == c.name) {
                            warnings.push(format!(
                                "{}: {index}: gold calls {} which no definition gives",
                                path.display(),
                                c.name
                            ));
                        }
                    }
                    tasks.push(task(
                        format!("nexusraven-{stem}-{index}"),
                        query,
                        tools,
                        calls,
                    ));
                }
                Err(e) => warnings.push(format!(
                    "{}: {index}: gold {gold:?} does not parse ({e}); skipped",
                    path.display()
                )),
            }
        };
        for (i, row) in rows.iter().enumerate() {
            if row.get("turns_1").is_some() {
                let mut turns: Vec<(&String, &J)> = row
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| k.starts_with("turns_"))
                    .collect();
                turns.sort_by_key(|(k, _)| {
                    k.trim_start_matches("turns_").parse::<u32>().unwrap_or(0)
                });
                for (k, turn) in turns {
                    let (Some(gold), Some(query)) =
                        (turn["golden_answer"].as_str(), turn["instruction"].as_str())
                    else {
                        continue;
                    };
                    let defs = parse_defs(turn["docstring"].as_str().unwrap_or_default());
                    let tools = defs.iter().map(tool_of).collect();
                    push(format!("{i}-{k}"), query, tools, gold, &mut warnings);
                }
            } else if let (Some(query), Some(gold)) =
                (row["Input"].as_str(), row["Output"].as_str())
            {
                let source: Vec<&str> = row["context"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(J::as_str)
                    .collect();
                let defs = parse_defs(&source.join("\n"));
                let tools: Vec<Tool> = defs.iter().map(tool_of).collect();
                push(i.to_string(), query, tools, gold, &mut warnings);
            } else if let (Some(query), Some(gold)) =
                (row["query"].as_str(), row["reference"].as_str())
            {
                if shared_tools.is_empty() {
                    bail!(
                        "{}: raw query files need the function definitions: pass the *.py file with them (--input of itc ood convert, --dataset-files of itc eval)",
                        path.display()
                    );
                }
                push(
                    i.to_string(),
                    query,
                    shared_tools.clone(),
                    gold,
                    &mut warnings,
                );
            } else {
                bail!(
                    "{}: record {i} is not a NexusRaven query record",
                    path.display()
                );
            }
        }
    }
    Ok((tasks, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_docstrings() {
        let src = "def get_weather(city: str, days: Optional[int] = None, unit='c') -> dict:\n    \"\"\"\n    Weather forecast.\n\n    Args:\n        city (str): The city.\n        days: How many days.\n    \"\"\"\n    pass\n";
        let defs = parse_defs(src);
        assert_eq!(defs.len(), 1);
        let t = tool_of(&defs[0]);
        assert_eq!(t.name, "get_weather");
        assert_eq!(t.description, "Weather forecast.");
        assert_eq!(t.required_parameters.len(), 1);
        assert_eq!(t.required_parameters[0].description, "The city.");
        let opt: Vec<(&str, &str)> = t
            .optional_parameters
            .iter()
            .map(|p| (p.name.as_str(), p.kind.as_str()))
            .collect();
        assert_eq!(opt, [("days", "integer"), ("unit", "string")]);
        assert_eq!(
            t.optional_parameters[1].default,
            Some(serde_json::json!("c"))
        );
    }

    #[test]
    fn option_blocks() {
        let block = "\nOPTION:\n<func_start>def search(color: str, page: int)<func_end>\n<docstring_start>\n\"\"\"\nSearch images.\n\nParameters:\n    color (str) required: The color.\n    page (int) optional: The page.\n\"\"\"\n<docstring_end>\n";
        let defs = parse_defs(block);
        assert_eq!(defs[0].docstring.lines().next(), Some("Search images."));
        let t = tool_of(&defs[0]);
        assert_eq!(t.required_parameters[0].name, "color");
        assert_eq!(t.optional_parameters[0].name, "page");
    }

    #[test]
    fn gold_strings() {
        let tools = vec![tool_of(
            &parse_defs("def searchCPE(keywordSearch: str = None, limit: int = None): pass")[0],
        )];
        let calls = parse_gold(
            "r = nvdlib.searchCPE(keywordSearch = 'Exchange 2010', limit = 2)",
            &tools,
        )
        .unwrap();
        assert_eq!(calls[0].name, "searchCPE");
        assert_eq!(calls[0].arguments[1], ("limit".into(), Value::Int(2)));
        let calls = parse_gold("[\"f()\", \"g(x=1)\"]", &tools).unwrap();
        assert_eq!(calls.len(), 2);
    }
}
