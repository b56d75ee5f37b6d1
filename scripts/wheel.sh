#!/usr/bin/env bash
# The Python wheel `itc-bench` (pyproject.toml: maturin's `bin` bindings,
# the release binary as the `itc` command), built and checked as a user
# would install it. docs/install.md has the figures.
#
#   scripts/wheel.sh build         build dist/itc_bench-<version>-py3-none-<platform>.whl
#                                  (maturin from PyPI in a private venv; a release build)
#   scripts/wheel.sh build --dev   the same wheel around a debug build, into dist/dev/:
#                                  seconds after `cargo test`, whose build it reuses
#                                  (what .ci/run checks: CI builds no crate twice)
#   scripts/wheel.sh check [DIR]   install the newest wheel of DIR (default dist/) into a
#                                  fresh venv and run `itc --version`, `itc eval` and
#                                  `itc score` from an empty folder, offline
#
# Settings (environment):
#   ITC_MATURIN_VENV   the venv maturin is installed into (default: <repo>/.venv-maturin)
#   ITC_WHEEL_PYTHON   Python >= 3.8 for the venvs (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${ITC_WHEEL_PYTHON:-python3}"
MATURIN_VENV="${ITC_MATURIN_VENV:-$ROOT/.venv-maturin}"
# Pinned so that CI builds the same way every time.
MATURIN_VERSION="1.16.0"

say() { echo "wheel.sh: $*" >&2; }

build() {
    if ! "$MATURIN_VENV/bin/maturin" --version 2>/dev/null | grep -q "$MATURIN_VERSION"; then
        say "installing maturin $MATURIN_VERSION into $MATURIN_VENV"
        "$PYTHON" -m venv "$MATURIN_VENV"
        "$MATURIN_VENV/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
    fi
    cd "$ROOT"
    case "${1:-}" in
    "") "$MATURIN_VENV/bin/maturin" build --release --out dist ;;
    --dev) "$MATURIN_VENV/bin/maturin" build --profile dev --out dist/dev ;;
    *)
        say "unknown option $1 (build takes --dev or nothing)"
        exit 2
        ;;
    esac
}

check() {
    local dir wheel scratch
    dir="$(cd "${1:-$ROOT/dist}" 2>/dev/null && pwd || true)"
    wheel="$(ls -t "$dir"/itc_bench-*.whl 2>/dev/null | head -1 || true)"
    if [[ -z $dir || -z $wheel ]]; then
        say "no wheel in ${1:-$ROOT/dist}: run \`$0 build\` first"
        exit 1
    fi
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' RETURN
    say "installing $(basename "$wheel") into a fresh venv"
    "$PYTHON" -m venv "$scratch/venv"
    # --no-index: nothing is fetched; the wheel needs no other package.
    "$scratch/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel"
    mkdir "$scratch/empty"
    cd "$scratch/empty"
    # Only the venv's bin on PATH: the `itc` run is the wheel's.
    local path="$scratch/venv/bin:/usr/bin:/bin"
    [[ $(PATH="$path" command -v itc) == "$scratch/venv/bin/itc" ]]
    PATH="$path" itc --version
    PATH="$path" itc eval --no-progress --run-dir runs/baseline >eval.out
    grep -q "Sel. F1" eval.out || { cat eval.out; say "itc eval printed no score table"; exit 1; }
    [[ -s runs/baseline/predictions.jsonl && -s runs/baseline/summary.json ]]
    PATH="$path" itc score --format json >score.out
    grep -q '"model"' score.out || { cat score.out; say "itc score printed no scores"; exit 1; }
    say "ok: the wheel's itc ran itc eval ($(wc -l <runs/baseline/predictions.jsonl) predictions) and itc score ($(wc -l <score.out) models) from an empty folder"
}

case "${1:-}" in
build) build "${@:2}" ;;
check) check "${@:2}" ;;
*)
    echo "usage: $0 build [--dev] | check [DIR]" >&2
    exit 2
    ;;
esac
