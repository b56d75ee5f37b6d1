//! One synthetic task ([`make_task`]): its kind's gold calls and tools,
//! confusable candidates beside them, and the texts its predictions reuse
//! ([`TaskExtras`]).
//!
//! Every draw comes from the caller's rng in a fixed order, so a seed always
//! gives the same tasks.

use fastrand::Rng;
use serde_json::json;

use super::arguments::{gold_arguments, str_value, vary_repeated};
use super::domain::{Domain, Refusal, Topic};
use super::phrases::{ENGLISH, LANGUAGES, Phrases, fill};
use super::tools::{GEOCODE, GET_ORDERS, LOGIN, ORDER_DETAILS, WEATHER_BY_COORDS, domain_tool};
use crate::spec::records::{Call, Gold, Reference, Task, TaskKind, Tool, Turn, Value};

/// What the predictions of a task reuse, computed once.
pub(super) struct TaskExtras {
    /// Thoughts of an answer that makes the gold calls, in the task's language.
    pub(super) thoughts: [String; 3],
    /// Thought of an answer that calls nothing.
    pub(super) refusal: String,
    /// Text before and after `{call}` in the bare-call sentence.
    pub(super) bare: (String, String),
    /// Indexes of candidate tools the gold does not use.
    pub(super) confusers: Vec<usize>,
}

/// The draws every task starts with.
struct Setting {
    /// Index of the task's language in [`LANGUAGES`].
    language: usize,
    lang: &'static Phrases,
    /// Index of the task's place in `lang.places`.
    place_index: usize,
    /// Whether the weather tool has its name in the task's language.
    localized: bool,
}

impl Setting {
    fn place(&self) -> &'static str {
        self.lang.places[self.place_index]
    }

    /// A query about `topic` at the task's place, from a drawn template.
    fn query(&self, rng: &mut Rng, topic: Topic, place: &str) -> String {
        fill(
            self.lang.queries[rng.usize(..3)],
            self.lang.topic(topic),
            place,
        )
    }
}

/// The gold side a task's kind decides, before confusers join the candidates.
#[derive(Default)]
struct GoldDraft {
    tools: Vec<Tool>,
    calls: Vec<Call>,
    /// The turns of a nested chain: each call with its tool's output.
    turns: Vec<Turn>,
    /// Domains whose tools are among the gold tools.
    domains: Vec<Domain>,
}

impl GoldDraft {
    /// Adds the tool of `domain` to the candidates; returns its name.
    fn add_domain_tool(&mut self, domain: Domain, setting: &Setting) -> String {
        let tool = domain_tool(domain, setting.lang, setting.localized);
        let name = tool.name.clone();
        self.tools.push(tool);
        self.domains.push(domain);
        name
    }

    /// Adds a call of a nested chain, with the output its tool gave.
    fn add_turn(&mut self, call: Call, output: serde_json::Value) {
        self.turns.push(Turn {
            calls: vec![call.clone()],
            tool_outputs: vec![output],
        });
        self.calls.push(call);
    }
}

/// What a task's texts say.
struct Wording {
    topic: Topic,
    query: String,
    /// The thought template of a nested chain; other kinds use the language's thoughts.
    nested_thought: Option<String>,
    /// Why an answer that calls nothing does so.
    refusal: Refusal,
}

impl Wording {
    fn about(topic: Topic, query: String) -> Wording {
        Wording {
            topic,
            query,
            nested_thought: None,
            refusal: Refusal::NoToolServes,
        }
    }
}

/// The `i`-th task, with what its predictions reuse.
pub(super) fn make_task(rng: &mut Rng, i: usize) -> (Task, TaskExtras) {
    let language = rng.usize(..LANGUAGES.len());
    let kind = draw_kind(rng);
    let place_index = rng.usize(..4);
    let setting = Setting {
        language,
        lang: &LANGUAGES[language],
        place_index,
        localized: rng.f64() < 0.3,
    };
    let (mut gold, wording) = match kind {
        TaskKind::Single => single(rng, &setting),
        TaskKind::Repeated => repeated(rng, &setting),
        TaskKind::Parallel => parallel(rng, &setting),
        TaskKind::Nested => nested(rng, &setting),
        TaskKind::NoTool => no_tool(rng, &setting),
    };
    // The category of the task's main tool (the first one added).
    let category = match gold.tools.first() {
        Some(t) => t.category.clone(),
        None => "Lottery".to_string(),
    };
    add_confusers(rng, setting.lang, &mut gold);
    let extras = task_extras(&setting, &wording, &gold);
    let gold_thought = if kind == TaskKind::NoTool {
        extras.refusal.clone()
    } else {
        extras.thoughts[0].clone()
    };
    let country = if rng.f64() < 0.1 {
        "GLOBAL"
    } else {
        setting.lang.country
    };
    let task = Task {
        id: format!("syn-{i:06}"),
        kind,
        language: setting.lang.code.into(),
        country: country.into(),
        category,
        query: wording.query,
        tools: gold.tools,
        gold: Gold {
            thought: gold_thought,
            calls: gold.calls,
            official: None,
        },
        turns: gold.turns,
    };
    (task, extras)
}

fn draw_kind(rng: &mut Rng) -> TaskKind {
    match rng.usize(..100) {
        0..30 => TaskKind::Single,
        30..45 => TaskKind::Repeated,
        45..65 => TaskKind::Parallel,
        65..85 => TaskKind::Nested,
        _ => TaskKind::NoTool,
    }
}

/// One call to one domain's tool.
fn single(rng: &mut Rng, setting: &Setting) -> (GoldDraft, Wording) {
    let domain = Domain::ALL[rng.usize(..Domain::ALL.len())];
    let mut gold = GoldDraft::default();
    let name = gold.add_domain_tool(domain, setting);
    let arguments = gold_arguments(rng, domain, setting.lang, setting.place_index);
    gold.calls.push(Call::new(name, arguments));
    let topic = Topic::Domain(domain);
    let query = setting.query(rng, topic, setting.place());
    (gold, Wording::about(topic, query))
}

/// Two or three calls to one tool, each about another place.
fn repeated(rng: &mut Rng, setting: &Setting) -> (GoldDraft, Wording) {
    let domain = Domain::REPEATED[rng.usize(..Domain::REPEATED.len())];
    let mut gold = GoldDraft::default();
    let name = gold.add_domain_tool(domain, setting);
    let n = rng.usize(2..=3);
    let places: Vec<usize> = (0..n).map(|k| (setting.place_index + k) % 4).collect();
    for (k, &place) in places.iter().enumerate() {
        let mut args = gold_arguments(rng, domain, setting.lang, place);
        vary_repeated(domain, k, &mut args);
        gold.calls.push(Call::new(name.clone(), args));
    }
    let names: Vec<&str> = places.iter().map(|&p| setting.lang.places[p]).collect();
    let separator = if setting.language == ENGLISH {
        ", "
    } else {
        "、"
    };
    let topic = Topic::Domain(domain);
    let query = setting.query(rng, topic, &names.join(separator));
    (gold, Wording::about(topic, query))
}

/// Two or three calls to tools of different domains; one query sentence each.
fn parallel(rng: &mut Rng, setting: &Setting) -> (GoldDraft, Wording) {
    let n = rng.usize(2..=3);
    let mut domains = Domain::ALL.to_vec();
    rng.shuffle(&mut domains);
    let mut gold = GoldDraft::default();
    let mut query = String::new();
    for &domain in &domains[..n] {
        let name = gold.add_domain_tool(domain, setting);
        let arguments = gold_arguments(rng, domain, setting.lang, setting.place_index);
        gold.calls.push(Call::new(name, arguments));
        if !query.is_empty() {
            query.push(' ');
        }
        query.push_str(&setting.query(rng, Topic::Domain(domain), setting.place()));
    }
    (gold, Wording::about(Topic::Domain(domains[0]), query))
}

/// A chain whose later calls use earlier calls' outputs.
fn nested(rng: &mut Rng, setting: &Setting) -> (GoldDraft, Wording) {
    let (gold, topic, placeholder) = if rng.bool() {
        (geo_chain(rng, setting.lang), Topic::Geo, "coordinates")
    } else {
        (orders_chain(rng, setting.lang), Topic::Orders, "token")
    };
    let wording = Wording {
        nested_thought: Some(setting.lang.nested.replace("{ph}", placeholder)),
        ..Wording::about(topic, setting.query(rng, topic, setting.place()))
    };
    (gold, wording)
}

fn reference(call: usize, field: &str) -> Value {
    Value::Ref(Reference {
        call,
        field: field.into(),
    })
}

/// geocode(address) → weather_by_coords(lat, lon).
fn geo_chain(rng: &mut Rng, lang: &Phrases) -> GoldDraft {
    let mut gold = GoldDraft::default();
    gold.tools.push(GEOCODE.tool(lang));
    gold.tools.push(WEATHER_BY_COORDS.tool(lang));
    let first = Call::new(
        GEOCODE.name,
        vec![("address".into(), str_value(lang.address))],
    );
    let mut second_args = vec![
        ("lat".into(), reference(0, "lat")),
        ("lon".into(), reference(0, "lon")),
    ];
    if rng.bool() {
        second_args.push(("units".into(), str_value("metric")));
    }
    let second = Call::new(WEATHER_BY_COORDS.name, second_args);
    let lat = 20.0 + rng.f64() * 40.0;
    gold.add_turn(
        first,
        json!({"lat": (lat * 1e4).round() / 1e4, "lon": 37.6173}),
    );
    gold.add_turn(second, json!({"temp_c": 21.5, "condition": "clear"}));
    gold
}

/// auth/login(username, password) → get_orders(token), sometimes
/// → order_details(token, order_id).
fn orders_chain(rng: &mut Rng, lang: &Phrases) -> GoldDraft {
    let mut gold = GoldDraft::default();
    gold.tools.push(LOGIN.tool(lang));
    gold.tools.push(GET_ORDERS.tool(lang));
    let first = Call::new(
        LOGIN.name,
        vec![
            ("username".into(), str_value(lang.user)),
            (
                "password".into(),
                str_value(&format!("pw-{:04}", rng.u32(..10000))),
            ),
        ],
    );
    let mut second_args = vec![("token".into(), reference(0, "token"))];
    if rng.bool() {
        second_args.push(("limit".into(), Value::Int(rng.i64(3..=10))));
    }
    if rng.f64() < 0.3 {
        second_args.push(("status".into(), str_value("shipped")));
    }
    let second = Call::new(GET_ORDERS.name, second_args);
    gold.add_turn(first, json!({"token": format!("tk_{:08x}", rng.u32(..))}));
    gold.add_turn(
        second,
        json!({"orders": [{"order_id": "A1001", "status": "shipped"}]}),
    );
    if rng.f64() < 0.3 {
        gold.tools.push(ORDER_DETAILS.tool(lang));
        let third = Call::new(
            ORDER_DETAILS.name,
            vec![
                ("token".into(), reference(0, "token")),
                ("order_id".into(), reference(1, "orders.0.order_id")),
            ],
        );
        gold.add_turn(third, json!({"order_id": "A1001", "total": 59.9}));
    }
    gold
}

/// No call is right: nothing serves the topic, or the query lacks a value.
fn no_tool(rng: &mut Rng, setting: &Setting) -> (GoldDraft, Wording) {
    if rng.bool() {
        // Nothing among the candidates serves the topic.
        let topic = Topic::Unsupported;
        let query = setting.query(rng, topic, setting.place());
        (GoldDraft::default(), Wording::about(topic, query))
    } else {
        // The right tool is there but the query lacks a required value.
        let domain = Domain::MISSING_VALUE[rng.usize(..Domain::MISSING_VALUE.len())];
        let mut gold = GoldDraft::default();
        gold.add_domain_tool(domain, setting);
        let topic = Topic::Domain(domain);
        let query = fill(
            setting.lang.vague,
            setting.lang.topic(topic),
            setting.place(),
        );
        let wording = Wording {
            refusal: Refusal::ValueMissing,
            ..Wording::about(topic, query)
        };
        (gold, wording)
    }
}

/// Fills the candidates up to 3–6 tools with other domains' tools, sometimes
/// a near-duplicate of a gold tool, then shuffles them so the gold tools are
/// not always first.
fn add_confusers(rng: &mut Rng, lang: &Phrases, gold: &mut GoldDraft) {
    let gold_tools = gold.tools.len();
    let tools = &mut gold.tools;
    let target = rng.usize(3..=6).max(gold_tools + 1);
    if gold_tools > 0 && tools.len() < target && rng.f64() < 0.3 {
        let mut twin = tools[0].clone();
        twin.name = format!("{}_v2", twin.name.replace(' ', "_"));
        twin.description = format!("Deprecated. {}", twin.description);
        tools.push(twin);
    }
    let mut others: Vec<Domain> = Domain::ALL
        .iter()
        .copied()
        .filter(|d| !gold.domains.contains(d))
        .collect();
    rng.shuffle(&mut others);
    for domain in others {
        if tools.len() >= target {
            break;
        }
        tools.push(domain_tool(domain, lang, rng.f64() < 0.3));
    }
    rng.shuffle(tools);
}

/// The texts predictions reuse, and which candidates are confusers.
fn task_extras(setting: &Setting, wording: &Wording, gold: &GoldDraft) -> TaskExtras {
    let lang = setting.lang;
    let topic = lang.topic(wording.topic);
    let place = setting.place();
    let thoughts: [String; 3] = match &wording.nested_thought {
        Some(t) => std::array::from_fn(|_| fill(t, topic, place)),
        None => lang.thoughts.map(|t| fill(t, topic, place)),
    };
    let bare_sentence = fill(lang.bare, topic, place);
    let bare = match bare_sentence.split_once("{call}") {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (bare_sentence, String::new()),
    };
    let gold_names: Vec<&str> = gold.calls.iter().map(|c| c.name.as_str()).collect();
    let confusers = (0..gold.tools.len())
        .filter(|&k| !gold_names.contains(&gold.tools[k].name.as_str()))
        .collect();
    TaskExtras {
        thoughts,
        refusal: fill(lang.refusal(wording.refusal), topic, place),
        bare,
        confusers,
    }
}
