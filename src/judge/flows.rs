//! What the judges are asked about one task (SPEC §8): its answer status
//! (with the whole run after Unsure), a pass-rate sample, a win-rate round,
//! a ToolAlpaca verdict. Every coin is seeded: the same seed, task and
//! sample give the same flip.

use sha2::{Digest, Sha256};

pub use super::ask::Tally;
use super::ask::{About, Judge};
use super::labels::{Label, Stage};
use super::ledger::Side;
use super::prompts::{
    ANSWER_STATUS_USER, COMPARE_USER, FULL_RUN_USER, Shown, TASK_STATUS_USER, TOOLALPACA_USER,
    fill, labelled_chat, steps_text, tools_json,
};
use crate::benchmarks::stabletoolbench::results::AnswerStatus;
use crate::benchmarks::toolalpaca::eval::Verdict;
use crate::spec::records::{Prediction, Step, Task};
use crate::spec::solver::{Ending, FinalAnswer, final_answer, path_steps};

/// A seeded coin: deterministic in (seed, purpose, task, sample).
pub fn coin(seed: u64, purpose: &str, task: &str, sample: u32) -> bool {
    let digest = Sha256::digest(format!("{seed}\u{1f}{purpose}\u{1f}{task}\u{1f}{sample}"));
    digest[0] & 1 == 1
}

/// One side's answer to a task.
pub struct Answer<'a> {
    /// The task.
    pub task: &'a Task,
    /// The model whose answer it is, when it has a prediction.
    pub prediction: Option<&'a Prediction>,
    /// Its final answer (empty without a prediction).
    pub last: FinalAnswer,
    /// The chosen path's steps.
    pub steps: Vec<&'a Step>,
}

impl<'a> Answer<'a> {
    /// The answer of `prediction` (none: the task has no prediction).
    pub fn new(task: &'a Task, prediction: Option<&'a Prediction>) -> Answer<'a> {
        let (last, steps) = match prediction {
            Some(p) => (final_answer(p, task), path_steps(p)),
            None => (
                FinalAnswer {
                    text: String::new(),
                    ending: Ending::Error,
                },
                Vec::new(),
            ),
        };
        Answer {
            task,
            prediction,
            last,
            steps,
        }
    }

    /// Rule 1 of pass rate: the run ended with neither a `Finish` call nor a
    /// final answer (or there is no prediction).
    fn unfinished(&self) -> bool {
        self.prediction.is_none()
            || !matches!(
                self.last.ending,
                Ending::Answer | Ending::Finish | Ending::GaveUp
            )
    }

    /// Unsolved without asking: an empty final answer or a give-up.
    fn plainly_unsolved(&self) -> bool {
        self.unfinished() || self.last.ending == Ending::GaveUp || self.last.text.trim().is_empty()
    }
}

/// The settings the flows need.
#[derive(Debug, Clone, Copy)]
pub struct FlowSettings {
    /// The coin seed.
    pub seed: u64,
}

/// The answer status of an answer (SPEC §8 pass rate, step 2): `None` when
/// the judge's label was unreadable.
pub async fn answer_status(
    judge: &Judge,
    about: &About<'_>,
    answer: &Answer<'_>,
    tally: &mut Tally,
) -> anyhow::Result<Option<AnswerStatus>> {
    if answer.plainly_unsolved() {
        return Ok(Some(AnswerStatus::Unsolved));
    }
    let sample = about.sample.to_string();
    let query = answer.task.query.as_str();
    let shown = Shown::of(&answer.last.text, judge.max_shown_chars);
    let user = fill(
        ANSWER_STATUS_USER,
        &[
            ("query", query),
            ("answer", &shown.text()),
            ("sample", &sample),
        ],
    );
    let about = About {
        stage: Stage::AnswerStatus,
        ..about.clone()
    };
    let chat = labelled_chat(Stage::AnswerStatus, user);
    let first = judge
        .ask(&about, chat, shown.cut_chars(), &|_| None, tally)
        .await?;
    let Some(status) = first.label.and_then(Label::answer_status) else {
        tally.unreadable += 1;
        return Ok(None);
    };
    if status != AnswerStatus::Unsure {
        return Ok(Some(status));
    }
    let steps = steps_text(&answer.steps, judge.max_shown_chars);
    let user = fill(
        FULL_RUN_USER,
        &[
            ("query", query),
            ("steps", &steps.text()),
            ("answer", &shown.text()),
            ("sample", &sample),
        ],
    );
    let about = About {
        stage: Stage::AnswerStatusFullRun,
        ..about
    };
    let chat = labelled_chat(Stage::AnswerStatusFullRun, user);
    let cut = steps.cut_chars() + shown.cut_chars();
    let second = judge.ask(&about, chat, cut, &|_| None, tally).await?;
    match second.label.and_then(Label::answer_status) {
        Some(status) => Ok(Some(status)),
        None => {
            tally.unreadable += 1;
            Ok(Some(AnswerStatus::Unsure))
        }
    }
}

/// A pass-rate sample's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The answer status (unreadable read as Unsure).
    pub status: AnswerStatus,
    /// Whether the sample passes.
    pub passed: bool,
}

/// Step 4 of pass rate: pass, fail, or `None` (a coin decides).
fn decide(status: AnswerStatus, task: Option<Label>) -> Option<bool> {
    match (status, task) {
        (AnswerStatus::Solved, _) => Some(true),
        (_, Some(Label::Unsolvable)) => Some(true),
        (AnswerStatus::Unsolved, Some(Label::Solvable)) => Some(false),
        _ => None,
    }
}

/// One pass-rate sample of an answer (SPEC §8 pass rate, steps 1–4).
pub async fn pass_sample(
    judge: &Judge,
    about: &About<'_>,
    answer: &Answer<'_>,
    settings: FlowSettings,
    tally: &mut Tally,
) -> anyhow::Result<Sample> {
    if answer.unfinished() {
        return Ok(Sample {
            status: AnswerStatus::Unsolved,
            passed: false,
        });
    }
    let status = answer_status(judge, about, answer, tally)
        .await?
        .unwrap_or(AnswerStatus::Unsure);
    if status == AnswerStatus::Solved {
        return Ok(Sample {
            status,
            passed: true,
        });
    }
    let sample = about.sample.to_string();
    let tools = tools_json(answer.task);
    let user = fill(
        TASK_STATUS_USER,
        &[
            ("query", &answer.task.query),
            ("tools", &tools),
            ("sample", &sample),
        ],
    );
    let flip = coin(settings.seed, "pass", about.task, about.sample);
    let coin_for = move |label: Option<Label>| decide(status, label).is_none().then_some(flip);
    let about = About {
        stage: Stage::TaskStatus,
        ..about.clone()
    };
    let reading = judge
        .ask(
            &about,
            labelled_chat(Stage::TaskStatus, user),
            0,
            &coin_for,
            tally,
        )
        .await?;
    if reading.label.is_none() {
        tally.unreadable += 1;
    }
    Ok(Sample {
        status,
        passed: decide(status, reading.label).unwrap_or(flip),
    })
}

/// Which answer got a win-rate round's vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    /// The candidate's.
    Candidate,
    /// The reference's.
    Reference,
    /// Neither (the judge's choice was unreadable).
    Neither,
}

/// One win-rate round of a task (SPEC §8 win rate).
pub async fn win_round(
    judge: &Judge,
    about: &About<'_>,
    answers: [&Answer<'_>; 2],
    settings: FlowSettings,
    tally: &mut Tally,
) -> anyhow::Result<Vote> {
    let mut samples = [None, None];
    for (i, side) in [Side::Candidate, Side::Reference].into_iter().enumerate() {
        let about = About {
            side: Some(side),
            ..about.clone()
        };
        samples[i] = Some(pass_sample(judge, &about, answers[i], settings, tally).await?);
    }
    let [Some(cand), Some(refr)] = samples else {
        unreachable!("both sides were judged")
    };
    if cand.passed != refr.passed {
        return Ok(if cand.passed {
            Vote::Candidate
        } else {
            Vote::Reference
        });
    }
    // The seeded order moves each answer together with its status.
    let flip = coin(settings.seed, "order", about.task, about.sample);
    let mut shown = [
        (Vote::Candidate, answers[0], cand.status),
        (Vote::Reference, answers[1], refr.status),
    ];
    if flip {
        shown.swap(0, 1);
    }
    let only = |s: AnswerStatus| {
        let with: Vec<Vote> = shown.iter().filter(|x| x.2 == s).map(|x| x.0).collect();
        (with.len() == 1).then(|| with[0])
    };
    let both_solved = shown.iter().all(|x| x.2 == AnswerStatus::Solved);
    if let Some(vote) = only(AnswerStatus::Solved) {
        return Ok(vote);
    }
    if !both_solved && let Some(vote) = only(AnswerStatus::Unsure) {
        return Ok(vote);
    }
    let sample = about.sample.to_string();
    let [a, b] = [0, 1].map(|i| Shown::of(&shown[i].1.last.text, judge.max_shown_chars));
    let user = fill(
        COMPARE_USER,
        &[
            ("query", &answers[0].task.query),
            ("answer_a", &a.text()),
            ("answer_b", &b.text()),
            ("sample", &sample),
        ],
    );
    let about = About {
        stage: Stage::Compare,
        side: None,
        ..about.clone()
    };
    let chat = labelled_chat(Stage::Compare, user);
    let cut = a.cut_chars() + b.cut_chars();
    let reading = judge.ask(&about, chat, cut, &|_| Some(flip), tally).await?;
    Ok(match reading.label {
        Some(Label::A) => shown[0].0,
        Some(Label::B) => shown[1].0,
        _ => {
            tally.unreadable += 1;
            Vote::Neither
        }
    })
}

/// The gold steps of a task: each call's function and parameters.
fn gold_text(task: &Task) -> String {
    let calls: Vec<_> = if task.turns.is_empty() {
        task.gold.calls.iter().collect()
    } else {
        task.turns.iter().flat_map(|t| &t.calls).collect()
    };
    if calls.is_empty() {
        return "(no call)".into();
    }
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{}. {}",
                i + 1,
                serde_json::to_string(c).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// ToolAlpaca's verdict on one task (SPEC §8): an error, without asking,
/// when the run made no step.
pub async fn toolalpaca(
    judge: &Judge,
    about: &About<'_>,
    answer: &Answer<'_>,
    tally: &mut Tally,
) -> anyhow::Result<Verdict> {
    if answer.prediction.is_none() || answer.steps.is_empty() {
        return Ok(Verdict::Error);
    }
    let (tools, gold, steps, shown) = (
        tools_json(answer.task),
        gold_text(answer.task),
        steps_text(&answer.steps, judge.max_shown_chars),
        Shown::of(&answer.last.text, judge.max_shown_chars),
    );
    let user = fill(
        TOOLALPACA_USER,
        &[
            ("tools", &tools),
            ("query", &answer.task.query),
            ("gold", &gold),
            ("steps", &steps.text()),
            ("answer", &shown.text()),
        ],
    );
    let about = About {
        stage: Stage::Toolalpaca,
        ..about.clone()
    };
    let chat = labelled_chat(Stage::Toolalpaca, user);
    let cut = steps.cut_chars() + shown.cut_chars();
    let reading = judge.ask(&about, chat, cut, &|_| None, tally).await?;
    if !reading.readable(Stage::Toolalpaca) {
        tally.unreadable += 1;
    }
    Ok(Verdict::Judged {
        process: reading.label.and_then(Label::to_toolalpaca),
        response: reading.response.and_then(Label::to_toolalpaca),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_rules() {
        use AnswerStatus::*;
        assert_eq!(decide(Solved, None), Some(true));
        assert_eq!(decide(Unsure, Some(Label::Unsolvable)), Some(true));
        assert_eq!(decide(Unsolved, Some(Label::Unsolvable)), Some(true));
        assert_eq!(decide(Unsolved, Some(Label::Solvable)), Some(false));
        assert_eq!(decide(Unsure, Some(Label::Solvable)), None);
        assert_eq!(decide(Unsolved, Some(Label::Unsure)), None);
        assert_eq!(decide(Unsolved, None), None);
    }

    #[test]
    fn coins_are_seeded() {
        assert_eq!(coin(0, "pass", "t", 1), coin(0, "pass", "t", 1));
        let flips: Vec<bool> = (0..32).map(|s| coin(s, "pass", "t", 1)).collect();
        assert!(flips.contains(&true) && flips.contains(&false));
    }
}
