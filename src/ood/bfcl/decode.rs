//! `default_decode_ast_prompting` (BFCL, Python return format).

use super::Call;

/// Why a text does not decode (the message; not Python's own wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Decodes a prompt-mode model's text as the official decoder does.
pub fn decode_ast_prompting(text: &str) -> Result<Vec<Call>, DecodeError> {
    let _ = text;
    Err(DecodeError("not written yet".into()))
}
