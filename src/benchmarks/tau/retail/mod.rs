//! τ³-bench's `retail` domain (`src/tau2/domains/retail/` of
//! `sierra-research/tau2-bench`, commit a2c0247): the database read from
//! the official `db.json`, the 16 tools with the official names,
//! parameters and descriptions (served from the official
//! `tool_schemas.json`), each returning the exact string the official
//! environment gives the agent (errors included), and the database hash
//! the official code computes. `docs/tau.md` says how and what was decided.
//!
//! - [`db`]: the models in pydantic's field order, reading, dumping, hash.
//! - [`tools`]: the tools on arguments of any JSON type.
//! - [`env`](mod@env): [`RetailEnv`], one call in, the official output out.

mod calculate;
pub mod db;
pub mod env;
pub mod json;
mod py;
pub mod tools;

#[cfg(test)]
mod tests;

pub use env::{RetailEnv, ToolResult};
