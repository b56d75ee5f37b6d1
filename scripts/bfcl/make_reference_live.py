#!/usr/bin/env python3
"""Assemble datasets/ood/bfcl/reference-live/ from generated live answers and official verdicts.

Standard library only. Inputs:
  --answers DIR    <cat>.jsonl from `make_results.py --answers-dir` ({"id","answer_index","answer","kind"})
  --official DIR   output of official_score.py (verdicts/<round>/<cat>.jsonl, summary.json)
  --out DIR        datasets/ood/bfcl/reference-live
  --generation S   free text recorded in summary.json (the exact commands)
"""

import argparse
import collections
import json
import os


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--answers", required=True)
    ap.add_argument("--official", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--generation", default="")
    args = ap.parse_args()

    official = json.load(open(os.path.join(args.official, "summary.json"), encoding="utf-8"))
    os.makedirs(os.path.join(args.out, "answers"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "verdicts"), exist_ok=True)
    summary = {
        "what": "official BFCL verdicts on generated live-category answers (prompt-mode, Python)",
        "bfcl_eval_version": official["bfcl_eval_version"],
        "model_name": official["model_name"],
        "decoder": official["decoder"],
        "runner": official["runner"],
        "generator": "scripts/bfcl/make_results.py",
        "seed": args.seed,
        "generation": args.generation,
        "categories": {},
    }
    for cat, rounds in official["categories"].items():
        answers = read_jsonl(os.path.join(args.answers, f"{cat}.jsonl"))
        verdict = {}
        for r in rounds:
            for v in read_jsonl(os.path.join(args.official, "verdicts", str(r["round"]), f"{cat}.jsonl")):
                verdict[(v["id"], r["round"])] = v
        kinds = collections.defaultdict(lambda: {"answers": 0, "valid": 0})
        errors = collections.Counter()
        with open(os.path.join(args.out, "answers", f"{cat}.jsonl"), "w", encoding="utf-8", newline="\n") as fa, \
             open(os.path.join(args.out, "verdicts", f"{cat}.jsonl"), "w", encoding="utf-8", newline="\n") as fv:
            for a in answers:
                v = verdict[(a["id"], a["answer_index"])]
                fa.write(json.dumps({"id": a["id"], "answer_index": a["answer_index"], "answer": a["answer"],
                                     "kind": a["kind"]}, ensure_ascii=False) + "\n")
                fv.write(json.dumps({"id": a["id"], "answer_index": a["answer_index"], "valid": v["valid"],
                                     "error_type": v["error_type"]}, ensure_ascii=False) + "\n")
                kinds[a["kind"]]["answers"] += 1
                kinds[a["kind"]]["valid"] += int(v["valid"])
                if not v["valid"]:
                    errors[v["error_type"]] += 1
        assert len(answers) == len(verdict), cat
        correct = sum(r["correct_count"] for r in rounds)
        total = sum(r["total_count"] for r in rounds)
        summary["categories"][cat] = {
            "questions": rounds[0]["total_count"],
            "rounds": [{"round": r["round"], "accuracy": r["accuracy"], "correct_count": r["correct_count"],
                        "total_count": r["total_count"]} for r in rounds],
            "answers": total, "correct": correct, "accuracy": correct / total,
            "error_types": dict(sorted(errors.items())),
            "kinds": {k: kinds[k] for k in sorted(kinds)},
        }
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
