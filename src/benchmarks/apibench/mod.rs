//! APIBench (Gorilla): the official AST scorers `ast_eval_{hf,tf,th}.py`
//! (AST accuracy and hallucination rate), reproduced in Rust (SPEC §5), and
//! the converter of APIBench question/answer pairs into SPEC §0 tasks.
//!
//! What the official scripts do, and this module reproduces:
//! - **Extraction**: split the response on `api_call`; without it the hf and
//!   tf scripts parse the whole text and the th script counts the response as
//!   neither correct nor hallucinated. Otherwise take the part before
//!   `api_provider`, from two characters after its first `:` to its last `)`
//!   (Python slicing, negative ends included).
//! - **Candidates**: every node with children of the response's parse tree,
//!   visited from a stack (root first, then the rightmost child first).
//! - **Matching**: for each API database entry in file order, its function
//!   name (the text of the call's function) is looked up among the
//!   candidates' first children; if none has it, the last candidate is used
//!   anyway. Its arguments (hf: every `k=v` value or whole argument; tf: the
//!   value of `model=`, other arguments whole; th: the values of
//!   `repo_or_dir` and `model`) must each occur, `'` stripped from both
//!   ends, in that candidate's text. The first entry that passes matches.
//! - **Verdicts**: no match is a hallucination; a match is correct when the
//!   matched entry's `domain` equals the gold's (`qa_pairs[question_id-1]`).
//!   Both counts are divided by the number of response lines.
//!
//! The parse trees come from [`super::python::parse`]: tree-sitter itself,
//! with the runtime and grammar versions the official scripts ran, so its
//! error recovery on prose and broken code is reproduced too (every verdict
//! of the 12 reference response files matches).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;

use super::python::parse::Node;
use super::python::{self, PyValue, cps, json_loads};
use crate::spec::records::{Call, Gold, Parameter, Task, TaskKind, Tool, Value};

/// The three APIBench hubs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hub {
    /// Hugging Face (`ast_eval_hf.py`).
    Huggingface,
    /// TensorFlow Hub (`ast_eval_tf.py`).
    Tensorflowhub,
    /// PyTorch Hub (`ast_eval_th.py`).
    Torchhub,
}

impl Hub {
    /// Every hub, in APIBench's order of file names.
    pub const ALL: [Hub; 3] = [Hub::Huggingface, Hub::Tensorflowhub, Hub::Torchhub];

    /// The hub's name in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Hub::Huggingface => "huggingface",
            Hub::Tensorflowhub => "tensorflowhub",
            Hub::Torchhub => "torchhub",
        }
    }
}

/// The official script for a hub.
pub fn script_name(hub: Hub) -> &'static str {
    match hub {
        Hub::Huggingface => "ast_eval_hf.py",
        Hub::Tensorflowhub => "ast_eval_tf.py",
        Hub::Torchhub => "ast_eval_th.py",
    }
}

/// One API database entry as the scorer uses it.
#[derive(Debug, Clone)]
pub struct DbEntry {
    /// The entry's `api_call` text.
    pub api_call: String,
    /// Its `domain`.
    pub domain: Option<String>,
    /// The function name the scorer looks for (None: the entry is skipped).
    pub api_name: Option<Vec<u8>>,
    /// The argument texts that must occur, quotes stripped (empty: skipped).
    pub args: Vec<Vec<u8>>,
    /// The whole JSON record.
    pub record: serde_json::Value,
}

/// A hub's API database (`data/api/<hub>_api.jsonl`).
#[derive(Debug, Clone)]
pub struct ApiDatabase {
    /// The hub.
    pub hub: Hub,
    /// Entries in file order.
    pub entries: Vec<DbEntry>,
}

/// Python's `s.lstrip("'").rstrip("'")` on bytes.
fn strip_quotes(s: &[u8]) -> Vec<u8> {
    let start = s.iter().position(|&c| c != b'\'').unwrap_or(s.len());
    let end = s.iter().rposition(|&c| c != b'\'').map_or(start, |e| e + 1);
    s[start..end.max(start)].to_vec()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// The official `get_args` of one hub on the parse of a database `api_call`.
fn official_args(tree: &Node, src: &[u8], hub: Hub) -> Vec<Vec<u8>> {
    // node.children[0].children[0].children[1].children
    let Some(args) = tree
        .children
        .first()
        .and_then(|s| s.children.first())
        .and_then(|c| c.children.get(1))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for child in &args.children {
        let text = child.text(src);
        let value_of = |c: &Node| c.children.get(2).map(|v| v.text(src).to_vec());
        let pick = match hub {
            Hub::Huggingface => {
                if contains(text, b"=") {
                    value_of(child)
                } else if !matches!(text, b"(" | b")" | b",") {
                    Some(text.to_vec())
                } else {
                    None
                }
            }
            Hub::Tensorflowhub => {
                if contains(text, b"model=") || contains(text, b"model =") {
                    value_of(child)
                } else if !matches!(text, b"(" | b")" | b",") {
                    Some(text.to_vec())
                } else {
                    None
                }
            }
            Hub::Torchhub => {
                if contains(text, b"repo_or_dir") || contains(text, b"model") {
                    value_of(child)
                } else {
                    None
                }
            }
        };
        if let Some(p) = pick {
            out.push(strip_quotes(&p));
        }
    }
    out
}

impl ApiDatabase {
    /// Reads the database and parses every `api_call` once.
    pub fn read(path: &Path, hub: Hub) -> anyhow::Result<ApiDatabase> {
        let mut entries = Vec::new();
        crate::spec::jsonl::for_each_line(path, |number, line| {
            let record: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{}:{number}: not JSON", path.display()))?;
            let api_call = record["api_call"]
                .as_str()
                .with_context(|| format!("{}:{number}: field `api_call`: missing", path.display()))?
                .to_string();
            entries.push(DbEntry::new(api_call, record, hub));
            Ok(())
        })?;
        Ok(ApiDatabase { hub, entries })
    }
}

impl DbEntry {
    /// Parses an `api_call` as the official `ast_check` reads it.
    pub fn new(api_call: String, record: serde_json::Value, hub: Hub) -> DbEntry {
        let tree = python::parse::parse(&api_call);
        let src = api_call.as_bytes();
        // base_tree.children[0].children[0]; skipped when it has no children
        // (or when the text did not parse within its time budget).
        let call = tree
            .as_ref()
            .and_then(|t| t.children.first())
            .and_then(|s| s.children.first());
        let api_name = call
            .and_then(|c| c.children.first())
            .map(|f| f.text(src).to_vec());
        let args = if let (Some(tree), Some(_)) = (&tree, &api_name) {
            official_args(tree, src, hub)
        } else {
            Vec::new()
        };
        DbEntry {
            domain: record["domain"].as_str().map(String::from),
            api_call,
            api_name,
            args,
            record,
        }
    }
}

/// One response line: `question_id` and `text` (either may be absent).
#[derive(Debug, Clone)]
pub struct Response {
    /// `question_id`.
    pub question_id: Option<i64>,
    /// `text`.
    pub text: Option<String>,
}

/// Reads a response file (JSON Lines, read as Python's `json.loads`).
pub fn read_responses(path: &Path) -> anyhow::Result<Vec<Response>> {
    let text = crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    // `for line in f: json.loads(line)`: every line, blank ones included, must be JSON.
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let v = json_loads(&cps(line)).map_err(|e| {
            anyhow::anyhow!(
                "{}:{}: not JSON ({e}); the official script stops here",
                path.display(),
                i + 1
            )
        })?;
        out.push(Response {
            question_id: match v.get_str("question_id") {
                Some(PyValue::Int(t)) => t.parse().ok(),
                _ => None,
            },
            text: match v.get_str("text") {
                Some(PyValue::Str(s)) => Some(s.to_string_lossy()),
                _ => None,
            },
        });
    }
    Ok(out)
}

/// Reads the gold question/answer pairs (`data/apibench/<hub>_eval.json`,
/// JSON Lines): the `api_data.domain` of each line, in order.
pub fn read_gold_domains(path: &Path) -> anyhow::Result<Vec<Option<String>>> {
    let mut out = Vec::new();
    crate::spec::jsonl::for_each_line(path, |number, line| {
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{number}: not JSON", path.display()))?;
        out.push(v["api_data"]["domain"].as_str().map(String::from));
        Ok(())
    })?;
    Ok(out)
}

/// Python's `s[start:end]` on code points, with negative indices.
fn py_slice(s: &[char], start: i64, end: i64) -> String {
    let n = s.len() as i64;
    let norm = |i: i64| if i < 0 { (n + i).max(0) } else { i.min(n) };
    let (a, b) = (norm(start), norm(end));
    if a >= b {
        String::new()
    } else {
        s[a as usize..b as usize].iter().collect()
    }
}

/// The official extraction of the call text from a response; `None` when
/// the th script does not score the response (no `api_call`).
pub fn extract_api_call(text: &str, hub: Hub) -> Option<String> {
    let Some((_, after)) = text.split_once("api_call") else {
        return (hub != Hub::Torchhub).then(|| text.to_string());
    };
    // output.split("api_call")[1]: up to the next "api_call".
    let part = after.split("api_call").next().unwrap_or_default();
    let part: Vec<char> = part
        .split("api_provider")
        .next()
        .unwrap_or_default()
        .chars()
        .collect();
    let start = part.iter().position(|&c| c == ':').unwrap_or(0) as i64;
    let end = part
        .iter()
        .rposition(|&c| c == ')')
        .map_or(-2, |e| e as i64);
    Some(py_slice(&part, start + 2, end + 1))
}

/// The official candidate list: (first child's text, node) for every node
/// with children, in the order `get_all_sub_trees` produces.
fn candidates<'t>(root: &'t Node, src: &'t [u8]) -> Vec<(Option<&'t [u8]>, &'t Node)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        out.push((node.children.first().map(|c| c.text(src)), node));
        for child in &node.children {
            if !child.children.is_empty() {
                stack.push(child);
            }
        }
    }
    out
}

/// The official `ast_check`: the index of the first matching database entry.
pub fn ast_check(db: &ApiDatabase, api_call: &str) -> Option<usize> {
    // A text tree-sitter cannot parse within its budget matches nothing.
    let tree = python::parse::parse(api_call)?;
    let src = api_call.as_bytes();
    let cands = candidates(&tree, src);
    for (idx, entry) in db.entries.iter().enumerate() {
        let Some(name) = &entry.api_name else {
            continue;
        };
        let chosen = cands
            .iter()
            .find(|(first, _)| *first == Some(name.as_slice()))
            .or(cands.last())
            .map(|(_, n)| *n)
            .expect("the root is always a candidate");
        if entry.args.is_empty() {
            continue;
        }
        let text = chosen.text(src);
        if entry.args.iter().all(|a| contains(text, a)) {
            return Some(idx);
        }
    }
    None
}

/// The verdict on one response, as in the reference `per_item` files.
#[derive(Debug, Clone, Serialize)]
pub struct ItemVerdict {
    /// `question_id` of the response.
    pub question_id: Option<i64>,
    /// Whether the script scored it (th: responses without `api_call` are not).
    pub scored: bool,
    /// The text the script parsed.
    pub extracted_api_call: Option<String>,
    /// Index of the matched database entry (-1: none).
    pub db_index: Option<i64>,
    /// The matched entry's `api_call`.
    pub matched_api_call: Option<String>,
    /// The matched entry's `domain`.
    pub matched_domain: Option<String>,
    /// The gold `api_data.domain`.
    pub gold_domain: Option<String>,
    /// Counted as correct.
    pub correct: bool,
    /// Counted as hallucinated.
    pub hallucinated: bool,
}

/// The official result on one response file.
#[derive(Debug, Clone, Serialize)]
pub struct ApibenchReport {
    /// `apibench`.
    pub benchmark: &'static str,
    /// `official`.
    pub compat: &'static str,
    /// The hub.
    pub hub: Hub,
    /// The script reproduced.
    pub script: &'static str,
    /// Response lines (the denominator).
    pub total: u64,
    /// Matched an entry of the gold's domain.
    pub correct: u64,
    /// Matched no entry.
    pub hallucinated: u64,
    /// Neither (th without `api_call`; lines without `text`).
    pub neither_scored: u64,
    /// `correct / total`, as the script prints it.
    pub accuracy: f64,
    /// `hallucinated / total`, as the script prints it.
    pub hallucination: f64,
    /// The two lines the script prints.
    pub official_stdout: Vec<String>,
    /// What the script would print as errors, and odd inputs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The gold domain of a response's question, looked up as the script does:
/// `qa_pairs[question_id - 1]`, negative indices from the end; `line` is the
/// response's 1-based line, for errors.
fn gold_domain(
    gold: &[Option<String>],
    question_id: Option<i64>,
    line: usize,
) -> anyhow::Result<Option<String>> {
    let qid = question_id.with_context(|| format!("line {line}: no `question_id` (KeyError)"))?;
    let i = qid - 1;
    let i = if i < 0 { gold.len() as i64 + i } else { i };
    let g = usize::try_from(i)
        .ok()
        .and_then(|i| gold.get(i))
        .with_context(|| format!("line {line}: question_id {qid} out of range (IndexError)"))?;
    Ok(g.clone())
}

/// The official verdict on one response (the `idx`-th line, from 0). The
/// script fails on a bad question id only when the response matched an entry.
fn verdict(
    db: &ApiDatabase,
    gold: &[Option<String>],
    response: &Response,
    idx: usize,
    hub: Hub,
) -> anyhow::Result<ItemVerdict> {
    let unscored = ItemVerdict {
        question_id: response.question_id,
        scored: false,
        extracted_api_call: None,
        db_index: None,
        matched_api_call: None,
        matched_domain: None,
        gold_domain: None,
        correct: false,
        hallucinated: false,
    };
    let Some(text) = &response.text else {
        return Ok(unscored);
    };
    let gold_of_item = gold_domain(gold, response.question_id, idx + 1)
        .ok()
        .flatten();
    let Some(api_call) = extract_api_call(text, hub) else {
        return Ok(ItemVerdict {
            gold_domain: gold_of_item,
            ..unscored
        });
    };
    let matched = ast_check(db, &api_call);
    let mut item = ItemVerdict {
        scored: true,
        extracted_api_call: Some(api_call),
        db_index: Some(matched.map_or(-1, |i| i as i64)),
        gold_domain: gold_of_item,
        ..unscored
    };
    match matched {
        None => item.hallucinated = true,
        Some(i) => {
            let entry = &db.entries[i];
            let gold = gold_domain(gold, response.question_id, idx + 1)?;
            item.matched_api_call = Some(entry.api_call.clone());
            item.matched_domain = entry.domain.clone();
            item.correct = entry.domain.is_some() && entry.domain == gold;
        }
    }
    Ok(item)
}

/// Scores responses as the hub's official script does.
pub fn score_official(
    db: &ApiDatabase,
    gold: &[Option<String>],
    responses: &[Response],
    hub: Hub,
) -> anyhow::Result<(ApibenchReport, Vec<ItemVerdict>)> {
    if responses.is_empty() {
        bail!("no responses: the official script divides by zero");
    }
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    let (mut correct, mut hallucinated, mut neither) = (0u64, 0u64, 0u64);
    for (idx, response) in responses.iter().enumerate() {
        if response.text.is_none() {
            warnings.push(format!("Error: cannot parse line  {idx}"));
        }
        let item = verdict(db, gold, response, idx, hub)?;
        neither += u64::from(!item.scored);
        correct += u64::from(item.correct);
        hallucinated += u64::from(item.hallucinated);
        items.push(item);
    }
    let total = responses.len() as u64;
    let accuracy = correct as f64 / total as f64;
    let hallucination = hallucinated as f64 / total as f64;
    let sep = if hub == Hub::Torchhub { "" } else { " " };
    let official_stdout = vec![
        format!(
            "Final Functionality accuracy:{sep} {}",
            python::float_repr(accuracy)
        ),
        format!(
            "Final hallucination:{sep} {}",
            python::float_repr(hallucination)
        ),
    ];
    Ok((
        ApibenchReport {
            benchmark: "apibench",
            compat: "official",
            hub,
            script: script_name(hub),
            total,
            correct,
            hallucinated,
            neither_scored: neither,
            accuracy,
            hallucination,
            official_stdout,
            warnings,
        },
        items,
    ))
}

// ---------------------------------------------------------------------------
// Converter

/// Candidate tools per task besides the gold API, unless told otherwise.
pub const DEFAULT_CANDIDATES: usize = 4;

/// Arguments of the APIBench converter.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The hub.
    pub hub: Hub,
    /// The hub's API database: the pool of candidate tools.
    pub api_db: PathBuf,
    /// `data/apibench/<hub>_eval.json` files (question/answer pairs).
    pub inputs: Vec<PathBuf>,
    /// Candidate tools besides the gold API.
    pub candidates: usize,
}

/// A database entry as a SPEC tool: its name is the entry's `api_name`
/// (made unique within the task), its parameters the keyword arguments of
/// its `api_call` (positional ones as `#0`, `#1`, …).
fn tool_of(record: &serde_json::Value, name: &str) -> Tool {
    let api_call = record["api_call"].as_str().unwrap_or_default();
    let mut required = Vec::new();
    if let Ok(calls) =
        crate::spec::action::parse_actions(api_call, crate::spec::action::Mode::Lenient)
        && let Some(call) = calls.first()
    {
        for (k, v) in &call.arguments {
            required.push(Parameter {
                name: k.clone(),
                kind: match v {
                    Value::Int(_) => "integer",
                    Value::Float(_) => "number",
                    Value::Bool(_) => "boolean",
                    Value::List(_) | Value::Tuple(_) => "array",
                    Value::Dict(_) => "object",
                    _ => "string",
                }
                .into(),
                description: String::new(),
                default: None,
                ..Default::default()
            });
        }
    }
    let text = |k: &str| record[k].as_str().unwrap_or_default().to_string();
    let description = [text("functionality"), text("description")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(". ");
    Tool {
        name: name.to_string(),
        description: format!("{description} Call: {api_call}").trim().to_string(),
        category: text("domain"),
        country: "GLOBAL".into(),
        required_parameters: required,
        ..Tool::default()
    }
}

/// The question of an APIBench pair: the text after `###Instruction:` up to `###Output`.
fn question(code: &str) -> String {
    let start = code
        .find("###Instruction:")
        .map_or(0, |i| i + "###Instruction:".len());
    let rest = &code[start..];
    let end = rest.find("###Output").unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

/// A deterministic 64-bit hash (FNV-1a) for choosing distractors.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// A readable, unique tool name for a database entry.
fn tool_name(record: &serde_json::Value, index: usize) -> String {
    let name = record["api_name"].as_str().unwrap_or_default();
    if name.is_empty() {
        format!("api_{index}")
    } else {
        name.to_string()
    }
}

/// Converts APIBench pairs into SPEC tasks. The query is the instruction;
/// the tools are the gold API (its database entry) and `candidates` other
/// entries of the same hub, half from the gold's domain and the rest from
/// anywhere, chosen by a hash of the question (deterministic); the gold call
/// is the pair's `api_call` parsed with the lenient action parser under the
/// gold tool's name. Ids are `apibench-<hub>-<question_id>`.
pub fn convert(options: &ConvertOptions) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let db: Vec<serde_json::Value> = {
        let mut v = Vec::new();
        crate::spec::jsonl::for_each_line(&options.api_db, |n, line| {
            v.push(
                serde_json::from_str(line)
                    .with_context(|| format!("{}:{n}: not JSON", options.api_db.display()))?,
            );
            Ok(())
        })?;
        v
    };
    let mut tasks = Vec::new();
    let mut warnings = Vec::new();
    for path in &options.inputs {
        crate::spec::jsonl::for_each_line(path, |number, line| {
            let pair: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{}:{number}: not JSON", path.display()))?;
            let api_data = &pair["api_data"];
            let gold_call = pair["api_call"]
                .as_str()
                .or(api_data["api_call"].as_str())
                .unwrap_or_default()
                .to_string();
            let code = pair["code"].as_str().unwrap_or_default();
            let query = question(code);
            let gold_index = db.iter().position(|e| e == api_data).or_else(|| {
                db.iter()
                    .position(|e| e["api_call"] == api_data["api_call"])
            });
            let mut chosen: Vec<(String, serde_json::Value)> = Vec::new();
            let gold_name = tool_name(api_data, gold_index.unwrap_or(db.len()));
            chosen.push((gold_name.clone(), api_data.clone()));
            let seed = fnv(&format!("{}#{number}", query));
            let domain = api_data["domain"].as_str().unwrap_or_default();
            let same: Vec<usize> = (0..db.len())
                .filter(|&i| Some(i) != gold_index && db[i]["domain"].as_str() == Some(domain))
                .collect();
            let other: Vec<usize> = (0..db.len()).filter(|&i| Some(i) != gold_index).collect();
            let want_same = options.candidates / 2;
            let mut picked: Vec<usize> = Vec::new();
            for (pool, want) in [(&same, want_same), (&other, options.candidates)] {
                let mut k = 0u64;
                while picked.len() < want.min(options.candidates)
                    && !pool.is_empty()
                    && k < 4 * pool.len() as u64 + 8
                {
                    let i = pool[((seed.wrapping_add(k.wrapping_mul(0x9e3779b97f4a7c15)))
                        % pool.len() as u64) as usize];
                    if !picked.contains(&i) && db[i]["api_call"] != api_data["api_call"] {
                        picked.push(i);
                    }
                    k += 1;
                }
            }
            for i in picked {
                let mut name = tool_name(&db[i], i);
                while chosen.iter().any(|(n, _)| *n == name) {
                    name = format!("{name}_{i}");
                }
                chosen.push((name, db[i].clone()));
            }
            // Order the candidates by a hash so the gold is not always first.
            chosen.sort_by_key(|(n, _)| fnv(&format!("{seed}{n}")));
            let tools: Vec<Tool> = chosen.iter().map(|(n, r)| tool_of(r, n)).collect();
            let arguments = match crate::spec::action::parse_actions(
                &gold_call,
                crate::spec::action::Mode::Lenient,
            ) {
                Ok(calls) if !calls.is_empty() => calls[0].arguments.clone(),
                _ => {
                    warnings.push(format!(
                        "{}:{number}: gold api_call {gold_call:?} does not parse; gold call has no arguments",
                        path.display()
                    ));
                    Vec::new()
                }
            };
            tasks.push(Task {
                id: format!("apibench-{}-{number}", options.hub.as_str()),
                kind: TaskKind::Single,
                language: "en".into(),
                country: "GLOBAL".into(),
                category: domain.to_string(),
                query,
                tools,
                gold: Gold {
                    thought: String::new(),
                    calls: vec![Call::new(gold_name, arguments)],
                    official: None,
                },
                turns: Vec::new(),
            });
            Ok(())
        })?;
    }
    Ok((tasks, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints this scorer's numbers beside the reference ones (diagnostics).
    #[test]
    #[ignore]
    fn measure_reference_files() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/gorilla");
        let reference: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("reference/reference.json")).unwrap(),
        )
        .unwrap();
        for row in reference["results"].as_array().unwrap() {
            let hub = match row["hub"].as_str().unwrap() {
                "huggingface" => Hub::Huggingface,
                "tensorflowhub" => Hub::Tensorflowhub,
                _ => Hub::Torchhub,
            };
            let eval = match hub {
                Hub::Tensorflowhub => "tensorflow",
                h => h.as_str(),
            };
            let db = ApiDatabase::read(&root.join(format!("api/{}_api.jsonl", hub.as_str())), hub)
                .unwrap();
            let gold = read_gold_domains(&root.join(format!("apibench/{eval}_eval.json"))).unwrap();
            let file = row["response_file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap();
            let responses =
                read_responses(&root.join(format!("responses/{}/{file}", hub.as_str()))).unwrap();
            let (r, items) = score_official(&db, &gold, &responses, hub).unwrap();
            let per: Vec<serde_json::Value> = std::fs::read_to_string(root.join(format!(
                "reference/per_item/{}",
                file.replace(".jsonl", ".per_item.jsonl")
            )))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
            let differ = items
                .iter()
                .zip(&per)
                .filter(|(a, b)| a.db_index != b["db_index"].as_i64())
                .inspect(|(a, b)| {
                    if std::env::var("OOD_DUMP").is_ok() {
                        eprintln!(
                            "DIFF {file} q{:?} ours {:?} ref {} :: {:?}",
                            a.question_id, a.db_index, b["db_index"], a.extracted_api_call
                        );
                    }
                })
                .count();
            println!(
                "{file}: ours {} {} ref {} {} items differing {differ}",
                r.correct, r.hallucinated, row["correct"], row["hallucinated"]
            );
        }
    }

    #[test]
    fn extraction_follows_python_slicing() {
        let hf = Hub::Huggingface;
        assert_eq!(
            extract_api_call(
                "<<<api_call>>>: pipeline('x', model='y'), <<<api_provider>>>: HF",
                hf
            )
            .as_deref(),
            Some("pipeline('x', model='y')")
        );
        // No `)`: end = -2, so the slice stops one before the end.
        assert_eq!(
            extract_api_call("api_call: abcdef", hf).as_deref(),
            Some("abcde")
        );
        // No `:`: start = 0, so two characters are dropped.
        assert_eq!(
            extract_api_call("api_call xyf(a)", hf).as_deref(),
            Some("yf(a)")
        );
        // Without api_call: the whole text (hf, tf), not scored (th).
        assert_eq!(
            extract_api_call("hello", Hub::Tensorflowhub).as_deref(),
            Some("hello")
        );
        assert_eq!(extract_api_call("hello", Hub::Torchhub), None);
        // Only the text up to a second `api_call` counts.
        assert_eq!(
            extract_api_call("api_call: f(1) api_call: g(2)", hf).as_deref(),
            Some("f(1)")
        );
    }

    fn db(hub: Hub, calls: &[(&str, &str)]) -> ApiDatabase {
        ApiDatabase {
            hub,
            entries: calls
                .iter()
                .map(|(c, d)| {
                    DbEntry::new(
                        c.to_string(),
                        serde_json::json!({ "api_call": c, "domain": d }),
                        hub,
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn official_arguments_per_hub() {
        let e = DbEntry::new(
            "pipeline('summarization', model='facebook/bart-large-cnn')".into(),
            serde_json::Value::Null,
            Hub::Huggingface,
        );
        assert_eq!(e.api_name.as_deref(), Some(&b"pipeline"[..]));
        assert_eq!(
            e.args,
            [
                b"summarization".to_vec(),
                b"facebook/bart-large-cnn".to_vec()
            ]
        );
        let e = DbEntry::new(
            "hub.KerasLayer('https://tfhub.dev/x/4', trainable=False)".into(),
            serde_json::Value::Null,
            Hub::Tensorflowhub,
        );
        assert_eq!(
            e.args,
            [
                b"https://tfhub.dev/x/4".to_vec(),
                b"trainable=False".to_vec()
            ]
        );
        let e = DbEntry::new(
            "torch.hub.load(repo_or_dir='pytorch/vision', model='alexnet', pretrained=True)".into(),
            serde_json::Value::Null,
            Hub::Torchhub,
        );
        assert_eq!(e.args, [b"pytorch/vision".to_vec(), b"alexnet".to_vec()]);
        // Not a call: skipped.
        let e = DbEntry::new(
            "model=a/b".into(),
            serde_json::Value::Null,
            Hub::Huggingface,
        );
        assert!(e.args.is_empty());
    }

    #[test]
    fn first_entry_whose_arguments_occur_matches() {
        let d = db(
            Hub::Torchhub,
            &[
                (
                    "torch.hub.load(repo_or_dir='pytorch/vision', model='alexnet', pretrained=True)",
                    "A",
                ),
                (
                    "torch.hub.load(repo_or_dir='pytorch/vision', model='vgg11', pretrained=True)",
                    "B",
                ),
            ],
        );
        assert_eq!(
            ast_check(
                &d,
                "torch.hub.load('pytorch/vision', 'vgg11', pretrained=True)"
            ),
            Some(1)
        );
        // A positional form still matches: arguments are substrings of the call's text.
        assert_eq!(
            ast_check(&d, "m = torch.hub.load('pytorch/vision', 'alexnet')"),
            Some(0)
        );
        assert_eq!(
            ast_check(&d, "torch.hub.load('other/repo', 'alexnet')"),
            None
        );
        // The name is not found: the last candidate is used anyway. It is the
        // leftmost-deepest node with children (here the string 'pytorch/vision').
        assert_eq!(ast_check(&d, "load('pytorch/vision', 'vgg11')"), None);
    }

    #[test]
    fn scores_and_prints_like_the_script() {
        let d = db(
            Hub::Huggingface,
            &[
                ("pipeline('a', model='m1')", "D1"),
                ("pipeline('b', model='m2')", "D2"),
            ],
        );
        let gold = vec![Some("D1".to_string()), Some("D2".to_string())];
        let responses = vec![
            Response {
                question_id: Some(1),
                text: Some("<<<api_call>>>: pipeline('a', model='m1')<<<api_provider>>>".into()),
            },
            Response {
                question_id: Some(2),
                text: Some("<<<api_call>>>: pipeline('a', model='m1')<<<api_provider>>>".into()),
            },
            Response {
                question_id: Some(2),
                text: Some("nothing".into()),
            },
        ];
        let (r, items) = score_official(&d, &gold, &responses, Hub::Huggingface).unwrap();
        assert_eq!((r.total, r.correct, r.hallucinated), (3, 1, 1));
        assert_eq!(
            r.official_stdout[0],
            "Final Functionality accuracy:  0.3333333333333333"
        );
        assert!(items[1].db_index == Some(0) && !items[1].correct);
    }
}
