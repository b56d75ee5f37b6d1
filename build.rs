//! Compresses the data files `itc` carries inside the binary (the sample set
//! and the OOD fallback copies; read through `src/util/embedded.rs`) into
//! `OUT_DIR`, and writes there the table `embedded.rs` that includes them.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The embedded files, by path in the repository.
const FILES: [&str; 15] = [
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
];

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    println!("cargo:rerun-if-changed=build.rs");
    let mut table = String::from("&[\n");
    for path in FILES {
        println!("cargo:rerun-if-changed={path}");
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(&bytes).expect("compressing in memory");
        let target = out.join(format!("{}.gz", path.replace('/', "--")));
        std::fs::write(&target, gz.finish().expect("compressing in memory"))
            .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        table += &format!(
            "    ({path:?}, include_bytes!({:?})),\n",
            target.to_str().expect("OUT_DIR is UTF-8")
        );
    }
    table += "]\n";
    std::fs::write(out.join("embedded.rs"), table).expect("writing embedded.rs");
}
