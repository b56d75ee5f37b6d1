//! Headless Chromium for tests of `report.html` (Debian's `chromium`,
//! which `.ci/run` installs; `ITC_CHROMIUM` names another binary): it opens
//! the page from `file://`, runs its script, and gives back the DOM, its
//! console and a screenshot. Without Chromium a test says so and skips,
//! except under CI, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{text, under_ci};

fn chromium() -> Option<PathBuf> {
    let name = std::env::var("ITC_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let found = Command::new(&name).arg("--version").output().ok()?;
    found.status.success().then(|| PathBuf::from(name))
}

/// Chromium, or `None` after saying the test is skipped (never under CI).
pub fn chromium_or_skip() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        assert!(!under_ci(), "chromium is missing under CI");
        eprintln!("skipped: no chromium (apt-get install chromium, or set ITC_CHROMIUM)");
    }
    found
}

/// Runs Chromium headless on `url` with `mode` (`--dump-dom` or
/// `--screenshot=…`); returns stdout and stderr (where the console goes).
pub fn browse(browser: &Path, profile: &Path, url: &str, mode: &str) -> (String, String) {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--window-size=1400,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    (text(&output.stdout), text(&output.stderr))
}
