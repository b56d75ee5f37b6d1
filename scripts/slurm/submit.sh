#!/usr/bin/env bash
# Submits a sharded itc evaluation to Slurm: an array job of N tasks, each
# running one shard (eval-shard.sbatch), and a job that merges and reports
# them when the array has ended (merge.sbatch).
#
#   scripts/slurm/submit.sh [-n N] [--sbatch "OPTIONS"] RUN [itc eval arguments...]
#
#   scripts/slurm/submit.sh -n 8 runs/qwen --config models.toml --models qwen
#     → runs/qwen/shard-1 … shard-8  (one itc eval --shard auto each)
#     → runs/qwen/merged             (itc merge, scored)
#     → runs/qwen/report             (itc report)
#     → runs/qwen/slurm-*.out        (the jobs' output)
#
# -n N       shards, one array task each (default: 4)
# --sbatch   more sbatch options for both jobs, e.g. "--partition=gpu --time=2:00:00"
#            (give GPUs and memory to the model server's job, not to these:
#            itc sends requests and needs one core)
#
# RUN may hold any character but a backslash and `{shard}` (refused: Slurm
# and itc would read them as patterns); a % is passed to Slurm as %%.
#
# Prints the two job ids (array, then merge) on stdout. Environment: ITC,
# the itc binary the jobs run (default: the `itc` on PATH, looked up now so
# that the jobs run the same one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
count=4
extra=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    -n)
        count="$2"
        shift 2
        ;;
    --sbatch)
        extra="$2"
        shift 2
        ;;
    *) break ;;
    esac
done
if [[ $# -lt 1 || ! $count =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [-n N] [--sbatch \"OPTIONS\"] RUN [itc eval arguments...]" >&2
    exit 2
fi
run="$1"
shift
# Slurm reads --output as a pattern: a backslash anywhere in it turns every
# pattern off (all array tasks would write one log), and `{shard}` would be
# replaced by itc in the shards' --run-dir. Such run folders are refused.
refuse_run() {
    if [[ $1 == *\\* ]]; then
        echo "submit.sh: the run folder '$1' holds a backslash, which turns off Slurm's %A/%a patterns in the jobs' log names (sbatch --output); choose another folder" >&2
        exit 2
    fi
    if [[ $1 == *"{shard}"* ]]; then
        echo "submit.sh: the run folder '$1' holds {shard}, which itc eval replaces in each shard's --run-dir; choose another folder" >&2
        exit 2
    fi
}
refuse_run "$run"
itc="$(command -v "${ITC:-itc}" || true)"
if [[ -z $itc ]]; then
    echo "submit.sh: no itc binary: put it on PATH or set ITC" >&2
    exit 2
fi
mkdir -p "$run"
run="$(cd "$run" && pwd)"
refuse_run "$run"
# A % of the folder is written %% in --output: Slurm's literal %.
logs="${run//%/%%}"
# shellcheck disable=SC2086 # $extra is a list of sbatch options
array=$(ITC="$itc" sbatch --parsable $extra --array="1-$count" \
    --output="$logs/slurm-%A_%a.out" "$here/eval-shard.sbatch" "$run" "$@")
array="${array%%;*}"
# shellcheck disable=SC2086
merge=$(ITC="$itc" sbatch --parsable $extra --dependency="afterany:$array" \
    --output="$logs/slurm-%j-merge.out" "$here/merge.sbatch" "$run" "$count")
merge="${merge%%;*}"
echo "$array"
echo "$merge"
echo "submit.sh: array job $array (${count} shards) and merge job $merge; results in $run" >&2
