//! The retail environment as the agent meets it: a tool call goes in, the
//! string the official `Environment.get_response` returns comes out, with
//! its error flag; the database hash after any call.

use std::sync::OnceLock;

use anyhow::{Context, Result};

use super::db::Db;
use super::tools::{SIGNATURES, run};
use crate::benchmarks::bfcl::multi_turn::api::{Arguments, bind};
use crate::benchmarks::python::{PyValue, json_loads_str};
use crate::util::embedded;

/// The official database, in the repository and embedded in the binary.
pub const DB_PATH: &str = "datasets/ood/tau/retail/db.json";
/// The tool definitions the agent receives (`tool.openai_schema` of each
/// official tool), in the repository and embedded in the binary.
pub const TOOL_SCHEMAS_PATH: &str = "datasets/ood/tau/retail/reference/tool_schemas.json";

/// The class whose methods the tools are, as CPython names them in
/// argument errors (`RetailTools.get_user_details() missing ...`).
const TOOLKIT_CLASS: &str = "RetailTools";

/// What the agent receives for one tool call (`ToolMessage.content` and
/// `ToolMessage.error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The output string.
    pub content: String,
    /// Whether the call raised (the content is then `Error: ...`).
    pub error: bool,
}

/// One retail environment: a database the tools read and change.
#[derive(Debug, Clone)]
pub struct RetailEnv {
    db: Db,
    /// The hash of `db` and the database generation it was computed at.
    hash: Option<(u64, String)>,
}

fn initial_db() -> Result<&'static Db> {
    static DB: OnceLock<Db> = OnceLock::new();
    if let Some(db) = DB.get() {
        return Ok(db);
    }
    let text = embedded::read_to_string(&embedded::name(DB_PATH))
        .with_context(|| format!("reading the embedded {DB_PATH}"))?;
    let db = Db::from_json(&text).with_context(|| format!("reading {DB_PATH}"))?;
    // Every entry's canonical text computed once: fresh copies carry them,
    // so their hashes re-serialize only what their writes change.
    db.hash();
    Ok(DB.get_or_init(|| db))
}

impl RetailEnv {
    /// A fresh environment on the official initial database.
    pub fn fresh() -> Result<RetailEnv> {
        Ok(RetailEnv::with_db(initial_db()?.clone()))
    }

    /// An environment on `db`.
    pub fn with_db(db: Db) -> RetailEnv {
        RetailEnv { db, hash: None }
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// `Environment.get_db_hash()`.
    pub fn db_hash(&mut self) -> String {
        let generation = self.db.generation();
        match &self.hash {
            Some((at, hash)) if *at == generation => hash.clone(),
            _ => {
                let hash = self.db.hash();
                self.hash = Some((generation, hash.clone()));
                hash
            }
        }
    }

    /// The tool definitions the agent receives, as the official
    /// environment gives them (`tool_schemas.json`).
    pub fn tool_schemas() -> Result<serde_json::Value> {
        let bytes = embedded::read(&embedded::name(TOOL_SCHEMAS_PATH))?;
        serde_json::from_slice(&bytes).with_context(|| format!("reading {TOOL_SCHEMAS_PATH}"))
    }

    /// A call whose arguments are JSON text, read as `json.loads` reads it;
    /// text that is not JSON gives an error result naming where it fails
    /// (the official agent fails earlier, in its own `json.loads`).
    pub fn call_json(&mut self, name: &str, arguments: &str) -> ToolResult {
        match json_loads_str(arguments) {
            Ok(value) => self.call(name, &value),
            Err(e) => failure(format!("Error: {e}")),
        }
    }

    /// `Environment.get_response(ToolCall(name, arguments,
    /// requestor="assistant"))`: `arguments` as `json.loads` gives them.
    pub fn call(&mut self, name: &str, arguments: &PyValue) -> ToolResult {
        match self.make_tool_call(name, arguments) {
            Ok(content) => ToolResult {
                content,
                error: false,
            },
            Err(text) => failure(format!("Error: {text}")),
        }
    }

    /// `make_tool_call(name, requestor="assistant", **arguments)`, down to
    /// the tool method.
    fn make_tool_call(&mut self, name: &str, arguments: &PyValue) -> Result<String, String> {
        let keywords = keywords(arguments)?;
        // Python builds the call's keywords first: `requestor` twice.
        if keywords.iter().any(|(k, _)| k == "requestor") {
            return Err("tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'".into());
        }
        // Then binds them to `make_tool_call(self, tool_name, ...)`.
        if let Some((k, _)) = keywords
            .iter()
            .find(|(k, _)| k == "self" || k == "tool_name")
        {
            return Err(format!(
                "Environment.make_tool_call() got multiple values for argument '{k}'"
            ));
        }
        let signature = SIGNATURES
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("Tool '{name}' not found."))?;
        let args = Arguments {
            positional: Vec::new(),
            keywords,
        };
        let bound = bind(TOOLKIT_CLASS, signature, args)?;
        run(&mut self.db, name, &bound)
    }
}

fn failure(content: String) -> ToolResult {
    ToolResult {
        content,
        error: true,
    }
}

/// The keyword arguments of `**arguments`.
fn keywords(arguments: &PyValue) -> Result<Vec<(String, PyValue)>, String> {
    let PyValue::Dict(entries) = arguments else {
        return Err(format!(
            "tau2.environment.environment.Environment.make_tool_call() argument after ** must be a mapping, not {}",
            arguments.type_name()
        ));
    };
    entries
        .iter()
        .map(|(k, v)| match k {
            PyValue::Str(s) => Ok((s.to_string_lossy(), v.clone())),
            _ => Err("keywords must be strings".to_string()),
        })
        .collect()
}
