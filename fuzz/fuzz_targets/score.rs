//! Scoring one answer against one task of the sample set, as `itc score`
//! does for every prediction line (`score::stream::score_response_in`):
//! reading the answer, the language check and the call alignment.
//!
//! Input: two bytes choosing the task, then the answer. When the answer is
//! a JSON list of calls it is also scored as native calls.
//!
//! Invariants: P, R and F1 lie in 0–1 and follow from the counts; shared
//! names and triples never outnumber either side; the predicted calls
//! counted are the calls read from the answer; FM is the strict reader's.
#![no_main]

use std::sync::OnceLock;

use itc::score::stream::{TaskOutcome, score_response_in};
use itc::score::task::{ScoreOptions, prf};
use itc::spec::jsonl::read_records;
use itc::spec::language::LanguageDetector;
use itc::spec::records::{Call, Prf, Task};
use itc::spec::response::{read_output, strict_format};
use itc_fuzz::text;
use libfuzzer_sys::fuzz_target;

fn tasks() -> &'static (Vec<Task>, LanguageDetector) {
    static TASKS: OnceLock<(Vec<Task>, LanguageDetector)> = OnceLock::new();
    TASKS.get_or_init(|| {
        let path = itc::util::embedded::name("datasets/sample/tasks.jsonl");
        let (tasks, _) = read_records::<Task>(&path, false).expect("sample tasks");
        let languages = LanguageDetector::for_languages(tasks.iter().map(|t| t.language.as_str()));
        (tasks, languages)
    })
}

fn check_prf(m: Prf, tp: u32, pred: u32, gold: u32) {
    for x in [m.p, m.r, m.f1] {
        assert!((0.0..=1.0).contains(&x), "{m:?}");
    }
    assert!(
        tp <= pred && tp <= gold,
        "tp {tp} of {pred} predicted, {gold} gold"
    );
    assert_eq!(m, prf(tp, pred, gold), "metrics vs counts");
}

fn check(outcome: &TaskOutcome, task: &Task, calls_read: usize) {
    let c = outcome.counts;
    check_prf(outcome.selection, c.sel_tp, c.sel_pred, c.sel_gold);
    check_prf(outcome.invocation, c.inv_tp, c.inv_pred, c.inv_gold);
    assert_eq!(c.sel_gold as usize, task.gold.calls.len());
    assert_eq!(c.sel_pred as usize, calls_read, "predicted calls counted");
    assert!(c.hall + c.ex <= c.sel_pred, "{c:?}");
    assert!(c.mis <= c.sel_gold, "{c:?}");
}

fuzz_target!(|data: &[u8]| {
    let (tasks, languages) = tasks();
    if data.len() < 2 {
        return;
    }
    let index = usize::from(u16::from_le_bytes([data[0], data[1]])) % tasks.len();
    let task = &tasks[index];
    let answer = text(&data[2..]);
    let options = ScoreOptions::default();
    let outcome = score_response_in(languages, task, Some(&answer), None, options);
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let read = read_output(&answer, &candidates);
    assert_eq!(outcome.format_match, strict_format(&answer).is_some());
    assert_eq!(outcome.extraction, read.extraction);
    check(&outcome, task, read.calls.len());
    if let Ok(calls) = serde_json::from_str::<Vec<Call>>(&answer) {
        let native = score_response_in(languages, task, None, Some(&calls), options);
        check(&native, task, calls.len());
        assert!(!native.format_match);
    }
});
