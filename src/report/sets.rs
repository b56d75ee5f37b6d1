//! The task sets of a report's inputs. Inputs of different task sets (a
//! run of the sample set, one of `--dataset bfcl:simple_python`, one of
//! `--dataset stabletoolbench:G1_instruction`) are reported in a section
//! each; inputs of one task set are compared as they always were.
//!
//! Two inputs belong to one task set when they scored the same tasks (the
//! same task-set hash), were selected from the same source (a run
//! directory's `task_set.json`: the task file or `--dataset …`), or share a
//! task id; and so on transitively. Within a set, inputs that scored
//! different tasks keep the rules of [`super::inputs::check_task_sets`]:
//! refused unless `--allow-different-tasks`.

use std::path::Path;

use super::inputs::Input;
use crate::run::resume::TaskSetRecord;
use crate::spec::sample::sample_tasks;
use crate::util::linked::linked_groups;

/// The inputs of one task set, in the order given.
#[derive(Debug)]
pub struct TaskSet {
    /// How the report names it: the `--dataset` it came from (`bfcl:simple_python`),
    /// `sample` for the built-in sample set, else its task file or folder.
    pub name: String,
    /// Its inputs.
    pub inputs: Vec<Input>,
}

/// The inputs grouped by task set, in the order of each set's first input.
pub fn group(inputs: Vec<Input>) -> anyhow::Result<Vec<TaskSet>> {
    let sources: Vec<Option<String>> = inputs
        .iter()
        .map(|i| Ok(TaskSetRecord::read(&i.dir)?.map(|r| r.source)))
        .collect::<anyhow::Result<_>>()?;
    let keys: Vec<Key> = inputs
        .iter()
        .zip(&sources)
        .map(|(input, source)| Key {
            hash: input.task_set.as_deref(),
            source: source.as_deref(),
            ids: input.tasks.iter().map(|t| t.id.as_str()).collect(),
        })
        .collect();
    let members = components(&keys);
    let names: Vec<String> = members
        .iter()
        .map(|m| {
            let first = m.iter().find_map(|&i| sources[i].as_deref());
            match first {
                Some(source) => name_of(source),
                None => folder_name(&inputs[m[0]]),
            }
        })
        .collect();
    let mut slots: Vec<Option<Input>> = inputs.into_iter().map(Some).collect();
    Ok(members
        .into_iter()
        .zip(names)
        .map(|(m, name)| TaskSet {
            name,
            inputs: m.iter().map(|&i| slots[i].take().expect("once")).collect(),
        })
        .collect())
}

/// What places an input in a task set.
struct Key<'a> {
    hash: Option<&'a str>,
    source: Option<&'a str>,
    ids: Vec<&'a str>,
}

/// The indices of the inputs of each task set, in the order of each set's
/// first input.
fn components(keys: &[Key]) -> Vec<Vec<usize>> {
    // Each value tagged by its kind: a hash, a source, a task id.
    let values = keys.iter().enumerate().flat_map(|(i, key)| {
        let hash = key.hash.map(|h| (i, (0, h)));
        let source = key.source.map(|s| (i, (1, s)));
        let ids = key.ids.iter().map(move |id| (i, (2, *id)));
        hash.into_iter().chain(source).chain(ids)
    });
    linked_groups(keys.len(), values)
}

/// How a report names the task set of a recorded source.
fn name_of(source: &str) -> String {
    if let Some(dataset) = source.strip_prefix("--dataset ") {
        return dataset.to_string();
    }
    if Path::new(source) == sample_tasks() {
        return "sample".to_string();
    }
    source.to_string()
}

/// The name of a task set none of whose inputs records its source: the
/// task file its manifest names (a score folder's), else the folder.
fn folder_name(input: &Input) -> String {
    match &input.manifest {
        Some(m) if Path::new(&m.tasks.path) != Path::new("tasks.jsonl") => name_of(&m.tasks.path),
        _ => format!("the tasks of {}", input.dir.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(hash: Option<&'a str>, source: Option<&'a str>, ids: &[&'a str]) -> Key<'a> {
        Key {
            hash,
            source,
            ids: ids.to_vec(),
        }
    }

    #[test]
    fn inputs_join_by_hash_source_or_a_shared_task() {
        let keys = [
            key(Some("h1"), Some("s1"), &["a", "b"]),
            key(Some("h2"), Some("--dataset bfcl:x"), &["x1"]),
            // Same source, other tasks (a smaller --limit, another shard).
            key(Some("h3"), Some("s1"), &["c"]),
            // No source, no hash: a task shared with the first.
            key(None, None, &["z", "b"]),
            // Same hash as the second only.
            key(Some("h2"), None, &["y"]),
            key(None, None, &["alone"]),
            // A source of its own.
            key(None, Some("s9"), &["q"]),
        ];
        assert_eq!(
            components(&keys),
            vec![vec![0, 2, 3], vec![1, 4], vec![5], vec![6]]
        );
        let bridge = [
            key(None, None, &["a"]),
            key(None, None, &["b"]),
            key(None, None, &["a", "b"]),
        ];
        assert_eq!(components(&bridge), vec![vec![0, 1, 2]]);
        assert_eq!(components(&[]), Vec::<Vec<usize>>::new());
    }

    #[test]
    fn task_sets_are_named_by_their_source() {
        assert_eq!(
            name_of("--dataset bfcl:simple_python"),
            "bfcl:simple_python"
        );
        assert_eq!(name_of(&sample_tasks().display().to_string()), "sample");
        assert_eq!(name_of("data/tasks.jsonl"), "data/tasks.jsonl");
    }
}
