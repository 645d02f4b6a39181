#!/usr/bin/env python3
"""Uniform average of fine-tuned checkpoints' weights, a "model soup" (issue #36's SST-2 sweep).

Usage: soup.py OUT.safetensors IN.safetensors IN.safetensors [...]

Each IN is a run's checkpoint/model.safetensors; all must hold the same tensor names, dtypes and
shapes. F32 tensors are averaged in double precision and stored as F32; OUT is written atomically
(OUT.tmp, then renamed). To score the soup, copy one of the runs (checkpoint/, data/, run.json,
request.json) to a new folder, replace its checkpoint/model.safetensors with OUT, and repeat that
run's `unieval run` command with --out set to the new folder: the finished run predicts and scores.
Pure Python (no numpy); ~3 s for three 2 x 256 checkpoints.
"""
import json
import os
import struct
import sys
from array import array


def load(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        sys.exit(f"soup.py: {path}: cannot read: {e.strerror}")
    if len(raw) < 8:
        sys.exit(f"soup.py: {path}: not a safetensors file (shorter than its 8-byte header size)")
    n = struct.unpack("<Q", raw[:8])[0]
    try:
        head = json.loads(raw[8:8 + n])
    except ValueError as e:
        sys.exit(f"soup.py: {path}: bad safetensors header: {e}")
    if not isinstance(head, dict):
        sys.exit(f"soup.py: {path}: bad safetensors header: not a JSON object")
    head.pop("__metadata__", None)
    body = raw[8 + n:]
    for name, e in head.items():
        begin, end = e.get("data_offsets", [0, -1]) if isinstance(e, dict) else (0, -1)
        if not 0 <= begin <= end <= len(body):
            sys.exit(f"soup.py: {path}: tensor {name}: data_offsets outside the file")
    return head, body


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, ins = sys.argv[1], sys.argv[2:]
    loaded = [load(p) for p in ins]
    head0 = loaded[0][0]
    for path, (head, _) in zip(ins[1:], loaded[1:]):
        for name, e in head0.items():
            other = head.get(name)
            if other is None or other["dtype"] != e["dtype"] or other["shape"] != e["shape"]:
                sys.exit(f"soup.py: {path}: tensor {name} differs from {ins[0]}'s (or is missing)")
        if len(head) != len(head0):
            sys.exit(f"soup.py: {path}: {len(head)} tensors, {ins[0]} has {len(head0)}")
    chunks, new_head, offset = [], {}, 0
    for name in sorted(head0, key=lambda k: head0[k]["data_offsets"][0]):
        e = head0[name]
        if e["dtype"] != "F32":
            begin, end = e["data_offsets"]
            data = loaded[0][1][begin:end]
        else:
            acc = None
            for head, body in loaded:
                begin, end = head[name]["data_offsets"]
                a = array("f")
                a.frombytes(body[begin:end])
                acc = array("d", a) if acc is None else array("d", (x + y for x, y in zip(acc, a)))
            data = array("f", (x / len(ins) for x in acc)).tobytes()
        new_head[name] = {"dtype": e["dtype"], "shape": e["shape"],
                          "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    header = json.dumps(new_head, separators=(",", ":")).encode()
    header += b" " * ((8 - len(header) % 8) % 8)
    try:
        with open(out + ".tmp", "wb") as f:
            f.write(struct.pack("<Q", len(header)))
            f.write(header)
            for c in chunks:
                f.write(c)
        os.replace(out + ".tmp", out)
    except OSError as e:
        if os.path.exists(out + ".tmp"):
            os.remove(out + ".tmp")
        sys.exit(f"soup.py: {out}: cannot write: {e.strerror}")


if __name__ == "__main__":
    main()
