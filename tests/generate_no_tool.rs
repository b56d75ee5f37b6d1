//! `no_tool` tasks from end to end: `itc generate --kinds no_tool` against
//! a scripted generator on loopback, then `itc answer` against a scripted
//! answer model, then `itc score`. One candidate set gets a request that
//! leaves out a required value, the other one no candidate serves; the
//! generator's drafts that fail their checks (a "left-out" value that is in
//! the request, a missing reason, a call) are rejected with their reasons,
//! and an "unservable" request that a candidate does serve is rejected by
//! the answer stage, whose model is not told the kind.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer};
use support::{itc, scripted_models_toml, text};

use itc::spec::kind::CallShape;
use itc::spec::records::{Task, TaskKind};

fn parameter(name: &str) -> Value {
    json!({"name": name, "type": "string", "description": format!("the {name}")})
}

/// A catalog entry as a candidate of `itc confuse`.
fn candidate(name: &str, country: &str, required: &[&str], optional: &[&str], gold: bool) -> Value {
    json!({
        "id": format!("test:{name}"),
        "name": name,
        "description": format!("The {name} API"),
        "category": "Travel",
        "country": country,
        "required_parameters": required.iter().map(|p| parameter(p)).collect::<Vec<_>>(),
        "optional_parameters": optional.iter().map(|p| parameter(p)).collect::<Vec<_>>(),
        "role": if gold { "gold" } else { "distractor" },
        "similarity": if gold { 1.0 } else { 0.4 }
    })
}

/// A candidate set: the gold API second, one distractor first.
fn set(gold: Value, distractor: Value) -> Value {
    let mut api = gold.clone();
    let object = api.as_object_mut().unwrap();
    object.remove("role");
    object.remove("similarity");
    json!({
        "api": api,
        "difficulty": "nearest",
        "gold_index": 1,
        "candidates": [distractor, gold],
        "renamed": 0
    })
}

/// The first set's API requires a value (so its unit leaves one out); the
/// second set's unit is the unservable one.
fn candidate_sets() -> String {
    let sets = [
        set(
            candidate("uk_weather", "GB", &["city"], &["days"], true),
            candidate("uk_tides", "GB", &["port"], &[], false),
        ),
        set(
            candidate("db_trains", "DE", &["von", "nach"], &[], true),
            candidate("dwd_weather", "DE", &["ort"], &[], false),
        ),
    ];
    sets.iter().map(|s| s.to_string() + "\n").collect()
}

const MISSING_GOOD: &str =
    "What will the weather be like over the next 3 days? I'm planning a long walk with my dog.";
const MISSING_STATED: &str =
    "Will it rain in Leeds tomorrow afternoon? I need to know whether to take an umbrella.";
const UNSERVABLE_GOOD: &str =
    "Kannst du mir für morgen früh zwei Sitzplätze im ICE von Köln nach Berlin reservieren?";
const UNSERVABLE_SERVED: &str =
    "Wie wird das Wetter morgen in Hamburg? Ich will nach der Arbeit an die Elbe radeln.";
const UNSERVABLE_NO_REASON: &str =
    "Was kostet eine Bahncard 50 für Studenten im Moment, und kann ich sie in Raten zahlen?";

fn writer_reply(user: &str) -> Value {
    if user.contains("Kind of request: no_tool (a value is missing)") {
        json!({"queries": [
            {"query": MISSING_GOOD, "calls": [], "missing": "city",
             "full_call": {"api": "uk_weather", "arguments": {"city": "York", "days": 3}}},
            {"query": MISSING_STATED, "calls": [], "missing": "city",
             "full_call": {"api": "uk_weather", "arguments": {"city": "Leeds"}}},
            {"query": "What's the weather in York this weekend?", "calls": [{"api": "uk_weather", "arguments": {"city": "York"}}],
             "missing": "city", "full_call": {"api": "uk_weather", "arguments": {"city": "York"}}}
        ]})
    } else if user.contains("Kind of request: no_tool (unservable)") {
        json!({"queries": [
            {"query": UNSERVABLE_GOOD, "calls": [],
             "reason": "Seats are reserved, but the APIs only list connections and report the weather."},
            {"query": UNSERVABLE_SERVED, "calls": [],
             "reason": "The user wants a cycling route, which no API plans."},
            {"query": UNSERVABLE_NO_REASON, "calls": []}
        ]})
    } else {
        panic!("not a no_tool prompt: {user}")
    }
}

fn answer_reply(user: &str) -> String {
    let (thought, action) = if user.contains("Hamburg") {
        // A candidate does serve this "unservable" request.
        (
            "Das Wetter in Hamburg liefert dwd_weather.",
            "[dwd_weather(ort='Hamburg')]",
        )
    } else if user.contains("ICE") {
        (
            "Keine der APIs reserviert Sitzplätze; sie zeigen nur Verbindungen und das Wetter.",
            "[]",
        )
    } else {
        (
            "The forecast needs a city, and the request does not say which one.",
            "[]",
        )
    };
    json!({"Thought": thought, "Action": action}).to_string()
}

fn script(request: &Request) -> Reply {
    let body = &request.body;
    let user = body["messages"][1]["content"].as_str().unwrap_or_default();
    match body["model"].as_str().unwrap_or_default() {
        "writer" => Reply::Answer(writer_reply(user).to_string()),
        "answerer" => Reply::Answer(answer_reply(user)),
        other => panic!("unexpected model {other}"),
    }
}

struct Setup {
    dir: tempfile::TempDir,
    server: ScriptedServer,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let server = ScriptedServer::start(script);
        std::fs::write(dir.path().join("candidates.jsonl"), candidate_sets()).unwrap();
        let models = scripted_models_toml(&server.base_url(), &["writer", "answerer"]);
        std::fs::write(dir.path().join("models.toml"), models).unwrap();
        Setup { dir, server }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let output = itc(args, &[]);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{args:?}\n{stdout}\n{stderr}");
        (stdout, stderr)
    }

    fn generate(&self) -> (String, String) {
        self.run(&[
            "generate",
            "--candidates",
            &self.arg("candidates.jsonl"),
            "--config",
            &self.arg("models.toml"),
            "--generator",
            "writer",
            "--kinds",
            "no_tool",
            "--per-prompt",
            "3",
            "--no-cache",
            "--output",
            &self.arg("queries.jsonl"),
        ])
    }

    /// The user messages the server received from `model`.
    fn prompts(&self, model: &str) -> Vec<String> {
        self.server
            .log()
            .iter()
            .map(|l| serde_json::from_str::<Value>(&l.body).unwrap())
            .filter(|b| b["model"] == model)
            .map(|b| b["messages"][1]["content"].as_str().unwrap().to_string())
            .collect()
    }
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn by_query<'a>(records: &'a [Value], query: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["query"] == query || r["item"].as_str().is_some_and(|i| i.contains(query)))
        .unwrap_or_else(|| panic!("no record for {query}: {records:?}"))
}

#[test]
fn generate_writes_checked_no_tool_queries_of_both_variants() {
    let setup = Setup::new();
    let (stdout, _) = setup.generate();
    assert!(stdout.contains("3 valid queries, 3 rejected"), "{stdout}");

    // One prompt per set: the first leaves `city` out (its only required
    // parameter), the second shows every candidate, the distractor too.
    let prompts = setup.prompts("writer");
    assert_eq!(prompts.len(), 2);
    let missing = prompts
        .iter()
        .find(|p| p.contains("a value is missing"))
        .unwrap();
    assert!(missing.contains("\"missing\": \"city\""), "{missing}");
    assert!(missing.contains("in English"), "{missing}");
    assert!(!missing.contains("uk_tides"), "{missing}");
    let unservable = prompts.iter().find(|p| p.contains("(unservable)")).unwrap();
    assert!(
        unservable.contains("\"name\": \"dwd_weather\""),
        "{unservable}"
    );
    assert!(unservable.contains("in German"), "{unservable}");

    let queries = records(&setup.path("queries.jsonl"));
    assert_eq!(queries.len(), 3);
    for q in &queries {
        assert_eq!(q["kind"], "no_tool", "{q}");
        assert_eq!(q["tools"].as_array().unwrap().len(), 2, "{q}");
        assert!(q["id"].as_str().unwrap().starts_with("no_tool-"), "{q}");
    }
    // The plan is kept with the query: what was left out, or why none serves.
    let kept = by_query(&queries, MISSING_GOOD);
    assert_eq!(
        kept["no_tool"],
        json!({"variant": "missing_parameter", "parameter": "city", "withheld": "York"})
    );
    assert_eq!(
        (kept["apis"].clone(), kept["language"].clone()),
        (json!(["uk_weather"]), json!("en"))
    );
    let kept = by_query(&queries, UNSERVABLE_GOOD);
    assert_eq!(kept["no_tool"]["variant"], "unservable");
    assert_eq!(kept["language"], "de");
    assert!(
        kept["no_tool"]["reason"]
            .as_str()
            .unwrap()
            .contains("Seats are reserved")
    );
    by_query(&queries, UNSERVABLE_SERVED);

    // The drafts that fail their checks, each with a clear reason.
    let rejects = records(&setup.path("queries.rejects.jsonl"));
    assert_eq!(rejects.len(), 3, "{rejects:?}");
    assert_eq!(
        by_query(&rejects, MISSING_STATED)["reason"],
        "the left-out value \"Leeds\" of `city` is stated in the query"
    );
    assert_eq!(
        by_query(&rejects, UNSERVABLE_NO_REASON)["reason"],
        "an unservable no_tool query needs a `reason`: why none of the candidate APIs serves it"
    );
    assert_eq!(
        by_query(&rejects, "What's the weather in York this weekend?")["reason"],
        "a no_tool query needs no call, not 1"
    );
}

#[test]
fn the_answer_stage_confirms_that_no_candidate_serves_the_request() {
    let setup = Setup::new();
    setup.generate();
    let (stdout, _) = setup.run(&[
        "answer",
        "--queries",
        &setup.arg("queries.jsonl"),
        "--config",
        &setup.arg("models.toml"),
        "--answerer",
        "answerer",
        "--no-cache",
        "--output",
        &setup.arg("tasks.jsonl"),
        "--provenance",
        &setup.arg("provenance.jsonl"),
    ]);
    assert!(stdout.contains("accepted 2 of 3"), "{stdout}");

    // The answer model is asked, not told: nothing in its prompt gives the
    // empty answer away.
    let prompts = setup.prompts("answerer");
    assert_eq!(prompts.len(), 3);
    for p in &prompts {
        assert!(p.contains("Decide from the candidate APIs alone"), "{p}");
        assert!(!p.contains("cannot serve"), "{p}");
        assert!(!p.contains("no_tool"), "{p}");
    }

    // The "unservable" request a candidate does serve is rejected.
    let rejects = records(&setup.path("tasks.rejects.jsonl"));
    assert_eq!(rejects.len(), 1);
    assert_eq!(rejects[0]["query"], UNSERVABLE_SERVED);
    assert_eq!(
        rejects[0]["reason"],
        "answer: a no_tool task needs no call, but the answer calls [dwd_weather(ort='Hamburg')]: a candidate serves the request as asked, or a value the request leaves out was filled in"
    );

    // The others are SPEC tasks of kind no_tool with the empty gold.
    let tasks = records(&setup.path("tasks.jsonl"));
    let mut lines = String::new();
    for value in &tasks {
        let task: Task = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(task.kind, TaskKind::NoTool);
        assert!(task.gold.calls.is_empty());
        assert!(!task.gold.thought.is_empty());
        let shapes: Vec<CallShape<'_, ()>> = Vec::new();
        assert_eq!(task.kind.shape_error(&shapes), None);
        assert!(
            value.get("no_tool").is_none(),
            "tasks keep to SPEC §0: {value}"
        );
        lines.push_str(
            &json!({"task_id": task.id, "model": "refuser", "output": "{\"Thought\": \"Nothing fits.\", \"Action\": \"[]\"}"})
                .to_string(),
        );
        lines.push('\n');
    }
    assert_eq!(tasks.len(), 2);

    // A model that answers with no call scores full marks on them.
    std::fs::write(setup.path("predictions.jsonl"), lines).unwrap();
    let (stdout, _) = setup.run(&[
        "score",
        "--tasks",
        &setup.arg("tasks.jsonl"),
        "--predictions",
        &setup.arg("predictions.jsonl"),
        "--format",
        "json",
        "--bootstrap",
        "0",
    ]);
    let report: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(report["n"], 2, "{report}");
    assert_eq!(report["selection"]["f1"].as_f64(), Some(100.0), "{report}");
}

#[test]
fn the_pipeline_plans_no_tool_prompts_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let api = |name: &str, country: &str, required: &[&str]| {
        json!({"name": name, "description": format!("The {name} API for travellers"), "category": "Travel",
               "country": country, "url": format!("https://api.example.com/{name}"),
               "required_parameters": required.iter().map(|p| parameter(p)).collect::<Vec<_>>(),
               "optional_parameters": []})
        .to_string()
            + "\n"
    };
    let catalog = [
        api("de_bahn", "DE", &["von", "nach"]),
        api("jp_rail", "JP", &["station"]),
        api("us_parks", "US", &[]),
    ]
    .concat();
    std::fs::write(dir.path().join("apis.jsonl"), catalog).unwrap();
    let models = scripted_models_toml("http://127.0.0.1:9/v1", &["writer"]);
    std::fs::write(dir.path().join("models.toml"), models).unwrap();
    // No `kinds`: the default, which includes no_tool.
    let config = dir.path().join("pipeline.toml");
    std::fs::write(
        &config,
        "output_dir = \"build\"\nmodels = \"models.toml\"\n[catalog]\nformat = \"itc\"\nfiles = [\"apis.jsonl\"]\n[sample]\ncount = 3\n[confuse]\nk = 1\ndifficulty = \"random\"\n[generate]\nmodel = \"writer\"\n[filter]\njudges = [\"a\", \"b\"]\n[answer]\nmodel = \"writer\"\n",
    )
    .unwrap();
    let output = itc(
        &[
            "pipeline",
            "--config",
            config.to_str().unwrap(),
            "--dry-run",
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let prompts = records(&dir.path().join("build").join("prompts.generate.jsonl"));
    let no_tool: Vec<&Value> = prompts
        .iter()
        .filter(|p| p["unit"].as_str().unwrap().starts_with("no_tool-"))
        .collect();
    assert_eq!(no_tool.len(), 3, "one no_tool unit per sampled API");
    let variants = |v: &str| {
        no_tool
            .iter()
            .filter(|p| {
                p["unit"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("no_tool-{v}-"))
            })
            .count()
    };
    // de_bahn and jp_rail require values (they alternate); us_parks does not.
    assert_eq!(
        (variants("missing_parameter"), variants("unservable")),
        (1, 2)
    );
    for kind in ["single-", "repeated-", "parallel-", "nested-"] {
        assert!(
            prompts
                .iter()
                .any(|p| p["unit"].as_str().unwrap().starts_with(kind)),
            "{kind}"
        );
    }
}
