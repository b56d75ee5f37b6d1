#!/usr/bin/env bash
# A golden snapshot of what itc prints and writes, for refactors that must
# not change behaviour: take one before the first move, one after the last,
# and compare them (timings and the snapshot's own folder are masked).
#
#   scripts/golden-snapshot.sh ITC_BINARY OUT_DIR
#   diff -r before/ after/
#
# Covers: every command's --help, `itc score`, an `itc eval` run directory
# (the offline baseline on the sample set), a step-by-step replay run, two
# shards and their merge, a report over runs, batch files emitted for an
# OpenAI-compatible and an Anthropic model, the OOD sets run with the
# baseline, every benchmark's converter and official scorer (Seal-Tools,
# APIBench, NexusRaven, ToolAlpaca, StableToolBench, BFCL single- and
# multi-turn). Everything is offline; nothing needs ../shared.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
itc="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="$(mkdir -p "$2" && cd "$2" && pwd)"
rm -rf "${out:?}"/*
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# Runs one case: its stdout, stderr and exit status into $out/NAME.{out,err,rc}.
case_() {
    local name="$1"
    shift
    "$itc" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
}

# --help of every command and subcommand, found from `itc help`'s lists.
helps() {
    local path=("$@")
    local name="help${path[*]:+-${path[*]// /-}}"
    "$itc" "${path[@]}" --help >"$out/$name.out" 2>&1
    local subs
    subs=$("$itc" "${path[@]}" --help 2>/dev/null |
        awk '/^Commands:/{on=1;next} on&&/^$/{on=0} on{print $1}' | grep -v '^help$')
    for sub in $subs; do
        helps "${path[@]}" "$sub"
    done
}
helps

case_ score score
case_ score-out score --out scored --format json
case_ eval eval --run-dir runs/eval --no-progress
case_ eval-steps eval --steps replay --run-dir runs/steps --no-progress
case_ shard1 eval --shard 1/2 --run-dir runs/s1 --no-progress
case_ shard2 eval --shard 2/2 --run-dir runs/s2 --no-progress
case_ merge merge runs/s1 runs/s2 --out runs/merged
case_ resume eval --run-dir runs/eval --resume --no-progress
case_ report report runs/eval runs/steps scored --out report
cat >models.toml <<'EOF'
[[models]]
name = "gpt"
backend = "openai"
base_url = "http://127.0.0.1:9/v1"
model_id = "gpt-x"

[[models]]
name = "claude"
backend = "anthropic"
base_url = "http://127.0.0.1:9/v1"
model_id = "claude-x"
api_key_env = "GOLDEN_NO_KEY"
EOF
GOLDEN_NO_KEY=not-a-key case_ emit eval --config models.toml --emit-batch batch --no-progress
case_ emit-steps eval --config models.toml --models gpt --steps replay --emit-batch batch-steps --no-progress
for set in seal-tools toolalpaca apibench:huggingface apibench:torchhub apibench:tensorflowhub; do
    case_ "ood-${set/:/-}" eval --dataset "$set" --backend baseline --run-dir "runs/ood-${set/:/-}" --no-progress
done
case_ ood-convert ood convert seal-tools --input "$root/datasets/ood/seal-tools/test_in_domain.json" --output seal.jsonl
case_ ood-seal ood score seal-tools --gold "$root/datasets/ood/seal-tools/test_in_domain.json" \
    --predictions "$root/datasets/ood/seal-tools/reference/test_in_domain_mixed.raw.jsonl"
case_ ood-apibench ood score apibench --hub huggingface \
    --api-db "$root/datasets/ood/gorilla/api/huggingface_api.jsonl" \
    --gold "$root/datasets/ood/gorilla/apibench/huggingface_eval.json" \
    --responses "$root/datasets/ood/gorilla/responses/huggingface/response_huggingface_Gorilla_FT_0_shot.jsonl"
case_ bad-tasks eval --tasks /nonexistent.jsonl --run-dir runs/bad --no-progress
# Every other benchmark: converters, official scorers, runs of the baseline.
case_ datasets datasets
case_ ood-convert-th ood convert apibench --hub torchhub --api-db "$root/datasets/ood/gorilla/api/torchhub_api.jsonl" \
    --input "$root/datasets/ood/gorilla/apibench/torchhub_eval.json" --candidates 4 -o th.jsonl
case_ ood-convert-raven ood convert nexusraven --input "$root/tests/fixtures/ood/nexusraven/raw_queries.json" \
    "$root/tests/fixtures/ood/nexusraven/raw_functions.py" -o raven.jsonl
case_ ood-convert-alpaca ood convert toolalpaca --input "$root/datasets/ood/toolalpaca/eval_simulated.json" -o alpaca.jsonl
case_ ood-convert-stb ood convert stabletoolbench \
    --input "$root/datasets/ood/stabletoolbench/solvable_queries/test_instruction/G1_instruction.json" -o stb.jsonl
case_ ood-convert-bfcl ood convert bfcl --category simple_python,multiple -o bfcl.jsonl
case_ ood-alpaca ood score toolalpaca --compat official \
    --evaluations "$root/datasets/ood/toolalpaca/evaluations/ToolAlpaca7b.json" --format json
stb="$root/datasets/ood/stabletoolbench/data_example"
case_ ood-stb ood score stabletoolbench --compat official --evaluate-times 3 --format json \
    --pass-rate-results "$stb/pass_rate_results/virtual_chatgpt_cot/G1_instruction_virtual_chatgpt_cot.json" \
    "$stb/pass_rate_results/virtual_chatgpt_dfs/G1_instruction_virtual_chatgpt_dfs.csv" \
    --preference-results "$stb/preference_results/G1_instruction_virtual_chatgpt_cot_virtual_chatgpt_dfs.csv"
case_ ood-bfcl ood score bfcl --compat official --results "$root/tests/fixtures/bfcl" --format json
case_ ood-bfcl-items ood score bfcl --compat official --category simple_python \
    --results "$root/tests/fixtures/bfcl/BFCL_v4_simple_python_result.json" --per-item bfcl-verdicts.jsonl
case_ ood-bfcl-mt ood score bfcl --results "$root/tests/fixtures/bfcl-multi-turn" --category multi-turn \
    --per-item bfcl-mt-verdicts.jsonl
for set in bfcl:live_parallel,live_relevance bfcl:multi_turn_base stabletoolbench:G1_tool; do
    name="ood-${set//[:,]/-}"
    case_ "$name" eval --dataset "$set" --backend baseline --limit 20 --run-dir "runs/$name" --no-progress
done
case_ ood-bfcl-run ood score bfcl --results runs/ood-bfcl-live_parallel-live_relevance --partial
case_ ood-report ood report --run runs/ood-bfcl-live_parallel-live_relevance

# Files written, with the work folder, timings and dates masked.
find . -type f ! -name '*.lock' ! -path './runs/*/cache/*' | sort | while read -r f; do
    mkdir -p "$out/files/$(dirname "$f")"
    case "$f" in
    *.parquet | *.png | *.gz) sha256sum <"$f" >"$out/files/$f.sha256" ;;
    *) cp "$f" "$out/files/$f" ;;
    esac
done
# Mask what changes from run to run: this folder, the binary's path, times, durations, the
# latency and timing columns of the run tables, and the order predictions
# were written in (workers finish in any order).
python3 - "$out" "$work" "$itc" <<'PY'
import json, os, re, sys
out, work, itc = sys.argv[1], sys.argv[2], sys.argv[3]
def cells(line, keep):
    parts = line.split("│")
    # parts[0] and parts[-1] are outside the table; keep the first `keep` cells
    return "│".join(parts[: keep + 1] + [re.sub(r"[0-9.]+", "<n>", c) for c in parts[keep + 1 :]])
for root, _, names in os.walk(out):
    for name in names:
        path = os.path.join(root, name)
        if name.endswith(".sha256"):
            continue
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        text = text.replace(work, "<work>").replace(itc, "<itc>")
        text = re.sub(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?", "<time>", text)
        text = re.sub(r"\b[0-9]+(\.[0-9]+)? ?(ms|s|µs)\b", "<dur>", text)
        text = re.sub(r'"itc_commit": "[^"]*"', '"itc_commit": <commit>', text)
        text = re.sub(r'\(commit [0-9a-f]+\)', '(commit <commit>)', text)
        if name.endswith(".json") and "manifest" in path:
            text = re.sub(r'"(sha256|bytes)": ?("[0-9a-f]+"|[0-9]+)', r'"\1": <n>', text)
        if name == "run.json" or name.endswith(".jsonl"):
            text = re.sub(r'"(\w*(_ms|_s|ms_\w+|seconds|elapsed\w*|started|finished|most_in_flight))": ?[0-9.e+-]+', r'"\1": <n>', text)
        if name == "predictions.jsonl":
            text = "".join(sorted(text.splitlines(keepends=True)))
        lines, table = [], None
        for line in text.split("\n"):
            if "Latency ms" in line:
                table = "run"
            elif "Queue ms" in line:
                table = "time"
            elif line.startswith("╰"):
                table = None
            if table == "run" and line.startswith("│"):
                parts = line.split("│")
                line = "│".join(parts[:-3] + [re.sub(r"[0-9.]+", "<n>", c) for c in parts[-3:]])
            elif table == "time" and line.startswith("│"):
                line = cells(line, 2)
            lines.append(line)
        # The masked tables' column widths follow the figures: collapse them.
        text, block = [], []
        for line in lines:
            if line.startswith("╭") or block:
                block.append(line)
                if line.startswith("╰"):
                    if any("<n>" in b for b in block):
                        block = [re.sub(r"─+", "─", re.sub(r" +", " ", b)) for b in block]
                    text += block
                    block = []
            else:
                text.append(line)
        text += block
        open(path, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(text))
PY
echo "wrote $out"
