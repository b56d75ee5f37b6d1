//! The retail environment against the outputs of the unmodified official
//! code (`datasets/ood/tau/retail/reference/`): the initial database's
//! canonical text and hash, every recorded tool call, the tool list, and
//! hostile input.

use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;

use super::RetailEnv;
use super::tools::SIGNATURES;
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str};

const REFERENCE: &str = "datasets/ood/tau/retail/reference";
const INITIAL_HASH: &str = "b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c";

fn gunzip(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(REFERENCE)
        .join(name);
    let mut text = String::new();
    GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn text_of(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => s.to_string_lossy(),
        other => panic!("expected a string, found {other:?}"),
    }
}

#[test]
fn the_initial_database_dumps_and_hashes_as_the_official_code() {
    let mut env = RetailEnv::fresh().unwrap();
    let canonical = env.db().canonical_json();
    let official = gunzip("initial_db_canonical.json.gz");
    if canonical != official {
        let at = canonical
            .bytes()
            .zip(official.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(canonical.len().min(official.len()));
        let from = at.saturating_sub(80);
        panic!(
            "canonical dump differs at byte {at}:\n ours: {}\n official: {}",
            &canonical[from..(at + 80).min(canonical.len())],
            &official[from..(at + 80).min(official.len())]
        );
    }
    assert_eq!(env.db_hash(), INITIAL_HASH);
    assert_eq!(env.db().products.len(), 50);
    assert_eq!(env.db().users.len(), 500);
    assert_eq!(env.db().orders.len(), 1000);
}

/// One recorded call.
struct Vector {
    i: i64,
    session: i64,
    tool: String,
    arguments: PyValue,
    output: String,
    error: bool,
    hash_after: String,
}

fn vectors() -> Vec<Vector> {
    gunzip("tool_vectors.jsonl.gz")
        .lines()
        .map(|line| {
            let row = json_loads_str(line).unwrap();
            let field = |name: &str| row.get_str(name).unwrap().clone();
            let int = |name: &str| match field(name) {
                PyValue::Int(text) => text.parse().unwrap(),
                other => panic!("{name}: {other:?}"),
            };
            Vector {
                i: int("i"),
                session: int("session"),
                tool: text_of(&field("tool")),
                arguments: field("arguments"),
                output: text_of(&field("output")),
                error: matches!(field("error"), PyValue::Bool(true)),
                hash_after: text_of(&field("db_hash_after")),
            }
        })
        .collect()
}

/// Where two texts part, with some context.
fn diff(ours: &str, official: &str) -> String {
    let at = ours
        .char_indices()
        .zip(official.chars())
        .find(|((_, a), b)| a != b)
        .map(|((i, _), _)| i)
        .unwrap_or(ours.len().min(official.len()));
    let context = |s: &str| {
        let chars: String = s
            .char_indices()
            .filter(|(i, _)| i + 60 >= at && *i < at + 60)
            .map(|(_, c)| c)
            .collect();
        chars
    };
    format!(
        "at byte {at}:\n      ours: {:?}\n  official: {:?}",
        context(ours),
        context(official)
    )
}

#[test]
fn every_official_tool_vector_is_reproduced() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 2567);
    let mut mismatches = Vec::new();
    let mut env = RetailEnv::fresh().unwrap();
    let mut session = -1;
    for v in &vectors {
        if v.session != session {
            session = v.session;
            env = RetailEnv::fresh().unwrap();
        }
        let result = env.call(&v.tool, &v.arguments);
        let hash = env.db_hash();
        let mut problems = Vec::new();
        if result.content != v.output {
            problems.push(format!("output {}", diff(&result.content, &v.output)));
        }
        if result.error != v.error {
            problems.push(format!("error {} (official {})", result.error, v.error));
        }
        if hash != v.hash_after {
            problems.push(format!("db hash {hash} (official {})", v.hash_after));
        }
        if !problems.is_empty() {
            let args = PyStr(crate::benchmarks::python::py_repr(&v.arguments)).to_string_lossy();
            mismatches.push(format!(
                "i={} {}({args}): {}",
                v.i,
                v.tool,
                problems.join("; ")
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} calls differ:\n{}",
        mismatches.len(),
        vectors.len(),
        mismatches.join("\n")
    );
}

#[test]
fn the_tool_list_is_the_official_one() {
    let schemas = RetailEnv::tool_schemas().unwrap();
    let official: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(REFERENCE)
                .join("tool_schemas.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(schemas, official);
    let tools = schemas.as_array().unwrap();
    assert_eq!(tools.len(), SIGNATURES.len());
    for (tool, signature) in tools.iter().zip(&SIGNATURES) {
        let function = &tool["function"];
        assert_eq!(function["name"], signature.name);
        let properties: Vec<&str> = function["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let params: Vec<&str> = signature.params.iter().map(|p| p.name).collect();
        assert_eq!(properties, params, "{}", signature.name);
        let required: Vec<&str> = function["parameters"]["required"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(required, params, "{}", signature.name);
    }
}

#[test]
fn argument_names_and_unknown_tools_fail_as_in_python() {
    let mut env = RetailEnv::fresh().unwrap();
    let unknown = env.call_json("think", r#"{"thought": "x"}"#);
    assert!(unknown.error);
    assert_eq!(unknown.content, "Error: Tool 'think' not found.");
    // `requestor` collides before the tool is even looked up.
    let collision = env.call_json("think", r#"{"requestor": "user"}"#);
    assert!(
        collision
            .content
            .ends_with("got multiple values for keyword argument 'requestor'")
    );
    let missing = env.call_json("modify_pending_order_payment", r##"{"order_id": "#W0"}"##);
    assert_eq!(
        missing.content,
        "Error: RetailTools.modify_pending_order_payment() missing 1 required positional argument: 'payment_method_id'"
    );
}

#[test]
fn hostile_arguments_end_quickly_with_an_error_or_a_result() {
    let mut env = RetailEnv::fresh().unwrap();
    let huge = "x".repeat(1 << 20);
    let by_email = env.call_json(
        "find_user_id_by_email",
        &format!(r#"{{"email": "{huge}"}}"#),
    );
    assert_eq!(by_email.content, "Error: User not found");
    let calc = env.call_json(
        "calculate",
        &format!(r#"{{"expression": "{}"}}"#, "1".repeat(1 << 20)),
    );
    assert!(
        calc.content
            .starts_with("Error: Exceeds the limit (4300 digits)")
    );
    let deep = format!(
        r#"{{"order_id": {}1{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(env.call_json("get_order_details", &deep).error);
    let nested = format!(
        r##"{{"order_id": "#W2611340", "item_ids": [{}"x"{}], "payment_method_id": "p"}}"##,
        "[".repeat(899),
        "]".repeat(899)
    );
    let returned = env.call_json("return_delivered_order_items", &nested);
    assert!(returned.error);
    let address = env.call_json(
        "modify_user_address",
        &format!(
            r#"{{"user_id": "noah_brown_6181", "address1": 1, "address2": "", "city": "{huge}", "state": ["{huge}"], "country": "", "zip": null}}"#
        ),
    );
    assert!(
        address
            .content
            .starts_with("Error: 3 validation errors for UserAddress\naddress1\n")
    );
    assert!(address.content.len() < 2000);
}

/// An exchange over no items stores the `int` 0 that `round(0, 2)` leaves
/// (no validation on assignment), written `0`, not `0.0`.
#[test]
fn an_exchange_of_no_items_stores_the_integer_zero() {
    let mut env = RetailEnv::fresh().unwrap();
    let order = env
        .db()
        .orders
        .values()
        .find(|o| o.status == super::db::Status::Delivered)
        .unwrap()
        .clone();
    let arguments = format!(
        r#"{{"order_id": "{}", "item_ids": [], "new_item_ids": "", "payment_method_id": "{}"}}"#,
        order.order_id, order.payment_history[0].payment_method_id
    );
    let before = env.db_hash();
    let result = env.call_json("exchange_delivered_order_items", &arguments);
    assert!(!result.error, "{}", result.content);
    assert!(result.content.contains(r#""status": "exchange requested""#));
    assert!(
        result
            .content
            .contains(r#""exchange_items": [], "exchange_new_items": [], "#)
    );
    assert!(
        result
            .content
            .contains(r#""exchange_price_difference": 0, "#)
    );
    assert_ne!(env.db_hash(), before);
}
