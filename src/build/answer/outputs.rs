//! Recorded tool outputs for generated tasks (`itc answer --with-outputs`):
//! the answer model gives, beside its Thought and Action, an example of
//! what each call returns (`"Outputs"`); they become the task's `turns`
//! (SPEC §6), checked like the sample set's.
//!
//! A nested task's calls are cut into steps where a call uses the output of
//! a call of the current step (so a step never needs its own outputs); the
//! calls of other kinds form one step. In the turns, a reference is
//! replaced by the value it names in the example output, as the model
//! would have seen it.

use serde_json::Value as Json;

use crate::build::filter::parse::json_objects;
use crate::spec::records::{Call, TaskKind, Turn, Value};
use crate::spec::reference::field_value;

/// The `"Outputs"` list of an answer reply: one example output per call.
pub fn read_outputs(reply: &str, calls: usize) -> Result<Vec<Json>, String> {
    let object = json_objects(reply)
        .into_iter()
        .find(|m| m.keys().any(|k| k.eq_ignore_ascii_case("outputs")))
        .ok_or("no \"Outputs\" in the reply (--with-outputs)")?;
    let outputs = object
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("outputs"))
        .map(|(_, v)| v.clone())
        .unwrap_or(Json::Null);
    let Json::Array(outputs) = outputs else {
        return Err("\"Outputs\" is not a list".into());
    };
    if outputs.len() != calls {
        return Err(format!(
            "\"Outputs\" gives {} output(s) for {calls} call(s)",
            outputs.len()
        ));
    }
    Ok(outputs)
}

/// The turns of a task: its calls cut into steps, each with its outputs.
pub fn turns_for(kind: TaskKind, calls: &[Call], outputs: &[Json]) -> Result<Vec<Turn>, String> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut step_start = 0;
    for (i, call) in calls.iter().enumerate() {
        let needs_current =
            kind == TaskKind::Nested && references(call).iter().any(|&k| k >= step_start && k < i);
        if turns.is_empty() || needs_current {
            turns.push(Turn::default());
            step_start = i;
        }
        let resolved = resolve(call, outputs).map_err(|why| format!("call {}: {why}", i + 1))?;
        let turn = turns.last_mut().expect("a turn was pushed");
        turn.calls.push(resolved);
        turn.tool_outputs.push(outputs[i].clone());
    }
    Ok(turns)
}

/// The calls a call's references point to (0-based).
fn references(call: &Call) -> Vec<usize> {
    fn walk(value: &Value, out: &mut Vec<usize>) {
        match value {
            Value::Ref(r) => out.push(r.call),
            Value::List(items) | Value::Tuple(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Dict(entries) => entries.iter().for_each(|(_, v)| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    call.arguments.iter().for_each(|(_, v)| walk(v, &mut out));
    out
}

/// The call with each reference replaced by the value it names.
fn resolve(call: &Call, outputs: &[Json]) -> Result<Call, String> {
    fn value(v: &Value, outputs: &[Json]) -> Result<Value, String> {
        Ok(match v {
            Value::Ref(r) => {
                let output = outputs
                    .get(r.call)
                    .ok_or_else(|| format!("refers to call {}, which has no output", r.call + 1))?;
                let found = field_value(output, &r.field).ok_or_else(|| {
                    format!(
                        "refers to field `{}` of call {}'s example output, which has no such field",
                        r.field,
                        r.call + 1
                    )
                })?;
                serde_json::from_value(found.clone()).map_err(|e| e.to_string())?
            }
            Value::List(items) => Value::List(
                items
                    .iter()
                    .map(|i| value(i, outputs))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Tuple(items) => Value::Tuple(
                items
                    .iter()
                    .map(|i| value(i, outputs))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Dict(entries) => Value::Dict(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), value(v, outputs)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }
    let arguments = call
        .arguments
        .iter()
        .map(|(k, v)| Ok((k.clone(), value(v, outputs)?)))
        .collect::<Result<_, String>>()?;
    Ok(Call::new(call.name.clone(), arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(value: Json) -> Vec<Call> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn nested_calls_are_cut_where_a_call_needs_the_current_step() {
        let gold = calls(json!([
            {"name": "geocode", "arguments": {"city": "Lyon"}},
            {"name": "forecast", "arguments": {"lat": {"$ref": "0.lat"}, "lon": {"$ref": "0.lon"}}},
            {"name": "currency", "arguments": {"code": "EUR"}},
            {"name": "alerts", "arguments": {"region": {"$ref": "1.region"}}}
        ]));
        let outputs = [
            json!({"lat": 45.76, "lon": 4.84}),
            json!({"temp": 9, "region": "ARA"}),
            json!({"rate": 1.0}),
            json!({"alerts": []}),
        ];
        let turns = turns_for(TaskKind::Nested, &gold, &outputs).unwrap();
        let names: Vec<Vec<&str>> = turns
            .iter()
            .map(|t| t.calls.iter().map(|c| c.name.as_str()).collect())
            .collect();
        assert_eq!(
            names,
            [
                vec!["geocode"],
                vec!["forecast", "currency"],
                vec!["alerts"]
            ]
        );
        assert_eq!(turns[1].calls[0].arguments[0].1, Value::Float(45.76));
        assert_eq!(turns[2].calls[0].arguments[0].1, Value::Str("ARA".into()));
        assert_eq!(
            turns[1].tool_outputs,
            [outputs[1].clone(), outputs[2].clone()]
        );
        // Other kinds: one step.
        let one = turns_for(TaskKind::Parallel, &gold[..1], &outputs[..1]).unwrap();
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn a_reference_to_a_missing_field_or_a_wrong_count_is_an_error() {
        let gold = calls(json!([
            {"name": "geocode", "arguments": {"city": "Lyon"}},
            {"name": "forecast", "arguments": {"lat": {"$ref": "0.latitude"}}}
        ]));
        let error =
            turns_for(TaskKind::Nested, &gold, &[json!({"lat": 1}), json!({})]).unwrap_err();
        assert!(
            error.contains("call 2: refers to field `latitude`"),
            "{error}"
        );
        let reply = r#"{"Thought": "t", "Action": "[a()]", "Outputs": [{"x": 1}]}"#;
        assert_eq!(read_outputs(reply, 1).unwrap(), [json!({"x": 1})]);
        assert!(
            read_outputs(reply, 2)
                .unwrap_err()
                .contains("1 output(s) for 2 call(s)")
        );
        assert!(
            read_outputs(r#"{"Thought": "t"}"#, 1)
                .unwrap_err()
                .contains("no \"Outputs\"")
        );
    }
}
