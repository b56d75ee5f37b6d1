//! Rewards and pass^k of a set of trials: each trial evaluated as the
//! official evaluator does ([`evaluate_trial`]), then the official metrics
//! ([`compute_metrics`]). A trial whose task needs an NL judge has no
//! reward until one is asked: pass^k then counts it as failed (a lower
//! bound), and the same figures with the reward without NL (an upper
//! bound) are given beside it.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;
use serde_json::{Value, json};

use super::Domain;
use super::checks::{ActionCheck, CommunicateCheck, DbCheck, NlAssertionCheck, RewardStatus};
use super::domain::DomainData;
use super::evaluate::{TrialVerdict, evaluate_trial};
use super::format::{Message, Results, RewardType, Task, TerminationReason, parse_json};
use super::nl_judge::{NlJob, NlJudge, judge_all};
use super::pass_k::{Intervals, Metrics, Trial, compute_metrics, pass_hat_k_intervals};
use crate::models::cache::CacheSetting;
use crate::score::files::OutputFormat;
use crate::spec::jsonl::write_records;
use crate::util::runtime::{Threads, block_on};
use crate::util::table::{Table, fraction_percent_or_na};

/// One trial to score: its id, its task, and the conversation's record
/// (the official `SimulationRun` fields, `None` when the run failed).
#[derive(Debug, Clone)]
pub struct TrialRecord<'a> {
    /// The trial's id in the run.
    pub id: &'a str,
    /// The τ task's id.
    pub task_id: &'a str,
    /// The trial's number.
    pub trial: usize,
    /// The conversation, as [`super::conversation::Conversation`] records it.
    pub record: Option<&'a Value>,
}

/// Where a trial's reward stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrialStatus {
    /// Every component of the basis is known.
    Computed,
    /// NL assertions unjudged, another component 0: the reward is 0.
    ZeroWithoutNl,
    /// NL assertions unjudged, every other component 1: no reward yet.
    NeedsNlJudge,
    /// The official evaluator would raise (or the run failed, or the NL
    /// judge's request failed): no reward.
    EvaluatorRaised,
}

impl From<RewardStatus> for TrialStatus {
    fn from(status: RewardStatus) -> TrialStatus {
        match status {
            RewardStatus::Computed => TrialStatus::Computed,
            RewardStatus::ZeroWithoutNl => TrialStatus::ZeroWithoutNl,
            RewardStatus::NeedsNlJudge => TrialStatus::NeedsNlJudge,
        }
    }
}

/// One trial's verdict (`--per-item` lines, `official/<model>.per_item.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrialVerdictLine {
    /// The trial's id in the run.
    pub id: String,
    /// The τ task's id.
    pub task_id: String,
    /// The trial's number.
    pub trial: usize,
    /// Why the conversation ended.
    pub termination_reason: TerminationReason,
    /// The reward; null while an NL judge is needed, or when the
    /// evaluator raised.
    pub reward: Option<f64>,
    /// The product of the basis components other than NL.
    pub reward_without_nl: Option<f64>,
    /// Where the reward stands.
    pub status: TrialStatus,
    /// Why the evaluator raised, or why the trial was not evaluated.
    pub note: Option<String>,
    /// The NL judge's verdicts, when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nl_assertions: Option<Vec<NlAssertionCheck>>,
    /// The NL judge asked (its name in the models file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nl_judge: Option<String>,
    /// The database check (`None` when not evaluated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_check: Option<DbCheck>,
    /// Each basis component's reward, in the official order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_breakdown: Option<Vec<(RewardType, f64)>>,
    /// The gold actions' checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_checks: Option<Vec<ActionCheck>>,
    /// The `communicate_info` checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub communicate_checks: Option<Vec<CommunicateCheck>>,
}

/// Scores `trials` of `tasks`; `num_trials` is the run's trials per task.
/// With a `judge`, the trials whose reward waits on NL assertions are
/// judged (those already at 0 without them are not sent).
pub fn score_trials(
    domain: &DomainData,
    tasks: &[Task],
    trials: &[TrialRecord<'_>],
    num_trials: usize,
    judge: Option<&Arc<NlJudge>>,
    intervals: Intervals,
) -> anyhow::Result<(Value, Vec<TrialVerdictLine>)> {
    let mut lines = Vec::with_capacity(trials.len());
    let mut jobs = Vec::new();
    let mut read = Vec::new();
    // By id (a repeated id: the last task, as a Python dict keeps it, and
    // as `compute_metrics` reads them), so many tasks and trials take
    // linear time.
    let by_id: HashMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    for t in trials {
        let task = *by_id
            .get(t.task_id)
            .ok_or_else(|| anyhow::anyhow!("trial {}: no τ task {:?}", t.id, t.task_id))?;
        let (line, conversation) = verdict(domain, task, t);
        if let (Some(_), TrialStatus::NeedsNlJudge, Some((_, messages))) =
            (judge, line.status, &conversation)
        {
            jobs.push(NlJob {
                index: lines.len(),
                messages: messages.clone(),
                assertions: nl_assertions_of(task).to_vec(),
            });
        }
        read.push((task, conversation));
        lines.push(line);
    }
    let mut sent = 0;
    if let Some(judge) = judge.filter(|_| !jobs.is_empty()) {
        let judged = block_on(Threads::PerCore, judge_all(Arc::clone(judge), jobs))?;
        for (index, judgment) in judged {
            sent += u64::from(judgment.requests);
            let (task, conversation) = &read[index];
            let (termination, messages) = conversation.as_ref().expect("judged trials were read");
            let line = &mut lines[index];
            line.nl_judge = Some(judge.name().to_string());
            let outcome = judgment.verdicts.and_then(|verdicts| {
                evaluate_trial(domain, task, *termination, messages, Some(&verdicts))
            });
            apply(line, outcome);
        }
    }
    let lower: Vec<Trial> = lines.iter().map(|l| metric_trial(l, l.reward)).collect();
    let upper: Vec<Trial> = lines
        .iter()
        .map(|l| metric_trial(l, l.reward.or(l.reward_without_nl)))
        .collect();
    let num_trials = i64::try_from(num_trials)?;
    let metrics = compute_metrics(num_trials, &lower, tasks)?;
    let upper = compute_metrics(num_trials, &upper, tasks)?;
    let count = |status: TrialStatus| lines.iter().filter(|l| l.status == status).count();
    let summary = json!({
        "avg_reward": finite(metrics.avg_reward),
        "pass_hat_ks": pass_hat_ks(&metrics),
        "pass_hat_ks_ci": pass_hat_k_intervals(&metrics, intervals),
        "pass_hat_ks_without_nl": pass_hat_ks(&upper),
        "pass_hat_ks_without_nl_ci": pass_hat_k_intervals(&upper, intervals),
        "total_simulations": metrics.total_simulations,
        "total_tasks": metrics.total_tasks,
        "infra_error_count": metrics.infra_error_count,
        "needs_nl_judge": count(TrialStatus::NeedsNlJudge),
        "evaluator_raised": count(TrialStatus::EvaluatorRaised),
        "nl_judge": judge.map(|j| j.name().to_string()),
        "nl_judged": lines.iter().filter(|l| l.nl_judge.is_some()).count(),
        "nl_judge_requests": sent,
        "num_trials": num_trials,
    });
    Ok((summary, lines))
}

/// The NL assertions of a task (none when it has no criteria).
fn nl_assertions_of(task: &Task) -> &[String] {
    task.evaluation_criteria
        .as_ref()
        .and_then(|c| c.nl_assertions.as_deref())
        .unwrap_or_default()
}

fn finite(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

fn pass_hat_ks(metrics: &Metrics) -> Value {
    Value::Object(
        metrics
            .pass_hat_ks
            .iter()
            .map(|(k, v)| (k.to_string(), finite(*v)))
            .collect(),
    )
}

fn metric_trial(line: &TrialVerdictLine, reward: Option<f64>) -> Trial {
    Trial {
        task_id: line.task_id.clone(),
        reward,
        termination: line.termination_reason,
    }
}

/// A trial's conversation, as read from its record.
type Conversation = (TerminationReason, Vec<Message>);

/// One trial's verdict without an NL judge, and its conversation when it
/// could be read; a failed run is an infrastructure error, as the official
/// runner records a simulation that raised on every retry.
fn verdict(
    domain: &DomainData,
    task: &Task,
    t: &TrialRecord<'_>,
) -> (TrialVerdictLine, Option<Conversation>) {
    let mut line = TrialVerdictLine {
        id: t.id.to_string(),
        task_id: t.task_id.to_string(),
        trial: t.trial,
        termination_reason: TerminationReason::InfrastructureError,
        reward: None,
        reward_without_nl: None,
        status: TrialStatus::EvaluatorRaised,
        note: None,
        nl_assertions: None,
        nl_judge: None,
        db_check: None,
        reward_breakdown: None,
        action_checks: None,
        communicate_checks: None,
    };
    let Some(record) = t.record else {
        line.note = Some("the conversation failed (see the prediction's error)".into());
        return (line, None);
    };
    let termination: Option<TerminationReason> =
        serde_json::from_value(record["termination_reason"].clone()).ok();
    let messages: Option<Vec<Message>> = serde_json::from_value(record["messages"].clone()).ok();
    let (Some(termination), Some(messages)) = (termination, messages) else {
        line.note = Some("the conversation's record cannot be read".into());
        return (line, None);
    };
    line.termination_reason = termination;
    line.note = record["note"].as_str().map(str::to_string);
    apply(
        &mut line,
        evaluate_trial(domain, task, termination, &messages, None),
    );
    (line, Some((termination, messages)))
}

/// Writes an evaluation's outcome into a trial's line.
fn apply(line: &mut TrialVerdictLine, outcome: TrialVerdict) {
    match outcome {
        Ok(info) => {
            line.reward = info.reward;
            line.reward_without_nl = info.reward_without_nl;
            line.status = info.status.into();
            if line.nl_judge.is_some() {
                line.nl_assertions = info.nl_assertions;
            }
            line.db_check = info.db_check;
            line.reward_breakdown = info.reward_breakdown;
            line.action_checks = info.action_checks;
            line.communicate_checks = info.communicate_checks;
        }
        Err(why) => {
            line.reward = None;
            line.status = TrialStatus::EvaluatorRaised;
            line.note = Some(why);
        }
    }
}

/// The table of scored trial sets (`results`, each [`score_trials`]'s
/// summary with its `model`): per set, trials, average reward and pass^k
/// (NL assertions unjudged counted as failed, then with the reward
/// without NL).
pub fn table(domain: Domain, results: &[Value]) -> String {
    let ks: usize = results
        .iter()
        .map(|r| r["pass_hat_ks"].as_object().map_or(0, |m| m.len()))
        .max()
        .unwrap_or(0);
    let header: Vec<String> = ["Model", "Trials", "Avg reward (rewarded)"]
        .into_iter()
        .map(String::from)
        .chain((1..=ks).map(|k| format!("pass^{k}")))
        .collect();
    let mut t = Table::new(header).with_labels(1);
    for r in results {
        for (label, key) in [
            ("", "pass_hat_ks"),
            (" (without NL)", "pass_hat_ks_without_nl"),
        ] {
            let mut row = vec![
                format!("{}{label}", r["model"].as_str().unwrap_or_default()),
                r["total_simulations"].to_string(),
                if label.is_empty() {
                    fraction_percent_or_na(r["avg_reward"].as_f64())
                } else {
                    crate::util::table::ABSENT.to_string()
                },
            ];
            row.extend((1..=ks).map(|k| {
                let k = k.to_string();
                let value = fraction_percent_or_na(r[key][&k].as_f64());
                match r[format!("{key}_ci")][&k].as_array().map(Vec::as_slice) {
                    Some([lo, hi]) => format!(
                        "{value} ({}–{})",
                        fraction_percent_or_na(lo.as_f64()),
                        fraction_percent_or_na(hi.as_f64())
                    ),
                    _ => value,
                }
            }));
            t.push(row);
        }
    }
    let sum = |key: &str| -> u64 { results.iter().filter_map(|r| r[key].as_u64()).sum() };
    let judges: Vec<&str> = results
        .iter()
        .filter_map(|r| r["nl_judge"].as_str())
        .collect();
    let judged = match judges.first() {
        Some(judge) => format!(
            "NL assertions judged by {judge}: {} trial(s) ({} request(s) sent). ",
            sum("nl_judged"),
            sum("nl_judge_requests")
        ),
        None => String::new(),
    };
    format!(
        "τ³-bench {}, official evaluator: average reward and pass^k (%, 95% bootstrap interval \
         over tasks)\n\
         {judged}{} trial(s) need an NL judge: counted as failed in the first row of each model, \
         rewarded without their NL assertions in the second.\n\n{}\n",
        domain.as_str(),
        sum("needs_nl_judge"),
        t.render(false)
    )
}

/// What `itc ood score tau` scores.
#[derive(Debug, Clone)]
pub struct TauScoreOptions {
    /// The official harness's results file (`Results.save`'s JSON:
    /// `{timestamp, info, tasks, simulations}`).
    pub results: PathBuf,
    /// Writes one verdict per simulation here (JSON Lines).
    pub per_item: Option<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The NL-assertion judge: a model name, the models file it is read
    /// from, and the response cache (default `cache/` beside the results file).
    pub nl_judge: Option<(String, PathBuf)>,
    /// The judge's response cache.
    pub cache: CacheSetting,
}

/// `itc ood score tau`: every simulation of an official results file
/// rewarded again as the official evaluator rewards it (its stored
/// `reward_info` is not read), then average reward and pass^k with the
/// file's `info.num_trials`.
pub fn score_results_file(options: &TauScoreOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let path = &options.results;
    let text = crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let origin = path.display().to_string();
    let results: Results = parse_json(&text, &origin)?;
    let raw: Value = serde_json::from_str(&text).with_context(|| format!("reading {origin}"))?;
    let domain: Domain = results
        .info
        .environment_info
        .domain_name
        .parse()
        .with_context(|| format!("{origin}: info.environment_info.domain_name"))?;
    let simulations = raw["simulations"].as_array().map_or(&[][..], Vec::as_slice);
    let trials: Vec<TrialRecord<'_>> = simulations
        .iter()
        .map(|sim| TrialRecord {
            id: sim["id"].as_str().unwrap_or_default(),
            task_id: sim["task_id"].as_str().unwrap_or_default(),
            trial: sim["trial"].as_u64().unwrap_or(0) as usize,
            record: Some(sim),
        })
        .collect();
    let num_trials = usize::try_from(results.info.num_trials)
        .with_context(|| format!("{origin}: info.num_trials"))?;
    let data = DomainData::of(domain)?;
    let judge = match &options.nl_judge {
        Some((name, models_file)) => {
            let cache = options.cache.dir(|| {
                path.parent()
                    .unwrap_or(std::path::Path::new("."))
                    .join("cache")
            });
            Some(Arc::new(NlJudge::load(
                models_file,
                name,
                cache.as_deref(),
            )?))
        }
        None => None,
    };
    let (mut summary, lines) = score_trials(
        data,
        &results.tasks,
        &trials,
        num_trials,
        judge.as_ref(),
        Intervals::default(),
    )
    .with_context(|| format!("scoring {origin}"))?;
    if let Some(per_item) = &options.per_item {
        write_records(per_item, &lines)
            .with_context(|| format!("writing {}", per_item.display()))?;
    }
    summary["model"] = origin.clone().into();
    summary["domain"] = domain.as_str().into();
    match options.format {
        OutputFormat::Table => write!(out, "{}", table(domain, std::slice::from_ref(&summary)))?,
        OutputFormat::Json => writeln!(out, "{summary}")?,
    }
    Ok(())
}
