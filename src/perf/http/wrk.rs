//! wrk, the reference client: finding it, the Lua script that makes it send
//! one captured harness request, running it and reading its output.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use super::cpu::{CpuPerRequest, CpuSnapshot};
use super::server::{CapturedRequest, InstantServer};

/// What one wrk run reported.
#[derive(Debug, Clone, PartialEq)]
pub struct WrkResult {
    /// `Requests/sec:`.
    pub requests_per_sec: f64,
    /// Requests completed (`N requests in …`).
    pub requests: u64,
    /// `Non-2xx or 3xx responses:` (0 when absent).
    pub non_2xx: u64,
    /// The `Socket errors:` line, when present.
    pub socket_errors: Option<String>,
    /// CPU per request of wrk and of the server.
    pub cpu: CpuPerRequest,
}

/// An executable named `name` in a directory of `PATH`.
pub(super) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A wrk script sending the captured request: method, path, headers (wrk
/// adds `Host` and `Content-Length` itself) and body.
pub fn wrk_script(request: &CapturedRequest) -> String {
    let mut script = String::from("-- written by itc bench http: one request the harness sent\n");
    script.push_str(&format!(
        "wrk.method = {}\n",
        lua_string(request.method.as_bytes())
    ));
    script.push_str(&format!(
        "wrk.path = {}\n",
        lua_string(request.path.as_bytes())
    ));
    for (name, value) in &request.headers {
        if name.eq_ignore_ascii_case("host") || name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        script.push_str(&format!(
            "wrk.headers[{}] = {}\n",
            lua_string(name.as_bytes()),
            lua_string(value.as_bytes())
        ));
    }
    script.push_str(&format!("wrk.body = {}\n", lua_string(&request.body)));
    script
}

/// A Lua string literal holding exactly `bytes` (decimal escapes for
/// anything but printable ASCII).
fn lua_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03}")),
        }
    }
    s.push('"');
    s
}

/// Runs wrk with `script` against the server's chat completions for
/// `seconds` on `connections` connections: its figures and CPU per request.
pub(super) fn run_wrk(
    wrk: &Path,
    script: &Path,
    server: &InstantServer,
    connections: usize,
    seconds: u64,
) -> anyhow::Result<WrkResult> {
    let threads = connections.min(2);
    let before = CpuSnapshot::take(server.cpu_time());
    let output = Command::new(wrk)
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .arg("-s")
        .arg(script)
        .arg(format!("http://{}/v1/chat/completions", server.addr()))
        .output()
        .with_context(|| format!("running {}", wrk.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let mut result =
        parse_wrk(&stdout).with_context(|| format!("reading wrk's output:\n{stdout}"))?;
    result.cpu = before.per_request(&CpuSnapshot::take(server.cpu_time()), result.requests, true);
    Ok(result)
}

/// Reads `Requests/sec`, non-2xx responses and socket errors from wrk's output.
pub fn parse_wrk(text: &str) -> anyhow::Result<WrkResult> {
    let mut rate = None;
    let mut requests = 0;
    let mut non_2xx = 0;
    let mut socket_errors = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("Requests/sec:") {
            rate = v.trim().parse::<f64>().ok();
        } else if let Some(v) = line.strip_prefix("Non-2xx or 3xx responses:") {
            non_2xx = v.trim().parse().unwrap_or(0);
        } else if let Some((n, _)) = line.split_once(" requests in ") {
            requests = n.trim().parse().unwrap_or(0);
        } else if line.starts_with("Socket errors:") {
            socket_errors = Some(line.to_string());
        }
    }
    let Some(requests_per_sec) = rate else {
        bail!("no `Requests/sec:` line");
    };
    Ok(WrkResult {
        requests_per_sec,
        requests,
        non_2xx,
        socket_errors,
        cpu: CpuPerRequest::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_script_holds_the_request_exactly() {
        let request = CapturedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: vec![
                ("host".into(), "127.0.0.1:1".into()),
                ("content-type".into(), "application/json".into()),
                ("content-length".into(), "9".into()),
            ],
            body: "{\"q\":\"日\\\"\n1\"}".as_bytes().to_vec(),
        };
        let script = wrk_script(&request);
        assert!(script.contains("wrk.method = \"POST\"\n"));
        assert!(script.contains("wrk.headers[\"content-type\"] = \"application/json\"\n"));
        assert!(!script.contains("host") && !script.contains("content-length"));
        // 日 is E6 97 A5; the newline is byte 10.
        assert!(
            script.contains(r#"wrk.body = "{\"q\":\"\230\151\165\\\"\0101\"}""#),
            "{script}"
        );
    }

    #[test]
    fn wrk_output_is_read() {
        let text = "Running 5s test @ http://127.0.0.1:1/v1/chat/completions\n  2 threads and 32 connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency   310.00us  100.00us   2.00ms   90.00%\n  123456 requests in 5.00s, 50.00MB read\n  Socket errors: connect 0, read 1, write 0, timeout 0\n  Non-2xx or 3xx responses: 3\nRequests/sec:  24691.20\nTransfer/sec:     10.00MB\n";
        let r = parse_wrk(text).unwrap();
        assert!((r.requests_per_sec - 24691.2).abs() < 1e-9);
        assert_eq!((r.requests, r.non_2xx), (123456, 3));
        assert!(r.socket_errors.unwrap().contains("read 1"));
        assert!(parse_wrk("nothing").is_err());
    }
}
