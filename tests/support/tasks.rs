//! Generated tasks for runs against the scripted server, and the answers a
//! scripted model gives them.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use itc::spec::records::{Prediction, Task};
use serde_json::json;

const CITIES: [&str; 6] = ["Oslo", "Lyon", "Sapporo", "Lagos", "Quito", "Perth"];
const LANGUAGES: [(&str, &str); 4] = [
    ("en", "What is the weather in {} tomorrow?"),
    ("de", "Wie wird das Wetter morgen in {}?"),
    ("fr", "Quel temps fera-t-il demain à {} ?"),
    ("es", "¿Qué tiempo hará mañana en {}?"),
];

/// `n` tasks `gen-0000` … with a `[[task:ID]]` marker in each query, two
/// candidate tools and a one-call gold answer (every fifth a no-tool task).
pub fn generate(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            let id = format!("gen-{i:04}");
            let city = CITIES[i % CITIES.len()];
            let (language, template) = LANGUAGES[i % LANGUAGES.len()];
            let no_tool = i % 5 == 4;
            let query = format!("{} [[task:{id}]]", template.replace("{}", city));
            let calls = if no_tool {
                json!([])
            } else {
                json!([{"name": "city weather", "arguments": {"city": city}}])
            };
            serde_json::from_value(json!({
                "id": id,
                "kind": if no_tool { "no_tool" } else { "single" },
                "language": language,
                "country": "GLOBAL",
                "category": "Weather",
                "query": query,
                "tools": [
                    {"name": "city weather", "description": "Forecast for a city",
                     "required_parameters": [{"name": "city", "type": "string", "description": "City name"}]},
                    {"name": "stock_quote", "description": "Latest price of a stock",
                     "required_parameters": [{"name": "symbol", "type": "string", "description": "Ticker"}]}
                ],
                "gold": {"thought": "Use the forecast.", "calls": calls}
            }))
            .unwrap()
        })
        .collect()
}

/// The index in a generated id (`gen-0042` → 42).
pub fn index(id: &str) -> usize {
    id.trim_start_matches("gen-").parse().unwrap()
}

/// The scripted model's answer to a generated task: right for most, wrong
/// (another tool) for every seventh, so scores are neither 0 nor 100.
pub fn answer(id: &str) -> String {
    let i = index(id);
    let city = CITIES[i % CITIES.len()];
    let action = if i % 7 == 3 {
        "[stock_quote(symbol='ACME')]".to_string()
    } else if i % 5 == 4 {
        "[]".to_string()
    } else {
        format!("[city weather(city='{city}')]")
    };
    json!({"Thought": "The user asks about the weather, so I call the forecast.", "Action": action})
        .to_string()
}

/// Writes tasks as JSONL.
pub fn write(path: &Path, tasks: &[Task]) {
    let text: String = tasks
        .iter()
        .map(|t| serde_json::to_string(t).unwrap() + "\n")
        .collect();
    std::fs::write(path, text).unwrap();
}

/// Reads a predictions file, asserting it holds one line per task id at
/// most (no duplicates); returns them by task id.
pub fn read_predictions(path: &Path) -> HashMap<String, Prediction> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_id = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let p: Prediction = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let id = p.task_id.clone();
        assert!(
            by_id.insert(id.clone(), p).is_none(),
            "duplicate prediction for {id}"
        );
    }
    by_id
}

/// Asserts that the predictions cover exactly the given tasks.
pub fn assert_complete(predictions: &HashMap<String, Prediction>, tasks: &[Task]) {
    let ids: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let got: HashSet<&str> = predictions.keys().map(String::as_str).collect();
    let missing: Vec<_> = ids.difference(&got).collect();
    let extra: Vec<_> = got.difference(&ids).collect();
    assert!(
        missing.is_empty(),
        "tasks without a prediction: {missing:?}"
    );
    assert!(extra.is_empty(), "predictions for unknown tasks: {extra:?}");
}
