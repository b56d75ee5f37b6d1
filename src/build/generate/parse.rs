//! Reading a generator's reply: the queries it wrote, each with the calls
//! meant to answer it.
//!
//! Generators do not always answer as asked, so the reader is forgiving
//! about the wrapping and strict about each item: the JSON may stand alone,
//! sit in a code fence or in prose, be `{"queries": [...]}`, a bare list, or
//! one object per query. Every item is read on its own, so one bad item
//! never loses the others; an item that cannot be read is reported with the
//! reason.

use serde_json::{Map, Value};

use crate::build::filter::parse::json_objects;

/// One call a generator says answers its query.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftCall {
    /// The API's name.
    pub api: String,
    /// Argument name → value; `"$N.field"` strings refer to earlier calls.
    pub arguments: Map<String, Value>,
}

/// One query as the generator wrote it, before validation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DraftQuery {
    /// The user request.
    pub query: String,
    /// The calls meant to answer it, in order.
    pub calls: Vec<DraftCall>,
    /// The item as it appeared in the reply (compact JSON).
    pub raw: String,
    /// `no_tool` items that no candidate serves: why (`"reason"`).
    pub reason: Option<String>,
    /// `no_tool` items that leave out a value: the required parameter
    /// left out (`"missing"`).
    pub missing: Option<String>,
    /// `no_tool` items that leave out a value: the call the request would
    /// need, had the user given it (`"full_call"`).
    pub full_call: Option<DraftCall>,
}

/// What a reply held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadReply {
    /// Items read, each a query or the reason it could not be read.
    pub items: Vec<Result<DraftQuery, (String, String)>>,
    /// Places that look like a query (a `"query"` key) but were not
    /// readable JSON at all.
    pub unreadable: usize,
}

/// Reads every query item of a reply.
pub fn read_reply(text: &str) -> ReadReply {
    let mut items = Vec::new();
    for object in json_objects(text) {
        match object.get("queries") {
            Some(Value::Array(list)) => {
                for item in list {
                    items.push(read_item(item));
                }
            }
            Some(other) => items.push(Err((
                other.to_string(),
                "`queries` is not a list".to_string(),
            ))),
            None if object.contains_key("query") => items.push(read_item(&Value::Object(object))),
            None => {}
        }
    }
    // Items that did not parse leave their `"query"` key unaccounted for.
    let keys = text.matches("\"query\"").count();
    let unreadable = keys.saturating_sub(items.len());
    ReadReply { items, unreadable }
}

/// Reads one item: `{"query": "...", "calls": [{"api": "...", "arguments": {...}}]}`.
fn read_item(item: &Value) -> Result<DraftQuery, (String, String)> {
    let raw = item.to_string();
    let fail = |why: String| Err((raw.clone(), why));
    let Value::Object(map) = item else {
        return fail("an item is not a JSON object".into());
    };
    let query = match map.get("query") {
        Some(Value::String(q)) if !q.trim().is_empty() => q.trim().to_string(),
        Some(Value::String(_)) => return fail("field `query` is empty".into()),
        Some(_) => return fail("field `query` is not a string".into()),
        None => return fail("field `query` is missing".into()),
    };
    let calls = match map.get("calls") {
        Some(Value::Array(calls)) => calls,
        Some(_) => return fail("field `calls` is not a list".into()),
        None => return fail("field `calls` is missing".into()),
    };
    let mut read = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        match read_call(call, &format!("call {}", i + 1)) {
            Ok(call) => read.push(call),
            Err(why) => return fail(why),
        }
    }
    let text = |name: &str| match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(_) => Err(format!("field `{name}` is not a string")),
    };
    let (reason, missing) = match (text("reason"), text("missing")) {
        (Ok(reason), Ok(missing)) => (reason, missing),
        (Err(why), _) | (_, Err(why)) => return fail(why),
    };
    let full_call = match map.get("full_call") {
        None | Some(Value::Null) => None,
        Some(call) => match read_call(call, "`full_call`") {
            Ok(call) => Some(call),
            Err(why) => return fail(why),
        },
    };
    Ok(DraftQuery {
        query,
        calls: read,
        raw,
        reason,
        missing,
        full_call,
    })
}

/// Reads one call, `{"api": "...", "arguments": {...}}`; `what` names it
/// in errors.
fn read_call(call: &Value, what: &str) -> Result<DraftCall, String> {
    let Value::Object(call) = call else {
        return Err(format!("{what} is not a JSON object"));
    };
    let api = match call.get("api").or_else(|| call.get("name")) {
        Some(Value::String(api)) if !api.trim().is_empty() => api.trim().to_string(),
        _ => return Err(format!("{what}: field `api` is missing or not a string")),
    };
    let arguments = match call.get("arguments").or_else(|| call.get("parameters")) {
        Some(Value::Object(args)) => args.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(format!("{what}: field `arguments` is not an object")),
    };
    Ok(DraftCall { api, arguments })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn queries(reply: &ReadReply) -> Vec<&str> {
        reply
            .items
            .iter()
            .filter_map(|i| i.as_ref().ok())
            .map(|d| d.query.as_str())
            .collect()
    }

    #[test]
    fn reads_the_asked_shape() {
        let reply = read_reply(
            r#"{"queries": [{"query": "Wetter in Graz?", "calls": [{"api": "wetter", "arguments": {"ort": "Graz"}}]}]}"#,
        );
        assert_eq!(reply.unreadable, 0);
        let d = reply.items[0].as_ref().unwrap();
        assert_eq!(d.query, "Wetter in Graz?");
        assert_eq!(d.calls[0].api, "wetter");
        assert_eq!(d.calls[0].arguments["ort"], "Graz");
    }

    #[test]
    fn reads_fences_prose_lists_and_loose_objects() {
        let fenced = "Here you go:\n```json\n{\"queries\": [{\"query\": \"a\", \"calls\": []}, {\"query\": \"b\", \"calls\": []}]}\n```\nHope this helps.";
        assert_eq!(queries(&read_reply(fenced)), ["a", "b"]);
        let list = r#"[{"query": "a", "calls": []}, {"query": "b", "calls": []}]"#;
        assert_eq!(queries(&read_reply(list)), ["a", "b"]);
        let loose = "1. {\"query\": \"a\", \"calls\": []}\n2. {\"query\": \"b\", \"calls\": []}";
        assert_eq!(queries(&read_reply(loose)), ["a", "b"]);
    }

    #[test]
    fn one_bad_item_does_not_sink_the_others() {
        let text = r#"{"query": "good", "calls": [{"api": "x", "arguments": {}}]}
{"query": "broken", "calls": [{"api": "x",, }]}
{"query": 7, "calls": []}
{"query": "no calls"}"#;
        let reply = read_reply(text);
        assert_eq!(queries(&reply), ["good"]);
        let errors: Vec<&str> = reply
            .items
            .iter()
            .filter_map(|i| i.as_ref().err())
            .map(|(_, why)| why.as_str())
            .collect();
        assert_eq!(
            errors,
            ["field `query` is not a string", "field `calls` is missing"]
        );
        assert_eq!(reply.unreadable, 1, "the broken JSON item is counted");
    }

    #[test]
    fn calls_must_name_an_api_and_give_an_object() {
        let reply = read_reply(r#"{"query": "q", "calls": [{"arguments": {}}]}"#);
        assert_eq!(
            reply.items[0].as_ref().unwrap_err().1,
            "call 1: field `api` is missing or not a string"
        );
        let reply = read_reply(r#"{"query": "q", "calls": [{"api": "a", "arguments": [1]}]}"#);
        assert_eq!(
            reply.items[0].as_ref().unwrap_err().1,
            "call 1: field `arguments` is not an object"
        );
    }

    #[test]
    fn no_tool_items_keep_their_reason_missing_parameter_and_full_call() {
        let reply = read_reply(
            r#"{"queries": [
                {"query": "a", "calls": [], "reason": " no API covers Paris "},
                {"query": "b", "calls": [], "missing": "city", "full_call": {"api": "w", "arguments": {"city": "Lyon"}}},
                {"query": "c", "calls": [], "reason": 3},
                {"query": "d", "calls": [], "full_call": {"arguments": {}}}
            ]}"#,
        );
        let a = reply.items[0].as_ref().unwrap();
        assert_eq!(a.reason.as_deref(), Some("no API covers Paris"));
        assert_eq!((a.missing.as_ref(), a.full_call.as_ref()), (None, None));
        let b = reply.items[1].as_ref().unwrap();
        assert_eq!(b.missing.as_deref(), Some("city"));
        let full = b.full_call.as_ref().unwrap();
        assert_eq!(
            (full.api.as_str(), &full.arguments["city"]),
            ("w", &json!("Lyon"))
        );
        assert_eq!(
            reply.items[2].as_ref().unwrap_err().1,
            "field `reason` is not a string"
        );
        assert_eq!(
            reply.items[3].as_ref().unwrap_err().1,
            "`full_call`: field `api` is missing or not a string"
        );
    }

    #[test]
    fn prose_without_json_reads_as_nothing() {
        let reply = read_reply("I cannot help with that.");
        assert!(reply.items.is_empty());
        assert_eq!(reply.unreadable, 0);
    }
}
