//! CPU time from `/proc` (Linux): of this process and its children, of the
//! instant server's threads and of the whole machine, turned into CPU time
//! per request. Elsewhere every figure is `None`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Clock ticks per second of `/proc` CPU times (`USER_HZ`, 100 on Linux).
const TICKS_PER_SECOND: u64 = 100;

/// CPU time per request of a client and of the server (Linux only).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CpuPerRequest {
    /// The client's (the harness's, or wrk's) CPU time per request.
    pub client: Option<Duration>,
    /// The server's CPU time per request.
    pub server: Option<Duration>,
    /// Share of the machine's CPU time used by other processes meanwhile
    /// (0 to 1; more than a few percent disturbs the figures).
    pub other_load: Option<f64>,
}

/// The CPU time of a set of threads: each registers itself when it starts.
#[derive(Debug, Default)]
pub(super) struct ThreadCpuClock {
    /// `/proc/PID/task/TID/stat` of each registered thread.
    stat_files: Mutex<Vec<PathBuf>>,
}

impl ThreadCpuClock {
    /// Adds the calling thread to the set.
    pub(super) fn register_current_thread(&self) {
        if let Ok(link) = std::fs::read_link("/proc/thread-self") {
            self.stat_files
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Path::new("/proc").join(link).join("stat"));
        }
    }

    /// CPU time of the registered threads so far (`None` when none is).
    pub(super) fn total(&self) -> Option<Duration> {
        let stat_files = self.stat_files.lock().unwrap_or_else(|p| p.into_inner());
        if stat_files.is_empty() {
            return None;
        }
        stat_files
            .iter()
            .map(|p| cpu_fields(p).map(|f| f[0] + f[1]))
            .sum()
    }
}

/// CPU counters at one moment: this process, its reaped children, the server.
#[derive(Debug, Clone, Copy)]
pub(super) struct CpuSnapshot {
    process: Option<(Duration, Duration)>,
    server: Option<Duration>,
    machine: Option<(Duration, Duration)>,
}

impl CpuSnapshot {
    /// The counters now; `server` is the server's CPU time so far
    /// ([`InstantServer::cpu_time`](super::InstantServer::cpu_time)).
    pub(super) fn take(server: Option<Duration>) -> CpuSnapshot {
        CpuSnapshot {
            process: process_cpu(),
            server,
            machine: machine_cpu(),
        }
    }

    /// CPU per request since `self`: the harness's (this process less the
    /// server) or the children's (wrk), and the server's.
    pub(super) fn per_request(
        &self,
        later: &CpuSnapshot,
        requests: u64,
        children: bool,
    ) -> CpuPerRequest {
        let requests = u32::try_from(requests.max(1)).unwrap_or(u32::MAX);
        let server = match (self.server, later.server) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        let client = match (self.process, later.process) {
            (Some((own_a, kids_a)), Some((own_b, kids_b))) => {
                if children {
                    Some(kids_b.saturating_sub(kids_a))
                } else {
                    server.map(|s| own_b.saturating_sub(own_a).saturating_sub(s))
                }
            }
            _ => None,
        };
        CpuPerRequest {
            client: client.map(|c| c / requests),
            server: server.map(|s| s / requests),
            other_load: self.other_load(later),
        }
    }

    /// Share of the machine's CPU time since `self` that other processes used.
    fn other_load(&self, later: &CpuSnapshot) -> Option<f64> {
        match (self.machine, later.machine, self.process, later.process) {
            (
                Some((busy_a, all_a)),
                Some((busy_b, all_b)),
                Some((own_a, kids_a)),
                Some((own_b, kids_b)),
            ) if all_b > all_a => {
                let ours = (own_b + kids_b).saturating_sub(own_a + kids_a);
                let others = (busy_b.saturating_sub(busy_a)).saturating_sub(ours);
                Some(others.as_secs_f64() / (all_b - all_a).as_secs_f64())
            }
            _ => None,
        }
    }
}

/// utime, stime, cutime and cstime of a `/proc/…/stat` file.
fn cpu_fields(path: &Path) -> Option<[Duration; 4]> {
    let text = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Option<Duration> {
        let ticks: u64 = fields.get(i)?.parse().ok()?;
        Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
    };
    // Fields 14..=17 of proc(5), counted from field 3 at index 0.
    Some([tick(11)?, tick(12)?, tick(13)?, tick(14)?])
}

/// CPU time of this process (all threads) and of its waited-for children.
fn process_cpu() -> Option<(Duration, Duration)> {
    let [user, system, child_user, child_system] = cpu_fields(Path::new("/proc/self/stat"))?;
    Some((user + system, child_user + child_system))
}

/// Busy and total CPU time of the whole machine (the `cpu` line of `/proc/stat`).
fn machine_cpu() -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal (guest time is in user).
    let all: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4)?;
    let duration = |t: u64| Duration::from_millis(t * 1000 / TICKS_PER_SECOND);
    Some((duration(all - idle), duration(all)))
}
