#!/usr/bin/env python3
"""Times the unmodified official τ³-bench evaluator rewarding the 2,141
retail reference trajectories, and checks every reward against the
reference's.

    taskset -c 1 PYTHON scripts/tau/time_official_evaluator.py \
        [--trajectories datasets/ood/tau/retail/reference/trajectories.jsonl.gz] \
        [--tasks datasets/ood/tau/retail/tasks.json] [--every N]

PYTHON is an interpreter where `tau2` (sierra-research/tau2-bench at
commit a2c0247, with the versions its uv.lock pins) imports; see
docs/tau.md, "Speed". Each line's `simulation` is parsed with
`SimulationRun.model_validate` and scored with
`evaluate_simulation(simulation, task, <the line's evaluation_type>,
solo_mode=False, domain="retail", mode=HALF_DUPLEX, env_kwargs=None)`,
as the reference was made (its README). Loguru logs as the official batch
runner sets it up (`print` at level ERROR). Guards only, as for the
reference: litellm's local price map (no download at import), no
non-loopback socket, and the LLM call replaced by one that raises (it must
be reached 0 times: no NL judge is asked).

Prints one JSON line: the seconds of the evaluation loop alone (parsing
excluded), of loading (imports, reading, parsing) and in total, the counts,
and the mismatches (0 expected: `reward_info.reward` equal to the
reference's, an exception exactly where the reference has
`evaluator_exception`). Exits 1 on any mismatch.
"""
import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import loopback_only  # noqa: E402,F401 (refuses the network; first)

from loguru import logger  # noqa: E402

import tau2.utils.llm_utils as llm_utils  # noqa: E402
from tau2.data_model.simulation import SimulationRun  # noqa: E402
from tau2.data_model.tasks import Task  # noqa: E402
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation  # noqa: E402
from tau2.orchestrator.modes import CommunicationMode  # noqa: E402

LLM_CALLS = 0


def _no_llm(*args, **kwargs):
    global LLM_CALLS
    LLM_CALLS += 1
    raise RuntimeError("an LLM call was reached: no NL judge may be asked here")


llm_utils.completion = _no_llm
logger.remove()
logger.add(lambda msg: print(msg), level="ERROR")

ROOT = Path(__file__).resolve().parents[2] / "datasets/ood/tau/retail"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--trajectories", default=ROOT / "reference/trajectories.jsonl.gz", type=Path
    )
    parser.add_argument("--tasks", default=ROOT / "tasks.json", type=Path)
    parser.add_argument(
        "--every", default=1, type=int, help="only every N-th trajectory (a quick check)"
    )
    args = parser.parse_args()

    with gzip.open(args.trajectories, "rt") as f:
        lines = [json.loads(line) for line in f][:: args.every]
    tasks = {
        t["id"]: Task.model_validate(t) for t in json.loads(args.tasks.read_text())
    }
    runs = [
        (
            SimulationRun.model_validate(line["simulation"]),
            tasks[line["task_id"]],
            EvaluationType(line["evaluation_type"]),
        )
        for line in lines
    ]
    loaded = time.perf_counter()

    outcomes = []
    for simulation, task, evaluation_type in runs:
        try:
            info = evaluate_simulation(
                simulation,
                task,
                evaluation_type,
                solo_mode=False,
                domain="retail",
                mode=CommunicationMode.HALF_DUPLEX,
                env_kwargs=None,
            )
            outcomes.append(("ok", info))
        except Exception as e:  # the reference records these (tampered outputs)
            outcomes.append(("raised", type(e).__name__))
    evaluated = time.perf_counter()

    mismatches = []
    same_reward_info = 0
    raised = 0
    for line, (kind, info) in zip(lines, outcomes):
        expected_raise = line["evaluator_exception"] is not None
        if kind == "raised":
            raised += 1
            if not expected_raise:
                mismatches.append((line["simulation"]["id"], "raised", info))
            continue
        if expected_raise:
            mismatches.append((line["simulation"]["id"], "did not raise", info.reward))
        elif info.reward != line["reward_info"]["reward"]:
            mismatches.append(
                (line["simulation"]["id"], info.reward, line["reward_info"]["reward"])
            )
        elif info.model_dump(mode="json") == line["reward_info"]:
            same_reward_info += 1

    print(
        json.dumps(
            {
                "trajectories": len(lines),
                "evaluation_loop_s": round(evaluated - loaded, 3),
                "loading_s": round(loaded - STARTED, 3),
                "total_s": round(time.perf_counter() - STARTED, 3),
                "raised": raised,
                "reward_mismatches": len(mismatches),
                "reward_info_equal": same_reward_info,
                "llm_calls": LLM_CALLS,
                "python": sys.version.split()[0],
            }
        )
    )
    for m in mismatches[:20]:
        print("mismatch:", m, file=sys.stderr)
    sys.exit(1 if mismatches or LLM_CALLS else 0)


if __name__ == "__main__":
    main()
