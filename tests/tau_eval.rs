//! `itc eval --dataset tau:retail` runs the official conversation between
//! two servers on loopback: a scripted user who names its task, and a
//! scripted agent who replays the task's gold actions one call at a time,
//! then says it is done. Every trial then ends as the user stops, and the
//! official evaluator gives reward 1 to every task whose basis allows it
//! without an NL judge (the others: reward without NL 1, reward pending).

mod support;

use std::collections::HashMap;
use std::sync::Arc;

use itc::benchmarks::tau::format::Task;
use itc::benchmarks::tau::protocol::protocol;
use serde_json::{Value, json};
use support::server::{Reply, ScriptedServer};
use support::tau::{agent, gold_plan, is_probe, named_task, tasks, user, user_prompts};
use support::{itc, text};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/tau/retail")
}

/// A gold run: the scripted agent and user servers, the models file
/// (`gold`, `user`, and `extra_models` appended), and `itc eval`'s output.
struct GoldRun {
    dir: tempfile::TempDir,
    run: std::path::PathBuf,
    agent_server: ScriptedServer,
    user_server: ScriptedServer,
}

impl GoldRun {
    fn start(tasks: &[Task], extra_models: &str) -> GoldRun {
        let prompts = Arc::new(user_prompts(tasks));
        let actions: HashMap<String, Vec<Value>> =
            tasks.iter().map(|t| (t.id.clone(), gold_plan(t))).collect();
        let user_server = ScriptedServer::start(move |r| user(&prompts, &r.body, ""));
        let actions = Arc::new(actions);
        let agent_server = ScriptedServer::start(move |r| agent(&actions, &r.body));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("models.toml"),
            format!(
                "[[models]]\nname = \"gold\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"gold\"\nconcurrency = 4\n\n\
                 [[models]]\nname = \"user\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"user\"\nconcurrency = 4\n{extra_models}",
                agent_server.base_url(),
                user_server.base_url()
            ),
        )
        .unwrap();
        let run = dir.path().join("run");
        GoldRun {
            dir,
            run,
            agent_server,
            user_server,
        }
    }

    /// `itc eval` of every retail task with the gold agent, and `extra` flags.
    fn eval(&self, extra: &[&str]) -> std::process::Output {
        self.eval_in(&self.run, extra)
    }

    /// [`GoldRun::eval`] into the run directory `run`.
    fn eval_in(&self, run: &std::path::Path, extra: &[&str]) -> std::process::Output {
        let config = self.dir.path().join("models.toml");
        let mut args = vec![
            "eval",
            "--dataset",
            "tau:retail",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "gold",
            "--user-model",
            "user",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ];
        args.extend(extra);
        itc(&args, &[])
    }

    fn per_item(&self) -> Vec<Value> {
        json_lines(&self.run.join("official/gold.per_item.jsonl"))
    }
}

fn json_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tasks whose reward waits on an NL judge.
fn judged_tasks(tasks: &[Task]) -> Vec<&Task> {
    tasks
        .iter()
        .filter(|t| {
            let c = t.evaluation_criteria.as_ref().unwrap();
            c.nl_assertions.as_ref().is_some_and(|a| !a.is_empty())
                && c.reward_basis
                    .iter()
                    .any(|b| serde_json::to_value(b).unwrap() == "NL_ASSERTION")
        })
        .collect()
}

#[test]
fn the_gold_agent_earns_every_reward_the_basis_allows() {
    let tasks = tasks();
    let gold = GoldRun::start(&tasks, "");
    let (run, agent_server, user_server) = (&gold.run, &gold.agent_server, &gold.user_server);
    let out = gold.eval(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("τ³-bench retail, official evaluator"),
        "{stdout}"
    );

    // Every trial rewarded as the basis allows.
    let judged = judged_tasks(&tasks);
    let lines = gold.per_item();
    assert_eq!(lines.len(), tasks.len());
    for line in &lines {
        assert_eq!(line["termination_reason"], "user_stop", "{line}");
        assert_eq!(line["reward_without_nl"], 1.0, "{line}");
        let needs_judge = judged.iter().any(|t| t.id == line["task_id"]);
        let expected = if needs_judge { Value::Null } else { json!(1.0) };
        assert_eq!(line["reward"], expected, "{line}");
    }
    let official: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("official.json")).unwrap()).unwrap();
    let result = &official["results"][0];
    assert_eq!(result["needs_nl_judge"], judged.len());
    assert_eq!(result["pass_hat_ks_without_nl"]["1"], 1.0);
    let share = (tasks.len() - judged.len()) as f64 / tasks.len() as f64;
    assert!(
        (result["pass_hat_ks"]["1"].as_f64().unwrap() - share).abs() < 1e-12,
        "{result}"
    );

    // The agent got the official system prompt and tools; the user its own.
    let agent_log = agent_server.log();
    let first: Value = agent_log
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .find(|b| !is_probe(b))
        .unwrap();
    let reference =
        |name: &str| std::fs::read_to_string(root().join("reference").join(name)).unwrap();
    assert_eq!(
        first["messages"][0]["content"],
        reference("prompts/agent_system_prompt.txt")
    );
    let schemas: Value = serde_json::from_str(&reference("tool_schemas.json")).unwrap();
    assert_eq!(first["tools"], schemas);
    assert_eq!(
        (&first["tool_choice"], &first["temperature"]),
        (&json!("auto"), &json!(0.0))
    );
    let user_first: Vec<Value> = user_server
        .log()
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .filter(|b| !is_probe(b))
        .collect();
    let task0 = reference("prompts/user_simulator_system_prompt_task_0.txt");
    assert!(
        user_first
            .iter()
            .any(|b| b["messages"][0]["content"] == task0.as_str())
    );
}

#[test]
fn a_run_without_its_user_model_or_with_no_trials_is_refused_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        "[[models]]\nname = \"a\"\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel_id = \"a\"\n\n\
         [[models]]\nname = \"g\"\nbackend = \"gemini\"\nmodel_id = \"gemini-2.0-flash\"\napi_key_env = \"ITC_TEST_NO_SUCH_KEY\"\n",
    )
    .unwrap();
    let run = dir.path().join("run");
    let base = [
        "eval",
        "--dataset",
        "tau:retail",
        "--config",
        config.to_str().unwrap(),
        "--models",
        "a",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    let out = itc(&base, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--user-model NAME"),
        "{}",
        text(&out.stderr)
    );
    let mut args = base.to_vec();
    args.extend(["--user-model", "a", "--trials", "0"]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--trials 0: from 1 to 100"),
        "{}",
        text(&out.stderr)
    );
    let mut args = base.to_vec();
    args.extend(["--user-model", "nobody"]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("nobody"),
        "{}",
        text(&out.stderr)
    );
    // A Gemini user model has no batch format (and needs no key to be refused).
    let mut args = base.to_vec();
    let batch = dir.path().join("batch");
    args.extend(["--user-model", "g", "--emit-batch", batch.to_str().unwrap()]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("model `g` is a Gemini model"),
        "{}",
        text(&out.stderr)
    );
    // Rounds read the earlier answers from the cache.
    let mut args = base.to_vec();
    args.extend(["--user-model", "a", "--no-cache"]);
    args.extend(["--emit-batch", batch.to_str().unwrap()]);
    let out = itc(&args, &[]);
    assert!(
        text(&out.stderr).contains("--no-cache: through batch files"),
        "{}",
        text(&out.stderr)
    );
    assert!(!run.join("predictions.jsonl").exists());
    assert!(!batch.join("a.openai.jsonl").exists());
}

/// The models-file entry of the judge `judge` on `server`.
fn judge_model(server: &ScriptedServer) -> String {
    format!(
        "\n[[models]]\nname = \"judge\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"judge-model\"\nconcurrency = 4\n",
        server.base_url()
    )
}

/// The NL judge: met for every task, except `unmet` (not met) and
/// `fenced` (a reply in a code fence, which `json.loads` refuses).
fn nl_judge(body: &Value, unmet: &str, fenced: &str) -> Reply {
    if is_probe(body) {
        return Reply::Answer("ok".into());
    }
    let task = named_task(body["messages"][1]["content"].as_str().unwrap());
    let verdict = json!({"results": [{"expectedOutcome": "the first", "reasoning": "read",
                                      "metExpectation": task != unmet}]})
    .to_string();
    match task == fenced {
        true => Reply::Answer(format!("```json\n{verdict}\n```")),
        false => Reply::Answer(verdict),
    }
}

#[test]
fn nl_assertions_are_asked_of_the_judge_as_the_official_evaluator_asks_and_cached() {
    let tasks = tasks();
    let judged: Vec<String> = judged_tasks(&tasks).iter().map(|t| t.id.clone()).collect();
    let (unmet, fenced) = (judged[0].clone(), judged[1].clone());
    let judge_server = {
        let (unmet, fenced) = (unmet.clone(), fenced.clone());
        ScriptedServer::start(move |r| nl_judge(&r.body, &unmet, &fenced))
    };
    let gold = GoldRun::start(&tasks, &judge_model(&judge_server));
    let out = gold.eval(&["--nl-judge", "judge"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("NL assertions judged by judge"),
        "{}",
        text(&out.stdout)
    );
    let lines = gold.per_item();
    for line in &lines {
        let id = line["task_id"].as_str().unwrap();
        match judged.iter().any(|j| j == id) {
            false => {
                assert_eq!(line["reward"], 1.0, "{line}");
                assert!(line.get("nl_judge").is_none(), "{line}");
            }
            true if id == unmet => {
                assert_eq!(
                    (&line["reward"], &line["status"]),
                    (&json!(0.0), &json!("computed"))
                );
                assert_eq!(line["nl_assertions"][0]["met"], false, "{line}");
                assert_eq!(line["nl_judge"], "judge");
            }
            true if id == fenced => {
                assert_eq!(line["reward"], Value::Null, "{line}");
                assert_eq!(line["status"], "evaluator_raised", "{line}");
                assert!(
                    line["note"].as_str().unwrap().contains("not JSON"),
                    "{line}"
                );
            }
            true => {
                assert_eq!(line["reward"], 1.0, "{line}");
                assert_eq!(line["nl_assertions"][0]["nl_assertion"], "the first");
            }
        }
    }

    // One request per judged trial: the official prompts, temperature 0, no tools.
    let asked: Vec<Value> = judge_server
        .log()
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .filter(|b| !is_probe(b))
        .collect();
    assert_eq!(asked.len(), judged.len());
    let texts = &protocol().nl_judge;
    let task2 = tasks.iter().find(|t| t.id == "2").unwrap();
    let assertions = task2
        .evaluation_criteria
        .as_ref()
        .unwrap()
        .nl_assertions
        .clone()
        .unwrap();
    assert!(assertions.iter().all(|a| !a.contains(['\'', '\\', '\n'])));
    let listed = format!("['{}']", assertions.join("', '"));
    let request = asked
        .iter()
        .find(|b| {
            b["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("task 2.")
        })
        .unwrap();
    assert_eq!(request["messages"][0]["role"], "system");
    assert_eq!(
        request["messages"][0]["content"],
        texts.system_prompt.as_str()
    );
    let prompt = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.starts_with(
            "\n        conversation:\n        assistant: Hi! How can I help you today?\nuser: Hello, I am calling about task 2.\nassistant: None\ntool: "
        ),
        "{prompt}"
    );
    assert!(
        prompt.ends_with(&format!(
            "\n        \n        expectedOutcomes:\n        {listed}\n        "
        )),
        "{prompt}"
    );
    assert_eq!(request["temperature"], 0.0);
    assert_eq!(request["model"], "judge-model");
    assert!(request.get("tools").is_none() && request.get("seed").is_none());

    // Scored again on resume: every verdict from the cache, none asked again.
    let out = gold.eval(&["--nl-judge", "judge", "--resume"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let again: Vec<Value> = judge_server
        .log()
        .iter()
        .filter(|l| !is_probe(&serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null)))
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap())
        .collect();
    assert_eq!(again.len(), judged.len());
    assert_eq!(gold.per_item(), lines);

    // `itc report` over this run and a copy of it: each run's pass^k with
    // its interval, in the terminal, report.md and official.csv.
    let copy = gold.dir.path().join("run-copy");
    copy_dir(&gold.run, &copy);
    let out_dir = gold.dir.path().join("report");
    let out = itc(
        &[
            "report",
            gold.run.to_str().unwrap(),
            copy.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--wide",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let official: Value =
        serde_json::from_str(&std::fs::read_to_string(gold.run.join("official.json")).unwrap())
            .unwrap();
    let result = &official["results"][0];
    let pass1 = result["pass_hat_ks"]["1"].as_f64().unwrap();
    let ci = result["pass_hat_ks_ci"]["1"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo < pass1 && pass1 < hi, "{result}");
    let percent = |x: f64| format!("{:.2}", 100.0 * x);
    let cell = format!("{} | {}–{}", percent(pass1), percent(lo), percent(hi));
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let shown = text(&out.stdout);
    for name in ["gold@run", "gold@run-copy"] {
        assert!(
            md.contains(&format!("| {name} | tau-retail | pass^1 | {cell} |")),
            "{md}"
        );
        assert!(shown.contains(name), "{shown}");
    }
    assert!(md.contains("τ³-bench: average reward and pass^k"), "{md}");
    let csv = std::fs::read_to_string(out_dir.join("official.csv")).unwrap();
    assert!(
        csv.starts_with("model,benchmark,figure,value,ci_lo,ci_hi,correct,total\n"),
        "{csv}"
    );
    assert_eq!(
        csv.lines()
            .filter(|l| l.contains(",tau-retail,pass^1,"))
            .count(),
        2,
        "{csv}"
    );
}

/// Copies a run directory (files and folders).
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The requests a scripted server answered, probes left out.
fn asked(server: &ScriptedServer) -> usize {
    server
        .log()
        .iter()
        .filter(|l| !is_probe(&serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null)))
        .count()
}

#[test]
fn conversations_go_through_batch_files_one_request_per_round() {
    let tasks = tasks();
    let judge_server = ScriptedServer::start(move |r| nl_judge(&r.body, "", ""));
    let gold = GoldRun::start(&tasks, &judge_model(&judge_server));
    // The direct run of tasks 0 to 2 (task 2 has NL assertions).
    let out = gold.eval(&["--limit", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = (asked(&gold.agent_server), asked(&gold.user_server));

    // The same run through batch files, with a cache of its own.
    let dir = gold.dir.path();
    let (run, cache) = (dir.join("batch-run"), dir.join("batch-cache"));
    let cache = cache.to_str().unwrap();
    let refused = gold.eval_in(
        &run,
        &["--limit", "3", "--cache", cache, "--nl-judge", "judge"]
            .into_iter()
            .chain(["--emit-batch", dir.join("refused").to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(
        text(&refused.stderr)
            .contains("--nl-judge judge: the judge is asked once the conversations have ended"),
        "{}",
        text(&refused.stderr)
    );
    let prompts = user_prompts(&tasks);
    let plans: HashMap<String, Vec<Value>> =
        tasks.iter().map(|t| (t.id.clone(), gold_plan(t))).collect();
    let rounds = support::batch::run_rounds(
        dir,
        &run,
        |batch| {
            gold.eval_in(
                &run,
                &[
                    "--limit",
                    "3",
                    "--cache",
                    cache,
                    "--emit-batch",
                    batch.to_str().unwrap(),
                ],
            )
        },
        |results, first| {
            let mut args = vec!["--limit", "3", "--cache", cache, "--import-batch"];
            args.extend(results.iter().map(|r| r.to_str().unwrap()));
            if !first {
                args.push("--resume");
            }
            gold.eval_in(&run, &args)
        },
        |model, body| {
            let reply = match model {
                "gold" => agent(&plans, body),
                "user" => user(&prompts, body, ""),
                other => panic!("a request to {other}"),
            };
            reply.success_body().unwrap()
        },
    );
    // No server was asked; each round carried one request per unfinished
    // trial: the user speaks first, then the agent, and every request of
    // the direct run went through a batch.
    assert_eq!(
        (asked(&gold.agent_server), asked(&gold.user_server)),
        requests
    );
    assert_eq!((rounds[0].to("user"), rounds[0].to("gold")), (3, 0));
    assert_eq!((rounds[1].to("user"), rounds[1].to("gold")), (0, 3));
    for (n, round) in rounds.iter().enumerate() {
        let mut trials: Vec<&str> = round
            .requests
            .iter()
            .map(|(_, id)| id.split("--").nth(1).unwrap())
            .collect();
        trials.sort();
        let all = trials.len();
        trials.dedup();
        assert_eq!(trials.len(), all, "round {}: {round:?}", n + 1);
    }
    let sent: usize = rounds.iter().map(|r| r.requests.len()).sum();
    assert_eq!(sent, requests.0 + requests.1);
    let rounds_of = |trial: &str| {
        rounds
            .iter()
            .filter(|r| r.requests.iter().any(|(_, id)| id.contains(trial)))
            .count()
    };
    // Two user turns, then a request per gold call and one for the closing text.
    assert_eq!(rounds_of("--retail-0-t0--"), 2 + 5 + 1);
    assert_eq!(rounds_of("--retail-2-t0--"), 2 + 11 + 1);
    assert_eq!(rounds.len(), 14);

    // The same conversations and rewards as the direct run.
    let by_id = |path: &std::path::Path| -> HashMap<String, Value> {
        json_lines(path)
            .into_iter()
            .map(|p| (p["task_id"].as_str().unwrap().to_string(), p))
            .collect()
    };
    let (batched, direct) = (
        by_id(&run.join("predictions.jsonl")),
        by_id(&gold.run.join("predictions.jsonl")),
    );
    assert_eq!(batched.len(), 3);
    for (id, prediction) in &batched {
        assert_eq!(prediction["official"], direct[id]["official"], "{id}");
    }
    let items = json_lines(&run.join("official/gold.per_item.jsonl"));
    let rewards: Vec<(&Value, &Value)> = items
        .iter()
        .map(|l| (&l["task_id"], &l["reward"]))
        .collect();
    assert_eq!(
        rewards,
        [
            (&json!("0"), &json!(1.0)),
            (&json!("1"), &json!(1.0)),
            (&json!("2"), &Value::Null)
        ]
    );

    // The judge is asked by a last resume, without batch files.
    let out = gold.eval_in(
        &run,
        &[
            "--limit",
            "3",
            "--cache",
            cache,
            "--resume",
            "--nl-judge",
            "judge",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let items = json_lines(&run.join("official/gold.per_item.jsonl"));
    let task2 = items.iter().find(|l| l["task_id"] == "2").unwrap();
    assert_eq!(
        (&task2["reward"], &task2["nl_judge"]),
        (&json!(1.0), &json!("judge"))
    );
    assert_eq!(asked(&judge_server), 1);
    assert_eq!(
        (asked(&gold.agent_server), asked(&gold.user_server)),
        requests
    );
}

#[test]
fn an_anthropic_agent_gets_the_request_litellm_builds() {
    let tasks = tasks();
    let prompts = Arc::new(user_prompts(&tasks));
    let user_server = ScriptedServer::start(move |r| user(&prompts, &r.body, ""));
    let agent_server = ScriptedServer::start(|_| {
        Reply::Json(
            json!({"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "All done."}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 2}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"claude\"\nbackend = \"anthropic\"\nbase_url = \"{}\"\nmodel_id = \"claude-3-5-sonnet-latest\"\n\n\
             [[models]]\nname = \"user\"\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel_id = \"user\"\n",
            agent_server.base_url(),
            user_server.base_url()
        ),
    )
    .unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "tau:retail",
            "--config",
            config.to_str().unwrap(),
            "--models",
            "claude",
            "--user-model",
            "user",
            "--limit",
            "1",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[("ANTHROPIC_API_KEY", "test-key")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let asked: Vec<Value> = agent_server
        .log()
        .iter()
        .map(|l| serde_json::from_str::<Value>(&l.body).unwrap_or(Value::Null))
        .filter(|b| b.get("messages").is_some() && b.get("max_tokens") != Some(&json!(1)))
        .collect();
    assert_eq!(asked.len(), 1, "one agent turn: it says it is done");
    let body = &asked[0];
    let reference =
        |name: &str| std::fs::read_to_string(root().join("reference").join(name)).unwrap();
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": reference("prompts/agent_system_prompt.txt")}])
    );
    let litellm: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("../litellm.json")).unwrap())
            .unwrap();
    assert_eq!(body["tools"], litellm["tools"]["retail"]["anthropic"]);
    assert_eq!(
        body["max_tokens"], 8192,
        "litellm's limit for claude-3-5-sonnet-latest"
    );
    assert_eq!(body["tool_choice"], json!({"type": "auto"}));
    assert_eq!(body.get("seed"), None);
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": [{"type": "text", "text": "Hello, I am calling about task 0."}]})
    );
}
