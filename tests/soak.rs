//! `itc bench soak`: a run against the fault-injecting loopback server,
//! killed with SIGKILL and resumed, ends with every result once and the
//! scores of a fault-free run; every kind of fault was injected. And the
//! spellings of `itc bench`: its three benchmarks are subcommands, the old
//! spellings still run, with a note naming the new one.

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
            "bench",
            "soak",
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

/// The names the `Commands:` section of a help text lists.
fn commands(help: &str) -> Vec<String> {
    help.split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("no commands:\n{help}"))
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_benchmarks_are_subcommands_of_bench_and_the_old_spellings_still_run() {
    let top = itc(&["--help"], &[]);
    assert!(top.status.success());
    let names = commands(&text(&top.stdout));
    assert!(names.contains(&"bench".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "bench-http" || n == "bench-soak"),
        "{names:?}"
    );

    let bench = itc(&["bench", "--help"], &[]);
    assert!(bench.status.success());
    let names = commands(&text(&bench.stdout));
    for benchmark in ["scoring", "http", "soak"] {
        assert!(names.contains(&benchmark.to_string()), "{names:?}");
    }

    // The old spellings: a note on stderr, then the benchmark as before.
    let http = itc(
        &[
            "bench-http",
            "--tasks",
            "20",
            "--concurrency",
            "1",
            "--repeat",
            "1",
            "--no-wrk",
        ],
        &[],
    );
    let (stdout, stderr) = (text(&http.stdout), text(&http.stderr));
    assert!(http.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.lines().next(),
        Some("note: `itc bench-http` is now `itc bench http`"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("itc bench http: 20 synthetic tasks"),
        "{stdout}"
    );

    let scoring = itc(
        &[
            "bench",
            "--tasks",
            "50",
            "--models",
            "2",
            "--repeat",
            "1",
            "--bootstrap",
            "0",
        ],
        &[],
    );
    let (stdout, stderr) = (text(&scoring.stdout), text(&scoring.stderr));
    assert!(scoring.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.lines().next(),
        Some("note: `itc bench` without a subcommand is now `itc bench scoring`"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("itc bench scoring: 50 tasks x 2 models"),
        "{stdout}"
    );
}
