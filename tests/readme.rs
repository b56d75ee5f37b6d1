//! The README works from a clone: it sends readers to no file outside the
//! repository, every repository path it names exists, and the shipped
//! pipeline's model file points at the port `scripts/local-llm.sh` serves on.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn readme() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap()
}

/// Paths the README names under the repository's own folders (words starting
/// with one of these prefixes, up to a character that cannot be in a path).
fn repository_paths(text: &str) -> Vec<String> {
    const PREFIXES: [&str; 6] = [
        "datasets/",
        "docs/",
        "prompts/",
        "scripts/",
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

#[test]
fn the_readme_needs_nothing_outside_the_repository() {
    let text = readme();
    let outside: Vec<&str> = text.lines().filter(|l| l.contains("../")).collect();
    assert!(
        outside.is_empty(),
        "README lines pointing outside the repository: {outside:#?}"
    );
}

#[test]
fn every_repository_path_the_readme_names_exists() {
    let text = readme();
    let paths = repository_paths(&text);
    assert!(
        paths.len() > 20,
        "found only {} paths: {paths:?}",
        paths.len()
    );
    let missing: Vec<&String> = paths.iter().filter(|p| !exists(p)).collect();
    assert!(
        missing.is_empty(),
        "README names paths that do not exist: {missing:#?}"
    );
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
fn the_pipeline_models_point_at_the_local_server_port() {
    let models =
        std::fs::read_to_string(Path::new(ROOT).join("datasets/pipeline/models.toml")).unwrap();
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
        assert!(line.contains(&url), "{line} is not {url}");
    }
}
