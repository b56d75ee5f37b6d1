//! `itc ood fetch` against a static HTTP server on loopback that serves the
//! copies of the upstream files kept in `datasets/ood/` under their GitHub
//! raw paths: success, a second run served from the cache, altered bytes,
//! a missing file and a refused connection.

mod support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use itc::util::loopback::{Answer, LoopbackServer, Response, ServerOptions};
use support::{itc, text};

/// What the server does with the bytes it serves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Serve {
    /// The fixture copies as they are.
    Exact,
    /// The copies with one byte changed.
    Altered,
}

/// A static file server: `GET /<repo>/<commit>/<path>` → the local copy,
/// one request a connection.
struct StaticServer {
    server: LoopbackServer,
    requests: Arc<AtomicUsize>,
    paths: Arc<Mutex<Vec<String>>>,
}

fn local_copy(url_path: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood");
    let gorilla = "/ShishirPatil/gorilla/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/data/";
    let seal = "/fairyshine/Seal-Tools/ce753ecd60ed08dd376984035de531ab8421f1c6/Seal-Tools_Dataset/dataset_for_finetune/";
    if let Some(rest) = url_path.strip_prefix(gorilla) {
        return Some(root.join("gorilla").join(rest));
    }
    if let Some(rest) = url_path.strip_prefix(seal) {
        return Some(root.join("seal-tools").join(rest));
    }
    let stb = "/THUNLP-MT/StableToolBench/aa4ed9f4737ad98bd706663f01d63623c3427812/";
    if let Some(rest) = url_path.strip_prefix(stb) {
        return Some(root.join("stabletoolbench").join(rest));
    }
    None
}

/// The local copy of the requested path (altered as `mode` says), or 404;
/// the connection closes after it.
fn serve_file(path: &str, mode: Serve) -> Answer {
    let response = match local_copy(path).and_then(|p| std::fs::read(p).ok()) {
        Some(mut bytes) => {
            if mode == Serve::Altered {
                bytes[10] ^= 0x20;
            }
            Response::new(200, bytes)
        }
        None => Response::new(404, &b"not found"[..]),
    };
    Answer::RespondAndClose(response.with_header("connection", "close"))
}

impl StaticServer {
    fn start(mode: Serve) -> StaticServer {
        let requests = Arc::new(AtomicUsize::new(0));
        let paths = Arc::new(Mutex::new(Vec::new()));
        let (r, p) = (Arc::clone(&requests), Arc::clone(&paths));
        let server = LoopbackServer::start(ServerOptions::default(), move |request| {
            r.fetch_add(1, Ordering::SeqCst);
            p.lock().unwrap().push(request.path.to_string());
            std::future::ready(serve_file(request.path, mode))
        })
        .unwrap();
        StaticServer {
            server,
            requests,
            paths,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.addr().port())
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn fetch(name: &str, cache: &Path, base_url: &str) -> std::process::Output {
    itc(
        &[
            "ood",
            "fetch",
            name,
            "--ood-cache",
            cache.to_str().unwrap(),
            "--base-url",
            base_url,
        ],
        &[],
    )
}

/// Every file under a directory, relative paths, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn downloads_checks_and_then_serves_from_the_cache() {
    let server = StaticServer::start(Serve::Exact);
    let cache = tempfile::tempdir().unwrap();
    let run = fetch("apibench-torchhub", cache.path(), &server.url());
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert_eq!(server.requests(), 2, "{stdout}");
    assert_eq!(
        *server.paths.lock().unwrap(),
        [
            "/ShishirPatil/gorilla/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/data/api/torchhub_api.jsonl",
            "/ShishirPatil/gorilla/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/data/apibench/torchhub_eval.json",
        ]
    );
    assert_eq!(stdout.matches("downloaded").count(), 2, "{stdout}");
    assert_eq!(
        files_under(cache.path()),
        [
            "gorilla/data/api/torchhub_api.jsonl",
            "gorilla/data/apibench/torchhub_eval.json"
        ]
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/gorilla");
    assert_eq!(
        std::fs::read(
            cache
                .path()
                .join("gorilla/data/apibench/torchhub_eval.json")
        )
        .unwrap(),
        std::fs::read(root.join("apibench/torchhub_eval.json")).unwrap()
    );
    // The files can be found by the library for `itc eval --dataset`.
    assert!(
        itc::benchmarks::fetch::locate("apibench-torchhub", cache.path())
            .unwrap()
            .is_some()
    );

    // A second run sends no request.
    let again = fetch("apibench-torchhub", cache.path(), &server.url());
    let stdout = text(&again.stdout);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(server.requests(), 2, "no new request: {stdout}");
    assert_eq!(stdout.matches("cached").count(), 2, "{stdout}");

    // A damaged cached file is downloaded again.
    let damaged = cache.path().join("gorilla/data/api/torchhub_api.jsonl");
    std::fs::write(&damaged, b"damaged").unwrap();
    let repair = fetch("apibench-torchhub", cache.path(), &server.url());
    assert!(repair.status.success(), "{}", text(&repair.stderr));
    assert_eq!(server.requests(), 3);
    let stdout = text(&repair.stdout);
    assert!(
        stdout.contains("downloaded") && stdout.contains("cached"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(&damaged).unwrap(),
        std::fs::read(root.join("api/torchhub_api.jsonl")).unwrap()
    );
}

#[test]
fn altered_bytes_are_rejected_and_leave_nothing_behind() {
    let server = StaticServer::start(Serve::Altered);
    let cache = tempfile::tempdir().unwrap();
    let run = fetch("seal-tools", cache.path(), &server.url());
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("SHA-256 mismatch"), "{stderr}");
    assert!(
        stderr.contains(
            "/fairyshine/Seal-Tools/ce753ecd60ed08dd376984035de531ab8421f1c6/Seal-Tools_Dataset/dataset_for_finetune/test_in_domain.json"
        ),
        "names the URL: {stderr}"
    );
    assert!(
        stderr
            .contains("expected 75d51adc3521c6dce1b0f19628446a5e49d30e7a36425fada7809b0f5a4e4d7a"),
        "{stderr}"
    );
    // The hash of what was served, computed here independently.
    let mut served = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/ood/seal-tools/test_in_domain.json"),
    )
    .unwrap();
    served[10] ^= 0x20;
    let actual = itc::util::hash::sha256_hex(&served);
    assert!(stderr.contains(&format!("got {actual}")), "{stderr}");
    assert!(
        files_under(cache.path()).is_empty(),
        "{:?}",
        files_under(cache.path())
    );
}

#[test]
fn a_missing_file_is_an_http_error() {
    let server = StaticServer::start(Serve::Exact);
    let cache = tempfile::tempdir().unwrap();
    // toolalpaca's file is not among the fixture copies: the server says 404.
    let run = fetch("toolalpaca", cache.path(), &server.url());
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("HTTP 404 Not Found"), "{stderr}");
    assert!(
        stderr.contains("/tangqiaoyu/ToolAlpaca/189069998d64a7baf1b4a1c3c4b2e75eb9d05532/data/eval_simulated.json"),
        "{stderr}"
    );
    assert!(files_under(cache.path()).is_empty());
}

#[test]
fn an_unreachable_host_says_so_and_how_to_place_files() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cache = tempfile::tempdir().unwrap();
    let run = fetch(
        "nexusraven",
        cache.path(),
        &format!("http://127.0.0.1:{port}"),
    );
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("CC-BY-NC-4.0"), "licence notice: {stderr}");
    assert!(stderr.contains("could not reach 127.0.0.1"), "{stderr}");
    assert!(stderr.contains("may be offline"), "{stderr}");
    assert!(stderr.contains("place the files by hand"), "{stderr}");
    // The manual instructions give the public URL, the destination and the hash.
    let dest = cache
        .path()
        .join("nexusraven/raven/data/resources/toolllm_queries.json");
    assert!(
        stderr.contains("https://raw.githubusercontent.com/nexusflowai/NexusRaven/f32882763bb3e220722883821919c14abdd3d156/raven/data/resources/toolllm_queries.json"),
        "{stderr}"
    );
    assert!(stderr.contains(&dest.display().to_string()), "{stderr}");
    assert!(
        stderr.contains("849c34c519ad51022c075ecc6e33460f7c71f5981f58398d4a0ef7baf07a39df"),
        "{stderr}"
    );
    assert!(files_under(cache.path()).is_empty());
}

#[test]
fn unknown_names_list_the_known_ones() {
    let cache = tempfile::tempdir().unwrap();
    let run = fetch("gorilla", cache.path(), "http://127.0.0.1:9");
    let stderr = text(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("unknown OOD dataset \"gorilla\"") && stderr.contains("apibench-torchhub"),
        "{stderr}"
    );
}

/// `itc ood fetch stabletoolbench` brings the six groups, and `itc eval
/// --dataset stabletoolbench:<group>` then reads the cached copy.
#[test]
fn stabletoolbench_groups_are_fetched_and_read_from_the_cache() {
    let server = StaticServer::start(Serve::Exact);
    let cache = tempfile::tempdir().unwrap();
    let run = fetch("stabletoolbench", cache.path(), &server.url());
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(server.requests(), 6);
    let groups = [
        "G1_category",
        "G1_instruction",
        "G1_tool",
        "G2_category",
        "G2_instruction",
        "G3_instruction",
    ];
    let expected: Vec<String> = groups
        .iter()
        .map(|g| format!("stabletoolbench/solvable_queries/test_instruction/{g}.json"))
        .collect();
    assert_eq!(files_under(cache.path()), expected);
    // One group alone is already there: no request.
    let one = fetch(
        "stabletoolbench-G3_instruction",
        cache.path(),
        &server.url(),
    );
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert_eq!(server.requests(), 6);
    let runs = tempfile::tempdir().unwrap();
    let eval = itc(
        &[
            "eval",
            "--dataset",
            "stabletoolbench:G3_instruction",
            "--ood-cache",
            cache.path().to_str().unwrap(),
            "--limit",
            "2",
            "--bootstrap",
            "0",
            "--no-progress",
            "--run-dir",
            runs.path().join("run").to_str().unwrap(),
        ],
        &[],
    );
    let stderr = text(&eval.stderr);
    assert!(eval.status.success(), "{stderr}");
    assert!(stderr.contains("the fetch cache"), "{stderr}");
}
