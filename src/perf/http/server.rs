//! The instant server: a loopback OpenAI-compatible server (a
//! [`LoopbackServer`]) that answers every `POST …/chat/completions` at once
//! with [`COMPLETION_BODY`], counts the completions and captures the first.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::util::loopback::{Answer, LoopbackServer, Request, Response, ServerOptions};
use crate::util::runtime::Threads;

use super::cpu::ThreadCpuClock;

/// The answer of the instant server: a strict ITC answer with token counts.
pub const COMPLETION_BODY: &str = concat!(
    r#"{"id":"chatcmpl-bench","object":"chat.completion","created":0,"model":"instant","#,
    r#""choices":[{"index":0,"message":{"role":"assistant","content":"#,
    r#""{\"Thought\": \"No tool is needed.\", \"Action\": \"[]\"}"},"finish_reason":"stop"}],"#,
    r#""usage":{"prompt_tokens":100,"completion_tokens":12,"total_tokens":112}}"#
);

/// The answer to anything but a chat completion.
const NOT_FOUND_BODY: &str = r#"{"error":{"message":"not found"}}"#;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedRequest {
    /// `POST`.
    pub method: String,
    /// Request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers in arrival order, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// What the server counted and captured.
#[derive(Debug, Default)]
struct Tally {
    completions: AtomicU64,
    body_bytes: AtomicU64,
    captured_any: AtomicBool,
    captured: Mutex<Option<CapturedRequest>>,
}

impl Tally {
    /// Counts a chat completion and captures it if it is the first.
    fn record(&self, request: &Request<'_>) {
        self.completions.fetch_add(1, Ordering::Relaxed);
        self.body_bytes
            .fetch_add(request.body.len() as u64, Ordering::Relaxed);
        if self.captured_any.load(Ordering::Relaxed) {
            return;
        }
        let mut captured = lock(&self.captured);
        if captured.is_none() {
            *captured = Some(CapturedRequest {
                method: request.method.to_string(),
                path: request.path.to_string(),
                headers: request
                    .headers()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                body: request.body.to_vec(),
            });
            self.captured_any.store(true, Ordering::Relaxed);
        }
    }

    /// The answer to `request`: the completion, or 404.
    fn answer(&self, request: &Request<'_>) -> Answer {
        if request.method == "POST" && request.path.ends_with("/chat/completions") {
            self.record(request);
            Answer::Respond(Response::json(200, COMPLETION_BODY.as_bytes()))
        } else {
            Answer::Respond(Response::json(404, NOT_FOUND_BODY.as_bytes()))
        }
    }
}

/// A loopback OpenAI-compatible server answering every chat completion at
/// once with [`COMPLETION_BODY`]. It runs on its own thread and runtime;
/// dropping it stops it.
#[derive(Debug)]
pub struct InstantServer {
    server: LoopbackServer,
    tally: Arc<Tally>,
    threads: Arc<ThreadCpuClock>,
}

impl InstantServer {
    /// Starts a server on an ephemeral port of 127.0.0.1 with `threads`
    /// runtime threads (1: a current-thread runtime on one thread).
    pub fn start(threads: usize) -> anyhow::Result<InstantServer> {
        let tally = Arc::new(Tally::default());
        let clock = Arc::new(ThreadCpuClock::default());
        let registry = Arc::clone(&clock);
        let options = ServerOptions {
            thread_name: "instant-server".into(),
            threads: if threads <= 1 {
                Threads::Current
            } else {
                Threads::Exactly(threads)
            },
            on_thread_start: Some(Arc::new(move || registry.register_current_thread())),
        };
        let handler_tally = Arc::clone(&tally);
        let server = LoopbackServer::start(options, move |request| {
            std::future::ready(handler_tally.answer(request))
        })?;
        Ok(InstantServer {
            server,
            tally,
            threads: clock,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr())
    }

    /// Chat completions answered so far.
    pub fn completions(&self) -> u64 {
        self.tally.completions.load(Ordering::Relaxed)
    }

    /// Request body bytes received with those completions.
    pub fn body_bytes(&self) -> u64 {
        self.tally.body_bytes.load(Ordering::Relaxed)
    }

    /// CPU time of the server's threads so far (Linux; `None` elsewhere).
    pub fn cpu_time(&self) -> Option<Duration> {
        self.threads.total()
    }

    /// The first chat completion request received, if any.
    pub fn captured(&self) -> Option<CapturedRequest> {
        lock(&self.tally.captured).clone()
    }
}

/// Locks a mutex, poisoned or not.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{Backend, ModelConfig};
    use std::io::{BufRead, BufReader, Read, Write};

    /// Sends raw requests on one connection; returns (status, body) per response.
    fn exchange(addr: SocketAddr, requests: &[u8], count: usize) -> Vec<(u16, String)> {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.write_all(requests).unwrap();
        let mut reader = BufReader::new(stream);
        (0..count)
            .map(|_| {
                let mut status = String::new();
                reader.read_line(&mut status).unwrap();
                let code = status.split(' ').nth(1).unwrap().parse().unwrap();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                (code, String::from_utf8(body).unwrap())
            })
            .collect()
    }

    #[test]
    fn instant_server_answers_and_captures() {
        let server = InstantServer::start(1).unwrap();
        let body = r#"{"model":"m","messages":[]}"#;
        let one = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        // Two pipelined completions and a 404, on one keep-alive connection.
        let requests = format!("{one}{one}GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
        let answers = exchange(server.addr(), requests.as_bytes(), 3);
        assert_eq!(answers[0].0, 200);
        assert_eq!(answers[1], answers[0]);
        assert_eq!(answers[2].0, 404);
        assert_eq!(server.completions(), 2);
        assert_eq!(server.body_bytes(), 2 * body.len() as u64);

        // The answer is a valid completion holding a strict ITC answer.
        let json: serde_json::Value = serde_json::from_str(&answers[0].1).unwrap();
        let api = crate::models::api_for(&{
            let mut m = ModelConfig::new("m", Backend::Openai);
            m.model_id = Some("x".into());
            m
        })
        .unwrap();
        let answer = api.parse(&json, &Default::default()).unwrap();
        let output = answer.output.unwrap();
        let (_, calls) = crate::spec::response::strict_format(&output).expect("strict ITC answer");
        assert!(calls.is_empty());

        let captured = server.captured().unwrap();
        assert_eq!(
            (captured.method.as_str(), captured.path.as_str()),
            ("POST", "/v1/chat/completions")
        );
        assert_eq!(captured.body, body.as_bytes());
        assert!(captured.headers.contains(&("Host".into(), "x".into())));
    }
}
