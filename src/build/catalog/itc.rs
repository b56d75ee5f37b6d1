//! ITC tools, as a JSON array, one JSON object, or JSON Lines. Each object is
//! either
//!
//! - a flat tool in the SPEC §0 / [`Tool`](crate::spec::records::Tool) shape
//!   (`name, description, category, country, method, url,
//!   required_parameters, optional_parameters`), such as
//!   `datasets/sample/apis.json` or a catalog written by `itc catalog
//!   import` (whose `id`, `country_source`, `home_url`, `auth` and `source`
//!   are kept); or
//! - a tool document as in the ITC paper's API example (Figure 10):
//!   `{tool_name, tool_description, home_url, country, api_list: [{name, url,
//!   description, method, category, required_parameters,
//!   optional_parameters}]}`. A document with one API gives a tool named
//!   `tool_name` (as the paper's calls name it); with several,
//!   `tool_name/name`.

use std::path::Path;

use super::json::{Ctx, Json, Node, Res, join, numbered_lines, parse_document, parse_line};
use super::{CatalogError, CountrySource, Parsed, RawEntry, Source, parse_parameter_list};

fn flat_tool(node: &Node<'_>) -> Res<RawEntry> {
    let mut raw = RawEntry::new(node.req_str("name")?, node.ctx.line, node.path.clone());
    raw.tool.description = node.opt_str("description")?;
    raw.tool.category = node.opt_str("category")?;
    raw.tool.country = node.opt_str("country")?;
    raw.country_path = join(&node.path, "country");
    raw.tool.method = node.opt_str("method")?;
    raw.tool.url = node.opt_str("url")?;
    raw.tool.required_parameters = parse_parameter_list(node, "required_parameters")?;
    raw.tool.optional_parameters = parse_parameter_list(node, "optional_parameters")?;
    raw.id = node.opt_str("id")?;
    raw.home_url = node.opt_str("home_url")?;
    let auth = node.opt_str("auth")?;
    raw.auth = (!auth.is_empty()).then_some(auth);
    let original = node.opt_str("original_name")?;
    raw.original_name = (!original.is_empty()).then_some(original);
    if let Some(source) = node.key("country_source") {
        let value = serde_json::Value::String(source.str()?.to_string());
        raw.country_source = Some(
            serde_json::from_value::<CountrySource>(value)
                .map_err(|_| source.error("expected field, url, text, flag or default"))?,
        );
    }
    if let Some(source) = node.key("source") {
        raw.source = Some(
            serde_json::from_value::<Source>(source.value.to_value())
                .map_err(|e| source.error(e.to_string()))?,
        );
    }
    Ok(raw)
}

fn tool_document(node: &Node<'_>) -> Parsed {
    let header = (|| -> Res<_> {
        Ok((
            node.req_str("tool_name")?,
            node.opt_str("tool_description")?,
            node.opt_str("home_url")?,
            node.opt_str("country")?,
            node.opt_str("category")?,
            node.key("api_list")
                .ok_or_else(|| node.error_at("api_list", "missing"))?
                .items()?,
        ))
    })();
    let (tool, tool_description, home_url, country, category, apis) = match header {
        Ok(h) => h,
        Err(e) => return vec![Err(e)],
    };
    let single = apis.len() == 1;
    apis.iter()
        .map(|api| {
            api.expect_object()?;
            let api_name = api.req_str("name")?;
            let name = if single {
                tool.clone()
            } else {
                format!("{tool}/{api_name}")
            };
            let mut raw = RawEntry::new(name, api.ctx.line, api.path.clone());
            let description = api.opt_str("description")?;
            raw.tool.description = if description.is_empty() {
                tool_description.clone()
            } else {
                description
            };
            let own_category = api.opt_str("category")?;
            raw.tool.category = if own_category.is_empty() {
                category.clone()
            } else {
                own_category
            };
            raw.tool.country = country.clone();
            raw.country_path = join(&node.path, "country");
            raw.tool.url = api.opt_str("url")?;
            raw.tool.method = api.opt_str("method")?;
            raw.home_url = home_url.clone();
            raw.tool.required_parameters = parse_parameter_list(api, "required_parameters")?;
            raw.tool.optional_parameters = parse_parameter_list(api, "optional_parameters")?;
            Ok(raw)
        })
        .collect()
}

fn item(node: &Node<'_>) -> Parsed {
    if let Err(e) = node.expect_object() {
        return vec![Err(e)];
    }
    if node.has("api_list") {
        tool_document(node)
    } else {
        vec![flat_tool(node)]
    }
}

/// Reads ITC tools from a JSON array, a single JSON object or JSON Lines.
pub fn parse(file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    let one_line = !text.trim().contains('\n');
    let whole = if text.trim_start().starts_with('[') {
        Some(parse_document(file, text)?)
    } else if one_line {
        // A one-line file is JSON Lines, so that errors name line 1.
        None
    } else {
        Json::parse(text).ok()
    };
    if let Some(json) = whole {
        let root = Node::root(&json, Ctx { file, line: None }, "");
        return Ok(match root.value {
            Json::Array(_) => root.items()?.iter().flat_map(item).collect(),
            _ => item(&root),
        });
    }
    let mut parsed = Vec::new();
    for (number, line) in numbered_lines(text) {
        match parse_line(file, number, line) {
            Ok(json) => {
                let ctx = Ctx {
                    file,
                    line: Some(number),
                };
                parsed.extend(item(&Node::root(&json, ctx, "")));
            }
            Err(e) => parsed.push(Err(e)),
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_of_flat_tools_and_catalog_entries() {
        let text = concat!(
            r#"{"name":"jma_forecast","category":"Weather","country":"JP","url":"https://www.jma.go.jp/x","required_parameters":[{"name":"prefecture","type":"string","description":"p"}]}"#,
            "\n",
            r#"{"id":"public-apis:Axolotl","name":"Axolotl","country":"GLOBAL","country_source":"url","source":{"format":"public-apis","file":"README.md","line":131}}"#,
            "\n",
            r#"{"name":"x","country_source":"guess"}"#,
            "\n"
        );
        let mut parsed = parse(Path::new("c.jsonl"), text).unwrap();
        let first = parsed.remove(0).unwrap();
        assert_eq!(first.line, Some(1));
        assert_eq!(first.tool.required_parameters[0].name, "prefecture");
        let second = parsed.remove(0).unwrap();
        assert_eq!(second.country_source, Some(CountrySource::Url));
        assert_eq!(second.source.unwrap().line, Some(131));
        let err = parsed.remove(0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.jsonl:3: field `country_source`: expected field, url, text, flag or default"
        );
    }

    #[test]
    fn tool_documents_as_in_the_paper() {
        let text = r#"{"tool_name":"Google Translate","tool_description":"Translate text","home_url":"https://rapidapi.com/x","country":"Global",
            "api_list":[{"name":"translate1","url":"https://google-translate.p.rapidapi.com/","description":"Translate","method":"GET","category":"Utilities",
            "required_parameters":[{"name":"text","type":"string","description":"t"}],"optional_parameters":[]}]}"#;
        let entry = parse(Path::new("t.json"), text).unwrap().remove(0).unwrap();
        assert_eq!(entry.tool.name, "Google Translate");
        assert_eq!(entry.tool.category, "Utilities");
        assert_eq!(entry.tool.country, "Global");
        assert_eq!(entry.path, "api_list[0]");
    }

    #[test]
    fn arrays_report_paths_and_syntax_errors_lines() {
        let err = parse(
            Path::new("a.json"),
            r#"[{"name":"a"},{"description":"no name"}]"#,
        )
        .unwrap()
        .remove(1)
        .unwrap_err();
        assert_eq!(err.to_string(), "a.json: field `[1].name`: missing");
        let err = parse(
            Path::new("a.json"),
            "[\n{\"name\": \"a\"},\n{\"name\" \"b\"}\n]",
        )
        .unwrap_err();
        assert_eq!(err.line, Some(3));
    }
}
