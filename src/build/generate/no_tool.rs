//! The fifth kind, `no_tool` (SPEC §0): requests whose right answer is no
//! call at all. The generator writes them in two variants:
//!
//! - **unservable**: the request looks like a job for the target API (same
//!   subject, same kind of user) but asks for something no candidate tool
//!   can do — another piece of information, an action none offers, a place
//!   or period none covers. The generator is shown every candidate, not
//!   just the target, and must say why none serves the request
//!   (`"reason"`).
//! - **missing parameter**: the request is plainly for the target API and
//!   states every value its call needs but one required parameter's. The
//!   generator names that parameter (`"missing"`) and writes the call the
//!   request would need had the user given it (`"full_call"`), so that the
//!   check can make sure the left-out value really is not in the request.
//!
//! Each candidate set gets one `no_tool` unit, like the other kinds: sets
//! whose target API has required parameters alternate between the two
//! variants in plan order (the first leaves a value out); a set whose API
//! requires nothing gets the unservable variant. The parameter to leave
//! out is drawn with the unit's seed.
//!
//! The checks of the drafts are [`super::validate::validate_no_tool`]; the
//! answer stage then confirms, with an answer model that is not told the
//! kind, that no candidate serves the request (SPEC §0: the gold call list
//! is empty).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::records::Tool;

/// The `no_tool` prompt templates, (name, source): the kind's, which
/// includes its variant's.
pub const TEMPLATES: [(&str, &str); 3] = [
    (
        "generate_no_tool.jinja",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/prompts/generate_no_tool.jinja"
        )),
    ),
    (
        "generate_no_tool_unservable.jinja",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/prompts/generate_no_tool_unservable.jinja"
        )),
    ),
    (
        "generate_no_tool_missing_parameter.jinja",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/prompts/generate_no_tool_missing_parameter.jinja"
        )),
    ),
];

/// The two ways a `no_tool` request defeats the candidate tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoToolVariant {
    /// No candidate tool can serve the request.
    Unservable,
    /// The request leaves out a required parameter's value.
    MissingParameter,
}

impl NoToolVariant {
    /// The name in unit ids, prompts and records.
    pub fn as_str(self) -> &'static str {
        match self {
            NoToolVariant::Unservable => "unservable",
            NoToolVariant::MissingParameter => "missing_parameter",
        }
    }
}

/// What a `no_tool` unit asks the generator for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "variant", rename_all = "snake_case")]
pub enum NoToolUnit {
    /// A request no candidate serves.
    Unservable,
    /// A request for the target API without this required parameter's value.
    MissingParameter {
        /// The required parameter to leave out.
        parameter: String,
    },
}

impl NoToolUnit {
    /// Its variant.
    pub fn variant(&self) -> NoToolVariant {
        match self {
            NoToolUnit::Unservable => NoToolVariant::Unservable,
            NoToolUnit::MissingParameter { .. } => NoToolVariant::MissingParameter,
        }
    }
}

/// The variant of the next set's unit: sets whose `target` has required
/// parameters alternate, counted by `eligible` (the first leaves a value
/// out); the others are unservable.
pub fn next_variant(target: &Tool, eligible: &mut usize) -> NoToolVariant {
    if target.required_parameters.is_empty() {
        return NoToolVariant::Unservable;
    }
    *eligible += 1;
    if *eligible % 2 == 1 {
        NoToolVariant::MissingParameter
    } else {
        NoToolVariant::Unservable
    }
}

/// The unit of a variant for `target`, drawing the parameter to leave out.
pub fn unit_of(variant: NoToolVariant, target: &Tool, rng: &mut fastrand::Rng) -> NoToolUnit {
    match variant {
        NoToolVariant::Unservable => NoToolUnit::Unservable,
        NoToolVariant::MissingParameter => {
            let required = &target.required_parameters;
            NoToolUnit::MissingParameter {
                parameter: required[rng.usize(..required.len())].name.clone(),
            }
        }
    }
}

/// JSON Schema of one reply item of a `no_tool` unit: the query, an empty
/// `calls`, and `reason` (unservable) or `missing` and `full_call` (the
/// target's call schema, `call`).
pub fn item_schema(unit: &NoToolUnit, call: Value) -> Value {
    let mut properties = json!({
        "query": {"type": "string"},
        "calls": {"type": "array", "maxItems": 0}
    });
    let extra: &[&str] = match unit {
        NoToolUnit::Unservable => {
            properties["reason"] = json!({"type": "string"});
            &["reason"]
        }
        NoToolUnit::MissingParameter { parameter } => {
            properties["missing"] = json!({"type": "string", "enum": [parameter]});
            properties["full_call"] = call;
            &["missing", "full_call"]
        }
    };
    let mut required = vec!["query", "calls"];
    required.extend_from_slice(extra);
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// The tools an unservable prompt shows: the target first, then the other
/// candidates in their order — every tool the request must defeat.
pub fn shown_tools<'a>(target: &'a str, tools: &'a [Tool]) -> Vec<&'a Tool> {
    let mut shown: Vec<&Tool> = tools.iter().filter(|t| t.name == target).collect();
    shown.extend(tools.iter().filter(|t| t.name != target));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, required: &[&str]) -> Tool {
        let parameters: Vec<Value> = required.iter().map(|p| json!({"name": p})).collect();
        serde_json::from_value(json!({"name": name, "required_parameters": parameters})).unwrap()
    }

    #[test]
    fn sets_with_required_parameters_alternate_variants() {
        let mut eligible = 0;
        let variants: Vec<NoToolVariant> = [
            tool("a", &["x"]),
            tool("b", &[]),
            tool("c", &["x"]),
            tool("d", &["x", "y"]),
        ]
        .iter()
        .map(|t| next_variant(t, &mut eligible))
        .collect();
        assert_eq!(
            variants,
            [
                NoToolVariant::MissingParameter,
                NoToolVariant::Unservable,
                NoToolVariant::Unservable,
                NoToolVariant::MissingParameter
            ]
        );
    }

    #[test]
    fn the_left_out_parameter_is_a_required_one() {
        let target = tool("d", &["x", "y"]);
        let mut rng = fastrand::Rng::with_seed(3);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..20 {
            match unit_of(NoToolVariant::MissingParameter, &target, &mut rng) {
                NoToolUnit::MissingParameter { parameter } => seen.insert(parameter),
                other => panic!("{other:?}"),
            };
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(
            unit_of(NoToolVariant::Unservable, &target, &mut rng),
            NoToolUnit::Unservable
        );
    }

    #[test]
    fn schemas_ask_for_no_calls_and_the_variant_fields() {
        let unservable = item_schema(&NoToolUnit::Unservable, json!({}));
        assert_eq!(unservable["properties"]["calls"]["maxItems"], 0);
        assert_eq!(unservable["required"], json!(["query", "calls", "reason"]));
        let missing = NoToolUnit::MissingParameter {
            parameter: "city".into(),
        };
        let schema = item_schema(&missing, json!({"type": "object"}));
        assert_eq!(
            schema["required"],
            json!(["query", "calls", "missing", "full_call"])
        );
        assert_eq!(schema["properties"]["missing"]["enum"], json!(["city"]));
        assert_eq!(schema["properties"]["full_call"], json!({"type": "object"}));
    }

    #[test]
    fn unservable_prompts_show_the_target_first() {
        let tools = [tool("b", &[]), tool("t", &[]), tool("c", &[])];
        let names: Vec<&str> = shown_tools("t", &tools)
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["t", "b", "c"]);
    }
}
