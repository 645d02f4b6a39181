#!/usr/bin/env python3
"""Writes a Markdown table of generated questions next to their references: every k-th pair of a
run's evaluation files, from the first, so that the rows are not chosen by hand.

usage: samples.py SRC TGT HYP OUT.md TITLE [--rows 10] [--hyp2 HYP2 --name2 NAME2]
SRC, TGT, HYP: one line per pair (RUN/data/eval.src, RUN/data/eval.tgt, RUN/eval/hyp.txt).
--hyp2 adds a second system's column (same pairs), e.g. the run without the copy head.
"""
import argparse
import sys


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def cell(text):
    return text.replace("|", "\\|")


def main():
    ap = argparse.ArgumentParser()
    for name in ("src", "tgt", "hyp", "out", "title"):
        ap.add_argument(name)
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--hyp2")
    ap.add_argument("--name2", default="other")
    a = ap.parse_args()
    src, tgt, hyp = lines(a.src), lines(a.tgt), lines(a.hyp)
    hyp2 = lines(a.hyp2) if a.hyp2 else None
    n = len(src)
    for path, got in ((a.tgt, tgt), (a.hyp, hyp)) + (((a.hyp2, hyp2),) if hyp2 else ()):
        if len(got) != n:
            sys.exit(f"samples.py: {path}: {len(got)} lines, {a.src} has {n}")
    step = max(1, n // a.rows)
    head = "| # | source (first 25 words) | generated |" + (f" {a.name2} |" if hyp2 else "")
    out = [f"# {a.title}", "",
           f"Every {step}th of the {n} pairs, from the first (`{a.hyp}` as scored; `{a.src}`, `{a.tgt}`).",
           "", head + " reference |", "|---" * (4 + (1 if hyp2 else 0)) + "|"]
    for i in range(0, n, step)[: a.rows]:
        row = [str(i + 1), cell(" ".join(src[i].split()[:25])), cell(hyp[i])]
        if hyp2:
            row.append(cell(hyp2[i]))
        row.append(cell(tgt[i]))
        out.append("| " + " | ".join(row) + " |")
    with open(a.out + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    import os
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
