#!/usr/bin/env python3
"""The collect stage of the ERNIE-GEN ablation (run.sh): every score comes from `unieval eval` on
the predictions the runs wrote, with 95% percentile-bootstrap intervals, and paired bootstrap
tests of each ablated arm against `full` within a fine-tuning column and of the two columns for
each arm. Python 3 standard library only; it scores nothing itself.

    python3 collect.py --work WORK --unieval build/unieval --dest results/experiments/ernie-gen-ablation \\
        --arms full no-noise no-span no-both --modes noising masking [--resamples 1000] [--seed 12345]

Writes DEST/ablation.json (pre-training summaries and curves, every eval result with its CIs, the
paired tests, the exact commands) and DEST/table.md (the README table, Table 7's layout; "train
NLL" = the mean teacher-forced NLL of the last 10 logged fine-tuning steps: the word flow's over
every target word with noising fine-tuning, the masked words' with masking fine-tuning, so it
compares arms within a column only).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mini-unilm"))
import collect as mini  # noqa: E402  (run_eval, score_of, curve: the mini-UniLM experiment's)

SCORES = [("bleu4", "BLEU-4"), ("meteor", "MTR"), ("rougeL", "RG-L")]
ROWS = {"full": "1 ERNIE-GEN (full)", "no-noise": "2 − noise-aware", "no-span": "3 − span-by-span",
        "no-both": "4 − 2 and 3"}
COLUMNS = {"noising": "noising fine-tuning (ρ_f 0.7)", "masking": "masking fine-tuning (mask 0.7)"}


def run_eval(unieval, data, pred, resamples, seed, paired=None):
    return mini.run_eval(unieval, "squad-qg", data, pred, resamples, seed, paired=paired, split="test")


score_of, curve = mini.score_of, mini.curve


def cell(result, name):
    s = score_of(result, name) if result else None
    if not s:
        return "–"
    v, ci = s["value"] * 100.0, s.get("ci")
    return "%.2f [%.2f, %.2f]" % (v, ci["low"] * 100.0, ci["high"] * 100.0) if ci else "%.2f" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--unieval", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--arms", nargs="+", required=True)
    ap.add_argument("--modes", nargs="+", required=True)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12345)
    a = ap.parse_args()
    w = a.work
    cpath = os.path.join(w, "commands.json")
    out = {"work": w, "resamples": a.resamples, "seed": a.seed, "arms": {}, "runs": {}, "paired": [],
           "commands": json.load(open(cpath)) if os.path.exists(cpath) else {}}
    for arm in a.arms:
        pt = os.path.join(w, "pt-" + arm)
        e = {}
        for name in ("summary.json", "run.json"):
            p = os.path.join(pt, name)
            if os.path.exists(p):
                e["pretrain_" + name.split(".")[0]] = json.load(open(p))
        e["pretrain_curve"] = curve(os.path.join(pt, "log.jsonl"))
        out["arms"][arm] = e
    preds, data = {}, None
    for mode in a.modes:
        for arm in a.arms:
            run = os.path.join(w, "qg-%s-%s" % (mode, arm))
            if not os.path.exists(os.path.join(run, "result.json")):
                continue
            data = os.path.join(run, "eval", "src-eval.txt")
            pred = os.path.join(run, "eval", "pred.txt")
            preds[(mode, arm)] = pred
            r, cmd = run_eval(a.unieval, data, pred, a.resamples, a.seed)
            hyps = [l.rstrip("\n") for l in open(pred)]
            rows = [json.loads(l) for l in open(os.path.join(run, "log.jsonl")) if l.strip()]
            nll = [x["nll"] for x in rows if "nll" in x]
            out["runs"]["%s/%s" % (mode, arm)] = {
                "eval": r, "eval_command": cmd, "curve": curve(os.path.join(run, "log.jsonl")),
                "final_train_nll": sum(nll[-10:]) / len(nll[-10:]) if nll else None,
                "empty_predictions": sum(1 for h in hyps if not h.strip()), "predictions": len(hyps),
                "first_predictions": hyps[:5]}
    for (mode, arm), pred in preds.items():
        pairs = []
        if arm != "full" and (mode, "full") in preds:
            pairs.append(((mode, "full"), "full/" + mode))
        if mode == "noising" and ("masking", arm) in preds:
            pairs.append((("masking", arm), arm + "/masking"))
        for other, label in pairs:
            r, cmd = run_eval(a.unieval, data, pred, a.resamples, a.seed, paired=(preds[other], label))
            out["paired"].append({"system": "%s/%s" % (arm, mode), "baseline": label,
                                  "tests": r["paired_bootstrap"]["scores"], "command": cmd})
    os.makedirs(a.dest, exist_ok=True)
    for name, text in (("ablation.json", json.dumps(out, indent=1)), ("table.md", render(out, a))):
        tmp = os.path.join(a.dest, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(a.dest, name))
    print(render(out, a))


def render(out, a):
    head = ["#", "pre-training"]
    for mode in a.modes:
        head += ["%s %s" % (COLUMNS.get(mode, mode), label) for _, label in SCORES] + ["train NLL"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for arm in a.arms:
        summ = (out["arms"].get(arm) or {}).get("pretrain_summary") or {}
        row = [ROWS.get(arm, arm), arm]
        for mode in a.modes:
            r = out["runs"].get("%s/%s" % (mode, arm))
            row += [cell(r["eval"] if r else None, name) for name, _ in SCORES]
            row.append("%.3f" % r["final_train_nll"] if r and r.get("final_train_nll") is not None else "–")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Paired bootstrap p-values (%d resamples, seed %d; sacreBLEU's test):" % (out["resamples"], out["seed"]),
              "", "| system vs baseline | score | delta | p |", "|---|---|---:|---:|"]
    for t in out["paired"]:
        for s in t["tests"]:
            lines.append("| %s vs %s | %s | %+.2f | %.4f |" % (t["system"], t["baseline"], s["score"],
                                                              s["delta"] * 100.0, s["p_value"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
