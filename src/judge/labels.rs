//! The stages of judging, their label sets, and reading a judge's label
//! from its reply (SPEC §8 "Judges"): a JSON object `{"label", "reason"}`
//! read leniently, or, for ToolAlpaca, the two lines of its `## Results`
//! section (read by [`crate::ood::toolalpaca_eval::read_labels`]).

use serde::{Deserialize, Serialize};

use crate::ood::stabletoolbench_results::AnswerStatus;
use crate::ood::toolalpaca_eval::{self, read_labels};

/// One kind of judge request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The answer status from the query and the final answer.
    AnswerStatus,
    /// The answer status from the query and the whole run (after Unsure).
    AnswerStatusFullRun,
    /// The task status from the query and the tools.
    TaskStatus,
    /// Which of two answers is better (win rate).
    Compare,
    /// ToolAlpaca's process and response correctness.
    Toolalpaca,
}

impl Stage {
    /// The name in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::AnswerStatus => "answer_status",
            Stage::AnswerStatusFullRun => "answer_status_full_run",
            Stage::TaskStatus => "task_status",
            Stage::Compare => "compare",
            Stage::Toolalpaca => "toolalpaca",
        }
    }

    /// The labels a judge may give at this stage.
    pub fn labels(self) -> &'static [Label] {
        match self {
            Stage::AnswerStatus | Stage::AnswerStatusFullRun => {
                &[Label::Solved, Label::Unsolved, Label::Unsure]
            }
            Stage::TaskStatus => &[Label::Solvable, Label::Unsolvable, Label::Unsure],
            Stage::Compare => &[Label::A, Label::B],
            Stage::Toolalpaca => &[Label::Yes, Label::No, Label::Uncertain],
        }
    }
}

/// A judge's label, of any stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Label {
    /// Answer status: the answer solves the request.
    Solved,
    /// Answer status: it does not.
    Unsolved,
    /// Answer or task status: the judge cannot tell.
    Unsure,
    /// Task status: the tools can solve the request.
    Solvable,
    /// Task status: they cannot.
    Unsolvable,
    /// Compare: the first answer shown is better.
    A,
    /// Compare: the second answer shown is better.
    B,
    /// ToolAlpaca: correct.
    Yes,
    /// ToolAlpaca: not correct.
    No,
    /// ToolAlpaca: the judge cannot tell.
    Uncertain,
}

impl Label {
    /// The label as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Solved => "Solved",
            Label::Unsolved => "Unsolved",
            Label::Unsure => "Unsure",
            Label::Solvable => "Solvable",
            Label::Unsolvable => "Unsolvable",
            Label::A => "A",
            Label::B => "B",
            Label::Yes => "Yes",
            Label::No => "No",
            Label::Uncertain => "Uncertain",
        }
    }

    /// The answer status of an answer-status label.
    pub fn answer_status(self) -> Option<AnswerStatus> {
        match self {
            Label::Solved => Some(AnswerStatus::Solved),
            Label::Unsolved => Some(AnswerStatus::Unsolved),
            Label::Unsure => Some(AnswerStatus::Unsure),
            _ => None,
        }
    }

    fn from_toolalpaca(label: toolalpaca_eval::Label) -> Label {
        match label {
            toolalpaca_eval::Label::Yes => Label::Yes,
            toolalpaca_eval::Label::No => Label::No,
            toolalpaca_eval::Label::Uncertain => Label::Uncertain,
        }
    }

    /// The ToolAlpaca label of a Yes/No/Uncertain label.
    pub fn to_toolalpaca(self) -> Option<toolalpaca_eval::Label> {
        match self {
            Label::Yes => Some(toolalpaca_eval::Label::Yes),
            Label::No => Some(toolalpaca_eval::Label::No),
            Label::Uncertain => Some(toolalpaca_eval::Label::Uncertain),
            _ => None,
        }
    }
}

/// What was read from one reply: the label (for ToolAlpaca, the process
/// label), the ToolAlpaca response label, and the judge's reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// The label, `None` when unreadable.
    pub label: Option<Label>,
    /// ToolAlpaca's `Final Response Correctness`, `None` elsewhere or unreadable.
    pub response: Option<Label>,
    /// The judge's reason (for ToolAlpaca, its whole text).
    pub reason: String,
}

impl Reading {
    /// Whether every label the stage needs was read.
    pub fn readable(&self, stage: Stage) -> bool {
        match stage {
            Stage::Toolalpaca => self.label.is_some() && self.response.is_some(),
            _ => self.label.is_some(),
        }
    }
}

/// Reads a reply of `stage`.
pub fn read_reply(stage: Stage, text: &str) -> Reading {
    if stage == Stage::Toolalpaca {
        let (process, response) = read_labels(text);
        return Reading {
            label: process.map(Label::from_toolalpaca),
            response: response.map(Label::from_toolalpaca),
            reason: text.to_string(),
        };
    }
    let allowed = stage.labels();
    if let Some((label, reason)) = json_label(text) {
        return Reading {
            label: match_label(&label, allowed),
            response: None,
            reason,
        };
    }
    Reading {
        label: text_label(text, allowed),
        response: None,
        reason: text.trim().to_string(),
    }
}

/// The `label` and `reason` of the first JSON object in `text` that has a
/// `label` string (code fences and prose around it ignored).
fn json_label(text: &str) -> Option<(String, String)> {
    let end = text.rfind('}')?;
    for (start, _) in text.match_indices('{') {
        if start > end {
            break;
        }
        let Ok(serde_json::Value::Object(map)) = serde_json::from_str(&text[start..=end]) else {
            continue;
        };
        let label = map.get("label")?.as_str()?.to_string();
        let reason = map
            .get("reason")
            .and_then(|r| r.as_str())
            .unwrap_or_default()
            .to_string();
        return Some((label, reason));
    }
    None
}

/// A label of the set written as `text` (case and surrounding
/// punctuation ignored).
fn match_label(text: &str, allowed: &[Label]) -> Option<Label> {
    let word = text.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let word = word.strip_prefix("AnswerStatus.").unwrap_or(word);
    allowed
        .iter()
        .copied()
        .find(|l| l.as_str().eq_ignore_ascii_case(word))
}

/// A reply without JSON: the whole text is a label, or exactly one label
/// of the set appears in it as a word (labels of one letter only alone).
fn text_label(text: &str, allowed: &[Label]) -> Option<Label> {
    if let Some(label) = match_label(text, allowed) {
        return Some(label);
    }
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let found: Vec<Label> = allowed
        .iter()
        .copied()
        .filter(|l| l.as_str().len() > 1 && words.contains(&l.as_str()))
        .collect();
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_read_leniently() {
        let read = |t| read_reply(Stage::AnswerStatus, t).label;
        assert_eq!(
            read(r#"{"label": "Solved", "reason": "ok"}"#),
            Some(Label::Solved)
        );
        assert_eq!(
            read("```json\n{\"label\": \"unsure\"}\n```"),
            Some(Label::Unsure)
        );
        assert_eq!(read("Unsolved."), Some(Label::Unsolved));
        assert_eq!(read("I think it is Solved because"), Some(Label::Solved));
        assert_eq!(read("Solved or Unsolved"), None);
        assert_eq!(read(r#"{"label": "Solvable"}"#), None);
        assert_eq!(read_reply(Stage::Compare, "A").label, Some(Label::A));
        assert_eq!(read_reply(Stage::Compare, "A better answer").label, None);
        let ta = read_reply(
            Stage::Toolalpaca,
            "x\n## Results\nProcess Correctness: Yes\nFinal Response Correctness: No",
        );
        assert_eq!((ta.label, ta.response), (Some(Label::Yes), Some(Label::No)));
        assert!(ta.readable(Stage::Toolalpaca));
    }
}
