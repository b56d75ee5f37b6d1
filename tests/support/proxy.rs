//! A recording proxy on loopback: forwards every request to an upstream
//! server (the real model's) as it came and keeps each request body, so a
//! test can see what `itc eval` sent to a real server.

use std::sync::{Arc, Mutex};

use itc::util::loopback::{Answer, LoopbackServer, Response, ServerOptions};
use itc::util::runtime::Threads;
use serde_json::Value;

/// The proxy, listening until dropped.
pub struct RecordingProxy {
    server: LoopbackServer,
    bodies: Arc<Mutex<Vec<Value>>>,
    path: String,
}

impl RecordingProxy {
    /// Forwards to `upstream`, a base URL such as `http://127.0.0.1:8765/v1`.
    pub fn start(upstream: &str) -> RecordingProxy {
        let url = reqwest::Url::parse(upstream).expect("an upstream URL");
        let origin = url.origin().ascii_serialization();
        let path = url.path().trim_end_matches('/').to_string();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&bodies);
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let options = ServerOptions {
            thread_name: "recording-proxy".into(),
            threads: Threads::Exactly(1),
            on_thread_start: None,
        };
        let server = LoopbackServer::start(options, move |request| {
            let target = format!("{origin}{}", request.path);
            let method = reqwest::Method::from_bytes(request.method.as_bytes()).unwrap();
            let body = request.body.to_vec();
            if let Ok(json) = serde_json::from_slice::<Value>(&body) {
                log.lock().unwrap().push(json);
            }
            let client = client.clone();
            async move {
                let sent = client
                    .request(method, target)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await;
                match sent {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let bytes = response.bytes().await.unwrap_or_default();
                        Answer::Respond(Response::json(status, bytes.to_vec()))
                    }
                    Err(_) => Answer::Reset,
                }
            }
        })
        .expect("proxy started");
        RecordingProxy {
            server,
            bodies,
            path,
        }
    }

    /// The proxy's base URL (the upstream's path on the proxy's address).
    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.server.addr(), self.path)
    }

    /// The JSON request bodies forwarded so far, in arrival order.
    pub fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}
