//! Batch output files as `itc eval --import-batch` reads them
//! (`models::batch::BatchResults::load`): the input is written to a
//! scratch file and loaded.
//!
//! Invariants: the load fails with an error naming the file and one of its
//! non-blank lines, or reads every non-blank line (results + lines that
//! answered a request again = non-blank lines); every result reads again
//! from its place, and taking it by its `custom_id`'s key digits gives a
//! result with the same key, after which no result is left unused.
#![no_main]

use itc::models::batch::BatchResults;
use itc_fuzz::{non_blank_lines, scratch_file, text};
use libfuzzer_sys::fuzz_target;

/// The 16 hex digits after a `custom_id`'s last `--`.
fn key_digits(custom_id: &str) -> &str {
    let (_, digits) = custom_id.rsplit_once("--").expect("a custom_id itc wrote");
    assert!(
        digits.len() == 16 && digits.bytes().all(|b| b.is_ascii_hexdigit()),
        "kept a custom_id itc did not write: {custom_id}"
    );
    digits
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let path = scratch_file("batch_results.jsonl");
    std::fs::write(&path, input.as_bytes()).unwrap();
    let lines = non_blank_lines(&input);
    match BatchResults::load(std::slice::from_ref(&path)) {
        Err(e) => {
            let message = format!("{e:#}");
            let named = lines
                .iter()
                .any(|n| message.contains(&format!("{}:{n}:", path.display())));
            assert!(named, "error names no line of the file: {message}");
        }
        Ok(results) => {
            assert_eq!(results.len() + results.repeated(), lines.len());
            let ids = results.unused();
            assert_eq!(ids.len(), results.len());
            for id in &ids {
                let digits = key_digits(id);
                let taken = results.take(digits).expect("a loaded result is found by its key");
                assert_eq!(key_digits(&taken.custom_id).to_ascii_lowercase(), digits.to_ascii_lowercase());
            }
            assert!(results.unused().is_empty());
        }
    }
});
