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
    builder(threads)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn builder(threads: Threads) -> Builder {
    match threads {
        Threads::Current => Builder::new_current_thread(),
        Threads::PerCore => Builder::new_multi_thread(),
        Threads::Exactly(n) => {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(n.max(1));
            b
        }
    }
}

/// Runs a future to completion on a fresh runtime, then shuts it down.
pub fn block_on<F: std::future::Future>(threads: Threads, future: F) -> anyhow::Result<F::Output> {
    let runtime = runtime(threads)?;
    Ok(runtime.block_on(future))
}

/// A runtime like [`runtime`] that calls `on_thread_start` on each thread it
/// starts (its workers and any blocking-pool thread; [`Threads::Current`]
/// runs its tasks on the caller's thread, which is not announced): for
/// accounting per thread, such as a server's CPU time.
pub fn runtime_with_thread_start(
    threads: Threads,
    on_thread_start: impl Fn() + Send + Sync + 'static,
) -> anyhow::Result<Runtime> {
    builder(threads)
        .on_thread_start(on_thread_start)
        .enable_all()
        .build()
        .context("starting the async runtime")
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

    #[test]
    fn the_thread_start_hook_runs_on_every_worker() {
        let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = std::sync::Arc::clone(&started);
        let runtime = runtime_with_thread_start(Threads::Exactly(3), move || {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
        .unwrap();
        assert_eq!(runtime.block_on(async { 7 }), 7);
        // Workers start on their own threads: wait for them to be announced.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while started.load(std::sync::atomic::Ordering::SeqCst) < 3 {
            assert!(std::time::Instant::now() < deadline, "workers announced");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
