#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, one after the
# other (one process: the machine is shared), then prints a table of
# target, executions, time, executions per second and findings.
#
#   fuzz/run-all.sh SECONDS [TARGET...]
#
# Seeds come from fuzz/seed.sh (run first when fuzz/corpus is missing).
# Logs: fuzz/logs/<target>.log; crashes, timeouts and out-of-memory inputs:
# fuzz/artifacts/<target>/ (minimise one with
# `cargo +nightly fuzz tmin -s none TARGET ARTIFACT`).
#
# Environment: FUZZ_MAX_LEN (default 65536 bytes), FUZZ_TIMEOUT (seconds
# one input may take, default 10), FUZZ_RSS_MB (default 2048),
# FUZZ_STACK_KB (stack of the fuzzing thread, default 2048: `itc score`
# and `itc eval` read answers on worker threads with Rust's 2 MiB stacks),
# FUZZ_ARGS (more libFuzzer flags; `-fork=1 -ignore_crashes=1
# -ignore_timeouts=1 -ignore_ooms=1` keeps going after a finding and
# counts them).
set -uo pipefail
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: $0 SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift
fuzz="$(cd "$(dirname "$0")" && pwd)"
cd "$fuzz/.."
# -s none: the targets are safe Rust (AddressSanitizer finds nothing there
# and halves the speed); panics, aborts, stack overflows, timeouts and
# memory blow-ups are caught by libFuzzer itself.
build_flags=(-s none)
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
[[ -d "$fuzz/corpus" ]] || "$fuzz/seed.sh"
mkdir -p "$fuzz/logs"
rows=()
status=0
for target in "${targets[@]}"; do
    log="$fuzz/logs/$target.log"
    mkdir -p "$fuzz/corpus/$target" "$fuzz/artifacts/$target"
    if ! cargo +nightly fuzz build "${build_flags[@]}" "$target" >"$log" 2>&1; then
        rows+=("$target|0|0|0|build failed (see log)|")
        status=1
        continue
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086
    (
        ulimit -s "${FUZZ_STACK_KB:-2048}"
        exec cargo +nightly fuzz run "${build_flags[@]}" "$target" -- \
            -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-65536}" \
            -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
            -print_final_stats=1 ${FUZZ_ARGS:-}
    ) >>"$log" 2>&1
    code=$?
    elapsed=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    if [[ -z $execs ]]; then
        execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    execs=${execs:-0}
    fuzz_time=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE 'in [0-9]+' | grep -oE '[0-9]+')
    if [[ -z $fuzz_time ]]; then
        # Fork mode: the last status line says how long the workers fuzzed
        # (wall time also holds any rebuild `cargo fuzz run` makes first).
        fuzz_time=$(grep -oE '^#[0-9]+: .* time: [0-9]+s' "$log" | tail -1 | grep -oE 'time: [0-9]+' | grep -oE '[0-9]+')
    fi
    fuzz_time=${fuzz_time:-$elapsed}
    found="none"
    # Fork mode: the last status line counts what the workers found.
    forked=$(grep -oE 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' "$log" | tail -1 | awk '{print $2}')
    if [[ -n $forked ]]; then
        IFS=/ read -r ooms timeouts crashes <<<"$forked"
        if (( ooms + timeouts + crashes > 0 )); then
            found="$crashes crash(es), $timeouts timeout(s), $ooms out-of-memory (fork mode; fuzz/triage.sh $target)"
        fi
    elif grep -q 'ERROR: libFuzzer: timeout\|ALARM: working on the last Unit' "$log"; then
        found="timeout"
    elif grep -q 'out-of-memory\|ERROR: libFuzzer: malloc' "$log"; then
        found="out-of-memory"
    elif grep -q 'has overflowed its stack\|stack-overflow' "$log"; then
        found="stack overflow"
    elif grep -q 'panicked at' "$log"; then
        found="panic: $(grep -m1 -A1 'panicked at' "$log" | tail -1 | cut -c1-60)"
    elif grep -q 'ERROR: libFuzzer: deadly signal\|SUMMARY: libFuzzer' "$log"; then
        found="crash"
    elif [[ $code -ne 0 ]]; then
        found="exit $code (see log)"
    fi
    [[ $found != none ]] && status=1
    artifact=$(grep -oE '(Test unit|artifact_prefix.*Test unit) written to [^ ]+' "$log" | tail -1 | awk '{print $NF}')
    rows+=("$target|$execs|$fuzz_time|$(( execs / (fuzz_time > 0 ? fuzz_time : 1) ))|$found|${artifact:-}")
    printf '%-20s %12s execs %6ss  %s\n' "$target" "$execs" "$fuzz_time" "$found" >&2
done
echo
echo "| target | executions | seconds | exec/s | findings | artifact |"
echo "|---|---:|---:|---:|---|---|"
for row in "${rows[@]}"; do
    IFS='|' read -r t e s r f a <<<"$row"
    echo "| $t | $e | $s | $r | $f | ${a:+\`${a#"$PWD/"}\`} |"
done
exit $status
