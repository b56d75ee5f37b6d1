//! A deterministic, scripted OpenAI-compatible HTTP/1.1 server on loopback.
//!
//! Built on the library's loopback server ([`itc::util::loopback`]:
//! keep-alive, Content-Length bodies), it answers `POST …/chat/completions`
//! as a script says: a JSON answer, a status with `Retry-After`, a slow reply,
//! a dropped connection, or a body shorter than its `Content-Length`. The
//! script sees the task id found in the request (the `[[task:ID]]` marker
//! the test tasks put in their queries) and how many requests for that id
//! came before. Every request is logged with its arrival time.
//!
//! `GET …/props` and `GET …/slots`, which `itc eval` sends to a loopback
//! server to learn its slot count, are not chat requests: the server
//! answers them itself (404, or the body [`ScriptedServer::with_props`]
//! gave), without the script, the log or the request count.
//!
//! The server runs on its own thread and runtime, so tests can drive the
//! library in-process or spawn the `itc` binary.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use itc::util::loopback::{
    Answer, LoopbackServer, Request as HttpRequest, Response, ServerOptions,
};
use itc::util::runtime::Threads;
use serde_json::{Value, json};

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
    props: Mutex<Option<Value>>,
    info_requests: AtomicUsize,
}

/// A running scripted server.
pub struct ScriptedServer {
    server: LoopbackServer,
    state: Arc<State>,
}

impl ScriptedServer {
    /// Starts a server on an ephemeral loopback port.
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> ScriptedServer {
        let state = Arc::new(State {
            script: Arc::new(script),
            log: Mutex::new(Vec::new()),
            per_task: Mutex::new(HashMap::new()),
            count: AtomicUsize::new(0),
            props: Mutex::new(None),
            info_requests: AtomicUsize::new(0),
        });
        let options = ServerOptions {
            thread_name: "scripted-server".into(),
            threads: Threads::Exactly(2),
            on_thread_start: None,
        };
        let handler_state = Arc::clone(&state);
        let server = LoopbackServer::start(options, move |request| answer(&handler_state, request))
            .expect("server started");
        ScriptedServer { server, state }
    }

    /// Answers `GET /props` with this body from now on (llama.cpp's server
    /// properties: `{"total_slots": N, …}`).
    pub fn with_props(self, props: Value) -> ScriptedServer {
        *self.state.props.lock().unwrap() = Some(props);
        self
    }

    /// `GET /props` and `GET /slots` requests received so far.
    pub fn info_requests(&self) -> usize {
        self.state.info_requests.load(Ordering::SeqCst)
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.state.count.load(Ordering::SeqCst)
    }

    /// The most requests that were being answered at once.
    pub fn max_in_flight(&self) -> usize {
        self.server.max_in_flight()
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

/// The answer to one request: logs it, asks the script, then waits out the
/// script's delays.
fn answer(state: &State, request: &HttpRequest<'_>) -> impl Future<Output = Answer> + use<> {
    if request.method == "GET"
        && (request.path.ends_with("/props") || request.path.ends_with("/slots"))
    {
        state.info_requests.fetch_add(1, Ordering::SeqCst);
        let props = state.props.lock().unwrap().clone();
        let reply = match props {
            Some(props) if request.path.ends_with("/props") => Reply::Json(props),
            _ => Reply::StatusBody(404, "{\"error\": \"not found\"}".into()),
        };
        return later(reply);
    }
    let headers: HashMap<String, String> = request
        .headers()
        .map(|(name, value)| (name.to_ascii_lowercase(), value.to_string()))
        .collect();
    let path = request.path.to_string();
    let body_text = String::from_utf8_lossy(request.body).into_owned();
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
    later((state.script)(&request))
}

/// The answer to a reply, after its delays.
async fn later(mut reply: Reply) -> Answer {
    while let Reply::Delay(wait, inner) = reply {
        tokio::time::sleep(wait).await;
        reply = *inner;
    }
    to_answer(reply)
}

impl Reply {
    /// The 200 body of an answer ([`Reply::Answer`] or [`Reply::Json`]), as
    /// a batch result carries it; `None` for the other replies.
    pub fn success_body(&self) -> Option<Value> {
        match self {
            Reply::Answer(text) => Some(completion(text)),
            Reply::Json(value) => Some(value.clone()),
            _ => None,
        }
    }
}

/// What the loopback server does for a reply (delays already waited out).
fn to_answer(reply: Reply) -> Answer {
    match reply {
        Reply::Answer(text) => Answer::Respond(Response::json(
            200,
            completion(&text).to_string().into_bytes(),
        )),
        Reply::Json(value) => Answer::Respond(Response::json(200, value.to_string().into_bytes())),
        Reply::Raw(text) => Answer::Respond(Response::json(200, text.into_bytes())),
        Reply::Status(code, retry_after) => {
            let body = json!({"error": {"message": format!("scripted status {code}")}}).to_string();
            let response = Response::json(code, body.into_bytes());
            Answer::Respond(match retry_after {
                Some(value) => response.with_header("retry-after", value),
                None => response,
            })
        }
        Reply::StatusBody(code, body) => Answer::Respond(Response::json(code, body.into_bytes())),
        Reply::Reset => Answer::Reset,
        Reply::Truncated => {
            let body = completion("this body is cut short").to_string();
            let half = body.len() / 2;
            Answer::Truncated {
                response: Response::json(200, body.into_bytes()),
                sent: half,
            }
        }
        Reply::Delay(..) => unreachable!("delays are waited out before"),
    }
}
