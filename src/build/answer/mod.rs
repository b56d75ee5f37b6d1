//! Gold answers for kept queries (`itc answer`, ITC §3.4).
//!
//! An answer model writes the Thought and Action of each query
//! ([`prompts/answer.jinja`](../../prompts/answer.jinja): the candidate
//! tools, the answer format, the `'$N.field'` placeholder for values taken
//! from earlier calls). For tasks of several calls (repeated, parallel,
//! nested), an optional checker model sees the query, the tools and the
//! proposed answer ([`prompts/check.jinja`](../../prompts/check.jinja)) and
//! either confirms it or gives a corrected one. Whatever answer results is
//! then checked deterministically ([`mod@validate`]) before it becomes a task;
//! a query whose answer fails is rejected with the reason, never dropped.
//! A `no_tool` query's prompt does not tell the answer model its kind, only
//! asks whether a candidate serves it as asked: an answer with any call
//! rejects the query (a candidate serves it, or a value it leaves out was
//! filled in), so the empty gold is confirmed by a model that was not told
//! it.
//!
//! Outputs: tasks in SPEC §0 form (placeholders become `{"$ref": …}`), a
//! provenance record per task (models, prompt hashes, raw replies, whether
//! the checker changed the answer), rejects, and the stage's figures.
//! [`split`] makes the train/test split and the ShareGPT export.

pub mod outputs;
pub mod split;
pub mod validate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, bail};
use minijinja::{Environment, context};
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

use crate::build::chat::{
    StageStats, beside, complete_all, load_model, prompt_sha256, read_queries, stage_cache,
};
use crate::build::filter::parse::json_objects;
use crate::models::cache::CacheSetting;
use crate::models::prompt::{answer_schema, tools_json};
use crate::models::{Chat, ChatModel, Completion};
use crate::spec::jsonl::write_records;
use crate::spec::records::{GeneratedQuery, Gold, Provenance, Task, TaskKind};
use crate::util::runtime::{Threads, block_on};
use validate::{ReadAnswer, read_answer, validate};

/// The answer prompt (`part` = `system` or the query message).
pub const ANSWER_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/answer.jinja"));
/// The checker prompt (`part` = `system` or the query message).
pub const CHECK_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/check.jinja"));

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.add_template("answer", ANSWER_TEMPLATE)
            .expect("prompts/answer.jinja parses");
        env.add_template("check", CHECK_TEMPLATE)
            .expect("prompts/check.jinja parses");
        env
    })
}

/// The query as a task without a gold answer yet (SPEC §0 fields).
pub fn task_of(query: &GeneratedQuery, gold: Gold) -> Task {
    Task {
        id: query.id.clone(),
        kind: query.kind,
        language: query.language.clone(),
        country: query.country.clone(),
        category: query.category.clone(),
        query: query.query.clone(),
        tools: query.tools.clone(),
        gold,
        turns: Vec::new(),
    }
}

fn render(
    template: &str,
    part: &str,
    query: &GeneratedQuery,
    answer: &str,
    with_outputs: bool,
) -> String {
    environment()
        .get_template(template)
        .and_then(|t| {
            t.render(context! {
                part => part,
                tools => tools_json(&task_of(query, Gold::default())),
                kind => query.kind.as_str(),
                query => &query.query,
                answer => answer,
                with_outputs => with_outputs,
            })
        })
        .expect("answer templates render")
}

/// The chat asking the answer model for a query's Thought and Action (and,
/// `with_outputs`, an example output per call).
pub fn answer_chat(query: &GeneratedQuery, with_outputs: bool) -> Chat {
    let mut schema = answer_schema();
    if with_outputs {
        schema["properties"]["Outputs"] = json!({"type": "array", "items": {"type": "object"}});
        schema["required"] = json!(["Thought", "Action", "Outputs"]);
    }
    Chat::new(
        render("answer", "system", query, "", with_outputs),
        render("answer", "query", query, "", with_outputs),
    )
    .with_schema(schema)
}

/// JSON Schema of a checker's reply.
pub fn check_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["correct", "wrong"]},
            "problems": {"type": "string"},
            "Thought": {"type": "string"},
            "Action": {"type": "string"}
        },
        "required": ["verdict", "problems", "Thought", "Action"],
        "additionalProperties": false
    })
}

/// The chat asking the checker to review a proposed answer (the answer
/// model's reply as it came).
pub fn check_chat(query: &GeneratedQuery, proposed: &str) -> Chat {
    Chat::new(
        render("check", "system", query, proposed, false),
        render("check", "query", query, proposed, false),
    )
    .with_schema(check_schema())
}

/// Whether a kind's answers go to the checker: the tasks of several calls.
pub fn is_checked(kind: TaskKind) -> bool {
    matches!(
        kind,
        TaskKind::Repeated | TaskKind::Parallel | TaskKind::Nested
    )
}

/// Settings of the answer stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerChecks {
    /// Require the gold calls to use exactly the APIs the query was written
    /// for (`GeneratedQuery::apis`, as a set); off, any candidates may do.
    pub require_target_apis: bool,
    /// Ask for an example output per call and record them as the task's
    /// `turns` (SPEC §6), checked like the sample set's.
    pub with_outputs: bool,
}

impl Default for AnswerChecks {
    fn default() -> Self {
        AnswerChecks {
            require_target_apis: true,
            with_outputs: false,
        }
    }
}

/// Where a task's gold answer came from (one line of the provenance file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerProvenance {
    /// The task's id (the query's).
    pub task_id: String,
    /// The answer model's prompt hash and raw reply.
    pub answer: Provenance,
    /// The checker's, when the task was checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Provenance>,
    /// The checker's verdict (`correct` or `wrong`), when checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// Whether the gold is the checker's correction rather than the answer.
    pub checker_changed: bool,
    /// How the query itself was written.
    pub query: Provenance,
}

/// A query that got no acceptable gold answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerReject {
    /// The query.
    #[serde(flatten)]
    pub query: GeneratedQuery,
    /// Why no answer was accepted.
    pub reason: String,
    /// The replies received (answer, then check), when any.
    pub replies: Vec<Provenance>,
}

/// What `answer` produced.
#[derive(Debug, Clone)]
pub struct AnswerOutput {
    /// Accepted tasks, in input order.
    pub tasks: Vec<Task>,
    /// One record per accepted task, same order.
    pub provenance: Vec<AnswerProvenance>,
    /// Rejected queries with their reasons, in input order.
    pub rejects: Vec<AnswerReject>,
    /// Requests, tokens and cost of the answer model.
    pub stats: StageStats,
    /// The same for the checker (zero without one).
    pub checker_stats: StageStats,
}

/// A checker's reply.
#[derive(Debug, Clone, PartialEq)]
struct CheckReply {
    wrong: bool,
    problems: String,
    /// The corrected answer as a reply text (`{"Thought", "Action"}`).
    corrected: String,
}

fn read_check(text: &str) -> Result<CheckReply, String> {
    let object = json_objects(text)
        .into_iter()
        .find(|m| m.keys().any(|k| k.eq_ignore_ascii_case("verdict")))
        .ok_or("no JSON object with a \"verdict\"")?;
    let get = |name: &str| {
        object
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .unwrap_or(Json::Null)
    };
    let verdict = get("verdict");
    let wrong = match verdict.as_str().map(|v| v.trim().to_ascii_lowercase()) {
        Some(v) if v == "correct" => false,
        Some(v) if v == "wrong" => true,
        _ => {
            return Err(format!(
                "verdict {verdict} is neither \"correct\" nor \"wrong\""
            ));
        }
    };
    Ok(CheckReply {
        wrong,
        problems: get("problems").as_str().unwrap_or_default().to_string(),
        corrected: json!({"Thought": get("Thought"), "Action": get("Action")}).to_string(),
    })
}

fn provenance(stage: &str, model: &ChatModel, chat: &Chat, completion: &Completion) -> Provenance {
    Provenance {
        stage: stage.into(),
        model: model.name().to_string(),
        prompt_sha256: prompt_sha256(chat),
        raw: match &completion.result {
            Ok(answer) => answer.output.clone().unwrap_or_default(),
            Err(_) => String::new(),
        },
    }
}

/// The state of one query between the two rounds.
enum Draft {
    Rejected(String),
    /// The answer's reply and what validation said about it.
    Answered {
        reply: String,
        read: Result<ReadAnswer, String>,
    },
}

/// Writes gold answers for queries: answer, check (tasks of several calls,
/// when a checker is given), validate.
pub async fn answer(
    queries: &[GeneratedQuery],
    answerer: &ChatModel,
    checker: Option<&ChatModel>,
    options: &AnswerChecks,
) -> anyhow::Result<AnswerOutput> {
    if let Some(c) = checker
        && c.name() == answerer.name()
    {
        bail!(
            "the checker must be another model than the answer model (both are `{}`)",
            c.name()
        );
    }
    let accept = |query: &GeneratedQuery, read: &ReadAnswer| {
        let targets = options.require_target_apis.then_some(query.apis.as_slice());
        validate(query.kind, &read.calls, &query.tools, targets)
    };
    let (drafts, answer_provenance, stats) =
        answer_round(queries, answerer, options.with_outputs, &accept).await;
    let round = CheckRound::run(queries, &drafts, checker).await;

    let mut output = AnswerOutput {
        tasks: Vec::new(),
        provenance: Vec::new(),
        rejects: Vec::new(),
        stats,
        checker_stats: StageStats::default(),
    };
    for (i, (query, draft)) in queries.iter().zip(drafts).enumerate() {
        let mut replies = vec![answer_provenance[i].clone()];
        let mut record = AnswerProvenance {
            task_id: query.id.clone(),
            answer: answer_provenance[i].clone(),
            check: None,
            verdict: None,
            checker_changed: false,
            query: query.provenance.clone(),
        };
        let result: Result<ReadAnswer, String> = match draft {
            Draft::Rejected(why) => Err(why),
            Draft::Answered { read, .. } => match (round.at[i], checker) {
                (Some(at), Some(c)) => {
                    output
                        .checker_stats
                        .record(&round.completions[at], c.config());
                    let result = round.checked(at, c, query, read, &accept, &mut record);
                    replies.extend(record.check.clone());
                    result
                }
                _ => read.map_err(|why| format!("answer: {why}")),
            },
        };
        let task = result.and_then(|read| {
            let mut task = task_of(
                query,
                Gold {
                    thought: read.thought,
                    calls: read.calls,
                    official: None,
                },
            );
            if options.with_outputs {
                record_outputs(&mut task, &answer_provenance[i].raw)?;
            }
            Ok(task)
        });
        match task {
            Ok(task) => {
                output.tasks.push(task);
                output.provenance.push(record);
            }
            Err(reason) => output.rejects.push(AnswerReject {
                query: query.clone(),
                reason,
                replies,
            }),
        }
    }
    Ok(output)
}

/// Gives a task the turns made from the answer model's example outputs, or
/// says why they cannot be (SPEC §6's checks of recorded steps). When the
/// checker corrected the answer, the outputs are kept if they are as many
/// as the corrected calls and every reference finds its field.
fn record_outputs(task: &mut Task, reply: &str) -> Result<(), String> {
    if task.gold.calls.is_empty() {
        return Ok(());
    }
    let example = |why: String| format!("example outputs: {why}");
    let outputs = outputs::read_outputs(reply, task.gold.calls.len()).map_err(example)?;
    task.turns = outputs::turns_for(task.kind, &task.gold.calls, &outputs).map_err(example)?;
    let problems = crate::spec::turns::turn_problems(task);
    if !problems.is_empty() {
        return Err(example(problems.join("; ")));
    }
    Ok(())
}

/// The answer model's round: a draft per query (its reply read and
/// validated, or why there is none), the provenance of each reply, and
/// what the round cost.
async fn answer_round(
    queries: &[GeneratedQuery],
    answerer: &ChatModel,
    with_outputs: bool,
    accept: &impl Fn(&GeneratedQuery, &ReadAnswer) -> Result<(), String>,
) -> (Vec<Draft>, Vec<Provenance>, StageStats) {
    let chats: Vec<Chat> = queries
        .iter()
        .map(|q| answer_chat(q, with_outputs))
        .collect();
    let completions = complete_all(answerer, chats.clone(), |_, _| {}).await;
    let mut stats = StageStats::default();
    let mut drafts = Vec::with_capacity(queries.len());
    let mut answer_provenance = Vec::with_capacity(queries.len());
    for ((query, chat), completion) in queries.iter().zip(&chats).zip(&completions) {
        stats.record(completion, answerer.config());
        answer_provenance.push(provenance("answer", answerer, chat, completion));
        drafts.push(match &completion.result {
            Err((kind, message)) => Draft::Rejected(format!(
                "answer model {}: request failed ({kind}): {message}",
                answerer.name()
            )),
            Ok(reply) => {
                let reply = reply.output.clone().unwrap_or_default();
                let read = read_answer(&reply).and_then(|r| accept(query, &r).map(|()| r));
                Draft::Answered { reply, read }
            }
        });
    }
    (drafts, answer_provenance, stats)
}

/// The checker's round: tasks of several calls whose answer got a reply.
struct CheckRound {
    /// Per query: the index of its check, if it was checked.
    at: Vec<Option<usize>>,
    /// The check chats sent.
    chats: Vec<Chat>,
    /// Their completions, in the same order.
    completions: Vec<Completion>,
}

impl CheckRound {
    async fn run(
        queries: &[GeneratedQuery],
        drafts: &[Draft],
        checker: Option<&ChatModel>,
    ) -> CheckRound {
        let mut at: Vec<Option<usize>> = vec![None; queries.len()];
        let mut chats = Vec::new();
        if checker.is_some() {
            for (i, (query, draft)) in queries.iter().zip(drafts).enumerate() {
                if let Draft::Answered { reply, .. } = draft
                    && is_checked(query.kind)
                {
                    at[i] = Some(chats.len());
                    chats.push(check_chat(query, reply));
                }
            }
        }
        let completions = match checker {
            Some(c) if !chats.is_empty() => complete_all(c, chats.clone(), |_, _| {}).await,
            _ => Vec::new(),
        };
        CheckRound {
            at,
            chats,
            completions,
        }
    }

    /// The gold of a checked answer: the checker's reply recorded in
    /// `record`, then read and resolved against the answer.
    fn checked(
        &self,
        at: usize,
        checker: &ChatModel,
        query: &GeneratedQuery,
        read: Result<ReadAnswer, String>,
        accept: &impl Fn(&GeneratedQuery, &ReadAnswer) -> Result<(), String>,
        record: &mut AnswerProvenance,
    ) -> Result<ReadAnswer, String> {
        let completion = &self.completions[at];
        let check = provenance("check", checker, &self.chats[at], completion);
        record.check = Some(check.clone());
        match &completion.result {
            Err((kind, message)) => Err(format!(
                "checker {}: request failed ({kind}): {message}",
                checker.name()
            )),
            Ok(_) => match read_check(&check.raw) {
                Err(why) => Err(format!(
                    "checker {}: unparsable reply: {why}",
                    checker.name()
                )),
                Ok(verdict) => {
                    record.verdict = Some(if verdict.wrong { "wrong" } else { "correct" }.into());
                    resolve(query, read, &verdict, checker.name(), accept, record)
                }
            },
        }
    }
}

/// The gold after a checker's verdict: the answer when it is judged correct
/// (and valid), the correction when it is judged wrong (and the correction
/// is valid and differs).
fn resolve(
    query: &GeneratedQuery,
    read: Result<ReadAnswer, String>,
    verdict: &CheckReply,
    checker: &str,
    accept: &dyn Fn(&GeneratedQuery, &ReadAnswer) -> Result<(), String>,
    record: &mut AnswerProvenance,
) -> Result<ReadAnswer, String> {
    if !verdict.wrong {
        return read.map_err(|why| format!("answer: {why} (checker {checker} found it correct)"));
    }
    let corrected = read_answer(&verdict.corrected)
        .map_err(|why| format!("checker {checker}'s correction: {why}"))?;
    if read.as_ref().is_ok_and(|r| r.calls == corrected.calls) {
        return Err(format!(
            "checker {checker} found the answer wrong but gave the same calls: {}",
            verdict.problems
        ));
    }
    accept(query, &corrected).map_err(|why| format!("checker {checker}'s correction: {why}"))?;
    record.checker_changed = true;
    Ok(corrected)
}

/// Options of `itc answer`.
#[derive(Debug, Clone)]
pub struct AnswerOptions {
    /// Kept queries (JSON Lines of `itc filter` or `itc generate` records).
    pub queries: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    pub config: PathBuf,
    /// The model that writes the gold answers.
    pub answerer: String,
    /// The model that reviews answers of several calls (repeated, parallel, nested).
    pub checker: Option<String>,
    /// Accept gold calls to other candidates than the APIs the query was written for.
    pub allow_other_apis: bool,
    /// Ask for example outputs and record them as the tasks' `turns`.
    pub with_outputs: bool,
    /// The response cache (default: `cache/` beside the output file).
    pub cache: CacheSetting,
    /// Where to write the tasks (JSON Lines, SPEC §0).
    pub output: PathBuf,
    /// Where to write one provenance record per task (JSON Lines).
    pub provenance: PathBuf,
    /// Where to write the rejected queries with reasons. Default: beside
    /// the output, `<output stem>.rejects.jsonl`.
    pub rejects: Option<PathBuf>,
    /// Share of tasks for the test split (used with --train, --test or --sharegpt).
    pub test_fraction: f64,
    /// Seed of the split.
    pub seed: u64,
    /// Where to write the training split (JSON Lines tasks).
    pub train: Option<PathBuf>,
    /// Where to write the test split (JSON Lines tasks).
    pub test: Option<PathBuf>,
    /// Where to write the training split as a LLaMA-Factory ShareGPT dataset
    /// (a JSON array; its dataset_info.json entry goes beside it as
    /// `<stem>.dataset_info.json`).
    pub sharegpt: Option<PathBuf>,
}

impl Default for AnswerOptions {
    /// A fifth of the tasks for test, seed 1, the default cache; no files or
    /// models yet.
    fn default() -> Self {
        AnswerOptions {
            queries: PathBuf::new(),
            config: PathBuf::new(),
            answerer: String::new(),
            checker: None,
            allow_other_apis: false,
            with_outputs: false,
            cache: CacheSetting::Default,
            output: PathBuf::new(),
            provenance: PathBuf::new(),
            rejects: None,
            test_fraction: 0.2,
            seed: 1,
            train: None,
            test: None,
            sharegpt: None,
        }
    }
}

/// Runs `itc answer` and returns what the answer model's and the
/// checker's chats cost.
pub fn run(
    args: &AnswerOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<(String, StageStats)>> {
    if !(0.0..=1.0).contains(&args.test_fraction) {
        bail!(
            "--test-fraction must be within 0–1 (got {})",
            args.test_fraction
        );
    }
    let queries = read_queries(&args.queries)?;
    let cache = stage_cache(&args.cache, &args.output);
    let answerer = ChatModel::new(&load_model(&args.config, &args.answerer)?, cache.as_deref())?;
    let checker = match &args.checker {
        Some(name) => Some(ChatModel::new(
            &load_model(&args.config, name)?,
            cache.as_deref(),
        )?),
        None => None,
    };
    let options = AnswerChecks {
        require_target_apis: !args.allow_other_apis,
        with_outputs: args.with_outputs,
    };
    writeln!(
        err,
        "answering {} quer{} from {} with {}{}",
        queries.len(),
        if queries.len() == 1 { "y" } else { "ies" },
        args.queries.display(),
        args.answerer,
        args.checker
            .as_ref()
            .map(|c| format!(", checked by {c}"))
            .unwrap_or_default()
    )?;
    let output = block_on(
        Threads::PerCore,
        answer(&queries, &answerer, checker.as_ref(), &options),
    )??;

    let rejects = args
        .rejects
        .clone()
        .unwrap_or_else(|| beside(&args.output, "rejects.jsonl"));
    write_tasks(&args.output, &output.tasks)?;
    write_records(&args.provenance, &output.provenance)
        .with_context(|| format!("writing {}", args.provenance.display()))?;
    write_records(&rejects, &output.rejects)
        .with_context(|| format!("writing {}", rejects.display()))?;
    let changed = output
        .provenance
        .iter()
        .filter(|p| p.checker_changed)
        .count();
    writeln!(
        out,
        "accepted {} of {} ({} corrected by the checker), rejected {}",
        output.tasks.len(),
        queries.len(),
        changed,
        output.rejects.len()
    )?;
    for reject in &output.rejects {
        writeln!(err, "rejected {}: {}", reject.query.id, reject.reason)?;
    }
    write_split(args, &output.tasks, out, err)?;
    writeln!(err, "{}: {}", args.answerer, output.stats)?;
    if let Some(name) = &args.checker {
        writeln!(err, "{name}: {}", output.checker_stats)?;
    }
    writeln!(
        err,
        "wrote {}, {} and {}",
        args.output.display(),
        args.provenance.display(),
        rejects.display()
    )?;
    let mut stats = vec![(args.answerer.clone(), output.stats)];
    if let Some(name) = &args.checker {
        stats.push((name.clone(), output.checker_stats));
    }
    Ok(stats)
}

fn write_tasks(path: &Path, tasks: &[Task]) -> anyhow::Result<()> {
    write_records(path, tasks).with_context(|| format!("writing {}", path.display()))
}

/// The train/test split without shared gold APIs and the ShareGPT export,
/// written where `--train`, `--test` and `--sharegpt` say.
fn write_split(
    args: &AnswerOptions,
    tasks: &[Task],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    if args.train.is_none() && args.test.is_none() && args.sharegpt.is_none() {
        return Ok(());
    }
    let (train, test) = split::split(tasks, args.test_fraction, args.seed);
    writeln!(
        out,
        "split: {} train, {} test (no gold API in both; seed {})",
        train.len(),
        test.len(),
        args.seed
    )?;
    if let Some(path) = &args.train {
        write_tasks(path, &train)?;
    }
    if let Some(path) = &args.test {
        write_tasks(path, &test)?;
    }
    if let Some(path) = &args.sharegpt {
        let text = serde_json::to_string_pretty(&split::sharegpt(&train))?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "itc_train".into());
        let file_name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let info = beside(path, "dataset_info.json");
        let text = serde_json::to_string_pretty(&split::dataset_info(&name, &file_name))?;
        std::fs::write(&info, text + "\n")
            .with_context(|| format!("writing {}", info.display()))?;
        writeln!(
            err,
            "wrote {} and its dataset_info.json entry {}",
            path.display(),
            info.display()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::{Parameter, Tool};

    fn query(kind: TaskKind) -> GeneratedQuery {
        GeneratedQuery {
            id: "q1".into(),
            kind,
            language: "de".into(),
            country: "DE".into(),
            category: "Weather".into(),
            query: "Wie wird das Wetter in Köln & Bonn?".into(),
            apis: vec!["dwd".into()],
            tools: vec![Tool {
                name: "dwd".into(),
                description: "Vorhersage <Stadt>".into(),
                required_parameters: vec![Parameter {
                    name: "city".into(),
                    kind: "string".into(),
                    description: String::new(),
                    default: None,
                    ..Default::default()
                }],
                ..Tool::default()
            }],
            no_tool: None,
            provenance: Provenance::default(),
        }
    }

    #[test]
    fn prompts_carry_tools_query_kind_and_schema() {
        let chat = answer_chat(&query(TaskKind::Repeated), false);
        assert!(chat.system.contains("\"name\": \"dwd\""));
        assert!(chat.system.contains("Vorhersage <Stadt>"), "no escaping");
        assert!(chat.system.contains("'$N.field'"));
        assert!(chat.user.contains("same API called several times"));
        assert!(chat.user.ends_with("Wie wird das Wetter in Köln & Bonn?"));
        assert_eq!(chat.schema, Some(answer_schema()));
        let check = check_chat(&query(TaskKind::Nested), "{\"Thought\": \"x\"}");
        assert!(
            check
                .user
                .contains("Proposed answer:\n{\"Thought\": \"x\"}")
        );
        assert!(check.user.contains("a later call uses a value"));
        assert!(check.system.contains("\"name\": \"dwd\""));
        assert_eq!(
            check.schema.unwrap()["required"].as_array().unwrap().len(),
            4
        );
        for c in [&chat.system, &chat.user, &check.system, &check.user] {
            assert!(!c.contains("{{") && !c.contains("{%"));
        }
        assert!(!is_checked(TaskKind::Single) && !is_checked(TaskKind::NoTool));
    }

    #[test]
    fn checker_replies() {
        let r = read_check("```json\n{\"verdict\": \"Wrong\", \"problems\": \"city\", \"Thought\": \"t\", \"Action\": \"[dwd(city='Köln')]\"}\n```").unwrap();
        assert!(r.wrong);
        assert_eq!(r.problems, "city");
        assert_eq!(read_answer(&r.corrected).unwrap().calls.len(), 1);
        assert!(!read_check("{\"verdict\": \"correct\"}").unwrap().wrong);
        assert_eq!(
            read_check("{\"verdict\": \"maybe\"}").unwrap_err(),
            "verdict \"maybe\" is neither \"correct\" nor \"wrong\""
        );
        assert_eq!(
            read_check("fine").unwrap_err(),
            "no JSON object with a \"verdict\""
        );
    }

    #[test]
    fn rejects_file_name_beside_the_output() {
        assert_eq!(
            beside(Path::new("out/tasks.jsonl"), "rejects.jsonl"),
            Path::new("out/tasks.rejects.jsonl")
        );
    }
}
