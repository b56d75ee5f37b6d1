//! The task and prediction loaders (`spec::jsonl::read_records` of `Task`
//! and `Prediction`): the input is written to a scratch file and read as
//! `itc score` / `itc eval` read theirs.
//!
//! Invariants: with `skip_invalid`, every non-blank line is a record or a
//! skipped error, and each error names the file, its line (in order) and a
//! field; without it, the first bad line is the error, naming file and
//! line, else the same records; records read write back and read again to
//! the same JSON (floats within two ulps).
#![no_main]

use std::path::Path;

use itc::spec::jsonl::{RecordError, read_records};
use itc::spec::records::{Prediction, Task};
use itc_fuzz::{json_close, non_blank_lines, scratch_file, text};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn check<T: DeserializeOwned + Serialize>(path: &Path, input: &str) {
    let lines = non_blank_lines(input);
    let (records, skipped): (Vec<T>, Vec<RecordError>) = match read_records::<T>(path, true) {
        Ok(read) => read,
        Err(e) => panic!("read with skip_invalid failed: {e:#}"),
    };
    assert_eq!(
        records.len() + skipped.len(),
        lines.len(),
        "records + skipped"
    );
    let mut previous = 0;
    for e in &skipped {
        assert_eq!(e.file, path);
        assert!(
            lines.contains(&e.line),
            "line {} is not a non-blank line",
            e.line
        );
        assert!(e.line > previous, "errors out of order");
        previous = e.line;
        assert!(!e.field.is_empty() && !e.message.is_empty(), "{e:?}");
        let shown = e.to_string();
        let place = format!("{}:{}: field `", path.display(), e.line);
        assert!(shown.starts_with(&place), "{shown}");
    }
    match read_records::<T>(path, false) {
        Ok((again, none)) => {
            assert!(skipped.is_empty(), "strict read accepted a bad line");
            assert!(none.is_empty());
            assert_eq!(again.len(), records.len());
        }
        Err(e) => {
            let first = skipped.first().expect("strict read failed on good lines");
            let place = format!("{}:{}: ", path.display(), first.line);
            assert!(e.to_string().starts_with(&place), "{e} vs {place}");
        }
    }
    for record in &records {
        let written = serde_json::to_value(record).expect("records serialise");
        let line = written.to_string();
        let again: T = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("written record does not read back: {e}\n{line}"));
        let rewritten = serde_json::to_value(&again).unwrap();
        assert!(json_close(&written, &rewritten), "{written}\n{rewritten}");
    }
}

fuzz_target!(|data: &[u8]| {
    // The loaders read UTF-8; other bytes are an I/O error naming the line,
    // which the lossy conversion keeps out of the way of the checks above.
    let input = text(data);
    let path = scratch_file("records.jsonl");
    std::fs::write(&path, input.as_bytes()).expect("scratch file");
    check::<Task>(&path, &input);
    check::<Prediction>(&path, &input);
});
