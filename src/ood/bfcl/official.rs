//! The official runner: one verdict per result line, and the accuracy the
//! score file's header states.
//!
//! Everything is dispatched by the category's NAME, as the official
//! `evaluate_task` does: a name containing `relevance` or `irrelevance`
//! goes to the relevance runner (possible answers ignored; a name
//! containing `irrelevance` wants no call, any other wants a call); every
//! other name goes to the AST runner, whose checker is chosen by
//! [`CheckerKind::for_category_name`].
//!
//! # Pairing result lines with questions
//!
//! The official runner reads the result file, sorts its lines by id
//! (`sort_key`: the text before the last `_` of the id's part before any
//! `:`, then the integer after it, up to a `-`; stable), keeps the
//! questions whose id occurs among the results (in question-file order),
//! takes the possible answers at those questions' positions (by position,
//! not by id), and pairs the k-th sorted result with the k-th kept
//! question. With `allow_missing=False` it raises when the counts differ,
//! and an unknown or repeated id makes the kept questions fewer than the
//! results, which fails its length assertion (AST) or runs off the end of
//! the question list (relevance). An empty result file divides by zero.
//!
//! [`score_results`] reproduces this: it refuses (with an error saying
//! why) an empty result list, a count that differs from the questions', an
//! unknown id and a repeated id; otherwise the result ids are a
//! permutation of the question ids, and it pairs the k-th result in sort
//! order with the k-th question and the k-th possible answer, exactly as
//! the official runner does (for BFCL's files, which list questions in id
//! order, this is pairing by id). Verdicts are reported in result-file
//! order.
//!
//! A `result` that is not a string makes the official decoder raise
//! (`'list' object has no attribute 'strip'`): `ast_decoder:decoder_failed`
//! in AST categories, "no call" in relevance ones. A line without `id` or
//! `result`, or that is not a JSON object, stops the official runner; here
//! it is an error naming file and line. Lines are split as Python's
//! universal newlines do (`\n`, `\r\n`, `\r`), and a blank line is not
//! JSON, as for the official `json.loads` of each line.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use super::check::{CheckerKind, ErrorType, Verdict, check, validate_entry};
use super::decode::{DecodeError, decode_ast_prompting};
use super::files::{PossibleAnswer, Question};
use super::{Call, Category};
use crate::ood::python::{PyValue, json_loads_str};

/// A model's result for one question: the text of a prompt-mode model, or
/// something else JSON holds (kept as its Python type name).
#[derive(Debug, Clone, PartialEq)]
pub enum ModelResult {
    /// A string: the model's text.
    Text(String),
    /// Not a string (`list`, `dict`, `int`, `float`, `bool`, `NoneType`).
    NotText(&'static str),
}

/// One line of a BFCL result file (`{"id", "result", …}`; other fields
/// are ignored).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultLine {
    /// The question's id.
    pub id: String,
    /// The model's result.
    pub result: ModelResult,
}

/// One scored result line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemVerdict {
    /// The result line's id.
    pub id: String,
    /// Whether it is correct.
    pub valid: bool,
    /// Why not.
    pub error_type: Option<ErrorType>,
    /// The official messages.
    pub errors: Vec<Value>,
}

/// A result file scored as the official runner scores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfficialScore {
    /// The category.
    #[serde(serialize_with = "category_name")]
    pub category: Category,
    /// `correct_count / total_count`.
    pub accuracy: f64,
    /// Valid lines.
    pub correct_count: usize,
    /// All lines.
    pub total_count: usize,
    /// One verdict per result line, in result-file order.
    pub items: Vec<ItemVerdict>,
}

fn category_name<S: serde::Serializer>(c: &Category, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.as_str())
}

/// Whether the official runner treats the category as (ir)relevance.
fn is_relevance(category: Category) -> bool {
    let name = category.as_str();
    name.contains("relevance") || name.contains("irrelevance")
}

/// The verdict on one model text: decoded with the official prompt-mode
/// decoder, then checked as the official runner checks it.
pub fn check_answer(
    category: Category,
    question: &Question,
    possible: Option<&PossibleAnswer>,
    text: &str,
) -> Verdict {
    verdict_of_decoded(category, question, possible, decode_ast_prompting(text))
}

/// The verdict once the decoder has run (or raised).
fn verdict_of_decoded(
    category: Category,
    question: &Question,
    possible: Option<&PossibleAnswer>,
    decoded: Result<Vec<Call>, DecodeError>,
) -> Verdict {
    match decoded {
        Ok(calls) => check_calls(category, question, possible, &calls),
        Err(e) if is_relevance(category) => relevance_verdict(category, false, Some(&e.0)),
        Err(e) => Verdict::invalid(
            ErrorType::DecoderFailed,
            vec![Value::String(format!(
                "Invalid syntax. Failed to decode AST. {}",
                e.0
            ))],
        ),
    }
}

/// The relevance runner's verdict: `has_call` is "decoded to at least one
/// call".
fn relevance_verdict(category: Category, has_call: bool, decode_error: Option<&str>) -> Verdict {
    if category.as_str().contains("irrelevance") {
        if has_call {
            return Verdict::invalid(
                ErrorType::IrrelevanceDecoderSuccess,
                vec![Value::String(
                    "Valid syntax. Successfully decode AST when it should not.".into(),
                )],
            );
        }
    } else if !has_call {
        return Verdict::invalid(
            ErrorType::RelevanceDecoderFailed,
            vec![Value::String(format!(
                "Invalid syntax. Failed to decode AST when it should have. {}",
                decode_error.unwrap_or("None")
            ))],
        );
    }
    Verdict::valid()
}

/// The verdict on calls the decoder returned (the checker alone, for tests
/// that start from the official decoder's output). An AST category without
/// a possible answer gives an invalid verdict with no error type (the
/// official runner cannot get there).
pub fn check_calls(
    category: Category,
    question: &Question,
    possible: Option<&PossibleAnswer>,
    calls: &[Call],
) -> Verdict {
    if is_relevance(category) {
        return relevance_verdict(category, !calls.is_empty(), None);
    }
    let Some(possible) = possible else {
        return Verdict {
            valid: false,
            error_type: None,
            errors: vec![Value::String(format!(
                "no possible answer for {}",
                question.id
            ))],
        };
    };
    let ground_truth = match &possible.ground_truth {
        PyValue::List(entries) => entries.as_slice(),
        _ => &[],
    };
    let kind = CheckerKind::for_category_name(category.as_str());
    Verdict::from_check(check(kind, &question.function, calls, ground_truth))
}

/// Reads a BFCL result file (JSON Lines; see the module doc for what each
/// line must hold). An error names the file and the line.
pub fn read_results(path: &Path) -> anyhow::Result<Vec<ResultLine>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 ({e})", path.display()))?;
    parse_results(&text, &path.display().to_string())
}

/// [`read_results`] on text already read; `source` names it in errors.
pub fn parse_results(text: &str, source: &str) -> anyhow::Result<Vec<ResultLine>> {
    let mut out = Vec::new();
    for (index, line) in universal_lines(text).enumerate() {
        let number = index + 1;
        let value = json_loads_str(line)
            .map_err(|e| anyhow::anyhow!("{source}:{number}: not JSON ({e})"))?;
        if !matches!(value, PyValue::Dict(_)) {
            bail!("{source}:{number}: not a JSON object");
        }
        let id = match value.get_str("id") {
            Some(PyValue::Str(s)) => s.to_string_lossy(),
            Some(_) => bail!("{source}:{number}: field `id` is not a string"),
            None => bail!("{source}:{number}: field `id` is missing"),
        };
        let result = match value.get_str("result") {
            Some(PyValue::Str(s)) => ModelResult::Text(s.to_string_lossy()),
            Some(other) => ModelResult::NotText(other.type_name()),
            None => bail!("{source}:{number}: field `result` is missing"),
        };
        out.push(ResultLine { id, result });
    }
    Ok(out)
}

/// Lines as Python's `readlines()` in text mode gives them (universal
/// newlines), without their endings; no empty line after a final ending.
fn universal_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            Some(at) => {
                let line = &rest[..at];
                let skip = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[at + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
        }
    })
}

/// The official `sort_key` within one group of categories: the category
/// part of the id and its universal index.
fn sort_key(id: &str) -> anyhow::Result<(&str, i128)> {
    let head = id.split(':').next().unwrap_or(id);
    let (category, index) = head
        .rsplit_once('_')
        .with_context(|| format!("id {id:?} has no `_<index>` (the official sort_key fails)"))?;
    let index = match index.split_once('-') {
        Some((first, _)) => first,
        None => index,
    };
    let number = index
        .trim()
        .parse::<i128>()
        .with_context(|| format!("id {id:?}: index {index:?} is not an integer"))?;
    Ok((category, number))
}

/// Scores a result file's lines as the official `evaluate_task` does with
/// `allow_missing=False` (see the module doc for pairing and refusals).
/// `possible` is ignored for relevance categories.
pub fn score_results(
    category: Category,
    questions: &[Question],
    possible: &[PossibleAnswer],
    results: &[ResultLine],
) -> anyhow::Result<OfficialScore> {
    let order = pair_results(category, questions, possible, results)?;
    let relevance = is_relevance(category);
    let kind = CheckerKind::for_category_name(category.as_str());
    let mut verdicts: Vec<Option<Verdict>> = vec![None; results.len()];
    for (k, &line_index) in order.iter().enumerate() {
        let question = &questions[k];
        let answer = if relevance { None } else { Some(&possible[k]) };
        if let Some(answer) = answer {
            validate_entry(kind, &question.function, &answer.ground_truth).map_err(|e| {
                anyhow::anyhow!(
                    "question {} cannot be checked as the official checker would ({e})",
                    question.id
                )
            })?;
        }
        let decoded = match &results[line_index].result {
            ModelResult::Text(text) => decode_ast_prompting(text),
            ModelResult::NotText(type_name) => Err(DecodeError(format!(
                "'{type_name}' object has no attribute 'strip'"
            ))),
        };
        verdicts[line_index] = Some(verdict_of_decoded(category, question, answer, decoded));
    }
    let mut items = Vec::with_capacity(results.len());
    let mut correct = 0;
    for (line, verdict) in results.iter().zip(verdicts) {
        let verdict = verdict.expect("every line is paired");
        correct += usize::from(verdict.valid);
        items.push(ItemVerdict {
            id: line.id.clone(),
            valid: verdict.valid,
            error_type: verdict.error_type,
            errors: verdict.errors,
        });
    }
    Ok(OfficialScore {
        category,
        accuracy: correct as f64 / results.len() as f64,
        correct_count: correct,
        total_count: results.len(),
        items,
    })
}

/// The result-line index paired with each question, in question order;
/// an error where the official runner would raise.
fn pair_results(
    category: Category,
    questions: &[Question],
    possible: &[PossibleAnswer],
    results: &[ResultLine],
) -> anyhow::Result<Vec<usize>> {
    if results.is_empty() {
        bail!("{category}: the result file has no lines (the official runner divides by zero)");
    }
    if !is_relevance(category) && possible.len() != questions.len() {
        bail!(
            "{category}: {} possible answers for {} questions (the official runner asserts they match)",
            possible.len(),
            questions.len()
        );
    }
    if results.len() != questions.len() {
        bail!(
            "{category}: {} result lines for {} questions; the official runner (allow_missing=False) refuses a partial or padded result file",
            results.len(),
            questions.len()
        );
    }
    let known: HashMap<&str, usize> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    let mut seen = vec![usize::MAX; questions.len()];
    for (line, r) in results.iter().enumerate() {
        let Some(&q) = known.get(r.id.as_str()) else {
            bail!(
                "{category}: result line {} has id {:?}, which is not a question of this category (the official runner fails on it)",
                line + 1,
                r.id
            );
        };
        if seen[q] != usize::MAX {
            bail!(
                "{category}: result lines {} and {} both have id {:?} (the official runner fails on a repeated id)",
                seen[q] + 1,
                line + 1,
                r.id
            );
        }
        seen[q] = line;
    }
    let mut keyed = Vec::with_capacity(results.len());
    for (line, r) in results.iter().enumerate() {
        keyed.push((sort_key(&r.id)?, line));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(keyed.into_iter().map(|(_, line)| line).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_python_universal_newlines() {
        let lines: Vec<&str> = universal_lines("a\r\nb\rc\nd\n").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        let lines: Vec<&str> = universal_lines("a\n\nb").collect();
        assert_eq!(lines, ["a", "", "b"]);
    }

    #[test]
    fn sort_key_reads_the_universal_index() {
        assert_eq!(sort_key("simple_python_12").unwrap(), ("simple_python", 12));
        assert_eq!(sort_key("live_simple_30-8-0").unwrap(), ("live_simple", 30));
        assert!(sort_key("nounderscore").is_err());
    }

    #[test]
    fn bad_lines_name_source_and_line() {
        let err = parse_results(
            "{\"id\": \"a_0\", \"result\": \"x\"}\nnot json\n",
            "r.jsonl",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("r.jsonl:2: not JSON"), "{err}");
        let err = parse_results("{\"id\": \"a_0\"}", "r.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("r.jsonl:1: field `result` is missing"),
            "{err}"
        );
        let err = parse_results("[1]", "r.jsonl").unwrap_err().to_string();
        assert!(err.contains("r.jsonl:1: not a JSON object"), "{err}");
        let ok = parse_results("{\"id\": \"a_0\", \"result\": [1]}\r\n", "r").unwrap();
        assert_eq!(ok[0].result, ModelResult::NotText("list"));
    }
}
