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

/// The study's folder: `%j` and `%` are Slurm's patterns in `--output`,
/// so the folder checks that submit.sh hands them to Slurm as literal text.
const STUDY: &str = "study-%j 100%";

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
        .args(["-n", "3", STUDY])
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
    let study = at(STUDY);
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

/// `submit.sh` with a stand-in `sbatch` on PATH that records its arguments
/// and prints a job id: what the script hands Slurm, without a cluster.
/// Returns submit.sh's output and the arguments of each sbatch call.
fn submit_recorded(dir: &Path, run: &str) -> (std::process::Output, Vec<Vec<String>>) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = dir.join("sbatch-calls");
    let _ = std::fs::remove_file(&calls);
    let sbatch = bin.join("sbatch");
    std::fs::write(
        &sbatch,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\037' \"$a\"; done >>\"$SBATCH_CALLS\"\necho >>\"$SBATCH_CALLS\"\necho 42\n",
    )
    .unwrap();
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let submit = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm/submit.sh");
    let out = Command::new(submit)
        .current_dir(dir)
        .env("PATH", path)
        .env("SBATCH_CALLS", &calls)
        .env("ITC", env!("CARGO_BIN_EXE_itc"))
        .args(["-n", "2", run, "--limit", "3"])
        .output()
        .unwrap();
    let recorded = std::fs::read_to_string(&calls).unwrap_or_default();
    let calls = recorded
        .lines()
        .map(|l| {
            l.split_terminator('\u{1f}')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    (out, calls)
}

/// Issue 48: Slurm expands `%` patterns in `--output`, and a backslash
/// anywhere turns them all off. A `%` of the run folder reaches sbatch as
/// `%%` (while the jobs get the folder itself); a backslash or `{shard}` is
/// refused before anything is created or submitted.
#[test]
fn run_folders_with_percent_signs_are_escaped_for_slurm_and_backslashes_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (out, calls) = submit_recorded(&root, "study 100%/a%A%%b");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "42\n42\n");
    let run = root.join("study 100%/a%A%%b");
    assert!(run.is_dir());
    let logs = root.join("study 100%%/a%%A%%%%b");
    let [array, merge] = calls.as_slice() else {
        panic!("two sbatch calls: {calls:?}");
    };
    let has = |call: &[String], arg: String| {
        assert!(call.contains(&arg), "{arg} not in {call:?}");
    };
    has(
        array,
        format!("--output={}/slurm-%A_%a.out", logs.display()),
    );
    has(
        merge,
        format!("--output={}/slurm-%j-merge.out", logs.display()),
    );
    // The jobs' own argument is the folder, unescaped.
    has(array, run.display().to_string());
    has(merge, run.display().to_string());

    for bad in [r"back\slash", "runs/shard-{shard}"] {
        let (out, calls) = submit_recorded(&root, bad);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let said = text(&out.stderr);
        assert!(said.contains("choose another folder"), "{bad}: {said}");
        assert!(calls.is_empty(), "{bad}: submitted {calls:?}");
        assert!(!root.join(bad).exists(), "{bad} was created");
    }
}
