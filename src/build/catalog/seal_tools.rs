//! Seal-Tools `tool.jsonl`: one tool per line,
//! `{api_name, api_description, field: "Domain/Subfield", parameters: {name:
//! {type, description}}, required: [names], responses}`. The domain (before
//! the first `/`) is the category; parameters keep their order, split into
//! required and optional by `required`. Seal-Tools has no country or URL.

use std::path::Path;

use super::json::{Ctx, Node, Res, numbered_lines, parse_line};
use super::{Parsed, RawEntry};
use crate::spec::records::Parameter;

fn record(node: &Node<'_>) -> Res<RawEntry> {
    node.expect_object()?;
    let name = node.req_str("api_name")?;
    let field = node.req_str("field")?;
    let category = field.split('/').next().unwrap_or("").trim().to_string();
    let mut raw = RawEntry::new(name, node.ctx.line, "");
    raw.tool.description = node.opt_str("api_description")?;
    raw.tool.category = category;
    let mut parameters: Vec<Parameter> = Vec::new();
    if let Some(params) = node.key("parameters") {
        for (name, spec) in params.members()? {
            spec.expect_object()?;
            parameters.push(Parameter {
                name: name.to_string(),
                kind: spec.opt_str("type")?,
                description: spec.opt_str("description")?,
                default: spec.key("default").map(|d| d.value.to_value()),
                ..Default::default()
            });
        }
    }
    let mut required = Vec::new();
    for item in node.opt_items("required")? {
        let name = item.str()?;
        if !parameters.iter().any(|p| p.name == name) {
            return Err(item.error(format!("`{name}` is not among `parameters`")));
        }
        required.push(name.to_string());
    }
    let (req, opt): (Vec<_>, Vec<_>) = parameters
        .into_iter()
        .partition(|p| required.contains(&p.name));
    raw.tool.required_parameters = req;
    raw.tool.optional_parameters = opt;
    Ok(raw)
}

/// Reads every line of a Seal-Tools tool file.
pub fn parse(file: &Path, text: &str) -> Parsed {
    numbered_lines(text)
        .map(|(number, line)| {
            let json = parse_line(file, number, line)?;
            let ctx = Ctx {
                file,
                line: Some(number),
            };
            record(&Node::root(&json, ctx, ""))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_keep_parameter_order_and_required_flags() {
        let line = r#"{"api_name":"analyzeEvidence","api_description":"Analyze evidence","field":"Chemical Engineering/Forensic engineering","parameters":{"sample":{"type":"str","description":"s"},"evidence_type":{"type":"int","description":"e"},"method":{"type":"float","description":"m"}},"required":["method","sample"],"responses":{}}"#;
        let parsed = parse(Path::new("tool.jsonl"), &format!("\n{line}\n"));
        let raw = parsed.into_iter().next().unwrap().unwrap();
        assert_eq!(raw.line, Some(2));
        assert_eq!(raw.tool.category, "Chemical Engineering");
        let required: Vec<_> = raw
            .tool
            .required_parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(required, ["sample", "method"]);
        assert_eq!(raw.tool.optional_parameters[0].name, "evidence_type");
    }

    #[test]
    fn unknown_required_parameter_is_named() {
        let line = r#"{"api_name":"f","field":"A/B","parameters":{"a":{"type":"str"}},"required":["a","b"]}"#;
        let err = parse(Path::new("tool.jsonl"), line).remove(0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool.jsonl:1: field `required[1]`: `b` is not among `parameters`"
        );
        let err = parse(
            Path::new("tool.jsonl"),
            r#"{"api_description":"x","field":"A"}"#,
        )
        .remove(0)
        .unwrap_err();
        assert_eq!(err.field, "api_name");
    }
}
