//! The reduced score of one model on one task ([`TaskOutcome`]): what
//! scoring one answer gives (whole, in `stream`, or step by step, in
//! `steps`), what the outcome store keeps and the aggregates read.

use crate::spec::records::{
    Counts, Extraction, LanguageOutcome, Prf, StepFigures, Task, TaskScore,
};

/// The reduced score of one model on one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskOutcome {
    /// Strict format match.
    pub format_match: bool,
    /// Language check outcome.
    pub language: LanguageOutcome,
    /// Detected language code.
    pub detected_language: Option<&'static str>,
    /// How calls were read.
    pub extraction: Extraction,
    /// Selection P/R/F1.
    pub selection: Prf,
    /// Invocation P/R/F1.
    pub invocation: Prf,
    /// Counts behind the metrics.
    pub counts: Counts,
    /// The reading limits the answer reached.
    pub read_limits: crate::spec::limits::ReadLimits,
    /// The step-by-step figures of an answer given in steps (SPEC §6).
    pub steps: Option<StepFigures>,
}

impl TaskOutcome {
    /// A task without an answer (errored or missing): zero on every metric,
    /// whatever the gold, with the gold counts kept for micro recall.
    pub fn unanswered(task: &Task, extraction: Extraction) -> TaskOutcome {
        let gold_triples = task
            .gold
            .calls
            .iter()
            .map(|c| c.arguments.len().max(1) as u32)
            .sum();
        TaskOutcome {
            format_match: false,
            language: LanguageOutcome::Undetectable,
            detected_language: None,
            extraction,
            selection: Prf::default(),
            invocation: Prf::default(),
            counts: Counts {
                sel_gold: task.gold.calls.len() as u32,
                inv_gold: gold_triples,
                mis: task.gold.calls.len() as u32,
                ..Counts::default()
            },
            read_limits: Default::default(),
            steps: None,
        }
    }

    /// Whether an answer was obtained.
    pub fn answered(&self) -> bool {
        !matches!(self.extraction, Extraction::Error | Extraction::Missing)
    }

    /// The outcome a written task score records (`itc report` rebuilds
    /// aggregates from `task_scores.jsonl`). The detected language is left
    /// out: no aggregate uses it.
    pub fn from_score(score: &TaskScore) -> TaskOutcome {
        TaskOutcome {
            format_match: score.format_match,
            language: score.language_outcome,
            detected_language: None,
            extraction: score.extraction,
            selection: score.selection,
            invocation: score.invocation,
            counts: score.counts,
            read_limits: score.read_limits,
            steps: score.steps,
        }
    }
}
