//! Batch files (`itc eval --emit-batch DIR`, `--import-batch FILE…`): a
//! whole evaluation handed to a batch engine (OpenAI's Batch API, vLLM's
//! `run-batch`, Anthropic's Message Batches) and read back.
//!
//! Emitting writes, per model, the exact requests a run would send (the
//! same bodies, so the same cache keys): OpenAI's batch input format
//! (`{"custom_id", "method", "url", "body"}`, which vLLM's `run-batch` also
//! reads) for OpenAI-compatible models, Anthropic's (`{"custom_id",
//! "params"}`) for Anthropic models. A `custom_id` names the model, the task
//! and the step, and ends with the first 16 hex digits of the request's cache
//! key (Anthropic allows 64 characters of `[A-Za-z0-9_-]`, so names are cut
//! and cleaned). A result finds its request by the whole id: the key digits
//! and the model, task and step before them.
//!
//! Importing reads OpenAI/vLLM batch output files and Anthropic batch
//! results; a run with them answers each request from its result (then
//! cached, so a later normal run sends nothing), an errored, expired or
//! canceled result as a typed error, a request without a result as a
//! `batch` error; no request is sent. Results that no request asked for
//! are reported; a result with a request's key digits but another model,
//! task or step is not taken: that request ends in a `batch` error naming
//! the result's file, line and `custom_id`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use serde_json::Value;

use super::config::Backend;
use super::http::{ErrorKind, status_kind};
use crate::util::atomic::AtomicFile;

/// Hex digits of the cache key a `custom_id` ends with.
const KEY_DIGITS: usize = 16;
/// The longest `custom_id` (Anthropic's limit).
const MAX_CUSTOM_ID: usize = 64;

/// How a run's requests travel.
#[derive(Debug, Clone, Default)]
pub enum Transport {
    /// Sent to the server (the normal run).
    #[default]
    Send,
    /// Written to batch files, not sent.
    Emit(std::sync::Arc<BatchSink>),
    /// Answered from batch results, not sent.
    Import(std::sync::Arc<BatchResults>),
}

/// The task and step a request is for.
#[derive(Debug, Clone, Copy)]
pub struct RequestLabel<'a> {
    /// The task's id.
    pub task_id: &'a str,
    /// The step (0 for single-shot runs; a solver's node index).
    pub step: usize,
    /// Which try of a restarted conversation (SPEC §8 chain): a try after
    /// the first is cached apart, though its first request is the same.
    pub sample: u32,
}

/// A name cut to `max` characters of `[A-Za-z0-9_-]` (others become `_`).
fn clean(name: &str, max: usize) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect()
}

/// The `custom_id` of a request: `MODEL--TASK--sSTEP--KEY16`.
pub fn custom_id(model: &str, label: RequestLabel<'_>, key: &str) -> String {
    let step = format!("s{}", label.step + 1);
    let fixed = 3 * 2 + step.len() + KEY_DIGITS;
    let room = MAX_CUSTOM_ID - fixed;
    let model = clean(model, room / 3);
    let task = clean(label.task_id, room - model.len());
    format!("{model}--{task}--{step}--{}", &key[..KEY_DIGITS])
}

/// A `custom_id` as itc writes it (`MODEL--TASK--sSTEP--KEY16`, at most
/// 64 characters of `[A-Za-z0-9_-]`): its key digits as a number, and
/// what comes before them (model, task and step). `None` for anything else.
fn parse_custom_id(custom_id: &str) -> Option<(u64, &str)> {
    if custom_id.len() > MAX_CUSTOM_ID
        || !custom_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return None;
    }
    let (label, key) = custom_id.rsplit_once("--")?;
    let (names, step) = label.rsplit_once("--")?;
    let step = step.strip_prefix('s')?;
    let step_ok = !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit());
    let names_ok = names.contains("--");
    let key_ok = key.len() == KEY_DIGITS && key.bytes().all(|b| b.is_ascii_hexdigit());
    (step_ok && names_ok && key_ok)
        .then(|| key_value(key).map(|key| (key, label)))
        .flatten()
}

/// A hash of the part of a `custom_id` before its key digits (model, task
/// and step), to tell apart results whose key digits are the same.
fn label_hash(label: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    label.hash(&mut hasher);
    hasher.finish()
}

/// The requests an emitting run collects. Each request's line is written
/// to an unlinked scratch file as it comes and only its place is kept (its
/// model, `custom_id`, offset and length), so that a million requests need
/// not fit in memory; [`BatchSink::write`] copies the lines, sorted, into
/// the batch files.
#[derive(Debug, Default)]
pub struct BatchSink {
    spill: Mutex<Spill>,
}

/// The scratch file of a [`BatchSink`] and what is in it.
#[derive(Debug, Default)]
struct Spill {
    /// Made on the first request.
    file: Option<std::io::BufWriter<std::fs::File>>,
    written: u64,
    /// The models met, with their backends.
    models: Vec<(String, Backend)>,
    lines: Vec<SpilledLine>,
    /// The first write that failed: reported by [`BatchSink::write`].
    error: Option<String>,
}

/// One request's line in the scratch file.
#[derive(Debug)]
struct SpilledLine {
    /// Index into [`Spill::models`].
    model: usize,
    custom_id: String,
    offset: u64,
    len: usize,
}

/// A line of OpenAI's batch input format (also vLLM's `run-batch`).
#[derive(serde::Serialize)]
struct OpenAiRequest<'a> {
    custom_id: &'a str,
    method: &'static str,
    url: &'a str,
    body: &'a Value,
}

/// A line of Anthropic's Message Batches format.
#[derive(serde::Serialize)]
struct AnthropicRequest<'a> {
    custom_id: &'a str,
    params: &'a Value,
}

impl BatchSink {
    /// Collects one request.
    pub fn push(&self, model: &str, backend: Backend, custom_id: String, url: &str, body: &Value) {
        let path =
            reqwest::Url::parse(url).map_or_else(|_| url.to_string(), |u| u.path().to_string());
        let line = match backend {
            Backend::Anthropic => serde_json::to_vec(&AnthropicRequest {
                custom_id: &custom_id,
                params: body,
            }),
            _ => serde_json::to_vec(&OpenAiRequest {
                custom_id: &custom_id,
                method: "POST",
                url: &path,
                body,
            }),
        };
        let Ok(mut spill) = self.spill.lock() else {
            return;
        };
        if let Err(e) = line
            .map_err(std::io::Error::other)
            .and_then(|line| spill.add(model, backend, custom_id, &line))
        {
            spill
                .error
                .get_or_insert_with(|| format!("writing a request to a scratch file: {e}"));
        }
    }

    /// Writes one file per model into `dir` (`<model>.openai.jsonl` or
    /// `<model>.anthropic.jsonl`), requests in `custom_id` order; returns
    /// each file with its request count.
    pub fn write(&self, dir: &Path) -> anyhow::Result<Vec<(PathBuf, usize)>> {
        use std::io::{Read, Seek, SeekFrom, Write};
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut spill = self
            .spill
            .lock()
            .map_err(|_| anyhow::anyhow!("--emit-batch: the requests were lost"))?;
        if let Some(error) = &spill.error {
            bail!("--emit-batch: {error}");
        }
        let Spill {
            file,
            models,
            lines,
            ..
        } = &mut *spill;
        let Some(file) = file.take() else {
            return Ok(Vec::new());
        };
        let mut file = file
            .into_inner()
            .map_err(|e| anyhow::anyhow!("--emit-batch: writing a scratch file: {}", e.error()))?;
        lines.sort_by(|a, b| {
            (&models[a.model].0, &a.custom_id).cmp(&(&models[b.model].0, &b.custom_id))
        });
        // Two model names may clean to one file name: their lines share it.
        let mut outputs: Vec<(PathBuf, AtomicFile, usize)> = Vec::new();
        let mut bytes = Vec::new();
        for line in lines.iter() {
            let (name, backend) = &models[line.model];
            let suffix = match backend {
                Backend::Anthropic => "anthropic",
                _ => "openai",
            };
            let path = dir.join(format!("{}.{suffix}.jsonl", clean(name, 64)));
            let at = match outputs.iter().position(|(p, _, _)| *p == path) {
                Some(at) => at,
                None => {
                    outputs.push((path.clone(), AtomicFile::create(&path)?, 0));
                    outputs.len() - 1
                }
            };
            bytes.resize(line.len, 0);
            file.seek(SeekFrom::Start(line.offset))
                .and_then(|_| file.read_exact(&mut bytes))
                .context("--emit-batch: reading a scratch file")?;
            bytes.push(b'\n');
            let (path, output, count) = &mut outputs[at];
            output
                .write_all(&bytes)
                .with_context(|| format!("writing {}", path.display()))?;
            *count += 1;
        }
        let mut files = Vec::new();
        for (path, output, count) in outputs {
            output.commit()?;
            files.push((path, count));
        }
        Ok(files)
    }
}

impl Spill {
    fn add(
        &mut self,
        model: &str,
        backend: Backend,
        custom_id: String,
        line: &[u8],
    ) -> std::io::Result<()> {
        use std::io::Write;
        let file = match &mut self.file {
            Some(file) => file,
            None => self
                .file
                .insert(std::io::BufWriter::new(tempfile::tempfile()?)),
        };
        file.write_all(line)?;
        let model = match self.models.iter().position(|(m, _)| m == model) {
            Some(at) => at,
            None => {
                self.models.push((model.to_string(), backend));
                self.models.len() - 1
            }
        };
        self.lines.push(SpilledLine {
            model,
            custom_id,
            offset: self.written,
            len: line.len(),
        });
        self.written += line.len() as u64;
        Ok(())
    }
}

/// What a batch engine answered one request.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    /// The request's `custom_id`.
    pub custom_id: String,
    /// The response body, or why there is none.
    pub outcome: Result<Value, (ErrorKind, String)>,
}

/// The results of batch output files, one per `custom_id`, sorted by it
/// (its key digits, then a hash of its model, task and step). Only where
/// each result's line is, and whether it succeeded, is kept (48 bytes, not
/// the response): a line is read again and parsed when its request takes
/// it, so a batch of a million answers does not have to fit in memory.
#[derive(Debug, Default)]
pub struct BatchResults {
    files: Vec<ResultFile>,
    lines: Vec<ResultLine>,
    /// Indexes into `lines`.
    used: Mutex<HashSet<usize>>,
    foreign: Mutex<Foreign>,
    repeated: usize,
}

/// A batch output file, open to read results again.
#[derive(Debug)]
struct ResultFile {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

/// Where a result is: its `custom_id` (key digits, hash of the rest), its
/// file (an index), line number, byte offset and length.
#[derive(Debug, Clone, Copy)]
struct ResultLine {
    id: (u64, u64),
    offset: u64,
    number: usize,
    len: usize,
    file: u32,
    succeeded: bool,
}

/// Results met by a request with the same key digits whose `custom_id`
/// names another model, task or step.
#[derive(Debug, Default)]
struct Foreign {
    count: usize,
    /// The first few, as reported.
    shown: Vec<String>,
}

/// How many foreign results are described in full.
const FOREIGN_SHOWN: usize = 10;

impl BatchResults {
    /// Reads OpenAI/vLLM batch output files and Anthropic batch results
    /// (JSON Lines; the format is told per line). A line that is neither,
    /// or whose `custom_id` is not of the form itc writes
    /// (`MODEL--TASK--sSTEP--KEY16`), is an error naming the file, line and
    /// field. When several lines carry one `custom_id` (a batch run again
    /// for its failures), a success is kept over an error, and otherwise
    /// the later line wins; such lines are counted.
    pub fn load(paths: &[PathBuf]) -> anyhow::Result<BatchResults> {
        let mut lines = Vec::new();
        let mut files = Vec::new();
        for (index, path) in paths.iter().enumerate() {
            let file = u32::try_from(index).context("--import-batch: too many files")?;
            crate::spec::jsonl::for_each_line_at(path, |number, offset, line| {
                let result = parse_line(path, number, line)?;
                let Some((key, label)) = parse_custom_id(&result.custom_id) else {
                    bail!(
                        "{}:{number}: field `custom_id`: `{}` was not written by itc eval --emit-batch (MODEL--TASK--sSTEP--KEY)",
                        path.display(),
                        crate::util::bounded::clip(&result.custom_id, MAX_CUSTOM_ID)
                    );
                };
                lines.push(ResultLine {
                    id: (key, label_hash(label)),
                    offset,
                    number,
                    len: line.len(),
                    file,
                    succeeded: result.outcome.is_ok(),
                });
                Ok(())
            })?;
            let file =
                std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
            files.push(ResultFile {
                path: path.clone(),
                file: Mutex::new(file),
            });
        }
        // A stable sort: the lines of one id stay in the order read.
        lines.sort_by_key(|line| line.id);
        let read = lines.len();
        lines.dedup_by(|later, earlier| {
            if later.id != earlier.id {
                return false;
            }
            if later.succeeded || !earlier.succeeded {
                *earlier = *later;
            }
            true
        });
        lines.shrink_to_fit();
        Ok(BatchResults {
            files,
            repeated: read - lines.len(),
            lines,
            used: Mutex::new(HashSet::new()),
            foreign: Mutex::new(Foreign::default()),
        })
    }

    /// Lines that answered a request an earlier line had answered.
    pub fn repeated(&self) -> usize {
        self.repeated
    }

    /// The result for a request (its cache key and `custom_id`), marked as
    /// used. A result with the request's key digits whose `custom_id` names
    /// another model, task or step is not taken: the request gets a `batch`
    /// error naming the result's file, line and `custom_id` (and it is
    /// counted in [`BatchResults::foreign`]). A line that cannot be read
    /// again as it was (the file changed since) is a `batch` error naming it.
    pub fn take(&self, cache_key: &str, custom_id: &str) -> Option<BatchResult> {
        let key = key_value(cache_key.get(..KEY_DIGITS)?)?;
        let label = custom_id.rsplit_once("--").map_or(custom_id, |(l, _)| l);
        let first = self.lines.partition_point(|line| line.id.0 < key);
        let same_key = self.lines[first..]
            .iter()
            .take_while(|line| line.id.0 == key)
            .count();
        if same_key == 0 {
            return None;
        }
        let wanted = (key, label_hash(label));
        let at = first
            + self.lines[first..first + same_key]
                .iter()
                .position(|line| line.id == wanted)
                .unwrap_or(0);
        if let Ok(mut used) = self.used.lock() {
            used.insert(at);
        }
        let place = self.lines[at];
        let found = match self.read_again(place) {
            Ok(found) => found,
            Err(e) => {
                return Some(BatchResult {
                    custom_id: String::new(),
                    outcome: Err((ErrorKind::Batch, format!("{e:#}"))),
                });
            }
        };
        if parse_custom_id(&found.custom_id) == Some((key, label)) {
            return Some(found);
        }
        let why = format!(
            "{}:{}: field `custom_id`: `{}` is not this request's `{custom_id}` (the same key digits, another model, task or step)",
            self.files[place.file as usize].path.display(),
            place.number,
            crate::util::bounded::clip(&found.custom_id, MAX_CUSTOM_ID)
        );
        if let Ok(mut foreign) = self.foreign.lock() {
            foreign.count += 1;
            if foreign.shown.len() < FOREIGN_SHOWN {
                foreign.shown.push(why.clone());
            }
        }
        Some(BatchResult {
            custom_id: found.custom_id,
            outcome: Err((ErrorKind::Batch, why)),
        })
    }

    /// Requests that met only a result of another `custom_id` with their
    /// key digits (not taken): how many, and the first few, described.
    pub fn foreign(&self) -> (usize, Vec<String>) {
        self.foreign
            .lock()
            .map(|f| (f.count, f.shown.clone()))
            .unwrap_or_default()
    }

    fn read_again(&self, place: ResultLine) -> anyhow::Result<BatchResult> {
        use std::io::{Read, Seek, SeekFrom};
        let source = &self.files[place.file as usize];
        let mut bytes = vec![0; place.len];
        {
            let mut file = source
                .file
                .lock()
                .map_err(|_| anyhow::anyhow!("{}: unreadable", source.path.display()))?;
            file.seek(SeekFrom::Start(place.offset))
                .and_then(|_| file.read_exact(&mut bytes))
                .with_context(|| {
                    format!("{}:{}: read again", source.path.display(), place.number)
                })?;
        }
        let line = std::str::from_utf8(&bytes).map_err(|_| {
            anyhow::anyhow!(
                "{}:{}: changed since it was read",
                source.path.display(),
                place.number
            )
        })?;
        parse_line(&source.path, place.number, line)
    }

    /// Results read (one per `custom_id`).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no result was read.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The `custom_id`s of results no request asked for, sorted.
    pub fn unused(&self) -> Vec<String> {
        let used = self.used.lock().map(|u| u.clone()).unwrap_or_default();
        let mut ids: Vec<String> = self
            .lines
            .iter()
            .enumerate()
            .filter(|(at, _)| !used.contains(at))
            .map(|(_, &place)| match self.read_again(place) {
                Ok(result) => result.custom_id,
                Err(e) => format!("{e:#}"),
            })
            .collect();
        ids.sort();
        ids
    }
}

/// One line of a batch output file, read; errors name the file and line.
fn parse_line(path: &Path, number: usize, line: &str) -> anyhow::Result<BatchResult> {
    let place = || format!("{}:{number}", path.display());
    let value: Value =
        serde_json::from_str(line).with_context(|| format!("{}: not JSON", place()))?;
    read_result(&value).map_err(|why| anyhow::anyhow!("{}: {why}", place()))
}

/// The 16 hex digits of a cache key as a number.
fn key_value(digits: &str) -> Option<u64> {
    u64::from_str_radix(digits, 16).ok()
}

/// One result line: OpenAI/vLLM (`response` and `error`) or Anthropic (`result`).
fn read_result(line: &Value) -> Result<BatchResult, String> {
    let custom_id = line["custom_id"]
        .as_str()
        .ok_or("field `custom_id`: missing")?
        .to_string();
    let outcome = if let Some(result) = line.get("result") {
        match result["type"].as_str() {
            Some("succeeded") => Ok(result["message"].clone()),
            Some("errored") => {
                let error = &result["error"]["error"];
                let kind = match error["type"].as_str() {
                    Some("rate_limit_error") => ErrorKind::RateLimited,
                    Some("api_error" | "overloaded_error") => ErrorKind::Server,
                    _ => ErrorKind::Client,
                };
                Err((
                    kind,
                    error["message"].as_str().unwrap_or("errored").to_string(),
                ))
            }
            Some(other @ ("canceled" | "expired")) => {
                Err((ErrorKind::Batch, format!("the batch request was {other}")))
            }
            _ => {
                return Err(
                    "field `result.type`: not succeeded, errored, canceled or expired".into(),
                );
            }
        }
    } else if line.get("response").is_some() || line.get("error").is_some() {
        match (&line["response"], &line["error"]) {
            (Value::Object(response), _) => {
                let status = response
                    .get("status_code")
                    .and_then(Value::as_u64)
                    .and_then(|code| u16::try_from(code).ok())
                    .filter(|code| (100..=599).contains(code))
                    .ok_or("field `response.status_code`: missing, or not an HTTP status")?;
                let body = response.get("body").cloned().unwrap_or(Value::Null);
                match status_kind(status) {
                    None => Ok(body),
                    Some(kind) => Err((
                        kind,
                        format!(
                            "HTTP {status}: {}",
                            crate::util::bounded::clip(&body.to_string(), 300)
                        ),
                    )),
                }
            }
            (_, Value::Object(error)) => {
                let code = error.get("code").and_then(Value::as_str).unwrap_or("error");
                let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                Err((ErrorKind::Batch, format!("{code}: {message}")))
            }
            _ => return Err("fields `response` and `error`: neither holds an object".into()),
        }
    } else {
        return Err("neither an OpenAI/vLLM batch output line (`response`, `error`) nor an Anthropic result (`result`)".into());
    };
    Ok(BatchResult { custom_id, outcome })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn custom_ids_fit_anthropic_and_lead_back_to_the_key() {
        let label = RequestLabel {
            task_id: "itc-0010/ü",
            step: 1,
            sample: 0,
        };
        let id = custom_id("qwen2.5:7b", label, KEY);
        assert_eq!(id, "qwen2_5_7b--itc-0010__--s2--0123456789abcdef");
        let long = custom_id(
            &"m".repeat(100),
            RequestLabel {
                task_id: &"t".repeat(100),
                step: 12,
                sample: 0,
            },
            KEY,
        );
        assert!(long.len() <= MAX_CUSTOM_ID, "{}", long.len());
        assert!(
            long.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
        let key_of = |id: &str| parse_custom_id(id).map(|(key, _)| key);
        assert_eq!(key_of(&long), Some(0x0123456789abcdef));
        assert_eq!(
            parse_custom_id(&id),
            Some((0x0123456789abcdef, "qwen2_5_7b--itc-0010__--s2"))
        );
        // The digits are a number: their case does not matter.
        assert_eq!(
            key_of("m--t--s1--0123456789ABCDEF"),
            Some(0x0123456789abcdef)
        );
        // Every part is checked: model and task, step, key digits, length
        // and characters.
        for bad in [
            "m--t--s1--0123456789abcdeg",
            "made-by-hand",
            "t--s1--0123456789abcdef",
            "m--t--1--0123456789abcdef",
            "m--t--s--0123456789abcdef",
            "m--t--s1x--0123456789abcdef",
            "m--t--s1--0123456789abcde",
            "m.x--t--s1--0123456789abcdef",
        ] {
            assert_eq!(key_of(bad), None, "{bad}");
        }
        assert_eq!(
            key_of(&format!("{}--t--s1--{}", "m".repeat(60), &KEY[..16])),
            None
        );
    }

    #[test]
    fn results_of_both_formats_read_with_typed_errors() {
        let id = |n: u8| format!("m--t{n}--s1--{:016x}", n);
        let lines = [
            json!({"id": "b1", "custom_id": id(1), "response": {"status_code": 200, "body": {"choices": []}}, "error": null}),
            json!({"id": "b2", "custom_id": id(2), "response": {"status_code": 429, "body": {"error": "slow down"}}, "error": null}),
            json!({"id": "b3", "custom_id": id(3), "response": null, "error": {"code": "batch_expired", "message": "not run in 24h"}}),
            json!({"custom_id": id(4), "result": {"type": "succeeded", "message": {"content": []}}}),
            json!({"custom_id": id(5), "result": {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}}}),
            json!({"custom_id": id(6), "result": {"type": "expired"}}),
        ];
        let kinds: Vec<Option<ErrorKind>> = lines
            .iter()
            .map(|l| read_result(l).unwrap().outcome.err().map(|(k, _)| k))
            .collect();
        assert_eq!(
            kinds,
            [
                None,
                Some(ErrorKind::RateLimited),
                Some(ErrorKind::Batch),
                None,
                Some(ErrorKind::Server),
                Some(ErrorKind::Batch)
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        std::fs::write(&path, text + "{\"custom_id\": \"x\"}\n").unwrap();
        let error = BatchResults::load(std::slice::from_ref(&path))
            .unwrap_err()
            .to_string();
        assert!(error.contains("out.jsonl:7"), "{error}");
        std::fs::write(
            &path,
            lines[0].to_string() + "\n" + &lines[3].to_string() + "\n",
        )
        .unwrap();
        let results = BatchResults::load(std::slice::from_ref(&path)).unwrap();
        assert_eq!(results.len(), 2);
        let first = results
            .take(&format!("{:016x}{}", 1, "0".repeat(48)), &id(1))
            .unwrap();
        assert_eq!(first.custom_id, id(1));
        assert_eq!(first.outcome, Ok(json!({"choices": []})));
        assert_eq!(results.unused(), [id(4)]);
        // Results are read again from the file when taken: a file cut short
        // since gives a `batch` error naming it and the line, not a panic.
        std::fs::write(&path, "{}\n").unwrap();
        let gone = results
            .take(&format!("{:016x}{}", 4, "0".repeat(48)), &id(4))
            .unwrap();
        let (kind, why) = gone.outcome.unwrap_err();
        assert_eq!(kind, ErrorKind::Batch);
        assert!(why.contains("out.jsonl:2"), "{why}");
    }

    #[test]
    fn emitted_requests_are_written_sorted_per_file_in_each_format() {
        let sink = BatchSink::default();
        let body = |n: u32| json!({"model": "x", "messages": [{"role": "user", "content": format!("q{n} ü")}]});
        // Pushed out of order; `a/b` and `a?b` clean to the same file name.
        for (model, backend, id) in [
            ("a/b", Backend::Openai, "a_b--t2--s1--2"),
            ("claude", Backend::Anthropic, "claude--t1--s1--1"),
            ("a?b", Backend::Openai, "a_b--t0--s1--0"),
            ("a/b", Backend::Openai, "a_b--t1--s1--1"),
        ] {
            let n = id[id.len() - 1..].parse().unwrap();
            sink.push(
                model,
                backend,
                id.into(),
                "http://h:1/v1/chat/completions?x=1",
                &body(n),
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let files = sink.write(dir.path()).unwrap();
        let names: Vec<(String, usize)> = files
            .iter()
            .map(|(p, n)| (p.file_name().unwrap().to_string_lossy().into_owned(), *n))
            .collect();
        assert_eq!(
            names,
            [
                ("a_b.openai.jsonl".to_string(), 3),
                ("claude.anthropic.jsonl".to_string(), 1)
            ]
        );
        let openai = std::fs::read_to_string(&files[0].0).unwrap();
        let expected: String = [("a_b--t1--s1--1", 1), ("a_b--t2--s1--2", 2), ("a_b--t0--s1--0", 0)]
            .iter()
            .map(|(id, n)| {
                json!({"custom_id": id, "method": "POST", "url": "/v1/chat/completions", "body": body(*n)})
                    .to_string()
                    + "\n"
            })
            .collect();
        assert_eq!(openai, expected);
        let anthropic = std::fs::read_to_string(&files[1].0).unwrap();
        assert_eq!(
            anthropic,
            json!({"custom_id": "claude--t1--s1--1", "params": body(1)}).to_string() + "\n"
        );
        // Nothing pushed: no file.
        assert!(BatchSink::default().write(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn a_status_code_must_be_an_http_status() {
        for status in [json!(null), json!("200"), json!(65736), json!(42)] {
            let line = json!({"custom_id": "m--t--s1--0000000000000001",
                "response": {"status_code": status, "body": {}}, "error": null});
            let error = read_result(&line).unwrap_err();
            assert!(error.contains("field `response.status_code`"), "{error}");
        }
    }

    #[test]
    fn repeated_results_keep_a_success_over_an_error() {
        let id = |n: u8| format!("m--t{n}--s1--{:016x}", n);
        let ok = |n: u8, text: &str| json!({"custom_id": id(n), "response": {"status_code": 200, "body": {"text": text}}, "error": null});
        let failed = |n: u8| json!({"custom_id": id(n), "response": {"status_code": 500, "body": {}}, "error": null});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        let lines = [
            ok(1, "a"),
            failed(1),
            failed(2),
            ok(2, "b"),
            ok(3, "c"),
            ok(3, "d"),
            failed(4),
            failed(4),
        ];
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        std::fs::write(&path, text).unwrap();
        let results = BatchResults::load(&[path]).unwrap();
        assert_eq!((results.len(), results.repeated()), (4, 4));
        let outcome = |n: u8| {
            results
                .take(&format!("{n:016x}{}", "0".repeat(48)), &id(n))
                .unwrap()
                .outcome
                .map(|body| body["text"].as_str().unwrap().to_string())
                .map_err(|(kind, _)| kind)
        };
        assert_eq!(outcome(1), Ok("a".to_string()));
        assert_eq!(outcome(2), Ok("b".to_string()));
        assert_eq!(outcome(3), Ok("d".to_string()));
        assert_eq!(outcome(4), Err(ErrorKind::Server));
    }

    #[test]
    fn a_result_is_taken_only_by_its_whole_custom_id() {
        let key = format!("{:016x}{}", 7, "0".repeat(48));
        let ok = |id: &str, text: &str| json!({"custom_id": id, "response": {"status_code": 200, "body": {"text": text}}, "error": null});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        // Two requests with one body (so one key): each finds its own line.
        let (a, b) = ("m--t1--s1--0000000000000007", "m--t2--s1--0000000000000007");
        let text = ok(b, "b").to_string() + "\n" + &ok(a, "a").to_string() + "\n";
        std::fs::write(&path, text).unwrap();
        let results = BatchResults::load(std::slice::from_ref(&path)).unwrap();
        assert_eq!((results.len(), results.repeated()), (2, 0));
        let text_of = |id: &str| {
            results.take(&key, id).unwrap().outcome.unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!((text_of(a), text_of(b)), ("a".into(), "b".into()));
        // Another model, task or step with the same key digits is not taken.
        for mine in [
            "n--t1--s1--0000000000000007",
            "m--t3--s1--0000000000000007",
            "m--t1--s2--0000000000000007",
        ] {
            let (kind, why) = results.take(&key, mine).unwrap().outcome.unwrap_err();
            assert_eq!(kind, ErrorKind::Batch);
            let named = [
                "out.jsonl:1: field `custom_id`: `m--t2",
                "out.jsonl:2: field `custom_id`: `m--t1",
            ];
            assert!(
                named.iter().any(|n| why.contains(n))
                    && why.contains(&format!("is not this request's `{mine}`")),
                "{why}"
            );
        }
        assert_eq!(results.foreign().0, 3);
        assert!(results.take(&format!("{:016x}", 8), a).is_none());
    }

    #[test]
    fn an_unknown_custom_id_is_clipped_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        let line = json!({"custom_id": "x".repeat(100_000), "response": {"status_code": 200, "body": {}}, "error": null});
        std::fs::write(&path, line.to_string() + "\n").unwrap();
        let error = BatchResults::load(&[path]).unwrap_err().to_string();
        assert!(
            error.contains("out.jsonl:1: field `custom_id`") && error.len() < 500,
            "{}",
            error.len()
        );
    }
}
