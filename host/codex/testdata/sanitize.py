#!/usr/bin/env python3
"""Makes a Codex rollout fit for testdata: the sandbox folder becomes /sandbox,
and texts over 600 characters that Codex itself wrote (base instructions,
skills and permissions instructions) are cut to their first 200 characters
plus a marker. Usage: sanitize.py SANDBOX_DIR < rollout.jsonl > out.jsonl"""
import json, sys

root = sys.argv[1].rstrip("/")

def walk(v, key=""):
    if isinstance(v, dict):
        return {k: walk(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x, key) for x in v]
    if isinstance(v, str):
        v = v.replace(root, "/sandbox")
        if len(v) > 600 and (key in ("text", "base_instructions") or v.startswith("<")):
            v = v[:200] + "…[cut for testdata]"
        return v
    return v

for line in sys.stdin:
    rec = json.loads(line)
    print(json.dumps(walk(rec), ensure_ascii=False, separators=(",", ":")))
