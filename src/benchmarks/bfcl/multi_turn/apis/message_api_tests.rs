// Every expected text below is what the official class prints under
// CPython 3.11.7 for the same calls.

use super::super::py_ops::testing::run;
use super::*;
use crate::benchmarks::python::dumps::json_dumps;

fn lit(text: &str) -> PyValue {
    literal_eval(text).unwrap()
}

#[test]
fn a_session_gives_the_reference_ids_results_and_errors() {
    let mut api = MessageApi::new(&lit("{}"));
    let steps: &[(&str, &[&str], &str)] = &[
        (
            "send_message",
            &["'USR002'", "'x'"],
            r#"{"error": "No user is currently logged in."}"#,
        ),
        (
            "message_login",
            &["'USR001'"],
            r#"{"login_status": true, "message": "User 'USR001' logged in successfully."}"#,
        ),
        (
            "send_message",
            &["'USR002'", "'hello there'"],
            r#"{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to 'USR002' successfully."}"#,
        ),
        (
            "send_message",
            &["'USR003'", "['list msg']"],
            r#"{"sent_status": true, "message_id": {"new_id": 41772}, "message": "Message sent to 'USR003' successfully."}"#,
        ),
        (
            "send_message",
            &["'USR003'", "{'a': 1}"],
            r#"{"sent_status": true, "message_id": {"new_id": 24547}, "message": "Message sent to 'USR003' successfully."}"#,
        ),
        (
            "search_messages",
            &["'HELLO'"],
            "Error during execution: 'list' object has no attribute 'lower'",
        ),
        (
            "search_messages",
            &["5"],
            "Error during execution: 'int' object has no attribute 'lower'",
        ),
        (
            "search_messages",
            &["b'x'"],
            "Error during execution: 'in <string>' requires string as left operand, not bytes",
        ),
        (
            "view_messages_sent",
            &[],
            r#"{"messages": {"USR002": ["My name is Alice. I want to connect.", "hello there"], "USR003": ["Could you upload the file?", ["list msg"], {"a": 1}], "USR004": ["Could you upload the file?"]}}"#,
        ),
        (
            "get_message_stats",
            &[],
            r#"{"stats": {"received_count": 6, "total_contacts": 3}}"#,
        ),
        (
            "delete_message",
            &["'USR003'"],
            r#"{"deleted_status": true, "receiver_id": "USR003", "message": "Receiver USR003's latest message deleted successfully."}"#,
        ),
        (
            "add_contact",
            &["'Eve'"],
            r#"{"added_status": true, "user_id": "USR005", "message": "Contact 'Eve' added successfully."}"#,
        ),
        (
            "add_contact",
            &["'Eve'"],
            r#"{"error": "User name 'Eve' already exists."}"#,
        ),
        (
            "add_contact",
            &["5"],
            r#"{"added_status": true, "user_id": "USR006", "message": "Contact '5' added successfully."}"#,
        ),
        (
            "add_contact",
            &["[1]"],
            "Error during execution: unhashable type: 'list'",
        ),
        (
            "add_contact",
            &["(1, 2)"],
            r#"{"added_status": true, "user_id": "USR007", "message": "Contact '(1, 2)' added successfully."}"#,
        ),
        (
            "get_user_id",
            &["[1]"],
            "Error during execution: unhashable type: 'list'",
        ),
        ("get_user_id", &["5.0"], r#"{"user_id": "USR006"}"#),
        (
            "list_users",
            &[],
            r#"{"user_list": ["Alice", "Bob", "Catherine", "Daniel", "Eve", 5, [1, 2]]}"#,
        ),
    ];
    for (method, args, want) in steps {
        assert_eq!(run(&mut api, method, args), *want, "{method}{args:?}");
    }
    let state =
        crate::benchmarks::bfcl::multi_turn::state::canonical_exact(&State::dict(api.state()));
    assert!(
        state.starts_with(
            r#"{"current_user":"USR001","generated_ids":{"__set__":[24547,41772,67410]},"#
        ),
        "{state}"
    );
    assert!(state.contains(r#""message_count":6,"#), "{state}");
    assert!(state.contains(r#""user_count":7,"#), "{state}");
    // A `(1, 2)` key makes the map a dict with a non-`str` key.
    assert!(
        state.contains(r#""user_map":{"__dict_items__":"#),
        "{state}"
    );
}

#[test]
fn malformed_inbox_entries_raise_pythons_texts() {
    let mut api = MessageApi::new(&lit(
        "{'current_user': 'USR001', 'inbox': [{'USR002': 'a'}, {}]}",
    ));
    for method in ["get_message_stats", "view_messages_sent"] {
        assert_eq!(
            run(&mut api, method, &[]),
            "Error during execution: list index out of range"
        );
    }
    assert_eq!(
        run(&mut api, "delete_message", &["'zz'"]),
        "Error during execution: list index out of range"
    );
    let mut api = MessageApi::new(&lit("{'current_user': 'USR001', 'inbox': ['str']}"));
    assert_eq!(
        run(&mut api, "get_message_stats", &[]),
        "Error during execution: 'str' object has no attribute 'items'"
    );
}

#[test]
fn new_user_ids_are_zero_filled_after_the_sign() {
    let mut api = MessageApi::new(&lit("{'user_count': 99, 'user_map': {'A': 'USR100'}}"));
    assert_eq!(
        run(&mut api, "add_contact", &["'B'"]),
        r#"{"error": "User ID 'USR100' already exists."}"#
    );
    // The count went up all the same.
    assert!(matches!(&api.user_count, PyValue::Int(t) if t == "100"));
    let mut api = MessageApi::new(&lit("{'user_count': -5}"));
    assert!(run(&mut api, "add_contact", &["'B'"]).contains(r#""user_id": "USR-04""#));
    let mut api = MessageApi::new(&lit("{'user_count': 1.5}"));
    assert!(run(&mut api, "add_contact", &["'B'"]).contains(r#""user_id": "USR2.5""#));
}

#[test]
fn delete_removes_the_first_equal_message() {
    let config = "{'current_user': 'USR001', 'inbox': [{'USR002': 'same'}, {'USR003': 'x'}, {'USR002': 'same'}]}";
    let mut api = MessageApi::new(&lit(config));
    run(&mut api, "delete_message", &["'USR002'"]);
    assert_eq!(api.inbox, lit("[{'USR003': 'x'}, {'USR002': 'same'}]"));
}

#[test]
fn message_ids_run_out_instead_of_looping_forever() {
    let all: Vec<String> = (ID_LOW..=ID_HIGH).map(|i| i.to_string()).collect();
    let config = format!(
        "{{'current_user': 'USR001', 'generated_ids': [{}]}}",
        all.join(", ")
    );
    let mut api = MessageApi::new(&lit(&config));
    assert_eq!(
        run(&mut api, "send_message", &["'USR002'", "'hi'"]),
        format!("Error during execution: {IDS_EXHAUSTED}")
    );
}

#[test]
fn searching_huge_messages_stays_linear() {
    let mut api = MessageApi::new(&lit("{'current_user': 'USR001', 'inbox': []}"));
    let body = PyValue::Str(crate::benchmarks::python::PyStr(vec![
        u32::from('a');
        300_000
    ]));
    api.call("send_message", vec![lit("'USR002'"), body])
        .unwrap();
    let mut needle = vec![u32::from('a'); 150_000];
    needle.push(u32::from('b'));
    let out = api
        .call(
            "search_messages",
            vec![PyValue::Str(crate::benchmarks::python::PyStr(needle))],
        )
        .unwrap();
    let Output::Value(v) = out else {
        panic!("a value")
    };
    assert_eq!(json_dumps(&v).unwrap(), r#"{"results": []}"#);
}
