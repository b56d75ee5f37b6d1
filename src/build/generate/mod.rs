//! Query generation (`itc generate`, ITC §3.3): a generator model writes
//! user requests for the sampled APIs, in the language of each API's
//! country, of the five kinds of SPEC §0 (single, repeated, parallel,
//! nested, and [`no_tool`]: requests no candidate serves, or that leave out
//! a required value).
//!
//! The stage reads the candidate sets of `itc confuse` and plans one
//! *unit* per sampled API and kind ([`plan`]): the target API (with a
//! partner API of the same country, where there is one, for parallel and
//! nested requests), the candidate tools a model will later choose from,
//! the language, and three seed examples of the kind drawn from
//! [`prompts/seed_examples.jsonl`](../../prompts/seed_examples.jsonl)
//! (`no_tool`: of the unit's variant, from
//! [`prompts/seed_examples_no_tool.jsonl`](../../prompts/seed_examples_no_tool.jsonl)). Each
//! unit becomes one chat ([`unit_chat`], templates `prompts/generate*.jinja`)
//! asking for `per_prompt` requests with the calls that answer them.
//!
//! Replies are read item by item ([`parse`]) and every item is checked
//! ([`mod@validate`]) before any judge sees it. Valid items become
//! [`GeneratedQuery`] records; everything else goes to the rejects file
//! with its reason and the raw reply. Every chat goes through the response
//! cache, so a re-run costs nothing.

pub mod languages;
pub mod no_tool;
pub mod parse;
pub mod validate;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, bail};
use minijinja::{Environment, context};
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::build::chat::{StageStats, beside, complete_all, load_model, prompt_sha256};
use crate::build::confuse::{CandidateSet, Index, Vector, cosine};
use crate::models::cache::CacheSetting;
use crate::models::prompt::tools_view_json;
use crate::models::{Chat, ChatModel};
use crate::spec::jsonl::{read_records, write_records};
use crate::spec::records::{GeneratedQuery, NoToolPlan, Provenance, TaskKind, Tool};
use crate::util::runtime::{Threads, block_on};
use crate::util::slug::{SlugStyle, slug};
use languages::{language_name, language_of_country};
use no_tool::{NoToolUnit, NoToolVariant};
use parse::{DraftQuery, read_reply};
use validate::{Target, ValueCheck, validate, validate_no_tool};

/// The shared frame of the generation prompt (`part` = `system` or `unit`).
pub const GENERATE_TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/generate.jinja"
));
/// The hand-written seed examples, one JSON object per line.
pub const SEED_EXAMPLES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/seed_examples.jsonl"
));
/// The hand-written seed examples of `no_tool` requests, each with its
/// `variant`.
pub const SEED_EXAMPLES_NO_TOOL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/seed_examples_no_tool.jsonl"
));

/// The kinds of request the generator writes: all five of SPEC §0.
pub const GENERATED_KINDS: [TaskKind; 5] = [
    TaskKind::Single,
    TaskKind::Repeated,
    TaskKind::Parallel,
    TaskKind::Nested,
    TaskKind::NoTool,
];

/// How many seed examples each prompt shows.
pub const EXAMPLES_PER_PROMPT: usize = 3;

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let templates = [
            ("generate", GENERATE_TEMPLATE),
            (
                "generate_single.jinja",
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/prompts/generate_single.jinja"
                )),
            ),
            (
                "generate_repeated.jinja",
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/prompts/generate_repeated.jinja"
                )),
            ),
            (
                "generate_parallel.jinja",
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/prompts/generate_parallel.jinja"
                )),
            ),
            (
                "generate_nested.jinja",
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/prompts/generate_nested.jinja"
                )),
            ),
        ];
        for (name, source) in templates.into_iter().chain(no_tool::TEMPLATES) {
            env.add_template(name, source)
                .expect("prompts/generate*.jinja parse");
        }
        env
    })
}

/// One seed example: a request of a kind, the APIs it was written for and
/// the calls answering it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedExample {
    /// The kind it illustrates.
    pub kind: TaskKind,
    /// For `no_tool` examples, the variant.
    pub variant: Option<NoToolVariant>,
    /// The example as shown in prompts (compact JSON, without `kind`,
    /// `variant` and `country`).
    pub shown: String,
    /// Where it is written: `seed example N of prompts/<file>`.
    pub origin: String,
}

/// The seed examples of `prompts/seed_examples.jsonl`, then those of
/// `prompts/seed_examples_no_tool.jsonl`.
pub fn seed_examples() -> &'static [SeedExample] {
    static SEEDS: OnceLock<Vec<SeedExample>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let files = [
            ("seed_examples.jsonl", SEED_EXAMPLES),
            ("seed_examples_no_tool.jsonl", SEED_EXAMPLES_NO_TOOL),
        ];
        let mut seeds = Vec::new();
        for (file, text) in files {
            let lines = text.lines().filter(|l| !l.trim().is_empty());
            for (i, line) in lines.enumerate() {
                let at = format!("prompts/{file}:{}", i + 1);
                let mut value: Value =
                    serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
                let mut take =
                    |field: &str| value.as_object_mut().and_then(|o| o.shift_remove(field));
                let kind = take("kind")
                    .and_then(|k| serde_json::from_value(k).ok())
                    .unwrap_or_else(|| panic!("{at}: field `kind`"));
                let variant = take("variant")
                    .map(|v| serde_json::from_value(v).unwrap_or_else(|e| panic!("{at}: {e}")));
                take("country");
                seeds.push(SeedExample {
                    kind,
                    variant,
                    shown: value.to_string(),
                    origin: format!("seed example {} of prompts/{file}", i + 1),
                });
            }
        }
        seeds
    })
}

/// Character trigrams of a text, lower-cased, spaces squeezed.
fn trigrams(text: &str) -> HashSet<[char; 3]> {
    let chars: Vec<char> = text
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    chars.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
}

/// What a query copies from the prompt, if anything: a seed example
/// (trigram Jaccard similarity of 0.6 or more with its query, or 80% of the
/// query's trigrams found in it) or the
/// `<the request>` placeholder of the answer shape. Small models often do.
pub fn copied_from(query: &str) -> Option<String> {
    static SEED_TRIGRAMS: OnceLock<Vec<HashSet<[char; 3]>>> = OnceLock::new();
    let seeds = SEED_TRIGRAMS.get_or_init(|| {
        seed_examples()
            .iter()
            .map(|s| {
                let v: Value = serde_json::from_str(&s.shown).expect("seed JSON");
                trigrams(v["query"].as_str().unwrap_or_default())
            })
            .collect()
    });
    if query.contains("<the request>") {
        return Some("the prompt's placeholder".into());
    }
    let mine = trigrams(query);
    seeds
        .iter()
        .position(|seed| {
            let shared = mine.intersection(seed).count() as f64;
            let union = mine.union(seed).count() as f64;
            // Close to the whole example, or mostly made of a part of it.
            union > 0.0 && (shared / union >= 0.6 || shared / mine.len() as f64 >= 0.8)
        })
        .map(|i| seed_examples()[i].origin.clone())
}

/// One prompt to the generator: a kind, the target API(s), the candidates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unit {
    /// Stable id: kind, first target API, and a hash of the targets.
    pub id: String,
    /// The kind of request asked for.
    pub kind: TaskKind,
    /// ISO 639-1 code of the requests' language.
    pub language: String,
    /// Country of the first target API, or `GLOBAL`.
    pub country: String,
    /// Category of the first target API.
    pub category: String,
    /// Names of the target APIs, in call order.
    pub apis: Vec<String>,
    /// The candidate tools: targets and distractors, shuffled.
    pub tools: Vec<Tool>,
    /// Indices into [`seed_examples`] of the examples shown.
    pub examples: Vec<usize>,
    /// For a `no_tool` unit, the variant asked for.
    pub no_tool: Option<NoToolUnit>,
}

/// Settings of the planning step.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanOptions {
    /// The kinds to write.
    pub kinds: Vec<TaskKind>,
    /// Seed of the example draws and candidate shuffles.
    pub seed: u64,
    /// Country → language overrides of the built-in table.
    pub languages: BTreeMap<String, String>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            kinds: GENERATED_KINDS.to_vec(),
            seed: 1,
            languages: BTreeMap::new(),
        }
    }
}

fn hash64(text: &str) -> u64 {
    let digest = Sha256::digest(text.as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// The partner of set `i` for two-API kinds: the sampled API most similar
/// to it (TF-IDF cosine over name, description and parameters, as tool
/// confusion ranks them) among those of the same country, else among all;
/// ties go to the earlier set. Related APIs make natural parallel requests
/// and plausible chains.
fn partner(sets: &[CandidateSet], vectors: &[Vector], i: usize) -> Option<usize> {
    let best = |same_country: bool| {
        let mut best: Option<(usize, f64)> = None;
        for j in 0..sets.len() {
            let other = &sets[j].api;
            if j == i
                || other.tool.name == sets[i].api.tool.name
                || (same_country && other.country() != sets[i].api.country())
            {
                continue;
            }
            let similarity = cosine(&vectors[i], &vectors[j]);
            if best.is_none_or(|(_, s)| similarity > s) {
                best = Some((j, similarity));
            }
        }
        best.map(|(j, _)| j)
    };
    best(true).or_else(|| best(false))
}

/// Plans the units: one per candidate set and kind. Fails, naming every
/// such country, when a country's language is unknown.
pub fn plan(sets: &[CandidateSet], options: &PlanOptions) -> anyhow::Result<Vec<Unit>> {
    let language_of = |country: &str| -> Option<String> {
        options
            .languages
            .get(&country.to_ascii_uppercase())
            .cloned()
            .or_else(|| language_of_country(country).map(str::to_string))
    };
    let unknown: BTreeSet<&str> = sets
        .iter()
        .map(|s| s.api.country())
        .filter(|c| language_of(c).is_none())
        .collect();
    if !unknown.is_empty() {
        bail!(
            "no language is known for the countr{} {}: give one with --language CC=xx",
            if unknown.len() == 1 { "y" } else { "ies" },
            unknown.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    let seeds = seed_examples();
    let index = Index::build(&sets.iter().map(|s| &s.api.tool).collect::<Vec<_>>());
    let mut units = Vec::new();
    // Sets so far that could leave a value out (`no_tool`).
    let mut eligible = 0;
    for &kind in &options.kinds {
        for (i, set) in sets.iter().enumerate() {
            let mut members = vec![i];
            if matches!(kind, TaskKind::Parallel | TaskKind::Nested) {
                match partner(sets, &index.vectors, i) {
                    Some(j) => members.push(j),
                    None => continue,
                }
            }
            let gold = |m: usize| &sets[m].candidates[sets[m].gold_index].entry;
            let key: Vec<&str> = members.iter().map(|&m| gold(m).id.as_str()).collect();
            let variant = (kind == TaskKind::NoTool)
                .then(|| no_tool::next_variant(&gold(i).tool, &mut eligible));
            let kind_key = match variant {
                Some(v) => format!("{kind}-{}", v.as_str()),
                None => kind.as_str().to_string(),
            };
            let id_hash = hash64(&format!("{kind_key}|{}", key.join("|")));
            let id = format!(
                "{kind_key}-{}-{:06x}",
                slug(&gold(i).tool.name, SlugStyle::Id),
                id_hash & 0xff_ffff
            );
            let mut rng = fastrand::Rng::with_seed(options.seed ^ id_hash);
            let no_tool = variant.map(|v| no_tool::unit_of(v, &gold(i).tool, &mut rng));
            let apis: Vec<String> = members
                .iter()
                .map(|&m| {
                    sets[m].candidates[sets[m].gold_index]
                        .entry
                        .tool
                        .name
                        .clone()
                })
                .collect();
            let mut tools: Vec<Tool> = Vec::new();
            for &m in &members {
                for candidate in &sets[m].candidates {
                    if !tools.iter().any(|t| t.name == candidate.entry.tool.name) {
                        tools.push(candidate.entry.tool.clone());
                    }
                }
            }
            if members.len() > 1 {
                rng.shuffle(&mut tools);
            }
            let of_kind: Vec<usize> = (0..seeds.len())
                .filter(|&s| seeds[s].kind == kind && seeds[s].variant == variant)
                .collect();
            let mut examples = of_kind;
            rng.shuffle(&mut examples);
            examples.truncate(EXAMPLES_PER_PROMPT);
            let country = set.api.country().to_string();
            units.push(Unit {
                id,
                kind,
                language: language_of(&country).expect("checked above"),
                country,
                category: set.api.tool.category.clone(),
                apis,
                tools,
                examples,
                no_tool,
            });
        }
    }
    Ok(units)
}

/// JSON Schema of a generator's reply, as tight as the unit allows, so
/// that servers with constrained decoding cannot answer in a wrong shape:
/// exactly `count` queries; per query the calls the kind needs (one call
/// to the API for single; two or three for repeated; one call to each
/// target, in order, for parallel and nested; none for `no_tool`, with the
/// fields of its variant, [`no_tool::item_schema`]); per call the API's
/// declared parameters only, its required ones required, typed where the
/// catalog gives a JSON type.
pub fn reply_schema(unit: &Unit, count: usize) -> Value {
    let call = |name: &String| -> Value {
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        if let Some(tool) = unit.tools.iter().find(|t| &t.name == name) {
            for p in tool
                .required_parameters
                .iter()
                .chain(&tool.optional_parameters)
            {
                properties.insert(p.name.clone(), parameter_schema(&p.kind, unit.kind));
            }
            required = tool
                .required_parameters
                .iter()
                .map(|p| p.name.clone())
                .collect();
        }
        json!({
            "type": "object",
            "properties": {
                "api": {"type": "string", "enum": [name]},
                "arguments": {
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false
                }
            },
            "required": ["api", "arguments"],
            "additionalProperties": false
        })
    };
    if let Some(asked) = &unit.no_tool {
        return queries_schema(no_tool::item_schema(asked, call(&unit.apis[0])), count);
    }
    let calls = match unit.kind {
        TaskKind::Single | TaskKind::Repeated => {
            let (min, max) = if unit.kind == TaskKind::Single {
                (1, 1)
            } else {
                (2, 3)
            };
            json!({"type": "array", "items": call(&unit.apis[0]), "minItems": min, "maxItems": max})
        }
        _ => {
            let each: Vec<Value> = unit.apis.iter().map(call).collect();
            json!({"type": "array", "prefixItems": each, "minItems": each.len(), "maxItems": each.len()})
        }
    };
    let item = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "calls": calls
        },
        "required": ["query", "calls"],
        "additionalProperties": false
    });
    queries_schema(item, count)
}

/// `{"queries": [item × count]}`.
fn queries_schema(item: Value, count: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "minItems": count,
                "maxItems": count,
                "items": item
            }
        },
        "required": ["queries"],
        "additionalProperties": false
    })
}

/// A parameter's schema: its JSON type when the catalog gives one; in a
/// nested unit also any string, since a `"$1.field"` reference is one.
fn parameter_schema(declared: &str, kind: TaskKind) -> Value {
    let declared = declared.to_ascii_lowercase();
    match declared.as_str() {
        "string" => json!({"type": "string"}),
        "integer" | "number" | "boolean" | "array" | "object" if kind == TaskKind::Nested => {
            json!({"anyOf": [{"type": declared}, {"type": "string"}]})
        }
        "integer" | "number" | "boolean" | "array" | "object" => json!({"type": declared}),
        _ => json!({}),
    }
}

/// The chat asking the generator for `count` requests of a unit.
pub fn unit_chat(unit: &Unit, count: usize) -> Chat {
    let template = environment()
        .get_template("generate")
        .expect("generate template");
    let system = template
        .render(context! { part => "system" })
        .expect("generation prompt renders");
    let targets: Vec<&Tool> = match &unit.no_tool {
        // The request must defeat every candidate, so all are shown.
        Some(NoToolUnit::Unservable) => no_tool::shown_tools(&unit.apis[0], &unit.tools),
        _ => unit
            .apis
            .iter()
            .filter_map(|name| unit.tools.iter().find(|t| &t.name == name))
            .collect(),
    };
    let (variant, parameter) = match &unit.no_tool {
        Some(NoToolUnit::MissingParameter { parameter }) => (
            Some(NoToolVariant::MissingParameter.as_str()),
            Some(parameter),
        ),
        Some(NoToolUnit::Unservable) => (Some(NoToolVariant::Unservable.as_str()), None),
        None => (None, None),
    };
    let examples: Vec<&str> = unit
        .examples
        .iter()
        .map(|&i| seed_examples()[i].shown.as_str())
        .collect();
    let user = template
        .render(context! {
            part => "unit",
            kind => unit.kind.as_str(),
            language => &unit.language,
            language_name => language_name(&unit.language),
            country => &unit.country,
            apis => tools_view_json(&targets),
            examples => examples,
            count => count,
            variant => variant,
            parameter => parameter,
        })
        .expect("generation prompt renders");
    Chat::new(system, user).with_schema(reply_schema(unit, count))
}

/// Settings of the generation step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerationSettings {
    /// Requests asked for per unit.
    pub per_prompt: usize,
    /// How required values are checked against the query.
    pub values: ValueCheck,
}

impl Default for GenerationSettings {
    fn default() -> Self {
        GenerationSettings {
            per_prompt: 2,
            values: ValueCheck::Literal,
        }
    }
}

/// An item (or a whole reply) that did not become a query, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerationReject {
    /// The unit it came from.
    pub unit: String,
    /// The query id it would have had, for an item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The kind asked for.
    pub kind: TaskKind,
    /// The target language.
    pub language: String,
    /// The target APIs.
    pub apis: Vec<String>,
    /// The item as written, when the reply held one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Why it was rejected.
    pub reason: String,
    /// The prompt hash and the whole reply.
    pub provenance: Provenance,
}

/// What `generate` produced.
#[derive(Debug, Clone, Default)]
pub struct GenerateOutput {
    /// Valid queries, in unit order.
    pub queries: Vec<GeneratedQuery>,
    /// Everything rejected, with reasons.
    pub rejects: Vec<GenerationReject>,
    /// Requests, tokens and cost.
    pub stats: StageStats,
}

impl GenerateOutput {
    /// Reject counts by kind of reason: the reason with its names, values
    /// and numbers blanked out (for the summary).
    pub fn reject_reasons(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for r in &self.rejects {
            *counts.entry(reason_kind(&r.reason)).or_insert(0) += 1;
        }
        counts
    }
}

/// `call 2 (bvg): the value "Graz" of `ort` is …` → `call N (…): the value … of … is …`.
fn reason_kind(reason: &str) -> String {
    let mut out = String::new();
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' | '"' | '(' => {
                let close = if c == '(' { ')' } else { c };
                for d in chars.by_ref() {
                    if d == close {
                        break;
                    }
                }
                out.push_str(if c == '(' { "(…)" } else { "…" });
            }
            d if d.is_ascii_digit() => {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                out.push('N');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Asks the generator for every unit's requests, reads and checks them.
pub async fn generate(
    units: &[Unit],
    model: &ChatModel,
    options: &GenerationSettings,
) -> GenerateOutput {
    let chats: Vec<Chat> = units
        .iter()
        .map(|u| unit_chat(u, options.per_prompt))
        .collect();
    let hashes: Vec<String> = chats.iter().map(prompt_sha256).collect();
    let completions = complete_all(model, chats, |_, _| {}).await;
    let mut output = GenerateOutput::default();
    let mut seen: HashMap<String, String> = HashMap::new();
    for ((unit, completion), hash) in units.iter().zip(&completions).zip(hashes) {
        output.stats.record(completion, model.config());
        let raw = match &completion.result {
            Ok(answer) => answer.output.clone().unwrap_or_default(),
            Err(_) => String::new(),
        };
        let provenance = Provenance {
            stage: "generate".into(),
            model: model.name().to_string(),
            prompt_sha256: hash,
            raw,
        };
        let reject = |id: Option<String>, item: Option<String>, reason: String| GenerationReject {
            unit: unit.id.clone(),
            id,
            kind: unit.kind,
            language: unit.language.clone(),
            apis: unit.apis.clone(),
            item,
            reason,
            provenance: provenance.clone(),
        };
        if let Err((kind, message)) = &completion.result {
            output.rejects.push(reject(
                None,
                None,
                format!("request failed ({kind}): {message}"),
            ));
            continue;
        }
        let reply = read_reply(&provenance.raw);
        if reply.items.is_empty() {
            let why = if reply.unreadable > 0 {
                "the reply's JSON could not be read"
            } else {
                "the reply holds no query"
            };
            output.rejects.push(reject(None, None, why.into()));
            continue;
        }
        if reply.unreadable > 0 {
            output.rejects.push(reject(
                None,
                None,
                format!(
                    "items of the reply that are not readable JSON: {}",
                    reply.unreadable
                ),
            ));
        }
        let target = Target {
            kind: unit.kind,
            language: &unit.language,
            apis: &unit.apis,
            tools: &unit.tools,
        };
        for (position, item) in reply.items.into_iter().enumerate() {
            let id = format!("{}-{}", unit.id, position + 1);
            let draft = match item {
                Ok(draft) => draft,
                Err((raw_item, why)) => {
                    output.rejects.push(reject(Some(id), Some(raw_item), why));
                    continue;
                }
            };
            match check_item(&draft, unit, &target, options.values, &mut seen, &id) {
                Ok(no_tool) => output.queries.push(GeneratedQuery {
                    id,
                    kind: unit.kind,
                    language: unit.language.clone(),
                    country: unit.country.clone(),
                    category: unit.category.clone(),
                    query: draft.query,
                    apis: unit.apis.clone(),
                    tools: unit.tools.clone(),
                    no_tool,
                    provenance: provenance.clone(),
                }),
                Err(why) => output.rejects.push(reject(Some(id), Some(draft.raw), why)),
            }
        }
    }
    output
}

/// Checks one draft of a unit ([`validate`], or [`validate_no_tool`] for
/// a `no_tool` unit, whose plan it returns), then that it copies no seed
/// example and no earlier query (`seen`: lower-cased query → id).
fn check_item(
    draft: &DraftQuery,
    unit: &Unit,
    target: &Target,
    values: ValueCheck,
    seen: &mut HashMap<String, String>,
    id: &str,
) -> Result<Option<NoToolPlan>, String> {
    let plan = match &unit.no_tool {
        Some(asked) => Some(validate_no_tool(draft, target, asked, values)?),
        None => validate(draft, target, values).map(|()| None)?,
    };
    if let Some(source) = copied_from(&draft.query) {
        return Err(format!("the query copies {source}"));
    }
    let key = draft.query.to_lowercase();
    if let Some(first) = seen.get(&key) {
        return Err(format!("the same query as `{first}`"));
    }
    seen.insert(key, id.to_string());
    Ok(plan)
}

/// Options of `itc generate`.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Candidate sets (JSON Lines from `itc confuse`).
    pub candidates: PathBuf,
    /// Model configuration file (TOML, `[[models]]` tables).
    pub config: Option<PathBuf>,
    /// The generator: a model of the configuration.
    pub generator: Option<String>,
    /// Kinds to write, comma-separated: single, repeated, parallel, nested,
    /// no_tool.
    pub kinds: Vec<String>,
    /// Requests asked for in each prompt.
    pub per_prompt: usize,
    /// Plan at most this many units (prompts), the first in plan order.
    pub limit: Option<usize>,
    /// Seed of the example draws and candidate shuffles.
    pub seed: u64,
    /// Override a country's language: CC=xx (repeatable), e.g. CH=fr.
    pub language: Vec<(String, String)>,
    /// How required values are checked against the query text.
    pub value_check: ValueCheck,
    /// The response cache (default: `cache/` beside the output file).
    pub cache: CacheSetting,
    /// Write the prompts (JSON Lines: unit, system, user) here instead of
    /// calling the generator.
    pub dry_run: bool,
    /// Where to write the valid queries (JSON Lines); the prompts, with --dry-run.
    pub output: PathBuf,
    /// Where to write the rejects. Default: `<output>.rejects.jsonl`.
    pub rejects: Option<PathBuf>,
}

/// The kinds `itc generate` writes when not told: every generated kind.
pub const DEFAULT_KINDS: &str = "single,repeated,parallel,nested,no_tool";

impl Default for GenerateOptions {
    /// Every generated kind, [`GenerationSettings::default`], seed 1, the
    /// default cache; no files or model yet.
    fn default() -> Self {
        let settings = GenerationSettings::default();
        GenerateOptions {
            candidates: PathBuf::new(),
            config: None,
            generator: None,
            kinds: DEFAULT_KINDS.split(',').map(String::from).collect(),
            per_prompt: settings.per_prompt,
            limit: None,
            seed: 1,
            language: Vec::new(),
            value_check: settings.values,
            cache: CacheSetting::Default,
            dry_run: false,
            output: PathBuf::new(),
            rejects: None,
        }
    }
}

/// A rendered prompt, as `--dry-run` writes it.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedPrompt<'a> {
    /// The unit's id.
    pub unit: &'a str,
    /// The system message.
    pub system: &'a str,
    /// The user message.
    pub user: &'a str,
    /// SHA-256 of the chat, as provenance records carry it.
    pub prompt_sha256: String,
}

/// Reads candidate sets and plans the units of `itc generate`.
pub fn plan_from_args(args: &GenerateOptions) -> anyhow::Result<Vec<Unit>> {
    if args.per_prompt == 0 {
        bail!("--per-prompt must be at least 1");
    }
    let (sets, _) = read_records::<CandidateSet>(&args.candidates, false)?;
    let kinds = args
        .kinds
        .iter()
        .map(|k| TaskKind::from_name(k).map_err(|e| anyhow::anyhow!("--kinds: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let options = PlanOptions {
        kinds,
        seed: args.seed,
        languages: args.language.iter().cloned().collect(),
    };
    let mut units = plan(&sets, &options)?;
    if let Some(limit) = args.limit {
        units.truncate(limit);
    }
    Ok(units)
}

/// Writes the rendered prompts of the units (the `--dry-run` output).
pub fn write_prompts(path: &Path, units: &[Unit], per_prompt: usize) -> anyhow::Result<()> {
    let chats: Vec<Chat> = units.iter().map(|u| unit_chat(u, per_prompt)).collect();
    write_records(
        path,
        units.iter().zip(&chats).map(|(u, c)| RenderedPrompt {
            unit: &u.id,
            system: &c.system,
            user: &c.user,
            prompt_sha256: prompt_sha256(c),
        }),
    )
    .with_context(|| format!("writing {}", path.display()))
}

/// Runs `itc generate` and returns what each model's chats cost (none
/// with `--dry-run`).
pub fn run(
    args: &GenerateOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<(String, StageStats)>> {
    let units = plan_from_args(args)?;
    let mut languages: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &units {
        *languages.entry(u.language.as_str()).or_insert(0) += 1;
    }
    let spread: Vec<String> = languages.iter().map(|(l, n)| format!("{l} {n}")).collect();
    writeln!(
        err,
        "{} prompt(s) of {} request(s) each, by language: {}",
        units.len(),
        args.per_prompt,
        spread.join(", ")
    )?;
    if args.dry_run {
        write_prompts(&args.output, &units, args.per_prompt)?;
        writeln!(
            out,
            "wrote {} prompt(s) to {}",
            units.len(),
            args.output.display()
        )?;
        return Ok(Vec::new());
    }
    let (Some(config), Some(name)) = (&args.config, &args.generator) else {
        bail!("--config and --generator are required without --dry-run");
    };
    let spec = load_model(config, name)?;
    let cache = crate::build::chat::stage_cache(&args.cache, &args.output);
    let model = ChatModel::new(&spec, cache.as_deref())?;
    let options = GenerationSettings {
        per_prompt: args.per_prompt,
        values: args.value_check,
    };
    let output = block_on(Threads::PerCore, generate(&units, &model, &options))?;
    let rejects = args
        .rejects
        .clone()
        .unwrap_or_else(|| beside(&args.output, "rejects.jsonl"));
    write_records(&args.output, &output.queries)
        .with_context(|| format!("writing {}", args.output.display()))?;
    write_records(&rejects, &output.rejects)
        .with_context(|| format!("writing {}", rejects.display()))?;
    print_summary(&output, out)?;
    writeln!(err, "{name}: {}", output.stats)?;
    writeln!(
        err,
        "wrote {} and {}",
        args.output.display(),
        rejects.display()
    )?;
    Ok(vec![(name.clone(), output.stats)])
}

/// Kept queries by kind and language, and rejects by reason.
pub fn print_summary(output: &GenerateOutput, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut by: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for q in &output.queries {
        *by.entry((q.kind.as_str(), q.language.as_str()))
            .or_insert(0) += 1;
    }
    writeln!(
        out,
        "{} valid quer{}, {} rejected",
        output.queries.len(),
        if output.queries.len() == 1 {
            "y"
        } else {
            "ies"
        },
        output.rejects.len()
    )?;
    for ((kind, language), n) in by {
        writeln!(out, "  {kind:<9} {language:<3} {n}")?;
    }
    for (reason, n) in output.reject_reasons() {
        writeln!(out, "  rejected: {reason} ({n})")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::catalog::CatalogEntry;
    use crate::build::confuse::{Candidate, Difficulty, Role};

    fn entry(name: &str, country: &str) -> CatalogEntry {
        CatalogEntry {
            id: format!("test:{name}"),
            tool: Tool {
                name: name.into(),
                description: format!("{name} does things"),
                category: "Travel".into(),
                country: country.into(),
                ..Tool::default()
            },
            country_source: None,
            home_url: None,
            auth: None,
            source: None,
            original_name: None,
        }
    }

    fn set(name: &str, country: &str) -> CandidateSet {
        let candidate = |e: CatalogEntry, role| Candidate {
            entry: e,
            role,
            similarity: 0.5,
            renamed_from: None,
        };
        CandidateSet {
            api: entry(name, country),
            difficulty: Difficulty::Nearest,
            gold_index: 1,
            candidates: vec![
                candidate(entry(&format!("{name}_decoy"), country), Role::Distractor),
                candidate(entry(name, country), Role::Gold),
            ],
            renamed: 0,
        }
    }

    #[test]
    fn the_seed_files_have_nine_examples_per_kind_six_per_no_tool_variant_in_many_languages() {
        let seeds = seed_examples();
        assert_eq!(seeds.len(), 36 + 12);
        for kind in &GENERATED_KINDS[..4] {
            assert_eq!(
                seeds.iter().filter(|s| s.kind == *kind).count(),
                9,
                "{kind:?}"
            );
        }
        for variant in [NoToolVariant::Unservable, NoToolVariant::MissingParameter] {
            let of: Vec<&SeedExample> = seeds
                .iter()
                .filter(|s| s.variant == Some(variant))
                .collect();
            assert_eq!(of.len(), 6, "{variant:?}");
            assert!(of.iter().all(|s| s.kind == TaskKind::NoTool));
            assert!(
                of[0]
                    .origin
                    .ends_with("of prompts/seed_examples_no_tool.jsonl")
            );
        }
        assert!(
            seeds
                .iter()
                .all(|s| s.variant.is_some() == (s.kind == TaskKind::NoTool))
        );
        let languages: BTreeSet<String> = seeds
            .iter()
            .map(|s| serde_json::from_str::<Value>(&s.shown).unwrap()["language"].to_string())
            .collect();
        assert!(languages.len() >= 12, "{languages:?}");
    }

    #[test]
    fn seed_examples_pass_their_own_validation() {
        // The examples teach the generator; they must meet the bar its
        // output is held to.
        for seed in seed_examples() {
            let v: Value = serde_json::from_str(&seed.shown).unwrap();
            let reply = read_reply(&json!({"queries": [v]}).to_string());
            let draft = reply.items[0].clone().unwrap();
            let tools: Vec<Tool> = v["apis"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    let name = a["name"].as_str().unwrap();
                    let used: BTreeSet<String> = draft
                        .calls
                        .iter()
                        .chain(&draft.full_call)
                        .filter(|c| c.api == name)
                        .flat_map(|c| c.arguments.keys().cloned())
                        .collect();
                    let mut t = entry(name, "XX").tool;
                    t.required_parameters = used
                        .into_iter()
                        .map(|p| crate::spec::records::Parameter {
                            name: p,
                            kind: "string".into(),
                            description: String::new(),
                            default: None,
                            ..Default::default()
                        })
                        .collect();
                    t
                })
                .collect();
            let mut apis: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
            if seed.kind == TaskKind::NoTool {
                // The target is the first API; the others are candidates.
                apis.truncate(1);
            }
            let language = v["language"].as_str().unwrap();
            let target = Target {
                kind: seed.kind,
                language,
                apis: &apis,
                tools: &tools,
            };
            let checked = match seed.variant {
                None => validate(&draft, &target, ValueCheck::Literal),
                Some(variant) => {
                    let asked = match variant {
                        NoToolVariant::Unservable => NoToolUnit::Unservable,
                        NoToolVariant::MissingParameter => NoToolUnit::MissingParameter {
                            parameter: draft.missing.clone().unwrap(),
                        },
                    };
                    validate_no_tool(&draft, &target, &asked, ValueCheck::Literal).map(|_| ())
                }
            };
            assert_eq!(checked, Ok(()), "{}", seed.shown);
        }
    }

    #[test]
    fn copies_of_the_prompt_are_caught() {
        let seed =
            "I'm paying a supplier invoice of CHF 2750 — how much is that in USD at today's rate?";
        let near = "I am paying a supplier invoice of CHF 2750 — how much is that in USD?";
        let first = seed_examples()
            .iter()
            .position(|s| s.shown.contains("CHF 2750"))
            .unwrap();
        let expected = format!("seed example {} of prompts/seed_examples.jsonl", first + 1);
        assert_eq!(copied_from(seed).as_deref(), Some(expected.as_str()));
        assert_eq!(copied_from(near).as_deref(), Some(expected.as_str()));
        let part = "Is the Piccadilly line running normally this morning?";
        assert!(copied_from(part).is_some(), "one sentence of an example");
        assert_eq!(
            copied_from("<the request>").as_deref(),
            Some("the prompt's placeholder")
        );
        assert_eq!(
            copied_from(
                "How much is 500 euros in Japanese yen today? I'm booking a hotel in Kyoto."
            ),
            None
        );
        assert_eq!(
            copied_from("Which bin goes out this week, the recycling or the general waste?")
                .as_deref(),
            Some("seed example 12 of prompts/seed_examples_no_tool.jsonl")
        );
    }

    /// A set whose gold API requires `required` (its decoy requires nothing).
    fn set_requiring(name: &str, country: &str, required: &[&str]) -> CandidateSet {
        let mut s = set(name, country);
        let parameters: Vec<crate::spec::records::Parameter> = required
            .iter()
            .map(|p| crate::spec::records::Parameter {
                name: p.to_string(),
                kind: "string".into(),
                description: format!("the {p}"),
                default: None,
                ..Default::default()
            })
            .collect();
        s.api.tool.required_parameters = parameters.clone();
        s.candidates[1].entry.tool.required_parameters = parameters;
        s
    }

    #[test]
    fn no_tool_units_alternate_variants_with_their_own_examples_and_prompts() {
        let sets = vec![
            set_requiring("jr_east", "JP", &["from", "to"]),
            set_requiring("bvg", "DE", &["station"]),
            set("jma", "JP"),
            set_requiring("sbb", "CH", &["stop"]),
        ];
        let options = PlanOptions {
            kinds: vec![TaskKind::NoTool],
            ..PlanOptions::default()
        };
        let units = plan(&sets, &options).unwrap();
        let asked: Vec<(&str, &Option<NoToolUnit>)> = units
            .iter()
            .map(|u| (u.apis[0].as_str(), &u.no_tool))
            .collect();
        let missing = |p: &str| {
            Some(NoToolUnit::MissingParameter {
                parameter: p.to_string(),
            })
        };
        let jr_east_parameter = match &units[0].no_tool {
            Some(NoToolUnit::MissingParameter { parameter }) => parameter.clone(),
            other => panic!("{other:?}"),
        };
        assert!(["from", "to"].contains(&jr_east_parameter.as_str()));
        assert_eq!(
            asked,
            [
                ("jr_east", &missing(&jr_east_parameter)),
                ("bvg", &Some(NoToolUnit::Unservable)),
                ("jma", &Some(NoToolUnit::Unservable)),
                ("sbb", &missing("stop")),
            ]
        );
        assert!(
            units[0]
                .id
                .starts_with("no_tool-missing_parameter-jr_east-")
        );
        assert!(units[1].id.starts_with("no_tool-unservable-bvg-"));
        for u in &units {
            let variant = u.no_tool.as_ref().unwrap().variant();
            assert_eq!(u.examples.len(), EXAMPLES_PER_PROMPT);
            assert!(
                u.examples
                    .iter()
                    .all(|&e| seed_examples()[e].variant == Some(variant))
            );
        }

        // Missing parameter: the target only, the parameter named, in the
        // unit's language; the schema asks for it and no call.
        let chat = unit_chat(&units[3], 2);
        assert!(
            chat.user
                .contains("Kind of request: no_tool (a value is missing)")
        );
        assert!(
            chat.user
                .contains("except the value of the required parameter \"stop\"")
        );
        assert!(chat.user.contains("\"missing\": \"stop\""));
        assert!(chat.user.contains("in German"), "CH → de");
        assert!(!chat.user.contains("sbb_decoy"));
        let item = &chat.schema.unwrap()["properties"]["queries"]["items"];
        assert_eq!(item["properties"]["calls"]["maxItems"], 0);
        assert_eq!(item["properties"]["missing"]["enum"], json!(["stop"]));
        assert_eq!(
            item["properties"]["full_call"]["properties"]["arguments"]["required"],
            json!(["stop"])
        );
        // Unservable: every candidate shown, target first; a reason asked for.
        let chat = unit_chat(&units[1], 2);
        assert!(chat.user.contains("Kind of request: no_tool (unservable)"));
        let target = chat.user.find("\"name\": \"bvg\"").unwrap();
        let decoy = chat.user.find("\"name\": \"bvg_decoy\"").unwrap();
        assert!(target < decoy, "the target comes first");
        assert!(chat.user.contains("\"reason\""));
        for &e in &units[1].examples {
            assert!(chat.user.contains(&seed_examples()[e].shown));
        }
        let item = &chat.schema.unwrap()["properties"]["queries"]["items"];
        assert_eq!(item["required"], json!(["query", "calls", "reason"]));
        assert!(!chat.user.contains("{{") && !chat.user.contains("{%"));
    }

    #[test]
    fn reject_reasons_group_by_kind() {
        assert_eq!(
            reason_kind("call 2 (bvg): the value \"Graz\" of `ort` is not stated in the query"),
            "call N (…): the value … of … is not stated in the query"
        );
        assert_eq!(
            reason_kind("the query is written in en, not de"),
            "the query is written in en, not de"
        );
    }

    #[test]
    fn plans_a_unit_per_set_and_kind_with_partners_of_the_same_country() {
        let sets = vec![set("jr_east", "JP"), set("bvg", "DE"), set("jma", "JP")];
        let units = plan(&sets, &PlanOptions::default()).unwrap();
        assert_eq!(units.len(), 15);
        let parallel: Vec<&Unit> = units
            .iter()
            .filter(|u| u.kind == TaskKind::Parallel)
            .collect();
        assert_eq!(parallel[0].apis, ["jr_east", "jma"]);
        assert_eq!(parallel[0].language, "ja");
        // No other German API: the partner comes from elsewhere.
        assert_eq!(parallel[1].apis, ["bvg", "jma"]);
        assert_eq!(parallel[1].language, "de");
        assert_eq!(parallel[0].tools.len(), 4, "both candidate lists");
        for u in &units {
            assert_eq!(u.examples.len(), EXAMPLES_PER_PROMPT);
            assert!(
                u.examples
                    .iter()
                    .all(|&e| seed_examples()[e].kind == u.kind)
            );
            assert_eq!(u.no_tool.is_some(), u.kind == TaskKind::NoTool);
        }
        // Stable ids, unique, and the same plan for the same seed.
        let ids: BTreeSet<&str> = units.iter().map(|u| u.id.as_str()).collect();
        assert_eq!(ids.len(), units.len());
        assert_eq!(plan(&sets, &PlanOptions::default()).unwrap(), units);
        assert!(
            units[0].id.starts_with("single-jr_east-"),
            "{}",
            units[0].id
        );
    }

    #[test]
    fn partners_are_the_most_similar_api_of_the_country() {
        let described = |name: &str, country: &str, description: &str| {
            let mut s = set(name, country);
            for c in &mut s.candidates {
                if c.entry.tool.name == name {
                    c.entry.tool.description = description.into();
                }
            }
            s.api.tool.description = description.into();
            s
        };
        let sets = vec![
            described(
                "train_times",
                "JP",
                "train timetable between two railway stations",
            ),
            described(
                "ramen_finder",
                "JP",
                "find ramen restaurants near an address",
            ),
            described("rail_fares", "DE", "railway fares between two stations"),
            described(
                "train_fares",
                "JP",
                "train fares between two railway stations",
            ),
        ];
        let options = PlanOptions {
            kinds: vec![TaskKind::Parallel],
            ..PlanOptions::default()
        };
        let units = plan(&sets, &options).unwrap();
        let partners: Vec<(&str, &str)> = units
            .iter()
            .map(|u| (u.apis[0].as_str(), u.apis[1].as_str()))
            .collect();
        assert_eq!(
            partners,
            [
                ("train_times", "train_fares"),
                ("ramen_finder", "train_times"),
                // No other German API: the most similar of all.
                ("rail_fares", "train_fares"),
                ("train_fares", "train_times"),
            ]
        );
    }

    #[test]
    fn unknown_countries_are_named_and_can_be_overridden() {
        let sets = vec![set("a", "XX"), set("b", "YY"), set("c", "JP")];
        let err = plan(&sets, &PlanOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("countries XX, YY"), "{err}");
        let mut options = PlanOptions::default();
        options.languages.insert("XX".into(), "fr".into());
        options.languages.insert("YY".into(), "es".into());
        let units = plan(&sets, &options).unwrap();
        assert_eq!(units[0].language, "fr");
    }

    #[test]
    fn the_prompt_carries_the_language_targets_examples_and_count() {
        let sets = vec![set("jr_east", "JP"), set("jma", "JP")];
        let units = plan(&sets, &PlanOptions::default()).unwrap();
        let nested = units.iter().find(|u| u.kind == TaskKind::Nested).unwrap();
        let chat = unit_chat(nested, 3);
        assert!(
            chat.user
                .contains("Language of the requests (ISO 639-1): ja")
        );
        assert!(chat.user.contains("in Japanese"));
        assert!(chat.user.contains("Write 3 new requests"));
        assert!(chat.user.contains("Kind of request: nested"));
        assert!(chat.user.contains("\"name\": \"jr_east\""));
        assert!(
            !chat.user.contains("jr_east_decoy"),
            "distractors are not shown"
        );
        for &e in &nested.examples {
            assert!(chat.user.contains(&seed_examples()[e].shown));
        }
        let schema = chat.schema.unwrap();
        let queries = &schema["properties"]["queries"];
        assert_eq!(
            (queries["minItems"].as_u64(), queries["maxItems"].as_u64()),
            (Some(3), Some(3))
        );
        let calls = &queries["items"]["properties"]["calls"];
        assert_eq!(
            (calls["minItems"].as_u64(), calls["maxItems"].as_u64()),
            (Some(2), Some(2))
        );
        for (i, api) in nested.apis.iter().enumerate() {
            let call = &calls["prefixItems"][i]["properties"];
            assert_eq!(
                call["api"]["enum"],
                json!([api]),
                "call {i} is to target {i}"
            );
            assert_eq!(call["arguments"]["additionalProperties"], false);
        }
        let single = units.iter().find(|u| u.kind == TaskKind::Single).unwrap();
        let schema = unit_chat(single, 1).schema.unwrap();
        let calls = &schema["properties"]["queries"]["items"]["properties"]["calls"];
        assert_eq!(
            (calls["minItems"].as_u64(), calls["maxItems"].as_u64()),
            (Some(1), Some(1))
        );
    }
}
