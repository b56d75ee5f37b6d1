//! Judge requests through a batch engine (`--emit-batch DIR`,
//! `--import-batch FILE…`), in the files of `itc eval`'s batch mode
//! ([`crate::models::batch`]).

use std::io::Write;
use std::sync::Arc;

use anyhow::bail;

use super::JudgeOptions;
use crate::models::batch::{BatchResults, BatchSink, Transport};
use crate::models::config::Backend;
use crate::run::BatchMode;
use crate::util::lock::FolderLock;

/// How the judges' requests travel, from `--emit-batch` / `--import-batch`.
pub fn transport_of(
    options: &JudgeOptions,
    specs: &[crate::models::ModelSpec],
) -> anyhow::Result<Transport> {
    Ok(match &options.batch {
        BatchMode::Off => Transport::Send,
        BatchMode::Emit(_) => {
            if let Some(gemini) = specs.iter().find(|s| s.config.backend == Backend::Gemini) {
                bail!(
                    "--emit-batch: judge `{}` is a Gemini model; batch files are written for OpenAI-compatible and Anthropic models",
                    gemini.config.name
                );
            }
            if options.run_dirs.len() > 1 {
                bail!("--emit-batch: give one run directory");
            }
            Transport::Emit(Arc::new(BatchSink::default()))
        }
        BatchMode::Import(files) => Transport::Import(Arc::new(BatchResults::load(files)?)),
    })
}

/// `--emit-batch DIR`: writes the requests the session could not answer
/// from the folder or the cache (each flow stops at its first such request).
pub fn write_batch(
    options: &JudgeOptions,
    sink: &BatchSink,
    waiting: usize,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let BatchMode::Emit(dir) = &options.batch else {
        return Ok(());
    };
    let _lock = FolderLock::acquire(dir, err)?;
    let files = sink.write(dir)?;
    if files.is_empty() {
        writeln!(
            err,
            "--emit-batch: every judge request is answered by the folder or the cache; nothing to send: run without it for the figures"
        )?;
    }
    for (path, count) in files {
        writeln!(err, "wrote {count} request(s) to {}", path.display())?;
    }
    if waiting > 0 {
        writeln!(
            err,
            "{waiting} task(s) wait for these answers: import them with --import-batch, then emit again until nothing is left to send"
        )?;
    }
    Ok(())
}
