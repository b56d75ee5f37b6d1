//! The figures of a run per model: answers and typed errors, requests,
//! cache hits and retries, latency percentiles, tokens and cost, and where
//! this session's time went (queued for a slot, waiting on the server).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::progress::human;
use crate::models::backend::Served;
use crate::models::config::ModelConfig;
use crate::spec::records::{Prediction, Usage};
use crate::util::bounded::clip;
use crate::util::table::{ABSENT, Table};

/// `text` with its control characters escaped (`\u{1b}`), so a server's
/// message cannot drive the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_debug().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// Characters shown of the first error of each kind.
pub const FIRST_ERROR_CHARS: usize = 300;

/// A model's prediction figures gathered one prediction at a time, so that
/// a run need not keep its predictions: answers, typed errors, tokens, and
/// the latencies (8 bytes an answer) for their percentiles.
#[derive(Debug, Clone, Default)]
pub struct PredictionFigures {
    predictions: usize,
    answered: usize,
    errors: usize,
    error_kinds: BTreeMap<String, usize>,
    first_errors: BTreeMap<String, String>,
    prompt_tokens: u64,
    completion_tokens: u64,
    latencies: Vec<u64>,
}

impl PredictionFigures {
    /// Counts one prediction.
    pub fn add(&mut self, p: &Prediction) {
        if p.error.is_none() {
            self.add_answer(p.latency_ms, p.usage);
            return;
        }
        self.predictions += 1;
        self.errors += 1;
        let kind = p.error_kind.clone().unwrap_or_else(|| "unknown".into());
        if let Some(error) = &p.error {
            self.first_errors
                .entry(kind.clone())
                .or_insert_with(|| clip(&printable(error), FIRST_ERROR_CHARS));
        }
        *self.error_kinds.entry(kind).or_default() += 1;
        self.add_usage(p.usage);
    }

    /// Counts one answer (a prediction without an error) by its latency and
    /// tokens.
    pub fn add_answer(&mut self, latency_ms: Option<u64>, usage: Option<Usage>) {
        self.predictions += 1;
        self.answered += 1;
        self.latencies.extend(latency_ms);
        self.add_usage(usage);
    }

    fn add_usage(&mut self, usage: Option<Usage>) {
        if let Some(u) = usage {
            self.prompt_tokens += u.prompt_tokens;
            self.completion_tokens += u.completion_tokens;
        }
    }

    /// Predictions counted.
    pub fn len(&self) -> usize {
        self.predictions
    }

    /// Whether none was counted.
    pub fn is_empty(&self) -> bool {
        self.predictions == 0
    }

    /// The model's figures (the session's timings are set apart, by
    /// [`ModelStats::set_timings`]).
    pub fn stats(mut self, config: &ModelConfig, tasks: usize) -> ModelStats {
        self.latencies.sort_unstable();
        let cost_usd = config.priced().then(|| {
            self.prompt_tokens as f64 / 1e6 * config.price_input_per_mtok.unwrap_or(0.0)
                + self.completion_tokens as f64 / 1e6 * config.price_output_per_mtok.unwrap_or(0.0)
        });
        ModelStats {
            model: config.name.clone(),
            tasks,
            answered: self.answered,
            errors: self.errors,
            error_kinds: self.error_kinds,
            first_errors: self.first_errors,
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            latency_p50_ms: percentile(&self.latencies, 0.50),
            latency_p95_ms: percentile(&self.latencies, 0.95),
            cost_usd,
            ..ModelStats::default()
        }
    }
}

/// The figures of one model's run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelStats {
    /// Model name.
    pub model: String,
    /// Tasks in the selection.
    pub tasks: usize,
    /// Tasks with an answer.
    pub answered: usize,
    /// Tasks that ended with an error.
    pub errors: usize,
    /// Errors per kind.
    pub error_kinds: BTreeMap<String, usize>,
    /// The message of the first error of each kind met (cut to
    /// [`FIRST_ERROR_CHARS`]), shown under the run's table; not written.
    #[serde(skip)]
    pub first_errors: BTreeMap<String, String>,
    /// Tasks finished by an earlier (resumed) session.
    pub resumed: usize,
    /// HTTP requests sent in this session, retries included.
    pub requests: u64,
    /// Answers taken from the response cache in this session.
    pub cache_hits: u64,
    /// Requests that repeated a failed one, in this session (a step-by-step
    /// task's later steps are new requests, not retries).
    pub retries: u64,
    /// Median latency of answered tasks, in milliseconds.
    pub latency_p50_ms: Option<u64>,
    /// 95th percentile latency of answered tasks, in milliseconds.
    pub latency_p95_ms: Option<u64>,
    /// Prompt tokens over all answers.
    pub prompt_tokens: u64,
    /// Completion tokens over all answers.
    pub completion_tokens: u64,
    /// Cost of those tokens at the configured prices, in USD.
    pub cost_usd: Option<f64>,
    /// Tasks run in this session: the ones the timing figures below describe
    /// (tasks finished by an earlier session have none).
    pub timed_tasks: usize,
    /// Median time a task waited for one of the model's concurrency slots
    /// (from the start of the run to the slot), in milliseconds.
    pub queue_p50_ms: Option<u64>,
    /// 95th percentile of that queue time, in milliseconds.
    pub queue_p95_ms: Option<u64>,
    /// Median time a task waited on the server: the sum of its requests'
    /// HTTP times (retries included; back-off between them excluded), over
    /// the tasks that sent a request, in milliseconds.
    pub server_p50_ms: Option<u64>,
    /// 95th percentile of that server time, in milliseconds.
    pub server_p95_ms: Option<u64>,
    /// Queue time summed over this session's tasks, in milliseconds.
    pub queue_total_ms: u64,
    /// Server time summed over this session's tasks, in milliseconds.
    pub server_total_ms: u64,
    /// Time tasks held a slot but waited for the rate limits or a retry's
    /// back-off, summed over this session's tasks, in milliseconds.
    pub throttle_total_ms: u64,
    /// Task time (start of the run to the prediction) summed over this
    /// session's tasks, in milliseconds: at least queue + server + throttle;
    /// the rest is building requests, reading answers and the cache.
    pub task_total_ms: u64,
    /// Most requests of the model waiting on the server at once.
    pub in_flight_max: usize,
    /// The model ids the server's responses named, with the answers that
    /// named each, in this session (a server may serve another model than
    /// the id asked for).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub served_models: BTreeMap<String, u64>,
    /// The serving systems' fingerprints the responses gave (OpenAI's
    /// `system_fingerprint`), with the answers that gave each, in this session.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub system_fingerprints: BTreeMap<String, u64>,
}

impl ModelStats {
    /// Counts who answered one task.
    pub fn add_served(&mut self, served: &Served) {
        if let Some(model) = &served.model {
            *self.served_models.entry(model.clone()).or_default() += 1;
        }
        if let Some(fingerprint) = &served.fingerprint {
            *self
                .system_fingerprints
                .entry(fingerprint.clone())
                .or_default() += 1;
        }
    }
}

/// Where one task's time went in this session, from the moment the run
/// queued it to its prediction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskTiming {
    /// Waiting for one of the model's concurrency slots.
    pub queue: Duration,
    /// Waiting on the server: each request from sending it to reading its
    /// whole body (or its failure), summed over retries.
    pub server: Duration,
    /// Holding a slot while waiting for the rate limits or a retry's back-off.
    pub throttle: Duration,
    /// From queued to the prediction.
    pub total: Duration,
    /// Requests sent (0 for the cache and the offline baseline).
    pub requests: u32,
    /// Of those, requests that repeated a failed one (a step-by-step
    /// task's later steps are new requests, not retries).
    pub retries: u32,
}

impl ModelStats {
    /// Figures from a model's predictions (answers, errors, latency,
    /// tokens, cost; see [`PredictionFigures`]); the session counters start
    /// at zero.
    pub fn from_predictions<'a>(
        config: &ModelConfig,
        tasks: usize,
        predictions: impl IntoIterator<Item = &'a Prediction>,
    ) -> ModelStats {
        let mut figures = PredictionFigures::default();
        for p in predictions {
            figures.add(p);
        }
        figures.stats(config, tasks)
    }

    /// Fills the timing figures from this session's tasks and the most
    /// requests that were in flight at once.
    pub fn set_timings(&mut self, timings: &[TaskTiming], in_flight_max: usize) {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let sorted = |pick: &dyn Fn(&TaskTiming) -> Option<Duration>| {
            let mut v: Vec<u64> = timings.iter().filter_map(pick).map(millis).collect();
            v.sort_unstable();
            v
        };
        let total = |pick: fn(&TaskTiming) -> Duration| millis(timings.iter().map(pick).sum());
        let queue = sorted(&|t| Some(t.queue));
        let server = sorted(&|t| (t.requests > 0).then_some(t.server));
        self.timed_tasks = timings.len();
        self.queue_p50_ms = percentile(&queue, 0.50);
        self.queue_p95_ms = percentile(&queue, 0.95);
        self.server_p50_ms = percentile(&server, 0.50);
        self.server_p95_ms = percentile(&server, 0.95);
        self.queue_total_ms = total(|t| t.queue);
        self.server_total_ms = total(|t| t.server);
        self.throttle_total_ms = total(|t| t.throttle);
        self.task_total_ms = total(|t| t.total);
        self.in_flight_max = in_flight_max;
    }
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The run tables printed before the scores: the run's figures per model,
/// then where this session's time went, and the errors per kind. `wide`:
/// each table in one piece (see [`Table::render`]).
pub fn run_table(stats: &[ModelStats], wide: bool) -> String {
    let mut table = Table::new([
        "Model", "All", "Done", "Errors", "Resumed", "Sent", "Cached", "Retries", "p50", "p95",
        "In", "Out", "Cost $",
    ])
    .with_groups([
        ("Tasks", 4),
        ("Requests", 3),
        ("Latency ms", 2),
        ("Tokens", 3),
    ]);
    for s in stats {
        table.push([
            s.model.clone(),
            s.tasks.to_string(),
            s.answered.to_string(),
            s.errors.to_string(),
            s.resumed.to_string(),
            s.requests.to_string(),
            s.cache_hits.to_string(),
            s.retries.to_string(),
            or_absent(s.latency_p50_ms),
            or_absent(s.latency_p95_ms),
            human(s.prompt_tokens),
            human(s.completion_tokens),
            s.cost_usd.map_or(ABSENT.to_string(), |c| format!("{c:.4}")),
        ]);
    }
    let mut out = table.render(wide);
    out.push_str("\nWhere this session's time went\n");
    out.push_str(&timing_table(stats, wide));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for s in stats.iter().filter(|s| !s.error_kinds.is_empty()) {
        let kinds: Vec<String> = s
            .error_kinds
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(out, "errors of {}: {}", s.model, kinds.join(", "));
        for (kind, message) in &s.first_errors {
            let _ = writeln!(out, "  first {kind}: {message}");
        }
    }
    out
}

/// Where this session's time went per model: queued for a concurrency
/// slot, waiting on the server, throttled by rate limits and back-off.
pub fn timing_table(stats: &[ModelStats], wide: bool) -> String {
    let mut table = Table::new([
        "Model",
        "Tasks",
        "p50",
        "p95",
        "p50",
        "p95",
        "Throttled s",
        "In flight",
    ])
    .with_groups([
        ("Timed", 1),
        ("Queue ms", 2),
        ("Server ms", 2),
        ("Waits", 1),
        ("Most", 1),
    ]);
    for s in stats {
        table.push([
            s.model.clone(),
            s.timed_tasks.to_string(),
            or_absent(s.queue_p50_ms),
            or_absent(s.queue_p95_ms),
            or_absent(s.server_p50_ms),
            or_absent(s.server_p95_ms),
            format!("{:.1}", s.throttle_total_ms as f64 / 1e3),
            s.in_flight_max.to_string(),
        ]);
    }
    table.render(wide)
}

fn or_absent(v: Option<u64>) -> String {
    v.map_or(ABSENT.to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::config::Backend;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 0.5), Some(50));
        assert_eq!(percentile(&v, 0.95), Some(95));
        assert_eq!(percentile(&[7], 0.95), Some(7));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn figures_from_predictions() {
        let mut config = ModelConfig::new("m", Backend::Openai);
        config.price_input_per_mtok = Some(2.0);
        config.price_output_per_mtok = Some(10.0);
        let lines = [
            r#"{"task_id":"a","model":"m","output":"x","latency_ms":100,"usage":{"prompt_tokens":1000000,"completion_tokens":100000}}"#,
            r#"{"task_id":"b","model":"m","output":"x","latency_ms":300}"#,
            r#"{"task_id":"c","model":"m","error":"HTTP 500: \u001b[2J gone","error_kind":"server"}"#,
            r#"{"task_id":"d","model":"m","error":"HTTP 503","error_kind":"server"}"#,
        ];
        let predictions: Vec<Prediction> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let s = ModelStats::from_predictions(&config, 4, &predictions);
        assert_eq!((s.tasks, s.answered, s.errors), (4, 2, 2));
        assert_eq!(s.error_kinds.get("server"), Some(&2));
        assert_eq!((s.latency_p50_ms, s.latency_p95_ms), (Some(100), Some(300)));
        assert!((s.cost_usd.unwrap() - 3.0).abs() < 1e-9);
        let table = run_table(&[s], false);
        assert!(table.contains("Done │ Errors │ Resumed"), "{table}");
        assert_eq!(cells_of(&table, "m")[..4], ["m", "4", "2", "2"], "{table}");
        assert!(table.contains("errors of m: server 2"), "{table}");
        // The first error of each kind, its control characters escaped.
        assert!(
            table.contains("  first server: HTTP 500: \\u{1b}[2J gone\n"),
            "{table}"
        );
        assert!(!table.contains("HTTP 503"), "{table}");
        assert!(table.contains("Queue ms"), "{table}");
        assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
    }

    /// The cells of the table row whose label is `label`.
    fn cells_of(table: &str, label: &str) -> Vec<String> {
        table
            .lines()
            .map(|l| {
                l.split('│')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .find(|cells| cells.first().map(String::as_str) == Some(label))
            .unwrap_or_else(|| panic!("no row {label} in\n{table}"))
    }

    #[test]
    fn timings_keep_queue_and_server_apart() {
        let ms = Duration::from_millis;
        let t = |queue, server, throttle, total, requests| TaskTiming {
            queue: ms(queue),
            server: ms(server),
            throttle: ms(throttle),
            total: ms(total),
            requests,
            retries: requests.saturating_sub(1),
        };
        // One slot: each task waits for the ones before it; the third
        // retried once after a 30 ms back-off; the last came from the cache.
        let timings = [
            t(0, 200, 0, 201, 1),
            t(201, 200, 0, 402, 1),
            t(402, 450, 30, 883, 2),
            t(883, 0, 0, 884, 0),
        ];
        let mut s = ModelStats {
            model: "m".into(),
            ..ModelStats::default()
        };
        s.set_timings(&timings, 1);
        assert_eq!(
            (s.timed_tasks, s.queue_p50_ms, s.queue_p95_ms),
            (4, Some(201), Some(883))
        );
        // The cache hit sent no request, so it has no server time.
        assert_eq!((s.server_p50_ms, s.server_p95_ms), (Some(200), Some(450)));
        assert_eq!(
            (
                s.queue_total_ms,
                s.server_total_ms,
                s.throttle_total_ms,
                s.task_total_ms
            ),
            (1486, 850, 30, 2370)
        );
        let table = timing_table(std::slice::from_ref(&s), false);
        assert_eq!(
            cells_of(&table, "m"),
            ["m", "4", "201", "883", "200", "450", "0.0", "1"]
        );

        s.set_timings(&[], 0);
        assert_eq!(
            (s.timed_tasks, s.queue_p50_ms, s.server_p95_ms),
            (0, None, None)
        );
        let table = timing_table(&[s], false);
        assert_eq!(
            cells_of(&table, "m"),
            ["m", "0", "—", "—", "—", "—", "0.0", "0"]
        );
    }
}
