#!/usr/bin/env python3
"""Writes the 2,141 retail reference trajectories as one results file in
the shape the official harness saves (`Results.save`: `{timestamp, info,
tasks, simulations}`), for `itc ood score tau --compat official`.

    python3 scripts/tau/reference_results.py [OUT] \
        [--trajectories datasets/ood/tau/retail/reference/trajectories.jsonl.gz] \
        [--tasks datasets/ood/tau/retail/tasks.json]
    python3 scripts/tau/reference_results.py --check PER_ITEM

OUT defaults to /work/scratch/tau-reference-results.json. Standard library
only. `info` has the fields `tau2.data_model.simulation.Info` requires
(`num_trials` 1, `environment_info.domain_name` "retail", `policy` the
retail policy when it is beside the tasks); `tasks` is the official
`tasks.json`; each simulation is the line's `simulation` (ids
`<task>:<kind>`, unique) with `trial` 0, `seed` null and the reference's
official `reward_info` (null where the evaluator raised), which itc never
reads. Data in the same order as the trajectories.

`--check PER_ITEM` instead compares the lines `itc ood score tau
--per-item` wrote for that file with the reference: counts the agreements
of `reward` and of `status` (`reward_status`), and of `reward_without_nl`
on the runs the evaluator checked (not cut short); exits 1 on a
disagreement.
"""
import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "datasets/ood/tau/retail"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "out", nargs="?", default="/work/scratch/tau-reference-results.json", type=Path
    )
    parser.add_argument(
        "--trajectories", default=ROOT / "reference/trajectories.jsonl.gz", type=Path
    )
    parser.add_argument("--tasks", default=ROOT / "tasks.json", type=Path)
    parser.add_argument("--check", type=Path, metavar="PER_ITEM")
    args = parser.parse_args()

    with gzip.open(args.trajectories, "rt") as f:
        lines = [json.loads(line) for line in f]
    if args.check:
        check(lines, args.check)
        return
    tasks = json.loads(args.tasks.read_text())
    policy = args.tasks.parent / "policy.md"
    simulations = []
    for line in lines:
        sim = dict(line["simulation"])
        sim["trial"] = 0
        sim["seed"] = None
        sim["reward_info"] = line["reward_info"]
        simulations.append(sim)
    ids = [s["id"] for s in simulations]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{args.trajectories}: simulation ids are not unique")
    results = {
        "timestamp": "2025-01-01T00:00:00.000000",
        "info": {
            "git_commit": "a2c024725189473d2d7cea3a5cfdbcc67478e41f",
            "num_trials": 1,
            "max_steps": 200,
            "max_errors": 10,
            "user_info": {"implementation": "scripted"},
            "agent_info": {"implementation": "scripted"},
            "environment_info": {
                "domain_name": "retail",
                "policy": policy.read_text() if policy.exists() else "",
            },
            "seed": None,
        },
        "tasks": tasks,
        "simulations": simulations,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"{args.out}: {len(simulations)} simulations, {len(tasks)} tasks")


def check(lines, per_item):
    verdicts = {}
    for n, text in enumerate(per_item.read_text().splitlines(), 1):
        v = json.loads(text)
        verdicts[v["id"]] = (n, v)
    counts = {"reference": len(lines), "per_item": len(verdicts), "missing": 0,
              "reward": 0, "status": 0, "reward_without_nl": 0, "checked_runs": 0}
    for line in lines:
        found = verdicts.get(line["simulation"]["id"])
        if found is None:
            counts["missing"] += 1
            continue
        n, v = found
        counts["reward"] += v["reward"] == line["reward"]
        counts["status"] += v["status"] == line["reward_status"]
        if line["termination_reason"] in ("user_stop", "agent_stop"):
            counts["checked_runs"] += 1
            counts["reward_without_nl"] += v["reward_without_nl"] == line["reward_without_nl"]
        if v["reward"] != line["reward"] or v["status"] != line["reward_status"]:
            print(f"{per_item}:{n}: {v['id']}: itc {v['reward']} {v['status']}, "
                  f"reference {line['reward']} {line['reward_status']}", file=sys.stderr)
    print(json.dumps(counts))
    ok = counts["reward"] == counts["status"] == len(lines) == len(verdicts)
    sys.exit(0 if ok and counts["reward_without_nl"] == counts["checked_runs"] else 1)


if __name__ == "__main__":
    main()
