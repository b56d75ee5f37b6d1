//! ToolAlpaca (tangqiaoyu/ToolAlpaca) evaluation sets to SPEC §0 tasks.
//!
//! Each API object (`eval_simulated.json`, `eval_real.json`) gives one task
//! per instruction: the tools are the API's functions (`Function_Projection`
//! names, with parameters from the OpenAPI `Documentation`: path, query,
//! header and cookie parameters, and the properties of a JSON request body,
//! `$ref`s to `components/schemas` followed), the category is the API's
//! `Category`, and the gold calls are `Golden_Answers[i]` (each `Action` with
//! its `Action_Input` JSON as arguments).

use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value as J;

use crate::spec::records::{Call, Gold, Parameter, Task, TaskKind, Tool, Value};

/// OpenAPI schema type to the SPEC's type names (they are the same words).
fn schema_kind(schema: &J) -> String {
    schema["type"].as_str().unwrap_or("string").to_string()
}

/// Follows a local `$ref` (`#/components/schemas/X`).
fn resolve<'a>(doc: &'a J, schema: &'a J) -> &'a J {
    let mut s = schema;
    for _ in 0..8 {
        let Some(r) = s["$ref"].as_str() else {
            return s;
        };
        let Some(path) = r.strip_prefix("#/") else {
            return s;
        };
        let mut target = doc;
        for part in path.split('/') {
            target = &target[part];
        }
        if target.is_null() {
            return s;
        }
        s = target;
    }
    s
}

fn describe(schema: &J, fallback: &J) -> String {
    let mut d = schema["description"]
        .as_str()
        .or(fallback["description"].as_str())
        .unwrap_or_default()
        .to_string();
    if let Some(values) = schema["enum"].as_array() {
        let list: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
            .collect();
        if !d.is_empty() {
            d.push(' ');
        }
        d.push_str(&format!("One of: {}.", list.join(", ")));
    }
    d
}

/// The tool of one operation.
fn tool_of(doc: &J, name: &str, path: &str, method: &str, category: &str) -> Tool {
    let op = &doc["paths"][path][method];
    let base = doc["servers"][0]["url"]
        .as_str()
        .unwrap_or_default()
        .trim_end_matches('/');
    let mut tool = Tool {
        name: name.to_string(),
        description: op["description"]
            .as_str()
            .or(op["summary"].as_str())
            .unwrap_or_default()
            .to_string(),
        category: category.to_string(),
        country: "GLOBAL".into(),
        method: method.to_ascii_uppercase(),
        url: format!("{base}{path}"),
        required_parameters: Vec::new(),
        optional_parameters: Vec::new(),
    };
    let mut add = |p: Parameter, required: bool| {
        let list = if required {
            &mut tool.required_parameters
        } else {
            &mut tool.optional_parameters
        };
        if !list.iter().any(|q| q.name == p.name) {
            list.push(p);
        }
    };
    // Path-level parameters apply to every operation of the path.
    let params = doc["paths"][path]["parameters"]
        .as_array()
        .into_iter()
        .chain(op["parameters"].as_array())
        .flatten();
    for p in params {
        let p = resolve(doc, p);
        let schema = resolve(doc, &p["schema"]);
        let Some(pname) = p["name"].as_str() else {
            continue;
        };
        add(
            Parameter {
                name: pname.to_string(),
                kind: schema_kind(schema),
                description: describe(schema, p),
                default: schema.get("default").cloned(),
            },
            p["required"].as_bool().unwrap_or(p["in"] == "path"),
        );
    }
    let body = resolve(doc, &op["requestBody"]);
    if let Some(content) = body["content"].as_object()
        && let Some(media) = content
            .get("application/json")
            .or_else(|| content.values().next())
    {
        let schema = resolve(doc, &media["schema"]);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(J::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = schema["properties"].as_object() {
            for (pname, prop) in props {
                let prop = resolve(doc, prop);
                add(
                    Parameter {
                        name: pname.clone(),
                        kind: schema_kind(prop),
                        description: describe(prop, &J::Null),
                        default: prop.get("default").cloned(),
                    },
                    required.contains(&pname.as_str()),
                );
            }
        }
    }
    tool
}

/// Converts ToolAlpaca evaluation files into SPEC tasks (ids
/// `toolalpaca-<file stem>-<api index>-<instruction index>`).
pub fn convert(inputs: &[PathBuf]) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let mut tasks = Vec::new();
    let mut warnings = Vec::new();
    for path in inputs {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let apis: Vec<J> = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON list of API objects", path.display()))?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (a, api) in apis.iter().enumerate() {
            let at = format!(
                "{}: API {a} ({})",
                path.display(),
                api["Name"].as_str().unwrap_or("?")
            );
            let doc: J = match &api["Documentation"] {
                J::String(s) => serde_json::from_str(s)
                    .with_context(|| format!("{at}: Documentation is not JSON"))?,
                other => other.clone(),
            };
            let category = api["Category"].as_str().unwrap_or_default();
            let projection = api["Function_Projection"]
                .as_object()
                .with_context(|| format!("{at}: no Function_Projection"))?;
            let tools: Vec<Tool> = projection
                .iter()
                .map(|(name, target)| {
                    let p = target[0].as_str().unwrap_or_default();
                    let m = target[1].as_str().unwrap_or("get").to_ascii_lowercase();
                    tool_of(&doc, name, p, &m, category)
                })
                .collect();
            let instructions = api["Instructions"].as_array().cloned().unwrap_or_default();
            let answers = api["Golden_Answers"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if instructions.len() != answers.len() {
                warnings.push(format!(
                    "{at}: {} instructions but {} golden answers; extra ones are skipped",
                    instructions.len(),
                    answers.len()
                ));
            }
            for (i, (instruction, answer)) in instructions.iter().zip(&answers).enumerate() {
                let mut calls = Vec::new();
                for step in answer.as_array().into_iter().flatten() {
                    let name = step["Action"].as_str().unwrap_or_default().to_string();
                    let input = match &step["Action_Input"] {
                        J::String(s) if s.trim().is_empty() => J::Object(Default::default()),
                        J::String(s) => serde_json::from_str(s).unwrap_or_else(|_| {
                            warnings.push(format!(
                                "{at}: instruction {i}: Action_Input of {name} is not JSON"
                            ));
                            J::Object(Default::default())
                        }),
                        other => other.clone(),
                    };
                    let arguments: Vec<(String, Value)> =
                        match serde_json::from_value::<Value>(input) {
                            Ok(Value::Dict(entries)) => entries,
                            _ => Vec::new(),
                        };
                    if !tools.iter().any(|t| t.name == name) {
                        warnings.push(format!(
                            "{at}: instruction {i}: gold action {name} is not a function of the API"
                        ));
                    }
                    calls.push(Call::new(name, arguments));
                }
                let kind = match calls.len() {
                    0 => TaskKind::NoTool,
                    1 => TaskKind::Single,
                    _ if calls.iter().all(|c| c.name == calls[0].name) => TaskKind::Repeated,
                    _ => TaskKind::Parallel,
                };
                tasks.push(Task {
                    id: format!("toolalpaca-{stem}-{a}-{i}"),
                    kind,
                    language: "en".into(),
                    country: "GLOBAL".into(),
                    category: category.to_string(),
                    query: instruction.as_str().unwrap_or_default().to_string(),
                    tools: tools.clone(),
                    gold: Gold {
                        thought: String::new(),
                        calls,
                    },
                    turns: Vec::new(),
                });
            }
        }
    }
    Ok((tasks, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_operation_becomes_a_tool() {
        let doc = serde_json::json!({
            "servers": [{"url": "https://api.example.org/"}],
            "components": {"schemas": {"Body": {"type": "object", "required": ["ip"],
                "properties": {"ip": {"type": "string", "description": "IP"}, "days": {"type": "integer"}}}}},
            "paths": {"/check/{id}": {"post": {
                "description": "Check an address.",
                "parameters": [{"name": "id", "in": "path", "schema": {"type": "string", "enum": ["a", "b"]}},
                               {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Body"}}}}
            }}}
        });
        let t = tool_of(&doc, "checkIp", "/check/{id}", "post", "Security");
        assert_eq!(
            (t.method.as_str(), t.url.as_str()),
            ("POST", "https://api.example.org/check/{id}")
        );
        let req: Vec<&str> = t
            .required_parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let opt: Vec<&str> = t
            .optional_parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!((req, opt), (vec!["id", "ip"], vec!["verbose", "days"]));
        assert_eq!(t.required_parameters[0].description, "One of: a, b.");
    }
}
