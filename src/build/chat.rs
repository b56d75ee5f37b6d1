//! What the LLM stages of task-set building share (`itc generate`,
//! `itc filter`, `itc answer`, `itc pipeline`): sending many chats to one
//! model at its configured concurrency, and counting what they cost.
//!
//! Every chat goes through [`ChatModel`], so it is cached by the hash of
//! its request: re-running a stage whose chats are all cached sends no
//! request, and a stage cut short resumes where the cache ends.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::bail;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::task::JoinSet;

use crate::models::cache::CacheSetting;
use crate::models::{Chat, ChatModel, Completion, ConfigFile, ModelConfig, ModelSpec};
use crate::spec::jsonl::read_records;
use crate::spec::records::GeneratedQuery;
use crate::util::hash::to_hex;

/// Requests, tokens and cost of one stage (or one model within it).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct StageStats {
    /// Chats answered or failed.
    pub chats: u64,
    /// Chats the cache answered.
    pub cache_hits: u64,
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// Chats that ended with an error.
    pub errors: u64,
    /// Prompt tokens the server reported (cache hits included).
    pub prompt_tokens: u64,
    /// Completion tokens the server reported (cache hits included).
    pub completion_tokens: u64,
    /// Cost of the tokens sent in this session at the configured prices (USD);
    /// cache hits cost nothing.
    pub cost_usd: f64,
}

impl StageStats {
    /// Counts one completion of a model.
    pub fn record(&mut self, completion: &Completion, config: &ModelConfig) {
        self.chats += 1;
        self.cache_hits += u64::from(completion.cache_hit);
        self.requests += u64::from(completion.requests);
        match &completion.result {
            Ok(answer) => {
                if let Some(usage) = answer.usage {
                    self.prompt_tokens += usage.prompt_tokens;
                    self.completion_tokens += usage.completion_tokens;
                    if !completion.cache_hit {
                        self.cost_usd += usage.prompt_tokens as f64 / 1e6
                            * config.price_input_per_mtok.unwrap_or(0.0)
                            + usage.completion_tokens as f64 / 1e6
                                * config.price_output_per_mtok.unwrap_or(0.0);
                    }
                }
            }
            Err(_) => self.errors += 1,
        }
    }

    /// Adds another stage's figures.
    pub fn add(&mut self, other: &StageStats) {
        self.chats += other.chats;
        self.cache_hits += other.cache_hits;
        self.requests += other.requests;
        self.errors += other.errors;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cost_usd += other.cost_usd;
    }
}

impl fmt::Display for StageStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} chats ({} cached, {} errors), {} requests, {} prompt + {} completion tokens, ${:.4}",
            self.chats,
            self.cache_hits,
            self.errors,
            self.requests,
            self.prompt_tokens,
            self.completion_tokens,
            self.cost_usd
        )
    }
}

/// The model named `name` in a `models.toml`, with its key read from the
/// environment (errors name the file, the model and a missing variable).
pub fn load_model(config: &Path, name: &str) -> anyhow::Result<ModelSpec> {
    ModelSpec::resolve(ConfigFile::load_one(config, name)?)
}

/// SHA-256 (hex) of a chat's messages and schema: the prompt hash kept in
/// provenance records.
pub fn prompt_sha256(chat: &Chat) -> String {
    let mut hasher = Sha256::new();
    hasher.update(chat.system.as_bytes());
    hasher.update([0]);
    hasher.update(chat.user.as_bytes());
    hasher.update([0]);
    if let Some(schema) = &chat.schema {
        hasher.update(schema.to_string().as_bytes());
    }
    to_hex(&hasher.finalize())
}

/// `<stem>.<suffix>` in the directory of `path` (`out/tasks.jsonl`,
/// `rejects.jsonl` → `out/tasks.rejects.jsonl`).
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!("{stem}.{suffix}"))
}

/// Reads a query file (`GeneratedQuery` or `JudgedQuery` lines); a repeated
/// id is an error naming both lines.
pub fn read_queries(path: &Path) -> anyhow::Result<Vec<GeneratedQuery>> {
    let (queries, _) = read_records::<GeneratedQuery>(path, false)?;
    let mut seen: HashMap<&str, usize> = HashMap::new();
    // Line numbers of non-blank records, for the message.
    let mut lines = Vec::new();
    crate::spec::jsonl::for_each_line(path, |number, _| {
        lines.push(number);
        Ok(())
    })?;
    for (i, q) in queries.iter().enumerate() {
        if let Some(first) = seen.insert(&q.id, i) {
            bail!(
                "{}:{}: field `id`: duplicate id {:?} (first on line {})",
                path.display(),
                lines[i],
                q.id,
                lines[first]
            );
        }
    }
    Ok(queries)
}

/// The response cache of a stage: by default `cache/` beside the output file.
pub fn stage_cache(cache: &CacheSetting, output: &Path) -> Option<PathBuf> {
    cache.dir(|| output.parent().unwrap_or(Path::new(".")).join("cache"))
}

/// A progress bar for a stage's chats on stderr, drawn only when stderr is
/// a terminal.
fn stage_bar(total: u64, model: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let target = if std::io::stderr().is_terminal() && total > 0 {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} chats {per_sec} ETA {eta}",
        )
        .expect("template parses")
        .progress_chars("=> "),
    );
    bar.set_message(model.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Sends every chat to the model (at most its configured concurrency at a
/// time) and returns the completions in the order of `chats`. `on_done` is
/// called as each completes, with its index (for progress and incremental
/// output).
pub async fn complete_all(
    model: &ChatModel,
    chats: Vec<Chat>,
    mut on_done: impl FnMut(usize, &Completion),
) -> Vec<Completion> {
    let mut workers = JoinSet::new();
    let total = chats.len();
    let bar = stage_bar(total as u64, model.name());
    let mut errors = 0;
    for (index, chat) in chats.into_iter().enumerate() {
        let model = model.clone();
        workers.spawn(async move { (index, model.complete(&chat).await) });
    }
    let mut done: Vec<Option<Completion>> = vec![None; total];
    while let Some(joined) = workers.join_next().await {
        // A worker only panics on a bug; its chat is then reported as an error below.
        if let Ok((index, completion)) = joined {
            bar.inc(1);
            if completion.result.is_err() {
                errors += 1;
                bar.set_message(format!("{} ({errors} failed)", model.name()));
            }
            on_done(index, &completion);
            done[index] = Some(completion);
        }
    }
    bar.finish_and_clear();
    done.into_iter()
        .map(|c| {
            c.unwrap_or(Completion {
                result: Err((
                    crate::models::ErrorKind::Internal,
                    "the chat's worker stopped without a result".into(),
                )),
                requests: 0,
                cache_hit: false,
                latency_ms: 0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{Answer, Backend, ErrorKind};
    use crate::spec::records::Usage;

    fn completion(cache_hit: bool, ok: bool) -> Completion {
        Completion {
            result: if ok {
                Ok(Answer {
                    output: Some("x".into()),
                    usage: Some(Usage {
                        prompt_tokens: 1_000_000,
                        completion_tokens: 500_000,
                    }),
                    ..Answer::default()
                })
            } else {
                Err((ErrorKind::Server, "boom".into()))
            },
            requests: if cache_hit { 0 } else { 2 },
            cache_hit,
            latency_ms: 5,
        }
    }

    #[test]
    fn stats_count_tokens_and_charge_only_sent_requests() {
        let mut config = ModelConfig::new("m", Backend::Openai);
        config.price_input_per_mtok = Some(2.0);
        config.price_output_per_mtok = Some(10.0);
        let mut stats = StageStats::default();
        stats.record(&completion(false, true), &config);
        stats.record(&completion(true, true), &config);
        stats.record(&completion(false, false), &config);
        assert_eq!(
            (stats.chats, stats.cache_hits, stats.requests, stats.errors),
            (3, 1, 4, 1)
        );
        assert_eq!(stats.prompt_tokens, 2_000_000);
        assert!((stats.cost_usd - 7.0).abs() < 1e-9, "{}", stats.cost_usd);
        let mut total = StageStats::default();
        total.add(&stats);
        total.add(&stats);
        assert_eq!(total.requests, 8);
    }

    #[test]
    fn prompt_hash_depends_on_every_part() {
        let a = Chat::new("s", "u");
        let b = Chat::new("s", "u2");
        let c = Chat::new("s", "u").with_schema(serde_json::json!({"type": "object"}));
        assert_eq!(prompt_sha256(&a), prompt_sha256(&Chat::new("s", "u")));
        assert_ne!(prompt_sha256(&a), prompt_sha256(&b));
        assert_ne!(prompt_sha256(&a), prompt_sha256(&c));
        assert_eq!(prompt_sha256(&a).len(), 64);
        // The separator keeps "su" + "" apart from "s" + "u".
        assert_ne!(prompt_sha256(&Chat::new("su", "")), prompt_sha256(&a));
    }
}
