//! A converted BFCL task (single- or multi-turn): what it takes from the
//! question (its language, each function doc as a SPEC tool) and the
//! task itself.

use anyhow::Context;
use serde_json::Value as J;

use super::Category;
use crate::spec::language::{iso639_1, strip_non_prose};
use crate::spec::records::{Call, Gold, Parameter, Task, TaskKind, Tool};

/// whatlang's reliable guess, else English.
pub fn language_of(query: &str) -> String {
    whatlang::detect(&strip_non_prose(query))
        .filter(whatlang::Info::is_reliable)
        .map_or("en", |info| iso639_1(info.lang()))
        .to_string()
}

/// A function doc as a SPEC tool.
pub fn tool_of(doc: &J) -> anyhow::Result<Tool> {
    let name = doc["name"]
        .as_str()
        .context("field `name`: missing or not a string")?;
    let parameters = &doc["parameters"];
    let required: Vec<&str> = parameters["required"]
        .as_array()
        .map(|r| r.iter().filter_map(J::as_str).collect())
        .unwrap_or_default();
    let mut tool = Tool {
        name: name.to_string(),
        description: doc["description"].as_str().unwrap_or_default().to_string(),
        country: "GLOBAL".into(),
        ..Tool::default()
    };
    if let Some(properties) = parameters["properties"].as_object() {
        for (pname, schema) in properties {
            let parameter = parameter_of(pname, schema);
            if required.contains(&pname.as_str()) {
                tool.required_parameters.push(parameter);
            } else {
                tool.optional_parameters.push(parameter);
            }
        }
    }
    Ok(tool)
}

fn parameter_of(name: &str, schema: &J) -> Parameter {
    let text = |key: &str| schema[key].as_str().unwrap_or_default().to_string();
    Parameter {
        name: name.to_string(),
        kind: text("type"),
        description: text("description"),
        default: schema.get("default").cloned(),
        allowed: schema["enum"].as_array().cloned(),
        items: schema.get("items").cloned(),
        properties: schema.get("properties").cloned(),
    }
}

/// A converted task: the question's id, its query (language guessed from
/// it), tools and gold calls, and what the official scorer needs in
/// `gold.official`.
pub fn bfcl_task(
    id: &str,
    category: Category,
    kind: TaskKind,
    query: String,
    tools: Vec<Tool>,
    calls: Vec<Call>,
    official: J,
) -> Task {
    Task {
        id: id.to_string(),
        kind,
        language: language_of(&query),
        country: "GLOBAL".into(),
        category: category.as_str().into(),
        query,
        tools,
        gold: Gold {
            thought: String::new(),
            calls,
            official: Some(official),
        },
        turns: Vec::new(),
    }
}
