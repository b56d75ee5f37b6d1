//! τ³-bench (`sierra-research/tau2-bench`, formerly τ²-bench), ported from
//! the official code at commit `a2c0247`: behaviour, not text. An agent
//! follows a store's policy with its tools while a second model plays the
//! customer; a trial passes when the database ends as the gold actions
//! leave it.
//!
//! - [`protocol`]: the official prompts, greeting and stop tokens (benchmark data).
//! - [`format`](mod@format): the official tasks, messages, simulation runs and results file.
//! - [`checks`]: the evaluator's action and communicate checks, premature
//!   terminations and the reward from the task's basis (the DB component
//!   and NL verdicts come from the caller).
//! - [`pass_k`]: the official average reward and pass^k, bit for bit.
//! - [`requests`]: the agent's and the user simulator's requests, and their replies.
//! - [`litellm`]: the requests litellm makes of them for Anthropic and Gemini.
//! - [`retail`]: the retail domain: its database, 16 tools and hash.
//! - [`conversation`]: one trial as the official orchestrator runs it (a
//!   [`crate::run::dialogue::Dialogue`]).
//! - [`domain`]: a domain's policy, tools and environment.
//! - [`evaluate`]: a trial's reward: the database replayed, then the checks.
//! - [`nl_judge`]: the NL assertions asked of a judge model as the official
//!   evaluator asks them.
//! - [`score`]: a set of trials' rewards and pass^k.
//! - [`ask`]: `itc eval --dataset tau:…`: tasks × trials as SPEC tasks, each
//!   asked as one conversation.
//!
//! Dependencies run one way: `conversation` → `requests` → `litellm`,
//! `protocol`, `format`; `pass_k` → `format`, `checks` → `format`.

pub mod ask;
pub mod checks;
pub mod conversation;
pub mod domain;
pub mod evaluate;
pub mod format;
pub mod litellm;
pub mod nl_judge;
pub mod pass_k;
pub mod protocol;
pub mod requests;
pub mod retail;
pub mod score;

#[cfg(test)]
mod reference;

/// A τ³-bench domain itc runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Domain {
    /// The retail store (`data/tau2/domains/retail/`).
    Retail,
}

impl Domain {
    /// Every domain.
    pub const ALL: [Domain; 1] = [Domain::Retail];

    /// The domain's name (`retail`).
    pub fn as_str(self) -> &'static str {
        match self {
            Domain::Retail => "retail",
        }
    }
}

impl std::str::FromStr for Domain {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Domain> {
        Domain::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| anyhow::anyhow!("unknown τ³-bench domain {s:?} (known: retail)"))
    }
}
