//! Step 6 of the method: filling one tool's parameters from part of the
//! query, greedily, best (parameter, span) pair first.

use std::collections::HashSet;
use std::ops::Range;

use super::Request;
use super::config::Config;
use super::dense_terms::dense_terms;
use super::slots::{
    CODE_CUES, Slot, YEAR_CUES, contains_cue, cue_score, param_cues, slot_of, type_fit, value_of,
};
use super::spans::{Kind, Span, general_spans};
use super::terms::{Positioned, TermMode, is_dense, is_word_char, normalize, term_groups, terms};
use crate::spec::records::{Parameter, Tool, Value};

/// The query, normalised, with what slot filling needs.
pub(super) struct Query {
    /// The query, NFKC-normalised.
    pub(super) text: String,
    /// The candidate values that do not depend on the tool.
    pub(super) general: Vec<Span>,
    /// The cue terms, by position.
    pub(super) cues: Vec<Positioned>,
}

impl Query {
    /// The query of a request, read once.
    pub(super) fn new(request: &Request<'_>) -> Query {
        let text = normalize(request.query);
        let month_first = request.language.eq_ignore_ascii_case("en");
        let general = general_spans(&text, month_first);
        let cues = term_groups(&text, TermMode::Cue);
        Query {
            text,
            general,
            cues,
        }
    }
}

/// The outcome of filling one tool's parameters from part of the query.
pub(super) struct Filled {
    /// The arguments, parameters in declaration order (required first).
    pub(super) arguments: Vec<(String, Value)>,
    /// The kind of span each argument came from.
    kinds: Vec<Kind>,
    /// A typed required parameter found no value.
    pub(super) missing_typed: bool,
}

impl Filled {
    /// The value of a parameter and the kind of span it came from.
    pub(super) fn get(&self, name: &str) -> Option<(&Value, Kind)> {
        let i = self.arguments.iter().position(|(k, _)| k == name)?;
        Some((&self.arguments[i].1, self.kinds[i]))
    }
}

/// Whether `needle` occurs in `haystack` as a whole word (any substring for
/// scripts without spaces).
fn mentions(haystack: &str, needle: &str) -> bool {
    if needle.chars().count() < 2 {
        return false;
    }
    if needle.chars().all(is_dense) {
        return haystack.contains(needle);
    }
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// Dense-script bigrams of a text.
fn dense_bigrams(text: &str) -> HashSet<String> {
    let chars: Vec<char> = normalize(text).chars().collect();
    chars
        .windows(2)
        .filter(|w| is_dense(w[0]) && is_dense(w[1]))
        .map(|w| format!("{}{}", w[0], w[1]))
        .collect()
}

/// Bigrams of the tool's name, category and description that its parameter
/// descriptions do not use (those may be example values).
fn tool_bigrams(tool: &Tool) -> HashSet<String> {
    let own = dense_bigrams(&format!(
        "{} {} {}",
        tool.name, tool.category, tool.description
    ));
    let examples: HashSet<String> = tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
        .flat_map(|p| dense_bigrams(&p.description))
        .collect();
    own.difference(&examples).cloned().collect()
}

/// Stems of the tool's name, category and description.
fn tool_stems(tool: &Tool) -> HashSet<String> {
    terms(&format!(
        "{} {} {}",
        tool.name, tool.category, tool.description
    ))
    .into_iter()
    .collect()
}

/// Fills a tool's parameters from the spans inside `ranges` of the query.
///
/// Every (parameter, span) pair that reaches the parameter's floor is scored;
/// pairs are taken greedily, best first, each parameter and each span once.
pub(super) fn fill(
    tool: &Tool,
    query: &Query,
    ranges: &[Range<usize>],
    min_required: f64,
    config: &Config,
) -> Filled {
    let spans = spans_within(tool, query, ranges);
    let own_words = tool_stems(tool);
    let params: Vec<(&Parameter, bool)> = tool
        .required_parameters
        .iter()
        .map(|p| (p, true))
        .chain(tool.optional_parameters.iter().map(|p| (p, false)))
        .collect();
    let slots: Vec<Slot> = params.iter().map(|(p, _)| slot_of(p)).collect();

    // Every acceptable (parameter, span) pair with its score.
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (pi, ((p, required), slot)) in params.iter().zip(&slots).enumerate() {
        if *slot == Slot::Boolean {
            continue;
        }
        let floor = if *required {
            min_required
        } else {
            config.min_optional_fit
        };
        let scores = span_scores(p, slot, &spans, &query.cues, &own_words);
        for (si, score) in scores.into_iter().enumerate() {
            if let Some(score) = score
                && score >= floor
            {
                let bonus = if *required { 0.25 } else { 0.0 };
                pairs.push((score + bonus, pi, si));
            }
        }
    }
    let taken = take_greedily(pairs, params.len(), spans.len());
    arguments_from(&params, &slots, &spans, &taken)
}

/// The candidate values inside `ranges`: the query's general spans, then the
/// tool-dependent terms of dense scripts that no general span overlaps.
fn spans_within(tool: &Tool, query: &Query, ranges: &[Range<usize>]) -> Vec<Span> {
    let inside = |s: &Span| ranges.iter().any(|r| r.start <= s.start && s.end <= r.end);
    let bigrams = tool_bigrams(tool);
    let mut spans: Vec<Span> = query
        .general
        .iter()
        .filter(|s| inside(s))
        .cloned()
        .collect();
    spans.extend(dense_terms(&query.text, &bigrams).into_iter().filter(|s| {
        inside(s)
            && !query
                .general
                .iter()
                .any(|g| g.start < s.end && s.start < g.end)
    }));
    spans.sort_by_key(|s| s.start);
    spans
}

/// How well each span fits one parameter (`None`: its kind does not fit):
/// the type fit, 1.5 × the cue score, and the smaller adjustments of the
/// method description.
fn span_scores(
    p: &Parameter,
    slot: &Slot,
    spans: &[Span],
    cue_groups: &[Positioned],
    own_words: &HashSet<String>,
) -> Vec<Option<f64>> {
    let cues = param_cues(p);
    let examples = normalize(&p.description).to_lowercase();
    let described = format!("{} {}", p.name, p.description);
    let wants_code = contains_cue(&described, CODE_CUES);
    let wants_year = matches!(slot, Slot::Integer | Slot::Number | Slot::Plain)
        && contains_cue(&described, YEAR_CUES);
    let name_terms: HashSet<String> = terms(&p.name).into_iter().collect();
    let example_ranges: Vec<Range<usize>> = spans
        .iter()
        .filter(|s| mentions(&examples, &s.text.to_lowercase()))
        .map(|s| s.start..s.end)
        .collect();
    let score_of = |si: usize, span: &Span| {
        let fit = type_fit(slot, span)?;
        let mut score = fit + 1.5 * cue_score(cue_groups, span, &cues, &example_ranges);
        if wants_code && matches!(span.kind, Kind::Code | Kind::Number { int: true, .. }) {
            score += 1.0;
        }
        if wants_year && let Kind::Number { value, .. } = span.kind {
            score += if (1900.0..=2100.0).contains(&value) && span.text.len() == 4 {
                1.0
            } else {
                -1.0
            };
        }
        // A value that only repeats the parameter's own name (`Titel` for `titel`).
        let stems = terms(&span.text);
        if !stems.is_empty() && stems.iter().all(|t| name_terms.contains(t)) {
            score -= 2.0;
        }
        // An example value of the description, or a word of the tool's own.
        let own = !stems.is_empty() && stems.iter().all(|t| own_words.contains(t));
        let is_example = !own
            && matches!(span.kind, Kind::Word | Kind::Term | Kind::Name | Kind::Code)
            && mentions(&examples, &span.text.to_lowercase());
        if is_example {
            score += 1.0;
        } else if own && matches!(span.kind, Kind::Word | Kind::Name) {
            score -= 1.5;
        }
        // Coordinates come as (latitude, longitude) pairs.
        if let Kind::Number { int: false, .. } = span.kind {
            let decimal = |s: &Span| matches!(s.kind, Kind::Number { int: false, .. });
            if *slot == Slot::Latitude && spans.get(si + 1).is_some_and(decimal) {
                score += 0.3;
            }
            if *slot == Slot::Longitude && si > 0 && decimal(&spans[si - 1]) {
                score += 0.3;
            }
        }
        Some(score)
    };
    spans
        .iter()
        .enumerate()
        .map(|(si, span)| score_of(si, span))
        .collect()
}

/// Takes `(score, parameter, span)` pairs best first (ties: earlier span,
/// then earlier parameter), each parameter and each span at most once: the
/// span each parameter gets.
fn take_greedily(
    mut pairs: Vec<(f64, usize, usize)>,
    params: usize,
    spans: usize,
) -> Vec<Option<usize>> {
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1)));
    let mut taken_param = vec![None; params];
    let mut taken_span = vec![false; spans];
    for (_, pi, si) in pairs {
        if taken_param[pi].is_some() || taken_span[si] {
            continue;
        }
        taken_param[pi] = Some(si);
        taken_span[si] = true;
    }
    taken_param
}

/// The arguments from the spans taken: a required boolean without a value is
/// `true`; a typed required parameter without one is missing.
fn arguments_from(
    params: &[(&Parameter, bool)],
    slots: &[Slot],
    spans: &[Span],
    taken: &[Option<usize>],
) -> Filled {
    let mut arguments = Vec::new();
    let mut kinds = Vec::new();
    let mut missing_typed = false;
    for (pi, ((p, required), slot)) in params.iter().zip(slots).enumerate() {
        match taken[pi] {
            Some(si) => {
                arguments.push((p.name.clone(), value_of(slot, &spans[si])));
                kinds.push(spans[si].kind);
            }
            None if *required && *slot == Slot::Boolean => {
                arguments.push((p.name.clone(), Value::Bool(true)));
                kinds.push(Kind::Word);
            }
            None if *required && slot.typed() => missing_typed = true,
            None => {}
        }
    }
    Filled {
        arguments,
        kinds,
        missing_typed,
    }
}
