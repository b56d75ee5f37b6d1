//! Labels that agree (issue 49 item 9): FM shown as N/A, with its reason,
//! for answers not in ITC's text format (native mode, BFCL's own format);
//! the official table's Style column saying `native` for a native run; the
//! HTML report naming an answer with no call a *missed tool*, as the tables do.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use support::server::{Reply, ScriptedServer, completion};
use support::{itc, text};

/// The cells of `model`'s row in the first table whose header has `column`,
/// with that column's index.
fn cell(stdout: &str, column: &str, model: &str) -> String {
    let cells = |line: &str| -> Vec<String> {
        let cells: Vec<&str> = line.split('│').map(str::trim).collect();
        cells[1..cells.len() - 1]
            .iter()
            .map(|c| c.to_string())
            .collect()
    };
    let lines: Vec<&str> = stdout.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with('│') && cells(l).iter().any(|c| c == column))
        .unwrap_or_else(|| panic!("no table with {column}: {stdout}"));
    let index = cells(lines[header])
        .iter()
        .position(|c| c == column)
        .unwrap();
    let row = lines[header..]
        .iter()
        .take_while(|l| !l.starts_with('╰'))
        .find(|l| l.starts_with(&format!("│ {model} ")))
        .unwrap_or_else(|| panic!("no row {model} under {column}: {stdout}"));
    cells(row)[index].clone()
}

fn models_toml(dir: &Path, base_url: &str) -> String {
    let mut text = String::new();
    for (name, mode) in [("nat", "native"), ("pro", "prompt")] {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{name}\"\nmode = \"{mode}\"\ntemperature = 0.0\nmax_attempts = 2\nretry_base_ms = 2\n\n"
        ));
    }
    let path = dir.join("models.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn answers_not_in_itc_format_show_fm_as_na_their_style_and_missed_tools() {
    // Native requests: the first task (simple_python_0, "Find the area …")
    // answered with no call, the others with a call of the first tool;
    // BFCL-style prompts: text with no call.
    let native_requests = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&native_requests);
    let server = ScriptedServer::start(move |r| {
        let Some(tools) = r.body["tools"].as_array() else {
            return Reply::Json(completion("I cannot answer that."));
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let query = r.body["messages"].to_string();
        if query.contains("Find the area") {
            return Reply::Json(completion("I do not know."));
        }
        let name = tools[0]["function"]["name"].as_str().unwrap();
        Reply::Json(
            json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": name, "arguments": "{}"}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(dir.path(), &server.base_url());
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--dataset",
            "bfcl:simple_python",
            "--limit",
            "3",
            "--config",
            &config,
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(native_requests.load(Ordering::SeqCst) >= 3);
    // FM: N/A for both (it printed 0), with the reason under the table.
    assert_eq!(cell(&stdout, "FM", "nat"), "N/A", "{stdout}");
    assert_eq!(cell(&stdout, "FM", "pro"), "N/A", "{stdout}");
    assert!(
        stdout.contains("FM N/A: the answers came as calls"),
        "{stdout}"
    );
    // The official table's Style: how each model was asked.
    assert_eq!(cell(&stdout, "Style", "nat"), "native", "{stdout}");
    assert_eq!(cell(&stdout, "Style", "pro"), "bfcl", "{stdout}");

    // The HTML report: the answer with no call is a missed tool, as in the
    // tables' error analysis; FM N/A with its note.
    let report = dir.path().join("report");
    let out = itc(
        &[
            "report",
            run.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(
        !html.contains("wrong tool") && !html.contains("wrong_tool"),
        "{html}"
    );
    assert!(
        html.contains("<th>missed tool</th>"),
        "the error table's header"
    );
    let rows: Vec<&str> = html.split("<tr data-model=\"").skip(1).collect();
    let missed = rows
        .iter()
        .filter(|r| r.starts_with("nat\"") && r.contains("data-outcomes=\"missed_tool"))
        .count();
    assert_eq!(missed, 1, "one native answer had no call");
    assert!(
        rows.iter()
            .any(|r| r.contains("<span class=\"tag missed_tool\">missed tool</span>")),
        "the tag reads as the table header"
    );
    assert!(
        html.contains("FM N/A: the answers came as calls"),
        "the note"
    );
    assert!(html.contains("<td class=\"n\">N/A</td>"), "FM's cell");
}

#[test]
fn answers_in_itc_format_keep_their_fm() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = itc(
        &[
            "eval",
            "--limit",
            "5",
            "--run-dir",
            run.to_str().unwrap(),
            "--no-progress",
        ],
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let fm = cell(&stdout, "FM", "baseline");
    assert!(fm.parse::<f64>().is_ok(), "FM {fm}: {stdout}");
    assert!(!stdout.contains("FM N/A"), "{stdout}");
}
