#!/usr/bin/env python3
"""Ten SQuAD v1.1 dev questions (every k-th, k = n // 10), the model's answer and the references.

usage: samples.py DEV.json[.gz] PREDICTIONS.json OUT.md TITLE
Written through a temporary file and renamed; every question must have a prediction.
"""
import gzip
import json
import os
import sys


def main():
    dev_path, pred_path, out_path, title = sys.argv[1:5]
    opener = gzip.open if dev_path.endswith(".gz") else open
    with opener(dev_path, "rt", encoding="utf-8") as f:
        dev = json.load(f)
    with open(pred_path, encoding="utf-8") as f:
        pred = json.load(f)
    qas = [(qa["id"], qa["question"], [a["text"] for a in qa["answers"]])
           for article in dev["data"] for para in article["paragraphs"] for qa in para["qas"]]
    missing = [qid for qid, _, _ in qas if qid not in pred]
    if missing:
        sys.exit(f"{pred_path}: no prediction for {len(missing)} questions (first {missing[0]})")
    k = len(qas) // 10
    cell = lambda s: s.replace("|", "\\|").replace("\n", " ")
    lines = [f"# {title}", "",
             f"Every {k:,}th of the {len(qas):,} dev questions, as scored (`{os.path.basename(pred_path)}`).", "",
             "| # | question | model's answer | reference answers |", "|---:|---|---|---|"]
    for i in range(0, 10 * k, k):
        qid, question, answers = qas[i]
        refs = " / ".join(dict.fromkeys(answers))
        lines.append(f"| {i} | {cell(question)} | {cell(pred[qid])} | {cell(refs)} |")
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
