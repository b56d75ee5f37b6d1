//! Steps 3 to 5 of the method: planning the calls. No call when the best tool
//! scores too low or lacks a typed required value; one call per tool when the
//! query's requests pick different tools; one call per list item when items
//! give different values to a parameter; else one call of the best tool.

use std::ops::Range;

use super::Request;
use super::config::Config;
use super::fill::{Filled, Query, fill};
use super::ranking::{Index, best_of, tool_scores};
use super::segments::{Cuts, segments};
use super::slots::{Slot, slot_of};
use super::spans::Kind;
use crate::spec::records::{Call, Parameter, Tool, Value};

/// The calls that answer a request (empty: no tool fits).
pub(super) fn plan(request: &Request<'_>, config: &Config) -> Vec<Call> {
    let tools = request.tools;
    if tools.is_empty() {
        return Vec::new();
    }
    let index = Index::new(tools);
    let query = Query::new(request);
    let whole = 0..query.text.len();
    let Some((best, best_score, _)) = best_of(&tool_scores(&index, tools, &query, &whole, config))
    else {
        return Vec::new();
    };
    if best_score < config.min_tool_score {
        return Vec::new();
    }
    if let Some(calls) = parallel_calls(&index, tools, &query, config) {
        return calls;
    }
    calls_of(&tools[best], &query, config)
}

/// One call per tool when the query's requests pick two or more different
/// tools, each filled from its own requests (`None`: fewer than two calls).
fn parallel_calls(
    index: &Index,
    tools: &[Tool],
    query: &Query,
    config: &Config,
) -> Option<Vec<Call>> {
    let segs = segments(&query.text, Cuts::Requests);
    let mut picks = request_picks(index, tools, query, &segs, config);
    let mut distinct: Vec<usize> = Vec::new();
    for t in picks.iter().flatten() {
        if !distinct.contains(t) {
            distinct.push(*t);
        }
    }
    if distinct.len() < 2 {
        return None;
    }
    join_unpicked(&mut picks);
    let mut calls = Vec::new();
    for &t in &distinct {
        let ranges: Vec<Range<usize>> = segs
            .iter()
            .zip(&picks)
            .filter(|(_, p)| **p == Some(t))
            .map(|(r, _)| r.clone())
            .collect();
        let filled = fill(&tools[t], query, &ranges, config.min_required_fit, config);
        if config.refuse_when_required_missing && filled.missing_typed {
            continue;
        }
        calls.push(Call::new(tools[t].name.clone(), filled.arguments));
    }
    (calls.len() >= 2).then_some(calls)
}

/// Which tool each request picks: its best, when that scores high enough and
/// leads the second by enough.
fn request_picks(
    index: &Index,
    tools: &[Tool],
    query: &Query,
    segs: &[Range<usize>],
    config: &Config,
) -> Vec<Option<usize>> {
    segs.iter()
        .map(|r| {
            let (b, score, lead) = best_of(&tool_scores(index, tools, query, r, config))?;
            (score >= config.min_request_score && lead >= config.min_request_margin).then_some(b)
        })
        .collect()
}

/// Requests without a pick join the one before (the first ones: the first pick).
fn join_unpicked(picks: &mut [Option<usize>]) {
    let mut last = None;
    for p in picks.iter_mut() {
        match p {
            Some(t) => last = Some(*t),
            None => *p = last,
        }
    }
    let first = picks.iter().flatten().next().copied();
    for p in picks.iter_mut() {
        if p.is_none() {
            *p = first;
        }
    }
}

/// The calls of the best tool for the whole query: none when a typed required
/// value is missing, repeated calls when list items vary, else one call.
fn calls_of(tool: &Tool, query: &Query, config: &Config) -> Vec<Call> {
    let whole = 0..query.text.len();
    let global = fill(
        tool,
        query,
        std::slice::from_ref(&whole),
        config.min_required_fit,
        config,
    );
    if config.refuse_when_required_missing && global.missing_typed {
        return Vec::new();
    }
    let single = vec![Call::new(tool.name.clone(), global.arguments.clone())];
    repeated_calls(tool, query, &global, config).unwrap_or(single)
}

/// Repeated calls: list items that give different values of one kind to a
/// parameter (`None`: fewer than two calls).
fn repeated_calls(
    tool: &Tool,
    query: &Query,
    global: &Filled,
    config: &Config,
) -> Option<Vec<Call>> {
    let items = segments(&query.text, Cuts::Items);
    if items.len() < 2 {
        return None;
    }
    let per_item: Vec<Filled> = items
        .iter()
        .map(|r| {
            fill(
                tool,
                query,
                std::slice::from_ref(r),
                config.min_repeated_fit,
                config,
            )
        })
        .collect();
    let params: Vec<&Parameter> = tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
        .collect();
    let varying = varying_parameters(&params, &per_item, global);
    // An array parameter takes every item's value in one call.
    let array = params
        .iter()
        .find(|p| varying.contains(&p.name.as_str()) && slot_of(p) == Slot::Array);
    if let Some(array) = array {
        return Some(vec![array_call(tool, array, &per_item, global)]);
    }
    let calls = item_calls(tool, &params, &varying, &per_item, global);
    (calls.len() >= 2).then_some(calls)
}

/// Whether the whole query gives `value` to a parameter other than `name`: an
/// item's value of that kind is then not a second instance of this one
/// (`Kuala Lumpur, Malaysia`).
fn given_elsewhere(global: &Filled, name: &str, value: &Value) -> bool {
    global
        .arguments
        .iter()
        .any(|(k, v)| k != name && v == value)
}

/// The parameters to which two or more items give different values from
/// spans of one kind.
fn varying_parameters<'p>(
    params: &[&'p Parameter],
    per_item: &[Filled],
    global: &Filled,
) -> Vec<&'p str> {
    let mut varying: Vec<&str> = Vec::new();
    for p in params {
        let values: Vec<(&Value, Kind)> = per_item
            .iter()
            .filter_map(|f| f.get(&p.name))
            .filter(|(v, _)| !given_elsewhere(global, &p.name, v))
            .collect();
        let same_kind = values
            .iter()
            .all(|(_, k)| std::mem::discriminant(k) == std::mem::discriminant(&values[0].1));
        if values.len() >= 2 && same_kind && values.iter().any(|(v, _)| *v != values[0].0) {
            varying.push(&p.name);
        }
    }
    varying
}

/// One call whose array parameter holds every item's values (each once).
fn array_call(tool: &Tool, array: &Parameter, per_item: &[Filled], global: &Filled) -> Call {
    let mut items: Vec<Value> = Vec::new();
    for item in per_item {
        if let Some((Value::List(values), _)) = item.get(&array.name) {
            for v in values {
                if !items.contains(v) {
                    items.push(v.clone());
                }
            }
        }
    }
    let mut arguments = global.arguments.clone();
    match arguments.iter_mut().find(|(k, _)| *k == array.name) {
        Some((_, v)) => *v = Value::List(items),
        None => arguments.push((array.name.clone(), Value::List(items))),
    }
    Call::new(tool.name.clone(), arguments)
}

/// One call per item with a varying value of its own: the varying parameters
/// from the item, the others from the whole query (equal calls once).
fn item_calls(
    tool: &Tool,
    params: &[&Parameter],
    varying: &[&str],
    per_item: &[Filled],
    global: &Filled,
) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    for item in per_item {
        let has_own = varying.iter().any(|name| {
            item.get(name)
                .is_some_and(|(v, _)| !given_elsewhere(global, name, v))
        });
        if !has_own {
            continue;
        }
        let mut arguments = Vec::new();
        for p in params {
            let own = if varying.contains(&p.name.as_str()) {
                item.get(&p.name)
                    .map(|(v, _)| v)
                    .filter(|v| !given_elsewhere(global, &p.name, v))
            } else {
                None
            };
            let value = own.or_else(|| global.get(&p.name).map(|(v, _)| v));
            if let Some(v) = value {
                arguments.push((p.name.clone(), v.clone()));
            }
        }
        let call = Call::new(tool.name.clone(), arguments);
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    calls
}
