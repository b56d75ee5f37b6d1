//! Reading a model's answer (SPEC §2): the strict format check (FM) and the
//! lenient extraction (`spec::response`).
//!
//! Input: `candidate tool names, one a line \x01 answer`, or just `answer`
//! (candidates then a fixed list).
//!
//! Invariants: FM holds exactly when the extraction is `Strict`, with the
//! strict reader's calls and Thought; a strict answer rebuilt from its
//! Thought and printed calls is strict with the same calls; prose before a
//! strict answer makes the lenient reader take the same calls from it;
//! `Nothing` means no calls and `BareCalls` some; reading a prediction
//! without native calls is reading its text; with native calls, those are
//! the calls and FM is the text's.
#![no_main]

use std::borrow::Cow;

use itc::spec::action::{Mode, parse_actions, print_actions};
use itc::spec::records::{Call, Extraction};
use itc::spec::response::{read_output, read_prediction, strict_format};
use itc_fuzz::{split_head, text};
use libfuzzer_sys::fuzz_target;

const DEFAULT_CANDIDATES: [&str; 4] = ["get_weather", "Google Translate", "search", "天气查询"];

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let (head, output) = split_head(&input);
    let candidates: Vec<&str> = match head {
        Some(h) => h.lines().collect(),
        None => DEFAULT_CANDIDATES.to_vec(),
    };
    let read = read_output(output, &candidates);
    let strict = strict_format(output);
    assert_eq!(read.format_match, strict.is_some(), "FM vs strict_format");
    assert_eq!(read.format_match, read.extraction == Extraction::Strict);
    match read.extraction {
        Extraction::Nothing => assert!(read.calls.is_empty(), "Nothing with calls"),
        Extraction::BareCalls => assert!(!read.calls.is_empty(), "BareCalls without calls"),
        Extraction::Strict | Extraction::JsonObject | Extraction::CallList => {}
        other => panic!("read_output gave {other:?}"),
    }
    if let Some((thought, calls)) = &strict {
        assert_eq!(&read.calls, calls);
        assert_eq!(&read.language_text, thought);
        let action = print_actions(calls);
        assert_eq!(
            parse_actions(&action, Mode::Lenient).as_ref(),
            Ok(calls),
            "lenient reading of the strict calls"
        );
        let rebuilt = serde_json::json!({"Thought": thought, "Action": action}).to_string();
        let again = strict_format(&rebuilt).expect("rebuilt strict answer is strict");
        assert_eq!(&again.1, calls, "rebuilt strict answer");
        // The same answer after prose is no longer strict; the lenient
        // reader must still find its calls.
        let prose = format!("Here you go. {output}");
        let lenient = read_output(&prose, &candidates);
        assert!(!lenient.format_match);
        assert_eq!(&lenient.calls, calls, "lenient reading of a strict answer");
    }

    let again = read_prediction(Some(output), None, &candidates);
    assert_eq!(again, read, "read_prediction without native calls");
    let native = vec![Call::new("f", Vec::new())];
    let with_native = read_prediction(Some(output), Some(&native), &candidates);
    assert_eq!(with_native.extraction, Extraction::Native);
    assert_eq!(with_native.calls, native);
    assert_eq!(with_native.format_match, strict.is_some());
    assert_eq!(with_native.language_text, Cow::Borrowed(output));
});
