//! The bounds on what one model answer can make a step-by-step run do
//! (SPEC §7): calls executed per step, the time a step's calls take
//! together, and the bytes of tool output one task is shown (which bound
//! every request sent to the model for it, since a request shows the task's
//! outputs so far). A call beyond a bound is not made; its output is a tool
//! error saying which bound it met and the flag that raises it.
//!
//! The bounds apply alike to executed, replayed, recorded (cassette) and
//! simulated outputs.

use std::io;
use std::time::Duration;

use serde_json::Value;

use super::ToolOutput;

/// Calls a step executes when `--max-calls-per-step` is not given.
pub const DEFAULT_MAX_CALLS_PER_STEP: usize = 16;
/// Bytes of one call's output kept when `--max-tool-bytes` is not given.
pub const DEFAULT_MAX_TOOL_BYTES: usize = 1 << 20;
/// Bytes of tool output shown to one task when `--max-task-tool-bytes` is
/// not given.
pub const DEFAULT_MAX_TASK_TOOL_BYTES: usize = 4 << 20;
/// Milliseconds one call may take when `--tool-timeout-ms` is not given.
pub const DEFAULT_TOOL_TIMEOUT_MS: u64 = 30_000;
/// Milliseconds a step's calls may take together when `--max-step-ms` is not
/// given.
pub const DEFAULT_MAX_STEP_MS: u64 = 120_000;

/// The bounds of one run (plain values, from `itc eval`'s flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolLimits {
    /// Calls of one step that are made; the others get an error output.
    pub max_calls_per_step: usize,
    /// Bytes of tool output (as JSON) one task is shown over all its steps.
    pub max_task_bytes: usize,
    /// How long the calls of one step may take together.
    pub max_step_time: Duration,
}

/// What one task has used of its bounds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TaskBudget {
    /// Bytes of tool output shown so far (each output as compact JSON).
    pub shown_bytes: usize,
}

/// Why a call was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The step made its most calls.
    CallsPerStep(usize),
    /// The task was shown its most bytes.
    TaskBytes(usize),
    /// The step's calls took their time.
    StepTime(Duration),
}

impl Bound {
    /// The tool error shown instead of the call's output.
    pub fn message(self) -> String {
        match self {
            Bound::CallsPerStep(n) => format!(
                "not executed: a step makes at most {n} calls (itc eval --max-calls-per-step)"
            ),
            Bound::TaskBytes(n) => format!(
                "not shown: this task's tool outputs would pass {n} bytes (itc eval --max-task-tool-bytes)"
            ),
            Bound::StepTime(t) => format!(
                "not executed: this step's calls took their {} ms (itc eval --max-step-ms)",
                t.as_millis()
            ),
        }
    }
}

impl TaskBudget {
    /// The bound a call would meet before it is made: its place in the step
    /// (0-based) or the bytes already shown.
    pub fn before_call(&self, limits: &ToolLimits, index: usize) -> Option<Bound> {
        if index >= limits.max_calls_per_step {
            Some(Bound::CallsPerStep(limits.max_calls_per_step))
        } else if self.shown_bytes >= limits.max_task_bytes {
            Some(Bound::TaskBytes(limits.max_task_bytes))
        } else {
            None
        }
    }

    /// Counts an output against the task's bytes: an output that would pass
    /// them is replaced by a tool error, and the budget counts as spent (no
    /// further call of the task is made), so a task makes at most one call
    /// whose output it is not shown.
    pub fn take(&mut self, limits: &ToolLimits, output: ToolOutput) -> ToolOutput {
        let size = json_len(&output.value);
        if self.shown_bytes.saturating_add(size) <= limits.max_task_bytes {
            self.shown_bytes += size;
            return output;
        }
        self.shown_bytes = self.shown_bytes.max(limits.max_task_bytes);
        ToolOutput {
            value: serde_json::json!({
                "error": Bound::TaskBytes(limits.max_task_bytes).message(),
                "bytes": size,
            }),
            ..output
        }
    }
}

/// The length of a value as compact JSON, without writing it anywhere.
pub fn json_len(value: &Value) -> usize {
    struct Counter(usize);
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// `text` cut to at most `max` bytes at a character boundary, and whether
/// anything was cut.
pub fn cut_text(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits(calls: usize, bytes: usize) -> ToolLimits {
        ToolLimits {
            max_calls_per_step: calls,
            max_task_bytes: bytes,
            max_step_time: Duration::from_secs(1),
        }
    }

    #[test]
    fn calls_past_the_step_bound_and_bytes_past_the_task_bound_are_refused() {
        let limits = limits(2, 30);
        let mut budget = TaskBudget::default();
        assert_eq!(budget.before_call(&limits, 1), None);
        assert_eq!(budget.before_call(&limits, 2), Some(Bound::CallsPerStep(2)));
        let small = ToolOutput::ok(json!({"a": "0123456789"}));
        assert_eq!(budget.take(&limits, small.clone()), small);
        assert_eq!(budget.shown_bytes, 18);
        let big = budget.take(&limits, ToolOutput::ok(json!("01234567890123")));
        assert_eq!(big.value["bytes"], 16);
        assert!(
            big.value["error"]
                .as_str()
                .unwrap()
                .contains("--max-task-tool-bytes"),
            "{big:?}"
        );
        assert_eq!(budget.before_call(&limits, 0), Some(Bound::TaskBytes(30)));
    }

    #[test]
    fn lengths_are_the_compact_json_and_cuts_keep_characters_whole() {
        let value = json!({"ä": [1, "x\"y"], "n": null});
        assert_eq!(json_len(&value), value.to_string().len());
        assert_eq!(cut_text("aé", 2), ("a", true));
        assert_eq!(cut_text("aé", 3), ("aé", false));
        assert_eq!(cut_text("", 0), ("", false));
    }
}
