//! ToolAlpaca (tangqiaoyu/ToolAlpaca) evaluation sets to SPEC §0 tasks.
//!
//! Each API object (`eval_simulated.json`, `eval_real.json`) gives one task
//! per instruction: the tools are the API's functions (`Function_Projection`
//! names, each the OpenAPI operation of the `Documentation` it projects to,
//! made into a tool by the catalog's [`openapi::operation`] with header and
//! cookie parameters kept), the category is the API's `Category`, and the
//! gold calls are `Golden_Answers[i]` (each `Action` with its `Action_Input`
//! JSON as arguments).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value as J;

use crate::build::catalog::json::{Ctx, Json, Node};
use crate::build::catalog::openapi::{self, Defaults, HeaderCookie};
use crate::spec::records::{Call, Gold, Task, TaskKind, Tool, Value};

/// The tools of one API: for each `Function_Projection` entry (name →
/// `[path, method]`), its operation as a tool under that name. ToolAlpaca
/// lists header and cookie parameters among a function's parameters and its
/// executor sends them from the call's arguments, so they are kept.
/// An operation the catalog cannot read is left out, with a warning.
fn tools_of(
    api: &J,
    file: &Path,
    at: &str,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<Tool>> {
    let doc: Json = match &api["Documentation"] {
        J::String(s) => {
            Json::parse(s).with_context(|| format!("{at}: Documentation is not JSON"))?
        }
        other => serde_json::from_value(other.clone())
            .with_context(|| format!("{at}: Documentation is not JSON"))?,
    };
    let root = Node::root(&doc, Ctx { file, line: None }, "Documentation");
    let category = api["Category"].as_str().unwrap_or_default();
    let defaults = Defaults {
        category: category.to_string(),
        home_url: String::new(),
    };
    let projection = api["Function_Projection"]
        .as_object()
        .with_context(|| format!("{at}: no Function_Projection"))?;
    let mut tools = Vec::new();
    for (name, target) in projection {
        let path = target[0].as_str().unwrap_or_default();
        let method = target[1].as_str().unwrap_or("get").to_ascii_lowercase();
        match openapi::operation(&root, path, &method, &defaults, HeaderCookie::Keep) {
            Ok(entry) => tools.push(Tool {
                name: name.clone(),
                country: "GLOBAL".into(),
                ..entry.tool
            }),
            Err(e) => warnings.push(format!(
                "{at}: function {name} left out: field `{}`: {}",
                e.field, e.message
            )),
        }
    }
    Ok(tools)
}

/// The gold calls of one golden answer: each step's `Action` with its
/// `Action_Input` JSON object as arguments (no arguments when it is not one).
fn gold_calls(answer: &J, tools: &[Tool], at: &str, warnings: &mut Vec<String>) -> Vec<Call> {
    let mut calls = Vec::new();
    for step in answer.as_array().into_iter().flatten() {
        let name = step["Action"].as_str().unwrap_or_default().to_string();
        let input = match &step["Action_Input"] {
            J::String(s) if s.trim().is_empty() => J::Object(Default::default()),
            J::String(s) => serde_json::from_str(s).unwrap_or_else(|_| {
                warnings.push(format!("{at}: Action_Input of {name} is not JSON"));
                J::Object(Default::default())
            }),
            other => other.clone(),
        };
        let arguments: Vec<(String, Value)> = match serde_json::from_value::<Value>(input) {
            Ok(Value::Dict(entries)) => entries,
            _ => Vec::new(),
        };
        if !tools.iter().any(|t| t.name == name) {
            warnings.push(format!(
                "{at}: gold action {name} is not a function of the API"
            ));
        }
        calls.push(Call::new(name, arguments));
    }
    calls
}

/// A task's kind from its gold calls.
fn kind_of(calls: &[Call]) -> TaskKind {
    match calls.len() {
        0 => TaskKind::NoTool,
        1 => TaskKind::Single,
        _ if calls.iter().all(|c| c.name == calls[0].name) => TaskKind::Repeated,
        _ => TaskKind::Parallel,
    }
}

/// The tasks of one API object (the `a`-th of the file whose stem is `stem`).
fn api_tasks(
    api: &J,
    file: &Path,
    stem: &str,
    a: usize,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<Task>> {
    let at = format!(
        "{}: API {a} ({})",
        file.display(),
        api["Name"].as_str().unwrap_or("?")
    );
    let tools = tools_of(api, file, &at, warnings)?;
    let category = api["Category"].as_str().unwrap_or_default();
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
    let mut tasks = Vec::new();
    for (i, (instruction, answer)) in instructions.iter().zip(&answers).enumerate() {
        let calls = gold_calls(answer, &tools, &format!("{at}: instruction {i}"), warnings);
        tasks.push(Task {
            id: format!("toolalpaca-{stem}-{a}-{i}"),
            kind: kind_of(&calls),
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
    Ok(tasks)
}

/// Converts ToolAlpaca evaluation files into SPEC tasks (ids
/// `toolalpaca-<file stem>-<api index>-<instruction index>`).
pub fn convert(inputs: &[PathBuf]) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let mut tasks = Vec::new();
    let mut warnings = Vec::new();
    for path in inputs {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let apis: Vec<J> = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON list of API objects", path.display()))?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (a, api) in apis.iter().enumerate() {
            tasks.extend(api_tasks(api, path, &stem, a, &mut warnings)?);
        }
    }
    Ok((tasks, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One API object whose documentation is `doc`, with one function per
    /// `(name, path, method)`.
    fn api(doc: J, functions: &[(&str, &str, &str)]) -> J {
        let projection: serde_json::Map<String, J> = functions
            .iter()
            .map(|(name, path, method)| (name.to_string(), serde_json::json!([path, method])))
            .collect();
        serde_json::json!({"Name": "Test", "Category": "Security",
            "Documentation": doc.to_string(), "Function_Projection": projection})
    }

    fn tools(api: &J) -> (Vec<Tool>, Vec<String>) {
        let mut warnings = Vec::new();
        let tools = tools_of(api, Path::new("eval.json"), "API 0", &mut warnings).unwrap();
        (tools, warnings)
    }

    fn names(parameters: &[crate::spec::records::Parameter]) -> Vec<&str> {
        parameters.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn openapi_operation_becomes_a_tool() {
        let doc = serde_json::json!({
            "openapi": "3.0.0",
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
        let (tools, warnings) = tools(&api(doc, &[("checkIp", "/check/{id}", "POST")]));
        assert_eq!(warnings, Vec::<String>::new());
        let t = &tools[0];
        assert_eq!(
            (t.name.as_str(), t.method.as_str(), t.url.as_str()),
            ("checkIp", "POST", "https://api.example.org/check/{id}")
        );
        assert_eq!(
            (t.category.as_str(), t.country.as_str()),
            ("Security", "GLOBAL")
        );
        assert_eq!(
            (names(&t.required_parameters), names(&t.optional_parameters)),
            (vec!["id", "ip"], vec!["verbose", "days"])
        );
        assert_eq!(t.required_parameters[0].description, "one of: a, b");
    }

    /// ToolAlpaca's executor sends header and cookie parameters from the
    /// call's arguments: a gold call passing one must find it in the tool.
    #[test]
    fn header_and_cookie_parameters_are_kept() {
        let doc = serde_json::json!({
            "openapi": "3.0.0",
            "paths": {"/me": {"get": {"parameters": [
                {"name": "X-Api-Key", "in": "header", "required": true, "schema": {"type": "string"}},
                {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                {"name": "q", "in": "query", "schema": {"type": "string"}}]}}}
        });
        let mut api = api(doc, &[("getMe", "/me", "get"), ("gone", "/nowhere", "get")]);
        let (tools, warnings) = tools(&api);
        assert_eq!(
            (
                names(&tools[0].required_parameters),
                names(&tools[0].optional_parameters)
            ),
            (vec!["X-Api-Key"], vec!["session", "q"])
        );
        assert_eq!(tools.len(), 1, "an operation that is not there is left out");
        assert_eq!(
            warnings,
            [r#"API 0: function gone left out: field `Documentation.paths["/nowhere"]`: missing"#]
        );
        api["Instructions"] = serde_json::json!(["Who am I?"]);
        api["Golden_Answers"] =
            serde_json::json!([[{"Action": "getMe", "Action_Input": "{\"X-Api-Key\": \"k\"}"}]]);
        let tasks = api_tasks(&api, Path::new("eval.json"), "eval", 0, &mut Vec::new()).unwrap();
        let call = &tasks[0].gold.calls[0];
        assert_eq!(call.arguments[0].0, "X-Api-Key");
        assert!(
            tasks[0].tools[0]
                .required_parameters
                .iter()
                .any(|p| p.name == call.arguments[0].0)
        );
    }
}
