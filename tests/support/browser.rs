//! Headless Chromium for tests of `report.html` (Debian's `chromium`;
//! `ITC_CHROMIUM` names another binary). Without Chromium a test says so
//! and skips, except under CI, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{text, under_ci};

/// Chromium, or `None` after saying the test is skipped (never under CI).
pub fn chromium_or_skip() -> Option<PathBuf> {
    let name = std::env::var("ITC_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let found = Command::new(&name)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from(name));
    if found.is_none() {
        assert!(!under_ci(), "chromium is missing under CI");
        eprintln!("skipped: no chromium (apt-get install chromium, or set ITC_CHROMIUM)");
    }
    found
}

/// The DOM of `url` after its scripts ran, and the console (stderr).
pub fn dump_dom(browser: &Path, profile: &Path, url: &str) -> (String, String) {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    (text(&output.stdout), text(&output.stderr))
}
