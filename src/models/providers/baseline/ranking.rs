//! Step 2 of the method: ranking the candidate tools.
//!
//! Okapi BM25 over the task's own candidate tools ([`Index`]), plus typed
//! evidence: a bonus per required parameter some value of the query fills
//! with a strong type, a penalty per typed required parameter nothing fits.

use std::collections::HashMap;
use std::ops::Range;

use super::config::Config;
use super::fill::Query;
use super::slots::{slot_of, type_fit};
use super::spans::Span;
use super::terms::terms;
use crate::spec::records::Tool;

/// BM25 over the candidate tools of one task.
pub(super) struct Index {
    docs: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average: f64,
    df: HashMap<String, f64>,
}

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// A tool's terms: name (twice), category, description, and every
/// parameter's name and description.
fn tool_document(tool: &Tool) -> Vec<String> {
    let mut doc = terms(&tool.name);
    doc.extend(terms(&tool.name));
    doc.extend(terms(&tool.category));
    doc.extend(terms(&tool.description));
    for p in tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
    {
        doc.extend(terms(&p.name));
        doc.extend(terms(&p.description));
    }
    doc
}

impl Index {
    /// The index of one task's candidate tools.
    pub(super) fn new(tools: &[Tool]) -> Index {
        let mut docs = Vec::with_capacity(tools.len());
        let mut lengths = Vec::with_capacity(tools.len());
        let mut df: HashMap<String, f64> = HashMap::new();
        for tool in tools {
            let doc = tool_document(tool);
            lengths.push(doc.len() as f64);
            let mut tf: HashMap<String, f64> = HashMap::new();
            for t in doc {
                *tf.entry(t).or_default() += 1.0;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1.0;
            }
            docs.push(tf);
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        Index {
            docs,
            lengths,
            average,
            df,
        }
    }

    /// BM25 score of every tool for a set of query terms.
    fn scores(&self, query: &[String]) -> Vec<f64> {
        let n = self.docs.len() as f64;
        let mut unique: Vec<&String> = query.iter().collect();
        unique.sort();
        unique.dedup();
        self.docs
            .iter()
            .zip(&self.lengths)
            .map(|(doc, &len)| {
                unique
                    .iter()
                    .filter_map(|t| {
                        let tf = *doc.get(*t)?;
                        let df = self.df.get(*t).copied().unwrap_or(0.0);
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.average)))
                    })
                    .sum()
            })
            .collect()
    }
}

/// Index of the best score and its lead over the second (first wins ties).
pub(super) fn best_of(scores: &[f64]) -> Option<(usize, f64, f64)> {
    let mut best: Option<usize> = None;
    for (i, &s) in scores.iter().enumerate() {
        if best.is_none_or(|b| s > scores[b]) {
            best = Some(i);
        }
    }
    let b = best?;
    let second = scores
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != b)
        .map(|(_, &s)| s)
        .fold(0.0, f64::max);
    Some((b, scores[b], scores[b] - second))
}
/// Required parameters that some span fills with a strong type fit (a date,
/// a currency code, a decimal coordinate, a language code, quoted text), and
/// typed required parameters (those of [`Slot::typed`](super::slots::Slot::typed)) that no span fits.
fn typed_evidence(tool: &Tool, spans: &[&Span]) -> (usize, usize) {
    let mut filled = 0;
    let mut unfilled = 0;
    for p in &tool.required_parameters {
        let slot = slot_of(p);
        let best = spans
            .iter()
            .filter_map(|s| type_fit(&slot, s))
            .fold(0.0, f64::max);
        if best >= 3.0 {
            filled += 1;
        } else if slot.typed() && best < 1.0 {
            unfilled += 1;
        }
    }
    (filled, unfilled)
}

/// Scores of every tool for one part of the query: BM25 plus typed evidence.
pub(super) fn tool_scores(
    index: &Index,
    tools: &[Tool],
    query: &Query,
    range: &Range<usize>,
    config: &Config,
) -> Vec<f64> {
    let bm25 = index.scores(&terms(&query.text[range.clone()]));
    let spans: Vec<&Span> = query
        .general
        .iter()
        .filter(|s| range.start <= s.start && s.end <= range.end)
        .collect();
    bm25.iter()
        .zip(tools)
        .map(|(score, tool)| {
            let (filled, unfilled) = typed_evidence(tool, &spans);
            score + config.type_bonus * filled as f64 - config.type_penalty * unfilled as f64
        })
        .collect()
}
