"""Compacts bfcl-eval's recorded multi-turn requests (shared/reference/bfcl/requests/
multi_turn.*.jsonl.gz) losslessly for the test: within an entry each request re-sends the
whole history, so a request after the first keeps only what it adds to `input` (and `tools`
when they changed); the first request of each entry keeps the SHA-256 of its body written
as `json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`."""
import gzip, hashlib, json, sys
src, dst = sys.argv[1], sys.argv[2]
prev = {}
n = 0
with gzip.open(dst, 'wt', compresslevel=9) as out:
    for line in gzip.open(src, 'rt'):
        r = json.loads(line); b = r['body']; p = prev.get(r['id'])
        rec = {k: r[k] for k in ('id', 'category', 'path', 'seq', 'turn', 'step')}
        if p is None:
            text = json.dumps(b, sort_keys=True, separators=(',', ':'), ensure_ascii=False)
            rec['body_sha256'] = hashlib.sha256(text.encode('utf-8')).hexdigest()
        else:
            assert b['input'][:len(p['input'])] == p['input'], r['id']
            d = {k: v for k, v in b.items() if k not in ('input', 'tools')}
            d['input_added'] = b['input'][len(p['input']):]
            if b.get('tools') != p.get('tools'):
                d['tools'] = b.get('tools')
            rec['delta'] = d
        prev[r['id']] = b
        out.write(json.dumps(rec, ensure_ascii=False) + '\n'); n += 1
print(n)
