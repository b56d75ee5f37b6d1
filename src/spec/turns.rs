//! The recorded steps of a task (`turns`, SPEC §6), checked before a
//! step-by-step run relies on them:
//!
//! - the calls of the turns, in order, are the gold calls (by tool name);
//! - a turn records one output per call, or none (the last turn's outputs
//!   are never shown, so they may be left out);
//! - every gold reference `{"$ref": "k.field"}` names a gold call whose
//!   recorded output exists and has that field.

use super::records::{Call, Task, Value};
use super::reference::{Reference, field_value};

/// Every problem of a task's turns, one sentence each naming the task;
/// none for a task without turns.
pub fn turn_problems(task: &Task) -> Vec<String> {
    if task.turns.is_empty() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let say = |what: String| format!("task {}: {what}", task.id);
    let names = |calls: &mut dyn Iterator<Item = &Call>| -> Vec<String> {
        calls.map(|c| c.name.clone()).collect()
    };
    let turn_names = names(&mut task.turns.iter().flat_map(|t| &t.calls));
    let gold_names = names(&mut task.gold.calls.iter());
    if turn_names != gold_names {
        problems.push(say(format!(
            "the turns call {turn_names:?}, the gold calls {gold_names:?}"
        )));
    }
    // The recorded output of each gold call, by gold call index.
    let mut outputs = Vec::new();
    for (k, turn) in task.turns.iter().enumerate() {
        let (calls, recorded) = (turn.calls.len(), turn.tool_outputs.len());
        if recorded != 0 && recorded != calls {
            problems.push(say(format!(
                "turn {} records {recorded} output(s) for {calls} call(s)",
                k + 1
            )));
        }
        outputs.extend((0..calls).map(|i| turn.tool_outputs.get(i)));
    }
    for (holder, call) in task.gold.calls.iter().enumerate() {
        for (parameter, value) in &call.arguments {
            let mut references = Vec::new();
            collect_references(value, &mut references);
            for r in references {
                let place = format!(
                    "gold call {} `{}`, argument `{parameter}`",
                    holder + 1,
                    call.name
                );
                match outputs.get(r.call).copied().flatten() {
                    None => problems.push(say(format!(
                        "{place} refers to the output of call {}, which is not recorded",
                        r.call + 1
                    ))),
                    Some(output) if field_value(output, &r.field).is_none() => {
                        problems.push(say(format!(
                            "{place} refers to field `{}` of call {}'s output, which has no such field",
                            r.field,
                            r.call + 1
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
    }
    problems
}

/// The references inside a gold value (in lists and objects too).
fn collect_references<'v>(value: &'v Value, out: &mut Vec<&'v Reference>) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Ref(r) => out.push(r),
            Value::List(items) | Value::Tuple(items) => pending.extend(items),
            Value::Dict(entries) => pending.extend(entries.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Task> {
        crate::spec::sample::all_sample_tasks()
    }

    #[test]
    fn the_sample_sets_turns_hold_every_output_their_references_need() {
        let tasks = sample();
        let with_turns = tasks.iter().filter(|t| !t.turns.is_empty()).count();
        assert!(with_turns >= 32, "{with_turns} tasks with turns");
        let problems: Vec<String> = tasks.iter().flat_map(turn_problems).collect();
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn broken_turns_are_named() {
        let task = sample()
            .into_iter()
            .find(|t| {
                t.gold
                    .calls
                    .first()
                    .is_some_and(|c| c.name == "ine_codigo_municipio")
            })
            .unwrap();
        let mut wrong_field = task.clone();
        wrong_field.turns[0].tool_outputs[0] = serde_json::json!({"code": "50297"});
        let problems = turn_problems(&wrong_field);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].ends_with(
                "refers to field `codigo_ine` of call 1's output, which has no such field"
            ),
            "{problems:?}"
        );
        let mut unrecorded = task.clone();
        unrecorded.turns[0].tool_outputs.clear();
        assert!(turn_problems(&unrecorded)[0].contains("which is not recorded"));
        let mut extra = task.clone();
        extra.turns[0].tool_outputs.push(serde_json::json!({}));
        assert!(turn_problems(&extra)[0].contains("turn 1 records 2 output(s) for 1 call(s)"));
        let mut renamed = task;
        renamed.turns[1].calls[0].name = "other".into();
        assert!(turn_problems(&renamed)[0].contains("the turns call"));
    }
}
