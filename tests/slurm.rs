//! The Slurm round trip on a real scheduler: `scripts/slurm/submit.sh`
//! submits an array job of three shards (`itc eval --shard auto`) against
//! the scripted loopback model server and a merge job after it; the merged
//! run must equal a single run of the same tasks.
//!
//! It needs a running cluster: `export SLURM_CONF="$(scripts/slurm/cluster.sh
//! start)"` (one slurmctld and one slurmd on this machine, as `.ci/run`
//! starts them). Without `SLURM_CONF` it skips, except under CI, where it
//! fails so that CI cannot skip it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::runs::{assert_merge_equals_single_run, json, read};
use support::server::{Reply, ScriptedServer};
use support::{scripted_models_toml, tasks, text, under_ci};

/// How long the array and merge jobs may take, queueing included.
const JOBS_TIMEOUT: Duration = Duration::from_secs(300);

/// The cluster's configuration file, or `None` (after saying so) when the
/// test skips.
fn slurm_conf(test: &str) -> Option<PathBuf> {
    match std::env::var("SLURM_CONF") {
        Ok(path) if Path::new(&path).is_file() => Some(PathBuf::from(path)),
        _ if under_ci() => panic!(
            "SLURM_CONF is not set under CI: start the cluster with `scripts/slurm/cluster.sh start` and export its output (as .ci/run does)"
        ),
        _ => {
            eprintln!(
                "SKIPPED {test}: SLURM_CONF is not set; run `export SLURM_CONF=$(scripts/slurm/cluster.sh start)` to test on a real Slurm cluster"
            );
            None
        }
    }
}

/// A Slurm command's stdout; panics with its stderr when it fails.
fn slurm(conf: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .env("SLURM_CONF", conf)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A job's `JobState` and `ExitCode` once it has ended (scontrol keeps
/// ended jobs for the cluster's MinJobAge).
fn ended(conf: &Path, job: &str) -> Option<(String, String)> {
    let shown = slurm(conf, "scontrol", &["show", "job", "--oneliner", job]);
    let field = |name: &str| {
        shown
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_string()
    };
    let state = field("JobState");
    let running = [
        "PENDING",
        "RUNNING",
        "CONFIGURING",
        "COMPLETING",
        "SUSPENDED",
    ];
    (!running.contains(&state.as_str())).then(|| (state, field("ExitCode")))
}

#[test]
fn an_array_job_of_three_shards_and_its_merge_job_equal_a_single_run() {
    let Some(conf) =
        slurm_conf("an_array_job_of_three_shards_and_its_merge_job_equal_a_single_run")
    else {
        return;
    };
    let server = ScriptedServer::start(|request| match &request.task {
        Some(id) => Reply::Answer(tasks::answer(id)),
        None => Reply::Status(400, None),
    });
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let generated = tasks::generate(60);
    tasks::write(&at("tasks.jsonl"), &generated);
    std::fs::write(
        at("models.toml"),
        scripted_models_toml(&server.base_url(), &["alpha", "beta"]),
    )
    .unwrap();
    let eval_args = ["--config", "models.toml", "--tasks", "tasks.jsonl"];

    let single = at("single");
    let out = Command::new(env!("CARGO_BIN_EXE_itc"))
        .current_dir(dir.path())
        .args([
            "eval",
            "--run-dir",
            single.to_str().unwrap(),
            "--no-progress",
        ])
        .args(eval_args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let single_requests = server.requests();
    assert_eq!(single_requests, 2 * generated.len());

    // Submitted from the folder, as a user would: relative paths in the
    // eval arguments are the jobs' too (sbatch runs them where it was called).
    let submit = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm/submit.sh");
    let started = Instant::now();
    let out = Command::new(&submit)
        .current_dir(dir.path())
        .env("SLURM_CONF", &conf)
        .env("ITC", env!("CARGO_BIN_EXE_itc"))
        .args(["-n", "3", "study"])
        .args(eval_args)
        .output()
        .unwrap();
    assert!(out.status.success(), "submit.sh: {}", text(&out.stderr));
    let ids: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    let [array, merge] = ids.as_slice() else {
        panic!("submit.sh printed {ids:?}, not two job ids");
    };
    let (state, exit_code) = loop {
        if let Some(done) = ended(&conf, merge) {
            break done;
        }
        assert!(
            started.elapsed() < JOBS_TIMEOUT,
            "the merge job {merge} has not ended after {JOBS_TIMEOUT:?}: {}",
            slurm(&conf, "squeue", &[])
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    eprintln!(
        "array job {array} and merge job {merge} ended in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let study = at("study");
    let merge_log = std::fs::read_dir(&study)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-merge.out"))
        .map(|p| read(&p))
        .unwrap_or_default();
    assert_eq!(
        (state.as_str(), exit_code.as_str()),
        ("COMPLETED", "0:0"),
        "merge job: {merge_log}"
    );
    for k in 1..=3 {
        let task = format!("{array}_{k}");
        let (state, exit_code) = ended(&conf, &task).expect("the array task has ended");
        assert_eq!(
            (state.as_str(), exit_code.as_str()),
            ("COMPLETED", "0:0"),
            "{task}"
        );
        let log = read(&study.join(format!("slurm-{array}_{k}.out")));
        let said =
            format!("itc: shard {k}/3, from Slurm array job {array} (SLURM_ARRAY_TASK_ID={k}");
        assert!(log.contains(&said), "{task}: {log}");
        let record = json(&study.join(format!("shard-{k}/shard.json")));
        assert_eq!(record["shard"], serde_json::json!({"index": k, "count": 3}));
    }

    // Every task asked once per model by the shards together.
    assert_eq!(server.requests() - single_requests, 2 * generated.len());
    let merged = study.join("merged");
    assert_merge_equals_single_run(&merged, &single);
    assert!(study.join("report/report.html").is_file());
    let report = json(&study.join("report/report.json"));
    assert_eq!(report["models"].as_array().map(Vec::len), Some(2));
}
