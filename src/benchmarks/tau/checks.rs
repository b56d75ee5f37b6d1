//! The official evaluator's checks and reward (`tau2.evaluator`, half-duplex
//! runs, evaluation type `ALL`), without the database: the caller gives the
//! DB component (the retail replay decides it) and, for tasks whose basis
//! holds `NL_ASSERTION` and that have assertions, the judge's verdicts.
//!
//! - Action check (`Action.compare_with_tool_call`): a gold action is
//!   matched when some tool call of an assistant *or user* message has the
//!   same name and equal arguments, compared on `compare_args`, or, when
//!   that is null, on the keys of the **call** (a call with a subset of the
//!   gold arguments, or with none, matches); `compare_args: []` matches any
//!   call of that name. Values compare as Python's `==` (`1 == 1.0 == True`).
//! - Communicate check: each `communicate_info` string, lowercased, must be
//!   a substring of some assistant text (not blank) lowercased with its
//!   commas removed (the string's own commas are kept).
//! - Only runs that ended `user_stop` or `agent_stop` are evaluated; any
//!   other scores 0 with no check.
//! - Reward: the product of the components named in `reward_basis`.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::format::{Action, Message, RewardType, Task, TerminationReason, ToolCall};
use crate::benchmarks::python::value::is_space_char as is_py_space;

/// A tool's kind, as `get_tool_types` reports it (only stored in the checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolType {
    /// Reads the database.
    Read,
    /// Changes the database.
    Write,
    /// Thinks aloud.
    Think,
    /// Anything else (`calculate`, `transfer_to_human_agents`).
    Generic,
}

/// The database component (`DBCheck`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DbCheck {
    /// The replayed trajectory's database equals the gold one.
    pub db_match: bool,
    /// 1 or 0.
    pub db_reward: f64,
}

/// One gold action's check (`ActionCheck`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionCheck {
    /// The gold action.
    pub action: Action,
    /// Some call matched it.
    pub action_match: bool,
    /// 1 or 0.
    pub action_reward: f64,
    /// The tool's kind, when the caller gave the domain's tool kinds.
    pub tool_type: Option<ToolType>,
}

/// One `communicate_info` string's check (`CommunicateCheck`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommunicateCheck {
    /// The string.
    pub info: String,
    /// Some assistant text contains it.
    pub met: bool,
    /// The official explanation text.
    pub justification: String,
}

/// One NL assertion's verdict (`NLAssertionCheck`), as the judge returned it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct NlAssertionCheck {
    /// The assertion, as the judge repeated it.
    pub nl_assertion: String,
    /// The judge's `metExpectation`.
    pub met: bool,
    /// The judge's reasoning.
    pub justification: String,
}

/// Whether the reward is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardStatus {
    /// Every component in the basis is known.
    Computed,
    /// NL assertions are unjudged, but another component is 0: the reward is 0.
    ZeroWithoutNl,
    /// NL assertions are unjudged and every other component is 1: no reward yet.
    NeedsNlJudge,
}

/// What the evaluator found (the fields of the official `RewardInfo` that
/// are reproduced, plus the reward's status).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewardInfo {
    /// The reward; `None` while an NL judge is needed.
    pub reward: Option<f64>,
    /// Whether the reward is known.
    pub status: RewardStatus,
    /// The product of the basis components other than `NL_ASSERTION`
    /// (`None` for runs not evaluated and tasks without criteria).
    pub reward_without_nl: Option<f64>,
    /// The database check.
    pub db_check: Option<DbCheck>,
    /// The gold actions' checks (`None` when the task has no gold action).
    pub action_checks: Option<Vec<ActionCheck>>,
    /// The `communicate_info` checks (`None` when the task has none).
    pub communicate_checks: Option<Vec<CommunicateCheck>>,
    /// The NL verdicts: `Some([])` when the basis holds `NL_ASSERTION` and the
    /// task has no assertion, `None` when not in the basis or not yet judged.
    pub nl_assertions: Option<Vec<NlAssertionCheck>>,
    /// The task's basis, as written (`None` for runs not evaluated).
    pub reward_basis: Option<Vec<RewardType>>,
    /// Each basis component's reward, in the official order (DB,
    /// ENV_ASSERTION, ACTION, NL_ASSERTION, COMMUNICATE; NL_ASSERTION
    /// absent while unjudged).
    pub reward_breakdown: Option<Vec<(RewardType, f64)>>,
    /// The official note of the early returns.
    pub note: Option<String>,
}

/// What the evaluator needs beyond the task and the conversation.
#[derive(Debug, Clone, Default)]
pub struct EvalInputs<'a> {
    /// The database after replaying the conversation's writes equals the
    /// database after replaying the gold actions (ignored when the task has
    /// neither gold actions nor environment assertions: then it is a match).
    pub db_match: bool,
    /// The judge's verdicts on the task's NL assertions; `None`: not judged.
    pub nl_verdicts: Option<&'a [NlAssertionCheck]>,
    /// The domain's tool kinds, stored in the action checks.
    pub tool_types: Option<&'a HashMap<String, ToolType>>,
}

/// Why a run cannot be scored here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The basis holds `ENV_ASSERTION` and the task has assertions: they
    /// need the domain's environment, which this evaluator does not run.
    #[error("task {0}: environment assertions in the reward basis are not supported")]
    EnvAssertions(String),
}

/// `evaluate_simulation` with evaluation type `ALL` on a half-duplex run.
pub fn evaluate(
    termination: TerminationReason,
    messages: &[Message],
    task: &Task,
    inputs: &EvalInputs<'_>,
) -> Result<RewardInfo, EvalError> {
    let early = |reward: f64, note: String| RewardInfo {
        reward: Some(reward),
        status: RewardStatus::Computed,
        reward_without_nl: None,
        db_check: None,
        action_checks: None,
        communicate_checks: None,
        nl_assertions: None,
        reward_basis: None,
        reward_breakdown: None,
        note: Some(note),
    };
    if !termination.is_evaluated() {
        let note = format!(
            "Simulation terminated prematurely. Termination reason: {}",
            termination.as_str()
        );
        return Ok(early(0.0, note));
    }
    let Some(criteria) = &task.evaluation_criteria else {
        return Ok(early(1.0, "No evaluation criteria".to_string()));
    };
    let basis = &criteria.reward_basis;
    let has = |t: RewardType| basis.contains(&t);
    let env_assertions = criteria.env_assertions.as_deref().unwrap_or(&[]);
    if has(RewardType::EnvAssertion) && !env_assertions.is_empty() {
        return Err(EvalError::EnvAssertions(task.id.clone()));
    }

    // EnvironmentEvaluator: no gold actions and no assertions is a match
    // without a replay, and then adds nothing to the breakdown.
    let replayed = criteria.actions.is_some() || criteria.env_assertions.is_some();
    let db_match = inputs.db_match || !replayed;
    let db_reward = if db_match { 1.0 } else { 0.0 };

    let gold = criteria.actions.as_deref().unwrap_or(&[]);
    let action_checks =
        (!gold.is_empty()).then(|| check_actions(messages, gold, inputs.tool_types));
    let action_reward = all_as_reward(action_checks.iter().flatten().map(|c| c.action_match));

    let infos = criteria.communicate_info.as_deref().unwrap_or(&[]);
    let communicate_checks = (!infos.is_empty()).then(|| check_communicate(messages, infos));
    let communicate_reward = all_as_reward(communicate_checks.iter().flatten().map(|c| c.met));

    let assertions = criteria.nl_assertions.as_deref().unwrap_or(&[]);
    let nl_assertions = match (has(RewardType::NlAssertion), assertions.is_empty()) {
        (false, _) => None,
        (true, true) => Some(Vec::new()),
        (true, false) => inputs.nl_verdicts.map(<[_]>::to_vec),
    };
    let nl_reward = nl_assertions
        .as_ref()
        .map(|v| all_as_reward(v.iter().map(|c| c.met)));

    let mut breakdown = Vec::new();
    let mut without_nl = 1.0;
    if replayed && has(RewardType::Db) {
        breakdown.push((RewardType::Db, db_reward));
    }
    if replayed && has(RewardType::EnvAssertion) {
        breakdown.push((RewardType::EnvAssertion, 1.0));
    }
    if has(RewardType::Db) || has(RewardType::EnvAssertion) {
        without_nl *= if replayed && has(RewardType::Db) {
            db_reward
        } else {
            1.0
        };
    }
    if has(RewardType::Action) {
        breakdown.push((RewardType::Action, action_reward));
        without_nl *= action_reward;
    }
    let nl_pending = has(RewardType::NlAssertion) && nl_reward.is_none();
    if let Some(r) = nl_reward.filter(|_| has(RewardType::NlAssertion)) {
        breakdown.push((RewardType::NlAssertion, r));
    }
    if has(RewardType::Communicate) {
        breakdown.push((RewardType::Communicate, communicate_reward));
        without_nl *= communicate_reward;
    }
    let (reward, status) = match (nl_pending, nl_reward) {
        (true, _) if without_nl == 0.0 => (Some(0.0), RewardStatus::ZeroWithoutNl),
        (true, _) => (None, RewardStatus::NeedsNlJudge),
        (false, Some(r)) if has(RewardType::NlAssertion) => {
            (Some(without_nl * r), RewardStatus::Computed)
        }
        (false, _) => (Some(without_nl), RewardStatus::Computed),
    };
    Ok(RewardInfo {
        reward,
        status,
        reward_without_nl: Some(without_nl),
        db_check: Some(DbCheck {
            db_match,
            db_reward,
        }),
        action_checks,
        communicate_checks,
        nl_assertions,
        reward_basis: Some(basis.clone()),
        reward_breakdown: Some(breakdown),
        note: None,
    })
}

/// 1.0 when every check holds (or there is none), else 0.0.
fn all_as_reward(mut checks: impl Iterator<Item = bool>) -> f64 {
    if checks.all(|ok| ok) { 1.0 } else { 0.0 }
}

/// `ActionEvaluator.evaluate_actions`: each gold action against every tool
/// call of the assistant and user messages.
pub fn check_actions(
    messages: &[Message],
    gold: &[Action],
    tool_types: Option<&HashMap<String, ToolType>>,
) -> Vec<ActionCheck> {
    let calls: Vec<&ToolCall> = messages.iter().flat_map(Message::tool_calls).collect();
    gold.iter()
        .map(|action| {
            let action_match = calls.iter().any(|call| action_matches(action, call));
            ActionCheck {
                action: action.clone(),
                action_match,
                action_reward: if action_match { 1.0 } else { 0.0 },
                tool_type: tool_types.and_then(|t| t.get(&action.name).copied()),
            }
        })
        .collect()
}

/// `Action.compare_with_tool_call`.
pub fn action_matches(action: &Action, call: &ToolCall) -> bool {
    if action.name != call.name {
        return false;
    }
    let keys: Vec<&str> = match &action.compare_args {
        Some(keys) => keys.iter().map(String::as_str).collect(),
        None => call.arguments.keys().map(String::as_str).collect(),
    };
    if keys.is_empty() {
        return true;
    }
    restricted_eq(&call.arguments, &action.arguments, &keys)
}

/// `{k: v for k in a if k in keys} == {k: v for k in b if k in keys}`.
fn restricted_eq(a: &Map<String, Value>, b: &Map<String, Value>, keys: &[&str]) -> bool {
    let kept = |m: &Map<String, Value>| m.keys().filter(|k| keys.contains(&k.as_str())).count();
    kept(a) == kept(b)
        && a.iter()
            .filter(|(k, _)| keys.contains(&k.as_str()))
            .all(|(k, v)| b.get(k).is_some_and(|w| py_eq(v, w)))
}

/// Python's `==` on values `json.loads` made: numbers by value across
/// `bool`, `int` and `float`, lists element-wise, dicts by keys and values.
/// (Integers beyond 64 bits reach us as floats: serde_json's limit.)
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.eq_py(&y),
            _ => false,
        },
    }
}

/// A JSON number or bool as Python compares it.
enum Num {
    Int(i128),
    Float(f64),
}

fn number(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Number(n) => Some(match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Num::Int(i128::from(i)),
            (None, Some(u)) => Num::Int(i128::from(u)),
            _ => Num::Float(n.as_f64().unwrap_or(f64::NAN)),
        }),
        _ => None,
    }
}

impl Num {
    /// Exact comparison, as Python compares an `int` with a `float`.
    fn eq_py(&self, other: &Num) -> bool {
        match (self, other) {
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Float(x), Num::Float(y)) => x == y,
            (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => {
                // |i| < 2^65 and an integral f of that size is exact in i128.
                f.fract() == 0.0 && f.abs() < 1e30 && *f as i128 == *i
            }
        }
    }
}

/// `CommunicateEvaluator.evaluate_communicate_info`.
pub fn check_communicate(messages: &[Message], infos: &[String]) -> Vec<CommunicateCheck> {
    let texts: Vec<(&str, String)> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(p) => p.content.as_deref(),
            _ => None,
        })
        .filter(|text| !text.chars().all(is_py_space))
        .map(|text| (text, text.to_lowercase().replace(',', "")))
        .collect();
    infos
        .iter()
        .map(|info| {
            let needle = info.to_lowercase();
            match texts.iter().find(|(_, lowered)| lowered.contains(&needle)) {
                Some((text, _)) => CommunicateCheck {
                    info: info.clone(),
                    met: true,
                    justification: format!(
                        "Information '{info}' communicated in the message:\n '{text}'"
                    ),
                },
                None => CommunicateCheck {
                    info: info.clone(),
                    met: false,
                    justification: format!("Information '{info}' not communicated."),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::format::{
        EvaluationCriteria, ParticipantMessage, Requestor, UserInstructions, UserScenario,
    };
    use super::super::reference::{tasks, trajectories};
    use super::*;

    fn task_by_id() -> HashMap<String, Task> {
        tasks().into_iter().map(|t| (t.id.clone(), t)).collect()
    }

    fn evaluate_reference(t: &super::super::reference::Trajectory, task: &Task) -> RewardInfo {
        let inputs = EvalInputs {
            db_match: t.checks.as_ref().is_some_and(|c| c.db_match),
            ..EvalInputs::default()
        };
        let messages = t.simulation.messages.as_deref().unwrap();
        evaluate(t.simulation.termination_reason, messages, task, &inputs).unwrap()
    }

    #[test]
    fn reference_action_and_communicate_checks_reproduced() {
        let tasks = task_by_id();
        let mut checked = 0;
        for (t, _) in trajectories() {
            let Some(expected) = &t.checks else { continue };
            let task = &tasks[&t.task_id];
            let criteria = task.evaluation_criteria.as_ref().unwrap();
            let messages = t.simulation.messages.as_deref().unwrap();
            let gold = criteria.actions.as_deref().unwrap_or(&[]);
            let actions: Vec<bool> = check_actions(messages, gold, None)
                .iter()
                .map(|c| c.action_match)
                .collect();
            let infos = criteria.communicate_info.as_deref().unwrap_or(&[]);
            let met: Vec<bool> = check_communicate(messages, infos)
                .iter()
                .map(|c| c.met)
                .collect();
            assert_eq!(
                actions, expected.actions_matched,
                "{}:{}",
                t.task_id, t.kind
            );
            assert_eq!(met, expected.communicate_met, "{}:{}", t.task_id, t.kind);
            checked += 1;
        }
        // Every trajectory but the premature ones and those whose replay raised.
        assert_eq!(checked, 2141 - 243 - 104);
    }

    /// Where the official scored with type ALL (its reward is the task's),
    /// every reproduced field of its `RewardInfo` is equal.
    #[test]
    fn reference_reward_info_fields_equal_under_type_all() {
        let tasks = task_by_id();
        let mut compared = 0;
        for (t, _) in trajectories() {
            let (Some(info), "all") = (&t.reward_info, t.evaluation_type.as_str()) else {
                continue;
            };
            let ours = evaluate_reference(&t, &tasks[&t.task_id]);
            let label = format!("{}:{}", t.task_id, t.kind);
            assert_eq!(
                Some(info["reward"].as_f64().unwrap()),
                ours.reward,
                "{label}"
            );
            assert_eq!(
                info["reward_basis"],
                serde_json::to_value(&ours.reward_basis).unwrap(),
                "{label}"
            );
            assert_eq!(
                info["db_check"],
                serde_json::to_value(ours.db_check).unwrap(),
                "{label}"
            );
            assert_eq!(
                info["communicate_checks"],
                serde_json::to_value(&ours.communicate_checks).unwrap(),
                "{label}"
            );
            assert_eq!(
                info["nl_assertions"],
                serde_json::to_value(&ours.nl_assertions).unwrap(),
                "{label}"
            );
            let breakdown = ours.reward_breakdown.as_ref().map(|b| {
                b.iter()
                    .map(|(k, v)| {
                        (
                            serde_json::to_value(k)
                                .unwrap()
                                .as_str()
                                .unwrap()
                                .to_string(),
                            json!(v),
                        )
                    })
                    .collect::<Map<String, Value>>()
            });
            let theirs = info["reward_breakdown"].as_object();
            assert_eq!(
                theirs.map(|m| m.iter().collect::<Vec<_>>()),
                breakdown.as_ref().map(|m| m.iter().collect::<Vec<_>>()),
                "{label}"
            );
            let actions: Option<Vec<Value>> = ours.action_checks.as_ref().map(|checks| {
                checks
                    .iter()
                    .map(|c| json!({"action": c.action, "action_match": c.action_match, "action_reward": c.action_reward}))
                    .collect()
            });
            let theirs: Option<Vec<Value>> = info["action_checks"].as_array().map(|checks| {
                checks
                    .iter()
                    .map(|c| json!({"action": c["action"], "action_match": c["action_match"], "action_reward": c["action_reward"]}))
                    .collect()
            });
            assert_eq!(theirs, actions, "{label}");
            if !t.termination_reason.is_evaluated() {
                assert_eq!(
                    info["info"]["note"].as_str(),
                    ours.note.as_deref(),
                    "{label}"
                );
                assert_eq!(ours.reward, Some(0.0), "{label}");
                assert!(
                    ours.action_checks.is_none() && ours.db_check.is_none(),
                    "{label}"
                );
            }
            compared += 1;
        }
        assert_eq!(compared, 1130 + 243);
    }

    fn call(name: &str, arguments: Value, requestor: Requestor) -> ToolCall {
        ToolCall {
            id: String::new(),
            name: name.to_string(),
            arguments: arguments.as_object().unwrap().clone(),
            requestor,
        }
    }

    fn action(name: &str, arguments: Value, compare_args: Option<&[&str]>) -> Action {
        Action {
            action_id: "a".to_string(),
            requestor: Requestor::Assistant,
            name: name.to_string(),
            arguments: arguments.as_object().unwrap().clone(),
            info: None,
            compare_args: compare_args.map(|keys| keys.iter().map(|k| k.to_string()).collect()),
        }
    }

    #[test]
    fn null_compare_args_compare_only_the_calls_keys() {
        let gold = action(
            "cancel",
            json!({"order_id": "#W1", "reason": "no longer needed"}),
            None,
        );
        let partial = call("cancel", json!({"order_id": "#W1"}), Requestor::Assistant);
        let none = call("cancel", json!({}), Requestor::Assistant);
        let extra = call(
            "cancel",
            json!({"order_id": "#W1", "reason": "no longer needed", "x": 1}),
            Requestor::Assistant,
        );
        let wrong = call("cancel", json!({"order_id": "#W2"}), Requestor::Assistant);
        assert!(action_matches(&gold, &partial));
        assert!(action_matches(&gold, &none));
        assert!(!action_matches(&gold, &extra));
        assert!(!action_matches(&gold, &wrong));
        assert!(!action_matches(
            &gold,
            &call("return", json!({"order_id": "#W1"}), Requestor::Assistant)
        ));
    }

    #[test]
    fn listed_compare_args_and_the_empty_list() {
        let gold = action("f", json!({"a": 1, "b": 2}), Some(&["a"]));
        assert!(action_matches(
            &gold,
            &call("f", json!({"a": 1, "b": 99}), Requestor::Assistant)
        ));
        assert!(!action_matches(
            &gold,
            &call("f", json!({"b": 2}), Requestor::Assistant)
        ));
        let any = action(
            "transfer_to_human_agents",
            json!({"summary": "s"}),
            Some(&[]),
        );
        assert!(action_matches(
            &any,
            &call(
                "transfer_to_human_agents",
                json!({"summary": "other"}),
                Requestor::User
            )
        ));
        // A listed key missing on both sides compares equal.
        let absent = action("f", json!({"a": 1}), Some(&["a", "z"]));
        assert!(action_matches(
            &absent,
            &call("f", json!({"a": 1.0}), Requestor::Assistant)
        ));
    }

    #[test]
    fn values_compare_as_python_does() {
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(py_eq(&json!(false), &json!(0.0)));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(!py_eq(&json!(null), &json!(0)));
        assert!(py_eq(
            &json!({"a": [1, 2.0], "b": {"c": true}}),
            &json!({"b": {"c": 1}, "a": [1.0, 2]})
        ));
        assert!(!py_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!py_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(py_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!py_eq(
            &json!(9007199254740993u64),
            &json!(9007199254740992.0)
        ));
    }

    fn assistant(content: Option<&str>, calls: Vec<ToolCall>) -> Message {
        Message::Assistant(ParticipantMessage {
            content: content.map(str::to_string),
            tool_calls: (!calls.is_empty()).then_some(calls),
            turn_idx: None,
        })
    }

    fn user(content: &str, calls: Vec<ToolCall>) -> Message {
        Message::User(ParticipantMessage {
            content: Some(content.to_string()),
            tool_calls: (!calls.is_empty()).then_some(calls),
            turn_idx: None,
        })
    }

    #[test]
    fn user_calls_count_for_the_action_check() {
        let gold = [action("toggle", json!({"on": true}), None)];
        let messages = [user(
            "",
            vec![call("toggle", json!({"on": true}), Requestor::User)],
        )];
        assert!(check_actions(&messages, &gold, None)[0].action_match);
        let types = HashMap::from([("toggle".to_string(), ToolType::Write)]);
        assert_eq!(
            check_actions(&messages, &gold, Some(&types))[0].tool_type,
            Some(ToolType::Write)
        );
    }

    #[test]
    fn communicate_removes_commas_from_the_text_only_and_ignores_case() {
        let messages = [
            user("The total is 1,234.50", vec![]),
            assistant(Some("   \u{1c}\n"), vec![]),
            assistant(Some("Your refund is $1,234.50 TOTAL."), vec![]),
        ];
        let infos = [
            "1234.50".to_string(),
            "$1,234.50".to_string(),
            "total".to_string(),
            "".to_string(),
        ];
        let checks = check_communicate(&messages, &infos);
        let met: Vec<bool> = checks.iter().map(|c| c.met).collect();
        assert_eq!(met, [true, false, true, true]);
        assert_eq!(
            checks[0].justification,
            "Information '1234.50' communicated in the message:\n 'Your refund is $1,234.50 TOTAL.'"
        );
        assert_eq!(
            checks[1].justification,
            "Information '$1,234.50' not communicated."
        );
        // Only blank assistant texts: even the empty string is not found.
        assert!(!check_communicate(&messages[..2], &infos[3..])[0].met);
    }

    fn task(criteria: Option<EvaluationCriteria>) -> Task {
        Task {
            id: "t".to_string(),
            description: None,
            user_scenario: UserScenario {
                persona: None,
                instructions: UserInstructions::Text("x".to_string()),
            },
            initial_state: None,
            evaluation_criteria: criteria,
        }
    }

    fn criteria(basis: &[RewardType], nl: &[&str], communicate: &[&str]) -> EvaluationCriteria {
        EvaluationCriteria {
            actions: Some(vec![action("f", json!({"a": 1}), None)]),
            env_assertions: None,
            communicate_info: Some(communicate.iter().map(|s| s.to_string()).collect()),
            nl_assertions: Some(nl.iter().map(|s| s.to_string()).collect()),
            reward_basis: basis.to_vec(),
        }
    }

    fn verdict(met: bool) -> NlAssertionCheck {
        NlAssertionCheck {
            nl_assertion: "x".to_string(),
            met,
            justification: String::new(),
        }
    }

    #[test]
    fn nl_verdicts_complete_the_reward_and_a_zero_elsewhere_decides_it() {
        let t = task(Some(criteria(
            &[RewardType::Db, RewardType::NlAssertion],
            &["polite"],
            &[],
        )));
        let messages = [assistant(
            None,
            vec![call("f", json!({"a": 1}), Requestor::Assistant)],
        )];
        let run = |db_match: bool, nl: Option<&[NlAssertionCheck]>| {
            let inputs = EvalInputs {
                db_match,
                nl_verdicts: nl,
                tool_types: None,
            };
            evaluate(TerminationReason::UserStop, &messages, &t, &inputs).unwrap()
        };
        let pending = run(true, None);
        assert_eq!(
            (pending.reward, pending.status),
            (None, RewardStatus::NeedsNlJudge)
        );
        assert_eq!(
            pending.reward_breakdown.as_deref(),
            Some(&[(RewardType::Db, 1.0)][..])
        );
        let zero = run(false, None);
        assert_eq!(
            (zero.reward, zero.status),
            (Some(0.0), RewardStatus::ZeroWithoutNl)
        );
        let met = run(true, Some(&[verdict(true), verdict(true)]));
        assert_eq!(
            (met.reward, met.status),
            (Some(1.0), RewardStatus::Computed)
        );
        assert_eq!(
            met.reward_breakdown.as_deref(),
            Some(&[(RewardType::Db, 1.0), (RewardType::NlAssertion, 1.0)][..])
        );
        assert_eq!(
            run(true, Some(&[verdict(true), verdict(false)])).reward,
            Some(0.0)
        );
        // The official takes `all()` of what the judge returned: nothing is a pass.
        assert_eq!(run(true, Some(&[])).reward, Some(1.0));
    }

    #[test]
    fn basis_components_gate_only_when_named() {
        let messages = [assistant(Some("hello"), vec![])];
        let inputs = EvalInputs {
            db_match: true,
            ..EvalInputs::default()
        };
        let run = |basis: &[RewardType]| {
            let t = task(Some(criteria(basis, &[], &["refund"])));
            evaluate(TerminationReason::AgentStop, &messages, &t, &inputs).unwrap()
        };
        // ACTION and COMMUNICATE fail here, and gate only when in the basis.
        assert_eq!(run(&[RewardType::Db]).reward, Some(1.0));
        assert_eq!(run(&[RewardType::Db, RewardType::Action]).reward, Some(0.0));
        let communicate = run(&[RewardType::Communicate, RewardType::Db]);
        assert_eq!(communicate.reward, Some(0.0));
        assert_eq!(
            communicate.reward_breakdown.as_deref(),
            Some(&[(RewardType::Db, 1.0), (RewardType::Communicate, 0.0)][..])
        );
        // No criteria: 1 for an evaluated run; premature: 0 whatever else.
        let none = evaluate(TerminationReason::UserStop, &messages, &task(None), &inputs).unwrap();
        assert_eq!(
            (none.reward, none.note.as_deref()),
            (Some(1.0), Some("No evaluation criteria"))
        );
        let early = evaluate(TerminationReason::Timeout, &messages, &task(None), &inputs).unwrap();
        assert_eq!(early.reward, Some(0.0));
        assert_eq!(
            early.note.as_deref(),
            Some("Simulation terminated prematurely. Termination reason: timeout")
        );
    }

    #[test]
    fn without_gold_actions_or_assertions_the_db_matches_and_env_assertions_are_refused() {
        let messages = [assistant(Some("hi"), vec![])];
        let mut c = criteria(&[RewardType::Db], &[], &[]);
        c.actions = None;
        let inputs = EvalInputs::default();
        let r = evaluate(
            TerminationReason::UserStop,
            &messages,
            &task(Some(c.clone())),
            &inputs,
        )
        .unwrap();
        assert_eq!(r.reward, Some(1.0));
        assert_eq!(
            r.db_check,
            Some(DbCheck {
                db_match: true,
                db_reward: 1.0
            })
        );
        assert_eq!(r.reward_breakdown.as_deref(), Some(&[][..]));
        assert!(r.action_checks.is_none());
        c.env_assertions = Some(vec![
            json!({"env_type": "assistant", "func_name": "f", "arguments": {}}),
        ]);
        c.reward_basis.push(RewardType::EnvAssertion);
        let err = evaluate(
            TerminationReason::UserStop,
            &messages,
            &task(Some(c)),
            &inputs,
        )
        .unwrap_err();
        assert_eq!(err, EvalError::EnvAssertions("t".to_string()));
    }
}
