//! A deterministic, scripted OpenAI-compatible HTTP/1.1 server on loopback.
//!
//! It speaks just enough HTTP/1.1 by hand (keep-alive, Content-Length
//! bodies) to answer `POST …/chat/completions`, and answers each request as
//! a script says: a JSON answer, a status with `Retry-After`, a slow reply,
//! a dropped connection, or a body shorter than its `Content-Length`. The
//! script sees the task id found in the request (the `[[task:ID]]` marker
//! the test tasks put in their queries) and how many requests for that id
//! came before. Every request is logged with its arrival time.
//!
//! The server runs on its own thread and runtime, so tests can drive the
//! library in-process or spawn the `itc` binary.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with a Chat Completions body whose message content is this text.
    Answer(String),
    /// 200 with this JSON body.
    Json(Value),
    /// 200 with this body, sent as is (not necessarily JSON).
    Raw(String),
    /// This status, with an optional `Retry-After` value and a JSON error body.
    Status(u16, Option<String>),
    /// This status with this body.
    StatusBody(u16, String),
    /// Waits, then replies.
    Delay(Duration, Box<Reply>),
    /// Drops the connection (TCP reset) without answering.
    Reset,
    /// 200 announcing a longer body than it sends, then closes.
    Truncated,
}

/// One request as the script sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The task id in the request's `[[task:ID]]` marker, if any.
    pub task: Option<String>,
    /// 1-based: how many requests for this task id arrived, this one included.
    pub attempt: usize,
    /// 1-based: how many requests arrived in all, this one included.
    pub count: usize,
    /// The request target (`/v1/chat/completions`).
    pub path: String,
    /// Header lines, names lower-cased.
    pub headers: HashMap<String, String>,
    /// The JSON body (`Null` when it is not JSON).
    pub body: Value,
}

/// A logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    /// Task id of the request.
    pub task: Option<String>,
    /// Arrival time (after the whole request was read).
    pub at: Instant,
    /// The request target.
    pub path: String,
    /// Header lines, names lower-cased.
    pub headers: HashMap<String, String>,
    /// Body text.
    pub body: String,
}

/// The script: what to answer to each request.
pub type Script = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

struct State {
    script: Script,
    log: Mutex<Vec<Logged>>,
    per_task: Mutex<HashMap<String, usize>>,
    count: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// A running scripted server.
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<State>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts a server on an ephemeral loopback port.
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> ScriptedServer {
        let state = Arc::new(State {
            script: Arc::new(script),
            log: Mutex::new(Vec::new()),
            per_task: Mutex::new(HashMap::new()),
            count: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
        });
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let thread_state = Arc::clone(&state);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("server runtime");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind loopback");
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                loop {
                    tokio::select! {
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let _ = stream.set_nodelay(true);
                            tokio::spawn(serve(stream, Arc::clone(&thread_state)));
                        }
                        _ = &mut stop => break,
                    }
                }
            });
            runtime.shutdown_timeout(Duration::from_millis(100));
        });
        let addr = addr_rx.recv().expect("server started");
        ScriptedServer {
            addr,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.state.count.load(Ordering::SeqCst)
    }

    /// The most requests that were being answered at once.
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }

    /// Every logged request so far, in arrival order.
    pub fn log(&self) -> Vec<Logged> {
        self.state.log.lock().unwrap().clone()
    }

    /// Requests per task id so far.
    pub fn per_task(&self) -> HashMap<String, usize> {
        self.state.per_task.lock().unwrap().clone()
    }

    /// Arrival times of the requests for one task id.
    pub fn arrivals(&self, task: &str) -> Vec<Instant> {
        self.log()
            .into_iter()
            .filter(|l| l.task.as_deref() == Some(task))
            .map(|l| l.at)
            .collect()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The task id in a `[[task:ID]]` marker.
pub fn task_marker(text: &str) -> Option<String> {
    let start = text.find("[[task:")? + "[[task:".len();
    let end = text[start..].find("]]")? + start;
    Some(text[start..end].to_string())
}

/// A Chat Completions body answering with `content`.
pub fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    })
}

async fn serve(mut stream: TcpStream, state: Arc<State>) {
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        let Some((head, body)) = read_request(&mut stream, &mut buffer).await else {
            return;
        };
        let headers = parse_headers(&head);
        let path = head
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string();
        let body_text = String::from_utf8_lossy(&body).into_owned();
        let task = task_marker(&body_text);
        let count = state.count.fetch_add(1, Ordering::SeqCst) + 1;
        let attempt = match &task {
            Some(id) => {
                let mut per_task = state.per_task.lock().unwrap();
                let n = per_task.entry(id.clone()).or_default();
                *n += 1;
                *n
            }
            None => count,
        };
        state.log.lock().unwrap().push(Logged {
            task: task.clone(),
            at: Instant::now(),
            path: path.clone(),
            headers: headers.clone(),
            body: body_text.clone(),
        });
        let request = Request {
            task,
            attempt,
            count,
            path,
            headers,
            body: serde_json::from_str(&body_text).unwrap_or(Value::Null),
        };
        let reply = (state.script)(&request);
        let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        state.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let open = respond(&mut stream, reply).await;
        state.in_flight.fetch_sub(1, Ordering::SeqCst);
        if !open {
            return;
        }
    }
}

/// Reads one request; `None` when the client closed the connection.
async fn read_request(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<(String, Vec<u8>)> {
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let length: usize = parse_headers(&head)
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let body_start = head_end + 4;
    while buffer.len() < body_start + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = buffer[body_start..body_start + length].to_vec();
    buffer.drain(..body_start + length);
    Some((head, body))
}

fn parse_headers(head: &str) -> HashMap<String, String> {
    head.lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect()
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

async fn write_response(
    stream: &mut TcpStream,
    code: u16,
    extra: &str,
    body: &[u8],
    announced: usize,
) -> bool {
    let head = format!(
        "HTTP/1.1 {code} {}\r\ncontent-type: application/json\r\ncontent-length: {announced}\r\n{extra}\r\n",
        reason(code)
    );
    // One write: head and body in separate segments would meet Nagle's
    // algorithm and delayed ACKs (40 ms stalls).
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    stream.write_all(&message).await.is_ok() && stream.flush().await.is_ok()
}

/// Sends a reply; `false` when the connection must close.
async fn respond(stream: &mut TcpStream, reply: Reply) -> bool {
    let mut reply = reply;
    while let Reply::Delay(wait, inner) = reply {
        tokio::time::sleep(wait).await;
        reply = *inner;
    }
    match reply {
        Reply::Answer(text) => {
            let body = completion(&text).to_string();
            write_response(stream, 200, "", body.as_bytes(), body.len()).await
        }
        Reply::Json(value) => {
            let body = value.to_string();
            write_response(stream, 200, "", body.as_bytes(), body.len()).await
        }
        Reply::Raw(text) => write_response(stream, 200, "", text.as_bytes(), text.len()).await,
        Reply::Status(code, retry_after) => {
            let extra = retry_after
                .map(|v| format!("retry-after: {v}\r\n"))
                .unwrap_or_default();
            let body = json!({"error": {"message": format!("scripted status {code}")}}).to_string();
            write_response(stream, code, &extra, body.as_bytes(), body.len()).await
        }
        Reply::StatusBody(code, body) => {
            write_response(stream, code, "", body.as_bytes(), body.len()).await
        }
        Reply::Reset => {
            let _ = stream.set_zero_linger();
            false
        }
        Reply::Truncated => {
            let body = completion("this body is cut short").to_string();
            let half = &body.as_bytes()[..body.len() / 2];
            write_response(stream, 200, "", half, body.len()).await;
            false
        }
        Reply::Delay(..) => unreachable!("delays are unwrapped above"),
    }
}
