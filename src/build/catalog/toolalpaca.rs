//! ToolAlpaca's API lists.
//!
//! - `public_apis.json`: `{count, entries: [{API, Description, Auth, HTTPS,
//!   Cors, Link, Category}]}` (its processed copy of the public-apis list):
//!   one tool per entry, without parameters, the link as URL.
//! - The evaluation sets (`eval_simulated.json`, `eval_real.json`): a list of
//!   APIs `{Name, Description, Link, Category, Documentation}` whose
//!   `Documentation` is an OpenAPI 3 document in a string: one tool per
//!   operation (named by `operationId`, as ToolAlpaca's calls name them),
//!   category from `Category`, the link as home page.

use std::path::Path;

use super::json::{Ctx, Json, Node, Res, parse_document};
use super::openapi::{self, Defaults};
use super::{CatalogError, Parsed, RawEntry};

fn list_entry(node: &Node<'_>) -> Res<RawEntry> {
    node.expect_object()?;
    let mut raw = RawEntry::new(node.req_str("API")?, None, node.path.clone());
    raw.tool.description = node.opt_str("Description")?;
    raw.tool.category = node.req_str("Category")?;
    raw.tool.url = node.req_str("Link")?;
    node.opt_bool("HTTPS")?;
    let auth = node.opt_str("Auth")?;
    raw.auth = (!auth.is_empty()).then_some(auth);
    Ok(raw)
}

fn documented_api(node: &Node<'_>) -> Result<Parsed, CatalogError> {
    node.expect_object()?;
    let category = node.req_str("Category")?;
    let link = node.opt_str("Link")?;
    let documentation = node
        .key("Documentation")
        .ok_or_else(|| node.error_at("Documentation", "missing"))?;
    let doc = Json::parse(documentation.str()?)
        .map_err(|e| documentation.error(format!("not a JSON OpenAPI document: {e}")))?;
    let root = Node::root(&doc, node.ctx, &documentation.path);
    let defaults = Defaults {
        category,
        home_url: link,
    };
    openapi::operations(&root, &defaults)
}

/// Reads a ToolAlpaca API list or evaluation set.
pub fn parse(file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    let json = parse_document(file, text)?;
    let root = Node::root(&json, Ctx { file, line: None }, "");
    if let Some(entries) = root.key("entries") {
        return Ok(entries.items()?.iter().map(list_entry).collect());
    }
    let Json::Array(_) = root.value else {
        return Err(root.error(
            "expected public_apis.json ({count, entries}) or an evaluation set (a list of APIs with Documentation)",
        ));
    };
    let mut parsed = Vec::new();
    for api in root.items()? {
        match documented_api(&api) {
            Ok(tools) => parsed.extend(tools),
            Err(e) => parsed.push(Err(e)),
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_list_entries_become_tools() {
        let text = r#"{"count":2,"entries":[
          {"API":"Axolotl","Description":"Axolotl facts","Auth":"","HTTPS":true,"Cors":"no","Link":"https://theaxolotlapi.netlify.app/","Category":"Animals"},
          {"API":"Cats","Description":"Cat pictures","Auth":"apiKey","HTTPS":"yes","Cors":"no","Link":"https://docs.thecatapi.com/","Category":"Animals"}]}"#;
        let mut parsed = parse(Path::new("public_apis.json"), text).unwrap();
        let first = parsed.remove(0).unwrap();
        assert_eq!(first.tool.name, "Axolotl");
        assert_eq!(first.tool.url, "https://theaxolotlapi.netlify.app/");
        assert_eq!(first.path, "entries[0]");
        let err = parsed.remove(0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "public_apis.json: field `entries[1].HTTPS`: expected a boolean, found a string"
        );
    }

    #[test]
    fn evaluation_apis_expand_their_documentation() {
        let doc = r#"{"openapi":"3.0.0","info":{"title":"A"},"paths":{"/random":{"get":{"operationId":"getRandomAxolotlImage","description":"Random image"}},"/facts":{"get":{"operationId":"getAxolotlFacts","parameters":[{"name":"limit","in":"query","schema":{"type":"integer"}}]}}}}"#;
        let api = serde_json::json!([{"Name":"Axolotl","Description":"d","Link":"https://theaxolotlapi.netlify.app/","Category":"Animals","Documentation":doc}]);
        let parsed = parse(Path::new("eval.json"), &api.to_string()).unwrap();
        let tools: Vec<_> = parsed.into_iter().map(Result::unwrap).collect();
        assert_eq!(tools[0].tool.name, "getRandomAxolotlImage");
        assert_eq!(tools[1].tool.optional_parameters[0].name, "limit");
        assert_eq!(tools[1].tool.category, "Animals");
        assert_eq!(tools[1].home_url, "https://theaxolotlapi.netlify.app/");
        assert_eq!(tools[1].path, r#"[0].Documentation.paths["/facts"].get"#);
    }
}
