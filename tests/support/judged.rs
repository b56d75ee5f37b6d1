//! Hand-written run directories for the `itc judge` tests: a weather task,
//! a step-by-step run's files, and the judged folder's lines and figures.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use super::server::{Reply, Request, ScriptedServer};
use super::{scripted_models_toml, text};

/// A folder for the test's files and a scripted judge server, with a
/// `models.toml` naming its judges (told apart by model id).
pub struct Setup {
    _dir: tempfile::TempDir,
    /// The folder.
    pub root: PathBuf,
    /// Its `models.toml`.
    pub config: PathBuf,
    /// The judges' server.
    pub server: ScriptedServer,
}

impl Setup {
    /// Starts the server with `script` and writes a `models.toml` of `judges`.
    pub fn start(
        script: impl Fn(&Request) -> Reply + Send + Sync + 'static,
        judges: &[&str],
    ) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let server = ScriptedServer::start(script);
        let config = root.join("models.toml");
        std::fs::write(&config, scripted_models_toml(&server.base_url(), judges)).unwrap();
        Setup {
            _dir: dir,
            root,
            config,
            server,
        }
    }
}

/// A weather task whose query carries its id's marker (the scripted
/// server tells tasks apart by it).
pub fn task(id: &str, query: &str) -> Value {
    json!({
        "id": id, "kind": "single", "language": "en", "country": "GB", "category": "Weather",
        "query": format!("{query} [[task:{id}]]"),
        "tools": [{"name": "weather", "description": "Weather of a city",
                   "required_parameters": [{"name": "city", "type": "string", "description": "the city"}],
                   "optional_parameters": []}],
        "gold": {"thought": "", "calls": [{"name": "weather", "arguments": {"city": "Paris"}}]}
    })
}

/// Writes a step-by-step run directory `root/name` of one model: its
/// tasks, `models.json`, predictions and `steps.json` (only step-by-step
/// runs are judged).
pub fn run_dir(
    root: &Path,
    name: &str,
    model: &str,
    tasks: &[Value],
    predictions: &[Value],
) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let lines = |v: &[Value]| v.iter().map(|x| x.to_string() + "\n").collect::<String>();
    std::fs::write(dir.join("tasks.jsonl"), lines(tasks)).unwrap();
    std::fs::write(dir.join("predictions.jsonl"), lines(predictions)).unwrap();
    std::fs::write(
        dir.join("models.json"),
        json!([{"name": model, "backend": "openai"}]).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("steps.json"),
        json!({"mode": "replay"}).to_string(),
    )
    .unwrap();
    dir
}

/// The last stdout line of a successful `itc judge --format json`.
pub fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    serde_json::from_str(text(&out.stdout).lines().last().unwrap()).unwrap()
}

/// The lines of a judged folder's `judgments.jsonl`.
pub fn judgments(folder: &Path) -> Vec<Value> {
    std::fs::read_to_string(folder.join("judgments.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
