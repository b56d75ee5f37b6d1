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

/// The copies: every task's language and tools' names in one text, and
/// its gold calls.
pub(super) struct TaskCopy {
    text: String,
    /// Where each piece (language, names) ends in `text`.
    ends: Vec<usize>,
    /// The index of each task's first piece, and one past the last task's.
    firsts: Vec<usize>,
    /// Each task's gold calls, copied in task order.
    gold_calls: Vec<Vec<Call>>,
}

impl TaskCopy {
    /// Copies what scoring reads of `tasks`.
    pub(super) fn of(tasks: &[Task]) -> Self {
        let mut copy = TaskCopy {
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
}

/// The tasks, their copies and the copied text's pieces as string slices:
/// a [`TaskView`] of any task.
pub(super) struct TaskViews<'t> {
    tasks: &'t [Task],
    copy: &'t TaskCopy,
    pieces: Vec<&'t str>,
}

impl<'t> TaskViews<'t> {
    /// The views of `tasks` through `copy` (made by [`TaskCopy::of`] from them).
    pub(super) fn new(tasks: &'t [Task], copy: &'t TaskCopy) -> Self {
        let mut start = 0;
        let pieces = copy
            .ends
            .iter()
            .map(|&end| {
                let piece = &copy.text[start..end];
                start = end;
                piece
            })
            .collect();
        TaskViews {
            tasks,
            copy,
            pieces,
        }
    }

    /// The view of task `index`.
    pub(super) fn view(&self, index: usize) -> TaskView<'_> {
        let task = &self.tasks[index];
        let own = &self.pieces[self.copy.firsts[index]..self.copy.firsts[index + 1]];
        TaskView {
            language: own[0],
            candidates: &own[1..],
            gold: GoldSide {
                calls: &self.copy.gold_calls[index],
                thought: &task.gold.thought,
                tools: &task.tools,
                shown: &[],
            },
        }
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
        let copy = TaskCopy::of(&tasks);
        let views = TaskViews::new(&tasks, &copy);
        for (index, task) in tasks.iter().enumerate() {
            let view = views.view(index);
            assert_eq!(view.language, task.language);
            let names: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(view.candidates, names.as_slice());
            assert_eq!(view.gold.calls, task.gold.calls.as_slice());
            assert_eq!(view.gold.thought, task.gold.thought);
        }
    }
}
