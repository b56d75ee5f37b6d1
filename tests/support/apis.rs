//! Fake real-world APIs on loopback, for step-by-step runs that execute
//! tools (SPEC §7): a geocoder whose output feeds a forecast, a currency
//! converter that wants a key, item lookups that answer 404 for unknown
//! ids, an endpoint slower than any test's tool timeout, and one whose body
//! is far larger than the size limit. Every request is counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use itc::util::loopback::{Answer, LoopbackServer, Request, Response, ServerOptions};
use itc::util::runtime::Threads;
use serde_json::{Value, json};

/// The key the converter wants in `X-Api-Key`.
pub const CONVERTER_KEY: &str = "sk-test-converter-4f1a9c";

/// How long `/slow` takes to answer.
pub const SLOW: Duration = Duration::from_secs(3);

/// Bytes of the `/huge` body.
pub const HUGE_BYTES: usize = 2 << 20;

/// The fake APIs, listening until dropped.
pub struct FakeApis {
    server: LoopbackServer,
    requests: Arc<AtomicUsize>,
}

impl FakeApis {
    /// Starts the APIs on an ephemeral loopback port.
    pub fn start() -> FakeApis {
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        let options = ServerOptions {
            thread_name: "fake-apis".into(),
            threads: Threads::Exactly(2),
            on_thread_start: None,
        };
        let server = LoopbackServer::start(options, move |request| {
            counter.fetch_add(1, Ordering::SeqCst);
            let slow = request.path.starts_with("/slow");
            let answer = route(request);
            async move {
                if slow {
                    tokio::time::sleep(SLOW).await;
                }
                answer
            }
        })
        .expect("fake APIs started");
        FakeApis { server, requests }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// `127.0.0.1:PORT`, for `--allow-host`.
    pub fn host(&self) -> String {
        self.server.addr().to_string()
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn json_response(status: u16, body: Value) -> Answer {
    Answer::Respond(Response::json(status, body.to_string().into_bytes()))
}

/// The answer of each endpoint.
fn route(request: &Request<'_>) -> Answer {
    let url =
        reqwest::Url::parse(&format!("http://apis{}", request.path)).expect("a request target");
    let query = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    match (request.method, url.path()) {
        ("GET", "/geocode") => match query("city").as_deref() {
            Some("Lyon") => json_response(200, json!({"name": "Lyon", "lat": 45.76, "lon": 4.84})),
            Some("Kyoto") => {
                json_response(200, json!({"name": "Kyoto", "lat": 35.01, "lon": 135.77}))
            }
            _ => json_response(404, json!({"error": "unknown city"})),
        },
        ("GET", "/forecast") => {
            let lat: f64 = query("lat")
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN);
            let lon: f64 = query("lon")
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN);
            if lat.is_nan() || lon.is_nan() {
                return json_response(400, json!({"error": "lat and lon are required"}));
            }
            json_response(
                200,
                json!({"lat": lat, "lon": lon, "temp_c": 11.5, "sky": "cloudy"}),
            )
        }
        ("POST", "/convert") => {
            if request.header("x-api-key") != Some(CONVERTER_KEY) {
                return json_response(401, json!({"error": "missing or wrong key"}));
            }
            let body: Value = serde_json::from_slice(request.body).unwrap_or(Value::Null);
            let rate = match (body["from"].as_str(), body["to"].as_str()) {
                (Some("EUR"), Some("JPY")) => 160.0,
                (Some("USD"), Some("EUR")) => 0.9,
                _ => return json_response(422, json!({"error": "unknown currency pair"})),
            };
            let amount = body["amount"].as_f64().unwrap_or(0.0);
            // The key echoed back, as careless APIs do: it must be masked.
            json_response(
                200,
                json!({"result": amount * rate, "key_used": CONVERTER_KEY}),
            )
        }
        ("GET", path) if path.starts_with("/items/") => match &path["/items/".len()..] {
            "42" => json_response(200, json!({"id": "42", "name": "lamp"})),
            _ => json_response(404, json!({"error": "no such item"})),
        },
        ("GET", "/slow") => json_response(200, json!({"late": true})),
        ("GET", "/huge") => {
            let body = format!("[{}0]", "1,".repeat(HUGE_BYTES / 2));
            Answer::Respond(Response::json(200, body.into_bytes()))
        }
        _ => json_response(404, json!({"error": "no such endpoint"})),
    }
}
