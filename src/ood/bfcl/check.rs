//! The official AST checker: simple, multiple and order-free parallel.
//! (Placeholder until the checker lands.)

use serde::Serialize;

/// Why an answer is wrong, as the official score file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ErrorType {
    /// `ast_decoder:decoder_failed`.
    #[serde(rename = "ast_decoder:decoder_failed")]
    DecoderFailed,
}

impl ErrorType {
    /// The official name.
    pub fn as_str(self) -> &'static str {
        "ast_decoder:decoder_failed"
    }
}

/// One answer's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Whether the official checker accepts it.
    pub valid: bool,
    /// Why not.
    pub error_type: Option<ErrorType>,
    /// The official messages.
    pub errors: Vec<serde_json::Value>,
}
