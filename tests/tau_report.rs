//! The conversation of each τ³-bench trial in `itc report`'s page: a real
//! `itc eval --dataset tau:retail` run between scripted servers on loopback
//! (a user who names its task, hostile text included; an agent who replays
//! the gold actions, for task 1 after a hostile call and without the last
//! one; an NL judge), then `itc report`, whose `report.html` headless
//! Chromium opens ([`support::browser`]).

mod support;

use std::collections::HashMap;
use std::sync::Arc;

use itc::benchmarks::tau::format::Task;
use serde_json::{Value, json};
use support::browser::{browse, chromium_or_skip};
use support::server::{Reply, ScriptedServer};
use support::tau::{agent, gold_plan, is_probe, tasks, user, user_prompts};
use support::{itc, text};

/// The trials run: tasks 0 to 2, two trials each.
const IDS: &str = "retail-0-t0,retail-0-t1,retail-1-t0,retail-1-t1,retail-2-t0,retail-2-t1";

/// What the user adds to its opening: markup that must stay text.
const HOSTILE_USER: &str =
    "<script>document.title='pwned-user'</script></details><b id=\"injected-user\">bold</b>";

/// The e-mail the agent looks up first in task 1: markup that must stay text.
const HOSTILE_EMAIL: &str =
    "</details></summary><script>document.title='pwned-tool'</script><i id=\"injected-tool\">x</i>";

/// The agent's plan for a task: its gold actions; for task 1 a hostile
/// look-up first and the last gold action left out.
fn plan(task: &Task) -> Vec<Value> {
    let mut actions = gold_plan(task);
    if task.id == "1" {
        actions.pop();
        actions.insert(
            0,
            json!({"name": "find_user_id_by_email", "arguments": {"email": HOSTILE_EMAIL}}),
        );
    }
    actions
}

/// The NL judge: every assertion met, with its reasoning.
fn judge(body: &Value) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let verdict = json!({"results": [{"expectedOutcome": "the first",
        "reasoning": "the agent said so", "metExpectation": true}]});
    Reply::Answer(verdict.to_string())
}

/// `text` as a dumped DOM writes a text node.
fn as_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The trials' `<details>` elements of a dumped DOM, each as its HTML.
fn trials(dom: &str) -> Vec<&str> {
    dom.split("<details class=\"trial\"")
        .skip(1)
        .map(|rest| rest.split("</details>").next().unwrap())
        .collect()
}

#[test]
fn each_trial_s_conversation_and_reward_breakdown_are_in_the_page() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let tasks = tasks();
    let prompts = user_prompts(&tasks);
    let plans: HashMap<String, Vec<Value>> =
        tasks.iter().map(|t| (t.id.clone(), plan(t))).collect();
    let prompts = Arc::new(prompts);
    let user_server =
        ScriptedServer::start(move |r| user(&prompts, &r.body, &format!(" {HOSTILE_USER}")));
    let plans = Arc::new(plans);
    let agent_server = ScriptedServer::start(move |r| agent(&plans, &r.body));
    let judge_server = ScriptedServer::start(|r| judge(&r.body));
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let model = |name: &str, server: &ScriptedServer| {
        format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"{name}\"\nconcurrency = 4\n\n",
            server.base_url()
        )
    };
    let models = [
        model("gold", &agent_server),
        model("user", &user_server),
        model("judge", &judge_server),
    ];
    std::fs::write(path("models.toml"), models.concat()).unwrap();
    let run = |args: &[&str]| {
        let out = itc(args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    let s = |name: &str| path(name).to_str().unwrap().to_string();
    run(&[
        "eval",
        "--dataset",
        "tau:retail",
        "--config",
        &s("models.toml"),
        "--models",
        "gold",
        "--user-model",
        "user",
        "--nl-judge",
        "judge",
        "--trials",
        "2",
        "--ids",
        IDS,
        "--run-dir",
        &s("run"),
        "--no-progress",
    ]);
    run(&["report", &s("run"), "--out", &s("report")]);
    let html = std::fs::read_to_string(path("report/report.html")).unwrap();
    for hostile in [HOSTILE_USER, HOSTILE_EMAIL, "<script>document.title"] {
        assert!(!html.contains(hostile), "{hostile} written unescaped");
    }
    assert!(!html.contains("id=\"tau-limit\""), "every trial is shown");
    // A smaller page: the first trials, and how many are left out.
    run(&[
        "report",
        &s("run"),
        "--out",
        &s("small"),
        "--browser-rows",
        "4",
    ]);
    let small = std::fs::read_to_string(path("small/report.html")).unwrap();
    assert_eq!(trials(&small).len(), 4);
    assert!(small.contains("The first 4 of 6 trials"), "{small}");

    let url = format!("file://{}", path("report/report.html").display());
    let (dom, console) = browse(&browser, &path("profile"), &url, "--dump-dom");
    assert!(!console.contains("Uncaught"), "{console}");
    assert!(!console.contains(":ERROR:CONSOLE"), "{console}");
    assert!(
        dom.contains("<h2>τ³-bench conversations</h2>"),
        "no section"
    );
    // The page's own script still ran.
    assert!(
        dom.contains("6 of 6 rows"),
        "the browser script did not run"
    );
    // Nothing injected: no element, no script ran.
    for element in ["<b id=\"injected-user\">", "<i id=\"injected-tool\">"] {
        assert!(!dom.contains(element), "{element} injected");
    }
    assert!(!dom.contains("<title>pwned"), "an injected script ran");

    let shown = trials(&dom);
    assert_eq!(shown.len(), 6, "one <details> per trial");
    let ids: std::collections::BTreeSet<&str> = shown
        .iter()
        .map(|t| t.split("id=\"").nth(1).unwrap().split('"').next().unwrap())
        .collect();
    assert_eq!(ids.len(), 6, "ids unique");
    let per_item: Vec<Value> = std::fs::read_to_string(path("run/official/gold.per_item.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for verdict in &per_item {
        let summary = format!(
            "gold · task {} · trial {} · ",
            verdict["task_id"].as_str().unwrap(),
            verdict["trial"]
        );
        let trial = shown
            .iter()
            .find(|t| t.contains(&summary))
            .unwrap_or_else(|| panic!("no trial {summary}"));
        let task = verdict["task_id"].as_str().unwrap();
        // The user's and the agent's turns, visibly apart, in order.
        let opening = trial
            .find("<div class=\"turn user\"><span class=\"who\">user</span><span class=\"said\" dir=\"auto\">Hello, I am calling about task")
            .unwrap_or_else(|| panic!("no user turn in {summary}"));
        // The greeting, then the user, then the agent's calls.
        assert!(trial.contains("Hi! How can I help you today?"));
        let agent_turn = opening + trial[opening..].find("<div class=\"turn agent\">").unwrap();
        assert!(trial.contains("All done: your request is complete."));
        // The hostile opening is shown as text.
        assert!(trial.contains(&as_text(HOSTILE_USER)), "{summary}");
        // A tool call and its output.
        let first = &plan(tasks.iter().find(|t| t.id == task).unwrap())[0];
        let call = format!(
            "<code class=\"call\">{}({})</code>",
            first["name"].as_str().unwrap(),
            as_text(&first["arguments"].to_string())
        );
        let called = trial.find(&call).unwrap_or_else(|| panic!("no {call}"));
        assert!(agent_turn <= called, "{summary}");
        assert!(
            trial[called..].contains("<div class=\"turn tool"),
            "{summary}"
        );
        // The reward breakdown.
        let actions = verdict["action_checks"].as_array().unwrap();
        let matched = actions.iter().filter(|a| a["action_match"] == true).count();
        assert!(
            trial.contains(&format!(
                "Actions: {matched} of {} gold actions matched",
                actions.len()
            )),
            "{summary}"
        );
        assert_eq!(
            trial.matches("<li>✓ <code>").count() + trial.matches("<li>✗ <code>").count(),
            actions.len()
        );
        let db = if verdict["db_check"]["db_match"] == true {
            "✓"
        } else {
            "✗"
        };
        assert!(trial.contains(&format!("<li>DB match: {db}")), "{summary}");
        assert!(trial.contains("<li>Basis: DB "), "{summary}");
        match task {
            // A tool's error, shown as such, with the hostile call as text;
            // a gold action missed, so no reward.
            "1" => {
                assert!(trial.contains("<span class=\"who\">tool · error</span>"));
                assert_eq!(matched + 1, actions.len());
                assert!(
                    trial.contains(" · reward 0 · user_stop</summary>"),
                    "{summary}"
                );
            }
            // Judged: the NL verdicts with their reasoning.
            "2" => {
                assert_eq!(verdict["nl_judge"], "judge");
                assert!(
                    trial.contains("NL assertions (judge judge): 1 of 1 met"),
                    "{trial}"
                );
                assert!(trial.contains("the agent said so"));
                assert!(trial.contains("<li>Communicate: "), "{trial}");
            }
            _ => assert!(
                trial.contains(" · reward 1 · user_stop</summary>"),
                "{summary}"
            ),
        }
    }
}
