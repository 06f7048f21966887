#!/usr/bin/env python3
# Verifies `flipbook audit export` without flipbook's code (docs/audit.md explains each step).
#   flipbook audit export > log.jsonl
#   python3 verify-export.py [checkpoint.json] < log.jsonl
# Prints "intact: ..." and exits 0, or prints "TAMPERED: ..." and exits 1.
import hashlib
import json
import sys


def tampered(why):
    print(f"TAMPERED: {why}")
    sys.exit(1)


checkpoint = None
if len(sys.argv) > 1:
    with open(sys.argv[1], encoding="utf-8") as file:
        checkpoint = json.load(file)

previous = "0" * 64  # the genesis hash
seq = 0
for line in sys.stdin:
    if not line.strip():
        continue
    event = json.loads(line)
    seq += 1
    entry = {key: event[key] for key in ("stream", "position", "id", "type", "data", "metadata")}
    # RFC 8785 (JCS) for this data: sorted keys, no whitespace, UTF-8, integers only
    canonical = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256((previous + "\n" + canonical).encode("utf-8")).hexdigest()
    where = f"link {seq}: {event['stream']} position {event['position']}"
    if event["seq"] != seq:
        tampered(f"{where}: expected link {seq}, found {event['seq']}")
    if digest != event["hash"]:
        tampered(f"{where}: the hash does not match the event")
    if checkpoint and seq == checkpoint["seq"] and digest != checkpoint["hash"]:
        tampered(f"{where}: the log does not match the checkpoint")
    previous = digest

if checkpoint and seq < checkpoint["seq"]:
    tampered(f"{seq} events, fewer than the {checkpoint['seq']} the checkpoint covered")
print(f"intact: {seq} events, head {previous}")
