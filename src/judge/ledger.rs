//! The files of a judged folder: the settings every session must share
//! (`settings.json`) and `judgments.jsonl`, one line per judge request,
//! appended as each completes. A session reuses every recorded line and
//! asks only what is missing; a torn last line (a kill mid-write) is cut
//! off and asked again.
//!
//! Both files are opened as a run folder's files are
//! ([`crate::util::regular::open_own`]): only regular files, never through a
//! symbolic link (which could make a session append to, cut or replace a
//! file elsewhere), never blocking on a FIFO, with capped reads. A line is
//! read once per request key: repeated lines, lines that do not read as
//! judgments (invalid UTF-8 among them) and lines longer than
//! [`MAX_LINE_BYTES`] are counted and passed over, alike on every open.
//! The figures rest on the judgments a session used ([`Ledger::used`]),
//! never on other lines of the file.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::labels::{Label, Stage};
use crate::util::bounded::clip;
use crate::util::lines::{LineRead, complete_len, read_line_capped, skip_line};
use crate::util::regular::{open_own, read_own_capped};

/// The settings file of a judged folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// The judgments file of a judged folder.
pub const JUDGMENTS_FILE: &str = "judgments.jsonl";

/// Most characters of a judge's reason kept in a judgment (the rest is cut,
/// marked `…`).
pub const MAX_REASON_CHARS: usize = 4_000;

/// Longest line of `judgments.jsonl` read (a longer one is a bad line): far
/// beyond any line itc writes, whose reason is at most [`MAX_REASON_CHARS`].
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Largest `settings.json` read.
pub const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// Which answer of a win-rate comparison a request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The run being judged.
    Candidate,
    /// The reference run.
    Reference,
}

/// One judge request and its answer: a line of `judgments.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    /// The task.
    pub task_id: String,
    /// The candidate model (the run's model being judged).
    pub model: String,
    /// Win rate: whose answer a status request is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// The sample (pass rate), run (SoPR) or round (win rate), from 1.
    pub sample: u32,
    /// The kind of request.
    pub stage: Stage,
    /// The judge's name in the configuration.
    pub judge: String,
    /// The judge's model id.
    pub judge_model: String,
    /// Which ask of this request it was (1, then 2… after unreadable replies).
    pub ask: u32,
    /// SHA-256 of the request's messages and schema.
    pub prompt_sha256: String,
    /// The label read; `None`: unreadable. ToolAlpaca: the process label.
    pub label: Option<Label>,
    /// ToolAlpaca: the final response label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_label: Option<Label>,
    /// The judge's reason (ToolAlpaca: its whole text), at most
    /// [`MAX_REASON_CHARS`] characters.
    pub reason: String,
    /// Characters of the run's texts (final answers, the whole run) cut
    /// from what the request showed the judge (`--max-shown-chars`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shown_cut_chars: u64,
    /// The seeded coin flip that settled the sample, where one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coin: Option<bool>,
    /// Prompt tokens reported.
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
    /// Cost at the judge's configured prices (USD); 0 when the cache answered.
    pub cost_usd: f64,
    /// Whether the response cache answered.
    pub cache_hit: bool,
}

impl Judgment {
    /// The key a session looks a request up by.
    pub fn key(&self) -> String {
        request_key(
            &self.judge,
            self.stage,
            &self.task_id,
            &self.model,
            self.side,
            self.sample,
            &self.prompt_sha256,
        )
    }
}

/// The lookup key of one request.
pub fn request_key(
    judge: &str,
    stage: Stage,
    task: &str,
    model: &str,
    side: Option<Side>,
    sample: u32,
    prompt: &str,
) -> String {
    format!(
        "{judge}\u{1f}{}\u{1f}{task}\u{1f}{model}\u{1f}{side:?}\u{1f}{sample}\u{1f}{prompt}",
        stage.as_str()
    )
}

/// `judgments.jsonl`, read and open for appending.
pub struct Ledger {
    path: PathBuf,
    recorded: HashMap<String, Judgment>,
    file: Mutex<File>,
    /// The judgments this session reused or recorded, by key.
    used: Mutex<BTreeMap<String, Judgment>>,
    /// Bytes of a torn last line cut off when opened.
    pub torn_bytes: u64,
    /// Lines that did not read as judgments (dropped).
    pub bad_lines: usize,
    /// Lines repeating the key of an earlier line (passed over).
    pub repeated_lines: usize,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a file of a judged folder that is a link, FIFO or device is refused.
fn not_regular(path: &Path, e: &io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: {e}: a judged folder's files are read and written only as regular files of the folder; move it away or give another -o",
        path.display()
    )
}

/// An error opening or reading `path`, named.
fn opening(path: &Path) -> impl Fn(io::Error) -> anyhow::Error + '_ {
    move |e| match e.kind() {
        io::ErrorKind::InvalidInput => not_regular(path, &e),
        _ => anyhow::Error::new(e).context(format!("reading {}", path.display())),
    }
}

impl Ledger {
    /// Opens (or creates) the judgments file of `dir`, cutting a torn last line.
    pub fn open(dir: &Path) -> anyhow::Result<Ledger> {
        let path = dir.join(JUDGMENTS_FILE);
        let mut options = OpenOptions::new();
        options.read(true).create(true).append(true);
        let mut file = open_own(&path, &mut options).map_err(opening(&path))?;
        let len = file.metadata().map_err(opening(&path))?.len();
        let complete = complete_len(&mut file, len).map_err(opening(&path))?;
        let mut ledger = Ledger {
            path,
            recorded: HashMap::new(),
            file: Mutex::new(file),
            used: Mutex::default(),
            torn_bytes: len - complete,
            bad_lines: 0,
            repeated_lines: 0,
        };
        ledger.read_lines(complete)?;
        if ledger.torn_bytes > 0 {
            let file = ledger.file.get_mut().unwrap_or_else(|p| p.into_inner());
            file.set_len(complete).with_context(|| {
                format!("cutting the torn last line of {}", ledger.path.display())
            })?;
        }
        Ok(ledger)
    }

    /// Reads the first `complete` bytes of the file, a line at a time.
    fn read_lines(&mut self, complete: u64) -> anyhow::Result<()> {
        let file = self.file.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut source: &File = file;
        io::Seek::seek(&mut source, io::SeekFrom::Start(0)).map_err(opening(&self.path))?;
        let mut reader = BufReader::new(source.take(complete));
        let mut line = Vec::new();
        loop {
            let read = read_line_capped(&mut reader, &mut line, MAX_LINE_BYTES)
                .map_err(opening(&self.path))?;
            match read {
                LineRead::End => break,
                LineRead::TooLong => {
                    skip_line(&mut reader).map_err(opening(&self.path))?;
                    self.bad_lines += 1;
                    continue;
                }
                LineRead::Ended | LineRead::Unended => {}
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(mut judgment) = serde_json::from_slice::<Judgment>(&line) else {
                self.bad_lines += 1;
                continue;
            };
            judgment.reason = clip(&judgment.reason, MAX_REASON_CHARS);
            match self.recorded.entry(judgment.key()) {
                std::collections::hash_map::Entry::Occupied(_) => self.repeated_lines += 1,
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(judgment);
                }
            }
        }
        Ok(())
    }

    /// The recorded answer to a request (the first line of its key), now
    /// used by this session.
    pub fn find(&self, key: &str) -> Option<Judgment> {
        let judgment = self.recorded.get(key)?.clone();
        self.use_judgment(&judgment);
        Some(judgment)
    }

    fn use_judgment(&self, judgment: &Judgment) {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        used.insert(judgment.key(), judgment.clone());
    }

    /// Lines recorded before this session (one per key).
    pub fn recorded(&self) -> usize {
        self.recorded.len()
    }

    /// Appends one line (whole, then flushed); the judgment is used.
    pub fn append(&self, judgment: &Judgment) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(judgment)?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", self.path.display()))?;
        drop(file);
        self.use_judgment(judgment);
        Ok(())
    }

    /// The judgments this session reused or recorded, once each, in the
    /// order of their keys: what its figures rest on.
    pub fn used(&self) -> Vec<Judgment> {
        let used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        used.values().cloned().collect()
    }
}

/// A judge's request settings, as kept in the settings file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeSettings {
    /// The name in the configuration.
    pub name: String,
    /// The model id asked.
    pub model_id: String,
    /// The backend.
    pub backend: String,
    /// The base URL, when set.
    pub base_url: Option<String>,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// The most tokens of a reply.
    pub max_tokens: u32,
}

/// What every session writing one judged folder must share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The metric.
    pub metric: super::Metric,
    /// The judges, in order.
    pub judges: Vec<JudgeSettings>,
    /// Pass-rate samples.
    pub samples: u32,
    /// SoPR runs.
    pub runs: u32,
    /// Win-rate rounds.
    pub rounds: u32,
    /// The coin-flip seed.
    pub seed: u64,
    /// The reference run (win rate).
    pub reference: Option<String>,
    /// SHA-256 of each prompt template.
    pub prompt_sha256: BTreeMap<String, String>,
    /// Most characters of each text from the run a judge is shown.
    pub max_shown_chars: usize,
    /// Most bytes of a judge's reply read.
    pub max_reply_bytes: u64,
}

/// Writes the settings of `dir`, or checks them against those recorded: a
/// difference is refused, naming the first setting that differs. Returns
/// whether the folder already held judgments.
pub fn claim_settings(dir: &Path, settings: &Settings, resume: bool) -> anyhow::Result<bool> {
    let path = dir.join(SETTINGS_FILE);
    let judgments = dir.join(JUDGMENTS_FILE);
    let held = match std::fs::symlink_metadata(&judgments) {
        Ok(meta) if !meta.file_type().is_file() => {
            let what = match meta.file_type().is_symlink() {
                true => "a symbolic link",
                false => "a FIFO, device or folder",
            };
            let e = io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a regular file ({what})"),
            );
            return Err(not_regular(&judgments, &e));
        }
        Ok(meta) => meta.len() > 0,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(opening(&judgments)(e)),
    };
    match read_own_capped(&path, MAX_SETTINGS_BYTES) {
        Ok(text) => {
            let earlier: Value = serde_json::from_slice(&text)
                .with_context(|| format!("{}: not valid JSON", path.display()))?;
            let now = serde_json::to_value(settings)?;
            if let Some(field) = first_difference(&earlier, &now) {
                bail!(
                    "{}: field `{field}`: this folder was judged with {}, this session asks {}; mixing judges or settings in one folder is forbidden: give another -o",
                    path.display(),
                    earlier.get(&field).unwrap_or(&Value::Null),
                    now.get(&field).unwrap_or(&Value::Null)
                );
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(opening(&path)(e)),
    }
    if held && !resume {
        bail!(
            "{} holds the judgments of an earlier session: give --resume to continue it, or another -o",
            dir.display()
        );
    }
    let text = serde_json::to_string_pretty(settings)? + "\n";
    crate::util::atomic::write(&path, text.as_bytes())?;
    Ok(held)
}

/// The first top-level field whose values differ.
fn first_difference(a: &Value, b: &Value) -> Option<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Some("(the whole file)".into());
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.dedup();
    keys.into_iter()
        .find(|k| a.get(*k) != b.get(*k))
        .map(|k| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judgment(task: &str) -> Judgment {
        Judgment {
            task_id: task.into(),
            model: "m".into(),
            side: None,
            sample: 1,
            stage: Stage::AnswerStatus,
            judge: "j".into(),
            judge_model: "j".into(),
            ask: 1,
            prompt_sha256: "ab".into(),
            label: Some(Label::Solved),
            response_label: None,
            reason: String::new(),
            coin: None,
            prompt_tokens: 1,
            completion_tokens: 1,
            cost_usd: 0.0,
            cache_hit: false,
            shown_cut_chars: 0,
        }
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path()).unwrap();
        ledger.append(&judgment("t1")).unwrap();
        ledger.append(&judgment("t2")).unwrap();
        drop(ledger);
        let path = dir.path().join(JUDGMENTS_FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.truncate(text.len() - 10);
        std::fs::write(&path, &text).unwrap();
        let ledger = Ledger::open(dir.path()).unwrap();
        assert_eq!(ledger.recorded(), 1);
        assert!(ledger.torn_bytes > 0);
        assert!(ledger.find(&judgment("t1").key()).is_some());
        ledger.append(&judgment("t2")).unwrap();
        assert_eq!(ledger.used().len(), 2);
        drop(ledger);
        assert_eq!(Ledger::open(dir.path()).unwrap().recorded(), 2);
    }

    /// Writes `lines` as the judgments file of `dir`.
    fn plant(dir: &Path, lines: &[Vec<u8>]) {
        let bytes: Vec<u8> = lines
            .iter()
            .flat_map(|l| [l.as_slice(), b"\n"].concat())
            .collect();
        std::fs::write(dir.join(JUDGMENTS_FILE), bytes).unwrap();
    }

    #[test]
    fn repeated_foreign_and_invalid_lines_are_never_counted() {
        let dir = tempfile::tempdir().unwrap();
        let line = |j: &Judgment| serde_json::to_vec(j).unwrap();
        let t1 = judgment("t1");
        let mut costly = judgment("t1");
        costly.prompt_tokens = 1_000_000;
        costly.cost_usd = 123.0;
        let mut invalid = line(&judgment("t9"));
        let at = invalid.windows(2).position(|w| w == b"t9").unwrap();
        invalid[at] = 0xff;
        plant(
            dir.path(),
            &[
                line(&t1),
                line(&costly),
                line(&t1),
                line(&judgment("elsewhere")),
                invalid,
            ],
        );
        for _ in 0..2 {
            let ledger = Ledger::open(dir.path()).unwrap();
            assert_eq!(ledger.recorded(), 2, "t1 once, and the task not in the run");
            assert_eq!((ledger.repeated_lines, ledger.bad_lines), (2, 1));
            assert_eq!(
                ledger.find(&t1.key()),
                Some(t1.clone()),
                "the first line wins"
            );
            assert_eq!(ledger.find(&t1.key()), Some(t1.clone()));
            // Only what the session asked for counts: t1, once.
            assert_eq!(ledger.used(), vec![t1.clone()]);
        }
    }

    #[test]
    fn long_reasons_are_cut_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut long = judgment("t1");
        long.reason = "é".repeat(MAX_REASON_CHARS * 2);
        plant(dir.path(), &[serde_json::to_vec(&long).unwrap()]);
        let ledger = Ledger::open(dir.path()).unwrap();
        let read = ledger.find(&long.key()).unwrap();
        assert_eq!(
            read.reason.chars().count(),
            MAX_REASON_CHARS + 1,
            "cut, with …"
        );
        let mut huge = judgment("t2");
        huge.reason = "x".repeat(MAX_LINE_BYTES);
        plant(
            dir.path(),
            &[
                serde_json::to_vec(&huge).unwrap(),
                serde_json::to_vec(&long).unwrap(),
            ],
        );
        let ledger = Ledger::open(dir.path()).unwrap();
        assert_eq!((ledger.recorded(), ledger.bad_lines), (1, 1));
    }

    #[cfg(unix)]
    #[test]
    fn planted_links_and_fifos_are_refused_and_outside_files_kept() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.jsonl");
        let text = format!(
            "{}\n{{\"torn",
            serde_json::to_string(&judgment("t1")).unwrap()
        );
        std::fs::write(&outside, &text).unwrap();
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let settings = Settings {
            metric: super::super::Metric::PassRate,
            judges: Vec::new(),
            samples: 1,
            runs: 1,
            rounds: 1,
            seed: 0,
            reference: None,
            prompt_sha256: BTreeMap::new(),
            max_shown_chars: 10,
            max_reply_bytes: 10,
        };
        let judgments = folder.join(JUDGMENTS_FILE);
        for target in [outside.as_path(), Path::new("/dev/zero")] {
            std::os::unix::fs::symlink(target, &judgments).unwrap();
            for resume in [false, true] {
                let e = claim_settings(&folder, &settings, resume).unwrap_err();
                assert!(format!("{e:#}").contains("a symbolic link"), "{e:#}");
            }
            let e = Ledger::open(&folder).err().unwrap();
            assert!(format!("{e:#}").contains("a symbolic link"), "{e:#}");
            std::fs::remove_file(&judgments).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), text);
        assert!(!folder.join(SETTINGS_FILE).exists(), "nothing written");
        let outside_settings = dir.path().join("outside.json");
        std::fs::write(&outside_settings, "{}").unwrap();
        std::os::unix::fs::symlink(&outside_settings, folder.join(SETTINGS_FILE)).unwrap();
        let e = claim_settings(&folder, &settings, true).unwrap_err();
        assert!(format!("{e:#}").contains("a symbolic link"), "{e:#}");
        assert_eq!(std::fs::read_to_string(&outside_settings).unwrap(), "{}");
        std::fs::remove_file(folder.join(SETTINGS_FILE)).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&judgments)
            .status();
        if made.is_ok_and(|s| s.success()) {
            let e = claim_settings(&folder, &settings, true).unwrap_err();
            assert!(format!("{e:#}").contains("not a regular file"), "{e:#}");
            let e = Ledger::open(&folder).err().unwrap();
            assert!(format!("{e:#}").contains("a FIFO"), "{e:#}");
        }
    }
}
