//! BFCL's multi-turn entries asked as bfcl-eval asks them
//! (`base_handler.inference_multi_turn_FC` / `_prompting`): the user's
//! turns one at a time; within a turn each answer's calls decoded,
//! executed on the entry's API instances and their results sent back,
//! until an answer with no decodable call; more than
//! [`MAXIMUM_STEP_LIMIT`] executed steps in one turn force-terminate the
//! entry (its remaining turns are not asked, and the official checker
//! fails it). The held-out functions of `miss_func` join the tools (and,
//! in prompt mode, the user message) at their turn.
//!
//! The result is recorded as bfcl-eval's result files hold it (per turn,
//! per step, what the model answered) in the prediction's `official`.

use serde_json::Value;

use super::convert::to_spec_value;
use super::files::Question;
use super::multi_turn::apis::Globals;
use super::multi_turn::decode::{StepFormat, decode_step};
use super::multi_turn::exec::Instances;
use super::multi_turn::tasks::{MultiTurnEntry, entry_of};
use super::requests::claude::Claude;
use super::requests::gemini::Gemini;
use super::requests::openai::{OpenAiChat, OpenAiResponses};
use super::requests::{
    CallMode, Conversation, Handler, OFFICIAL_TEMPERATURE, Protocol, Reply, Responses, Sampling,
    official_question,
};
use super::result_decoder::ResultDecoder;
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str, py_repr, py_str};
use crate::models::backend::ApiRequest;
use crate::models::config::{
    AD_HOC_MAX_TOKENS, Backend, DEFAULT_MAX_TOKENS, Mode, ModelConfig, OpenAiApi, PromptStyle,
};
use crate::models::tools::NameMap;
use crate::run::dialogue::{Asker, Dialogue, DialogueEnd, Next};
use crate::spec::records::{Call, Task, Usage};

/// `MAXIMUM_STEP_LIMIT`: executed steps one turn may take.
pub const MAXIMUM_STEP_LIMIT: usize = 20;

/// The BFCL asker of a run: per model, the sampling the user set (the
/// official values otherwise).
#[derive(Debug, Clone, Default)]
pub struct BfclAsker {
    /// Per model name: the temperature and output-length limit the user
    /// set, before itc's defaults were applied.
    pub given: Vec<(String, Option<f64>, Option<u32>)>,
}

impl BfclAsker {
    /// The asker of models configured as `models` (before itc's defaults
    /// are applied: a temperature not set is `None`). An output-length
    /// limit counts as set when it differs from itc's defaults (1024 from
    /// a `models.toml`, 512 from flags): bfcl-eval's OpenAI handlers send
    /// none.
    pub fn for_models(models: &[ModelConfig]) -> BfclAsker {
        let defaults = [DEFAULT_MAX_TOKENS, AD_HOC_MAX_TOKENS];
        BfclAsker {
            given: models
                .iter()
                .map(|m| {
                    let max = (!defaults.contains(&m.max_tokens)).then_some(m.max_tokens);
                    (m.name.clone(), m.temperature, max)
                })
                .collect(),
        }
    }

    fn sampling(&self, config: &ModelConfig) -> Sampling {
        let given = self.given.iter().find(|(name, ..)| *name == config.name);
        Sampling {
            temperature: given
                .and_then(|(_, t, _)| *t)
                .unwrap_or(OFFICIAL_TEMPERATURE),
            max_tokens: given.and_then(|(.., m)| *m),
        }
    }
}

/// The handler of a model, as bfcl-eval's handler for its kind: OpenAI's
/// Responses API or Chat Completions ([`ModelConfig::openai_api`]),
/// Claude, Gemini; in function-calling mode for a `native` model, else in
/// prompt mode. `None` for the baseline, which sends nothing.
pub fn handler_for(config: &ModelConfig) -> Option<Box<dyn Handler>> {
    let mode = match config.mode {
        Mode::Native => CallMode::FunctionCalling,
        _ => CallMode::Prompt,
    };
    match config.backend {
        Backend::Openai => Some(match config.openai_api() {
            OpenAiApi::Responses => Box::new(OpenAiResponses(mode)),
            OpenAiApi::ChatCompletions => Box::new(OpenAiChat(mode)),
        }),
        Backend::Anthropic => Some(Box::new(Claude(mode))),
        Backend::Gemini => Some(Box::new(Gemini(mode))),
        Backend::Baseline => None,
    }
}

/// Whether single-turn tasks are asked BFCL's way of `config`: its prompt
/// style is BFCL's.
fn asks_single_turn(config: &ModelConfig) -> bool {
    config.prompt_style == PromptStyle::Bfcl
}

impl Asker for BfclAsker {
    fn dialogue(
        &self,
        task: &Task,
        config: &ModelConfig,
    ) -> anyhow::Result<Option<Box<dyn Dialogue>>> {
        let entry = entry_of(task)?;
        if entry.is_none() && !asks_single_turn(config) {
            return Ok(None);
        }
        let handler = handler_for(config).ok_or_else(|| {
            anyhow::anyhow!(
                "BFCL: the {} backend cannot be asked the official way",
                config.backend.as_str()
            )
        })?;
        let sampling = self.sampling(config);
        if let Some(entry) = entry {
            return Ok(Some(Box::new(MultiTurnDialogue::new(
                entry, handler, config, sampling,
            ))));
        }
        let question = official_question(task).ok_or_else(|| {
            anyhow::anyhow!(
                "task {}: gold.official holds no BFCL question to ask (convert it again with \
                 `itc ood convert bfcl`)",
                task.id
            )
        })?;
        Ok(Some(Box::new(SingleTurnDialogue {
            request: single_turn_request(handler.as_ref(), &question, config, &sampling),
            handler,
            functions: question.function,
        })))
    }
}

/// The request of a single-turn question (`inference_single_turn_*`).
fn single_turn_request(
    handler: &dyn Handler,
    question: &Question,
    config: &ModelConfig,
    sampling: &Sampling,
) -> ApiRequest {
    let model = config.model_id.clone().unwrap_or_default();
    let body = Protocol::builtin().single_turn_body(handler, question, &model, sampling);
    ApiRequest {
        url: format!("{}{}", config.effective_base_url(), handler.path(&model)),
        headers: handler.headers(),
        body,
        names: NameMap::default(),
        read_by_caller: true,
    }
}

/// A single-turn question: one request, its answer recorded as bfcl-eval
/// records it.
pub struct SingleTurnDialogue {
    request: ApiRequest,
    handler: Box<dyn Handler>,
    /// The question's function docs (their dotted names, for itc's scores).
    functions: Vec<Value>,
}

impl Dialogue for SingleTurnDialogue {
    fn next(&mut self, reply: Option<&Value>) -> Result<Next, String> {
        let Some(body) = reply else {
            return Ok(Next::Send(self.request.clone()));
        };
        let reply = self.handler.read_reply(body)?;
        let (output, calls) = match &reply.responses {
            Responses::Text(text) => (Some(text.clone()), None),
            Responses::Texts(texts) => (Some(texts.concat()), None),
            Responses::Calls(calls) => (None, Some(spec_calls(calls, &self.functions))),
        };
        Ok(Next::Done(DialogueEnd {
            output,
            calls,
            official: Some(reply.responses.to_json()),
            usage: Some(Usage {
                prompt_tokens: reply.tokens.0,
                completion_tokens: reply.tokens.1,
            }),
            reasoning: (!reply.reasoning.is_empty()).then_some(reply.reasoning),
        }))
    }
}

/// Function calls as SPEC calls, for itc's own scores: each name mapped
/// back to the doc it was sent for (`math_factorial` → `math.factorial`),
/// the arguments read as JSON (an argument text that is not a JSON object
/// gives a call without arguments).
fn spec_calls(calls: &[(String, Value)], functions: &[Value]) -> Vec<Call> {
    calls
        .iter()
        .map(|(name, arguments)| {
            let dotted = functions
                .iter()
                .filter_map(|f| f.get("name").and_then(Value::as_str))
                .find(|doc| doc.replace('.', "_") == *name)
                .unwrap_or(name.as_str());
            let text = match arguments {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let arguments = match json_loads_str(&text) {
                Ok(PyValue::Dict(entries)) => entries
                    .iter()
                    .map(|(k, v)| (PyStr(py_str(k)).to_string_lossy(), to_spec_value(v)))
                    .collect(),
                _ => Vec::new(),
            };
            Call::new(dotted.to_string(), arguments)
        })
        .collect()
}

/// One multi-turn entry's conversation.
pub struct MultiTurnDialogue {
    entry: MultiTurnEntry,
    handler: Box<dyn Handler>,
    protocol: &'static Protocol,
    url: String,
    model: String,
    /// The model's kind, which decides how its answers are decoded.
    backend: Backend,
    mode: Mode,
    sampling: Sampling,
    conversation: Conversation,
    /// The functions offered now (held-out ones join at their turn).
    functions: Vec<Value>,
    /// The question's turns as the API takes them.
    turns: Vec<Vec<Value>>,
    instances: Instances,
    globals: Globals,
    turn: usize,
    steps: usize,
    /// What the model answered: per turn, per step.
    answered: Vec<Vec<Value>>,
    tokens: (u64, u64),
    reasoning: Vec<String>,
}

impl MultiTurnDialogue {
    /// The dialogue of `entry` with the model `config` through `handler`.
    pub fn new(
        entry: MultiTurnEntry,
        handler: Box<dyn Handler>,
        config: &ModelConfig,
        sampling: Sampling,
    ) -> MultiTurnDialogue {
        let protocol = Protocol::builtin();
        let (conversation, turns) = protocol.start(handler.as_ref(), &entry.request_question());
        let long_context = entry.category.as_str().contains("long_context");
        // bfcl-eval names inference instances after the model, without `_eval`.
        let instances = Instances::new(entry.question.setup(long_context), &config.name);
        MultiTurnDialogue {
            functions: protocol.with_python_note(&entry.functions),
            entry,
            protocol,
            url: config.effective_base_url(),
            model: config.model_id.clone().unwrap_or_default(),
            backend: config.backend,
            // The handler says how the model is asked (and so how its
            // answers read), whatever the configuration's mode.
            mode: match handler.mode() {
                CallMode::FunctionCalling => Mode::Native,
                CallMode::Prompt => Mode::Prompt,
            },
            sampling,
            conversation,
            turns,
            instances,
            globals: Globals::default(),
            turn: 0,
            steps: 0,
            answered: Vec::new(),
            tokens: (0, 0),
            reasoning: Vec::new(),
            handler,
        }
    }

    fn request(&self) -> Next {
        let body = self
            .handler
            .body(&self.conversation, &self.model, &self.sampling);
        Next::Send(ApiRequest {
            url: format!("{}{}", self.url, self.handler.path(&self.model)),
            headers: self.handler.headers(),
            body,
            names: NameMap::default(),
            read_by_caller: true,
        })
    }

    /// Starts turn `self.turn`: its messages, or the announcement of the
    /// functions held out until it.
    fn begin_turn(&mut self) -> Next {
        let mut messages = self.turns[self.turn].clone();
        if let Some(added) = self.entry.held_out.get(&self.turn) {
            self.functions.extend(added.iter().cloned());
            let text = match self.handler.mode() {
                CallMode::FunctionCalling => {
                    self.conversation.tools =
                        self.handler.compile_tools(self.protocol, &self.functions);
                    self.protocol.added_functions_fc.clone()
                }
                CallMode::Prompt => {
                    let docs = added
                        .iter()
                        .map(|d| json_loads_str(&d.to_string()).unwrap_or(PyValue::None))
                        .collect();
                    let docs = PyStr(py_repr(&PyValue::List(docs))).to_string_lossy();
                    self.protocol
                        .added_functions_prompting
                        .replacen("{functions}", &docs, 1)
                }
            };
            messages = vec![self.handler.message("user", &text)];
        }
        self.handler
            .add_user_messages(&mut self.conversation, messages);
        self.answered.push(Vec::new());
        self.steps = 0;
        self.request()
    }

    /// The next turn, or the end.
    fn next_turn(&mut self) -> Next {
        self.turn += 1;
        if self.turn < self.turns.len() {
            self.begin_turn()
        } else {
            self.end()
        }
    }

    fn end(&mut self) -> Next {
        let official = Value::Array(self.answered.iter().cloned().map(Value::Array).collect());
        Next::Done(DialogueEnd {
            output: None,
            calls: None,
            official: Some(official),
            usage: Some(Usage {
                prompt_tokens: self.tokens.0,
                completion_tokens: self.tokens.1,
            }),
            reasoning: (!self.reasoning.is_empty()).then(|| self.reasoning.join("\n")),
        })
    }

    /// One answer: recorded, decoded, its calls run and their results sent.
    fn answer(&mut self, reply: Reply) -> Next {
        self.handler.add_reply(&mut self.conversation, &reply);
        self.tokens.0 += reply.tokens.0;
        self.tokens.1 += reply.tokens.1;
        if !reply.reasoning.is_empty() {
            self.reasoning.push(reply.reasoning.clone());
        }
        let answer = reply.responses.to_json();
        self.answered
            .last_mut()
            .expect("a turn has begun")
            .push(answer.clone());
        let format = StepFormat::of_model(ResultDecoder::for_model(self.backend, self.mode));
        let step = json_loads_str(&answer.to_string()).unwrap_or(PyValue::None);
        let calls = match decode_step(&step, format) {
            Some(calls) if !calls.is_empty() => calls,
            // Nothing to run (or nothing decodable): the turn is over.
            _ => return self.next_turn(),
        };
        let results: Vec<String> = self
            .instances
            .execute(&calls, &self.globals)
            .into_iter()
            .map(|e| e.result.unwrap_or_default())
            .collect();
        self.handler
            .add_results(&mut self.conversation, &results, &calls, &reply);
        self.steps += 1;
        if self.steps > MAXIMUM_STEP_LIMIT {
            // Force-terminated: this turn is kept, the others are not asked.
            return self.end();
        }
        self.request()
    }
}

impl Dialogue for MultiTurnDialogue {
    fn next(&mut self, reply: Option<&Value>) -> Result<Next, String> {
        match reply {
            None if self.turns.is_empty() => Ok(self.end()),
            None => Ok(self.begin_turn()),
            Some(body) => {
                let reply = self.handler.read_reply(body)?;
                Ok(self.answer(reply))
            }
        }
    }
}
