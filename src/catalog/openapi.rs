//! OpenAPI 3 documents (JSON): every operation becomes a tool.
//!
//! - name: `operationId`, else `METHOD /path`;
//! - description: `summary` and `description`;
//! - parameters: path and query parameters (path ones always required,
//!   others by their `required` flag; header and cookie parameters are left
//!   out), then the properties of a JSON or form request body (required by
//!   the body schema's `required` list); types from the schemas, `enum`
//!   values added to the description, `default`s kept; local `$ref`s are
//!   followed;
//! - URL: the first server's URL (variables replaced by their defaults) plus
//!   the path;
//! - category: `x-category` of the operation, the path or `info`; country:
//!   `x-country` of the operation or `info` (else the server's domain).

use std::path::Path;

use super::json::{Ctx, Json, Node, Res, parse_document};
use super::{CatalogError, Parsed, RawEntry};
use crate::records::Parameter;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// What the caller knows about the API beyond the document.
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    /// Category when the document gives none.
    pub category: String,
    /// Home page, used for the country when no server URL has a country domain.
    pub home_url: String,
}

/// Follows `$ref`s (local JSON pointers only) to the value they name.
fn resolve<'a>(root: &'a Json, node: Node<'a>, base: &str) -> Res<Node<'a>> {
    let mut node = node;
    for _ in 0..32 {
        let Some(reference) = node.key("$ref") else {
            return Ok(node);
        };
        let target = reference.str()?;
        let pointer = target.strip_prefix("#/").ok_or_else(|| {
            reference.error(format!(
                "only local references (#/…) are supported, found {target:?}"
            ))
        })?;
        let mut value = root;
        for segment in pointer.split('/') {
            let segment = segment.replace("~1", "/").replace("~0", "~");
            value = match value {
                Json::Object(_) => value.get(&segment),
                Json::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(|| reference.error(format!("{target:?} points to nothing")))?;
        }
        node = Node::root(value, node.ctx, &format!("{base}{target}"));
    }
    Err(node.error("$ref chain longer than 32 (a cycle?)"))
}

/// The type word of a schema (`type`, or the first non-null of a list).
fn schema_type(schema: &Node<'_>) -> String {
    match schema.value.get("type") {
        Some(Json::String(t)) => t.clone(),
        Some(Json::Array(types)) => types
            .iter()
            .find_map(|t| match t {
                Json::String(s) if s != "null" => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "string".to_string()),
        _ if schema.has("properties") => "object".to_string(),
        _ if schema.has("items") => "array".to_string(),
        _ => "string".to_string(),
    }
}

/// A description with the schema's `enum` values appended.
fn describe(description: &str, schema: Option<&Node<'_>>) -> String {
    let values: Vec<String> = schema
        .and_then(|s| s.value.get("enum"))
        .and_then(|e| match e {
            Json::Array(values) => Some(
                values
                    .iter()
                    .map(|v| match v {
                        Json::String(s) => s.clone(),
                        other => other.to_value().to_string(),
                    })
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let description = description.trim();
    match (description.is_empty(), values.is_empty()) {
        (_, true) => description.to_string(),
        (true, false) => format!("one of: {}", values.join(", ")),
        (false, false) => format!("{description} (one of: {})", values.join(", ")),
    }
}

struct Doc<'a> {
    root: &'a Json,
    base: String,
}

impl<'a> Doc<'a> {
    fn resolve(&self, node: Node<'a>) -> Res<Node<'a>> {
        resolve(self.root, node, &self.base)
    }

    /// One path or query parameter; `None` for header and cookie parameters.
    fn parameter(&self, node: Node<'a>) -> Res<Option<(Parameter, bool)>> {
        let node = self.resolve(node)?;
        node.expect_object()?;
        let name = node.req_str("name")?;
        let location = node.req_str("in")?;
        let required = match location.as_str() {
            "path" => true,
            "query" => node.opt_bool("required")?.unwrap_or(false),
            "header" | "cookie" => return Ok(None),
            other => {
                return Err(node.error_at(
                    "in",
                    format!("expected path, query, header or cookie, found {other:?}"),
                ));
            }
        };
        let schema = match node.key("schema") {
            Some(s) => Some(self.resolve(s)?),
            None => None,
        };
        let own = node.opt_str("description")?;
        let description = if own.is_empty() {
            schema
                .as_ref()
                .map_or(Ok(String::new()), |s| s.opt_str("description"))?
        } else {
            own
        };
        let parameter = Parameter {
            name,
            kind: schema
                .as_ref()
                .map_or_else(|| "string".to_string(), schema_type),
            description: describe(&description, schema.as_ref()),
            default: schema
                .as_ref()
                .and_then(|s| s.value.get("default"))
                .map(Json::to_value),
        };
        Ok(Some((parameter, required)))
    }

    /// The fields of a JSON or form request body.
    fn body(&self, node: Node<'a>) -> Res<Vec<(Parameter, bool)>> {
        let body = self.resolve(node)?;
        let body_required = body.opt_bool("required")?.unwrap_or(false);
        let Some(content) = body.key("content") else {
            return Ok(Vec::new());
        };
        let media = content.members()?;
        let chosen = media
            .iter()
            .find(|(k, _)| k.contains("json"))
            .or_else(|| media.iter().find(|(k, _)| k.contains("form")));
        let Some(schema) = chosen.and_then(|(_, m)| m.key("schema")) else {
            return Ok(Vec::new());
        };
        let schema = self.resolve(schema)?;
        let Some(properties) = schema.key("properties") else {
            let whole = Parameter {
                name: "body".to_string(),
                kind: schema_type(&schema),
                description: schema.opt_str("description")?,
                default: None,
            };
            return Ok(vec![(whole, body_required)]);
        };
        let required: Vec<&str> = schema
            .opt_items("required")?
            .iter()
            .filter_map(|n| n.str().ok())
            .collect();
        let mut fields = Vec::new();
        for (name, property) in properties.members()? {
            let property = self.resolve(property)?;
            let parameter = Parameter {
                name: name.to_string(),
                kind: schema_type(&property),
                description: describe(&property.opt_str("description")?, Some(&property)),
                default: property.value.get("default").map(Json::to_value),
            };
            fields.push((parameter, required.contains(&name)));
        }
        Ok(fields)
    }
}

/// The first server's URL with its variables replaced by their defaults.
fn server_url(servers: Option<Node<'_>>) -> Res<String> {
    let Some(first) = servers
        .map(|s| s.items())
        .transpose()?
        .and_then(|s| s.into_iter().next())
    else {
        return Ok(String::new());
    };
    let mut url = first.req_str("url")?;
    if let Some(variables) = first.key("variables") {
        for (name, variable) in variables.members()? {
            let default = variable.opt_str("default")?;
            url = url.replace(&format!("{{{name}}}"), &default);
        }
    }
    Ok(url)
}

fn description_of(op: &Node<'_>) -> Res<String> {
    let summary = op.opt_str("summary")?;
    let description = op.opt_str("description")?;
    Ok(match (summary.is_empty(), description.is_empty()) {
        (_, true) => summary,
        (true, false) => description,
        (false, false) if description.starts_with(&summary) => description,
        (false, false) => format!("{}. {description}", summary.trim_end_matches('.')),
    })
}

fn x_text(nodes: &[&Node<'_>], key: &str) -> Res<(String, String)> {
    for node in nodes {
        if let Some(value) = node.key(key) {
            return Ok((value.str()?.trim().to_string(), value.path.clone()));
        }
    }
    Ok((String::new(), String::new()))
}

struct Operation<'n, 'a> {
    doc: &'n Doc<'a>,
    root: &'n Node<'a>,
    item: &'n Node<'a>,
    op: &'n Node<'a>,
    path: &'n str,
    method: &'n str,
}

impl Operation<'_, '_> {
    fn parameters(&self) -> Res<(Vec<Parameter>, Vec<Parameter>)> {
        let mut nodes: Vec<Node<'_>> = Vec::new();
        for node in self
            .item
            .opt_items("parameters")?
            .into_iter()
            .chain(self.op.opt_items("parameters")?)
        {
            let resolved = self.doc.resolve(node.clone())?;
            let key = (resolved.opt_str("name")?, resolved.opt_str("in")?);
            // Operation parameters override path-level ones of the same name and location.
            let same = |n: &Node<'_>| -> bool {
                self.doc.resolve(n.clone()).is_ok_and(|r| {
                    (
                        r.opt_str("name").unwrap_or_default(),
                        r.opt_str("in").unwrap_or_default(),
                    ) == key
                })
            };
            nodes.retain(|n| !same(n));
            nodes.push(node);
        }
        let mut fields = Vec::new();
        for node in nodes {
            fields.extend(self.doc.parameter(node)?);
        }
        if let Some(body) = self.op.key("requestBody") {
            for (parameter, required) in self.doc.body(body)? {
                if !fields.iter().any(|(p, _)| p.name == parameter.name) {
                    fields.push((parameter, required));
                }
            }
        }
        let (required, optional): (Vec<_>, Vec<_>) = fields.into_iter().partition(|(_, r)| *r);
        Ok((
            required.into_iter().map(|(p, _)| p).collect(),
            optional.into_iter().map(|(p, _)| p).collect(),
        ))
    }

    fn entry(&self, defaults: &Defaults) -> Res<RawEntry> {
        self.op.expect_object()?;
        let name = match self.op.key("operationId") {
            Some(id) => id.str()?.trim().to_string(),
            None => format!("{} {}", self.method.to_uppercase(), self.path),
        };
        let mut raw = RawEntry::new(name, self.op.ctx.line, self.op.path.clone());
        raw.tool.description = description_of(self.op)?;
        raw.tool.method = self.method.to_uppercase();
        let servers = self
            .op
            .key("servers")
            .or_else(|| self.item.key("servers"))
            .or_else(|| self.root.key("servers"));
        let base = server_url(servers)?;
        raw.tool.url = if base.is_empty() {
            String::new()
        } else {
            format!("{}{}", base.trim_end_matches('/'), self.path)
        };
        let info = self.root.key("info");
        let mut scopes = vec![self.op, self.item];
        if let Some(info) = info.as_ref() {
            scopes.push(info);
        }
        let (category, _) = x_text(&scopes, "x-category")?;
        raw.tool.category = if category.is_empty() {
            defaults.category.clone()
        } else {
            category
        };
        let mut country_scopes = vec![self.op];
        if let Some(info) = info.as_ref() {
            country_scopes.push(info);
        }
        let (country, country_path) = x_text(&country_scopes, "x-country")?;
        raw.tool.country = country;
        raw.country_path = country_path;
        raw.home_url = defaults.home_url.clone();
        let (required, optional) = self.parameters()?;
        raw.tool.required_parameters = required;
        raw.tool.optional_parameters = optional;
        Ok(raw)
    }
}

/// Every operation of a parsed document rooted at `root` (whose path may
/// carry a prefix, for documents embedded in other files).
pub fn operations(root: &Node<'_>, defaults: &Defaults) -> Result<Parsed, CatalogError> {
    root.expect_object()?;
    match root.key("openapi") {
        Some(version) if version.str()?.starts_with("3.") => {}
        Some(version) => {
            return Err(version.error(format!(
                "expected an OpenAPI 3.x version, found {:?}",
                version.str()?
            )));
        }
        None if root.has("swagger") => {
            return Err(root.error_at(
                "swagger",
                "Swagger 2.0 documents are not supported: convert to OpenAPI 3 first",
            ));
        }
        None => return Err(root.error_at("openapi", "missing: not an OpenAPI 3 document")),
    }
    let paths = root
        .key("paths")
        .ok_or_else(|| root.error_at("paths", "missing"))?;
    let doc = Doc {
        root: root.value,
        base: root.path.clone(),
    };
    let mut parsed = Vec::new();
    for (path, item) in paths.members()? {
        let item = match doc.resolve(item) {
            Ok(item) => item,
            Err(e) => {
                parsed.push(Err(e));
                continue;
            }
        };
        for (method, op) in item.members()? {
            if !METHODS.contains(&method) {
                continue;
            }
            let operation = Operation {
                doc: &doc,
                root,
                item: &item,
                op: &op,
                path,
                method,
            };
            parsed.push(operation.entry(defaults));
        }
    }
    Ok(parsed)
}

/// Reads an OpenAPI 3 JSON file.
pub fn parse(file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    let json = parse_document(file, text)?;
    let ctx = Ctx { file, line: None };
    operations(&Node::root(&json, ctx, ""), &Defaults::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r##"{
      "openapi": "3.0.3",
      "info": {"title": "Pets", "version": "1", "x-category": "Animals"},
      "servers": [{"url": "https://{region}.pets.example.jp/v1/", "variables": {"region": {"default": "api"}}}],
      "components": {
        "parameters": {"Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}}},
        "schemas": {"Kind": {"type": "string", "enum": ["cat", "dog"], "description": "Animal kind"}}
      },
      "paths": {
        "/pets/{id}": {
          "parameters": [{"name": "id", "in": "path", "description": "Pet id", "schema": {"type": "string"}}],
          "get": {"operationId": "getPet", "summary": "Get a pet", "description": "Returns one pet.",
                  "parameters": [{"name": "X-Trace", "in": "header"}, {"$ref": "#/components/parameters/Limit"}]}
        },
        "/pets": {
          "post": {"summary": "Add a pet", "x-category": "Pets",
                   "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["kind"],
                     "properties": {"kind": {"$ref": "#/components/schemas/Kind"}, "name": {"type": "string"}}}}}}}
        }
      }
    }"##;

    #[test]
    fn operations_become_tools() {
        let parsed = parse(Path::new("pets.json"), DOC).unwrap();
        let tools: Vec<_> = parsed.into_iter().map(|r| r.unwrap().tool).collect();
        assert_eq!(tools.len(), 2);
        let get = &tools[0];
        assert_eq!(get.name, "getPet");
        assert_eq!(get.description, "Get a pet. Returns one pet.");
        assert_eq!(get.url, "https://api.pets.example.jp/v1/pets/{id}");
        assert_eq!(get.method, "GET");
        assert_eq!(get.category, "Animals");
        assert_eq!(get.required_parameters[0].name, "id");
        assert_eq!(get.optional_parameters[0].name, "limit");
        assert_eq!(get.optional_parameters[0].kind, "integer");
        assert_eq!(
            get.optional_parameters[0].default,
            Some(serde_json::json!(20))
        );
        let post = &tools[1];
        assert_eq!(post.name, "POST /pets");
        assert_eq!(post.category, "Pets");
        assert_eq!(post.required_parameters[0].name, "kind");
        assert_eq!(
            post.required_parameters[0].description,
            "Animal kind (one of: cat, dog)"
        );
        assert_eq!(post.optional_parameters[0].name, "name");
    }

    #[test]
    fn bad_documents_are_named() {
        let err = parse(Path::new("s.json"), r#"{"swagger":"2.0","paths":{}}"#).unwrap_err();
        assert_eq!(err.field, "swagger");
        let bad_ref = DOC.replace(
            "#/components/parameters/Limit",
            "#/components/parameters/Nope",
        );
        let err = parse(Path::new("p.json"), &bad_ref)
            .unwrap()
            .remove(0)
            .unwrap_err();
        assert_eq!(err.field, r#"paths["/pets/{id}"].get.parameters[1].$ref"#);
        assert!(err.message.contains("points to nothing"), "{err}");
        let bad_in = DOC.replace(r#""in": "header""#, r#""in": "body""#);
        let err = parse(Path::new("p.json"), &bad_in)
            .unwrap()
            .remove(0)
            .unwrap_err();
        assert_eq!(err.field, r#"paths["/pets/{id}"].get.parameters[0].in"#);
        let err = parse(Path::new("p.json"), "{\n  \"openapi\": 3,\n}").unwrap_err();
        assert_eq!(err.line, Some(3));
    }
}
