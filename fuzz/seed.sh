#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from files of the repository:
# model answers of the sample set (datasets/sample), the test fixtures
# (tests/fixtures/catalog), and the OOD copies (datasets/ood: Seal-Tools,
# APIBench, ToolAlpaca; never NexusRaven data). Each corpus stays within a
# few hundred KB. Run from anywhere; writes fuzz/corpus/<target>/ (ignored
# by git; libFuzzer adds what it finds there).
#
#   fuzz/seed.sh            # (re)build every corpus
#   fuzz/seed.sh action     # only some targets
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec python3 - "$here" "$@" <<'PY'
import glob, hashlib, json, os, re, sys

fuzz = sys.argv[1]
root = os.path.dirname(fuzz)
only = set(sys.argv[2:])
LIMIT = 300_000  # bytes per corpus

def path(*p):
    return os.path.join(root, *p)

def jsonl(p):
    with open(path(p), encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]

class Corpus:
    def __init__(self, name):
        self.name, self.size, self.count, self.seen = name, 0, 0, set()
        self.dir = os.path.join(fuzz, "corpus", name)
        os.makedirs(self.dir, exist_ok=True)
    def add(self, data):
        if not isinstance(data, (str, bytes)):
            data = json.dumps(data, ensure_ascii=False)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not data:
            return
        digest = hashlib.sha1(data).hexdigest()
        if digest in self.seen or self.size + len(data) > LIMIT:
            return
        self.seen.add(digest)
        with open(os.path.join(self.dir, digest), "wb") as f:
            f.write(data)
        self.size += len(data)
        self.count += 1
    def done(self):
        print(f"{self.name:22} {self.count:5} seeds {self.size:8} bytes")

def wanted(name):
    return not only or name in only

tasks = jsonl("datasets/sample/tasks.jsonl")
task_index = {t["id"]: i for i, t in enumerate(tasks)}
predictions = []
for p in sorted(glob.glob(path("datasets/sample/predictions/*.jsonl"))):
    predictions += jsonl(os.path.relpath(p, root))
# Interleave the models so each corpus sees every answer style.
predictions.sort(key=lambda r: (r["task_id"], r["model"]))
outputs = [r for r in predictions if r.get("output")]

def action_of(output):
    try:
        v = json.loads(output)
    except ValueError:
        return None
    return v.get("Action") if isinstance(v, dict) and isinstance(v.get("Action"), str) else None

def print_calls(calls):
    """Gold calls in action syntax (JSON literals are valid values)."""
    parts = []
    for c in calls:
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in c.get("arguments", {}).items())
        parts.append(f"{c['name']}({args})")
    return "[" + ", ".join(parts) + "]"

def names(task):
    return "\n".join(t["name"] for t in task["tools"])

if wanted("action"):
    c = Corpus("action")
    for r in outputs:
        a = action_of(r["output"])
        if a:
            c.add(a)
    for t in tasks:
        c.add(print_calls(t["gold"]["calls"]))
    for r in outputs:
        c.add(r["output"])
    c.done()

if wanted("native_calls"):
    c = Corpus("native_calls")
    for r in predictions:
        if r.get("calls"):
            t = tasks[task_index[r["task_id"]]]
            c.add(names(t) + "\x01" + json.dumps(r["calls"], ensure_ascii=False))
            for call in r["calls"]:
                c.add(json.dumps(call.get("arguments", {}), ensure_ascii=False))
    for t in tasks:
        if t["gold"]["calls"]:
            c.add(json.dumps(t["gold"]["calls"], ensure_ascii=False))
    c.done()

if wanted("response"):
    c = Corpus("response")
    for r in outputs:
        c.add(names(tasks[task_index[r["task_id"]]]) + "\x01" + r["output"])
    c.done()

if wanted("score"):
    c = Corpus("score")
    for r in predictions:
        i = task_index[r["task_id"]].to_bytes(2, "little")
        if r.get("output"):
            c.add(i + r["output"].encode())
        if r.get("calls"):
            c.add(i + json.dumps(r["calls"], ensure_ascii=False).encode())
    c.done()

if wanted("judge_scores"):
    c = Corpus("judge_scores")
    for reply in [
        '{"relevance": 5, "clarity": 4, "specificity": 4, "practicality": 5, "language": 5, "total": 4.6}',
        '```json\n{"Relevance": "4/5", "Clarity": "8/10", "Specificity": 4.5, "Practicality": {"score": 4}, "language_appropriateness": 5}\n```',
        'Here is my assessment:\n{"scores": {"relevance": 3, "clarity": 3, "specificity": 2, "practicality": 4, "linguistic applicability": 4}, "overall": 3.2}',
        '[{"dimension": "relevance", "score": 5}, {"dimension": "clarity", "score": 5}, {"dimension": "specificity", "score": 4}, {"dimension": "practicality", "score": 5}, {"dimension": "language", "score": 5}]',
        '{"scores": [{"dimension": "Relevance", "score": "5"}, {"dimension": "Clarity", "score": 4}, {"dimension": "Specificity", "score": 3}, {"dimension": "Practicality", "score": 4}, {"dimension": "Language", "score": 5}]}',
        'Relevance: 4/5\nClarity: 5/5\nSpecificity: 3/5\nPracticality: 4/5\nLanguage: 5/5\nTotal: 4.2',
        '**Relevance** - 4\n**Clarity** - 4\n**Specificity** - 5\n**Practicality** - 3\n**Language** - 4',
        '1. Relevance (4.5)\n2. Clarity (4)\n3. Specificity (4)\n4. Practicality (5)\n5. Linguistic applicability (5)\nOverall score: 4.5',
        '| Dimension | Score | Reason |\n|---|---|---|\n| Relevance | 4 | fits |\n| Clarity | 5 | clear |\n| Specificity | 4 | ok |\n| Practicality | 5 | real |\n| Language | 5 | natural |',
        '| Relevance | Clarity | Specificity | Practicality | Language | Total |\n|---|---|---|---|---|---|\n| 5 | 4 | 4 | 5 | 5 | 4.6 |',
        'Relevance score: 4 out of 5. The query uses 3 APIs.\nClarity rating: 4\nSpecificity = 3\nPracticality: 4\nLanguage: 2',
        '{"relevance": 6, "clarity": 0, "specificity": null, "practicality": "n/a", "language": 5}',
        'The query is good. {"relevance": 5} and later {"relevance": 4, "clarity": 4, "specificity": 4, "practicality": 4, "language": 4}',
        'I cannot rate this.',
    ]:
        c.add(reply)
    c.done()

if wanted("loaders"):
    c = Corpus("loaders")
    task_lines = open(path("datasets/sample/tasks.jsonl"), encoding="utf-8").read().splitlines()
    pred_lines = open(path("datasets/sample/predictions/sloppy-small.jsonl"), encoding="utf-8").read().splitlines()
    pred_lines += open(path("datasets/sample/predictions/function-caller.jsonl"), encoding="utf-8").read().splitlines()
    c.add("\ufeff" + task_lines[0] + "\r\n\r\n" + task_lines[1] + "\n")
    c.add(pred_lines[0] + "\n{\"task_id\": 1}\n\n" + pred_lines[1])
    c.add(task_lines[2] + "\n" + task_lines[3][: len(task_lines[3]) // 2] + "\n")
    for i in range(0, len(pred_lines), 6):
        c.add("\n".join(pred_lines[i : i + 3]) + "\n")
    for line in task_lines[::3]:
        c.add(line + "\n")
    c.done()

def chunks(items, n):
    return [items[i : i + n] for i in range(0, len(items), n)]

if wanted("catalog_itc"):
    c = Corpus("catalog_itc")
    lines = open(path("tests/fixtures/catalog/itc-tools.jsonl"), encoding="utf-8").read().splitlines()
    c.add("\n".join(lines) + "\n")
    c.add(json.dumps([json.loads(l) for l in lines], ensure_ascii=False, indent=1))
    for t in tasks[::8]:
        c.add("\n".join(json.dumps(x, ensure_ascii=False) for x in t["tools"]) + "\n")
    c.done()

if wanted("catalog_toolbench"):
    c = Corpus("catalog_toolbench")
    queries = json.load(open(path("tests/fixtures/catalog/toolbench-G1_query.json"), encoding="utf-8"))
    c.add(json.dumps(queries, ensure_ascii=False))
    for q in queries:
        c.add(json.dumps([q], ensure_ascii=False, indent=2))
    c.done()

if wanted("catalog_openapi"):
    c = Corpus("catalog_openapi")
    c.add(open(path("tests/fixtures/catalog/openapi-weather-jp.json"), encoding="utf-8").read())
    c.add("openapi: 3.0.0\ninfo:\n  title: Holidays\n  version: '1'\nservers:\n  - url: https://date.nager.at\n"
          "paths:\n  /api/v3/PublicHolidays/{year}/{countryCode}:\n    get:\n      operationId: publicHolidays\n"
          "      summary: Public holidays of a country\n      parameters:\n        - name: year\n          in: path\n"
          "          required: true\n          schema: {type: integer}\n        - name: countryCode\n          in: path\n"
          "          required: true\n          schema:\n            type: string\n")
    for p in ["datasets/ood/toolalpaca/eval_simulated.json", "tests/fixtures/catalog/toolalpaca-eval_simulated.json"]:
        for api in json.load(open(path(p), encoding="utf-8")):
            if isinstance(api.get("Documentation"), str):
                c.add(api["Documentation"])
    c.done()

if wanted("catalog_public_apis"):
    c = Corpus("catalog_public_apis")
    c.add(open(path("tests/fixtures/catalog/public-apis-README.md"), encoding="utf-8").read())
    text = open(path("datasets/catalog/public-apis-README.md"), encoding="utf-8").read()
    for section in re.split(r"\n(?=### )", text)[1::4]:
        c.add(section[:6000])
    c.done()

if wanted("catalog_seal_tools"):
    c = Corpus("catalog_seal_tools")
    lines = open(path("tests/fixtures/catalog/seal-tools-tool.jsonl"), encoding="utf-8").read().splitlines()
    for group in chunks(lines, 4):
        c.add("\n".join(group) + "\n")
    c.done()

if wanted("catalog_toolalpaca"):
    c = Corpus("catalog_toolalpaca")
    c.add(open(path("tests/fixtures/catalog/toolalpaca-public_apis.json"), encoding="utf-8").read())
    pub = json.load(open(path("tests/fixtures/catalog/toolalpaca-public_apis.json"), encoding="utf-8"))
    for k, v in pub.items():
        c.add(json.dumps({k: v}, ensure_ascii=False))
    for api in json.load(open(path("tests/fixtures/catalog/toolalpaca-eval_simulated.json"), encoding="utf-8")):
        c.add(json.dumps([api], ensure_ascii=False))
    for api in json.load(open(path("datasets/ood/toolalpaca/eval_simulated.json"), encoding="utf-8"))[:4]:
        c.add(json.dumps([api], ensure_ascii=False))
    c.done()

if wanted("python_literal"):
    c = Corpus("python_literal")
    for r in jsonl("datasets/ood/seal-tools/reference/test_in_domain_mixed.raw.jsonl")[:150]:
        c.add(r["output"])
    for r in jsonl("datasets/ood/seal-tools/reference/test_in_domain_goldjson.raw.jsonl")[:40]:
        c.add(r["output"])
    gold = json.load(open(path("datasets/ood/seal-tools/test_in_domain.json"), encoding="utf-8"))
    for r in gold[::35]:
        c.add(r["conversations"])
    c.done()

if wanted("bfcl_decode"):
    # BFCL reference answers (every kind and framing) and the probes.
    c = Corpus("bfcl_decode")
    for cat in ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]:
        for r in jsonl(f"datasets/ood/bfcl/reference/answers/{cat}.jsonl")[::7]:
            c.add(r["answer"])
    for r in jsonl("datasets/ood/bfcl/reference/probes.jsonl"):
        c.add(r["answer"])
    for extra in ["[f(a=1 + 2, b=10/4, c='a'*2, d=[1]+[2], e=-7//2, f=2**-1)]",
                  "[f(a=g(1,2), b=x[1:2, ::3], c=lambda x, *a, k=1, **kw: x)]",
                  "[f(f'{x!r:>{w}}', a=not True, b=~3, c={1: 2, True: 3})]"]:
        c.add(extra)
    c.done()

if wanted("python_tree"):
    c = Corpus("python_tree")
    for hub in ["torchhub", "tensorflowhub", "huggingface"]:
        p = path(f"datasets/ood/gorilla/responses/{hub}/response_{hub}_Gorilla_FT_0_shot.jsonl")
        for r in jsonl(os.path.relpath(p, root))[:40]:
            c.add(r["text"])
    for hub in ["torchhub", "tensorflow", "huggingface"]:
        for r in jsonl(f"datasets/ood/gorilla/apibench/{hub}_eval.json")[:20]:
            c.add(r["api_call"])
            c.add(r["api_data"].get("example_code", "") if isinstance(r.get("api_data"), dict) else "")
    c.done()

if wanted("batch_results"):
    c = Corpus("batch_results")
    def cid(n, model="qwen2_5_7b", step=1):
        return f"{model}--itc-{n:04}--s{step}--{n * 2654435761 % 2**64:016x}"
    answers = [p for p in predictions if isinstance(p.get("output"), str)][:24]
    openai = []
    anthropic = []
    for n, p in enumerate(answers):
        body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": p["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": p["output"]}}],
                "usage": {"prompt_tokens": 100 + n, "completion_tokens": 20, "total_tokens": 120 + n}}
        openai.append({"id": f"batch_req_{n}", "custom_id": cid(n), "response": {"status_code": 200, "request_id": f"r{n}", "body": body}, "error": None})
        anthropic.append({"custom_id": cid(n, "claude"), "result": {"type": "succeeded", "message": {
            "id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": p["output"]}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 100 + n, "output_tokens": 20}}}})
    errors = [
        {"id": "b1", "custom_id": cid(90), "response": {"status_code": 429, "body": {"error": {"message": "slow down"}}}, "error": None},
        {"id": "b2", "custom_id": cid(91), "response": {"status_code": 503, "body": "busy"}, "error": None},
        {"id": "b3", "custom_id": cid(92), "response": None, "error": {"code": "batch_expired", "message": "not run in 24h"}},
        {"custom_id": cid(93, "claude"), "result": {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}}},
        {"custom_id": cid(94, "claude"), "result": {"type": "expired"}},
        {"custom_id": cid(95, "claude"), "result": {"type": "canceled"}},
    ]
    lines = lambda rows: "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    for group in chunks(openai, 4):
        c.add(lines(group))
    for group in chunks(anthropic, 4):
        c.add(lines(group))
    c.add(lines(errors))
    c.add(lines([openai[0], errors[0], openai[0], anthropic[1]]))
    c.add("\ufeff" + lines(openai[:2]).replace("\n", "\r\n") + "\n\n")
    c.add(lines(openai[:1]) + lines(openai[1:2])[:-40])
    c.done()
PY
