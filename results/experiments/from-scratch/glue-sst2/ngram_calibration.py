#!/usr/bin/env python3
"""Bag-of-n-grams classifiers on SST-2, to calibrate the from-scratch target (issue #36).

The issue's target, 83, is Kim's CNN-rand on the binary SST *test* set, where Socher et al. (2013)
report a bigram naive Bayes at 83.1. This script measures the same kind of n-gram models on the GLUE
SST-2 training rows (67,349 phrases) and dev set (872 sentences) that our runs are scored on:

  * binarized multinomial naive Bayes (each n-gram counted once per row), Laplace/Lidstone alpha;
  * logistic regression on binary n-gram indicators, L2, AdaGrad (lr 0.5), rows shuffled with a
    fixed seed, dev accuracy after every epoch.

Pure Python, deterministic. Usage:
  ngram_calibration.py TRAIN.tsv[.gz] DEV.tsv[.gz] > ngram_calibration.json
The dev accuracy of every setting is printed (none is selected), as in sweep.md.
"""
import collections
import gzip
import json
import math
import random
import sys


def read_tsv(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    if not lines or lines[0].split("\t")[:2] != ["sentence", "label"]:
        sys.exit(f"{path}:1: expected the GLUE SST-2 header 'sentence<TAB>label'")
    rows = []
    for no, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) < 2 or parts[1].strip() not in ("0", "1"):
            sys.exit(f"{path}:{no}: expected 'sentence<TAB>0|1'")
        rows.append((parts[0], int(parts[1])))
    return rows


def ngrams(sentence, n):
    words = sentence.split()
    out = set()
    for k in range(1, n + 1):
        out.update(" ".join(words[i:i + k]) for i in range(len(words) - k + 1))
    return out


def naive_bayes(train, dev, n, alpha):
    counts = [collections.Counter(), collections.Counter()]
    prior = [0, 0]
    for feats, y in train:
        prior[y] += 1
        counts[y].update(feats)
    vocab = set(counts[0]) | set(counts[1])
    totals = [sum(c.values()) + alpha * len(vocab) for c in counts]
    right = 0
    for feats, y in dev:
        score = [math.log(prior[c]) + sum(math.log((counts[c][f] + alpha) / totals[c])
                                          for f in feats if f in vocab) for c in (0, 1)]
        right += (score[1] > score[0]) == (y == 1)
    return right / len(dev)


def logistic_regression(train, dev, lam, epochs, seed):
    w = collections.defaultdict(float)
    g2 = collections.defaultdict(lambda: 1e-8)
    bias, lr = 0.0, 0.5
    rows = list(train)
    rng = random.Random(seed)
    per_epoch = []
    for _ in range(epochs):
        rng.shuffle(rows)
        for feats, y in rows:
            z = bias + sum(w[f] for f in feats)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = p - y
            for f in feats:
                gf = g + lam * w[f]
                g2[f] += gf * gf
                w[f] -= lr * gf / math.sqrt(g2[f])
            bias -= 0.01 * g
        right = sum(((bias + sum(w.get(f, 0.0) for f in feats)) > 0) == (y == 1)
                    for feats, y in dev)
        per_epoch.append(right / len(dev))
    return per_epoch


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    train_rows, dev_rows = read_tsv(sys.argv[1]), read_tsv(sys.argv[2])
    out = {"train_rows": len(train_rows), "dev_rows": len(dev_rows), "naive_bayes": [],
           "logistic_regression": []}
    for n in (1, 2, 3):
        train = [(ngrams(s, n), y) for s, y in train_rows]
        dev = [(ngrams(s, n), y) for s, y in dev_rows]
        for alpha in (0.5, 1.0):
            acc = naive_bayes(train, dev, n, alpha)
            out["naive_bayes"].append({"max_n": n, "alpha": alpha, "dev_accuracy": acc})
            print(f"NB n<={n} alpha {alpha}: {100 * acc:.2f}", file=sys.stderr)
        if n <= 2:
            accs = logistic_regression(train, dev, 1e-4, 8, seed=0)
            out["logistic_regression"].append(
                {"max_n": n, "l2": 1e-4, "optimizer": "adagrad lr 0.5", "seed": 0,
                 "dev_accuracy_per_epoch": accs})
            print(f"LR n<={n}: " + " ".join(f"{100 * a:.2f}" for a in accs), file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
