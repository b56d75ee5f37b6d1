#!/usr/bin/env python3
"""Check the sample files against SPEC section 0 and the sample's own rules.

    python3 datasets/scripts/check_sample.py

Reads only the written files (not the build scripts). Exits non-zero on the
first group of problems and prints them.
"""
import glob
import json
import os
import re
import sys

SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample")
KINDS = {"single", "repeated", "parallel", "nested", "no_tool"}
TYPES = {"string", "integer", "number", "boolean", "array"}
problems = []


def bad(msg):
    problems.append(msg)


def load_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except ValueError as e:
                bad("%s:%d does not parse: %s" % (path, n, e))
    return out


def refs_in(v):
    if isinstance(v, dict):
        if set(v) == {"$ref"}:
            yield v["$ref"]
        else:
            for x in v.values():
                yield from refs_in(x)
    elif isinstance(v, list):
        for x in v:
            yield from refs_in(x)


# --- APIs ------------------------------------------------------------------
apis = json.load(open(os.path.join(SAMPLE, "apis.json"), encoding="utf-8"))
by_name = {}
for a in apis:
    for k in ("name", "description", "category", "country", "method", "url",
              "required_parameters", "optional_parameters"):
        if k not in a:
            bad("API %s lacks %s" % (a.get("name"), k))
    if a["name"] in by_name:
        bad("API name %s twice" % a["name"])
    by_name[a["name"]] = a
    if not re.fullmatch(r"[A-Z]{2}|GLOBAL", a["country"]):
        bad("API %s country %s" % (a["name"], a["country"]))
    for p in a["required_parameters"] + a["optional_parameters"]:
        if set(p) - {"name", "type", "description", "default"} or p["type"] not in TYPES:
            bad("API %s parameter %s" % (a["name"], p))
if len(apis) < 64:
    bad("only %d APIs" % len(apis))

# --- tasks -----------------------------------------------------------------
tasks = load_jsonl(os.path.join(SAMPLE, "tasks.jsonl"))
ids = set()
for t in tasks:
    tid = t.get("id")
    for k in ("id", "kind", "language", "country", "category", "query", "tools", "gold"):
        if k not in t:
            bad("%s lacks %s" % (tid, k))
    if tid in ids:
        bad("task id %s twice" % tid)
    ids.add(tid)
    if not re.fullmatch(r"itc-\d{4}", tid):
        bad("task id %s" % tid)
    if t["kind"] not in KINDS:
        bad("%s kind %s" % (tid, t["kind"]))
    if not re.fullmatch(r"[a-z]{2}", t["language"]):
        bad("%s language %s" % (tid, t["language"]))
    names = [x["name"] for x in t["tools"]]
    if len(names) != len(set(names)):
        bad("%s: tool names not unique" % tid)
    for x in t["tools"]:
        if by_name.get(x["name"]) != x:
            bad("%s: tool %s differs from apis.json" % (tid, x["name"]))
    tools = {x["name"]: x for x in t["tools"]}
    calls = t["gold"]["calls"]
    if not isinstance(t["gold"].get("thought"), str) or not t["gold"]["thought"]:
        bad("%s: no gold thought" % tid)
    gold_names = {c["name"] for c in calls}
    if calls and not 2 <= len(names) - len(gold_names) <= 4:
        bad("%s: %d confusers" % (tid, len(names) - len(gold_names)))
    if (t["kind"] == "no_tool") != (not calls):
        bad("%s: kind %s with %d calls" % (tid, t["kind"], len(calls)))
    for i, c in enumerate(calls):
        if c["name"] not in tools:
            bad("%s: gold call %s not among tools" % (tid, c["name"]))
            continue
        for p in tools[c["name"]]["required_parameters"]:
            if p["name"] not in c["arguments"]:
                bad("%s: call %d lacks required %s" % (tid, i, p["name"]))
        for r in refs_in(c["arguments"]):
            m = re.fullmatch(r"(\d+)\.(.+)", r)
            if not m or int(m.group(1)) >= i:
                bad("%s: call %d has bad $ref %r" % (tid, i, r))
    if t["kind"] == "nested" and not any(True for c in calls for _ in refs_in(c["arguments"])):
        bad("%s: nested without $ref" % tid)
    if t["kind"] != "nested" and any(True for c in calls for _ in refs_in(c["arguments"])):
        bad("%s: $ref in a %s task" % (tid, t["kind"]))
    if "turns" in t:
        flat = [c["name"] for turn in t["turns"] for c in turn["calls"]]
        if sorted(flat) != sorted(c["name"] for c in calls):
            bad("%s: turns do not hold the gold calls" % tid)
for k in KINDS:
    n = sum(1 for t in tasks if t["kind"] == k)
    if n < 25:
        bad("only %d %s tasks" % (n, k))

# --- optional: gold thoughts in the task's language (whatlang) ----------------
# Runs only where the PyPI package pywhatlang (Python bindings of the whatlang
# crate the harness uses; 1.3.0 wraps whatlang 0.16) is installed. Quoted
# literals, call syntax and URLs are removed first, as SPEC section 3 says.
try:
    import pywhatlang
except ImportError:
    pywhatlang = None
if pywhatlang is not None:
    ISO3 = {"eng": "en", "cmn": "zh", "jpn": "ja", "kor": "ko", "ara": "ar", "rus": "ru", "hin": "hi",
            "deu": "de", "fra": "fr", "spa": "es", "ita": "it", "por": "pt", "tur": "tr"}
    for t in tasks:
        text = re.sub(r'"[^"]*"|\'[^\']*\'|«[^»]*»|“[^”]*”|„[^“]*“|「[^」]*」', " ", t["gold"]["thought"])
        text = re.sub(r"https?://\S+|\S*[_/.]\S*\(.*?\)", " ", text)
        try:
            got = pywhatlang.detect_lang(text)
        except BaseException:
            got = None
        if not got or ISO3.get(got[0]) != t["language"]:
            bad("%s: gold thought detected as %s, not %s" % (t["id"], got and got[0], t["language"]))

# --- predictions -------------------------------------------------------------
for path in sorted(glob.glob(os.path.join(SAMPLE, "predictions", "*.jsonl"))):
    preds = load_jsonl(path)
    models = {p.get("model") for p in preds}
    if len(models) != 1:
        bad("%s: models %s" % (path, models))
    seen = set()
    for p in preds:
        for k in ("task_id", "model", "output", "calls", "error", "latency_ms", "usage"):
            if k not in p:
                bad("%s: %s lacks %s" % (path, p.get("task_id"), k))
        if p["task_id"] not in ids:
            bad("%s: unknown task %s" % (path, p["task_id"]))
        if p["task_id"] in seen:
            bad("%s: %s twice" % (path, p["task_id"]))
        seen.add(p["task_id"])
        if p["error"] is not None and (p["output"] is not None or p["calls"] is not None):
            bad("%s: %s error record with an answer" % (path, p["task_id"]))
        if p["error"] is None and p["output"] is None and p["calls"] is None:
            bad("%s: %s has neither output nor calls" % (path, p["task_id"]))
        if p["calls"] is not None:
            for c in p["calls"]:
                if set(c) != {"name", "arguments"} or not isinstance(c["arguments"], dict):
                    bad("%s: %s native call %r" % (path, p["task_id"], c))
        u = p["usage"]
        if not (isinstance(p["latency_ms"], int) and isinstance(u.get("prompt_tokens"), int)
                and isinstance(u.get("completion_tokens"), int)):
            bad("%s: %s latency/usage" % (path, p["task_id"]))
    if len(ids - seen) > 3:
        bad("%s misses %d tasks" % (path, len(ids - seen)))

if problems:
    print("\n".join(problems))
    sys.exit("%d problems" % len(problems))
print("ok: %d APIs, %d tasks, %d prediction files%s" % (
    len(apis), len(tasks), len(glob.glob(os.path.join(SAMPLE, "predictions", "*.jsonl"))),
    "" if pywhatlang is None else "; gold thoughts in the task language (whatlang)"))
