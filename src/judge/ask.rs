//! Asking one judge one request (SPEC §8 "Judges"): reuse the line recorded
//! in `judgments.jsonl` when there is one, else send the chat through
//! [`ChatModel`] (so it is cached like any model answer), read the label,
//! record the line, and ask again with a note naming the label set while
//! the reply cannot be read (at most [`MAX_REASKS`] times). A reply longer
//! than [`Judge::max_reply_bytes`] is not read (over HTTP, not beyond the
//! cap): it is recorded as unreadable, saying so in its reason.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::anyhow;

use super::labels::{Label, Reading, Stage, read_reply};
use super::ledger::{Judgment, Ledger, MAX_REASON_CHARS, Side, request_key};
use super::prompts::{chat_sha256, retry_chat};
use crate::models::http::ErrorKind;
use crate::models::{Chat, ChatModel};
use crate::spec::records::Usage;
use crate::util::bounded::clip;

/// How many times an unreadable reply is asked again before the label is
/// recorded as unreadable (SPEC §8: at most 3).
pub const MAX_REASKS: u32 = 3;

/// One judge, asking through the response cache and the folder's ledger.
pub struct Judge {
    /// The model.
    pub model: ChatModel,
    /// Its model id (the name when none is configured).
    pub model_id: String,
    /// Most bytes of a reply read (`--max-judge-reply-bytes`).
    pub max_reply_bytes: u64,
    /// Most characters of each text from the run it is shown
    /// (`--max-shown-chars`).
    pub max_shown_chars: usize,
    /// Where its judgments go.
    pub ledger: Arc<Ledger>,
    /// Requests sent in this session (retries included; 0 for cache hits).
    pub sent: AtomicU64,
    /// Judgments taken from the ledger in this session.
    pub reused: AtomicU64,
}

/// What a request is about.
#[derive(Debug, Clone)]
pub struct About<'a> {
    /// The task.
    pub task: &'a str,
    /// The candidate model.
    pub model: &'a str,
    /// Win rate: whose answer.
    pub side: Option<Side>,
    /// Sample, run or round, from 1.
    pub sample: u32,
    /// The stage.
    pub stage: Stage,
}

/// What one task's flow met: its unreadable labels and the requests it sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// Final readings without a label.
    pub unreadable: u32,
    /// Requests sent (retries included; none for a judgment taken from the
    /// judgments file or a reply from the cache).
    pub sent: u64,
    /// The tokens of the replies read in this session (cached ones too).
    pub usage: Usage,
}

impl Tally {
    /// The flow as a progress bar counts it.
    pub fn task_done(&self, error: bool) -> crate::run::progress::TaskDone {
        crate::run::progress::TaskDone {
            requests: self.sent,
            usage: Some(self.usage),
            error,
        }
    }
}

/// The seeded coin a request's label may call for, decided once the label is read.
pub type CoinFor<'a> = &'a (dyn Fn(Option<Label>) -> Option<bool> + Sync);

impl Judge {
    /// The judge's name in the configuration.
    pub fn name(&self) -> &str {
        self.model.name()
    }

    /// Asks `chat` (again after unreadable replies), which left out
    /// `cut_chars` characters of the run's texts; the final reading,
    /// with unreadable labels as `None`. An error: a request failed after
    /// its retries (nothing is recorded for it, so a resumed session asks it).
    /// The requests sent are added to `tally`.
    pub async fn ask(
        &self,
        about: &About<'_>,
        chat: Chat,
        cut_chars: u64,
        coin: CoinFor<'_>,
        tally: &mut Tally,
    ) -> anyhow::Result<Reading> {
        let mut reading = Reading::default();
        for ask in 1..=1 + MAX_REASKS {
            let chat = if ask == 1 {
                chat.clone()
            } else {
                retry_chat(&chat, about.stage, ask)
            };
            let judgment = self
                .ask_once(about, &chat, (ask, cut_chars), coin, tally)
                .await?;
            reading = Reading {
                label: judgment.label,
                response: judgment.response_label,
                reason: judgment.reason,
            };
            if reading.readable(about.stage) {
                break;
            }
        }
        Ok(reading)
    }

    /// One asking: `ask` counts from 1, `cut_chars` and `tally` as in
    /// [`Judge::ask`].
    async fn ask_once(
        &self,
        about: &About<'_>,
        chat: &Chat,
        (ask, cut_chars): (u32, u64),
        coin: CoinFor<'_>,
        tally: &mut Tally,
    ) -> anyhow::Result<Judgment> {
        let prompt = chat_sha256(chat);
        let key = request_key(
            self.name(),
            about.stage,
            about.task,
            about.model,
            about.side,
            about.sample,
            &prompt,
        );
        if let Some(recorded) = self.ledger.find(&key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return Ok(recorded);
        }
        let completion = self.model.complete(chat).await;
        self.sent
            .fetch_add(u64::from(completion.requests), Ordering::Relaxed);
        tally.sent += u64::from(completion.requests);
        let (reading, usage) = match completion.result {
            Ok(answer) => {
                let text = answer.output.as_deref().unwrap_or_default();
                let reading = match text.len() as u64 > self.max_reply_bytes {
                    true => self.too_long(&format!("a reply of {} bytes", text.len())),
                    false => read_reply(about.stage, text),
                };
                (reading, answer.usage.unwrap_or_default())
            }
            Err((ErrorKind::TooLarge, message)) => (self.too_long(&message), Default::default()),
            Err((kind, message)) => {
                return Err(anyhow!(
                    "judge `{}`: task {}: {} request failed ({kind:?}): {message}",
                    self.name(),
                    about.task,
                    about.stage.as_str()
                ));
            }
        };
        tally.usage.prompt_tokens = tally
            .usage
            .prompt_tokens
            .saturating_add(usage.prompt_tokens);
        tally.usage.completion_tokens =
            (tally.usage.completion_tokens).saturating_add(usage.completion_tokens);
        let config = self.model.config();
        let cost_usd = if completion.cache_hit {
            0.0
        } else {
            usage.prompt_tokens as f64 / 1e6 * config.price_input_per_mtok.unwrap_or(0.0)
                + usage.completion_tokens as f64 / 1e6 * config.price_output_per_mtok.unwrap_or(0.0)
        };
        let readable = reading.readable(about.stage);
        let judgment = Judgment {
            task_id: about.task.to_string(),
            model: about.model.to_string(),
            side: about.side,
            sample: about.sample,
            stage: about.stage,
            judge: self.name().to_string(),
            judge_model: self.model_id.clone(),
            ask,
            prompt_sha256: prompt,
            label: reading.label,
            response_label: reading.response,
            reason: clip(&reading.reason, MAX_REASON_CHARS),
            shown_cut_chars: cut_chars,
            coin: if readable || ask > MAX_REASKS {
                coin(reading.label.filter(|_| readable))
            } else {
                None
            },
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            cost_usd,
            cache_hit: completion.cache_hit,
        };
        self.ledger.append(&judgment)?;
        Ok(judgment)
    }

    /// The reading of a reply longer than the judge's cap: unreadable.
    fn too_long(&self, what: &str) -> Reading {
        Reading {
            reason: format!(
                "(not read: {what}, longer than --max-judge-reply-bytes {})",
                self.max_reply_bytes
            ),
            ..Reading::default()
        }
    }
}
