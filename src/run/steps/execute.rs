//! Executing calls against the tools' real endpoints (SPEC §7).
//!
//! A tool with a `url` (and `method`, default GET) is called with its path
//! placeholders `{name}` filled from the arguments of that name; the other
//! arguments go in the query string (GET, DELETE, HEAD) or a JSON body (POST,
//! PUT, PATCH). Only allowed hosts are contacted. Credentials are added as
//! the request is sent and never stored. A body is read up to a size limit
//! and cut there. With a cassette, the exchange is looked up first and
//! recorded after; in replay mode a call the cassette lacks is a tool error
//! and no socket is opened.

use std::time::Duration;

use anyhow::Context;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Map, Value};

use super::cassette::{Cassette, CassetteRequest, Recorded};
use super::{ToolOutput, arguments_json};
use crate::models::hosts::{HostKey, KeyPlace, host_matches};
use crate::spec::records::{Call, Task, Tool};

/// Bytes that are escaped in a filled path segment.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|');

/// Bytes that are escaped in a value filled into the query part: those of a
/// path segment, and those that separate parameters or start a fragment.
const QUERY_VALUE: &AsciiSet = &SEGMENT.add(b'&').add(b'=').add(b';').add(b'+');

/// How calls are executed.
#[derive(Debug, Clone)]
pub struct ExecuteOptions {
    /// Hosts that may be contacted (`name` or `name:port`).
    pub allow_hosts: Vec<String>,
    /// Keys per host.
    pub keys: Vec<HostKey>,
    /// How long one call may take.
    pub timeout: Duration,
    /// The largest body kept, in bytes.
    pub max_body_bytes: usize,
}

/// Executes calls, through a cassette when there is one.
#[derive(Debug)]
pub struct Executor {
    options: ExecuteOptions,
    cassette: Option<std::sync::Arc<Cassette>>,
    client: reqwest::Client,
}

/// A call as an HTTP request, before credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointRequest {
    /// The method, upper-case.
    pub method: String,
    /// The URL, placeholders filled, query arguments added.
    pub url: reqwest::Url,
    /// The JSON body (POST, PUT, PATCH).
    pub body: Option<Value>,
}

impl Executor {
    /// An executor; `cassette` answers and records exchanges when given.
    pub fn new(
        options: ExecuteOptions,
        cassette: Option<std::sync::Arc<Cassette>>,
    ) -> anyhow::Result<Executor> {
        // Endpoints on loopback must not go through a proxy from HTTP_PROXY;
        // redirects are not followed (a redirect could leave the allowed hosts).
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .context("building the HTTP client for tool calls")?;
        Ok(Executor {
            options,
            cassette,
            client,
        })
    }

    /// The output of one call: the endpoint's answer, the cassette's, or a
    /// tool error saying why there is none.
    pub async fn call(&self, task: &Task, call: &Call) -> ToolOutput {
        let Some(tool) = task.tools.iter().find(|t| t.name == call.name) else {
            return ToolOutput::error(format!("no tool `{}` in this task", call.name), Some(0));
        };
        let request = match endpoint_request(tool, call) {
            Ok(request) => request,
            Err(message) => return ToolOutput::error(message, Some(0)),
        };
        let stored = CassetteRequest {
            method: request.method.clone(),
            url: request.url.to_string(),
            arguments: arguments_json(call),
        };
        if let Some(cassette) = &self.cassette {
            if let Some(recorded) = cassette.lookup(&stored) {
                return shown(&recorded);
            }
            if !cassette.may_call() {
                return ToolOutput::error(
                    format!(
                        "no recorded response for this call in the cassette {}",
                        cassette.path().display()
                    ),
                    Some(0),
                );
            }
        }
        let host = request.url.host_str().unwrap_or_default().to_string();
        let port = request.url.port_or_known_default();
        if !self
            .options
            .allow_hosts
            .iter()
            .any(|h| host_matches(h, &host, port))
        {
            return ToolOutput::error(
                format!("host {host} is not allowed (itc eval --allow-host {host})"),
                Some(0),
            );
        }
        // A failure (timeout, unreachable) is recorded too, as status 0, so
        // that replaying the cassette reproduces the run.
        let answered = self.send(&request, &host, port).await;
        let recorded = match answered {
            Ok(recorded) => Recorded {
                request: stored,
                ..recorded
            },
            Err(message) => Recorded {
                request: stored,
                status: 0,
                content_type: None,
                body: message,
                truncated: false,
            },
        };
        if let Some(cassette) = &self.cassette {
            // A cassette that cannot be written only costs a later run a call.
            let _ = cassette.record(&recorded);
        }
        shown(&recorded)
    }

    /// Sends a request with its host's key, reading the body up to the limit.
    async fn send(
        &self,
        request: &EndpointRequest,
        host: &str,
        port: Option<u16>,
    ) -> Result<Recorded, String> {
        let key = self
            .options
            .keys
            .iter()
            .find(|k| host_matches(&k.host, host, port));
        let mut url = request.url.clone();
        if let Some(HostKey {
            place: KeyPlace::Query(name),
            key,
            ..
        }) = key
        {
            url.query_pairs_mut().append_pair(name, key.expose());
        }
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| format!("`{}` is not an HTTP method", request.method))?;
        let mut builder = self
            .client
            .request(method, url)
            .timeout(self.options.timeout);
        if let Some(HostKey {
            place: KeyPlace::Header { name, prefix },
            key,
            ..
        }) = key
        {
            builder = builder.header(name.as_str(), format!("{prefix}{}", key.expose()));
        }
        if let Some(body) = &request.body {
            builder = builder.json(body);
        }
        let mask = |text: String| match key {
            Some(k) => k.key.redact(&text),
            None => text,
        };
        let mut response = builder
            .send()
            .await
            .map_err(|e| mask(describe_error(e, self.options.timeout)))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| mask(v.to_string()));
        let limit = self.options.max_body_bytes;
        let mut body = Vec::new();
        let mut truncated = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = limit - body.len();
                    if chunk.len() > room {
                        body.extend_from_slice(&chunk[..room]);
                        truncated = true;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(mask(describe_error(e, self.options.timeout))),
            }
        }
        Ok(Recorded {
            request: CassetteRequest {
                method: String::new(),
                url: String::new(),
                arguments: Value::Null,
            },
            status,
            content_type,
            body: mask(String::from_utf8_lossy(&body).into_owned()),
            truncated,
        })
    }
}

/// Why a request failed, in words. The URL is left out: it may carry a
/// key in its query.
fn describe_error(error: reqwest::Error, timeout: Duration) -> String {
    let error = error.without_url();
    if error.is_timeout() {
        format!("no answer within {} ms", timeout.as_millis())
    } else if error.is_connect() {
        "the endpoint could not be reached".to_string()
    } else {
        format!("the request failed: {error}")
    }
}

/// What the model is shown of an exchange: a 2xx body (JSON when it reads
/// as JSON, else text; a cut body as `{"body", "truncated"}`); for another
/// status an error with the status and the body; for no answer (status 0)
/// an error saying why.
pub fn shown(recorded: &Recorded) -> ToolOutput {
    if recorded.status == 0 {
        return ToolOutput::error(recorded.body.clone(), Some(0));
    }
    let body = serde_json::from_str::<Value>(&recorded.body)
        .unwrap_or_else(|_| Value::String(recorded.body.clone()));
    let value = if (200..300).contains(&recorded.status) {
        if recorded.truncated {
            serde_json::json!({"body": recorded.body, "truncated": true})
        } else {
            body
        }
    } else {
        serde_json::json!({"error": format!("HTTP {}", recorded.status), "body": body})
    };
    ToolOutput {
        status: Some(recorded.status),
        ..ToolOutput::ok(value)
    }
}

/// A call as an HTTP request to its tool's endpoint (SPEC §7).
pub fn endpoint_request(tool: &Tool, call: &Call) -> Result<EndpointRequest, String> {
    if tool.url.trim().is_empty() {
        return Err(format!("tool `{}` has no url to call", tool.name));
    }
    let method = if tool.method.trim().is_empty() {
        "GET".to_string()
    } else {
        tool.method.trim().to_ascii_uppercase()
    };
    let mut rest: Map<String, Value> = match arguments_json(call) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let filled = fill_placeholders(&tool.url, &mut rest)?;
    let mut url = reqwest::Url::parse(&filled)
        .map_err(|e| format!("tool `{}`: url `{filled}`: {e}", tool.name))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "tool `{}`: only http and https urls are called",
            tool.name
        ));
    }
    let body = match method.as_str() {
        "POST" | "PUT" | "PATCH" => Some(Value::Object(rest)),
        _ => {
            if !rest.is_empty() {
                let mut pairs = url.query_pairs_mut();
                for (name, value) in &rest {
                    pairs.append_pair(name, &plain_text(value));
                }
            }
            None
        }
    };
    Ok(EndpointRequest { method, url, body })
}

/// The url with each `{name}` replaced by that argument, which is taken
/// out of `arguments`: escaped as a path segment before the template's `?`,
/// as a query value after it (so that `&`, `=`, `;` and `#` cannot add
/// parameters). A placeholder with no argument is an error, and so is a
/// filled path with a `.` or `..` segment the template did not have (the
/// URL would be read as a path higher up the server).
fn fill_placeholders(template: &str, arguments: &mut Map<String, Value>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    let mut in_query = false;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        out.push_str(&rest[..open]);
        in_query |= rest[..open].contains(['?', '#']);
        let value = arguments
            .shift_remove(name)
            .ok_or_else(|| format!("no argument `{name}` for the url placeholder {{{name}}}"))?;
        let set = if in_query { QUERY_VALUE } else { SEGMENT };
        out.extend(utf8_percent_encode(&plain_text(&value), set));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    if dot_segments(&out) > dot_segments(template) {
        return Err(format!(
            "an argument of the url `{template}` is `.` or `..`, which would change the path the tool calls"
        ));
    }
    Ok(out)
}

/// How many `.` and `..` segments (also written `%2e`) a URL's path has.
fn dot_segments(url: &str) -> usize {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    path.split('/')
        .filter(|segment| {
            let plain = segment.to_ascii_lowercase().replace("%2e", ".");
            plain == "." || plain == ".."
        })
        .count()
}

/// A value as text in a URL: strings as they are, anything else as JSON.
fn plain_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::action::{Mode, parse_actions};
    use serde_json::json;

    fn tool(method: &str, url: &str) -> Tool {
        serde_json::from_value(json!({"name": "t", "method": method, "url": url})).unwrap()
    }

    fn call(text: &str) -> Call {
        parse_actions(text, Mode::Strict).unwrap().remove(0)
    }

    #[test]
    fn placeholders_query_and_body_by_method() {
        let get = endpoint_request(
            &tool("get", "http://h:1/cities/{city}/weather"),
            &call("[t(city='São Paulo/SP', days=3, units='metric')]"),
        )
        .unwrap();
        assert_eq!(get.method, "GET");
        assert_eq!(
            get.url.as_str(),
            "http://h:1/cities/S%C3%A3o%20Paulo%2FSP/weather?days=3&units=metric"
        );
        assert_eq!(get.body, None);
        let post = endpoint_request(
            &tool("POST", "http://h/convert"),
            &call("[t(amount=10.5, to='EUR')]"),
        )
        .unwrap();
        assert_eq!(post.url.as_str(), "http://h/convert");
        assert_eq!(post.body, Some(json!({"amount": 10.5, "to": "EUR"})));
    }

    #[test]
    fn bad_tools_and_calls_are_tool_errors() {
        let missing =
            endpoint_request(&tool("GET", "http://h/{id}"), &call("[t(x=1)]")).unwrap_err();
        assert!(missing.contains("no argument `id`"), "{missing}");
        assert!(
            endpoint_request(&tool("GET", ""), &call("[t()]"))
                .unwrap_err()
                .contains("no url")
        );
        assert!(
            endpoint_request(&tool("GET", "file:///etc/passwd"), &call("[t()]"))
                .unwrap_err()
                .contains("only http")
        );
    }

    #[test]
    fn shown_outputs_by_status() {
        let recorded = |status, body: &str, truncated| Recorded {
            request: CassetteRequest {
                method: "GET".into(),
                url: "u".into(),
                arguments: json!({}),
            },
            status,
            content_type: None,
            body: body.into(),
            truncated,
        };
        assert_eq!(
            shown(&recorded(200, r#"{"a":1}"#, false)).value,
            json!({"a": 1})
        );
        assert_eq!(shown(&recorded(200, "plain", false)).value, json!("plain"));
        assert_eq!(
            shown(&recorded(404, r#"{"detail":"unknown id"}"#, false)).value,
            json!({"error": "HTTP 404", "body": {"detail": "unknown id"}})
        );
        assert_eq!(
            shown(&recorded(200, "[1,2", true)).value,
            json!({"body": "[1,2", "truncated": true})
        );
    }

    #[test]
    fn arguments_cannot_climb_the_path_or_add_query_parameters() {
        for climb in ["..", ".", "%2e%2E"] {
            let error = endpoint_request(
                &tool("GET", "http://h/api/v1/{id}/info"),
                &call(&format!("[t(id='{climb}')]")),
            );
            if climb.starts_with('%') {
                // `%` is escaped, so this is a name, not a dot segment.
                assert_eq!(
                    error.unwrap().url.path(),
                    "/api/v1/%252e%252E/info",
                    "{climb}"
                );
            } else {
                let error = error.unwrap_err();
                assert!(error.contains("would change the path"), "{climb}: {error}");
            }
        }
        let dotted = endpoint_request(
            &tool("GET", "http://h/api/{name}/info"),
            &call("[t(name='...')]"),
        )
        .unwrap();
        assert_eq!(dotted.url.path(), "/api/.../info", "three dots are a name");
        let query = endpoint_request(
            &tool("GET", "http://h/search?q={q}&lang=en"),
            &call("[t(q='a&admin=1;x=2+3#f')]"),
        )
        .unwrap();
        let pairs: Vec<(String, String)> = query.url.query_pairs().into_owned().collect();
        assert_eq!(
            pairs,
            vec![
                ("q".to_string(), "a&admin=1;x=2+3#f".to_string()),
                ("lang".to_string(), "en".to_string())
            ]
        );
        // A template's own dot segments are the template's business.
        assert!(endpoint_request(&tool("GET", "http://h/a/../{x}"), &call("[t(x='b')]")).is_ok());
    }

    proptest::proptest! {
        /// Whatever the values, a filled template keeps the template's
        /// path segments and query parameters, each value comes back whole
        /// from where it was put, or the call is refused for a dot segment.
        #[test]
        fn filled_templates_keep_their_shape(
            id in "[a-z0-9./%&=;?#+ \\\\]{0,12}",
            q in "[a-z0-9./%&=;?#+ \\\\]{0,12}",
        ) {
            let template = "http://h/api/{id}/info?q={q}&lang=en";
            let mut arguments = Map::new();
            arguments.insert("id".into(), Value::String(id.clone()));
            arguments.insert("q".into(), Value::String(q.clone()));
            match fill_placeholders(template, &mut arguments) {
                Err(message) => {
                    proptest::prop_assert!(id == "." || id == "..", "{}: {}", id, message);
                }
                Ok(filled) => {
                    let url = reqwest::Url::parse(&filled).unwrap();
                    let segments: Vec<String> = url
                        .path_segments()
                        .unwrap()
                        .map(|s| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned())
                        .collect();
                    proptest::prop_assert_eq!(segments, vec!["api".to_string(), id, "info".to_string()]);
                    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
                    proptest::prop_assert_eq!(
                        pairs,
                        vec![("q".to_string(), q), ("lang".to_string(), "en".to_string())]
                    );
                    proptest::prop_assert_eq!(url.fragment(), None);
                }
            }
        }
    }
}
