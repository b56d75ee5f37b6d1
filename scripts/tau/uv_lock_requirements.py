#!/usr/bin/env python3
"""Prints pip pins (`name==version`, one a line) for tau2-bench's runtime
dependencies and theirs, at the versions its uv.lock locks: what
`scripts/tau/time_official_evaluator.py` runs under.

    python3.12 scripts/tau/uv_lock_requirements.py TAU2_SRC/uv.lock > tau2-requirements.txt

Standard library only (`tomllib`, Python 3.11+). Follows the `tau2`
package's `dependencies` (not its optional ones) through the lock; markers
are ignored, so a few platform-only packages (colorama, win32-setctime,
pure Python) are pinned too.
"""
import sys
import tomllib

with open(sys.argv[1], "rb") as f:
    packages = {p["name"]: p for p in tomllib.load(f)["package"]}
todo = [d["name"] for d in packages["tau2"]["dependencies"]]
seen = set()
while todo:
    name = todo.pop()
    if name not in seen:
        seen.add(name)
        todo.extend(d["name"] for d in packages[name].get("dependencies", []))
for name in sorted(seen):
    print(f"{name}=={packages[name]['version']}")
