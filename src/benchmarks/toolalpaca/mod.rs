//! ToolAlpaca (tangqiaoyu/ToolAlpaca) evaluation sets to SPEC §0 tasks.
//!
//! Each API object (`eval_simulated.json`, `eval_real.json`) gives one task
//! per instruction: the tools are the API's functions (`Function_Projection`
//! names, each the OpenAPI operation of the `Documentation` it projects to,
//! made into a tool by the catalog's [`openapi::operation`] with header and
//! cookie parameters kept), the category is the API's `Category`, and the
//! gold calls are `Golden_Answers[i]` (each `Action` with its `Action_Input`
//! JSON as arguments).
//!
//! ToolAlpaca writes a value taken from an earlier call's output as
//! `${animeId from searchAnime}`; it becomes the SPEC §3 reference
//! `{"$ref": "<k>.animeId"}` to the last earlier gold call of that name, and
//! its task is `nested`. A placeholder that names no earlier output
//! (`${start date}`) becomes the text `<start date>`, with a warning.

pub mod eval;

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

/// What a `${…}` placeholder of a golden answer's `Action_Input` stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Placeholder {
    /// `${animeId from searchAnime}`: a field of an earlier call's output
    /// (the last earlier call named `action`).
    Output {
        /// The field, as written (`animeId`, `holidayId name`).
        field: String,
        /// The earlier call's name.
        action: String,
    },
    /// `${start date}`: a value the answer has to supply, which the gold
    /// does not know.
    Open,
}

impl Placeholder {
    /// Reads a placeholder's text (between `${` and `}`).
    fn read(text: &str) -> Placeholder {
        match text.rsplit_once(" from ") {
            Some((field, action)) if !field.trim().is_empty() && !action.trim().is_empty() => {
                Placeholder::Output {
                    field: field.trim().to_string(),
                    action: action.trim().to_string(),
                }
            }
            _ => Placeholder::Open,
        }
    }
}

/// The JSON value that stands for the placeholder `${text}` in a call after
/// `earlier`: a SPEC reference `{"$ref": "<k>.<field>"}` to the last earlier
/// call named as its source, else (with a warning naming the record) the
/// text `<text>`, which no answer is expected to write.
fn placeholder_value(text: &str, earlier: &[Call], at: &str, warnings: &mut Vec<String>) -> J {
    let why = match Placeholder::read(text) {
        Placeholder::Output { field, action } => {
            let call = earlier.iter().rposition(|c| c.name == action);
            let first = field.split_whitespace().next().unwrap_or_default();
            let is_name = first.chars().all(|c| c.is_alphanumeric() || c == '_');
            match call {
                Some(k) if is_name => {
                    if first != field {
                        warnings.push(format!(
                            "{at}: `${{{text}}}`: field `{field}` read as `{first}`"
                        ));
                    }
                    return serde_json::json!({"$ref": format!("{k}.{first}")});
                }
                Some(_) => format!("`{field}` is not a field name"),
                None => format!("no earlier gold call is named {action}"),
            }
        }
        Placeholder::Open => "it names no earlier call's output".to_string(),
    };
    warnings.push(format!(
        "{at}: `${{{text}}}` is not a reference ({why}); kept as the text `<{text}>`"
    ));
    J::String(format!("<{text}>"))
}

/// `Action_Input` with its `${…}` placeholders replaced by JSON values
/// ([`placeholder_value`]), so that it reads as JSON. ToolAlpaca writes them
/// bare (`{"animeId": ${animeId from searchAnime}}`), as a whole string
/// (`"${string}"`), with a stray quote after (`${end date}"`) or without
/// their closing brace (`${userId from authenticateUser, …`): a placeholder
/// ends at `}`, `,`, `"`, `]` or a line end. One inside a longer string
/// becomes text.
fn replace_placeholders(
    input: &str,
    earlier: &[Call],
    at: &str,
    warnings: &mut Vec<String>,
) -> String {
    let bytes = input.as_bytes();
    let (mut out, mut copied, mut i, mut in_string) = (String::new(), 0, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 2,
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                let start = i + 2;
                let end = input[start..]
                    .find(['}', ',', '"', ']', '\n'])
                    .map_or(input.len(), |e| start + e);
                let mut next = end + usize::from(input[end..].starts_with('}'));
                let value = placeholder_value(input[start..end].trim(), earlier, at, warnings);
                let closes = input[next..].starts_with('"');
                if in_string && input[..i].ends_with('"') && closes {
                    // The whole string: the value replaces it, quotes and all.
                    out.push_str(&input[copied..i - 1]);
                    out.push_str(&value.to_string());
                    next += 1;
                    in_string = false;
                } else if in_string {
                    let text = match &value {
                        J::String(t) => t.clone(),
                        other => {
                            warnings.push(format!(
                                "{at}: `${{{}}}` inside a longer text is kept as text",
                                &input[start..end]
                            ));
                            format!("<{}>", other["$ref"].as_str().unwrap_or_default())
                        }
                    };
                    let quoted = J::String(text).to_string();
                    out.push_str(&input[copied..i]);
                    out.push_str(&quoted[1..quoted.len() - 1]);
                } else {
                    out.push_str(&input[copied..i]);
                    out.push_str(&value.to_string());
                    // A bare value is never followed by `"`: a stray quote.
                    next += usize::from(closes);
                }
                i = next;
                copied = next;
            }
            _ => i += 1,
        }
    }
    out.push_str(&input[copied.min(input.len())..]);
    out
}

/// The gold calls of one golden answer: each step's `Action` with its
/// `Action_Input` JSON object as arguments (no arguments when it is not
/// one, with a warning). Its `${field from action}` references to earlier
/// outputs become SPEC references `{"$ref": "<k>.<field>"}`.
fn gold_calls(answer: &J, tools: &[Tool], at: &str, warnings: &mut Vec<String>) -> Vec<Call> {
    let mut calls = Vec::new();
    for (s, step) in answer.as_array().into_iter().flatten().enumerate() {
        let name = step["Action"].as_str().unwrap_or_default().to_string();
        let step_at = format!("{at}: step {s} ({name}): field Action_Input");
        let input = match &step["Action_Input"] {
            J::String(s) if s.trim().is_empty() => J::Object(Default::default()),
            J::String(s) => {
                let text = replace_placeholders(s, &calls, &step_at, warnings);
                serde_json::from_str(&text).unwrap_or_else(|e| {
                    warnings.push(format!(
                        "{step_at}: not JSON ({e}); the call keeps no arguments"
                    ));
                    J::Object(Default::default())
                })
            }
            other => other.clone(),
        };
        let arguments: Vec<(String, Value)> = match serde_json::from_value::<Value>(input) {
            Ok(Value::Dict(entries)) => entries,
            _ => {
                warnings.push(format!(
                    "{step_at}: not a JSON object; the call keeps no arguments"
                ));
                Vec::new()
            }
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

/// Whether a value is or holds a reference to an earlier output.
fn has_reference(value: &Value) -> bool {
    match value {
        Value::Ref(_) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(has_reference),
        Value::Dict(entries) => entries.iter().any(|(_, v)| has_reference(v)),
        _ => false,
    }
}

/// A task's kind from its gold calls: `nested` when a call takes a value
/// from an earlier call's output.
fn kind_of(calls: &[Call]) -> TaskKind {
    let nested = calls
        .iter()
        .any(|c| c.arguments.iter().any(|(_, v)| has_reference(v)));
    match calls.len() {
        _ if nested => TaskKind::Nested,
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
                official: None,
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
    /// The gold calls of one golden answer given as `(Action, Action_Input)`.
    fn calls_of(steps: &[(&str, &str)]) -> (Vec<Call>, Vec<String>) {
        let answer: Vec<J> = steps
            .iter()
            .map(|(a, i)| serde_json::json!({"Action": a, "Action_Input": i}))
            .collect();
        let mut warnings = Vec::new();
        let calls = gold_calls(&J::Array(answer), &[], "eval.json: API 0", &mut warnings);
        // No tools here: leave out the warnings saying so.
        warnings.retain(|w| !w.ends_with("is not a function of the API"));
        (calls, warnings)
    }

    fn reference(call: usize, field: &str) -> Value {
        Value::Ref(crate::spec::reference::Reference {
            call,
            field: field.into(),
        })
    }

    /// `${field from action}` is a reference to the last earlier call of
    /// that name, in every way ToolAlpaca writes it; the task is nested.
    #[test]
    fn placeholders_of_earlier_outputs_become_references() {
        let (calls, warnings) = calls_of(&[
            ("authenticateUser", r#"{"email": "a@b.c"}"#),
            ("searchUser", r#"{"query": "x"}"#),
            ("authenticateUser", r#"{"email": "d@e.f"}"#),
            (
                "getUserProfile",
                r#"{"userId": ${userId from authenticateUser, "token": "${token from searchUser}", "ids": [${id from searchUser}], "n": 2}"#,
            ),
        ]);
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(
            calls[3].arguments,
            vec![
                ("userId".into(), reference(2, "userId")),
                ("token".into(), reference(1, "token")),
                ("ids".into(), Value::List(vec![reference(1, "id")])),
                ("n".into(), Value::Int(2)),
            ]
        );
        assert_eq!(kind_of(&calls), TaskKind::Nested);
        assert_eq!(kind_of(&calls[..3]), TaskKind::Parallel);
    }

    /// A placeholder that names no earlier output keeps its argument, as
    /// text no answer writes, with a warning naming the record and step.
    #[test]
    fn other_placeholders_are_kept_as_text_with_a_warning() {
        let (calls, warnings) = calls_of(&[(
            "search",
            r#"{"from": ${start date}", "id": ${id from later}, "note": "on ${day} at 5", "q": "$5 {x}"}"#,
        )]);
        let text = |t: &str| Value::Str(t.into());
        assert_eq!(
            calls[0].arguments,
            vec![
                ("from".into(), text("<start date>")),
                ("id".into(), text("<id from later>")),
                ("note".into(), text("on <day> at 5")),
                ("q".into(), text("$5 {x}")),
            ]
        );
        assert_eq!(kind_of(&calls), TaskKind::Single);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[1].starts_with("eval.json: API 0: step 0 (search): field Action_Input: `${id from later}` is not a reference (no earlier gold call is named later)"),
            "{warnings:?}"
        );
    }
}
