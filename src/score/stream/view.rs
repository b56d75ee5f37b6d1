//! What scoring a prediction reads of its task, copied together in task
//! order.
//!
//! A prediction file lists a model's answers task after task, so each
//! task's data is read once per model, thousands of predictions after it was
//! last read: long out of the CPU's caches. Read from the tasks themselves,
//! the tool names, the language and the gold calls lie scattered among
//! descriptions and parameters, one cache miss each. Copied into one text
//! and one list of gold calls in task order, they come in a few lines that
//! the CPU fetches ahead as the tasks go by.

use crate::score::task::GoldSide;
use crate::spec::records::{Call, Task};

/// The copied text of every task: its language, then its tools' names.
pub(super) struct TaskText {
    text: String,
    /// Where each piece (language, names) ends in `text`.
    ends: Vec<usize>,
    /// The index of each task's first piece, and one past the last task's.
    firsts: Vec<usize>,
    /// Each task's gold calls, copied in task order.
    gold_calls: Vec<Vec<Call>>,
}

impl TaskText {
    /// Copies what scoring reads of `tasks`.
    pub(super) fn of(tasks: &[Task]) -> Self {
        let mut copy = TaskText {
            text: String::new(),
            ends: Vec::new(),
            firsts: Vec::with_capacity(tasks.len() + 1),
            gold_calls: tasks.iter().map(|task| task.gold.calls.clone()).collect(),
        };
        for task in tasks {
            copy.firsts.push(copy.ends.len());
            let names = task.tools.iter().map(|tool| tool.name.as_str());
            for piece in std::iter::once(task.language.as_str()).chain(names) {
                copy.text.push_str(piece);
                copy.ends.push(copy.text.len());
            }
        }
        copy.firsts.push(copy.ends.len());
        copy
    }

    /// The pieces as string slices, in order.
    pub(super) fn pieces(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let piece = &self.text[start..end];
                start = end;
                piece
            })
            .collect()
    }
}

/// What scoring a prediction reads of one task.
#[derive(Debug, Clone, Copy)]
pub struct TaskView<'a> {
    /// The task's `language`.
    pub language: &'a str,
    /// The names of the tools shown to the model.
    pub candidates: &'a [&'a str],
    /// The gold side of the task.
    pub gold: GoldSide<'a>,
}

impl<'a> TaskView<'a> {
    /// The view of task `index` of `tasks`, from their copied text and its
    /// [`TaskText::pieces`].
    pub(super) fn of(
        tasks: &'a [Task],
        text: &'a TaskText,
        pieces: &'a [&'a str],
        index: usize,
    ) -> Self {
        let task = &tasks[index];
        let own = &pieces[text.firsts[index]..text.firsts[index + 1]];
        TaskView {
            language: own[0],
            candidates: &own[1..],
            gold: GoldSide {
                calls: &text.gold_calls[index],
                thought: &task.gold.thought,
                tools: &task.tools,
                shown: &[],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_hold_each_tasks_own_language_names_and_gold() {
        let sample = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/sample/tasks.jsonl"
        ));
        let tasks: Vec<Task> = sample
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert!(tasks.len() > 1 && tasks.iter().any(|t| t.tools.len() > 1));
        let text = TaskText::of(&tasks);
        let pieces = text.pieces();
        for (index, task) in tasks.iter().enumerate() {
            let view = TaskView::of(&tasks, &text, &pieces, index);
            assert_eq!(view.language, task.language);
            let names: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(view.candidates, names.as_slice());
            assert_eq!(view.gold.calls, task.gold.calls.as_slice());
            assert_eq!(view.gold.thought, task.gold.thought);
        }
    }
}
