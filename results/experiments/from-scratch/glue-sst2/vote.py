#!/usr/bin/env python3
"""Majority vote of GLUE prediction files (issue #36's SST-2 sweep): accuracy of the vote.

Usage: vote.py GOLD.tsv PRED.tsv PRED.tsv PRED.tsv [...]   (an odd number of prediction files)
GOLD.tsv and PRED.tsv are a run's eval/gold.tsv and eval/pred.tsv ("index<TAB>label" rows after a
header). Prints the vote's accuracy in percent; writes nothing.
"""
import sys


def labels(path):
    with open(path, encoding="utf-8") as f:
        rows = f.read().split("\n")[1:]
    out = []
    for no, row in enumerate(rows, start=2):
        if not row:
            continue
        parts = row.split("\t")
        if len(parts) < 2:
            sys.exit(f"{path}:{no}: expected 'index<TAB>label'")
        out.append(parts[-1].strip())
    return out


def main():
    if len(sys.argv) < 5 or len(sys.argv[2:]) % 2 == 0:
        sys.exit(__doc__)
    gold = labels(sys.argv[1])
    preds = [labels(p) for p in sys.argv[2:]]
    for p, path in zip(preds, sys.argv[2:]):
        if len(p) != len(gold):
            sys.exit(f"{path}: {len(p)} predictions for {len(gold)} gold rows")
    vote = [max(sorted(set(col)), key=col.count) for col in zip(*preds)]
    right = sum(v == g for v, g in zip(vote, gold))
    print(f"{100 * right / len(gold):.2f}")


if __name__ == "__main__":
    main()
