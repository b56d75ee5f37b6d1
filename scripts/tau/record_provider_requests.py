#!/usr/bin/env python3
"""Records the requests the official τ³-bench harness sends to Anthropic
and Gemini models, through litellm, for the conversations of a few retail
reference trajectories; and writes what of litellm a run needs to send
the same: the output limit litellm gives each Claude model and the retail
tools as litellm hands them to each provider.

    PYTHON scripts/tau/record_provider_requests.py \
        [--trajectories datasets/ood/tau/retail/reference/trajectories.jsonl.gz] \
        [--tasks datasets/ood/tau/retail/tasks.json] \
        [--out datasets/ood/tau/retail/reference/provider_requests.jsonl.gz] \
        [--litellm-out datasets/ood/tau/litellm.json]

PYTHON is an interpreter where `tau2` (sierra-research/tau2-bench at
commit a2c0247, with the versions its uv.lock pins: litellm 1.81.11)
imports; see docs/tau.md. Nothing of the official code is changed: the
agent and the user simulator are built by `tau2.runner.build` as a run
builds them, and each request is made by the official
`tau2.utils.llm_utils.generate` (which calls `litellm.completion`) with
`api_base` pointing at a loopback server that records the request and
answers "ok". For every place in a trajectory where the orchestrator asks
the agent (before each of its messages) or the user simulator (before each
user message), one line per provider:

    {"trajectory", "party", "provider", "model", "index", "messages",
     "tools", "kwargs", "method", "path", "body"}

`messages` are the litellm messages `generate` hands to litellm (the
system message first), `body` the JSON body the provider received.

`--litellm-out` gets `{litellm, anthropic_default_max_tokens,
anthropic_max_tokens, tools}`. Anthropic requires an output limit: when
the caller sets none, litellm's `AnthropicConfig.get_max_tokens_for_model`
takes the model map's `max_output_tokens` (else `max_tokens`) of the model
id, or `DEFAULT_ANTHROPIC_CHAT_MAX_TOKENS` for a model the map lacks. The
map is the one bundled with litellm (LITELLM_LOCAL_MODEL_COST_MAP=True);
every key holding "claude" is kept. `tools` holds, per provider, the
retail tools as the recorded agent requests carry them (litellm drops
some schema fields, differently per provider).
No non-loopback connection is allowed.
"""
import argparse
import gzip
import importlib.metadata
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import loopback_only  # noqa: E402,F401 (refuses the network; first)

import litellm  # noqa: E402
from litellm.constants import DEFAULT_ANTHROPIC_CHAT_MAX_TOKENS  # noqa: E402
from loguru import logger  # noqa: E402

from tau2.data_model.message import AssistantMessage, SystemMessage  # noqa: E402
from tau2.data_model.simulation import SimulationRun  # noqa: E402
from tau2.data_model.tasks import Task  # noqa: E402
from tau2.domains.retail.environment import get_environment  # noqa: E402
from tau2.runner.build import build_agent, build_user  # noqa: E402
from tau2.user.user_simulator_base import UserState  # noqa: E402
from tau2.utils.llm_utils import generate, to_litellm_messages  # noqa: E402

logger.remove()

ROOT = Path(__file__).resolve().parents[2] / "datasets/ood/tau/retail"

# The trajectories recorded: (task, kind). Together they hold single and
# parallel tool calls, tool errors, an unknown tool and the stop tokens.
CHOSEN = [
    ("0", "gold"),
    ("0", "parallel_reads"),
    ("1", "unknown_tool"),
    ("2", "stop_token_variant"),
    ("5", "nine_errors"),
]

# The models asked: each provider's litellm route for every trajectory,
# and on the first trajectory Anthropic models whose output limit
# litellm's model map gives otherwise (or, unknown to it, its default) and
# another Gemini model. Gemini 3 models are left out: litellm adds a
# `thinkingConfig` and dummy thought signatures for them (docs/tau.md).
MODELS = [
    ("anthropic", "anthropic/claude-3-5-sonnet-latest"),
    ("gemini", "gemini/gemini-2.0-flash"),
]
FIRST_ONLY = [
    ("anthropic", "anthropic/claude-sonnet-4-20250514"),
    ("anthropic", "anthropic/claude-itc-unknown"),
    ("gemini", "gemini/gemini-2.5-flash"),
]

REPLIES = {
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "recorded",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "gemini": {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "ok"}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 1,
            "candidatesTokenCount": 1,
            "totalTokenCount": 2,
        },
    },
}


class Recorder(BaseHTTPRequestHandler):
    recorded = []
    reply = {}

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        body = self.rfile.read(length)
        Recorder.recorded.append(
            {"method": "POST", "path": self.path, "body": json.loads(body)}
        )
        out = json.dumps(Recorder.reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def asked(messages):
    """Where the orchestrator asks each party: (index, party, the party's
    history before that message)."""
    for i, message in enumerate(messages):
        if i == 0:
            continue  # the fixed greeting
        if message.role == "assistant":
            yield i, "agent", messages[:i]
        elif message.role == "user":
            seen = [
                m
                for m in messages[:i]
                if m.role == "user"
                or (isinstance(m, AssistantMessage) and not m.is_tool_call())
            ]
            yield i, "user", seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--trajectories", default=ROOT / "reference/trajectories.jsonl.gz", type=Path
    )
    parser.add_argument("--tasks", default=ROOT / "tasks.json", type=Path)
    parser.add_argument(
        "--out", default=ROOT / "reference/provider_requests.jsonl.gz", type=Path
    )
    parser.add_argument(
        "--litellm-out", default=ROOT.parent / "litellm.json", type=Path
    )
    args = parser.parse_args()

    tasks = {t["id"]: Task.model_validate(t) for t in json.loads(args.tasks.read_text())}
    with gzip.open(args.trajectories, "rt") as f:
        lines = [json.loads(line) for line in f]
    chosen = {
        (line["task_id"], line["kind"]): line
        for line in lines
        if (line["task_id"], line["kind"]) in CHOSEN
    }

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    out = []
    for n, key in enumerate(CHOSEN):
        line = chosen[key]
        simulation = SimulationRun.model_validate(line["simulation"])
        task = tasks[line["task_id"]]
        seed = 626729
        for provider, model in MODELS + (FIRST_ONLY if n == 0 else []):
            kwargs = {"temperature": 0.0, "seed": seed, "api_base": base, "api_key": "recorded-key", "num_retries": 0}
            environment = get_environment()
            agent = build_agent("llm_agent", environment, task=task, llm=model, llm_args={"temperature": 0.0})
            user = build_user("user_simulator", environment, task, llm=model, llm_args={"temperature": 0.0})
            for index, party, history in asked(simulation.messages):
                if party == "agent":
                    messages = [SystemMessage(role="system", content=agent.system_prompt)] + history
                    tools = agent.tools
                else:
                    state = UserState(
                        system_messages=[SystemMessage(role="system", content=user.system_prompt)],
                        messages=history,
                    )
                    messages = state.system_messages + state.flip_roles()
                    tools = user.tools
                Recorder.reply = REPLIES[provider]
                Recorder.recorded.clear()
                generate(model=model, messages=messages, tools=tools, call_name=party, **kwargs)
                (request,) = Recorder.recorded
                out.append(
                    {
                        "trajectory": f"{key[0]}:{key[1]}",
                        "party": party,
                        "provider": provider,
                        "model": model,
                        "index": index,
                        "messages": to_litellm_messages(messages),
                        "tools": [t.openai_schema for t in tools] if tools else None,
                        "kwargs": {"temperature": 0.0, "seed": seed},
                        **request,
                    }
                )
    with gzip.GzipFile(args.out, "wb", mtime=0) as f:
        for record in out:
            f.write((json.dumps(record, ensure_ascii=False) + "\n").encode())
    write_litellm(args.litellm_out, out)
    print(json.dumps({"requests": len(out), "out": str(args.out)}))


def write_litellm(path, recorded):
    limits = {}
    for model, info in sorted(litellm.model_cost.items()):
        limit = info.get("max_output_tokens", info.get("max_tokens"))
        if "claude" in model and isinstance(limit, int):
            limits[model] = limit
    tools = {}
    for provider, field in [("anthropic", "tools"), ("gemini", "tools")]:
        lists = {
            json.dumps(r["body"][field])
            for r in recorded
            if r["provider"] == provider and r["party"] == "agent"
        }
        (only,) = lists  # the same in every request
        tools[provider] = json.loads(only)
    document = {
        "litellm": importlib.metadata.version("litellm"),
        "anthropic_default_max_tokens": DEFAULT_ANTHROPIC_CHAT_MAX_TOKENS,
        "anthropic_max_tokens": limits,
        "tools": {"retail": tools},
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
