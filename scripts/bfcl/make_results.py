#!/usr/bin/env python3
"""Write BFCL v4 result files (prompt-mode model text) for the 11 Python AST categories.

Our own code, standard library only, deterministic (same --seed, same bytes).

Output layout (what the official runner and `itc ood score bfcl` read):

    OUT/<round>/BFCL_v4_<cat>_result.json      JSON Lines {"id": ..., "result": "<model text>"}

* non-live categories (simple_python, multiple, parallel, parallel_multiple,
  irrelevance): the committed reference answers
  (datasets/ood/bfcl/reference/answers/<cat>.jsonl); round k = the answers with
  answer_index == k (5 rounds, 4 for irrelevance).
* live categories: answers generated here from the possible answers (AST
  categories) or the function docs (live_irrelevance, live_relevance).
  Round 0 is the "correct" answer (AST: first allowed value of every parameter,
  omitted when that value is "" unless the parameter is required, rendered as
  Python call text with repr() values; live_relevance: a call with plausible
  arguments; live_irrelevance: a refusal in prose). Rounds 1.. are a seeded mix
  of usually-accepted and usually-rejected perturbation kinds (see KINDS below).
  `kind` only names what the generator did; it promises no verdict.

With --answers-dir, the live answers are also written as
ANSWERS/<cat>.jsonl lines {"id", "answer_index", "answer", "kind"}.

Usage:
    python3 scripts/bfcl/make_results.py --data datasets/ood/bfcl --out /tmp/bfcl-results \
        [--answers-dir DIR] [--seed 38] [--live-rounds 5] [--rounds-for CAT=N ...]
"""

import argparse
import json
import keyword
import os
import random
import sys
import zlib

NON_LIVE = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]
LIVE_AST = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
LIVE_REL = ["live_irrelevance", "live_relevance"]
ALL = NON_LIVE + LIVE_AST + LIVE_REL

# kind -> (usually accepted?, weight)
AST_ACCEPTED = {
    "format_only": 3, "alt_allowed": 3, "optional_included": 3, "omit_optional": 3,
    "string_variant": 4, "int_for_float": 2, "bare_identifier": 2, "expression_value": 2,
    "list_item_case": 2, "dict_reorder_case": 2, "reorder_calls": 4,
    "empty_list_optional": 2, "none_value": 2, "tuple_for_tuple": 1,
}
AST_REJECTED = {
    "wrong_value": 4, "wrong_type": 3, "float_for_int": 2, "missing_required": 3,
    "extra_param": 3, "positional_args": 3, "wrong_func_name": 2,
    "dotted_name_underscored": 2, "unary_plus": 2, "int_items_float_array": 2,
    "list_reversed": 2, "tuple_for_array": 1, "dict_missing_key": 2, "dict_extra_key": 2,
    "list_dict_reordered": 2, "none_for_omitted": 2, "extra_call": 3, "drop_call": 3,
    "duplicate_in_place": 2, "empty_answer": 1,
    "python_fence": 2, "crlf": 2, "tab_prefix": 1, "prose_prefix": 2, "truncated": 1,
    "json_style": 1,
}
TEXT_REJECTED = {"python_fence", "crlf", "tab_prefix", "prose_prefix", "truncated", "json_style"}
GOOD_FORMATS = ["plain", "compact", "no_brackets", "fence", "multiline", "trailing_comma", "padded"]

REL_NO_CALL = ["no_call_text", "empty_list", "empty_string", "bare_word", "prose_with_call",
               "python_fenced_call"]
REL_CALL = ["call", "call_no_args", "call_no_brackets", "two_calls", "fenced_call"]


class Raw(str):
    """Source text rendered verbatim (bare identifier, expression, ...)."""


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def rng_for(seed, key):
    return random.Random((seed << 32) ^ zlib.crc32(key.encode("utf-8")))


# ---------------------------------------------------------------- rendering

def render_value(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{render_value(k)}: {render_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, tuple):
        inner = ", ".join(render_value(x) for x in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(render_value(x) for x in v) + "]"
    return repr(v)


def render_call(call, sep=", "):
    parts = [render_value(v) for k, v in call["args"] if k is None]
    parts += [f"{k}={render_value(v)}" for k, v in call["args"] if k is not None]
    return f"{call['name']}({sep.join(parts)})"


def render_calls(calls, fmt):
    sep = "," if fmt == "compact" else ", "
    items = [render_call(c, sep) for c in calls]
    body = "[" + sep.join(items) + "]"
    if fmt in ("plain", "compact"):
        return body
    if fmt == "no_brackets":
        return ", ".join(items) if items else "[]"
    if fmt == "fence":
        return "```\n" + body + "\n```"
    if fmt == "multiline":
        return "[\n" + ",\n".join("    " + i for i in items) + "\n]" if items else "[]"
    if fmt == "trailing_comma":
        return "[" + ", ".join(items) + (",]" if items else "]")
    if fmt == "padded":
        return "  " + body + " \n"
    if fmt == "python_fence":
        return "```python\n" + body + "\n```"
    if fmt == "crlf":
        return body + "\r\n"
    if fmt == "tab_prefix":
        return "\t" + body
    if fmt == "prose_prefix":
        return "Sure, here is the function call: " + body
    if fmt == "truncated":
        return body[:-2] if len(body) > 3 else body[:-1]
    if fmt == "json_style":
        objs = []
        for c in calls:
            args = {k: jsonable(v) for k, v in c["args"] if k is not None}
            objs.append({"name": c["name"], "arguments": args})
        return json.dumps(objs, ensure_ascii=False)
    raise ValueError(fmt)


def jsonable(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- building calls

def is_alt_map(x):
    return isinstance(x, dict) and all(isinstance(v, list) for v in x.values())


def build_from_alt(alt, spec):
    """Model value for one allowed alternative: dict maps and lists of dict maps are built key by key."""
    typ = (spec or {}).get("type")
    item_type = ((spec or {}).get("items") or {}).get("type")
    if is_alt_map(alt) and typ in ("dict", None, "any", "object"):
        return {k: vs[0] for k, vs in alt.items() if vs and vs[0] != ""}
    if isinstance(alt, list) and alt and all(is_alt_map(e) for e in alt) and (
            item_type == "dict" or typ is None):
        return [{k: vs[0] for k, vs in e.items() if vs and vs[0] != ""} for e in alt]
    return alt


def find_doc(functions, name, category):
    if category in ("simple_python", "live_simple"):
        return functions[0]
    for f in functions:
        if f["name"] == name:
            return f
    return None


def base_calls(entry, truth, category):
    calls = []
    for gt in truth:
        name, params = next(iter(gt.items()))
        doc = find_doc(entry["function"], name, category)
        props = (doc or {}).get("parameters", {}).get("properties", {})
        required = (doc or {}).get("parameters", {}).get("required", [])
        if category in ("simple_python", "live_simple") and doc is not None:
            name = doc["name"]
        args = []
        meta = {}
        for p, vals in params.items():
            spec = props.get(p)
            meta[p] = {"spec": spec, "vals": vals, "required": p in required}
            if not vals:
                continue
            if vals[0] == "" and p not in required:
                continue
            args.append([p, build_from_alt(vals[0], spec)])
        calls.append({"name": name, "args": args, "meta": meta, "doc": doc,
                      "required": list(required)})
    return calls


def copy_calls(calls):
    out = []
    for c in calls:
        out.append({"name": c["name"], "args": [[k, v] for k, v in c["args"]], "meta": c["meta"],
                    "doc": c["doc"], "required": c["required"]})
    return out


def ptype(call, p):
    spec = call["meta"].get(p, {}).get("spec") or {}
    return spec.get("type"), (spec.get("items") or {}).get("type")


# ---------------------------------------------------------------- AST perturbations
# Each returns the new call list (or None when the kind does not apply). `r` is the rng.

def _pick(r, options):
    return r.choice(options) if options else None


def _arg_sites(calls, pred):
    sites = []
    for ci, c in enumerate(calls):
        for ai, (k, v) in enumerate(c["args"]):
            if k is not None and pred(c, k, v):
                sites.append((ci, ai))
    return sites


def _set(calls, site, value, r=None):
    ci, ai = site
    calls[ci]["args"][ai][1] = value
    return calls


def k_alt_allowed(calls, r):
    def ok(c, k, v):
        vals = c["meta"].get(k, {}).get("vals", [])
        return len([x for x in vals if x != ""]) >= 2
    s = _pick(r, _arg_sites(calls, ok))
    if s is None:
        return None
    c = calls[s[0]]
    k = c["args"][s[1]][0]
    vals = [x for x in c["meta"][k]["vals"] if x != ""]
    return _set(calls, s, build_from_alt(r.choice(vals[1:]), c["meta"][k]["spec"]))


def k_optional_included(calls, r):
    opts = []
    for ci, c in enumerate(calls):
        present = {k for k, _ in c["args"]}
        for p, m in c["meta"].items():
            if p not in present and [x for x in m["vals"] if x != ""]:
                opts.append((ci, p))
    if not opts:
        return None
    ci, p = r.choice(opts)
    m = calls[ci]["meta"][p]
    calls[ci]["args"].append([p, build_from_alt([x for x in m["vals"] if x != ""][0], m["spec"])])
    return calls


def k_omit_optional(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: "" in c["meta"].get(k, {}).get("vals", [])
                            and not c["meta"][k]["required"]))
    if s is None:
        return None
    del calls[s[0]]["args"][s[1]]
    return calls


def k_string_variant(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) is str and v.strip() != ""
                            and ptype(c, k)[0] in ("string", "any")))
    if s is None:
        return None
    v = calls[s[0]]["args"][s[1]][1]
    variant = r.choice([v.upper(), v.lower(), v.replace(" ", "-"), v + ".", " ".join(v.split(" ")).title(),
                        v.replace(" ", "_")])
    if variant == v:
        variant = v.upper() if v.upper() != v else v + "."
    return _set(calls, s, variant)


def k_int_for_float(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) is float and v.is_integer()
                            and ptype(c, k)[0] == "float" and abs(v) < 1e15))
    if s is None:
        return None
    return _set(calls, s, int(calls[s[0]]["args"][s[1]][1]))


def k_bare_identifier(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) is str and v.isidentifier()
                            and not keyword.iskeyword(v) and v not in ("True", "False", "None")))
    if s is None:
        return None
    return _set(calls, s, Raw(calls[s[0]]["args"][s[1]][1]))


def k_expression_value(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) is int and v >= 0))
    if s is None:
        return None
    v = calls[s[0]]["args"][s[1]][1]
    return _set(calls, s, Raw(f"{v - 1} + 1" if v >= 1 else f"{v} * 1"))


def k_list_item_case(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and v
                            and all(type(x) is str for x in v) and any(x.upper() != x for x in v)))
    if s is None:
        return None
    v = list(calls[s[0]]["args"][s[1]][1])
    i = r.randrange(len(v))
    v[i] = v[i].upper()
    return _set(calls, s, v)


def k_dict_reorder_case(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, dict) and len(v) >= 1))
    if s is None:
        return None
    v = calls[s[0]]["args"][s[1]][1]
    items = list(v.items())[::-1]
    items = [(k, x.upper() if type(x) is str and i == 0 else x) for i, (k, x) in enumerate(items)]
    return _set(calls, s, dict(items))


def k_reorder_calls(calls, r):
    if len(calls) < 2:
        return None
    return calls[::-1]


def k_empty_list_optional(calls, r):
    opts = []
    for ci, c in enumerate(calls):
        for p, m in c["meta"].items():
            if (m["spec"] or {}).get("type") == "array" and "" in m["vals"] and not m["required"]:
                opts.append((ci, p))
    if not opts:
        return None
    ci, p = r.choice(opts)
    args = [a for a in calls[ci]["args"] if a[0] != p]
    args.append([p, []])
    calls[ci]["args"] = args
    return calls


def k_none_value(calls, r):
    opts = [(ci, p) for ci, c in enumerate(calls) for p, m in c["meta"].items() if None in m["vals"]]
    if not opts:
        return None
    ci, p = r.choice(opts)
    calls[ci]["args"] = [a for a in calls[ci]["args"] if a[0] != p] + [[p, None]]
    return calls


def k_tuple_for_tuple(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and ptype(c, k)[0] == "tuple"))
    if s is None:
        return None
    return _set(calls, s, tuple(calls[s[0]]["args"][s[1]][1]))


def k_wrong_value(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) in (str, int, float, bool)
                            or (isinstance(v, list) and all(type(x) is str for x in v))))
    if s is None:
        return None
    v = calls[s[0]]["args"][s[1]][1]
    if type(v) is bool:
        nv = not v
    elif type(v) is int:
        nv = v + r.choice([1, 7, 100])
    elif type(v) is float:
        nv = v + r.choice([0.5, 1.5, 10.0])
    elif type(v) is str:
        nv = r.choice([v + " extra", "zz" + v, "unknown"]) if v else "unknown"
    else:
        nv = list(v) + ["zzz"]
    return _set(calls, s, nv)


def k_wrong_type(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) in (str, int, float, bool)
                            and ptype(c, k)[0] in ("string", "integer", "float", "boolean")))
    if s is None:
        return None
    v = calls[s[0]]["args"][s[1]][1]
    if type(v) is bool:
        nv = str(v).lower()
    elif type(v) in (int, float):
        nv = str(v)
    else:
        nv = [v]
    return _set(calls, s, nv)


def k_float_for_int(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) is int and ptype(c, k)[0] == "integer"))
    if s is None:
        return None
    return _set(calls, s, float(calls[s[0]]["args"][s[1]][1]))


def k_missing_required(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: k in c["required"]))
    if s is None:
        return None
    del calls[s[0]]["args"][s[1]]
    return calls


def k_extra_param(calls, r):
    if not calls:
        return None
    c = r.choice(calls)
    c["args"].append([r.choice(["extra_option", "verbose", "debug_mode"]), r.choice([True, 1, "yes"])])
    return calls


def k_positional_args(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: True))
    if s is None:
        return None
    calls[s[0]]["args"][s[1]][0] = None
    return calls


def k_wrong_func_name(calls, r):
    if not calls:
        return None
    c = r.choice(calls)
    c["name"] = c["name"] + r.choice(["_v2", "X", "_tool"])
    return calls


def k_dotted_name_underscored(calls, r):
    opts = [c for c in calls if "." in c["name"]]
    if not opts:
        return None
    c = r.choice(opts)
    c["name"] = c["name"].replace(".", "_")
    return calls


def k_unary_plus(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: type(v) in (int, float) and v > 0))
    if s is None:
        return None
    return _set(calls, s, Raw("+" + repr(calls[s[0]]["args"][s[1]][1])))


def k_int_items_float_array(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and v and ptype(c, k)[1] == "float"
                            and all(type(x) is float and x.is_integer() for x in v)))
    if s is None:
        return None
    return _set(calls, s, [int(x) for x in calls[s[0]]["args"][s[1]][1]])


def k_list_reversed(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and len(v) >= 2 and v != v[::-1]
                            and not all(isinstance(x, dict) for x in v)))
    if s is None:
        return None
    return _set(calls, s, calls[s[0]]["args"][s[1]][1][::-1])


def k_tuple_for_array(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and v and ptype(c, k)[0] == "array"))
    if s is None:
        return None
    return _set(calls, s, tuple(calls[s[0]]["args"][s[1]][1]))


def k_dict_missing_key(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, dict) and len(v) >= 1))
    if s is None:
        return None
    v = dict(calls[s[0]]["args"][s[1]][1])
    del v[r.choice(list(v))]
    return _set(calls, s, v)


def k_dict_extra_key(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, dict)))
    if s is None:
        return None
    v = dict(calls[s[0]]["args"][s[1]][1])
    v["zz_extra"] = r.choice([1, "x", True])
    return _set(calls, s, v)


def k_list_dict_reordered(calls, r):
    s = _pick(r, _arg_sites(calls, lambda c, k, v: isinstance(v, list) and len(v) >= 2
                            and all(isinstance(x, dict) for x in v) and v != v[::-1]))
    if s is None:
        return None
    return _set(calls, s, calls[s[0]]["args"][s[1]][1][::-1])


def k_none_for_omitted(calls, r):
    opts = []
    for ci, c in enumerate(calls):
        present = {k for k, _ in c["args"]}
        for p, m in c["meta"].items():
            if p not in present and None not in m["vals"]:
                opts.append((ci, p))
    if not opts:
        return None
    ci, p = r.choice(opts)
    calls[ci]["args"].append([p, None])
    return calls


def k_extra_call(calls, r):
    if not calls:
        return None
    c = copy_calls([r.choice(calls)])[0]
    return calls + [c]


def k_drop_call(calls, r):
    if len(calls) < 2:
        return None
    i = r.randrange(len(calls))
    return calls[:i] + calls[i + 1:]


def k_duplicate_in_place(calls, r):
    if len(calls) < 2:
        return None
    names = {(c["name"], render_call(c)) for c in calls}
    if len(names) < 2:
        return None
    i = r.randrange(1, len(calls))
    calls[i] = copy_calls([calls[0]])[0]
    return calls


def k_empty_answer(calls, r):
    return []


def k_identity(calls, r):
    return calls


KIND_FUNCS = {name[2:]: f for name, f in list(globals().items()) if name.startswith("k_")}
for _t in TEXT_REJECTED | {"format_only"}:
    KIND_FUNCS[_t] = k_identity


def weighted_sample(r, weights, n):
    pool = dict(weights)
    out = []
    while pool and len(out) < n:
        total = sum(pool.values())
        x = r.uniform(0, total)
        acc = 0
        for k in sorted(pool):
            acc += pool[k]
            if x <= acc:
                out.append(k)
                del pool[k]
                break
        else:
            k = sorted(pool)[-1]
            out.append(k)
            del pool[k]
    return out


def gen_ast_answers(entry, truth, category, seed, rounds):
    r = rng_for(seed, category + "/" + entry["id"])
    base = base_calls(entry, truth["ground_truth"], category)
    answers = [(render_calls(base, "plain"), "correct")]
    n_other = rounds - 1
    if n_other <= 0:
        return answers[:rounds]
    n_acc = min(n_other, r.choice([1, 2]))
    n_rej = n_other - n_acc
    # Only kinds that apply here.
    def applicable(kinds):
        ok = {}
        for k, w in kinds.items():
            res = KIND_FUNCS[k](copy_calls(base), random.Random(0))
            if res is not None:
                ok[k] = w
        return ok
    acc = weighted_sample(r, applicable(AST_ACCEPTED), n_acc)
    rej = weighted_sample(r, applicable(AST_REJECTED), n_rej + (n_acc - len(acc)))
    kinds = acc + rej
    r.shuffle(kinds)
    for kind in kinds:
        res = KIND_FUNCS[kind](copy_calls(base), r)
        if kind in TEXT_REJECTED:
            fmt = kind
        elif kind == "empty_answer":
            fmt = "plain"
        else:
            fmt = r.choice(GOOD_FORMATS) if kind == "format_only" or r.random() < 0.4 else "plain"
        text = render_calls(res, fmt)
        if kind == "format_only" and fmt == "plain":
            text = render_calls(res, "compact")
        if kind == "empty_answer":
            text = r.choice(["[]", ""])
        answers.append((text, kind))
    while len(answers) < rounds:  # too few applicable kinds: pad with format variants
        answers.append((render_calls(base, GOOD_FORMATS[len(answers) % len(GOOD_FORMATS)]), "format_only"))
    return answers


# ---------------------------------------------------------------- relevance / irrelevance

def plausible_value(spec, r):
    spec = spec or {}
    if spec.get("enum"):
        return spec["enum"][0]
    t = spec.get("type")
    d = spec.get("default")
    if d is not None and not isinstance(d, (dict, list)) and d != "":
        if (t == "integer" and type(d) is int) or (t == "float" and type(d) in (int, float)) or \
           (t == "boolean" and type(d) is bool) or (t in ("string", "any") and type(d) is str):
            return d
    if t == "integer":
        return r.choice([1, 5, 10])
    if t == "float":
        return r.choice([1.5, 0.5, 10.0])
    if t == "boolean":
        return r.choice([True, False])
    if t in ("array", "tuple"):
        it = (spec.get("items") or {})
        return [plausible_value(it, r)] if it.get("type") in ("string", "integer", "float") else []
    if t == "dict":
        return {}
    return r.choice(["example", "New York", "default", "test value"])


def plausible_call(func, r):
    params = func.get("parameters", {})
    props = params.get("properties", {})
    args = []
    for p in params.get("required", []):
        args.append([p, plausible_value(props.get(p), r)])
    return {"name": func["name"], "args": args}


def gen_rel_answers(entry, category, seed, rounds):
    r = rng_for(seed, category + "/" + entry["id"])
    funcs = entry.get("function") or []
    relevance = category == "live_relevance"
    first = [("call" if relevance else "no_call_text")]
    pool_call = [k for k in REL_CALL if funcs]
    if len(funcs) < 1:
        pool_call = []
    pool_no = list(REL_NO_CALL)
    others = []
    n = rounds - 1
    n_call = (n + 1) // 2 if relevance else n // 2
    others += r.sample(pool_call, min(n_call, len(pool_call)))
    others += r.sample([k for k in pool_no if k not in first], min(n - len(others), len(pool_no) - 1))
    r.shuffle(others)
    out = []
    for kind in first + others:
        out.append((rel_text(kind, funcs, r), kind))
    return out[:rounds]


def rel_text(kind, funcs, r):
    if kind == "no_call_text":
        return r.choice([
            "I'm sorry, but none of the available functions can help with this request.",
            "None of the provided tools are relevant to this question, so I cannot make a function call.",
            "The request lacks the parameters required by the available functions.",
        ])
    if kind == "empty_list":
        return r.choice(["[]", "[ ]", "```\n[]\n```"])
    if kind == "empty_string":
        return ""
    if kind == "bare_word":
        return r.choice(["None", "N/A", "Sorry"])
    f = r.choice(funcs) if funcs else {"name": "search", "parameters": {}}
    call = plausible_call(f, r)
    text = render_call(call)
    if kind == "prose_with_call":
        return f"I could call {text} but it would not answer the question."
    if kind == "python_fenced_call":
        return "```python\n[" + text + "]\n```"
    if kind == "call":
        return "[" + text + "]"
    if kind == "call_no_args":
        return f"[{f['name']}()]"
    if kind == "call_no_brackets":
        return text
    if kind == "fenced_call":
        return "```\n[" + text + "]\n```"
    if kind == "two_calls":
        g = r.choice(funcs)
        return "[" + text + ", " + render_call(plausible_call(g, r)) + "]"
    raise ValueError(kind)


# ---------------------------------------------------------------- main

def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="datasets/ood/bfcl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--answers-dir", default=None)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--live-rounds", type=int, default=5)
    ap.add_argument("--rounds-for", action="append", default=[], metavar="CAT=N")
    ap.add_argument("--categories", default=",".join(ALL))
    args = ap.parse_args(argv)
    overrides = dict(x.split("=", 1) for x in args.rounds_for)
    cats = [c for c in args.categories.split(",") if c]
    counts = {}
    for cat in cats:
        if cat in NON_LIVE:
            answers = read_jsonl(os.path.join(args.data, "reference", "answers", f"{cat}.jsonl"))
            by_round = {}
            for a in answers:
                by_round.setdefault(a["answer_index"], []).append({"id": a["id"], "result": a["answer"]})
            for k in sorted(by_round):
                write_jsonl(os.path.join(args.out, str(k), f"BFCL_v4_{cat}_result.json"), by_round[k])
            counts[cat] = {"rounds": len(by_round), "items": len(by_round[0])}
            continue
        rounds = int(overrides.get(cat, args.live_rounds))
        entries = read_jsonl(os.path.join(args.data, f"BFCL_v4_{cat}.json"))
        if cat in LIVE_AST:
            truths = read_jsonl(os.path.join(args.data, "possible_answer", f"BFCL_v4_{cat}.json"))
            assert [e["id"] for e in entries] == [t["id"] for t in truths], cat
            gen = [gen_ast_answers(e, t, cat, args.seed, rounds) for e, t in zip(entries, truths)]
        elif cat in LIVE_REL:
            gen = [gen_rel_answers(e, cat, args.seed, rounds) for e in entries]
        else:
            sys.exit(f"unknown category {cat}")
        ans_rows = []
        for e, answers in zip(entries, gen):
            assert len(answers) == rounds, (e["id"], len(answers))
            for i, (text, kind) in enumerate(answers):
                ans_rows.append({"id": e["id"], "answer_index": i, "answer": text, "kind": kind})
        for k in range(rounds):
            write_jsonl(os.path.join(args.out, str(k), f"BFCL_v4_{cat}_result.json"),
                        [{"id": e["id"], "result": a[k][0]} for e, a in zip(entries, gen)])
        if args.answers_dir:
            write_jsonl(os.path.join(args.answers_dir, f"{cat}.jsonl"), ans_rows)
        counts[cat] = {"rounds": rounds, "items": len(entries)}
    total_files = sum(c["rounds"] for c in counts.values())
    total_items = sum(c["rounds"] * c["items"] for c in counts.values())
    for cat, c in counts.items():
        print(f"{cat:24s} rounds={c['rounds']} items/round={c['items']}")
    print(f"files={total_files} answers={total_items} out={args.out}")


if __name__ == "__main__":
    main()
