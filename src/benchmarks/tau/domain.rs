//! What a conversation needs of a domain: its policy (the agent's system
//! prompt), the tools the agent gets and a fresh environment per trial.

use std::sync::OnceLock;

use serde_json::Value;

use super::Domain;
use super::conversation::Environment;
use super::format::ToolCall;
use super::format::ToolMessage;
use super::retail::RetailEnv;

/// The retail policy (`policy.md`), benchmark data.
const RETAIL_POLICY: &str = include_str!("../../../datasets/ood/tau/retail/policy.md");

/// A domain's policy and tools.
#[derive(Debug, Clone)]
pub struct DomainData {
    /// Which domain.
    pub domain: Domain,
    /// `policy.md`.
    pub policy: String,
    /// The tools as OpenAI function tools (`tool.openai_schema` of each).
    pub tools: Vec<Value>,
}

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
                }))
            }
        }
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
}
