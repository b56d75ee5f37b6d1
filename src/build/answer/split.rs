//! The train/test split with no API on both sides, and the export of the
//! training tasks as a ShareGPT dataset for LLaMA-Factory.
//!
//! **Split.** Tasks that share a gold API (the names their gold calls use)
//! belong together, transitively (union-find): a task calling A and B joins
//! every task calling A and every task calling B. Whole groups go to one
//! side: groups are shuffled with the seed and each goes to the test side
//! while it still fits under `round(test_fraction · n)` tasks, else to the
//! training side. So the test side never exceeds its share and may fall
//! short of it when groups are large. A task without gold calls (`no_tool`)
//! is a group of its own. Both sides keep the input order.
//!
//! **ShareGPT** (LLaMA-Factory `data/README.md`, "Sharegpt Format"): one
//! object per task, `{"conversations": [{"from": "human", "value": query},
//! {"from": "gpt", "value": "{\"Thought\": …, \"Action\": …}"}], "system":
//! …, "tools": …}`. The system prompt is exactly the prompt-mode prompt
//! `itc eval` sends ([`crate::models::prompt`]), which already lists the tools,
//! so a fine-tuned model sees at training time what it sees when evaluated.
//! The `tools` field holds the same tools as JSON for reference, but the
//! `dataset_info.json` entry does not map it: LLaMA-Factory would otherwise
//! add its own tool-calling instructions and a second tool list to the
//! system prompt, with an answer format other than ITC's.

use serde_json::{Value as Json, json};

use crate::models::Mode;
use crate::models::prompt::{render, tools_json};
use crate::spec::action::print_actions;
use crate::spec::records::{Call, Task, Value};

/// Splits tasks into (train, test) so that no gold API is on both sides.
pub fn split(tasks: &[Task], test_fraction: f64, seed: u64) -> (Vec<Task>, Vec<Task>) {
    let groups = groups(tasks);
    let target = (test_fraction.clamp(0.0, 1.0) * tasks.len() as f64).round() as usize;
    let mut order: Vec<usize> = (0..groups.len()).collect();
    fastrand::Rng::with_seed(seed).shuffle(&mut order);
    let mut in_test = vec![false; tasks.len()];
    let mut test_size = 0;
    for g in order {
        if test_size + groups[g].len() <= target {
            test_size += groups[g].len();
            for &t in &groups[g] {
                in_test[t] = true;
            }
        }
    }
    let mut train = Vec::new();
    let mut test = Vec::new();
    for (task, &is_test) in tasks.iter().zip(&in_test) {
        if is_test {
            test.push(task.clone());
        } else {
            train.push(task.clone());
        }
    }
    (train, test)
}

/// Groups of task indices linked by shared gold APIs, each in input order,
/// groups ordered by their first task.
pub fn groups(tasks: &[Task]) -> Vec<Vec<usize>> {
    let keys = tasks
        .iter()
        .enumerate()
        .flat_map(|(t, task)| task.gold.calls.iter().map(move |c| (t, c.name.as_str())));
    crate::util::linked::linked_groups(tasks.len(), keys)
}

/// The gold answer as the model should write it: `{"Thought", "Action"}`
/// with references written as `'$N.field'` placeholders (N from 1), the
/// convention the prompt teaches.
pub fn gold_answer(task: &Task) -> String {
    let calls: Vec<Call> = task
        .gold
        .calls
        .iter()
        .map(|c| Call {
            name: c.name.clone(),
            arguments: c
                .arguments
                .iter()
                .map(|(k, v)| (k.clone(), placeholders(v)))
                .collect(),
        })
        .collect();
    json!({"Thought": task.gold.thought, "Action": print_actions(&calls)}).to_string()
}

fn placeholders(value: &Value) -> Value {
    match value {
        Value::Ref(r) => Value::Str(r.placeholder()),
        Value::List(items) => Value::List(items.iter().map(placeholders).collect()),
        Value::Tuple(items) => Value::Tuple(items.iter().map(placeholders).collect()),
        Value::Dict(entries) => Value::Dict(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), placeholders(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One task as a LLaMA-Factory ShareGPT record.
pub fn sharegpt_record(task: &Task) -> Json {
    let prompt = render(task, Mode::Prompt, false);
    json!({
        "conversations": [
            {"from": "human", "value": prompt.user},
            {"from": "gpt", "value": gold_answer(task)}
        ],
        "system": prompt.system,
        "tools": tools_json(task),
    })
}

/// The ShareGPT dataset: a JSON array of records.
pub fn sharegpt(tasks: &[Task]) -> Json {
    Json::Array(tasks.iter().map(sharegpt_record).collect())
}

/// The `dataset_info.json` entry LLaMA-Factory needs for the dataset file
/// `file_name`, registered as `name`.
pub fn dataset_info(name: &str, file_name: &str) -> Json {
    json!({
        name: {
            "file_name": file_name,
            "formatting": "sharegpt",
            "columns": {"messages": "conversations", "system": "system"}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::TaskKind;
    use std::collections::HashSet;

    fn task(id: &str, apis: &[&str]) -> Task {
        let calls: Vec<Json> = apis
            .iter()
            .map(|a| json!({"name": a, "arguments": {"q": "x"}}))
            .collect();
        serde_json::from_value(json!({
            "id": id, "kind": if apis.is_empty() { "no_tool" } else { "single" }, "language": "en",
            "query": format!("query {id}"),
            "tools": [{"name": "A"}, {"name": "B"}],
            "gold": {"thought": "t", "calls": calls}
        }))
        .unwrap()
    }

    fn apis(tasks: &[Task]) -> HashSet<String> {
        tasks
            .iter()
            .flat_map(|t| t.gold.calls.iter().map(|c| c.name.clone()))
            .collect()
    }

    #[test]
    fn shared_apis_group_transitively() {
        // t0–t1 share A, t1–t2 share B, t2–t3 share C: one group. D and E alone.
        let tasks = vec![
            task("t0", &["A"]),
            task("t1", &["A", "B"]),
            task("t2", &["B", "C"]),
            task("t3", &["C"]),
            task("t4", &["D"]),
            task("t5", &["E"]),
            task("t6", &[]),
            task("t7", &["E"]),
        ];
        assert_eq!(
            groups(&tasks),
            vec![vec![0, 1, 2, 3], vec![4], vec![5, 7], vec![6]]
        );
        for seed in 0..20 {
            let (train, test) = split(&tasks, 0.5, seed);
            assert_eq!(train.len() + test.len(), tasks.len());
            assert!(test.len() <= 4, "never above the share");
            assert!(
                apis(&train).is_disjoint(&apis(&test)),
                "seed {seed}: an API on both sides"
            );
            let chain = ["t0", "t1", "t2", "t3"];
            let in_test = test
                .iter()
                .filter(|t| chain.contains(&t.id.as_str()))
                .count();
            assert!(in_test == 0 || in_test == 4, "the chain is never cut");
            // Input order kept on both sides.
            let ids: Vec<&str> = train.iter().map(|t| t.id.as_str()).collect();
            let mut sorted = ids.clone();
            sorted.sort();
            assert_eq!(ids, sorted);
        }
        // Deterministic for a seed; the whole set on one side at 0 and 1.
        assert_eq!(split(&tasks, 0.5, 7), split(&tasks, 0.5, 7));
        assert_eq!(split(&tasks, 0.0, 7).1.len(), 0);
        assert_eq!(split(&tasks, 1.0, 7).0.len(), 0);
    }

    #[test]
    fn sharegpt_record_shape() {
        let mut t = task("n1", &["A", "B"]);
        t.kind = TaskKind::Nested;
        t.gold.calls[1].arguments = vec![(
            "q".into(),
            Value::Ref(crate::spec::records::Reference {
                call: 0,
                field: "token".into(),
            }),
        )];
        let record = sharegpt_record(&t);
        let conversations = record["conversations"].as_array().unwrap();
        assert_eq!(conversations.len(), 2);
        assert_eq!(
            conversations[0],
            json!({"from": "human", "value": "query n1"})
        );
        assert_eq!(conversations[1]["from"], "gpt");
        let answer: Json =
            serde_json::from_str(conversations[1]["value"].as_str().unwrap()).unwrap();
        assert_eq!(answer["Thought"], "t");
        assert_eq!(answer["Action"], "[A(q='x'), B(q='$1.token')]");
        // The gold answer meets the strict format the benchmark scores.
        assert!(
            crate::spec::response::strict_format(conversations[1]["value"].as_str().unwrap())
                .is_some()
        );
        assert_eq!(
            record["system"].as_str().unwrap(),
            render(&t, Mode::Prompt, false).system
        );
        assert!(
            record["tools"]
                .as_str()
                .unwrap()
                .contains("\"name\": \"B\"")
        );
        assert_eq!(
            dataset_info("itc_train", "train.json"),
            json!({"itc_train": {"file_name": "train.json", "formatting": "sharegpt",
                   "columns": {"messages": "conversations", "system": "system"}}})
        );
    }
}
