//! Replayed tool outputs (SPEC §6, *replay*): what a model is shown after
//! each step of a step-by-step run, from the outputs a task records.
//!
//! Every predicted call of a step gets the recorded output
//! (`turns[k].tool_outputs`) of the gold call of the current gold step that
//! it aligns with (§3 alignment, within that step); a call with no aligned
//! gold call, or past the gold's steps, gets [`no_recorded_output`]. In
//! prompt and structured modes the outputs are shown as one user message,
//! [`observation`](crate::models::backend::observation).

use serde_json::{Value, json};

use crate::score::task::{GoldSide, ScoreOptions, aligned_pairs};
use crate::spec::records::{Call, Task};

/// The output of a call that no recorded output answers.
pub fn no_recorded_output() -> Value {
    json!({"error": "no recorded output for this call"})
}

/// The outputs shown for the calls of step `step` (0-based), one per call.
pub fn replay_outputs(
    task: &Task,
    step: usize,
    calls: &[Call],
    options: ScoreOptions,
) -> Vec<Value> {
    let mut outputs = vec![no_recorded_output(); calls.len()];
    // A task without turns has one gold step: its gold calls.
    let (gold, recorded): (&[Call], &[Value]) = match task.turns.get(step) {
        Some(turn) => (&turn.calls, &turn.tool_outputs),
        None if task.turns.is_empty() && step == 0 => (&task.gold.calls, &[]),
        None => return outputs,
    };
    let side = GoldSide {
        calls: gold,
        thought: &task.gold.thought,
        tools: &task.tools,
        shown: &[],
    };
    for (g, p) in aligned_pairs(&side, calls, options) {
        if let Some(output) = recorded.get(g) {
            outputs[p] = output.clone();
        }
    }
    outputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::backend::observation;
    use crate::spec::action::{Mode, parse_actions};

    fn nested() -> Task {
        crate::spec::sample::ine_forecast_task()
    }

    fn calls(text: &str) -> Vec<Call> {
        parse_actions(text, Mode::Strict).unwrap()
    }

    #[test]
    fn an_aligned_call_gets_the_recorded_output_and_others_an_error() {
        let task = nested();
        let recorded = task.turns[0].tool_outputs[0].clone();
        let options = ScoreOptions::default();
        // The gold call, even with another argument value, aligns by name.
        let step = calls("[ine_codigo_municipio(nombre='Zaragoza'), otra_api(x=1)]");
        let shown = replay_outputs(&task, 0, &step, options);
        assert_eq!(shown, [recorded.clone(), no_recorded_output()]);
        let other_city = calls("[ine_codigo_municipio(nombre='Huesca')]");
        assert_eq!(replay_outputs(&task, 0, &other_city, options), [recorded]);
        // Step 2 records no output (it is the last); a third step has no gold.
        let last = calls("[aemet_prediccion_municipio(municipio='50297')]");
        assert_eq!(
            replay_outputs(&task, 1, &last, options),
            [no_recorded_output()]
        );
        assert_eq!(
            replay_outputs(&task, 2, &last, options),
            [no_recorded_output()]
        );
    }

    #[test]
    fn an_observation_lists_each_call_with_its_output() {
        let step = calls("[ine_codigo_municipio(nombre='Zaragoza')]");
        let text = observation(&step, &[json!({"codigo_ine": "50297"})]);
        assert_eq!(
            text,
            r#"Observation: [{"call":"ine_codigo_municipio(nombre='Zaragoza')","output":{"codigo_ine":"50297"}}]"#
        );
    }
}
