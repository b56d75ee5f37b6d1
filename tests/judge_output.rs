//! What `itc judge` shows while and after it judges: the progress bar on a
//! terminal (done/total, pace, requests) and its table, formatted as
//! `itc eval`'s tables are.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_json::Value;
use support::judged::{Setup, run_dir, task};
use support::server::{Reply, Request, completion};
use support::terminal::itc_on_terminal;

const TASKS: usize = 4;

/// Every answer Solved, each reply after a short wait (so that the bar is
/// drawn while tasks are still being judged).
fn slow_solved(_: &Request) -> Reply {
    let label = completion(r#"{"label": "Solved", "reason": "scripted"}"#);
    Reply::Delay(Duration::from_millis(150), Box::new(Reply::Json(label)))
}

/// A run of `TASKS` answered tasks.
fn answered_run(root: &Path) -> PathBuf {
    let ids: Vec<String> = (1..=TASKS).map(|i| format!("t{i}")).collect();
    let tasks: Vec<Value> = ids.iter().map(|id| task(id, "Weather in Paris?")).collect();
    let predictions: Vec<Value> = ids
        .iter()
        .map(|id| {
            serde_json::json!({"task_id": id, "model": "cand",
                "steps": [{"output": "It is 21 degrees."}]})
        })
        .collect();
    run_dir(root, "run", "cand", &tasks, &predictions)
}

#[test]
fn judge_draws_its_progress_on_a_terminal() {
    let s = Setup::start(slow_solved, &["judge-a"]);
    let run = answered_run(&s.root);
    let judge = |extra: &[&str]| {
        let mut args = vec![
            "judge",
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--samples",
            "1",
            "--judge",
            "judge-a",
            "--config",
            s.config.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        itc_on_terminal(&args)
    };
    let first = judge(&[]);
    assert!(first.status.success(), "{}", first.terminal);
    // The bar: tasks done of all, the pace, the requests in flight and sent.
    let bar = Regex::new(&format!(
        r"(\d)/{TASKS} (\S+)/s ETA (\S+) · requests \d+ in flight, (\d+) sent · tok"
    ))
    .unwrap();
    let drawn: Vec<(u64, String, u64)> = bar
        .captures_iter(&first.terminal)
        .map(|c| {
            (
                c[1].parse().unwrap(),
                c[3].to_string(),
                c[4].parse().unwrap(),
            )
        })
        .collect();
    assert!(!drawn.is_empty(), "no progress bar in {:?}", first.terminal);
    // Before any task is done there is no ETA; once one is, there is one.
    assert!(
        drawn.iter().any(|(done, eta, _)| *done > 0 && eta != "—"),
        "{drawn:?}"
    );
    assert!(
        drawn.iter().all(|(done, eta, _)| *done > 0 || eta == "—"),
        "{drawn:?}"
    );
    // One request per task; the count shown never exceeds what was sent.
    assert!(
        drawn.iter().all(|(_, _, sent)| *sent <= TASKS as u64),
        "{drawn:?}"
    );
    assert_eq!(s.server.requests(), TASKS);
    // The table is on stdout, never on the terminal.
    assert!(first.stdout.contains("cand"), "{}", first.stdout);
    assert!(!first.stdout.contains("ETA"), "{}", first.stdout);

    // Asked to, it draws nothing.
    std::fs::remove_dir_all(run.join("judged")).unwrap();
    let quiet = judge(&["--no-progress"]);
    assert!(quiet.status.success(), "{}", quiet.terminal);
    assert!(!quiet.terminal.contains("ETA"), "{}", quiet.terminal);
    assert!(
        quiet.terminal.contains("judge request(s) sent"),
        "{}",
        quiet.terminal
    );
}

/// SoPR's runs: Solved in run 1, Unsolved in the others.
fn solved_in_run_one(req: &Request) -> Reply {
    let user = req.body["messages"][1]["content"]
        .as_str()
        .unwrap_or_default();
    let label = if user.contains("Review 1.") {
        "Solved"
    } else {
        "Unsolved"
    };
    Reply::Json(completion(&format!(
        "{{\"label\": \"{label}\", \"reason\": \"scripted\"}}"
    )))
}

/// The cells of the table row of `model` and `judge` (the table fits in one part).
fn row<'a>(table: &'a str, model: &str, judge: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("│ {model} ")) && l.contains(&format!("│ {judge} ")))
        .unwrap_or_else(|| panic!("no row for {model} and {judge}: {table}"));
    let cells: Vec<&str> = line.split('│').map(str::trim).collect();
    cells[1..cells.len() - 1].to_vec()
}

#[test]
fn the_judge_table_reads_as_the_eval_tables_do() {
    let s = Setup::start(solved_in_run_one, &["judge-a", "judge-b"]);
    // judge-b has prices, judge-a none.
    let config = std::fs::read_to_string(&s.config).unwrap().replace(
        "model_id = \"judge-b\"\n",
        "model_id = \"judge-b\"\nprice_input_per_mtok = 2.0\nprice_output_per_mtok = 4.0\n",
    );
    std::fs::write(&s.config, config).unwrap();
    let tasks = vec![task("t1", "Weather in Paris?")];
    let predictions = vec![serde_json::json!({"task_id": "t1", "model": "cand",
        "steps": [{"output": "It is 21 degrees."}]})];
    let run = run_dir(&s.root, "run", "cand", &tasks, &predictions);
    let out = support::itc(
        &[
            "judge",
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "--judge",
            "judge-b",
            "--config",
            s.config.to_str().unwrap(),
        ],
        &[],
    );
    let table = support::text(&out.stdout);
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    // Headers as `itc eval`'s: capitalised, grouped, the cost in dollars.
    for header in [
        "│ Model ",
        "│ Judge ",
        "│ Tasks ",
        "│ Unreadable ",
        "│ Cost $ ",
    ] {
        assert!(table.contains(header), "{header}: {table}");
    }
    for group in ["SoPR", "Requests", "Tokens"] {
        assert!(table.contains(&format!(" {group} ")), "{group}: {table}");
    }
    // Runs 1, 0, 0: 33.3 ± 47.1 to one decimal (it printed 33.30 and 47.14);
    // three requests of 100 + 20 tokens; no price: `—`, as `itc eval` shows.
    let a = row(&table, "cand", "judge-a");
    assert_eq!(a[2..6], ["1", "33.3", "47.1", "3"], "{table}");
    assert_eq!(a[6..], ["0", "3", "300", "60", "—"], "{table}");
    // With prices: 300 × 2 + 60 × 4 per million tokens.
    let b = row(&table, "cand", "judge-b");
    assert_eq!(b[10], "0.0008", "{table}");
}
