//! Properties of every reader of model output under the limits of
//! `itc::spec::limits` (issue 12), checked with proptest in the normal suite:
//! no reader panics or overflows its stack on any text, nesting beyond the
//! limit is refused (not crashed on), call lists printed within the limit
//! read back the same, and only the first `MAX_ANSWER_BYTES` of an answer
//! are read. (Tests run on threads of 2 MiB, the stack a worker of
//! `itc score` has.)

use proptest::prelude::*;

use itc::benchmarks::python::{json_loads_str, literal_eval, parse::parse};
use itc::spec::action::{
    Cause, Mode, parse_actions, parse_call_arguments, parse_value, print_actions,
};
use itc::spec::limits::{MAX_ANSWER_BYTES, MAX_NESTING};
use itc::spec::records::{Call, Extraction, Value};
use itc::spec::response::{read_output, read_prediction};

/// Text made of what the readers care about: brackets, quotes, separators,
/// escapes, keywords, white space and a little prose in two scripts.
fn hostile_text(max: usize) -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("["),
        Just("]"),
        Just("("),
        Just(")"),
        Just("{"),
        Just("}"),
        Just("'"),
        Just("\""),
        Just("\\"),
        Just(","),
        Just("="),
        Just(":"),
        Just(" "),
        Just("\n"),
        Just("f"),
        Just("Action"),
        Just("Thought"),
        Just("true"),
        Just("None"),
        Just("1.5e3"),
        Just("-"),
        Just("```json"),
        Just("天气"),
        Just("é"),
        Just("$ref"),
        Just("0.id"),
    ];
    prop::collection::vec(pieces, 0..max).prop_map(|p| p.concat())
}

/// `n` openings of the given kinds (0: list, 1: tuple, 2: Python dict,
/// 3: JSON dict), then `1`, then the matching closings when `closed`.
fn nest(kinds: &[u8], closed: bool) -> String {
    let mut text = String::new();
    for k in kinds {
        text.push_str(match k % 4 {
            0 => "[",
            1 => "(",
            2 => "{'k': ",
            _ => "{\"k\": ",
        });
    }
    text.push('1');
    if closed {
        for k in kinds.iter().rev() {
            text.push_str(match k % 4 {
                0 => "]",
                1 => ",)",
                _ => "}",
            });
        }
    }
    text
}

/// A value nested exactly `kinds.len()` levels below its own.
fn nested_value(kinds: &[u8], leaf: Value) -> Value {
    kinds.iter().rev().fold(leaf, |inner, k| match k % 3 {
        0 => Value::List(vec![inner, Value::Int(2)]),
        1 => Value::Tuple(vec![inner]),
        _ => Value::Dict(vec![
            ("k".into(), inner),
            ("s".into(), Value::Str("x'y".into())),
        ]),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_reader_panics_on_any_text(text in hostile_text(120)) {
        for mode in [Mode::Strict, Mode::Lenient] {
            let _ = parse_actions(&text, mode);
            let _ = parse_value(&text, mode);
            let _ = parse_call_arguments(&text, mode);
        }
        let read = read_output(&text, &["f", "Google Translate"]);
        prop_assert!(read.calls.is_empty() || read.extraction != Extraction::Nothing);
        let native = [Call::new("f", vec![])];
        let _ = read_prediction(Some(&text), Some(&native), &["f"]);
        let _ = json_loads_str(&text);
        let _ = literal_eval(&text);
        let _ = serde_json::from_str::<Value>(&text);
    }

    #[test]
    fn the_python_parse_tree_never_panics(text in hostile_text(60)) {
        // None only past the parse budget, which 60 characters never reach.
        let tree = parse(&text).expect("a short text parses within the budget");
        prop_assert!(tree.end <= text.len());
        let _ = tree.to_sexp();
    }

    #[test]
    fn nesting_beyond_the_limit_is_refused_in_every_reader(
        kinds in prop::collection::vec(0u8..4, MAX_NESTING + 1..3000),
        closed in any::<bool>(),
    ) {
        let value = nest(&kinds, closed);
        let action = format!("[f(a={value})]");
        for mode in [Mode::Strict, Mode::Lenient] {
            let e = parse_actions(&action, mode).unwrap_err();
            prop_assert_eq!(e.cause, Cause::TooDeep, "{:?}", mode);
        }
        // Read as an answer: unreadable, flagged, no calls.
        for answer in [
            action.clone(),
            format!("I'll call f(a={value}) now."),
            format!(r#"{{"Thought": "x", "Action": "[f()]", "z": {value}}}"#),
        ] {
            let read = read_output(&answer, &["f"]);
            prop_assert!(read.calls.is_empty());
            prop_assert_eq!(read.extraction, Extraction::Nothing);
            prop_assert!(read.limits.too_deep);
        }
        // JSON read as a value (native arguments, JSON answers).
        let json = format!("{{\"a\": {}}}", nest(&kinds.iter().map(|_| 0).collect::<Vec<_>>(), true));
        prop_assert!(serde_json::from_str::<Value>(&json).is_err());
    }

    #[test]
    fn nesting_within_the_limit_reads(
        kinds in prop::collection::vec(0u8..4, 0..MAX_NESTING + 1),
    ) {
        let action = format!("[f(a={})]", nest(&kinds, true));
        for mode in [Mode::Strict, Mode::Lenient] {
            prop_assert!(parse_actions(&action, mode).is_ok(), "{}", action);
        }
        let read = read_output(&action, &["f"]);
        prop_assert_eq!(read.calls.len(), 1);
        prop_assert!(read.limits.is_clear());
    }

    #[test]
    fn call_lists_within_the_limit_print_and_read_back(
        kinds in prop::collection::vec(0u8..3, 0..MAX_NESTING + 1),
        leaf in any::<i64>(),
        text in "\\PC{0,12}",
        calls in 1usize..4,
    ) {
        let value = nested_value(&kinds, Value::Int(leaf));
        let list: Vec<Call> = (0..calls)
            .map(|i| Call::new(format!("tool {i}"), vec![
                ("v".into(), value.clone()),
                ("t".into(), Value::Str(text.clone())),
            ]))
            .collect();
        let printed = print_actions(&list);
        prop_assert_eq!(parse_actions(&printed, Mode::Strict), Ok(list.clone()));
        prop_assert_eq!(parse_actions(&printed, Mode::Lenient), Ok(list.clone()));
        // And as JSON, the way native calls travel (JSON has no tuples).
        let no_tuples: Vec<u8> = kinds.iter().map(|k| if *k == 1 { 0 } else { *k }).collect();
        let json_list = vec![Call::new("f", vec![("v".into(), nested_value(&no_tuples, Value::Int(leaf)))])];
        let json = serde_json::to_string(&json_list).unwrap();
        prop_assert_eq!(serde_json::from_str::<Vec<Call>>(&json).unwrap(), json_list);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn only_the_first_mebibyte_of_an_answer_is_read(
        before in (MAX_ANSWER_BYTES - 40)..(MAX_ANSWER_BYTES + 8),
        wide in any::<bool>(),
    ) {
        // Padding of one-byte or two-byte characters, then an answer.
        let answer = "[f(a=1)]";
        let padding = if wide { "é".repeat(before / 2) } else { "x".repeat(before) };
        let text = format!("{padding}{answer}");
        let read = read_output(&text, &["f"]);
        let fits = text.len() <= MAX_ANSWER_BYTES;
        // Lenient reading needs no closing `]`: the call is read when
        // `[f(a=1)` is within the limit.
        let call_read = padding.len() + answer.len() - 1 <= MAX_ANSWER_BYTES;
        prop_assert_eq!(read.calls.len(), usize::from(call_read));
        let cut = read.limits.truncated_bytes as usize;
        if fits {
            prop_assert_eq!(cut, 0);
        } else {
            // Cut at a character boundary at or below the limit.
            prop_assert!(cut >= text.len() - MAX_ANSWER_BYTES);
            prop_assert!(text.is_char_boundary(text.len() - cut));
            prop_assert!(cut < text.len() - MAX_ANSWER_BYTES + 4);
        }
        prop_assert!(read.language_text.len() <= MAX_ANSWER_BYTES);
    }
}
