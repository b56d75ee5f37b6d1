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
#   scripts/wheel.sh build BINARY  the same package around an itc binary already built
#                                  (a PGO build, a release build from elsewhere), into
#                                  dist/: no cargo, no maturin, no network; the binary is
#                                  packed as it is (strip it first for a smaller wheel)
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

# The wheel maturin would make, around the binary $1, written with Python's
# zipfile: the metadata from pyproject.toml's [project] and Cargo.toml's
# version, the platform tag from the binary (ELF machine; manylinux_2_N for
# the newest glibc symbol version it needs, as maturin's check finds it).
build_around() {
    local binary="$1"
    if [[ ! -f $binary || ! -x $binary ]]; then
        say "$binary: not an executable file"
        exit 2
    fi
    mkdir -p "$ROOT/dist"
    "$PYTHON" - "$ROOT" "$binary" "$ROOT/dist" <<'PY'
import base64, hashlib, re, sys, zipfile
from pathlib import Path
try:
    import tomllib
except ImportError:
    sys.exit("wheel.sh: build BINARY needs Python >= 3.11 (tomllib); set ITC_WHEEL_PYTHON")
root, binary, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
version = tomllib.loads((root / "Cargo.toml").read_text())["package"]["version"]
data = binary.read_bytes()
if data[:4] != b"\x7fELF":
    sys.exit(f"wheel.sh: {binary}: not an ELF binary (only Linux wheels are built here)")
machine = int.from_bytes(data[18:20], "little")
arch = {0x3E: "x86_64", 0xB7: "aarch64"}.get(machine)
if arch is None:
    sys.exit(f"wheel.sh: {binary}: ELF machine {machine:#x} is neither x86-64 nor aarch64")
glibc = [int(m) for m in re.findall(rb"GLIBC_2\.(\d+)", data)]
platform = f"manylinux_2_{max(glibc)}_{arch}" if glibc else f"linux_{arch}"
dist = project["name"].replace("-", "_")
tag = f"py3-none-{platform}"
meta = [
    "Metadata-Version: 2.1",
    f"Name: {project['name']}",
    f"Version: {version}",
    f"Summary: {project['description']}",
    f"Keywords: {','.join(project.get('keywords', []))}",
    *[f"Classifier: {c}" for c in project.get("classifiers", [])],
    f"Requires-Python: {project['requires-python']}",
    "Description-Content-Type: text/markdown; charset=UTF-8; variant=GFM",
    "",
    (root / project["readme"]).read_text(),
]
wheel_meta = f"Wheel-Version: 1.0\nGenerator: scripts/wheel.sh\nRoot-Is-Purelib: false\nTag: {tag}\n"
info = f"{dist}-{version}.dist-info"
files = [
    (f"{dist}-{version}.data/scripts/itc", data, 0o755),
    (f"{info}/METADATA", "\n".join(meta).encode(), 0o644),
    (f"{info}/WHEEL", wheel_meta.encode(), 0o644),
]
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join(f"{name},{digest(b)},{len(b)}\n" for name, b, _ in files) + f"{info}/RECORD,,\n"
files.append((f"{info}/RECORD", record.encode(), 0o644))
target = out / f"{dist}-{version}-{tag}.whl"
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for name, b, mode in files:
        entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        entry.external_attr = (0o100000 | mode) << 16
        entry.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(entry, b)
print(f"wheel.sh: built {target} around {binary} ({len(data)} bytes)", file=sys.stderr)
PY
}

build() {
    if [[ -n ${1:-} && $1 != --* ]]; then
        build_around "$1"
        return
    fi
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
        say "unknown option $1 (build takes --dev, a binary's path, or nothing)"
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
    echo "usage: $0 build [--dev | BINARY] | check [DIR]" >&2
    exit 2
    ;;
esac
