//! BFCL questions to SPEC §0 tasks (`itc ood convert bfcl`,
//! `itc eval --dataset bfcl:<category>`).
//!
//! - **Tools** come from the function docs: each property becomes a
//!   parameter with BFCL's own type name (`float`, `dict`, `tuple`, `any`),
//!   its `enum`, `items`, nested `properties` and `default`; `required`
//!   decides which list it goes to.
//! - **The query** is the question's messages: one user message as it is;
//!   several (the live categories' system prompts and earlier turns) joined
//!   by blank lines, each but the user's labelled with its role.
//! - **Gold calls** take the first allowed value of each parameter of the
//!   possible answer; a parameter whose first allowed value is `""` (may be
//!   omitted) is left out, unless the doc requires it, when its first other
//!   value is taken. A `dict` parameter's allowed map and an array of such
//!   maps are built the same way, key by key.
//! - **The whole possible answer** stays on the task (`gold.official`:
//!   category, id, function docs, ground truth), so the official checker can
//!   run from the task file alone.
//! - **Kind** follows SPEC §0 from the gold calls: one call `single`,
//!   several of one tool `repeated`, of several tools `parallel`, none
//!   (`irrelevance`, `live_irrelevance`) `no_tool`. `live_relevance` has no
//!   possible answer: any call is right there, so its tasks are `single`
//!   with no gold call (SPEC §3 cannot score them; the official rule can).
//! - **Language** is whatlang's reliable guess on the query's prose, else
//!   English.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Value as J, json};

use super::files::{PossibleAnswer, Question, read_possible_answers, read_questions};
use super::task_fields::{bfcl_task, tool_of};
use super::{Category, CategorySet};
use crate::benchmarks::python::PyValue;
use crate::spec::records::{Call, Task, TaskKind, Tool, Value};

/// The tasks of a set of categories from BFCL's files (see [`category_files`]).
pub fn convert_files(set: CategorySet, files: &[PathBuf]) -> anyhow::Result<Vec<Task>> {
    let mut tasks = Vec::new();
    for c in set.categories() {
        let (questions, answers) = category_files(c, files)?;
        tasks.extend(convert_category(c, &questions, answers.as_deref())?);
    }
    Ok(tasks)
}

/// A category's question file and possible answers among BFCL's files,
/// told apart by name: `BFCL_v4_<category>.json` is the question file, the
/// file of the same name in a folder called `possible_answer` its possible
/// answers (none for the relevance categories).
pub fn category_files(
    category: Category,
    files: &[PathBuf],
) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
    let name = category.question_file();
    let find = |in_answers: bool| {
        files.iter().find(|p| {
            let parent = p.parent().and_then(Path::file_name);
            p.file_name().is_some_and(|n| n == name.as_str())
                && (parent.is_some_and(|d| d == "possible_answer") == in_answers)
        })
    };
    let questions = find(false)
        .with_context(|| format!("BFCL {category}: no question file {name} among the files"))?;
    let answers = find(true);
    anyhow::ensure!(
        answers.is_some() || !category.has_possible_answers(),
        "BFCL {category}: no possible_answer/{name} among the files"
    );
    Ok((questions.clone(), answers.cloned()))
}

/// The tasks of one category from its question file and, where the
/// category has one, its possible-answer file (same ids, same order).
pub fn convert_category(
    category: Category,
    questions: &Path,
    possible_answers: Option<&Path>,
) -> anyhow::Result<Vec<Task>> {
    if category.is_multi_turn() {
        let answers = possible_answers.with_context(|| {
            format!(
                "BFCL {category}: its possible-answer file ({}) is needed",
                category.possible_answer_file()
            )
        })?;
        return super::multi_turn::tasks::convert_multi_turn(category, questions, answers);
    }
    let qs = read_questions(questions)?;
    let answers = match (category.has_possible_answers(), possible_answers) {
        (true, Some(path)) => Some(read_possible_answers(path)?),
        (true, None) => anyhow::bail!(
            "BFCL {category}: its possible-answer file ({}) is needed",
            category.possible_answer_file()
        ),
        (false, _) => None,
    };
    if let Some(answers) = &answers {
        anyhow::ensure!(
            answers.len() == qs.len(),
            "BFCL {category}: {} questions in {} but {} possible answers",
            qs.len(),
            questions.display(),
            answers.len()
        );
    }
    qs.iter()
        .enumerate()
        .map(|(i, q)| {
            let answer = answers.as_ref().map(|a| &a[i]);
            if let Some(a) = answer {
                anyhow::ensure!(
                    a.id == q.id,
                    "BFCL {category}: line {}: question {:?} but possible answer {:?}",
                    i + 1,
                    q.id,
                    a.id
                );
            }
            question_task(category, q, answer)
                .with_context(|| format!("{}:{}: question {}", questions.display(), i + 1, q.id))
        })
        .collect()
}

/// One question's task.
pub fn question_task(
    category: Category,
    question: &Question,
    answer: Option<&PossibleAnswer>,
) -> anyhow::Result<Task> {
    let tools = question
        .function
        .iter()
        .enumerate()
        .map(|(i, doc)| tool_of(doc).with_context(|| format!("field `function[{i}]`")))
        .collect::<anyhow::Result<Vec<Tool>>>()?;
    let calls = match answer {
        Some(a) => gold_calls(&a.ground_truth, &question.function)?,
        None => Vec::new(),
    };
    let kind = match category {
        Category::LiveRelevance => TaskKind::Single,
        _ => TaskKind::of_calls(&calls),
    };
    let query = query_text(question);
    let mut official = json!({
        "benchmark": "bfcl",
        "category": category.as_str(),
        "id": question.id,
        "function": question.function,
        "question": question.question,
    });
    if let Some(a) = answer {
        official["ground_truth"] = a.ground_truth.to_json();
    }
    Ok(bfcl_task(
        &question.id,
        category,
        kind,
        query,
        tools,
        calls,
        official,
    ))
}

/// The messages of every turn, as one query.
fn query_text(question: &Question) -> String {
    let messages: Vec<_> = question.question.iter().flatten().collect();
    if let [only] = messages.as_slice() {
        return only.content.clone();
    }
    messages
        .iter()
        .map(|m| match m.role.as_str() {
            "user" => m.content.clone(),
            role => {
                let mut label = role.to_string();
                label[..1].make_ascii_uppercase();
                format!("{label}: {}", m.content)
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The gold calls: the first allowed value of each parameter.
fn gold_calls(ground_truth: &PyValue, docs: &[J]) -> anyhow::Result<Vec<Call>> {
    let PyValue::List(entries) = ground_truth else {
        anyhow::bail!("field `ground_truth`: not a list");
    };
    let mut calls = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some((PyValue::Str(name), PyValue::Dict(params))) = single_entry(entry) else {
            anyhow::bail!("field `ground_truth[{i}]`: not a one-key map of a name to parameters");
        };
        let name = name.to_string_lossy();
        let doc = docs.iter().find(|d| d["name"].as_str() == Some(&name));
        let required = |p: &str| {
            doc.and_then(|d| d["parameters"]["required"].as_array())
                .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(p)))
        };
        let schema = |p: &str| doc.map(|d| &d["parameters"]["properties"][p]);
        let mut arguments = Vec::new();
        for (key, allowed) in params {
            let PyValue::Str(key) = key else { continue };
            let key = key.to_string_lossy();
            if let Some(v) = first_allowed(allowed, required(&key)) {
                arguments.push((key.clone(), value_of(v, schema(&key))));
            }
        }
        calls.push(Call::new(name, arguments));
    }
    Ok(calls)
}

fn single_entry(v: &PyValue) -> Option<(&PyValue, &PyValue)> {
    match v {
        PyValue::Dict(entries) if entries.len() == 1 => Some((&entries[0].0, &entries[0].1)),
        _ => None,
    }
}

fn is_omittable(v: &PyValue) -> bool {
    matches!(v, PyValue::Str(s) if s.is_empty())
}

/// The first allowed value; `None` when it is `""` (omit) and the
/// parameter is not required.
fn first_allowed(allowed: &PyValue, required: bool) -> Option<&PyValue> {
    let PyValue::List(values) = allowed else {
        return Some(allowed);
    };
    match values.first() {
        Some(v) if is_omittable(v) && required => values.iter().find(|v| !is_omittable(v)),
        Some(v) if is_omittable(v) => None,
        first => first,
    }
}

/// A value of the possible answer as a SPEC value: a `dict` parameter's
/// map of allowed lists (and an array of them) by first allowed values.
fn value_of(v: &PyValue, schema: Option<&J>) -> Value {
    let kind = schema.and_then(|s| s["type"].as_str()).unwrap_or_default();
    let item_kind = schema
        .and_then(|s| s["items"]["type"].as_str())
        .unwrap_or_default();
    match v {
        PyValue::Dict(entries) if kind == "dict" => allowed_map(entries),
        PyValue::List(items) if kind == "array" && item_kind == "dict" => Value::List(
            items
                .iter()
                .map(|item| match item {
                    PyValue::Dict(entries) => allowed_map(entries),
                    other => to_spec_value(other),
                })
                .collect(),
        ),
        other => to_spec_value(other),
    }
}

fn allowed_map(entries: &[(PyValue, PyValue)]) -> Value {
    Value::Dict(
        entries
            .iter()
            .filter_map(|(k, allowed)| {
                let PyValue::Str(k) = k else { return None };
                let v = first_allowed(allowed, false)?;
                Some((k.to_string_lossy(), to_spec_value(v)))
            })
            .collect(),
    )
}

/// A Python value as a SPEC value (tuples stay tuples).
pub fn to_spec_value(v: &PyValue) -> Value {
    match v {
        PyValue::None => Value::Null,
        PyValue::Bool(b) => Value::Bool(*b),
        PyValue::Int(t) => t
            .parse::<i64>()
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Float(t.parse().unwrap_or(f64::NAN))),
        PyValue::Float(x) | PyValue::Complex(x) => Value::Float(*x),
        PyValue::Str(s) => Value::Str(s.to_string_lossy()),
        PyValue::List(items) | PyValue::Set(items) => {
            Value::List(items.iter().map(to_spec_value).collect())
        }
        PyValue::Tuple(items) => Value::Tuple(items.iter().map(to_spec_value).collect()),
        PyValue::Dict(entries) => Value::Dict(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        PyValue::Str(s) => s.to_string_lossy(),
                        other => other.to_json().to_string(),
                    };
                    (key, to_spec_value(v))
                })
                .collect(),
        ),
        PyValue::Bytes(b) => Value::Str(String::from_utf8_lossy(b).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::json_loads_str;
    use crate::spec::records::Parameter;

    fn question(line: &str) -> Question {
        serde_json::from_str(line).unwrap()
    }

    fn answer(line: &str) -> PossibleAnswer {
        let v = json_loads_str(line).unwrap();
        PossibleAnswer {
            id: "x".into(),
            ground_truth: v.get_str("ground_truth").unwrap().clone(),
        }
    }

    const DOC: &str = r#"{"id": "x", "question": [[{"role": "user", "content": "Find the area of a triangle with base 10 and height 5."}]],
        "function": [{"name": "geo.area", "description": "Area.", "parameters": {"type": "dict",
          "properties": {"base": {"type": "integer", "description": "Base"},
                         "unit": {"type": "string", "enum": ["cm", "m"], "description": "Unit"},
                         "point": {"type": "tuple", "items": {"type": "float"}, "description": "P"},
                         "options": {"type": "dict", "properties": {"lang": {"type": "string"}}, "description": "O"},
                         "height": {"type": "float", "description": "Height"}},
          "required": ["height", "base"]}}]}"#;

    #[test]
    fn docs_become_tools_with_types_enums_and_nesting() {
        let q = question(DOC);
        let a = answer(
            r#"{"ground_truth": [{"geo.area": {"base": [10], "height": ["", 5.0], "unit": ["", "cm"], "point": [[1.5, 2.5], ""], "options": [{"lang": ["en", ""]}, ""]}}]}"#,
        );
        let t = question_task(Category::SimplePython, &q, Some(&a)).unwrap();
        let tool = &t.tools[0];
        let names = |ps: &[Parameter]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&tool.required_parameters), ["base", "height"]);
        assert_eq!(
            names(&tool.optional_parameters),
            ["unit", "point", "options"]
        );
        assert_eq!(
            tool.optional_parameters[0].allowed,
            Some(vec![json!("cm"), json!("m")])
        );
        assert_eq!(tool.optional_parameters[1].kind, "tuple");
        assert_eq!(
            tool.optional_parameters[1].items,
            Some(json!({"type": "float"}))
        );
        assert!(tool.optional_parameters[2].properties.is_some());
        // `height` is required: its first value other than "" is taken;
        // `unit` may be omitted; the dict is built key by key.
        let call = &t.gold.calls[0];
        assert_eq!(call.name, "geo.area");
        assert_eq!(
            call.arguments,
            [
                ("base".to_string(), Value::Int(10)),
                ("height".to_string(), Value::Float(5.0)),
                (
                    "point".to_string(),
                    Value::List(vec![Value::Float(1.5), Value::Float(2.5)])
                ),
                (
                    "options".to_string(),
                    Value::Dict(vec![("lang".into(), Value::Str("en".into()))])
                ),
            ]
        );
        assert_eq!(t.kind, TaskKind::Single);
        assert_eq!(t.language, "en");
        let official = t.gold.official.unwrap();
        assert_eq!(
            official["ground_truth"][0]["geo.area"]["height"],
            json!(["", 5.0])
        );
        assert_eq!(official["function"][0]["name"], "geo.area");
    }

    #[test]
    fn kinds_follow_the_gold_calls() {
        let q = question(DOC);
        let two = |a: &str, b: &str| {
            answer(&format!(
                r#"{{"ground_truth": [{{"{a}": {{"base": [1], "height": [2.0]}}}}, {{"{b}": {{"base": [3], "height": [4.0]}}}}]}}"#
            ))
        };
        let kind = |c, a: Option<&PossibleAnswer>| question_task(c, &q, a).unwrap().kind;
        assert_eq!(
            kind(Category::Parallel, Some(&two("geo.area", "geo.area"))),
            TaskKind::Repeated
        );
        assert_eq!(
            kind(
                Category::ParallelMultiple,
                Some(&two("geo.area", "geo.len"))
            ),
            TaskKind::Parallel
        );
        assert_eq!(kind(Category::Irrelevance, None), TaskKind::NoTool);
        assert_eq!(kind(Category::LiveRelevance, None), TaskKind::Single);
    }

    #[test]
    fn several_messages_are_joined_with_their_roles() {
        let q = question(
            r#"{"id": "x", "question": [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "你好，请帮我查一下北京明天的天气怎么样"}]], "function": []}"#,
        );
        let t = question_task(Category::LiveIrrelevance, &q, None).unwrap();
        assert_eq!(
            t.query,
            "System: Be brief.\n\n你好，请帮我查一下北京明天的天气怎么样"
        );
        assert_eq!(t.language, "zh");
        assert!(t.tools.is_empty());
    }

    #[test]
    fn every_shipped_category_converts() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/bfcl");
        let mut total = 0;
        for c in Category::SINGLE_TURN {
            let answers = dir.join(c.possible_answer_file());
            let tasks = convert_category(
                c,
                &dir.join(c.question_file()),
                c.has_possible_answers().then_some(answers.as_path()),
            )
            .unwrap();
            assert!(!tasks.is_empty(), "{c}");
            if c.has_possible_answers() {
                assert!(tasks.iter().all(|t| !t.gold.calls.is_empty()), "{c}");
            }
            total += tasks.len();
        }
        assert_eq!(
            total,
            400 + 200 + 200 + 200 + 240 + 258 + 1053 + 16 + 24 + 884 + 16
        );
    }
}
