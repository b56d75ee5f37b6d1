//! The limits on what is read from a model's answer, stated once.
//!
//! Nothing a model writes may crash the scorer, hang it or make it take time
//! out of proportion to the answer's size. These limits make that so; they
//! are far beyond what a real answer needs, so ordinary answers read and
//! score exactly as they would without them.
//!
//! - **Depth**: every recursive reader stops at [`MAX_NESTING`] levels of
//!   lists, tuples and dicts (the action-string parser in both modes, JSON
//!   read into [`crate::spec::records::Value`], Python-style dicts in
//!   responses); so do value comparison and printing. A deeper answer is
//!   unreadable: it is scored like any answer without calls (and flagged
//!   `too_deep`), never a crash. serde_json's own recursion limit (128) stays
//!   on as well.
//! - **Size**: at most [`MAX_ANSWER_BYTES`] of an answer's text are read;
//!   the rest is not looked at, and the task score records how much was cut
//!   (`truncated_bytes`).
//! - **Work**: reading an answer leniently tries many starting points (every
//!   `{`, `[` and `(`); all those attempts together may take at most
//!   [`WORK_PER_BYTE`] steps per byte of the answer (plus [`WORK_BASE`]), so
//!   reading is linear in the answer's length whatever it holds. An answer
//!   that runs out has the calls found so far (none, in practice) and is
//!   flagged `out_of_work`.
//! - **Alignment**: calls are aligned per tool name among the first
//!   [`MAX_ALIGNED_CALLS_PER_NAME`] calls of that name on each side; further
//!   calls of the name stay unmatched (they count as predicted, not as
//!   shared). Alignment costs O(r²·c) for r ≤ c calls of a name.
//! - **Python readers** of the official scorers (Seal-Tools, APIBench) keep
//!   Python's own limits, so that their verdicts stay the official ones:
//!   [`PY_JSON_MAX_DEPTH`] and [`PY_LITERAL_MAX_DEPTH`]. tree-sitter, which
//!   the APIBench scorer parses with, gets [`PYTHON_PARSE_MICROS`] per text
//!   plus [`PYTHON_PARSE_MICROS_PER_BYTE`]:
//!   its error recovery can grow without bound on a kilobyte of broken text
//!   (gigabytes within a minute); a text it cannot parse in time holds no call.

use serde::{Deserialize, Serialize};

/// Deepest nesting of lists, tuples and dicts in one argument value: an
/// argument's value is level 1, an element of a list there level 2, and so
/// on. Deeper input is refused by every reader.
pub const MAX_NESTING: usize = 64;

/// Most bytes of one answer's text that are read; the rest is cut (at a
/// character boundary) and counted.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Work steps the lenient reading of one answer may take per byte of it.
/// A step is one character examined by the parser (or one parser rule
/// entered); an ordinary answer needs fewer than 10 per byte.
pub const WORK_PER_BYTE: u64 = 64;

/// Work steps every answer may take whatever its length.
pub const WORK_BASE: u64 = 1 << 16;

/// Most calls of one tool name, on each side, that call alignment pairs.
pub const MAX_ALIGNED_CALLS_PER_NAME: usize = 64;

/// Nesting at which the Python `json.loads` of the official scorers gives
/// up (CPython: "maximum recursion depth exceeded", near its recursion limit
/// of 1000 frames).
pub const PY_JSON_MAX_DEPTH: usize = 900;

/// Nesting at which the Python literal reader of the official scorers gives
/// up ("too deeply nested"); gold answers only.
pub const PY_LITERAL_MAX_DEPTH: usize = 500;

/// Deepest bracket nesting Python's tokenizer accepts ("too many nested
/// parentheses" beyond it); the BFCL decoder refuses deeper text the same way.
pub const PY_MAX_BRACKETS: usize = 200;

/// Deepest expression tree the BFCL decoder builds (nodes inside nodes, and
/// parser recursion). Python builds trees up to about 2,900 levels outside
/// brackets (then `RecursionError`); itc stops at this depth, far beyond
/// any model's answer, so that every walk of the tree stays on a 2 MiB stack.
pub const PY_EXPR_MAX_DEPTH: usize = 500;

/// Size units (a code point, a byte, an element) that the BFCL decoder's
/// arithmetic on literals may produce for one answer, in all. Python would
/// compute `'a' * 10**12` or `[0] * 10**9` (or run out of memory); itc
/// refuses such an answer as undecodable instead.
pub const PY_ARITH_MAX_UNITS: usize = 4 * MAX_ANSWER_BYTES;

/// Longest line of a BFCL result file that is read (`itc ood score bfcl`):
/// room for a `result` of [`MAX_ANSWER_BYTES`] however JSON escapes it (at
/// most 6 bytes per byte, `\u0001`) and the line's other fields. A longer
/// line is an error naming file and line, found without holding the line.
pub const BFCL_RESULT_LINE_MAX_BYTES: usize = 8 * MAX_ANSWER_BYTES;

/// Time tree-sitter may spend parsing any one text for the APIBench scorer
/// (one second; an APIBench response parses in milliseconds). The limit
/// guards against runaway error recovery, which also grows memory by about
/// 170 MB a second.
pub const PYTHON_PARSE_MICROS: u64 = 1_000_000;

/// Time tree-sitter may spend per byte of a text, on top of
/// [`PYTHON_PARSE_MICROS`] (100 KB a second, far below its real speed).
pub const PYTHON_PARSE_MICROS_PER_BYTE: u64 = 10;

/// Most bytes of a task's query the offline baseline reads (its context
/// window): real queries are under a kilobyte, and the baseline's word
/// lists cost tens of bytes per byte of text.
pub const BASELINE_MAX_QUERY_BYTES: usize = 64 << 10;

/// The message of a refusal for depth, shared by every reader so that callers
/// can tell it from other syntax errors.
pub const TOO_DEEP: &str = "a value nested at most 64 levels deep";

/// The deepest flow nesting (`[`, `{`) of a YAML input file (OpenAPI
/// catalogs): the YAML parser's own recursion limit, checked first in one
/// linear pass because the parser reaches it only after quadratic work.
pub const MAX_YAML_FLOW_DEPTH: usize = 128;

/// Which limits were reached while reading one answer (all clear for an
/// ordinary answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReadLimits {
    /// Bytes of the answer beyond [`MAX_ANSWER_BYTES`], not read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated_bytes: u64,
    /// The answer nests deeper than [`MAX_NESTING`]: it was read as no calls.
    #[serde(default, skip_serializing_if = "is_false")]
    pub too_deep: bool,
    /// Lenient reading used up its work budget before finding calls.
    #[serde(default, skip_serializing_if = "is_false")]
    pub out_of_work: bool,
}

impl ReadLimits {
    /// Whether no limit was reached.
    pub fn is_clear(&self) -> bool {
        *self == ReadLimits::default()
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The part of `text` that is read: at most [`MAX_ANSWER_BYTES`], cut at a
/// character boundary, and the number of bytes left out.
pub fn clip_answer(text: &str) -> (&str, u64) {
    clip_to(text, MAX_ANSWER_BYTES)
}

/// `text` cut to at most `max` bytes at a character boundary, and the number
/// of bytes left out.
pub fn clip_to(text: &str, max: usize) -> (&str, u64) {
    if text.len() <= max {
        return (text, 0);
    }
    let end = text.floor_char_boundary(max);
    (&text[..end], (text.len() - end) as u64)
}

/// A work budget shared by every parse attempt on one answer
/// ([`WORK_PER_BYTE`] per byte plus [`WORK_BASE`]).
#[derive(Debug)]
pub struct Budget {
    left: std::cell::Cell<u64>,
    exhausted: std::cell::Cell<bool>,
}

impl Budget {
    /// The budget for reading a text of `len` bytes.
    pub fn for_len(len: usize) -> Budget {
        Budget::with_steps(WORK_BASE + WORK_PER_BYTE * len as u64)
    }

    /// A budget of exactly `steps` steps (for tests).
    pub fn with_steps(steps: u64) -> Budget {
        Budget {
            left: std::cell::Cell::new(steps),
            exhausted: std::cell::Cell::new(false),
        }
    }

    /// Spends `steps`; false (and exhausted from then on) when there were
    /// not that many left.
    pub fn spend(&self, steps: u64) -> bool {
        let left = self.left.get();
        if left < steps || self.exhausted.get() {
            self.left.set(0);
            self.exhausted.set(true);
            return false;
        }
        self.left.set(left - steps);
        true
    }

    /// Whether the budget ran out.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted.get()
    }

    /// Steps left.
    pub fn left(&self) -> u64 {
        self.left.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_keeps_whole_characters() {
        assert_eq!(clip_to("abc", 3), ("abc", 0));
        assert_eq!(clip_to("abcd", 3), ("abc", 1));
        // 'é' is two bytes: a cut inside it moves back before it.
        assert_eq!(clip_to("aé", 2), ("a", 2));
        assert_eq!(clip_answer("short"), ("short", 0));
    }

    #[test]
    fn a_budget_runs_out_and_stays_out() {
        let b = Budget::with_steps(5);
        assert!(b.spend(3));
        assert!(!b.spend(3));
        assert!(b.is_exhausted());
        assert!(!b.spend(0));
        assert_eq!(b.left(), 0);
    }

    #[test]
    fn limits_serialise_only_what_was_reached() {
        assert_eq!(serde_json::to_string(&ReadLimits::default()).unwrap(), "{}");
        let hit = ReadLimits {
            truncated_bytes: 7,
            ..ReadLimits::default()
        };
        assert_eq!(
            serde_json::to_string(&hit).unwrap(),
            r#"{"truncated_bytes":7}"#
        );
        assert!(!hit.is_clear() && ReadLimits::default().is_clear());
    }
}
