//! `reports/sample/` is the committed report of the sample set's five
//! recorded models and the offline baseline (`scripts/sample-report.sh`
//! writes it). This test makes it again the same way and fails when a
//! committed file is stale. The input manifests (times, paths) and the
//! screenshot (fonts, browser) differ by machine and are only checked to
//! be there; the times the manifests record, which the report shows among
//! each model's settings, are compared as `<time>`.

use std::path::Path;
use std::process::Command;

fn itc(cwd: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("itc runs");
    assert!(
        out.status.success(),
        "itc {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `bytes` with every RFC 3339 time (`2026-11-27T22:27:18Z`) as `<time>`.
fn without_times(bytes: &[u8]) -> Vec<u8> {
    let shape = b"dddd-dd-ddTdd:dd:ddZ";
    let is_time = |w: &[u8]| {
        w.iter().zip(shape).all(|(&c, &s)| match s {
            b'd' => c.is_ascii_digit(),
            s => c == s,
        })
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes.len() - i >= shape.len() && is_time(&bytes[i..i + shape.len()]) {
            out.extend_from_slice(b"<time>");
            i += shape.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn times_are_masked_and_nothing_else() {
    assert_eq!(
        without_times(b"a 2026-11-27T22:27:18Z | 2026-11-27 22:27:18Z 1999-01-01T00:00:00Z"),
        b"a <time> | 2026-11-27 22:27:18Z <time>"
    );
}

#[test]
fn the_committed_sample_report_is_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/sample");
    let work = tempfile::tempdir().unwrap();
    let fresh = work.path().join("fresh");
    itc(work.path(), &["score", "--out", "runs/recorded"]);
    itc(
        work.path(),
        &["eval", "--run-dir", "runs/baseline", "--no-progress"],
    );
    itc(
        work.path(),
        &[
            "report",
            "runs/recorded",
            "runs/baseline",
            "--out",
            fresh.to_str().unwrap(),
        ],
    );
    let mut compared = 0;
    for entry in std::fs::read_dir(&fresh).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() || name.starts_with('.') {
            continue;
        }
        let old = std::fs::read(committed.join(&name)).unwrap_or_else(|e| {
            panic!("reports/sample/{name}: {e} (run scripts/sample-report.sh)")
        });
        assert!(
            without_times(&old) == without_times(&std::fs::read(&path).unwrap()),
            "reports/sample/{name} is stale: run scripts/sample-report.sh"
        );
        compared += 1;
    }
    assert_eq!(compared, 14, "files of a report");
    for name in ["manifests/1-recorded.json", "manifests/2-baseline.json"] {
        assert!(committed.join(name).is_file(), "{name}");
    }
    let png = std::fs::read(committed.join("report.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}
