//! `itc bench soak`: flags → [`SoakOptions`] → [`soak::run`].

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::perf::soak::{self, SoakOptions};

/// Arguments of `itc bench soak`.
#[derive(Debug, Clone, Args)]
pub struct BenchSoakArgs {
    /// Tasks of the run.
    #[arg(long, default_value_t = SoakOptions::default().tasks)]
    pub tasks: usize,
    /// Times the run is killed (SIGKILL) at a random moment and resumed.
    #[arg(long, default_value_t = SoakOptions::default().kills)]
    pub kills: usize,
    /// Share of the tasks whose first one or two attempts fail.
    #[arg(long, default_value_t = SoakOptions::default().fault_share)]
    pub fault_share: f64,
    /// Seed of the faults and the kill times.
    #[arg(long, default_value_t = SoakOptions::default().seed)]
    pub seed: u64,
    /// Folder for the runs, caches and tasks (emptied first).
    #[arg(long, default_value_os_t = SoakOptions::default().dir)]
    pub dir: PathBuf,
}

impl BenchSoakArgs {
    /// The library's options.
    pub fn options(&self) -> SoakOptions {
        SoakOptions {
            tasks: self.tasks,
            kills: self.kills,
            fault_share: self.fault_share,
            seed: self.seed,
            dir: self.dir.clone(),
        }
    }

    /// Runs the soak and prints its figures.
    pub fn run(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        soak::run(&self.options(), out).map(|_| ())
    }
}
