#!/usr/bin/env python3
"""Count what is in the sample and print it as Markdown tables.

    python3 datasets/scripts/sample_stats.py            # print
    python3 datasets/scripts/sample_stats.py --write    # also refresh datasets/README.md

With --write, the text between the markers <!-- stats:begin --> and
<!-- stats:end --> in datasets/README.md is replaced by the tables, so the
numbers in the README are always the computed ones.
"""
import collections
import csv
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "sample")
KINDS = ["single", "repeated", "parallel", "nested", "no_tool"]


def table(header, rows):
    out = ["| " + " | ".join(str(h) for h in header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def counts(title, counter, key_name):
    rows = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return "%s\n\n%s\n" % (title, table([key_name, "count"], rows + [("**total**", sum(counter.values()))]))


def main():
    apis = json.load(open(os.path.join(SAMPLE, "apis.json"), encoding="utf-8"))
    tasks = [json.loads(l) for l in open(os.path.join(SAMPLE, "tasks.jsonl"), encoding="utf-8")]
    parts = []

    # files
    rows = []
    for path in [os.path.join(SAMPLE, "apis.json"), os.path.join(SAMPLE, "tasks.jsonl")] + \
            sorted(glob.glob(os.path.join(SAMPLE, "predictions", "*.jsonl"))) + \
            [os.path.join(SAMPLE, "prediction_styles.tsv")]:
        n = len(apis) if path.endswith(".json") else sum(1 for _ in open(path, encoding="utf-8"))
        rows.append(("`%s`" % os.path.relpath(path, ROOT), n, os.path.getsize(path)))
    parts.append("### Files\n\n" + table(["file", "records (lines; APIs for apis.json)", "bytes"], rows) + "\n")

    # APIs
    parts.append("### APIs (`apis.json`): %d\n" % len(apis))
    parts.append(counts("By country:", collections.Counter(a["country"] for a in apis), "country"))
    parts.append(counts("By category:", collections.Counter(a["category"] for a in apis), "category"))
    odd = [a["name"] for a in apis if re.search(r"[ ./]", a["name"]) or not a["name"].isascii()]
    parts.append("Names with spaces, dots, slashes or non-Latin script (%d): %s\n"
                 % (len(odd), ", ".join("`%s`" % n for n in odd)))
    n_params = collections.Counter(p["type"] for a in apis for p in a["required_parameters"] + a["optional_parameters"])
    parts.append("Parameter types: %s.\n" % ", ".join("%s %d" % kv for kv in n_params.most_common()))

    # tasks
    parts.append("### Tasks (`tasks.jsonl`): %d\n" % len(tasks))
    parts.append(counts("By kind:", collections.Counter(t["kind"] for t in tasks), "kind"))
    langs = collections.Counter(t["language"] for t in tasks)
    parts.append(counts("By language:", langs, "language"))
    parts.append(counts("By country:", collections.Counter(t["country"] for t in tasks), "country"))
    parts.append(counts("By category:", collections.Counter(t["category"] for t in tasks), "category"))
    grid = collections.Counter((t["language"], t["kind"]) for t in tasks)
    rows = [[l] + [grid[(l, k)] for k in KINDS] + [langs[l]] for l, _ in langs.most_common()]
    rows.append(["**total**"] + [sum(grid[(l, k)] for l in langs) for k in KINDS] + [len(tasks)])
    parts.append("Kind by language:\n\n" + table(["language"] + KINDS + ["total"], rows) + "\n")

    size = collections.Counter(len(t["tools"]) for t in tasks)
    parts.append("Candidate list size (tools shown per task): %s; mean %.2f.\n" % (
        ", ".join("%d tools: %d tasks" % kv for kv in sorted(size.items())),
        sum(len(t["tools"]) for t in tasks) / len(tasks)))
    conf = collections.Counter(len(t["tools"]) - len({c["name"] for c in t["gold"]["calls"]})
                               for t in tasks if t["gold"]["calls"])
    parts.append("Confusers per task with gold calls: %s.\n" % ", ".join(
        "%d: %d tasks" % kv for kv in sorted(conf.items())))
    ncalls = collections.Counter((t["kind"], len(t["gold"]["calls"])) for t in tasks)
    parts.append("Gold calls per task: %s.\n" % "; ".join(
        "%s %s" % (k, ", ".join("%d calls: %d" % (n, c) for (kk, n), c in sorted(ncalls.items()) if kk == k))
        for k in KINDS))
    nested = [t for t in tasks if t["kind"] == "nested"]
    nrefs = sum(1 for t in nested for c in t["gold"]["calls"] for v in c["arguments"].values()
                if isinstance(v, dict) and "$ref" in v)
    parts.append("Nested tasks: %d, with %d `$ref` values in all; %d carry `turns` (%s).\n" % (
        len(nested), nrefs, sum(1 for t in nested if "turns" in t),
        ", ".join("%d turns: %d" % kv for kv in sorted(collections.Counter(len(t.get("turns", [])) for t in nested).items()))))
    zero = sum(1 for t in tasks for c in t["gold"]["calls"] if not c["arguments"])
    parts.append("Gold calls without arguments: %d. Tasks whose gold uses a tool with a non-ASCII name: %d.\n" % (
        zero, sum(1 for t in tasks if any(not c["name"].isascii() for c in t["gold"]["calls"]))))

    # predictions
    parts.append("### Predictions (`predictions/*.jsonl`)\n")
    ids = {t["id"] for t in tasks}
    rows = []
    for path in sorted(glob.glob(os.path.join(SAMPLE, "predictions", "*.jsonl"))):
        preds = [json.loads(l) for l in open(path, encoding="utf-8")]
        model = preds[0]["model"]
        lat = sorted(p["latency_ms"] for p in preds)
        rows.append((model, len(preds), len(ids - {p["task_id"] for p in preds}),
                     sum(1 for p in preds if p["error"]),
                     sum(1 for p in preds if p["output"] is not None),
                     sum(1 for p in preds if p["calls"] is not None),
                     lat[len(lat) // 2],
                     sum(p["usage"]["prompt_tokens"] for p in preds),
                     sum(p["usage"]["completion_tokens"] for p in preds)))
    parts.append(table(["model", "records", "tasks skipped", "errors", "with output text",
                        "with native calls", "median latency ms", "prompt tokens", "completion tokens"], rows) + "\n")

    styles = list(csv.DictReader(open(os.path.join(SAMPLE, "prediction_styles.tsv"), encoding="utf-8"),
                                 delimiter="\t"))
    models = sorted({s["model"] for s in styles})
    for col, title in [("content", "Answer content drawn per model (from `prediction_styles.tsv`)"),
                       ("format", "Output format drawn per model"),
                       ("thought_language", "Thought language per model (`none` = no Thought text)")]:
        c = collections.Counter((s[col], s["model"]) for s in styles)
        keys = sorted({s[col] for s in styles}, key=lambda k: (-sum(c[(k, m)] for m in models), k))
        rows = [[k] + [c[(k, m)] or "" for m in models] for k in keys]
        parts.append("%s:\n\n%s\n" % (title, table([col] + models, rows)))

    text = "\n".join(parts)
    print(text)
    if "--write" in sys.argv:
        readme = os.path.join(ROOT, "README.md")
        doc = open(readme, encoding="utf-8").read()
        new = re.sub(r"(<!-- stats:begin -->\n).*?(<!-- stats:end -->)",
                     lambda m: m.group(1) + text + "\n" + m.group(2), doc, flags=re.S)
        if new == doc and "<!-- stats:begin -->" not in doc:
            sys.exit("README.md has no stats markers")
        open(readme, "w", encoding="utf-8").write(new)


if __name__ == "__main__":
    main()
