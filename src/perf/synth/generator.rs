//! The [`Generator`]: one seeded rng, the tasks drawn from it, the synthetic
//! models ([`ModelProfile`]) and the loop that has every model answer every
//! task (the answers themselves are written in `predictions`).

use fastrand::Rng;

use super::SynthSpec;
use super::domain::{Domain, Refusal, Topic};
use super::phrases::{LANGUAGES, fill};
use super::style::AnswerStyle;
use super::tasks::{TaskExtras, make_task};
use crate::spec::records::{Prediction, Task};

/// Model names are these families with a fine-tune number.
const MODEL_FAMILIES: [&str; 12] = [
    "qwen2.5-7b-instruct",
    "llama-3.1-8b-instruct",
    "gpt-4o-mini",
    "mistral-7b-instruct-v0.3",
    "glm-4-9b-chat",
    "gemma-2-9b-it",
    "deepseek-v3",
    "internlm2.5-7b-chat",
    "yi-1.5-9b-chat",
    "phi-3.5-mini-instruct",
    "aya-expanse-8b",
    "command-r-08-2024",
];

/// Topics of the thoughts a wrong-language answer borrows, one per thought
/// template (each with the place of the same position).
const FOREIGN_TOPICS: [Topic; 3] = [
    Topic::Domain(Domain::Weather),
    Topic::Domain(Domain::Translate),
    Topic::Domain(Domain::News),
];

/// How one synthetic model answers.
pub(super) struct ModelProfile {
    name: String,
    /// Cumulative style weights, in [`AnswerStyle::ALL`] order, summing to 1.
    cumulative: [f64; AnswerStyle::ALL.len()],
    /// Chance a format-style answer also gets its content wrong.
    pub(super) sloppiness: f64,
}

/// Everything drawn so far, and the rng the predictions continue to draw from.
pub(super) struct Generator {
    pub(super) rng: Rng,
    pub(super) tasks: Vec<Task>,
    /// What each task's predictions reuse, by task index.
    pub(super) extras: Vec<TaskExtras>,
    pub(super) models: Vec<ModelProfile>,
    /// Per language, thoughts of the other languages (for `WrongLanguage`).
    pub(super) foreign: Vec<Vec<String>>,
    /// Per language, refusals in the other languages.
    pub(super) foreign_refusals: Vec<Vec<String>>,
}

impl Generator {
    /// Draws the tasks, then the models, from `spec.seed`.
    pub(super) fn new(spec: &SynthSpec) -> Generator {
        let mut rng = Rng::with_seed(spec.seed);
        let mut tasks = Vec::with_capacity(spec.tasks);
        let mut extras = Vec::with_capacity(spec.tasks);
        for i in 0..spec.tasks {
            let (task, extra) = make_task(&mut rng, i);
            tasks.push(task);
            extras.push(extra);
        }
        let models = (0..spec.models).map(|m| make_model(&mut rng, m)).collect();
        Generator {
            rng,
            tasks,
            extras,
            models,
            foreign: foreign_thoughts(),
            foreign_refusals: foreign_refusals(),
        }
    }

    /// Calls `f` with every prediction, model by model, each in task order.
    pub(super) fn for_each_prediction(&mut self, mut f: impl FnMut(&Prediction, AnswerStyle)) {
        // Built from the minimal record so optional fields added later stay unset.
        let mut prediction: Prediction = serde_json::from_str(r#"{"task_id": "", "model": ""}"#)
            .expect("minimal prediction reads");
        let mut scratch = String::new();
        for m in 0..self.models.len() {
            prediction.model.clear();
            prediction.model.push_str(&self.models[m].name);
            for t in 0..self.tasks.len() {
                prediction.task_id.clear();
                prediction.task_id.push_str(&self.tasks[t].id);
                let style = self.fill_prediction(m, t, &mut prediction, &mut scratch);
                f(&prediction, style);
            }
        }
    }

    /// Draws the style of `model`'s next answer.
    pub(super) fn pick_style(&mut self, model: usize) -> AnswerStyle {
        let u = self.rng.f64();
        let cumulative = &self.models[model].cumulative;
        let i = cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(cumulative.len() - 1);
        AnswerStyle::ALL[i]
    }
}

/// Per language, the thoughts of every other language.
fn foreign_thoughts() -> Vec<Vec<String>> {
    (0..LANGUAGES.len())
        .map(|own| {
            LANGUAGES
                .iter()
                .enumerate()
                .filter(|(l, _)| *l != own)
                .flat_map(|(_, lang)| {
                    lang.thoughts
                        .iter()
                        .enumerate()
                        .map(|(k, t)| fill(t, lang.topic(FOREIGN_TOPICS[k]), lang.places[k]))
                })
                .collect()
        })
        .collect()
}

/// Per language, the refusals of every other language.
fn foreign_refusals() -> Vec<Vec<String>> {
    (0..LANGUAGES.len())
        .map(|own| {
            LANGUAGES
                .iter()
                .enumerate()
                .filter(|(l, _)| *l != own)
                .map(|(_, lang)| {
                    fill(
                        lang.refusal(Refusal::NoToolServes),
                        lang.topic(Topic::Unsupported),
                        lang.places[0],
                    )
                })
                .collect()
        })
        .collect()
}

/// The `m`-th model: a name and how it leans to each answer style.
fn make_model(rng: &mut Rng, m: usize) -> ModelProfile {
    let family = MODEL_FAMILIES[m % MODEL_FAMILIES.len()];
    let name = format!("{family}-ft{m:03}");
    let skill = 0.4 + 1.6 * rng.f64(); // multiplies content errors
    let format = 0.3 + 2.2 * rng.f64(); // multiplies format deviations
    let native = if rng.f64() < 0.2 { 6.0 } else { 0.3 };
    let wrong_language = 0.3 + 2.7 * rng.f64();
    let errors = 0.2 + 2.8 * rng.f64();
    let weights: Vec<f64> = AnswerStyle::ALL
        .iter()
        .map(|s| {
            use AnswerStyle::*;
            let factor = match s {
                StrictCorrect => 1.0,
                WrongTool | WrongValue | MissingArgument | ExtraArgument | Refusal => skill,
                WrongLanguage => wrong_language,
                Fenced | JsonPrefix | ProseWrapped | PythonDict | BareCalls | CallList => format,
                Native => native,
                Error => errors,
            };
            s.base_weight() * factor
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = [0f64; AnswerStyle::ALL.len()];
    let mut running = 0.0;
    for (c, w) in cumulative.iter_mut().zip(&weights) {
        running += w / total;
        *c = running;
    }
    cumulative[AnswerStyle::ALL.len() - 1] = 1.0;
    ModelProfile {
        name,
        cumulative,
        sloppiness: 0.1 * skill,
    }
}
