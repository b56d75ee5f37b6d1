//! Seal-Tools (fairyshine/Seal-Tools): the official output parser and
//! `calculate_score_ToolLearning`, reproduced exactly (SPEC §5), and the
//! converter of its prompt/gold file into SPEC §0 tasks.
//!
//! The official rules, quirks included:
//! - **Parsing** (`transform_output_format("ToolLearning", text)`): every `'`
//!   becomes `"` and every newline is removed; the first match of
//!   `\[\s*\{\s*"api"` starts the list, which ends at the bracket that
//!   balances it, counted without regard to strings; the text must contain
//!   `api`, `parameters` and `responses` and load with `json.loads`, else the
//!   prediction is `-1` (unparsed).
//! - **Matching**: each predicted item with an `api` key counts as predicted
//!   and is compared with the *first* gold call of the same name, which is
//!   not used up (duplicates all count, so recall and F1 can exceed 1).
//! - **Parameters**: counted as predicted when `parameters` is a dict; right
//!   when the name is in the matched gold call and Python `str()` of both
//!   values is equal.
//! - Totals are pooled over the file; a metric whose counts multiply to zero
//!   is absent; gold totals count even when the prediction failed to parse.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;

use super::python::value::{find, py_eq};
use super::python::{PyStr, PyValue, cps, json_loads, json_roundtrip, literal_eval, py_str};
use crate::benchmarks::python::value::is_space as is_py_space;
use crate::spec::records::{Call, Gold, Parameter, Reference, Task, TaskKind, Tool, Value};

// ---------------------------------------------------------------------------
// The official parser

/// The start of the first match of `\[\s*\{\s*"api"` in `text`.
fn find_api_list(text: &[u32]) -> Option<usize> {
    let api = cps("\"api\"");
    (0..text.len()).find(|&start| {
        if text[start] != u32::from('[') {
            return false;
        }
        let mut i = start + 1;
        while i < text.len() && is_py_space(text[i]) {
            i += 1;
        }
        if text.get(i) != Some(&u32::from('{')) {
            return false;
        }
        i += 1;
        while i < text.len() && is_py_space(text[i]) {
            i += 1;
        }
        text.len() >= i + api.len() && text[i..i + api.len()] == api[..]
    })
}

/// The official `match_square_bracket`: the index of the `]` that balances
/// the `[` at `start`, brackets counted without regard to strings.
fn match_square_bracket(text: &[u32], start: usize) -> Option<usize> {
    let mut counter: i64 = -1;
    for (i, &c) in text.iter().enumerate().skip(start + 1) {
        if c == u32::from('[') {
            counter -= 1;
        } else if c == u32::from(']') {
            counter += 1;
        }
        if counter == 0 {
            return Some(i);
        }
    }
    None
}

/// The official `transform_output_format("ToolLearning", output)`: the parsed
/// list, or `None` where the official returns `-1`.
pub fn official_parse(output: &[u32]) -> Option<PyValue> {
    let text: Vec<u32> = output
        .iter()
        .filter(|&&c| c != u32::from('\n'))
        .map(|&c| {
            if c == u32::from('\'') {
                u32::from('"')
            } else {
                c
            }
        })
        .collect();
    let start = find_api_list(&text)?;
    // No balancing bracket: Python slices text[start:0], which is empty.
    let end = match_square_bracket(&text, start)?;
    let list = &text[start..=end];
    let has = |word: &str| find(list, &cps(word), 0).is_some();
    if !(has("api") && has("parameters") && has("responses")) {
        return None;
    }
    json_loads(list).ok()
}

// ---------------------------------------------------------------------------
// The official scorer

/// The counts `calculate_score_ToolLearning` accumulates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OfficialCounts {
    /// Records scored (`len(raw_dataset)`).
    pub n_records: u64,
    /// Records whose prediction parsed.
    pub correct_format_num: u64,
    /// Predicted calls whose name is among the gold calls.
    pub correct_api_num: u64,
    /// Predicted items with an `api` key.
    pub predict_api_num: u64,
    /// Gold calls.
    pub gold_api_num: u64,
    /// Predicted parameters equal (by `str()`) to the matched gold call's.
    pub correct_param_num: u64,
    /// Predicted parameters (of items whose `parameters` is a dict).
    pub predict_param_num: u64,
    /// Gold parameters.
    pub gold_param_num: u64,
}

/// The dict `calculate_score_ToolLearning` returns; `None` where it has no key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OfficialScore {
    /// `AMOUNT`: the fraction of predictions that parsed.
    #[serde(rename = "AMOUNT", skip_serializing_if = "Option::is_none")]
    pub amount: Option<f64>,
    /// `P_api`.
    #[serde(rename = "P_api", skip_serializing_if = "Option::is_none")]
    pub p_api: Option<f64>,
    /// `R_api`.
    #[serde(rename = "R_api", skip_serializing_if = "Option::is_none")]
    pub r_api: Option<f64>,
    /// `F1_api`.
    #[serde(rename = "F1_api", skip_serializing_if = "Option::is_none")]
    pub f1_api: Option<f64>,
    /// `P_param`.
    #[serde(rename = "P_param", skip_serializing_if = "Option::is_none")]
    pub p_param: Option<f64>,
    /// `R_param`.
    #[serde(rename = "R_param", skip_serializing_if = "Option::is_none")]
    pub r_param: Option<f64>,
    /// `F1_param`.
    #[serde(rename = "F1_param", skip_serializing_if = "Option::is_none")]
    pub f1_param: Option<f64>,
}

impl OfficialCounts {
    /// The official ratios, computed in the same order of operations.
    pub fn score(&self) -> OfficialScore {
        let mut s = OfficialScore::default();
        if self.correct_format_num > 0 {
            s.amount = Some(self.correct_format_num as f64 / self.n_records as f64);
        }
        if self.correct_api_num * self.predict_api_num * self.gold_api_num > 0 {
            let p = self.correct_api_num as f64 / self.predict_api_num as f64;
            let r = self.correct_api_num as f64 / self.gold_api_num as f64;
            s.p_api = Some(p);
            s.r_api = Some(r);
            s.f1_api = Some(2.0 * p * r / (p + r));
        }
        if self.correct_param_num * self.predict_param_num * self.gold_param_num > 0 {
            let p = self.correct_param_num as f64 / self.predict_param_num as f64;
            let r = self.correct_param_num as f64 / self.gold_param_num as f64;
            s.p_param = Some(p);
            s.r_param = Some(r);
            s.f1_param = Some(2.0 * p * r / (p + r));
        }
        s
    }
}

/// An exception the official scorer raises on a prediction, with its Python
/// message (the official run stops there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfficialException {
    /// Record id.
    pub id: String,
    /// `TypeError("…")` as Python prints it.
    pub exception: String,
}

impl fmt::Display for OfficialException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "record {}: the official scorer raises {} here and stops",
            self.id, self.exception
        )
    }
}

impl std::error::Error for OfficialException {}

/// One gold record: its id and gold calls as the official scorer holds them
/// (`json.loads(json.dumps(eval(conversations[1].value)))`).
#[derive(Debug, Clone)]
pub struct GoldRecord {
    /// Record id (`test_in_domain-easy-0`).
    pub id: String,
    /// The gold call list.
    pub calls: PyValue,
    /// The prompt (`conversations[0].value`).
    pub prompt: String,
}

/// Adds one record to the counts: `predict` is the parsed prediction, `None`
/// for `-1`.
pub fn count_record(
    counts: &mut OfficialCounts,
    id: &str,
    gold: &PyValue,
    predict: Option<&PyValue>,
) -> Result<(), OfficialException> {
    let raise = |exception: String| OfficialException {
        id: id.to_string(),
        exception,
    };
    counts.n_records += 1;
    let gold_calls: &[PyValue] = match gold {
        PyValue::List(items) => items,
        other => return Err(raise(format!("TypeError: gold is a {}", other.type_name()))),
    };
    counts.gold_api_num += gold_calls.len() as u64;
    for g in gold_calls {
        counts.gold_param_num += match g.get_str("parameters") {
            Some(PyValue::Dict(p)) => p.len() as u64,
            Some(PyValue::List(p)) => p.len() as u64,
            Some(PyValue::Str(p)) => p.len() as u64,
            _ => return Err(raise("KeyError('parameters')".into())),
        };
    }
    let Some(predict) = predict else {
        return Ok(());
    };
    counts.correct_format_num += 1;
    let items: &[PyValue] = match predict {
        PyValue::List(items) => items,
        // json.loads of a text that starts with '[' is always a list.
        other => {
            return Err(raise(format!(
                "TypeError: prediction is a {}",
                other.type_name()
            )));
        }
    };
    let api_key = PyValue::Str(PyStr::new("api"));
    for item in items {
        // `"api" in predict_api` for each kind of JSON value.
        let has_api = match item {
            PyValue::Dict(_) => item.get(&api_key).is_some(),
            PyValue::Str(s) => s.contains(&cps("api")),
            PyValue::List(xs) => xs.iter().any(|x| py_eq(x, &api_key)),
            other => {
                return Err(raise(format!(
                    "TypeError(\"argument of type '{}' is not iterable\")",
                    other.type_name()
                )));
            }
        };
        if !has_api {
            continue;
        }
        counts.predict_api_num += 1;
        let (api, params) = match item {
            PyValue::Dict(_) => (
                item.get(&api_key).expect("checked above"),
                match item.get_str("parameters") {
                    Some(PyValue::Dict(p)) => Some(p),
                    _ => None,
                },
            ),
            PyValue::Str(_) => {
                return Err(raise(
                    "TypeError(\"string indices must be integers, not 'str'\")".into(),
                ));
            }
            _ => {
                return Err(raise(
                    "TypeError('list indices must be integers or slices, not str')".into(),
                ));
            }
        };
        if let Some(p) = params {
            counts.predict_param_num += p.len() as u64;
        }
        let mut matched = None;
        for g in gold_calls {
            let Some(gold_api) = g.get(&api_key) else {
                return Err(raise("KeyError('api')".into()));
            };
            if py_eq(gold_api, api) {
                matched = Some(g);
                break;
            }
        }
        let Some(g) = matched else {
            continue;
        };
        counts.correct_api_num += 1;
        let Some(p) = params else {
            continue;
        };
        let gold_params = g.get_str("parameters");
        for (name, value) in p {
            let gold_value = match gold_params {
                Some(d @ PyValue::Dict(_)) => d.get(name),
                _ => None,
            };
            if let Some(gv) = gold_value
                && py_str(value) == py_str(gv)
            {
                counts.correct_param_num += 1;
            }
        }
    }
    Ok(())
}

/// Reads the official gold file: the `dataset_for_finetune` JSON list (or
/// JSON Lines) of `{id, conversations}`; the gold calls are the Python
/// literal in `conversations[1].value`, evaluated and JSON round-tripped.
/// The prompt (`conversations[0].value`, most of each record) is kept for
/// the converter.
pub fn read_gold(path: &Path) -> anyhow::Result<Vec<GoldRecord>> {
    read_gold_records::<true>(path)
}

/// [`read_gold`] for scoring: the prompt is skipped as it is read, never
/// unescaped or stored (`GoldRecord::prompt` is empty).
pub fn read_gold_calls(path: &Path) -> anyhow::Result<Vec<GoldRecord>> {
    read_gold_records::<false>(path)
}

/// One record as read: its id and the values of its first two turns.
#[derive(serde::Deserialize)]
struct RawRecord<const PROMPT: bool> {
    id: String,
    conversations: Conversations<PROMPT>,
}

/// `conversations`: the prompt's value (when `PROMPT`) and the gold's.
struct Conversations<const PROMPT: bool> {
    prompt: String,
    gold: String,
}

/// A turn's `value` (other fields skipped).
#[derive(serde::Deserialize)]
struct Turn {
    value: String,
}

impl<'de, const PROMPT: bool> serde::Deserialize<'de> for Conversations<PROMPT> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<const P: bool>;
        impl<'de, const P: bool> serde::de::Visitor<'de> for Visit<P> {
            type Value = Conversations<P>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of at least two turns")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                use serde::de::{Error, IgnoredAny};
                let prompt = if P {
                    seq.next_element::<Turn>()?.map(|t| t.value)
                } else {
                    seq.next_element::<IgnoredAny>()?.map(|_| String::new())
                }
                .ok_or_else(|| A::Error::custom("no conversations[0]"))?;
                let gold = seq
                    .next_element::<Turn>()?
                    .ok_or_else(|| A::Error::custom("no conversations[1].value"))?
                    .value;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Conversations { prompt, gold })
            }
        }
        deserializer.deserialize_seq(Visit::<PROMPT>)
    }
}

fn read_gold_records<const PROMPT: bool>(path: &Path) -> anyhow::Result<Vec<GoldRecord>> {
    let bytes = crate::util::embedded::read_mapped(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let starts_list = text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let rows: Vec<RawRecord<PROMPT>> = if starts_list {
        serde_json::from_slice(text)
            .with_context(|| format!("{}: not a JSON list of records", path.display()))?
    } else {
        text.split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.trim_ascii().is_empty())
            .map(|(i, l)| {
                serde_json::from_slice(l)
                    .with_context(|| format!("{}:{}: not a record", path.display(), i + 1))
            })
            .collect::<anyhow::Result<_>>()?
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let at = || format!("{}: record {}", path.display(), i + 1);
            let calls = literal_eval(&row.conversations.gold)
                .map_err(|e| anyhow::anyhow!("{}: gold is not a Python literal: {e}", at()))?;
            let calls = json_roundtrip(calls).map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
            Ok(GoldRecord {
                id: row.id,
                calls,
                prompt: row.conversations.prompt,
            })
        })
        .collect()
}

/// One prediction line: `{"id" | "task_id", "output", "model"?}`.
#[derive(Debug, Clone)]
pub struct PredictionLine {
    /// Record id.
    pub id: String,
    /// Model name (`model` field, else the file stem).
    pub model: String,
    /// The raw output text as Python reads it (`None` when absent or null).
    pub output: Option<PyStr>,
}

/// Reads prediction lines (JSON Lines, read as Python's `json.loads` would,
/// so lone surrogates survive). Accepts `{"id", "output"}` and `itc eval`
/// prediction records (`task_id`, `model`, `output`).
pub fn read_predictions(path: &Path) -> anyhow::Result<Vec<PredictionLine>> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    crate::spec::jsonl::for_each_line(path, |number, line| {
        let v = json_loads(&cps(line))
            .map_err(|e| anyhow::anyhow!("{}:{number}: not JSON: {e}", path.display()))?;
        let text = |key: &str| match v.get_str(key) {
            Some(PyValue::Str(s)) => Some(s.clone()),
            _ => None,
        };
        let id = text("id")
            .or_else(|| text("task_id"))
            .with_context(|| format!("{}:{number}: field `id`: missing", path.display()))?;
        let output = match v.get_str("output") {
            None | Some(PyValue::None) => None,
            Some(PyValue::Str(s)) => Some(s.clone()),
            Some(other) => bail!(
                "{}:{number}: field `output`: expected a string, found {}",
                path.display(),
                other.type_name()
            ),
        };
        out.push(PredictionLine {
            id: id.to_string_lossy(),
            model: text("model")
                .map(|m| m.to_string_lossy())
                .unwrap_or_else(|| stem.clone()),
            output,
        });
        Ok(())
    })?;
    Ok(out)
}

/// Which records to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    /// Every record.
    #[default]
    All,
    /// Ids containing `-easy-` (single-tool).
    Easy,
    /// Ids containing `-difficult-` (multi-tool).
    Difficult,
}

impl Subset {
    /// Whether a record id belongs to the subset.
    pub fn contains(self, id: &str) -> bool {
        match self {
            Subset::All => true,
            Subset::Easy => id.contains("-easy-"),
            Subset::Difficult => id.contains("-difficult-"),
        }
    }
}

/// The official result for one model, with the counts behind it.
#[derive(Debug, Clone, Serialize)]
pub struct SealReport {
    /// `seal-tools`.
    pub benchmark: &'static str,
    /// `official`.
    pub compat: &'static str,
    /// Model name.
    pub model: String,
    /// Subset scored.
    pub subset: Subset,
    /// Records scored.
    pub n: u64,
    /// Gold records with no prediction (scored as unparsed).
    pub missing: u64,
    /// `AMOUNT` (0 when nothing parsed).
    pub parsed_fraction: Option<f64>,
    /// `P_api`.
    pub tool_p: Option<f64>,
    /// `R_api`.
    pub tool_r: Option<f64>,
    /// `F1_api`.
    pub tool_f1: Option<f64>,
    /// `P_param`.
    pub param_p: Option<f64>,
    /// `R_param`.
    pub param_r: Option<f64>,
    /// `F1_param`.
    pub param_f1: Option<f64>,
    /// The official dict, with exactly its keys.
    pub official: OfficialScore,
    /// The counts behind it.
    pub counts: OfficialCounts,
    /// Ids of the records whose prediction did not parse (official `-1`).
    pub unparsed_ids: Vec<String>,
}

/// Scores prediction lines against gold records as the official
/// `calculate_score_ToolLearning` does, one report per model. Records are
/// the gold records in `subset` (and in `ids`, when given); a record without
/// a prediction counts as unparsed. Predictions for ids not in the gold are
/// an error.
pub fn score_official(
    gold: &[GoldRecord],
    predictions: &[PredictionLine],
    subset: Subset,
    ids: Option<&HashSet<String>>,
) -> anyhow::Result<Vec<SealReport>> {
    let known: HashSet<&str> = gold.iter().map(|g| g.id.as_str()).collect();
    let mut models: Vec<String> = Vec::new();
    let mut by_model: HashMap<String, HashMap<String, &PredictionLine>> = HashMap::new();
    for p in predictions {
        if !known.contains(p.id.as_str()) {
            bail!("prediction for unknown id {:?} (model {})", p.id, p.model);
        }
        if !by_model.contains_key(&p.model) {
            models.push(p.model.clone());
        }
        // The first prediction for an id is kept.
        by_model
            .entry(p.model.clone())
            .or_default()
            .entry(p.id.clone())
            .or_insert(p);
    }
    let mut reports = Vec::new();
    for model in models {
        let preds = &by_model[&model];
        let mut counts = OfficialCounts::default();
        let mut missing = 0;
        let mut unparsed_ids = Vec::new();
        for g in gold {
            if !subset.contains(&g.id) || ids.is_some_and(|set| !set.contains(&g.id)) {
                continue;
            }
            let parsed = match preds.get(&g.id) {
                None => {
                    missing += 1;
                    None
                }
                Some(p) => p.output.as_ref().and_then(|o| official_parse(&o.0)),
            };
            if parsed.is_none() {
                unparsed_ids.push(g.id.clone());
            }
            count_record(&mut counts, &g.id, &g.calls, parsed.as_ref())?;
        }
        let official = counts.score();
        reports.push(SealReport {
            benchmark: "seal-tools",
            compat: "official",
            model,
            subset,
            n: counts.n_records,
            missing,
            parsed_fraction: official.amount.or((counts.n_records > 0).then_some(0.0)),
            tool_p: official.p_api,
            tool_r: official.r_api,
            tool_f1: official.f1_api,
            param_p: official.p_param,
            param_r: official.r_param,
            param_f1: official.f1_param,
            official,
            counts,
            unparsed_ids,
        });
    }
    Ok(reports)
}

// ---------------------------------------------------------------------------
// Converter

/// Arguments of the Seal-Tools converter.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// `dataset_for_finetune/*.json` files (prompt with the retrieved tools, and gold).
    pub inputs: Vec<PathBuf>,
}

/// Python type names of Seal-Tools to JSON-schema-style names.
fn schema_type(t: &str) -> String {
    match t.trim().to_ascii_lowercase().as_str() {
        "str" | "string" => "string",
        "int" | "integer" => "integer",
        "float" | "number" => "number",
        "bool" | "boolean" => "boolean",
        "list" | "array" | "tuple" => "array",
        "dict" | "object" => "object",
        other => return other.to_string(),
    }
    .to_string()
}

fn text_of(v: Option<&PyValue>) -> String {
    match v {
        Some(PyValue::Str(s)) => s.to_string_lossy(),
        Some(other) => PyStr(py_str(other)).to_string_lossy(),
        None => String::new(),
    }
}

/// A Seal-Tools tool dict (`api_name`, `api_description`, `field`,
/// `parameters`, `required`, `responses`) as a SPEC tool, with its response
/// field names.
fn tool_from_dict(d: &PyValue) -> Option<(Tool, Vec<String>)> {
    let name = text_of(d.get_str("api_name"));
    if name.is_empty() {
        return None;
    }
    let required: Vec<String> = match d.get_str("required") {
        Some(PyValue::List(items)) => items.iter().map(|i| text_of(Some(i))).collect(),
        _ => Vec::new(),
    };
    let mut tool = Tool {
        name,
        description: text_of(d.get_str("api_description")),
        category: field_domain(&text_of(d.get_str("field"))),
        country: "GLOBAL".into(),
        ..Tool::default()
    };
    if let Some(PyValue::Dict(params)) = d.get_str("parameters") {
        for (k, spec) in params {
            let p = Parameter {
                name: text_of(Some(k)),
                kind: schema_type(&text_of(spec.get_str("type"))),
                description: text_of(spec.get_str("description")),
                default: None,
                ..Default::default()
            };
            if required.contains(&p.name) {
                tool.required_parameters.push(p);
            } else {
                tool.optional_parameters.push(p);
            }
        }
    }
    let responses = match d.get_str("responses") {
        Some(PyValue::Dict(r)) => r.iter().map(|(k, _)| text_of(Some(k))).collect(),
        _ => Vec::new(),
    };
    Some((tool, responses))
}

/// `Energy/Energy Efficiency` → `Energy`.
fn field_domain(field: &str) -> String {
    field
        .split('/')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Converts a Python value of a gold call into a SPEC value; strings naming
/// an earlier call's response (`API_call_3`) become references.
fn to_value(v: &PyValue, refs: &HashMap<String, Reference>) -> Value {
    match v {
        PyValue::None => Value::Null,
        PyValue::Bool(b) => Value::Bool(*b),
        PyValue::Int(t) => t
            .parse::<i64>()
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Float(t.parse().unwrap_or(f64::NAN))),
        PyValue::Float(x) => Value::Float(*x),
        PyValue::Str(s) => {
            let text = s.to_string_lossy();
            match refs.get(text.trim()) {
                Some(r) => Value::Ref(r.clone()),
                None => Value::Str(text),
            }
        }
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
            Value::List(items.iter().map(|i| to_value(i, refs)).collect())
        }
        PyValue::Dict(entries) => Value::Dict(
            entries
                .iter()
                .map(|(k, v)| (text_of(Some(k)), to_value(v, refs)))
                .collect(),
        ),
        PyValue::Bytes(b) => Value::Str(String::from_utf8_lossy(b).into()),
        PyValue::Complex(x) => Value::Float(*x),
    }
}

/// The text after `marker` up to `end` in the prompt.
fn between<'a>(text: &'a str, marker: &str, end: &str) -> Option<&'a str> {
    let start = text.find(marker)? + marker.len();
    let rest = &text[start..];
    Some(match rest.find(end) {
        Some(e) => &rest[..e],
        None => rest,
    })
}

/// The retrieved tools of a prompt's `api_list` (first of each name), with
/// each tool's response field names.
fn retrieved_tools(api_list: &PyValue) -> (Vec<Tool>, HashMap<String, Vec<String>>) {
    let mut tools: Vec<Tool> = Vec::new();
    let mut responses: HashMap<String, Vec<String>> = HashMap::new();
    if let PyValue::List(items) = api_list {
        for d in items {
            if let Some((tool, fields)) = tool_from_dict(d)
                && !tools.iter().any(|t| t.name == tool.name)
            {
                responses.insert(tool.name.clone(), fields);
                tools.push(tool);
            }
        }
    }
    (tools, responses)
}

/// The placeholders of the gold calls' outputs (`API_call_3`), each as a
/// reference to its call and response field.
fn placeholders(
    gold_calls: &[PyValue],
    responses: &HashMap<String, Vec<String>>,
) -> HashMap<String, Reference> {
    let mut refs: HashMap<String, Reference> = HashMap::new();
    for (j, g) in gold_calls.iter().enumerate() {
        let name = text_of(g.get_str("api"));
        if let Some(PyValue::List(rs)) = g.get_str("responses") {
            for (k, r) in rs.iter().enumerate() {
                let field = responses
                    .get(&name)
                    .and_then(|f| f.get(k))
                    .cloned()
                    .unwrap_or_default();
                refs.insert(text_of(Some(r)), Reference { call: j, field });
            }
        }
    }
    refs
}

/// A tool for a gold call whose tool was not retrieved: its arguments as
/// optional parameters.
fn tool_from_call(name: &str, arguments: &[(String, Value)]) -> Tool {
    Tool {
        name: name.to_string(),
        country: "GLOBAL".into(),
        optional_parameters: arguments
            .iter()
            .map(|(k, v)| Parameter {
                name: k.clone(),
                kind: value_type(v).into(),
                description: String::new(),
                default: None,
                ..Default::default()
            })
            .collect(),
        ..Tool::default()
    }
}

/// A task's kind from its gold calls.
fn kind_of(calls: &[Call]) -> TaskKind {
    let nested = calls
        .iter()
        .any(|c| c.arguments.iter().any(|(_, v)| holds_ref(v)));
    if calls.is_empty() {
        TaskKind::NoTool
    } else if nested {
        TaskKind::Nested
    } else if calls.len() == 1 {
        TaskKind::Single
    } else if calls.iter().all(|c| c.name == calls[0].name) {
        TaskKind::Repeated
    } else {
        TaskKind::Parallel
    }
}

/// The task of one gold record (`at` names it in errors and warnings).
fn record_task(record: &GoldRecord, at: &str, warnings: &mut Vec<String>) -> anyhow::Result<Task> {
    let api_list = between(&record.prompt, "api_list = ", "\ntask_instruction = ")
        .with_context(|| format!("{at}: no `api_list = ` in the prompt"))?;
    let api_list =
        literal_eval(api_list.trim()).map_err(|e| anyhow::anyhow!("{at}: api_list: {e}"))?;
    let instruction = between(&record.prompt, "task_instruction = ", "\nOutput:")
        .with_context(|| format!("{at}: no `task_instruction = ` in the prompt"))?;
    let query = match literal_eval(instruction.trim()) {
        Ok(PyValue::Str(s)) => s.to_string_lossy(),
        _ => instruction.trim().trim_matches('"').to_string(),
    };
    let (mut tools, responses) = retrieved_tools(&api_list);
    let PyValue::List(gold_calls) = &record.calls else {
        bail!("{at}: the gold is not a list");
    };
    let refs = placeholders(gold_calls, &responses);
    let mut calls = Vec::new();
    for (j, g) in gold_calls.iter().enumerate() {
        let name = text_of(g.get_str("api"));
        // Only earlier calls' outputs can be referenced.
        let earlier: HashMap<String, Reference> = refs
            .iter()
            .filter(|(_, r)| r.call < j)
            .map(|(k, r)| (k.clone(), r.clone()))
            .collect();
        let arguments = match g.get_str("parameters") {
            Some(PyValue::Dict(p)) => p
                .iter()
                .map(|(k, v)| (text_of(Some(k)), to_value(v, &earlier)))
                .collect(),
            _ => Vec::new(),
        };
        if !tools.iter().any(|t| t.name == name) {
            warnings.push(format!(
                "{at}: gold tool {name} is not among the retrieved tools; added from the gold call"
            ));
            tools.push(tool_from_call(&name, &arguments));
        }
        calls.push(Call::new(name, arguments));
    }
    let category = calls
        .first()
        .and_then(|c| tools.iter().find(|t| t.name == c.name))
        .map(|t| t.category.clone())
        .unwrap_or_default();
    Ok(Task {
        id: record.id.clone(),
        kind: kind_of(&calls),
        language: "en".into(),
        country: "GLOBAL".into(),
        category,
        query,
        tools,
        gold: Gold {
            thought: String::new(),
            calls,
            official: None,
        },
        turns: Vec::new(),
    })
}

/// Converts Seal-Tools `dataset_for_finetune` files into SPEC tasks: the
/// query is the prompt's `task_instruction`, the tools are its `api_list`
/// (the retrieved tools; a gold tool missing from it is added from the gold
/// call's parameters and reported in the returned warnings), the gold calls
/// come from `conversations[1].value` with `API_call_N` placeholders turned
/// into references `{"$ref": "<call>.<response field>"}`.
pub fn convert(options: &ConvertOptions) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let mut tasks = Vec::new();
    let mut warnings = Vec::new();
    for path in &options.inputs {
        for record in read_gold(path)? {
            let at = format!("{}: {}", path.display(), record.id);
            tasks.push(record_task(&record, &at, &mut warnings)?);
        }
    }
    Ok((tasks, warnings))
}

fn holds_ref(v: &Value) -> bool {
    match v {
        Value::Ref(_) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(holds_ref),
        Value::Dict(entries) => entries.iter().any(|(_, v)| holds_ref(v)),
        _ => false,
    }
}

fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) => "number",
        Value::List(_) | Value::Tuple(_) => "array",
        Value::Dict(_) => "object",
        _ => "string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<String> {
        official_parse(&cps(text)).map(|v| PyStr(py_str(&v)).to_string_lossy())
    }

    #[test]
    fn the_lean_gold_reader_skips_prompts_and_keeps_everything_else() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("datasets/ood/seal-tools/test_in_domain.json");
        let (full, lean) = (read_gold(&path).unwrap(), read_gold_calls(&path).unwrap());
        assert_eq!(full.len(), 700);
        assert_eq!(full.len(), lean.len());
        for (f, l) in full.iter().zip(&lean) {
            assert_eq!((&f.id, &f.calls), (&l.id, &l.calls));
            assert!(f.prompt.contains("api_list"), "{}", f.id);
            assert!(l.prompt.is_empty());
        }
        // JSON Lines too, and an error names the line.
        let dir = tempfile::tempdir().unwrap();
        let lines = dir.path().join("gold.jsonl");
        let rows: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let text: String = rows[..3].iter().map(|r| r.to_string() + "\n").collect();
        std::fs::write(
            &lines,
            text + "{\"id\": \"x\", \"conversations\": [{\"value\": \"q\"}]}\n",
        )
        .unwrap();
        let error = format!("{:#}", read_gold_calls(&lines).unwrap_err());
        assert!(
            error.contains("gold.jsonl:4: not a record") && error.contains("conversations[1]"),
            "{error}"
        );
    }

    #[test]
    fn parser_replaces_quotes_and_drops_newlines() {
        let gold = "[{'api': 'getX', 'parameters': {'a': 'b'}, 'responses': ['API_call_0']}]";
        let want = "[{'api': 'getX', 'parameters': {'a': 'b'}, 'responses': ['API_call_0']}]";
        assert_eq!(parse(gold).as_deref(), Some(want));
        assert_eq!(parse(&format!("Sure! {gold} ok")).as_deref(), Some(want));
        assert_eq!(
            parse("[{'api': 'getX', 'parameters': {'a': 'line1\nline2'}, 'responses': []}]")
                .as_deref(),
            Some("[{'api': 'getX', 'parameters': {'a': 'line1line2'}, 'responses': []}]")
        );
    }

    #[test]
    fn parser_failure_cases() {
        for bad in [
            "[]",
            "I cannot help",
            "[{'api': 'getX', 'parameters': {'flag': True}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': None}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': \"Jones's\"}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': 'x]y'}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': 'x[y'}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': 'x\ty'}, 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': 'b'}}]",
            "[{'parameters': {}, 'api': 'getX', 'responses': []}]",
            "[{'api': 'getX', 'parameters': {'a': 'b'}, 'responses': ['API_call_0']}",
            "[{'api': 'getX', 'parameters': {}, 'responses': [],}]",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        // The word `responses` anywhere is enough; the first list wins.
        assert!(parse("[{'api': 'getX', 'parameters': {'a': 'responses'}}]").is_some());
        assert_eq!(
            parse("[1, 2] then [{'api': 'x', 'parameters': {}, 'responses': []}] [{'api': 'y', 'parameters': {}, 'responses': []}]")
                .as_deref(),
            Some("[{'api': 'x', 'parameters': {}, 'responses': []}]")
        );
    }

    fn gold(text: &str) -> PyValue {
        json_roundtrip(literal_eval(text).unwrap()).unwrap()
    }

    fn run(gold_text: &str, preds: &[&str]) -> Result<OfficialCounts, OfficialException> {
        let mut c = OfficialCounts::default();
        let g = gold(gold_text);
        for p in preds {
            let v = json_loads(&cps(p)).unwrap();
            count_record(&mut c, "probe-easy-0", &g, Some(&v))?;
        }
        Ok(c)
    }

    const G: &str = "[{'api': 'getX', 'parameters': {'n': 5, 'f': 1.0, 's': 'abc'}, 'responses': ['API_call_0']}]";

    #[test]
    fn values_compare_as_python_str() {
        let c = run(
            G,
            &[r#"[{"api": "getX", "parameters": {"n": "5", "f": "1.0", "s": "abc"}}]"#],
        )
        .unwrap();
        assert_eq!(c.correct_param_num, 3);
        let c = run(
            G,
            &[r#"[{"api": "getX", "parameters": {"n": 5.0, "f": 1, "s": "abc"}}]"#],
        )
        .unwrap();
        assert_eq!(c.correct_param_num, 1, "5.0 != 5 and 1 != 1.0 under str()");
        let c = run(
            "[{'api': 'getX', 'parameters': {'b': True, 'l': ['a', 'b']}, 'responses': []}]",
            &[r#"[{"api": "getX", "parameters": {"b": "True", "l": "['a', 'b']"}}]"#],
        )
        .unwrap();
        assert_eq!(c.correct_param_num, 2);
    }

    #[test]
    fn duplicates_are_not_used_up_and_recall_can_exceed_one() {
        let c = run(G, &[r#"[{"api": "getX", "parameters": {"n": 5}}, {"api": "getX", "parameters": {"n": 5}}]"#])
            .unwrap();
        let s = c.score();
        assert_eq!((s.p_api, s.r_api), (Some(1.0), Some(2.0)));
        assert_eq!(s.f1_api, Some(1.3333333333333333));
        // Gold calling one API twice: both predictions compare with the first.
        let c = run(
            "[{'api': 'getX', 'parameters': {'a': '1'}, 'responses': []}, {'api': 'getX', 'parameters': {'a': '2'}, 'responses': []}]",
            &[r#"[{"api": "getX", "parameters": {"a": "1"}}, {"api": "getX", "parameters": {"a": "2"}}]"#],
        )
        .unwrap();
        assert_eq!((c.correct_param_num, c.predict_param_num), (1, 2));
    }

    #[test]
    fn wrong_names_and_odd_items() {
        // A wrong name's parameters still count as predicted; no P/R when nothing matched.
        let c = run(
            G,
            &[r#"[{"api": "getY", "parameters": {"n": 5, "s": "abc"}}]"#],
        )
        .unwrap();
        assert_eq!((c.predict_param_num, c.correct_api_num), (2, 0));
        assert_eq!(c.score().p_api, None);
        // Items without `api` and non-dict items without the substring are skipped.
        let c = run(
            G,
            &[r#"[{"name": "getX"}, "tail", {"api": "getX", "parameters": [5]}]"#],
        )
        .unwrap();
        assert_eq!((c.predict_api_num, c.predict_param_num), (1, 0));
        // A string item containing "api" makes the official code raise.
        let e = run(G, &[r#"[{"api": "getX", "parameters": {}}, "api"]"#]).unwrap_err();
        assert_eq!(
            e.exception,
            "TypeError(\"string indices must be integers, not 'str'\")"
        );
        assert!(run(G, &[r#"[{"api": "getX", "parameters": {}}, 5]"#]).is_err());
    }

    #[test]
    fn unparsed_predictions_still_count_gold() {
        let mut c = OfficialCounts::default();
        count_record(&mut c, "x", &gold(G), None).unwrap();
        assert_eq!(
            (c.gold_api_num, c.gold_param_num, c.correct_format_num),
            (1, 3, 0)
        );
        assert_eq!(c.score(), OfficialScore::default());
    }
}
