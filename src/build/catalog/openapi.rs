//! OpenAPI 3 and Swagger 2.0 documents (JSON or YAML): every operation
//! becomes a tool.
//!
//! - name: `operationId`, else `METHOD /path`;
//! - description: `summary` and `description`;
//! - parameters: path and query parameters (path ones always required,
//!   others by their `required` flag; header and cookie parameters are left
//!   out, or kept like query ones: [`HeaderCookie`]), then the properties of
//!   a JSON or form request body (required by
//!   the body schema's `required` list); types from the schemas, `enum`
//!   values added to the description, `default`s kept; local `$ref`s are
//!   followed;
//! - URL: the first server's URL (variables replaced by their defaults) plus
//!   the path;
//! - Swagger 2.0 differs in three places, all read: parameters carry their
//!   type, `enum` and `default` themselves (no `schema`); the request body
//!   is an `in: body` parameter (its schema's properties become parameters)
//!   or `in: formData` parameters; the URL is `schemes[0]://host` +
//!   `basePath` + the path;
//! - category: `x-category` of the operation, the path or `info`; country:
//!   `x-country` of the operation or `info` (else the server's domain).

use std::path::Path;

use super::json::{Ctx, Json, Node, Res, parse_json_or_yaml};
use super::{CatalogError, Parsed, RawEntry};
use crate::spec::records::Parameter;

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

/// What becomes of an operation's header and cookie parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderCookie {
    /// Left out (API catalogs): they carry credentials, API keys and tracing
    /// ids, which are not what a user's request asks for.
    #[default]
    Drop,
    /// Kept as parameters, required by their `required` flag (ToolAlpaca:
    /// its function descriptions list every parameter whatever its `in`, and
    /// its executor sends header and cookie ones from the call's arguments,
    /// so a gold call may pass them).
    Keep,
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
    /// A Swagger 2.0 document rather than OpenAPI 3.
    swagger: bool,
    header_cookie: HeaderCookie,
}

impl<'a> Doc<'a> {
    /// The document rooted at `root`, once its OpenAPI 3 or Swagger 2.0
    /// version is checked.
    fn new(root: &Node<'a>, header_cookie: HeaderCookie) -> Result<Doc<'a>, CatalogError> {
        root.expect_object()?;
        let swagger = match (root.key("openapi"), root.key("swagger")) {
            (Some(version), _) if version.str()?.starts_with("3.") => false,
            (Some(version), _) => {
                return Err(version.error(format!(
                    "expected an OpenAPI 3.x version, found {:?}",
                    version.str()?
                )));
            }
            (None, Some(version)) if version.str()? == "2.0" => true,
            (None, Some(version)) => {
                return Err(version.error(format!(
                    "expected Swagger \"2.0\", found {:?}",
                    version.str()?
                )));
            }
            (None, None) => {
                return Err(root.error_at(
                    "openapi",
                    "missing: not an OpenAPI 3 or Swagger 2.0 document",
                ));
            }
        };
        Ok(Doc {
            root: root.value,
            base: root.path.clone(),
            swagger,
            header_cookie,
        })
    }

    fn resolve(&self, node: Node<'a>) -> Res<Node<'a>> {
        resolve(self.root, node, &self.base)
    }

    /// One parameter: a path, query or (Swagger) form field; the fields of
    /// a Swagger `in: body` parameter; a header or cookie one, or nothing for
    /// it, as [`HeaderCookie`] says.
    fn parameter(&self, node: Node<'a>) -> Res<Vec<(Parameter, bool)>> {
        let node = self.resolve(node)?;
        node.expect_object()?;
        let name = node.req_str("name")?;
        let location = node.req_str("in")?;
        let required = match location.as_str() {
            "path" => true,
            "query" => node.opt_bool("required")?.unwrap_or(false),
            "formData" if self.swagger => node.opt_bool("required")?.unwrap_or(false),
            "body" if self.swagger => {
                let Some(schema) = node.key("schema") else {
                    return Err(node.error_at("schema", "missing: a body parameter needs one"));
                };
                let required = node.opt_bool("required")?.unwrap_or(false);
                return self.schema_fields(schema, required);
            }
            "header" | "cookie" => match self.header_cookie {
                HeaderCookie::Keep => node.opt_bool("required")?.unwrap_or(false),
                HeaderCookie::Drop => return Ok(Vec::new()),
            },
            other => {
                let expected = if self.swagger {
                    "path, query, header, body or formData"
                } else {
                    "path, query, header or cookie"
                };
                return Err(node.error_at("in", format!("expected {expected}, found {other:?}")));
            }
        };
        let schema = match node.key("schema") {
            Some(s) => Some(self.resolve(s)?),
            // Swagger 2.0 (and sloppy OpenAPI 3) put the type on the parameter.
            None if node.has("type") => Some(node.clone()),
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
            ..Default::default()
        };
        Ok(vec![(parameter, required)])
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
        self.schema_fields(schema, body_required)
    }

    /// The properties of a body schema as parameters (required by the
    /// schema's `required` list); a schema without properties is one
    /// parameter called `body`.
    fn schema_fields(&self, schema: Node<'a>, body_required: bool) -> Res<Vec<(Parameter, bool)>> {
        let schema = self.resolve(schema)?;
        let Some(properties) = schema.key("properties") else {
            let whole = Parameter {
                name: "body".to_string(),
                kind: schema_type(&schema),
                description: schema.opt_str("description")?,
                default: None,
                ..Default::default()
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
                ..Default::default()
            };
            fields.push((parameter, required.contains(&name)));
        }
        Ok(fields)
    }
}

/// A Swagger 2.0 document's base URL: `schemes[0]://host` + `basePath`
/// (`https` when no scheme is given; empty without a host).
fn swagger_url(root: &Node<'_>) -> Res<String> {
    let host = root.opt_str("host")?;
    if host.is_empty() {
        return Ok(String::new());
    }
    let scheme = match root.opt_items("schemes")?.first() {
        Some(s) => s.str()?.to_string(),
        None => "https".to_string(),
    };
    Ok(format!("{scheme}://{host}{}", root.opt_str("basePath")?))
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
        let base = if self.doc.swagger {
            swagger_url(self.root)?
        } else {
            server_url(servers)?
        };
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
/// carry a prefix, for documents embedded in other files); header and
/// cookie parameters are left out.
pub fn operations(root: &Node<'_>, defaults: &Defaults) -> Result<Parsed, CatalogError> {
    let doc = Doc::new(root, HeaderCookie::Drop)?;
    let paths = root
        .key("paths")
        .ok_or_else(|| root.error_at("paths", "missing"))?;
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

/// The operation `method` (lower case, as the document writes it) of
/// `path` in a parsed document rooted at `root`: the tool that
/// [`operations`] makes of it, with header and cookie parameters as
/// `header_cookie` says.
pub fn operation(
    root: &Node<'_>,
    path: &str,
    method: &str,
    defaults: &Defaults,
    header_cookie: HeaderCookie,
) -> Result<RawEntry, CatalogError> {
    let doc = Doc::new(root, header_cookie)?;
    let paths = root
        .key("paths")
        .ok_or_else(|| root.error_at("paths", "missing"))?;
    let item = paths
        .key(path)
        .ok_or_else(|| paths.error_at(path, "missing"))?;
    let item = doc.resolve(item)?;
    let op = item
        .key(method)
        .ok_or_else(|| item.error_at(method, "missing"))?;
    let operation = Operation {
        doc: &doc,
        root,
        item: &item,
        op: &op,
        path,
        method,
    };
    operation.entry(defaults)
}

/// Reads an OpenAPI 3 or Swagger 2.0 file, JSON or YAML.
pub fn parse(file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    let json = parse_json_or_yaml(file, text)?;
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
    fn header_and_cookie_parameters_are_dropped_or_kept() {
        let doc = r#"{"openapi": "3.0.0", "paths": {"/me": {"get": {"parameters": [
            {"name": "X-Api-Key", "in": "header", "required": true, "schema": {"type": "string"}},
            {"name": "session", "in": "cookie", "schema": {"type": "string"}},
            {"name": "q", "in": "query", "schema": {"type": "string"}}]}}}}"#;
        let json = Json::parse(doc).unwrap();
        let root = Node::root(
            &json,
            Ctx {
                file: Path::new("me.json"),
                line: None,
            },
            "",
        );
        let names = |header_cookie| {
            let entry = operation(&root, "/me", "get", &Defaults::default(), header_cookie);
            let tool = entry.unwrap().tool;
            let names = |ps: &[Parameter]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
            (
                names(&tool.required_parameters),
                names(&tool.optional_parameters),
            )
        };
        assert_eq!(names(HeaderCookie::Drop), (vec![], vec!["q".to_string()]));
        assert_eq!(
            names(HeaderCookie::Keep),
            (
                vec!["X-Api-Key".to_string()],
                vec!["session".to_string(), "q".to_string()]
            )
        );
        // `operations` is the catalog's reading: left out.
        let all = operations(&root, &Defaults::default()).unwrap();
        assert_eq!(all[0].as_ref().unwrap().tool.required_parameters, vec![]);
        let err = operation(
            &root,
            "/you",
            "get",
            &Defaults::default(),
            HeaderCookie::Keep,
        );
        assert_eq!(err.unwrap_err().field, r#"paths["/you"]"#);
    }

    #[test]
    fn bad_documents_are_named() {
        let err = parse(Path::new("s.json"), r#"{"swagger":"1.2","paths":{}}"#).unwrap_err();
        assert_eq!(err.field, "swagger");
        assert!(err.message.contains("2.0"), "{err}");
        let err = parse(Path::new("s.json"), r#"{"info":{},"paths":{}}"#).unwrap_err();
        assert_eq!(err.field, "openapi");
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

    /// The same API as `DOC` in YAML (ASCII quotes, a numeric response key).
    const YAML_DOC: &str = r##"
openapi: 3.0.3
info: {title: Pets, version: "1", x-category: Animals}
servers:
  - url: "https://{region}.pets.example.jp/v1/"
    variables: {region: {default: api}}
components:
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer, default: 20}}
  schemas:
    Kind: {type: string, enum: [cat, dog], description: Animal kind}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, description: Pet id, schema: {type: string}}
    get:
      operationId: getPet
      summary: Get a pet
      description: Returns one pet.
      parameters:
        - {name: X-Trace, in: header}
        - $ref: "#/components/parameters/Limit"
      responses:
        200: {description: the pet}
  /pets:
    post:
      summary: Add a pet
      x-category: Pets
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [kind]
              properties:
                kind: {$ref: "#/components/schemas/Kind"}
                name: {type: string}
"##;

    #[test]
    fn yaml_documents_read_like_json_ones() {
        let from_json = parse(Path::new("pets.json"), DOC).unwrap();
        let from_yaml = parse(Path::new("pets.yaml"), YAML_DOC).unwrap();
        let tools = |parsed: Parsed| -> Vec<crate::spec::records::Tool> {
            parsed.into_iter().map(|r| r.unwrap().tool).collect()
        };
        assert_eq!(tools(from_yaml), tools(from_json));
        let err = parse(Path::new("bad.yaml"), "openapi: 3.0.0\npaths: [unclosed\n").unwrap_err();
        assert!(err.line.is_some(), "{err}");
        assert!(err.message.contains("invalid YAML"), "{err}");
    }

    const SWAGGER: &str = r##"
swagger: "2.0"
info: {title: Transit, version: "1", x-country: KR, x-category: Transportation}
host: api.transit.example.kr
basePath: /v2
schemes: [http, https]
definitions:
  Route:
    type: object
    required: [from]
    properties:
      from: {type: string, description: Departure station}
      via: {type: array, items: {type: string}}
paths:
  /stations/{code}:
    get:
      operationId: getStation
      summary: One station
      parameters:
        - {name: code, in: path, type: string, required: true}
        - {name: lang, in: query, type: string, enum: [ko, en], default: ko}
  /routes:
    post:
      operationId: planRoute
      parameters:
        - {name: body, in: body, required: true, schema: {$ref: "#/definitions/Route"}}
  /feedback:
    post:
      operationId: sendFeedback
      parameters:
        - {name: text, in: formData, type: string, required: true}
        - {name: stars, in: formData, type: integer}
"##;

    #[test]
    fn swagger_2_documents_are_read() {
        let tools: Vec<_> = parse(Path::new("transit.yaml"), SWAGGER)
            .unwrap()
            .into_iter()
            .map(|r| r.unwrap().tool)
            .collect();
        assert_eq!(tools.len(), 3);
        let station = &tools[0];
        assert_eq!(
            station.url,
            "http://api.transit.example.kr/v2/stations/{code}"
        );
        assert_eq!(station.country, "KR");
        assert_eq!(station.category, "Transportation");
        assert_eq!(station.required_parameters[0].name, "code");
        let lang = &station.optional_parameters[0];
        assert_eq!((lang.name.as_str(), lang.kind.as_str()), ("lang", "string"));
        assert_eq!(lang.description, "one of: ko, en");
        assert_eq!(lang.default, Some(serde_json::json!("ko")));
        let route = &tools[1];
        assert_eq!(route.required_parameters[0].name, "from");
        assert_eq!(
            route.required_parameters[0].description,
            "Departure station"
        );
        assert_eq!(route.optional_parameters[0].name, "via");
        assert_eq!(route.optional_parameters[0].kind, "array");
        let feedback = &tools[2];
        assert_eq!(feedback.required_parameters[0].name, "text");
        assert_eq!(feedback.optional_parameters[0].kind, "integer");
        // `in: body` without a schema is named.
        let broken = SWAGGER.replace(", schema: {$ref: \"#/definitions/Route\"}", "");
        let err = parse(Path::new("t.yaml"), &broken)
            .unwrap()
            .remove(1)
            .unwrap_err();
        assert_eq!(err.field, r#"paths["/routes"].post.parameters[0].schema"#);
    }
}
