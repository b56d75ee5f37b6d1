//! Stage 1 of a run: its tasks. The task file's (or the benchmark's) tasks,
//! the selection, the replay checks, then the shard's share.

use std::io::Write;

use anyhow::bail;

use super::benchmark::Benchmark;
use super::options::EvalOptions;
use super::shard::{ShardRecord, shard_tasks};
use super::steps::StepMode;
use crate::spec::jsonl::read_records;
use crate::spec::records::{Task, repeated_ids_note};
use crate::spec::sample::sample_tasks;
use crate::spec::turns::turn_problems;

/// The tasks a run asks, how messages name their source, and the shard's
/// record when the run is a shard.
pub struct ChosenTasks {
    /// The tasks, in order.
    pub tasks: Vec<Task>,
    /// How messages name their source (a file or `--dataset …`).
    pub label: String,
    /// The shard and the ids of the whole selection, for a shard's run.
    pub shard: Option<ShardRecord>,
}

/// The tasks of a run: selected, checked for a replay run, and cut to the
/// shard's share.
pub fn choose_tasks(
    options: &EvalOptions,
    benchmark: Option<&dyn Benchmark>,
    err: &mut dyn Write,
) -> anyhow::Result<ChosenTasks> {
    let (tasks, label) = select_tasks(options, benchmark, err)?;
    let (tasks, shard) = prepare_tasks(options, tasks, &label)?;
    if let Some(benchmark) = benchmark {
        benchmark.chosen(&tasks, err)?;
    }
    Ok(ChosenTasks {
        tasks,
        label,
        shard,
    })
}

/// The tasks of the run after the selection, and how messages name their source.
fn select_tasks(
    options: &EvalOptions,
    benchmark: Option<&dyn Benchmark>,
    err: &mut dyn Write,
) -> anyhow::Result<(Vec<Task>, String)> {
    let (all, label) = match benchmark {
        Some(b) => (b.tasks(), b.label()),
        None => {
            let file = options.tasks.clone().unwrap_or_else(sample_tasks);
            let label = file.display().to_string();
            (read_records::<Task>(&file, false)?.0, label)
        }
    };
    let (tasks, repeated) = options.selection.clone().apply(all)?;
    if !repeated.is_empty() {
        writeln!(err, "{}", repeated_ids_note(&label, &repeated))?;
    }
    if tasks.is_empty() {
        bail!("no task of {label} matches the selection");
    }
    Ok((tasks, label))
}

/// The tasks a run asks: the turns checked for a replay run, and only the
/// run's share of them for a shard (with the shard's record).
fn prepare_tasks(
    options: &EvalOptions,
    tasks: Vec<Task>,
    label: &str,
) -> anyhow::Result<(Vec<Task>, Option<ShardRecord>)> {
    if options.steps.mode == StepMode::Replay {
        check_turns(&tasks, label)?;
    }
    let Some(shard) = options.shard else {
        return Ok((tasks, None));
    };
    let record = ShardRecord::new(shard, &tasks);
    let share = shard_tasks(tasks, shard);
    if share.is_empty() {
        bail!(
            "shard {shard} of the {} selected task(s) holds none",
            record.task_ids.len()
        );
    }
    Ok((share, Some(record)))
}

/// Refuses a replay run on tasks whose recorded steps are inconsistent
/// (SPEC §6: the turns' calls are the gold calls, one output per call, and
/// every reference names a recorded field), naming the file and each task.
fn check_turns(tasks: &[Task], label: &str) -> anyhow::Result<()> {
    let problems: Vec<String> = tasks.iter().flat_map(turn_problems).collect();
    if problems.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 10;
    let mut message = format!(
        "{label}: {} problem(s) in the recorded steps (`turns`) a replay run needs:",
        problems.len()
    );
    for problem in problems.iter().take(SHOWN) {
        message.push_str(&format!("\n  {problem}"));
    }
    if problems.len() > SHOWN {
        message.push_str(&format!("\n  … and {} more", problems.len() - SHOWN));
    }
    bail!(message)
}
