//! The conversation of each τ³-bench trial for the report's page: who said
//! what (user and agent turns, tool calls and their outputs) and how the
//! official evaluator rewarded it (DB check, basis components, gold-action,
//! communicate and NL checks).
//!
//! An input is a τ³-bench run when its `official.json` says `"benchmark":
//! "tau"`; each of its models (`results[].model`) names the folder of its
//! verdicts (`results[].folder`: `official/<folder>.per_item.jsonl`, one
//! line per trial), and the run's `predictions.jsonl` holds each trial's
//! conversation (a prediction's `official.messages`). The files are read as
//! plain JSON, a line at a time (the report does not depend on the code that
//! wrote them); one that is missing or cannot be read is named in a note and
//! what it would have shown is left out, the rest of the report unchanged.
//!
//! A page shows at most `itc report --browser-rows` trials (each model's
//! first ones, as many for every model, at least one), and each message,
//! tool call and tool output at most [`RAW_CHARS`] characters.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::browser::{RAW_CHARS, tasks_shown};
use crate::spec::jsonl::{RecordError, describe_error, for_each_line};
use crate::util::bounded::{FirstFew, clip};

/// The τ³-bench trials a report shows, and how many there are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversations {
    /// The trials shown: by input, then by model as `official.json` lists
    /// them, then in the order of the model's verdicts.
    pub trials: Vec<TrialView>,
    /// Trials in the inputs (with a verdict line).
    pub total: usize,
    /// Trials shown at most, as asked (`--browser-rows`).
    pub max_rows: usize,
    /// What could not be read, one note each.
    pub notes: Vec<String>,
}

/// One trial: its verdict and its conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialView {
    /// The model, as named in the report.
    pub model: String,
    /// The official evaluator's verdict (`per_item.jsonl`).
    pub verdict: Verdict,
    /// The conversation, clipped; `None` when its prediction is not there.
    pub turns: Option<Vec<Turn>>,
    /// Why the trial failed (the prediction's `error`), clipped.
    pub error: Option<String>,
}

/// Where a trial's reward stands (`TrialStatus` of the verdict lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every component of the basis is known.
    Computed,
    /// NL assertions unjudged, but another component is 0: reward 0.
    ZeroWithoutNl,
    /// NL assertions unjudged, every other component 1: no reward yet.
    NeedsNlJudge,
    /// The official evaluator would raise: no reward.
    EvaluatorRaised,
}

impl Status {
    /// The words in the page.
    pub fn label(self) -> &'static str {
        match self {
            Status::Computed => "computed",
            Status::ZeroWithoutNl => "0 without NL",
            Status::NeedsNlJudge => "needs NL judge",
            Status::EvaluatorRaised => "evaluator raised",
        }
    }
}

/// One line of `official/<folder>.per_item.jsonl`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Verdict {
    /// The trial's id in the run (the prediction's `task_id`).
    pub id: String,
    /// The τ task's id.
    pub task_id: String,
    /// The trial's number.
    pub trial: u64,
    /// Why the conversation ended.
    pub termination_reason: String,
    /// The reward (none while an NL judge is needed, or when the evaluator
    /// raised).
    #[serde(default)]
    pub reward: Option<f64>,
    /// The product of the basis components other than NL.
    #[serde(default)]
    pub reward_without_nl: Option<f64>,
    /// Where the reward stands.
    pub status: Status,
    /// Why the evaluator raised, or why the trial was not evaluated.
    #[serde(default)]
    pub note: Option<String>,
    /// The database check.
    #[serde(default)]
    pub db_check: Option<DbCheck>,
    /// Each basis component and its reward, in the official order.
    #[serde(default)]
    pub reward_breakdown: Option<Vec<(String, f64)>>,
    /// The gold actions' checks.
    #[serde(default)]
    pub action_checks: Option<Vec<ActionCheck>>,
    /// The `communicate_info` checks.
    #[serde(default)]
    pub communicate_checks: Option<Vec<Check>>,
    /// The NL judge's verdicts.
    #[serde(default)]
    pub nl_assertions: Option<Vec<Check>>,
    /// The NL judge asked.
    #[serde(default)]
    pub nl_judge: Option<String>,
}

/// The database check of a verdict.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DbCheck {
    /// The database ended as the gold actions leave it.
    pub db_match: bool,
    /// 1 or 0.
    pub db_reward: f64,
}

/// One gold action's check.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ActionCheck {
    /// The gold action.
    pub action: GoldAction,
    /// Some call of the agent matched it.
    pub action_match: bool,
}

/// A gold action, as a verdict line names it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoldAction {
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
}

/// A `communicate_info` string's check (`info`) or an NL assertion's
/// verdict (`nl_assertion`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Check {
    /// The string or the assertion.
    #[serde(rename = "info", alias = "nl_assertion")]
    pub text: String,
    /// Whether it was met.
    pub met: bool,
    /// Why, as the evaluator or the judge said.
    #[serde(default)]
    pub justification: String,
}

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The simulated customer.
    User,
    /// The agent, the model under test.
    Assistant,
    /// A tool's output.
    Tool,
    /// A system message.
    System,
    /// A role the official format does not have.
    Other,
}

impl Role {
    fn of(name: Option<&str>) -> Role {
        match name {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool") => Role::Tool,
            Some("system") => Role::System,
            _ => Role::Other,
        }
    }

    /// The word in the page (and its CSS class).
    pub fn label(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "agent",
            Role::Tool => "tool",
            Role::System => "system",
            Role::Other => "other",
        }
    }
}

/// One message of a conversation, clipped to [`RAW_CHARS`] characters.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Who speaks.
    pub role: Role,
    /// Its text (a tool's output), if any.
    pub text: Option<String>,
    /// Its tool calls, each `name(arguments JSON)`.
    pub calls: Vec<String>,
    /// A tool output that is an error.
    pub error: bool,
}

/// `name(arguments JSON)`, clipped to [`RAW_CHARS`] characters.
pub fn call_text(name: &str, arguments: &Value) -> String {
    clip(&format!("{name}({arguments})"), RAW_CHARS)
}

/// The turns of an official message list, in order (a message holding
/// several tool outputs gives a turn each).
fn turns(messages: &[Value]) -> Vec<Turn> {
    let mut out = Vec::with_capacity(messages.len());
    for m in messages {
        if let Some(list) = m["tool_messages"].as_array() {
            out.extend(turns(list));
            continue;
        }
        let text = match &m["content"] {
            Value::Null => None,
            Value::String(s) => Some(clip(s, RAW_CHARS)),
            other => Some(clip(&other.to_string(), RAW_CHARS)),
        };
        let calls = m["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| call_text(c["name"].as_str().unwrap_or("?"), &c["arguments"]))
            .collect();
        out.push(Turn {
            role: Role::of(m["role"].as_str()),
            text,
            calls,
            error: m["error"].as_bool().unwrap_or(false),
        });
    }
    out
}

/// One τ³-bench model of an input: its name in the run and its folder.
struct TauModel {
    input: usize,
    model: String,
    folder: String,
}

/// The τ³-bench trials of the inputs (`dirs`, with `rename` giving each
/// input's model names in the report), at most `max_rows` of them (each
/// model's first ones). What cannot be read goes to `notes` (and to the
/// result's).
pub fn read(
    dirs: &[&Path],
    rename: &[HashMap<String, String>],
    max_rows: usize,
    notes: &mut Vec<String>,
) -> Conversations {
    let mut own = Vec::new();
    let models = tau_models(dirs, &mut own);
    let mut out = Conversations {
        max_rows,
        ..Conversations::default()
    };
    // As many trials for every model, as the task browser shows tasks.
    let each = tasks_shown(usize::MAX, models.len(), max_rows);
    for m in &models {
        let path = dirs[m.input]
            .join("official")
            .join(format!("{}.per_item.jsonl", m.folder));
        let name = rename[m.input].get(&m.model).unwrap_or(&m.model);
        let (shown, total) = verdicts(&path, each, &mut own);
        out.total += total;
        out.trials
            .extend(shown.into_iter().map(|verdict| TrialView {
                model: name.clone(),
                verdict,
                turns: None,
                error: None,
            }));
    }
    for (input, dir) in dirs.iter().enumerate() {
        let wanted: HashMap<(&str, &str), usize> = models
            .iter()
            .filter(|m| m.input == input)
            .flat_map(|m| {
                let name = rename[input].get(&m.model).unwrap_or(&m.model);
                out.trials
                    .iter()
                    .enumerate()
                    .filter(move |(_, t)| &t.model == name)
                    .map(|(i, t)| ((m.model.as_str(), t.verdict.id.as_str()), i))
            })
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let found = conversations(&dir.join("predictions.jsonl"), &wanted, &mut own);
        for (i, (turns, error)) in found {
            out.trials[i].turns = turns;
            out.trials[i].error = error;
        }
    }
    notes.extend(own.iter().cloned());
    out.notes = own;
    out
}

/// The τ³-bench models of the inputs, as their `official.json` lists them.
fn tau_models(dirs: &[&Path], notes: &mut Vec<String>) -> Vec<TauModel> {
    let mut models = Vec::new();
    for (input, dir) in dirs.iter().enumerate() {
        let path = dir.join("official.json");
        if !path.is_file() {
            continue;
        }
        let official = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
        let official = match official {
            Ok(o) if o["benchmark"] == "tau" => o,
            Ok(_) => continue,
            Err(e) => {
                notes.push(format!(
                    "note: {} left out of the τ³-bench conversations: {e}",
                    path.display()
                ));
                continue;
            }
        };
        for (i, r) in official["results"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let (Some(model), Some(folder)) = (r["model"].as_str(), r["folder"].as_str()) else {
                notes.push(format!(
                    "note: {}: field `results[{i}]`: no `model` and `folder`; its τ³-bench conversations are left out",
                    path.display()
                ));
                continue;
            };
            if !plain_name(folder) {
                notes.push(format!(
                    "note: {}: field `results[{i}].folder`: {folder:?} is not a file name; its τ³-bench conversations are left out",
                    path.display()
                ));
                continue;
            }
            models.push(TauModel {
                input,
                model: model.to_string(),
                folder: folder.to_string(),
            });
        }
    }
    models
}

/// A name that stays inside the folder it is joined to.
fn plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// The first `keep` verdicts of a per-item file and how many it holds; a
/// line that cannot be read is left out and named in a note.
fn verdicts(path: &Path, keep: usize, notes: &mut Vec<String>) -> (Vec<Verdict>, usize) {
    let mut shown = Vec::new();
    let mut total = 0;
    let mut bad = FirstFew::new();
    let read = for_each_line(path, |number, line| {
        if shown.len() >= keep {
            total += 1;
            return Ok(());
        }
        match serde_json::from_str::<Verdict>(line) {
            Ok(v) => {
                total += 1;
                shown.push(v);
            }
            Err(_) => bad.push(describe_error::<Verdict>(path, number, line)),
        }
        Ok(())
    });
    note_unread(read, &bad, "verdict", notes);
    (shown, total)
}

/// The model and trial of a prediction line, read before the rest.
#[derive(Deserialize)]
struct PredictionKey {
    task_id: String,
    model: String,
}

/// What a trial's prediction gives the page.
#[derive(Deserialize)]
struct PredictionConversation {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    official: Option<Value>,
}

/// A trial's turns (`None`: no conversation recorded) and error.
type Found = (Option<Vec<Turn>>, Option<String>);

/// The conversations of the `wanted` (model, trial id) pairs, by their
/// place among the trials, from a predictions file read a line at a time
/// (the first prediction of a pair counts, as in scoring).
fn conversations(
    path: &Path,
    wanted: &HashMap<(&str, &str), usize>,
    notes: &mut Vec<String>,
) -> HashMap<usize, Found> {
    let mut found = HashMap::new();
    let mut bad = FirstFew::new();
    let read = for_each_line(path, |number, line| {
        let Ok(key) = serde_json::from_str::<PredictionKey>(line) else {
            bad.push(describe_error::<PredictionKey>(path, number, line));
            return Ok(());
        };
        let Some(&place) = wanted.get(&(key.model.as_str(), key.task_id.as_str())) else {
            return Ok(());
        };
        if found.contains_key(&place) {
            return Ok(());
        }
        match serde_json::from_str::<PredictionConversation>(line) {
            Ok(p) => {
                let messages = p.official.as_ref().and_then(|o| o["messages"].as_array());
                found.insert(
                    place,
                    (
                        messages.map(|m| turns(m)),
                        p.error.map(|e| clip(&e, RAW_CHARS)),
                    ),
                );
            }
            Err(_) => bad.push(describe_error::<PredictionConversation>(path, number, line)),
        }
        Ok(())
    });
    note_unread(read, &bad, "prediction", notes);
    found
}

/// Notes on a file read for the conversations: why reading stopped (the
/// lines after are left out), and the `what` lines that could not be read.
fn note_unread(
    read: anyhow::Result<()>,
    bad: &FirstFew<RecordError>,
    what: &str,
    notes: &mut Vec<String>,
) {
    if let Err(e) = read {
        notes.push(format!(
            "note: {e:#}: the τ³-bench trials not read from it are left out of the conversations"
        ));
    }
    if !bad.is_empty() {
        let named: Vec<String> = bad.iter().map(ToString::to_string).collect();
        notes.push(format!(
            "note: {} {what} line(s) left out of the τ³-bench conversations: {}",
            bad.len(),
            named.join("; ")
        ));
    }
}

impl TrialView {
    /// Where its reward stands, in words: `reward 1`, `reward 0 (without
    /// NL)`, `needs NL judge`, `evaluator raised`.
    pub fn outcome(&self) -> String {
        let v = &self.verdict;
        match v.status {
            Status::NeedsNlJudge | Status::EvaluatorRaised => v.status.label().to_string(),
            Status::ZeroWithoutNl => format!("reward {} (without NL)", reward(v.reward)),
            Status::Computed => format!("reward {}", reward(v.reward)),
        }
    }
}

/// A reward as the page writes it: `1`, `0`, `0.333`; `–` when none.
pub fn reward(value: Option<f64>) -> String {
    match value {
        Some(r) if r.fract() == 0.0 => format!("{r:.0}"),
        Some(r) => format!("{r:.3}"),
        None => "–".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A verdict line as `itc eval` writes it, for trial `id`.
    fn verdict_line(id: &str, task: &str) -> Value {
        json!({"id": id, "task_id": task, "trial": 0, "termination_reason": "user_stop",
            "reward": null, "reward_without_nl": 1.0, "status": "needs_nl_judge", "note": null,
            "db_check": {"db_match": true, "db_reward": 1.0},
            "reward_breakdown": [["DB", 1.0], ["COMMUNICATE", 0.0]],
            "action_checks": [{"action": {"action_id": "0_0", "requestor": "assistant",
                "name": "get_user_details", "arguments": {"user_id": "u1"}, "info": null,
                "compare_args": null}, "action_match": false, "action_reward": 0.0, "tool_type": "read"}],
            "communicate_checks": [{"info": "10", "met": false, "justification": "not said"}],
            "nl_assertions": [{"nl_assertion": "agent refunds", "met": true, "justification": "it did"}],
            "nl_judge": "judge"})
    }

    #[test]
    fn a_verdict_line_is_read_with_its_checks() {
        let v: Verdict = serde_json::from_value(verdict_line("retail-3-t0", "3")).unwrap();
        assert_eq!((v.id.as_str(), v.task_id.as_str()), ("retail-3-t0", "3"));
        assert_eq!(v.status, Status::NeedsNlJudge);
        assert_eq!(v.db_check.as_ref().map(|d| d.db_match), Some(true));
        assert_eq!(
            v.reward_breakdown.as_deref(),
            Some(&[("DB".to_string(), 1.0), ("COMMUNICATE".to_string(), 0.0)][..])
        );
        let action = &v.action_checks.as_ref().unwrap()[0];
        assert!(!action.action_match);
        assert_eq!(
            call_text(&action.action.name, &action.action.arguments),
            r#"get_user_details({"user_id":"u1"})"#
        );
        assert_eq!(v.communicate_checks.as_ref().unwrap()[0].text, "10");
        let nl = &v.nl_assertions.as_ref().unwrap()[0];
        assert_eq!((nl.text.as_str(), nl.met), ("agent refunds", true));
        let trial = TrialView {
            model: "m".into(),
            verdict: v,
            turns: None,
            error: None,
        };
        assert_eq!(trial.outcome(), "needs NL judge");
        // A line of an unknown status is refused, naming the field.
        let mut bad = verdict_line("x", "1");
        bad["status"] = json!("maybe");
        let line = bad.to_string();
        let e = describe_error::<Verdict>(Path::new("v.jsonl"), 3, &line);
        assert_eq!((e.line, e.field.as_str()), (3, "status"), "{e}");
    }

    #[test]
    fn messages_become_turns_clipped() {
        let long = "é".repeat(RAW_CHARS + 10);
        let messages = vec![
            json!({"role": "assistant", "content": "Hi!", "tool_calls": null, "turn_idx": 0}),
            json!({"role": "user", "content": long, "tool_calls": null, "turn_idx": 1}),
            json!({"role": "assistant", "content": null, "turn_idx": 2, "tool_calls": [
                {"id": "c", "name": "find", "arguments": {"q": "x".repeat(RAW_CHARS)}, "requestor": "assistant"}]}),
            json!({"role": "tool", "tool_messages": [
                {"role": "tool", "id": "c", "content": "Error: no", "error": true, "turn_idx": 3},
                {"role": "tool", "id": "d", "content": "ok", "error": false, "turn_idx": 3}]}),
            json!({"role": "narrator", "content": 5}),
        ];
        let t = turns(&messages);
        let roles: Vec<Role> = t.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [Assistant, User, Assistant, Tool, Tool, Other]);
        let said = t[1].text.as_deref().unwrap();
        assert_eq!(said.chars().count(), RAW_CHARS + 1);
        assert!(said.ends_with('…'));
        assert_eq!(t[2].text, None);
        assert!(t[2].calls[0].starts_with("find({\"q\":\"xxx"));
        assert_eq!(t[2].calls[0].chars().count(), RAW_CHARS + 1);
        assert_eq!((t[3].error, t[4].error), (true, false));
        assert_eq!(t[5].text.as_deref(), Some("5"));
    }

    #[test]
    fn each_model_s_first_trials_are_read_and_what_cannot_be_read_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        std::fs::create_dir(run.join("official")).unwrap();
        let official = json!({"benchmark": "tau", "results": [
            {"model": "a", "folder": "a"}, {"model": "b", "folder": "b"},
            {"model": "c", "folder": "../c"}, {"model": "d", "folder": "d"}]});
        std::fs::write(run.join("official.json"), official.to_string()).unwrap();
        let lines = |ids: &[&str]| -> String {
            ids.iter()
                .map(|id| verdict_line(id, "0").to_string() + "\n")
                .collect()
        };
        std::fs::write(
            run.join("official/a.per_item.jsonl"),
            lines(&["retail-0-t0", "retail-1-t0", "retail-2-t0"]),
        )
        .unwrap();
        std::fs::write(
            run.join("official/b.per_item.jsonl"),
            "{not json\n".to_string() + &lines(&["retail-0-t0", "retail-1-t0"]),
        )
        .unwrap();
        let messages = json!([{"role": "user", "content": "<b>hi</b>", "turn_idx": 0}]);
        let predictions = [
            json!({"task_id": "retail-0-t0", "model": "a", "official": {"messages": messages}}),
            json!({"task_id": "retail-0-t0", "model": "a", "official": {"messages": []}}),
            json!({"task_id": "retail-0-t0", "model": "b", "error": "timeout"}),
        ];
        let text: String = predictions.iter().map(|p| p.to_string() + "\n").collect();
        std::fs::write(run.join("predictions.jsonl"), text + "[1]\n").unwrap();
        let rename = [HashMap::from([("a".to_string(), "a@run".to_string())])];
        let mut notes = Vec::new();
        // Three models read (c's folder refused, d's file missing): one trial each.
        let c = read(&[run], &rename, 3, &mut notes);
        assert_eq!(c.total, 5);
        let shown: Vec<(&str, &str)> = c
            .trials
            .iter()
            .map(|t| (t.model.as_str(), t.verdict.id.as_str()))
            .collect();
        assert_eq!(shown, [("a@run", "retail-0-t0"), ("b", "retail-0-t0")]);
        // The first prediction of a pair counts.
        let turns = c.trials[0].turns.as_ref().unwrap();
        assert_eq!(turns[0].text.as_deref(), Some("<b>hi</b>"));
        assert_eq!(
            (c.trials[1].turns.as_ref(), c.trials[1].error.as_deref()),
            (None, Some("timeout"))
        );
        assert_eq!(c.notes, notes);
        let all = notes.join("\n");
        for expected in [
            "field `results[2].folder`: \"../c\" is not a file name",
            "d.per_item.jsonl",
            "1 verdict line(s) left out",
            "b.per_item.jsonl:1: field `.`",
            "1 prediction line(s) left out",
            "predictions.jsonl:4:",
        ] {
            assert!(all.contains(expected), "{expected} not in {all}");
        }
        assert_eq!(notes.len(), 4, "{all}");
        // Not a τ³-bench run: nothing, no note.
        std::fs::write(run.join("official.json"), r#"{"benchmark": "bfcl"}"#).unwrap();
        let mut notes = Vec::new();
        assert_eq!(
            read(&[run], &rename, 3, &mut notes),
            Conversations {
                max_rows: 3,
                ..Conversations::default()
            }
        );
        assert!(notes.is_empty());
    }
}
