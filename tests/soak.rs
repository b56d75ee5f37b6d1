//! `itc bench-soak`: a run against the fault-injecting loopback server,
//! killed with SIGKILL and resumed, ends with every result once and the
//! scores of a fault-free run; every kind of fault was injected.

mod support;

use support::{itc, text};

/// The value of a row of the soak's table.
fn figure(table: &str, name: &str) -> String {
    table
        .lines()
        .find(|l| l.starts_with(&format!("│ {name}")))
        .unwrap_or_else(|| panic!("no row {name}:\n{table}"))
        .rsplit('│')
        .nth(1)
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn a_killed_and_resumed_run_under_faults_loses_and_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let soak = dir.path().join("soak");
    let out = itc(
        &[
            "bench-soak",
            "--tasks",
            "3000",
            "--kills",
            "2",
            "--seed",
            "7",
            "--dir",
            soak.to_str().unwrap(),
        ],
        &[],
    );
    let table = text(&out.stdout);
    assert!(out.status.success(), "{table}\n{}", text(&out.stderr));
    assert_eq!(figure(&table, "lost results"), "0");
    assert_eq!(figure(&table, "duplicated results"), "0");
    assert_eq!(figure(&table, "error predictions left"), "0");
    assert_eq!(figure(&table, "scores equal to a fault-free run"), "yes");
    assert!(
        figure(&table, "sessions killed").parse::<usize>().unwrap() >= 1,
        "{table}"
    );
    for fault in [
        "429 Retry-After",
        "500",
        "503",
        "stall past the timeout",
        "connection reset",
        "truncated body",
    ] {
        let n: u64 = figure(&table, &format!("injected: {fault}"))
            .parse()
            .unwrap();
        assert!(n > 0, "no {fault} injected:\n{table}");
    }
    // The faulty run's predictions are all there, once each.
    let predictions = std::fs::read_to_string(soak.join("faulty/predictions.jsonl")).unwrap();
    assert_eq!(predictions.lines().count(), 3000);
}
