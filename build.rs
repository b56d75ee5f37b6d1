//! Compresses the data files `itc` carries inside the binary (the sample set
//! and the OOD fallback copies; read through `src/util/embedded.rs`) into
//! `OUT_DIR`, and writes there the table `embedded.rs` that includes them.
//! Also names the git commit the binary is built from (`ITC_GIT_COMMIT`,
//! read by `src/util/version.rs`).

use std::io::Write;
use std::path::Path;
use std::process::Command;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The embedded files, by path in the repository.
const FILES: [&str; 59] = [
    // The sample set: `itc score` and `itc eval` with no task file.
    "datasets/sample/tasks.jsonl",
    "datasets/sample/apis.json",
    "datasets/sample/predictions/careful-mid.jsonl",
    "datasets/sample/predictions/english-only.jsonl",
    "datasets/sample/predictions/function-caller.jsonl",
    "datasets/sample/predictions/oracle-like-large.jsonl",
    "datasets/sample/predictions/sloppy-small.jsonl",
    // `itc eval --dataset NAME` without given files or a fetch cache.
    "datasets/ood/gorilla/api/huggingface_api.jsonl",
    "datasets/ood/gorilla/api/tensorflowhub_api.jsonl",
    "datasets/ood/gorilla/api/torchhub_api.jsonl",
    "datasets/ood/gorilla/apibench/huggingface_eval.json",
    "datasets/ood/gorilla/apibench/tensorflow_eval.json",
    "datasets/ood/gorilla/apibench/torchhub_eval.json",
    "datasets/ood/seal-tools/test_in_domain.json",
    "datasets/ood/toolalpaca/eval_simulated.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_instruction.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_category.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_tool.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G2_instruction.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G2_category.json",
    "datasets/ood/stabletoolbench/solvable_queries/test_instruction/G3_instruction.json",
    "datasets/ood/bfcl/BFCL_v4_simple_python.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_simple_python.json",
    "datasets/ood/bfcl/BFCL_v4_multiple.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_multiple.json",
    "datasets/ood/bfcl/BFCL_v4_parallel.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_parallel.json",
    "datasets/ood/bfcl/BFCL_v4_parallel_multiple.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_parallel_multiple.json",
    "datasets/ood/bfcl/BFCL_v4_irrelevance.json",
    "datasets/ood/bfcl/BFCL_v4_live_simple.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_live_simple.json",
    "datasets/ood/bfcl/BFCL_v4_live_multiple.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_live_multiple.json",
    "datasets/ood/bfcl/BFCL_v4_live_parallel.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_live_parallel.json",
    "datasets/ood/bfcl/BFCL_v4_live_parallel_multiple.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_live_parallel_multiple.json",
    "datasets/ood/bfcl/BFCL_v4_live_irrelevance.json",
    "datasets/ood/bfcl/BFCL_v4_live_relevance.json",
    "datasets/ood/bfcl/BFCL_v4_multi_turn_base.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_multi_turn_base.json",
    "datasets/ood/bfcl/BFCL_v4_multi_turn_miss_func.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_multi_turn_miss_func.json",
    "datasets/ood/bfcl/BFCL_v4_multi_turn_miss_param.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_multi_turn_miss_param.json",
    "datasets/ood/bfcl/BFCL_v4_multi_turn_long_context.json",
    "datasets/ood/bfcl/possible_answer/BFCL_v4_multi_turn_long_context.json",
    "datasets/ood/bfcl/multi_turn_func_doc/gorilla_file_system.json",
    "datasets/ood/bfcl/multi_turn_func_doc/math_api.json",
    "datasets/ood/bfcl/multi_turn_func_doc/message_api.json",
    "datasets/ood/bfcl/multi_turn_func_doc/posting_api.json",
    "datasets/ood/bfcl/multi_turn_func_doc/ticket_api.json",
    "datasets/ood/bfcl/multi_turn_func_doc/trading_bot.json",
    "datasets/ood/bfcl/multi_turn_func_doc/travel_booking.json",
    "datasets/ood/bfcl/multi_turn_func_doc/vehicle_control.json",
    // The τ³-bench retail environment (`RetailEnv::fresh`, its tool list)
    // and tasks (`itc eval --dataset tau:retail`).
    "datasets/ood/tau/retail/db.json",
    "datasets/ood/tau/retail/tasks.json",
    "datasets/ood/tau/retail/reference/tool_schemas.json",
];

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=ITC_GIT_COMMIT={}", git_commit());
    let mut table = String::from("&[\n");
    for path in FILES {
        println!("cargo:rerun-if-changed={path}");
        let target = out.join(format!("{}.gz", path.replace('/', "--")));
        // A new commit re-runs this script; files compressed since they last changed stay.
        if !is_newer(&target, Path::new(path)) {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let mut gz = GzEncoder::new(Vec::new(), Compression::default());
            gz.write_all(&bytes).expect("compressing in memory");
            std::fs::write(&target, gz.finish().expect("compressing in memory"))
                .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        }
        table += &format!(
            "    ({path:?}, include_bytes!({:?})),\n",
            target.to_str().expect("OUT_DIR is UTF-8")
        );
    }
    table += "]\n";
    std::fs::write(out.join("embedded.rs"), table).expect("writing embedded.rs");
}

/// Whether `target` exists and was written after `source` last changed.
fn is_newer(target: &Path, source: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((modified(target), modified(source)), (Some(t), Some(s)) if t > s)
}

/// The commit the binary is built from: `ITC_GIT_COMMIT` when set (a build
/// from a source archive), else git's `HEAD` (12 hex digits), else
/// `unknown`. The script runs again when `HEAD` moves.
fn git_commit() -> String {
    println!("cargo:rerun-if-env-changed=ITC_GIT_COMMIT");
    if let Ok(commit) = std::env::var("ITC_GIT_COMMIT") {
        return commit;
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        out.status.success().then(|| text.trim().to_string())
    };
    // HEAD, the branch it names, and packed refs: any of them moves with a commit.
    for name in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &branch])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
}
