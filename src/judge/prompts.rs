//! The judges' prompts (SPEC §8): our own words, one template a stage, as
//! constants whose SHA-256 goes into the folder's settings. `{name}`
//! placeholders are filled by [`fill`]. Every request carries the sample
//! (run, round) number, so the response cache keeps independent samples
//! apart. The texts of the run shown to a judge (a final answer, the whole
//! run) are cut to `--max-shown-chars` characters each ([`Shown`]), and
//! [`CUT_NOTE`] after a cut text says how many characters were left out.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::labels::{Label, Stage};
use crate::build::chat::prompt_sha256;
use crate::models::Chat;
use crate::models::prompt::tools_view_json;
use crate::spec::records::{Step, Task};
use crate::util::hash::to_hex;

/// Instructions of the answer-status requests (final answer or whole run).
pub const ANSWER_STATUS_SYSTEM: &str = "\
You check whether an AI assistant, working with tools, did what a user asked.
Give one label:
- Solved: the final answer gives the user everything the request asks for.
- Unsolved: it misses a part of the request, is wrong, declines, or gives nothing the user can use.
- Unsure: what you are shown is not enough to tell.
Reply with one JSON object: {\"label\": \"Solved\" | \"Unsolved\" | \"Unsure\", \"reason\": \"one or two sentences\"}.";

/// The message of an answer-status request on the final answer.
pub const ANSWER_STATUS_USER: &str = "\
The user's request:
{query}

The assistant's final answer:
{answer}

Review {sample}.";

/// The message of an answer-status request on the whole run.
pub const FULL_RUN_USER: &str = "\
The user's request:
{query}

The assistant's run, step by step (its text, the calls it made and what each tool returned):
{steps}

The assistant's final answer:
{answer}

Review {sample}.";

/// Instructions of the task-status request.
pub const TASK_STATUS_SYSTEM: &str = "\
You decide whether a user's request can be fulfilled with a given set of tools.
Give one label:
- Solvable: the tools can provide what the request needs, and the request says enough to use them.
- Unsolvable: no tool fits, or the request lacks information that cannot be found.
- Unsure: you cannot tell.
Reply with one JSON object: {\"label\": \"Solvable\" | \"Unsolvable\" | \"Unsure\", \"reason\": \"one or two sentences\"}.";

/// The message of a task-status request.
pub const TASK_STATUS_USER: &str = "\
The user's request:
{query}

The tools (JSON):
{tools}

Review {sample}.";

/// Instructions of the compare request (win rate).
pub const COMPARE_SYSTEM: &str = "\
Two AI assistants answered the same user request. Pick the answer that serves the user better:
the one that fulfils more of the request, correctly and clearly. Length alone is no merit.
Reply with one JSON object: {\"label\": \"A\" | \"B\", \"reason\": \"one or two sentences\"}.";

/// The message of a compare request.
pub const COMPARE_USER: &str = "\
The user's request:
{query}

Answer A:
{answer_a}

Answer B:
{answer_b}

Review {sample}.";

/// Instructions of the ToolAlpaca request.
pub const TOOLALPACA_SYSTEM: &str = "\
You grade how an AI assistant used an API to carry out an instruction. You are shown the API's
documentation, the instruction, the reference steps (function and parameters) and the assistant's
steps (function, parameters and what the API returned) with its final answer.
Judge two things:
- the process: whether the assistant called the right functions with the right parameters
  (other steps that reach the same result are fine);
- the final response: whether the final answer fulfils the instruction, consistent with what the API returned.
Explain briefly, then end with exactly this section, each label one of Yes, No, Uncertain:
## Results
Process Correctness: <label>
Final Response Correctness: <label>";

/// The message of a ToolAlpaca request.
pub const TOOLALPACA_USER: &str = "\
API documentation (JSON):
{tools}

Instruction:
{query}

Reference steps:
{gold}

The assistant's steps:
{steps}

The assistant's final answer:
{answer}";

/// Added to a request whose reply could not be read, before asking again.
pub const RETRY_NOTE: &str = "\n\n(Ask {ask}.) Your earlier reply could not be read. {format}";

/// Added after a text of the run that was cut to the characters a judge is shown.
pub const CUT_NOTE: &str =
    "\n[The text above is cut here: {cut} more characters of it are not shown.]";

/// Every template with its name, for the settings file.
pub const TEMPLATES: [(&str, &str); 11] = [
    ("answer_status_system", ANSWER_STATUS_SYSTEM),
    ("answer_status_user", ANSWER_STATUS_USER),
    ("full_run_user", FULL_RUN_USER),
    ("task_status_system", TASK_STATUS_SYSTEM),
    ("task_status_user", TASK_STATUS_USER),
    ("compare_system", COMPARE_SYSTEM),
    ("compare_user", COMPARE_USER),
    ("toolalpaca_system", TOOLALPACA_SYSTEM),
    ("toolalpaca_user", TOOLALPACA_USER),
    ("retry_note", RETRY_NOTE),
    ("cut_note", CUT_NOTE),
];

/// SHA-256 (hex) of each template, by name.
pub fn template_hashes() -> std::collections::BTreeMap<String, String> {
    use sha2::{Digest, Sha256};
    TEMPLATES
        .iter()
        .map(|(name, text)| (name.to_string(), to_hex(&Sha256::digest(text.as_bytes()))))
        .collect()
}

/// `template` with each `{key}` replaced by its value (values are not
/// searched again, so a `{…}` in an answer stays as written).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'outer: while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        for (key, value) in values {
            let mark = format!("{{{key}}}");
            if after.starts_with(&mark) {
                out.push_str(value);
                rest = &after[mark.len()..];
                continue 'outer;
            }
        }
        out.push('{');
        rest = &after[1..];
    }
    out.push_str(rest);
    out
}

/// The reply schema of a labelled stage: `label` (one of the stage's) and `reason`.
pub fn label_schema(stage: Stage) -> Value {
    let labels: Vec<&str> = stage.labels().iter().map(|l| l.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "label": {"type": "string", "enum": labels},
            "reason": {"type": "string"}
        },
        "required": ["label", "reason"],
        "additionalProperties": false
    })
}

/// A chat of a labelled stage (not ToolAlpaca, which answers in text).
pub fn labelled_chat(stage: Stage, user: String) -> Chat {
    let system = match stage {
        Stage::AnswerStatus | Stage::AnswerStatusFullRun => ANSWER_STATUS_SYSTEM,
        Stage::TaskStatus => TASK_STATUS_SYSTEM,
        Stage::Compare => COMPARE_SYSTEM,
        Stage::Toolalpaca => TOOLALPACA_SYSTEM,
    };
    let chat = Chat::new(system, user);
    match stage {
        Stage::Toolalpaca => chat,
        _ => chat.with_schema(label_schema(stage)),
    }
}

/// The chat asking again after an unreadable reply (`ask` counts from 2).
pub fn retry_chat(chat: &Chat, stage: Stage, ask: u32) -> Chat {
    let format = match stage {
        Stage::Toolalpaca => "End with the section `## Results`, then the lines `Process Correctness: <label>` and `Final Response Correctness: <label>`, each label one of Yes, No, Uncertain.".to_string(),
        _ => {
            let labels: Vec<&str> = stage.labels().iter().map(|l| l.as_str()).collect();
            format!(
                "Reply only with a JSON object {{\"label\": …, \"reason\": …}} whose label is one of: {}.",
                labels.join(", ")
            )
        }
    };
    let note = fill(
        RETRY_NOTE,
        &[("ask", &ask.to_string()), ("format", &format)],
    );
    Chat {
        system: chat.system.clone(),
        user: format!("{}{note}", chat.user),
        schema: chat.schema.clone(),
    }
}

/// The prompt hash of a chat, as kept in `judgments.jsonl`.
pub fn chat_sha256(chat: &Chat) -> String {
    prompt_sha256(chat)
}

/// The tools of a task as JSON, as the judges see them.
pub fn tools_json(task: &Task) -> String {
    tools_view_json(&task.tools.iter().collect::<Vec<_>>())
}

/// A text of the run as a judge is shown it: its first `max` characters,
/// the others only counted, and [`CUT_NOTE`] when any were left out. Text
/// is written into it a piece at a time, so what is not shown is never
/// held in memory.
#[derive(Debug)]
pub struct Shown {
    text: String,
    room: usize,
    cut: u64,
}

impl Shown {
    /// Nothing yet; at most `max` characters will be kept.
    pub fn new(max: usize) -> Shown {
        Shown {
            text: String::new(),
            room: max,
            cut: 0,
        }
    }

    /// `text` as shown with at most `max` characters.
    pub fn of(text: &str, max: usize) -> Shown {
        let mut shown = Shown::new(max);
        shown.push(text);
        shown
    }

    fn push(&mut self, piece: &str) {
        if self.cut > 0 || self.room == 0 {
            self.cut += piece.chars().count() as u64;
            return;
        }
        match piece.char_indices().nth(self.room) {
            Some((at, _)) => {
                self.text.push_str(&piece[..at]);
                self.room = 0;
                self.cut += piece[at..].chars().count() as u64;
            }
            None => {
                self.text.push_str(piece);
                self.room -= piece.chars().count();
            }
        }
    }

    /// Characters left out.
    pub fn cut_chars(&self) -> u64 {
        self.cut
    }

    /// The text shown, with [`CUT_NOTE`] when cut.
    pub fn text(&self) -> String {
        match self.cut {
            0 => self.text.clone(),
            cut => format!(
                "{}{}",
                self.text,
                fill(CUT_NOTE, &[("cut", &cut.to_string())])
            ),
        }
    }
}

impl std::fmt::Write for Shown {
    fn write_str(&mut self, piece: &str) -> std::fmt::Result {
        self.push(piece);
        Ok(())
    }
}

/// Steps as text: each step's text, its calls and the tools' outputs, at
/// most `max` characters of it shown.
pub fn steps_text(steps: &[&Step], max: usize) -> Shown {
    let mut out = Shown::new(max);
    if steps.is_empty() {
        out.push("(no step)\n");
        return out;
    }
    // Writing to a `Shown` cannot fail.
    for (i, step) in steps.iter().enumerate() {
        let _ = writeln!(out, "Step {}:", i + 1);
        if let Some(text) = step.output.as_deref().filter(|t| !t.trim().is_empty()) {
            let _ = writeln!(out, "  text: {}", text.trim());
        }
        for call in step.calls.iter().flatten() {
            out.push("  call: ");
            let _ = serde_json::to_writer(FmtWriter(&mut out), call);
            out.push("\n");
        }
        for output in &step.tool_outputs {
            let _ = writeln!(out, "  tool output: {output}");
        }
    }
    out
}

/// An `io::Write` into a [`Shown`], for serde_json's writer (which writes
/// whole UTF-8 pieces).
struct FmtWriter<'a>(&'a mut Shown);

impl std::io::Write for FmtWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.push(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A label as the retry note and tables write it.
pub fn label_names(labels: &[Label]) -> String {
    labels
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_once_and_keeps_braces_of_values() {
        assert_eq!(
            fill("a {x} b {y} {z}", &[("x", "{y}"), ("y", "2")]),
            "a {y} b 2 {z}"
        );
    }

    #[test]
    fn shown_texts_are_cut_counted_and_noted() {
        let whole = Shown::of("aé日b", 4);
        assert_eq!((whole.text(), whole.cut_chars()), ("aé日b".to_string(), 0));
        let cut = Shown::of("aé日bcd", 3);
        assert_eq!(cut.cut_chars(), 3);
        assert!(
            cut.text()
                .starts_with("aé日\n[The text above is cut here: 3 more")
        );
        let steps = [Step {
            output: Some("x".repeat(50)),
            tool_outputs: vec![json!({"t": "y".repeat(50)})],
            ..Step::default()
        }];
        let all = steps_text(&steps.iter().collect::<Vec<_>>(), usize::MAX);
        let some = steps_text(&steps.iter().collect::<Vec<_>>(), 20);
        assert_eq!(all.cut_chars(), 0);
        let length = all.text().chars().count() as u64;
        assert_eq!(some.cut_chars(), length - 20);
        assert!(all.text().starts_with(&some.text()[..20]));
    }

    #[test]
    fn retry_changes_the_request() {
        let chat = labelled_chat(Stage::AnswerStatus, "u".into());
        let again = retry_chat(&chat, Stage::AnswerStatus, 2);
        assert_ne!(chat_sha256(&chat), chat_sha256(&again));
        assert!(again.user.contains("Solved, Unsolved, Unsure"));
        assert_eq!(template_hashes().len(), TEMPLATES.len());
    }
}
