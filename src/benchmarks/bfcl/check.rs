//! The official AST checker: simple, multiple and order-free parallel.
//!
//! Which checker runs is decided by the category's NAME, as the official
//! `ast_checker` does: a name containing `parallel` gets the order-free
//! parallel checker, else one containing `multiple` the multiple checker,
//! else the simple checker ([`CheckerKind::for_category_name`]).
//!
//! Each call is checked as `simple_function_checker` does: name; required
//! parameters in the doc's `required` order; each model parameter in the
//! model's order (unexpected, type, value); omitted possible-answer
//! parameters must allow `""`. The first failure wins. The value rules are
//! in [`super::check_values`].

use serde_json::Value;

use super::Call;
use super::check_values::{
    allows_empty, check_dict, check_list, check_list_of_dicts, check_string, is_empty_str,
    list_str, repr,
};
use crate::benchmarks::python::value::{KeyIndex, py_eq};
use crate::benchmarks::python::{PyStr, PyValue, py_str};

pub use super::verdict::{ErrorType, Fail, Verdict};

/// Which AST checker a category gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckerKind {
    /// `simple_function_checker` on the first doc.
    Simple,
    /// `multiple_function_checker`.
    Multiple,
    /// `parallel_function_checker_no_order`.
    ParallelNoOrder,
}

impl CheckerKind {
    /// The official dispatch, by substring of the category name.
    pub fn for_category_name(name: &str) -> CheckerKind {
        if name.contains("parallel") {
            CheckerKind::ParallelNoOrder
        } else if name.contains("multiple") {
            CheckerKind::Multiple
        } else {
            CheckerKind::Simple
        }
    }
}

/// How the checker writes a function's name before looking for it among
/// the calls (`convert_func_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpectedNames {
    /// As the doc writes it (prompt-mode models).
    #[default]
    AsWritten,
    /// Every `.` written `_` (bfcl-eval's `underscore_to_dot` models: the
    /// function-calling models of OpenAI, Anthropic and Google, whose APIs
    /// refuse a `.` in a tool name).
    Underscored,
}

impl ExpectedNames {
    /// `name` as the checker expects it.
    pub fn expected(self, name: &str) -> std::borrow::Cow<'_, str> {
        match self {
            ExpectedNames::Underscored if name.contains('.') => name.replace('.', "_").into(),
            _ => name.into(),
        }
    }
}

/// Runs the checker of `kind` on decoded calls. `functions` are the
/// question's docs, `ground_truth` the possible answer's list of
/// `{function_name: {param: [allowed]}}`. The entry must pass
/// [`validate_entry`].
pub fn check(
    kind: CheckerKind,
    functions: &[Value],
    calls: &[Call],
    ground_truth: &[PyValue],
    names: ExpectedNames,
) -> Result<(), Fail> {
    match kind {
        CheckerKind::Simple => {
            if calls.len() != 1 {
                return Err(Fail::one(
                    ErrorType::WrongCount,
                    "Wrong number of functions.".into(),
                ));
            }
            let doc = functions.first().unwrap_or(&Value::Null);
            let (_, expected) = gt_entry(ground_truth.first());
            check_call(doc, &calls[0], expected, names)
        }
        CheckerKind::Multiple => {
            if calls.len() != ground_truth.len() {
                return Err(Fail::one(
                    ErrorType::MultipleWrongCount,
                    "Wrong number of functions.".into(),
                ));
            }
            let (name, expected) = gt_entry(ground_truth.first());
            let doc = find_doc(functions, name).unwrap_or(&Value::Null);
            match calls.first() {
                Some(call) => check_call(doc, call, expected, names),
                None => Ok(()),
            }
        }
        CheckerKind::ParallelNoOrder => check_parallel(functions, calls, ground_truth, names),
    }
}

/// The order-free parallel checker: each possible-answer entry in order
/// consumes the first not-yet-matched call that passes (greedy).
fn check_parallel(
    functions: &[Value],
    calls: &[Call],
    ground_truth: &[PyValue],
    names: ExpectedNames,
) -> Result<(), Fail> {
    if calls.len() != ground_truth.len() {
        return Err(Fail::one(
            ErrorType::ParallelWrongCount,
            "Wrong number of functions.".into(),
        ));
    }
    let mut matched = vec![false; calls.len()];
    for (i, entry) in ground_truth.iter().enumerate() {
        let (name, expected) = gt_entry(Some(entry));
        let doc = find_doc(functions, name).unwrap_or(&Value::Null);
        let mut tried = Vec::new();
        let mut entry_json = None;
        let mut found = false;
        for (index, call) in calls.iter().enumerate() {
            if matched[index] {
                continue;
            }
            match check_call(doc, call, expected, names) {
                Ok(()) => {
                    matched[index] = true;
                    found = true;
                    break;
                }
                Err(f) => tried.push(serde_json::json!({
                    format!("Model Result Index {index}"): {
                        "sub_error": f.errors,
                        "sub_error_type": f.kind.as_str(),
                        "model_output_item": call_json(call),
                        "possible_answer_item": entry_json.get_or_insert_with(|| dumps_json(entry)).clone(),
                    }
                })),
            }
        }
        if !found {
            let considered: Vec<String> = (0..calls.len())
                .filter(|&k| !matched[k])
                .map(|k| k.to_string())
                .collect();
            let mut errors = vec![Value::String(format!(
                "Could not find a matching function among index [{}] of model output for index {i} of possible answers.",
                considered.join(", ")
            ))];
            errors.extend(tried);
            return Err(Fail {
                kind: ErrorType::CannotFindMatch,
                errors,
            });
        }
    }
    Ok(())
}

/// A decoded call as the official decoder's `{name: {param: value}}`,
/// as the score file holds it (`model_output_item`): bfcl's
/// `make_json_serializable` (dicts and lists item by item, any other value
/// kept where `json.dumps` takes it, else its `str()`: `"b'ab'"`,
/// `"(-0-2j)"`, `"(1, b'a')"`), then [`dumps_json`].
pub fn call_json(call: &Call) -> Value {
    let mut out = serde_json::Map::new();
    out.insert(call.name.clone(), dict_json(&call.args, serializable_json));
    Value::Object(out)
}

/// bfcl's `make_json_serializable(v)` as `json.dumps` writes it.
fn serializable_json(v: &PyValue) -> Value {
    match v {
        PyValue::Dict(entries) => dict_json(entries, serializable_json),
        PyValue::List(items) => Value::Array(items.iter().map(serializable_json).collect()),
        other if dumps_takes(other) => dumps_json(other),
        other => Value::String(PyStr(py_str(other)).to_string_lossy()),
    }
}

/// Whether `json.dumps` takes `v` (no bytes, complex or set inside, dict
/// keys `str`, `int`, `float`, `bool` or `None`).
fn dumps_takes(v: &PyValue) -> bool {
    match v {
        PyValue::Bytes(_) | PyValue::Complex(_) | PyValue::Set(_) => false,
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().all(dumps_takes),
        PyValue::Dict(entries) => entries.iter().all(|(k, v)| {
            matches!(
                k,
                PyValue::Str(_)
                    | PyValue::Int(_)
                    | PyValue::Float(_)
                    | PyValue::Bool(_)
                    | PyValue::None
            ) && dumps_takes(v)
        }),
        _ => true,
    }
}

/// A value as Python's `json.dumps` writes it (and the score file holds
/// it): tuples as lists, dict keys as `json.dumps` writes them (`None`,
/// `True`, `False` as `null`, `true`, `false`, floats as `1.5`, `NaN`,
/// `Infinity`). What JSON numbers cannot hold here is written as
/// [`PyValue::to_json`] writes it: ints beyond 64 bits as strings of their
/// digits, NaN and ±inf as `{"__float__": "nan"}` (the score file has the
/// bare number, `NaN`, `Infinity`).
pub fn dumps_json(v: &PyValue) -> Value {
    match v {
        PyValue::List(items) | PyValue::Tuple(items) => {
            Value::Array(items.iter().map(dumps_json).collect())
        }
        PyValue::Dict(entries) => dict_json(entries, dumps_json),
        other => other.to_json(),
    }
}

/// A dict with its keys as `json.dumps` writes them (other keys, which
/// `json.dumps` refuses, as their `repr()`) and its values through `value`.
fn dict_json(entries: &[(PyValue, PyValue)], value: fn(&PyValue) -> Value) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in entries {
        let key = match k {
            PyValue::Str(s) => s.to_string_lossy(),
            PyValue::None => "null".into(),
            PyValue::Bool(true) => "true".into(),
            PyValue::Bool(false) => "false".into(),
            PyValue::Float(x) if x.is_nan() => "NaN".into(),
            PyValue::Float(x) if x.is_infinite() => {
                if *x > 0.0 { "Infinity" } else { "-Infinity" }.into()
            }
            other => repr(other),
        };
        map.insert(key, value(v));
    }
    Value::Object(map)
}

/// A possible-answer entry's function name and parameter map.
fn gt_entry(entry: Option<&PyValue>) -> (&PyValue, &[(PyValue, PyValue)]) {
    match entry {
        Some(PyValue::Dict(entries)) => match entries.first() {
            Some((name, PyValue::Dict(params))) => (name, params),
            Some((name, _)) => (name, &[]),
            None => (&PyValue::None, &[]),
        },
        _ => (&PyValue::None, &[]),
    }
}

/// The official `find_description`: the first doc with this name.
fn find_doc<'a>(functions: &'a [Value], name: &PyValue) -> Option<&'a Value> {
    let PyValue::Str(name) = name else {
        return None;
    };
    let name = name.to_string_lossy();
    functions
        .iter()
        .find(|d| d.get("name").and_then(Value::as_str) == Some(name.as_str()))
}

/// The Python type a doc type maps to (`PYTHON_TYPE_MAPPING`), by its
/// `type(x).__name__`.
fn mapped_type(doc_type: &str) -> Option<&'static str> {
    Some(match doc_type {
        "string" | "any" => "str",
        "integer" => "int",
        "float" => "float",
        "boolean" => "bool",
        "array" | "tuple" => "list",
        "dict" => "dict",
        _ => return None,
    })
}

/// The allowed values of a parameter, as a slice (a list's items).
fn allowed_of(v: &PyValue) -> &[PyValue] {
    match v {
        PyValue::List(items) => items,
        _ => &[],
    }
}

/// `simple_function_checker` for one call against one doc and one
/// possible-answer parameter map.
pub fn check_call(
    doc: &Value,
    call: &Call,
    expected: &[(PyValue, PyValue)],
    names: ExpectedNames,
) -> Result<(), Fail> {
    let written = doc.get("name").and_then(Value::as_str).unwrap_or_default();
    let name = names.expected(written);
    if call.name != name {
        return Err(Fail::one(
            ErrorType::WrongFuncName,
            format!(
                "Function name {} not found in model output.",
                repr(&PyValue::Str(PyStr::new(&name)))
            ),
        ));
    }
    let params = doc.get("parameters");
    let properties = params.and_then(|p| p.get("properties"));
    let required = params
        .and_then(|p| p.get("required"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let arg_keys = KeyIndex::over(call.args.iter().map(|(k, _)| k));
    let has = |key: &PyValue| arg_keys.find(key, |i| &call.args[i].0).is_some();
    for r in required {
        let key = PyValue::Str(PyStr::new(r.as_str().unwrap_or_default()));
        if !has(&key) {
            return Err(Fail::one(
                ErrorType::MissingRequired,
                format!("Missing required parameter: {}.", repr(&key)),
            ));
        }
    }
    let lookup = |key: &PyValue| expected.iter().find(|(k, _)| py_eq(k, key)).map(|(_, v)| v);
    for (param, value) in &call.args {
        let detail = match param {
            PyValue::Str(s) => properties.and_then(|p| p.get(s.to_string_lossy())),
            _ => None,
        };
        let (Some(detail), Some(allowed)) = (detail, lookup(param)) else {
            return Err(Fail::one(
                ErrorType::UnexpectedParam,
                format!("Unexpected parameter: {}.", repr(param)),
            ));
        };
        check_param(param, value, detail, allowed_of(allowed))?;
    }
    for (param, allowed) in expected {
        if !has(param) && !allows_empty(allowed_of(allowed)) {
            return Err(Fail::one(
                ErrorType::MissingOptional,
                format!(
                    "Optional parameter {} not provided and not marked as optional.",
                    repr(param)
                ),
            ));
        }
    }
    Ok(())
}

/// The type and value check of one parameter the model wrote.
fn check_param(
    param: &PyValue,
    value: &PyValue,
    detail: &Value,
    allowed: &[PyValue],
) -> Result<(), Fail> {
    let desc = detail.get("type").and_then(Value::as_str).unwrap_or("");
    let expected = mapped_type(desc).unwrap_or("<unknown>");
    let nested = if desc == "array" || desc == "tuple" {
        let item = detail
            .get("items")
            .and_then(|i| i.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Some(mapped_type(item).unwrap_or("<unknown>"))
    } else {
        None
    };
    let converted;
    let value = match value {
        PyValue::Tuple(items) if desc == "tuple" => {
            converted = PyValue::List(items.clone());
            &converted
        }
        PyValue::Int(text) if desc == "float" => {
            converted = PyValue::Float(text.parse::<f64>().unwrap_or(f64::INFINITY));
            &converted
        }
        other => other,
    };
    let is_variable = check_type(param, value, allowed, desc, expected, nested)?;
    if !is_variable {
        match (expected, nested, value) {
            ("dict", _, _) => return check_dict(value, allowed),
            ("list", Some("dict"), PyValue::List(items)) => {
                return check_list_of_dicts(items, allowed);
            }
            ("str", _, PyValue::Str(s)) => return check_string(param, s, allowed),
            ("list", _, PyValue::List(items)) => return check_list(param, items, allowed),
            _ => {}
        }
    }
    if allowed.iter().any(|a| py_eq(a, value)) {
        return Ok(());
    }
    Err(Fail::one(
        ErrorType::ValueOthers,
        format!(
            "Invalid value for parameter {}: {}. Expected one of {}.",
            repr(param),
            repr(value),
            list_str(allowed)
        ),
    ))
}

/// The type name of the first allowed value that is not `""`.
fn possible_answer_type(allowed: &[PyValue]) -> Option<&'static str> {
    allowed
        .iter()
        .find(|a| !is_empty_str(a))
        .map(PyValue::type_name)
}

/// The official `type_checker`: `Ok(is_variable)` when the type passes.
/// `expected` and `nested` are Python type names; `desc` is how the
/// messages name the expected type.
fn check_type(
    param: &PyValue,
    value: &PyValue,
    allowed: &[PyValue],
    desc: &str,
    expected: &str,
    nested: Option<&str>,
) -> Result<bool, Fail> {
    let answer_type = possible_answer_type(allowed);
    let is_variable = answer_type.is_some_and(|t| t != expected);
    let value_type = value.type_name();
    let mut nested_message = None;
    if value_type == expected {
        let Some(inner) = nested else {
            return Ok(is_variable);
        };
        let items = match value {
            PyValue::List(items) | PyValue::Tuple(items) => items.as_slice(),
            _ => &[],
        };
        let inner_desc = format!("<class '{inner}'>");
        for alt in allowed {
            let passes = match alt {
                PyValue::List(alt_items) => items.iter().all(|item| {
                    check_type(param, item, alt_items, &inner_desc, inner, None).is_ok()
                }),
                _ => true,
            };
            if passes {
                return Ok(is_variable);
            }
        }
        nested_message = Some(format!(
            "Nested type checking failed for parameter {}. Expected outer type {desc} with inner type {inner_desc}. Parameter value: {}.",
            repr(param),
            repr(value)
        ));
    }
    if answer_type == Some(value_type) {
        return match nested_message {
            Some(message) => Err(Fail::one(ErrorType::TypeNested, message)),
            None => Ok(true),
        };
    }
    let mut errors: Vec<Value> = nested_message.into_iter().map(Value::String).collect();
    errors.push(Value::String(format!(
        "Incorrect type for parameter {}. Expected type {desc}, got {value_type}. Parameter value: {}.",
        repr(param),
        repr(value)
    )));
    Err(Fail {
        kind: ErrorType::TypeSimple,
        errors,
    })
}

/// Checks that a question and its possible answer have the shapes the
/// official checker indexes without raising: every doc has a name and
/// `parameters` with `properties` and `required`; every property type maps
/// to a Python type (and an array's or tuple's `items.type` too); the
/// ground truth is a non-empty list of one-key dicts whose value is a map
/// of parameter → list of allowed values; for the multiple and parallel
/// checkers, every function it names has a doc (the simple checker uses
/// the first doc whatever the name). The official runner stops with an exception on data that fails
/// these; itc refuses it up front.
pub fn validate_entry(
    kind: CheckerKind,
    functions: &[Value],
    ground_truth: &PyValue,
) -> Result<(), String> {
    if functions.is_empty() {
        return Err("no function docs".into());
    }
    for doc in functions {
        let name = doc.get("name").and_then(Value::as_str);
        let name = name.ok_or("a function doc has no string `name`")?;
        let params = doc.get("parameters");
        let props = params
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object)
            .ok_or_else(|| format!("doc {name:?} has no `parameters.properties` object"))?;
        let required = params.and_then(|p| p.get("required"));
        if !required
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().all(Value::is_string))
        {
            return Err(format!(
                "doc {name:?} has no `parameters.required` list of strings"
            ));
        }
        for (param, detail) in props {
            let ty = detail.get("type").and_then(Value::as_str).unwrap_or("");
            if mapped_type(ty).is_none() {
                return Err(format!(
                    "doc {name:?}: parameter {param:?} has type {ty:?}, which the official checker does not map"
                ));
            }
            if ty == "array" || ty == "tuple" {
                let item = detail.get("items").and_then(|i| i.get("type"));
                if item.and_then(Value::as_str).and_then(mapped_type).is_none() {
                    return Err(format!(
                        "doc {name:?}: parameter {param:?} has no known `items.type`"
                    ));
                }
            }
        }
    }
    let PyValue::List(entries) = ground_truth else {
        return Err("ground_truth is not a list".into());
    };
    if entries.is_empty() {
        return Err("ground_truth is empty".into());
    }
    for entry in entries {
        let ok = matches!(entry, PyValue::Dict(e) if e.len() == 1
            && matches!(&e[0].1, PyValue::Dict(ps) if ps.iter().all(|(k, v)| matches!(k, PyValue::Str(_)) && matches!(v, PyValue::List(_)))));
        if !ok {
            return Err("a ground_truth entry is not {function: {param: [allowed values]}}".into());
        }
        let (name, _) = gt_entry(Some(entry));
        if kind != CheckerKind::Simple && find_doc(functions, name).is_none() {
            return Err(format!(
                "ground_truth names {}, which has no doc",
                repr(name)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::{json_loads_str, literal_eval};
    use serde_json::json;

    /// A doc `name` with the given properties and required list.
    fn doc(name: &str, properties: Value, required: &[&str]) -> Value {
        json!({"name": name, "description": "", "parameters": {
            "type": "dict", "properties": properties, "required": required}})
    }

    /// The weather doc most tests use.
    fn weather() -> Value {
        doc(
            "get_weather",
            json!({
                "city": {"type": "string"},
                "unit": {"type": "string"},
                "days": {"type": "integer"},
                "threshold": {"type": "float"},
                "alerts": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "coords": {"type": "array", "items": {"type": "float"}},
                "point": {"type": "tuple", "items": {"type": "float"}},
                "note": {"type": "string"},
                "flag": {"type": "string"},
                "options": {"type": "dict"},
                "stops": {"type": "array", "items": {"type": "dict"}},
            }),
            &["city"],
        )
    }

    /// A ground truth from JSON (Python `json.loads` semantics).
    fn gt(text: &str) -> Vec<PyValue> {
        match json_loads_str(text).unwrap() {
            PyValue::List(items) => items,
            other => panic!("{other:?}"),
        }
    }

    /// A call from a Python dict literal of its keyword arguments.
    fn call(name: &str, args: &str) -> Call {
        match literal_eval(args).unwrap() {
            PyValue::Dict(args) => Call {
                name: name.into(),
                args,
            },
            other => panic!("{other:?}"),
        }
    }

    /// The error type of checking one weather call (`None` when valid).
    fn weather_check(expected: &str, args: &str) -> Option<ErrorType> {
        let truth = gt(&format!("[{{\"get_weather\": {expected}}}]"));
        let calls = [call("get_weather", args)];
        check(
            CheckerKind::Simple,
            &[weather()],
            &calls,
            &truth,
            ExpectedNames::AsWritten,
        )
        .err()
        .map(|f| f.kind)
    }

    #[test]
    fn dispatch_is_by_substring_of_the_name() {
        assert_eq!(
            CheckerKind::for_category_name("live_parallel_multiple"),
            CheckerKind::ParallelNoOrder
        );
        assert_eq!(
            CheckerKind::for_category_name("live_multiple"),
            CheckerKind::Multiple
        );
        assert_eq!(
            CheckerKind::for_category_name("simple_python"),
            CheckerKind::Simple
        );
    }

    #[test]
    fn error_types_serialise_as_the_official_text() {
        for e in ErrorType::ALL {
            let text = serde_json::to_string(&e).unwrap();
            assert_eq!(text, format!("\"{}\"", e.as_str()));
            assert_eq!(serde_json::from_str::<ErrorType>(&text).unwrap(), e);
        }
        assert!(serde_json::from_str::<ErrorType>("\"nope\"").is_err());
    }

    #[test]
    fn simple_counts_calls_and_uses_the_first_doc() {
        let truth = gt(r#"[{"other_name": {"city": ["NYC"]}}]"#);
        let one = [call("get_weather", "{'city': 'nyc'}")];
        // The possible answer's function name is ignored.
        assert!(
            check(
                CheckerKind::Simple,
                &[weather()],
                &one,
                &truth,
                ExpectedNames::AsWritten
            )
            .is_ok()
        );
        let two = [one[0].clone(), one[0].clone()];
        let err = check(
            CheckerKind::Simple,
            &[weather()],
            &two,
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::WrongCount);
        let err = check(
            CheckerKind::Simple,
            &[weather()],
            &[],
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::WrongCount);
        let wrong = [call("get.weather", "{'city': 'nyc'}")];
        let err = check(
            CheckerKind::Simple,
            &[weather()],
            &wrong,
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::WrongFuncName);
    }

    #[test]
    fn multiple_takes_the_doc_of_the_possible_answer() {
        let other = doc("book", json!({"seats": {"type": "integer"}}), &["seats"]);
        let docs = [weather(), other];
        let truth = gt(r#"[{"book": {"seats": [2]}}]"#);
        let ok = [call("book", "{'seats': 2}")];
        assert!(
            check(
                CheckerKind::Multiple,
                &docs,
                &ok,
                &truth,
                ExpectedNames::AsWritten
            )
            .is_ok()
        );
        let err = check(
            CheckerKind::Multiple,
            &docs,
            &[],
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::MultipleWrongCount);
        let wrong = [call("get_weather", "{'city': 'x'}")];
        let err = check(
            CheckerKind::Multiple,
            &docs,
            &wrong,
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::WrongFuncName);
    }

    #[test]
    fn parameters_required_unexpected_and_optional() {
        use ErrorType as E;
        // Required, even when its allowed list has "".
        assert_eq!(
            weather_check(r#"{"city": ["NYC", ""]}"#, "{}"),
            Some(E::MissingRequired)
        );
        // A doc parameter the possible answer does not list.
        assert_eq!(
            weather_check(r#"{"city": ["NYC"]}"#, "{'city': 'NYC', 'note': 'x'}"),
            Some(E::UnexpectedParam)
        );
        // `**d` decodes to a parameter named None.
        assert_eq!(
            weather_check(r#"{"city": ["NYC"]}"#, "{'city': 'NYC', None: 1}"),
            Some(E::UnexpectedParam)
        );
        // An omitted possible-answer parameter needs "".
        assert_eq!(
            weather_check(r#"{"city": ["NYC"], "days": [3]}"#, "{'city': 'NYC'}"),
            Some(E::MissingOptional)
        );
        assert_eq!(
            weather_check(r#"{"city": ["NYC"], "days": [3, ""]}"#, "{'city': 'NYC'}"),
            None
        );
    }

    #[test]
    fn types_are_exact_with_two_top_level_conversions() {
        use ErrorType as E;
        let g = r#"{"city": ["NYC"], "days": [3, ""], "threshold": [2.0, ""], "alerts": [true, ""],
            "coords": [[1.0, 2.0]], "point": [[1.5, 2.5], ""], "unit": ["celsius", ""]}"#;
        let base = "'city': 'NYC', 'coords': [1.0, 2.0]";
        let with = |extra: &str| weather_check(g, &format!("{{{base}, {extra}}}"));
        assert_eq!(with("'days': 3"), None);
        assert_eq!(with("'days': 3.0"), Some(E::TypeSimple));
        assert_eq!(with("'days': True"), Some(E::TypeSimple));
        assert_eq!(with("'alerts': 1"), Some(E::TypeSimple));
        assert_eq!(with("'threshold': 2"), None);
        assert_eq!(with("'point': (1.5, 2.5)"), None);
        assert_eq!(with("'point': [1.5, 2.5]"), None);
        assert_eq!(with("'unit': None"), Some(E::TypeSimple));
        // A tuple for an array is a type error.
        let tuple = "{'city': 'NYC', 'coords': (1.0, 2.0)}";
        assert_eq!(weather_check(g, tuple), Some(E::TypeSimple));
        // No int→float for items…
        let ints = "{'city': 'NYC', 'coords': [1, 2]}";
        assert_eq!(weather_check(g, ints), Some(E::TypeNested));
        // …unless "" is also allowed: that alternative passes the item check.
        let g2 = r#"{"city": ["NYC"], "coords": [[1.0, 2.0], ""]}"#;
        assert_eq!(weather_check(g2, ints), None);
        // With no typed alternative, a failed item check is type_error:simple.
        let g3 = r#"{"city": ["NYC"], "tags": []}"#;
        let err = check(
            CheckerKind::Simple,
            &[weather()],
            &[call("get_weather", "{'city': 'NYC', 'tags': [1]}")],
            &gt(&format!("[{{\"get_weather\": {g3}}}]")),
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, E::TypeSimple);
        assert_eq!(err.errors.len(), 2);
    }

    #[test]
    fn variable_mode_compares_plainly() {
        use ErrorType as E;
        let g = r#"{"city": ["NYC"], "flag": [true], "threshold": [0, ""], "unit": ["", null]}"#;
        let with =
            |extra: &str| weather_check(g, &format!("{{'city': 'NYC', 'flag': True, {extra}}}"));
        assert_eq!(weather_check(g, "{'city': 'NYC', 'flag': True}"), None);
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'flag': 'True'}"),
            Some(E::ValueOthers)
        );
        assert_eq!(with("'threshold': 0"), None);
        assert_eq!(with("'threshold': 0.0"), None);
        assert_eq!(with("'unit': None"), None);
    }

    #[test]
    fn strings_are_normalised() {
        use ErrorType as E;
        let g = r#"{"city": ["New York, NY", "Straße"], "unit": ["celsius", ""]}"#;
        assert_eq!(weather_check(g, "{'city': 'new-york_ny.'}"), None);
        assert_eq!(
            weather_check(g, "{'city': 'New York; NY'}"),
            Some(E::ValueString)
        );
        assert_eq!(
            weather_check(g, "{'city': 'STRASSE'}"),
            Some(E::ValueString)
        );
        assert_eq!(weather_check(g, "{'city': 'STRAßE'}"), None);
        // Anything that normalises to "" is accepted where "" is allowed.
        assert_eq!(
            weather_check(g, "{'city': 'NYC, NY', 'unit': ' - '}"),
            Some(E::ValueString)
        );
        assert_eq!(
            weather_check(g, "{'city': 'new york ny', 'unit': ' - '}"),
            None
        );
        assert_eq!(
            weather_check(g, "{'city': 'new york ny', 'unit': '\\t'}"),
            Some(E::ValueString)
        );
    }

    #[test]
    fn lists_compare_in_order_and_empty_is_optional() {
        use ErrorType as E;
        let g = r#"{"city": ["NYC"], "tags": [["rain", "Wind"], ""]}"#;
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'tags': ['RAIN', 'wind']}"),
            None
        );
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'tags': ['wind', 'rain']}"),
            Some(E::ValueListTuple)
        );
        assert_eq!(weather_check(g, "{'city': 'NYC', 'tags': []}"), None);
        // A string alternative after a list one acts as the list of its
        // characters (a string first would put the parameter in variable mode).
        let g2 = r#"{"city": ["NYC"], "tags": [["x"], "ab"]}"#;
        assert_eq!(
            weather_check(g2, "{'city': 'NYC', 'tags': ['a', 'B']}"),
            None
        );
    }

    #[test]
    fn dicts_report_the_last_alternative() {
        use ErrorType as E;
        let g = r#"{"city": ["NYC"], "options": [{"lang": ["en", ""], "detail": ["full"]}]}"#;
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'options': {'detail': 'FULL'}}"),
            None
        );
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'options': {'detail': 'full', 'x': 1}}"),
            Some(E::ValueDictKey)
        );
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'options': {'detail': 'brief'}}"),
            Some(E::ValueDictValue)
        );
        // A wrong value and a missing key: both messages, the last type.
        let g2 = r#"{"city": ["NYC"], "options": [{"lang": ["en"], "detail": ["full"]}]}"#;
        let truth = gt(&format!("[{{\"get_weather\": {g2}}}]"));
        let calls = [call(
            "get_weather",
            "{'city': 'NYC', 'options': {'lang': 'de'}}",
        )];
        let err = check(
            CheckerKind::Simple,
            &[weather()],
            &calls,
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, E::ValueDictKey);
        assert_eq!(err.errors.len(), 2);
        // The last alternative's error is the one reported.
        let g3 = r#"{"city": ["NYC"], "options": [{"a": [1]}, {"b": [2]}]}"#;
        assert_eq!(
            weather_check(g3, "{'city': 'NYC', 'options': {'b': 3}}"),
            Some(E::ValueDictValue)
        );
        assert_eq!(
            weather_check(g3, "{'city': 'NYC', 'options': {'a': 3}}"),
            Some(E::ValueDictKey)
        );
        // No type check inside dicts.
        assert_eq!(
            weather_check(g3, "{'city': 'NYC', 'options': {'a': True}}"),
            None
        );
        // Only "" allowed: unclear.
        let g4 = r#"{"city": ["NYC"], "options": [""]}"#;
        assert_eq!(
            weather_check(g4, "{'city': 'NYC', 'options': {'a': 1}}"),
            Some(E::DictUnclear)
        );
    }

    #[test]
    fn lists_of_dicts_match_position_by_position() {
        use ErrorType as E;
        let g = r#"{"city": ["NYC"], "stops": [[{"n": ["A"]}, {"n": ["B"]}], ""]}"#;
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'stops': [{'n': 'a'}, {'n': 'b'}]}"),
            None
        );
        // Wrong order: the "" alternative comes last, so its count error.
        assert_eq!(
            weather_check(g, "{'city': 'NYC', 'stops': [{'n': 'B'}, {'n': 'A'}]}"),
            Some(E::ValueListDictCount)
        );
        assert_eq!(weather_check(g, "{'city': 'NYC', 'stops': []}"), None);
        let strict = r#"{"city": ["NYC"], "stops": [[{"n": ["A"]}, {"n": ["B"]}]]}"#;
        assert_eq!(
            weather_check(strict, "{'city': 'NYC', 'stops': [{'n': 'B'}, {'n': 'A'}]}"),
            Some(E::ValueDictValue)
        );
    }

    #[test]
    fn parallel_matching_is_greedy() {
        let f = doc("f", json!({"x": {"type": "string"}}), &["x"]);
        let truth = gt(r#"[{"f": {"x": ["a", "b"]}}, {"f": {"x": ["a"]}}]"#);
        let run = |xs: [&str; 2]| {
            let calls = xs.map(|x| call("f", &format!("{{'x': '{x}'}}")));
            check(
                CheckerKind::ParallelNoOrder,
                std::slice::from_ref(&f),
                &calls,
                &truth,
                ExpectedNames::AsWritten,
            )
        };
        let err = run(["a", "b"]).unwrap_err();
        assert_eq!(err.kind, ErrorType::CannotFindMatch);
        assert_eq!(
            err.errors[0],
            json!(
                "Could not find a matching function among index [1] of model output for index 1 of possible answers."
            )
        );
        assert!(run(["b", "a"]).is_ok());
        let calls = [call("f", "{'x': 'a'}")];
        let err = check(
            CheckerKind::ParallelNoOrder,
            &[f],
            &calls,
            &truth,
            ExpectedNames::AsWritten,
        )
        .unwrap_err();
        assert_eq!(err.kind, ErrorType::ParallelWrongCount);
    }

    /// The `error` of bfcl-eval 2026.3.23's parallel checker on these
    /// answers as its score file writes it (`make_json_serializable`, then
    /// `json.dumps`), read back with Python's `json.loads` and written as
    /// itc writes Python values ([`PyValue::to_json`]: ints beyond 64 bits
    /// and non-finite floats are the only values written differently).
    #[test]
    fn parallel_messages_hold_the_score_files_model_output_items() {
        let f = doc(
            "f",
            json!({"a": {"type": "string", "description": "x"}}),
            &["a"],
        );
        let truth = gt(r#"[{"f": {"a": ["x"]}}, {"f": {"a": ["y"]}}]"#);
        let item = |index: usize, sub_error: &str, kind: &str, model_output_item: &str| {
            format!(
                r#"{{"Model Result Index {index}": {{"sub_error": ["Incorrect type for parameter 'a'. Expected type string, got {kind}. Parameter value: {sub_error}."], "sub_error_type": "type_error:simple", "model_output_item": {{"f": {{"a": {model_output_item}}}}}, "possible_answer_item": {{"f": {{"a": ["x"]}}}}}}}}"#
            )
        };
        let cases = [
            (
                "[f(a=b'ab'), f(a=-2j)]",
                [
                    item(0, "b'ab'", "bytes", r#""b'ab'""#),
                    item(1, "(-0-2j)", "complex", r#""(-0-2j)""#),
                ],
            ),
            (
                "[f(a=2**70), f(a=2**63)]",
                [
                    item(0, "1180591620717411303424", "int", "1180591620717411303424"),
                    item(1, "9223372036854775808", "int", "9223372036854775808"),
                ],
            ),
            (
                "[f(a=1e309), f(a=1e309-1e309)]",
                [
                    item(0, "inf", "float", "Infinity"),
                    item(1, "nan", "float", "NaN"),
                ],
            ),
            (
                "[f(a=(1, b'a')), f(a=[b'a', (2, 3), {1.5: 2, 1e309: 3, None: 1, True: 2}])]",
                [
                    item(0, "(1, b'a')", "tuple", r#""(1, b'a')""#),
                    item(
                        1,
                        "[b'a', (2, 3), {1.5: 2, inf: 3, None: 1, True: 2}]",
                        "list",
                        r#"["b'a'", [2, 3], {"1.5": 2, "Infinity": 3, "null": 1, "true": 2}]"#,
                    ),
                ],
            ),
            (
                "[f(a=2j), f(a=(2**70, 1e309))]",
                [
                    item(0, "2j", "complex", r#""2j""#),
                    item(
                        1,
                        "(1180591620717411303424, inf)",
                        "tuple",
                        "[1180591620717411303424, Infinity]",
                    ),
                ],
            ),
        ];
        for (answer, items) in cases {
            let calls = crate::benchmarks::bfcl::decode::decode_ast_prompting(answer).unwrap();
            let err = check(
                CheckerKind::ParallelNoOrder,
                std::slice::from_ref(&f),
                &calls,
                &truth,
                ExpectedNames::AsWritten,
            )
            .unwrap_err();
            let official = format!(
                r#"["Could not find a matching function among index [0, 1] of model output for index 0 of possible answers.", {}, {}]"#,
                items[0], items[1]
            );
            let want = json_loads_str(&official).unwrap().to_json();
            assert_eq!(Value::Array(err.errors), want, "{answer}");
        }
    }

    #[test]
    fn validation_refuses_what_the_official_code_raises_on() {
        let truth = json_loads_str(r#"[{"get_weather": {"city": ["NYC"]}}]"#).unwrap();
        assert!(validate_entry(CheckerKind::Simple, &[weather()], &truth).is_ok());
        let odd = doc("g", json!({"x": {"type": "number"}}), &[]);
        assert!(validate_entry(CheckerKind::Simple, &[odd], &truth).is_err());
        let other = doc("g", json!({}), &[]);
        assert!(validate_entry(CheckerKind::Simple, std::slice::from_ref(&other), &truth).is_ok());
        assert!(validate_entry(CheckerKind::Multiple, &[other], &truth).is_err());
    }
}
