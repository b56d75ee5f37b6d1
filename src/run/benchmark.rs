//! The [`Benchmark`] trait: tasks that bring their own preparation and
//! official scorer into `itc eval --dataset`; `crate::benchmarks` implements it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::dialogue::SharedAsker;
use crate::models::batch::Transport;
use crate::score::files::OutputFormat;
use crate::spec::records::Task;

/// Tasks that bring their own preparation and official scoring: an OOD
/// benchmark (`itc eval --dataset`, implemented in `crate::benchmarks`).
pub trait Benchmark {
    /// How messages name the task source, e.g. `--dataset seal-tools`.
    fn label(&self) -> String;
    /// Every task of the benchmark (the run's selection comes later).
    fn tasks(&self) -> Vec<Task>;
    /// Whether its tasks are run with the finish protocol (SPEC §8) when
    /// `--finish` is `auto`.
    fn finish_protocol(&self) -> bool {
        false
    }
    /// Told the tasks the run asks (after the selection and the shard's
    /// share), before any is asked: notes about them go to `err`.
    fn chosen(&self, _tasks: &[Task], _err: &mut dyn Write) -> anyhow::Result<()> {
        Ok(())
    }
    /// Asks (some of) its tasks itself ([`crate::run::dialogue`]): BFCL's
    /// official requests and multi-turn loop, τ³-bench's conversations
    /// (whose user model caches its replies in `cache_dir`, the run's, and
    /// whose requests travel by `transport`, the run's: sent, or through
    /// batch files).
    fn asker(
        &self,
        _cache_dir: Option<&Path>,
        _transport: &Transport,
    ) -> anyhow::Result<Option<SharedAsker>> {
        Ok(None)
    }
    /// Records where the benchmark's files came from in the run directory.
    fn write_info(&self, run_dir: &Path) -> anyhow::Result<()>;
    /// The prediction file to score with SPEC §3 (benchmark-format answers
    /// read into SPEC calls).
    fn scoring_predictions(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
    ) -> anyhow::Result<PathBuf>;
    /// Scores with the benchmark's official scorer and prints the result.
    fn official(
        &self,
        run_dir: &Path,
        tasks_path: &Path,
        predictions: &Path,
        format: OutputFormat,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> anyhow::Result<()>;
}
