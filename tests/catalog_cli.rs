//! End-to-end tests of `itc catalog import|stats`, `itc sample` and
//! `itc confuse`: the real binary on the fixtures in tests/fixtures/catalog
//! (subsets of public data sets, see the README there) and on the sample
//! set's API pool.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn itc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args)
        .output()
        .expect("itc runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalog")
        .join(name)
        .display()
        .to_string()
}

fn sample_apis() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/sample/apis.json")
        .display()
        .to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(output: &Output) {
    assert!(
        output.status.success(),
        "itc failed\nstdout:\n{}\nstderr:\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn by_name<'a>(entries: &'a [Value], name: &str) -> &'a Value {
    entries
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// Imports `files` of `format` into `dir/<out>`; returns the records and stderr.
fn import(
    dir: &Path,
    out: &str,
    format: &str,
    files: &[&str],
    extra: &[&str],
) -> (Vec<Value>, String) {
    let path = dir.join(out);
    let mut args = vec!["catalog", "import", "--format", format];
    args.extend_from_slice(files);
    args.extend_from_slice(&["-o", path.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let output = itc(&args);
    ok(&output);
    (lines(&path), text(&output.stderr))
}

#[test]
fn imports_public_apis_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let (entries, err) = import(
        dir.path(),
        "c.jsonl",
        "public-apis",
        &[&fixture("public-apis-README.md")],
        &[],
    );
    assert_eq!(entries.len(), 88, "{err}");
    // The sponsor table has other columns and is not read.
    assert!(entries.iter().all(|e| e["name"] != "IPstack"));
    let axolotl = by_name(&entries, "Axolotl");
    assert_eq!(axolotl["category"], "Animals");
    assert_eq!(axolotl["url"], "https://theaxolotlapi.netlify.app/");
    assert_eq!(axolotl["country"], "GLOBAL");
    assert_eq!(axolotl["country_source"], "url");
    assert_eq!(axolotl["source"]["line"], 13);
    assert_eq!(by_name(&entries, "Cats")["auth"], "apiKey");
    let fishwatch = by_name(&entries, "FishWatch");
    assert_eq!(
        (&fishwatch["country"], &fishwatch["country_source"]),
        (&"US".into(), &"url".into())
    );
    let brazil = by_name(&entries, "Brazil");
    assert_eq!(brazil["country"], "BR");
    let cpf = by_name(&entries, "CPFHub");
    assert_eq!(
        (&cpf["country"], &cpf["country_source"]),
        (&"BR".into(), &"text".into())
    );
    let hko = by_name(&entries, "Hong Kong Obervatory");
    assert_eq!(
        (&hko["country"], &hko["category"]),
        (&"HK".into(), &"Weather".into())
    );
    // Two "Cat Facts" and two "Dog Facts" with different URLs are kept, with distinct ids.
    let ids: HashSet<&str> = entries.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), entries.len());
    assert!(ids.contains("public-apis:Cat Facts#2"));
    assert!(err.contains("removed 0 duplicate(s)"), "{err}");
    assert!(err.contains("2 name(s) are shared"), "{err}");
}

#[test]
fn imports_toolalpaca_list_and_evaluation_apis() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        fixture("toolalpaca-public_apis.json"),
        fixture("toolalpaca-eval_simulated.json"),
    ];
    let (entries, _) = import(
        dir.path(),
        "c.jsonl",
        "toolalpaca",
        &[&files[0], &files[1]],
        &[],
    );
    assert_eq!(entries.len(), 42 + 9);
    let bible = by_name(&entries, "HG Weather");
    assert_eq!(bible["country"], "BR");
    let op = by_name(&entries, "searchAxolotlImages");
    assert_eq!(op["category"], "Animals");
    assert_eq!(op["home_url"], "https://theaxolotlapi.netlify.app/");
    let params: Vec<&str> = op["optional_parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["color", "gender", "size", "page"]);
    assert_eq!(
        op["source"]["path"],
        r#"[0].Documentation.paths["/search"].get"#
    );
}

#[test]
fn imports_seal_tools_with_flag_country() {
    let dir = tempfile::tempdir().unwrap();
    let (entries, _) = import(
        dir.path(),
        "c.jsonl",
        "seal-tools",
        &[&fixture("seal-tools-tool.jsonl")],
        &["--country", "cn"],
    );
    assert_eq!(entries.len(), 41);
    let first = by_name(&entries, "analyzeEvidence");
    assert_eq!(first["category"], "Chemical Engineering");
    assert_eq!(
        (&first["country"], &first["country_source"]),
        (&"CN".into(), &"flag".into())
    );
    assert_eq!(first["required_parameters"][0]["name"], "evidence_type");
    assert_eq!(first["required_parameters"][0]["type"], "string");
    assert_eq!(first["source"]["line"], 1);
    // Global words beat the flag.
    let legal = by_name(&entries, "compareLegalSystems");
    assert_eq!(
        (&legal["country"], &legal["country_source"]),
        (&"GLOBAL".into(), &"text".into())
    );
    let (plain, _) = import(
        dir.path(),
        "d.jsonl",
        "seal-tools",
        &[&fixture("seal-tools-tool.jsonl")],
        &[],
    );
    assert_eq!(
        by_name(&plain, "analyzeEvidence")["country_source"],
        "default"
    );
}

#[test]
fn imports_toolbench_queries_removing_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let (entries, err) = import(
        dir.path(),
        "c.jsonl",
        "toolbench",
        &[&fixture("toolbench-G1_query.json")],
        &[],
    );
    assert_eq!(entries.len(), 12);
    assert!(err.contains("removed 6 duplicate(s)"), "{err}");
    assert!(err.contains(r#""SQUAKE/Checkhealth" at "#), "{err}");
    let squake = by_name(&entries, "SQUAKE/Checkhealth");
    assert_eq!(squake["category"], "Logistics");
    assert_eq!(squake["country_source"], "default");
    let argentina = entries
        .iter()
        .find(|e| {
            e["name"]
                .as_str()
                .unwrap()
                .starts_with("Transportistas de Argentina/")
        })
        .unwrap();
    assert_eq!(
        (&argentina["country"], &argentina["country_source"]),
        (&"AR".into(), &"text".into())
    );
}

#[test]
fn imports_openapi_operations() {
    let dir = tempfile::tempdir().unwrap();
    let (entries, _) = import(
        dir.path(),
        "c.jsonl",
        "openapi",
        &[&fixture("openapi-weather-jp.json")],
        &[],
    );
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "getPrefectureForecast",
            "listWarnings",
            "getStationObservation",
            "subscribeAlerts"
        ]
    );
    let forecast = &entries[0];
    assert_eq!(
        forecast["url"],
        "https://api.weather.example.jp/v2/forecast/{prefecture}"
    );
    assert_eq!(
        (&forecast["country"], &forecast["country_source"]),
        (&"JP".into(), &"url".into())
    );
    assert_eq!(forecast["category"], "Weather");
    assert_eq!(forecast["required_parameters"][0]["name"], "prefecture");
    assert_eq!(forecast["optional_parameters"][0]["default"], 3);
    assert_eq!(
        forecast["optional_parameters"][1]["description"],
        "Language of the texts (one of: ja, en)"
    );
    // The header parameter is not a call argument.
    assert!(!forecast.to_string().contains("X-Api-Key"));
    let subscribe = &entries[3];
    assert_eq!(subscribe["method"], "POST");
    assert_eq!(
        subscribe["required_parameters"].as_array().unwrap().len(),
        2
    );
    assert_eq!(subscribe["optional_parameters"][0]["name"], "level");
}

#[test]
fn imports_itc_tools_and_reimports_catalogs_across_formats() {
    let dir = tempfile::tempdir().unwrap();
    let (itc_tools, _) = import(
        dir.path(),
        "itc.jsonl",
        "itc",
        &[&fixture("itc-tools.jsonl")],
        &[],
    );
    assert_eq!(itc_tools.len(), 7);
    let cep = by_name(&itc_tools, "cep_lookup");
    assert_eq!(
        (&cep["country"], &cep["country_source"]),
        (&"BR".into(), &"field".into())
    );
    let met = by_name(&itc_tools, "metoffice_forecast");
    assert_eq!(
        (&met["country"], &met["country_source"]),
        (&"GB".into(), &"url".into())
    );
    assert_eq!(
        by_name(&itc_tools, "Google Translate")["category"],
        "Utilities"
    );
    assert_eq!(by_name(&itc_tools, "Juhe Calendar/day")["country"], "CN");

    // The same APIs from public-apis and ToolAlpaca's copy of it: merged, duplicates removed,
    // provenance and country decisions kept.
    let (public, _) = import(
        dir.path(),
        "p.jsonl",
        "public-apis",
        &[&fixture("public-apis-README.md")],
        &[],
    );
    let (alpaca, _) = import(
        dir.path(),
        "a.jsonl",
        "toolalpaca",
        &[&fixture("toolalpaca-public_apis.json")],
        &[],
    );
    let p = dir.path().join("p.jsonl");
    let a = dir.path().join("a.jsonl");
    let (merged, err) = import(
        dir.path(),
        "m.jsonl",
        "itc",
        &[p.to_str().unwrap(), a.to_str().unwrap()],
        &[],
    );
    let removed = public.len() + alpaca.len() - merged.len();
    assert!(removed >= 30, "{removed}: {err}");
    assert!(
        err.contains(&format!("removed {removed} duplicate(s)")),
        "{err}"
    );
    let axolotl = by_name(&merged, "Axolotl");
    assert_eq!(axolotl["source"]["format"], "public-apis");
    assert_eq!(axolotl["id"], "public-apis:Axolotl");
    assert_eq!(by_name(&merged, "CPFHub")["country_source"], "text");
}

#[test]
fn stats_show_tables_and_write_csv() {
    let dir = tempfile::tempdir().unwrap();
    import(
        dir.path(),
        "c.jsonl",
        "public-apis",
        &[&fixture("public-apis-README.md")],
        &[],
    );
    let out = dir.path().join("stats");
    let output = itc(&[
        "catalog",
        "stats",
        dir.path().join("c.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&output);
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("88 APIs, "), "{stdout}");
    for needle in [
        "APIs by country",
        "APIs by category",
        "│ GLOBAL  │ (all countries)",
        "│ Government │",
        "long tail:",
        "country decided by: url",
    ] {
        assert!(stdout.contains(needle), "{needle} in\n{stdout}");
    }
    let by_country = std::fs::read_to_string(out.join("by_country.csv")).unwrap();
    let mut rows = by_country.lines();
    assert_eq!(rows.next(), Some("country,name,apis,share"));
    let total: u64 = rows
        .map(|r| r.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 88);
    let by_category = std::fs::read_to_string(out.join("by_category.csv")).unwrap();
    assert!(
        by_category.starts_with("category,apis,share,countries\n"),
        "{by_category}"
    );
    assert!(by_category.contains("\nWeather,37,"), "{by_category}");
    let cross = std::fs::read_to_string(out.join("country_category.csv")).unwrap();
    assert!(cross.contains("\nHK,Weather,"), "{cross}");
    assert!(out.join("country_source.csv").exists());
}

/// Runs an import expected to fail; returns stderr.
fn failing_import(format: &str, file: &Path, out: &Path) -> String {
    let output = itc(&[
        "catalog",
        "import",
        "--format",
        format,
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(!out.exists(), "no catalog is written on error");
    text(&output.stderr)
}

#[test]
fn malformed_inputs_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");

    let seal = dir.path().join("tool.jsonl");
    std::fs::write(
        &seal,
        "{\"api_name\":\"a\",\"field\":\"X/Y\",\"parameters\":{},\"required\":[]}\n\
         {\"api_name\":\"b\",\"field\":\"X/Y\",\"parameters\":{\"p\":{\"type\":\"str\"}},\"required\":[\"q\"]}\n",
    )
    .unwrap();
    let err = failing_import("seal-tools", &seal, &out);
    assert!(
        err.contains(&format!(
            "{}:2: field `required[0]`: `q` is not among `parameters`",
            seal.display()
        )),
        "{err}"
    );

    let readme = dir.path().join("README.md");
    std::fs::write(
        &readme,
        "### Books\nAPI | Description | Auth | HTTPS | CORS\n|:---|:---|:---|:---|:---|\n\
         | [Gutendex](https://gutendex.com/) | Books | No | Yes | Yes |\n| Open Library | Books | No | Yes | No |\n",
    )
    .unwrap();
    let err = failing_import("public-apis", &readme, &out);
    assert!(
        err.contains(&format!(
            "{}:5: field `API`: expected a Markdown link",
            readme.display()
        )),
        "{err}"
    );
    assert!(err.contains("--skip-invalid"), "{err}");

    let alpaca = dir.path().join("public_apis.json");
    std::fs::write(
        &alpaca,
        r#"{"count":2,"entries":[{"API":"A","Description":"d","Link":"https://a.org","Category":"Books"},{"API":"B","Description":"d","Link":7,"Category":"Books"}]}"#,
    )
    .unwrap();
    let err = failing_import("toolalpaca", &alpaca, &out);
    assert!(
        err.contains("field `entries[1].Link`: expected a string, found a number"),
        "{err}"
    );

    let broken = dir.path().join("tools.json");
    std::fs::write(
        &broken,
        "[\n {\"name\": \"a\"},\n {\"name\": \"b\" \"country\": \"JP\"}\n]\n",
    )
    .unwrap();
    let err = failing_import("itc", &broken, &out);
    assert!(
        err.contains(&format!("{}:3: field `.`: invalid JSON", broken.display())),
        "{err}"
    );

    let bad_country = dir.path().join("c.jsonl");
    std::fs::write(&bad_country, "{\"name\":\"a\",\"country\":\"Atlantis\"}\n").unwrap();
    let err = failing_import("itc", &bad_country, &out);
    assert!(
        err.contains(":1: field `country`: \"Atlantis\" is not an ISO 3166-1"),
        "{err}"
    );

    // --skip-invalid keeps the good records and lists the bad ones.
    let output = itc(&[
        "catalog",
        "import",
        "--format",
        "public-apis",
        readme.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--skip-invalid",
    ]);
    ok(&output);
    assert!(text(&output.stderr).contains("skipped 1 invalid record(s)"));
    assert_eq!(lines(&out).len(), 1);

    let output = itc(&[
        "catalog",
        "import",
        "--format",
        "itc",
        &fixture("itc-tools.jsonl"),
        "-o",
        out.to_str().unwrap(),
        "--country",
        "Atlantis",
    ]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("--country \"Atlantis\""));
}

/// A catalog of the sample set's 162 APIs plus the public-apis fixture.
fn mixed_catalog(dir: &Path) -> PathBuf {
    import(
        dir,
        "p.jsonl",
        "public-apis",
        &[&fixture("public-apis-README.md")],
        &[],
    );
    let p = dir.join("p.jsonl");
    import(
        dir,
        "all.jsonl",
        "itc",
        &[&sample_apis(), p.to_str().unwrap()],
        &[],
    );
    dir.join("all.jsonl")
}

fn draw(catalog: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "sample",
        "--catalog",
        catalog.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = itc(&args);
    ok(&output);
    output
}

fn count_by(entries: &[Value], key: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for e in entries {
        *counts
            .entry(e[key].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    counts
}

#[test]
fn sample_is_seeded_biased_and_respects_quotas() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = mixed_catalog(dir.path());
    let out = dir.path().join("s.jsonl");
    let output = draw(
        &catalog,
        &out,
        &[
            "-n",
            "60",
            "--seed",
            "3",
            "--quota",
            "JP=5",
            "US=4",
            "--category-quota",
            "Weather=12",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("Country │ APIs in catalog │ Share before % │ Sampled │ Share after %"),
        "{stdout}"
    );
    assert!(stdout.contains("│ total"), "{stdout}");
    let sampled = lines(&out);
    assert_eq!(sampled.len(), 60);
    let countries = count_by(&sampled, "country");
    assert_eq!(countries["JP"], 5);
    assert_eq!(countries["US"], 4);
    assert_eq!(count_by(&sampled, "category")["Weather"], 12);
    let ids: HashSet<&str> = sampled.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 60, "without replacement");

    let again = dir.path().join("s2.jsonl");
    draw(
        &catalog,
        &again,
        &[
            "-n",
            "60",
            "--seed",
            "3",
            "--quota",
            "JP=5",
            "US=4",
            "--category-quota",
            "Weather=12",
        ],
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());

    // GLOBAL is the head of this catalog: its share falls as α falls.
    let global_at = |alpha: &str| {
        let path = dir.path().join(format!("a{alpha}.jsonl"));
        draw(&catalog, &path, &["-n", "80", "--alpha", alpha]);
        count_by(&lines(&path), "country")
            .get("GLOBAL")
            .copied()
            .unwrap_or(0)
    };
    let (a1, a05, a0) = (global_at("1"), global_at("0.5"), global_at("0"));
    assert!(a1 > a05 && a05 > a0, "{a1} {a05} {a0}");

    let output = itc(&[
        "sample",
        "--catalog",
        catalog.to_str().unwrap(),
        "-n",
        "10",
        "--quota",
        "JP=500",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("quota JP=500: the catalog has"));
}

fn confuse(catalog: &Path, sampled: &Path, out: &Path, difficulty: &str) -> Vec<Value> {
    let output = itc(&[
        "confuse",
        "--catalog",
        catalog.to_str().unwrap(),
        "--sampled",
        sampled.to_str().unwrap(),
        "--k",
        "3",
        "--difficulty",
        difficulty,
        "--seed",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    ok(&output);
    assert!(text(&output.stdout).contains("Mean similarity"));
    lines(out)
}

fn mean_distractor_similarity(sets: &[Value]) -> f64 {
    let sims: Vec<f64> = sets
        .iter()
        .flat_map(|s| s["candidates"].as_array().unwrap().iter())
        .filter(|c| c["role"] == "distractor")
        .map(|c| c["similarity"].as_f64().unwrap())
        .collect();
    sims.iter().sum::<f64>() / sims.len() as f64
}

#[test]
fn confuse_builds_shuffled_candidate_lists_with_unique_names() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = mixed_catalog(dir.path());
    let sampled = dir.path().join("s.jsonl");
    draw(&catalog, &sampled, &["-n", "40", "--seed", "2"]);
    let out = dir.path().join("c.jsonl");
    let sets = confuse(&catalog, &sampled, &out, "nearest");
    assert_eq!(sets.len(), 40);
    let mut gold_positions = HashSet::new();
    for set in &sets {
        let candidates = set["candidates"].as_array().unwrap();
        assert_eq!(candidates.len(), 4);
        let gold_index = set["gold_index"].as_u64().unwrap() as usize;
        gold_positions.insert(gold_index);
        let gold = &candidates[gold_index];
        assert_eq!(gold["role"], "gold");
        assert_eq!(gold["name"], set["api"]["name"]);
        assert_eq!(gold["id"], set["api"]["id"]);
        assert_eq!(candidates.iter().filter(|c| c["role"] == "gold").count(), 1);
        let names: HashSet<String> = candidates
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_lowercase())
            .collect();
        assert_eq!(names.len(), 4, "{set}");
        for c in candidates {
            if let Some(original) = c.get("renamed_from") {
                let name = c["name"].as_str().unwrap();
                assert!(
                    name.starts_with(original.as_str().unwrap()) && name != original,
                    "{c}"
                );
            }
        }
    }
    assert!(gold_positions.len() > 1, "the gold is shuffled");

    let again = dir.path().join("c2.jsonl");
    confuse(&catalog, &sampled, &again, "nearest");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());

    let random = confuse(&catalog, &sampled, &dir.path().join("r.jsonl"), "random");
    let category = confuse(&catalog, &sampled, &dir.path().join("g.jsonl"), "category");
    let (r, g, n) = (
        mean_distractor_similarity(&random),
        mean_distractor_similarity(&category),
        mean_distractor_similarity(&sets),
    );
    assert!(n > g && g > r, "random {r}, category {g}, nearest {n}");
    let same_category = category
        .iter()
        .flat_map(|s| {
            let cat = s["api"]["category"].clone();
            s["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |c| c["category"] == cat)
                .collect::<Vec<_>>()
        })
        .filter(|same| *same)
        .count();
    assert!(same_category >= 40 * 3, "{same_category}");
}

/// Runs itc with its standard output a pipe whose reader is already gone,
/// as `itc … | head` leaves it.
fn itc_into_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_itc"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("itc runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("itc ends")
}

#[test]
fn a_closed_stdout_loses_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = mixed_catalog(dir.path());
    let sampled = dir.path().join("s.jsonl");
    let args = [
        "sample",
        "--catalog",
        catalog.to_str().unwrap(),
        "-n",
        "4",
        "-o",
        sampled.to_str().unwrap(),
    ];
    let output = itc_into_closed_pipe(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(lines(&sampled).len(), 4);

    let stats = dir.path().join("stats");
    let output = itc_into_closed_pipe(&[
        "catalog",
        "stats",
        catalog.to_str().unwrap(),
        "--out",
        stats.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stats.join("by_country.csv").exists());
}

#[test]
fn deeply_nested_yaml_is_refused_with_its_line() {
    // 400 KB of nested flow mappings: the YAML parser alone took minutes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let spec = dir.path().join("deep.yaml");
    let depth = 100_000;
    let text = format!(
        "openapi: 3.0.0\ninfo: {{title: t, version: '1'}}\npaths:\n  /x:\n    get:\n      operationId: x\n      x-deep: {}1{}\n",
        "{a: ".repeat(depth),
        "}".repeat(depth)
    );
    std::fs::write(&spec, text).unwrap();
    let err = failing_import("openapi", &spec, &out);
    assert!(err.contains("deep.yaml:7:"), "{err}");
    assert!(err.contains("nested deeper than 128 levels"), "{err}");
}
