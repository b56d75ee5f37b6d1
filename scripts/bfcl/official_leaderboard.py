#!/usr/bin/env python3
"""Run the OFFICIAL leaderboard aggregation (bfcl-eval) on score files and print the columns.

Our own driver; run it with the scratch venv python (see official_score.py's header).
It reads the official score files written by `official_score.py --keep-scores` for one round
(OUT/scores/r<k>/, one model folder inside), optionally keeps only some categories (to see what the
official code does with missing ones), then calls, unmodified:
  eval_runner_helper.update_leaderboard_table_with_local_score_file(table, score_dir)
  eval_runner_helper.generate_leaderboard_csv(table, out_dir)
and prints the data_overall / data_non_live / data_live CSV rows as JSON (column name -> cell text),
and data_multi_turn CSV rows as JSON (column name -> cell text), plus the raw accuracies it was
given. Used to make the test vectors in scripts/bfcl/LEADERBOARD.md.

With --synthetic FILE instead of --scores, the score files are made up from FILE, a JSON object
{"<category>": [correct, total], ...}: one score file per category holding only the header line
({"accuracy", "correct_count", "total_count"}), which is all the aggregation reads.

Usage:
  /tmp/venv-bfcl/bin/python scripts/bfcl/official_leaderboard.py --scores OUT/scores/r0 [--only cat,cat]
  /tmp/venv-bfcl/bin/python scripts/bfcl/official_leaderboard.py --synthetic figures.json
"""

import argparse
import csv
import json
import os
import shutil
import tempfile
from pathlib import Path


def synthetic_scores(path):
    """Score headers for the figures in `path`, in a folder of one registered model."""
    figures = json.loads(path.read_text())
    root = Path(tempfile.mkdtemp(prefix="bfcl-lb-synthetic-"))
    model = root / "gpt-4.1-2025-04-14"
    for category, (correct, total) in figures.items():
        group = "multi_turn" if category.startswith("multi_turn") else "non_live"
        folder = model / group
        folder.mkdir(parents=True, exist_ok=True)
        header = {"accuracy": correct / total, "correct_count": correct, "total_count": total}
        (folder / f"BFCL_v4_{category}_score.json").write_text(json.dumps(header) + "\n")
    return root


def main():
    ap = argparse.ArgumentParser()
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--scores", help="a score dir holding <model>/<group>/BFCL_v4_<cat>_score.json")
    src.add_argument("--synthetic", help='a JSON file {"<category>": [correct, total], ...}')
    ap.add_argument("--only", default=None, help="comma-separated categories to keep (others treated as missing)")
    args = ap.parse_args()

    os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="bfcl-lb-"))
    from bfcl_eval.eval_checker import eval_runner_helper as h
    from bfcl_eval.utils import extract_test_category

    work = Path(tempfile.mkdtemp(prefix="bfcl-lb-scores-"))
    keep = set(args.only.split(",")) if args.only else None
    if args.synthetic:
        args.scores = synthetic_scores(Path(args.synthetic))
    for f in Path(args.scores).rglob("BFCL_v4_*_score.json"):
        if keep is not None and extract_test_category(f) not in keep:
            continue
        dest = work / f.relative_to(args.scores)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, dest)
    table = {}
    h.update_leaderboard_table_with_local_score_file(table, work)
    inputs = {m: {c: {"accuracy": v["accuracy"], "total_count": v["total_count"]} for c, v in cats.items()}
              for m, cats in table.items()}
    out = Path(tempfile.mkdtemp(prefix="bfcl-lb-out-"))
    h.generate_leaderboard_csv(table, out)
    res = {"inputs": inputs}
    for name in ("data_overall", "data_non_live", "data_live", "data_multi_turn"):
        with open(out / f"{name}.csv", newline="") as f:
            rows = list(csv.reader(f))
        res[name] = [dict(zip(rows[0], r)) for r in rows[1:]]
        for r in res[name]:
            for k in ("Model Link", "Organization", "License", "Total Cost ($)", "Latency Mean (s)",
                      "Latency Standard Deviation (s)", "Latency 95th Percentile (s)"):
                r.pop(k, None)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
