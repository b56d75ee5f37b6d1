//! Dual-judge filtering of generated queries (`itc filter`, ITC §3.3).
//!
//! Two independent judge models score every query once each, with one
//! prompt ([`prompts/judge.jinja`](../../prompts/judge.jinja)) asking for
//! five 1–5 scores (relevance, clarity, specificity, practicality, language)
//! and a total, as JSON (a schema is sent; servers that cannot enforce it
//! still get the shape in the prompt). Replies are read by [`parse`], which
//! also copes with prose, `4/5` lines and Markdown tables.
//!
//! The keep rule ([`KeepRule`]): both judges' totals at least
//! `min_total` (default 4), and, when `min_each` is set, every one of both
//! judges' five scores at least that. A query is rejected, with its reason,
//! when a judge's reply cannot be read or its request failed after retries:
//! nothing is kept by default and nothing is dropped. [`agreement`] measures
//! how far the two judges agree.

pub mod agreement;
pub mod parse;

use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{Context, bail};
use minijinja::{Environment, context};
use serde::Serialize;
use serde_json::{Value, json};

use crate::build::chat::{
    StageStats, complete_all, load_model, prompt_sha256, read_queries, stage_cache,
};
use crate::models::cache::CacheSetting;
use crate::models::prompt::tools_view_json;
use crate::models::{Chat, ChatModel};
use crate::spec::jsonl::write_records;
use crate::spec::records::{GeneratedQuery, JudgedQuery, Judgement, Provenance, Tool};
use crate::util::runtime::{Threads, block_on};
use agreement::{Agreement, ScorePair};
use parse::{Dimension, parse_scores};

/// The judge prompt: `part` = `system` gives the instructions, anything
/// else the message about one query.
pub const JUDGE_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/judge.jinja"));

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.add_template("judge", JUDGE_TEMPLATE)
            .expect("prompts/judge.jinja parses");
        env
    })
}

/// The query's target tools (those named in `apis`, in that order, once
/// each) as pretty JSON; all candidates when none of `apis` is among them.
pub fn target_tools_json(query: &GeneratedQuery) -> String {
    let mut targets: Vec<&Tool> = Vec::new();
    for name in &query.apis {
        if let Some(t) = query.tools.iter().find(|t| &t.name == name)
            && !targets.iter().any(|v| v.name == t.name)
        {
            targets.push(t);
        }
    }
    if targets.is_empty() {
        targets = query.tools.iter().collect();
    }
    tools_view_json(&targets)
}

/// JSON Schema of a judge's reply: the five scores, the total and a comment.
pub fn score_schema() -> Value {
    let mut properties = serde_json::Map::new();
    for d in Dimension::ALL {
        properties.insert(d.as_str().to_string(), json!({"type": "integer"}));
    }
    properties.insert("total".into(), json!({"type": "number"}));
    properties.insert("comment".into(), json!({"type": "string"}));
    let required: Vec<&str> = properties.keys().map(String::as_str).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// The chat asking a judge to score one query.
pub fn judge_chat(query: &GeneratedQuery) -> Chat {
    let template = environment().get_template("judge").expect("judge template");
    let system = template
        .render(context! { part => "system" })
        .expect("judge prompt renders");
    let user = template
        .render(context! {
            part => "query",
            kind => query.kind.as_str(),
            language => &query.language,
            country => &query.country,
            apis => target_tools_json(query),
            query => &query.query,
        })
        .expect("judge prompt renders");
    Chat::new(system, user).with_schema(score_schema())
}

/// The keep rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeepRule {
    /// Both judges' totals must be at least this.
    pub min_total: f64,
    /// When set, each of both judges' five scores must be at least this.
    pub min_each: Option<f64>,
}

impl Default for KeepRule {
    fn default() -> Self {
        KeepRule {
            min_total: 4.0,
            min_each: None,
        }
    }
}

impl KeepRule {
    /// Why a judgement fails the rule (empty when it passes).
    pub fn failures(&self, judgement: &Judgement) -> Vec<String> {
        let mut why = Vec::new();
        if judgement.total < self.min_total {
            why.push(format!(
                "judge {}: total {} below {}",
                judgement.judge, judgement.total, self.min_total
            ));
        }
        if let Some(min) = self.min_each {
            for d in Dimension::ALL {
                let score = d.of(&judgement.scores);
                if score < min {
                    why.push(format!(
                        "judge {}: {} {} below {}",
                        judgement.judge,
                        d.as_str(),
                        score,
                        min
                    ));
                }
            }
        }
        why
    }
}

/// What `filter` produced.
#[derive(Debug, Clone)]
pub struct FilterOutput {
    /// Every query in input order: kept, or rejected with its reason.
    pub judged: Vec<JudgedQuery>,
    /// Beside `judged` (same index): the replies that could not be read as
    /// scores, so that rejects keep them.
    pub unparsed: Vec<Vec<Provenance>>,
    /// Agreement of the two judges on the queries both scored.
    pub agreement: Agreement,
    /// Requests, tokens and cost of each judge.
    pub stats: [StageStats; 2],
}

/// A rejected query as the rejects file holds it: the judged query and the
/// judges' replies that could not be read as scores.
#[derive(Debug, Clone, Serialize)]
pub struct RejectRecord<'a> {
    /// The query, its readable judgements, and the reason.
    #[serde(flatten)]
    pub judged: &'a JudgedQuery,
    /// Replies that could not be read as scores.
    #[serde(skip_serializing_if = "<[Provenance]>::is_empty")]
    pub unparsed_replies: &'a [Provenance],
}

impl FilterOutput {
    /// The kept queries.
    pub fn kept(&self) -> impl Iterator<Item = &JudgedQuery> {
        self.judged.iter().filter(|j| j.kept)
    }

    /// The rejected queries, with the replies that could not be read.
    pub fn rejects(&self) -> impl Iterator<Item = RejectRecord<'_>> {
        self.judged
            .iter()
            .zip(&self.unparsed)
            .filter(|(j, _)| !j.kept)
            .map(|(judged, unparsed)| RejectRecord {
                judged,
                unparsed_replies: unparsed,
            })
    }
}

/// One judge's verdict on one query.
enum Verdict {
    Scored(Judgement),
    Unparsable(Provenance, String),
    Failed(String),
}

/// Scores every query with both judges and applies the keep rule.
pub async fn filter(
    queries: &[GeneratedQuery],
    judges: [&ChatModel; 2],
    options: &KeepRule,
) -> anyhow::Result<FilterOutput> {
    if judges[0].name() == judges[1].name() {
        bail!(
            "the two judges must be different models (both are `{}`)",
            judges[0].name()
        );
    }
    let chats: Vec<Chat> = queries.iter().map(judge_chat).collect();
    let hashes: Vec<String> = chats.iter().map(prompt_sha256).collect();
    let (first, second) = tokio::join!(
        complete_all(judges[0], chats.clone(), |_, _| {}),
        complete_all(judges[1], chats, |_, _| {})
    );
    let mut stats = [StageStats::default(), StageStats::default()];
    let mut verdicts: [Vec<Verdict>; 2] = [Vec::new(), Vec::new()];
    for (j, completions) in [first, second].into_iter().enumerate() {
        let judge = judges[j];
        for (completion, hash) in completions.iter().zip(&hashes) {
            stats[j].record(completion, judge.config());
            verdicts[j].push(match &completion.result {
                Err((kind, message)) => Verdict::Failed(format!(
                    "judge {}: request failed ({kind}): {message}",
                    judge.name()
                )),
                Ok(answer) => {
                    let raw = answer.output.clone().unwrap_or_default();
                    let provenance = Provenance {
                        stage: "judge".into(),
                        model: judge.name().to_string(),
                        prompt_sha256: hash.clone(),
                        raw,
                    };
                    match parse_scores(&provenance.raw) {
                        Ok(p) => Verdict::Scored(Judgement {
                            judge: judge.name().to_string(),
                            scores: p.scores,
                            total: p.total,
                            provenance,
                        }),
                        Err(why) => Verdict::Unparsable(
                            provenance,
                            format!("judge {}: unparsable scores: {why}", judge.name()),
                        ),
                    }
                }
            });
        }
    }
    let [first, second] = verdicts;
    let mut judged = Vec::with_capacity(queries.len());
    let mut unparsed = Vec::with_capacity(queries.len());
    let mut pairs: Vec<ScorePair> = Vec::new();
    for (query, (a, b)) in queries.iter().zip(first.into_iter().zip(second)) {
        if let (Verdict::Scored(x), Verdict::Scored(y)) = (&a, &b) {
            pairs.push(((x.scores, x.total), (y.scores, y.total)));
        }
        let mut reasons = Vec::new();
        let mut judgements = Vec::new();
        let mut replies = Vec::new();
        for verdict in [a, b] {
            match verdict {
                Verdict::Scored(judgement) => {
                    reasons.extend(options.failures(&judgement));
                    judgements.push(judgement);
                }
                Verdict::Unparsable(provenance, why) => {
                    reasons.push(why);
                    replies.push(provenance);
                }
                Verdict::Failed(why) => reasons.push(why),
            }
        }
        judged.push(JudgedQuery {
            query: query.clone(),
            judgements,
            kept: reasons.is_empty(),
            reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        });
        unparsed.push(replies);
    }
    let names = [judges[0].name().to_string(), judges[1].name().to_string()];
    Ok(FilterOutput {
        judged,
        unparsed,
        agreement: Agreement::compute(names, &pairs),
        stats,
    })
}

/// Options of `itc filter`.
#[derive(Debug, Clone)]
pub struct FilterOptions {
    /// Generated queries (JSON Lines from `itc generate`).
    pub queries: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    pub config: PathBuf,
    /// The two judge models of the configuration, comma-separated: A,B.
    pub judges: Vec<String>,
    /// Keep a query only when both judges' totals are at least this.
    pub min_total: f64,
    /// Also require each of both judges' five scores to be at least this.
    pub min_each: Option<f64>,
    /// The response cache (default: `cache/` beside the output file).
    pub cache: CacheSetting,
    /// Where to write the kept queries (JSON Lines of judged queries).
    pub output: PathBuf,
    /// Where to write the rejected queries, each with its reason.
    pub rejects: PathBuf,
    /// Where to write the agreement table as CSV.
    pub agreement: Option<PathBuf>,
}

impl Default for FilterOptions {
    /// [`KeepRule::default`] and the default cache; no files or judges yet.
    fn default() -> Self {
        let rule = KeepRule::default();
        FilterOptions {
            queries: PathBuf::new(),
            config: PathBuf::new(),
            judges: Vec::new(),
            min_total: rule.min_total,
            min_each: rule.min_each,
            cache: CacheSetting::Default,
            output: PathBuf::new(),
            rejects: PathBuf::new(),
            agreement: None,
        }
    }
}

/// Runs `itc filter` and returns what each judge's chats cost.
pub fn run(
    args: &FilterOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<(String, StageStats)>> {
    let [a, b] = args.judges.as_slice() else {
        bail!(
            "--judges takes exactly two model names, A,B (got {})",
            args.judges.len()
        );
    };
    if a == b {
        bail!("the two judges must be different models (both are `{a}`)");
    }
    if !(1.0..=5.0).contains(&args.min_total) {
        bail!("--min-total must be within 1–5 (got {})", args.min_total);
    }
    if let Some(m) = args.min_each
        && !(1.0..=5.0).contains(&m)
    {
        bail!("--min-each must be within 1–5 (got {m})");
    }
    let queries = read_queries(&args.queries)?;
    let cache = stage_cache(&args.cache, &args.output);
    let models = [load_model(&args.config, a)?, load_model(&args.config, b)?];
    let judges = [
        ChatModel::new(&models[0], cache.as_deref())?,
        ChatModel::new(&models[1], cache.as_deref())?,
    ];
    let options = KeepRule {
        min_total: args.min_total,
        min_each: args.min_each,
    };
    writeln!(
        err,
        "judging {} quer{} from {} with {a} and {b}",
        queries.len(),
        if queries.len() == 1 { "y" } else { "ies" },
        args.queries.display()
    )?;
    let output = block_on(
        Threads::PerCore,
        filter(&queries, [&judges[0], &judges[1]], &options),
    )??;

    write_records(&args.output, output.kept())
        .with_context(|| format!("writing {}", args.output.display()))?;
    write_records(&args.rejects, output.rejects())
        .with_context(|| format!("writing {}", args.rejects.display()))?;
    if let Some(path) = &args.agreement {
        std::fs::write(path, output.agreement.to_csv())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let kept = output.kept().count();
    writeln!(
        out,
        "Agreement of {a} and {b} ({} quer{} scored by both)\n\n{}\n",
        output.agreement.rows[0].n,
        if output.agreement.rows[0].n == 1 {
            "y"
        } else {
            "ies"
        },
        output.agreement.table()
    )?;
    let rule = match args.min_each {
        Some(m) => format!("both totals ≥ {}, every score ≥ {m}", args.min_total),
        None => format!("both totals ≥ {}", args.min_total),
    };
    writeln!(
        out,
        "kept {kept} of {} ({rule}), rejected {}",
        queries.len(),
        queries.len() - kept
    )?;
    for (name, stats) in [a, b].iter().zip(&output.stats) {
        writeln!(err, "{name}: {stats}")?;
    }
    writeln!(
        err,
        "wrote {} and {}",
        args.output.display(),
        args.rejects.display()
    )?;
    Ok(vec![
        (a.clone(), output.stats[0]),
        (b.clone(), output.stats[1]),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::{JudgeScores, TaskKind, Tool};

    fn query(kind: TaskKind) -> GeneratedQuery {
        let tool = |name: &str| Tool {
            name: name.into(),
            description: format!("{name} <does> & things"),
            category: "Weather".into(),
            country: "JP".into(),
            url: "https://example.invalid".into(),
            ..Tool::default()
        };
        GeneratedQuery {
            id: "q1".into(),
            kind,
            language: "ja".into(),
            country: "JP".into(),
            category: "Weather".into(),
            query: "明日の札幌の天気は？".into(),
            apis: vec!["jma".into()],
            tools: vec![tool("decoy"), tool("jma")],
            no_tool: None,
            provenance: Provenance::default(),
        }
    }

    #[test]
    fn judge_prompt_names_the_dimensions_and_only_the_target_apis() {
        let chat = judge_chat(&query(TaskKind::Single));
        for d in Dimension::ALL {
            assert!(
                chat.system.contains(&format!("\"{}\"", d.as_str())),
                "{d:?}"
            );
        }
        assert!(chat.system.contains("\"total\""));
        assert!(chat.user.contains("明日の札幌の天気は？"));
        assert!(chat.user.contains("\"name\": \"jma\""), "{}", chat.user);
        assert!(!chat.user.contains("decoy"), "distractors are not shown");
        assert!(chat.user.contains("<does> & things"), "no HTML escaping");
        assert!(!chat.user.contains("example.invalid"));
        assert!(chat.user.contains("one call to one API"));
        assert!(!chat.user.contains("{{") && !chat.system.contains("{%"));
        let no_tool = judge_chat(&query(TaskKind::NoTool));
        assert!(no_tool.user.contains("Do not lower relevance"));
        let schema = chat.schema.expect("schema sent");
        assert_eq!(schema["required"].as_array().unwrap().len(), 7);
        assert_eq!(schema["additionalProperties"], json!(false));
        // The prompt's example reply reads with the parser.
        let example = chat
            .system
            .lines()
            .find(|l| l.starts_with("{\"relevance\""))
            .unwrap();
        assert!(parse_scores(example).is_ok());
    }

    fn judgement(total: f64, clarity: f64) -> Judgement {
        Judgement {
            judge: "A".into(),
            scores: JudgeScores {
                relevance: 5.0,
                clarity,
                specificity: 4.0,
                practicality: 4.0,
                language: 4.5,
            },
            total,
            provenance: Provenance::default(),
        }
    }

    #[test]
    fn keep_rule() {
        let default = KeepRule::default();
        assert!(default.failures(&judgement(4.0, 2.0)).is_empty());
        assert_eq!(
            default.failures(&judgement(3.9, 2.0)),
            ["judge A: total 3.9 below 4"]
        );
        let strict = KeepRule {
            min_total: 4.5,
            min_each: Some(3.0),
        };
        assert_eq!(
            strict.failures(&judgement(4.0, 2.0)),
            ["judge A: total 4 below 4.5", "judge A: clarity 2 below 3"]
        );
        assert!(strict.failures(&judgement(4.5, 3.0)).is_empty());
    }

    #[test]
    fn unknown_apis_fall_back_to_every_candidate() {
        let mut q = query(TaskKind::Single);
        q.apis = vec!["missing".into()];
        let json = target_tools_json(&q);
        assert!(json.contains("decoy") && json.contains("jma"));
    }

    #[test]
    fn duplicate_ids_name_both_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.jsonl");
        let line = serde_json::to_string(&query(TaskKind::Single)).unwrap();
        std::fs::write(&path, format!("{line}\n\n{line}\n")).unwrap();
        let err = read_queries(&path).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}:3: field `id`: duplicate id \"q1\" (first on line 1)",
                path.display()
            )
        );
        std::fs::write(&path, format!("{line}\n{{\"id\": 3}}\n")).unwrap();
        let err = read_queries(&path).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}:2: field `id`", path.display())),
            "{err}"
        );
    }
}
