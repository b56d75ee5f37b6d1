//! Checks of a run's servers before the run, each a request or two:
//!
//! - **Slots.** A local server works on a fixed number of requests at once
//!   (llama.cpp: its slots, `--parallel`) and queues the rest, so a run with
//!   a higher concurrency measures the wait as latency. Against a loopback
//!   URL, `GET <root>/props` (`total_slots`) or `GET <root>/slots` (one entry
//!   per slot) tells how many; the run prints it once per server. The
//!   models on it that set no concurrency (`--concurrency`, `concurrency`
//!   in `models.toml`) share the slots the others leave: at most that many
//!   requests at once in all, at least one per model ([`slot_shares`]). A
//!   concurrency set above the slots still wins, with a warning.
//! - **Tools.** A server can accept `tools` and still not show them to the
//!   model (llama.cpp with a chat template that drops them), and native mode
//!   then benchmarks a model that never sees a tool. For a native-mode model
//!   on an OpenAI-compatible server (never OpenAI's own API, nor a model
//!   asked through the Responses API), the first task's request is sent twice
//!   with a length limit of one token, with and without its tools; the same
//!   `prompt_tokens` for both means the tools were ignored: a warning. Both
//!   answers go through the response cache, so a re-run sends nothing.
//!
//! Failures of these requests are not errors: the check is skipped.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::api::api_for;
use super::backend::ApiRequest;
use super::cache::{Cache, CachedResponse, cache_key};
use super::config::{Backend, Mode, OpenAiApi};
use super::exchange::ModelSpec;
use super::http::{is_loopback, send};
use super::providers::openai::length_field;
use crate::spec::records::Task;
use crate::util::runtime::{Threads, block_on};

/// How long a `GET /props` may take.
const PROPS_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs the checks for the models of a run, printing notes and warnings on
/// `err`; returns the warnings (for `run.json`). A model that sets no
/// concurrency gets its share of its local server's slots, when the server
/// reports them.
pub fn check_servers(
    specs: &mut [ModelSpec],
    tasks: &[Task],
    cache_dir: Option<&Path>,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<String>> {
    let mut warnings = share_slots(specs, err)?;
    let cache = cache_dir.and_then(|dir| Cache::open(dir).ok());
    let notes = block_on(Threads::Current, async {
        let mut notes = Vec::new();
        for spec in specs.iter() {
            if let Some(warning) = tools_ignored(spec, tasks, cache.as_ref()).await {
                notes.push(format!("warning: {warning}"));
                warnings.push(warning);
            }
        }
        notes
    })?;
    for note in notes {
        writeln!(err, "{note}")?;
    }
    Ok(warnings)
}

/// The slots check alone (for models that answer chats: judges): a model
/// that sets no concurrency gets its share of its local server's slots,
/// when the server reports them; prints a note per server on `err` and
/// returns the warnings.
pub fn share_slots(specs: &mut [ModelSpec], err: &mut dyn Write) -> anyhow::Result<Vec<String>> {
    let (notes, warnings) = block_on(Threads::Current, async {
        let mut notes = Vec::new();
        let mut warnings = Vec::new();
        for (url, mut load) in local_servers(specs) {
            let Some(slots) = server_slots(&url).await else {
                continue;
            };
            match slot_shares(slots, load.concurrency, load.unset.len()) {
                SlotShare::Each(shares) => {
                    for (&m, &share) in load.unset.iter().zip(&shares) {
                        specs[m].config.concurrency = Some(share);
                    }
                    load.concurrency += shares.iter().sum::<usize>();
                }
                SlotShare::Pool(permits) => {
                    for &m in &load.unset {
                        specs[m].config.concurrency = Some(permits);
                        specs[m].slot_pool = Some(url.clone());
                    }
                    load.concurrency += permits;
                    load.pooled = true;
                }
            }
            let (note, warning) = slot_note(&url, slots, &load);
            notes.push(note);
            warnings.extend(warning);
        }
        (notes, warnings)
    })?;
    for note in notes {
        writeln!(err, "{note}")?;
    }
    Ok(warnings)
}

/// The models that share one server: their names and summed concurrency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLoad {
    /// Model names, in run order.
    pub models: Vec<String>,
    /// Requests the models send at once, together (before the slots are
    /// shared out: of the models that set a concurrency only).
    pub concurrency: usize,
    /// The models (indexes into the run's models) that set no concurrency.
    pub unset: Vec<usize>,
    /// Whether those models wait for one pool of the slots in turn
    /// ([`SlotShare::Pool`]).
    pub pooled: bool,
}

/// How the models on a server that set no concurrency use the slots the
/// others leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotShare {
    /// Each model its own concurrency, in model order.
    Each(Vec<usize>),
    /// More such models than slots left: one pool of this many permits
    /// (at least one) that they all wait on, in turn.
    Pool(usize),
}

/// How `unset` models sharing a server of `slots` slots with models that
/// send `set` requests at once use the slots left: split evenly when there
/// are at least as many as models (the first models get one more when they
/// do not divide), else one pool of them (at least one permit), so that
/// together they never send more requests than the slots left.
pub fn slot_shares(slots: usize, set: usize, unset: usize) -> SlotShare {
    let free = slots.saturating_sub(set);
    if unset > 1 && unset > free {
        return SlotShare::Pool(free.max(1));
    }
    SlotShare::Each(
        (0..unset)
            .map(|i| (free / unset + usize::from(i < free % unset)).max(1))
            .collect(),
    )
}

/// The loopback OpenAI-compatible servers of a run, by base URL.
fn local_servers(specs: &[ModelSpec]) -> BTreeMap<String, ServerLoad> {
    let mut servers: BTreeMap<String, ServerLoad> = BTreeMap::new();
    for (m, spec) in specs.iter().enumerate() {
        let config = &spec.config;
        let url = config.effective_base_url();
        if config.backend != Backend::Openai || !is_loopback(&url) {
            continue;
        }
        let load = servers.entry(url).or_default();
        load.models.push(config.name.clone());
        match config.concurrency {
            Some(set) => load.concurrency += set,
            None => load.unset.push(m),
        }
    }
    servers
}

/// The server root of an OpenAI-compatible base URL (`…/v1` removed), where
/// llama.cpp serves `/props` and `/slots`.
pub fn server_root(base_url: &str) -> &str {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base)
}

/// The slot count a server reports: `total_slots` of `GET /props`, else the
/// length of `GET /slots`; `None` when neither answers with one.
async fn server_slots(base_url: &str) -> Option<usize> {
    let client = reqwest::Client::builder().no_proxy().build().ok()?;
    let root = server_root(base_url);
    let get = |path: &'static str| {
        let request = client.get(format!("{root}{path}")).timeout(PROPS_TIMEOUT);
        async move {
            let response = request.send().await.ok()?;
            if !response.status().is_success() {
                return None;
            }
            response.json::<Value>().await.ok()
        }
    };
    if let Some(props) = get("/props").await
        && let Some(n) = props.get("total_slots").and_then(Value::as_u64)
        && n > 0
    {
        return Some(n as usize);
    }
    match get("/slots").await? {
        Value::Array(slots) if !slots.is_empty() => Some(slots.len()),
        _ => None,
    }
}

/// The note on a server's slots, and a warning when `load` exceeds them.
pub fn slot_note(url: &str, slots: usize, load: &ServerLoad) -> (String, Option<String>) {
    let plural = if slots == 1 { "slot" } else { "slots" };
    let who = match load.models.as_slice() {
        [one] => format!("model `{one}`"),
        many => format!("models {}", many.join(", ")),
    };
    let head = format!("the server at {url} has {slots} {plural} (requests it works on at once)");
    if load.concurrency > slots {
        let warning = format!(
            "{head}; concurrency {} ({who}) queues requests there, and their latencies include the wait (use --concurrency {slots})",
            load.concurrency
        );
        (format!("note: {warning}"), Some(warning))
    } else {
        let from_slots = if load.unset.is_empty() {
            ""
        } else if load.pooled {
            ", from the slots: the models that set none take turns (--concurrency sets another)"
        } else {
            ", from the slots (--concurrency sets another)"
        };
        (
            format!(
                "note: {head}; concurrency {} ({who}){from_slots}",
                load.concurrency
            ),
            None,
        )
    }
}

/// For a native-mode model on an OpenAI-compatible server: a warning when
/// the server counts the same prompt tokens with and without the tools of
/// the first task that has some.
async fn tools_ignored(spec: &ModelSpec, tasks: &[Task], cache: Option<&Cache>) -> Option<String> {
    let config = &spec.config;
    // Never against a paid API: OpenAI's own, or one asked through the
    // Responses API (BFCL's official requests), which this check cannot read.
    let paid = config.effective_base_url().contains("://api.openai.com")
        || config.openai_api() == OpenAiApi::Responses;
    if config.mode != Mode::Native || config.backend != Backend::Openai || paid {
        return None;
    }
    let task = tasks.iter().find(|t| !t.tools.is_empty())?;
    let api = api_for(config)?;
    let (with_tools, without) = probe_pair(api.build(task), &config.effective_base_url());
    let auth = spec
        .key
        .as_ref()
        .map(|k| api.auth_headers(k))
        .unwrap_or_default();
    // A proxy from `HTTP_PROXY` cannot reach this machine's loopback.
    let builder = reqwest::Client::builder();
    let builder = if is_loopback(&with_tools.url) {
        builder.no_proxy()
    } else {
        builder
    };
    let client = builder.build().ok()?;
    let mut counts = Vec::new();
    for request in [&without, &with_tools] {
        let key = cache_key(api.kind(), request);
        let body = match cache.and_then(|c| c.get(&key)) {
            Some(hit) => hit.body,
            None => {
                let body = send(&client, request, &auth, config.timeout(), None)
                    .await
                    .ok()?;
                if let Some(cache) = cache {
                    let entry = CachedResponse {
                        body: body.clone(),
                        latency_ms: 0,
                    };
                    let _ = cache.put(&key, &entry);
                }
                body
            }
        };
        counts.push(api.parse(&body, &request.names).ok()?.usage?.prompt_tokens);
    }
    (counts[0] == counts[1]).then(|| {
        format!(
            "model `{}`: the server at {} counts the same prompt tokens ({}) with and without the {} tool(s) of task {}: it does not show the tools to the model, so native mode measures a model that never sees a tool (llama.cpp needs a chat template that renders tools, as scripts/local-llm.sh gives it)",
            config.name,
            config.effective_base_url(),
            counts[0],
            task.tools.len(),
            task.id
        )
    })
}

/// A task's request with a one-token length limit, and the same without
/// its tools.
pub fn probe_pair(mut request: ApiRequest, base_url: &str) -> (ApiRequest, ApiRequest) {
    request.body[length_field(base_url)] = Value::from(1);
    let mut without = request.clone();
    if let Some(body) = without.body.as_object_mut() {
        body.remove("tools");
        body.remove("tool_choice");
        body.remove("parallel_tool_calls");
    }
    (request, without)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::config::ModelConfig;
    use serde_json::json;

    fn spec(name: &str, url: &str, backend: Backend, concurrency: Option<usize>) -> ModelSpec {
        let mut config = ModelConfig::new(name, backend);
        config.base_url = Some(url.into());
        config.concurrency = concurrency;
        ModelSpec {
            config,
            key: None,
            slot_pool: None,
        }
    }

    #[test]
    fn local_servers_sum_the_concurrency_of_the_models_they_serve() {
        let specs = [
            spec("a", "http://127.0.0.1:8765/v1", Backend::Openai, Some(4)),
            spec("b", "http://127.0.0.1:8765/v1/", Backend::Openai, Some(2)),
            spec("c", "http://localhost:9000/v1", Backend::Openai, Some(1)),
            spec("d", "http://127.0.0.1:8765/v1", Backend::Openai, None),
            spec(
                "remote",
                "https://api.example.com/v1",
                Backend::Openai,
                Some(8),
            ),
            spec(
                "claude",
                "http://127.0.0.1:8765/v1",
                Backend::Anthropic,
                None,
            ),
        ];
        let servers = local_servers(&specs);
        assert_eq!(servers.len(), 2, "{servers:?}");
        assert_eq!(
            servers["http://127.0.0.1:8765/v1"],
            ServerLoad {
                models: vec!["a".into(), "b".into(), "d".into()],
                concurrency: 6,
                unset: vec![3],
                pooled: false,
            }
        );
        assert_eq!(servers["http://localhost:9000/v1"].concurrency, 1);
    }

    #[test]
    fn models_without_a_concurrency_share_the_slots_left() {
        use SlotShare::{Each, Pool};
        assert_eq!(slot_shares(1, 0, 1), Each(vec![1]));
        assert_eq!(slot_shares(4, 0, 1), Each(vec![4]));
        assert_eq!(slot_shares(4, 0, 3), Each(vec![2, 1, 1]));
        assert_eq!(slot_shares(6, 2, 2), Each(vec![2, 2]));
        assert_eq!(slot_shares(3, 0, 0), Each(Vec::new()));
        // One model alone keeps one request even when the others took every slot.
        assert_eq!(slot_shares(2, 5, 1), Each(vec![1]));
        // More models than slots left: they take turns at the slots left.
        assert_eq!(slot_shares(2, 0, 3), Pool(2));
        assert_eq!(slot_shares(1, 0, 2), Pool(1));
        assert_eq!(slot_shares(2, 5, 2), Pool(1));
        for (slots, unset) in [(1, 1), (7, 3), (16, 5), (5, 5), (1, 2), (3, 8)] {
            let sent = match slot_shares(slots, 0, unset) {
                Each(shares) => shares.iter().sum::<usize>(),
                Pool(permits) => permits,
            };
            assert_eq!(sent, slots, "{slots} slots, {unset} models");
        }
    }

    #[test]
    fn the_note_warns_only_when_requests_would_queue() {
        let load = |c| ServerLoad {
            models: vec!["m".into()],
            concurrency: c,
            unset: Vec::new(),
            pooled: false,
        };
        let url = "http://127.0.0.1:8765/v1";
        let (note, warning) = slot_note(url, 1, &load(4));
        assert_eq!(
            note,
            "note: the server at http://127.0.0.1:8765/v1 has 1 slot (requests it works on at once); concurrency 4 (model `m`) queues requests there, and their latencies include the wait (use --concurrency 1)"
        );
        assert_eq!(Some(note.trim_start_matches("note: ").to_string()), warning);
        let (note, warning) = slot_note(url, 4, &load(4));
        assert!(
            note.ends_with("has 4 slots (requests it works on at once); concurrency 4 (model `m`)"),
            "{note}"
        );
        assert_eq!(warning, None);
        let shared = ServerLoad {
            unset: vec![0],
            ..load(1)
        };
        let (note, _) = slot_note(url, 1, &shared);
        assert!(
            note.ends_with(
                "concurrency 1 (model `m`), from the slots (--concurrency sets another)"
            ),
            "{note}"
        );
    }

    #[test]
    fn the_root_drops_the_api_prefix() {
        assert_eq!(
            server_root("http://127.0.0.1:8765/v1"),
            "http://127.0.0.1:8765"
        );
        assert_eq!(
            server_root("http://127.0.0.1:8765/v1/"),
            "http://127.0.0.1:8765"
        );
        assert_eq!(
            server_root("http://127.0.0.1:11434"),
            "http://127.0.0.1:11434"
        );
    }

    #[test]
    fn probes_ask_for_one_token_with_and_without_the_tools() {
        let request = ApiRequest {
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            headers: Vec::new(),
            body: json!({"model": "m", "messages": [], "max_tokens": 256, "tools": [{"type": "function"}], "tool_choice": "auto"}),
            names: Default::default(),
            read_by_caller: false,
        };
        let (with, without) = probe_pair(request, "http://127.0.0.1:1/v1");
        assert_eq!(
            with.body,
            json!({"model": "m", "messages": [], "max_tokens": 1, "tools": [{"type": "function"}], "tool_choice": "auto"})
        );
        assert_eq!(
            without.body,
            json!({"model": "m", "messages": [], "max_tokens": 1})
        );
        let openai = ApiRequest {
            body: json!({"max_completion_tokens": 256}),
            ..with
        };
        let (with, _) = probe_pair(openai, "https://api.openai.com/v1");
        assert_eq!(with.body, json!({"max_completion_tokens": 1}));
    }
}
