//! Answers in a benchmark's own format, both ways:
//!
//! - **to SPEC calls**, so `itc score` can score them against the converted
//!   gold: a Gorilla answer's `<<<api_call>>>` line ([`gorilla_calls`]) and
//!   a Seal-Tools JSON call list ([`seal_tools_calls`]);
//! - **to the official scorers' input**, so an answer in any style can be
//!   scored by Gorilla's or Seal-Tools' own scorer: SPEC calls written as a
//!   Gorilla response ([`gorilla_text`]) or as a Seal-Tools call list
//!   ([`seal_tools_text`]).
//!
//! Nothing is executed; answers are only parsed.

use std::collections::HashMap;

use super::apibench::Hub;
use super::apibench::{self, ApiDatabase, DbEntry};
use super::bfcl::{self, convert::to_spec_value};
use super::python::{PyValue, cps};
use super::seal_tools;
use crate::models::config::PromptStyle;
use crate::spec::action::{Mode, parse_call_arguments, print_value};
use crate::spec::records::{Call, Reference, Task, Tool, Value};
use crate::spec::response::read_prediction;

/// The call of an APIBench candidate tool, as its converted description
/// ends: `… Call: <api_call>` (see [`apibench::convert`]).
pub fn tool_api_call(tool: &Tool) -> Option<&str> {
    let d = tool.description.as_str();
    let at = d.rfind("Call: ")?;
    Some(d[at + "Call: ".len()..].trim()).filter(|c| !c.is_empty())
}

/// The first `name(…)` in a text: the dotted name before the first `(`
/// and the arguments (empty when they do not parse).
fn first_call(text: &str) -> Option<Call> {
    let open = text.find('(')?;
    let before = &text[..open];
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '.'))
        .last()
        .map_or(open, |(i, _)| i);
    let name = before[start..].trim_matches('.');
    if name.is_empty() {
        return None;
    }
    let arguments = parse_call_arguments(&text[open..], Mode::Lenient)
        .map(|(args, _)| args)
        .unwrap_or_default();
    Some(Call::new(name, arguments))
}

/// The SPEC call of a Gorilla-format answer on an APIBench task. The call
/// text is taken as the official script takes it (after `api_call`, up to
/// the last `)` before `api_provider`); it names the candidate tool that
/// the official matching rule picks among the task's candidates (the first
/// whose call's name and arguments occur in it), else it is named by the
/// whole call text (an API outside the candidates); its arguments are read
/// with the lenient action parser, as the gold call's were. An answer
/// without `api_call` has no call.
pub fn gorilla_calls(text: &str, task: &Task, hub: Hub) -> Vec<Call> {
    if !text.contains("api_call") {
        return Vec::new();
    }
    let Some(call_text) = apibench::extract_api_call(text, hub) else {
        return Vec::new();
    };
    let Some(mut call) = first_call(&call_text) else {
        return Vec::new();
    };
    let entries: Vec<(usize, &str)> = task
        .tools
        .iter()
        .enumerate()
        .filter_map(|(i, t)| tool_api_call(t).map(|c| (i, c)))
        .collect();
    let db = ApiDatabase {
        hub,
        entries: entries
            .iter()
            .map(|(_, c)| DbEntry::new(c.to_string(), serde_json::Value::Null, hub))
            .collect(),
    };
    call.name = match apibench::ast_check(&db, &call_text) {
        Some(k) => task.tools[entries[k].0].name.clone(),
        // Hub APIs share function names (`torch.hub.load`), some of which
        // are also tool names: an API that is none of the candidates is
        // named by its whole call, which no candidate is called.
        None => call_text.trim().to_string(),
    };
    vec![call]
}

/// A JSON value as a SPEC value (`{"$ref": …}` objects become references).
fn spec_value(v: &serde_json::Value) -> Value {
    serde_json::from_value(v.clone()).unwrap_or(Value::Null)
}

/// The first JSON list in a text whose first element is an object with `api`.
fn first_api_list(text: &str) -> Option<Vec<serde_json::Value>> {
    for (start, _) in text.match_indices('[') {
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Array(items))) = stream.next()
            && items.first().is_some_and(|i| i.get("api").is_some())
        {
            return Some(items);
        }
    }
    None
}

/// The SPEC calls of a Seal-Tools call list. The list is found as the
/// official parser finds it (quotes normalised), else as the first JSON list
/// of `{"api": …}` objects. A parameter value naming a placeholder that an
/// earlier call lists in its `responses` becomes a reference to that call.
pub fn seal_tools_calls(text: &str) -> Vec<Call> {
    let items = match seal_tools::official_parse(&cps(text)).map(|v| v.to_json()) {
        Some(serde_json::Value::Array(items)) => items,
        _ => first_api_list(text).unwrap_or_default(),
    };
    let mut placeholders: HashMap<String, usize> = HashMap::new();
    let mut calls = Vec::new();
    for item in &items {
        let Some(name) = item.get("api").and_then(serde_json::Value::as_str) else {
            continue;
        };
        let index = calls.len();
        let arguments = match item.get("parameters") {
            Some(serde_json::Value::Object(p)) => p
                .iter()
                .map(|(k, v)| {
                    let value = match v.as_str().and_then(|s| placeholders.get(s.trim())) {
                        Some(&call) => Value::Ref(Reference {
                            call,
                            field: String::new(),
                        }),
                        None => spec_value(v),
                    };
                    (k.clone(), value)
                })
                .collect(),
            _ => Vec::new(),
        };
        if let Some(serde_json::Value::Array(rs)) = item.get("responses") {
            for r in rs.iter().filter_map(serde_json::Value::as_str) {
                placeholders.entry(r.trim().to_string()).or_insert(index);
            }
        }
        calls.push(Call::new(name, arguments));
    }
    calls
}

/// The calls of one answer, read in the style it was asked in: Gorilla and
/// Seal-Tools answers by the functions above, ITC answers (and native
/// calls) as `itc score` reads them.
pub fn calls_of(
    style: PromptStyle,
    output: Option<&str>,
    native: Option<&[Call]>,
    task: &Task,
    hub: Option<Hub>,
) -> Vec<Call> {
    match (style, output, native) {
        (PromptStyle::Gorilla, Some(text), None) => {
            gorilla_calls(text, task, hub.unwrap_or(Hub::Huggingface))
        }
        (PromptStyle::SealTools, Some(text), None) => seal_tools_calls(text),
        (PromptStyle::Bfcl | PromptStyle::BfclItc, Some(text), None) => bfcl_calls(text),
        _ => {
            let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
            read_prediction(output, native, &candidates).calls
        }
    }
}

/// The calls of a BFCL-style answer, as BFCL's own decoder reads them
/// (keyword arguments only, bare names as strings, literal arithmetic
/// done); no call when it does not decode.
pub fn bfcl_calls(text: &str) -> Vec<Call> {
    bfcl::decode::decode_ast_prompting(text)
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let arguments = c
                        .args
                        .iter()
                        .map(|(k, v)| {
                            let key = match k {
                                PyValue::Str(s) => s.to_string_lossy(),
                                _ => "**".to_string(),
                            };
                            (key, to_spec_value(v))
                        })
                        .collect();
                    Call::new(c.name.clone(), arguments)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// SPEC calls written as a BFCL answer for the official checker:
/// `[f(a='x', b=2), g()]`, values in Python syntax; no call: `[]`.
pub fn bfcl_text(calls: &[Call]) -> String {
    let mut text = String::from("[");
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(&call.name);
        text.push('(');
        for (j, (k, v)) in call.arguments.iter().enumerate() {
            if j > 0 {
                text.push_str(", ");
            }
            text.push_str(k);
            text.push('=');
            py_value(v, &mut text);
        }
        text.push(')');
    }
    text.push(']');
    text
}

/// A value in Python syntax (`True`, `None`, single-quoted strings).
fn py_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::List(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_value(x, out);
            }
            out.push(']');
        }
        Value::Dict(entries) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_value(&Value::Str(k.clone()), out);
                out.push_str(": ");
                py_value(x, out);
            }
            out.push('}');
        }
        other => print_value(other, out),
    }
}

/// SPEC calls written as a Gorilla response for the official APIBench
/// scorer: the first call, under the function name of its tool's own call
/// (`torch.hub.load`, `pipeline`, …; a name that is not a candidate is kept
/// as written), with its arguments in Python syntax (positional ones
/// without keys), after the chosen tool's domain. No call: an empty response.
pub fn gorilla_text(calls: &[Call], task: &Task) -> String {
    let Some(call) = calls.first() else {
        return String::new();
    };
    let tool = task.tools.iter().find(|t| t.name == call.name);
    let function = tool
        .and_then(tool_api_call)
        .and_then(|c| c.split_once('(').map(|(f, _)| f.trim().to_string()))
        .unwrap_or_else(|| call.name.clone());
    let mut code = format!("{function}(");
    for (i, (k, v)) in call.arguments.iter().enumerate() {
        if i > 0 {
            code.push_str(", ");
        }
        if !k.starts_with('#') {
            code.push_str(k);
            code.push('=');
        }
        py_value(v, &mut code);
    }
    code.push(')');
    // The domain is the chosen tool's (the scorer reads only the call).
    let domain = tool.map_or("", |t| t.category.as_str());
    format!("<<<domain>>>: {domain}, <<<api_call>>>: {code}, <<<api_provider>>>: ")
}

/// SPEC calls written as a Seal-Tools call list for the official scorer:
/// `[{"api", "parameters", "responses": ["API_call_<i>"]}]`, a reference to
/// call *j* written as `API_call_<j>` (right when each call has one output).
pub fn seal_tools_text(calls: &[Call]) -> String {
    fn json(v: &Value) -> serde_json::Value {
        match v {
            Value::Ref(r) => serde_json::Value::String(format!("API_call_{}", r.call)),
            Value::List(items) | Value::Tuple(items) => items.iter().map(json).collect(),
            Value::Dict(entries) => entries
                .iter()
                .map(|(k, x)| (k.clone(), json(x)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
            other => serde_json::to_value(other).unwrap_or(serde_json::Value::Null),
        }
    }
    let list: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let parameters: serde_json::Map<String, serde_json::Value> = c
                .arguments
                .iter()
                .map(|(k, v)| (k.clone(), json(v)))
                .collect();
            serde_json::json!({"api": c.name, "parameters": parameters, "responses": [format!("API_call_{i}")]})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn th_task() -> Task {
        let tool = |name: &str, call: &str, domain: &str| serde_json::json!({"name": name, "description": format!("Some model. Call: {call}"), "category": domain});
        serde_json::from_value(serde_json::json!({
            "id": "apibench-torchhub-1", "kind": "single", "language": "en", "category": "Video Classification",
            "query": "Classify sports videos.",
            "tools": [
                tool("vgg-nets", "torch.hub.load(repo_or_dir='pytorch/vision', model='vgg13', pretrained=True)", "Classification"),
                tool("slow_r50", "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slow_r50', pretrained=True)", "Video Classification"),
            ],
            "gold": {"calls": [{"name": "slow_r50", "arguments": {"repo_or_dir": "facebookresearch/pytorchvideo", "model": "slow_r50", "pretrained": true}}]}
        }))
        .unwrap()
    }

    #[test]
    fn gorilla_answers_name_the_candidate_the_official_rule_picks() {
        let task = th_task();
        let answer = "<<<domain>>>: Video Classification, <<<api_call>>>: model = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50', pretrained=True), <<<api_provider>>>: PyTorch, <<<explanation>>>: 3D ResNet.";
        let calls = gorilla_calls(answer, &task, Hub::Torchhub);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "slow_r50");
        assert_eq!(
            calls[0].arguments,
            vec![
                (
                    "#0".into(),
                    Value::Str("facebookresearch/pytorchvideo".into())
                ),
                ("#1".into(), Value::Str("slow_r50".into())),
                ("pretrained".into(), Value::Bool(true)),
            ]
        );
        // An API that is not among the candidates is named by its whole call.
        let other = gorilla_calls(
            "<<<api_call>>>: torch.hub.load(repo_or_dir='x/y', model='z'), <<<api_provider>>>: PyTorch",
            &task,
            Hub::Torchhub,
        );
        assert_eq!(
            other[0].name,
            "torch.hub.load(repo_or_dir='x/y', model='z')"
        );
        assert_eq!(other[0].arguments.len(), 2);
        assert!(gorilla_calls("I cannot help.", &task, Hub::Torchhub).is_empty());
    }

    #[test]
    fn gorilla_text_reads_back_to_the_same_call() {
        let task = th_task();
        let text = gorilla_text(&task.gold.calls, &task);
        assert_eq!(
            text,
            "<<<domain>>>: Video Classification, <<<api_call>>>: torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slow_r50', pretrained=True), <<<api_provider>>>: "
        );
        assert_eq!(gorilla_calls(&text, &task, Hub::Torchhub), task.gold.calls);
        assert_eq!(gorilla_text(&[], &task), "");
    }

    #[test]
    fn seal_tools_lists_with_placeholders_become_references() {
        let text = "Here you go:\n[{'api': 'getPatient', 'parameters': {'id': 'A1'}, 'responses': ['API_call_0', 'API_call_1']}, {\"api\": \"bill\", \"parameters\": {\"who\": \"API_call_1\", \"n\": 2}, \"responses\": [\"API_call_2\"]}]";
        let calls = seal_tools_calls(text);
        assert_eq!(calls.len(), 2);
        assert_eq!(
            calls[0],
            Call::new("getPatient", vec![("id".into(), Value::Str("A1".into()))])
        );
        assert_eq!(
            calls[1].arguments,
            vec![
                (
                    "who".into(),
                    Value::Ref(Reference {
                        call: 0,
                        field: String::new()
                    })
                ),
                ("n".into(), Value::Int(2)),
            ]
        );
        // Without `responses` the official parser gives up; the JSON list still reads.
        let plain = seal_tools_calls(r#"[{"api": "f", "parameters": {}}]"#);
        assert_eq!(plain, vec![Call::new("f", vec![])]);
        assert!(seal_tools_calls("no calls").is_empty());
    }

    #[test]
    fn seal_tools_text_is_read_by_the_official_parser() {
        let calls = vec![
            Call::new("a", vec![("x".into(), Value::Int(1))]),
            Call::new(
                "b",
                vec![(
                    "y".into(),
                    Value::Ref(Reference {
                        call: 0,
                        field: "out".into(),
                    }),
                )],
            ),
        ];
        let text = seal_tools_text(&calls);
        assert!(seal_tools::official_parse(&cps(&text)).is_some(), "{text}");
        assert!(text.contains(r#""y":"API_call_0""#), "{text}");
        let back = seal_tools_calls(&text);
        assert_eq!(back[0], calls[0]);
        assert_eq!(
            back[1].arguments[0].1,
            Value::Ref(Reference {
                call: 0,
                field: String::new()
            })
        );
    }
}
