//! The stages of judging, their label sets, and reading a judge's label
//! from its reply (SPEC §8 "Judges"): a JSON object `{"label", "reason"}`
//! read leniently, or, for ToolAlpaca, the two lines of its `## Results`
//! section (read by [`crate::benchmarks::toolalpaca::eval::read_labels`]).

use serde::{Deserialize, Serialize};

use crate::benchmarks::stabletoolbench::results::AnswerStatus;
use crate::benchmarks::toolalpaca::{self, eval::read_labels};

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

    fn from_toolalpaca(label: toolalpaca::eval::Label) -> Label {
        match label {
            toolalpaca::eval::Label::Yes => Label::Yes,
            toolalpaca::eval::Label::No => Label::No,
            toolalpaca::eval::Label::Uncertain => Label::Uncertain,
        }
    }

    /// The ToolAlpaca label of a Yes/No/Uncertain label.
    pub fn to_toolalpaca(self) -> Option<toolalpaca::eval::Label> {
        match self {
            Label::Yes => Some(toolalpaca::eval::Label::Yes),
            Label::No => Some(toolalpaca::eval::Label::No),
            Label::Uncertain => Some(toolalpaca::eval::Label::Uncertain),
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

/// Reads a reply of `stage` (SPEC §8 "Judges"; the rule is in
/// docs/judging.md, "Judges and labels"):
///
/// - the first JSON object of the reply with a `label` key decides: its
///   value must be a string naming a label of the stage (case, markdown and
///   an `AnswerStatus.` prefix ignored); any other value (another label, a
///   number, a list, `null`) is unreadable, and the text around it is not
///   read;
/// - without such an object, the reply is read as text: it must name exactly
///   one label of the set as a word (labels of one letter only as the whole
///   reply), and no sentence naming it may hold a negation ("not Solved",
///   "n'est pas Solved", "nicht Solved", "未 Solved"); otherwise unreadable.
///
/// Linear in the reply's length.
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
            label: label.as_str().and_then(|l| match_label(l, allowed)),
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

/// The `label` value (of any JSON type) and the `reason` of the first JSON
/// object in `text` that has a `label` key (any case; code fences and prose
/// around it ignored).
///
/// Objects are found by one scan for balanced `{…}` spans at the top level
/// (braces inside JSON strings not counted) and each span is parsed once,
/// so the work is linear in the reply's length whatever it holds; a span
/// that is not JSON is passed over whole (`crate::build::filter::parse::json_objects`
/// tries every `{` as a start instead).
fn json_label(text: &str) -> Option<(serde_json::Value, String)> {
    let (mut depth, mut start) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if depth > 0 => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0
                    && let Some(found) = label_of(&text[start..=i])
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `label` and `reason` of `span` when it is a JSON object with a `label` key.
fn label_of(span: &str) -> Option<(serde_json::Value, String)> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(span) else {
        return None;
    };
    let (_, label) = map.iter().find(|(k, _)| k.eq_ignore_ascii_case("label"))?;
    let reason = map
        .get("reason")
        .and_then(|r| r.as_str())
        .unwrap_or_default()
        .to_string();
    Some((label.clone(), reason))
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

/// Words that turn a label of their sentence around, lower case: English,
/// German, French, Spanish, Italian, Portuguese, Dutch and Russian. Words
/// ending in `n't` are negations too.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "neither", "nor", "cannot", "nothing", "none", "nicht", "kein", "keine",
    "keinen", "keinem", "keiner", "keines", "nie", "niemals", "pas", "non", "jamais", "aucun",
    "aucune", "ni", "nunca", "jamás", "tampoco", "ningún", "ninguno", "ninguna", "nada", "mai",
    "nessun", "nessuno", "nessuna", "não", "nem", "nenhum", "nenhuma", "niet", "geen", "nooit",
    "не", "нет", "ни",
];

/// Negations written inside a word in languages without spaces (Chinese,
/// Japanese, Korean): `未解决`, `不是`, `解決していない`, `해결되지 않음`.
const NEGATION_PARTS: &[&str] = &[
    "不",
    "未",
    "没",
    "沒",
    "无",
    "無",
    "非",
    "否",
    "别",
    "ない",
    "ません",
    "않",
    "못",
    "없",
];

fn is_negation(word: &str) -> bool {
    let listed = || {
        let lower = word.to_lowercase();
        NEGATIONS.contains(&lower.as_str())
            || lower.ends_with("n't")
            || lower.ends_with("n\u{2019}t")
    };
    // Words of the lists are short: longer ones are not lowered.
    (word.len() <= 16 && listed())
        || (!word.is_ascii() && NEGATION_PARTS.iter().any(|p| word.contains(p)))
}

/// Characters inside a word: letters, digits, `_`, apostrophes and hyphens
/// (so `isn't` and `un-solved` are one word each, and name no label).
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '\'' | '\u{2019}' | '-')
}

fn ends_sentence(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | ';' | '\n' | '。' | '！' | '？' | '；')
}

/// A reply without a JSON label: exactly one label of the set named as a
/// word, in sentences without a negation (labels of one letter only as the
/// whole reply). One pass over the text.
fn text_label(text: &str, allowed: &[Label]) -> Option<Label> {
    if allowed.iter().any(|l| l.as_str().len() == 1) {
        return match_label(text, allowed);
    }
    let mut named: Option<Label> = None;
    let (mut sentence_label, mut sentence_negated) = (false, false);
    let mut word_start: Option<usize> = None;
    // A sentence end after the last character closes the last word and sentence.
    for (i, c) in text.char_indices().chain([(text.len(), '\n')]) {
        if in_word(c) {
            word_start.get_or_insert(i);
            continue;
        }
        if let Some(start) = word_start.take() {
            let word = text[start..i].trim_matches(|c| matches!(c, '\'' | '\u{2019}' | '-'));
            if let Some(label) = allowed
                .iter()
                .copied()
                .find(|l| l.as_str().eq_ignore_ascii_case(word))
            {
                if named.is_some_and(|n| n != label) {
                    return None;
                }
                named = Some(label);
                sentence_label = true;
            } else if is_negation(word) {
                sentence_negated = true;
            }
        }
        if ends_sentence(c) {
            if sentence_label && sentence_negated {
                return None;
            }
            (sentence_label, sentence_negated) = (false, false);
        }
    }
    named
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

    /// Real-looking replies and what they read as (`None`: unreadable, so
    /// asked again).
    const ANSWER_STATUS_REPLIES: &[(&str, Option<Label>)] = &[
        // Negations turn a named label around: unreadable, never Solved.
        ("Not Solved", None),
        ("The task is not Solved.", None),
        ("It isn't Solved yet", None),
        ("The answer doesn\u{2019}t count as Solved", None),
        ("I would never call this Solved.", None),
        ("No, Solved is wrong here", None),
        ("**Not** Solved", None),
        ("Die Aufgabe ist nicht Solved.", None),
        ("La tâche n'est pas Solved.", None),
        ("La tarea no está Solved.", None),
        ("La tarea no está resuelta: Solved", None),
        ("任务未 Solved。", None),
        ("状态：Solved（不是）", None),
        // A negation in another sentence leaves the label alone.
        (
            "The user did not give a city. The answer is still Solved.",
            Some(Label::Solved),
        ),
        ("Solved. Nothing else is needed", Some(Label::Solved)),
        // Both labels named: unreadable.
        ("Solved or Unsolved? Unsolved", None),
        ("Unsolved, not Solved", None),
        ("Label: Unsolvable", None),
        // Markdown, quotes, one label named several times, other languages.
        ("**Solved**", Some(Label::Solved)),
        ("`Unsure`", Some(Label::Unsure)),
        ("> 'Unsolved'", Some(Label::Unsolved)),
        (
            "Verdict: Solved. The answer is Solved.",
            Some(Label::Solved),
        ),
        ("AnswerStatus.Solved", Some(Label::Solved)),
        ("Die Antwort ist vollständig: Solved", Some(Label::Solved)),
        ("答案完整。Solved", Some(Label::Solved)),
        // Words holding a label's letters are not the label.
        ("un-solved", None),
        ("unsolvedness", None),
        ("Resolved", None),
        ("", None),
        // JSON decides: a label outside the set or of another type is
        // unreadable, whatever the text around it says.
        (r#"{"label": 1, "reason": "Solved"}"#, None),
        (r#"{"label": ["Solved"], "reason": "ok"}"#, None),
        (r#"{"label": null, "reason": "Solved"}"#, None),
        (r#"{"label": true}"#, None),
        (r#"{"label": {"value": "Solved"}}"#, None),
        (r#"{"label": "Not Solved", "reason": "x"}"#, None),
        (r#"{"label": "Solved or Unsolved"}"#, None),
        (r#"{"label": "Maybe"} Solved"#, None),
        (
            r#"{"Label": "**unsolved**", "reason": "It is not."}"#,
            Some(Label::Unsolved),
        ),
        (r#"{"label": "AnswerStatus.Unsure"}"#, Some(Label::Unsure)),
        (
            "```json\n{\"label\": \"Solved\", \"reason\": \"It did not fail.\"}\n```",
            Some(Label::Solved),
        ),
        (
            r#"Here: {"note": "draft"} then {"label": "Unsolved", "reason": "no city"}"#,
            Some(Label::Unsolved),
        ),
        // Broken JSON is read as text.
        (r#"{label: Solved}"#, Some(Label::Solved)),
    ];

    #[test]
    fn answer_status_replies_read_as_the_table_says() {
        for (reply, want) in ANSWER_STATUS_REPLIES {
            assert_eq!(
                read_reply(Stage::AnswerStatus, reply).label,
                *want,
                "reply {reply:?}"
            );
        }
    }

    #[test]
    fn task_status_and_compare_replies() {
        let task = |t| read_reply(Stage::TaskStatus, t).label;
        assert_eq!(task("Unsolvable"), Some(Label::Unsolvable));
        assert_eq!(task("The task is Solvable."), Some(Label::Solvable));
        assert_eq!(task("The task is not Solvable."), None);
        assert_eq!(task("Solvable? Unsolvable."), None);
        assert_eq!(task(r#"{"label": "Solved"}"#), None);
        let compare = |t| read_reply(Stage::Compare, t).label;
        assert_eq!(compare("**B**"), Some(Label::B));
        assert_eq!(compare(r#"{"label": "a"}"#), Some(Label::A));
        assert_eq!(compare(r#"{"label": 2}"#), None);
        assert_eq!(compare("A or B"), None);
    }

    #[test]
    fn json_spans_skip_braces_in_strings_and_prose() {
        let read = |t| read_reply(Stage::AnswerStatus, t).label;
        assert_eq!(
            read(r#"{"reason": "a } and a { in a string \" too", "label": "Unsolved"}"#),
            Some(Label::Unsolved)
        );
        // A span that is not JSON is passed over; the next one is read.
        assert_eq!(
            read(r#"Set {x} aside. {"label": "Unsure"}"#),
            Some(Label::Unsure)
        );
        // An unclosed brace before the JSON leaves the text reading.
        assert_eq!(read(r#"{ oops {"label": "Solved"}"#), Some(Label::Solved));
    }

    #[test]
    fn a_long_hostile_reply_reads_in_one_pass() {
        // Unclosed braces and strings, and a label far at the end.
        let mut reply = "{\"label\": \"".to_string();
        reply.push_str(&"{ \"not a label ".repeat(20_000));
        assert_eq!(read_reply(Stage::AnswerStatus, &reply).label, None);
        // Nested just under serde_json's depth limit, 1,000 times: every
        // `{` tried as a start would parse 127 levels each time.
        let reply = format!("{}Solved", "{\"a\":[".repeat(127).repeat(1_000));
        assert_eq!(
            read_reply(Stage::AnswerStatus, &reply).label,
            Some(Label::Solved)
        );
        let reply = format!("{} Solved", "word ".repeat(200_000));
        assert_eq!(
            read_reply(Stage::AnswerStatus, &reply).label,
            Some(Label::Solved)
        );
    }
}
