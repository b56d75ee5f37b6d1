//! The response cache: successful response bodies stored under a SHA-256 of
//! the canonical request, so a re-run sends no request it has sent before.
//!
//! The key covers the backend, the URL (endpoint and, for Gemini, model id)
//! and the JSON body (model id, parameters, messages, tools) — never the API
//! key, which travels only in headers. Entries live at
//! `DIR/<first two hex digits>/<key>.json` and are written atomically
//! (temporary file, then rename), so a crash leaves no half entry. An entry
//! is read only when it is a regular file (a symbolic link, FIFO or device
//! planted in its place is not followed) of at most [`MAX_ENTRY_BYTES`]
//! (or the caller's smaller cap); anything else counts as absent.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::backend::ApiRequest;
use super::config::Backend;
use crate::util::hash::sha256_hex;

/// Version of the key and entry format; bump to invalidate old entries.
const FORMAT: &str = "itc-cache-v1";

/// Most bytes of one cache entry read when the caller sets no smaller cap
/// (a larger entry counts as absent): far beyond any model's reply.
pub const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// JSON text with object keys sorted at every level and no white space, so
/// equal values give equal text whatever order their maps were built in.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Where a command keeps its response cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheSetting {
    /// The command's default place: `cache/` beside its run directory or
    /// output file.
    #[default]
    Default,
    /// This directory.
    Dir(PathBuf),
    /// No cache: send every request, store nothing.
    Off,
}

impl CacheSetting {
    /// From the `--cache DIR` and `--no-cache` flags.
    pub fn from_flags(dir: Option<&Path>, off: bool) -> CacheSetting {
        match (dir, off) {
            (_, true) => CacheSetting::Off,
            (Some(dir), false) => CacheSetting::Dir(dir.to_path_buf()),
            (None, false) => CacheSetting::Default,
        }
    }

    /// The directory to use, `default` giving the command's default place.
    pub fn dir(&self, default: impl FnOnce() -> PathBuf) -> Option<PathBuf> {
        match self {
            CacheSetting::Default => Some(default()),
            CacheSetting::Dir(dir) => Some(dir.clone()),
            CacheSetting::Off => None,
        }
    }
}

/// The cache key of a request: hex SHA-256 of its canonical form.
pub fn cache_key(backend: Backend, request: &ApiRequest) -> String {
    let material = serde_json::json!({
        "format": FORMAT,
        "backend": backend.as_str(),
        "url": request.url,
        "headers": request.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>(),
        "body": request.body,
    });
    sha256_hex(canonical_json(&material).as_bytes())
}

/// The cache key of the `sample`-th asking of one request: the request's
/// key for the first (0), a key of its own for each later one, so that a
/// conversation started again (SPEC §8 chain) is not answered from the
/// first try's answer.
pub fn sampled_key(key: String, sample: u32) -> String {
    if sample == 0 {
        return key;
    }
    sha256_hex(format!("{key}#sample{sample}").as_bytes())
}

/// One stored response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedResponse {
    /// The response body.
    pub body: Value,
    /// Latency of the original request.
    pub latency_ms: u64,
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// Opens (creating) a cache directory.
    pub fn open(dir: &Path) -> io::Result<Cache> {
        std::fs::create_dir_all(dir)?;
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The stored response for a key; unreadable entries count as absent.
    pub fn get(&self, key: &str) -> Option<CachedResponse> {
        self.get_within(key, MAX_ENTRY_BYTES)
    }

    /// [`Cache::get`] of an entry of at most `max_bytes` (a larger one
    /// counts as absent).
    pub fn get_within(&self, key: &str, max_bytes: u64) -> Option<CachedResponse> {
        let bytes = crate::util::regular::read_own_capped(&self.path(key), max_bytes).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores a response, whole or not at all ([`crate::util::atomic`]).
    pub fn put(&self, key: &str, entry: &CachedResponse) -> io::Result<()> {
        let path = self.path(key);
        std::fs::create_dir_all(path.parent().expect("entry has a parent"))?;
        crate::util::atomic::write(&path, &serde_json::to_vec(entry)?)
            .map_err(|e| io::Error::other(format!("{e:#}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::tools::NameMap;
    use serde_json::json;

    fn request(body: Value) -> ApiRequest {
        ApiRequest {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            headers: Vec::new(),
            body,
            names: NameMap::default(),
            read_by_caller: false,
        }
    }

    #[test]
    fn canonical_form_sorts_keys() {
        let a: Value =
            serde_json::from_str(r#"{"b": 1, "a": {"y": [1, {"d": 2, "c": "é"}], "x": null}}"#)
                .unwrap();
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":null,"y":[1,{"c":"é","d":2}]},"b":1}"#
        );
    }

    #[test]
    fn keys_are_stable_and_sensitive_to_every_part() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0});
        let key = cache_key(Backend::Openai, &request(body.clone()));
        assert_eq!(key, cache_key(Backend::Openai, &request(body.clone())));
        // Pinned (computed independently with Python's json.dumps(sort_keys=True)
        // and hashlib): a change here invalidates every cache on disk.
        assert_eq!(
            key,
            "8eb0bfa31635b92f044fcaf42068d93647a379f30dc0f2db226ac687fbe05b18"
        );
        assert_ne!(key, cache_key(Backend::Anthropic, &request(body.clone())));
        let mut other = request(body.clone());
        other.url = "http://127.0.0.1:10/v1/chat/completions".into();
        assert_ne!(key, cache_key(Backend::Openai, &other));
        let mut changed = body.clone();
        changed["temperature"] = json!(0.5);
        assert_ne!(key, cache_key(Backend::Openai, &request(changed)));
    }

    #[test]
    fn entries_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("c")).unwrap();
        let key = cache_key(Backend::Openai, &request(json!({"a": 1})));
        assert_eq!(cache.get(&key), None);
        let entry = CachedResponse {
            body: json!({"choices": []}),
            latency_ms: 12,
        };
        cache.put(&key, &entry).unwrap();
        assert_eq!(cache.get(&key), Some(entry));
        assert_eq!(cache.get_within(&key, 10), None, "larger than the cap");
        std::fs::write(cache.path(&key), "{torn").unwrap();
        assert_eq!(cache.get(&key), None);
    }

    #[cfg(unix)]
    #[test]
    fn planted_links_fifos_and_devices_are_absent_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("c")).unwrap();
        let entry = CachedResponse {
            body: json!({"choices": []}),
            latency_ms: 1,
        };
        let outside = dir.path().join("outside.json");
        std::fs::write(&outside, serde_json::to_vec(&entry).unwrap()).unwrap();
        let key = |n: u8| cache_key(Backend::Openai, &request(json!({"n": n})));
        let plant = |key: &str| {
            let path = cache.path(key);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            path
        };
        std::os::unix::fs::symlink(&outside, plant(&key(1))).unwrap();
        assert_eq!(cache.get(&key(1)), None, "a link is not followed");
        std::os::unix::fs::symlink("/dev/zero", plant(&key(2))).unwrap();
        assert_eq!(cache.get(&key(2)), None, "/dev/zero is not read");
        let fifo = plant(&key(3));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(cache.get(&key(3)), None, "a FIFO does not hang");
        }
        // Storing over the link replaces the link, never the file it names.
        cache.put(&key(1), &entry).unwrap();
        assert_eq!(cache.get(&key(1)), Some(entry.clone()));
        assert_eq!(
            std::fs::read(&outside).unwrap(),
            serde_json::to_vec(&entry).unwrap()
        );
    }
}
