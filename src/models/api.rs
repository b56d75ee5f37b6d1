//! The API client of a configured model: one [`BackendApi`] per backend.

use super::backend::{BackendApi, RequestSettings};
use super::config::{Backend, ModelConfig};
use super::providers::{anthropic, gemini, openai};

/// The API of a configured model; `None` for the offline baseline.
pub fn api_for(config: &ModelConfig) -> Option<Box<dyn BackendApi>> {
    let settings = RequestSettings::from_config(config);
    match config.backend {
        Backend::Openai => Some(Box::new(openai::OpenAi::new(settings))),
        Backend::Anthropic => Some(Box::new(anthropic::Anthropic::new(settings))),
        Backend::Gemini => Some(Box::new(gemini::Gemini::new(settings))),
        Backend::Baseline => None,
    }
}
