//! Running models over tasks: bounded concurrency and rate limits per
//! model, retries, the response cache, and one prediction per task written
//! to `predictions.jsonl` as soon as it is known.
//!
//! Every task ends with a prediction: an answer, or an error with its kind
//! and message. A task whose worker dies (a bug) still gets an `internal`
//! error prediction; nothing is dropped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::dialogue::{Asker, SharedAsker, answer_in_dialogue};
use super::outcome::{Outcome, answer_prediction, error_prediction, stop_for_unreachable};
use super::progress::Progress;
use super::stats::{ModelStats, PredictionFigures, TaskTiming};
use super::steps::StepRun;
use super::steps::run::{answer_in_steps, baseline_in_steps};
use super::store::{KeptPrediction, PredictionStore};
use crate::models::backend::{Answer, Served};
use crate::models::batch::{RequestLabel, Transport};
use crate::models::cache::Cache;
use crate::models::exchange::{
    InFlight, ModelContext, ModelSpec, SlotPools, exchange, http_client, open_cache,
};
use crate::models::http::{ErrorKind, Failure};
use crate::spec::records::Task;

/// Where and how a run happens.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Directory of `predictions.jsonl`.
    pub run_dir: PathBuf,
    /// Response cache directory; `None` for no cache.
    pub cache_dir: Option<PathBuf>,
    /// Continue an existing `predictions.jsonl` (skip finished tasks, retry errored ones).
    pub resume: bool,
    /// Draw a progress bar (only when stderr is a terminal).
    pub show_progress: bool,
    /// Ask each task step by step (SPEC §6) instead of once.
    pub steps: Option<Arc<StepRun>>,
    /// The benchmark that asks its tasks itself, when it does
    /// ([`crate::run::dialogue`]).
    pub asker: Option<SharedAsker>,
    /// Send requests, or write them to batch files, or answer them from
    /// batch results.
    pub transport: Transport,
}

/// What resuming found in the existing predictions file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResumeSummary {
    /// Finished predictions kept.
    pub kept: usize,
    /// Errored predictions removed; their tasks ran again.
    pub errored: usize,
    /// Repeated or unparsable lines removed.
    pub discarded: usize,
    /// Bytes of a torn last line cut off.
    pub torn_bytes: usize,
}

/// The result of [`run`].
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The predictions file.
    pub predictions: PathBuf,
    /// Figures per model, in the order given.
    pub models: Vec<ModelStats>,
    /// What resuming found, when the run resumed.
    pub resume: Option<ResumeSummary>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Most predictions written at once.
const MAX_BATCH: usize = 256;

/// The name of the predictions file inside a run directory.
pub const PREDICTIONS_FILE: &str = "predictions.jsonl";

/// The predictions file of a run directory.
pub fn predictions_path(run_dir: &Path) -> PathBuf {
    run_dir.join(PREDICTIONS_FILE)
}

struct Done {
    model: usize,
    task: usize,
    outcome: Outcome,
}

/// Runs every model on every task not yet finished in the run directory
/// and appends the predictions to `RUN_DIR/predictions.jsonl`.
pub async fn run(
    tasks: &[Task],
    models: &[ModelSpec],
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    run_shared(Arc::new(tasks.to_vec()), models, options).await
}

/// [`run`] on tasks the caller hands over (or shares): the workers use them
/// as they are, without copying every task first.
pub async fn run_shared(
    tasks: Arc<Vec<Task>>,
    models: &[ModelSpec],
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    let started = Instant::now();
    std::fs::create_dir_all(&options.run_dir)
        .with_context(|| format!("creating {}", options.run_dir.display()))?;
    let path = predictions_path(&options.run_dir);
    let (store, resumed) = PredictionStore::open(&path, options.resume)?;
    let resume = options.resume.then(|| ResumeSummary {
        kept: resumed.kept.len(),
        errored: resumed.errored,
        discarded: resumed.duplicates + resumed.invalid,
        torn_bytes: resumed.torn_bytes,
    });
    let cache = open_cache(options.cache_dir.as_deref())?;

    let (tx, rx) = mpsc::unbounded_channel::<Done>();
    let finished = resumed.finished();
    let Spawned {
        workers,
        expected,
        in_flight,
    } = spawn_workers(&tasks, models, &finished, cache, options, &tx)?;
    drop(tx);

    let mut collector = Collector::new(
        &tasks,
        models,
        &resumed.kept,
        store,
        options,
        &expected,
        &in_flight,
    );
    let owed = collector.collect(rx, workers, expected, &path).await?;
    collector.record_owed(owed, &tasks, models)?;
    collector.progress.finish();
    let Collector {
        predictions,
        session,
        earlier,
        timings,
        served,
        ..
    } = collector;

    let stats: Vec<ModelStats> = models
        .iter()
        .zip(predictions)
        .zip(served)
        .enumerate()
        .map(|(m, ((spec, figures), served))| {
            let mut figures = figures.stats(&spec.config, tasks.len());
            figures.served_models = served.served_models;
            figures.system_fingerprints = served.system_fingerprints;
            figures.resumed = earlier[m];
            (figures.requests, figures.cache_hits, figures.retries) = session[m];
            figures.set_timings(&timings[m], in_flight[m].most());
            figures
        })
        .collect();
    Ok(RunReport {
        predictions: path,
        models: stats,
        resume,
        elapsed: started.elapsed(),
    })
}

/// A (model, task) pair whose prediction a worker owes.
type Owed = (usize, usize);

/// The workers of a run.
struct Spawned {
    /// The models' feeders, each returning its workers' panics.
    workers: JoinSet<Vec<String>>,
    /// The (model, task) pairs whose predictions the workers owe.
    expected: HashSet<Owed>,
    /// Per model: its requests waiting on the server.
    in_flight: Vec<InFlight>,
}

/// Starts one feeder per model, which starts a worker for each of the
/// model's unfinished tasks, in order; each worker sends its [`Done`] on
/// `tx`. Every task is queued at the same instant, the start of the run,
/// and waits there for one of its model's slots.
fn spawn_workers(
    tasks: &Arc<Vec<Task>>,
    models: &[ModelSpec],
    finished: &HashSet<(String, String)>,
    cache: Option<Cache>,
    options: &RunOptions,
    tx: &mpsc::UnboundedSender<Done>,
) -> anyhow::Result<Spawned> {
    let client = http_client(false)?;
    let loopback_client = http_client(true)?;
    let mut workers = JoinSet::new();
    let mut expected: HashSet<(usize, usize)> = HashSet::new();
    let mut in_flight = Vec::with_capacity(models.len());
    let queued = Instant::now();
    let mut pools = SlotPools::default();
    for (m, spec) in models.iter().enumerate() {
        let mut context = ModelContext::new(
            spec,
            cache.clone(),
            &client,
            &loopback_client,
            options.transport.clone(),
        );
        pools.join(spec, &mut context);
        let context = Arc::new(context);
        in_flight.push(context.in_flight.clone());
        let pending: Vec<usize> = tasks
            .iter()
            .enumerate()
            // Tasks an earlier session answered are done.
            .filter(|(_, task)| !finished.contains(&(spec.config.name.clone(), task.id.clone())))
            .map(|(t, _)| t)
            .collect();
        expected.extend(pending.iter().map(|&t| (m, t)));
        let feeder = Feeder {
            model: m,
            context,
            tasks: Arc::clone(tasks),
            steps: options.steps.clone(),
            asker: options.asker.clone(),
            tx: tx.clone(),
            queued,
        };
        workers.spawn(feeder.feed(pending));
    }
    Ok(Spawned {
        workers,
        expected,
        in_flight,
    })
}

/// What a model's workers share.
struct Feeder {
    model: usize,
    context: Arc<ModelContext>,
    tasks: Arc<Vec<Task>>,
    steps: Option<Arc<StepRun>>,
    asker: Option<SharedAsker>,
    tx: mpsc::UnboundedSender<Done>,
    /// When every task was queued.
    queued: Instant,
}

impl Feeder {
    /// Starts a worker for each task of `pending`, in order, once one of
    /// the model's slots is free for it: a worker exists only while its task
    /// holds a slot, so a run of a million tasks does not hold a million
    /// waiting workers. Returns the panics of its workers.
    async fn feed(self, pending: Vec<usize>) -> Vec<String> {
        let mut running = JoinSet::new();
        let mut panics = Vec::new();
        let mut reap = |joined: Result<(), tokio::task::JoinError>| {
            if let Err(e) = joined
                && e.is_panic()
            {
                panics.push(e.to_string());
            }
        };
        for t in pending {
            let Ok(slot) = Arc::clone(&self.context.slots).acquire_owned().await else {
                break;
            };
            while let Some(joined) = running.try_join_next() {
                reap(joined);
            }
            let (context, tasks, steps, asker, tx) = (
                Arc::clone(&self.context),
                Arc::clone(&self.tasks),
                self.steps.clone(),
                self.asker.clone(),
                self.tx.clone(),
            );
            let (m, queued) = (self.model, self.queued);
            running.spawn(async move {
                let _slot = slot;
                let queue = queued.elapsed();
                let mut outcome =
                    answer(&context, &tasks[t], steps.as_deref(), asker.as_deref()).await;
                if let Some(timing) = &mut outcome.timing {
                    timing.queue = queue;
                    timing.total = queued.elapsed();
                }
                let _ = tx.send(Done {
                    model: m,
                    task: t,
                    outcome,
                });
            });
        }
        while let Some(joined) = running.join_next().await {
            reap(joined);
        }
        panics
    }
}

/// What the run has received so far: the store it appends to, the progress
/// bar, and per model its predictions and this session's request figures.
struct Collector {
    store: PredictionStore,
    progress: Progress,
    /// Per model: requests, cache hits, retries of this session.
    session: Vec<(u64, u64, u64)>,
    /// Per model: the figures of its predictions for the selected tasks,
    /// earlier ones included (the predictions themselves are on disk).
    predictions: Vec<PredictionFigures>,
    /// Per model: how many predictions came from an earlier session.
    earlier: Vec<usize>,
    /// Per model: where the time of this session's tasks went.
    timings: Vec<Vec<TaskTiming>>,
    /// Per model: who answered this session's tasks (the served-model and
    /// fingerprint counts of [`ModelStats`]).
    served: Vec<ModelStats>,
}

impl Collector {
    fn new(
        tasks: &[Task],
        models: &[ModelSpec],
        kept: &[KeptPrediction],
        store: PredictionStore,
        options: &RunOptions,
        expected: &HashSet<(usize, usize)>,
        in_flight: &[InFlight],
    ) -> Collector {
        let selected: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        let predictions: Vec<PredictionFigures> = models
            .iter()
            .map(|spec| {
                let mut figures = PredictionFigures::default();
                kept.iter()
                    .filter(|p| {
                        p.model == spec.config.name && selected.contains(p.task_id.as_str())
                    })
                    .for_each(|p| figures.add_answer(p.latency_ms, p.usage));
                figures
            })
            .collect();
        Collector {
            store,
            progress: Progress::new(
                expected.len() as u64,
                options.show_progress,
                in_flight.to_vec(),
            ),
            session: vec![(0, 0, 0); models.len()],
            timings: vec![Vec::new(); models.len()],
            served: vec![ModelStats::default(); models.len()],
            earlier: predictions.iter().map(PredictionFigures::len).collect(),
            predictions,
        }
    }

    /// Appends a batch in one write, then counts it.
    fn record(&mut self, batch: Vec<Done>) -> anyhow::Result<()> {
        self.store
            .append_all(batch.iter().map(|done| &done.outcome.prediction))?;
        for done in batch {
            let (requests, retries) = done
                .outcome
                .timing
                .map_or((0, 0), |t| (t.requests, t.retries));
            self.progress.record(&done.outcome.prediction, requests);
            let s = &mut self.session[done.model];
            s.0 += u64::from(requests);
            s.1 += u64::from(done.outcome.cache_hit);
            s.2 += u64::from(retries);
            self.timings[done.model].extend(done.outcome.timing);
            self.served[done.model].add_served(&done.outcome.served);
            self.predictions[done.model].add(&done.outcome.prediction);
        }
        Ok(())
    }

    /// Receives until every worker is done (or Ctrl-C), writing in batches:
    /// everything that arrived while the previous batch was written goes out
    /// in one write. Returns the (model, task) pairs still owed, sorted.
    async fn collect(
        &mut self,
        mut rx: mpsc::UnboundedReceiver<Done>,
        mut workers: JoinSet<Vec<String>>,
        mut expected: HashSet<(usize, usize)>,
        path: &Path,
    ) -> anyhow::Result<Vec<(usize, usize)>> {
        let interrupt = tokio::signal::ctrl_c();
        tokio::pin!(interrupt);
        loop {
            tokio::select! {
                received = rx.recv() => {
                    let Some(first) = received else { break };
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH
                        && let Ok(done) = rx.try_recv()
                    {
                        batch.push(done);
                    }
                    // One result per spawned worker, so nothing is ever dropped here.
                    batch.retain(|done| expected.remove(&(done.model, done.task)));
                    // A server never reached stops the run; what it failed is not kept.
                    let stop = batch.iter().find_map(|done| done.outcome.stop.clone());
                    batch.retain(|done| done.outcome.stop.is_none());
                    self.record(batch)?;
                    if let Some(stop) = stop {
                        workers.abort_all();
                        self.progress.finish();
                        anyhow::bail!(stop);
                    }
                }
                _ = &mut interrupt => {
                    workers.abort_all();
                    self.progress.finish();
                    anyhow::bail!(
                        "interrupted; the finished predictions are in {}: continue with --resume",
                        path.display()
                    );
                }
            }
        }
        // Workers that died without a result still owe a prediction.
        while let Some(joined) = workers.join_next().await {
            let panics = match joined {
                Ok(panics) => panics,
                Err(e) if e.is_panic() => vec![e.to_string()],
                Err(_) => Vec::new(),
            };
            for e in panics {
                self.progress.println(&format!("a worker panicked: {e}"));
            }
        }
        let mut owed: Vec<(usize, usize)> = expected.into_iter().collect();
        owed.sort_unstable();
        Ok(owed)
    }

    /// Records an internal error for each task whose worker stopped without
    /// a result, so that every task has a prediction.
    fn record_owed(
        &mut self,
        owed: Vec<(usize, usize)>,
        tasks: &[Task],
        models: &[ModelSpec],
    ) -> anyhow::Result<()> {
        for (m, t) in owed {
            let failure = Failure::new(
                ErrorKind::Internal,
                "the task's worker stopped without a result",
            );
            let prediction = error_prediction(
                &models[m].config,
                &tasks[t],
                &failure,
                0,
                models[m].key.as_ref(),
            );
            let outcome = Outcome {
                prediction,
                cache_hit: false,
                timing: None,
                stop: None,
                served: Served::default(),
            };
            self.record(vec![Done {
                model: m,
                task: t,
                outcome,
            }])?;
        }
        Ok(())
    }
}

/// Answers one task: from the baseline, the cache, or the server with
/// retries; step by step when `steps` is given; through the benchmark's
/// dialogue when `asker` has one for it.
async fn answer(
    context: &ModelContext,
    task: &Task,
    steps: Option<&StepRun>,
    asker: Option<&dyn Asker>,
) -> Outcome {
    if let (Some(asker), Some(api)) = (asker, &context.api) {
        match asker.dialogue(task, &context.config) {
            Ok(Some(dialogue)) => {
                let peer = asker.peer();
                return answer_in_dialogue(context, api.as_ref(), task, dialogue, peer).await;
            }
            Ok(None) => {}
            Err(e) => {
                let failure = Failure::new(ErrorKind::Internal, format!("{e:#}"));
                return Outcome {
                    prediction: error_prediction(&context.config, task, &failure, 0, None),
                    cache_hit: false,
                    timing: Some(TaskTiming::default()),
                    stop: None,
                    served: Served::default(),
                };
            }
        }
    }
    let api = match (&context.api, steps) {
        (None, None) => return baseline(context, task),
        (None, Some(run)) => return baseline_in_steps(context, task, run).await,
        (Some(api), Some(run)) => return answer_in_steps(context, api.as_ref(), task, run).await,
        (Some(api), None) => api,
    };
    let label = RequestLabel {
        task_id: &task.id,
        step: 0,
        sample: 0,
    };
    let exchange = exchange(context, api.as_ref(), &api.build(task), Some(label)).await;
    let mut served = Served::default();
    let (prediction, stop) = match exchange.result {
        Ok((mut answer, latency_ms)) => {
            served = std::mem::take(&mut answer.served);
            let requests = exchange.requests;
            let prediction = answer_prediction(&context.config, task, answer, latency_ms, requests);
            (prediction, None)
        }
        Err(failure) => (
            error_prediction(
                &context.config,
                task,
                &failure,
                exchange.requests,
                context.key.as_ref(),
            ),
            stop_for_unreachable(&context.config, &failure, context.key.as_ref()),
        ),
    };
    Outcome {
        prediction,
        cache_hit: exchange.cache_hit,
        timing: Some(TaskTiming {
            server: exchange.server,
            throttle: exchange.throttle,
            requests: exchange.requests,
            retries: exchange.requests.saturating_sub(1),
            ..TaskTiming::default()
        }),
        stop,
        served,
    }
}

/// The offline baseline's answer (`src/baseline.rs`: gold-blind, no
/// network). Should it panic, the task still ends with an `internal` error.
fn baseline(context: &ModelContext, task: &Task) -> Outcome {
    let started = Instant::now();
    let answer = Answer {
        output: Some(crate::models::providers::baseline::respond(task)),
        ..Answer::default()
    };
    let latency_ms = started.elapsed().as_millis() as u64;
    Outcome {
        prediction: answer_prediction(&context.config, task, answer, latency_ms, 0),
        cache_hit: false,
        timing: Some(TaskTiming::default()),
        stop: None,
        served: Served::default(),
    }
}

#[cfg(test)]
mod tests {
    use crate::models::http::is_loopback;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost/v1"));
        assert!(is_loopback("http://[::1]:1/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("not a url"));
    }
}
