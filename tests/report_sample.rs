//! `reports/sample/` is the committed report of the sample set's five
//! recorded models and the offline baseline (`scripts/sample-report.sh`
//! writes it). This test makes it again the same way and fails when a
//! committed file is stale. The input manifests (times, paths) and the
//! screenshot (fonts, browser) differ by machine and are only checked to
//! be there.

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
            old == std::fs::read(&path).unwrap(),
            "reports/sample/{name} is stale: run scripts/sample-report.sh"
        );
        compared += 1;
    }
    assert_eq!(compared, 11, "files of a report");
    for name in ["manifests/1-recorded.json", "manifests/2-baseline.json"] {
        assert!(committed.join(name).is_file(), "{name}");
    }
    let png = std::fs::read(committed.join("report.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}
