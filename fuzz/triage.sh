#!/usr/bin/env bash
# Groups the saved findings of fuzz targets (fuzz/artifacts/<target>/) by
# cause: each crash input is run once more and classed by its panic
# location and message (or stack overflow / abort); timeouts and
# out-of-memory inputs are classed by their file name. Prints, per class,
# how many inputs and the smallest one (minimise it with
# `cargo +nightly fuzz tmin -s none TARGET FILE`).
#
#   fuzz/triage.sh [TARGET...]     # default: every target with artifacts
set -uo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
cd "$fuzz/.."
bin_dir="$fuzz/target/x86_64-unknown-linux-gnu/release"
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(ls "$fuzz/artifacts" 2>/dev/null)
fi
for target in "${targets[@]}"; do
    dir="$fuzz/artifacts/$target"
    [[ -d $dir ]] || continue
    cargo +nightly fuzz build -s none "$target" >/dev/null 2>&1
    declare -A count=() smallest=() size=()
    for file in "$dir"/*; do
        [[ -f $file ]] || continue
        name=$(basename "$file")
        case $name in
            timeout-*) class="timeout" ;;
            oom-*) class="out-of-memory" ;;
            slow-unit-*) class="slow unit" ;;
            *)
                out=$( (ulimit -s "${FUZZ_STACK_KB:-2048}"; timeout 60 "$bin_dir/$target" -runs=1 "$file") 2>&1)
                if grep -q 'has overflowed its stack' <<<"$out"; then
                    class="stack overflow"
                elif grep -q 'panicked at' <<<"$out"; then
                    at=$(grep -m1 -oE 'panicked at [^ ]+' <<<"$out" | sed 's/panicked at //')
                    msg=$(grep -m1 -A1 'panicked at' <<<"$out" | tail -1 | cut -c1-70 | sed 's/[0-9]\+/N/g')
                    class="panic $at $msg"
                elif grep -q 'deadly signal\|SUMMARY' <<<"$out"; then
                    class="crash (signal)"
                else
                    class="no longer fails"
                fi
                ;;
        esac
        bytes=$(stat -c %s "$file")
        count[$class]=$(( ${count[$class]:-0} + 1 ))
        if [[ -z ${size[$class]:-} || $bytes -lt ${size[$class]} ]]; then
            size[$class]=$bytes
            smallest[$class]=${file#"$PWD/"}
        fi
    done
    echo "== $target"
    for class in "${!count[@]}"; do
        printf '  %4d x %s\n         smallest (%s bytes): %s\n' "${count[$class]}" "$class" "${size[$class]}" "${smallest[$class]}"
    done
    unset count smallest size
done
