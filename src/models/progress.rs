//! The progress bar: tasks done of total, rate, ETA, tokens and errors.
//! Hidden when stderr is not a terminal (or when asked).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::spec::records::Prediction;

/// A progress bar over the predictions of a run.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    prompt_tokens: u64,
    completion_tokens: u64,
    errors: u64,
}

impl Progress {
    /// A bar for `total` tasks, drawn on stderr if `show` and stderr is a terminal.
    pub fn new(total: u64, show: bool) -> Progress {
        let target = if show && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}",
            )
            .expect("template parses")
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = Progress {
            bar,
            prompt_tokens: 0,
            completion_tokens: 0,
            errors: 0,
        };
        progress.update_message();
        progress
    }

    /// Counts one finished prediction.
    pub fn record(&mut self, prediction: &Prediction) {
        if let Some(usage) = prediction.usage {
            self.prompt_tokens += usage.prompt_tokens;
            self.completion_tokens += usage.completion_tokens;
        }
        if prediction.error.is_some() {
            self.errors += 1;
        }
        self.update_message();
        self.bar.inc(1);
    }

    fn update_message(&self) {
        self.bar.set_message(format!(
            "tok {} in / {} out · errors {}",
            human(self.prompt_tokens),
            human(self.completion_tokens),
            self.errors
        ));
    }

    /// Prints a line above the bar (or on stderr when hidden).
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
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
        let mut p = Progress::new(2, false);
        let prediction: Prediction = serde_json::from_str(
            r#"{"task_id":"a","model":"m","error":"x","usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
        )
        .unwrap();
        p.record(&prediction);
        assert_eq!(
            (
                p.prompt_tokens,
                p.completion_tokens,
                p.errors,
                p.bar.position()
            ),
            (5, 2, 1, 1)
        );
        p.finish();
    }
}
