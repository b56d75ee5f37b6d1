//! End-to-end tests of `itc judge` (SPEC §8): the real binary, scripted
//! judges on the loopback server, hand-written run directories (answers,
//! a give-up, an empty answer, a missing prediction, a run cut at its depth
//! limit), and the exact figures the rules give.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use itc::judge::flows::coin;
use serde_json::{Value, json};
use support::judged::{Setup, judgments, ok, run_dir, task};
use support::server::{Reply, Request, completion};
use support::{itc, text, under_ci};

/// A plain step-by-step run: one call with its output, then the answer.
fn answered(id: &str, model: &str, answer: &str) -> Value {
    json!({"task_id": id, "model": model, "steps": [
        {"output": "I look it up.", "calls": [{"name": "weather", "arguments": {"city": "Paris"}}],
         "tool_outputs": [{"temperature": 21}]},
        {"output": answer}
    ]})
}

/// A chain solver's run that gave up with the finish protocol.
fn gave_up(id: &str, model: &str) -> Value {
    json!({"task_id": id, "model": model,
        "steps": [{"calls": [{"name": "Finish", "arguments": {"return_type": "give_up_and_restart", "final_answer": ""}}]}],
        "solver": {"kind": "chain", "tries": 1, "max_depth": 12, "max_requests": 200, "finish": true,
                   "requests": 1, "path": [0], "ending": "gave_up"}})
}

/// A run whose last step still makes a call: cut at its depth limit.
fn cut(id: &str, model: &str) -> Value {
    json!({"task_id": id, "model": model, "steps": [
        {"output": "", "calls": [{"name": "weather", "arguments": {"city": "Paris"}}], "tool_outputs": [{}]}]})
}

fn message(req: &Request, i: usize) -> String {
    req.body["messages"][i]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The sample number of a request (`Review N.`).
fn sample_of(user: &str) -> u32 {
    let start = user.rfind("Review ").map_or(0, |i| i + "Review ".len());
    user[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}

fn label(l: &str) -> Reply {
    Reply::Json(completion(&format!(
        "{{\"label\": \"{l}\", \"reason\": \"scripted\"}}"
    )))
}

/// The scripted judges: `judge-a` and `judge-b` (told apart by model id).
fn script(req: &Request) -> Reply {
    let (system, user) = (message(req, 0), message(req, 1));
    let b = req.body["model"] == "judge-b";
    let task = req.task.clone().unwrap_or_default();
    let sample = sample_of(&user);
    if system.starts_with("You check whether") {
        let full = user.contains("step by step");
        let answer = user.split("final answer:").nth(1).unwrap_or_default();
        let l = if answer.contains("ANS-BAD") {
            return Reply::Answer("I cannot say.".into());
        } else if answer.contains("ANS-NOT-AFTER") && sample > 1 {
            // Negated or of the wrong type: unreadable, asked again, unreadable.
            return Reply::Json(completion(if sample == 2 {
                "The task is not Solved."
            } else {
                r#"{"label": 1, "reason": "Solved"}"#
            }));
        } else if answer.contains("ANS-SOLVED") || answer.contains("ANS-NOT-AFTER") {
            "Solved"
        } else if answer.contains("ANS-UNSOLVEDX") {
            "Unsolved"
        } else if answer.contains("ANS-UNSURE") {
            if full { "Solved" } else { "Unsure" }
        } else if answer.contains("ANS-SPLIT") {
            match (b, sample) {
                (true, _) => "Unsolved",
                (false, 1) => "Solved",
                (false, 2) => "Unsolved",
                _ => "Unsure",
            }
        } else if answer.contains("ANS-HALF") {
            if sample <= 2 { "Solved" } else { "Unsolved" }
        } else {
            "Unsure"
        };
        return label(l);
    }
    if system.starts_with("You decide whether") {
        let solvable = ["t3", "t6", "t7", "w1"].contains(&task.as_str());
        return label(if solvable { "Solvable" } else { "Unsolvable" });
    }
    if system.starts_with("Two AI assistants") {
        let a = user.split("Answer B:").next().unwrap_or_default();
        return label(if task == "w2" && !a.contains("PREFERRED") {
            "B"
        } else {
            "A"
        });
    }
    if system.starts_with("You grade how") {
        let results = match task.as_str() {
            "a1" => "Process Correctness: Yes\nFinal Response Correctness: Yes",
            "a2" => "Process Correctness: Yes\nFinal Response Correctness: No",
            "a3" => "Process Correctness: No\nFinal Response Correctness: Uncertain",
            _ => "Process Correctness: Maybe\nFinal Response Correctness: Yes",
        };
        return Reply::Json(completion(&format!("Looks fine.\n## Results\n{results}")));
    }
    Reply::Status(500, None)
}

fn setup() -> Setup {
    Setup::start(script, &["judge-a", "judge-b"])
}

fn judge(s: &Setup, args: &[&str]) -> Output {
    let mut all = vec![
        "judge",
        "--config",
        s.config.to_str().unwrap(),
        "--format",
        "json",
    ];
    all.extend_from_slice(args);
    itc(&all, &[])
}

/// `itc judge` with the scripted judges' configuration, printing its table.
fn judge_table(s: &Setup, args: &[&str]) -> Output {
    let mut all = vec!["judge", "--config", s.config.to_str().unwrap()];
    all.extend_from_slice(args);
    itc(&all, &[])
}

/// The pass-rate run of the fixture: nine tasks, one of each case.
fn pass_run(root: &Path) -> PathBuf {
    let ids = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"];
    let tasks: Vec<Value> = ids.iter().map(|id| task(id, "Weather in Paris?")).collect();
    let m = "cand";
    let predictions = vec![
        answered("t1", m, "It is 21 degrees. ANS-SOLVED"),
        answered("t2", m, "Probably warm. ANS-UNSURE"),
        gave_up("t3", m),
        answered("t4", m, ""),
        // t5: no prediction.
        answered("t6", m, "ANS-HALF"),
        answered("t7", m, "ANS-COIN"),
        answered("t8", m, "ANS-BAD"),
        cut("t9", m),
    ];
    run_dir(root, "run", m, &tasks, &predictions)
}

/// Passing samples of t7 (every sample Unsure on a Solvable task: a coin each).
fn coin_passes(seed: u64) -> usize {
    (1..=4).filter(|&k| coin(seed, "pass", "t7", k)).count()
}

#[test]
fn pass_rate_gives_exact_figures_with_ties_unsure_coins_and_unreadable_labels() {
    let s = setup();
    let run = pass_run(&s.root);
    let judged = ok(&judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
        ],
    ));
    // t1 solved, t2 Unsure then Solved on the whole run, t4 empty on an
    // unsolvable task, t6 two passes two fails (a tie passes), t8
    // unreadable (Unsure) on an unsolvable task; t3 gave up on a solvable
    // task, t5 has no prediction, t9 was cut; t7 by its coins.
    let t7 = usize::from(coin_passes(0) >= 2);
    let figures = &judged["models"][0];
    assert_eq!(figures["model"], "cand");
    assert_eq!(figures["judge_model"], "judge-a");
    assert_eq!(figures["pass_rate"]["passed"], 5 + t7);
    assert_eq!(figures["pass_rate"]["tasks"], 9);
    // The official ToolEval leaves t5 (no prediction) out of the denominator.
    assert_eq!(figures["pass_rate"]["without_prediction"], 1);
    let official = figures["pass_rate"]["official_pass_rate"].as_f64().unwrap();
    assert!(
        (official - 100.0 * (5 + t7) as f64 / 8.0).abs() < 1e-9,
        "{official}"
    );
    assert_eq!(
        figures["unreadable"], 4,
        "t8: one unreadable label per sample"
    );
    // 4 + 8 + 4 + 4 + 0 + 6 + 12 + 20 requests (t8: 4 asks, then its task status).
    assert_eq!(s.server.requests(), 58);
    let folder = run.join("judged/pass-rate");
    let lines = judgments(&folder);
    assert_eq!(lines.len(), 58);
    assert!(
        lines
            .iter()
            .any(|l| l["task_id"] == "t2" && l["stage"] == "answer_status_full_run")
    );
    for k in 1..=4u32 {
        let line = lines
            .iter()
            .find(|l| l["task_id"] == "t7" && l["stage"] == "task_status" && l["sample"] == k)
            .unwrap();
        assert_eq!(
            line["coin"],
            coin(0, "pass", "t7", k),
            "the stored flip is the seeded one"
        );
    }
    assert!(
        lines
            .iter()
            .filter(|l| l["stage"] == "task_status" && l["task_id"] != "t7")
            .all(|l| l["coin"].is_null())
    );
    let asks: Vec<u64> = lines
        .iter()
        .filter(|l| l["task_id"] == "t8" && l["stage"] == "answer_status" && l["sample"] == 1)
        .map(|l| l["ask"].as_u64().unwrap())
        .collect();
    assert_eq!(asks.len(), 4, "asked once and again three times");
    assert!(
        lines
            .iter()
            .all(|l| l["prompt_sha256"].as_str().unwrap().len() == 64)
    );
    assert!(folder.join("judged.json").is_file() && folder.join("settings.json").is_file());
    assert!(
        (0..64)
            .any(|seed| (1..=4).any(|k| coin(seed, "pass", "t7", k) != coin(0, "pass", "t7", k)))
    );

    // Cache: the same judging into another folder sends nothing.
    let again = s.root.join("run/judged/again");
    let before = s.server.requests();
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
            "-o",
            again.to_str().unwrap(),
        ],
    );
    assert_eq!(ok(&out)["models"][0]["pass_rate"], figures["pass_rate"]);
    assert_eq!(
        s.server.requests(),
        before,
        "every request came from the cache"
    );

    // --compat official: the table's pass rate leaves t5 out and says so.
    let out = judge_table(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
            "--compat",
            "official",
            "-o",
            s.root.join("run/judged/official").to_str().unwrap(),
        ],
    );
    let table = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(table.contains(&format!("{}/8", 5 + t7)), "{table}");
    assert!(
        table.contains("1 task(s) without a prediction left out"),
        "{table}"
    );
    assert_eq!(s.server.requests(), before);

    // Another seed: its own folder, the flips of that seed.
    let seeded = s.root.join("run/judged/seed7");
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
            "--seed",
            "7",
            "-o",
            seeded.to_str().unwrap(),
        ],
    );
    assert_eq!(
        ok(&out)["models"][0]["pass_rate"]["passed"],
        5 + usize::from(coin_passes(7) >= 2)
    );
    assert_eq!(s.server.requests(), before);
    let seven: Vec<bool> = (1..=4).map(|k| coin(7, "pass", "t7", k)).collect();
    for l in judgments(&seeded)
        .iter()
        .filter(|l| l["task_id"] == "t7" && l["stage"] == "task_status")
    {
        let k = l["sample"].as_u64().unwrap() as usize;
        assert_eq!(l["coin"], seven[k - 1], "the flip of seed 7");
    }

    // The same folder: refused without --resume; another judge refused, naming the setting.
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
        ],
    );
    assert!(
        !out.status.success() && text(&out.stderr).contains("--resume"),
        "{}",
        text(&out.stderr)
    );
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-b",
            "--resume",
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("field `judges`"),
        "{}",
        text(&out.stderr)
    );
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "pass-rate",
            "--judge",
            "judge-a",
            "--samples",
            "2",
            "--resume",
        ],
    );
    assert!(
        text(&out.stderr).contains("field `samples`"),
        "{}",
        text(&out.stderr)
    );
}

/// A single-shot run has no final answer to judge: refused, naming what to
/// run instead, before any request or folder. (Until 2026-11-29 it was
/// judged as 243 tasks of SoPR 0 ± 0.)
#[test]
fn a_run_that_was_not_step_by_step_is_refused() {
    let s = setup();
    let run = pass_run(&s.root);
    let args = [
        run.to_str().unwrap(),
        "--metric",
        "sopr",
        "--judge",
        "judge-a",
    ];
    for steps in [Some(json!({"mode": "single", "max_steps": 16})), None] {
        match &steps {
            Some(v) => std::fs::write(run.join("steps.json"), v.to_string()).unwrap(),
            // Runs made before steps.json existed were single-shot.
            None => std::fs::remove_file(run.join("steps.json")).unwrap(),
        }
        let out = judge(&s, &args);
        assert_eq!(out.status.code(), Some(1), "{steps:?}");
        let message = text(&out.stderr);
        for named in ["single-shot run", "--steps replay", "--solver dfsdt"] {
            assert!(message.contains(named), "{named}: {message}");
        }
        assert!(!run.join("judged").exists());
    }
    assert_eq!(s.server.requests(), 0);
}

/// Two judges that set no concurrency, on a server of one slot: they take
/// turns at it, one request at a time, as `itc eval`'s models do.
#[test]
fn judges_on_a_one_slot_server_take_turns_at_it() {
    let mut s = Setup::start(
        |r| Reply::Delay(std::time::Duration::from_millis(60), Box::new(script(r))),
        &["judge-a", "judge-b"],
    );
    s.server = s.server.with_props(json!({"total_slots": 1}));
    let run = pass_run(&s.root);
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "--judge",
            "judge-b",
        ],
    );
    ok(&out);
    assert!(s.server.requests() > 8, "{}", s.server.requests());
    assert_eq!(s.server.max_in_flight(), 1, "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("has 1 slot (requests it works on at once); concurrency 1 (models judge-a, judge-b), from the slots: the models that set none take turns"),
        "{}",
        text(&out.stderr)
    );
}

/// A task file whose id repeats: the first task of the id is kept, as
/// `itc score` keeps it, with a warning, so both count the same tasks.
#[test]
fn repeated_task_ids_are_judged_once_as_itc_score_counts_them() {
    let s = setup();
    let tasks: Vec<Value> = ["t1", "t2", "t1", "t3", "t4", "t1"]
        .iter()
        .map(|id| task(id, "Weather in Paris?"))
        .collect();
    let m = "cand";
    let predictions: Vec<Value> = ["t1", "t2", "t3", "t4"]
        .iter()
        .map(|id| answered(id, m, "ANS-SOLVED"))
        .collect();
    let run = run_dir(&s.root, "dup", m, &tasks, &predictions);
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "--runs",
            "1",
        ],
    );
    let judged = ok(&out);
    assert_eq!(judged["models"][0]["tasks"], 4);
    assert_eq!(judgments(&run.join("judged/sopr")).len(), 4);
    let warning = text(&out.stderr);
    assert!(
        warning.contains("2 task(s) of") && warning.contains("\"t1\", \"t1\""),
        "{warning}"
    );

    let tasks_path = run.join("tasks.jsonl");
    let predictions_path = run.join("predictions.jsonl");
    let scored = itc(
        &[
            "score",
            "--tasks",
            tasks_path.to_str().unwrap(),
            "--predictions",
            predictions_path.to_str().unwrap(),
            "--format",
            "json",
        ],
        &[],
    );
    assert!(scored.status.success(), "{}", text(&scored.stderr));
    let line: Value = serde_json::from_str(text(&scored.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(line["n"], 4, "{line}");
    assert!(text(&scored.stderr).contains("2 task(s) of the task file repeat"));
}

#[test]
fn a_resumed_session_asks_only_what_is_missing_after_a_torn_line() {
    let s = setup();
    let run = pass_run(&s.root);
    let args = [
        run.to_str().unwrap(),
        "--metric",
        "pass-rate",
        "--judge",
        "judge-a",
        "--no-cache",
    ];
    let first = ok(&judge(&s, &args));
    assert_eq!(s.server.requests(), 58);
    let path = run.join("judged/pass-rate/judgments.jsonl");
    let text_now = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text_now.lines().collect();
    // Keep 40 whole lines and half of the 41st (a kill mid-write).
    let mut cut = lines[..40].join("\n") + "\n";
    cut.push_str(&lines[40][..lines[40].len() / 2]);
    std::fs::write(&path, cut).unwrap();
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let out = judge(&s, &resumed);
    let second = ok(&out);
    assert!(
        text(&out.stderr).contains("torn byte(s) cut"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        s.server.requests(),
        58 + 18,
        "only the 18 missing requests were asked"
    );
    assert_eq!(
        second["models"][0]["pass_rate"],
        first["models"][0]["pass_rate"]
    );
    assert_eq!(judgments(&run.join("judged/pass-rate")).len(), 58);
}

#[test]
fn sopr_with_two_judges_gives_the_std_over_runs_and_kappa() {
    let s = setup();
    let mut tasks: Vec<Value> = ["s1", "s2", "s3", "s4"]
        .iter()
        .map(|id| task(id, "Weather?"))
        .collect();
    // A task marked unsolvable is left out of SoPR.
    let mut unsolvable = task("s5", "Weather?");
    unsolvable["solvable"] = json!(false);
    tasks.push(unsolvable);
    let predictions = vec![
        answered("s5", "cand", "ANS-SOLVED"),
        answered("s1", "cand", "ANS-SOLVED"),
        answered("s2", "cand", "ANS-SPLIT"),
        answered("s3", "cand", ""),
    ];
    let run = run_dir(&s.root, "sopr", "cand", &tasks, &predictions);
    let judged = ok(&judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "--judge",
            "judge-b",
        ],
    ));
    // judge-a: runs score 2/4, 1/4, 1.5/4 (s2: Solved, Unsolved, Unsure after the whole run).
    let a = &judged["models"][0];
    assert_eq!(a["judge"], "judge-a");
    assert_eq!(a["sopr"]["sopr"], 37.5);
    assert_eq!(a["sopr"]["sopr_std"], 10.2);
    assert_eq!(a["sopr"]["runs"], 3);
    assert_eq!(a["tasks"], 4);
    let b = &judged["models"][1];
    assert_eq!(
        (b["sopr"]["sopr"].as_f64(), b["sopr"]["sopr_std"].as_f64()),
        (Some(25.0), Some(0.0))
    );
    // Pairs: s1 (Solved, Solved) ×3; s2 (Solved, Unsolved), (Unsolved,
    // Unsolved), (Unsure, Unsolved): observed 4/6, chance 15/36, κ = 3/7.
    assert_eq!(judged["kappa_pairs"], 6);
    assert!(
        (judged["kappa"].as_f64().unwrap() - 3.0 / 7.0).abs() < 1e-9,
        "{}",
        judged["kappa"]
    );
    // 3 (s1) + 4 (s2, one Unsure) for judge-a, 3 + 3 for judge-b.
    assert_eq!(s.server.requests(), 13);
}

#[test]
fn sopr_counts_unreadable_runs_as_zero_and_never_drops_a_run() {
    // Run 1 says Solved; runs 2 and 3 reply "The task is not Solved." and
    // `{"label": 1, "reason": "Solved"}`, unreadable after every re-ask.
    let s = setup();
    let tasks = vec![task("u1", "Weather?")];
    let predictions = vec![answered("u1", "cand", "ANS-NOT-AFTER")];
    let run = run_dir(&s.root, "sopr-unreadable", "cand", &tasks, &predictions);
    let out = judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
        ],
    );
    let judged = ok(&out);
    let f = &judged["models"][0];
    // Run scores 1, 0, 0: 33.3 ± 47.1 over 3 runs (not 100.0 ± 0.0 over 1).
    assert_eq!(
        (
            &f["sopr"]["sopr"],
            &f["sopr"]["sopr_std"],
            &f["sopr"]["runs"]
        ),
        (&json!(33.3), &json!(47.1), &json!(3))
    );
    assert_eq!(f["unreadable"], 2);
    let lines = judgments(&run.join("judged/sopr"));
    let unread = lines.iter().filter(|l| l["label"].is_null()).count();
    assert_eq!(unread, 2 * 4, "two runs, each asked 4 times: {lines:?}");
    // The table shows the unreadable labels beside the figure.
    let table = judge_table(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "-o",
            s.root.join("again").to_str().unwrap(),
        ],
    );
    let text = text(&table.stdout);
    let row = text.lines().find(|l| l.contains("cand")).unwrap();
    let cells: Vec<&str> = row.split('│').map(str::trim).collect();
    // SoPR, ± std, runs, unreadable.
    assert!(
        cells.windows(4).any(|w| w == ["33.3", "47.1", "3", "2"]),
        "{text}"
    );
}

#[test]
fn win_rate_shuffles_statuses_with_answers() {
    let s = setup();
    let ids = ["w1", "w2", "w3", "w4"];
    let tasks: Vec<Value> = ids.iter().map(|id| task(id, "Weather?")).collect();
    let candidate = run_dir(
        &s.root,
        "cand",
        "cand",
        &tasks,
        &[
            answered("w1", "cand", "ANS-SOLVED"),
            answered("w2", "cand", "ANS-SOLVED plain"),
            answered("w3", "cand", "ANS-MAYBE"),
            gave_up("w4", "cand"),
        ],
    );
    let reference = run_dir(
        &s.root,
        "ref",
        "ref-model",
        &tasks,
        &[
            answered("w1", "ref-model", "ANS-UNSOLVEDX"),
            answered("w2", "ref-model", "ANS-SOLVED PREFERRED"),
            answered("w3", "ref-model", "ANS-UNSOLVEDX"),
            gave_up("w4", "ref-model"),
        ],
    );
    let judged = ok(&judge(
        &s,
        &[
            candidate.to_str().unwrap(),
            "--metric",
            "win-rate",
            "--reference",
            reference.to_str().unwrap(),
            "--judge",
            "judge-a",
        ],
    ));
    // w1: only the candidate passes; w2: both Solved, the judge prefers the
    // reference wherever the order puts it; w3: both pass on an unsolvable
    // task, only the candidate is Unsure; w4: both gave up, the judge says
    // "A", so the answer the seeded order puts first gets the vote.
    let w4_candidate = (1..=3).filter(|&k| !coin(0, "order", "w4", k)).count();
    let w4_win = w4_candidate >= 2;
    let w = &judged["models"][0]["win_rate"];
    assert_eq!(w["wins"], 2 + usize::from(w4_win));
    assert_eq!(w["ties"], 0);
    assert_eq!(w["queries"], 4);
    let folder = candidate.join("judged/win-rate");
    let lines = judgments(&folder);
    for k in 1..=3u32 {
        let compare = lines
            .iter()
            .find(|l| l["task_id"] == "w4" && l["stage"] == "compare" && l["sample"] == k)
            .unwrap();
        assert_eq!(compare["coin"], coin(0, "order", "w4", k));
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l["task_id"] == "w3" && l["stage"] == "compare")
            .count(),
        0
    );
    assert!(lines.iter().any(|l| l["side"] == "reference"));
}

#[test]
fn toolalpaca_reads_the_results_section_and_counts_errors() {
    let s = setup();
    let ids = ["a1", "a2", "a3", "a4", "a5"];
    let tasks: Vec<Value> = ids.iter().map(|id| task(id, "Weather?")).collect();
    let mut predictions: Vec<Value> = ["a1", "a2", "a3", "a5"]
        .iter()
        .map(|id| answered(id, "cand", "It is warm."))
        .collect();
    predictions.push(json!({"task_id": "a4", "model": "cand", "steps": []}));
    let run = run_dir(&s.root, "ta", "cand", &tasks, &predictions);
    let judged = ok(&judge(
        &s,
        &[
            run.to_str().unwrap(),
            "--metric",
            "toolalpaca",
            "--judge",
            "judge-a",
        ],
    ));
    let t = &judged["models"][0]["toolalpaca"];
    assert_eq!(t["statistics"]["num"], 5);
    assert_eq!(t["statistics"]["error_num"], 1);
    assert_eq!(
        t["statistics"]["process"],
        json!({"Yes": 2, "No": 1, "Uncertain": 0})
    );
    assert_eq!(
        t["statistics"]["response"],
        json!({"Yes": 2, "No": 1, "Uncertain": 1})
    );
    assert_eq!(t["statistics"]["both"], 1);
    assert_eq!(
        (
            t["procedure"].as_f64(),
            t["response"].as_f64(),
            t["overall"].as_f64()
        ),
        (Some(40.0), Some(40.0), Some(20.0))
    );
    assert_eq!(t["unreadable"], 1);
    // a1-a3 once; a5 asked again three times.
    assert_eq!(s.server.requests(), 3 + 4);
}

#[test]
fn the_table_names_the_judge_and_the_settings() {
    let s = setup();
    let run = pass_run(&s.root);
    let out = itc(
        &[
            "judge",
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--judge",
            "judge-a",
            "--config",
            s.config.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("SoPR") && stdout.contains("judge-a (judge-a)"),
        "{stdout}"
    );
    assert!(stdout.contains("runs 3, rounds 3, seed 0"), "{stdout}");
}

/// The local model's base URL (`scripts/local-llm.sh start`), or `None`
/// (after saying so) when the test skips; under CI a missing URL fails.
fn local_model_url(test: &str) -> Option<String> {
    const URL_VAR: &str = "ITC_LOCAL_LLM_URL";
    match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_string()),
        _ if under_ci() => panic!("{URL_VAR} is not set under CI: start scripts/local-llm.sh"),
        _ => {
            eprintln!("SKIPPED {test}: {URL_VAR} is not set");
            None
        }
    }
}

/// The real local model as the judge of a 2-task run: plumbing only
/// (judged.json written, every label in the set or counted unreadable).
#[test]
fn local_model_judges_sopr() {
    let Some(url) = local_model_url("local_model_judges_sopr") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        task("r1", "What is the weather in Paris?"),
        task("r2", "What is the weather in Oslo?"),
    ];
    let predictions = [
        answered("r1", "cand", "It is 21 degrees and sunny in Paris."),
        answered("r2", "cand", "I could not find it."),
    ];
    let run = run_dir(dir.path(), "run", "cand", &tasks, &predictions);
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!("[[models]]\nname = \"local\"\nbackend = \"openai\"\nbase_url = \"{url}\"\nmodel_id = \"smollm2\"\ntemperature = 0.0\nmax_tokens = 96\ntimeout_ms = 600000\n"),
    )
    .unwrap();
    let out = itc(
        &[
            "judge",
            run.to_str().unwrap(),
            "--metric",
            "sopr",
            "--runs",
            "1",
            "--judge",
            "local",
            "--config",
            config.to_str().unwrap(),
            "--format",
            "json",
        ],
        &[],
    );
    let judged = ok(&out);
    assert!(run.join("judged/sopr/judged.json").is_file());
    let figures = &judged["models"][0];
    assert_eq!(figures["tasks"], 2);
    let lines = judgments(&run.join("judged/sopr"));
    assert!(!lines.is_empty());
    for line in &lines {
        let label = &line["label"];
        assert!(
            label.is_null() || ["Solved", "Unsolved", "Unsure"].contains(&label.as_str().unwrap()),
            "{line}"
        );
    }
    let sopr = figures["sopr"]["sopr"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&sopr));
}

/// The results a batch engine would give for a batch input file: each
/// request answered by the scripted judges.
fn batch_results(input: &Path, output: &Path) {
    let mut lines = String::new();
    for line in std::fs::read_to_string(input).unwrap().lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let body = line["body"].clone();
        let request = Request {
            task: support::server::task_marker(&body.to_string()),
            attempt: 1,
            count: 1,
            path: "/v1/chat/completions".into(),
            headers: Default::default(),
            body,
        };
        let Reply::Json(reply) = script(&request) else {
            panic!("the script answers JSON")
        };
        lines.push_str(
            &json!({"id": "b", "custom_id": line["custom_id"],
                    "response": {"status_code": 200, "body": reply}, "error": null})
            .to_string(),
        );
        lines.push('\n');
    }
    std::fs::write(output, lines).unwrap();
}

#[test]
fn batch_files_carry_the_requests_stage_by_stage() {
    let s = setup();
    let tasks: Vec<Value> = ["b1", "b2"].iter().map(|id| task(id, "Weather?")).collect();
    let predictions = [
        answered("b1", "cand", "ANS-SOLVED"),
        answered("b2", "cand", "ANS-UNSURE"),
    ];
    let run = run_dir(&s.root, "batch", "cand", &tasks, &predictions);
    let run = run.to_str().unwrap();
    let emit = |dir: &str| {
        let dir = s.root.join(dir);
        let out = judge(
            &s,
            &[
                run,
                "--metric",
                "sopr",
                "--runs",
                "1",
                "--judge",
                "judge-a",
                "--emit-batch",
                dir.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let file = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .unwrap();
        let requests = std::fs::read_to_string(&file).unwrap().lines().count();
        (file, requests)
    };
    // Stage 1: both answer statuses.
    let (input, n) = emit("batch1");
    assert_eq!(n, 2);
    let results1 = s.root.join("results1.jsonl");
    batch_results(&input, &results1);
    let out = judge(
        &s,
        &[
            run,
            "--metric",
            "sopr",
            "--runs",
            "1",
            "--judge",
            "judge-a",
            "--import-batch",
            results1.to_str().unwrap(),
        ],
    );
    assert!(
        !out.status.success(),
        "b2's whole-run request is still missing"
    );
    // Stage 2: b2 was Unsure: its whole run.
    let (input, n) = emit("batch2");
    assert_eq!(n, 1);
    let results2 = s.root.join("results2.jsonl");
    batch_results(&input, &results2);
    let judged = ok(&judge(
        &s,
        &[
            run,
            "--metric",
            "sopr",
            "--runs",
            "1",
            "--judge",
            "judge-a",
            "--import-batch",
            results2.to_str().unwrap(),
        ],
    ));
    assert_eq!(judged["models"][0]["sopr"]["sopr"], 100.0);
    assert_eq!(s.server.requests(), 0, "nothing was sent");
    assert_eq!(judgments(&Path::new(run).join("judged/sopr")).len(), 3);
}
