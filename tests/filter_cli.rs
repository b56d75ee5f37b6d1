//! End-to-end tests of `itc filter`: the real binary, two judge models on
//! the scripted OpenAI-compatible server, and the files it writes (kept
//! queries, rejects with reasons, the agreement CSV).

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer};
use support::{itc, request_prompt_hash, text};

/// A query of the fixture: id, kind, language, country, text, target APIs.
type QuerySpec = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

/// The queries of the fixture.
const QUERIES: [QuerySpec; 5] = [
    (
        "q-ja",
        "single",
        "ja",
        "JP",
        "明日の札幌の天気を教えてください。",
        &["jma_forecast"],
    ),
    (
        "q-de",
        "parallel",
        "de",
        "DE",
        "Zeige mir Züge von Berlin nach Hamburg und das Wetter in Hamburg.",
        &["db_trains", "dwd_weather"],
    ),
    (
        "q-en",
        "single",
        "en",
        "GB",
        "What will the weather be like in Leeds tomorrow?",
        &["uk_weather"],
    ),
    (
        "q-low",
        "parallel",
        "en",
        "US",
        "Do the things with the stuff for me.",
        &["uk_weather", "db_trains"],
    ),
    (
        "q-de2",
        "single",
        "de",
        "DE",
        "Wie wird das Wetter demnächst irgendwo in Bayern?",
        &["dwd_weather"],
    ),
];

fn tool(name: &str, parameter: &str) -> Value {
    json!({
        "name": name,
        "description": format!("{name} service"),
        "category": "Weather",
        "country": "GLOBAL",
        "required_parameters": [{"name": parameter, "type": "string", "description": "what to look up"}],
        "optional_parameters": []
    })
}

/// One `GeneratedQuery` line of the fixture.
fn query_line(index: usize) -> Value {
    let (id, kind, language, country, query, apis) = QUERIES[index];
    json!({
        "id": id,
        "kind": kind,
        "language": language,
        "country": country,
        "category": "Weather",
        "query": query,
        "apis": apis,
        "tools": [
            tool("jma_forecast", "city"),
            tool("db_trains", "route"),
            tool("dwd_weather", "ort"),
            tool("uk_weather", "city"),
        ],
        "provenance": {
            "stage": "generate",
            "model": "writer",
            "prompt_sha256": format!("{index:064}"),
            "raw": format!("{{\"query\": \"{query}\"}}")
        }
    })
}

fn write_queries(dir: &Path) -> PathBuf {
    let path = dir.join("queries.jsonl");
    let lines: String = (0..QUERIES.len())
        .map(|i| query_line(i).to_string() + "\n")
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

/// What each judge answers about each query: JSON, `Name: x/5` lines, a
/// Markdown table, an unreadable reply, a low total, and one query with a
/// high total but a low specificity.
fn judge_reply(judge: &str, id: &str) -> &'static str {
    match (judge, id) {
        ("judge-a", "q-ja") => {
            r#"{"relevance": 5, "clarity": 5, "specificity": 4, "practicality": 4, "language": 5, "total": 4.6, "comment": "Natural and precise."}"#
        }
        ("judge-b", "q-ja") => {
            "Relevance: 4/5\nClarity: 5/5\nSpecificity: 4/5\nPracticality: 4/5\nLanguage: 5/5\nTotal: 4.4"
        }
        ("judge-a", "q-de") => {
            "| Dimension | Score |\n|---|---|\n| Relevance | 5 |\n| Clarity | 4 |\n| Specificity | 5 |\n| Practicality | 4 |\n| Language | 4 |\n| **Total** | **4.4** |"
        }
        ("judge-b", "q-de") => {
            r#"{"relevance": 5, "clarity": 4, "specificity": 4, "practicality": 4, "language": 4, "total": 4.2, "comment": "Fine."}"#
        }
        ("judge-a", "q-en") => "This request looks fine to me; I would keep it.",
        ("judge-b", "q-en") => {
            r#"{"relevance": 4, "clarity": 4, "specificity": 4, "practicality": 4, "language": 4, "total": 4, "comment": "Good."}"#
        }
        ("judge-a", "q-low") => {
            r#"{"relevance": 4, "clarity": 4, "specificity": 4, "practicality": 4, "language": 3, "total": 4.0, "comment": "Odd wording."}"#
        }
        ("judge-b", "q-low") => {
            "Here is my assessment:\n```json\n{\"relevance\": 2, \"clarity\": 3, \"specificity\": 2, \"practicality\": 4, \"language\": 3, \"total\": 2.5, \"comment\": \"Vague.\"}\n```"
        }
        ("judge-a", "q-de2") => {
            r#"{"relevance": 5, "clarity": 5, "specificity": 2, "practicality": 4, "language": 5, "total": 4.2, "comment": "No place or date."}"#
        }
        ("judge-b", "q-de2") => {
            "1. **Relevance**: 5\n2. **Clarity**: 4\n3. **Specificity**: 2\n4. **Practicality**: 4\n5. **Language**: 5\nOverall: 4"
        }
        _ => panic!("no reply scripted for {judge} on {id}"),
    }
}

/// The query a request is about (its text is in the user message).
fn query_of(body: &Value) -> Option<&'static str> {
    let user = body["messages"][1]["content"].as_str()?;
    QUERIES.iter().find(|q| user.contains(q.4)).map(|q| q.0)
}

/// The scripted judges; judge-b fails with 500 on every request when `b_fails`.
fn start_judges(b_fails: bool) -> ScriptedServer {
    ScriptedServer::start(move |r| {
        let model = r.body["model"].as_str().unwrap_or_default().to_string();
        let Some(id) = query_of(&r.body) else {
            return Reply::Status(400, None);
        };
        if b_fails && model == "judge-b" {
            return Reply::Status(500, None);
        }
        Reply::Answer(judge_reply(&model, id).to_string())
    })
}

/// A `models.toml` with fast retries (two attempts at most); a model may
/// name an environment variable holding its key.
fn models_toml(dir: &Path, base_url: &str, models: &[(&str, Option<&str>)]) -> PathBuf {
    let mut toml = String::new();
    for (name, key_env) in models {
        toml.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\ntemperature = 0.0\nconcurrency = 4\ntimeout_ms = 5000\nmax_attempts = 2\nretry_base_ms = 2\nretry_cap_ms = 10\n"
        ));
        if let Some(env) = key_env {
            toml.push_str(&format!("api_key_env = \"{env}\"\n"));
        }
        toml.push('\n');
    }
    let path = dir.join("models.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

struct Fixture {
    dir: tempfile::TempDir,
    queries: PathBuf,
    config: PathBuf,
}

impl Fixture {
    fn new(server: &ScriptedServer) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let queries = write_queries(dir.path());
        let config = models_toml(
            dir.path(),
            &server.base_url(),
            &[("judge-a", None), ("judge-b", None)],
        );
        Fixture {
            dir,
            queries,
            config,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `itc filter` with the fixture's queries and config, the given
    /// judges, writing `kept.jsonl` and `rejects.jsonl`, plus `extra`.
    fn filter_with(&self, judges: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut args = vec![
            "filter".to_string(),
            "--queries".into(),
            self.queries.display().to_string(),
            "--config".into(),
            self.config.display().to_string(),
            "--judges".into(),
            judges.into(),
            "--output".into(),
            self.path("kept.jsonl").display().to_string(),
            "--rejects".into(),
            self.path("rejects.jsonl").display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        itc(&args, env)
    }

    /// `itc filter` with both judges, the cache in `cache/` and the
    /// agreement in `agreement.csv`, plus `extra`.
    fn filter(&self, extra: &[&str]) -> Output {
        let (cache, agreement) = (self.path("cache"), self.path("agreement.csv"));
        let mut args = vec![
            "--cache",
            cache.to_str().unwrap(),
            "--agreement",
            agreement.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        self.filter_with("judge-a,judge-b", &args, &[])
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn records(&self, name: &str) -> Vec<Value> {
        self.read(name)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

/// The last line of a command's stderr (the error, when it failed).
fn last_line(output: &Output) -> String {
    text(&output.stderr)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

fn ids(records: &[Value]) -> Vec<&str> {
    records.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

fn succeeded(output: &Output) -> (String, String) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The five scores of a judgement, in table order.
fn scores(judgement: &Value) -> [f64; 5] {
    [
        "relevance",
        "clarity",
        "specificity",
        "practicality",
        "language",
    ]
    .map(|d| judgement["scores"][d].as_f64().unwrap())
}

/// The prompt hash of every query, computed from the requests the server received.
fn sent_prompt_hashes(server: &ScriptedServer) -> HashMap<&'static str, Vec<String>> {
    let mut hashes: HashMap<&str, Vec<String>> = HashMap::new();
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        hashes
            .entry(query_of(&body).unwrap())
            .or_default()
            .push(request_prompt_hash(&body));
    }
    hashes
}

#[test]
fn judges_in_every_reply_shape_decide_what_is_kept_and_why() {
    let server = start_judges(false);
    let fixture = Fixture::new(&server);
    let (stdout, stderr) = succeeded(&fixture.filter(&[]));

    // Every query went to both judges, once each.
    assert_eq!(server.requests(), 10);
    let mut per_judge: HashMap<(String, &str), usize> = HashMap::new();
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        let model = body["model"].as_str().unwrap().to_string();
        let id = query_of(&body).unwrap();
        *per_judge.entry((model, id)).or_default() += 1;
        // The prompt shows the target APIs only, and the reply schema is sent.
        let user = body["messages"][1]["content"].as_str().unwrap();
        let targets = QUERIES.iter().find(|q| q.0 == id).unwrap().5;
        for api in ["jma_forecast", "db_trains", "dwd_weather", "uk_weather"] {
            let shown = user.contains(&format!("\"name\": \"{api}\""));
            assert_eq!(shown, targets.contains(&api), "{id}: {api}\n{user}");
        }
        assert!(body["response_format"]["json_schema"]["schema"]["required"].is_array());
    }
    assert_eq!(per_judge.len(), 10, "{per_judge:?}");
    assert!(per_judge.values().all(|&n| n == 1));

    // Kept: both totals ≥ 4 and both replies readable, in input order.
    let kept = fixture.records("kept.jsonl");
    assert_eq!(ids(&kept), ["q-ja", "q-de", "q-de2"]);
    let hashes = sent_prompt_hashes(&server);
    // Per query: judge-a's five scores and total, then judge-b's.
    type Scores = ([f64; 5], f64);
    let expected: [(&str, Scores, Scores); 3] = [
        // JSON (judge-a) and `Name: x/5` lines (judge-b).
        (
            "q-ja",
            ([5.0, 5.0, 4.0, 4.0, 5.0], 4.6),
            ([4.0, 5.0, 4.0, 4.0, 5.0], 4.4),
        ),
        // A Markdown table (judge-a) and JSON (judge-b).
        (
            "q-de",
            ([5.0, 4.0, 5.0, 4.0, 4.0], 4.4),
            ([5.0, 4.0, 4.0, 4.0, 4.0], 4.2),
        ),
        // A low specificity does not matter without --min-each.
        (
            "q-de2",
            ([5.0, 5.0, 2.0, 4.0, 5.0], 4.2),
            ([5.0, 4.0, 2.0, 4.0, 5.0], 4.0),
        ),
    ];
    for (record, (id, (a_scores, a_total), (b_scores, b_total))) in kept.iter().zip(expected) {
        assert_eq!(record["id"], id);
        assert_eq!(record["kept"], true);
        assert!(record.get("reason").is_none(), "{record}");
        assert!(record.get("unparsed_replies").is_none(), "{record}");
        // The query itself is carried over unchanged.
        let index = QUERIES.iter().position(|q| q.0 == id).unwrap();
        let mut query_fields = record.clone();
        let object = query_fields.as_object_mut().unwrap();
        object.remove("judgements");
        object.remove("kept");
        assert_eq!(query_fields, query_line(index));

        let judgements = record["judgements"].as_array().unwrap();
        assert_eq!(judgements.len(), 2, "{record}");
        for (judgement, (judge, five, total)) in judgements.iter().zip([
            ("judge-a", a_scores, a_total),
            ("judge-b", b_scores, b_total),
        ]) {
            assert_eq!(judgement["judge"], judge, "{id}");
            assert_eq!(scores(judgement), five, "{id} {judge}");
            assert_eq!(judgement["total"].as_f64(), Some(total), "{id} {judge}");
            let provenance = &judgement["provenance"];
            assert_eq!(provenance["stage"], "judge");
            assert_eq!(provenance["model"], judge);
            assert_eq!(provenance["raw"], judge_reply(judge, id), "{id} {judge}");
            // The hash is that of the prompt actually sent (both judges got the same).
            assert_eq!(hashes[id].len(), 2);
            assert_eq!(hashes[id][0], hashes[id][1]);
            assert_eq!(provenance["prompt_sha256"], hashes[id][0].as_str());
        }
    }

    // Rejected, nothing dropped: an unreadable reply and a low total.
    let rejects = fixture.records("rejects.jsonl");
    assert_eq!(ids(&rejects), ["q-en", "q-low"]);
    let unreadable = &rejects[0];
    assert_eq!(unreadable["kept"], false);
    assert_eq!(
        unreadable["reason"],
        "judge judge-a: unparsable scores: no scores found in the reply"
    );
    // The readable judgement stays; the unreadable reply is kept beside it.
    let judgements = unreadable["judgements"].as_array().unwrap();
    assert_eq!(judgements.len(), 1);
    assert_eq!(judgements[0]["judge"], "judge-b");
    assert_eq!(scores(&judgements[0]), [4.0; 5]);
    assert_eq!(
        unreadable["unparsed_replies"],
        json!([{
            "stage": "judge",
            "model": "judge-a",
            "prompt_sha256": hashes["q-en"][0],
            "raw": "This request looks fine to me; I would keep it."
        }])
    );
    let low = &rejects[1];
    assert_eq!(low["kept"], false);
    assert_eq!(low["reason"], "judge judge-b: total 2.5 below 4");
    assert_eq!(low["judgements"].as_array().unwrap().len(), 2);
    assert_eq!(scores(&low["judgements"][1]), [2.0, 3.0, 2.0, 4.0, 3.0]);
    assert!(low.get("unparsed_replies").is_none(), "{low}");

    // Agreement over the four queries both judges scored: one row per
    // dimension and one for the total.
    let csv = fixture.read("agreement.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 7, "{csv}");
    assert_eq!(lines[0], "dimension,n,kappa,spearman,mean_a,mean_b");
    let dimensions: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        dimensions,
        [
            "relevance",
            "clarity",
            "specificity",
            "practicality",
            "language",
            "total"
        ]
    );
    let cells = |row: usize| -> Vec<String> { lines[row].split(',').map(str::to_string).collect() };
    // Means: relevance 4.75 vs 4, clarity 4.5 vs 4, specificity 3.75 vs 3.
    for (row, mean_a, mean_b) in [
        (1, "4.750000", "4.000000"),
        (2, "4.500000", "4.000000"),
        (3, "3.750000", "3.000000"),
    ] {
        let c = cells(row);
        assert_eq!(
            (c[1].as_str(), c[4].as_str(), c[5].as_str()),
            ("4", mean_a, mean_b),
            "{csv}"
        );
    }
    // Both judges always gave practicality 4: kappa and rho undefined (empty).
    assert_eq!(lines[4], "practicality,4,,,4.000000,4.000000");
    // Identical language scores: perfect agreement.
    assert_eq!(lines[5], "language,4,1.000000,1.000000,4.250000,4.250000");
    // Totals (4.6, 4.4, 4.0, 4.2) vs (4.4, 4.2, 2.5, 4.0): same ranks; the
    // categories (5, 4, 4, 4) vs (4, 4, 3, 4) give quadratic kappa 1 − 2/2.5.
    assert_eq!(lines[6], "total,4,0.200000,1.000000,4.300000,3.775000");

    assert!(
        stdout.contains("Agreement of judge-a and judge-b (4 queries scored by both)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("kept 3 of 5 (both totals ≥ 4), rejected 2"),
        "{stdout}"
    );
    assert!(
        stderr.contains("judge-a: 5 chats (0 cached, 0 errors), 5 requests"),
        "{stderr}"
    );
}

#[test]
fn min_each_rejects_a_query_with_one_low_score_despite_high_totals() {
    let server = start_judges(false);
    let fixture = Fixture::new(&server);
    let (stdout, _) = succeeded(&fixture.filter(&["--min-each", "3"]));
    assert_eq!(ids(&fixture.records("kept.jsonl")), ["q-ja", "q-de"]);
    let rejects = fixture.records("rejects.jsonl");
    assert_eq!(ids(&rejects), ["q-en", "q-low", "q-de2"]);
    let reasons: Vec<&str> = rejects
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "judge judge-a: unparsable scores: no scores found in the reply",
            "judge judge-b: total 2.5 below 4; judge judge-b: relevance 2 below 3; judge judge-b: specificity 2 below 3",
            "judge judge-a: specificity 2 below 3; judge judge-b: specificity 2 below 3",
        ]
    );
    // q-de2 passed on totals (4.2 and 4) and kept both judgements.
    let totals: Vec<f64> = rejects[2]["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["total"].as_f64().unwrap())
        .collect();
    assert_eq!(totals, [4.2, 4.0]);
    assert!(
        stdout.contains("kept 2 of 5 (both totals ≥ 4, every score ≥ 3), rejected 3"),
        "{stdout}"
    );
    // A stricter total rejects q-de too (4.4 and 4.2 against 4.3).
    let (stdout, _) = succeeded(&fixture.filter(&["--min-total", "4.3"]));
    assert_eq!(ids(&fixture.records("kept.jsonl")), ["q-ja"]);
    let rejects = fixture.records("rejects.jsonl");
    assert_eq!(ids(&rejects), ["q-de", "q-en", "q-low", "q-de2"]);
    assert_eq!(rejects[0]["reason"], "judge judge-b: total 4.2 below 4.3");
    assert!(
        stdout.contains("kept 1 of 5 (both totals ≥ 4.3)"),
        "{stdout}"
    );
    // Both runs came from one cache: the rule is not part of the request.
    assert_eq!(server.requests(), 10);
}

#[test]
fn a_rerun_with_the_cache_sends_nothing_and_writes_the_same_files() {
    let server = start_judges(false);
    let fixture = Fixture::new(&server);
    succeeded(&fixture.filter(&[]));
    assert_eq!(server.requests(), 10);
    let files = ["kept.jsonl", "rejects.jsonl", "agreement.csv"];
    let first: Vec<String> = files.iter().map(|f| fixture.read(f)).collect();
    for f in &files {
        std::fs::remove_file(fixture.path(f)).unwrap();
    }

    let (stdout, stderr) = succeeded(&fixture.filter(&[]));
    assert_eq!(server.requests(), 10, "no request on the re-run");
    let second: Vec<String> = files.iter().map(|f| fixture.read(f)).collect();
    assert_eq!(first, second);
    assert!(stdout.contains("kept 3 of 5"), "{stdout}");
    for judge in ["judge-a", "judge-b"] {
        assert!(
            stderr.contains(&format!(
                "{judge}: 5 chats (5 cached, 0 errors), 0 requests"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn a_failing_judge_rejects_every_query_with_the_failure_and_drops_none() {
    let server = start_judges(true);
    let fixture = Fixture::new(&server);
    let (stdout, stderr) = succeeded(&fixture.filter(&[]));
    // judge-a once per query; judge-b twice per query (max_attempts = 2).
    let mut per_model: HashMap<String, usize> = HashMap::new();
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        *per_model
            .entry(body["model"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    assert_eq!(per_model["judge-a"], 5);
    assert_eq!(per_model["judge-b"], 10);

    assert_eq!(fixture.read("kept.jsonl"), "");
    let rejects = fixture.records("rejects.jsonl");
    assert_eq!(ids(&rejects), ["q-ja", "q-de", "q-en", "q-low", "q-de2"]);
    let failure = "judge judge-b: request failed (server): HTTP 500";
    for reject in &rejects {
        let reason = reject["reason"].as_str().unwrap();
        let id = reject["id"].as_str().unwrap();
        if id == "q-en" {
            // Both problems are named, in judge order.
            let (a, b) = reason.split_once("; ").unwrap();
            assert_eq!(
                a,
                "judge judge-a: unparsable scores: no scores found in the reply"
            );
            assert!(b.starts_with(failure), "{reason}");
            assert!(reject["judgements"].as_array().unwrap().is_empty());
        } else {
            assert!(reason.starts_with(failure), "{id}: {reason}");
            assert!(reason.contains("scripted status 500"), "{reason}");
            // judge-a's judgement is still recorded.
            let judgements = reject["judgements"].as_array().unwrap();
            assert_eq!(judgements.len(), 1, "{id}");
            assert_eq!(judgements[0]["judge"], "judge-a");
        }
        assert_eq!(reject["kept"], false);
    }
    // No query was scored by both: every agreement cell is empty.
    let csv = fixture.read("agreement.csv");
    for (line, dimension) in csv.lines().skip(1).zip([
        "relevance",
        "clarity",
        "specificity",
        "practicality",
        "language",
        "total",
    ]) {
        assert_eq!(line, format!("{dimension},0,,,,"));
    }
    assert!(stdout.contains("kept 0 of 5"), "{stdout}");
    assert!(
        stderr.contains("judge-b: 5 chats (0 cached, 5 errors), 10 requests"),
        "{stderr}"
    );
}

#[test]
fn bad_input_fails_before_any_request() {
    let server = start_judges(false);
    let fixture = Fixture::new(&server);
    let queries = fixture.queries.display().to_string();
    let good = query_line(0).to_string();
    let kept = fixture.path("kept.jsonl");

    // A line that is not JSON at all: the file and the line are named.
    std::fs::write(&fixture.queries, format!("{good}\n\n{{\"id\": \"q-x\", \n")).unwrap();
    let out = fixture.filter(&[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("error: {queries}:3: field `")),
        "{stderr}"
    );
    assert!(
        stderr
            .trim_end()
            .ends_with("EOF while parsing a value at column 14"),
        "{stderr}"
    );

    // A record with a bad field: the field is named too.
    let mut bad_kind = query_line(1);
    bad_kind["kind"] = json!("triple");
    std::fs::write(&fixture.queries, format!("{good}\n{bad_kind}\n")).unwrap();
    let out = fixture.filter(&[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: {queries}:2: field `kind`: unknown variant `triple`"
        )),
        "{stderr}"
    );
    let mut no_tools = query_line(1);
    no_tools.as_object_mut().unwrap().remove("tools");
    std::fs::write(&fixture.queries, format!("{good}\n{no_tools}\n")).unwrap();
    let stderr = text(&fixture.filter(&[]).stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: {queries}:2: field `.`: missing field `tools`"
        )),
        "{stderr}"
    );
    // The same id twice.
    std::fs::write(&fixture.queries, format!("{good}\n{good}\n")).unwrap();
    let stderr = text(&fixture.filter(&[]).stderr);
    assert_eq!(
        stderr.trim_end(),
        format!("error: {queries}:2: field `id`: duplicate id \"q-ja\" (first on line 1)")
    );
    write_queries(fixture.dir.path());

    // The same judge twice, or one judge only.
    let out = fixture.filter_with("judge-a,judge-a", &["--no-cache"], &[]);
    assert!(!out.status.success());
    assert_eq!(
        last_line(&out),
        "error: the two judges must be different models (both are `judge-a`)"
    );
    let out = fixture.filter_with("judge-a", &[], &[]);
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim_end(),
        "error: --judges takes exactly two model names, A,B (got 1)"
    );
    // An unknown judge names the file and the known models.
    let stderr = text(&fixture.filter_with("judge-a,judge-z", &[], &[]).stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "error: {}: no model named `judge-z` (known: judge-a, judge-b)",
            fixture.config.display()
        )
    );

    // A key variable that is not set.
    const KEY: &str = "ITC_FILTER_CLI_TEST_KEY_NEVER_SET";
    let config = models_toml(
        fixture.dir.path(),
        &server.base_url(),
        &[("judge-a", None), ("judge-b", Some(KEY))],
    );
    assert_eq!(
        config, fixture.config,
        "the fixture's file, now naming a key"
    );
    let stderr = text(&fixture.filter(&[]).stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: model `judge-b`: environment variable {KEY} is not set or empty"
        )),
        "{stderr}"
    );
    assert_eq!(server.requests(), 0, "no request was sent");
    assert!(!kept.exists(), "no output was written");

    // With the key set, it is sent as a bearer token by judge-b only.
    let out = fixture.filter_with(
        "judge-a,judge-b",
        &["--no-cache"],
        &[(KEY, "sk-test-123456")],
    );
    succeeded(&out);
    assert_eq!(server.requests(), 10);
    for logged in server.log() {
        let body: Value = serde_json::from_str(&logged.body).unwrap();
        let auth = logged.headers.get("authorization").map(String::as_str);
        match body["model"].as_str().unwrap() {
            "judge-b" => assert_eq!(auth, Some("Bearer sk-test-123456")),
            _ => assert_eq!(auth, None),
        }
    }
    assert!(!fixture.path("cache").exists(), "--no-cache stores nothing");
}
