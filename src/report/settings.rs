//! Each model's settings as its input records them, for a reader who must
//! know what was run: the backend, the model id, the prompt mode, how the
//! tasks were asked (at once or step by step), the temperature, the itc
//! version and the dates.
//!
//! They come from the input's `manifest.json` (`eval.models`, written by
//! `itc eval`), else from a run directory's `models.json` (runs from before
//! manifests); the dates and version from the manifest. An `itc score
//! --out` folder records no model settings, only when it was scored: what
//! an input does not record is `None`, shown as "—". The files are read
//! leniently, as JSON values: a setting that is missing or of another
//! shape is unknown, never an error.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::inputs::Input;

/// One model's settings (`None`: not recorded by its input).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSettings {
    /// The model, as named in the report.
    pub model: String,
    /// The input folder, as given.
    pub input: String,
    /// The command that wrote the input (`itc eval`, `itc score`).
    pub made_by: Option<String>,
    /// The backend (`openai`, `baseline`, …).
    pub backend: Option<String>,
    /// The model id sent to the backend.
    pub model_id: Option<String>,
    /// The prompt mode (`prompt`, `native`).
    pub mode: Option<String>,
    /// How the tasks were asked (`single`, `steps`).
    pub asked: Option<String>,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// The itc version that wrote the input.
    pub itc_version: Option<String>,
    /// When the command started (RFC 3339, UTC).
    pub started: Option<String>,
    /// When it finished.
    pub finished: Option<String>,
}

/// The settings of one input's models (`names`: each model's name in the
/// input and in the report).
pub fn of_input(input: &Input, names: &[(String, String)]) -> Vec<ModelSettings> {
    let eval = input.manifest.as_ref().and_then(|m| m.eval.clone());
    let recorded: Vec<Value> = match eval.as_ref().and_then(|e| e.get("models")) {
        Some(Value::Array(models)) => models.clone(),
        _ => models_json(&input.dir),
    };
    let asked = eval
        .as_ref()
        .and_then(|e| e.pointer("/steps/mode"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let manifest = input.manifest.as_ref();
    let made_by = manifest
        .and_then(|m| m.command.get(1))
        .map(|c| format!("itc {c}"));
    names
        .iter()
        .map(|(own, named)| {
            let model = recorded
                .iter()
                .find(|m| m.get("name").and_then(Value::as_str) == Some(own.as_str()));
            let text = |key: &str| {
                model
                    .and_then(|m| m.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            ModelSettings {
                model: named.clone(),
                input: input.dir.display().to_string(),
                made_by: made_by.clone(),
                backend: text("backend"),
                model_id: text("model_id"),
                mode: text("mode"),
                asked: model.and(asked.clone()),
                temperature: model
                    .and_then(|m| m.get("temperature"))
                    .and_then(Value::as_f64),
                itc_version: manifest.map(|m| m.itc_version.clone()),
                started: manifest.map(|m| m.started.clone()),
                finished: manifest.map(|m| m.finished.clone()),
            }
        })
        .collect()
}

/// The largest `models.json` read.
const MAX_MODELS_BYTES: u64 = 16 << 20;

/// A run directory's `models.json` as JSON values; none when it is not
/// there or not a list.
fn models_json(dir: &Path) -> Vec<Value> {
    crate::util::regular::read_capped(&dir.join("models.json"), MAX_MODELS_BYTES)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<Value>>(&bytes).ok())
        .unwrap_or_default()
}

/// The rows of a settings table, each cell plain text ("—" where unknown),
/// after the model: backend, model id, mode, asked, temperature, source,
/// itc version, started, finished.
pub fn cells(s: &ModelSettings) -> [String; 9] {
    let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "—".to_string());
    [
        or_dash(&s.backend),
        or_dash(&s.model_id),
        or_dash(&s.mode),
        or_dash(&s.asked),
        s.temperature
            .map_or_else(|| "—".to_string(), |t| t.to_string()),
        or_dash(&s.made_by),
        or_dash(&s.itc_version),
        or_dash(&s.started),
        or_dash(&s.finished),
    ]
}

/// The header of [`cells`].
pub const HEADER: [&str; 9] = [
    "Backend",
    "Model id",
    "Mode",
    "Asked",
    "Temperature",
    "Written by",
    "itc",
    "Started",
    "Finished",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::manifest::Manifest;

    fn input(dir: &Path, manifest: Option<Manifest>) -> Input {
        Input {
            dir: dir.to_path_buf(),
            manifest,
            task_set: None,
            tasks: Vec::new(),
            models: Vec::new(),
            outcomes: Vec::new(),
        }
    }

    fn manifest(command: &str, eval: Option<Value>) -> Manifest {
        serde_json::from_value(serde_json::json!({
            "itc_version": "9.9.9",
            "command": ["itc", command],
            "started": "2026-01-02T03:04:05Z",
            "finished": "2026-01-02T03:09:05Z",
            "tasks": {"path": "tasks.jsonl", "sha256": "00", "bytes": 0},
            "task_set_sha256": "00",
            "predictions": [],
            "scoring": {"strict_values": false, "bootstrap_resamples": 10, "bootstrap_seed": 1},
            "eval": eval,
        }))
        .unwrap()
    }

    fn pair(own: &str, named: &str) -> (String, String) {
        (own.to_string(), named.to_string())
    }

    #[test]
    fn a_run_records_its_models_and_a_score_folder_only_its_dates() {
        let dir = tempfile::tempdir().unwrap();
        let eval = serde_json::json!({
            "models": [
                {"name": "m", "backend": "openai", "model_id": "qwen", "mode": "native", "temperature": 0.25},
                {"name": "other", "backend": 7},
            ],
            "steps": {"mode": "steps"},
        });
        let run = input(dir.path(), Some(manifest("eval", Some(eval))));
        let got = of_input(
            &run,
            &[
                pair("m", "m@run"),
                pair("other", "other"),
                pair("gone", "gone"),
            ],
        );
        assert_eq!(got[0].model, "m@run");
        assert_eq!(
            cells(&got[0]),
            [
                "openai",
                "qwen",
                "native",
                "steps",
                "0.25",
                "itc eval",
                "9.9.9",
                "2026-01-02T03:04:05Z",
                "2026-01-02T03:09:05Z"
            ]
        );
        // A setting of another shape is unknown; a model not recorded too.
        assert_eq!(got[1].backend, None);
        assert_eq!(got[1].asked.as_deref(), Some("steps"));
        assert_eq!(cells(&got[2])[..5], ["—", "—", "—", "—", "—"]);

        let scored = input(dir.path(), Some(manifest("score", None)));
        let got = of_input(&scored, &[pair("m", "m")]);
        assert_eq!(cells(&got[0])[..6], ["—", "—", "—", "—", "—", "itc score"]);
        assert_eq!(got[0].started.as_deref(), Some("2026-01-02T03:04:05Z"));
    }

    #[test]
    fn an_old_run_is_read_from_models_json_and_nothing_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let bare = input(dir.path(), None);
        assert_eq!(
            cells(&of_input(&bare, &[pair("m", "m")])[0]),
            ["—"; 9].map(String::from)
        );
        std::fs::write(
            dir.path().join("models.json"),
            r#"[{"name": "m", "backend": "anthropic", "model_id": "claude", "temperature": 0}]"#,
        )
        .unwrap();
        let got = of_input(&bare, &[pair("m", "m")]);
        assert_eq!(cells(&got[0])[..5], ["anthropic", "claude", "—", "—", "0"]);
        std::fs::write(dir.path().join("models.json"), "not json").unwrap();
        assert_eq!(of_input(&bare, &[pair("m", "m")])[0].backend, None);
    }
}
