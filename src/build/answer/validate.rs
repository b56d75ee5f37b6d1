//! Deterministic checks of a gold answer before it is accepted.
//!
//! [`read_answer`] reads the `{"Thought": …, "Action": …}` reply (the JSON
//! object may sit in a code fence or in prose, but the Action must parse in
//! **strict** mode, SPEC §1) and turns `'$N.field'` placeholders into SPEC
//! references (read by [`parse_placeholder`], so `'$5.00'` stays money). [`validate`] then checks, in order:
//!
//! 1. every call names a candidate tool;
//! 2. no parameter is given twice, every parameter is one the tool declares,
//!    and every required parameter is present;
//! 3. each value fits its parameter's declared type (see [`fits`]);
//! 4. references only point to earlier calls;
//! 5. the calls fit the task kind ([`TaskKind::shape_error`], the rule the
//!    generator's check shares): `single` one call; `repeated` two or more
//!    calls of one API, no two alike, without references; `parallel` two or
//!    more calls of at least two APIs, without references; `nested` two or
//!    more calls with at least one reference; `no_tool` no call;
//! 6. optionally, the calls use exactly the APIs the query was written for.
//!
//! Every failure is a message naming the call and the parameter.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value as Json;

use crate::build::filter::parse::json_objects;
use crate::spec::action::{Mode, parse_actions, print_actions};
use crate::spec::kind::{CallShape, ReferenceAt, ShapeError};
use crate::spec::records::{Call, Parameter, Reference, TaskKind, Tool, Value};
use crate::spec::reference::parse_placeholder;
use crate::spec::response::strict_format;

/// A gold answer read from a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadAnswer {
    /// The reasoning.
    pub thought: String,
    /// The Action's calls, with placeholders turned into references.
    pub calls: Vec<Call>,
}

/// Reads a `{"Thought": …, "Action": …}` reply: strict Action, non-empty
/// Thought, `'$N.field'` placeholders (N counted from 1) and `{'$ref': …}`
/// dicts turned into references.
pub fn read_answer(text: &str) -> Result<ReadAnswer, String> {
    let (thought, mut calls) = match strict_format(text) {
        Some((thought, calls)) => (thought.into_owned(), calls),
        None => read_loosely_wrapped(text)?,
    };
    if thought.trim().is_empty() {
        return Err("the Thought is empty".to_string());
    }
    for (i, call) in calls.iter_mut().enumerate() {
        for (key, value) in &mut call.arguments {
            resolve_references(value)
                .map_err(|why| format!("call {} (`{}`): `{key}`: {why}", i + 1, call.name))?;
        }
    }
    Ok(ReadAnswer { thought, calls })
}

/// The first JSON object with `Thought` and `Action` anywhere in the text.
fn read_loosely_wrapped(text: &str) -> Result<(String, Vec<Call>), String> {
    let field = |map: &serde_json::Map<String, Json>, name: &str| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let object = json_objects(text)
        .into_iter()
        .find(|m| field(m, "Thought").is_some() && field(m, "Action").is_some())
        .ok_or("no JSON object with \"Thought\" and \"Action\" in the reply")?;
    let Some(Json::String(thought)) = field(&object, "Thought") else {
        return Err("\"Thought\" is not a string".to_string());
    };
    let Some(Json::String(action)) = field(&object, "Action") else {
        return Err("\"Action\" is not a string".to_string());
    };
    let calls = parse_actions(&action, Mode::Strict)
        .map_err(|e| format!("the Action does not parse strictly ({e}): {action}"))?;
    Ok((thought, calls))
}

/// Turns placeholders into references, inside lists and dicts too:
/// `'$2.token'` → call index 1, field `token`; `'$2'` → call 1's whole
/// output; `{'$ref': '1.token'}` (0-based, as in SPEC files) likewise.
pub fn resolve_references(value: &mut Value) -> Result<(), String> {
    match value {
        Value::Str(text) => {
            if let Some(reference) =
                parse_placeholder(text).map_err(|why| format!("`{text}`: {why}"))?
            {
                *value = Value::Ref(reference);
            }
        }
        Value::Dict(entries) => {
            if let [(key, Value::Str(target))] = entries.as_slice()
                && key == "$ref"
            {
                let reference = Reference::parse(target)
                    .ok_or_else(|| format!("`{target}` is not a reference"))?;
                *value = Value::Ref(reference);
                return Ok(());
            }
            for (_, v) in entries {
                resolve_references(v)?;
            }
        }
        Value::List(items) | Value::Tuple(items) => {
            for v in items {
                resolve_references(v)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether a value fits a declared parameter type. References fit any
/// type; `null` fits only optional parameters; unknown type names (`enum`,
/// `date`, empty) accept any value.
pub fn fits(value: &Value, kind: &str, required: bool) -> bool {
    let kind = kind.trim().to_ascii_lowercase();
    match value {
        Value::Ref(_) => return true,
        Value::Null => return !required,
        _ => {}
    }
    let is = |names: &[&str]| names.contains(&kind.as_str());
    if is(&["string", "str", "text"]) {
        matches!(value, Value::Str(_) | Value::Word(_))
    } else if is(&["integer", "int", "long"]) {
        matches!(value, Value::Int(_))
    } else if is(&["number", "float", "double", "decimal"]) {
        matches!(value, Value::Int(_) | Value::Float(_))
    } else if is(&["boolean", "bool"]) {
        matches!(value, Value::Bool(_))
    } else if kind.starts_with("array") || kind.starts_with("list") || kind == "tuple" {
        matches!(value, Value::List(_) | Value::Tuple(_))
    } else if is(&["object", "dict", "map"]) {
        matches!(value, Value::Dict(_))
    } else {
        true
    }
}

/// A value's type and text, for messages: `string '2'`, `null`.
fn describe(value: &Value) -> String {
    if matches!(value, Value::Null) {
        return "null".to_string();
    }
    let mut text = String::new();
    crate::spec::action::print_value(value, &mut text);
    format!("{} {text}", type_name(value))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) => "number",
        Value::Str(_) | Value::Word(_) => "string",
        Value::List(_) | Value::Tuple(_) => "array",
        Value::Dict(_) => "object",
        Value::Ref(_) => "reference",
    }
}

/// The references inside a value, lists and dicts included.
fn references(value: &Value, out: &mut Vec<Reference>) {
    match value {
        Value::Ref(r) => out.push(r.clone()),
        Value::List(items) | Value::Tuple(items) => items.iter().for_each(|v| references(v, out)),
        Value::Dict(entries) => entries.iter().for_each(|(_, v)| references(v, out)),
        _ => {}
    }
}

/// Checks a gold answer's calls against the candidate tools and the task
/// kind; `targets`, when given, are the APIs the calls must use (as a set).
pub fn validate(
    kind: TaskKind,
    calls: &[Call],
    tools: &[Tool],
    targets: Option<&[String]>,
) -> Result<(), String> {
    // Any call at all, valid or not, is the answer model's verdict that
    // the request can be served: said first, before any fault of the call.
    if kind == TaskKind::NoTool && !calls.is_empty() {
        return Err(no_tool_message(calls));
    }
    for (i, call) in calls.iter().enumerate() {
        check_call(i, call, tools)?;
    }
    let shapes: Vec<_> = calls.iter().map(call_shape).collect();
    if let Some(problem) = kind.shape_error(&shapes) {
        return Err(shape_message(kind, &problem, calls));
    }
    let names: BTreeSet<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    if let Some(targets) = targets
        && kind != TaskKind::NoTool
        && !targets.is_empty()
    {
        let wanted: BTreeSet<&str> = targets.iter().map(String::as_str).collect();
        if wanted != names {
            let list = |s: &BTreeSet<&str>| s.iter().copied().collect::<Vec<_>>().join(", ");
            return Err(format!(
                "the calls use {{{}}} but the query was written for {{{}}}",
                list(&names),
                list(&wanted)
            ));
        }
    }
    Ok(())
}

/// Checks call `i` (0-based) on its own: a candidate tool, each parameter
/// given once, declared and of its type, references pointing back, every
/// required parameter present.
fn check_call(i: usize, call: &Call, tools: &[Tool]) -> Result<(), String> {
    let at = format!("call {} (`{}`)", i + 1, call.name);
    let tool = tools
        .iter()
        .find(|t| t.name == call.name)
        .ok_or_else(|| format!("{at}: not among the candidate tools"))?;
    let declared = |name: &str| -> Option<(&Parameter, bool)> {
        tool.required_parameters
            .iter()
            .find(|p| p.name == name)
            .map(|p| (p, true))
            .or_else(|| {
                tool.optional_parameters
                    .iter()
                    .find(|p| p.name == name)
                    .map(|p| (p, false))
            })
    };
    let mut given = HashSet::new();
    for (key, value) in &call.arguments {
        if !given.insert(key.as_str()) {
            return Err(format!("{at}: `{key}` is given twice"));
        }
        let (parameter, required) =
            declared(key).ok_or_else(|| format!("{at}: `{key}` is not a parameter of the tool"))?;
        if !fits(value, &parameter.kind, required) {
            return Err(format!(
                "{at}: `{key}` is declared {}, got {}",
                parameter.kind,
                describe(value)
            ));
        }
        // The kind's shape checks the same rule; here it is reported in
        // reading order, beside the call's other problems.
        let mut found = Vec::new();
        references(value, &mut found);
        let reference_at = |r: &Reference| ReferenceAt {
            parameter: key,
            call: r.call,
        };
        if let Some(forward) = found.iter().map(reference_at).find(|r| !r.points_back(i)) {
            return Err(forward_message(&at, key, forward.call));
        }
    }
    match tool
        .required_parameters
        .iter()
        .find(|p| !given.contains(p.name.as_str()))
    {
        Some(missing) => Err(format!(
            "{at}: required parameter `{}` is missing",
            missing.name
        )),
        None => Ok(()),
    }
}

/// A call as the kind's shape rules see it.
fn call_shape(call: &Call) -> CallShape<'_, BTreeMap<&str, &Value>> {
    let mut shape = CallShape {
        tool: &call.name,
        arguments: call
            .arguments
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect(),
        references: Vec::new(),
    };
    for (key, value) in &call.arguments {
        let mut found = Vec::new();
        references(value, &mut found);
        shape.references.extend(found.iter().map(|r| ReferenceAt {
            parameter: key,
            call: r.call,
        }));
    }
    shape
}

fn forward_message(at: &str, key: &str, target: usize) -> String {
    format!(
        "{at}: `{key}` refers to the output of call {}, which does not come before it",
        target + 1
    )
}

/// Why calls given for a `no_tool` task reject it: the answer model, not
/// told the kind, found a candidate that serves the request, or filled in
/// a value the request leaves out.
fn no_tool_message(calls: &[Call]) -> String {
    format!(
        "a no_tool task needs no call, but the answer calls {}: a candidate serves the request as asked, or a value the request leaves out was filled in",
        print_actions(calls)
    )
}

/// What a gold answer of this kind lacks, in words.
fn shape_message(kind: TaskKind, problem: &ShapeError, calls: &[Call]) -> String {
    match *problem {
        ShapeError::NotOneCall { calls } => {
            format!("a {kind} task needs exactly 1 call, got {calls}")
        }
        ShapeError::NotOneToolRepeated { calls, tools } => format!(
            "a {kind} task needs 2 or more calls of one API, got {calls} call(s) of {tools} API(s)"
        ),
        ShapeError::SameArguments { .. } => {
            format!("a {kind} task's calls must differ in their arguments")
        }
        ShapeError::TooFewTools { calls, tools } => format!(
            "a {kind} task needs 2 or more calls of at least 2 APIs, got {calls} call(s) of {tools} API(s)"
        ),
        ShapeError::Dependent { .. } => {
            format!("a {kind} task's calls must not refer to each other")
        }
        ShapeError::NotNested {
            calls,
            has_reference,
        } => format!(
            "a {kind} task needs 2 or more calls and a reference to an earlier call, got {calls} call(s){}",
            if has_reference {
                ""
            } else {
                " without a reference"
            }
        ),
        ShapeError::CallsForNoTool { .. } => no_tool_message(calls),
        ShapeError::ForwardReference {
            call,
            ref parameter,
            target,
        } => forward_message(
            &format!("call {} (`{}`)", call + 1, calls[call].name),
            parameter,
            target,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(name: &str, kind: &str) -> Parameter {
        Parameter {
            name: name.into(),
            kind: kind.into(),
            description: String::new(),
            default: None,
            ..Default::default()
        }
    }

    fn tool(name: &str, required: &[(&str, &str)], optional: &[(&str, &str)]) -> Tool {
        Tool {
            name: name.into(),
            required_parameters: required.iter().map(|(n, k)| parameter(n, k)).collect(),
            optional_parameters: optional.iter().map(|(n, k)| parameter(n, k)).collect(),
            ..Tool::default()
        }
    }

    fn tools() -> Vec<Tool> {
        vec![
            tool(
                "weather",
                &[("city", "string")],
                &[("days", "integer"), ("units", "")],
            ),
            tool("login", &[("user", "string"), ("password", "string")], &[]),
            tool(
                "orders",
                &[("token", "string")],
                &[
                    ("limit", "number"),
                    ("tags", "array"),
                    ("strict", "boolean"),
                    ("filter", "object"),
                ],
            ),
        ]
    }

    fn check(kind: TaskKind, action: &str) -> Result<(), String> {
        let reply = serde_json::json!({"Thought": "t", "Action": action}).to_string();
        let answer = read_answer(&reply)?;
        validate(kind, &answer.calls, &tools(), None)
    }

    #[test]
    fn reading_replies() {
        let a = read_answer(
            "```json\n{\"Thought\": \"Use it.\", \"Action\": \"[weather(city='Oslo')]\"}\n```",
        )
        .unwrap();
        assert_eq!((a.thought.as_str(), a.calls.len()), ("Use it.", 1));
        // Prose around the object is tolerated; the Action must still be strict.
        let a = read_answer(
            "Sure! {\"thought\": \"ok\", \"action\": \"[weather(city='Oslo', days=2)]\"} done",
        )
        .unwrap();
        assert_eq!(a.calls[0].arguments.len(), 2);
        let err =
            read_answer("{\"Thought\": \"ok\", \"Action\": \"weather(city='Oslo')\"}").unwrap_err();
        assert!(
            err.starts_with("the Action does not parse strictly (line 1, column 1: expected"),
            "{err}"
        );
        let err =
            read_answer("{\"Thought\": \"ok\", \"Action\": \"[weather(city=Oslo)]\"}").unwrap_err();
        assert!(
            err.starts_with("the Action does not parse strictly"),
            "bare words are lenient only: {err}"
        );
        assert_eq!(
            read_answer("no json").unwrap_err(),
            "no JSON object with \"Thought\" and \"Action\" in the reply"
        );
        assert_eq!(
            read_answer("{\"Thought\": \" \", \"Action\": \"[]\"}").unwrap_err(),
            "the Thought is empty"
        );
        assert_eq!(
            read_answer("{\"Thought\": \"x\", \"Action\": [1]}").unwrap_err(),
            "\"Action\" is not a string"
        );
    }

    #[test]
    fn placeholders_become_references() {
        let reply = serde_json::json!({"Thought": "t", "Action": "[login(user='a', password='b'), orders(token='$1.token', tags=['$1.id', 'x'], filter={'$ref': '0.scope'}, limit='$5.00 fee')]"}).to_string();
        let a = read_answer(&reply).unwrap();
        let args = &a.calls[1].arguments;
        assert_eq!(
            args[0].1,
            Value::Ref(Reference {
                call: 0,
                field: "token".into()
            })
        );
        assert_eq!(
            args[1].1,
            Value::List(vec![
                Value::Ref(Reference {
                    call: 0,
                    field: "id".into()
                }),
                Value::Str("x".into())
            ])
        );
        assert_eq!(
            args[2].1,
            Value::Ref(Reference {
                call: 0,
                field: "scope".into()
            })
        );
        assert_eq!(
            args[3].1,
            Value::Str("$5.00 fee".into()),
            "money is not a placeholder"
        );
        let money = read_answer(
            &serde_json::json!({"Thought": "t", "Action": "[orders(token='$5.00')]"}).to_string(),
        )
        .unwrap();
        assert_eq!(
            money.calls[0].arguments[0].1,
            Value::Str("$5.00".into()),
            "money, not call 5's field `00`"
        );
        let err = read_answer(
            &serde_json::json!({"Thought": "t", "Action": "[orders(token='$0.token')]"})
                .to_string(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "call 1 (`orders`): `token`: `$0.token`: calls are counted from 1"
        );
    }

    #[test]
    fn names_parameters_and_types() {
        assert_eq!(
            check(
                TaskKind::Single,
                "[weather(city='Oslo', days=2, units=null)]"
            ),
            Ok(())
        );
        assert_eq!(
            check(TaskKind::Single, "[forecast(city='Oslo')]").unwrap_err(),
            "call 1 (`forecast`): not among the candidate tools"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(days=2)]").unwrap_err(),
            "call 1 (`weather`): required parameter `city` is missing"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city='Oslo', town='x')]").unwrap_err(),
            "call 1 (`weather`): `town` is not a parameter of the tool"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city='Oslo', city='Lyon')]").unwrap_err(),
            "call 1 (`weather`): `city` is given twice"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city='Oslo', days='2')]").unwrap_err(),
            "call 1 (`weather`): `days` is declared integer, got string '2'"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city='Oslo', days=2.5)]").unwrap_err(),
            "call 1 (`weather`): `days` is declared integer, got number 2.5"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city=null)]").unwrap_err(),
            "call 1 (`weather`): `city` is declared string, got null"
        );
        assert_eq!(
            check(TaskKind::Single, "[weather(city=3)]").unwrap_err(),
            "call 1 (`weather`): `city` is declared string, got integer 3"
        );
        assert_eq!(
            check(
                TaskKind::Single,
                "[orders(token='t', limit=2, tags=['a'], strict=true, filter={'a': 1})]"
            ),
            Ok(())
        );
        assert_eq!(
            check(TaskKind::Single, "[orders(token='t', tags='a')]").unwrap_err(),
            "call 1 (`orders`): `tags` is declared array, got string 'a'"
        );
        assert_eq!(
            check(TaskKind::Single, "[orders(token='t', strict='yes')]").unwrap_err(),
            "call 1 (`orders`): `strict` is declared boolean, got string 'yes'"
        );
        assert_eq!(
            check(TaskKind::Single, "[orders(token='t', filter=[1])]").unwrap_err(),
            "call 1 (`orders`): `filter` is declared object, got array [1]"
        );
        // Unknown type names accept anything.
        assert_eq!(
            check(TaskKind::Single, "[weather(city='Oslo', units=['metric'])]"),
            Ok(())
        );
    }

    #[test]
    fn references_point_backwards() {
        assert_eq!(
            check(
                TaskKind::Nested,
                "[login(user='a', password='b'), orders(token='$1.token')]"
            ),
            Ok(())
        );
        assert_eq!(
            check(
                TaskKind::Nested,
                "[orders(token='$2.token'), login(user='a', password='b')]"
            )
            .unwrap_err(),
            "call 1 (`orders`): `token` refers to the output of call 2, which does not come before it"
        );
        assert_eq!(
            check(
                TaskKind::Nested,
                "[login(user='a', password='b'), orders(token='$2.token')]"
            )
            .unwrap_err(),
            "call 2 (`orders`): `token` refers to the output of call 2, which does not come before it"
        );
    }

    #[test]
    fn call_counts_fit_the_kind() {
        assert_eq!(
            check(TaskKind::Single, "[weather(city='a'), weather(city='b')]").unwrap_err(),
            "a single task needs exactly 1 call, got 2"
        );
        assert_eq!(
            check(TaskKind::Repeated, "[weather(city='a'), weather(city='b')]"),
            Ok(())
        );
        assert_eq!(
            check(TaskKind::Repeated, "[weather(city='a')]").unwrap_err(),
            "a repeated task needs 2 or more calls of one API, got 1 call(s) of 1 API(s)"
        );
        assert_eq!(
            check(TaskKind::Repeated, "[weather(city='a'), orders(token='t')]").unwrap_err(),
            "a repeated task needs 2 or more calls of one API, got 2 call(s) of 2 API(s)"
        );
        assert_eq!(
            check(TaskKind::Repeated, "[weather(city='a'), weather(city='a')]").unwrap_err(),
            "a repeated task's calls must differ in their arguments"
        );
        assert_eq!(
            check(TaskKind::Parallel, "[weather(city='a'), orders(token='t')]"),
            Ok(())
        );
        assert_eq!(
            check(TaskKind::Parallel, "[weather(city='a'), weather(city='b')]").unwrap_err(),
            "a parallel task needs 2 or more calls of at least 2 APIs, got 2 call(s) of 1 API(s)"
        );
        assert_eq!(
            check(
                TaskKind::Parallel,
                "[login(user='a', password='b'), orders(token='$1.token')]"
            )
            .unwrap_err(),
            "a parallel task's calls must not refer to each other"
        );
        assert_eq!(
            check(TaskKind::Nested, "[weather(city='a'), orders(token='t')]").unwrap_err(),
            "a nested task needs 2 or more calls and a reference to an earlier call, got 2 call(s) without a reference"
        );
        assert_eq!(check(TaskKind::NoTool, "[]"), Ok(()));
        assert_eq!(
            check(TaskKind::NoTool, "[weather(city='a')]").unwrap_err(),
            "a no_tool task needs no call, but the answer calls [weather(city='a')]: a candidate serves the request as asked, or a value the request leaves out was filled in"
        );
        // Even a faulty call says so, before its fault: the answer model
        // thought the request could be served.
        assert!(
            check(TaskKind::NoTool, "[weather()]")
                .unwrap_err()
                .starts_with("a no_tool task needs no call, but the answer calls [weather()]")
        );
    }

    #[test]
    fn shape_edge_cases_follow_the_shared_rule() {
        // Identical arguments, written in another order, are still identical.
        assert_eq!(
            check(
                TaskKind::Repeated,
                "[login(user='a', password='b'), login(password='b', user='a')]"
            )
            .unwrap_err(),
            "a repeated task's calls must differ in their arguments"
        );
        // A repeated task whose calls use each other's outputs is nested.
        assert_eq!(
            check(
                TaskKind::Repeated,
                "[weather(city='Oslo'), weather(city='$1.neighbour')]"
            )
            .unwrap_err(),
            "a repeated task's calls must not refer to each other"
        );
        // A tool may come twice in a parallel task beside another one.
        assert_eq!(
            check(
                TaskKind::Parallel,
                "[weather(city='a'), weather(city='b'), orders(token='t')]"
            ),
            Ok(())
        );
        // A reference that points forward is reported as such, whatever the kind.
        assert_eq!(
            check(
                TaskKind::Parallel,
                "[orders(token='$2.token'), login(user='a', password='b')]"
            )
            .unwrap_err(),
            "call 1 (`orders`): `token` refers to the output of call 2, which does not come before it"
        );
        // One call cannot use an earlier call's output.
        assert_eq!(
            check(TaskKind::Nested, "[orders(token='$1.token')]").unwrap_err(),
            "call 1 (`orders`): `token` refers to the output of call 1, which does not come before it"
        );
        assert_eq!(
            check(TaskKind::Nested, "[weather(city='a')]").unwrap_err(),
            "a nested task needs 2 or more calls and a reference to an earlier call, got 1 call(s) without a reference"
        );
        // A reference nested in a list or dict counts.
        assert_eq!(
            check(
                TaskKind::Nested,
                "[login(user='a', password='b'), orders(token='t', filter={'ids': ['$1.id']})]"
            ),
            Ok(())
        );
        // "$1." (no field) and "$5.00" are plain strings.
        assert_eq!(
            check(
                TaskKind::Nested,
                "[login(user='a', password='b'), orders(token='$1.')]"
            )
            .unwrap_err(),
            "a nested task needs 2 or more calls and a reference to an earlier call, got 2 call(s) without a reference"
        );
    }

    #[test]
    fn calls_use_the_target_apis() {
        let calls = read_answer(r#"{"Thought": "t", "Action": "[weather(city='a')]"}"#)
            .unwrap()
            .calls;
        let targets = vec!["weather".to_string()];
        assert_eq!(
            validate(TaskKind::Single, &calls, &tools(), Some(&targets)),
            Ok(())
        );
        let other = vec!["orders".to_string()];
        assert_eq!(
            validate(TaskKind::Single, &calls, &tools(), Some(&other)).unwrap_err(),
            "the calls use {weather} but the query was written for {orders}"
        );
        // No target check for no_tool tasks.
        assert_eq!(
            validate(TaskKind::NoTool, &[], &tools(), Some(&other)),
            Ok(())
        );
    }
}
