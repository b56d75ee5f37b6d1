//! A small HTTP/1.1 server on loopback, for benchmarks and tests: it binds
//! an ephemeral port of `127.0.0.1`, accepts connections on its own thread
//! and tokio runtime, reads each request (request line, headers and a
//! `Content-Length` body; keep-alive), hands it to a handler and writes the
//! handler's [`Answer`].
//!
//! The handler is async, so it may stall before answering; its answer may
//! also close the connection, cut the body short or reset the connection,
//! which is how tests inject faults. HTTP is spoken by hand (no chunked
//! bodies): a malformed request gets a 400 and the connection is closed.
//! Dropping the [`LoopbackServer`] stops it.

use std::borrow::Cow;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::runtime::{self, Threads};

/// The largest request head read; a longer one is a bad request.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// One request, borrowed from the connection's read buffer.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The method, e.g. `POST`.
    pub method: &'a str,
    /// The request target, e.g. `/v1/chat/completions`.
    pub path: &'a str,
    /// The header lines, `\r\n`-separated (read through [`Request::headers`]).
    header_lines: &'a str,
    /// The body (`Content-Length` bytes).
    pub body: &'a [u8],
}

impl<'a> Request<'a> {
    /// The headers in arrival order, names as sent, names and values trimmed.
    pub fn headers(&self) -> impl Iterator<Item = (&'a str, &'a str)> + use<'a> {
        self.header_lines
            .split("\r\n")
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim(), value.trim()))
    }

    /// The value of the first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }
}

/// A response: its status, headers and body. It is written as the status
/// line, `content-type` (when set), `content-length`, the other headers in
/// order, and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code, e.g. 200.
    pub status: u16,
    /// The `content-type` header, when there is one.
    pub content_type: Option<&'static str>,
    /// Further headers, written after `content-length`.
    pub headers: Vec<(&'static str, String)>,
    /// The body; a `&'static` one is written without copying it first.
    pub body: Cow<'static, [u8]>,
}

impl Response {
    /// A response without `content-type`.
    pub fn new(status: u16, body: impl Into<Cow<'static, [u8]>>) -> Response {
        Response {
            status,
            content_type: None,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// A response with `content-type: application/json`.
    pub fn json(status: u16, body: impl Into<Cow<'static, [u8]>>) -> Response {
        Response {
            content_type: Some("application/json"),
            ..Response::new(status, body)
        }
    }

    /// The response with one more header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }
}

/// What the server does with a request once the handler has looked at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Writes the response and keeps the connection open for the next
    /// request (unless the request said `Connection: close` or was HTTP/1.0).
    Respond(Response),
    /// Writes the response, then closes the connection.
    RespondAndClose(Response),
    /// Writes the response's head, which announces the whole body, and only
    /// the first `sent` bytes of the body; then closes the connection.
    Truncated {
        /// The response, whole.
        response: Response,
        /// How many bytes of its body are sent.
        sent: usize,
    },
    /// Answers nothing: resets the connection (TCP RST).
    Reset,
}

/// How the server runs.
#[derive(Clone)]
pub struct ServerOptions {
    /// The name of the server's thread.
    pub thread_name: String,
    /// The threads of its runtime: [`Threads::Current`] serves everything
    /// on the server's own thread.
    pub threads: Threads,
    /// Called first on the server's thread and on every thread its runtime
    /// starts: for accounting per thread, such as CPU time.
    pub on_thread_start: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            thread_name: "loopback-server".into(),
            threads: Threads::Current,
            on_thread_start: None,
        }
    }
}

/// Requests being answered (from the handler's call until the answer is
/// written) and the most there were at once.
#[derive(Debug, Default)]
struct InFlight {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl InFlight {
    /// Counts one more request until the guard is dropped (also when a
    /// panicking handler unwinds).
    fn enter(&self) -> InFlightGuard<'_> {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        InFlightGuard(self)
    }
}

/// One request in flight; see [`InFlight::enter`].
struct InFlightGuard<'a>(&'a InFlight);

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A running loopback server; dropping it stops it.
#[derive(Debug)]
pub struct LoopbackServer {
    addr: SocketAddr,
    in_flight: Arc<InFlight>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Starts a server on an ephemeral port of 127.0.0.1 that answers every
    /// request with what `handler` returns for it.
    pub fn start<H, F>(options: ServerOptions, handler: H) -> anyhow::Result<LoopbackServer>
    where
        H: Fn(&Request<'_>) -> F + Send + Sync + 'static,
        F: Future<Output = Answer> + Send + 'static,
    {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").context("binding a loopback port")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let hook = options.on_thread_start.clone();
        let runtime = match &hook {
            Some(hook) => {
                let hook = Arc::clone(hook);
                runtime::runtime_with_thread_start(options.threads, move || hook())
            }
            None => runtime::runtime(options.threads),
        }
        .context("starting the server runtime")?;
        let in_flight = Arc::new(InFlight::default());
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let (handler, counter) = (Arc::new(handler), Arc::clone(&in_flight));
        let thread = std::thread::Builder::new()
            .name(options.thread_name)
            .spawn(move || {
                if let Some(hook) = hook {
                    hook();
                }
                runtime.block_on(accept(listener, handler, counter, stop));
                runtime.shutdown_timeout(Duration::from_millis(100));
            })
            .context("starting the server thread")?;
        Ok(LoopbackServer {
            addr,
            in_flight,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The most requests that were being answered at once so far.
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.most.load(Ordering::SeqCst)
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Accepts connections, each served on a task of its own, until `stop`.
async fn accept<H, F>(
    listener: std::net::TcpListener,
    handler: Arc<H>,
    in_flight: Arc<InFlight>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) where
    H: Fn(&Request<'_>) -> F + Send + Sync + 'static,
    F: Future<Output = Answer> + Send + 'static,
{
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve(stream, Arc::clone(&handler), Arc::clone(&in_flight)));
            }
            _ = &mut stop => break,
        }
    }
}

/// What [`parse`] found at the start of the read buffer.
enum Parsed<'a> {
    /// A whole request of `len` bytes; `close`: the client asked to close
    /// the connection after it.
    Complete {
        request: Request<'a>,
        len: usize,
        close: bool,
    },
    /// More bytes are needed.
    Partial,
    /// Not HTTP this server understands.
    Bad,
}

/// Serves one connection: reads requests one after the other and writes
/// each one's answer, until the client or an answer closes it.
async fn serve<H, F>(mut stream: TcpStream, handler: Arc<H>, in_flight: Arc<InFlight>)
where
    H: Fn(&Request<'_>) -> F,
    F: Future<Output = Answer>,
{
    let mut buffer: Vec<u8> = Vec::with_capacity(32 * 1024);
    let mut out: Vec<u8> = Vec::with_capacity(4 * 1024);
    loop {
        match parse(&buffer) {
            Parsed::Complete {
                request,
                len,
                close,
            } => {
                let answering = in_flight.enter();
                let answer = handler(&request).await;
                let open = write_answer(&mut stream, answer, &mut out).await;
                drop(answering);
                if !open {
                    return; // dropping the stream closes it (or resets it, after Reset)
                }
                if close {
                    let _ = stream.shutdown().await;
                    return;
                }
                buffer.drain(..len);
                continue;
            }
            Parsed::Bad => {
                let bad = Response::json(400, &br#"{"error":{"message":"bad request"}}"#[..]);
                write_answer(&mut stream, Answer::RespondAndClose(bad), &mut out).await;
                let _ = stream.shutdown().await;
                return;
            }
            Parsed::Partial => {}
        }
        if buffer.capacity() - buffer.len() < 16 * 1024 {
            buffer.reserve(32 * 1024);
        }
        match stream.read_buf(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Parses the request at the start of `data`.
fn parse(data: &[u8]) -> Parsed<'_> {
    let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else {
        return if data.len() > MAX_HEAD_BYTES {
            Parsed::Bad
        } else {
            Parsed::Partial
        };
    };
    let Ok(head) = std::str::from_utf8(&data[..end]) else {
        return Parsed::Bad;
    };
    let (request_line, header_lines) = head.split_once("\r\n").unwrap_or((head, ""));
    let mut parts = request_line.split(' ');
    let (Some(method), Some(path), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Parsed::Bad;
    };
    let mut length = 0usize;
    let mut close = version == "HTTP/1.0";
    for line in header_lines.split("\r\n").filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Parsed::Bad;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let Ok(n) = value.parse() else {
                return Parsed::Bad;
            };
            length = n;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Parsed::Bad; // chunked bodies are not needed here
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        }
    }
    let len = end + 4 + length;
    if data.len() < len {
        return Parsed::Partial;
    }
    Parsed::Complete {
        request: Request {
            method,
            path,
            header_lines,
            body: &data[end + 4..len],
        },
        len,
        close,
    }
}

/// Writes an answer; `false` when the connection must close after it.
async fn write_answer(stream: &mut TcpStream, answer: Answer, out: &mut Vec<u8>) -> bool {
    let (response, sent, keep_open) = match &answer {
        Answer::Respond(response) => (response, response.body.len(), true),
        Answer::RespondAndClose(response) => (response, response.body.len(), false),
        Answer::Truncated { response, sent } => (response, (*sent).min(response.body.len()), false),
        Answer::Reset => {
            let _ = stream.set_zero_linger();
            return false;
        }
    };
    out.clear();
    write_head(response, out);
    // One write: head and body in separate segments would meet Nagle's
    // algorithm and delayed ACKs (40 ms stalls).
    out.extend_from_slice(&response.body[..sent]);
    stream.write_all(out).await.is_ok() && keep_open
}

/// The status line and headers of `response`, announcing its whole body.
fn write_head(response: &Response, out: &mut Vec<u8>) {
    let status = response.status;
    let _ = write!(out, "HTTP/1.1 {status} {}\r\n", reason(status));
    if let Some(content_type) = response.content_type {
        let _ = write!(out, "content-type: {content_type}\r\n");
    }
    let _ = write!(out, "content-length: {}\r\n", response.body.len());
    for (name, value) in &response.headers {
        let _ = write!(out, "{name}: {value}\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// The reason phrase of a status code.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read};
    use std::sync::Mutex;

    /// A server answering every request with its method, path and body.
    fn echo_server() -> LoopbackServer {
        LoopbackServer::start(ServerOptions::default(), |request| {
            let text = format!(
                "{} {} {}",
                request.method,
                request.path,
                String::from_utf8_lossy(request.body)
            );
            std::future::ready(Answer::Respond(Response::new(200, text.into_bytes())))
        })
        .unwrap()
    }

    /// Reads one response: its status line, headers (names lower-cased) and
    /// body of `content-length` bytes.
    fn read_response(reader: &mut impl BufRead) -> (String, Vec<(String, String)>, Vec<u8>) {
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map_or(0, |(_, v)| v.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        (status.trim_end().to_string(), headers, body)
    }

    /// True when the peer closed the connection (end of stream or reset).
    fn closed(reader: &mut impl Read) -> bool {
        let mut byte = [0u8];
        !matches!(reader.read(&mut byte), Ok(1))
    }

    #[test]
    fn a_keep_alive_connection_serves_two_requests() {
        let server = echo_server();
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        stream
            .write_all(b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let (status, headers, body) = read_response(&mut reader);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(headers, [("content-length".to_string(), "9".to_string())]);
        assert_eq!(body, b"GET /one ");
        stream
            .write_all(b"POST /two HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
            .unwrap();
        assert_eq!(read_response(&mut reader).2, b"POST /two hi");
    }

    #[test]
    fn the_body_is_read_by_content_length_across_writes() {
        let server = echo_server();
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        stream
            .write_all(b"POST /b HTTP/1.1\r\ncontent-length: 11\r\n\r\nhello")
            .unwrap();
        std::thread::sleep(Duration::from_millis(20));
        // The rest of the body, then a second (pipelined) request.
        stream
            .write_all(b" worldGET /next HTTP/1.1\r\n\r\n")
            .unwrap();
        assert_eq!(read_response(&mut reader).2, b"POST /b hello world");
        assert_eq!(read_response(&mut reader).2, b"GET /next ");
    }

    #[test]
    fn headers_reach_the_handler_and_the_response_in_order() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let server = LoopbackServer::start(ServerOptions::default(), move |request| {
            let headers: Vec<(String, String)> = request
                .headers()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            log.lock()
                .unwrap()
                .push((headers, request.header("X-ONE").map(String::from)));
            let response = Response::json(429, &b"{}"[..]).with_header("retry-after", "1");
            std::future::ready(Answer::Respond(response))
        })
        .unwrap();
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nX-One:  a \r\nx-two: b\r\n\r\n")
            .unwrap();
        let (status, headers, _) = read_response(&mut BufReader::new(stream));
        assert_eq!(status, "HTTP/1.1 429 Too Many Requests");
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["content-type", "content-length", "retry-after"]);
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            seen.lock().unwrap()[0],
            (
                vec![pair("X-One", "a"), pair("x-two", "b")],
                Some("a".into())
            )
        );
    }

    #[test]
    fn a_handler_can_close_truncate_or_reset() {
        let server = LoopbackServer::start(ServerOptions::default(), |request| {
            let response = Response::new(200, &b"0123456789"[..]);
            std::future::ready(match request.path {
                "/close" => Answer::RespondAndClose(response),
                "/cut" => Answer::Truncated { response, sent: 4 },
                _ => Answer::Reset,
            })
        })
        .unwrap();
        let connect = || std::net::TcpStream::connect(server.addr()).unwrap();

        let mut stream = connect();
        stream.write_all(b"GET /close HTTP/1.1\r\n\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        assert_eq!(read_response(&mut reader).2, b"0123456789");
        assert!(closed(&mut reader));

        let mut stream = connect();
        stream.write_all(b"GET /cut HTTP/1.1\r\n\r\n").unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        assert!(text.ends_with("content-length: 10\r\n\r\n0123"), "{text}");

        let mut stream = connect();
        stream.write_all(b"GET /reset HTTP/1.1\r\n\r\n").unwrap();
        assert!(closed(&mut stream));
    }

    #[test]
    fn connection_close_and_bad_requests_end_the_connection() {
        let server = echo_server();
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        stream
            .write_all(b"GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut reader = BufReader::new(stream);
        assert_eq!(read_response(&mut reader).2, b"GET /a ");
        assert!(closed(&mut reader));

        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        stream
            .write_all(b"GET /a HTTP/1.1\r\nno colon\r\n\r\n")
            .unwrap();
        let mut reader = BufReader::new(stream);
        let (status, _, body) = read_response(&mut reader);
        assert_eq!(status, "HTTP/1.1 400 Bad Request");
        assert_eq!(body, br#"{"error":{"message":"bad request"}}"#);
        assert!(closed(&mut reader));
    }

    #[test]
    fn stalled_answers_count_as_in_flight_and_threads_are_announced() {
        let started = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&started);
        let options = ServerOptions {
            threads: Threads::Exactly(2),
            on_thread_start: Some(Arc::new(move || {
                count.fetch_add(1, Ordering::SeqCst);
            })),
            ..ServerOptions::default()
        };
        let server = LoopbackServer::start(options, |_| async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Answer::Respond(Response::new(200, &b"late"[..]))
        })
        .unwrap();
        let clients: Vec<_> = (0..2)
            .map(|_| {
                let addr = server.addr();
                std::thread::spawn(move || {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
                    read_response(&mut BufReader::new(stream)).2
                })
            })
            .collect();
        for client in clients {
            assert_eq!(client.join().unwrap(), b"late");
        }
        assert_eq!(server.max_in_flight(), 2);
        // The server's own thread and its two workers.
        assert!(started.load(Ordering::SeqCst) >= 3);
    }
}
