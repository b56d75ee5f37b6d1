//! The record types that flow between pipeline stages (SPEC §0).
//!
//! Every stage reads and writes JSON Lines files of these types: tools and
//! tasks, the calls inside gold answers and predictions, predictions
//! themselves and per-task scores. Unknown fields are accepted on input, so
//! later stages may add fields without breaking earlier readers.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use super::reference::Reference;
use crate::spec::limits::{MAX_NESTING, ReadLimits, TOO_DEEP};

/// One parameter of a tool, as in the ITC / ToolBench schema.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Parameter {
    /// Parameter name, as calls must write it.
    pub name: String,
    /// Declared type (`string`, `integer`, `number`, `boolean`, `array`, …).
    #[serde(default, rename = "type")]
    pub kind: String,
    /// Human description shown to the model.
    #[serde(default)]
    pub description: String,
    /// Default value, when the catalog gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// The values allowed, when the catalog lists them (JSON Schema `enum`).
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<serde_json::Value>>,
    /// An array's item schema, as the catalog writes it (`{"type": "string"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<serde_json::Value>,
    /// An object's properties, as the catalog writes them (`{name: {type, description}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<serde_json::Value>,
}

/// A candidate API shown to the model. `Tool { name, ..Tool::default() }`
/// spells only the fields that matter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Unique within a task; what calls use.
    pub name: String,
    /// What the API does.
    #[serde(default)]
    pub description: String,
    /// Category such as `Weather` or `Finance`.
    #[serde(default)]
    pub category: String,
    /// ISO 3166-1 alpha-2 code, or `GLOBAL`.
    #[serde(default)]
    pub country: String,
    /// HTTP method, when known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub method: String,
    /// Endpoint URL, when known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// Parameters a call must give.
    #[serde(default)]
    pub required_parameters: Vec<Parameter>,
    /// Parameters a call may give.
    #[serde(default)]
    pub optional_parameters: Vec<Parameter>,
}

/// The kind of a task (SPEC §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// One call to one tool.
    Single,
    /// The same tool called several times with different arguments.
    Repeated,
    /// Several different tools called independently.
    Parallel,
    /// Later calls use earlier calls' outputs.
    Nested,
    /// No suitable tool, or a required parameter is missing: no call is right.
    NoTool,
}

impl TaskKind {
    /// Every kind, in table order.
    pub const ALL: [TaskKind; 5] = [
        TaskKind::Single,
        TaskKind::Repeated,
        TaskKind::Parallel,
        TaskKind::Nested,
        TaskKind::NoTool,
    ];

    /// The name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Single => "single",
            TaskKind::Repeated => "repeated",
            TaskKind::Parallel => "parallel",
            TaskKind::Nested => "nested",
            TaskKind::NoTool => "no_tool",
        }
    }

    /// The kind of calls without references to one another (SPEC §0): none
    /// `no_tool`, one `single`, several of one tool `repeated`, of several
    /// tools `parallel`.
    pub fn of_calls(calls: &[Call]) -> TaskKind {
        match calls {
            [] => TaskKind::NoTool,
            [_] => TaskKind::Single,
            [first, rest @ ..] if rest.iter().all(|c| c.name == first.name) => TaskKind::Repeated,
            _ => TaskKind::Parallel,
        }
    }

    /// Reads a task kind name (`single`, `no_tool`, …; spaces around it ignored).
    pub fn from_name(name: &str) -> anyhow::Result<TaskKind> {
        TaskKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = TaskKind::ALL.iter().map(|k| k.as_str()).collect();
                anyhow::anyhow!("unknown task kind `{name}` (kinds: {})", names.join(", "))
            })
    }
}

impl fmt::Display for TaskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reference answer of a task.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Gold {
    /// The reasoning a good answer gives; its placeholder words count as references.
    #[serde(default)]
    pub thought: String,
    /// The calls a correct answer makes; empty for `no_tool`.
    #[serde(default)]
    pub calls: Vec<Call>,
    /// The source benchmark's own reference, as its official checker reads
    /// it, when that needs more than `calls` (BFCL: the category, the
    /// function docs and every allowed value); kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official: Option<serde_json::Value>,
}

/// One step of a nested task: its gold calls and the outputs shown afterwards.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Turn {
    /// Gold calls of this step.
    #[serde(default)]
    pub calls: Vec<Call>,
    /// Recorded tool outputs the model sees before the next step.
    #[serde(default)]
    pub tool_outputs: Vec<serde_json::Value>,
}

/// A benchmark item: a query, its candidate tools and the gold answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Unique id within a task file.
    pub id: String,
    /// Task kind.
    pub kind: TaskKind,
    /// ISO 639-1 code of the language the answer must use.
    pub language: String,
    /// ISO 3166-1 alpha-2 code or `GLOBAL`.
    #[serde(default)]
    pub country: String,
    /// Category of the gold API.
    #[serde(default)]
    pub category: String,
    /// The user request.
    pub query: String,
    /// Candidate tools shown to the model.
    pub tools: Vec<Tool>,
    /// Reference answer.
    pub gold: Gold,
    /// Steps of a nested task, when recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<Turn>,
}

/// The rule for a task file whose ids repeat, the same in every command
/// that reads one (`itc eval`, `itc score`, `itc judge`): the first task of
/// each id is kept, in file order, and the later ones are skipped and named
/// in a warning ([`repeated_ids_note`]), so every command counts the same
/// tasks. Returns the kept tasks and the skipped ones' ids, in order.
pub fn first_of_each_id(tasks: Vec<Task>) -> (Vec<Task>, Vec<String>) {
    let mut seen = std::collections::HashSet::with_capacity(tasks.len());
    let mut repeated = Vec::new();
    let kept = tasks
        .into_iter()
        .filter_map(|task| {
            if seen.contains(task.id.as_str()) {
                repeated.push(task.id);
                return None;
            }
            seen.insert(task.id.clone());
            Some(task)
        })
        .collect();
    (kept, repeated)
}

/// The warning of [`first_of_each_id`]: how many tasks of `source` were
/// skipped, and the first ten of their ids.
pub fn repeated_ids_note(source: &str, repeated: &[String]) -> String {
    const NAMED: usize = 10;
    let mut ids: Vec<String> = repeated
        .iter()
        .take(NAMED)
        .map(|id| format!("{id:?}"))
        .collect();
    if repeated.len() > NAMED {
        ids.push("…".into());
    }
    format!(
        "warning: {} task(s) of {source} repeat an earlier task's id and are skipped (the first \
         of each id is kept): {}",
        repeated.len(),
        ids.join(", ")
    )
}

/// Token counts reported by a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the request.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    #[serde(default)]
    pub completion_tokens: u64,
}

/// One step of a step-by-step answer (SPEC §6): what the model answered,
/// and the tool outputs it was shown after it, one per call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Step {
    /// Raw text of this step's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// This step's native calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<Call>>,
    /// The output shown for each call of the step, in call order.
    #[serde(default)]
    pub tool_outputs: Vec<serde_json::Value>,
    /// In runs that execute tools (SPEC §7): per call, the HTTP status its
    /// endpoint answered, 0 when none answered (not allowed, unreachable,
    /// not in the cassette). Empty in other runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_status: Vec<u16>,
    /// In a solver's run (SPEC §8): the index in `steps` of the step this
    /// one continues; absent for the first step of a conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// In a solver's run: why this step's request got no answer (after its
    /// retries); the search went on without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The step-by-step figures of one task (SPEC §6): each step's calls
/// against the same gold step, a missing or extra step scoring 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct StepFigures {
    /// Steps compared: the larger of the gold's and the answer's.
    pub steps: u32,
    /// Mean over the steps of the step's selection F1.
    pub selection_f1: f64,
    /// Mean over the steps of the step's invocation F1.
    pub invocation_f1: f64,
    /// The mean of the two: the task's `step_f1`.
    pub step_f1: f64,
    /// In runs that execute tools (SPEC §7): how many calls were made and
    /// how many executed (their endpoint answered 2xx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Execution>,
}

/// Executed calls of one task (SPEC §7), reported beside §3's scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Execution {
    /// Calls the answer made (with a status recorded).
    pub calls: u32,
    /// Calls whose endpoint answered 2xx.
    pub executed: u32,
}

impl Execution {
    /// The task executes: it made calls and all of them executed.
    pub fn task_executed(&self) -> bool {
        self.calls > 0 && self.executed == self.calls
    }
}

/// One model's answer to one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Id of the task answered.
    pub task_id: String,
    /// Name of the model that answered.
    pub model: String,
    /// Raw text of the response.
    #[serde(default)]
    pub output: Option<String>,
    /// Calls made through native function calling.
    #[serde(default)]
    pub calls: Option<Vec<Call>>,
    /// Why no answer was obtained, after retries.
    #[serde(default)]
    pub error: Option<String>,
    /// Reasoning text the model gave apart from its answer (`<think>` blocks,
    /// `reasoning_content`); never scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Wall time of the request, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A step-by-step answer (SPEC §6), every step kept; `output` and
    /// `calls` are then unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<Step>>,
    /// The solver that made `steps` (SPEC §8), its limits and chosen path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverRecord>,
    /// Class of the error when `error` is set (`timeout`, `rate_limited`,
    /// `server`, `client`, `connection`, `incomplete_body`,
    /// `invalid_response`, `internal`), as written by `itc eval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// Requests sent for this answer (retries included; 0 when it came from
    /// the response cache or the offline baseline), as written by `itc eval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The answer as the benchmark's own result file holds it, when the
    /// benchmark asked the model itself (BFCL's `result`: a text, a list
    /// of `{name: arguments}`, or a multi-turn entry's turns of steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official: Option<serde_json::Value>,
}

/// How a step-by-step task was searched (SPEC §8; [`crate::spec::solver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// One conversation, started again after a give-up (ReAct, "CoT@n").
    Chain,
    /// ToolBench's depth-first search decision tree.
    Dfsdt,
}

impl SolverKind {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            SolverKind::Chain => "chain",
            SolverKind::Dfsdt => "dfsdt",
        }
    }
}

/// How a solver's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// An answer that makes no call.
    Answer,
    /// A `Finish` call giving an answer.
    Finish,
    /// A `Finish` call giving up, with no try left.
    GaveUp,
    /// The depth limit (or the run's step limit) was reached.
    DepthLimit,
    /// The task's model requests ran out.
    RequestLimit,
    /// A request failed after its retries.
    Error,
}

impl Ending {
    /// The run ended with a final answer (SPEC §8 pass rate, rule 1).
    pub fn answered(self) -> bool {
        matches!(self, Ending::Answer | Ending::Finish)
    }
}

/// The solver and limits of one prediction, and the path it chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolverRecord {
    /// The search.
    pub kind: SolverKind,
    /// Chain: the most conversations (the `n` of CoT@n); DFSDT: 1.
    pub tries: u32,
    /// The depth limit.
    pub max_depth: u32,
    /// The most model requests of the task.
    pub max_requests: u32,
    /// The finish protocol was on.
    pub finish: bool,
    /// Model requests made (one per step; retries not counted).
    pub requests: u32,
    /// Indexes into `steps` of the chosen path, root first: the answer's
    /// conversation, or the last one tried when none answered.
    pub path: Vec<usize>,
    /// How the run ended.
    pub ending: Ending,
}

/// An argument value, as written in an action string or a JSON call.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` / `None`.
    Null,
    /// `true` / `false` / `True` / `False`.
    Bool(bool),
    /// An integer literal that fits in 64 bits.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A quoted string.
    Str(String),
    /// A bare word (lenient mode only), read as a string when compared.
    Word(String),
    /// `[a, b]`.
    List(Vec<Value>),
    /// `(a, b)`; compares like a list.
    Tuple(Vec<Value>),
    /// `{k: v}`; keys kept in order.
    Dict(Vec<(String, Value)>),
    /// A gold reference to an earlier call's output.
    Ref(Reference),
}

impl Value {
    /// The text of a string-like value (quoted string or bare word).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Str(s) | Value::Word(s) => Some(s),
            _ => None,
        }
    }
}

/// One call: a tool name and its arguments, in order.
///
/// Positional arguments (lenient parsing) carry the keys `#0`, `#1`, ….
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Call {
    /// Tool name.
    pub name: String,
    /// Arguments in the order written.
    pub arguments: Vec<(String, Value)>,
}

impl Call {
    /// A call with the given name and arguments.
    pub fn new(name: impl Into<String>, arguments: Vec<(String, Value)>) -> Call {
        Call {
            name: name.into(),
            arguments,
        }
    }
}

/// How a response was read (see [`crate::spec::response`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extraction {
    /// The response met the strict format.
    Strict,
    /// The Action of a JSON object found in the text.
    JsonObject,
    /// A bracketed call list found in the text.
    CallList,
    /// Bare `name(...)` calls found in the text.
    BareCalls,
    /// Native function-calling output.
    Native,
    /// Nothing that reads as calls: scored as an empty answer.
    Nothing,
    /// No answer was obtained (the prediction carries an error).
    Error,
    /// No prediction exists for the task.
    Missing,
}

impl Extraction {
    /// Every way, in this order.
    pub const ALL: [Extraction; 8] = [
        Extraction::Strict,
        Extraction::JsonObject,
        Extraction::CallList,
        Extraction::BareCalls,
        Extraction::Native,
        Extraction::Nothing,
        Extraction::Error,
        Extraction::Missing,
    ];

    /// The name in files (as in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Extraction::Strict => "strict",
            Extraction::JsonObject => "json_object",
            Extraction::CallList => "call_list",
            Extraction::BareCalls => "bare_calls",
            Extraction::Native => "native",
            Extraction::Nothing => "nothing",
            Extraction::Error => "error",
            Extraction::Missing => "missing",
        }
    }
}

/// Outcome of the language check of one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageOutcome {
    /// Detected language equals the task's, with a reliable guess.
    Match,
    /// Detected language equals the task's; the detector flagged the guess unreliable.
    MatchUnreliable,
    /// Detected another language.
    Mismatch,
    /// Detected another language; the guess was flagged unreliable.
    MismatchUnreliable,
    /// No language could be detected at all: a mismatch, counted apart.
    Undetectable,
}

impl LanguageOutcome {
    /// Every outcome, in this order.
    pub const ALL: [LanguageOutcome; 5] = [
        LanguageOutcome::Match,
        LanguageOutcome::MatchUnreliable,
        LanguageOutcome::Mismatch,
        LanguageOutcome::MismatchUnreliable,
        LanguageOutcome::Undetectable,
    ];

    /// The name in files (as in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            LanguageOutcome::Match => "match",
            LanguageOutcome::MatchUnreliable => "match_unreliable",
            LanguageOutcome::Mismatch => "mismatch",
            LanguageOutcome::MismatchUnreliable => "mismatch_unreliable",
            LanguageOutcome::Undetectable => "undetectable",
        }
    }

    /// Whether this counts as a language match.
    pub fn is_match(self) -> bool {
        matches!(
            self,
            LanguageOutcome::Match | LanguageOutcome::MatchUnreliable
        )
    }

    /// Whether the detector flagged its guess as unreliable.
    pub fn is_unreliable(self) -> bool {
        matches!(
            self,
            LanguageOutcome::MatchUnreliable | LanguageOutcome::MismatchUnreliable
        )
    }
}

/// Precision, recall and F1 of one task or one aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Prf {
    /// Precision in `[0, 1]`.
    pub p: f64,
    /// Recall in `[0, 1]`.
    pub r: f64,
    /// F1 in `[0, 1]`.
    pub f1: f64,
}

/// Pooled counts behind one task's metrics and the error analysis (SPEC §3–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    /// Selection: names shared by gold and prediction (multiset).
    pub sel_tp: u32,
    /// Selection: predicted calls.
    pub sel_pred: u32,
    /// Selection: gold calls.
    pub sel_gold: u32,
    /// Invocation: triples shared by aligned pairs.
    pub inv_tp: u32,
    /// Invocation: predicted triples.
    pub inv_pred: u32,
    /// Invocation: gold triples.
    pub inv_gold: u32,
    /// Predicted names not among the candidates.
    pub hall: u32,
    /// Gold names left unmatched.
    pub mis: u32,
    /// Predicted names among the candidates beyond what the gold needs.
    pub ex: u32,
    /// Parameters in both calls of an aligned pair with different values.
    pub incor: u32,
    /// Gold parameters absent from the aligned prediction.
    pub miss: u32,
    /// Predicted parameters absent from the aligned gold call.
    pub ext: u32,
}

/// The score of one prediction for one task. `S` is the string type:
/// `String` when read back, `&str` when written from an evaluation (the
/// same JSON either way, without copying six strings per row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskScore<S = String> {
    /// Task id.
    pub task_id: S,
    /// Model name.
    pub model: S,
    /// Task kind.
    pub kind: TaskKind,
    /// Task language.
    pub language: S,
    /// Task country.
    pub country: S,
    /// Task category.
    pub category: S,
    /// Whether the response met the strict format (FM).
    pub format_match: bool,
    /// Language check outcome (LM).
    pub language_outcome: LanguageOutcome,
    /// Detected language (ISO 639-1 where one exists), if any.
    pub detected_language: Option<S>,
    /// How the calls were read.
    pub extraction: Extraction,
    /// Tool selection P/R/F1.
    pub selection: Prf,
    /// Tool invocation P/R/F1.
    pub invocation: Prf,
    /// Counts behind the metrics.
    pub counts: Counts,
    /// The limits of [`crate::spec::limits`] that reading the answer reached
    /// (absent when it reached none).
    #[serde(default, skip_serializing_if = "ReadLimits::is_clear")]
    pub read_limits: ReadLimits,
    /// The step-by-step figures, for an answer given in steps (SPEC §6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<StepFigures>,
}

// ---------------------------------------------------------------------------
// JSON form of values and calls.
//
// Hand-written rather than derived: calls keep their argument order, gold
// references `{"$ref": …}` become `Value::Ref`, and native calls may carry
// their arguments as a JSON-encoded string (as OpenAI's `tool_calls` do).

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(x) => s.serialize_f64(*x),
            Value::Str(t) | Value::Word(t) => s.serialize_str(t),
            Value::List(items) | Value::Tuple(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Dict(entries) => serialize_entries(entries, s),
            Value::Ref(r) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("$ref", &r.to_string())?;
                map.end()
            }
        }
    }
}

fn serialize_entries<S: Serializer>(entries: &[(String, Value)], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

/// Reads a [`Value`] whose containers sit at nesting level `depth`; a
/// container deeper than [`MAX_NESTING`] is an error (see
/// [`crate::spec::limits`]), so that no JSON, however deep, makes a value
/// that later recursion could not handle.
#[derive(Clone, Copy)]
struct ValueSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed {
    fn open<E: de::Error>(self) -> Result<ValueSeed, E> {
        if self.depth > MAX_NESTING {
            return Err(E::custom(format_args!("too deep: expected {TOO_DEEP}")));
        }
        Ok(ValueSeed {
            depth: self.depth + 1,
        })
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(i64::try_from(u).map_or(Value::Float(u as f64), Value::Int))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Float(x))
    }
    fn visit_str<E>(self, t: &str) -> Result<Value, E> {
        Ok(Value::Str(t.to_string()))
    }
    fn visit_string<E>(self, t: String) -> Result<Value, E> {
        Ok(Value::Str(t))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        let mut entries: Vec<(String, Value)> = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(inner)?;
            entries.push((k, v));
        }
        if let [(key, Value::Str(target))] = entries.as_slice()
            && key == "$ref"
            && let Some(r) = Reference::parse(target)
        {
            return Ok(Value::Ref(r));
        }
        Ok(Value::Dict(entries))
    }
}

/// A JSON text (or any serde input) read as a value: the value itself is
/// level 0, the containers inside it levels 1 to [`MAX_NESTING`].
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        ValueSeed { depth: 0 }.deserialize(d)
    }
}

impl Serialize for Call {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Args<'a>(&'a [(String, Value)]);
        impl Serialize for Args<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serialize_entries(self.0, s)
            }
        }
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("arguments", &Args(&self.arguments))?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Call, D::Error> {
        #[derive(Deserialize)]
        struct RawCall {
            name: String,
            #[serde(default)]
            arguments: Option<Value>,
        }
        let raw = RawCall::deserialize(d)?;
        let arguments = match raw.arguments {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Dict(entries)) => entries,
            // OpenAI-style native calls carry their arguments as a JSON string.
            Some(Value::Str(text)) if text.trim().is_empty() => Vec::new(),
            Some(Value::Str(text)) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Dict(entries)) => entries,
                _ => {
                    return Err(de::Error::custom(
                        "`arguments` string does not hold a JSON object",
                    ));
                }
            },
            Some(_) => return Err(de::Error::custom("`arguments` must be a JSON object")),
        };
        Ok(Call {
            name: raw.name,
            arguments,
        })
    }
}

/// Where a record made by an LLM came from: which stage and model wrote
/// it, a SHA-256 of the prompt it was given, and the raw reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// The stage: `generate`, `judge`, `answer` or `check`.
    pub stage: String,
    /// The model's name.
    pub model: String,
    /// SHA-256 (hex) of the rendered prompt (system and user messages).
    pub prompt_sha256: String,
    /// The model's reply, as received.
    pub raw: String,
}

/// A query written by the generator (`itc generate`), validated but not
/// yet judged. It becomes a [`Task`] once it has a gold answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedQuery {
    /// Unique and stable across re-runs (derived from the APIs, kind and position).
    pub id: String,
    /// The kind of task the query was written for.
    pub kind: TaskKind,
    /// ISO 639-1 code of the language the query is written in.
    pub language: String,
    /// Country of the (first) target API, or `GLOBAL`.
    pub country: String,
    /// Category of the (first) target API.
    pub category: String,
    /// The user request.
    pub query: String,
    /// Names of the sampled APIs the query is meant to use, in call order.
    pub apis: Vec<String>,
    /// The candidate tools a model will be shown: the target APIs and their
    /// distractors, shuffled.
    pub tools: Vec<Tool>,
    /// For a `no_tool` query: why no call answers it, as the generator
    /// planned it (absent for the other kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_tool: Option<NoToolPlan>,
    /// How the generator was asked, and its raw reply.
    pub provenance: Provenance,
}

/// Why a generated `no_tool` query has no gold call: the two ways a
/// request can defeat the candidate tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "variant", rename_all = "snake_case")]
pub enum NoToolPlan {
    /// The request looks like a job for the target API, but no candidate
    /// tool can serve it.
    Unservable {
        /// Why none of the candidates serves it, in the generator's words.
        reason: String,
    },
    /// The request is for the target API but leaves out the value of one
    /// of its required parameters.
    MissingParameter {
        /// The required parameter whose value the request leaves out.
        parameter: String,
        /// The value the generator had in mind and kept out of the request.
        withheld: serde_json::Value,
    },
}

/// The five 1–5 scores a judge gives a query (ITC §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeScores {
    /// The query fits what the target APIs do.
    pub relevance: f64,
    /// The query is unambiguous and easy to understand.
    pub clarity: f64,
    /// The query gives the concrete details the calls need.
    pub specificity: f64,
    /// A real user could plausibly ask it.
    pub practicality: f64,
    /// The query is natural in its target language.
    pub language: f64,
}

/// One judge's verdict on one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The judge model's name.
    pub judge: String,
    /// The five scores.
    pub scores: JudgeScores,
    /// The overall 1–5 score the judge gave (the mean of the five when it gave none).
    pub total: f64,
    /// How the judge was asked, and its raw reply.
    pub provenance: Provenance,
}

/// A query with its judges' verdicts (`itc filter`): kept, or rejected with a reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedQuery {
    /// The query.
    #[serde(flatten)]
    pub query: GeneratedQuery,
    /// One verdict per judge that answered.
    pub judgements: Vec<Judgement>,
    /// Whether the keep rule accepted it.
    pub kept: bool,
    /// Why it was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_task_of_each_id_is_kept_and_the_others_named() {
        let task = |id: &str, query: &str| -> Task {
            serde_json::from_value(serde_json::json!({
                "id": id, "kind": "single", "language": "en", "query": query,
                "tools": [], "gold": {"calls": []}
            }))
            .unwrap()
        };
        let tasks = vec![
            task("a", "first"),
            task("b", "b"),
            task("a", "second"),
            task("c", "c"),
            task("a", "third"),
        ];
        let (kept, repeated) = first_of_each_id(tasks);
        let kept: Vec<(&str, &str)> = kept
            .iter()
            .map(|t| (t.id.as_str(), t.query.as_str()))
            .collect();
        assert_eq!(kept, [("a", "first"), ("b", "b"), ("c", "c")]);
        assert_eq!(repeated, ["a", "a"]);
        let note = repeated_ids_note("f.jsonl", &repeated);
        assert!(
            note.contains("2 task(s) of f.jsonl") && note.ends_with("\"a\", \"a\""),
            "{note}"
        );
        let many: Vec<String> = (0..12).map(|i| format!("x{i}")).collect();
        let note = repeated_ids_note("f", &many);
        assert!(
            note.contains("\"x9\", …") && !note.contains("x10"),
            "{note}"
        );
        // Ids are quoted escaped, never echoed raw.
        assert!(repeated_ids_note("f", &["\u{1b}[2J".into()]).contains("\\u{1b}"));
    }

    #[test]
    fn file_names_of_outcomes_are_their_json_names() {
        for e in Extraction::ALL {
            assert_eq!(serde_json::to_value(e).unwrap(), e.as_str());
        }
        for l in LanguageOutcome::ALL {
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
        }
    }

    #[test]
    fn gold_reference_reads_as_ref_and_writes_back() {
        let call: Call = serde_json::from_str(
            r#"{"name":"login","arguments":{"token":{"$ref":"0.password"},"n":2}}"#,
        )
        .unwrap();
        assert_eq!(
            call.arguments[0].1,
            Value::Ref(Reference {
                call: 0,
                field: "password".into()
            })
        );
        assert_eq!(call.arguments[1].1, Value::Int(2));
        let back = serde_json::to_string(&call).unwrap();
        assert_eq!(
            back,
            r#"{"name":"login","arguments":{"token":{"$ref":"0.password"},"n":2}}"#
        );
    }

    #[test]
    fn argument_order_is_kept() {
        let call: Call =
            serde_json::from_str(r#"{"name":"f","arguments":{"z":1,"a":2,"m":3}}"#).unwrap();
        let keys: Vec<_> = call.arguments.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn native_arguments_as_json_string_are_decoded() {
        let call: Call =
            serde_json::from_str(r#"{"name":"f","arguments":"{\"city\":\"Oslo\"}"}"#).unwrap();
        assert_eq!(
            call.arguments,
            vec![("city".into(), Value::Str("Oslo".into()))]
        );
        let bad = serde_json::from_str::<Call>(r#"{"name":"f","arguments":"[1]"}"#);
        assert!(bad.is_err());
    }

    #[test]
    fn task_with_only_spec_fields_reads() {
        let line = r#"{"id":"t1","kind":"no_tool","language":"en","query":"q","tools":[{"name":"a"}],"gold":{"calls":[]}}"#;
        let task: Task = serde_json::from_str(line).unwrap();
        assert_eq!(task.kind, TaskKind::NoTool);
        assert!(task.gold.calls.is_empty());
        assert!(serde_json::from_str::<Task>(&line.replace("no_tool", "weird")).is_err());
    }

    fn nested_json(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn json_values_nest_to_the_limit_and_no_further() {
        use crate::spec::limits::{MAX_NESTING, TOO_DEEP};
        // An argument's value is level 1 (the arguments object is level 0).
        let ok = format!(
            r#"{{"name":"f","arguments":{{"a":{}}}}}"#,
            nested_json(MAX_NESTING)
        );
        let call: Call = serde_json::from_str(&ok).unwrap();
        assert_eq!(call.arguments.len(), 1);
        let deep = ok.replace("\"a\":[", "\"a\":[[").replace("]}}", "]]}}");
        let e = serde_json::from_str::<Call>(&deep).unwrap_err();
        assert!(e.to_string().contains(TOO_DEEP), "{e}");
        // The same inside an OpenAI-style arguments string.
        let text = serde_json::to_string(&format!("{{\"a\":{}}}", nested_json(MAX_NESTING + 1)));
        let e = serde_json::from_str::<Call>(&format!(
            r#"{{"name":"f","arguments":{}}}"#,
            text.unwrap()
        ));
        assert!(e.is_err());
        let e = serde_json::from_str::<Value>(&nested_json(100_000)).unwrap_err();
        assert!(e.to_string().contains(TOO_DEEP), "{e}");
        // Elsewhere serde_json's own limit (128) refuses far deeper input; it
        // must stay on (no `unbounded_depth`). Ignored fields are skipped
        // without recursion, at any depth.
        let e = serde_json::from_str::<serde_json::Value>(&nested_json(100_000)).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
        let line = format!(
            r#"{{"task_id":"t","model":"m","output":"x","extra":{}}}"#,
            nested_json(100_000)
        );
        let read: Prediction = serde_json::from_str(&line).unwrap();
        assert_eq!(read.output.as_deref(), Some("x"));
    }

    #[test]
    fn a_prediction_at_the_limit_reads_back_after_writing() {
        // What `itc eval` writes must read back (for --resume): the deepest
        // arguments a reader accepts stay well under serde_json's limit.
        let mut v = Value::Int(1);
        for _ in 0..crate::spec::limits::MAX_NESTING {
            v = Value::List(vec![v]);
        }
        let prediction = Prediction {
            task_id: "t".into(),
            model: "m".into(),
            output: None,
            calls: Some(vec![Call::new("f", vec![("a".into(), v)])]),
            error: None,
            reasoning: None,
            latency_ms: None,
            usage: None,
            steps: None,
            solver: None,
            error_kind: None,
            attempts: None,
            official: None,
        };
        let line = serde_json::to_string(&prediction).unwrap();
        let back: Prediction = serde_json::from_str(&line).unwrap();
        assert_eq!(back, prediction);
    }
}
