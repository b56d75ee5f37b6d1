#!/usr/bin/env bash
# Regenerates reports/sample/: the report of the sample set's five recorded
# models and the offline baseline, and a screenshot of its HTML page.
#
#   scripts/sample-report.sh [ITC_BINARY]     (default: target/debug/itc, built if missing)
#
# The inputs are made in a temporary folder under the names runs/recorded
# and runs/baseline, so the report names them the same on every machine;
# tests/report_sample.rs regenerates the same way and fails when the
# committed files are stale. The screenshot needs Chromium (`chromium`, or
# ITC_CHROMIUM).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
itc="${1:-$root/target/debug/itc}"
[[ -x $itc ]] || (cd "$root" && cargo build --quiet)
itc="$(cd "$(dirname "$itc")" && pwd)/$(basename "$itc")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$itc" score --out runs/recorded >/dev/null
"$itc" eval --run-dir runs/baseline --no-progress >/dev/null
rm -rf "$root/reports/sample"
"$itc" report runs/recorded runs/baseline --out "$root/reports/sample" >/dev/null
rm -f "$root/reports/sample/.itc.lock"
chromium="${ITC_CHROMIUM:-chromium}"
"$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$work/profile" --virtual-time-budget=10000 --window-size=1400,2000 \
    --screenshot="$root/reports/sample/report.png" "file://$root/reports/sample/report.html" 2>/dev/null
echo "wrote $root/reports/sample"
