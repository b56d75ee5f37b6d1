//! A trial's reward as `evaluate_simulation` computes it: the database
//! check (`EnvironmentEvaluator`: the conversation's writes replayed on a
//! fresh database, the gold actions on another, their hashes compared),
//! then [`checks::evaluate`] for the action, communicate and NL checks and
//! the reward from the task's basis.

use serde_json::Value;

use super::checks::{self, EvalInputs, NlAssertionCheck, RewardInfo, ToolType, py_eq};
use super::domain::DomainData;
use super::format::{Message, Task, TerminationReason, ToolCall, ToolMessage};

/// The tool calls of a conversation, each with the result that follows it
/// (`get_actions_from_messages`), or the official error when a result is
/// missing, unexpected or answers another call.
pub fn calls_with_results(messages: &[Message]) -> Result<Vec<(&ToolCall, &ToolMessage)>, String> {
    // Results in order, a `MultiToolMessage` read as its results.
    let mut flat: Vec<Flat<'_>> = Vec::new();
    for m in messages {
        match m {
            Message::Tool(t) => flat.push(Flat::Result(t)),
            Message::MultiTool(list) => flat.extend(list.iter().map(Flat::Result)),
            Message::Assistant(_) | Message::User(_) => flat.push(Flat::Calls(m.tool_calls())),
            Message::System(_) => flat.push(Flat::Calls(&[])),
        }
    }
    let mut pairs = Vec::new();
    let mut rest = flat.into_iter();
    while let Some(item) = rest.next() {
        match item {
            Flat::Result(_) => {
                return Err(
                    "Tool message not expected. Tool messages should always follow a tool call."
                        .into(),
                );
            }
            Flat::Calls(calls) => {
                for call in calls {
                    match rest.next() {
                        None => return Err("Tool message expected. Got None.".into()),
                        Some(Flat::Calls(_)) => {
                            return Err(
                                "Tool message expected. Got a participant's message.".into()
                            );
                        }
                        Some(Flat::Result(result)) if result.id != call.id => {
                            return Err(format!(
                                "Tool call id mismatch. Got {} and {}",
                                call.id, result.id
                            ));
                        }
                        Some(Flat::Result(result)) => pairs.push((call, result)),
                    }
                }
            }
        }
    }
    Ok(pairs)
}

enum Flat<'a> {
    Calls(&'a [ToolCall]),
    Result(&'a ToolMessage),
}

/// A result as the replay compares it: `json.loads` of the text, else the text.
fn loaded(content: Option<&str>) -> Value {
    let text = content.unwrap_or_default();
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// The database check: whether the conversation's writes, replayed on a
/// fresh database (unknown and non-writing tools skipped, as the live
/// environment changed nothing for them), leave it as the gold actions do.
/// An error where the official replay raises: a replayed write whose
/// output differs from the recorded one, or a malformed conversation.
pub fn db_match(domain: &DomainData, task: &Task, messages: &[Message]) -> Result<bool, String> {
    Ok(replayed_hashes(domain, task, messages)?.is_none_or(|(predicted, gold)| predicted == gold))
}

/// The hashes [`db_match`] compares: the replayed conversation's database
/// and the gold one; `None` when the task has nothing to replay.
pub fn replayed_hashes(
    domain: &DomainData,
    task: &Task,
    messages: &[Message],
) -> Result<Option<(String, String)>, String> {
    let Some(criteria) = &task.evaluation_criteria else {
        return Ok(None);
    };
    if criteria.actions.is_none() && criteria.env_assertions.is_none() {
        return Ok(None);
    }
    // A conversation without a write leaves the initial database: its
    // environment is only made at the first write.
    let mut predicted = None;
    for (call, recorded) in calls_with_results(messages)? {
        if domain.tool_type(&call.name) != Some(ToolType::Write) {
            continue;
        }
        let environment = match &mut predicted {
            Some(environment) => environment,
            None => predicted.insert(domain.fresh_environment().map_err(|e| format!("{e:#}"))?),
        };
        let replayed = environment.respond(call);
        if !py_eq(
            &loaded(replayed.content.as_deref()),
            &loaded(recorded.content.as_deref()),
        ) {
            return Err(format!(
                "the replayed call {}({}) returned {:?}, the conversation recorded {:?}",
                call.name,
                Value::Object(call.arguments.clone()),
                replayed.content.unwrap_or_default(),
                recorded.content.clone().unwrap_or_default()
            ));
        }
    }
    let predicted = match predicted {
        Some(mut environment) => environment.db_hash(),
        None => domain.initial_hash().map_err(|e| format!("{e:#}"))?,
    };
    let gold = domain
        .gold_hash(criteria.actions.as_deref().unwrap_or_default())
        .map_err(|e| format!("{e:#}"))?;
    Ok(Some((predicted, gold)))
}

/// What evaluating one trial gave: its reward information, or why the
/// official evaluator would raise.
pub type TrialVerdict = Result<RewardInfo, String>;

/// `evaluate_simulation` (type `ALL`) on one trial; `nl_verdicts` are the
/// judge's verdicts on the task's NL assertions, when asked.
pub fn evaluate_trial(
    domain: &DomainData,
    task: &Task,
    termination: TerminationReason,
    messages: &[Message],
    nl_verdicts: Option<&[NlAssertionCheck]>,
) -> TrialVerdict {
    let db_match = if termination.is_evaluated() {
        db_match(domain, task, messages)?
    } else {
        false
    };
    let inputs = EvalInputs {
        db_match,
        nl_verdicts,
        tool_types: Some(&domain.tool_types),
    };
    checks::evaluate(termination, messages, task, &inputs).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::Domain;
    use super::super::reference::{tasks, trajectories};
    use super::*;

    /// Every reference trajectory evaluated with the database replayed here:
    /// the official hashes of both databases, its reward, status and
    /// reward without NL, and an error exactly where the official raised.
    #[test]
    fn every_reference_reward_is_reproduced_with_the_database_replayed() {
        let domain = DomainData::of(Domain::Retail).unwrap();
        let tasks: HashMap<String, Task> = tasks().into_iter().map(|t| (t.id.clone(), t)).collect();
        let (mut scored, mut raised) = (0, 0);
        for (t, raw) in trajectories() {
            let label = format!("{}:{}", t.task_id, t.kind);
            let task = &tasks[&t.task_id];
            let messages = t.simulation.messages.as_deref().unwrap();
            let verdict = evaluate_trial(domain, task, t.termination_reason, messages, None);
            if t.evaluator_exception.is_some() {
                assert!(verdict.is_err(), "{label}: the official evaluator raised");
                raised += 1;
                continue;
            }
            let info = verdict.unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(info.reward, t.reward, "{label}");
            let status = serde_json::to_value(info.status).unwrap();
            assert_eq!(status.as_str(), Some(t.reward_status.as_str()), "{label}");
            assert_eq!(
                info.reward_without_nl.is_some(),
                t.termination_reason.is_evaluated(),
                "{label}"
            );
            if t.termination_reason.is_evaluated() {
                assert_eq!(info.reward_without_nl, t.reward_without_nl, "{label}");
                assert_eq!(
                    info.reward_basis.as_deref(),
                    Some(t.reward_basis.as_slice()),
                    "{label}"
                );
                let (predicted, gold) = replayed_hashes(domain, task, messages).unwrap().unwrap();
                assert_eq!(predicted, raw["db"]["final"].as_str().unwrap(), "{label}");
                assert_eq!(gold, raw["db"]["gold"].as_str().unwrap(), "{label}");
            }
            scored += 1;
        }
        assert_eq!((scored, raised), (2141 - 104, 104));
    }

    #[test]
    fn a_malformed_conversation_is_refused_as_the_official_replay_refuses_it() {
        let call = |id: &str| {
            Message::Assistant(super::super::format::ParticipantMessage {
                content: None,
                tool_calls: Some(vec![ToolCall {
                    id: id.into(),
                    name: "get_user_details".into(),
                    arguments: serde_json::Map::new(),
                    requestor: Default::default(),
                }]),
                turn_idx: None,
            })
        };
        let result = |id: &str| {
            Message::Tool(ToolMessage {
                id: id.into(),
                content: Some("x".into()),
                requestor: Default::default(),
                error: false,
                turn_idx: None,
            })
        };
        assert!(calls_with_results(&[call("a"), result("a")]).is_ok());
        assert_eq!(
            calls_with_results(&[call("a"), result("b")]).unwrap_err(),
            "Tool call id mismatch. Got a and b"
        );
        assert_eq!(
            calls_with_results(&[call("a")]).unwrap_err(),
            "Tool message expected. Got None."
        );
        assert!(
            calls_with_results(&[result("a")])
                .unwrap_err()
                .starts_with("Tool message not expected.")
        );
    }
}
