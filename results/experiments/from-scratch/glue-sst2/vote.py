#!/usr/bin/env python3
"""Majority vote of GLUE prediction files (issue #36's SST-2 sweep): accuracy of the vote.

Usage: vote.py [--out VOTE.tsv] GOLD.tsv PRED.tsv PRED.tsv PRED.tsv [...]   (an odd number of
prediction files)
GOLD.tsv and PRED.tsv are a run's eval/gold.tsv and eval/pred.tsv ("index<TAB>label" rows after a
header). Prints the vote's accuracy in percent. With --out, the vote is also written as a
prediction file in the first PRED.tsv's layout (its header and index column; temp file, then
rename), which `unieval eval --pred` scores and `--paired-pred` tests against.
"""
import os
import sys


def rows_of(path):
    """The header and the (index, label) rows of a GLUE prediction or gold file."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    out = []
    for no, row in enumerate(lines[1:], start=2):
        if not row:
            continue
        parts = row.split("\t")
        if len(parts) < 2:
            sys.exit(f"{path}:{no}: expected 'index<TAB>label'")
        out.append((parts[0], parts[-1].strip()))
    return lines[0], out


def labels(path):
    return [label for _, label in rows_of(path)[1]]


def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--out"]:
        if len(args) < 2:
            sys.exit(__doc__)
        out, args = args[1], args[2:]
    if len(args) < 4 or len(args[1:]) % 2 == 0:
        sys.exit(__doc__)
    gold = labels(args[0])
    preds = [labels(p) for p in args[1:]]
    for p, path in zip(preds, args[1:]):
        if len(p) != len(gold):
            sys.exit(f"{path}: {len(p)} predictions for {len(gold)} gold rows")
    vote = [max(sorted(set(col)), key=col.count) for col in zip(*preds)]
    right = sum(v == g for v, g in zip(vote, gold))
    if out:
        header, first = rows_of(args[1])
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(header + "\n")
            for (index, _), label in zip(first, vote):
                f.write(f"{index}\t{label}\n")
        os.replace(tmp, out)
    print(f"{100 * right / len(gold):.2f}")


if __name__ == "__main__":
    main()
