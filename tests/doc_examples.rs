//! Every shell example in README.md and docs/*.md runs as written.
//!
//! The shell code blocks (```sh, ```bash, ```console) of each document are
//! read in order, and every command starting with `itc ` (or
//! `./target/release/itc `) is run with the built binary, in a scratch
//! workspace that mirrors the repository's inputs (`datasets/`, `prompts/`,
//! `tests/fixtures/`), so that repository paths resolve while every output
//! lands in the workspace. The `mkdir` and `cp` lines of a block run too
//! (they set up what the next commands read); other programs (`cargo`,
//! `scripts/…`, `python`) are not run. The commands of one document share
//! one workspace, so an example may read what an earlier one wrote.
//!
//! A command runs unless a comment marks it (docs/development.md):
//!
//! - `# needs: paid API`: skipped (OpenAI, Anthropic, Gemini keys);
//! - `# needs: network`: skipped (the public internet);
//! - `# long`: skipped (minutes of work, big benchmarks);
//! - `# needs: local model`: run against a model server: a scripted server,
//!   or, with `ITC_DOC_EXAMPLES_LOCAL_LLM=1`, the local model of
//!   `ITC_LOCAL_LLM_URL`. Loopback URLs (`http://127.0.0.1:PORT/v1`) in the
//!   command and in the workspace's `.toml` files are replaced by the
//!   server's URL. `cargo test` uses the scripted server; CI then runs the
//!   README's examples again against the real local model
//!   (`ITC_DOC_EXAMPLES_LOCAL_LLM=1 cargo test --test doc_examples
//!   examples_in_readme -- --nocapture`), where every `itc eval` must
//!   answer every task without a retry, and what each command printed is
//!   shown.
//!
//! A marker in a command's trailing comment marks that command; in a
//! comment line of its own it marks the commands below it up to the next
//! blank line. An unmarked command that contacts the model server fails.
//!
//! Each run must exit with status 0 and leave every file or folder it names
//! as an output (`-o`, `--out`, `--run-dir`, …), and those outputs must lie
//! in the scratch folders `work/` or `runs/`, never in the repository root.
//! A failure names the document, the line and the command.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use support::proxy::RecordingProxy;
use support::server::{Reply, ScriptedServer};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What the workspace mirrors from the repository (read-only inputs).
const INPUTS: [&str; 3] = ["datasets", "prompts", "tests/fixtures"];

/// The folders examples may write into (both are in `.gitignore`).
const SCRATCH: [&str; 2] = ["work/", "runs/"];

/// Flags whose value is a file or folder the command writes.
const OUTPUT_FLAGS: [&str; 13] = [
    "-o",
    "--out",
    "--run-dir",
    "--rejects",
    "--agreement",
    "--provenance",
    "--train",
    "--test",
    "--sharegpt",
    "--per-item",
    "--html",
    "--emit-batch",
    "--dir",
];

/// Why a command may not run in the test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    PaidApi,
    Network,
    Long,
    LocalModel,
}

impl Need {
    const ALL: [(Need, &'static str); 4] = [
        (Need::PaidApi, "needs: paid API"),
        (Need::Network, "needs: network"),
        (Need::Long, "long"),
        (Need::LocalModel, "needs: local model"),
    ];

    /// The marker a comment starts with (or holds after a `;`), followed by
    /// nothing, `:`, `,` or ` (`.
    fn in_comment(comment: &str) -> Vec<Need> {
        comment
            .split(';')
            .filter_map(|piece| {
                let piece = piece.trim();
                Need::ALL.iter().find_map(|(need, marker)| {
                    let rest = piece.strip_prefix(marker)?;
                    let ends = rest.is_empty() || rest.starts_with([':', ',']);
                    (ends || rest.starts_with(" (")).then_some(*need)
                })
            })
            .collect()
    }

    fn name(self) -> &'static str {
        Need::ALL.iter().find(|(n, _)| *n == self).unwrap().1
    }
}

/// One command of a shell block: its first line's number, its words (the
/// continuation lines joined, the comment removed) and its markers.
#[derive(Debug, Clone, PartialEq)]
struct Example {
    line: usize,
    text: String,
    words: Vec<String>,
    needs: Vec<Need>,
}

impl Example {
    /// The program the command runs, after any `NAME=value` assignments.
    fn program(&self) -> &str {
        self.words
            .iter()
            .find(|w| !is_assignment(w))
            .map_or("", String::as_str)
    }

    fn is_itc(&self) -> bool {
        matches!(self.program(), "itc" | "./target/release/itc")
    }

    fn is_setup(&self) -> bool {
        matches!(self.program(), "mkdir" | "cp")
    }

    /// The marker that keeps it from running, if any.
    fn skipped_by(&self) -> Option<Need> {
        self.needs
            .iter()
            .copied()
            .filter(|n| *n != Need::LocalModel)
            .min()
    }

    /// The run directory of an `itc eval` command (its `--run-dir`).
    fn eval_run_dir(&self) -> Option<&str> {
        let after_program = self.words.iter().skip_while(|w| is_assignment(w));
        if after_program.clone().nth(1).map(String::as_str) != Some("eval") {
            return None;
        }
        self.words
            .windows(2)
            .find(|w| w[0] == "--run-dir")
            .map(|w| w[1].as_str())
    }

    /// The values of the output flags.
    fn outputs(&self) -> Vec<&str> {
        self.words
            .windows(2)
            .filter(|w| OUTPUT_FLAGS.contains(&w[0].as_str()))
            .map(|w| w[1].as_str())
            .collect()
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// The commands of every shell block of a Markdown text, in order.
fn examples(markdown: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_block = false;
    let mut paragraph: Vec<Need> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in markdown.lines().enumerate() {
        let line = raw.trim_end();
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            in_block = !in_block && matches!(fence.trim(), "sh" | "bash" | "console");
            paragraph.clear();
            continue;
        }
        if !in_block {
            continue;
        }
        let line = line.strip_prefix("$ ").unwrap_or(line);
        let (mut start, mut text) = pending.take().unwrap_or((i + 1, String::new()));
        if text.is_empty() {
            start = i + 1;
            if line.trim().is_empty() {
                paragraph.clear();
                continue;
            }
            if let Some(comment) = line.trim_start().strip_prefix('#') {
                paragraph.extend(Need::in_comment(comment));
                continue;
            }
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                text.push_str(head.trim_end());
                text.push(' ');
                pending = Some((start, text));
            }
            None => {
                text.push_str(line.trim());
                let (words, comment) = split_words(&text);
                let mut needs = paragraph.clone();
                needs.extend(Need::in_comment(&comment));
                needs.sort();
                needs.dedup();
                let text = text.split(" #").next().unwrap().trim().to_string();
                found.push(Example {
                    line: start,
                    text,
                    words,
                    needs,
                });
            }
        }
    }
    found
}

/// A command's words (single and double quotes group, a `#` after
/// whitespace starts the comment) and its comment.
fn split_words(text: &str) -> (Vec<String>, String) {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#') if word.is_none() => {
                words.extend(word.take());
                return (words, text[i + 1..].to_string());
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    (words, String::new())
}

/// A model server for `needs: local model` commands that counts requests.
enum ModelServer {
    Scripted(ScriptedServer),
    Local(RecordingProxy),
}

impl ModelServer {
    /// A scripted server, or the local model of `ITC_LOCAL_LLM_URL` behind a
    /// recording proxy when `ITC_DOC_EXAMPLES_LOCAL_LLM=1` asks for it.
    fn start() -> ModelServer {
        let local = std::env::var("ITC_DOC_EXAMPLES_LOCAL_LLM").is_ok_and(|v| v == "1");
        match std::env::var("ITC_LOCAL_LLM_URL") {
            Ok(url) if local && !url.is_empty() => ModelServer::Local(RecordingProxy::start(&url)),
            _ => ModelServer::Scripted(ScriptedServer::start(|_| {
                Reply::Answer(r#"{"Thought": "scripted", "Action": "[]"}"#.into())
            })),
        }
    }

    fn base_url(&self) -> String {
        match self {
            ModelServer::Scripted(s) => s.base_url(),
            ModelServer::Local(p) => p.base_url(),
        }
    }

    fn requests(&self) -> usize {
        match self {
            ModelServer::Scripted(s) => s.requests(),
            ModelServer::Local(p) => p.bodies().len(),
        }
    }
}

/// `text` with every `http://127.0.0.1:PORT/v1` replaced by `url`.
fn with_server(text: &str, url: &str) -> String {
    const LOOPBACK: &str = "http://127.0.0.1:";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(LOOPBACK) {
        out.push_str(&rest[..at]);
        let after = &rest[at + LOOPBACK.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[digits..].strip_prefix("/v1") {
            Some(tail) if digits > 0 => {
                out.push_str(url);
                rest = tail;
            }
            _ => {
                out.push_str(LOOPBACK);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Mirrors `from` into `to`: folders are made, files linked, except `.toml`
/// files, which are copied with their loopback URLs pointing at `url`.
fn mirror(from: &Path, to: &Path, url: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            mirror(&source, &target, url);
        } else if source.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&source).unwrap();
            std::fs::write(&target, with_server(&text, url)).unwrap();
        } else {
            std::os::unix::fs::symlink(&source, &target).unwrap();
        }
    }
}

/// `word` with a `*` in its last component expanded against `dir` (sorted;
/// as is when nothing matches, as a shell does).
fn expand_glob(dir: &Path, word: &str) -> Vec<String> {
    let (folder, pattern) = word.rsplit_once('/').unwrap_or((".", word));
    let Some((head, tail)) = pattern.split_once('*') else {
        return vec![word.to_string()];
    };
    let mut names: Vec<String> = std::fs::read_dir(dir.join(folder))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(head) && n.ends_with(tail))
                .map(|n| format!("{folder}/{n}"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        names.push(word.to_string());
    }
    names
}

/// What running a document's examples came to.
#[derive(Debug, Default)]
struct Outcome {
    /// `itc` commands run, whatever their outcome.
    ran: usize,
    skipped: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

/// Runs the examples of `doc` (named in messages) in a fresh workspace.
fn run_examples(doc: &str, examples: &[Example]) -> Outcome {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    let server = ModelServer::start();
    for input in INPUTS {
        mirror(
            &Path::new(ROOT).join(input),
            &root.join(input),
            &server.base_url(),
        );
    }
    let mut outcome = Outcome::default();
    for example in examples.iter().filter(|e| e.is_itc() || e.is_setup()) {
        let place = format!("{doc}:{}: `{}`", example.line, example.text);
        if let Some(need) = example.skipped_by() {
            *outcome.skipped.entry(need.name()).or_default() += 1;
            continue;
        }
        outcome.ran += usize::from(example.is_itc());
        let before = server.requests();
        let started = std::time::Instant::now();
        // On the real model, what the command printed goes to the test's
        // output (`--nocapture` shows it): the figures the docs quote.
        let echo =
            example.needs.contains(&Need::LocalModel) && matches!(server, ModelServer::Local(_));
        let result = run_one(root, example, &server.base_url(), echo);
        println!("{place}: {:.1} s", started.elapsed().as_secs_f64());
        if let Err(why) = result {
            outcome.failures.push(format!("{place}: {why}"));
            continue;
        }
        let local = example.needs.contains(&Need::LocalModel);
        if local
            && matches!(server, ModelServer::Local(_))
            && let Some(run_dir) = example.eval_run_dir()
            && let Err(why) = every_task_answered_at_once(&root.join(run_dir))
        {
            outcome.failures.push(format!("{place}: {why}"));
        }
        if !local && server.requests() > before {
            outcome.failures.push(format!(
                "{place}: sent {} request(s) to the model server, but is not marked `# needs: local model`",
                server.requests() - before
            ));
        }
    }
    outcome
}

/// Runs one command in `root`; the error says why it failed.
fn run_one(root: &Path, example: &Example, url: &str, echo: bool) -> Result<(), String> {
    let local = example.needs.contains(&Need::LocalModel);
    let mut words = example.words.iter().map(|w| {
        let w = w.replace("~/", &format!("{}/home/", root.display()));
        if local { with_server(&w, url) } else { w }
    });
    if example.is_setup() {
        let status = Command::new("sh")
            .args(["-c", &example.text])
            .current_dir(root)
            .status()
            .map_err(|e| format!("could not start sh: {e}"))?;
        return status.success().then_some(()).ok_or(status.to_string());
    }
    let mut command = Command::new("true");
    let mut env = Vec::new();
    for word in words.by_ref() {
        if let Some((name, value)) = word.split_once('=').filter(|_| is_assignment(&word)) {
            env.push((name.to_string(), value.to_string()));
            continue;
        }
        command = match word.as_str() {
            "itc" | "./target/release/itc" => Command::new(env!("CARGO_BIN_EXE_itc")),
            other => Command::new(other),
        };
        break;
    }
    for word in words {
        command.args(expand_glob(root, &word));
    }
    let output = command
        .current_dir(root)
        .env("HOME", root.join("home"))
        .env("ITC_CACHE", root.join("home/.cache/itc"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .envs(env)
        .output()
        .map_err(|e| format!("could not start: {e}"))?;
    if echo {
        println!(
            "--- stdout (end) ---\n{}\n--- stderr (end) ---\n{}",
            tail(&String::from_utf8_lossy(&output.stdout), 6_000),
            tail(&String::from_utf8_lossy(&output.stderr), 3_000)
        );
    }
    if !output.status.success() {
        return Err(format!(
            "{}\n--- stderr ---\n{}\n--- stdout (end) ---\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr),
            tail(&String::from_utf8_lossy(&output.stdout), 2_000),
        ));
    }
    for path in example.outputs() {
        if !SCRATCH.iter().any(|s| path.starts_with(s)) {
            return Err(format!(
                "writes {path}, outside the scratch folders {SCRATCH:?}"
            ));
        }
        let path = with_shard(path, &example.words);
        if !root.join(&path).exists() {
            return Err(format!("exited 0 but did not write {path}"));
        }
    }
    Ok(())
}

/// For a run on the real local model: an error unless every model of the
/// run in `run_dir` answered every task without a retry (a timeout, say),
/// as `run.json` counts them.
fn every_task_answered_at_once(run_dir: &Path) -> Result<(), String> {
    let path = run_dir.join("run.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let run: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let models = run["models"].as_array().cloned().unwrap_or_default();
    if models.is_empty() {
        return Err(format!("{} names no model", path.display()));
    }
    for model in models {
        let figure = |key: &str| model[key].as_u64().unwrap_or(u64::MAX);
        let (tasks, answered, retries) = (figure("tasks"), figure("answered"), figure("retries"));
        if answered != tasks || retries != 0 {
            return Err(format!(
                "model {} answered {answered} of {tasks} tasks with {retries} retries on the local model: {}",
                model["model"], model["error_kinds"]
            ));
        }
    }
    Ok(())
}

/// An output path with `{shard}` (`itc eval --run-dir`) as the command
/// writes it: K of its `--shard K/N`.
fn with_shard(path: &str, words: &[String]) -> String {
    let shard = words
        .windows(2)
        .find(|pair| pair[0] == "--shard")
        .and_then(|pair| pair[1].split_once('/'));
    match shard {
        Some((k, _)) => path.replace("{shard}", k),
        None => path.to_string(),
    }
}

fn tail(text: &str, chars: usize) -> &str {
    let start = text.len().saturating_sub(chars);
    let start = (start..=text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap();
    &text[start..]
}

/// Runs the examples of a document of the repository and fails with every
/// failure found.
fn check_document(doc: &str) {
    let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
    let examples = examples(&text);
    let outcome = run_examples(doc, &examples);
    println!("{doc}: ran {}, skipped {:?}", outcome.ran, outcome.skipped);
    assert!(
        outcome.failures.is_empty(),
        "{} example(s) failed:\n\n{}",
        outcome.failures.len(),
        outcome.failures.join("\n\n")
    );
}

/// The documents with shell examples: `README.md` and `docs/*.md`.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .flatten()
        .map(|e| format!("docs/{}", e.file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".md"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs
}

fn all_examples() -> Vec<(String, Example)> {
    documents()
        .into_iter()
        .flat_map(|doc| {
            let text = std::fs::read_to_string(Path::new(ROOT).join(&doc)).unwrap();
            examples(&text).into_iter().map(move |e| (doc.clone(), e))
        })
        .collect()
}

/// The documents the tests below run, one test each.
const CHECKED: [&str; 13] = [
    "README.md",
    "docs/building-task-sets.md",
    "docs/install.md",
    "docs/judging.md",
    "docs/ood.md",
    "docs/performance.md",
    "docs/pypi.md",
    "docs/reports.md",
    "docs/running-models.md",
    "docs/scale-out.md",
    "docs/scoring.md",
    "docs/steps.md",
    "docs/tau.md",
];

#[test]
fn every_document_with_itc_examples_has_a_test() {
    let mut with_examples: Vec<String> = all_examples()
        .into_iter()
        .filter(|(_, e)| e.is_itc())
        .map(|(doc, _)| doc)
        .collect();
    with_examples.dedup();
    assert_eq!(with_examples, CHECKED);
}

#[test]
fn examples_in_readme() {
    check_document("README.md");
}

#[test]
fn examples_in_building_task_sets() {
    check_document("docs/building-task-sets.md");
}

#[test]
fn examples_in_ood() {
    check_document("docs/ood.md");
}

#[test]
fn examples_in_performance() {
    check_document("docs/performance.md");
}

#[test]
fn examples_in_reports() {
    check_document("docs/reports.md");
}

#[test]
fn examples_in_running_models() {
    check_document("docs/running-models.md");
}

#[test]
fn examples_in_scale_out() {
    check_document("docs/scale-out.md");
}

#[test]
fn examples_in_scoring() {
    check_document("docs/scoring.md");
}

#[test]
fn examples_in_install() {
    check_document("docs/install.md");
}

#[test]
fn examples_in_pypi() {
    check_document("docs/pypi.md");
}

#[test]
fn examples_in_judging() {
    check_document("docs/judging.md");
}

#[test]
fn examples_in_steps() {
    check_document("docs/steps.md");
}

#[test]
fn examples_in_tau() {
    check_document("docs/tau.md");
}

#[test]
fn no_runnable_example_holds_a_placeholder() {
    let placeholders: Vec<String> = all_examples()
        .into_iter()
        .filter(|(_, e)| e.is_itc())
        .filter(|(_, e)| {
            e.text.contains('…')
                || e.text.contains('$')
                || e.words
                    .iter()
                    .any(|w| w.starts_with('<') && w.ends_with('>'))
        })
        .map(|(doc, e)| format!("{doc}:{}: {}", e.line, e.text))
        .collect();
    assert!(placeholders.is_empty(), "placeholders: {placeholders:#?}");
}

#[test]
fn no_two_examples_write_the_same_file_for_different_things() {
    let mut writers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, example) in all_examples().into_iter().filter(|(_, e)| e.is_itc()) {
        if example.words.iter().any(|w| w == "--resume") {
            continue;
        }
        for path in example.outputs() {
            let commands = writers.entry(path.to_string()).or_default();
            if !commands.contains(&example.text) {
                commands.push(example.text.clone());
            }
        }
    }
    let shared: Vec<_> = writers.into_iter().filter(|(_, c)| c.len() > 1).collect();
    assert!(
        shared.is_empty(),
        "outputs written by different commands: {shared:#?}"
    );
}

#[test]
fn markers_reach_their_command_or_their_paragraph() {
    let doc = "\
text
```sh
# needs: local model (a server)
itc eval --limit 5 \\
    --run-dir work/a   # a comment, no marker
itc eval --run-dir work/b   # long: minutes
# a description
itc eval --run-dir work/c   # needs: paid API; needs: network

itc score --out work/d
```
```toml
itc = \"not a command\"
```
";
    let found = examples(doc);
    let summary: Vec<(usize, &str, Vec<Need>)> = found
        .iter()
        .map(|e| (e.line, e.text.as_str(), e.needs.clone()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                4,
                "itc eval --limit 5 --run-dir work/a",
                vec![Need::LocalModel]
            ),
            (
                6,
                "itc eval --run-dir work/b",
                vec![Need::Long, Need::LocalModel]
            ),
            (
                8,
                "itc eval --run-dir work/c",
                vec![Need::PaidApi, Need::Network, Need::LocalModel]
            ),
            (10, "itc score --out work/d", vec![]),
        ]
    );
    assert_eq!(found[0].outputs(), ["work/a"]);
    assert_eq!(found[2].skipped_by(), Some(Need::PaidApi));
    assert_eq!(found[0].skipped_by(), None);
    assert!(Need::in_comment(" longest first").is_empty());
}

#[test]
fn words_group_quotes_and_stop_at_a_comment() {
    let (words, comment) = split_words(r#"KEY=x itc a 'b c' "d#e" f#g # note"#);
    assert_eq!(words, ["KEY=x", "itc", "a", "b c", "d#e", "f#g"]);
    assert_eq!(comment, " note");
    assert_eq!(
        with_server(
            "--base-url http://127.0.0.1:8000/v1 http://127.0.0.1:x/v1",
            "U"
        ),
        "--base-url U http://127.0.0.1:x/v1"
    );
}

#[test]
fn a_failing_or_misplaced_example_is_reported_with_its_line_and_command() {
    let doc = "\
```sh
itc score --out work/ok
itc eval --no-such-flag
itc score --out scores
itc eval --config datasets/models/local.toml --models smol --limit 1 --run-dir work/m
```
";
    let outcome = run_examples("docs/x.md", &examples(doc));
    assert_eq!(outcome.ran, 4);
    let [flag, place, server] = &outcome.failures[..] else {
        panic!("three failures expected: {:#?}", outcome.failures);
    };
    assert!(
        flag.starts_with("docs/x.md:3: `itc eval --no-such-flag`: exit status"),
        "{flag}"
    );
    assert!(
        place.starts_with("docs/x.md:4: `itc score --out scores`: writes scores, outside"),
        "{place}"
    );
    assert!(
        server.starts_with("docs/x.md:5: ")
            && server.ends_with("but is not marked `# needs: local model`"),
        "{server}"
    );
}
