//! BFCL's data files: questions (`BFCL_v4_<cat>.json`) and possible answers
//! (`possible_answer/BFCL_v4_<cat>.json`). Both are JSON Lines despite the
//! extension; the last line may lack its newline.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::benchmarks::python::{PyValue, json_loads_str};
use crate::spec::jsonl::{describe_error, for_each_line};

/// One message of a question turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `user`, `system` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// One question: its turns and the function docs offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// `simple_python_0`, `live_simple_30-8-0`.
    pub id: String,
    /// Turns, each a list of messages (every record here has one turn).
    pub question: Vec<Vec<Message>>,
    /// Function docs `{name, description, parameters: {type: "dict",
    /// properties, required}}`, kept as written.
    pub function: Vec<serde_json::Value>,
}

/// One possible answer: the calls that are accepted, each
/// `{function_name: {param: [allowed values]}}`, read with Python's
/// `json.loads` semantics (`2.0` stays a float, `2` an int).
#[derive(Debug, Clone, PartialEq)]
pub struct PossibleAnswer {
    /// The question's id.
    pub id: String,
    /// `ground_truth`: a list of one-key dicts.
    pub ground_truth: PyValue,
}

/// Reads a question file; a bad line is an error naming file, line and field.
pub fn read_questions(path: &Path) -> anyhow::Result<Vec<Question>> {
    let mut out = Vec::new();
    for_each_line(path, |number, line| {
        match serde_json::from_str::<Question>(line) {
            Ok(q) => out.push(q),
            Err(_) => return Err(describe_error::<Question>(path, number, line).into()),
        }
        Ok(())
    })?;
    Ok(out)
}

/// Reads a question file's ids only (the relevance categories' checker
/// never reads the turns or the function docs, which are skipped unread).
pub fn read_question_ids(path: &Path) -> anyhow::Result<Vec<Question>> {
    #[derive(Deserialize)]
    struct Head {
        id: String,
    }
    let mut out = Vec::new();
    for_each_line(path, |number, line| {
        match serde_json::from_str::<Head>(line) {
            Ok(head) => out.push(Question {
                id: head.id,
                question: Vec::new(),
                function: Vec::new(),
            }),
            Err(_) => return Err(describe_error::<Question>(path, number, line).into()),
        }
        Ok(())
    })?;
    Ok(out)
}

/// Reads a possible-answer file; a bad line is an error naming file, line
/// and field.
pub fn read_possible_answers(path: &Path) -> anyhow::Result<Vec<PossibleAnswer>> {
    let mut out = Vec::new();
    for_each_line(path, |number, line| {
        let value = json_loads_str(line).map_err(|e| {
            anyhow::anyhow!("{}:{number}: field `.`: not JSON ({e})", path.display())
        })?;
        let id = match value.get_str("id") {
            Some(PyValue::Str(s)) => s.to_string_lossy(),
            _ => anyhow::bail!(
                "{}:{number}: field `id`: missing or not a string",
                path.display()
            ),
        };
        let ground_truth = match value.get_str("ground_truth") {
            Some(v @ PyValue::List(_)) => v.clone(),
            _ => anyhow::bail!(
                "{}:{number}: field `ground_truth`: missing or not a list",
                path.display()
            ),
        };
        out.push(PossibleAnswer { id, ground_truth });
        Ok(())
    })
    .with_context(|| format!("reading {}", path.display()))?;
    Ok(out)
}
