//! The README and the chapters in `docs/` work from a clone: they send
//! readers to no file outside the repository, every repository path they
//! name exists, every relative Markdown link resolves to a file, and every
//! chapter can be reached by links from the README. And the shipped
//! model files for a local server (the pipeline's, `datasets/models/local.toml`)
//! point at the port `scripts/local-llm.sh` serves on.

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The documentation, as paths relative to the repository root: `README.md`
/// and every `docs/*.md`, sorted.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs
}

fn read(doc: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap()
}

/// The folder holding `doc` (a path relative to the root; "" for the root).
fn folder_of(doc: &str) -> &str {
    doc.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `path` read from folder `dir` (both relative to the root), as a path
/// relative to the root with `.` and `..` resolved; `None` when it climbs
/// out of the repository.
fn resolve(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || "/._-*<>".contains(c)
}

/// Paths with `../` in `text`, a document in folder `dir`, that lead out of
/// the repository (in the README at the root, any `../` does).
fn references_outside(dir: &str, text: &str) -> Vec<String> {
    let mut outside = Vec::new();
    for (i, _) in text.match_indices("../") {
        let start = text[..i]
            .char_indices()
            .rev()
            .find(|(_, c)| !is_path_char(*c))
            .map_or(0, |(j, c)| j + c.len_utf8());
        let end = i + text[i..]
            .find(|c| !is_path_char(c))
            .unwrap_or(text.len() - i);
        let path = &text[start..end];
        if resolve(dir, path).is_none() && !outside.iter().any(|p| p == path) {
            outside.push(path.to_string());
        }
    }
    outside
}

/// Paths the README names under the repository's own folders (words starting
/// with one of these prefixes, up to a character that cannot be in a path).
fn repository_paths(text: &str) -> Vec<String> {
    const PREFIXES: [&str; 9] = [
        "benches/",
        "datasets/",
        "docs/",
        "fuzz/",
        "prompts/",
        "scripts/",
        "src/",
        "tests/",
        "vendor/",
    ];
    let mut paths = Vec::new();
    for (i, _) in text.char_indices() {
        let rest = &text[i..];
        let at_word_start = i == 0 || {
            let before = text[..i].chars().next_back().unwrap();
            !(before.is_alphanumeric() || "/._-".contains(before))
        };
        if !at_word_start || !PREFIXES.iter().any(|p| rest.starts_with(p)) {
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || "/._-*<>".contains(c)))
            .unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['.', '/']);
        paths.push(path.to_string());
    }
    paths
}

/// Whether `pattern` (a path, `*` or a placeholder such as `<kind>` matching
/// within one name) names something in the repository.
fn exists(pattern: &str) -> bool {
    fn matches(dir: &Path, parts: &[&str]) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return true;
        };
        if !first.contains('*') {
            let next = dir.join(first);
            return next.exists() && matches(&next, rest);
        }
        let (prefix, suffix) = first.split_once('*').unwrap();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.starts_with(prefix) && name.ends_with(suffix) && matches(&e.path(), rest)
        })
    }
    let mut glob = String::new();
    let mut in_placeholder = false;
    for c in pattern.chars() {
        match c {
            '<' => {
                in_placeholder = true;
                glob.push('*');
            }
            '>' => in_placeholder = false,
            c if !in_placeholder => glob.push(c),
            _ => {}
        }
    }
    let parts: Vec<&str> = glob.split('/').collect();
    matches(Path::new(ROOT), &parts)
}

/// The targets of the relative Markdown links `[text](path)` and
/// `[text](path#anchor)` (and images `![text](path)`) in `text`, without
/// their anchors; web and mail links, pure `#anchor` links and fenced code
/// blocks are left out.
fn relative_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for (i, _) in line.match_indices("](") {
            let rest = &line[i + 2..];
            let Some(close) = rest.find(')') else {
                continue;
            };
            // `(path "title")`: the path is the first word
            let target = rest[..close].split_whitespace().next().unwrap_or("");
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|scheme| target.starts_with(scheme));
            let path = target.split('#').next().unwrap();
            if !external && !path.is_empty() {
                links.push(path.to_string());
            }
        }
    }
    links
}

/// The relative links of `text`, the document `doc`, that lead to nothing:
/// resolved from the document's folder, they leave the repository or name
/// no file or folder.
fn broken_links(doc: &str, text: &str) -> Vec<String> {
    relative_links(text)
        .into_iter()
        .filter(|link| {
            resolve(folder_of(doc), link).is_none_or(|path| !Path::new(ROOT).join(path).exists())
        })
        .collect()
}

/// The documents reachable from `start` by following relative links to
/// Markdown files, given each document's path and text.
fn reachable(start: &str, docs: &[(String, String)]) -> BTreeSet<String> {
    let mut seen = BTreeSet::from([start.to_string()]);
    let mut queue = vec![start.to_string()];
    while let Some(doc) = queue.pop() {
        let Some((_, text)) = docs.iter().find(|(d, _)| *d == doc) else {
            continue;
        };
        for link in relative_links(text) {
            let Some(target) = resolve(folder_of(&doc), &link) else {
                continue;
            };
            if target.ends_with(".md") && seen.insert(target.clone()) {
                queue.push(target);
            }
        }
    }
    seen
}

#[test]
fn the_readme_and_docs_need_nothing_outside_the_repository() {
    let docs = documents();
    assert!(docs.len() > 10, "found only {docs:?}");
    for doc in &docs {
        let outside = references_outside(folder_of(doc), &read(doc));
        assert!(
            outside.is_empty(),
            "{doc} points outside the repository: {outside:#?}"
        );
    }
}

#[test]
fn the_outside_check_rejects_paths_that_leave_the_repository() {
    let text = "see ../README.md, (../src/main.rs) and ../../etc/passwd or runs/../x";
    assert_eq!(references_outside("docs", text), ["../../etc/passwd"]);
    assert_eq!(
        references_outside("", text),
        ["../README.md", "../src/main.rs", "../../etc/passwd"]
    );
    assert_eq!(resolve("docs", "../src/./main.rs").unwrap(), "src/main.rs");
}

#[test]
fn every_repository_path_the_readme_and_docs_name_exists() {
    let mut total = 0;
    for doc in documents() {
        let paths = repository_paths(&read(&doc));
        if doc == "README.md" {
            assert!(
                paths.len() > 5,
                "found only {} paths: {paths:?}",
                paths.len()
            );
        }
        total += paths.len();
        let missing: Vec<&String> = paths.iter().filter(|p| !exists(p)).collect();
        assert!(
            missing.is_empty(),
            "{doc} names paths that do not exist: {missing:#?}"
        );
    }
    assert!(total > 100, "found only {total} paths in all documents");
}

#[test]
fn the_path_scanner_finds_paths_and_rejects_missing_ones() {
    let found = repository_paths("see `datasets/sample/tasks.jsonl`, and docs/SPEC.md. x/tests/no");
    assert_eq!(found, ["datasets/sample/tasks.jsonl", "docs/SPEC.md"]);
    assert!(exists("datasets/sample/predictions/*.jsonl"));
    assert!(exists("prompts/generate_<kind>.jinja"));
    assert!(!exists("datasets/sample/no-such-file.jsonl"));
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let mut total = 0;
    for doc in documents() {
        let text = read(&doc);
        total += relative_links(&text).len();
        let broken = broken_links(&doc, &text);
        assert!(
            broken.is_empty(),
            "{doc} links to files that do not exist: {broken:#?}"
        );
    }
    assert!(total > 50, "found only {total} relative links");
}

#[test]
fn the_link_checker_finds_links_and_rejects_missing_targets() {
    let text = "\
[SPEC](SPEC.md), [a section](scoring.md#metrics \"title\"), ![a picture](../reports/sample/report.png)
[web](https://example.org/x.md) [mail](mailto:a@b.c) [here](#metrics)
[gone](no-such-chapter.md#x) [up](../../outside.md) [code](../src/spec/action.rs)
```
[in a fence](not-a-link.md)
```
";
    assert_eq!(
        relative_links(text),
        [
            "SPEC.md",
            "scoring.md",
            "../reports/sample/report.png",
            "no-such-chapter.md",
            "../../outside.md",
            "../src/spec/action.rs",
        ]
    );
    assert_eq!(
        broken_links("docs/x.md", text),
        ["no-such-chapter.md", "../../outside.md"]
    );
    // the same links read from the root miss differently
    assert!(broken_links("README.md", text).contains(&"SPEC.md".to_string()));
}

#[test]
fn every_chapter_is_reachable_from_the_readme() {
    let docs: Vec<(String, String)> = documents()
        .into_iter()
        .map(|doc| {
            let text = read(&doc);
            (doc, text)
        })
        .collect();
    let seen = reachable("README.md", &docs);
    let unreachable: Vec<&String> = docs
        .iter()
        .map(|(doc, _)| doc)
        .filter(|doc| !seen.contains(*doc))
        .collect();
    assert!(
        unreachable.is_empty(),
        "chapters no link from README.md leads to: {unreachable:#?}"
    );
}

#[test]
fn the_reachability_check_finds_a_chapter_nothing_links_to() {
    let doc = |path: &str, text: &str| (path.to_string(), text.to_string());
    let docs = [
        doc("README.md", "[contents](docs/README.md)"),
        doc("docs/README.md", "[a](a.md) [back](../README.md)"),
        doc("docs/a.md", "[b](b.md#x) [contents](README.md)"),
        doc("docs/b.md", "nothing"),
        doc("docs/orphan.md", "[a](a.md)"),
    ];
    let seen = reachable("README.md", &docs);
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["README.md", "docs/README.md", "docs/a.md", "docs/b.md"]
    );
}

#[test]
fn the_shipped_local_models_point_at_the_local_server_port() {
    for file in [
        "datasets/pipeline/models.toml",
        "datasets/models/local.toml",
    ] {
        check_local_port(file);
    }
}

/// Every `base_url` of the model file `file` is the URL of the server
/// `scripts/local-llm.sh` starts.
fn check_local_port(file: &str) {
    let models = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/local-llm.sh")).unwrap();
    let port = script
        .lines()
        .find_map(|l| l.strip_prefix("DEFAULT_PORT="))
        .map(str::trim)
        .expect("scripts/local-llm.sh sets DEFAULT_PORT");
    assert!(script.contains("PORT=\"${ITC_LLM_PORT:-$DEFAULT_PORT}\""));
    let url = format!("http://127.0.0.1:{port}/v1");
    let urls: Vec<&str> = models
        .lines()
        .filter(|l| l.starts_with("base_url"))
        .collect();
    assert!(!urls.is_empty());
    for line in urls {
        assert!(line.contains(&url), "{file}: {line} is not {url}");
    }
}
