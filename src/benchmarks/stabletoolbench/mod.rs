//! StableToolBench (THUNLP-MT/StableToolBench) solvable queries, and
//! ToolBench's (OpenBMB/ToolBench) `data_example/instruction/G*_query.json`
//! of the same shape, to SPEC §0 tasks.
//!
//! Each query gives one task: its `api_list` entries are the tools, named as
//! ToolBench names them for the model ([`tool_name`]: `<api>_for_<tool>`,
//! both parts normalised by [`standardize`], the API part also by
//! [`change_name`], then the *last* 64 characters kept, as ToolBench's
//! `api_json_to_openai_json` does); names that clash after the cut get a
//! deterministic suffix ([`unique_names`]). The original tool and API names
//! open the tool's description. The gold calls are the query's
//! `relevant APIs`, without arguments (the benchmark gives none), so SPEC §3
//! scores tool selection only. The task's category is the group, the input
//! file's stem (`G1_instruction`, or ToolBench's `G1_query`); its id is
//! `stb-<group>-<query_id>`.

pub mod results;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value as J;

use super::ConvertWarning;
use crate::spec::records::{Call, Gold, Parameter, Task, TaskKind, Tool};

/// The longest tool name ToolBench gives a model (OpenAI's function-name limit).
pub const MAX_NAME: usize = 64;

/// The longest description ToolBench shows for an API or a parameter.
const MAX_DESCRIPTION: usize = 256;

/// The six StableToolBench test groups (`solvable_queries/test_instruction/<group>.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Single tool, instructions unseen in training.
    G1Instruction,
    /// Single tool, categories unseen in training.
    G1Category,
    /// Single tool, tools unseen in training.
    G1Tool,
    /// Several tools of one category, instructions unseen.
    G2Instruction,
    /// Several tools of one category, categories unseen.
    G2Category,
    /// Several tools of one collection, instructions unseen.
    G3Instruction,
}

impl Group {
    /// Every group, in StableToolBench's order.
    pub const ALL: [Group; 6] = [
        Group::G1Instruction,
        Group::G1Category,
        Group::G1Tool,
        Group::G2Instruction,
        Group::G2Category,
        Group::G3Instruction,
    ];

    /// The group's name, as in its file name.
    pub fn as_str(self) -> &'static str {
        match self {
            Group::G1Instruction => "G1_instruction",
            Group::G1Category => "G1_category",
            Group::G1Tool => "G1_tool",
            Group::G2Instruction => "G2_instruction",
            Group::G2Category => "G2_category",
            Group::G3Instruction => "G3_instruction",
        }
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Group {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Group> {
        Group::ALL
            .into_iter()
            .find(|g| g.as_str().eq_ignore_ascii_case(s.trim()))
            .with_context(|| {
                let known: Vec<&str> = Group::ALL.iter().map(|g| g.as_str()).collect();
                format!(
                    "unknown StableToolBench group {s:?}; known: {}",
                    known.join(", ")
                )
            })
    }
}

/// ToolBench's `standardize`: every character but ASCII letters and digits,
/// `_`, `^` and the CJK ideographs U+4E00–U+9FA5 becomes `_` (ToolBench's
/// character class `[^\u4e00-\u9fa5^a-z^A-Z^0-9^_]` keeps `^` too); runs of
/// `_` become one; lower case; leading and trailing `_` removed; a name
/// starting with a digit gets `get_` before it.
pub fn standardize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let kept = c.is_ascii_alphanumeric() || c == '^' || ('\u{4e00}'..='\u{9fa5}').contains(&c);
        let c = if kept { c } else { '_' };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    let out = out.to_lowercase();
    let out = out.trim_matches('_');
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("get_{out}")
    } else {
        out.to_string()
    }
}

/// ToolBench's `change_name`: the words `from`, `class`, `return`, `false`,
/// `true`, `id` and `and` get `is_` before them.
pub fn change_name(name: &str) -> String {
    const CHANGED: [&str; 7] = ["from", "class", "return", "false", "true", "id", "and"];
    if CHANGED.contains(&name) {
        format!("is_{name}")
    } else {
        name.to_string()
    }
}

/// The last `max` characters of `text` (ToolBench cuts `name[-64:]`).
fn last_chars(text: &str, max: usize) -> &str {
    let count = text.chars().count();
    match text.char_indices().nth(count.saturating_sub(max)) {
        Some((at, _)) if count > max => &text[at..],
        _ => text,
    }
}

/// The name ToolBench gives the model for API `api` of tool `tool`:
/// `change_name(standardize(api)) + "_for_" + standardize(tool)`, its last
/// [`MAX_NAME`] characters.
pub fn tool_name(tool: &str, api: &str) -> String {
    let full = format!(
        "{}_for_{}",
        change_name(&standardize(api)),
        standardize(tool)
    );
    last_chars(&full, MAX_NAME).to_string()
}

/// Makes names unique, in order: a name already taken gets `_2`, `_3`, …
/// (the first free one), its text cut from the front so that the result
/// stays within [`MAX_NAME`] characters. Linear in the number of names.
pub fn unique_names(names: &[String]) -> Vec<String> {
    let mut taken: HashSet<String> = names.iter().cloned().collect();
    let mut first = HashSet::new();
    let mut next: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        if first.insert(name.as_str()) {
            out.push(name.clone());
            continue;
        }
        let k = next.entry(name.as_str()).or_insert(2);
        loop {
            let suffix = format!("_{k}");
            let base = last_chars(name, MAX_NAME.saturating_sub(suffix.len()));
            let candidate = format!("{base}{suffix}");
            *k += 1;
            if taken.insert(candidate.clone()) {
                out.push(candidate);
                break;
            }
        }
    }
    out
}

/// One parameter of an `api_list` entry.
#[derive(Debug, Deserialize)]
struct RawParam {
    name: String,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    default: J,
}

/// One `api_list` entry.
#[derive(Debug, Deserialize)]
struct RawApi {
    #[serde(default)]
    category_name: String,
    tool_name: String,
    api_name: String,
    #[serde(default)]
    api_description: Option<String>,
    #[serde(default)]
    required_parameters: Vec<RawParam>,
    #[serde(default)]
    optional_parameters: Vec<RawParam>,
    #[serde(default)]
    method: String,
}

/// One query.
#[derive(Debug, Deserialize)]
struct RawQuery {
    query: String,
    query_id: J,
    api_list: Vec<RawApi>,
    #[serde(rename = "relevant APIs")]
    relevant: Vec<(String, String)>,
}

/// The first `max` characters of `text`, trimmed.
fn cut(text: &str, max: usize) -> String {
    text.trim().chars().take(max).collect()
}

/// ToolBench's parameter types (`NUMBER` → integer, `STRING` → string,
/// `BOOLEAN` → boolean); every other type (`ENUM`, `DATE (YYYY-MM-DD)`,
/// `ARRAY`, …) is a string, as ToolBench shows it.
fn param_type(kind: &str) -> &'static str {
    match kind {
        "NUMBER" => "integer",
        "BOOLEAN" => "boolean",
        _ => "string",
    }
}

/// The parameters of one list, named as ToolBench names them
/// (`change_name(standardize(name))`); a name seen before in the tool is
/// left out, with a warning.
fn parameters(
    raw: &[RawParam],
    seen: &mut HashSet<String>,
    at: &str,
    warnings: &mut Vec<String>,
) -> Vec<Parameter> {
    let mut out = Vec::new();
    for p in raw {
        let name = change_name(&standardize(&p.name));
        if !seen.insert(name.clone()) {
            warnings.push(format!(
                "{at}: parameter {:?} is named {name:?} like an earlier one; left out",
                p.name
            ));
            continue;
        }
        let default = match &p.default {
            J::Null => None,
            J::String(s) if s.is_empty() => None,
            other => Some(other.clone()),
        };
        out.push(Parameter {
            name,
            kind: param_type(&p.kind).to_string(),
            description: cut(
                p.description.as_deref().unwrap_or_default(),
                MAX_DESCRIPTION,
            ),
            default,
            ..Default::default()
        });
    }
    out
}

/// One `api_list` entry as a tool named `name`. The description opens with
/// the original tool and API names.
fn tool_of(api: &RawApi, name: String, at: &str, warnings: &mut Vec<String>) -> Tool {
    let mut seen = HashSet::new();
    let required = parameters(&api.required_parameters, &mut seen, at, warnings);
    let optional = parameters(&api.optional_parameters, &mut seen, at, warnings);
    let about = cut(
        api.api_description.as_deref().unwrap_or_default(),
        MAX_DESCRIPTION,
    );
    let mut description = format!("API {:?} of tool {:?}", api.api_name, api.tool_name);
    if !about.is_empty() {
        description += ": ";
        description += &about;
    }
    Tool {
        name,
        description,
        category: api.category_name.clone(),
        country: "GLOBAL".into(),
        method: api.method.to_ascii_uppercase(),
        url: String::new(),
        required_parameters: required,
        optional_parameters: optional,
    }
}

/// The task of one query of group `group`; `at` names the entry in errors.
fn query_task(
    q: &RawQuery,
    group: &str,
    at: &str,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Task> {
    let id = match &q.query_id {
        J::Number(n) => n.to_string(),
        J::String(s) if !s.trim().is_empty() => s.trim().to_string(),
        _ => bail!("{at}: field `query_id`: not a number or a non-empty text"),
    };
    let names: Vec<String> = q
        .api_list
        .iter()
        .map(|a| tool_name(&a.tool_name, &a.api_name))
        .collect();
    let names = unique_names(&names);
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, a) in q.api_list.iter().enumerate() {
        index
            .entry((a.tool_name.as_str(), a.api_name.as_str()))
            .or_insert(i);
    }
    let mut calls: Vec<Call> = Vec::new();
    let mut called = HashSet::new();
    for (r, (tool, api)) in q.relevant.iter().enumerate() {
        let Some(&i) = index.get(&(tool.as_str(), api.as_str())) else {
            bail!(
                "{at}: field `relevant APIs[{r}]`: [{tool:?}, {api:?}] is not an API of `api_list`"
            );
        };
        if !called.insert(i) {
            warnings.push(format!(
                "{at}: `relevant APIs[{r}]` [{tool:?}, {api:?}] repeats an earlier one; kept once"
            ));
            continue;
        }
        calls.push(Call::new(names[i].clone(), Vec::new()));
    }
    let tools = q
        .api_list
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (a, name))| tool_of(a, name, &format!("{at}: api_list[{i}]"), warnings))
        .collect();
    let kind = match calls.len() {
        0 => TaskKind::NoTool,
        1 => TaskKind::Single,
        _ => TaskKind::Parallel,
    };
    Ok(Task {
        id: format!("stb-{group}-{id}"),
        kind,
        language: "en".into(),
        country: "GLOBAL".into(),
        category: group.to_string(),
        query: q.query.clone(),
        tools,
        gold: Gold {
            thought: String::new(),
            calls,
            official: None,
        },
        turns: Vec::new(),
    })
}

/// The group of a file: its stem (`G1_instruction.json` → `G1_instruction`).
pub fn group_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Converts StableToolBench solvable-query files (or ToolBench's
/// `G*_query.json`) into SPEC tasks, one per query, the group taken from
/// each file's name. A malformed entry is an error naming the file, the
/// entry's index and the field.
pub fn convert(inputs: &[PathBuf]) -> anyhow::Result<(Vec<Task>, Vec<String>)> {
    let (tasks, warnings) = convert_by_task(inputs)?;
    Ok((tasks, warnings.into_iter().map(|w| w.text).collect()))
}

/// [`convert`], each warning with the id of the task it is about, so that a
/// run shows only those of the tasks it asks.
pub fn convert_by_task(inputs: &[PathBuf]) -> anyhow::Result<(Vec<Task>, Vec<ConvertWarning>)> {
    let mut tasks = Vec::new();
    let mut warnings = Vec::new();
    let mut by_task = Vec::new();
    for path in inputs {
        let text = crate::util::embedded::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let entries: Vec<J> = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON list of queries", path.display()))?;
        let group = group_of(path);
        for (e, entry) in entries.iter().enumerate() {
            let at = format!("{}: entry {e}", path.display());
            let q: RawQuery = serde_path_to_error::deserialize(entry)
                .map_err(|err| anyhow::anyhow!("{at}: field `{}`: {}", err.path(), err.inner()))?;
            let task = query_task(&q, &group, &at, &mut warnings)?;
            by_task.extend(warnings.drain(..).map(|text| ConvertWarning {
                task: Some(task.id.clone()),
                text,
            }));
            tasks.push(task);
        }
    }
    Ok((tasks, by_task))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalised_as_toolbench_does() {
        assert_eq!(standardize("Get Weather-Data (v2)!"), "get_weather_data_v2");
        assert_eq!(standardize("__Hello__World__"), "hello_world");
        assert_eq!(standardize("168Predict"), "get_168predict");
        assert_eq!(standardize("a^b"), "a^b");
        assert_eq!(standardize("天气 API"), "天气_api");
        assert_eq!(standardize("café"), "caf");
        assert_eq!(standardize("!!!"), "");
        assert_eq!(change_name("id"), "is_id");
        assert_eq!(change_name("ids"), "ids");
        assert_eq!(
            tool_name("TheClique", "Songkick concert"),
            "songkick_concert_for_theclique"
        );
        assert_eq!(tool_name("Some Tool", "ID"), "is_id_for_some_tool");
    }

    #[test]
    fn long_names_keep_their_last_64_characters() {
        let tool = "Forecast crypto and fiat currency exchange rates";
        let name = tool_name(tool, "Historical data");
        let full = "historical_data_for_forecast_crypto_and_fiat_currency_exchange_rates";
        assert_eq!(name.len(), MAX_NAME);
        assert_eq!(name, full[full.len() - MAX_NAME..]);
        // Characters, not bytes: a CJK name is cut on a character boundary.
        let cjk = tool_name(&"天".repeat(70), "x");
        assert_eq!(cjk.chars().count(), MAX_NAME);
        assert!(cjk.chars().all(|c| c == '天'));
    }

    #[test]
    fn clashing_names_get_deterministic_suffixes_within_64_characters() {
        let long = "y".repeat(MAX_NAME);
        let names: Vec<String> = ["a", "b", "a", "a", "a_2", &long, &long]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = unique_names(&names);
        // "a_2" is taken by the input's own fifth name, so the second "a" skips it.
        assert_eq!(&out[..5], ["a", "b", "a_3", "a_4", "a_2"]);
        assert_eq!(out[5], long);
        assert_eq!(out[6], format!("{}_2", &long[..MAX_NAME - 2]));
        assert!(out.iter().all(|n| n.chars().count() <= MAX_NAME));
        assert_eq!(out.iter().collect::<HashSet<_>>().len(), out.len());
        assert_eq!(unique_names(&names), out, "deterministic");
    }

    #[test]
    fn many_clashes_stay_linear() {
        let names = vec!["same".to_string(); 20_000];
        let out = unique_names(&names);
        assert_eq!(out.len(), 20_000);
        assert_eq!(out[19_999], "same_20000");
        assert_eq!(out.iter().collect::<HashSet<_>>().len(), 20_000);
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn one_query_becomes_one_exact_task() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "G2_category.json",
            r#"[{"api_list": [
                {"category_name": "Sports", "tool_name": "Foot Ball!", "api_name": "Get ID",
                 "api_description": " Finds a team. ", "method": "get",
                 "required_parameters": [{"name": "Team Name", "type": "STRING",
                    "description": "the team", "default": "arsenal"}],
                 "optional_parameters": [{"name": "limit", "type": "NUMBER",
                    "description": "", "default": ""},
                    {"name": "when", "type": "DATE (YYYY-MM-DD)", "description": "day", "default": 3}]},
                {"category_name": "Sports", "tool_name": "Other", "api_name": "from",
                 "api_description": "", "required_parameters": [], "optional_parameters": [],
                 "method": "POST"}],
              "query": "Find Arsenal.", "relevant APIs": [["Foot Ball!", "Get ID"]],
              "query_id": 42}]"#,
        );
        let (tasks, warnings) = convert(std::slice::from_ref(&path)).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let expected = serde_json::json!({
            "id": "stb-G2_category-42", "kind": "single", "language": "en",
            "country": "GLOBAL", "category": "G2_category", "query": "Find Arsenal.",
            "tools": [
                {"name": "get_id_for_foot_ball", "description":
                    "API \"Get ID\" of tool \"Foot Ball!\": Finds a team.",
                 "category": "Sports", "country": "GLOBAL", "method": "GET",
                 "required_parameters": [{"name": "team_name", "type": "string",
                    "description": "the team", "default": "arsenal"}],
                 "optional_parameters": [
                    {"name": "limit", "type": "integer", "description": ""},
                    {"name": "when", "type": "string", "description": "day", "default": 3}]},
                {"name": "is_from_for_other", "description": "API \"from\" of tool \"Other\"",
                 "category": "Sports", "country": "GLOBAL", "method": "POST",
                 "required_parameters": [], "optional_parameters": []}],
            "gold": {"thought": "", "calls": [{"name": "get_id_for_foot_ball", "arguments": {}}]},
        });
        let mut got = serde_json::to_value(&tasks[0]).unwrap();
        got.as_object_mut().unwrap().remove("turns");
        assert_eq!(got, expected);
    }

    #[test]
    fn malformed_entries_name_file_entry_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let ok = r#"{"api_list": [{"tool_name": "T", "api_name": "A"}], "query": "q",
                     "relevant APIs": [["T", "A"]], "query_id": 1}"#;
        let cases = [
            (
                r#"{"api_list": [{"tool_name": "T"}], "query": "q", "relevant APIs": [], "query_id": 2}"#,
                "field `api_list[0]`: missing field `api_name`",
            ),
            (
                r#"{"api_list": [], "query": "q", "relevant APIs": [["T"]], "query_id": 2}"#,
                "field `relevant APIs[0]`",
            ),
            (
                r#"{"api_list": [{"tool_name": "T", "api_name": "A"}], "query": "q", "relevant APIs": [["T", "B"]], "query_id": 2}"#,
                "field `relevant APIs[0]`: [\"T\", \"B\"] is not an API of `api_list`",
            ),
            (
                r#"{"api_list": [], "query": "q", "relevant APIs": [], "query_id": null}"#,
                "field `query_id`",
            ),
        ];
        for (bad, message) in cases {
            let path = write(dir.path(), "G1_tool.json", &format!("[{ok}, {bad}]"));
            let e = format!("{:#}", convert(std::slice::from_ref(&path)).unwrap_err());
            let at = format!("{}: entry 1: ", path.display());
            assert!(e.contains(&at) && e.contains(message), "{e}");
        }
        let path = write(dir.path(), "G1_tool.json", "{\"not\": \"a list\"}");
        let e = format!("{:#}", convert(&[path]).unwrap_err());
        assert!(
            e.contains("G1_tool.json: not a JSON list of queries"),
            "{e}"
        );
    }

    /// Tens of thousands of APIs and relevant APIs, many of them repeated,
    /// convert in linear time.
    #[test]
    fn large_queries_convert_in_linear_time() {
        const N: usize = 20_000;
        let apis: Vec<J> = (0..N)
            .map(|i| serde_json::json!({"tool_name": "T", "api_name": format!("a{}", i % 100)}))
            .collect();
        let relevant: Vec<J> = (0..N)
            .map(|i| serde_json::json!(["T", format!("a{}", i % 100)]))
            .collect();
        let query = serde_json::json!([{"api_list": apis, "query": "q",
            "relevant APIs": relevant, "query_id": 7}]);
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "G1_tool.json", &query.to_string());
        let started = std::time::Instant::now();
        let (tasks, warnings) = convert(&[path]).unwrap();
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        assert_eq!(tasks[0].tools.len(), N);
        assert_eq!(tasks[0].gold.calls.len(), 100, "each relevant API once");
        assert_eq!(warnings.len(), N - 100);
        assert_eq!(tasks[0].tools[N - 1].name, format!("a99_for_t_{}", N / 100));
    }

    #[test]
    fn groups_parse_and_print() {
        for g in Group::ALL {
            assert_eq!(g.as_str().parse::<Group>().unwrap(), g);
        }
        assert_eq!(
            "g3_INSTRUCTION".parse::<Group>().unwrap(),
            Group::G3Instruction
        );
        let e = "G4_tool".parse::<Group>().unwrap_err().to_string();
        assert!(e.contains("G1_instruction") && e.contains("G4_tool"), "{e}");
    }
}
