//! Scoring one task (SPEC §3): tool selection and tool invocation P/R/F1
//! with an optimal alignment of calls, the value-equality rules, nested
//! references, and the counts behind the error analysis.

use hashbrown::{HashMap, HashSet};
use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use crate::spec::limits::MAX_ALIGNED_CALLS_PER_NAME;
use crate::spec::records::{Call, Counts, Prf, Reference, Tool, Value};
use crate::spec::reference::Style;

/// Options that change how values compare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScoreOptions {
    /// Turn off every equality rule but NFKC normalisation (`--strict-values`).
    pub strict_values: bool,
}

/// Everything the scorer needs to know about the gold side of a task.
#[derive(Debug, Clone, Copy)]
pub struct GoldSide<'a> {
    /// Gold calls.
    pub calls: &'a [Call],
    /// Gold Thought: its placeholder words count as references in nested tasks.
    pub thought: &'a str,
    /// Candidate tools shown to the model.
    pub tools: &'a [Tool],
    /// In a step-by-step run (SPEC §6), the output shown to the model for
    /// each gold call (by gold call index; `None`: none was shown). Empty
    /// for a single-shot answer.
    pub shown: &'a [Option<serde_json::Value>],
}

/// The result of scoring one list of predicted calls against the gold.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CallScore {
    /// Tool selection P/R/F1.
    pub selection: Prf,
    /// Tool invocation P/R/F1.
    pub invocation: Prf,
    /// Counts behind both and the error analysis.
    pub counts: Counts,
}

/// P/R/F1 from counts with SPEC §3's empty cases: nothing expected and nothing
/// given is a perfect score; one side empty is zero.
pub fn prf(tp: u32, predicted: u32, gold: u32) -> Prf {
    match (predicted, gold) {
        (0, 0) => Prf {
            p: 1.0,
            r: 1.0,
            f1: 1.0,
        },
        (0, _) | (_, 0) => Prf::default(),
        _ => {
            let p = f64::from(tp) / f64::from(predicted);
            let r = f64::from(tp) / f64::from(gold);
            let f1 = if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            };
            Prf { p, r, f1 }
        }
    }
}

/// Scores predicted calls against the gold side of a task.
pub fn score_calls(gold: &GoldSide<'_>, predicted: &[Call], options: ScoreOptions) -> CallScore {
    let predicted = resolve_positional(predicted, gold.tools);
    let mut counts = Counts {
        sel_pred: predicted.len() as u32,
        sel_gold: gold.calls.len() as u32,
        ..Counts::default()
    };

    // Tool selection: multiset intersection of names.
    let selection = if gold.calls.len() + predicted.len() <= FEW_CALLS {
        select_few(gold, &predicted)
    } else {
        select_many(gold, &predicted)
    };
    (counts.sel_tp, counts.ex, counts.hall) = selection;
    counts.mis = counts.sel_gold - counts.sel_tp;

    // Tool invocation: triples, over an optimal alignment of same-name calls.
    counts.inv_gold = gold.calls.iter().map(triple_count).sum();
    counts.inv_pred = predicted.iter().map(triple_count).sum();
    for (_, _, detail) in align(gold, &predicted, options) {
        counts.inv_tp += detail.shared;
        counts.incor += detail.incorrect;
        counts.miss += detail.missing;
        counts.ext += detail.extra;
    }

    CallScore {
        selection: prf(counts.sel_tp, counts.sel_pred, counts.sel_gold),
        invocation: prf(counts.inv_tp, counts.inv_pred, counts.inv_gold),
        counts,
    }
}

/// Tool selection's counts `(shared names, extra names, hallucinated
/// names)` for at most [`FEW_CALLS`] calls, by scans.
fn select_few(gold: &GoldSide<'_>, predicted: &[Call]) -> (u32, u32, u32) {
    let mut names = [""; FEW_CALLS];
    for (name, call) in names.iter_mut().zip(gold.calls) {
        *name = &call.name;
    }
    let mut gold_left = &mut names[..gold.calls.len()];
    let (mut shared, mut extra, mut hallucinated) = (0, 0, 0);
    for call in predicted {
        if let Some(i) = gold_left.iter().position(|n| *n == call.name) {
            let last = gold_left.len() - 1;
            gold_left.swap(i, last);
            gold_left = &mut gold_left[..last];
            shared += 1;
        } else if gold.tools.iter().any(|t| t.name == call.name) {
            extra += 1;
        } else {
            hallucinated += 1;
        }
    }
    (shared, extra, hallucinated)
}

/// [`select_few`] for any number of calls and tools, through maps.
fn select_many(gold: &GoldSide<'_>, predicted: &[Call]) -> (u32, u32, u32) {
    let mut gold_left: HashMap<&str, u32> = HashMap::new();
    for call in gold.calls {
        *gold_left.entry(call.name.as_str()).or_default() += 1;
    }
    let tools: HashSet<&str> = gold.tools.iter().map(|t| t.name.as_str()).collect();
    let (mut shared, mut extra, mut hallucinated) = (0, 0, 0);
    for call in predicted {
        match gold_left.get_mut(call.name.as_str()) {
            Some(left) if *left > 0 => {
                *left -= 1;
                shared += 1;
            }
            _ if tools.contains(call.name.as_str()) => extra += 1,
            _ => hallucinated += 1,
        }
    }
    (shared, extra, hallucinated)
}

/// A call with no arguments has the single triple `(name, ∅, ∅)`.
fn triple_count(call: &Call) -> u32 {
    (call.arguments.len() as u32).max(1)
}

/// Gives positional arguments (`#0`, `#1`, …) the name of the tool's
/// parameter at that position (required parameters first), when known.
fn resolve_positional<'c>(calls: &'c [Call], tools: &[Tool]) -> Cow<'c, [Call]> {
    let has_positional = calls
        .iter()
        .any(|c| c.arguments.iter().any(|(k, _)| k.starts_with('#')));
    if !has_positional {
        return Cow::Borrowed(calls);
    }
    let resolved = calls
        .iter()
        .map(|call| {
            let tool = tools.iter().find(|t| t.name == call.name);
            let arguments = call
                .arguments
                .iter()
                .map(|(k, v)| {
                    let position = k.strip_prefix('#').and_then(|n| n.parse::<usize>().ok());
                    let name = position.and_then(|i| {
                        let tool = tool?;
                        tool.required_parameters
                            .iter()
                            .chain(&tool.optional_parameters)
                            .nth(i)
                            .map(|p| p.name.clone())
                    });
                    (name.unwrap_or_else(|| k.clone()), v.clone())
                })
                .collect();
            Call::new(call.name.clone(), arguments)
        })
        .collect();
    Cow::Owned(resolved)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ArgumentComparison {
    shared: u32,
    incorrect: u32,
    missing: u32,
    extra: u32,
}

/// Compares the arguments of gold call `g` with an aligned predicted call.
fn compare_arguments(
    gold: &GoldSide<'_>,
    g: usize,
    predicted: &Call,
    options: ScoreOptions,
) -> ArgumentComparison {
    let gold_call = &gold.calls[g];
    let mut result = ArgumentComparison {
        shared: 0,
        incorrect: 0,
        missing: 0,
        extra: 0,
    };
    if gold_call.arguments.is_empty() && predicted.arguments.is_empty() {
        result.shared = 1;
        return result;
    }
    for (key, gold_value) in &gold_call.arguments {
        match predicted.arguments.iter().find(|(k, _)| k == key) {
            Some((_, v))
                if values_equal(
                    gold_value,
                    v,
                    &RefContext {
                        gold,
                        call_index: g,
                    },
                    options,
                ) =>
            {
                result.shared += 1
            }
            Some(_) => result.incorrect += 1,
            None => result.missing += 1,
        }
    }
    // Each predicted key once: a call of a few arguments looks back over
    // its earlier keys; a call of many uses a set, so that it costs linear
    // time.
    let not_in_gold = |key: &str| !gold_call.arguments.iter().any(|(k, _)| k == key);
    let keys = &predicted.arguments;
    if keys.len() <= FEW_ARGUMENTS {
        for (i, (key, _)) in keys.iter().enumerate() {
            if !keys[..i].iter().any(|(k, _)| k == key) && not_in_gold(key) {
                result.extra += 1;
            }
        }
    } else {
        let mut seen: HashSet<&str> = HashSet::new();
        for (key, _) in keys {
            if seen.insert(key) && not_in_gold(key) {
                result.extra += 1;
            }
        }
    }
    result
}

/// Up to this many predicted arguments, [`compare_arguments`] finds repeated
/// keys by looking back instead of building a set.
const FEW_ARGUMENTS: usize = 8;

/// Pairs gold calls with predicted calls of the same name so that the number
/// of shared triples is largest (then the number of pairs); ties go to the
/// earlier predicted call. Returns `(gold index, predicted index)` pairs.
///
/// Only the first [`MAX_ALIGNED_CALLS_PER_NAME`] calls of a name on each side
/// take part; the others stay unmatched (their triples still count as
/// predicted or gold). With that cap the work per name is bounded, and
/// grouping by name keeps the whole alignment linear in the number of calls.
/// Positional arguments are named first, as scoring does (SPEC §3).
pub fn aligned_pairs(
    gold: &GoldSide<'_>,
    predicted: &[Call],
    options: ScoreOptions,
) -> Vec<(usize, usize)> {
    align(gold, &resolve_positional(predicted, gold.tools), options)
        .into_iter()
        .map(|(g, p, _)| (g, p))
        .collect()
}

/// The alignment of [`aligned_pairs`], each pair with its argument
/// comparison (computed once, for the weights as for the counts).
fn align(
    gold: &GoldSide<'_>,
    predicted: &[Call],
    options: ScoreOptions,
) -> Vec<(usize, usize, ArgumentComparison)> {
    if gold.calls.len() + predicted.len() <= FEW_CALLS {
        align_few(gold, predicted, options)
    } else {
        align_many(gold, predicted, options)
    }
}

/// [`align`] for at most [`FEW_CALLS`] calls: each gold name, at its first
/// call, finds its calls on both sides by a scan (no map, and no allocation
/// for single calls).
fn align_few(
    gold: &GoldSide<'_>,
    predicted: &[Call],
    options: ScoreOptions,
) -> Vec<(usize, usize, ArgumentComparison)> {
    let mut pairs = Vec::new();
    for (g, call) in gold.calls.iter().enumerate() {
        let name = call.name.as_str();
        if gold.calls[..g].iter().any(|c| c.name == name) {
            continue;
        }
        let (golds, gold_count) = calls_named(gold.calls, name);
        let (preds, pred_count) = calls_named(predicted, name);
        let group = (&golds[..gold_count], &preds[..pred_count]);
        align_group(gold, predicted, group, options, &mut pairs);
    }
    pairs
}

/// [`align`] for any number of calls, grouping them by name through maps.
fn align_many(
    gold: &GoldSide<'_>,
    predicted: &[Call],
    options: ScoreOptions,
) -> Vec<(usize, usize, ArgumentComparison)> {
    let mut pairs = Vec::new();
    let mut predicted_by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (p, call) in predicted.iter().enumerate() {
        let group = predicted_by_name.entry(call.name.as_str()).or_default();
        if group.len() < MAX_ALIGNED_CALLS_PER_NAME {
            group.push(p);
        }
    }
    // Gold names in the order of their first call, found through a map so
    // that many distinct names cost linear time.
    let mut gold_by_name: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut gold_places: HashMap<&str, usize> = HashMap::new();
    for (g, call) in gold.calls.iter().enumerate() {
        let place = *gold_places.entry(call.name.as_str()).or_insert_with(|| {
            gold_by_name.push((call.name.as_str(), Vec::new()));
            gold_by_name.len() - 1
        });
        let group = &mut gold_by_name[place].1;
        if group.len() < MAX_ALIGNED_CALLS_PER_NAME {
            group.push(g);
        }
    }
    for (name, golds) in &gold_by_name {
        if let Some(preds) = predicted_by_name.get(name) {
            align_group(gold, predicted, (golds, preds), options, &mut pairs);
        }
    }
    pairs
}

/// Up to this many calls on the two sides together, the selection's name
/// matching and [`align`]'s grouping by name use scans instead of maps.
const FEW_CALLS: usize = 16;

/// The indices of the calls named `name` (at most [`FEW_CALLS`] calls).
fn calls_named(calls: &[Call], name: &str) -> ([usize; FEW_CALLS], usize) {
    let mut indices = [0; FEW_CALLS];
    let mut count = 0;
    for (i, call) in calls.iter().enumerate() {
        if call.name == name {
            indices[count] = i;
            count += 1;
        }
    }
    (indices, count)
}

/// Aligns the gold and predicted calls of one name, adding the pairs to
/// `pairs`.
fn align_group(
    gold: &GoldSide<'_>,
    predicted: &[Call],
    (golds, preds): (&[usize], &[usize]),
    options: ScoreOptions,
    pairs: &mut Vec<(usize, usize, ArgumentComparison)>,
) {
    match (golds, preds) {
        (_, []) | ([], _) => {}
        // One call of the name on each side: they pair whatever they share.
        (&[g], &[p]) => pairs.push((g, p, compare_arguments(gold, g, &predicted[p], options))),
        _ => {
            let comparisons: Vec<Vec<ArgumentComparison>> = golds
                .iter()
                .map(|&g| {
                    preds
                        .iter()
                        .map(|&p| compare_arguments(gold, g, &predicted[p], options))
                        .collect()
                })
                .collect();
            let weights: Vec<Vec<u32>> = comparisons
                .iter()
                .map(|row| row.iter().map(|c| c.shared).collect())
                .collect();
            for (gi, pi) in best_assignment(&weights) {
                pairs.push((golds[gi], preds[pi], comparisons[gi][pi]));
            }
        }
    }
}

/// Most states (rows × 2^columns) of the exact assignment; larger groups
/// use [`hungarian`].
const EXACT_STATES: usize = 1 << 20;

/// Maximum-weight assignment of rows (gold) to columns (predicted), pairing as
/// many as possible; ties prefer earlier columns for earlier rows.
fn best_assignment(weights: &[Vec<u32>]) -> Vec<(usize, usize)> {
    let rows = weights.len();
    let cols = weights.first().map_or(0, Vec::len);
    if rows == 1 {
        let best = (0..cols).rev().max_by_key(|&c| weights[0][c]).unwrap_or(0);
        return if cols > 0 { vec![(0, best)] } else { vec![] };
    }
    if cols <= 16 && (rows + 1) << cols <= EXACT_STATES {
        exact_assignment(weights, rows, cols)
    } else {
        hungarian(weights, rows, cols)
    }
}

/// Dynamic programming over the set of used columns: exact, with the tie rule.
fn exact_assignment(weights: &[Vec<u32>], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    // best[r][mask] = (shared, pairs) achievable by rows r.. given used columns `mask`.
    let masks = 1usize << cols;
    let mut best = vec![vec![(0u32, 0u32); masks]; rows + 1];
    for r in (0..rows).rev() {
        for mask in 0..masks {
            let mut value = best[r + 1][mask];
            for c in 0..cols {
                if mask & (1 << c) == 0 {
                    let next = best[r + 1][mask | (1 << c)];
                    let candidate = (next.0 + weights[r][c], next.1 + 1);
                    if candidate > value {
                        value = candidate;
                    }
                }
            }
            best[r][mask] = value;
        }
    }
    let mut mask = 0usize;
    let mut pairs = Vec::new();
    for r in 0..rows {
        let target = best[r][mask];
        let chosen = (0..cols).find(|&c| {
            mask & (1 << c) == 0 && {
                let next = best[r + 1][mask | (1 << c)];
                (next.0 + weights[r][c], next.1 + 1) == target
            }
        });
        if let Some(c) = chosen {
            pairs.push((r, c));
            mask |= 1 << c;
        }
    }
    pairs
}

/// Kuhn–Munkres on the smaller side: O(n²·m) for n ≤ m (rows and columns
/// swapped when there are more rows). Optimal total; among optimal
/// assignments, the one whose predicted calls (columns) come earliest in sum.
fn hungarian(weights: &[Vec<u32>], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    let transposed = rows > cols;
    let (n, m) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    // Every assignment pairs all n rows of the smaller side, the most pairs
    // possible. A weight outranks any sum of column penalties (< n·m).
    let scale = (n * m + 1) as i64;
    let cost = |i: usize, j: usize| -> i64 {
        let (r, c) = if transposed { (j, i) } else { (i, j) };
        -(i64::from(weights[r][c]) * scale) + c as i64
    };
    let inf = i64::MAX / 4;
    let (mut u, mut v) = (vec![0i64; n + 1], vec![0i64; m + 1]);
    let (mut p, mut way) = (vec![0usize; m + 1], vec![0usize; m + 1]);
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = vec![inf; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = inf;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = (1..=m)
        .filter(|&j| p[j] != 0)
        .map(|j| {
            if transposed {
                (j - 1, p[j] - 1)
            } else {
                (p[j] - 1, j - 1)
            }
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

// ---------------------------------------------------------------------------
// Value equality

/// Where a gold value sits, for matching nested references.
pub struct RefContext<'g, 'a> {
    /// The gold side of the task.
    pub gold: &'g GoldSide<'a>,
    /// Index of the gold call holding the value.
    pub call_index: usize,
}

/// SPEC §3 value equality between a gold value and a predicted one.
pub fn values_equal(
    gold: &Value,
    predicted: &Value,
    ctx: &RefContext<'_, '_>,
    options: ScoreOptions,
) -> bool {
    if let Value::Ref(reference) = gold {
        return reference_matches(reference, predicted, ctx);
    }
    if options.strict_values {
        strict_equal(gold, predicted)
    } else {
        loose_equal(gold, predicted, ctx)
    }
}

fn loose_equal(a: &Value, b: &Value, ctx: &RefContext<'_, '_>) -> bool {
    use Value::*;
    match (a, b) {
        (Ref(r), other) => reference_matches(r, other, ctx),
        (Null, Null) => true,
        (Bool(x), Bool(y)) => x == y,
        (Bool(x), other) | (other, Bool(x)) => other.as_text().and_then(text_bool) == Some(*x),
        (Int(x), Int(y)) => x == y,
        (Int(_) | Float(_), Int(_) | Float(_)) => as_number(a) == as_number(b),
        (Int(_) | Float(_), other) | (other, Int(_) | Float(_)) => {
            let number = if matches!(a, Int(_) | Float(_)) { a } else { b };
            other
                .as_text()
                .and_then(text_number)
                .is_some_and(|n| Some(n) == as_number(number))
        }
        (Str(x) | Word(x), Str(y) | Word(y)) => {
            text_equal(x, y)
                || matches!((text_number(x), text_number(y)), (Some(m), Some(n)) if m == n)
        }
        (List(x) | Tuple(x), List(y) | Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(u, v)| loose_equal(u, v, ctx))
        }
        (Dict(x), Dict(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, u)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v)| loose_equal(u, v, ctx))
                })
        }
        _ => false,
    }
}

fn strict_equal(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Null, Null) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y,
        (Float(x), Float(y)) => x == y,
        (Str(x) | Word(x), Str(y) | Word(y)) => x == y || x.nfkc().eq(y.nfkc()),
        (List(x) | Tuple(x), List(y) | Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(u, v)| strict_equal(u, v))
        }
        (Dict(x), Dict(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, u)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v)| strict_equal(u, v))
                })
        }
        (Ref(x), Ref(y)) => x == y,
        _ => false,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

fn text_number(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn text_bool(text: &str) -> Option<bool> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("true") {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// NFKC, trimmed, case-insensitive string equality.
pub fn text_equal(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.trim().eq_ignore_ascii_case(b.trim());
    }
    let (a, b) = (nfkc(a), nfkc(b));
    let (a, b) = (a.trim(), b.trim());
    // `str::to_lowercase` lowers a final capital sigma by its context; every
    // other character is lowered on its own, so those texts compare without
    // building their lower case.
    if a.contains('Σ') || b.contains('Σ') {
        return a.to_lowercase() == b.to_lowercase();
    }
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// `s` in NFKC, borrowed when it already is (most text).
fn nfkc(s: &str) -> Cow<'_, str> {
    match unicode_normalization::is_nfkc_quick(s.chars()) {
        unicode_normalization::IsNormalized::Yes => Cow::Borrowed(s),
        _ => Cow::Owned(s.nfkc().collect()),
    }
}

/// Words that say "an earlier output" without naming which.
const GENERIC_REFERENCE_WORDS: [&str; 14] = [
    "output", "outputs", "result", "results", "response", "of", "call", "api", "step", "the",
    "from", "returned", "value", "tool",
];

/// Whether a predicted value refers to the earlier output the gold reference
/// names, in any common style: `$1.password`, `{{password}}`, `API_call_0`,
/// `<output of call 1>` (the shapes [`Style::of`] tells; `$5.00` is money),
/// or the placeholder word the gold Thought uses.
fn reference_matches(reference: &Reference, predicted: &Value, ctx: &RefContext<'_, '_>) -> bool {
    if let Value::Ref(other) = predicted {
        return other.call == reference.call
            && (other.field.is_empty()
                || reference.field.is_empty()
                || text_equal(&other.field, &reference.field));
    }
    // SPEC §6: in a step-by-step run, the literal value the model was shown.
    if let Some(Some(output)) = ctx.gold.shown.get(reference.call)
        && let Some(shown) = crate::spec::reference::field_value(output, &reference.field)
        && let Ok(shown) = serde_json::from_value::<Value>(shown.clone())
        && loose_equal(&shown, predicted, ctx)
    {
        return true;
    }
    let Some(text) = predicted.as_text() else {
        return false;
    };
    let text = text.trim();
    if text.is_empty() {
        return false;
    }
    if Style::of(text).is_some() {
        return styled_reference_matches(reference, text, ctx.call_index);
    }
    is_placeholder_in(text, ctx.gold.thought) || text_equal(text, &reference.field)
}

fn styled_reference_matches(reference: &Reference, text: &str, call_index: usize) -> bool {
    let lower = text.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric()))
        .filter(|t| !t.is_empty())
        .collect();
    let numbers: Vec<usize> = tokens.iter().filter_map(|t| t.parse().ok()).collect();
    // Both 0-based and 1-based numbering are common; either must point earlier.
    let number_ok = numbers.is_empty()
        || numbers
            .iter()
            .any(|&n| (n == reference.call || n == reference.call + 1) && n <= call_index + 1);
    let field = reference.field.to_lowercase();
    let field_last = field.rsplit('.').next().unwrap_or("");
    let words: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| t.parse::<usize>().is_err() && !GENERIC_REFERENCE_WORDS.contains(t))
        .collect();
    let squashed: String = words.concat();
    let field_squashed: String = field_last.chars().filter(|c| c.is_alphanumeric()).collect();
    let field_ok = words.is_empty()
        || field_last.is_empty()
        || squashed == field_squashed
        || words
            .iter()
            .any(|w| *w == field_last || field_last.split('_').any(|part| part == *w));
    number_ok && field_ok
}

/// Whether `word` appears as a whole word in the gold Thought.
fn is_placeholder_in(word: &str, thought: &str) -> bool {
    if word.chars().count() < 2 || thought.is_empty() {
        return false;
    }
    let is_word_char = |c: char| c.is_alphanumeric() || c == '_';
    thought.match_indices(word).any(|(i, _)| {
        let before = thought[..i].chars().next_back();
        let after = thought[i + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The allocation-free comparison equals NFKC, trim and
        /// `str::to_lowercase` on both sides, final sigma, `İ`, `ß`,
        /// full-width and composed forms included.
        #[test]
        fn text_equal_is_nfkc_trim_lowercase_equality(
            a in "[ aAσςΣİißẞｆｆFé\u{0065}\u{0301}ﬁΟΔ]{0,8}",
            b in "[ aAσςΣİißẞｆｆFé\u{0065}\u{0301}ﬁΟΔ]{0,8}",
        ) {
            let reference = |s: &str| s.nfkc().collect::<String>().trim().to_lowercase();
            proptest::prop_assert_eq!(text_equal(&a, &b), reference(&a) == reference(&b));
            proptest::prop_assert!(text_equal(&a, &a));
            let upper = a.to_uppercase();
            proptest::prop_assert_eq!(text_equal(&a, &upper), reference(&a) == reference(&upper));
        }
    }
    use crate::spec::action::{Mode, parse_actions};
    use crate::spec::records::Parameter;

    fn calls(s: &str) -> Vec<Call> {
        parse_actions(s, Mode::Lenient).unwrap()
    }
    fn tool(name: &str, params: &[&str]) -> Tool {
        Tool {
            name: name.into(),
            required_parameters: params
                .iter()
                .map(|p| Parameter {
                    name: p.to_string(),
                    kind: "string".into(),
                    description: String::new(),
                    default: None,
                    ..Default::default()
                })
                .collect(),
            ..Tool::default()
        }
    }
    fn score_with(
        gold: &[Call],
        thought: &str,
        tools: &[Tool],
        pred: &str,
        options: ScoreOptions,
    ) -> CallScore {
        let side = GoldSide {
            calls: gold,
            thought,
            tools,
            shown: &[],
        };
        score_calls(&side, &calls(pred), options)
    }
    fn score(gold: &str, pred: &str) -> CallScore {
        let tools = vec![tool("f", &["a", "b"]), tool("g", &["x"]), tool("h", &[])];
        score_with(&calls(gold), "", &tools, pred, ScoreOptions::default())
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn selection_uses_multiset_intersection() {
        let s = score("[f(a=1), f(a=2), g(x=1)]", "[f(a=1), g(x=1), g(x=2)]");
        // names(G) = {f, f, g}, names(P) = {f, g, g}: intersection {f, g}.
        assert_eq!(s.counts.sel_tp, 2);
        assert!(close(s.selection.p, 2.0 / 3.0) && close(s.selection.r, 2.0 / 3.0));
        assert!(close(s.selection.f1, 2.0 / 3.0));
    }

    #[test]
    fn empty_cases() {
        let refusal = score("[]", "[]");
        assert_eq!((refusal.selection.f1, refusal.invocation.f1), (1.0, 1.0));
        let spurious = score("[]", "[f(a=1)]");
        assert_eq!(
            (
                spurious.selection.p,
                spurious.selection.r,
                spurious.invocation.f1
            ),
            (0.0, 0.0, 0.0)
        );
        let silent = score("[f(a=1)]", "[]");
        assert_eq!((silent.selection.f1, silent.invocation.p), (0.0, 0.0));
    }

    #[test]
    fn invocation_counts_triples_and_no_argument_calls() {
        let s = score("[f(a=1, b=2), h()]", "[f(a=1, b=3), h()]");
        // Gold triples: (f,a,1), (f,b,2), (h,∅,∅) = 3; predicted 3; shared: (f,a,1), (h,∅,∅).
        assert_eq!(
            (s.counts.inv_tp, s.counts.inv_pred, s.counts.inv_gold),
            (2, 3, 3)
        );
        assert!(close(s.invocation.f1, 2.0 / 3.0));
        let s = score("[h()]", "[h(extra=1)]");
        assert_eq!((s.counts.inv_tp, s.counts.ext), (0, 1));
    }

    #[test]
    fn alignment_is_optimal_not_greedy() {
        // Greedy first-fit would pair gold f(a=1,b=1) with pred f(a=1,b=9) (1 shared)
        // and leave f(a=2,b=9) with pred f(a=1,b=1)?? The optimal pairing shares 2+1.
        let s = score("[f(a=1, b=1), f(a=1, b=9)]", "[f(a=1, b=9), f(a=1, b=1)]");
        assert_eq!(s.counts.inv_tp, 4);
        let s = score("[f(a=1, b=2), f(a=3, b=2)]", "[f(a=9, b=2), f(a=1, b=2)]");
        // Greedy would give gold0→pred0 (1) then gold1→pred1 (1) = 2; optimal 2 + 1 = 3.
        assert_eq!(s.counts.inv_tp, 3);
    }

    #[test]
    fn ties_go_to_the_earlier_predicted_call() {
        let gold = calls("[f(a=1, b=2)]");
        let pred = calls("[f(a=1, b=7), f(a=1, b=8)]");
        let tools = vec![tool("f", &["a", "b"])];
        let side = GoldSide {
            calls: &gold,
            thought: "",
            tools: &tools,
            shown: &[],
        };
        assert_eq!(
            aligned_pairs(&side, &pred, ScoreOptions::default()),
            vec![(0, 0)]
        );
        assert_eq!(
            best_assignment(&[vec![1, 1], vec![1, 1]]),
            vec![(0, 0), (1, 1)]
        );
    }

    #[test]
    fn large_groups_fall_back_to_an_optimal_assignment() {
        let weights: Vec<Vec<u32>> = (0..18)
            .map(|r| {
                (0..20)
                    .map(|c| u32::from((r * 7 + c * 3) % 5 == 0) * (r as u32 % 3 + 1))
                    .collect()
            })
            .collect();
        let pairs = hungarian(&weights, 18, 20);
        assert_eq!(pairs.len(), 18);
        let total: u32 = pairs.iter().map(|&(r, c)| weights[r][c]).sum();
        let small: Vec<Vec<u32>> = weights.iter().take(6).map(|r| r[..8].to_vec()).collect();
        let exact: u32 = exact_assignment(&small, 6, 8)
            .iter()
            .map(|&(r, c)| small[r][c])
            .sum();
        let hung: u32 = hungarian(&small, 6, 8)
            .iter()
            .map(|&(r, c)| small[r][c])
            .sum();
        assert_eq!(exact, hung);
        assert!(total >= 18, "{total}");
    }

    fn total(weights: &[Vec<u32>], pairs: &[(usize, usize)]) -> u32 {
        pairs.iter().map(|&(r, c)| weights[r][c]).sum()
    }

    #[test]
    fn hungarian_works_on_either_side_and_prefers_earlier_predictions() {
        // More gold rows than predicted columns: the assignment is transposed.
        let tall: Vec<Vec<u32>> = (0..7)
            .map(|r| (0..3).map(|c| ((r * 5 + c * 7) % 4) as u32).collect())
            .collect();
        let pairs = hungarian(&tall, 7, 3);
        assert_eq!(pairs.len(), 3);
        assert_eq!(
            total(&tall, &pairs),
            total(&tall, &exact_assignment(&tall, 7, 3))
        );
        // Ties: every prediction equal, so the earliest ones are taken.
        let flat = vec![vec![2u32; 40]; 3];
        let pairs = hungarian(&flat, 3, 40);
        let mut columns: Vec<usize> = pairs.iter().map(|&(_, c)| c).collect();
        columns.sort_unstable();
        assert_eq!(columns, [0, 1, 2]);
    }

    #[test]
    fn alignment_pairs_at_most_the_first_calls_of_a_name() {
        // The gold calls f three times; the prediction calls it 3,200 times
        // (issue 12), the right three at the very end.
        let gold = calls("[f(a=1), f(a=2), f(a=3)]");
        let tools = vec![tool("f", &["a"])];
        let side = GoldSide {
            calls: &gold,
            thought: "",
            tools: &tools,
            shown: &[],
        };
        let mut predicted = vec![Call::new("f", vec![("a".into(), Value::Int(9))]); 3197];
        predicted.extend(calls("[f(a=1), f(a=2), f(a=3)]"));
        let s = score_calls(&side, &predicted, ScoreOptions::default());
        // Beyond the cap, the right calls stay unmatched: nothing is shared.
        assert_eq!(
            (s.counts.inv_tp, s.counts.inv_pred, s.counts.incor),
            (0, 3200, 3)
        );
        assert_eq!(
            (s.counts.sel_tp, s.counts.sel_pred, s.counts.ex),
            (3, 3200, 3197)
        );
        // Within it they are found, wherever they are.
        predicted.rotate_right(3 + MAX_ALIGNED_CALLS_PER_NAME / 2);
        let pairs = aligned_pairs(&side, &predicted, ScoreOptions::default());
        assert_eq!(pairs.len(), 3);
        let s = score_calls(&side, &predicted, ScoreOptions::default());
        assert_eq!(s.counts.inv_tp, 3);
    }

    #[test]
    fn repeated_keys_count_once_for_few_and_many_arguments() {
        let gold = calls("[f(k0=0)]");
        let tools = vec![tool("f", &["k0"])];
        let side = GoldSide {
            calls: &gold,
            thought: "",
            tools: &tools,
            shown: &[],
        };
        // Scans up to FEW_ARGUMENTS, a set beyond (50,000 keys would take
        // 50,000²/2 comparisons by scans).
        for n in [
            2,
            FEW_ARGUMENTS,
            FEW_ARGUMENTS + 1,
            3 * FEW_ARGUMENTS,
            50_000,
        ] {
            // Keys k0, k1, k2, k0, k1, …: k1 and k2 are extra, once each.
            let args: Vec<(String, Value)> = (0..n as i64)
                .map(|i| (format!("k{}", i % 3), Value::Int(i)))
                .collect();
            let s = score_calls(&side, &[Call::new("f", args)], ScoreOptions::default());
            let extra = (n as u32).min(3) - 1;
            assert_eq!((s.counts.inv_tp, s.counts.ext), (1, extra), "{n} arguments");
        }
    }

    #[test]
    fn many_distinct_gold_names_align_in_linear_time() {
        // Scanning the names met so far for each call would take 50,000²/2
        // comparisons; through the maps this is instant.
        let n = 50_000;
        let gold: Vec<Call> = (0..n)
            .map(|i| Call::new(format!("f{i}"), vec![("a".into(), Value::Int(i))]))
            .collect();
        let mut predicted = gold.clone();
        predicted.reverse();
        let side = GoldSide {
            calls: &gold,
            thought: "",
            tools: &[],
            shown: &[],
        };
        let s = score_calls(&side, &predicted, ScoreOptions::default());
        assert_eq!((s.counts.sel_tp, s.counts.inv_tp), (n as u32, n as u32));
    }

    /// The scans for few calls against the maps for many.
    mod few_and_many {
        use super::*;
        use proptest::prelude::*;

        fn calls_of(spec: &[(u8, i64, Option<i64>)]) -> Vec<Call> {
            spec.iter()
                .map(|&(name, a, b)| {
                    let mut args = vec![("a".to_string(), Value::Int(a))];
                    args.extend(b.map(|b| ("b".to_string(), Value::Int(b))));
                    Call::new(["f", "g", "h"][name as usize].to_string(), args)
                })
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// The scanning alignment for few calls pairs exactly as the
            /// map-based one, with the same comparisons, in the same order;
            /// so do the two ways of counting the selection.
            #[test]
            fn alignments_agree(
                gold in prop::collection::vec((0u8..3, 0i64..3, prop::option::of(0i64..3)), 0..8),
                predicted in prop::collection::vec((0u8..3, 0i64..3, prop::option::of(0i64..3)), 0..9),
            ) {
                let gold = calls_of(&gold);
                let predicted = calls_of(&predicted);
                // "h" is not among the tools: calling it is a hallucination.
                let tools = [tool("f", &["a", "b"]), tool("g", &["a", "b"])];
                let side = GoldSide { calls: &gold, thought: "", tools: &tools, shown: &[] };
                let options = ScoreOptions::default();
                prop_assert!(gold.len() + predicted.len() <= FEW_CALLS);
                prop_assert_eq!(
                    align_few(&side, &predicted, options),
                    align_many(&side, &predicted, options)
                );
                prop_assert_eq!(select_few(&side, &predicted), select_many(&side, &predicted));
            }
        }
    }

    mod assignment {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// Kuhn–Munkres finds the exact optimum, with as many pairs as
            /// the smaller side, whichever side is larger.
            #[test]
            fn hungarian_is_optimal(
                rows in 1usize..7,
                cols in 1usize..9,
                cells in prop::collection::vec(0u32..5, 63),
            ) {
                let weights: Vec<Vec<u32>> = (0..rows)
                    .map(|r| (0..cols).map(|c| cells[r * 9 + c]).collect())
                    .collect();
                let exact = exact_assignment(&weights, rows, cols);
                let fast = hungarian(&weights, rows, cols);
                prop_assert_eq!(fast.len(), rows.min(cols));
                prop_assert_eq!(total(&weights, &fast), total(&weights, &exact));
            }
        }
    }

    #[test]
    fn error_counts() {
        let s = score("[f(a=1, b=2), g(x=1)]", "[f(a=1, b=3, c=4), zzz(q=1), h()]");
        assert_eq!((s.counts.hall, s.counts.ex, s.counts.mis), (1, 1, 1));
        assert_eq!((s.counts.incor, s.counts.miss, s.counts.ext), (1, 0, 1));
        let s = score("[f(a=1, b=2)]", "[f(a=1)]");
        assert_eq!(s.counts.miss, 1);
        // A repeated extra key counts once.
        let s = score("[f(a=1)]", "[f(a=1, b=2, c=3, b=4)]");
        assert_eq!((s.counts.inv_tp, s.counts.ext), (1, 2));
    }

    #[test]
    fn positional_arguments_take_parameter_names() {
        let s = score("[f(a='x', b=2)]", "[f('x', 2)]");
        assert_eq!(s.counts.inv_tp, 2);
    }

    fn eq(a: &str, b: &str, strict: bool) -> bool {
        let gold = calls(&format!("[f(v={a})]"));
        let tools = vec![tool("f", &["v"])];
        let s = score_with(
            &gold,
            "",
            &tools,
            &format!("[f(v={b})]"),
            ScoreOptions {
                strict_values: strict,
            },
        );
        s.counts.inv_tp == 1
    }

    #[test]
    fn value_equality_rules() {
        assert!(eq("'Tokyo'", "' tokyo '", false));
        assert!(eq("'ＴＯＫＹＯ'", "'tokyo'", false)); // NFKC full-width
        assert!(eq("'Straße'", "'STRASSE'", false) || !eq("'Straße'", "'STRASSE'", false)); // no panic
        assert!(eq("'Ärger'", "'ärger'", false));
        assert!(eq("1", "1.0", false));
        assert!(eq("'12'", "12", false));
        assert!(eq("12", "'12'", false));
        assert!(eq("true", "True", false));
        assert!(eq("true", "'true'", false));
        assert!(eq("null", "None", false));
        assert!(eq("[1, 'a']", "(1, 'A')", false));
        assert!(eq("{'k': 1, 'j': 'x'}", "{'j': 'X', 'k': 1.0}", false));
        assert!(!eq("[1, 2]", "[2, 1]", false));
        assert!(!eq("'Tokyo'", "'Kyoto'", false));
        assert!(!eq("1", "2", false));
        assert!(!eq("true", "'yes'", false));
        assert!(!eq("null", "'null'", false));
        assert!(!eq("{'k': 1}", "{'k': 1, 'j': 2}", false));
    }

    #[test]
    fn strict_values_keep_only_nfkc() {
        assert!(eq("'ＴＯＫＹＯ'", "'TOKYO'", true));
        assert!(!eq("'Tokyo'", "'tokyo'", true));
        assert!(!eq("'Tokyo'", "' Tokyo'", true));
        assert!(!eq("1", "1.0", true));
        assert!(!eq("'12'", "12", true));
        assert!(!eq("true", "'true'", true));
        assert!(eq("true", "True", true));
        assert!(eq("[1, 'a']", "[1, 'a']", true));
    }

    fn nested_score(pred: &str) -> u32 {
        let gold = vec![
            Call::new("login", vec![("user".into(), Value::Str("ann".into()))]),
            Call::new(
                "get_profile",
                vec![(
                    "token".into(),
                    Value::Ref(Reference {
                        call: 0,
                        field: "access_token".into(),
                    }),
                )],
            ),
        ];
        let tools = vec![tool("login", &["user"]), tool("get_profile", &["token"])];
        let thought = "First log in, then pass the returned ACCESS_TOKEN to the profile call.";
        let s = score_with(&gold, thought, &tools, pred, ScoreOptions::default());
        s.counts.inv_tp
    }

    #[test]
    fn nested_references_match_in_common_styles() {
        for style in [
            "'$1.access_token'",
            "'$0.access_token'",
            "'{{access_token}}'",
            "'${access_token}'",
            "'API_call_0'",
            "'<output of call 1>'",
            "'ACCESS_TOKEN'",
            "{'$ref': '0.access_token'}",
        ] {
            assert_eq!(
                nested_score(&format!("[login(user='ann'), get_profile(token={style})]")),
                2,
                "{style}"
            );
        }
    }

    #[test]
    fn invented_literals_and_wrong_references_do_not_match() {
        for style in [
            "'abc123'",
            "'$5.access_token'",
            "'{{user_name}}'",
            "42",
            "'<output of call 7>'",
            "'$5.00'",
            "'$0.00 fee'",
        ] {
            assert_eq!(
                nested_score(&format!("[login(user='ann'), get_profile(token={style})]")),
                1,
                "{style}"
            );
        }
    }
}
