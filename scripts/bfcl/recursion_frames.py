#!/usr/bin/env python3
"""Where the official BFCL decoder runs out of Python stack on long arithmetic (issue 50, item 5).

The official decoder evaluates a binary operation as `eval(ast.unparse(node))`; `ast.unparse`
recurses in Python, so `1 + 1 + ... + 1` with enough terms raises RecursionError, which the
runner reports as `ast_decoder:decoder_failed`. This script measures, with the unmodified
bfcl-eval 2026.3.23 in a scratch venv (see official_score.py for the venv; soundfile added):

  frames  for each shape, the recursion limit a direct call of default_decode_ast_prompting
          needs (binary search over sys.setrecursionlimit): its growth per term and its
          excess over a plain `1 + 1 + ...` give the per-node costs of
          src/benchmarks/bfcl/decode.rs (UNPARSE_MAX_FRAMES);
  cli     for each shape, the first number of terms that fails under the `bfcl evaluate` CLI
          (simple_python, --partial-eval, model gpt-4.1-2025-04-14 in prompt mode), and the
          verdicts of itc on the same result file (ITC=path of the itc binary) when given.

Usage (2026-11-29, CPython 3.11.7):
  /tmp/smallvenv/bin/python scripts/bfcl/recursion_frames.py frames
  ITC=target/debug/itc /tmp/smallvenv/bin/python scripts/bfcl/recursion_frames.py cli
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

MODEL = "gpt-4.1-2025-04-14"
CATEGORY = "simple_python"

# name -> (answer template, term, operator): the answer is the template with "@" replaced by
# the term joined by the operator n times.
SHAPES = {
    "int": ("[f(a=@)]", "1", "+"),
    "str": ("[f(a=@)]", "'a'", "+"),
    "bytes": ("[f(a=@)]", "b'a'", "+"),
    "pow": ("[f(a=@)]", "1", "**"),
    "in list": ("[f(a=[@])]", "1", "+"),
    "in tuple": ("[f(a=(0, @))]", "1", "+"),
    "in dict": ("[f(a={'k': @})]", "1", "+"),
    "in call": ("[f(a=g(b=@))]", "1", "+"),
    "in 2 calls": ("[f(a=g(b=h(c=@)))]", "1", "+"),
    "in list in call": ("[f(a=g(b=[@]))]", "1", "+"),
    "unary first": ("[f(a=-@)]", "1", "+"),
    "unary terms": ("[f(a=@)]", "-1", "+"),
    "product terms": ("[f(a=@)]", "1*1", "+"),
    "tuple terms": ("[f(a=@)]", "(1,)", "+"),
    "pair terms": ("[f(a=@)]", "(1, -1)", "+"),
    "list terms": ("[f(a=@)]", "[1, (1,)]", "+"),
    "empty tuple terms": ("[f(a=@)]", "()", "+"),
    "empty list terms": ("[f(a=@)]", "[]", "+"),
    "dict terms": ("[f(a=@)]", "{1: (1,)}", "|"),
    "empty dict terms": ("[f(a=@)]", "{}", "|"),
    "second call": ("[f(x=1), f(a=@)]", "1", "+"),
}


def answer(shape, n):
    template, term, op = SHAPES[shape]
    return template.replace("@", op.join([term] * n))


def frames():
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting

    def ok(text, limit):
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(limit)
        try:
            default_decode_ast_prompting(text)
            return True
        except RecursionError:
            return False
        finally:
            sys.setrecursionlimit(old)

    def need(text):
        lo, hi = 30, 5000
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if ok(text, mid):
                hi = mid
            else:
                lo = mid
        return hi

    base = need(answer("int", 10))
    for shape in SHAPES:
        a, b = need(answer(shape, 10)), need(answer(shape, 11))
        print(f"{shape:18} per term {b - a}  excess over int {a - base}")


def cli(lo=312, hi=330):
    root = tempfile.mkdtemp(prefix="bfcl-recursion-")
    keys, answers = [], []
    for shape in SHAPES:
        for n in range(lo, hi):
            keys.append((shape, n))
            answers.append(answer(shape, n))
    assert len(answers) <= 400, "simple_python has 400 questions"
    result_dir = os.path.join(root, "result", MODEL, "non_live")
    os.makedirs(result_dir)
    result = os.path.join(result_dir, f"BFCL_v4_{CATEGORY}_result.json")
    with open(result, "w", encoding="utf-8") as f:
        for i, a in enumerate(answers):
            f.write(json.dumps({"id": f"{CATEGORY}_{i}", "result": a}) + "\n")
    # The handler is built before scoring and wants a key; nothing is sent.
    env = dict(os.environ, BFCL_PROJECT_ROOT=root, OPENAI_API_KEY="unused")
    bfcl = os.path.join(os.path.dirname(sys.executable), "bfcl")
    subprocess.run([bfcl, "evaluate", "--model", MODEL, "--test-category", CATEGORY, "--partial-eval"],
                   env=env, check=True, capture_output=True)
    score = None
    for d, _, files in os.walk(os.path.join(root, "score")):
        score = score or next((os.path.join(d, x) for x in files if x.endswith(f"{CATEGORY}_score.json")), None)
    failed = set()
    with open(score, encoding="utf-8") as f:
        for line in list(f)[1:]:
            rec = json.loads(line)
            if rec["error_type"] == "ast_decoder:decoder_failed":
                failed.add(int(rec["id"].rsplit("_", 1)[1]))
    itc_failed = None
    if os.environ.get("ITC"):
        per_item = os.path.join(root, "itc.jsonl")
        subprocess.run([os.environ["ITC"], "ood", "score", "bfcl", "--compat", "official", "--category", CATEGORY,
                        "--partial", "--results", result, "--per-item", per_item],
                       check=True, capture_output=True)
        with open(per_item, encoding="utf-8") as f:
            itc_failed = {i for i, line in enumerate(f)
                          if json.loads(line)["error_type"] == "ast_decoder:decoder_failed"}
    same = 0
    for shape in SHAPES:
        idx = [i for i, k in enumerate(keys) if k[0] == shape]
        first = next((keys[i][1] for i in idx if i in failed), None)
        line = f"{shape:18} official: first failing n {first}"
        if itc_failed is not None:
            agree = all((i in failed) == (i in itc_failed) for i in idx)
            same += agree
            line += f"; itc {'agrees' if agree else 'DIFFERS'} on n = {lo}..{hi - 1}"
        print(line)
    if itc_failed is not None:
        print(f"itc agrees on {same} of {len(SHAPES)} shapes ({len(answers)} answers)")
    shutil.rmtree(root)


if __name__ == "__main__":
    {"frames": frames, "cli": cli}[sys.argv[1]]()
