//! ToolBench API descriptions, in either of the two shapes the repository
//! ships:
//!
//! - query files (`data_example/instruction/G1_query.json`): a list of
//!   `{api_list: [{category_name, tool_name, api_name, api_description,
//!   required_parameters, optional_parameters, method}], query, …}`; every
//!   API of every query is read (repeats are removed as duplicates);
//! - tool documents (`data/toolenv/tools/<Category>/<tool>.json`, or a list
//!   of them): `{tool_name, tool_description, home_url, api_list: [{name,
//!   url, description, method, required_parameters, optional_parameters}]}`;
//!   the category is the document's `category`/`category_name`, else the
//!   `<Category>` directory.
//!
//! A tool is named `<tool_name>/<api_name>` (ToolBench APIs are endpoints of
//! a tool; a leading `/` of the API name is dropped).

use std::path::Path;

use super::json::{Ctx, Node, Res, parse_document};
use super::{CatalogError, Parsed, RawEntry, parse_parameter_list};

/// `<tool>/<api>`, as tools are named.
pub fn tool_name(tool: &str, api: &str) -> String {
    format!("{}/{}", tool.trim(), api.trim().trim_start_matches('/'))
}

fn parameters(raw: &mut RawEntry, node: &Node<'_>) -> Res<()> {
    raw.tool.required_parameters = parse_parameter_list(node, "required_parameters")?;
    raw.tool.optional_parameters = parse_parameter_list(node, "optional_parameters")?;
    Ok(())
}

/// One entry of a query's `api_list`.
fn query_api(node: &Node<'_>) -> Res<RawEntry> {
    node.expect_object()?;
    let name = tool_name(&node.req_str("tool_name")?, &node.req_str("api_name")?);
    let mut raw = RawEntry::new(name, None, node.path.clone());
    raw.tool.description = node.opt_str("api_description")?;
    raw.tool.category = node.req_str("category_name")?;
    raw.tool.method = node.opt_str("method")?;
    parameters(&mut raw, node)?;
    Ok(raw)
}

/// The `<Category>` of `…/tools/<Category>/<tool>.json`.
fn category_from_path(file: &Path) -> String {
    let parent = file.parent();
    let grandparent = parent.and_then(Path::parent).and_then(Path::file_name);
    match (parent.and_then(Path::file_name), grandparent) {
        (Some(category), Some(tools)) if tools == "tools" => {
            category.to_string_lossy().into_owned()
        }
        _ => String::new(),
    }
}

/// Every API of a tool document.
fn tool_document(node: &Node<'_>, file: &Path) -> Result<Parsed, CatalogError> {
    node.expect_object()?;
    let tool = node.req_str("tool_name")?;
    let tool_description = node.opt_str("tool_description")?;
    let home_url = node.opt_str("home_url")?;
    let mut category = node.opt_str("category")?;
    if category.is_empty() {
        category = node.opt_str("category_name")?;
    }
    if category.is_empty() {
        category = category_from_path(file);
    }
    let country = node.opt_str("country")?;
    let mut parsed = Vec::new();
    for api in node.opt_items("api_list")? {
        let entry = (|| -> Res<RawEntry> {
            api.expect_object()?;
            let name = tool_name(&tool, &api.req_str("name")?);
            let mut raw = RawEntry::new(name, None, api.path.clone());
            let description = api.opt_str("description")?;
            raw.tool.description = if description.is_empty() {
                tool_description.clone()
            } else {
                description
            };
            raw.tool.category = category.clone();
            raw.tool.url = api.opt_str("url")?;
            raw.tool.method = api.opt_str("method")?;
            raw.tool.country = country.clone();
            raw.country_path = super::json::join(&node.path, "country");
            raw.home_url = home_url.clone();
            parameters(&mut raw, &api)?;
            Ok(raw)
        })();
        parsed.push(entry);
    }
    Ok(parsed)
}

fn element(node: &Node<'_>, file: &Path) -> Result<Parsed, CatalogError> {
    if node.has("tool_name") && node.has("api_list") {
        return tool_document(node, file);
    }
    if node.has("api_list") {
        let apis = node.key("api_list").expect("checked").items()?;
        return Ok(apis.iter().map(query_api).collect());
    }
    Err(node.error(
        "expected a ToolBench query (api_list, query) or tool document (tool_name, api_list)",
    ))
}

/// Reads a ToolBench query file or tool document(s).
pub fn parse(file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    let json = parse_document(file, text)?;
    let root = Node::root(&json, Ctx { file, line: None }, "");
    if root.has("api_list") {
        return element(&root, file);
    }
    let mut parsed = Vec::new();
    for item in root.items()? {
        match element(&item, file) {
            Ok(entries) => parsed.extend(entries),
            Err(e) => parsed.push(Err(e)),
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_files_give_every_api() {
        let text = r#"[{"api_list":[
            {"category_name":"Logistics","tool_name":"Transportistas de Argentina","api_name":"/tracking/correo_argentino/result_task/:task_id","api_description":"Result for one Task ID.","required_parameters":[{"name":"task_id","type":"STRING","description":"Task ID","default":""}],"optional_parameters":[],"method":"GET"},
            {"category_name":"Finance","tool_name":"IEX","api_name":"Short Interest","api_description":" ","required_parameters":[],"optional_parameters":[{"name":"symbol","type":"STRING","description":"","default":"GOOG"}],"method":"GET"}],
          "query":"q","relevant APIs":[["IEX","Short Interest"]],"query_id":1}]"#;
        let parsed = parse(Path::new("G1_query.json"), text).unwrap();
        let entries: Vec<_> = parsed.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            entries[0].tool.name,
            "Transportistas de Argentina/tracking/correo_argentino/result_task/:task_id"
        );
        assert_eq!(entries[0].tool.category, "Logistics");
        assert_eq!(entries[0].tool.required_parameters[0].default, None);
        assert_eq!(entries[0].path, "[0].api_list[0]");
        assert_eq!(
            entries[1].tool.optional_parameters[0].default,
            Some(serde_json::json!("GOOG"))
        );
    }

    #[test]
    fn tool_documents_take_category_from_the_directory() {
        let text = r#"{"tool_name":"Weather JP","tool_description":"Japanese weather","home_url":"https://rapidapi.com/x/api/weather-jp","api_list":[
            {"name":"forecast","url":"https://weather-jp.p.rapidapi.com/forecast","description":"","method":"GET","required_parameters":[{"name":"city","type":"STRING","description":"City"}],"optional_parameters":[]}]}"#;
        let file = Path::new("data/toolenv/tools/Weather/weather_jp.json");
        let entry = parse(file, text).unwrap().remove(0).unwrap();
        assert_eq!(entry.tool.name, "Weather JP/forecast");
        assert_eq!(entry.tool.category, "Weather");
        assert_eq!(entry.tool.description, "Japanese weather");
        assert_eq!(entry.home_url, "https://rapidapi.com/x/api/weather-jp");
    }

    #[test]
    fn problems_name_the_json_path() {
        let text = r#"[{"api_list":[{"category_name":"X","tool_name":"T","api_name":"a","required_parameters":[{"type":"STRING"}]}],"query":"q"}, {"foo":1}]"#;
        let parsed = parse(Path::new("q.json"), text).unwrap();
        let errors: Vec<_> = parsed.into_iter().map(Result::unwrap_err).collect();
        assert_eq!(
            errors[0].field,
            "[0].api_list[0].required_parameters[0].name"
        );
        assert_eq!(errors[0].message, "missing");
        assert_eq!(errors[1].field, "[1]");
    }
}
