#!/usr/bin/env bash
# Benchmark: official BFCL checker (bfcl-eval, scratch venv) vs `itc ood score bfcl --compat official`
# on the same result files, all 11 Python categories x all rounds, pinned to CPU 0.
#
# Usage: scripts/bench-bfcl.sh [--official-only] [--compare-items] [--regen]
# Env:   ITC      itc binary (default target/release/itc)
#        VENV     scratch venv with bfcl-eval==2026.3.23 (default /tmp/venv-bfcl; see the header of
#                 scripts/bfcl/official_score.py for how it was made)
#        RESULTS  result folder (default /tmp/bfcl-bench-results; generated if missing, reused otherwise)
#        DATA     BFCL data folder (default datasets/ood/bfcl)
# Exit:  0 counts agree; 1 some file's correct_count (or, with --compare-items, some item) differs;
#        2 setup error.
set -euo pipefail
cd "$(dirname "$0")/.."

ITC=${ITC:-target/release/itc}
VENV=${VENV:-/tmp/venv-bfcl}
RESULTS=${RESULTS:-/tmp/bfcl-bench-results}
DATA=${DATA:-datasets/ood/bfcl}
REGEN=0
EXTRA=()
for a in "$@"; do
  case "$a" in
    --official-only) EXTRA+=(--official-only) ;;
    --compare-items) EXTRA+=(--compare-items) ;;
    --regen) REGEN=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a" >&2; exit 2 ;;
  esac
done

command -v taskset >/dev/null || { echo "taskset not found" >&2; exit 2; }
[ -x "$VENV/bin/python" ] || { echo "no venv python at $VENV/bin/python" >&2; exit 2; }

# 54 files: 5 rounds x 10 categories + 4 rounds of irrelevance
if [ "$REGEN" = 1 ] || [ "$(find "$RESULTS" -name 'BFCL_v4_*_result.json' 2>/dev/null | wc -l)" -ne 54 ]; then
  rm -rf "$RESULTS"
  taskset -c 0 python3 scripts/bfcl/make_results.py --data "$DATA" --out "$RESULTS"
else
  echo "reusing $RESULTS"
fi

case "$ITC" in /*) ;; *) ITC="$PWD/$ITC" ;; esac
if [[ ! " ${EXTRA[*]-} " == *" --official-only "* ]] && [ ! -x "$ITC" ]; then
  echo "itc binary not found: $ITC (set ITC, build target/release/itc, or pass --official-only)" >&2
  exit 2
fi
exec taskset -c 0 python3 scripts/bfcl/bench_compare.py --results "$RESULTS" --data "$DATA" \
  --venv-python "$VENV/bin/python" --itc "$ITC" ${EXTRA[@]+"${EXTRA[@]}"}
