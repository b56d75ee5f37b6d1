//! Candidate tools as function declarations for native function calling:
//! names the APIs accept, mapped back to the task's names, and parameter
//! schemas in JSON Schema (OpenAI, Anthropic) or Gemini's OpenAPI subset.

use serde_json::{Map, Value, json};

use crate::spec::records::{Parameter, Tool};

/// Longest function name every supported API accepts.
const MAX_NAME: usize = 64;

/// Task tool names ↔ names sent to the API.
///
/// Function-calling APIs only accept names matching roughly
/// `[A-Za-z_][A-Za-z0-9_-]{0,63}`; ITC tool names may hold spaces, slashes,
/// dots or any script (`Google Translate`, `天气查询`). Each tool gets a valid,
/// unique API name; calls coming back are mapped to the task's names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NameMap {
    /// `(api name, task name)` per tool, in task order.
    pairs: Vec<(String, String)>,
}

impl NameMap {
    /// API names for a task's tools.
    pub fn for_tools(tools: &[Tool]) -> NameMap {
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(tools.len());
        let mut taken = std::collections::HashSet::with_capacity(tools.len());
        let mut named: std::collections::HashMap<&str, usize> = Default::default();
        for (index, tool) in tools.iter().enumerate() {
            if let Some(&earlier) = named.get(tool.name.as_str()) {
                // The same tool listed twice keeps its one name.
                let api = pairs[earlier].0.clone();
                pairs.push((api, tool.name.clone()));
                continue;
            }
            named.insert(&tool.name, index);
            let mut base = sanitize(&tool.name);
            if base.trim_matches('_').is_empty() {
                base = format!("tool_{}", index + 1);
            }
            // A suffix makes a taken name unique; it may itself be another
            // tool's name (`x_2`), so count on until one is free.
            let mut name = base.clone();
            let mut n = index + 1;
            while taken.contains(&name) {
                let suffix = format!("_{n}");
                name = base.clone();
                name.truncate(MAX_NAME - suffix.len());
                name.push_str(&suffix);
                n += 1;
            }
            taken.insert(name.clone());
            pairs.push((name, tool.name.clone()));
        }
        NameMap { pairs }
    }

    /// The API name of a task tool (the name itself when unknown).
    pub fn api_name<'a>(&'a self, task_name: &'a str) -> &'a str {
        self.pairs
            .iter()
            .find(|(_, t)| t == task_name)
            .map_or(task_name, |(api, _)| api.as_str())
    }

    /// The task name behind an API name; a name the model invented is kept
    /// as written (it will count as a hallucination).
    pub fn task_name(&self, api_name: &str) -> String {
        self.pairs
            .iter()
            .find(|(api, _)| api == api_name)
            .map_or_else(|| api_name.to_string(), |(_, task)| task.clone())
    }
}

/// Replaces every character outside `[A-Za-z0-9_-]` with `_` (runs
/// collapsed), makes the name start with a letter or `_`, and cuts it to 64.
fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    if out.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        out.insert(0, '_');
    }
    out.truncate(MAX_NAME);
    out
}

/// Which schema language a backend speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// JSON Schema (OpenAI `parameters`, Anthropic `input_schema`).
    JsonSchema,
    /// Gemini's OpenAPI subset: upper-case types, arrays need `items`,
    /// objects need properties.
    Gemini,
}

/// The JSON type of a catalog parameter type (`str`, `int`, `List[str]`, …).
pub fn json_type(kind: &str) -> &'static str {
    let k = kind.trim().to_ascii_lowercase();
    let head = k.split(['[', '<', '(']).next().unwrap_or("");
    match head {
        "integer" | "int" | "long" | "int32" | "int64" => "integer",
        "number" | "float" | "double" | "decimal" | "numeric" => "number",
        "boolean" | "bool" => "boolean",
        "array" | "list" | "tuple" | "set" => "array",
        "object" | "dict" | "map" | "json" => "object",
        _ => "string",
    }
}

fn describe(parameter: &Parameter) -> String {
    match &parameter.default {
        Some(default) if parameter.description.is_empty() => format!("Default: {default}."),
        Some(default) => format!("{} (default: {default})", parameter.description.trim_end()),
        None => parameter.description.clone(),
    }
}

fn property(parameter: &Parameter, dialect: Dialect) -> Value {
    let kind = json_type(&parameter.kind);
    let mut schema = Map::new();
    match dialect {
        Dialect::JsonSchema => {
            schema.insert("type".into(), json!(kind));
            nested_schema(parameter, kind, &mut schema);
        }
        Dialect::Gemini => {
            // Gemini rejects OBJECT without properties; free-form objects travel as JSON text.
            let kind = if kind == "object" { "string" } else { kind };
            schema.insert("type".into(), json!(kind.to_ascii_uppercase()));
            if kind == "array" {
                schema.insert("items".into(), json!({"type": "STRING"}));
            }
        }
    }
    let description = describe(parameter);
    if !description.is_empty() {
        schema.insert("description".into(), json!(description));
    }
    Value::Object(schema)
}

/// What a catalog says beyond the type (an `enum`, an array's `items`, an
/// object's `properties`), in JSON Schema: nested types are mapped as the
/// top-level one is (`float` → `number`, `dict` → `object`, `tuple` →
/// `array`), `any` and unknown types become `string`.
fn nested_schema(parameter: &Parameter, kind: &str, schema: &mut Map<String, Value>) {
    if let Some(allowed) = &parameter.allowed {
        schema.insert("enum".into(), json!(allowed));
    }
    if kind == "array"
        && let Some(items) = &parameter.items
    {
        schema.insert("items".into(), schema_of(items, 0));
    }
    if kind == "object"
        && let Some(Value::Object(properties)) = &parameter.properties
    {
        let mapped: Map<String, Value> = properties
            .iter()
            .map(|(k, v)| (k.clone(), schema_of(v, 0)))
            .collect();
        schema.insert("properties".into(), Value::Object(mapped));
    }
}

/// A catalog's nested schema (`{"type": "float", "items": …}`) in JSON
/// Schema's types; deeper than 16 levels, any value.
fn schema_of(node: &Value, depth: usize) -> Value {
    let Value::Object(fields) = node else {
        return json!({});
    };
    if depth > 16 {
        return json!({});
    }
    let mut out = Map::new();
    for (key, value) in fields {
        let mapped = match (key.as_str(), value) {
            ("type", Value::String(t)) => json!(json_type(t)),
            ("items", v) => schema_of(v, depth + 1),
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), schema_of(v, depth + 1)))
                    .collect(),
            ),
            ("description" | "enum" | "required", v) => v.clone(),
            _ => continue,
        };
        out.insert(key.clone(), mapped);
    }
    Value::Object(out)
}

/// The parameters object of one tool, or `None` for Gemini tools without
/// parameters (Gemini rejects an empty OBJECT).
pub fn parameters_schema(tool: &Tool, dialect: Dialect) -> Option<Value> {
    let mut properties = Map::new();
    for p in tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
    {
        properties.insert(p.name.clone(), property(p, dialect));
    }
    let required: Vec<&str> = tool
        .required_parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    match dialect {
        Dialect::JsonSchema => {
            Some(json!({"type": "object", "properties": properties, "required": required}))
        }
        Dialect::Gemini if properties.is_empty() => None,
        Dialect::Gemini => {
            Some(json!({"type": "OBJECT", "properties": properties, "required": required}))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        serde_json::from_value(json!({"name": name})).unwrap()
    }

    #[test]
    fn names_become_valid_unique_and_map_back() {
        let tools: Vec<Tool> = [
            "Google Translate",
            "天气查询",
            "properties/list",
            "42 things",
            "Google_Translate",
            "ok-name",
        ]
        .map(tool)
        .to_vec();
        let map = NameMap::for_tools(&tools);
        let api: Vec<&str> = tools.iter().map(|t| map.api_name(&t.name)).collect();
        assert_eq!(
            api,
            [
                "Google_Translate",
                "tool_2",
                "properties_list",
                "_42_things",
                "Google_Translate_5",
                "ok-name"
            ]
        );
        for t in &tools {
            assert_eq!(map.task_name(map.api_name(&t.name)), t.name);
        }
        assert_eq!(map.task_name("invented"), "invented");
        let long = "x".repeat(100);
        assert_eq!(NameMap::for_tools(&[tool(&long)]).api_name(&long).len(), 64);
    }

    #[test]
    fn a_suffixed_name_never_takes_another_tools_name() {
        // Found by fuzzing (fuzz/fuzz_targets/native_calls.rs): ` x`, third,
        // became `x_3`, the first tool's own name.
        let tools: Vec<Tool> = ["x_3", "x", " x", "x/", "x"].map(tool).to_vec();
        let map = NameMap::for_tools(&tools);
        let api: Vec<&str> = tools.iter().map(|t| map.api_name(&t.name)).collect();
        assert_eq!(api, ["x_3", "x", "x_4", "x_", "x"]);
        for t in &tools {
            assert_eq!(map.task_name(map.api_name(&t.name)), t.name);
        }
    }

    #[test]
    fn enums_items_and_nested_properties_are_declared() {
        let tool: Tool = serde_json::from_value(json!({"name": "t", "required_parameters": [
            {"name": "unit", "type": "string", "enum": ["c", "f"]},
            {"name": "point", "type": "tuple", "items": {"type": "float"}},
            {"name": "opts", "type": "dict", "properties": {"lang": {"type": "string", "enum": ["en"]}, "n": {"type": "integer"}, "x": {"type": "any"}}},
            {"name": "stops", "type": "array", "items": {"type": "dict", "properties": {"at": {"type": "float"}}}}
        ]}))
        .unwrap();
        let schema = parameters_schema(&tool, Dialect::JsonSchema).unwrap();
        let p = &schema["properties"];
        assert_eq!(p["unit"], json!({"type": "string", "enum": ["c", "f"]}));
        assert_eq!(
            p["point"],
            json!({"type": "array", "items": {"type": "number"}})
        );
        assert_eq!(
            p["opts"]["properties"],
            json!({"lang": {"type": "string", "enum": ["en"]}, "n": {"type": "integer"}, "x": {"type": "string"}})
        );
        assert_eq!(
            p["stops"]["items"],
            json!({"type": "object", "properties": {"at": {"type": "number"}}})
        );
    }

    #[test]
    fn types_map_to_json_types() {
        assert_eq!(json_type("str"), "string");
        assert_eq!(json_type("INT"), "integer");
        assert_eq!(json_type("List[str]"), "array");
        assert_eq!(json_type("float"), "number");
        assert_eq!(json_type("dict"), "object");
        assert_eq!(json_type(""), "string");
    }

    #[test]
    fn schemas_per_dialect() {
        let t: Tool = serde_json::from_value(json!({
            "name": "search",
            "required_parameters": [{"name": "q", "type": "string", "description": "query"}],
            "optional_parameters": [{"name": "tags", "type": "list", "description": "", "default": ["a"]},
                                    {"name": "filter", "type": "object", "description": "f"}]
        }))
        .unwrap();
        assert_eq!(
            parameters_schema(&t, Dialect::JsonSchema).unwrap(),
            json!({"type": "object", "required": ["q"], "properties": {
                "q": {"type": "string", "description": "query"},
                "tags": {"type": "array", "description": "Default: [\"a\"]."},
                "filter": {"type": "object", "description": "f"}}})
        );
        assert_eq!(
            parameters_schema(&t, Dialect::Gemini).unwrap(),
            json!({"type": "OBJECT", "required": ["q"], "properties": {
                "q": {"type": "STRING", "description": "query"},
                "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "Default: [\"a\"]."},
                "filter": {"type": "STRING", "description": "f"}}})
        );
        assert_eq!(parameters_schema(&tool("x"), Dialect::Gemini), None);
        assert_eq!(
            parameters_schema(&tool("x"), Dialect::JsonSchema).unwrap(),
            json!({"type": "object", "properties": {}, "required": []})
        );
    }
}
