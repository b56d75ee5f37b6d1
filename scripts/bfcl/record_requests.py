#!/usr/bin/env python3
"""Records the requests bfcl-eval sends, for request vectors.

Two steps:

  serve PORT OUT      a loopback server answering every POST with a minimal
                      valid reply (Anthropic Messages or Gemini
                      generateContent, chosen by the path) and appending
                      {"path", "body"} to OUT (JSON Lines);
  match RAW QDIR OUT  gives each recorded request its question id and
                      category (by the user texts and the function names it
                      carries) and writes OUT as gzipped JSON Lines
                      {id, category, path, body}, in the order of QDIR's
                      question files.

Run `bfcl generate --model NAME --test-category ...` with
ANTHROPIC_BASE_URL=http://127.0.0.1:PORT or
GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT and dummy keys
(datasets/ood/bfcl/requests/README.md). Standard library only.
"""

import gzip
import json
import re
import sys
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

WORD = re.compile(r"[A-Za-z0-9]+")

ANTHROPIC_REPLY = {
    "id": "msg_0",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "[]"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}

GEMINI_REPLY = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "[]"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
}


def serve(port, out):
    lock = threading.Lock()
    sink = open(out, "a", encoding="utf-8")

    class Recorder(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length))
            path = self.path.split("?")[0]
            with lock:
                sink.write(json.dumps({"path": path, "body": body}, ensure_ascii=False) + "\n")
                sink.flush()
            reply = GEMINI_REPLY if "generateContent" in path else ANTHROPIC_REPLY
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Recorder).serve_forever()


def texts(body):
    """The user texts of a request, in order, and all of its text."""
    users = []
    if "contents" in body:
        for content in body["contents"]:
            if content.get("role") == "user":
                users.extend(p.get("text", "") for p in content.get("parts", []))
    else:
        for message in body["messages"]:
            if message["role"] == "user":
                users.extend(b.get("text", "") for b in message["content"])
    return users


def question_users(question):
    """The question's first-turn user texts as the handlers send them
    (Claude merges consecutive user messages with a blank line)."""
    merged, plain, last = [], [], None
    for message in question["question"][0]:
        if message["role"] == "user":
            plain.append(message["content"])
            if last == "user":
                merged[-1] += "\n\n" + message["content"]
            else:
                merged.append(message["content"])
        last = message["role"]
    return tuple(merged), tuple(plain)


def named(text, name):
    """Whether a request's JSON text names a function `name`, as a whole
    string (a tool's name, or inside the prompt's JSON docs), `.` or `_`."""
    return any(
        f'"{n}"' in text or f'\\"{n}\\"' in text for n in (name, name.replace(".", "_"))
    )


def match(raw, qdir, out):
    records = [json.loads(line) for line in open(raw, encoding="utf-8")]
    questions = []
    for path in sorted(Path(qdir).glob("BFCL_v4_*.json")):
        if "multi_turn" in path.name:
            continue
        category = path.stem.removeprefix("BFCL_v4_")
        for line in open(path, encoding="utf-8"):
            q = json.loads(line)
            questions.append((category, q))
    by_users = defaultdict(list)
    for category, q in questions:
        merged, plain = question_users(q)
        by_users[merged].append((category, q))
        if plain != merged:
            by_users[plain].append((category, q))
    taken, matched, unmatched = set(), {}, 0
    for record in records:
        text = json.dumps(record["body"], ensure_ascii=False)
        candidates = [
            (c, q)
            for c, q in by_users[tuple(texts(record["body"]))]
            if q["id"] not in taken
            and all(named(text, f["name"]) for f in q["function"])
        ]
        if not candidates:
            unmatched += 1  # a category QDIR does not hold (simple_java, ...)
            continue
        # The question with the most functions the request names; among
        # those (same texts and names, different docs), the one fewest of
        # whose words the request lacks.
        present = set(WORD.findall(text.lower()))
        candidates.sort(
            key=lambda cq: (
                -len(cq[1]["function"]),
                len(set(WORD.findall(json.dumps(cq[1]["function"]).lower())) - present),
            )
        )
        category, q = candidates[0]
        taken.add(q["id"])
        matched[q["id"]] = {"id": q["id"], "category": category, **record}
    with gzip.open(out, "wt", encoding="utf-8") as sink:
        for category, q in questions:
            if q["id"] in matched:
                sink.write(json.dumps(matched[q["id"]], ensure_ascii=False) + "\n")
    print(f"{len(matched)} of {len(records)} requests matched, {unmatched} not", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "match":
        match(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
