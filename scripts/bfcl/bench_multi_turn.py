#!/usr/bin/env python3
"""Time the official multi-turn checker against `itc ood score bfcl` on the same 6,400 answers.

Our own driver (stdlib only here; the official side imports PyPI `bfcl-eval` 2026.3.23 from a
scratch venv, never copied): the reference answers of `datasets/ood/bfcl/reference-multi-turn/`
(8 rounds x 4 categories x 200 entries; their `raw` field, the result as bfcl-eval writes it)
are written as bfcl-eval result files, one folder per
round; then, pinned to one core by the caller (`taskset -c 0`):

(a) official: one Python process per round (the API instances live in module globals, so a
    round must not share a process with another), each running `eval_runner.multi_turn_runner`
    on the round's four files with a handler stand-in whose `decode_execute` is bfcl-eval's own
    (`convert_to_function_call` for function-calling steps, `default_decode_execute_prompting`
    for texts), model name `gpt-4.1-2025-04-14-FC`; it reports its scoring-only time;
(b) itc: one process per round, `itc ood score bfcl --category multi-turn --results ROUND
    --model-name gpt-4.1-2025-04-14-FC --format json`.

Both sides' correct counts are compared per file. Usage:

    taskset -c 0 python3 scripts/bfcl/bench_multi_turn.py --venv-python /tmp/lbvenv/bin/python \\
        --itc target/release/itc
"""

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "datasets/ood/bfcl"
MODEL = "gpt-4.1-2025-04-14-FC"
CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
              "multi_turn_long_context"]

OFFICIAL = r'''
import json, sys, time, os, tempfile
t0 = time.monotonic()
from bfcl_eval.eval_checker import eval_runner
from bfcl_eval.model_handler.utils import convert_to_function_call, default_decode_execute_prompting
from bfcl_eval import utils as bfcl_utils
round_dir, data_dir, model = sys.argv[1], sys.argv[2], sys.argv[3]

class Handler:
    def decode_execute(self, result, has_tool_call_tag=False):
        if isinstance(result, str):
            return default_decode_execute_prompting(result, has_tool_call_tag)
        return convert_to_function_call(result)

def load(path):
    with open(path) as f:
        return sorted((json.loads(l) for l in f if l.strip()), key=lambda e: bfcl_utils.sort_key(e))

loaded, counts = [], {}
for category in sys.argv[4:]:
    name = f"BFCL_v4_{category}.json"
    results = load(os.path.join(round_dir, model, "multi_turn", f"BFCL_v4_{category}_result.json"))
    prompts = load(os.path.join(data_dir, name))
    answers = load(os.path.join(data_dir, "possible_answer", name))
    loaded.append((category, results, prompts, answers))
t1 = time.monotonic()
score_dir = tempfile.mkdtemp()
for category, results, prompts, answers in loaded:
    out = eval_runner.multi_turn_runner(Handler(), results, prompts, answers, model, category,
                                        __import__("pathlib").Path(score_dir))
    counts[category] = out["correct_count"] if isinstance(out, dict) and "correct_count" in out else None
t2 = time.monotonic()
score_files = {}
for category in sys.argv[4:]:
    for p in __import__("pathlib").Path(score_dir).rglob(f"*{category}_score.json"):
        with open(p) as f:
            score_files[category] = json.loads(f.readline())["correct_count"]
print(json.dumps({"load": t1 - t0, "scoring": t2 - t1, "correct": score_files}))
'''


def write_rounds(tmp: Path) -> list:
    rounds = {}
    for category in CATEGORIES:
        path = DATA / "reference-multi-turn/answers" / f"{category}.jsonl.gz"
        for line in gzip.open(path, "rt"):
            a = json.loads(line)
            rounds.setdefault(a["round"], {}).setdefault(category, []).append(
                {"id": a["id"], "result": a["raw"]})
    dirs = []
    for k, by_category in sorted(rounds.items()):
        folder = tmp / f"round{k}" / MODEL / "multi_turn"
        folder.mkdir(parents=True)
        for category, lines in by_category.items():
            with open(folder / f"BFCL_v4_{category}_result.json", "w") as f:
                for line in lines:
                    f.write(json.dumps(line) + "\n")
        dirs.append(tmp / f"round{k}")
    return dirs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv-python", required=True)
    ap.add_argument("--itc", default=str(ROOT / "target/release/itc"))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    rounds = write_rounds(tmp)
    official_scoring = official_process = itc_total = 0.0
    disagree = compared = 0
    for round_dir in rounds:
        t = time.monotonic()
        p = subprocess.run([args.venv_python, "-c", OFFICIAL, str(round_dir), str(DATA), MODEL,
                            *CATEGORIES], capture_output=True, text=True, cwd=tmp)
        official_process += time.monotonic() - t
        if p.returncode != 0:
            sys.exit(f"official, {round_dir.name}: {p.stderr[-2000:]}")
        official = json.loads(p.stdout.strip().splitlines()[-1])
        official_scoring += official["scoring"]
        t = time.monotonic()
        q = subprocess.run([args.itc, "ood", "score", "bfcl", "--category", "multi-turn",
                            "--results", str(round_dir), "--model-name", MODEL, "--format", "json"],
                           capture_output=True, text=True)
        itc_total += time.monotonic() - t
        if q.returncode != 0:
            sys.exit(f"itc, {round_dir.name}: {q.stderr[-2000:]}")
        for line in q.stdout.splitlines():
            if not line.startswith("{"):
                continue
            score = json.loads(line)
            category = score.get("category")
            if category not in official["correct"]:
                continue
            compared += 1
            if official["correct"][category] != score.get("correct_count"):
                disagree += 1
                print(f"{round_dir.name} {category}: official {official['correct'][category]}, "
                      f"itc {score.get('correct_count')}")
    answers = 200 * len(CATEGORIES) * len(rounds)
    print(f"{answers} answers, {len(rounds)} rounds x {len(CATEGORIES)} categories")
    print(f"official: whole processes {official_process:.2f} s, scoring only {official_scoring:.2f} s")
    print(f"itc:      whole processes {itc_total:.2f} s")
    print(f"ratio:    {official_process / itc_total:.1f}x (whole), "
          f"{official_scoring / itc_total:.1f}x (official scoring only vs itc whole)")
    print(f"result files compared: {compared}; whose correct count differs: {disagree}")
    sys.exit(1 if disagree or compared != len(rounds) * len(CATEGORIES) else 0)


if __name__ == "__main__":
    main()
