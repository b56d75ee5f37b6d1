//! `itc pipeline` against the scripted OpenAI-compatible server on loopback:
//! the six stages from a small catalog to tasks, with scripted generator,
//! judges and answer model, so every count is exact. A re-run sends no
//! request; a deleted file or a changed setting re-runs only what depends
//! on it, through the cache; `--dry-run` sends nothing.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer};
use support::{itc, stage_row as row, text};

/// Three APIs in three countries, each with required parameters.
const CATALOG: &str = r#"{"name": "jp_weather", "description": "Japanese weather forecast for a city", "category": "Weather", "country": "JP", "url": "https://api.example.jp/weather", "required_parameters": [{"name": "city", "type": "string", "description": "City"}], "optional_parameters": []}
{"name": "de_bahn", "description": "German train connections between two stations", "category": "Travel", "country": "DE", "url": "https://api.example.de/bahn", "required_parameters": [{"name": "von", "type": "string", "description": "From"}, {"name": "nach", "type": "string", "description": "To"}], "optional_parameters": []}
{"name": "us_parks", "description": "Alerts and closures of a US national park", "category": "Travel", "country": "US", "url": "https://api.example.us/parks", "required_parameters": [{"name": "park", "type": "string", "description": "Park name"}], "optional_parameters": []}
"#;

/// For each API: a good query, its call, and a bad second item.
fn writer_reply(api: &str) -> Value {
    match api {
        "jp_weather" => json!({"queries": [
            {"query": "明日は札幌へ出張なので、札幌の天気予報を教えてもらえますか？", "calls": [{"api": "jp_weather", "arguments": {"city": "札幌"}}]},
            {"query": "Could you tell me the weather forecast for Sapporo tomorrow, please?", "calls": [{"api": "jp_weather", "arguments": {"city": "Sapporo"}}]}
        ]}),
        "de_bahn" => json!({"queries": [
            {"query": "Welche Zugverbindungen gibt es morgen früh von Hamburg nach Leipzig?", "calls": [{"api": "de_bahn", "arguments": {"von": "Hamburg", "nach": "Leipzig"}}]},
            {"query": "Wie komme ich mit dem Zug nach Dresden?", "calls": [{"api": "de_bahn", "arguments": {"nach": "Dresden"}}]}
        ]}),
        _ => json!({"queries": [
            {"query": "Are there any closures or alerts at Yosemite this weekend? We planned a hike.", "calls": [{"api": "us_parks", "arguments": {"park": "Yosemite"}}]},
            {"query": "Is Glacier National Park open right now for visitors?", "calls": [{"api": "nps_lookup", "arguments": {"park": "Glacier"}}]}
        ]}),
    }
}

fn judge_reply(judge: &str, user: &str) -> String {
    // judge-b finds the German query weak; everything else is good.
    let total = if judge == "judge-b" && user.contains("Hamburg") {
        3.0
    } else {
        4.6
    };
    json!({"relevance": 5, "clarity": 5, "specificity": 4, "practicality": 5, "language": 5, "total": total, "comment": "ok"}).to_string()
}

fn answer_reply(user: &str) -> String {
    let action = if user.contains("札幌") {
        "[jp_weather(city='札幌')]"
    } else if user.contains("Hamburg") {
        "[de_bahn(von='Hamburg', nach='Leipzig')]"
    } else {
        "[us_parks(park='Yosemite')]"
    };
    json!({"Thought": "The request names everything the call needs.", "Action": action}).to_string()
}

fn script(request: &Request) -> Reply {
    let body = &request.body;
    let user = body["messages"][1]["content"].as_str().unwrap_or_default();
    match body["model"].as_str().unwrap_or_default() {
        "writer" => {
            let api = ["jp_weather", "de_bahn", "us_parks"]
                .into_iter()
                .find(|a| user.contains(&format!("\"name\": \"{a}\"")))
                .expect("the prompt shows its target API");
            Reply::Answer(writer_reply(api).to_string())
        }
        judge @ ("judge-a" | "judge-b") => Reply::Answer(judge_reply(judge, user)),
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
        std::fs::write(dir.path().join("apis.jsonl"), CATALOG).unwrap();
        let mut models = String::new();
        for name in ["writer", "judge-a", "judge-b", "answerer"] {
            models.push_str(&format!(
                "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"{name}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\nprice_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n\n",
                server.base_url()
            ));
        }
        std::fs::write(dir.path().join("models.toml"), models).unwrap();
        let setup = Setup { dir, server };
        setup.write_config(4.0);
        setup
    }

    fn write_config(&self, min_total: f64) {
        let config = format!(
            r#"output_dir = "build"
models = "models.toml"
seed = 7

[catalog]
format = "itc"
files = ["apis.jsonl"]

[sample]
count = 3

[confuse]
k = 1
difficulty = "random"

[generate]
model = "writer"
kinds = ["single"]
per_prompt = 2

[filter]
judges = ["judge-a", "judge-b"]
min_total = {min_total:.1}

[answer]
model = "answerer"
test_fraction = 0.34
"#
        );
        std::fs::write(self.config(), config).unwrap();
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("pipeline.toml")
    }

    fn out(&self, file: &str) -> PathBuf {
        self.dir.path().join("build").join(file)
    }

    fn run(&self, extra: &[&str]) -> (String, String) {
        let config = self.config();
        let mut args = vec!["pipeline", "--config", config.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = itc(&args, &[]);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{stderr}");
        (stdout, stderr)
    }
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ids(path: &Path) -> Vec<String> {
    let mut ids: Vec<String> = lines(path)
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn snapshot(setup: &Setup) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(setup.out(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().unwrap() != "manifest.json")
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn builds_tasks_from_a_catalog_and_a_rerun_is_free() {
    let setup = Setup::new();
    let (stdout, _) = setup.run(&[]);

    // generate: one prompt per API; the second item of each is rejected.
    assert_eq!(
        setup.server.requests(),
        3 + 3 * 2 + 2,
        "3 prompts, 3 queries × 2 judges, 2 answers"
    );
    let queries = lines(&setup.out("queries.jsonl"));
    assert_eq!(queries.len(), 3);
    let mut languages: Vec<&str> = queries
        .iter()
        .map(|q| q["language"].as_str().unwrap())
        .collect();
    languages.sort();
    assert_eq!(languages, ["de", "en", "ja"]);
    for q in &queries {
        assert_eq!(q["provenance"]["stage"], "generate");
        assert_eq!(q["provenance"]["model"], "writer");
        assert_eq!(
            q["tools"].as_array().unwrap().len(),
            2,
            "gold + 1 distractor"
        );
    }
    let mut reasons: Vec<String> = lines(&setup.out("queries.rejects.jsonl"))
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .collect();
    reasons.sort();
    assert_eq!(
        reasons,
        [
            "call 1 (de_bahn): required parameter `von` has no value",
            "call 1: `nps_lookup` is not one of the sampled APIs (us_parks)",
            "the query is written in en, not ja",
        ]
    );

    // filter: judge-b's total of 3 rejects the German query.
    assert_eq!(lines(&setup.out("kept.jsonl")).len(), 2);
    let rejected = lines(&setup.out("judge_rejects.jsonl"));
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["language"], "de");
    assert!(
        rejected[0]["reason"]
            .as_str()
            .unwrap()
            .contains("judge judge-b: total 3 below 4"),
        "{}",
        rejected[0]["reason"]
    );
    let agreement = std::fs::read_to_string(setup.out("agreement.csv")).unwrap();
    assert!(agreement.lines().count() >= 6, "{agreement}");

    // answer: SPEC tasks with gold calls, provenance, split, ShareGPT.
    let tasks = lines(&setup.out("tasks.jsonl"));
    assert_eq!(tasks.len(), 2);
    let sapporo = tasks.iter().find(|t| t["language"] == "ja").unwrap();
    assert_eq!(sapporo["gold"]["calls"][0]["name"], "jp_weather");
    assert_eq!(sapporo["gold"]["calls"][0]["arguments"]["city"], "札幌");
    assert_eq!(lines(&setup.out("provenance.jsonl")).len(), 2);
    let (train, test) = (
        ids(&setup.out("train.jsonl")),
        ids(&setup.out("test.jsonl")),
    );
    assert_eq!(train.len() + test.len(), 2);
    let sharegpt: Value =
        serde_json::from_str(&std::fs::read_to_string(setup.out("train.sharegpt.json")).unwrap())
            .unwrap();
    assert_eq!(sharegpt.as_array().unwrap().len(), train.len());

    // The table: every stage ran; model stages show their requests and cost.
    for stage in ["catalog", "sample", "confuse"] {
        assert_eq!(row(&stdout, stage)[1], "ran");
    }
    let generate = row(&stdout, "generate");
    assert_eq!((generate[1], generate[2], generate[4]), ("ran", "3", "3"));
    assert_eq!(row(&stdout, "filter")[4], "6");
    assert_eq!(row(&stdout, "answer")[4], "2");
    assert_ne!(
        row(&stdout, "total")[9],
        "0.0000",
        "priced models cost something"
    );

    // The tasks are valid SPEC tasks: `itc score` gives the gold full marks.
    let predictions = setup.dir.path().join("gold.jsonl");
    let gold: String = tasks
        .iter()
        .map(|t| {
            let calls: Vec<String> = t["gold"]["calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let args: Vec<String> = c["arguments"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    format!("{}({})", c["name"].as_str().unwrap(), args.join(", "))
                })
                .collect();
            let output = json!({"Thought": t["gold"]["thought"], "Action": format!("[{}]", calls.join(", "))});
            format!(
                "{}\n",
                json!({"task_id": t["id"], "model": "gold", "output": output.to_string()})
            )
        })
        .collect();
    std::fs::write(&predictions, gold).unwrap();
    let tasks_path = setup.out("tasks.jsonl");
    let scored = itc(
        &[
            "score",
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--predictions",
            predictions.to_str().unwrap(),
            "--format",
            "json",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    assert!(scored.status.success(), "{}", text(&scored.stderr));
    let summary: Value =
        serde_json::from_str(text(&scored.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(
        summary["invocation"]["f1"].as_f64(),
        Some(100.0),
        "{summary}"
    );

    // A re-run: every stage up to date, no request, the same files.
    let before = snapshot(&setup);
    let (stdout, stderr) = setup.run(&[]);
    assert_eq!(setup.server.requests(), 11);
    for stage in itc::build::pipeline::Stage::ALL.map(|s| s.as_str()) {
        assert_eq!(row(&stdout, stage)[1], "up to date", "{stage}: {stderr}");
    }
    assert_eq!(snapshot(&setup), before);

    // A lost file: its stage runs again from the cache; later stages whose
    // inputs come back identical stay up to date.
    std::fs::remove_file(setup.out("kept.jsonl")).unwrap();
    let (stdout, _) = setup.run(&[]);
    assert_eq!(setup.server.requests(), 11);
    assert_eq!(row(&stdout, "filter")[1], "ran");
    assert_eq!(row(&stdout, "filter")[5], "6", "six cached chats");
    assert_eq!(row(&stdout, "answer")[1], "up to date");
    assert_eq!(snapshot(&setup), before);

    // A looser keep rule: filter re-runs from the cache, answer asks only
    // for the newly kept query.
    setup.write_config(3.0);
    let (stdout, _) = setup.run(&[]);
    assert_eq!(setup.server.requests(), 12);
    assert_eq!(row(&stdout, "generate")[1], "up to date");
    assert_eq!(row(&stdout, "filter")[4], "0");
    assert_eq!(lines(&setup.out("tasks.jsonl")).len(), 3);
    assert_eq!(row(&stdout, "answer")[4], "1");
}

#[test]
fn dry_run_writes_prompts_and_sends_nothing() {
    let setup = Setup::new();
    let (stdout, _) = setup.run(&["--dry-run"]);
    assert_eq!(setup.server.requests(), 0);
    let prompts = lines(&setup.out("prompts.generate.jsonl"));
    assert_eq!(prompts.len(), 3);
    for p in &prompts {
        assert!(p["system"].as_str().unwrap().contains("test requests"));
        assert!(p["user"].as_str().unwrap().contains("Write 2 new requests"));
        assert_eq!(p["prompt_sha256"].as_str().unwrap().len(), 64);
    }
    assert!(!setup.out("queries.jsonl").exists());
    assert!(
        setup.out("candidates.jsonl").exists(),
        "model-free stages ran"
    );
    assert_eq!(row(&stdout, "generate")[1], "prompts only");

    // After a real run, a dry run also renders the judge and answer prompts,
    // and their hashes are the ones the provenance records carry.
    setup.run(&[]);
    let sent = setup.server.requests();
    setup.run(&["--dry-run"]);
    assert_eq!(setup.server.requests(), sent);
    let judge_prompts = lines(&setup.out("prompts.filter.jsonl"));
    assert_eq!(judge_prompts.len(), 3);
    let kept = lines(&setup.out("kept.jsonl"));
    let hash = &kept[0]["judgements"][0]["provenance"]["prompt_sha256"];
    assert!(
        judge_prompts.iter().any(|p| &p["prompt_sha256"] == hash),
        "dry-run hashes match the real prompts"
    );
    assert_eq!(lines(&setup.out("prompts.answer.jsonl")).len(), 2);
}

#[test]
fn bad_configurations_fail_before_any_request() {
    let setup = Setup::new();
    let config = std::fs::read_to_string(setup.config()).unwrap();
    std::fs::write(
        setup.config(),
        config.replace(
            "judges = [\"judge-a\", \"judge-b\"]",
            "judges = [\"judge-a\"]",
        ),
    )
    .unwrap();
    let output = itc(
        &["pipeline", "--config", setup.config().to_str().unwrap()],
        &[],
    );
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("pipeline.toml"), "{stderr}");
    assert!(stderr.contains("[filter] judges"), "{stderr}");
    assert_eq!(setup.server.requests(), 0);

    // A model missing from models.toml stops the stage, keeping the
    // stages before it done.
    std::fs::write(
        setup.config(),
        config.replace("model = \"writer\"", "model = \"nobody\""),
    )
    .unwrap();
    let output = itc(
        &["pipeline", "--config", setup.config().to_str().unwrap()],
        &[],
    );
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("nobody"), "{stderr}");
    assert_eq!(setup.server.requests(), 0);
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(setup.out("manifest.json")).unwrap())
            .unwrap();
    let done: Vec<&String> = manifest["stages"].as_object().unwrap().keys().collect();
    assert_eq!(done, ["catalog", "confuse", "sample"]);
}

/// Two requests per language and per number of APIs, naming the APIs in
/// quotes (quoted literals do not count for the language check).
fn templated(language: &str, apis: &[String], i: usize) -> String {
    let quoted: Vec<String> = apis.iter().map(|a| format!("\"{a}\"")).collect();
    let joiner = match language {
        "de" => " und ",
        "fr" => " et ",
        "pt" => " e ",
        _ => " and ",
    };
    let both = quoted.join(joiner);
    let templates: [&str; 2] = match language {
        "de" => [
            "Kannst du bitte bei {} nachsehen, welche aktuellen Informationen es heute für meine Reise nach München gibt?",
            "Ich brauche für morgen früh die neuesten Angaben von {}, bitte fasse sie mir kurz zusammen.",
        ],
        "fr" => [
            "Peux-tu consulter {} et me dire quelles sont les informations les plus récentes pour mon voyage à Lyon ?",
            "J'aimerais savoir ce que {} indique aujourd'hui, merci de me faire un petit résumé.",
        ],
        "pt" => [
            "Você pode consultar {} e me dizer quais são as informações mais recentes para a minha viagem a Recife?",
            "Gostaria de saber o que {} mostra hoje, por favor faça um pequeno resumo para mim.",
        ],
        _ => [
            "Could you check {} and tell me the latest information for my trip to Chicago next week?",
            "I would like to know what {} shows today, please give me a short summary of it.",
        ],
    };
    templates[i].replace("{}", &both)
}

/// A scripted generator, judges and answer model for any sampled APIs:
/// the generator writes templated requests in the unit's language, judge-b
/// marks down the first Portuguese template, the answer model calls the
/// quoted APIs in order.
fn any_api_script(request: &Request) -> Reply {
    let body = &request.body;
    let user = body["messages"][1]["content"].as_str().unwrap_or_default();
    match body["model"].as_str().unwrap_or_default() {
        "writer" => {
            let language = user
                .lines()
                .find_map(|l| l.strip_prefix("Language of the requests (ISO 639-1): "))
                .unwrap()
                .trim()
                .to_string();
            let calls = &body["response_format"]["json_schema"]["schema"]["properties"]["queries"]
                ["items"]["properties"]["calls"];
            let apis: Vec<String> = match calls["prefixItems"].as_array() {
                Some(each) => each
                    .iter()
                    .map(|c| {
                        c["properties"]["api"]["enum"][0]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect(),
                None => vec![
                    calls["items"]["properties"]["api"]["enum"][0]
                        .as_str()
                        .unwrap()
                        .to_string(),
                ],
            };
            let queries: Vec<Value> = (0..2)
                .map(|i| {
                    let calls: Vec<Value> = apis
                        .iter()
                        .map(|a| json!({"api": a, "arguments": {}}))
                        .collect();
                    json!({"query": templated(&language, &apis, i), "calls": calls})
                })
                .collect();
            Reply::Answer(json!({ "queries": queries }).to_string())
        }
        "judge-a" | "judge-b" => {
            let low = body["model"] == "judge-b" && user.contains("Recife");
            let total = if low { 2.8 } else { 4.6 };
            Reply::Answer(
                json!({"relevance": 5, "clarity": 5, "specificity": 4, "practicality": 4, "language": 5, "total": total, "comment": ""})
                    .to_string(),
            )
        }
        "answerer" => {
            let system = body["messages"][0]["content"].as_str().unwrap_or_default();
            let tools: Value = serde_json::from_str(
                &system[system.find("\n[").unwrap() + 1..system.find("\n]").unwrap() + 2],
            )
            .unwrap();
            let mut named: Vec<(usize, String)> = tools
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|t| {
                    let name = t["name"].as_str().unwrap();
                    user.find(&format!("\"{name}\""))
                        .map(|at| (at, format!("{name}()")))
                })
                .collect();
            named.sort();
            let calls: Vec<String> = named.into_iter().map(|(_, c)| c).collect();
            Reply::Answer(
                json!({"Thought": "-", "Action": format!("[{}]", calls.join(", "))}).to_string(),
            )
        }
        other => panic!("unexpected model {other}"),
    }
}

/// The issue's end-to-end case: from the public-apis list shipped in
/// `datasets/catalog/` to a filtered task set in four languages.
#[test]
fn public_apis_catalog_to_a_filtered_multilingual_task_set() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(any_api_script);
    let mut models = String::new();
    for name in ["writer", "judge-a", "judge-b", "answerer"] {
        models.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"{name}\"\nmax_attempts = 2\nretry_base_ms = 2\n\n",
            server.base_url()
        ));
    }
    std::fs::write(dir.path().join("models.toml"), models).unwrap();
    let catalog =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/catalog/public-apis-README.md");
    let config = dir.path().join("pipeline.toml");
    std::fs::write(
        &config,
        format!(
            r#"output_dir = "build"
models = "models.toml"
[catalog]
format = "public-apis"
files = [{catalog:?}]
skip_invalid = true
[sample]
count = 8
quotas = {{ DE = 2, FR = 2, BR = 2, US = 2 }}
[generate]
model = "writer"
kinds = ["single", "parallel"]
[filter]
judges = ["judge-a", "judge-b"]
[answer]
model = "answerer"
"#
        ),
    )
    .unwrap();
    let out = itc(&["pipeline", "--config", config.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let build = |f: &str| dir.path().join("build").join(f);

    assert_eq!(lines(&build("catalog.jsonl")).len(), 1691);
    // 8 APIs × (single + parallel) units × 2 requests; all pass the checks.
    let queries = lines(&build("queries.jsonl"));
    assert_eq!(
        queries.len(),
        32,
        "{:?}",
        lines(&build("queries.rejects.jsonl"))
    );
    // judge-b marks down the first Portuguese request of each of the 4 pt units.
    let kept = lines(&build("kept.jsonl"));
    assert_eq!(kept.len(), 28);
    let rejected = lines(&build("judge_rejects.jsonl"));
    assert!(rejected.iter().all(|r| r["language"] == "pt"));
    let tasks = lines(&build("tasks.jsonl"));
    assert_eq!(
        tasks.len(),
        28,
        "{:?}",
        lines(&build("tasks.rejects.jsonl"))
    );
    let mut languages: Vec<&str> = tasks
        .iter()
        .map(|t| t["language"].as_str().unwrap())
        .collect();
    languages.sort();
    languages.dedup();
    assert_eq!(languages, ["de", "en", "fr", "pt"]);
    for t in &tasks {
        let calls = t["gold"]["calls"].as_array().unwrap().len();
        assert_eq!(calls, if t["kind"] == "single" { 1 } else { 2 }, "{t}");
        assert_eq!(
            t["tools"].as_array().unwrap().len(),
            if calls == 1 { 5 } else { 10 }
        );
    }
    // No API on both sides of the split.
    let names = |file: &str| -> std::collections::BTreeSet<String> {
        lines(&build(file))
            .iter()
            .flat_map(|t| t["gold"]["calls"].as_array().unwrap().clone())
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names("train.jsonl").is_disjoint(&names("test.jsonl")));
    assert_eq!(
        lines(&build("train.jsonl")).len() + lines(&build("test.jsonl")).len(),
        28
    );

    let sent = server.requests();
    assert_eq!(sent, 16 + 32 * 2 + 28);
    let out = itc(&["pipeline", "--config", config.to_str().unwrap()], &[]);
    assert!(out.status.success());
    assert_eq!(server.requests(), sent, "a re-run is free");
}
