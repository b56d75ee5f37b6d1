//! `itc filter` and `itc answer` against the scripted OpenAI-compatible
//! server on loopback, with exact expectations: which queries the keep rule
//! keeps and why the others go, every reply shape the judge reader takes,
//! the agreement file, the checker's corrections, each validation reject,
//! the split without shared APIs, the ShareGPT export, free re-runs and bad
//! input.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer};
use support::{itc, text};

fn tool(name: &str, required: &[(&str, &str)], optional: &[(&str, &str)]) -> Value {
    let params = |list: &[(&str, &str)]| -> Vec<Value> {
        list.iter()
            .map(|(n, t)| json!({"name": n, "type": t, "description": n}))
            .collect()
    };
    json!({
        "name": name, "description": format!("{name} API"), "category": "Travel", "country": "AT",
        "required_parameters": params(required), "optional_parameters": params(optional)
    })
}

fn tools() -> Vec<Value> {
    vec![
        tool("wetter", &[("ort", "string")], &[("tage", "integer")]),
        tool("bahn", &[("von", "string"), ("nach", "string")], &[]),
        tool("bahn_suche", &[("name", "string")], &[]),
        tool("abfahrten", &[("station_id", "string")], &[]),
        tool("decoy", &[("ort", "string")], &[]),
    ]
}

fn query(id: &str, kind: &str, language: &str, text: &str, apis: &[&str]) -> Value {
    json!({
        "id": id, "kind": kind, "language": language, "country": "AT", "category": "Travel",
        "query": text, "apis": apis, "tools": tools(),
        "provenance": {"stage": "generate", "model": "writer", "prompt_sha256": "ab", "raw": "{}"}
    })
}

fn write_lines(path: &Path, values: &[Value]) {
    let lines: String = values.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(path, lines).unwrap();
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ids(values: &[Value]) -> Vec<&str> {
    let mut ids: Vec<&str> = values.iter().map(|v| v["id"].as_str().unwrap()).collect();
    ids.sort();
    ids
}

fn models_toml(dir: &Path, base_url: &str, names: &[&str], extra: &str) -> PathBuf {
    let mut toml = String::new();
    for name in names {
        toml.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\nretry_cap_ms = 5\n{extra}\n"
        ));
    }
    let path = dir.join("models.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

fn model_and_user(request: &Request) -> (String, String) {
    (
        request.body["model"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        request.body["messages"][1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

fn scores(r: u8, c: u8, s: u8, p: u8, l: u8, total: f64) -> String {
    json!({"relevance": r, "clarity": c, "specificity": s, "practicality": p, "language": l, "total": total, "comment": "-"})
        .to_string()
}

/// judge-a and judge-b on four queries, each in another reply shape.
fn judges(request: &Request) -> Reply {
    let (model, user) = model_and_user(request);
    let a = model == "judge-a";
    let reply = if user.contains("札幌") {
        if a {
            scores(5, 5, 4, 5, 5, 4.6)
        } else {
            scores(4, 4, 4, 5, 4, 4.2)
        }
    } else if user.contains("Hamburg") {
        if a {
            "Relevance: 4/5\nClarity: 5/5\nSpecificity: 4/5\nPracticality: 4/5\nLanguage appropriateness: 5/5\nTotal: 4.4".into()
        } else {
            scores(3, 3, 3, 3, 3, 3.0)
        }
    } else if user.contains("Yosemite") {
        if a {
            "| Relevance | Clarity | Specificity | Practicality | Language | Total |\n|---|---|---|---|---|---|\n| 5 | 4 | 4 | 5 | 5 | 4.6 |".into()
        } else {
            scores(5, 5, 2, 5, 5, 4.5)
        }
    } else if a {
        "I cannot rate this request.".into()
    } else {
        scores(5, 5, 5, 5, 5, 5.0)
    };
    Reply::Answer(reply)
}

fn four_queries(dir: &Path) -> PathBuf {
    let path = dir.join("queries.jsonl");
    write_lines(
        &path,
        &[
            query(
                "q1",
                "single",
                "ja",
                "明日の札幌の天気を教えてください。",
                &["wetter"],
            ),
            query(
                "q2",
                "single",
                "de",
                "Welche Züge fahren morgen von Hamburg nach Leipzig?",
                &["bahn"],
            ),
            query(
                "q3",
                "single",
                "en",
                "Any closures at Yosemite this weekend?",
                &["wetter"],
            ),
            query(
                "q4",
                "single",
                "en",
                "What is the weather like in Graz?",
                &["wetter"],
            ),
        ],
    );
    path
}

fn filter(dir: &Path, config: &Path, queries: &Path, extra: &[&str]) -> std::process::Output {
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let mut args = vec![
        "filter".to_string(),
        "--queries".into(),
        queries.to_str().unwrap().into(),
        "--config".into(),
        config.to_str().unwrap().into(),
        "--judges".into(),
        "judge-a,judge-b".into(),
        "-o".into(),
        p("kept.jsonl"),
        "--rejects".into(),
        p("rejects.jsonl"),
        "--agreement".into(),
        p("agreement.csv"),
        "--cache".into(),
        p("cache"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    itc(&refs, &[])
}

#[test]
fn filter_keeps_by_the_rule_and_says_why_it_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(judges);
    let config = models_toml(dir.path(), &server.base_url(), &["judge-a", "judge-b"], "");
    let queries = four_queries(dir.path());
    let out = filter(dir.path(), &config, &queries, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.requests(), 8, "one call per judge per query");

    let kept = lines(&dir.path().join("kept.jsonl"));
    assert_eq!(ids(&kept), ["q1", "q3"]);
    // The lines reply and the Markdown table were read as well as JSON.
    let q3 = kept.iter().find(|k| k["id"] == "q3").unwrap();
    let a = q3["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["judge"] == "judge-a")
        .unwrap();
    assert_eq!(a["scores"]["clarity"], 4.0);
    assert_eq!(a["total"], 4.6);
    assert_eq!(a["provenance"]["stage"], "judge");
    assert_eq!(a["provenance"]["prompt_sha256"].as_str().unwrap().len(), 64);

    let rejects = lines(&dir.path().join("rejects.jsonl"));
    assert_eq!(ids(&rejects), ["q2", "q4"]);
    let q2 = rejects.iter().find(|r| r["id"] == "q2").unwrap();
    assert_eq!(q2["reason"], "judge judge-b: total 3 below 4");
    let lines_reply = q2["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["judge"] == "judge-a")
        .unwrap();
    assert_eq!(lines_reply["scores"]["relevance"], 4.0);
    assert_eq!(lines_reply["total"], 4.4);
    let q4 = rejects.iter().find(|r| r["id"] == "q4").unwrap();
    assert!(
        q4["reason"]
            .as_str()
            .unwrap()
            .starts_with("judge judge-a: unparsable scores"),
        "{}",
        q4["reason"]
    );
    assert_eq!(
        q4["unparsed_replies"][0]["raw"],
        "I cannot rate this request."
    );

    // Agreement on the three queries both judges scored.
    let csv = std::fs::read_to_string(dir.path().join("agreement.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 6, "five dimensions and the total: {csv}");
    assert!(
        rows.iter().all(|r| r.split(',').nth(1) == Some("3")),
        "{csv}"
    );

    // A re-run with the cache sends nothing and writes the same files.
    let before: Vec<String> = ["kept.jsonl", "rejects.jsonl", "agreement.csv"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join(f)).unwrap())
        .collect();
    let out = filter(dir.path(), &config, &queries, &[]);
    assert!(out.status.success());
    assert_eq!(server.requests(), 8);
    let after: Vec<String> = ["kept.jsonl", "rejects.jsonl", "agreement.csv"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join(f)).unwrap())
        .collect();
    assert_eq!(before, after);

    // --min-each: q3 passes on totals but judge-b gave specificity 2.
    let out = filter(dir.path(), &config, &queries, &["--min-each", "3"]);
    assert!(out.status.success());
    assert_eq!(server.requests(), 8, "same prompts, from the cache");
    assert_eq!(ids(&lines(&dir.path().join("kept.jsonl"))), ["q1"]);
    let rejects = lines(&dir.path().join("rejects.jsonl"));
    let q3 = rejects.iter().find(|r| r["id"] == "q3").unwrap();
    assert_eq!(q3["reason"], "judge judge-b: specificity 2 below 3");
}

#[test]
fn a_failing_judge_rejects_with_the_reason_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(|request| {
        if model_and_user(request).0 == "judge-b" {
            Reply::Status(500, None)
        } else {
            Reply::Answer(scores(5, 5, 5, 5, 5, 5.0))
        }
    });
    let config = models_toml(dir.path(), &server.base_url(), &["judge-a", "judge-b"], "");
    let out = filter(dir.path(), &config, &four_queries(dir.path()), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        server.requests(),
        4 + 4 * 2,
        "judge-b tried twice per query"
    );
    assert!(lines(&dir.path().join("kept.jsonl")).is_empty());
    let rejects = lines(&dir.path().join("rejects.jsonl"));
    assert_eq!(rejects.len(), 4);
    for r in &rejects {
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("judge judge-b: request failed"),
            "{reason}"
        );
        assert_eq!(
            r["judgements"].as_array().unwrap().len(),
            1,
            "judge-a's is kept"
        );
    }
}

#[test]
fn filter_refuses_bad_input_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(judges);
    let config = models_toml(dir.path(), &server.base_url(), &["judge-a", "judge-b"], "");
    let queries = four_queries(dir.path());
    let mut text_in = std::fs::read_to_string(&queries).unwrap();
    text_in = text_in.replacen("\"kind\":\"single\"", "\"kind\":\"sideways\"", 2);
    let broken = dir.path().join("broken.jsonl");
    std::fs::write(&broken, &text_in).unwrap();
    let out = filter(dir.path(), &config, &broken, &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("broken.jsonl:1"), "{stderr}");
    assert!(stderr.contains("kind"), "{stderr}");

    let same = itc(
        &[
            "filter",
            "--queries",
            queries.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--judges",
            "judge-a,judge-a",
            "-o",
            "/dev/null",
            "--rejects",
            "/dev/null",
        ],
        &[],
    );
    assert!(!same.status.success());
    assert!(
        text(&same.stderr).contains("different models"),
        "{}",
        text(&same.stderr)
    );

    let keyed = models_toml(
        dir.path(),
        &server.base_url(),
        &["judge-a", "judge-b"],
        "api_key_env = \"ITC_TEST_UNSET_JUDGE_KEY\"\n",
    );
    let out = filter(dir.path(), &keyed, &queries, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("ITC_TEST_UNSET_JUDGE_KEY"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.requests(), 0);
}

/// The answer model's reply for each query, and the checker's verdicts.
fn answer_script(request: &Request) -> Reply {
    let (model, user) = model_and_user(request);
    let answer = |action: &str| {
        Reply::Answer(
            json!({"Thought": "Die Anfrage nennt alle Werte.", "Action": action}).to_string(),
        )
    };
    if model == "checker" {
        return Reply::Answer(if user.contains("Graz Hbf") {
            json!({"verdict": "wrong", "problems": "the station is Graz Hbf, not Graz",
                   "Thought": "Erst die Station suchen.",
                   "Action": "[bahn_suche(name='Graz Hbf'), abfahrten(station_id='$1.id')]"})
            .to_string()
        } else {
            json!({"verdict": "correct", "problems": "", "Thought": "", "Action": ""}).to_string()
        });
    }
    if user.contains("Innsbruck") {
        answer("[wetter(ort='Innsbruck')]")
    } else if user.contains("Salzburg") {
        answer("[wetter(ort='Salzburg'), bahn(von='Wien', nach='Salzburg')]")
    } else if user.contains("Graz Hbf") {
        answer("[bahn_suche(name='Graz'), abfahrten(station_id='$1.id')]")
    } else if user.contains("Linz") {
        answer("[wetter_plus(ort='Linz')]")
    } else if user.contains("Bregenz") {
        answer("[wetter(tage=2)]")
    } else if user.contains("Villach") {
        answer("[wetter(ort=5)]")
    } else {
        answer("[abfahrten(station_id='$2.id'), bahn_suche(name='Klagenfurt')]")
    }
}

fn answer_queries(dir: &Path) -> PathBuf {
    let path = dir.join("kept.jsonl");
    write_lines(
        &path,
        &[
            query(
                "s1",
                "single",
                "de",
                "Wie wird das Wetter in Innsbruck?",
                &["wetter"],
            ),
            query(
                "p1",
                "parallel",
                "de",
                "Wetter in Salzburg und Züge von Wien nach Salzburg?",
                &["wetter", "bahn"],
            ),
            query(
                "n1",
                "nested",
                "de",
                "Nächste Abfahrten am Bahnhof Graz Hbf?",
                &["bahn_suche", "abfahrten"],
            ),
            query(
                "bad1",
                "single",
                "de",
                "Wie wird das Wetter in Linz?",
                &["wetter"],
            ),
            query(
                "bad2",
                "single",
                "de",
                "Wie wird das Wetter in Bregenz?",
                &["wetter"],
            ),
            query(
                "bad3",
                "single",
                "de",
                "Wie wird das Wetter in Villach?",
                &["wetter"],
            ),
            query(
                "bad4",
                "nested",
                "de",
                "Nächste Abfahrten in Klagenfurt?",
                &["bahn_suche", "abfahrten"],
            ),
        ],
    );
    path
}

fn answer(dir: &Path, config: &Path, queries: &Path) -> std::process::Output {
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let args = [
        "answer".to_string(),
        "--queries".into(),
        queries.to_str().unwrap().into(),
        "--config".into(),
        config.to_str().unwrap().into(),
        "--answerer".into(),
        "answerer".into(),
        "--checker".into(),
        "checker".into(),
        "-o".into(),
        p("tasks.jsonl"),
        "--provenance".into(),
        p("provenance.jsonl"),
        "--train".into(),
        p("train.jsonl"),
        "--test".into(),
        p("test.jsonl"),
        "--test-fraction".into(),
        "0.34".into(),
        "--sharegpt".into(),
        p("train.sharegpt.json"),
        "--cache".into(),
        p("cache"),
    ];
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    itc(&refs, &[])
}

#[test]
fn answer_checks_corrects_validates_splits_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(answer_script);
    let config = models_toml(dir.path(), &server.base_url(), &["answerer", "checker"], "");
    let queries = answer_queries(dir.path());
    let out = answer(dir.path(), &config, &queries);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // 7 answers; the checker sees the multi-call ones that got a reply: p1, n1, bad4.
    assert_eq!(server.requests(), 7 + 3);

    let tasks = lines(&dir.path().join("tasks.jsonl"));
    assert_eq!(ids(&tasks), ["n1", "p1", "s1"]);
    let n1 = tasks.iter().find(|t| t["id"] == "n1").unwrap();
    assert_eq!(
        n1["gold"]["calls"][0]["arguments"]["name"], "Graz Hbf",
        "the correction"
    );
    assert_eq!(
        n1["gold"]["calls"][1]["arguments"]["station_id"]["$ref"],
        "0.id"
    );
    let p1 = tasks.iter().find(|t| t["id"] == "p1").unwrap();
    assert_eq!(p1["gold"]["calls"].as_array().unwrap().len(), 2);

    let provenance = lines(&dir.path().join("provenance.jsonl"));
    assert_eq!(provenance.len(), 3);
    for p in &provenance {
        assert_eq!(p["answer"]["model"], "answerer");
        assert_eq!(p["answer"]["prompt_sha256"].as_str().unwrap().len(), 64);
        assert_eq!(
            p["query"]["model"], "writer",
            "the generator's provenance travels along"
        );
        let changed = p["task_id"] == "n1";
        assert_eq!(p["checker_changed"], changed, "{p}");
        if p["task_id"] != "s1" {
            assert_eq!(p["check"]["model"], "checker");
        }
    }

    let rejects = lines(&dir.path().join("tasks.rejects.jsonl"));
    let reason = |id: &str| -> String {
        rejects
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} not rejected"))["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(rejects.len(), 4);
    assert!(
        reason("bad1").contains("not among the candidate tools"),
        "{}",
        reason("bad1")
    );
    assert!(
        reason("bad2").contains("required parameter `ort` is missing"),
        "{}",
        reason("bad2")
    );
    assert!(
        reason("bad3").contains("declared string, got integer 5"),
        "{}",
        reason("bad3")
    );
    assert!(
        reason("bad4").contains("does not come before it"),
        "{}",
        reason("bad4")
    );

    // s1 and p1 share `wetter`: they stay together on the training side.
    let train = lines(&dir.path().join("train.jsonl"));
    let test = lines(&dir.path().join("test.jsonl"));
    assert_eq!((ids(&train), ids(&test)), (vec!["p1", "s1"], vec!["n1"]));
    let sharegpt: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("train.sharegpt.json")).unwrap(),
    )
    .unwrap();
    let records = sharegpt.as_array().unwrap();
    assert_eq!(records.len(), 2);
    for r in records {
        assert_eq!(r["conversations"][0]["from"], "human");
        assert_eq!(r["conversations"][1]["from"], "gpt");
        let gold: Value =
            serde_json::from_str(r["conversations"][1]["value"].as_str().unwrap()).unwrap();
        assert!(gold["Action"].as_str().unwrap().starts_with('['));
    }
    assert!(dir.path().join("train.sharegpt.dataset_info.json").exists());

    // The tasks are SPEC tasks: `itc score` gives their gold full marks.
    let predictions = dir.path().join("gold.jsonl");
    let gold_lines: Vec<Value> = records
        .iter()
        .zip(&train)
        .map(|(r, t)| json!({"task_id": t["id"], "model": "gold", "output": r["conversations"][1]["value"]}))
        .collect();
    write_lines(&predictions, &gold_lines);
    let train_path = dir.path().join("train.jsonl");
    let scored = itc(
        &[
            "score",
            "--tasks",
            train_path.to_str().unwrap(),
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

    // A re-run is free and writes the same tasks.
    let before = std::fs::read_to_string(dir.path().join("tasks.jsonl")).unwrap();
    let out = answer(dir.path(), &config, &queries);
    assert!(out.status.success());
    assert_eq!(server.requests(), 10);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tasks.jsonl")).unwrap(),
        before
    );
}
