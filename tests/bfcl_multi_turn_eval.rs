//! `itc eval --dataset bfcl:multi_turn_…` runs the official multi-turn
//! loop against a server: a scripted model that answers each turn with its
//! ground-truth calls (then a closing text) scores 100% on all four
//! categories, in prompt and in function-calling mode, by the official
//! checker; the result files it writes score the same with `itc ood score
//! bfcl`.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use itc::benchmarks::bfcl::Category;
use itc::benchmarks::bfcl::convert::convert_category;
use itc::benchmarks::bfcl::multi_turn::exec::named_call;
use itc::benchmarks::bfcl::multi_turn::tasks::{MultiTurnEntry, entry_of};
use itc::benchmarks::python::{PyStr, py_repr};
use serde_json::{Value, json};
use support::bfcl::root;
use support::server::{Reply, ScriptedServer, completion};
use support::{itc, text};

const CLOSING: &str = "I have completed the requested operations.";

fn entries(category: Category) -> Vec<MultiTurnEntry> {
    convert_category(
        category,
        &root().join(category.question_file()),
        Some(&root().join(category.possible_answer_file())),
    )
    .unwrap()
    .iter()
    .map(|t| entry_of(t).unwrap().unwrap())
    .collect()
}

/// Whether a user message carries call results (prompt mode) rather than
/// a turn.
fn is_results(message: &Value) -> bool {
    message["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("[{'role': 'tool'"))
}

/// The scripted model's answer to a Chat Completions request.
fn answer(entries: &[MultiTurnEntry], body: &Value) -> Reply {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    let native = body.get("tools").is_some();
    // The turns asked so far: the user messages that are not call results.
    let turns: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "user" && !is_results(m))
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    if turns.is_empty() || last["role"] != "user" || is_results(last) {
        return Reply::Answer(CLOSING.into());
    }
    // The entry whose turns begin so (held-out turns say something else).
    let entry = entries
        .iter()
        .find(|e| {
            e.question
                .turns
                .iter()
                .zip(&turns)
                .all(|(turn, asked)| turn.is_empty() || turn[0].content == *asked)
        })
        .expect("the entry is known");
    let truth = &entry.ground_truth[turns.len() - 1];
    if truth.is_empty() {
        return Reply::Answer(CLOSING.into());
    }
    let calls: Vec<(String, Vec<(String, itc::benchmarks::python::PyValue)>)> = truth
        .iter()
        .map(|c| named_call(c, &entry.question.involved_classes).expect("a plain call"))
        .collect();
    if native {
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                let args: serde_json::Map<String, Value> =
                    args.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": name, "arguments": Value::Object(args).to_string()}})
            })
            .collect();
        let mut body = completion("");
        body["choices"][0]["message"] =
            json!({"role": "assistant", "content": null, "tool_calls": tool_calls});
        return Reply::Json(body);
    }
    let written: Vec<String> = calls
        .iter()
        .map(|(name, args)| {
            let args: Vec<String> = args
                .iter()
                .map(|(k, v)| format!("{k}={}", PyStr(py_repr(v))))
                .collect();
            format!("{name}({})", args.join(", "))
        })
        .collect();
    Reply::Answer(format!("[{}]", written.join(", ")))
}

/// Runs the scripted model on all four categories in `mode`; returns the
/// official counts per category and the run directory's parent.
fn run_all(mode: &str, dir: &Path) -> HashMap<String, (u64, u64)> {
    let mut counts = HashMap::new();
    for category in Category::MULTI_TURN {
        let known = Arc::new(entries(category));
        let script = Arc::clone(&known);
        let server = ScriptedServer::start(move |r| {
            if r.body.get("max_tokens") == Some(&json!(1)) || r.body.get("messages").is_none() {
                return Reply::Answer("ok".into());
            }
            answer(&script, &r.body)
        });
        let run = dir.join(format!("{mode}-{category}"));
        let out = itc(
            &[
                "eval",
                "--dataset",
                &format!("bfcl:{category}"),
                "--backend",
                "openai",
                "--base-url",
                &server.base_url(),
                "--model-id",
                "scripted",
                "--mode",
                mode,
                "--concurrency",
                "4",
                "--run-dir",
                run.to_str().unwrap(),
            ],
            &[],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let official: Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("official.json")).unwrap())
                .unwrap();
        // The leaderboard: the category's own column shown, with its
        // accuracy; Multi Turn Acc N/A, naming the three not run.
        let columns = official["results"][0]["leaderboard"].as_array().unwrap();
        let column = |name: &str| columns.iter().find(|c| c["name"] == name).unwrap();
        let words: Vec<String> = category
            .as_str()
            .split('_')
            .map(|w| w[..1].to_uppercase() + &w[1..])
            .collect();
        let own = column(&words.join(" "));
        assert_eq!((&own["shown"], &own["value"]), (&json!(true), &json!(1.0)));
        let others: Vec<&str> = Category::MULTI_TURN
            .iter()
            .filter(|c| **c != category)
            .map(|c| c.as_str())
            .collect();
        let all = column("Multi Turn Acc");
        assert_eq!(
            (&all["shown"], &all["missing"]),
            (&json!(false), &json!(others))
        );
        assert_eq!(all["value"], 0.25, "{all}");
        for c in official["results"][0]["categories"].as_array().unwrap() {
            counts.insert(
                c["category"].as_str().unwrap().to_string(),
                (
                    c["correct_count"].as_u64().unwrap(),
                    c["total_count"].as_u64().unwrap(),
                ),
            );
        }
    }
    counts
}

#[test]
fn the_ground_truth_scores_100_percent_in_prompt_mode() {
    let dir = tempfile::tempdir().unwrap();
    let counts = run_all("prompt", dir.path());
    for category in Category::MULTI_TURN {
        assert_eq!(counts[category.as_str()], (200, 200), "{category}");
    }
}

#[test]
fn the_ground_truth_scores_100_percent_in_function_calling_mode() {
    let dir = tempfile::tempdir().unwrap();
    let counts = run_all("native", dir.path());
    for category in Category::MULTI_TURN {
        assert_eq!(counts[category.as_str()], (200, 200), "{category}");
    }
}

#[test]
fn what_the_loop_cannot_do_is_refused_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let base = [
        "eval",
        "--dataset",
        "bfcl:multi_turn_base",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    // Step-by-step runs do not apply to the loop (batch files do: above).
    let mut args = base.to_vec();
    args.extend([
        "--backend",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model-id",
        "m",
        "--steps",
        "replay",
    ]);
    let out = itc(&args, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--steps does not apply"),
        "{}",
        text(&out.stderr)
    );
    assert!(!run.join("predictions.jsonl").exists());
    // Nor to the official single-turn requests, which itc's own styles leave.
    for category in ["bfcl:simple_python", "bfcl:simple_python,multi_turn_base"] {
        let mut single = args.clone();
        single[2] = category;
        let out = itc(&single, &[]);
        assert!(
            text(&out.stderr).contains("--prompt-style itc or bfcl-itc sends ITC's requests"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// `itc eval` of `category` (2 entries, prompt mode) on the model
/// `scripted` at `base_url` into `run`, with `extra` flags.
fn eval_two(category: &str, base_url: &str, run: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "eval",
        "--dataset",
        category,
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model-id",
        "scripted",
        "--mode",
        "prompt",
        "--limit",
        "2",
        "--no-progress",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    args.extend(extra);
    itc(&args, &[])
}

/// Each prediction's `official` answer, by task.
fn official_answers(run: &Path) -> HashMap<String, Value> {
    std::fs::read_to_string(run.join("predictions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|p| {
            (
                p["task_id"].as_str().unwrap().to_string(),
                p["official"].clone(),
            )
        })
        .collect()
}

#[test]
fn official_requests_go_through_batch_files_one_request_per_round() {
    let known = Arc::new(entries(Category::MultiTurnBase));
    for category in ["bfcl:simple_python", "bfcl:multi_turn_base"] {
        let script = Arc::clone(&known);
        let reply = move |body: &Value| -> Reply {
            match category {
                // Any answer will do: the batch run must get the same.
                "bfcl:simple_python" => {
                    Reply::Answer("[calculate_triangle_area(base=10, height=5)]".into())
                }
                _ => answer(&script, body),
            }
        };
        let reply = Arc::new(reply);
        let server = {
            let reply = Arc::clone(&reply);
            ScriptedServer::start(move |r| {
                if r.body.get("max_tokens") == Some(&json!(1)) || r.body.get("messages").is_none() {
                    return Reply::Answer("ok".into());
                }
                reply(&r.body)
            })
        };
        let dir = tempfile::tempdir().unwrap();
        let direct = dir.path().join("direct");
        let out = eval_two(category, &server.base_url(), &direct, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let sent = server.log().len();

        let run = dir.path().join("batch-run");
        let cache = dir.path().join("batch-cache");
        let cache = cache.to_str().unwrap();
        let base_url = server.base_url();
        let rounds = support::batch::run_rounds(
            dir.path(),
            &run,
            |batch| {
                eval_two(
                    category,
                    &base_url,
                    &run,
                    &["--cache", cache, "--emit-batch", batch.to_str().unwrap()],
                )
            },
            |results, first| {
                let mut args = vec!["--cache", cache, "--import-batch"];
                args.extend(results.iter().map(|r| r.to_str().unwrap()));
                if !first {
                    args.push("--resume");
                }
                eval_two(category, &base_url, &run, &args)
            },
            |_, body| reply(body).success_body().unwrap(),
        );
        assert_eq!(server.log().len(), sent, "{category}: no request sent");
        let requests: usize = rounds.iter().map(|r| r.requests.len()).sum();
        let asked: usize = official_answers(&direct).len();
        if category == "bfcl:simple_python" {
            assert_eq!((rounds.len(), requests), (1, 2), "one request per entry");
        } else {
            assert!(rounds.len() > 2 && requests > 2 * asked, "{rounds:?}");
            assert!(
                rounds.iter().all(|r| r.requests.len() <= 2),
                "one request per entry and round"
            );
        }
        assert_eq!(
            official_answers(&run),
            official_answers(&direct),
            "{category}"
        );
        let counts = |run: &Path| -> Value {
            let official: Value =
                serde_json::from_str(&std::fs::read_to_string(run.join("official.json")).unwrap())
                    .unwrap();
            official["results"][0]["categories"].clone()
        };
        assert_eq!(counts(&run), counts(&direct), "{category}");
    }
}
