//! Every judge on every model's every task: one flow a task (in
//! [`super::flows`]), at the judges' concurrency; the figures per judge and
//! model.

use std::sync::Arc;

use anyhow::Context;
use tokio::task::JoinSet;

use super::ask::{About, Judge};
use super::flows::{self, Answer, FlowSettings, Tally, Vote};
use super::input::RunInput;
use super::labels;
use super::ledger::Settings;
use super::summary::{self, ModelFigures};
use super::{Metric, TaskOutcome};
use crate::run::progress::{Progress, TaskDone};

/// What every task's flow shares.
#[derive(Clone)]
pub struct Job {
    /// The metric.
    pub metric: Metric,
    /// The folder's settings.
    pub settings: Settings,
    /// The run judged.
    pub candidate: Arc<RunInput>,
    /// The reference run (win rate).
    pub reference: Option<Arc<RunInput>>,
}

/// Every judge on every model's every task, at the judges' concurrency,
/// with a progress bar on stderr when `show_progress` (and stderr is a
/// terminal): tasks done of all, their pace, the requests in flight and sent.
pub async fn judge_all(
    job: Job,
    judges: Vec<Arc<Judge>>,
    show_progress: bool,
) -> anyhow::Result<(Vec<ModelFigures>, Vec<anyhow::Error>)> {
    let reference_model = match &job.reference {
        Some(r) => Some(
            r.models
                .first()
                .cloned()
                .with_context(|| format!("{}: the reference run has no model", r.dir.display()))?,
        ),
        None => None,
    };
    let judged: Vec<usize> = (0..job.candidate.tasks.len())
        // SoPR scores only the tasks marked solvable.
        .filter(|&i| {
            job.metric != Metric::Sopr
                || !job
                    .candidate
                    .unsolvable
                    .contains(&job.candidate.tasks[i].id)
        })
        .collect();
    let flows = judges.len() * job.candidate.models.len() * judged.len();
    let in_flight = judges.iter().map(|j| j.model.in_flight()).collect();
    let mut progress = Progress::new(flows as u64, show_progress, in_flight);
    let mut figures = Vec::new();
    let mut failures = Vec::new();
    for judge in &judges {
        for model in &job.candidate.models {
            let mut workers = JoinSet::new();
            for &index in &judged {
                let (job, judge, model) = (job.clone(), Arc::clone(judge), model.clone());
                let reference_model = reference_model.clone();
                workers.spawn(async move {
                    let r =
                        task_flow(&job, &judge, &model, reference_model.as_deref(), index).await;
                    (index, r)
                });
            }
            let mut outcomes = vec![None; job.candidate.tasks.len()];
            let mut unreadable = 0;
            while let Some(joined) = workers.join_next().await {
                let done = match joined {
                    Ok((index, Ok((outcome, tally)))) => {
                        outcomes[index] = Some(outcome);
                        unreadable += tally.unreadable;
                        tally.task_done(false)
                    }
                    Ok((_, Err((e, tally)))) => {
                        failures.push(e);
                        tally.task_done(true)
                    }
                    Err(e) => {
                        failures.push(anyhow::anyhow!("a task's worker stopped: {e}"));
                        TaskDone {
                            error: true,
                            ..TaskDone::default()
                        }
                    }
                };
                progress.task_done(done);
            }
            let outcomes: Vec<TaskOutcome> = outcomes.into_iter().flatten().collect();
            let mut f = summary::figures(job.metric, model, &outcomes, unreadable);
            f.judge = judge.name().to_string();
            f.judge_model = judge.model_id.clone();
            figures.push(f);
        }
    }
    progress.finish();
    Ok((figures, failures))
}

/// The requests of one task for one judge and model; what the flow met,
/// with its outcome or its first failure.
async fn task_flow(
    job: &Job,
    judge: &Judge,
    model: &str,
    reference_model: Option<&str>,
    index: usize,
) -> Result<(TaskOutcome, Tally), (anyhow::Error, Tally)> {
    let task = &job.candidate.tasks[index];
    let answer = Answer::new(task, job.candidate.prediction(model, &task.id));
    let flow = FlowSettings {
        seed: job.settings.seed,
    };
    let mut tally = Tally::default();
    // Samples are independent: one whose request failed (or was written to
    // a batch file) does not stop the others.
    let mut failed: Option<anyhow::Error> = None;
    let about = |sample| About {
        task: &task.id,
        model,
        side: None,
        sample,
        stage: labels::Stage::AnswerStatus,
    };
    let outcome = match job.metric {
        Metric::PassRate => {
            let (mut passes, mut fails) = (0, 0);
            for k in 1..=job.settings.samples {
                match flows::pass_sample(judge, &about(k), &answer, flow, &mut tally).await {
                    Ok(s) if s.passed => passes += 1,
                    Ok(_) => fails += 1,
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Pass {
                passes,
                fails,
                predicted: answer.prediction.is_some(),
            }
        }
        Metric::Sopr => {
            let mut runs = Vec::new();
            for k in 1..=job.settings.runs {
                match flows::answer_status(judge, &about(k), &answer, &mut tally).await {
                    Ok(status) => runs.push(status),
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Sopr(runs)
        }
        Metric::WinRate => {
            let reference = job.reference.as_ref().expect("win rate has a reference");
            let theirs = reference
                .tasks
                .iter()
                .find(|t| t.id == task.id)
                .unwrap_or(task);
            let other = Answer::new(
                theirs,
                reference_model.and_then(|m| reference.prediction(m, &task.id)),
            );
            let (mut candidate, mut refr) = (0, 0);
            for k in 1..=job.settings.rounds {
                match flows::win_round(judge, &about(k), [&answer, &other], flow, &mut tally).await
                {
                    Ok(Vote::Candidate) => candidate += 1,
                    Ok(Vote::Reference) => refr += 1,
                    Ok(Vote::Neither) => {}
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            TaskOutcome::Win {
                candidate,
                reference: refr,
            }
        }
        Metric::Toolalpaca => {
            match flows::toolalpaca(judge, &about(1), &answer, &mut tally).await {
                Ok(verdict) => TaskOutcome::Toolalpaca(verdict),
                Err(e) => return Err((e, tally)),
            }
        }
    };
    match failed {
        Some(e) => Err((e, tally)),
        None => Ok((outcome, tally)),
    }
}
