//! Choosing which tasks to run: by id, kind and language, then the first N.

use std::collections::HashSet;

use anyhow::bail;

use crate::spec::records::{Task, TaskKind, first_of_each_id};

/// A subset of a task file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Only these task ids (all when empty); each must exist.
    pub ids: Vec<String>,
    /// Only these kinds (all when empty).
    pub kinds: Vec<TaskKind>,
    /// Only these languages (ISO 639-1; all when empty).
    pub languages: Vec<String>,
    /// At most this many tasks, the first in file order after the filters.
    pub limit: Option<usize>,
}

impl Selection {
    /// Applies the selection. Later tasks repeating an earlier id are
    /// dropped ([`first_of_each_id`]; their ids are returned), as the
    /// scorer and the judges drop them too.
    pub fn apply(&self, tasks: Vec<Task>) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
        let (tasks, repeated) = first_of_each_id(tasks);
        let seen: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        if !self.ids.is_empty() {
            let unknown: Vec<&str> = self
                .ids
                .iter()
                .filter(|id| !seen.contains(id.as_str()))
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                bail!(
                    "--ids names tasks the task file does not have: {}",
                    unknown.join(", ")
                );
            }
        }
        let ids: HashSet<&str> = self.ids.iter().map(String::as_str).collect();
        let mut chosen: Vec<Task> = tasks
            .into_iter()
            .filter(|t| ids.is_empty() || ids.contains(t.id.as_str()))
            .filter(|t| self.kinds.is_empty() || self.kinds.contains(&t.kind))
            .filter(|t| {
                self.languages.is_empty()
                    || self
                        .languages
                        .iter()
                        .any(|l| l.eq_ignore_ascii_case(&t.language))
            })
            .collect();
        if let Some(limit) = self.limit {
            chosen.truncate(limit);
        }
        Ok((chosen, repeated))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, kind: &str, language: &str) -> Task {
        serde_json::from_value(serde_json::json!({
            "id": id, "kind": kind, "language": language, "query": "q", "tools": [], "gold": {"calls": []}
        }))
        .unwrap()
    }

    fn tasks() -> Vec<Task> {
        vec![
            task("a", "single", "en"),
            task("b", "nested", "ja"),
            task("c", "single", "ja"),
            task("a", "parallel", "de"),
            task("d", "no_tool", "en"),
        ]
    }

    fn ids(selection: &Selection) -> Vec<String> {
        selection
            .apply(tasks())
            .unwrap()
            .0
            .into_iter()
            .map(|t| t.id)
            .collect()
    }

    #[test]
    fn filters_combine_and_limit_comes_last() {
        assert_eq!(ids(&Selection::default()), ["a", "b", "c", "d"]);
        assert_eq!(Selection::default().apply(tasks()).unwrap().1, ["a"]);
        let kinds = Selection {
            kinds: vec![TaskKind::Single],
            ..Selection::default()
        };
        assert_eq!(ids(&kinds), ["a", "c"]);
        let languages = Selection {
            languages: vec!["JA".into()],
            limit: Some(1),
            ..Selection::default()
        };
        assert_eq!(ids(&languages), ["b"]);
        let by_id = Selection {
            ids: vec!["d".into(), "b".into()],
            ..Selection::default()
        };
        assert_eq!(ids(&by_id), ["b", "d"]);
    }

    #[test]
    fn unknown_ids_and_kinds_are_errors() {
        let bad = Selection {
            ids: vec!["zz".into()],
            ..Selection::default()
        };
        assert!(bad.apply(tasks()).unwrap_err().to_string().contains("zz"));
        assert_eq!(TaskKind::from_name("no_tool").unwrap(), TaskKind::NoTool);
        assert!(
            TaskKind::from_name("triple")
                .unwrap_err()
                .to_string()
                .contains("single, repeated")
        );
    }
}
