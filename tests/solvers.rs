//! The solvers of SPEC §8 end to end: a scripted step model that calls,
//! gives up and finishes makes `itc eval --solver dfsdt` build an exact
//! tree (backtracking after a give-up, the note on earlier children only in
//! the requests it belongs to, the depth and request limits), and
//! `--solver chain:N` start again after a give-up, cached apart.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, Request, ScriptedServer, completion};
use support::{itc, scripted_models_toml, text};

/// The words DFSDT's note starts with.
const NOTE: &str = "has been tried before";

/// The actions of the assistant turns a request shows, and whether its last
/// user message is DFSDT's note.
fn path_of(request: &Request) -> (Vec<String>, bool) {
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let actions = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| {
            let content: Value = serde_json::from_str(m["content"].as_str().unwrap()).unwrap();
            content["Action"].as_str().unwrap().to_string()
        })
        .collect();
    let note = messages
        .last()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|c| c.contains(NOTE));
    (actions, note)
}

fn answer(action: &str) -> Reply {
    let content = json!({"Thought": "Next step.", "Action": action}).to_string();
    Reply::Json(completion(&content))
}

const A: &str = "[search(q='a')]";
const B: &str = "[search(q='b')]";
const F1: &str = "[fetch(id='1')]";
const F2: &str = "[fetch(id='2')]";
const GIVE_UP: &str = "[Finish(return_type='give_up_and_restart')]";
const DONE: &str = "[Finish(return_type='give_answer', final_answer='Item 1 is a red bike.')]";

/// The step model: what it answers after each path, with or without the
/// note; and the judge (`model_id` `judge`), which finds every answer solved.
fn step_model(request: &Request) -> Reply {
    if request.body["model"] == "judge" {
        let verdict = json!({"label": "Solved", "reason": "It names the red bike."});
        return Reply::Json(completion(&verdict.to_string()));
    }
    let (path, note) = path_of(request);
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    match (path.as_slice(), note) {
        ([], false) => answer(A),
        ([a], _) if *a == A => answer(GIVE_UP),
        ([], true) => answer(B),
        ([b], false) if *b == B => answer(F1),
        ([b], true) if *b == B => answer("[fetch(id='9')]"),
        ([_, _], false) => answer(F2),
        ([_, _, _], false) => answer("[fetch(id='3')]"),
        ([_, _, _], true) => answer("[fetch(id='4')]"),
        ([_, _], true) => answer(DONE),
        other => panic!("unscripted path {other:?}"),
    }
}

/// One task, its tools, recorded outputs for the gold's two steps.
fn write_task(dir: &Path) -> PathBuf {
    let task = json!({"id": "t1", "kind": "nested", "language": "en",
        "query": "What is item b? [[task:t1]]",
        "tools": [
            {"name": "search", "description": "Finds item ids",
             "required_parameters": [{"name": "q", "type": "string", "description": "Words"}]},
            {"name": "fetch", "description": "An item by id",
             "required_parameters": [{"name": "id", "type": "string", "description": "Item id"}]}],
        "gold": {"thought": "Search, then fetch.", "calls": [
            {"name": "search", "arguments": {"q": "b"}},
            {"name": "fetch", "arguments": {"id": "1"}}]},
        "turns": [
            {"calls": [{"name": "search", "arguments": {"q": "b"}}], "tool_outputs": [{"ids": ["1"]}]},
            {"calls": [{"name": "fetch", "arguments": {"id": "1"}}], "tool_outputs": [{"name": "red bike"}]}]});
    let path = dir.join("tasks.jsonl");
    std::fs::write(&path, format!("{task}\n")).unwrap();
    path
}

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    tasks: PathBuf,
    config: PathBuf,
    server: ScriptedServer,
}

fn setup() -> Setup {
    setup_with(step_model)
}

fn setup_with(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let server = ScriptedServer::start(script);
    let tasks = write_task(&root);
    let config = root.join("models.toml");
    std::fs::write(
        &config,
        scripted_models_toml(&server.base_url(), &["m", "judge"]),
    )
    .unwrap();
    Setup {
        _dir: dir,
        root,
        tasks,
        config,
        server,
    }
}

/// Runs `itc eval` on the task with `extra` flags; the run's prediction.
fn eval(setup: &Setup, name: &str, extra: &[&str]) -> Value {
    let run = setup.root.join(name);
    let cache = setup.root.join("cache");
    let mut args = vec![
        "eval",
        "--config",
        setup.config.to_str().unwrap(),
        "--models",
        "m",
        "--tasks",
        setup.tasks.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--steps",
        "replay",
        "--no-progress",
    ];
    args.extend_from_slice(extra);
    let out = itc(&args, &[]);
    assert!(
        out.status.success(),
        "itc {args:?}:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let line = std::fs::read_to_string(run.join("predictions.jsonl")).unwrap();
    serde_json::from_str(line.lines().next().unwrap()).unwrap()
}

/// Each step's action and parent.
fn tree(prediction: &Value) -> Vec<(String, Option<u64>)> {
    prediction["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let content: Value = serde_json::from_str(s["output"].as_str().unwrap()).unwrap();
            (
                content["Action"].as_str().unwrap().to_string(),
                s["parent"].as_u64(),
            )
        })
        .collect()
}

/// The request bodies the server got, in order.
fn bodies(server: &ScriptedServer) -> Vec<Value> {
    server
        .log()
        .into_iter()
        .map(|l| serde_json::from_str(&l.body).unwrap())
        .collect()
}

fn last_user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn dfsdt_backtracks_after_a_give_up_and_notes_only_where_a_node_has_children() {
    let setup = setup();
    let prediction = eval(&setup, "dfsdt", &["--solver", "dfsdt", "--finish", "on"]);
    let expected: Vec<(String, Option<u64>)> = [
        (A, None),
        (GIVE_UP, Some(0)),
        (B, None),
        (F1, Some(2)),
        (F2, Some(3)),
        ("[fetch(id='3')]", Some(4)),
        ("[fetch(id='4')]", Some(4)),
        (DONE, Some(3)),
    ]
    .iter()
    .map(|(a, p)| (a.to_string(), *p))
    .collect();
    assert_eq!(tree(&prediction), expected);
    let solver = &prediction["solver"];
    assert_eq!(solver["kind"], "dfsdt");
    assert_eq!(solver["path"], json!([2, 3, 7]));
    assert_eq!(solver["ending"], "finish");
    assert_eq!(solver["requests"], 8);
    assert_eq!(
        (
            solver["max_depth"].as_u64(),
            solver["max_requests"].as_u64()
        ),
        (Some(12), Some(200))
    );
    assert_eq!(setup.server.requests(), 8);

    // The note is in requests 3, 7 and 8 only, each listing the first
    // action of the children tried before under the same node.
    let bodies = bodies(&setup.server);
    let notes: Vec<usize> = (0..bodies.len())
        .filter(|&i| last_user_text(&bodies[i]).contains(NOTE))
        .collect();
    assert_eq!(notes, vec![2, 6, 7]);
    let third = last_user_text(&bodies[2]);
    assert!(third.contains("search(q='a')"), "{third}");
    let eighth = last_user_text(&bodies[7]);
    assert!(
        eighth.contains("fetch(id='2')") && !eighth.contains("search(q='a')"),
        "{eighth}"
    );
    assert!(
        eighth.contains("red bike") || eighth.contains("no recorded output"),
        "{eighth}"
    );
    let seventh = last_user_text(&bodies[6]);
    assert!(
        seventh.contains("fetch(id='3')") && !seventh.contains("fetch(id='2')"),
        "{seventh}"
    );
    // The Finish tool is shown with the task's tools.
    assert!(
        bodies[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("give_up_and_restart")
    );

    // §3 scores the chosen path without its Finish call: search b, fetch 1.
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(setup.root.join("dfsdt/summary.json")).unwrap(),
    )
    .unwrap();
    let s = &summary[0]["summary"];
    assert_eq!(s["selection"]["f1"], 100.0, "{s}");
    assert_eq!(s["invocation"]["f1"], 100.0, "{s}");
    assert_eq!(
        s["counts"]["sel_pred"], 2,
        "the Finish call is no call: {s}"
    );

    // run.json counts the searches: 8 requests, one ended by Finish.
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(setup.root.join("dfsdt/run.json")).unwrap())
            .unwrap();
    let searches = &run["searches"][0];
    assert_eq!(
        (searches["tasks"].as_u64(), searches["requests"].as_u64()),
        (Some(1), Some(8))
    );
    assert_eq!(searches["endings"], json!({"finish": 1}));

    // A judge reads the final answer (SoPR over 2 runs) into RUN_DIR/judged/sopr.
    let out = itc(
        &[
            "judge",
            setup.root.join("dfsdt").to_str().unwrap(),
            "--metric",
            "sopr",
            "--runs",
            "2",
            "--judge",
            "judge",
            "--config",
            setup.config.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(setup.server.requests(), 10, "8 step requests, 2 judge runs");
    let judgments =
        std::fs::read_to_string(setup.root.join("dfsdt/judged/sopr/judgments.jsonl")).unwrap();
    let first: Value = serde_json::from_str(judgments.lines().next().unwrap()).unwrap();
    assert_eq!(first["label"], "Solved");
    let judge_body = &self::bodies(&setup.server)[8];
    assert!(
        judge_body.to_string().contains("Item 1 is a red bike."),
        "the judge reads the Finish call's final answer"
    );

    // The report shows the judged figure beside §3's, and the browser the
    // whole tree, outputs, the path, the ending and the judge's reasons.
    let report = setup.root.join("report");
    let out = itc(
        &[
            "report",
            setup.root.join("dfsdt").to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    for expected in [
        "#2 (after #1): ",
        "#3* (first request): ",
        "#8* (after #4): ",
        "dfsdt ended by finish, 8 request(s); path #3 → #4 → #8",
        "outputs: [{&quot;ids&quot;:[&quot;1&quot;]}]",
        "search(q=&#39;b&#39;)] → [fetch(id=&#39;1&#39;)] → [Finish(",
        "<th>Judged (SPEC §8)</th>",
        "<td>SoPR 100.0 ± 0.0 (judge (judge))</td>",
        "<th>Judges</th>",
        "sopr #1 answer_status by judge: Solved — It names the red bike.",
    ] {
        let at = html.find("<table id=\"summary\"").unwrap_or(0);
        let summary = &html[at..(at + 1500).min(html.len())];
        assert!(
            html.contains(expected),
            "{expected} not in the page: {summary}"
        );
    }
    let markdown = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(markdown.contains("## Judged task success"), "{markdown}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["judged"][0]["metric"], "sopr");
    assert_eq!(json["judged"][0]["spread"], 0.0);
    assert_eq!(json["judged"][0]["detail"], "2 runs");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Judged task success"), "{stdout}");

    // Run again: the cache answers every node, the same tree comes back.
    let again = eval(
        &setup,
        "dfsdt-again",
        &["--solver", "dfsdt", "--finish", "on"],
    );
    assert_eq!(setup.server.requests(), 10, "no new request");
    assert_eq!(tree(&again), expected);
}

#[test]
fn dfsdt_stops_at_its_request_and_depth_limits() {
    let setup = setup();
    let limited = eval(
        &setup,
        "requests",
        &["--solver", "dfsdt", "--finish", "on", "--max-requests", "5"],
    );
    assert_eq!(limited["steps"].as_array().unwrap().len(), 5);
    assert_eq!(limited["solver"]["ending"], "request_limit");
    assert_eq!(limited["solver"]["path"], json!([2, 3, 4]));

    // Depth 6: `search` then `fetch` (3 + 3) is as deep as a path goes, so
    // each fetch is a dead end and node 2's second child gets the note.
    let shallow = eval(
        &setup,
        "depth",
        &["--solver", "dfsdt", "--finish", "on", "--max-depth", "6"],
    );
    let expected: Vec<(String, Option<u64>)> = [
        (A, None),
        (GIVE_UP, Some(0)),
        (B, None),
        (F1, Some(2)),
        ("[fetch(id='9')]", Some(2)),
    ]
    .iter()
    .map(|(a, p)| (a.to_string(), *p))
    .collect();
    assert_eq!(tree(&shallow), expected);
    assert_eq!(shallow["solver"]["ending"], "depth_limit");
    assert_eq!(shallow["solver"]["path"], json!([2, 4]));
}

/// A model that calls a tool whatever it is shown: a DFSDT search under it
/// never ends before its limits.
fn always_calls(_: &Request) -> Reply {
    answer(A)
}

#[test]
fn dfsdt_searches_a_path_seven_hundred_requests_deep_without_recursion() {
    // Each request is one level deeper than the one before: a search kept
    // on the call stack overflowed it at about 600 levels (exit 134).
    let setup = setup_with(always_calls);
    let deep = eval(
        &setup,
        "deep",
        &[
            "--solver",
            "dfsdt",
            "--max-depth",
            "4000000000",
            "--max-requests",
            "700",
        ],
    );
    let steps = deep["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 700);
    assert!(
        steps
            .iter()
            .enumerate()
            .skip(1)
            .all(|(i, s)| s["parent"].as_u64() == Some(i as u64 - 1)),
        "one path, each node below the one before"
    );
    assert_eq!(deep["solver"]["ending"], "request_limit");
    assert_eq!(deep["solver"]["path"].as_array().unwrap().len(), 700);
    assert_eq!(setup.server.requests(), 700);
}

#[test]
fn dfsdt_runs_ten_thousand_requests_to_its_limit() {
    // Depth 40: every path is 14 calls deep (3 levels a call), and the
    // binary tree below them has far more than 10,000 nodes.
    let setup = setup_with(always_calls);
    let wide = eval(
        &setup,
        "wide",
        &[
            "--solver",
            "dfsdt",
            "--max-depth",
            "40",
            "--max-requests",
            "10000",
        ],
    );
    let steps = wide["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 10_000);
    assert_eq!(wide["solver"]["requests"], 10_000);
    assert_eq!(wide["solver"]["ending"], "request_limit");
    // Depth first: node i's parent is asked before it, and no node has more
    // than two children.
    let mut children = vec![0u32; steps.len()];
    for (i, step) in steps.iter().enumerate() {
        if let Some(parent) = step["parent"].as_u64() {
            assert!((parent as usize) < i);
            children[parent as usize] += 1;
        }
    }
    assert!(children.iter().all(|&c| c <= 2));
}

#[test]
fn chain_starts_again_after_a_give_up_and_its_tries_are_cached_apart() {
    let setup = setup();
    let prediction = eval(&setup, "chain", &["--solver", "chain:2", "--finish", "on"]);
    let expected: Vec<(String, Option<u64>)> =
        [(A, None), (GIVE_UP, Some(0)), (A, None), (GIVE_UP, Some(2))]
            .iter()
            .map(|(a, p)| (a.to_string(), *p))
            .collect();
    assert_eq!(tree(&prediction), expected);
    assert_eq!(prediction["solver"]["ending"], "gave_up");
    assert_eq!(prediction["solver"]["path"], json!([2, 3]));
    // The second try's first request equals the first's, yet was sent.
    assert_eq!(setup.server.requests(), 4);
    let again = eval(
        &setup,
        "chain-again",
        &["--solver", "chain:2", "--finish", "on"],
    );
    assert_eq!(setup.server.requests(), 4);
    assert_eq!(tree(&again), expected);
}

#[test]
fn solver_flags_are_refused_where_they_mean_nothing() {
    let setup = setup();
    let run = setup.root.join("single");
    let out = itc(
        &[
            "eval",
            "--config",
            setup.config.to_str().unwrap(),
            "--tasks",
            setup.tasks.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--solver",
            "dfsdt",
        ],
        &[],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--solver"),
        "{}",
        text(&out.stderr)
    );
    let bad = itc(&["eval", "--steps", "replay", "--solver", "chain:0"], &[]);
    assert!(
        text(&bad.stderr).contains("chain:0"),
        "{}",
        text(&bad.stderr)
    );
    assert_eq!(setup.server.requests(), 0);
}

/// The body of a scripted reply.
fn reply_json(reply: Reply) -> Value {
    match reply {
        Reply::Json(body) => body,
        _ => panic!("the step model answers with JSON"),
    }
}

#[test]
fn dfsdt_through_batch_files_builds_the_same_tree_one_request_a_round() {
    let setup = setup();
    let direct = eval(&setup, "direct", &["--solver", "dfsdt", "--finish", "on"]);
    // A fresh cache: every request of the batch rounds goes through files.
    let cache = setup.root.join("batch-cache");
    let base = |run: &str| {
        vec![
            "eval".to_string(),
            "--config".into(),
            setup.config.to_str().unwrap().into(),
            "--models".into(),
            "m".into(),
            "--tasks".into(),
            setup.tasks.to_str().unwrap().into(),
            "--cache".into(),
            cache.to_str().unwrap().into(),
            "--steps".into(),
            "replay".into(),
            "--solver".into(),
            "dfsdt".into(),
            "--finish".into(),
            "on".into(),
            "--no-progress".into(),
            "--run-dir".into(),
            setup.root.join(run).to_str().unwrap().into(),
        ]
    };
    let sent = setup.server.requests();
    let mut rounds = 0;
    loop {
        let batch = setup.root.join(format!("batch-{rounds}"));
        let mut args = base(&format!("emit-{rounds}"));
        args.extend(["--emit-batch".to_string(), batch.to_str().unwrap().into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = itc(&args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let input = batch.join("m.openai.jsonl");
        let lines: Vec<Value> = std::fs::read_to_string(&input)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if lines.is_empty() {
            break;
        }
        assert_eq!(
            lines.len(),
            1,
            "a task stops at its first request not yet answered"
        );
        let request = Request {
            task: None,
            attempt: 1,
            count: 1,
            path: "/v1/chat/completions".into(),
            headers: Default::default(),
            body: lines[0]["body"].clone(),
        };
        let answered = json!({"id": "batch_req_0", "custom_id": lines[0]["custom_id"],
            "response": {"status_code": 200, "request_id": "req_0", "body": reply_json(step_model(&request))},
            "error": null});
        let output = setup.root.join(format!("batch-{rounds}.out.jsonl"));
        std::fs::write(&output, format!("{answered}\n")).unwrap();
        let mut args = base(&format!("import-{rounds}"));
        args.extend([
            "--import-batch".to_string(),
            output.to_str().unwrap().into(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = itc(&args, &[]); // exit 3 until the last round: the next request has no result yet
        rounds += 1;
        assert!(rounds <= 12, "the batch rounds do not end");
    }
    assert_eq!(rounds, 8, "one round a node");
    assert_eq!(setup.server.requests(), sent, "nothing sent over HTTP");
    let last = format!("import-{}", rounds - 1);
    let line = std::fs::read_to_string(setup.root.join(last).join("predictions.jsonl")).unwrap();
    let batched: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(tree(&batched), tree(&direct));
    assert_eq!(batched["solver"]["path"], direct["solver"]["path"]);
}
