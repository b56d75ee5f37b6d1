//! What a conversation needs of a domain: its policy (the agent's system
//! prompt), the tools the agent gets and a fresh environment per trial.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use anyhow::Context;
use serde_json::Value;

use super::Domain;
use super::checks::ToolType;
use super::conversation::Environment;
use super::format::{Action, ToolCall, ToolMessage};
use super::litellm;
use super::requests::Dialect;
use super::retail::RetailEnv;

/// The retail policy (`policy.md`), benchmark data.
const RETAIL_POLICY: &str = include_str!("../../../datasets/ood/tau/retail/policy.md");

/// A domain's policy and tools.
#[derive(Debug)]
pub struct DomainData {
    /// Which domain.
    pub domain: Domain,
    /// `policy.md`.
    pub policy: String,
    /// The tools as OpenAI function tools (`tool.openai_schema` of each).
    pub tools: Vec<Value>,
    /// Each tool's kind (`@is_tool(ToolType.…)`): only writes change the
    /// database, so only they are replayed.
    pub tool_types: HashMap<String, ToolType>,
    /// The initial database's hash.
    initial_hash: OnceLock<String>,
    /// The hash after each list of gold actions met so far (by its JSON).
    gold_hashes: Mutex<HashMap<String, String>>,
}

/// The kinds of the retail tools (`src/tau2/domains/retail/tools.py`).
const RETAIL_TOOL_TYPES: [(&str, ToolType); 16] = [
    ("calculate", ToolType::Generic),
    ("cancel_pending_order", ToolType::Write),
    ("exchange_delivered_order_items", ToolType::Write),
    ("find_user_id_by_name_zip", ToolType::Read),
    ("find_user_id_by_email", ToolType::Read),
    ("get_order_details", ToolType::Read),
    ("get_product_details", ToolType::Read),
    ("get_item_details", ToolType::Read),
    ("get_user_details", ToolType::Read),
    ("list_all_product_types", ToolType::Read),
    ("modify_pending_order_address", ToolType::Write),
    ("modify_pending_order_items", ToolType::Write),
    ("modify_pending_order_payment", ToolType::Write),
    ("modify_user_address", ToolType::Write),
    ("return_delivered_order_items", ToolType::Write),
    ("transfer_to_human_agents", ToolType::Generic),
];

impl DomainData {
    /// The built-in data of `domain` (read once).
    pub fn of(domain: Domain) -> anyhow::Result<&'static DomainData> {
        static RETAIL: OnceLock<DomainData> = OnceLock::new();
        match domain {
            Domain::Retail => {
                if let Some(data) = RETAIL.get() {
                    return Ok(data);
                }
                let tools = match RetailEnv::tool_schemas()? {
                    Value::Array(tools) => tools,
                    _ => anyhow::bail!("the retail tool schemas are not a list"),
                };
                Ok(RETAIL.get_or_init(|| DomainData {
                    domain,
                    policy: RETAIL_POLICY.to_string(),
                    tools,
                    tool_types: RETAIL_TOOL_TYPES
                        .iter()
                        .map(|(name, kind)| (name.to_string(), *kind))
                        .collect(),
                    initial_hash: OnceLock::new(),
                    gold_hashes: Mutex::new(HashMap::new()),
                }))
            }
        }
    }

    /// The tools as a party speaking `dialect` receives them: the official
    /// list for OpenAI-compatible servers, litellm's rewriting of it for
    /// Anthropic and Gemini ([`litellm::tools`]).
    pub fn tools_for(&self, dialect: Dialect) -> anyhow::Result<Vec<Value>> {
        match dialect.provider() {
            None => Ok(self.tools.clone()),
            Some(provider) => litellm::tools(self.domain, provider)
                .map(<[Value]>::to_vec)
                .with_context(|| {
                    format!(
                        "no {provider:?} tools for the {} domain in datasets/ood/tau/litellm.json",
                        self.domain.as_str()
                    )
                }),
        }
    }

    /// A tool's kind; `None` for a tool the domain does not have.
    pub fn tool_type(&self, name: &str) -> Option<ToolType> {
        self.tool_types.get(name).copied()
    }

    /// The hash of the initial database.
    pub fn initial_hash(&self) -> anyhow::Result<String> {
        if let Some(hash) = self.initial_hash.get() {
            return Ok(hash.clone());
        }
        let hash = self.fresh_environment()?.db_hash();
        Ok(self.initial_hash.get_or_init(|| hash).clone())
    }

    /// The database's hash after `actions` run on a fresh one, in order
    /// (a failing action changes nothing; the official code only logs it).
    /// Kept per list of actions: every trial of a task has the same.
    pub fn gold_hash(&self, actions: &[Action]) -> anyhow::Result<String> {
        let key = serde_json::to_string(actions)?;
        let known = self
            .gold_hashes
            .lock()
            .expect("not poisoned")
            .get(&key)
            .cloned();
        if let Some(hash) = known {
            return Ok(hash);
        }
        let mut gold = self.fresh_environment()?;
        for action in actions {
            gold.respond(&ToolCall {
                id: action.action_id.clone(),
                name: action.name.clone(),
                arguments: action.arguments.clone(),
                requestor: action.requestor,
            });
        }
        let hash = gold.db_hash();
        self.gold_hashes
            .lock()
            .expect("not poisoned")
            .insert(key, hash.clone());
        Ok(hash)
    }

    /// A fresh environment on the domain's initial database.
    pub fn fresh_environment(&self) -> anyhow::Result<Box<dyn Environment>> {
        match self.domain {
            Domain::Retail => Ok(Box::new(RetailEnv::fresh()?)),
        }
    }
}

impl Environment for RetailEnv {
    fn respond(&mut self, call: &ToolCall) -> ToolMessage {
        let arguments = Value::Object(call.arguments.clone()).to_string();
        let result = self.call_json(&call.name, &arguments);
        ToolMessage {
            id: call.id.clone(),
            content: Some(result.content),
            requestor: call.requestor,
            error: result.error,
            turn_idx: None,
        }
    }

    fn db_hash(&mut self) -> String {
        RetailEnv::db_hash(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retail_tool_has_its_kind() {
        let data = DomainData::of(Domain::Retail).unwrap();
        let names: Vec<&str> = data
            .tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), RETAIL_TOOL_TYPES.len());
        for name in names {
            assert!(data.tool_type(name).is_some(), "{name}");
        }
    }
}
