#!/usr/bin/env python3
"""The collect stage of the mini-UniLM experiment (run.sh): every number of the table comes from
`unieval eval` on the predictions the arms' `unieval run` wrote, with 95% percentile-bootstrap
intervals (--bootstrap) and paired bootstrap tests between arms (--paired-pred, sacreBLEU's
paired test). Python 3 standard library only; it scores nothing itself.

    python3 collect.py --work WORK --unieval build/unieval --dest results/experiments/mini-unilm \\
        --arms none bidirectional unified [--resamples 1000] [--seed 12345]

Writes DEST/mini-unilm.json (pre-training summaries and curves, every eval result with its CIs,
the paired tests, the exact commands) and DEST/table.md (the README table).
"""
import argparse
import glob
import json
import os
import subprocess
import sys

QG_SCORES = [("bleu4", "BLEU-4"), ("meteor", "METEOR"), ("rougeL", "ROUGE-L")]


def run_eval(unieval, task, data, pred, resamples, seed, paired=None, split=None):
    cmd = [unieval, "eval", "--task", task, "--data", data, "--pred", pred, "--bootstrap", str(resamples),
           "--seed", str(seed), "--json"]
    if split:
        cmd += ["--split", split]
    if task == "squad-qg":
        # METEOR without its paraphrase stage: the paraphrase table is not obtainable offline.
        cmd += ["--option", "meteor_modules=exact,stem,synonym"]
    if paired:
        cmd += ["--paired-pred", paired[0], "--paired-system", paired[1]]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out), " ".join(cmd)


def score_of(result, name):
    for s in result["scores"]:
        if s["name"] == name:
            return s
    return None


def curve(path):
    if not os.path.exists(path):
        return []
    rows = [json.loads(l) for l in open(path) if l.strip()]
    keep = max(1, len(rows) // 200)  # about 200 points
    return [r for i, r in enumerate(rows) if i % keep == 0 or i == len(rows) - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--unieval", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--arms", nargs="+", required=True)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12345)
    a = ap.parse_args()
    work = a.work
    out = {"work": work, "resamples": a.resamples, "seed": a.seed, "arms": {}, "baselines": {},
           "paired": {"squad_qg": [], "sst2": []}}
    commands = json.load(open(os.path.join(work, "commands.json"))) if os.path.exists(
        os.path.join(work, "commands.json")) else {}
    out["commands"] = commands

    qg_pred, sst_pred = {}, {}
    qg_data = sst_data = None
    for arm in a.arms:
        entry = {}
        pt = os.path.join(work, "pt-" + arm)
        for name in ("summary.json", "run.json", "config.json"):
            p = os.path.join(pt, name)
            if os.path.exists(p):
                entry["pretrain_" + name.split(".")[0]] = json.load(open(p))
        entry["pretrain_curve"] = curve(os.path.join(pt, "log.jsonl"))
        qg = os.path.join(work, "qg-" + arm)
        if os.path.exists(os.path.join(qg, "result.json")):
            qg_data = os.path.join(qg, "eval", "src-eval.txt")
            qg_pred[arm] = os.path.join(qg, "eval", "pred.txt")
            run_result = json.load(open(os.path.join(qg, "result.json")))
            entry["squad_qg_run"] = {k: run_result.get(k) for k in ("scores", "run", "split", "data")}
            entry["squad_qg"], entry["squad_qg_eval_command"] = run_eval(
                a.unieval, "squad-qg", qg_data, qg_pred[arm], a.resamples, a.seed, split="test")
            entry["squad_qg_curve"] = curve(os.path.join(qg, "log.jsonl"))
        sst = os.path.join(work, "sst2-" + arm)
        if os.path.exists(os.path.join(sst, "result.json")):
            golds = glob.glob(os.path.join(sst, "eval", "*.tsv"))
            golds = [g for g in golds if not g.endswith("pred.tsv")]
            sst_data = golds[0]
            sst_pred[arm] = os.path.join(sst, "eval", "pred.tsv")
            entry["sst2"], entry["sst2_eval_command"] = run_eval(
                a.unieval, "glue-sst2", sst_data, sst_pred[arm], a.resamples, a.seed)
        out["arms"][arm] = entry

    # The constant-question baseline (run.sh's baseline stage wrote it).
    const = os.path.join(work, "baseline-constant", "pred.txt")
    if qg_data and os.path.exists(const):
        r, cmd = run_eval(a.unieval, "squad-qg", qg_data, const, a.resamples, a.seed, split="test")
        out["baselines"]["constant_question"] = {
            "question": open(os.path.join(work, "baseline-constant", "question.txt")).read().strip(),
            "squad_qg": r, "eval_command": cmd}
        qg_pred["constant"] = const

    # Paired tests: each arm against each arm listed before it, and every arm against the constant.
    order = [x for x in ("unified", "bidirectional", "none") if x in qg_pred] + \
        [x for x in qg_pred if x not in ("unified", "bidirectional", "none", "constant")] + \
        (["constant"] if "constant" in qg_pred else [])
    for i, sys_arm in enumerate(order):
        for base in order[i + 1:]:
            r, cmd = run_eval(a.unieval, "squad-qg", qg_data, qg_pred[sys_arm], a.resamples, a.seed,
                              paired=(qg_pred[base], base), split="test")
            out["paired"]["squad_qg"].append({"system": sys_arm, "baseline": base,
                                             "tests": r["paired_bootstrap"]["scores"], "command": cmd})
    sorder = [x for x in ("unified", "bidirectional", "none") if x in sst_pred]
    for i, sys_arm in enumerate(sorder):
        for base in sorder[i + 1:]:
            r, cmd = run_eval(a.unieval, "glue-sst2", sst_data, sst_pred[sys_arm], a.resamples, a.seed,
                              paired=(sst_pred[base], base))
            out["paired"]["sst2"].append({"system": sys_arm, "baseline": base,
                                         "tests": r["paired_bootstrap"]["scores"], "command": cmd})

    os.makedirs(a.dest, exist_ok=True)
    tmp = os.path.join(a.dest, "mini-unilm.json.tmp")
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, os.path.join(a.dest, "mini-unilm.json"))
    table = render_table(out)
    tmp = os.path.join(a.dest, "table.md.tmp")
    with open(tmp, "w") as f:
        f.write(table)
    os.replace(tmp, os.path.join(a.dest, "table.md"))
    print(table)


def cell(result, name, scale):
    s = score_of(result, name) if result else None
    if not s:
        return "–"
    v = s["value"] * scale
    ci = s.get("ci")
    if ci:
        return "%.2f [%.2f, %.2f]" % (v, ci["low"] * scale, ci["high"] * scale)
    return "%.2f" % v


def render_table(out):
    lines = ["| pre-training | tokens | QG BLEU-4 | QG METEOR | QG ROUGE-L | SST-2 acc. |",
             "|---|---:|---:|---:|---:|---:|"]
    for arm, e in out["arms"].items():
        summ = e.get("pretrain_summary") or {}
        tokens = summ.get("tokens_seen", 0)
        row = [arm, "{:,}".format(tokens) if tokens else "0"]
        for name, _ in QG_SCORES:
            row.append(cell(e.get("squad_qg"), name, 100.0))
        acc = e.get("sst2")
        row.append(cell(acc, "accuracy", 1.0) if acc and score_of(acc, "accuracy") and
                   score_of(acc, "accuracy")["unit"] == "percent" else cell(acc, "accuracy", 100.0))
        lines.append("| " + " | ".join(row) + " |")
    b = out["baselines"].get("constant_question")
    if b:
        row = ["constant question “%s”" % b["question"], "–"]
        for name, _ in QG_SCORES:
            row.append(cell(b["squad_qg"], name, 100.0))
        row.append("–")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Paired bootstrap p-values (%d resamples, seed %d; two-sided, sacreBLEU's test):" %
                 (out["resamples"], out["seed"]))
    lines.append("")
    lines.append("| system vs baseline | task | score | delta | p |")
    lines.append("|---|---|---|---:|---:|")
    for task, tests in out["paired"].items():
        for t in tests:
            for s in t["tests"]:
                scale = 100.0 if task == "squad_qg" else 1.0
                lines.append("| %s vs %s | %s | %s | %+.2f | %.4f |" % (
                    t["system"], t["baseline"], task, s["score"], s["delta"] * scale, s["p_value"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
