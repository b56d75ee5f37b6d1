//! Stage 2 of a run: its run directory. Planned (`--run-dir`, else a
//! fresh `runs/<model>-<time>`), claimed (created, then locked for one
//! writer), checked before a resume (the predictions file, the step
//! settings, the shard, the models' requests), and given the run's inputs
//! (`tasks.jsonl`, `models.json`, the benchmark's notes).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, bail};

use super::benchmark::Benchmark;
use super::options::EvalOptions;
use super::resume::{
    TaskSetRecord, check_same_requests, check_same_tasks, merged, recorded_models,
};
use super::runner::predictions_path;
use super::shard::record_shard;
use super::steps::StepOptions;
use super::store::check_start;
use super::tasks::ChosenTasks;
use crate::models::config::ModelConfig;
use crate::models::exchange::ModelSpec;
use crate::spec::jsonl::write_records;
use crate::spec::records::Task;
use crate::util::lock::{FolderLock, create_fresh_dir};
use crate::util::slug::{SlugStyle, slug};
use crate::util::time::timestamp;

/// A run directory this process writes, and holds locked while the value lives.
pub struct ClaimedRunDir {
    /// The run directory.
    pub run_dir: PathBuf,
    /// Its `tasks.jsonl`.
    pub tasks_path: PathBuf,
    /// One writer per run directory, for the whole run and its scoring.
    _lock: FolderLock,
}

/// Claims the planned run directory: creates a default one, locks it,
/// refuses a resume that would mix runs, and writes the run's inputs.
pub fn claim_run_dir(
    options: &EvalOptions,
    planned: PathBuf,
    specs: &[ModelSpec],
    chosen: &ChosenTasks,
    benchmark: Option<&dyn Benchmark>,
    err: &mut dyn Write,
) -> anyhow::Result<ClaimedRunDir> {
    if options.resume && !options.start_if_missing && !planned.exists() {
        bail!(
            "--resume: {} does not exist, so there is nothing to resume (drop --resume to start \
             a run there, or use --resume-or-start in a scheduler's job)",
            planned.display()
        );
    }
    let run_dir = create_run_dir(options, planned)?;
    let lock = FolderLock::acquire(&run_dir, err)?;
    check_start(&predictions_path(&run_dir), options.resume)?;
    let recorded = if options.resume {
        let recorded = recorded_models(&run_dir)?;
        let now: Vec<ModelConfig> = specs.iter().map(|s| s.config.clone()).collect();
        check_same_requests(&recorded, &now)?;
        recorded
    } else {
        Vec::new()
    };
    // Each check below rewrites its file only when it passes, so with the
    // same content.
    check_same_steps(&run_dir, &options.steps, options.resume)?;
    record_shard(&run_dir, chosen.shard.as_ref(), options.resume)?;
    let task_set = TaskSetRecord::of(&chosen.label, &chosen.tasks);
    if options.resume {
        check_same_tasks(&run_dir, &task_set, &chosen.tasks)?;
    }
    let tasks_path = write_run_inputs(&run_dir, &chosen.tasks, specs, recorded, benchmark)?;
    task_set.write(&run_dir)?;
    Ok(ClaimedRunDir {
        run_dir,
        tasks_path,
        _lock: lock,
    })
}

/// The run directory as planned: `--run-dir`, else
/// `runs/<model name>-<UTC timestamp>` (`eval-…` for several models).
/// `--resume` needs the folder named.
pub fn planned_run_dir(options: &EvalOptions, specs: &[ModelSpec]) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &options.run_dir {
        return Ok(dir.clone());
    }
    if options.resume {
        bail!("--resume continues a run directory: name it with --run-dir");
    }
    let name = match specs {
        [one] => slug(&one.config.name, SlugStyle::FileName),
        _ => "eval".to_string(),
    };
    Ok(PathBuf::from("runs").join(format!("{name}-{}", timestamp(SystemTime::now()))))
}

/// The run directory to write: a named one as it is; a default one claimed
/// by creating it, as `…-2`, `…-3` when a run of the same second has the name.
fn create_run_dir(options: &EvalOptions, planned: PathBuf) -> anyhow::Result<PathBuf> {
    match options.run_dir {
        Some(_) => Ok(planned),
        None => create_fresh_dir(&planned),
    }
}

/// The file recording how a run directory's tasks are asked.
pub const STEPS_FILE: &str = "steps.json";

/// Refuses to resume a run directory whose tasks were asked another way
/// (single-shot or step by step, the tool outputs' source, the step limit,
/// the tool model): its predictions would not be comparable. Then records
/// this run's way in `steps.json`. A run recorded before `steps.json`
/// existed was single-shot.
fn check_same_steps(run_dir: &Path, steps: &StepOptions, resume: bool) -> anyhow::Result<()> {
    let path = run_dir.join(STEPS_FILE);
    if resume {
        let earlier: StepOptions = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("reading {}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => StepOptions::default(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let differs = |field: &str, was: String, now: String| -> anyhow::Result<()> {
            if was != now {
                bail!(
                    "{}: field `{field}`: the run was made with {was}, this session asks {now}; resume with the same step settings, or use a new --run-dir",
                    path.display()
                );
            }
            Ok(())
        };
        differs(
            "mode",
            earlier.mode.as_str().into(),
            steps.mode.as_str().into(),
        )?;
        differs(
            "max_steps",
            earlier.max_steps.to_string(),
            steps.max_steps.to_string(),
        )?;
        differs(
            "max_calls_per_step",
            earlier.max_calls_per_step.to_string(),
            steps.max_calls_per_step.to_string(),
        )?;
        differs(
            "max_task_tool_bytes",
            earlier.max_task_tool_bytes.to_string(),
            steps.max_task_tool_bytes.to_string(),
        )?;
        differs(
            "tool_model",
            format!("{:?}", earlier.tool_model),
            format!("{:?}", steps.tool_model),
        )?;
    }
    let text = serde_json::to_string_pretty(steps)? + "\n";
    crate::util::atomic::write(&path, text.as_bytes())
}

/// Writes `tasks.jsonl`, `models.json` (the models of a resumed run's
/// earlier sessions kept) and the benchmark's notes into the run directory;
/// returns the path of `tasks.jsonl`.
fn write_run_inputs(
    run_dir: &Path,
    tasks: &[Task],
    specs: &[ModelSpec],
    recorded: Vec<ModelConfig>,
    benchmark: Option<&dyn Benchmark>,
) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(run_dir).with_context(|| format!("creating {}", run_dir.display()))?;
    let tasks_path = run_dir.join("tasks.jsonl");
    write_records(&tasks_path, tasks)
        .with_context(|| format!("writing {}", tasks_path.display()))?;
    let configs = merged(
        recorded,
        &specs.iter().map(|s| &s.config).collect::<Vec<_>>(),
    );
    std::fs::write(
        run_dir.join("models.json"),
        serde_json::to_string_pretty(&configs)? + "\n",
    )?;
    if let Some(b) = benchmark {
        b.write_info(run_dir)?;
    }
    Ok(tasks_path)
}
