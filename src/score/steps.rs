//! Scoring a step-by-step answer (SPEC §6).
//!
//! The calls of all steps, in order, are scored against all gold calls with
//! §3, plus one rule: a literal matches a gold reference `{"$ref":
//! "k.field"}` when it equals the value at `field` in the output shown to
//! the model for gold call `k`. Which output that was is read from the
//! answer: the output given to the predicted call that §3 aligns with gold
//! call `k` (aligned without the rule, as the outputs are what the rule
//! needs).
//!
//! Each step's calls are also scored against the same gold step (a task's
//! `turns`, or one step of all its gold calls), a missing or extra step
//! scoring 0; the task's `step_f1` is the mean over the steps of the mean
//! of the step's selection and invocation F1. A step without calls ends an
//! answer and is not a step of it, unless no step has calls (then the
//! answer is one empty step, right for a no-tool task).
//!
//! Format match needs every step in the strict format; language match is
//! judged on the Thoughts of all steps together.

use crate::score::outcome::TaskOutcome;
use crate::score::task::{GoldSide, ScoreOptions, aligned_pairs, score_calls};
use crate::spec::language::LanguageDetector;
use crate::spec::limits::ReadLimits;
use crate::spec::records::{Call, Execution, Extraction, Step, StepFigures, Task};
use crate::spec::response::{ReadResponse, read_prediction};
use crate::spec::solver::{FINISH_TOOL, SolverRecord};

/// Scores the steps of one answer to `task`; `languages` is the task set's
/// detector.
pub fn score_steps_in(
    languages: &LanguageDetector,
    task: &Task,
    steps: &[Step],
    options: ScoreOptions,
) -> TaskOutcome {
    score_path(languages, task, steps, false, options)
}

/// Scores a solver's answer (SPEC §8): the steps of its chosen path, the
/// finish protocol's `Finish` calls left out (they end the run and are no
/// tool's call). Without a record, all steps, as [`score_steps_in`].
pub fn score_solver_steps(
    languages: &LanguageDetector,
    task: &Task,
    mut steps: Vec<Step>,
    solver: Option<&SolverRecord>,
    options: ScoreOptions,
) -> TaskOutcome {
    let Some(record) = solver else {
        return score_path(languages, task, &steps, false, options);
    };
    let path: Vec<Step> = record
        .path
        .iter()
        .filter_map(|&i| steps.get_mut(i).map(std::mem::take))
        .collect();
    let finish = record.finish && !task.tools.iter().any(|t| t.name == FINISH_TOOL);
    score_path(languages, task, &path, finish, options)
}

fn score_path(
    languages: &LanguageDetector,
    task: &Task,
    steps: &[Step],
    finish: bool,
    options: ScoreOptions,
) -> TaskOutcome {
    let candidates: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
    let mut reads: Vec<ReadResponse> = steps
        .iter()
        .map(|s| read_prediction(s.output.as_deref(), s.calls.as_deref(), &candidates))
        .collect();
    if finish {
        for read in &mut reads {
            read.calls.retain(|c| c.name != FINISH_TOOL);
        }
    }
    // Every call of every step, with the output it was shown.
    let mut predicted: Vec<Call> = Vec::new();
    let mut outputs: Vec<Option<&serde_json::Value>> = Vec::new();
    for (step, read) in steps.iter().zip(&reads) {
        for (i, call) in read.calls.iter().enumerate() {
            predicted.push(call.clone());
            outputs.push(step.tool_outputs.get(i));
        }
    }
    let plain = GoldSide {
        calls: &task.gold.calls,
        thought: &task.gold.thought,
        tools: &task.tools,
        shown: &[],
    };
    let mut shown = vec![None; task.gold.calls.len()];
    for (g, p) in aligned_pairs(&plain, &predicted, options) {
        shown[g] = outputs[p].cloned();
    }
    let gold = GoldSide {
        shown: &shown,
        ..plain
    };
    let score = score_calls(&gold, &predicted, options);
    let text: Vec<&str> = reads.iter().map(|r| r.language_text.as_ref()).collect();
    let language = languages.check(&text.join("\n"), &task.language);
    TaskOutcome {
        format_match: !reads.is_empty() && reads.iter().all(|r| r.format_match),
        language: language.outcome,
        detected_language: language.detected,
        extraction: reads.first().map_or(Extraction::Nothing, |r| r.extraction),
        selection: score.selection,
        invocation: score.invocation,
        counts: score.counts,
        read_limits: reads.iter().fold(ReadLimits::default(), |a, r| ReadLimits {
            truncated_bytes: a.truncated_bytes + r.limits.truncated_bytes,
            too_deep: a.too_deep || r.limits.too_deep,
            out_of_work: a.out_of_work || r.limits.out_of_work,
        }),
        steps: Some(step_figures(task, steps, &reads, &shown, options)),
    }
}

/// Each step's calls against the same gold step: the gold calls of that
/// step (the turns split the gold calls in order), whose references match
/// the outputs shown, as in the whole-answer score.
fn step_figures(
    task: &Task,
    steps: &[Step],
    reads: &[ReadResponse],
    shown: &[Option<serde_json::Value>],
    options: ScoreOptions,
) -> StepFigures {
    let gold_steps = gold_steps(task);
    let mut answered: Vec<&[Call]> = reads
        .iter()
        .map(|r| r.calls.as_slice())
        .filter(|c| !c.is_empty())
        .collect();
    if answered.is_empty() {
        answered.push(&[]);
    }
    let n = gold_steps.len().max(answered.len());
    let (mut selection, mut invocation) = (0.0, 0.0);
    for (gold, calls) in gold_steps.iter().zip(&answered) {
        let side = GoldSide {
            calls: gold,
            thought: &task.gold.thought,
            tools: &task.tools,
            shown,
        };
        let score = score_calls(&side, calls, options);
        selection += score.selection.f1;
        invocation += score.invocation.f1;
    }
    let (selection, invocation) = (selection / n as f64, invocation / n as f64);
    StepFigures {
        steps: n as u32,
        selection_f1: selection,
        invocation_f1: invocation,
        step_f1: (selection + invocation) / 2.0,
        execution: execution(steps),
    }
}

/// The gold calls of each step: the gold calls cut by the turns' lengths
/// (references kept, so they can match shown outputs), or the turns' own
/// calls when their count differs from the gold's (a task `turn_problems`
/// reports); one step of all gold calls for a task without turns.
fn gold_steps(task: &Task) -> Vec<&[Call]> {
    let lengths: Vec<usize> = task.turns.iter().map(|t| t.calls.len()).collect();
    if task.turns.is_empty() {
        return vec![&task.gold.calls];
    }
    if lengths.iter().sum::<usize>() != task.gold.calls.len() {
        return task.turns.iter().map(|t| t.calls.as_slice()).collect();
    }
    let mut rest = task.gold.calls.as_slice();
    lengths
        .into_iter()
        .map(|n| {
            let (step, after) = rest.split_at(n);
            rest = after;
            step
        })
        .collect()
}

/// The executed calls of an answer, when its steps record statuses
/// (execute runs).
fn execution(steps: &[Step]) -> Option<Execution> {
    if steps.iter().all(|s| s.tool_status.is_empty()) {
        return None;
    }
    let statuses = steps.iter().flat_map(|s| &s.tool_status);
    Some(Execution {
        calls: statuses.clone().count() as u32,
        executed: statuses.filter(|s| (200..300).contains(*s)).count() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested() -> Task {
        crate::spec::sample::ine_forecast_task()
    }

    fn step(action: &str, outputs: Vec<serde_json::Value>) -> Step {
        let answer = json!({"Thought": "Busco el código y luego la predicción.", "Action": action});
        Step {
            output: Some(answer.to_string()),
            calls: None,
            tool_outputs: outputs,
            tool_status: Vec::new(),
            parent: None,
            error: None,
        }
    }

    fn score(task: &Task, steps: &[Step]) -> TaskOutcome {
        let languages = LanguageDetector::for_languages([task.language.as_str()]);
        score_steps_in(&languages, task, steps, ScoreOptions::default())
    }

    #[test]
    fn a_literal_from_the_shown_output_matches_the_reference() {
        let task = nested();
        let shown = task.turns[0].tool_outputs[0].clone();
        let code = shown["codigo_ine"].as_str().unwrap().to_string();
        let steps = [
            step(
                "[ine_codigo_municipio(nombre='Zaragoza')]",
                vec![shown.clone()],
            ),
            step(
                &format!("[aemet_prediccion_municipio(municipio='{code}')]"),
                vec![json!({"error": "no recorded output for this call"})],
            ),
            step("[]", vec![]),
        ];
        let o = score(&task, &steps);
        assert_eq!((o.selection.f1, o.invocation.f1), (1.0, 1.0));
        assert!(o.format_match);
        let figures = o.steps.unwrap();
        assert_eq!((figures.steps, figures.step_f1), (2, 1.0));

        // A literal the model was not shown does not match the reference,
        // nor does the right code when the first output was not shown.
        let mut wrong = steps.clone();
        wrong[1] = step("[aemet_prediccion_municipio(municipio='99999')]", vec![]);
        assert_eq!(score(&task, &wrong).counts.incor, 1);
        let mut unseen = steps.clone();
        unseen[0].tool_outputs.clear();
        assert_eq!(score(&task, &unseen).counts.incor, 1);
        // Single-shot reading of the same final answer: the code is no reference style.
        let single = crate::score::stream::score_response(
            &task,
            steps[1].output.as_deref(),
            None,
            ScoreOptions::default(),
        );
        assert!(single.counts.incor + single.counts.mis > 0);
    }

    #[test]
    fn steps_are_scored_against_the_same_gold_step() {
        let task = nested();
        let shown = task.turns[0].tool_outputs[0].clone();
        // Both calls in one step: all calls right, but step 1 has an extra
        // call and step 2 is missing.
        let together = [step(
            "[ine_codigo_municipio(nombre='Zaragoza'), aemet_prediccion_municipio(municipio='$1.codigo_ine')]",
            vec![shown, json!({})],
        )];
        let o = score(&task, &together);
        assert_eq!(o.invocation.f1, 1.0);
        let f = o.steps.unwrap();
        assert_eq!(f.steps, 2);
        // Step 1: selection P 1/2, R 1 → 2/3; invocation likewise; step 2: 0.
        assert!((f.selection_f1 - 1.0 / 3.0).abs() < 1e-12, "{f:?}");
        assert!((f.step_f1 - 1.0 / 3.0).abs() < 1e-12, "{f:?}");
        // No calls at all: one empty step against two gold steps.
        let none = score(&task, &[step("[]", vec![])]);
        assert_eq!(none.steps.unwrap().step_f1, 0.0);
    }
}
