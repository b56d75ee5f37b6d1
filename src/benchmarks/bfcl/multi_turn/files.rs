//! The multi-turn question files (`BFCL_v4_multi_turn_<cat>.json`) and
//! their possible answers (per turn, the ground-truth call strings).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail};

use super::exec::EntrySetup;
use crate::benchmarks::bfcl::files::PossibleAnswer;
use crate::benchmarks::python::{PyValue, json_loads_str};
use crate::spec::jsonl::for_each_line;

/// One message of a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnMessage {
    /// `user`, `system` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// One multi-turn question.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiTurnQuestion {
    /// `multi_turn_base_0`.
    pub id: String,
    /// The user's turns (a turn of `miss_func` where functions are added
    /// is empty).
    pub turns: Vec<Vec<TurnMessage>>,
    /// The API classes, in order.
    pub involved_classes: Vec<String>,
    /// Each class's starting state, by class name.
    pub initial_config: PyValue,
    /// `miss_func`: the functions held out until a turn, by turn index.
    pub missed_function: BTreeMap<usize, Vec<String>>,
}

impl MultiTurnQuestion {
    /// What its calls run against in a category (`long_context` or not).
    pub fn setup(&self, long_context: bool) -> EntrySetup {
        EntrySetup {
            entry_id: self.id.clone(),
            involved_classes: self.involved_classes.clone(),
            initial_config: self.initial_config.clone(),
            long_context,
        }
    }
}

/// Reads a multi-turn question file; a bad line is an error naming file,
/// line and field.
pub fn read_multi_turn_questions(path: &Path) -> anyhow::Result<Vec<MultiTurnQuestion>> {
    let mut out = Vec::new();
    for_each_line(path, |number, line| {
        let at = |field: &str| format!("{}:{number}: field `{field}`", path.display());
        let value =
            json_loads_str(line).map_err(|e| anyhow::anyhow!("{}: not JSON ({e})", at(".")))?;
        let id = text(value.get_str("id")).with_context(|| at("id"))?;
        let turns = list(value.get_str("question"))
            .and_then(|turns| turns.iter().map(turn).collect())
            .with_context(|| at("question"))?;
        let involved_classes = list(value.get_str("involved_classes"))
            .and_then(|classes| classes.iter().map(|c| text(Some(c))).collect())
            .with_context(|| at("involved_classes"))?;
        let initial_config = match value.get_str("initial_config") {
            Some(config @ PyValue::Dict(_)) => config.clone(),
            None => PyValue::Dict(vec![]),
            Some(_) => bail!("{}: not an object", at("initial_config")),
        };
        let missed_function =
            missed(value.get_str("missed_function")).with_context(|| at("missed_function"))?;
        out.push(MultiTurnQuestion {
            id,
            turns,
            involved_classes,
            initial_config,
            missed_function,
        });
        Ok(())
    })
    .with_context(|| format!("reading {}", path.display()))?;
    Ok(out)
}

/// A possible answer's turns of call strings.
pub fn ground_truth_turns(answer: &PossibleAnswer) -> anyhow::Result<Vec<Vec<String>>> {
    list(Some(&answer.ground_truth))?
        .iter()
        .map(|turn| list(Some(turn))?.iter().map(|c| text(Some(c))).collect())
        .collect::<anyhow::Result<_>>()
        .with_context(|| {
            format!(
                "possible answer {}: not a list of turns of call strings",
                answer.id
            )
        })
}

fn text(value: Option<&PyValue>) -> anyhow::Result<String> {
    match value {
        Some(PyValue::Str(s)) => Ok(s.to_string_lossy()),
        Some(_) => bail!("not a string"),
        None => bail!("missing"),
    }
}

fn list(value: Option<&PyValue>) -> anyhow::Result<&[PyValue]> {
    match value {
        Some(PyValue::List(items)) => Ok(items),
        Some(_) => bail!("not a list"),
        None => bail!("missing"),
    }
}

fn turn(value: &PyValue) -> anyhow::Result<Vec<TurnMessage>> {
    list(Some(value))?
        .iter()
        .map(|message| {
            Ok(TurnMessage {
                role: text(message.get_str("role")).context("role")?,
                content: text(message.get_str("content")).context("content")?,
            })
        })
        .collect()
}

fn missed(value: Option<&PyValue>) -> anyhow::Result<BTreeMap<usize, Vec<String>>> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let PyValue::Dict(entries) = value else {
        bail!("not an object");
    };
    entries
        .iter()
        .map(|(turn, names)| {
            let index = text(Some(turn))?
                .parse::<usize>()
                .context("a key is not a turn index")?;
            let names = list(Some(names))?
                .iter()
                .map(|n| text(Some(n)))
                .collect::<anyhow::Result<_>>()?;
            Ok((index, names))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_read_their_turns_classes_config_and_held_out_functions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.json");
        std::fs::write(
            &path,
            r#"{"id": "multi_turn_miss_func_0", "question": [[{"role": "user", "content": "hi"}], []], "initial_config": {"MathAPI": {}}, "involved_classes": ["MathAPI"], "missed_function": {"1": ["mean"]}}"#,
        )
        .unwrap();
        let questions = read_multi_turn_questions(&path).unwrap();
        assert_eq!(questions[0].turns.len(), 2);
        assert_eq!(questions[0].missed_function[&1], vec!["mean".to_string()]);
        std::fs::write(
            &path,
            r#"{"id": "x", "question": [[{"role": "user"}]], "involved_classes": []}"#,
        )
        .unwrap();
        let err = format!("{:#}", read_multi_turn_questions(&path).unwrap_err());
        assert!(err.contains("q.json:1: field `question`"), "{err}");
    }
}
