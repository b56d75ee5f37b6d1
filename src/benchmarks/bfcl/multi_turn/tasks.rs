//! The multi-turn questions as tasks (`itc eval --dataset
//! bfcl:multi_turn_…`), and a task back as what the official loop needs.
//!
//! A task's `gold.official` keeps the question as the question file has it
//! (turns, involved classes, initial configuration, held-out function
//! names) and the ground truth's call strings per turn. The function docs
//! are the official `multi_turn_func_doc/` files of the involved classes
//! (built into itc), held-out ones removed until their turn as
//! `populate_test_cases_with_predefined_functions` removes them.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde_json::{Value as J, json};

use super::apis::CLASSES;
use super::files::{MultiTurnQuestion, TurnMessage, ground_truth_turns, read_multi_turn_questions};
use crate::benchmarks::bfcl::Category;
use crate::benchmarks::bfcl::files::{Message, Question, read_possible_answers};
use crate::benchmarks::bfcl::task_fields::{bfcl_task, tool_of};
use crate::benchmarks::python::{PyValue, json_loads_str};
use crate::spec::action::{Mode, parse_actions};
use crate::spec::records::{Call, Task, TaskKind};
use crate::util::embedded;

/// What the official loop needs of one entry.
#[derive(Debug, Clone)]
pub struct MultiTurnEntry {
    /// Its category.
    pub category: Category,
    /// The question as its file has it.
    pub question: MultiTurnQuestion,
    /// The function docs offered from the start, in the docs' order.
    pub functions: Vec<J>,
    /// The held-out docs, by the turn that adds them.
    pub held_out: HeldOut,
    /// The ground truth's call strings, per turn.
    pub ground_truth: Vec<Vec<String>>,
}

impl MultiTurnEntry {
    /// The question as the request builders take it: its turns and the
    /// docs offered from the start.
    pub fn request_question(&self) -> Question {
        Question {
            id: self.question.id.clone(),
            question: self
                .question
                .turns
                .iter()
                .map(|turn| {
                    turn.iter()
                        .map(|m| Message {
                            role: m.role.clone(),
                            content: m.content.clone(),
                        })
                        .collect()
                })
                .collect(),
            function: self.functions.clone(),
        }
    }
}

/// The official function docs of an API class (`multi_turn_func_doc/`).
pub fn class_docs(class: &str) -> anyhow::Result<Vec<J>> {
    let (_, stem) = CLASSES
        .iter()
        .find(|(name, _)| *name == class)
        .with_context(|| format!("no API class {class:?} (involved_classes)"))?;
    let path = embedded::name(&format!(
        "datasets/ood/bfcl/multi_turn_func_doc/{stem}.json"
    ));
    let text = embedded::read_to_string(&path)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).with_context(|| format!("{}", path.display())))
        .collect()
}

/// Function docs held out until a turn, by turn index.
type HeldOut = BTreeMap<usize, Vec<J>>;

/// The docs of the involved classes, held-out ones apart.
fn docs_of(question: &MultiTurnQuestion) -> anyhow::Result<(Vec<J>, HeldOut)> {
    let mut functions = Vec::new();
    for class in &question.involved_classes {
        functions.extend(class_docs(class)?);
    }
    let mut held_out = BTreeMap::new();
    for (turn, names) in &question.missed_function {
        let mut docs = Vec::new();
        for name in names {
            if let Some(i) = functions.iter().position(|d| d["name"] == name.as_str()) {
                docs.push(functions.remove(i));
            }
        }
        held_out.insert(*turn, docs);
    }
    Ok((functions, held_out))
}

/// The tasks of a multi-turn category's question and possible-answer files.
pub fn convert_multi_turn(
    category: Category,
    questions: &Path,
    answers: &Path,
) -> anyhow::Result<Vec<Task>> {
    let questions_read = read_multi_turn_questions(questions)?;
    let answers_read = read_possible_answers(answers)?;
    anyhow::ensure!(
        questions_read.len() == answers_read.len(),
        "BFCL {category}: {} questions in {} but {} possible answers",
        questions_read.len(),
        questions.display(),
        answers_read.len()
    );
    questions_read
        .iter()
        .zip(&answers_read)
        .enumerate()
        .map(|(i, (q, a))| {
            anyhow::ensure!(
                a.id == q.id,
                "BFCL {category}: line {}: question {:?} but possible answer {:?}",
                i + 1,
                q.id,
                a.id
            );
            let truth = ground_truth_turns(a)?;
            task_of(category, q, &truth)
                .with_context(|| format!("{}:{}: question {}", questions.display(), i + 1, q.id))
        })
        .collect()
}

fn task_of(
    category: Category,
    question: &MultiTurnQuestion,
    ground_truth: &[Vec<String>],
) -> anyhow::Result<Task> {
    let (functions, held_out) = docs_of(question)?;
    let tools = functions
        .iter()
        .chain(held_out.values().flatten())
        .map(tool_of)
        .collect::<anyhow::Result<Vec<_>>>()?;
    // itc's own scores see the whole conversation's calls.
    let calls: Vec<Call> = ground_truth
        .iter()
        .filter(|turn| !turn.is_empty())
        .filter_map(|turn| parse_actions(&format!("[{}]", turn.join(", ")), Mode::Lenient).ok())
        .flatten()
        .collect();
    let query = question
        .turns
        .first()
        .map(|turn| {
            turn.iter()
                .map(|m| m.content.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default();
    let turns: Vec<J> = question
        .turns
        .iter()
        .map(|turn| {
            J::Array(
                turn.iter()
                    .map(|m| json!({"role": m.role, "content": m.content}))
                    .collect(),
            )
        })
        .collect();
    let missed: serde_json::Map<String, J> = question
        .missed_function
        .iter()
        .map(|(turn, names)| (turn.to_string(), json!(names)))
        .collect();
    let official = json!({
        "benchmark": "bfcl",
        "category": category.as_str(),
        "id": question.id,
        "question": turns,
        "involved_classes": question.involved_classes,
        "initial_config": question.initial_config.to_json(),
        "missed_function": missed,
        "ground_truth": ground_truth,
    });
    let kind = TaskKind::of_calls(&calls);
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

/// The entry a converted multi-turn task carries; `None` for other tasks.
pub fn entry_of(task: &Task) -> anyhow::Result<Option<MultiTurnEntry>> {
    let Some(official) = task
        .gold
        .official
        .as_ref()
        .filter(|o| o["benchmark"] == "bfcl")
    else {
        return Ok(None);
    };
    let category: Category = official["category"]
        .as_str()
        .context("gold.official.category: missing")?
        .parse()?;
    if !category.is_multi_turn() {
        return Ok(None);
    }
    let field = |name: &str| format!("task {}: gold.official.{name}", task.id);
    let text_of = |v: &J| v.as_str().map(str::to_string);
    let turns = official["question"]
        .as_array()
        .with_context(|| field("question"))?
        .iter()
        .map(|turn| {
            turn.as_array()?
                .iter()
                .map(|m| {
                    Some(TurnMessage {
                        role: text_of(&m["role"])?,
                        content: text_of(&m["content"])?,
                    })
                })
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<Vec<_>>>()
        .with_context(|| field("question"))?;
    let involved_classes = official["involved_classes"]
        .as_array()
        .and_then(|c| c.iter().map(text_of).collect::<Option<Vec<_>>>())
        .with_context(|| field("involved_classes"))?;
    let initial_config = json_loads_str(&official["initial_config"].to_string())
        .map_err(|e| anyhow::anyhow!("{}: {e}", field("initial_config")))?;
    anyhow::ensure!(
        matches!(initial_config, PyValue::Dict(_)),
        "{}: not an object",
        field("initial_config")
    );
    let mut missed_function = BTreeMap::new();
    for (turn, names) in official["missed_function"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let turn: usize = turn.parse().with_context(|| field("missed_function"))?;
        let names = names
            .as_array()
            .and_then(|n| n.iter().map(text_of).collect::<Option<Vec<_>>>())
            .with_context(|| field("missed_function"))?;
        missed_function.insert(turn, names);
    }
    let ground_truth: Vec<Vec<String>> = serde_json::from_value(official["ground_truth"].clone())
        .with_context(|| field("ground_truth"))?;
    let question = MultiTurnQuestion {
        id: official["id"].as_str().unwrap_or(&task.id).to_string(),
        turns,
        involved_classes,
        initial_config,
        missed_function,
    };
    let (functions, held_out) = docs_of(&question)?;
    Ok(Some(MultiTurnEntry {
        category,
        question,
        functions,
        held_out,
        ground_truth,
    }))
}
