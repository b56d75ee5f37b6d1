//! The thresholds of the baseline method and their hand-set defaults.

/// The thresholds of the method (see the method description of `models::baseline`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Lowest ranking score (BM25 plus typed evidence) of the best tool for any call to be made.
    pub min_tool_score: f64,
    /// Lowest ranking score for one request of the query to pick a tool.
    pub min_request_score: f64,
    /// Lowest lead of a request's best tool over its second.
    pub min_request_margin: f64,
    /// Lowest fit for a required parameter to take a value.
    pub min_required_fit: f64,
    /// Lowest fit for an optional parameter to take a value.
    pub min_optional_fit: f64,
    /// Lowest fit for a list item's own value to make a repeated call.
    pub min_repeated_fit: f64,
    /// Added to a tool's score per strongly typed required parameter the query can fill.
    pub type_bonus: f64,
    /// Taken from a tool's score per typed required parameter no value of the query fits.
    pub type_penalty: f64,
    /// Answer `[]` when a typed required parameter has no value in the query.
    pub refuse_when_required_missing: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_tool_score: 1.0,
            min_request_score: 1.0,
            min_request_margin: 0.5,
            min_required_fit: 1.0,
            min_optional_fit: 3.0,
            min_repeated_fit: 2.0,
            type_bonus: 0.75,
            type_penalty: 1.0,
            refuse_when_required_missing: true,
        }
    }
}
