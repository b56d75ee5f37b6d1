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
//! in AST categories, "no call" in relevance ones; so does a string holding
//! a lone surrogate (JSON's `"\ud800"`), which Python's `ast.parse` cannot
//! encode as UTF-8. A line without `id` or
//! `result`, or that is not a JSON object, stops the official runner; here
//! it is an error naming file and line. Lines are split as Python's
//! universal newlines do (`\n`, `\r\n`, `\r`), and a blank line is not
//! JSON, as for the official `json.loads` of each line. A line longer than
//! [`BFCL_RESULT_LINE_MAX_BYTES`] is an error naming file and line: reading
//! stops there, so the line is never held whole.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use super::check::{CheckerKind, ErrorType, ExpectedNames, Verdict, check, validate_entry};
use super::files::{PossibleAnswer, Question};
pub use super::result_decoder::ModelResult;
use super::result_decoder::{Decoded, ResultDecoder};
use super::{Call, Category};
use crate::benchmarks::python::{PyValue, json_loads_str};
use crate::spec::limits::BFCL_RESULT_LINE_MAX_BYTES;

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
    check_result(
        category,
        question,
        possible,
        &ModelResult::Text(text.to_string()),
        ResultDecoder::Prompt,
    )
}

/// The verdict on one result: decoded by `decoder`, then checked as the
/// official runner checks it.
pub fn check_result(
    category: Category,
    question: &Question,
    possible: Option<&PossibleAnswer>,
    result: &ModelResult,
    decoder: ResultDecoder,
) -> Verdict {
    let names = decoder.expected_names();
    match decoder.decode(result) {
        Ok(Decoded::Calls(calls)) => check_calls_named(category, question, possible, &calls, names),
        Ok(Decoded::WrongFormat) if is_relevance(category) => {
            relevance_verdict(category, false, None)
        }
        Ok(Decoded::WrongFormat) => Verdict::invalid(
            ErrorType::DecoderWrongOutputFormat,
            vec![Value::String(
                "Did not output in the specified format. Note: the model_result is wrapped in a \
                 string to ensure json serializability."
                    .into(),
            )],
        ),
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
    check_calls_named(
        category,
        question,
        possible,
        calls,
        ExpectedNames::AsWritten,
    )
}

/// [`check_calls`] with the expected names written as `names` says.
fn check_calls_named(
    category: Category,
    question: &Question,
    possible: Option<&PossibleAnswer>,
    calls: &[Call],
    names: ExpectedNames,
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
    Verdict::from_check(check(kind, &question.function, calls, ground_truth, names))
}

/// Reads a BFCL result file (JSON Lines; see the module doc for what each
/// line must hold). An error names the file and the line.
pub fn read_results(path: &Path) -> anyhow::Result<Vec<ResultLine>> {
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    read_result_lines(
        BufReader::new(file),
        &path.display().to_string(),
        BFCL_RESULT_LINE_MAX_BYTES,
    )
}

/// [`read_results`] on text already read; `source` names it in errors.
pub fn parse_results(text: &str, source: &str) -> anyhow::Result<Vec<ResultLine>> {
    read_result_lines(text.as_bytes(), source, BFCL_RESULT_LINE_MAX_BYTES)
}

/// The result lines of `reader`, each at most `max_line` bytes.
fn read_result_lines(
    reader: impl BufRead,
    source: &str,
    max_line: usize,
) -> anyhow::Result<Vec<ResultLine>> {
    let mut out = Vec::new();
    for_each_universal_line(reader, source, max_line, |number, line| {
        out.push(result_line(source, number, line)?);
        Ok(())
    })?;
    Ok(out)
}

/// One result line, read as the official runner reads it.
fn result_line(source: &str, number: usize, line: &[u8]) -> anyhow::Result<ResultLine> {
    let line = std::str::from_utf8(line)
        .map_err(|e| anyhow::anyhow!("{source}:{number}: not UTF-8 ({e})"))?;
    let value =
        json_loads_str(line).map_err(|e| anyhow::anyhow!("{source}:{number}: not JSON ({e})"))?;
    if !matches!(value, PyValue::Dict(_)) {
        bail!("{source}:{number}: not a JSON object");
    }
    let id = match value.get_str("id") {
        Some(PyValue::Str(s)) => s.to_string_lossy(),
        Some(_) => bail!("{source}:{number}: field `id` is not a string"),
        None => bail!("{source}:{number}: field `id` is missing"),
    };
    let result = match value.get_str("result") {
        Some(PyValue::Str(s)) if s.first_surrogate().is_some() => {
            ModelResult::NotText(PyValue::Str(s.clone()))
        }
        Some(PyValue::Str(s)) => ModelResult::Text(s.to_string_lossy()),
        Some(other) => ModelResult::NotText(other.clone()),
        None => bail!("{source}:{number}: field `result` is missing"),
    };
    Ok(ResultLine { id, result })
}

/// Hands `each` the lines of `reader` numbered from 1, as Python's
/// `readlines()` in text mode gives them (universal newlines: `\n`,
/// `\r\n`, `\r`), without their endings; no empty line after a final
/// ending. A line longer than `max_line` bytes is an error naming it, found
/// once `max_line` bytes of it are read (the rest is never read).
fn for_each_universal_line(
    mut reader: impl BufRead,
    source: &str,
    max_line: usize,
    mut each: impl FnMut(usize, &[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut line = Vec::new();
    let mut number = 0;
    // The last line ended with `\r`: a `\n` right after it belongs to it.
    let mut after_cr = false;
    loop {
        let bytes = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(anyhow::anyhow!("{source}: {e}")),
        };
        if bytes.is_empty() {
            if !line.is_empty() {
                each(number + 1, &line)?;
            }
            return Ok(());
        }
        let start = usize::from(std::mem::take(&mut after_cr) && bytes[0] == b'\n');
        let (piece, ending) = match memchr::memchr2(b'\n', b'\r', &bytes[start..]) {
            Some(i) => (&bytes[start..start + i], Some(bytes[start + i])),
            None => (&bytes[start..], None),
        };
        if line.len() + piece.len() > max_line {
            bail!(
                "{source}:{}: a line longer than {max_line} bytes (itc's limit; the line is not read)",
                number + 1
            );
        }
        line.extend_from_slice(piece);
        let used = start + piece.len() + usize::from(ending.is_some());
        reader.consume(used);
        if let Some(ending) = ending {
            number += 1;
            each(number, &line)?;
            line.clear();
            after_cr = ending == b'\r';
        }
    }
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
    score_results_with(
        category,
        questions,
        possible,
        results,
        ResultDecoder::Prompt,
    )
}

/// [`score_results`] on the results of a model whose handler decodes them
/// with `decoder`.
pub fn score_results_with(
    category: Category,
    questions: &[Question],
    possible: &[PossibleAnswer],
    results: &[ResultLine],
    decoder: ResultDecoder,
) -> anyhow::Result<OfficialScore> {
    let ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    let order = pair_results(category, &ids, possible.len(), results)?;
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
        let result = &results[line_index].result;
        verdicts[line_index] = Some(check_result(category, question, answer, result, decoder));
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

/// The result-line index paired with each question (by its id, in
/// question order; `possible` answers counted), in question order; an
/// error where the official runner would raise.
pub(crate) fn pair_results(
    category: Category,
    questions: &[&str],
    possible: usize,
    results: &[ResultLine],
) -> anyhow::Result<Vec<usize>> {
    if results.is_empty() {
        bail!("{category}: the result file has no lines (the official runner divides by zero)");
    }
    if !is_relevance(category) && possible != questions.len() {
        bail!(
            "{category}: {possible} possible answers for {} questions (the official runner asserts they match)",
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
    let known: HashMap<&str, usize> = questions.iter().enumerate().map(|(i, q)| (*q, i)).collect();
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

    /// The lines of `text` read through a buffer of `capacity` bytes.
    fn lines_of(text: &str, capacity: usize, max_line: usize) -> anyhow::Result<Vec<String>> {
        let reader = BufReader::with_capacity(capacity, text.as_bytes());
        let mut lines = Vec::new();
        for_each_universal_line(reader, "r", max_line, |number, line| {
            assert_eq!(number, lines.len() + 1);
            lines.push(String::from_utf8(line.to_vec()).unwrap());
            Ok(())
        })?;
        Ok(lines)
    }

    fn fc_verdict(category: Category, result: &str) -> Verdict {
        let question = Question {
            id: format!("{category}_0"),
            question: Vec::new(),
            function: serde_json::from_str(
                r#"[{"name": "math.factorial", "description": "F.", "parameters": {"type": "dict",
                "properties": {"number": {"type": "integer", "description": "N."}}, "required": ["number"]}}]"#,
            )
            .unwrap(),
        };
        let possible = PossibleAnswer {
            id: question.id.clone(),
            ground_truth: json_loads_str(r#"[{"math.factorial": {"number": [5]}}]"#).unwrap(),
        };
        let result = match json_loads_str(result).unwrap() {
            PyValue::Str(s) => ModelResult::Text(s.to_string_lossy()),
            other => ModelResult::NotText(other),
        };
        check_result(
            category,
            &question,
            Some(&possible),
            &result,
            ResultDecoder::FunctionCalling,
        )
    }

    #[test]
    fn function_calling_results_are_checked_as_bfcl_evals_fc_path_checks_them() {
        let simple = Category::SimplePython;
        // The name as sent (`.` written `_`) is right; the dotted one is not.
        assert!(fc_verdict(simple, r#"[{"math_factorial": "{\"number\": 5}"}]"#).valid);
        let dotted = fc_verdict(simple, r#"[{"math.factorial": "{\"number\": 5}"}]"#);
        assert_eq!(dotted.error_type, Some(ErrorType::WrongFuncName));
        assert_eq!(
            dotted.errors,
            [Value::String(
                "Function name 'math_factorial' not found in model output.".into()
            )]
        );
        // JSON types are kept: 5.0 is a float, which an integer parameter refuses.
        let float = fc_verdict(simple, r#"[{"math_factorial": "{\"number\": 5.0}"}]"#);
        assert_eq!(float.error_type, Some(ErrorType::TypeSimple));
        // Invalid JSON fails the whole answer, with Python's message.
        let broken = fc_verdict(simple, r#"[{"math_factorial": "{\"number\": 5"}]"#);
        assert_eq!(broken.error_type, Some(ErrorType::DecoderFailed));
        assert_eq!(
            broken.errors,
            [Value::String(
                "Invalid syntax. Failed to decode AST. Expecting ',' delimiter: line 1 column 13 (char 12)"
                    .into()
            )]
        );
        // A text answer to a function-calling model stays text, and fails.
        let text = fc_verdict(simple, r#""[math_factorial(number=5)]""#);
        assert_eq!(text.error_type, Some(ErrorType::DecoderFailed));
        let wrong = fc_verdict(simple, r#"[{"math_factorial": "[5]"}]"#);
        assert_eq!(wrong.error_type, Some(ErrorType::DecoderWrongOutputFormat));
        // Relevance: a text answer is no call; a call is one.
        assert!(!fc_verdict(Category::LiveRelevance, r#""no""#).valid);
        assert!(fc_verdict(Category::Irrelevance, r#""no""#).valid);
        assert!(!fc_verdict(Category::Irrelevance, r#"[{"f": "{}"}]"#).valid);
    }

    #[test]
    fn lines_split_like_python_universal_newlines() {
        // Every buffer size, so that a `\r\n` is also split between reads.
        for capacity in 1..8 {
            let lines = lines_of("a\r\nb\rc\nd\n", capacity, 10).unwrap();
            assert_eq!(lines, ["a", "b", "c", "d"]);
            let lines = lines_of("a\n\nb", capacity, 10).unwrap();
            assert_eq!(lines, ["a", "", "b"]);
            let lines = lines_of("a\r\r\nb\r", capacity, 10).unwrap();
            assert_eq!(lines, ["a", "", "b"]);
            assert!(lines_of("", capacity, 10).unwrap().is_empty());
        }
    }

    #[test]
    fn an_over_long_line_is_refused_without_reading_it_whole() {
        let err = lines_of("abc\r\n0123456789x\nz", 4, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "r:2: a line longer than 10 bytes (itc's limit; the line is not read)"
        );
        assert_eq!(lines_of("0123456789\r\n", 4, 10).unwrap(), ["0123456789"]);
        // An endless line: refused once the limit is passed.
        let endless = BufReader::new(std::io::repeat(b'x'));
        let err = read_result_lines(endless, "pipe", 1 << 20).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("pipe:1: a line longer than 1048576 bytes")
        );
    }

    #[test]
    fn a_result_file_with_a_line_over_the_limit_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("BFCL_v4_simple_python_result.json");
        let long = "x".repeat(BFCL_RESULT_LINE_MAX_BYTES);
        let text = format!(
            "{{\"id\": \"simple_python_0\", \"result\": \"[]\"}}\n{{\"id\": \"simple_python_1\", \"result\": \"{long}\"}}\n"
        );
        std::fs::write(&path, text).unwrap();
        let err = read_results(&path).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}:2: a line longer than {BFCL_RESULT_LINE_MAX_BYTES} bytes (itc's limit; the line is not read)",
                path.display()
            )
        );
        // Within the limit, a line is read (its result is then too long
        // to decode, as before).
        let fits = "x".repeat(BFCL_RESULT_LINE_MAX_BYTES - 50);
        let text = format!("{{\"id\": \"simple_python_1\", \"result\": \"{fits}\"}}");
        std::fs::write(&path, text).unwrap();
        let lines = read_results(&path).unwrap();
        assert_eq!(lines[0].result, ModelResult::Text(fits));
    }

    #[test]
    fn wide_json_results_read_in_linear_time() {
        // A `result` that is a JSON object of 200,000 keys (json.loads keeps
        // the last value of a repeated key at its first position).
        let keys: Vec<String> = (0..200_000).map(|k| format!("\"k{k}\": {k}")).collect();
        let text = format!(
            "{{\"id\": \"simple_python_0\", \"result\": {{{}, \"k0\": -1}}, \"id\": \"simple_python_1\"}}",
            keys.join(", ")
        );
        let lines = parse_results(&text, "r").unwrap();
        assert_eq!(lines[0].id, "simple_python_1");
        let ModelResult::NotText(result) = &lines[0].result else {
            panic!("a dict")
        };
        assert_eq!(result.type_name(), "dict");
        let value = json_loads_str(&text).unwrap();
        let Some(PyValue::Dict(entries)) = value.get_str("result") else {
            panic!("not a dict")
        };
        assert_eq!(entries.len(), 200_000);
        assert_eq!(entries[0].1, PyValue::Int("-1".into()));
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
        assert_eq!(
            ok[0].result,
            ModelResult::NotText(PyValue::List(vec![PyValue::Int("1".into())]))
        );
    }
}
