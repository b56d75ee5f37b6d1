#!/usr/bin/env python3
"""Time the official BFCL checker against `itc ood score bfcl --compat official` (stdlib only).

Called by scripts/bench-bfcl.sh (which pins everything to CPU 0 with taskset; child processes inherit
the affinity). Every process is timed with time.monotonic() around subprocess.run.

(a) official: one process, scripts/bfcl/official_score.py under the venv python, over all result
    files; reports its own scoring-only time (after imports and data loading) and the whole process
    wall time measured here.
(b) itc: one process per result file:
    $ITC ood score bfcl --compat official --category CAT --results FILE --data DATA --format json
    total = sum of the per-process wall times.
Then checks correct_count per file (official score-file header vs itc stdout JSON) and prints a table.
Exit status: 0 all counts agree; 1 some disagree (or per-item mismatch with --compare-items);
2 usage/setup error.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_timed(cmd, **kw):
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return p, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--venv-python", required=True)
    ap.add_argument("--itc", default=None)
    ap.add_argument("--official-only", action="store_true")
    ap.add_argument("--compare-items", action="store_true",
                    help="after timing, also run itc with --per-item and compare valid/error_type per item")
    ap.add_argument("--work", default=None, help="folder for official verdicts and itc per-item output")
    args = ap.parse_args()

    here = Path(__file__).resolve().parent
    results = Path(args.results)
    work = Path(args.work or tempfile.mkdtemp(prefix="bfcl-bench-"))
    files = sorted(results.glob("*/BFCL_v4_*_result.json"), key=lambda p: (p.name, int(p.parent.name)))
    if not files:
        print(f"no result files under {results}", file=sys.stderr)
        return 2
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(f"result files: {len(files)}   cpu affinity: {affinity}")

    # ---- (a) official
    cmd = [args.venv_python, str(here / "official_score.py"), "--results", str(results),
           "--out", str(work / "official")]
    print("official:", " ".join(cmd))
    p, official_process = run_timed(cmd)
    if p.returncode != 0:
        print(p.stdout, p.stderr, file=sys.stderr)
        return 2
    summ = json.load(open(work / "official" / "summary.json", encoding="utf-8"))
    timing = summ["timing"]
    official = {}  # (cat, round) -> dict
    for cat, rounds in summ["categories"].items():
        for r in rounds:
            official[(cat, r["round"])] = r

    # ---- (b) itc
    itc_times, itc_counts = {}, {}
    itc_total = None
    if not args.official_only:
        itc = args.itc
        if not itc or not os.access(itc, os.X_OK):
            print(f"itc binary not found/executable: {itc} (set ITC or build target/release/itc)",
                  file=sys.stderr)
            return 2
        print(f"itc: {itc} ood score bfcl --compat official --category CAT --results FILE "
              f"--data {args.data} --format json   ({len(files)} processes)")
        itc_total = 0.0
        for f in files:
            cat = f.name[len("BFCL_v4_"):-len("_result.json")]
            rnd = int(f.parent.name)
            p, dt = run_timed([itc, "ood", "score", "bfcl", "--compat", "official", "--category", cat,
                               "--results", str(f), "--data", args.data, "--format", "json"])
            itc_total += dt
            itc_times[(cat, rnd)] = dt
            if p.returncode != 0:
                print(f"itc failed on {f}: rc={p.returncode}\n{p.stderr[-2000:]}", file=sys.stderr)
                itc_counts[(cat, rnd)] = None
                continue
            try:
                out = json.loads(p.stdout)
                itc_counts[(cat, rnd)] = out["correct_count"]
            except (ValueError, KeyError) as e:
                print(f"itc output not understood on {f}: {e}: {p.stdout[:500]}", file=sys.stderr)
                itc_counts[(cat, rnd)] = None

    # ---- (c) itc, one process over the whole folder (each category's data read once)
    itc_single = None
    if not args.official_only:
        # The median of 7 runs: a quarter-second process on a shared machine is noisy.
        runs = [run_timed([args.itc, "ood", "score", "bfcl", "--compat", "official",
                           "--results", str(results), "--data", args.data, "--format", "json"])
                for _ in range(7)]
        p = runs[-1][0]
        itc_single = sorted(dt for _, dt in runs)[len(runs) // 2]
        if p.returncode != 0:
            print(f"itc failed on {results}: rc={p.returncode}\n{p.stderr[-2000:]}", file=sys.stderr)
            return 2
        for line in p.stdout.splitlines():
            x = json.loads(line)
            f = Path(x["results"])
            key = (x["category"], int(f.parent.name))
            if itc_counts.get(key) != x["correct_count"]:
                print(f"itc (one process) differs from itc (per file) on {f}", file=sys.stderr)
                itc_counts[key] = None

    # ---- compare and print
    disagree = []
    for key, r in sorted(official.items()):
        if itc_counts and itc_counts.get(key) != r["correct_count"]:
            disagree.append((key, r["correct_count"], itc_counts.get(key)))
    cats = []
    for cat, _ in sorted(official, key=lambda k: list(summ["categories"]).index(k[0])):
        if cat not in cats:
            cats.append(cat)
    print()
    print(f"{'category':24s} {'rounds':>6s} {'items':>7s} {'official s':>11s} {'itc s':>9s} {'ratio':>7s}")
    for cat in cats:
        keys = [k for k in official if k[0] == cat]
        items = sum(official[k]["total_count"] for k in keys)
        osec = sum(official[k]["scoring_seconds"] for k in keys)
        isec = sum(itc_times[k] for k in keys) if itc_times else None
        ratio = f"{osec / isec:7.2f}" if isec else "      -"
        icol = f"{isec:9.3f}" if isec is not None else "        -"
        print(f"{cat:24s} {len(keys):6d} {items:7d} {osec:11.3f} {icol} {ratio}")
    items = sum(r["total_count"] for r in official.values())
    total_itc = f"{itc_total:9.3f}" if itc_total is not None else "        -"
    total_ratio = f"{timing['scoring_seconds'] / itc_total:7.2f}" if itc_total else "      -"
    print(f"{'TOTAL':24s} {len(official):6d} {items:7d} {timing['scoring_seconds']:11.3f} "
          f"{total_itc} {total_ratio}")
    print()
    print("official s = scoring only (official file runners incl. score-file writing; after imports and "
          "data loading). itc s = whole itc process per file (startup, loading, scoring).")
    print(f"official: import {timing['import_seconds']:.3f} s, load {timing['load_seconds']:.3f} s, "
          f"scoring {timing['scoring_seconds']:.3f} s (of which score-file writing "
          f"{timing['of_which_score_file_writing_seconds']:.3f} s), whole process {official_process:.3f} s")
    if itc_total is not None:
        print(f"itc: {len(files)} processes, total {itc_total:.3f} s")
        print(f"overall ratio official/itc: scoring-only {timing['scoring_seconds'] / itc_total:.2f}x, "
              f"whole process {official_process / itc_total:.2f}x")
        print(f"itc, one process over all {len(files)} files (median of 7): {itc_single:.3f} s; ratio official/itc: "
              f"scoring-only {timing['scoring_seconds'] / itc_single:.2f}x, "
              f"whole process {official_process / itc_single:.2f}x")
    result = {"files": len(files), "items": items, "official_scoring_seconds": timing["scoring_seconds"],
              "official_process_seconds": round(official_process, 3), "itc_seconds": None if itc_total is None else round(itc_total, 3),
              "itc_one_process_seconds": None if itc_single is None else round(itc_single, 3),
              "disagreements": len(disagree)}

    rc = 0
    if disagree:
        rc = 1
        print(f"\nCORRECT_COUNT DISAGREES on {len(disagree)} file(s):", file=sys.stderr)
        for (cat, rnd), o, i in disagree:
            print(f"  {cat} round {rnd}: official {o}, itc {i}", file=sys.stderr)
    elif itc_counts:
        print(f"\ncorrect_count agrees on all {len(official)} files")

    if args.compare_items and itc_counts:
        bad = 0
        for f in files:
            cat = f.name[len("BFCL_v4_"):-len("_result.json")]
            rnd = int(f.parent.name)
            per_item = work / "itc" / str(rnd) / f"{cat}.jsonl"
            per_item.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([args.itc, "ood", "score", "bfcl", "--compat", "official", "--category", cat,
                            "--results", str(f), "--data", args.data, "--per-item", str(per_item),
                            "--format", "json"], stdout=subprocess.DEVNULL)
            mine = {}
            if per_item.exists():
                for line in open(per_item, encoding="utf-8"):
                    if line.strip():
                        x = json.loads(line)
                        mine[x["id"]] = (x["valid"], x.get("error_type"))
            for line in open(work / "official" / "verdicts" / str(rnd) / f"{cat}.jsonl", encoding="utf-8"):
                x = json.loads(line)
                if mine.get(x["id"]) != (x["valid"], x["error_type"]):
                    bad += 1
                    if bad <= 30:
                        print(f"  item differs {cat} r{rnd} {x['id']}: official {(x['valid'], x['error_type'])}"
                              f" itc {mine.get(x['id'])}", file=sys.stderr)
        print(f"per-item (valid, error_type) differences: {bad}")
        result["item_differences"] = bad
        if bad:
            rc = 1
    print(json.dumps(result))
    return rc


if __name__ == "__main__":
    sys.exit(main())
