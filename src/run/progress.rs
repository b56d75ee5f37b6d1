//! The progress bar of `itc eval` and `itc judge`: tasks done of total,
//! the rate and the time left (from the tasks that needed requests over
//! the time elapsed), requests in flight and sent, tokens and errors.
//! Hidden when stderr is not a terminal (or when asked).
//!
//! indicatif's own `{per_sec}` and `{eta}` smooth the time between steps,
//! which for slow, bursty completions (a few tasks a minute, arriving
//! together) showed `0/s ETA 584942417355y`; [`pace`] divides instead.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::models::exchange::InFlight;
use crate::spec::records::{Prediction, Usage};

/// The bar's layout; `{pace}` and `{in_flight}` are ours (see [`Progress::new`]).
const TEMPLATE: &str = "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} {pace} · requests {in_flight} in flight, {msg}";

/// How fast a run goes: tasks per second and the time left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// Tasks that needed requests, done per second of elapsed time; none
    /// before the first of them is done or before any time has passed.
    pub rate: Option<f64>,
    /// The tasks left at that rate (zero when none is left); none when the
    /// rate is.
    pub eta: Option<Duration>,
}

/// The pace after `done` of `total` tasks in `elapsed`, `instant` of the
/// done ones having needed no request (answered by the response cache, the
/// judgments file or the offline baseline, in no time): the rate is the
/// other done tasks ÷ elapsed, and the time left is the tasks left at that
/// rate (each assumed to need requests). Counting the instant tasks made a
/// run whose first answers came from the cache look faster than it was,
/// and its ETA as much too short. Nothing is smoothed, so a burst of answers moves it no more than
/// it should and a quiet minute does not stop it.
pub fn pace(done: u64, instant: u64, total: u64, elapsed: Duration) -> Pace {
    let secs = elapsed.as_secs_f64();
    let worked = done.saturating_sub(instant);
    let left = total.saturating_sub(done);
    if worked == 0 || secs <= 0.0 {
        return Pace {
            rate: None,
            eta: (done > 0 && left == 0).then_some(Duration::ZERO),
        };
    }
    Pace {
        rate: Some(worked as f64 / secs),
        eta: Duration::try_from_secs_f64(left as f64 * secs / worked as f64).ok(),
    }
}

impl std::fmt::Display for Pace {
    /// `0.05/s ETA 7m40s`, or `—/s ETA —` before the first task is done.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rate {
            Some(rate) => write!(f, "{}/s", rate_text(rate))?,
            None => f.write_str("—/s")?,
        }
        match self.eta {
            Some(eta) => write!(f, " ETA {}", duration_text(eta)),
            None => f.write_str(" ETA —"),
        }
    }
}

/// A rate with two significant digits: `0.05`, `1.5`, `12`, `0.0001`.
fn rate_text(rate: f64) -> String {
    let digits = if rate >= 10.0 {
        0
    } else {
        (1 - rate.log10().floor() as i64).clamp(0, 20) as usize
    };
    let text = format!("{rate:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A duration to the second, in its two largest units: `45s`, `7m40s`,
/// `2h05m`, `3d04h`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3_600 => format!("{}m{:02}s", s / 60, s % 60),
        3_600..86_400 => format!("{}h{:02}m", s / 3_600, s % 3_600 / 60),
        _ => format!("{}d{:02}h", s / 86_400, s % 86_400 / 3_600),
    }
}

/// A progress bar over the tasks of a run (`itc eval`) or of a judging
/// session (`itc judge`).
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    /// Tasks done that needed no request (see [`pace`]).
    instant: Arc<AtomicU64>,
    requests: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    errors: u64,
}

/// One finished task, as the bar counts it.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskDone {
    /// Requests sent for it (retries included; 0 when the cache, the
    /// judgments file or the offline baseline answered).
    pub requests: u64,
    /// Its tokens, when known.
    pub usage: Option<Usage>,
    /// It ended in an error.
    pub error: bool,
}

impl Progress {
    /// A bar for `total` tasks, drawn on stderr if `show` and stderr is a
    /// terminal, showing the requests in flight of the given counters.
    pub fn new(total: u64, show: bool, in_flight: Vec<InFlight>) -> Progress {
        let target = if show && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Progress::with_target(total, target, in_flight)
    }

    fn with_target(total: u64, target: ProgressDrawTarget, in_flight: Vec<InFlight>) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let in_flight: Arc<[InFlight]> = in_flight.into();
        let instant = Arc::new(AtomicU64::new(0));
        let instant_done = Arc::clone(&instant);
        bar.set_style(
            ProgressStyle::with_template(TEMPLATE)
                .expect("template parses")
                .with_key(
                    "pace",
                    move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let instant = instant_done.load(Ordering::Relaxed);
                        let (done, total) = (state.pos(), state.len().unwrap_or(0));
                        let _ = write!(w, "{}", pace(done, instant, total, state.elapsed()));
                    },
                )
                .with_key(
                    "in_flight",
                    move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let now: usize = in_flight.iter().map(InFlight::now).sum();
                        let _ = write!(w, "{now}");
                    },
                )
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = Progress {
            bar,
            instant,
            requests: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            errors: 0,
        };
        progress.update_message();
        progress
    }

    /// Counts one finished prediction, for which `requests` were sent.
    pub fn record(&mut self, prediction: &Prediction, requests: u32) {
        self.task_done(TaskDone {
            requests: u64::from(requests),
            usage: prediction.usage,
            error: prediction.error.is_some(),
        });
    }

    /// Counts one finished task.
    pub fn task_done(&mut self, task: TaskDone) {
        // Saturating: a server may report absurd token counts.
        if let Some(usage) = task.usage {
            self.prompt_tokens = self.prompt_tokens.saturating_add(usage.prompt_tokens);
            self.completion_tokens = self
                .completion_tokens
                .saturating_add(usage.completion_tokens);
        }
        self.errors += u64::from(task.error);
        self.requests = self.requests.saturating_add(task.requests);
        if task.requests == 0 {
            self.instant.fetch_add(1, Ordering::Relaxed);
        }
        self.update_message();
        self.bar.inc(1);
    }

    fn update_message(&self) {
        self.bar.set_message(format!(
            "{} sent · tok {} in / {} out · errors {}",
            human(self.requests),
            human(self.prompt_tokens),
            human(self.completion_tokens),
            self.errors
        ));
    }

    /// Prints a line above the bar (or on stderr when hidden). A line that
    /// cannot be written (stderr's reader has gone) is dropped.
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `1234567` → `1.2M`.
pub fn human(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_counts() {
        assert_eq!(human(999), "999");
        assert_eq!(human(12_345), "12.3k");
        assert_eq!(human(2_500_000), "2.5M");
    }

    #[test]
    fn hidden_bar_counts() {
        let mut p = Progress::new(3, false, Vec::new());
        let prediction: Prediction = serde_json::from_str(
            r#"{"task_id":"a","model":"m","error":"x","usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
        )
        .unwrap();
        p.record(&prediction, 3);
        p.task_done(TaskDone::default());
        assert_eq!(
            (
                p.prompt_tokens,
                p.completion_tokens,
                p.errors,
                p.requests,
                p.instant.load(Ordering::Relaxed),
                p.bar.position()
            ),
            (5, 2, 1, 3, 1, 2)
        );
        p.finish();
    }

    const fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn pace_is_done_over_elapsed() {
        // Issue 11: 7 of 30 done after 140 s showed `0/s ETA 584942417355y`.
        let p = pace(7, 0, 30, secs(140));
        assert!((p.rate.unwrap() - 0.05).abs() < 1e-12, "{p:?}");
        assert_eq!(p.eta, Some(secs(460)));
        assert_eq!(p.to_string(), "0.05/s ETA 7m40s");
        // 1 of 30 after 20 s showed `0.0001/s ETA 2d`.
        assert_eq!(pace(1, 0, 30, secs(20)).to_string(), "0.05/s ETA 9m40s");
        // Fast runs.
        assert_eq!(pace(500, 0, 1000, secs(40)).to_string(), "12/s ETA 40s");
        assert_eq!(pace(3, 0, 4, secs(2)).to_string(), "1.5/s ETA 1s");
        assert_eq!(pace(30, 0, 30, secs(600)).to_string(), "0.05/s ETA 0s");
    }

    #[test]
    fn tasks_answered_without_a_request_do_not_speed_up_the_eta() {
        // Issue 49: 5 tasks of 225 s each, the first 2 from the cache. After
        // the first answered one, 3 of 5 are done in 225 s and 2 are left:
        // 450 s, not 2 × 225 s ÷ 3 = 150 s.
        let p = pace(3, 2, 5, secs(225));
        assert_eq!(p.eta, Some(secs(450)), "{p:?}");
        assert_eq!(p.to_string(), "0.0044/s ETA 7m30s");
        // Only cached tasks so far: no rate to go by.
        assert_eq!(pace(2, 2, 5, secs(1)).to_string(), "—/s ETA —");
        // Every task from the cache: nothing left.
        assert_eq!(pace(5, 5, 5, secs(1)).eta, Some(Duration::ZERO));
        // The rate is of the tasks that needed requests, over all the time.
        let p = pace(10, 4, 20, secs(60));
        assert!((p.rate.unwrap() - 0.1).abs() < 1e-12, "{p:?}");
        assert_eq!(p.eta, Some(secs(100)));
        // More instant than done (never counted so): no rate, no underflow.
        assert_eq!(pace(1, 2, 5, secs(9)).rate, None);
    }

    #[test]
    fn no_pace_before_the_first_task_or_any_time() {
        let none = Pace {
            rate: None,
            eta: None,
        };
        assert_eq!(pace(0, 0, 30, secs(140)), none);
        assert_eq!(pace(0, 0, 30, Duration::ZERO), none);
        assert_eq!(pace(7, 0, 30, Duration::ZERO), none);
        assert_eq!(none.to_string(), "—/s ETA —");
        // More done than announced: nothing left, not an underflow.
        assert_eq!(pace(31, 0, 30, secs(10)).eta, Some(Duration::ZERO));
    }

    #[test]
    fn rates_and_durations_read_well() {
        assert_eq!(rate_text(0.05), "0.05");
        assert_eq!(rate_text(0.0001), "0.0001");
        assert_eq!(rate_text(0.123), "0.12");
        assert_eq!(rate_text(1.0), "1");
        assert_eq!(rate_text(250.4), "250");
        assert_eq!(duration_text(secs(45)), "45s");
        assert_eq!(duration_text(Duration::from_millis(59_600)), "1m00s");
        assert_eq!(duration_text(secs(7_500)), "2h05m");
        assert_eq!(duration_text(secs(3 * 86_400 + 4 * 3_600 + 59)), "3d04h");
    }

    #[test]
    fn in_flight_counts_requests_until_their_guards_drop() {
        let counter = InFlight::default();
        let (a, b) = (counter.enter(), counter.clone().enter());
        assert_eq!((counter.now(), counter.most()), (2, 2));
        drop(a);
        assert_eq!((counter.now(), counter.most()), (1, 2));
        drop(b);
        let c = counter.enter();
        assert_eq!((counter.now(), counter.most()), (1, 2));
        drop(c);
        // A request whose future is dropped mid-flight (an aborted worker)
        // leaves the count too.
        let shared = counter.clone();
        let mut request = Box::pin(async move {
            let _guard = shared.enter();
            std::future::pending::<()>().await;
        });
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(request.as_mut().poll(&mut context).is_pending());
        assert_eq!(counter.now(), 1);
        drop(request);
        assert_eq!((counter.now(), counter.most()), (0, 2));
    }

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_bar_shows_the_pace_and_the_requests_in_flight() {
        let screen = Screen::default();
        let counter = InFlight::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let p = Progress::with_target(30, target, vec![counter.clone(), InFlight::default()]);
        p.bar.disable_steady_tick(); // draw on `tick` only
        let (_a, _b) = (counter.enter(), counter.enter());
        p.bar.tick();
        let drawn = screen.0.lock().unwrap().clone();
        assert!(
            drawn.contains("0/30 —/s ETA — · requests 2 in flight, 0 sent"),
            "{drawn}"
        );

        screen.0.lock().unwrap().clear();
        let mut p = p;
        p.task_done(TaskDone::default()); // from the cache
        for _ in 0..7 {
            p.task_done(TaskDone {
                requests: 2,
                ..TaskDone::default()
            });
        }
        p.bar.set_elapsed(secs(140));
        p.bar.tick();
        let drawn = screen.0.lock().unwrap().clone();
        assert!(
            drawn.contains(
                "8/30 0.05/s ETA 7m20s · requests 2 in flight, 14 sent · tok 0 in / 0 out"
            ),
            "{drawn}"
        );
        p.finish();
    }
}
