//! The figures of a run per model: answers and typed errors, requests,
//! cache hits and retries, latency percentiles, tokens and cost.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::config::ModelConfig;
use super::progress::human;
use crate::spec::records::Prediction;

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
    /// Tasks finished by an earlier (resumed) session.
    pub resumed: usize,
    /// HTTP requests sent in this session, retries included.
    pub requests: u64,
    /// Answers taken from the response cache in this session.
    pub cache_hits: u64,
    /// Requests beyond the first for a task, in this session.
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
}

impl ModelStats {
    /// Figures from a model's predictions (answers, errors, latency,
    /// tokens, cost); the session counters start at zero.
    pub fn from_predictions<'a>(
        config: &ModelConfig,
        tasks: usize,
        predictions: impl IntoIterator<Item = &'a Prediction>,
    ) -> ModelStats {
        let mut stats = ModelStats {
            model: config.name.clone(),
            tasks,
            ..ModelStats::default()
        };
        let mut latencies = Vec::new();
        for p in predictions {
            if p.error.is_some() {
                stats.errors += 1;
                let kind = p.error_kind.clone().unwrap_or_else(|| "unknown".into());
                *stats.error_kinds.entry(kind).or_default() += 1;
            } else {
                stats.answered += 1;
                latencies.extend(p.latency_ms);
            }
            if let Some(u) = p.usage {
                stats.prompt_tokens += u.prompt_tokens;
                stats.completion_tokens += u.completion_tokens;
            }
        }
        latencies.sort_unstable();
        stats.latency_p50_ms = percentile(&latencies, 0.50);
        stats.latency_p95_ms = percentile(&latencies, 0.95);
        if config.price_input_per_mtok.is_some() || config.price_output_per_mtok.is_some() {
            stats.cost_usd = Some(
                stats.prompt_tokens as f64 / 1e6 * config.price_input_per_mtok.unwrap_or(0.0)
                    + stats.completion_tokens as f64 / 1e6
                        * config.price_output_per_mtok.unwrap_or(0.0),
            );
        }
        stats
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

/// The run table printed before the scores.
pub fn run_table(stats: &[ModelStats]) -> String {
    let header = [
        "model", "tasks", "answered", "errors", "resumed", "requests", "cached", "retries",
        "p50 ms", "p95 ms", "tok in", "tok out", "cost $",
    ];
    let rows: Vec<Vec<String>> = stats
        .iter()
        .map(|s| {
            let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
            vec![
                s.model.clone(),
                s.tasks.to_string(),
                s.answered.to_string(),
                s.errors.to_string(),
                s.resumed.to_string(),
                s.requests.to_string(),
                s.cache_hits.to_string(),
                s.retries.to_string(),
                opt(s.latency_p50_ms),
                opt(s.latency_p95_ms),
                human(s.prompt_tokens),
                human(s.completion_tokens),
                s.cost_usd.map_or("-".to_string(), |c| format!("{c:.4}")),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                let _ = write!(out, "{cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(out, "  {}{cell}", " ".repeat(pad));
            }
        }
        out.push('\n');
    };
    line(&header.map(String::from));
    for row in &rows {
        line(row);
    }
    for s in stats.iter().filter(|s| !s.error_kinds.is_empty()) {
        let kinds: Vec<String> = s
            .error_kinds
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(out, "errors of {}: {}", s.model, kinds.join(", "));
    }
    out
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
            r#"{"task_id":"c","model":"m","error":"HTTP 500","error_kind":"server"}"#,
        ];
        let predictions: Vec<Prediction> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let s = ModelStats::from_predictions(&config, 4, &predictions);
        assert_eq!((s.tasks, s.answered, s.errors), (4, 2, 1));
        assert_eq!(s.error_kinds.get("server"), Some(&1));
        assert_eq!((s.latency_p50_ms, s.latency_p95_ms), (Some(100), Some(300)));
        assert!((s.cost_usd.unwrap() - 3.0).abs() < 1e-9);
        let table = run_table(&[s]);
        assert!(table.starts_with("model  tasks  answered"), "{table}");
        assert!(table.contains("errors of m: server 1"), "{table}");
    }
}
