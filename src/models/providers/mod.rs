//! The providers: each implements [`BackendApi`](super::BackendApi) for one
//! API family, turning a task into its request and its answer back into
//! calls; [`super::api_for`] picks the one of a model.
//!
//! - [`openai`]: OpenAI-compatible Chat Completions (OpenAI, vLLM, SGLang,
//!   llama.cpp server, Ollama, …).
//! - [`anthropic`]: Anthropic Messages.
//! - [`gemini`]: Google Gemini `generateContent`.
//! - [`baseline`]: the offline baseline model (lexical retrieval and slot
//!   filling): no server, no key.

pub mod anthropic;
pub mod baseline;
pub mod gemini;
pub mod openai;
