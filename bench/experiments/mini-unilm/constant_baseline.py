#!/usr/bin/env python3
"""The constant-question baseline of the mini-UniLM experiment: the most frequent question of the
fine-tuning targets (ties: the first seen), predicted for every evaluated source sentence.

    constant_baseline.py TGT_TRAIN(.gz) SRC_EVAL OUT_DIR   ->  OUT_DIR/pred.txt, OUT_DIR/question.txt
"""
import collections
import gzip
import os
import sys

tgt, src, dest = sys.argv[1:4]
opener = gzip.open if tgt.endswith(".gz") else open
counts, first = collections.Counter(), {}
with opener(tgt, "rt", encoding="utf-8") as f:
    for i, line in enumerate(f):
        q = line.strip()
        counts[q] += 1
        first.setdefault(q, i)
best = max(counts, key=lambda q: (counts[q], -first[q]))
with open(src, encoding="utf-8") as f:
    n = sum(1 for _ in f)
os.makedirs(dest, exist_ok=True)
for name, text in (("question.txt", best + "\n"), ("pred.txt", (best + "\n") * n)):
    with open(os.path.join(dest, name + ".tmp"), "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(os.path.join(dest, name + ".tmp"), os.path.join(dest, name))
print("constant question (%d of %d fine-tuning questions), %d predictions: %s" % (
    counts[best], sum(counts.values()), n, best))
