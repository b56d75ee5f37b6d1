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
    /// The response body is longer than the caller reads (judges'
    /// `--max-judge-reply-bytes`): the rest was not read.
    TooLarge,
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
            ErrorKind::TooLarge => "too_large",
        }
    }

    /// Whether another attempt may succeed.
    pub fn retryable(self) -> bool {
        !matches!(
            self,
            ErrorKind::Client | ErrorKind::Internal | ErrorKind::Batch | ErrorKind::TooLarge
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
    /// The server cannot serve this API: it was not reached at all (the
    /// connection was refused, its host name does not resolve), or what
    /// answered has no such endpoint ([`NO_SUCH_ENDPOINT`]: a plain web
    /// server, a wrong base URL or path).
    pub unusable_server: bool,
}

impl Failure {
    /// A failure without a server-requested wait.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            retry_after: None,
            unusable_server: false,
        }
    }
}

/// Statuses that say the server has no such endpoint (Not Found, Method Not
/// Allowed, Not Implemented): what answers is not the API asked for, so a
/// model whose first request gets one is never asked again in the session.
pub const NO_SUCH_ENDPOINT: [u16; 3] = [404, 405, 501];

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
/// JSON body of a 2xx response. With `max_body`, a body longer than that
/// many bytes is not read beyond them: a [`ErrorKind::TooLarge`] failure.
pub async fn send(
    client: &reqwest::Client,
    request: &ApiRequest,
    auth: &[(&'static str, String)],
    timeout: Duration,
    max_body: Option<u64>,
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
        unusable_server: e.is_connect() && !e.is_timeout(),
        ..Failure::new(transport_kind(&e), describe(&e))
    })?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    let bytes = read_body(response, max_body).await.map_err(|e| match e {
        BodyError::Transport(e) => {
            let kind = match transport_kind(&e) {
                ErrorKind::Timeout => ErrorKind::Timeout,
                _ => ErrorKind::IncompleteBody,
            };
            Failure::new(
                kind,
                format!("HTTP {status}, reading the body: {}", describe(&e)),
            )
        }
        BodyError::TooLarge(max) => Failure::new(
            ErrorKind::TooLarge,
            format!("HTTP {status} with a body longer than {max} bytes: not read beyond them"),
        ),
    })?;
    if let Some(kind) = status_kind(status.as_u16()) {
        let text = String::from_utf8_lossy(&bytes);
        let no_such_endpoint = NO_SUCH_ENDPOINT.contains(&status.as_u16());
        let from = if no_such_endpoint {
            format!(" from POST {}", request.url)
        } else {
            String::new()
        };
        return Err(Failure {
            kind,
            message: format!("HTTP {status}{from}: {}", clip(text.trim(), 300)),
            retry_after,
            unusable_server: no_such_endpoint,
        });
    }
    parse_body(&bytes).map_err(|e| {
        Failure::new(
            ErrorKind::InvalidResponse,
            format!(
                "HTTP {status} with a body that is not JSON ({e}): {}",
                clip(String::from_utf8_lossy(&bytes).trim(), 200)
            ),
        )
    })
}

enum BodyError {
    Transport(reqwest::Error),
    TooLarge(u64),
}

/// The body, a chunk at a time, refused once it passes `max` bytes (an
/// announced length beyond it is refused before anything is read).
async fn read_body(
    mut response: reqwest::Response,
    max: Option<u64>,
) -> Result<Vec<u8>, BodyError> {
    let Some(max) = max else {
        return response
            .bytes()
            .await
            .map(|b| b.to_vec())
            .map_err(BodyError::Transport);
    };
    if response.content_length().is_some_and(|n| n > max) {
        return Err(BodyError::TooLarge(max));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        if (body.len() + chunk.len()) as u64 > max {
            return Err(BodyError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A JSON body. A number beyond the range of `f64` (`1e400`, which
/// serde_json refuses) is read as `null`, so that an absurd figure in a
/// field such as `usage` does not make the whole answer unreadable.
pub fn parse_body(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    match serde_json::from_slice(bytes) {
        Err(e) if e.to_string().starts_with("number out of range") => {
            serde_json::from_slice(&huge_numbers_as_null(bytes))
        }
        other => other,
    }
}

/// `bytes` with every number outside strings that `f64` cannot hold
/// replaced by `null`, in one pass.
fn huge_numbers_as_null(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            match b {
                b'\\' if i + 1 < bytes.len() => {
                    out.push(bytes[i + 1]);
                    i += 1;
                }
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let end = bytes[i..]
                .iter()
                .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .map_or(bytes.len(), |n| i + n);
            let number = &bytes[i..end];
            let huge = std::str::from_utf8(number)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(|x| x.is_infinite());
            out.extend_from_slice(if huge { b"null" } else { number });
            i = end;
            continue;
        }
        in_string = b == b'"';
        out.push(b);
        i += 1;
    }
    out
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
        assert!(!ErrorKind::TooLarge.retryable());
    }

    #[test]
    fn numbers_beyond_f64_read_as_null() {
        let body = br#"{"a": "1e400 \" 1e400", "usage": {"prompt_tokens": 1e400, "completion_tokens": -2E+999, "x": [1.5, 7]}}"#;
        let value = parse_body(body).unwrap();
        assert_eq!(value["a"], "1e400 \" 1e400");
        assert!(value["usage"]["prompt_tokens"].is_null());
        assert!(value["usage"]["completion_tokens"].is_null());
        assert_eq!(value["usage"]["x"], serde_json::json!([1.5, 7]));
        assert!(
            parse_body(b"{\"a\": 1e400").is_err(),
            "other faults stay errors"
        );
    }
}
