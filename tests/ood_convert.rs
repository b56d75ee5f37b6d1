//! `itc ood convert` turns each OOD benchmark into SPEC §0 tasks that load as
//! `itc::spec::records::Task` and that `itc score` accepts.

use std::path::{Path, PathBuf};
use std::process::Command;

use itc::spec::records::{Task, TaskKind, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Runs `itc ood convert`, loads the tasks, and runs `itc score` on them
/// with a trivial predictions file (an empty answer for the first task).
fn convert(source: &str, args: &[&str]) -> Vec<Task> {
    let dir = tempfile::tempdir().unwrap();
    let tasks_file = dir.path().join("tasks.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .current_dir(root())
        .args(["ood", "convert", source])
        .args(args)
        .arg("-o")
        .arg(&tasks_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (tasks, skipped) = itc::spec::jsonl::read_records::<Task>(&tasks_file, false).unwrap();
    assert!(skipped.is_empty());
    assert!(!tasks.is_empty());
    for t in &tasks {
        assert_eq!(
            (t.language.as_str(), t.country.as_str()),
            ("en", "GLOBAL"),
            "{}",
            t.id
        );
        for c in &t.gold.calls {
            assert!(
                t.tools.iter().any(|tool| tool.name == c.name),
                "{}: gold {} not among the tools",
                t.id,
                c.name
            );
        }
    }
    let predictions = dir.path().join("predictions.jsonl");
    let line = serde_json::json!({
        "task_id": tasks[0].id, "model": "trivial",
        "output": "{\"Thought\": \"none\", \"Action\": \"[]\"}"
    });
    std::fs::write(&predictions, format!("{line}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["score", "--format", "json", "--bootstrap", "0", "--tasks"])
        .arg(&tasks_file)
        .arg("--predictions")
        .arg(&predictions)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["model"], "trivial");
    assert_eq!(report["n"].as_u64(), Some(tasks.len() as u64));

    // `itc eval` runs them too (the offline baseline, a few tasks).
    let run_dir = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args([
            "eval",
            "--limit",
            "3",
            "--bootstrap",
            "0",
            "--no-progress",
            "--tasks",
        ])
        .arg(&tasks_file)
        .arg("--run-dir")
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answered = std::fs::read_to_string(run_dir.join("predictions.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(answered, tasks.len().min(3));
    tasks
}

#[test]
fn seal_tools_with_references() {
    let tasks = convert(
        "seal-tools",
        &["--input", "datasets/ood/seal-tools/test_in_domain.json"],
    );
    assert_eq!(tasks.len(), 700);
    let easy = &tasks[1];
    assert_eq!(easy.id, "test_in_domain-easy-1");
    assert_eq!(easy.kind, TaskKind::Single);
    assert!(easy.query.starts_with("Tell me the net income"));
    assert_eq!(easy.tools.len(), 5, "the five retrieved tools");
    assert_eq!(
        easy.gold.calls[0].arguments[0],
        ("revenue".into(), Value::Float(0.2907590418481535))
    );
    // `API_call_N` placeholders become references to the earlier call's output field.
    let nested: Vec<&Task> = tasks
        .iter()
        .filter(|t| t.kind == TaskKind::Nested)
        .collect();
    assert!(nested.len() >= 25, "{}", nested.len());
    let refs: Vec<_> = nested
        .iter()
        .flat_map(|t| t.gold.calls.iter().flat_map(|c| c.arguments.iter()))
        .filter_map(|(_, v)| match v {
            Value::Ref(r) => Some(r),
            _ => None,
        })
        .collect();
    assert!(!refs.is_empty() && refs.iter().all(|r| !r.field.is_empty()));
    assert!(tasks.iter().all(|t| !t.category.is_empty()));
}

#[test]
fn apibench_candidates_are_deterministic() {
    let args = [
        "--input",
        "datasets/ood/gorilla/apibench/torchhub_eval.json",
        "--hub",
        "torchhub",
        "--api-db",
        "datasets/ood/gorilla/api/torchhub_api.jsonl",
        "--candidates",
        "4",
    ];
    let a = convert("apibench", &args);
    let b = convert("apibench", &args);
    assert_eq!(a, b);
    assert_eq!(a.len(), 186);
    let t = &a[0];
    assert_eq!(t.id, "apibench-torchhub-1");
    assert_eq!(t.tools.len(), 5);
    assert_eq!(t.category, "Video Classification");
    let call = &t.gold.calls[0];
    assert_eq!(
        call.arguments[0],
        (
            "repo_or_dir".into(),
            Value::Str("facebookresearch/pytorchvideo".into())
        )
    );
}

#[test]
fn nexusraven_fixtures() {
    let f = "tests/fixtures/ood/nexusraven";
    let tasks = convert(
        "nexusraven",
        &[
            "--input",
            &format!("{f}/option_turns.json"),
            &format!("{f}/stub_context.json"),
            &format!("{f}/raw_queries.json"),
            &format!("{f}/raw_functions.py"),
        ],
    );
    assert_eq!(tasks.len(), 6);
    let two = tasks
        .iter()
        .find(|t| t.id == "nexusraven-option_turns-1-turns_1")
        .unwrap();
    assert_eq!(two.kind, TaskKind::Parallel);
    let search = two
        .tools
        .iter()
        .find(|t| t.name == "searchCatImages")
        .unwrap();
    let required: Vec<&str> = search
        .required_parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(required, ["color", "size"]);
    assert_eq!(search.optional_parameters[0].kind, "integer");
    let tile = tasks
        .iter()
        .find(|t| t.id == "nexusraven-stub_context-0")
        .unwrap();
    assert_eq!(tile.gold.calls[0].arguments[2], ("y".into(), Value::Int(2)));
    assert_eq!(
        tile.tools[0].optional_parameters[0].default,
        Some(serde_json::json!(3))
    );
    let raw = tasks
        .iter()
        .find(|t| t.id == "nexusraven-raw_queries-0")
        .unwrap();
    assert_eq!(
        raw.gold.calls[0].name, "searchProducts",
        "assignment and module prefix dropped"
    );
    assert_eq!(raw.tools.len(), 2);
}

#[test]
fn toolalpaca_fixture() {
    let tasks = convert(
        "toolalpaca",
        &["--input", "tests/fixtures/ood/toolalpaca/eval_sample.json"],
    );
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].category, "Animals");
    assert_eq!(tasks[1].kind, TaskKind::Parallel);
    let save = tasks[1]
        .tools
        .iter()
        .find(|t| t.name == "addFavourite")
        .unwrap();
    assert_eq!(
        (save.method.as_str(), save.url.as_str()),
        ("POST", "https://cats.example.org/favourites")
    );
    assert_eq!(save.required_parameters[0].name, "image_id");
    assert_eq!(
        tasks[1].gold.calls[0].arguments[1],
        ("page".into(), Value::Int(2))
    );
}

/// A value with its references written as the `$N.field` placeholders a
/// model answers with.
fn as_placeholders(value: &Value) -> Value {
    match value {
        Value::Ref(r) => Value::Str(r.placeholder()),
        Value::List(items) => Value::List(items.iter().map(as_placeholders).collect()),
        Value::Dict(entries) => Value::Dict(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), as_placeholders(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// How many `<…>` texts (placeholders that are no reference) a value holds.
fn kept_as_text(value: &Value) -> usize {
    match value {
        Value::Str(s) => usize::from(s.starts_with('<') && s.ends_with('>')),
        Value::List(items) | Value::Tuple(items) => items.iter().map(kept_as_text).sum(),
        Value::Dict(entries) => entries.iter().map(|(_, v)| kept_as_text(v)).sum(),
        _ => 0,
    }
}

fn has_reference(value: &Value) -> bool {
    match value {
        Value::Ref(_) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(has_reference),
        Value::Dict(entries) => entries.iter().any(|(_, v)| has_reference(v)),
        _ => false,
    }
}

/// The tasks of the shipped ToolAlpaca file whose golden answer takes a
/// value from an earlier step's output (`${field from action}`, `action`
/// an earlier step's `Action`), read from the file itself.
fn toolalpaca_tasks_with_references(file: &Path) -> usize {
    let apis: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let answers = apis
        .iter()
        .flat_map(|api| api["Golden_Answers"].as_array().unwrap());
    answers
        .filter(|answer| {
            let steps = answer.as_array().unwrap();
            steps.iter().enumerate().any(|(s, step)| {
                let input = step["Action_Input"].as_str().unwrap_or_default();
                input.split("${").skip(1).any(|rest| {
                    let body = &rest[..rest.find(['}', ',']).unwrap_or(rest.len())];
                    body.rsplit_once(" from ").is_some_and(|(_, action)| {
                        steps[..s].iter().any(|e| e["Action"] == action.trim())
                    })
                })
            })
        })
        .count()
}

/// The shipped ToolAlpaca set: every `${…}` is read (none is left in a gold
/// call, and no call loses its arguments to one), each task with a
/// reference is nested and only those, the references are SPEC references
/// (an answer writing them as `$N.field` scores full invocation F1), and
/// each placeholder that is no reference is named in a warning.
#[test]
fn toolalpaca_references_become_nested_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let tasks_file = dir.path().join("tasks.jsonl");
    let source = root().join("datasets/ood/toolalpaca/eval_simulated.json");
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["ood", "convert", "toolalpaca", "--input"])
        .arg(&source)
        .arg("-o")
        .arg(&tasks_file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("not JSON"), "{stderr}");
    let (tasks, _) = itc::spec::jsonl::read_records::<Task>(&tasks_file, false).unwrap();
    let calls = || tasks.iter().flat_map(|t| &t.gold.calls);
    for c in calls() {
        let json = serde_json::to_string(&c.arguments.iter().collect::<Vec<_>>()).unwrap();
        assert!(!json.contains("${"), "{}: {json}", c.name);
    }
    // Calls without arguments are only those the file gives none.
    let raw: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&source).unwrap()).unwrap();
    let no_input = raw
        .iter()
        .flat_map(|api| api["Golden_Answers"].as_array().unwrap())
        .flat_map(|answer| answer.as_array().unwrap())
        .filter(|step| {
            let input = step["Action_Input"].as_str().unwrap().trim();
            input.is_empty()
                || serde_json::from_str::<serde_json::Value>(input).ok()
                    == Some(serde_json::json!({}))
        })
        .count();
    assert_eq!(calls().filter(|c| c.arguments.is_empty()).count(), no_input);

    let with_reference: Vec<&Task> = tasks
        .iter()
        .filter(|t| {
            t.gold
                .calls
                .iter()
                .any(|c| c.arguments.iter().any(|(_, v)| has_reference(v)))
        })
        .collect();
    let nested = tasks.iter().filter(|t| t.kind == TaskKind::Nested).count();
    assert!(!with_reference.is_empty());
    assert_eq!(nested, with_reference.len());
    assert!(with_reference.iter().all(|t| t.kind == TaskKind::Nested));
    assert_eq!(nested, toolalpaca_tasks_with_references(&source));

    // Placeholders that name no earlier output: kept as `<…>` text, each with a warning.
    let kept: usize = calls()
        .flat_map(|c| &c.arguments)
        .map(|(_, v)| kept_as_text(v))
        .sum();
    let warned = stderr.matches("is not a reference").count();
    assert!(warned > 0);
    assert_eq!(kept, warned, "{stderr}");
    assert!(stderr.contains("eval_simulated.json: API "), "{stderr}");
    assert!(
        stderr.contains(": step 1 (managePermissions): field Action_Input: `${some permission}`")
    );

    // An answer writing each reference as `$N.field` scores full marks.
    let nested_file = dir.path().join("nested.jsonl");
    let predictions = dir.path().join("predictions.jsonl");
    let (mut task_lines, mut prediction_lines) = (String::new(), String::new());
    for t in &with_reference {
        task_lines += &format!("{}\n", serde_json::to_string(t).unwrap());
        let answer: Vec<itc::spec::records::Call> = t
            .gold
            .calls
            .iter()
            .map(|c| {
                let arguments = c
                    .arguments
                    .iter()
                    .map(|(k, v)| (k.clone(), as_placeholders(v)))
                    .collect();
                itc::spec::records::Call::new(c.name.clone(), arguments)
            })
            .collect();
        let output = serde_json::json!({"Thought": "look it up",
            "Action": itc::spec::action::print_actions(&answer)});
        let line =
            serde_json::json!({"task_id": t.id, "model": "refs", "output": output.to_string()});
        prediction_lines += &format!("{line}\n");
    }
    std::fs::write(&nested_file, task_lines).unwrap();
    std::fs::write(&predictions, prediction_lines).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(["score", "--format", "json", "--bootstrap", "0", "--tasks"])
        .arg(&nested_file)
        .arg("--predictions")
        .arg(&predictions)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["n"].as_u64(), Some(with_reference.len() as u64));
    assert_eq!(report["invocation"]["f1"].as_f64(), Some(100.0), "{report}");
}
