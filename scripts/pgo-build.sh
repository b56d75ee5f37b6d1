#!/usr/bin/env bash
# Builds a profile-guided (PGO) release binary of itc: docs/performance-log.md,
# "A profile-guided build" (figures), and docs/performance.md.
#
#   scripts/pgo-build.sh          (writes target/pgo/release/itc)
#
# 1. an instrumented release build (target/pgo-gen);
# 2. a training run with it, in target/pgo-work: scoring a synthetic set
#    (seed 7, 2,000 tasks x 50 models; not the benchmark's seed-1 set) on one
#    thread and two, with and without --out, the embedded sample set, the
#    offline baseline, a report, and the official Seal-Tools and APIBench
#    scorers on the shipped data;
# 3. the profiles merged with the toolchain's llvm-profdata;
# 4. a release build that uses them (target/pgo).
#
# It takes about two release builds' time (about 16 minutes on 2 cores) and needs
# the llvm-tools component of the active toolchain (`rustup component add
# llvm-tools`), whose llvm-profdata reads the profiles rustc's LLVM writes.
# The normal `cargo build --release` in target/release is left alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

sysroot="$(rustc --print sysroot)"
host="$(rustc -vV | sed -n 's/^host: //p')"
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x $profdata ]]; then
    echo "pgo-build: $profdata not found; run: rustup component add llvm-tools" >&2
    exit 1
fi

work="$root/target/pgo-work"
rm -rf "$work"
mkdir -p "$work/profiles"

echo "pgo-build: 1/4 instrumented build (target/pgo-gen)"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$work/profiles" \
    cargo build --release --quiet --target-dir target/pgo-gen
# The build scripts ran instrumented too: their profiles are not itc's.
rm -f "$work/profiles"/*
gen="$root/target/pgo-gen/release/itc"

echo "pgo-build: 2/4 training run (target/pgo-work)"
ood="$root/datasets/ood"
(
    cd "$work"
    "$gen" bench scoring --generate-only --seed 7 --tasks 2000 --models 50 --dir train >/dev/null
    set -- --tasks train/tasks.jsonl --predictions train/predictions.jsonl
    "$gen" score "$@" --threads 1 --out scored-1 >/dev/null 2>&1
    "$gen" score "$@" --threads 2 --out scored-2 >/dev/null 2>&1
    "$gen" score "$@" --threads 1 --bootstrap 0 >/dev/null 2>&1
    "$gen" score --out runs/recorded >/dev/null 2>&1
    "$gen" eval --run-dir runs/baseline --no-progress >/dev/null 2>&1
    "$gen" report runs/recorded runs/baseline --out report >/dev/null 2>&1
    "$gen" ood score seal-tools --compat official --gold "$ood/seal-tools/test_in_domain.json" \
        --predictions "$ood/seal-tools/reference/test_in_domain_mixed.raw.jsonl" \
        --format json >/dev/null
    "$gen" ood score apibench --compat official --hub torchhub \
        --api-db "$ood/gorilla/api/torchhub_api.jsonl" \
        --gold "$ood/gorilla/apibench/torchhub_eval.json" \
        --responses "$ood"/gorilla/responses/torchhub/*.jsonl --format json >/dev/null
)

echo "pgo-build: 3/4 merging the profiles"
"$profdata" merge -o "$work/itc.profdata" "$work/profiles"

echo "pgo-build: 4/4 optimised build (target/pgo)"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$work/itc.profdata -Cllvm-args=-pgo-warn-missing-function=false" \
    cargo build --release --quiet --target-dir target/pgo
echo "pgo-build: wrote $root/target/pgo/release/itc"
