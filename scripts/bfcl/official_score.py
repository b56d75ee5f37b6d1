#!/usr/bin/env python3
"""Score BFCL result files with the OFFICIAL checker of the installed bfcl-eval package.

Our own driver; it imports bfcl-eval from a scratch venv and never copies its code.
bfcl-eval is not a dependency of itc: this is a test/benchmark oracle only.

Scratch venv (what was done, 2026-11-28, Python 3.11.7, 2 cores, PyPI only):

    python3 -m venv /tmp/venv-bfcl
    /tmp/venv-bfcl/bin/pip install bfcl-eval==2026.3.23      # full install, 2m56s wall, venv 6.3 GB
                                                             # (pulls torch, CUDA wheels, transformers, ...)
    /tmp/venv-bfcl/bin/pip install soundfile                 # missing: qwen_agent (imported by
                                                             # bfcl_eval.constants.model_config) imports it
                                                             # but bfcl-eval does not declare it

Nothing else was stubbed or patched: `import bfcl_eval.eval_checker.eval_runner` works after that.
Package data (bfcl_eval/data/*.json) is byte-identical to datasets/ood/bfcl at gorilla 6ea5797.

What is run, per category and round (the same path as `eval_runner.evaluate_task`, minus its
`record_cost_latency`/`record_result` bookkeeping, so that loading can be timed apart from scoring):

  load (timed as "load"):
    prompt   = utils.load_dataset_entry(cat, include_prereq=False, include_language_specific_hint=False)
    truth    = utils.load_ground_truth_entry(cat)                    (AST categories only)
    results  = utils.load_file(<round>/BFCL_v4_<cat>_result.json, sort_by_id=True)
    prompt, truth = eval_runner._subset_entries_by_model_ids(results, prompt, truth, allow_missing=False)
  score (timed as "scoring"):
    relevance/irrelevance: eval_runner.relevance_file_runner(handler, results, prompt, MODEL, cat, score_dir)
    everything else:       eval_runner.ast_file_runner(handler, results, prompt, truth, cat, MODEL, score_dir)
  Both write the official score file (header + one record per failing entry) via save_eval_results;
  per-item verdicts are read back from it (an id absent from it is valid).

The handler is a prompt-mode handler whose decode_ast is
`model_handler.utils.default_decode_ast_prompting(result, language, has_tool_call_tag=False)`, exactly
what OpenAIResponsesHandler does when is_fc_model is False. MODEL = "gpt-4.1-2025-04-14" (a prompt-mode
entry of the official MODEL_CONFIG_MAPPING; underscore_to_dot=False, which ast_checker consults).

Output (OUT):
  OUT/verdicts/<round>/<cat>.jsonl   {"id", "valid", "error_type"}   (result-file order, sorted by id)
  OUT/summary.json                   accuracy/correct_count/total_count per category and round,
                                     timings (import, load, scoring, score-file writing, process)
  OUT/scores/r<round>/<model>/...    the official score files, with --keep-scores

Usage:
  taskset -c 0 /tmp/venv-bfcl/bin/python scripts/bfcl/official_score.py --results DIR --out OUT \
      [--categories a,b] [--check-reference datasets/ood/bfcl/reference/verdicts]
"""

import time

T_PROCESS_START = time.monotonic()

import argparse
import copy
import json
import os
import sys
import tempfile

ALL = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
       "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
       "live_irrelevance", "live_relevance"]
MODEL = "gpt-4.1-2025-04-14"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", required=True, help="folder with <round>/BFCL_v4_<cat>_result.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--categories", default=",".join(ALL))
    ap.add_argument("--no-pin", action="store_true", help="do not pin this process to CPU 0")
    ap.add_argument("--keep-scores", action="store_true",
                    help="write the official score files to OUT/scores/r<round>/ (instead of a temp dir)"
                         " for scripts/bfcl/official_leaderboard.py")
    ap.add_argument("--check-reference", default=None,
                    help="reference verdicts dir (<cat>.jsonl with id, answer_index, valid, error_type)"
                         " to compare against; exit 1 on any difference")
    args = ap.parse_args()

    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})

    # The package creates result/, score/ and .file_locks/ under BFCL_PROJECT_ROOT at import time.
    project_root = tempfile.mkdtemp(prefix="bfcl-official-")
    os.environ["BFCL_PROJECT_ROOT"] = project_root

    t_import0 = time.monotonic()
    from importlib.metadata import version as pkg_version
    from pathlib import Path

    from bfcl_eval.constants.enums import ReturnFormat
    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    from bfcl_eval import utils as bfcl_utils
    t_import = time.monotonic() - t_import0

    class PromptHandler:
        """Prompt-mode handler: decode_ast = default_decode_ast_prompting (as OpenAIResponsesHandler, is_fc_model=False)."""
        is_fc_model = False

        def decode_ast(self, result, language=ReturnFormat.PYTHON, has_tool_call_tag=False):
            return default_decode_ast_prompting(result, language, has_tool_call_tag)

    handler = PromptHandler()

    # Time spent inside the official save_eval_results (score-file writing), a part of "scoring".
    write_time = [0.0]
    orig_save = eval_runner.save_eval_results

    def timed_save(*a, **kw):
        t = time.monotonic()
        try:
            return orig_save(*a, **kw)
        finally:
            write_time[0] += time.monotonic() - t

    eval_runner.save_eval_results = timed_save

    results_dir = Path(args.results)
    rounds = sorted((p for p in results_dir.iterdir() if p.is_dir() and p.name.isdigit()),
                    key=lambda p: int(p.name))
    cats = [c for c in args.categories.split(",") if c]

    # ---- load everything first (official loaders)
    t_load0 = time.monotonic()
    jobs = []
    for cat in cats:
        prompt_all = bfcl_utils.load_dataset_entry(cat, include_prereq=False,
                                                   include_language_specific_hint=False)
        relevance = bfcl_utils.is_relevance_or_irrelevance(cat)
        truth_all = None if relevance else bfcl_utils.load_ground_truth_entry(cat)
        for rdir in rounds:
            f = rdir / f"BFCL_v4_{cat}_result.json"
            if not f.exists():
                continue
            model_result = bfcl_utils.load_file(f, sort_by_id=True)
            prompt, truth = eval_runner._subset_entries_by_model_ids(
                model_result, copy.deepcopy(prompt_all),
                None if relevance else copy.deepcopy(truth_all), allow_missing=False)
            jobs.append({"cat": cat, "round": int(rdir.name), "relevance": relevance,
                         "model_result": model_result, "prompt": prompt, "truth": truth,
                         "score_dir": (Path(args.out).resolve() / "scores" if args.keep_scores
                                       else Path(project_root) / "score") / f"r{rdir.name}"})
    t_load = time.monotonic() - t_load0

    # ---- official scoring
    t_score0 = time.monotonic()
    for j in jobs:
        t = time.monotonic()
        if j["relevance"]:
            acc, total = eval_runner.relevance_file_runner(
                handler, j["model_result"], j["prompt"], MODEL, j["cat"], j["score_dir"])
        else:
            acc, total = eval_runner.ast_file_runner(
                handler, j["model_result"], j["prompt"], j["truth"], j["cat"], MODEL, j["score_dir"])
        j["seconds"] = time.monotonic() - t
        j["accuracy"], j["total"] = acc, total
    t_score = time.monotonic() - t_score0

    # ---- read back the official score files
    out = Path(args.out)
    summary = {"bfcl_eval_version": pkg_version("bfcl-eval"), "model_name": MODEL,
               "decoder": "default_decode_ast_prompting(result, language, has_tool_call_tag=False)",
               "runner": "eval_runner.ast_file_runner / relevance_file_runner",
               "results": str(results_dir), "categories": {}}
    mismatches = 0
    for j in jobs:
        cat = j["cat"]
        score_file = (j["score_dir"] / MODEL / bfcl_utils.get_directory_structure_by_category(cat)
                      / f"BFCL_v4_{cat}_score.json")
        lines = [json.loads(x) for x in open(score_file, encoding="utf-8") if x.strip()]
        header, failures = lines[0], {e["id"]: e for e in lines[1:]}
        verdicts = []
        for e in j["model_result"]:
            fail = failures.get(e["id"])
            verdicts.append({"id": e["id"], "valid": fail is None,
                             "error_type": None if fail is None else fail.get("error_type")})
        assert header["correct_count"] == sum(v["valid"] for v in verdicts), cat
        vdir = out / "verdicts" / str(j["round"])
        vdir.mkdir(parents=True, exist_ok=True)
        with open(vdir / f"{cat}.jsonl", "w", encoding="utf-8") as f:
            for v in verdicts:
                f.write(json.dumps(v, ensure_ascii=False) + "\n")
        summary["categories"].setdefault(cat, []).append({
            "round": j["round"], "accuracy": header["accuracy"],
            "correct_count": header["correct_count"], "total_count": header["total_count"],
            "scoring_seconds": round(j["seconds"], 4)})
        if args.check_reference:
            ref_path = Path(args.check_reference) / f"{cat}.jsonl"
            if ref_path.exists():
                ref = {}
                for x in open(ref_path, encoding="utf-8"):
                    r = json.loads(x)
                    if r["answer_index"] == j["round"]:
                        ref[r["id"]] = (r["valid"], r["error_type"])
                for v in verdicts:
                    if ref.get(v["id"]) != (v["valid"], v["error_type"]):
                        mismatches += 1
                        if mismatches <= 20:
                            print(f"MISMATCH {cat} r{j['round']} {v['id']}: official {v} ref {ref.get(v['id'])}",
                                  file=sys.stderr)

    items = sum(j["total"] for j in jobs)
    summary["timing"] = {
        "files": len(jobs), "items": items,
        "import_seconds": round(t_import, 3),
        "load_seconds": round(t_load, 3),
        "scoring_seconds": round(t_score, 3),
        "of_which_score_file_writing_seconds": round(write_time[0], 3),
        "process_seconds_until_summary": round(time.monotonic() - T_PROCESS_START, 3),
        "cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }
    if args.check_reference:
        summary["reference_mismatches"] = mismatches
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for cat, rs in summary["categories"].items():
        print(f"{cat:24s} " + " ".join(f"r{r['round']}={r['correct_count']}/{r['total_count']}" for r in rs))
    print(json.dumps(summary["timing"]))
    if args.check_reference:
        print(f"reference mismatches: {mismatches}")
        if mismatches:
            sys.exit(1)


if __name__ == "__main__":
    main()
