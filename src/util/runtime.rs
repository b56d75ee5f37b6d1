//! The tokio runtime that a synchronous command starts to drive its
//! requests, built in one place with one error message.

use anyhow::Context;
use tokio::runtime::{Builder, Runtime};

/// How many threads the runtime runs tasks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Threads {
    /// One worker per core (tokio's default).
    #[default]
    PerCore,
    /// Exactly this many workers (at least 1).
    Exactly(usize),
    /// Everything on the calling thread.
    Current,
}

/// A runtime with I/O and timers enabled.
pub fn runtime(threads: Threads) -> anyhow::Result<Runtime> {
    let mut builder = match threads {
        Threads::Current => Builder::new_current_thread(),
        Threads::PerCore => Builder::new_multi_thread(),
        Threads::Exactly(n) => {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(n.max(1));
            b
        }
    };
    builder
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Runs a future to completion on a fresh runtime, then shuts it down.
pub fn block_on<F: std::future::Future>(threads: Threads, future: F) -> anyhow::Result<F::Output> {
    let runtime = runtime(threads)?;
    Ok(runtime.block_on(future))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_runs_a_future_with_timers() {
        for threads in [Threads::PerCore, Threads::Exactly(2), Threads::Current] {
            let got = block_on(threads, async {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                7
            })
            .unwrap();
            assert_eq!(got, 7);
        }
    }
}
