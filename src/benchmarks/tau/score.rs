//! Rewards and pass^k of a set of trials: each trial evaluated as the
//! official evaluator does ([`evaluate_trial`]), then the official metrics
//! ([`compute_metrics`]). A trial whose task needs an NL judge has no
//! reward until one is asked: pass^k then counts it as failed (a lower
//! bound), and the same figures with the reward without NL (an upper
//! bound) are given beside it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use serde_json::{Value, json};

use super::Domain;
use super::checks::RewardStatus;
use super::domain::DomainData;
use super::evaluate::evaluate_trial;
use super::format::{Message, Results, Task, TerminationReason, parse_json};
use super::pass_k::{Metrics, Trial, compute_metrics};
use crate::score::files::OutputFormat;
use crate::spec::jsonl::write_records;
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
    /// `computed`, `zero_without_nl`, `needs_nl_judge` or `evaluator_raised`.
    pub status: String,
    /// Why the evaluator raised, or why the trial was not evaluated.
    pub note: Option<String>,
}

/// Scores `trials` of `tasks`; `num_trials` is the run's trials per task.
pub fn score_trials(
    domain: &DomainData,
    tasks: &[Task],
    trials: &[TrialRecord<'_>],
    num_trials: usize,
) -> anyhow::Result<(Value, Vec<TrialVerdictLine>)> {
    let mut lines = Vec::with_capacity(trials.len());
    for t in trials {
        let task = tasks
            .iter()
            .find(|task| task.id == t.task_id)
            .ok_or_else(|| anyhow::anyhow!("trial {}: no τ task {:?}", t.id, t.task_id))?;
        lines.push(verdict(domain, task, t));
    }
    let lower: Vec<Trial> = lines.iter().map(|l| metric_trial(l, l.reward)).collect();
    let upper: Vec<Trial> = lines
        .iter()
        .map(|l| metric_trial(l, l.reward.or(l.reward_without_nl)))
        .collect();
    let num_trials = i64::try_from(num_trials)?;
    let metrics = compute_metrics(num_trials, &lower, tasks)?;
    let upper = compute_metrics(num_trials, &upper, tasks)?;
    let count = |status: &str| lines.iter().filter(|l| l.status == status).count();
    let summary = json!({
        "avg_reward": finite(metrics.avg_reward),
        "pass_hat_ks": pass_hat_ks(&metrics),
        "pass_hat_ks_without_nl": pass_hat_ks(&upper),
        "total_simulations": metrics.total_simulations,
        "total_tasks": metrics.total_tasks,
        "infra_error_count": metrics.infra_error_count,
        "needs_nl_judge": count("needs_nl_judge"),
        "evaluator_raised": count("evaluator_raised"),
        "num_trials": num_trials,
    });
    Ok((summary, lines))
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

/// One trial's verdict; a failed run is an infrastructure error, as the
/// official runner records a simulation that raised on every retry.
fn verdict(domain: &DomainData, task: &Task, t: &TrialRecord<'_>) -> TrialVerdictLine {
    let mut line = TrialVerdictLine {
        id: t.id.to_string(),
        task_id: t.task_id.to_string(),
        trial: t.trial,
        termination_reason: TerminationReason::InfrastructureError,
        reward: None,
        reward_without_nl: None,
        status: "evaluator_raised".into(),
        note: None,
    };
    let Some(record) = t.record else {
        line.note = Some("the conversation failed (see the prediction's error)".into());
        return line;
    };
    let termination: Option<TerminationReason> =
        serde_json::from_value(record["termination_reason"].clone()).ok();
    let messages: Option<Vec<Message>> = serde_json::from_value(record["messages"].clone()).ok();
    let (Some(termination), Some(messages)) = (termination, messages) else {
        line.note = Some("the conversation's record cannot be read".into());
        return line;
    };
    line.termination_reason = termination;
    line.note = record["note"].as_str().map(str::to_string);
    match evaluate_trial(domain, task, termination, &messages, None) {
        Ok(info) => {
            line.reward = info.reward;
            line.reward_without_nl = info.reward_without_nl;
            line.status = match info.status {
                RewardStatus::Computed => "computed",
                RewardStatus::ZeroWithoutNl => "zero_without_nl",
                RewardStatus::NeedsNlJudge => "needs_nl_judge",
            }
            .into();
        }
        Err(why) => line.note = Some(why),
    }
    line
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
            row.extend((1..=ks).map(|k| fraction_percent_or_na(r[key][k.to_string()].as_f64())));
            t.push(row);
        }
    }
    let unjudged: usize = results
        .iter()
        .map(|r| r["needs_nl_judge"].as_u64().unwrap_or(0) as usize)
        .sum();
    format!(
        "τ³-bench {}, official evaluator: average reward and pass^k (%)\n\
         {unjudged} trial(s) need an NL judge: counted as failed in the first row of each model, \
         rewarded without their NL assertions in the second.\n\n{}\n",
        domain.as_str(),
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
    let (mut summary, lines) = score_trials(data, &results.tasks, &trials, num_trials)
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
