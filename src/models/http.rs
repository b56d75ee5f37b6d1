//! Sending one request and classifying what went wrong.

use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::backend::ApiRequest;
use super::retry::parse_retry_after;
use crate::util::bounded::clip;

/// Why a request (or a whole task) got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// No complete response within the per-request timeout (or HTTP 408).
    Timeout,
    /// The connection failed or was reset before a response arrived.
    Connection,
    /// The response body ended before its announced length, or broke off.
    IncompleteBody,
    /// HTTP 429.
    RateLimited,
    /// HTTP 5xx.
    Server,
    /// Another HTTP 4xx: the request itself is wrong (bad model id, bad key…).
    Client,
    /// A 2xx response that is not a usable answer (not JSON, wrong shape,
    /// an error object).
    InvalidResponse,
    /// The task's worker stopped without a result (a bug; reported, never dropped).
    Internal,
    /// A batch run (`--emit-batch`, `--import-batch`): the request went to a
    /// batch file, or the batch results hold no answer for it.
    Batch,
}

impl ErrorKind {
    /// The name written in `Prediction.error_kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connection => "connection",
            ErrorKind::IncompleteBody => "incomplete_body",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::Server => "server",
            ErrorKind::Client => "client",
            ErrorKind::InvalidResponse => "invalid_response",
            ErrorKind::Internal => "internal",
            ErrorKind::Batch => "batch",
        }
    }

    /// Whether another attempt may succeed.
    pub fn retryable(self) -> bool {
        !matches!(
            self,
            ErrorKind::Client | ErrorKind::Internal | ErrorKind::Batch
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened, for people.
    pub message: String,
    /// How long the server asked us to wait (`Retry-After`).
    pub retry_after: Option<Duration>,
    /// The server was not reached at all: the connection was refused or its
    /// host name does not resolve (no response of any kind came back).
    pub unreachable: bool,
}

impl Failure {
    /// A failure without a server-requested wait.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            retry_after: None,
            unreachable: false,
        }
    }
}

/// The kind of failure an HTTP status means, `None` for success.
pub fn status_kind(status: u16) -> Option<ErrorKind> {
    match status {
        200..=299 => None,
        408 => Some(ErrorKind::Timeout),
        429 => Some(ErrorKind::RateLimited),
        500..=599 => Some(ErrorKind::Server),
        _ => Some(ErrorKind::Client),
    }
}

/// A reqwest error's message with its causes (`… : connection reset`).
fn describe(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

fn transport_kind(error: &reqwest::Error) -> ErrorKind {
    if error.is_timeout() {
        ErrorKind::Timeout
    } else if error.is_body() || error.is_decode() {
        ErrorKind::IncompleteBody
    } else {
        ErrorKind::Connection
    }
}

/// Sends a request with the given extra headers and timeout, and returns the
/// JSON body of a 2xx response.
pub async fn send(
    client: &reqwest::Client,
    request: &ApiRequest,
    auth: &[(&'static str, String)],
    timeout: Duration,
) -> Result<Value, Failure> {
    let mut builder = client
        .post(&request.url)
        .timeout(timeout)
        .json(&request.body);
    for (name, value) in request.headers.iter().chain(auth) {
        let mut value = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
            Failure::new(
                ErrorKind::Client,
                format!("header {name} holds characters HTTP does not allow"),
            )
        })?;
        if auth.iter().any(|(n, _)| n == name) {
            value.set_sensitive(true);
        }
        builder = builder.header(*name, value);
    }
    let response = builder.send().await.map_err(|e| Failure {
        unreachable: e.is_connect() && !e.is_timeout(),
        ..Failure::new(transport_kind(&e), describe(&e))
    })?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    let bytes = response.bytes().await.map_err(|e| {
        let kind = match transport_kind(&e) {
            ErrorKind::Timeout => ErrorKind::Timeout,
            _ => ErrorKind::IncompleteBody,
        };
        Failure::new(
            kind,
            format!("HTTP {status}, reading the body: {}", describe(&e)),
        )
    })?;
    if let Some(kind) = status_kind(status.as_u16()) {
        let text = String::from_utf8_lossy(&bytes);
        return Err(Failure {
            kind,
            message: format!("HTTP {status}: {}", clip(text.trim(), 300)),
            retry_after,
            unreachable: false,
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Failure::new(
            ErrorKind::InvalidResponse,
            format!(
                "HTTP {status} with a body that is not JSON ({e}): {}",
                clip(String::from_utf8_lossy(&bytes).trim(), 200)
            ),
        )
    })
}

/// Whether a URL's host is this machine (requests to it bypass proxies).
pub fn is_loopback(url: &str) -> bool {
    let Some(host) = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
    else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_classify() {
        assert_eq!(status_kind(200), None);
        assert_eq!(status_kind(429), Some(ErrorKind::RateLimited));
        assert_eq!(status_kind(503), Some(ErrorKind::Server));
        assert_eq!(status_kind(408), Some(ErrorKind::Timeout));
        assert_eq!(status_kind(401), Some(ErrorKind::Client));
        assert!(ErrorKind::RateLimited.retryable() && ErrorKind::IncompleteBody.retryable());
        assert!(!ErrorKind::Client.retryable());
    }
}
