//! Shards (`itc eval --shard K/N`): one of N deterministic, balanced shares
//! of a run's tasks, so that one evaluation can be split across machines and
//! joined again with `itc merge` ([`super::merge`]).
//!
//! The tasks selected are ranked by the SHA-256 of their id and dealt round
//! robin: shard K takes ranks K−1, K−1+N, …, in the tasks' own order. The
//! shares differ by at most one task and do not depend on the file's order.
//! A shard's run directory records the whole selection (`shard.json`), which
//! is how `itc merge` puts the shards back together in the original order.

use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::score::manifest::task_set_sha256;
use crate::spec::records::Task;
use crate::util::hash::sha256_hex;

/// Shard K of N (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which share, from 1.
    pub index: usize,
    /// How many shares.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` in digits only: no sign, no space.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("{text:?}: a shard is K/N with 1 ≤ K ≤ N, e.g. 2/8");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let whole = |part: &str| {
            whole_number(part)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        };
        let (index, count) = (whole(k)?, whole(n)?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// A whole number written in ASCII digits only (no sign, no space, no
/// other digits), `None` for anything else or beyond `u64::MAX`. How shard
/// numbers are read, given (`--shard K/N`) or from a scheduler.
pub fn whole_number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Which of the ids (in their order) fall to `shard`.
fn dealt<'a>(ids: impl Iterator<Item = &'a str>, shard: Shard) -> Vec<bool> {
    let mut ranked: Vec<(String, usize)> = ids
        .enumerate()
        .map(|(i, id)| (sha256_hex(id.as_bytes()), i))
        .collect();
    ranked.sort_unstable();
    let mut mine = vec![false; ranked.len()];
    for (rank, (_, i)) in ranked.into_iter().enumerate() {
        mine[i] = rank % shard.count == shard.index - 1;
    }
    mine
}

/// The tasks of a shard, in their own order.
pub fn shard_tasks(tasks: Vec<Task>, shard: Shard) -> Vec<Task> {
    let mine = dealt(tasks.iter().map(|t| t.id.as_str()), shard);
    tasks
        .into_iter()
        .zip(mine)
        .filter_map(|(t, keep)| keep.then_some(t))
        .collect()
}

/// The ids of a shard's tasks among a selection's `ids`, in their order:
/// what [`shard_tasks`] keeps of tasks with these ids.
pub fn shard_ids(ids: &[String], shard: Shard) -> Vec<&str> {
    let mine = dealt(ids.iter().map(String::as_str), shard);
    ids.iter()
        .zip(mine)
        .filter_map(|(id, keep)| keep.then_some(id.as_str()))
        .collect()
}

/// The file a shard's run directory records itself in.
pub const SHARD_FILE: &str = "shard.json";

/// What `shard.json` holds: the shard and the whole selection it is part of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// This shard.
    pub shard: Shard,
    /// `task_set_sha256` of the whole selection (all shards together).
    pub selection_sha256: String,
    /// The ids of the whole selection, in order.
    pub task_ids: Vec<String>,
}

impl ShardRecord {
    /// The record of `shard` of the selection `tasks`.
    pub fn new(shard: Shard, tasks: &[Task]) -> ShardRecord {
        ShardRecord {
            shard,
            selection_sha256: task_set_sha256(tasks),
            task_ids: tasks.iter().map(|t| t.id.clone()).collect(),
        }
    }

    /// Reads a run directory's `shard.json`, `None` when it has none.
    pub fn read(run_dir: &Path) -> anyhow::Result<Option<ShardRecord>> {
        let path = run_dir.join(SHARD_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .with_context(|| format!("reading {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// Writes `shard.json` into a run directory. A resumed run must be the
    /// same shard of the same selection: anything else is refused.
    fn write(&self, run_dir: &Path, resume: bool) -> anyhow::Result<()> {
        if resume && let Some(earlier) = ShardRecord::read(run_dir)? {
            if earlier.shard != self.shard {
                bail!(
                    "{}: field `shard`: the run is shard {}, this session asks {}",
                    run_dir.join(SHARD_FILE).display(),
                    earlier.shard,
                    self.shard
                );
            }
            if earlier.selection_sha256 != self.selection_sha256 {
                bail!(
                    "{}: field `selection_sha256`: the run's selection of tasks differs from this session's (other task file or filters)",
                    run_dir.join(SHARD_FILE).display()
                );
            }
        }
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::util::atomic::write(&run_dir.join(SHARD_FILE), text.as_bytes())
    }
}

/// Records a run's shard in its directory (`None`: the run is not a shard).
/// Resuming a shard's run as a whole run, or a whole run as a shard, is
/// refused: the predictions would cover another set of tasks.
pub fn record_shard(
    run_dir: &Path,
    record: Option<&ShardRecord>,
    resume: bool,
) -> anyhow::Result<()> {
    match record {
        Some(record) => record.write(run_dir, resume),
        None if resume && ShardRecord::read(run_dir)?.is_some() => bail!(
            "{}: the run is a shard; resume it with the same --shard",
            run_dir.join(SHARD_FILE).display()
        ),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(n: usize) -> Vec<Task> {
        (0..n)
            .map(|i| {
                serde_json::from_value(serde_json::json!({
                    "id": format!("t{i}"), "kind": "single", "language": "en", "query": "q",
                    "tools": [], "gold": {"calls": []}
                }))
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn shards_partition_the_tasks_evenly_and_keep_their_order() {
        let all = tasks(100);
        let mut seen = Vec::new();
        for index in 1..=3 {
            let share = shard_tasks(all.clone(), Shard { index, count: 3 });
            assert!((33..=34).contains(&share.len()), "{}", share.len());
            let positions: Vec<usize> = share
                .iter()
                .map(|t| all.iter().position(|a| a.id == t.id).unwrap())
                .collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "file order kept");
            seen.extend(share.into_iter().map(|t| t.id));
        }
        seen.sort();
        let mut ids: Vec<String> = all.iter().map(|t| t.id.clone()).collect();
        for index in 1..=3 {
            let shard = Shard { index, count: 3 };
            let share: Vec<String> = shard_tasks(all.clone(), shard)
                .into_iter()
                .map(|t| t.id)
                .collect();
            assert_eq!(shard_ids(&ids, shard), share, "the ids dealt alike");
        }
        ids.sort();
        assert_eq!(seen, ids, "every task in exactly one shard");
        // The file's order does not change which shard a task is in.
        let mut reversed = all.clone();
        reversed.reverse();
        let a: Vec<String> = shard_tasks(all, Shard { index: 2, count: 3 })
            .into_iter()
            .map(|t| t.id)
            .collect();
        let mut b: Vec<String> = shard_tasks(reversed, Shard { index: 2, count: 3 })
            .into_iter()
            .map(|t| t.id)
            .collect();
        b.reverse();
        assert_eq!(a, b);
    }

    #[test]
    fn shard_flags_read_and_refuse() {
        assert_eq!(
            "2/8".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 8 }
        );
        for bad in [
            "0/3", "4/3", "3", "a/b", "1/0", " 2/8", "2 /8", "+2/8", "2/+8", "2/8\n",
        ] {
            assert!(bad.parse::<Shard>().unwrap_err().contains("K/N"), "{bad}");
        }
        // What was given is quoted escaped, never raw.
        let e = "1\u{1b}[2J/3".parse::<Shard>().unwrap_err();
        assert!(e.starts_with(r#""1\u{1b}[2J/3": "#), "{e}");
    }

    #[test]
    fn whole_numbers_are_digits_only() {
        assert_eq!(whole_number("0"), Some(0));
        assert_eq!(whole_number("007"), Some(7));
        assert_eq!(whole_number(&u64::MAX.to_string()), Some(u64::MAX));
        for bad in [
            "",
            "3 ",
            " 3",
            "+3",
            "-3",
            "3.0",
            "١",
            "18446744073709551616",
        ] {
            assert_eq!(whole_number(bad), None, "{bad:?}");
        }
    }
}
