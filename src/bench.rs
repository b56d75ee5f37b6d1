//! `itc bench`: end-to-end scoring throughput and memory on synthetic inputs.

use std::io::Write;

use clap::Args;

/// Arguments of `itc bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {}

/// Runs the benchmark and prints its figures.
pub fn run(_args: &BenchArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("not written yet")
}
