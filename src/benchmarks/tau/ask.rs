//! `itc eval --dataset tau:retail`: each τ task becomes one SPEC task per
//! trial, and each is asked as one official conversation ([`Conversation`])
//! with the model under test as the agent and the user model (the run's
//! peer) as the customer.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Value, json};

use super::Domain;
use super::conversation::{Conversation, ConversationSetup, Limits, TrialId};
use super::domain::DomainData;
use super::format::{Task as TauTask, read_tasks};
use super::pass_k::Intervals;
use super::requests::Party;
use crate::benchmarks::bfcl::task_fields::{language_of, tool_of};
use crate::benchmarks::python::random::PyRandom;
use crate::models::batch::Transport;
use crate::models::cache::CacheSetting;
use crate::models::chat::ChatModel;
use crate::models::config::{
    AD_HOC_MAX_TOKENS, Backend, ConfigFile, DEFAULT_MAX_TOKENS, ModelConfig,
};
use crate::models::exchange::ModelSpec;
use crate::run::dialogue::{Asker, Dialogue};
use crate::spec::records::{Call, Gold, Task, TaskKind};

/// `DEFAULT_SEED` (`src/tau2/config.py`): the seed the trials' seeds come from.
pub const DEFAULT_SEED: i64 = 300;

/// The trials' seeds as `run_tasks` draws them: `random.seed(seed)`, then
/// `random.randint(0, 1000000)` per trial.
pub fn trial_seeds(seed: i64, trials: usize) -> Vec<i64> {
    let mut random = PyRandom::new(i128::from(seed));
    (0..trials)
        .map(|_| {
            let drawn = random.randint(0, 1_000_000).expect("0 <= 1000000");
            i64::try_from(drawn).expect("at most 1000000")
        })
        .collect()
}

/// The SPEC tasks of a domain's `tasks.json` (`files[0]`): one per task and
/// trial, in task order then trial order, each trial with the seed
/// [`trial_seeds`] gives it.
pub fn convert(domain: Domain, files: &[PathBuf], trials: usize) -> anyhow::Result<Vec<Task>> {
    Ok(convert_keeping(domain, files, trials)?.1)
}

/// [`convert`], with the τ tasks read.
pub fn convert_keeping(
    domain: Domain,
    files: &[PathBuf],
    trials: usize,
) -> anyhow::Result<(Vec<TauTask>, Vec<Task>)> {
    let path = files.first().context("τ³-bench: no tasks file given")?;
    let tasks = read_tasks(path)?;
    let tools = DomainData::of(domain)?.tools.clone();
    let seeds = trial_seeds(DEFAULT_SEED, trials);
    let mut out = Vec::with_capacity(tasks.len() * trials);
    for task in &tasks {
        for (trial, &seed) in seeds.iter().enumerate() {
            out.push(trial_task(domain.as_str(), task, trial, seed, &tools)?);
        }
    }
    Ok((tasks, out))
}

/// Most trials per task (`--trials`).
pub const MAX_TRIALS: usize = 100;

/// A τ³-bench run's settings (`itc eval --dataset tau:…`).
#[derive(Debug, Clone, PartialEq)]
pub struct TauRun {
    /// The user model: a model of `models_file`.
    pub user_model: Option<String>,
    /// The models file it is read from.
    pub models_file: Option<PathBuf>,
    /// Trials per task.
    pub trials: usize,
    /// The conversation's limits.
    pub limits: Limits,
    /// Per model under test: its temperature and output limit as the user set them.
    pub given: Vec<(String, Option<f64>, Option<u32>)>,
    /// The domain's tasks (set by the run's conversion).
    pub tasks: Vec<TauTask>,
    /// The NL-assertion judge: a model of `models_file`.
    pub nl_judge: Option<String>,
    /// The response cache of the run (the user model's and the judge's).
    pub cache: CacheSetting,
    /// The bootstrap of pass^k's intervals.
    pub intervals: Intervals,
}

impl Default for TauRun {
    fn default() -> Self {
        TauRun {
            user_model: None,
            models_file: None,
            trials: 1,
            limits: Limits::default(),
            given: Vec::new(),
            tasks: Vec::new(),
            nl_judge: None,
            cache: CacheSetting::Default,
            intervals: Intervals::default(),
        }
    }
}

impl TauRun {
    /// Checks the settings before anything is asked, and notes the
    /// sampling the user set for `models` (before itc's defaults apply).
    pub fn checked(mut self, models: &[ModelConfig]) -> anyhow::Result<TauRun> {
        let Some(user) = &self.user_model else {
            anyhow::bail!(
                "τ³-bench needs a user simulator: give --user-model NAME (a model of --config)"
            );
        };
        anyhow::ensure!(
            self.models_file.is_some(),
            "--user-model {user}: the user model is read from a models file: give --config FILE"
        );
        anyhow::ensure!(
            (1..=MAX_TRIALS).contains(&self.trials),
            "--trials {}: from 1 to {MAX_TRIALS}",
            self.trials
        );
        anyhow::ensure!(
            self.limits.max_steps > 0 && self.limits.max_errors > 0,
            "--max-steps and --max-errors must be at least 1"
        );
        if let (Some(judge), Some(file)) = (&self.nl_judge, &self.models_file) {
            let config = ConfigFile::load_one(file, judge)?;
            anyhow::ensure!(
                config.backend != Backend::Baseline,
                "--nl-judge {judge}: the offline baseline cannot judge"
            );
        }
        self.given = models
            .iter()
            .map(|m| {
                let (t, max) = given_sampling(m);
                (m.name.clone(), t, max)
            })
            .collect();
        Ok(self)
    }

    /// The run's asker: the user model (its replies cached in `cache_dir`,
    /// its requests travelling by `transport` as the run's do: an emitting
    /// run writes them to the batch files too, with no key needed).
    pub fn asker(
        &self,
        domain: Domain,
        cache_dir: Option<&Path>,
        transport: &Transport,
    ) -> anyhow::Result<TauAsker> {
        let (Some(name), Some(file)) = (&self.user_model, &self.models_file) else {
            anyhow::bail!("τ³-bench needs --user-model NAME and --config FILE");
        };
        if let (Some(judge), false) = (&self.nl_judge, matches!(transport, Transport::Send)) {
            anyhow::bail!(
                "--nl-judge {judge}: the judge is asked once the conversations have ended, not through \
                 batch files; leave it out of the batch rounds, then give it to a last `--resume` \
                 run without --emit-batch or --import-batch"
            );
        }
        let config = ConfigFile::load_one(file, name)?;
        let user_sampling = given_sampling(&config);
        let spec = match transport {
            Transport::Emit(_) => ModelSpec::resolve_without_key(config)?,
            _ => ModelSpec::resolve(config)?,
        };
        let user = ChatModel::with_transport(&spec, cache_dir, transport.clone())?;
        Ok(TauAsker {
            domain,
            tasks: self
                .tasks
                .iter()
                .map(|t| (t.id.clone(), t.clone()))
                .collect(),
            user,
            user_sampling,
            given: self.given.clone(),
            limits: self.limits,
        })
    }
}

/// The SPEC task of one trial of a τ task: the tools the agent gets, the
/// gold actions as gold calls, the scenario's reason for calling as the
/// query, and in `gold.official` what the conversation needs.
pub fn trial_task(
    domain: &str,
    task: &TauTask,
    trial: usize,
    seed: i64,
    tools: &[Value],
) -> anyhow::Result<Task> {
    let scenario = serde_json::to_value(&task.user_scenario)?;
    let query = scenario
        .pointer("/instructions/reason_for_call")
        .or_else(|| scenario.get("instructions"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let calls: Vec<Call> = task
        .evaluation_criteria
        .iter()
        .flat_map(|c| c.actions.iter().flatten())
        .map(|a| {
            crate::models::backend::native_call(
                &a.name,
                Some(&Value::Object(a.arguments.clone())),
                &Default::default(),
            )
        })
        .collect();
    let tools = tools
        .iter()
        .map(|t| tool_of(&t["function"]))
        .collect::<anyhow::Result<Vec<_>>>()
        .context("the domain's tool schemas")?;
    Ok(Task {
        id: format!("{domain}-{}-t{trial}", task.id),
        kind: TaskKind::of_calls(&calls),
        language: language_of(&query),
        country: "GLOBAL".into(),
        category: domain.to_string(),
        query,
        tools,
        gold: Gold {
            thought: String::new(),
            calls,
            official: Some(
                json!({"domain": domain, "task_id": task.id, "trial": trial, "seed": seed}),
            ),
        },
        turns: Vec::new(),
    })
}

/// The asker of a τ run: the domain's tasks, the user model and the
/// sampling the user set for each model under test.
pub struct TauAsker {
    /// The domain.
    pub domain: Domain,
    /// The domain's tasks by id (a repeated id: the last).
    pub tasks: HashMap<String, TauTask>,
    /// The user simulator.
    pub user: ChatModel,
    /// The user model's temperature and output limit as the user set them.
    pub user_sampling: (Option<f64>, Option<u32>),
    /// Per model under test: its temperature and output limit as the user set them.
    pub given: Vec<(String, Option<f64>, Option<u32>)>,
    /// The conversation's limits.
    pub limits: Limits,
}

impl std::fmt::Debug for TauAsker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TauAsker")
            .field("tasks", &self.tasks.len())
            .field("user", &self.user.name())
            .finish()
    }
}

/// A model's temperature and output limit as the user set them: the
/// temperature when given, the limit when it differs from itc's defaults.
pub fn given_sampling(config: &ModelConfig) -> (Option<f64>, Option<u32>) {
    let defaults = [DEFAULT_MAX_TOKENS, AD_HOC_MAX_TOKENS];
    (
        config.temperature,
        (!defaults.contains(&config.max_tokens)).then_some(config.max_tokens),
    )
}

impl Asker for TauAsker {
    fn dialogue(
        &self,
        task: &Task,
        config: &ModelConfig,
    ) -> anyhow::Result<Option<Box<dyn Dialogue>>> {
        let official = task
            .gold
            .official
            .as_ref()
            .with_context(|| format!("task {}: no τ trial in gold.official", task.id))?;
        let task_id = official["task_id"].as_str().unwrap_or_default();
        let tau_task = self
            .tasks
            .get(task_id)
            .with_context(|| format!("task {}: no τ task {task_id:?}", task.id))?;
        let trial = official["trial"].as_u64().unwrap_or(0) as usize;
        let seed = official["seed"].as_i64();
        let (temperature, max_tokens) = self
            .given
            .iter()
            .find(|(name, ..)| *name == config.name)
            .map_or((None, None), |(_, t, m)| (*t, *m));
        let agent = Party::of_model(config, temperature, max_tokens, seed)
            .context("the offline baseline cannot play τ-bench's agent")?;
        let user = Party::of_model(
            self.user.config(),
            self.user_sampling.0,
            self.user_sampling.1,
            seed,
        )
        .context("the offline baseline cannot play τ-bench's user")?;
        let domain = DomainData::of(self.domain)?;
        let tools = domain.tools_for(agent.dialect)?;
        Ok(Some(Box::new(Conversation::new(ConversationSetup {
            trial: TrialId {
                task_id: task_id.to_string(),
                trial,
                seed,
            },
            agent,
            user,
            policy: domain.policy.clone(),
            tools,
            user_scenario: serde_json::to_value(&tau_task.user_scenario)?,
            environment: domain.fresh_environment()?,
            limits: self.limits,
        }))))
    }

    fn peer(&self) -> Option<&ChatModel> {
        Some(&self.user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `random.seed(300); [random.randint(0, 1000000) for _ in range(4)]`
    /// in CPython 3.12.
    #[test]
    fn trial_seeds_are_pythons() {
        assert_eq!(trial_seeds(300, 4), [626_729, 373_753, 361_454, 1_567]);
        assert_eq!(trial_seeds(300, 1), [626_729]);
    }
}
