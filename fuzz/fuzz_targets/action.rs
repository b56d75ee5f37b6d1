//! The action-string parser (SPEC §1) in both modes, and its printer.
//!
//! Invariants: a parse error points into the input (offset, line, column,
//! excerpt); a call list that parses prints back (`print_actions`) to text
//! that parses to the same calls in the same mode (checked for calls
//! without bare words, see below); whatever the strict mode reads, the
//! lenient mode reads the same; the prefix parser agrees with the whole
//! parser; one value prints and reads back the same.
#![no_main]

use itc::spec::action::{
    Mode, parse_actions, parse_actions_prefix, parse_value, print_actions, print_value,
};
use itc::spec::records::{Call, Value};
use itc_fuzz::{check_parse_error, text};
use libfuzzer_sys::fuzz_target;

fn is_word(v: &Value) -> bool {
    match v {
        Value::Word(_) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(is_word),
        Value::Dict(entries) => entries.iter().any(|(_, v)| is_word(v)),
        _ => false,
    }
}

fn has_word(call: &Call) -> bool {
    call.arguments.iter().any(|(_, v)| is_word(v))
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let input = input.as_ref();
    let strict = parse_actions(input, Mode::Strict);
    let lenient = parse_actions(input, Mode::Lenient);
    for (mode, result) in [(Mode::Strict, &strict), (Mode::Lenient, &lenient)] {
        match result {
            // Bare words (lenient) are printed bare, so one holding a quote,
            // `=` or `:` reads back differently; `print_actions` is only
            // applied to strict or JSON calls, which hold none.
            Ok(calls) if calls.iter().any(has_word) => {}
            Ok(calls) => {
                let printed = print_actions(calls);
                match parse_actions(&printed, mode) {
                    Ok(again) => assert_eq!(&again, calls, "{mode:?} round trip of {printed}"),
                    Err(e) => panic!("{mode:?}: printed calls do not parse: {e}\n{printed}"),
                }
            }
            Err(e) => check_parse_error(input, e),
        }
        match parse_actions_prefix(input, mode) {
            Ok((calls, rest)) => {
                assert!(input.ends_with(rest), "rest is not a suffix");
                if mode == Mode::Lenient {
                    assert_eq!(lenient.as_ref().ok(), Some(&calls), "prefix vs whole");
                } else if rest.trim().is_empty() {
                    assert_eq!(strict.as_ref().ok(), Some(&calls), "prefix vs whole");
                }
            }
            Err(e) => {
                check_parse_error(input, &e);
                assert!(result.is_err(), "{mode:?}: whole parses, prefix does not");
            }
        }
        if let Ok((value, rest)) = parse_value(input, mode)
            && !is_word(&value)
        {
            assert!(input.ends_with(rest), "rest is not a suffix");
            let mut printed = String::new();
            print_value(&value, &mut printed);
            match parse_value(&printed, mode) {
                Ok((again, rest)) => {
                    assert_eq!(again, value, "{mode:?} value round trip of {printed}");
                    assert!(rest.trim().is_empty(), "printed value leaves {rest:?}");
                }
                Err(e) => panic!("{mode:?}: printed value does not parse: {e}\n{printed}"),
            }
        }
    }
    if let Ok(calls) = &strict {
        assert_eq!(
            lenient.as_ref().ok(),
            Some(calls),
            "strict and lenient disagree"
        );
    }
});
