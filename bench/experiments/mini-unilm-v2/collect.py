#!/usr/bin/env python3
"""The collect stage of the mini-UniLM v2 experiment (run.sh): every number comes from the runs'
own files or from `unieval eval` on their predictions (95% percentile-bootstrap intervals with
--bootstrap; sacreBLEU's paired bootstrap with --paired-pred). Python 3 standard library only.

    python3 collect.py --work WORK --unieval build/unieval --dest results/experiments/mini-unilm-v2 \\
        --arms none bidirectional unified seq2seq --pt-seeds 42 --ft-seeds 42 43 44

The decision rule, fixed in the design before the runs: arm A is called better than arm B on a
score only if A's value is higher and the paired bootstrap p < 0.05 in every (pre-training,
fine-tuning) seed pair; worse likewise; otherwise "not separated" (never "equal").
Writes DEST/mini-unilm-v2.json, DEST/table.md and, with `unieval plot`, one SVG of loss curves per run
found: DEST/pretrain-ARM-pPS.svg, DEST/qg-ARM-pPS-fFS.svg and DEST/sst2-ARM-pPS-fFS.svg.

With --keep KEEP (run.sh passes it), a run gone with a replaced machine is read from what keep.py
kept of it: a fine-tune is restored into WORK, a pre-training run is read in place; predictions
without the run's copy of the evaluated data are scored against --shared (its split as the run's
result.json names it).
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile

import keep as kept_runs
from gate import mean_mlm_tail

QG_SCORES = [("bleu4", "BLEU-4"), ("rougeL", "ROUGE-L")]


def load(path):
    with open(path) as f:
        return json.load(f)


def run_eval(unieval, task, data, pred, resamples, seed, paired=None, split=None):
    cmd = [unieval, "eval", "--task", task, "--data", data, "--pred", pred, "--bootstrap", str(resamples),
           "--seed", str(seed), "--json"]
    if split:
        cmd += ["--split", split]
    if task == "squad-qg":
        cmd += ["--skip-metric", "meteor"]
    if paired:
        cmd += ["--paired-pred", paired[0], "--paired-system", paired[1]]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("collect.py: `%s` failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1]), " ".join(cmd)


def log_path(run):
    """RUN/log.jsonl, or the gzipped copy keep.py made of it (RUN/log.jsonl.gz)."""
    for name in ("log.jsonl", "log.jsonl.gz"):
        if os.path.exists(os.path.join(run, name)):
            return os.path.join(run, name)
    return os.path.join(run, "log.jsonl")


def read_bytes(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        return f.read()


def eval_data(run, name, result, shared, task_dir, split="test"):
    """(--data, --split) of a finished run's evaluation: the run's own copy of the evaluated data
    (RUN/eval/NAME), else, for a run restored by keep.py, the shared data at the split its
    result.json names (the same rows: the run evaluated the whole split)."""
    own = os.path.join(run, "eval", name)
    if os.path.exists(own):
        return own, split
    if not shared:
        sys.exit("collect.py: %s: no %s (a kept run) and no --shared to score it against" % (run, own))
    return os.path.join(shared, task_dir), result.get("split") or split


def plot(unieval, run, dest, name):
    """Draws RUN/log.jsonl with `unieval plot` as DEST/NAME; returns NAME, or None without a log.

    A run may still be appending to its log, so only its complete lines are drawn (from a copy)."""
    log = log_path(run)
    if not os.path.exists(log):
        return None
    text = read_bytes(log)
    text = text[:text.rfind(b"\n") + 1]
    if not text:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "log.jsonl"), "wb") as f:
            f.write(text)
        subprocess.run([unieval, "plot", "--run", tmp, "--out", os.path.join(dest, name), "--title",
                        os.path.basename(os.path.normpath(run))], check=True, capture_output=True)
    return name


def score(result, name):
    for s in result.get("scores", []):
        if s["name"] == name:
            return s
    return None


def jsonl(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in read_bytes(path).decode("utf-8").splitlines() if l.strip()]


def thin(rows, n=200):
    keep = max(1, len(rows) // n)
    return [r for i, r in enumerate(rows) if i % keep == 0 or i == len(rows) - 1]


def mean_sd(values):
    if not values:
        return None
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else None
    return {"mean": m, "sd": sd, "n": len(values), "values": values}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--unieval", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--arms", nargs="+", required=True)
    ap.add_argument("--pt-seeds", nargs="+", required=True)
    ap.add_argument("--ft-seeds", nargs="+", required=True)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12345, help="bootstrap seed")
    ap.add_argument("--keep", help="what keep.py kept of finished runs (run.sh's KEEP)")
    ap.add_argument("--shared", help="../shared/data: the evaluated data of restored predictions")
    a = ap.parse_args()
    w = a.work
    out = {"work": w, "resamples": a.resamples, "bootstrap_seed": a.seed, "arms": a.arms,
           "pt_seeds": a.pt_seeds, "ft_seeds": a.ft_seeds, "pretrain": {}, "qg": {}, "sst2": {},
           "qg_baselines": {}, "sst2_baselines": {}, "paired": {"qg": [], "sst2": []}, "decisions": []}
    for name in ("entropy.json", "vocab.json", "corpus/stats.json", "commands.json"):
        p = os.path.join(w, name)
        if os.path.exists(p):
            out[name.split("/")[-1].split(".")[0]] = load(p)

    # Pre-training: final losses against the unigram plateau, curves; a run gone with its machine
    # is read from its kept files.
    pt_dirs = {}
    for ps in a.pt_seeds:
        for arm in a.arms:
            name = "pt-%s-p%s" % (arm, ps)
            pt, e = os.path.join(w, name), {}
            if a.keep and not os.path.exists(os.path.join(pt, "run.json")) and \
                    os.path.exists(os.path.join(a.keep, name, "run.json")):
                pt, e = os.path.join(a.keep, name), {"kept": True}
            pt_dirs[(arm, ps)] = pt
            if os.path.exists(os.path.join(pt, "summary.json")):
                e["summary"] = load(os.path.join(pt, "summary.json"))
            log = [r for r in jsonl(log_path(pt)) if "loss" in r]
            e["curve"] = thin(log)
            if log:
                tail = log[-50:]  # the last 50 steps' mean: one step's loss is noisy
                e["final_loss_mean_last50"] = sum(r["loss"] for r in tail) / len(tail)
                # The masked-token cross-entropy alone (no NSP): the quantity the plateau is about,
                # as gate.py computes it.
                e["final_mlm_mean_last50"] = mean_mlm_tail(log, 50)[0]
                # Per objective (the unified arm mixes four masks; each step logs the ones it drew).
                per = {}
                for r in log[-200:]:
                    for k, v in r.items():
                        if k.startswith("loss_"):
                            per.setdefault(k[5:], []).append(v)
                e["final_objective_loss_mean_last200"] = {k: sum(v) / len(v) for k, v in sorted(per.items())}
                e["last_step"] = log[-1].get("step")
            if os.path.exists(os.path.join(pt, "run.json")):
                rj = load(os.path.join(pt, "run.json"))
                e["tokens"] = rj.get("train", {}).get("tokens")  # the budget (input positions)
                e["budget_changes"] = rj.get("budget_changes", [])
            out["pretrain"]["%s/p%s" % (arm, ps)] = e
        # gate.py's decision before fine-tuning (run.sh's qg and sst2 stages).
        g = os.path.join(w, "gate-p%s.json" % ps)
        if a.keep and not os.path.exists(g):
            g = os.path.join(a.keep, "gate-p%s.json" % ps)
        if os.path.exists(g):
            out.setdefault("gate", {})["p%s" % ps] = load(g)

    # Fine-tuning runs.
    qg_pred, qg_data, sst_pred, sst_data = {}, None, {}, None
    for ps in a.pt_seeds:
        for fs in a.ft_seeds:
            for arm in a.arms:
                key = "%s/p%s/f%s" % (arm, ps, fs)
                run = os.path.join(w, "qg-%s-p%s-f%s" % (arm, ps, fs))
                if a.keep:
                    for name in ("qg", "sst2"):
                        kept_runs.restore(w, "%s-%s-p%s-f%s" % (name, arm, ps, fs), a.keep)
                dev = [x for x in jsonl(os.path.join(run, "log.jsonl")) if "dev_loss" in x]
                marker = os.path.join(w, "qg-%s-p%s-f%s.pretrain.json" % (arm, ps, fs))
                budget = out["pretrain"].get("%s/p%s" % (arm, ps), {}).get("tokens")
                done = os.path.exists(os.path.join(run, "result.json"))
                if os.path.exists(marker) and load(marker).get("tokens") != budget:
                    # Fine-tuned from a pre-training budget the design's rule has since raised.
                    # (A pre-training run neither in WORK nor kept has no budget: stale too.)
                    out.setdefault("stale", []).append({"run": run, "pretrained_from": load(marker),
                                                        "pretrain_tokens_now": budget})
                    dev, done = [], False
                if dev and not done:
                    # Trained (dev losses logged) but no test decoding finished: the dev NLL counts,
                    # the test scores do not exist.
                    steps = [x for x in jsonl(os.path.join(run, "log.jsonl")) if "loss" in x]
                    out["qg"][key] = {"status": "test decoding not finished", "dev_curve": dev,
                                      "best_dev_loss": min(x["dev_loss"] for x in dev),
                                      "last_step": steps[-1]["step"] if steps else None,
                                      "train_seconds": steps[-1].get("elapsed_s") if steps else None}
                if done:
                    r = load(os.path.join(run, "result.json"))
                    qg_data = eval_data(run, "src-eval.txt", r, a.shared, "squad_qg")
                    qg_pred[key] = os.path.join(run, "eval", "pred.txt")
                    e = {"run": {k: r.get(k) for k in ("scores", "summary", "notes")},
                         "diagnostics": {k: v for k, v in r.get("run", {}).items()
                                         if k in ("empty_hypotheses", "repeated_hypotheses", "mean_length",
                                                  "reference_mean_length", "train", "train_examples")},
                         "dev_curve": dev, "best_dev_loss": min((x["dev_loss"] for x in dev), default=None),
                         "baseline_tests": {b["name"]: b.get("paired_bootstrap") for b in r.get("baselines", [])}}
                    e["eval"], e["eval_command"] = run_eval(a.unieval, "squad-qg", qg_data[0], qg_pred[key],
                                                            a.resamples, a.seed, split=qg_data[1])
                    if os.path.exists(os.path.join(run, kept_runs.MARK)):
                        e["kept"] = True  # restored from KEEP: its machine is gone
                        if e["eval"]["data"].get("examples") != r.get("data", {}).get("examples"):
                            sys.exit("collect.py: %s: the shared split has %s examples, the run evaluated %s"
                                     % (run, e["eval"]["data"].get("examples"), r.get("data", {}).get("examples")))
                    out["qg"][key] = e
                    if os.path.exists(marker):  # the pre-training budget and step it started from (run.sh)
                        e["pretrained_from"] = load(marker)
                    for b in r.get("baselines", []):
                        if b["name"] not in out["qg_baselines"]:
                            out["qg_baselines"][b["name"]] = {"description": b.get("description"),
                                                              "summary": b.get("summary"), "pred": b.get("pred")}
                run = os.path.join(w, "sst2-%s-p%s-f%s" % (arm, ps, fs))
                marker = os.path.join(w, "sst2-%s-p%s-f%s.pretrain.json" % (arm, ps, fs))
                if os.path.exists(marker) and load(marker).get("tokens") != budget:
                    out.setdefault("stale", []).append({"run": run, "pretrained_from": load(marker),
                                                        "pretrain_tokens_now": budget})
                elif os.path.exists(os.path.join(run, "result.json")):
                    r = load(os.path.join(run, "result.json"))
                    sst_pred[key] = os.path.join(run, "eval", "pred.tsv")
                    # The evaluated rows, as the run wrote them (or the shared split, restored).
                    sst_data = eval_data(run, "gold.tsv", r, a.shared, "glue/SST-2", split=None)
                    out["sst2"][key] = {"summary": r.get("summary"), "scores": r.get("scores")}
                    if os.path.exists(os.path.join(run, kept_runs.MARK)):
                        out["sst2"][key]["kept"] = True
                    if os.path.exists(marker):
                        out["sst2"][key]["pretrained_from"] = load(marker)
                    for b in r.get("baselines", []):
                        out["sst2_baselines"].setdefault(b["name"], {"description": b.get("description"),
                                                                     "summary": b.get("summary")})

    # Paired tests between arms, per seed pair.
    for ps in a.pt_seeds:
        for fs in a.ft_seeds:
            arms = [x for x in a.arms if "%s/p%s/f%s" % (x, ps, fs) in qg_pred]
            for i, sa in enumerate(arms):
                for sb in arms[i + 1:]:
                    ka, kb = ("%s/p%s/f%s" % (x, ps, fs) for x in (sa, sb))
                    r, cmd = run_eval(a.unieval, "squad-qg", qg_data[0], qg_pred[ka], a.resamples, a.seed,
                                      paired=(qg_pred[kb], sb), split=qg_data[1])
                    out["paired"]["qg"].append({"system": sa, "baseline": sb, "pt_seed": ps, "ft_seed": fs,
                                                "tests": r["paired_bootstrap"]["scores"], "command": cmd})
            arms = [x for x in a.arms if "%s/p%s/f%s" % (x, ps, fs) in sst_pred]
            for i, sa in enumerate(arms):
                for sb in arms[i + 1:]:
                    ka, kb = ("%s/p%s/f%s" % (x, ps, fs) for x in (sa, sb))
                    r, cmd = run_eval(a.unieval, "glue-sst2", sst_data[0], sst_pred[ka], a.resamples, a.seed,
                                      paired=(sst_pred[kb], sb), split=sst_data[1])
                    out["paired"]["sst2"].append({"system": sa, "baseline": sb, "pt_seed": ps, "ft_seed": fs,
                                                  "tests": r["paired_bootstrap"]["scores"], "command": cmd})

    # Decisions: one per (task, arm pair, score) over every seed pair.
    groups = {}
    for task, tests in out["paired"].items():
        for t in tests:
            for s in t["tests"]:
                groups.setdefault((task, t["system"], t["baseline"], s["score"]), []).append(s)
    for (task, sa, sb, name), ss in sorted(groups.items()):
        if all(s["p_value"] < 0.05 and s["delta"] > 0 for s in ss):
            verdict = "%s better" % sa
        elif all(s["p_value"] < 0.05 and s["delta"] < 0 for s in ss):
            verdict = "%s better" % sb
        else:
            verdict = "not separated"
        # An arm the gate fine-tuned above the bar (at the budget cap) qualifies every verdict it is in.
        above = sorted({x for g in out.get("gate", {}).values() for x in g.get("above_bar", [])} & {sa, sb})
        out["decisions"].append({"task": task, "a": sa, "b": sb, "score": name, "seed_pairs": len(ss),
                                 "deltas": [s["delta"] for s in ss], "p_values": [s["p_value"] for s in ss],
                                 "verdict": verdict, "above_bar": above})

    # Across seeds: mean +- sd per arm.
    out["across_seeds"] = {}
    for arm in a.arms:
        row = {}
        for name, _ in QG_SCORES:
            vals = [score(e["eval"], name)["value"] * 100 for k, e in out["qg"].items()
                    if k.startswith(arm + "/") and "eval" in e and score(e["eval"], name)]
            row["qg_" + name] = mean_sd(vals)
        row["qg_dev_loss"] = mean_sd([e["best_dev_loss"] for k, e in out["qg"].items()
                                      if k.startswith(arm + "/") and e["best_dev_loss"] is not None])
        row["sst2_accuracy"] = mean_sd([e["summary"]["accuracy"] * 100 for k, e in out["sst2"].items()
                                        if k.startswith(arm + "/") and e.get("summary")])
        out["across_seeds"][arm] = row

    # Loss curves, one SVG per run folder that has a log.
    os.makedirs(a.dest, exist_ok=True)
    out["curves"] = {}
    for ps in a.pt_seeds:
        for arm in a.arms:
            runs = [("pretrain", "pt-%s-p%s" % (arm, ps), "pretrain-%s-p%s.svg" % (arm, ps))]
            runs += [(kind, "%s-%s-p%s-f%s" % (kind, arm, ps, fs), "%s-%s-p%s-f%s.svg" % (kind, arm, ps, fs))
                     for kind in ("qg", "sst2") for fs in a.ft_seeds]
            for kind, folder, name in runs:
                drawn = plot(a.unieval, pt_dirs[(arm, ps)] if kind == "pretrain" else os.path.join(w, folder),
                             a.dest, name)
                if drawn:
                    out["curves"][folder] = drawn

    tmp = os.path.join(a.dest, "mini-unilm-v2.json.tmp")
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, os.path.join(a.dest, "mini-unilm-v2.json"))
    table = render(out)
    tmp = os.path.join(a.dest, "table.md.tmp")
    with open(tmp, "w") as f:
        f.write(table)
    os.replace(tmp, os.path.join(a.dest, "table.md"))
    print(table)


def fmt_delta(points):
    """A paired difference in points: two decimals, or two significant digits when it would print
    as +0.00 or -0.00 (a verdict can rest on a difference that small; the table must show it)."""
    if points != 0 and abs(points) < 0.005:
        return "%+.2g" % points
    return "%+.2f" % points


def fmt(ms, digits=2):
    if not ms:
        return "–"
    if ms["sd"] is None:
        return "%.*f (n=1)" % (digits, ms["mean"])
    return "%.*f ± %.*f (n=%d)" % (digits, ms["mean"], digits, ms["sd"], ms["n"])


def render(out):
    ent = out.get("entropy", {}).get("unigram_entropy_nats")
    lines = ["Unigram plateau of the corpus: %s nats." % ("%.3f" % ent if ent else "–"), "",
             "| pre-training | masked-token loss, last 50 steps (nats) | QG dev NLL (best) | QG BLEU-4 | QG ROUGE-L | SST-2 acc. |",
             "|---|---:|---:|---:|---:|---:|"]
    for ps, g in sorted(out.get("gate", {}).items()):
        lines[2:2] = ["Pre-training gate (%s): bar %.3f nats, budget %d positions per trained arm (cap %d): %s." % (
            ps, g["bar"], g["tokens"], g["cap"], g["decision"]), ""]
    for arm in out["arms"]:
        losses = [e.get("final_mlm_mean_last50") for k, e in out["pretrain"].items() if k.startswith(arm + "/")]
        losses = [x for x in losses if x is not None]
        r = out["across_seeds"][arm]
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            arm, ", ".join("%.3f" % x for x in losses) or "–", fmt(r["qg_dev_loss"], 3), fmt(r["qg_bleu4"]),
            fmt(r["qg_rougeL"]), fmt(r["sst2_accuracy"])))
    for name, b in out["qg_baselines"].items():
        s = b.get("summary") or {}
        lines.append("| baseline: %s | – | – | %s | %s | – |" % (
            name, "%.2f" % (s["bleu4"] * 100) if "bleu4" in s else "–",
            "%.2f" % (s["rougeL"] * 100) if "rougeL" in s else "–"))
    for name, b in out["sst2_baselines"].items():
        s = b.get("summary") or {}
        lines.append("| baseline: %s | – | – | – | – | %s |" % (
            name, "%.2f" % (s["accuracy"] * 100) if "accuracy" in s else "–"))
    if out.get("stale"):
        lines += ["", "Left out, fine-tuned from a pre-training budget since raised: %s." % ", ".join(
            "%s (%s positions, the arm now %s)" % (os.path.basename(x["run"]), x["pretrained_from"].get("tokens"),
                                                   x["pretrain_tokens_now"]) for x in out["stale"])]
    unfinished = sorted(k for k, e in out["qg"].items() if e.get("status"))
    if unfinished:
        lines += ["", "QG runs trained to the end whose test decoding did not finish (their dev NLL counts, "
                  "they have no test scores): %s." % ", ".join(unfinished)]
    lines += ["", "QG dev NLL (nats per target token, first 2,000 Du dev pairs) per fine-tuning run:", "",
              "| pre-training | " + " | ".join("p%s f%s" % (ps, fs) for ps in out["pt_seeds"] for fs in out["ft_seeds"]) + " |",
              "|---|" + "---:|" * (len(out["pt_seeds"]) * len(out["ft_seeds"]))]
    for arm in out["arms"]:
        cells = []
        for ps in out["pt_seeds"]:
            for fs in out["ft_seeds"]:
                e = out["qg"].get("%s/p%s/f%s" % (arm, ps, fs))
                cells.append("%.4f" % e["best_dev_loss"] if e and e.get("best_dev_loss") is not None else "–")
        lines.append("| %s | %s |" % (arm, " | ".join(cells)))
    lines += ["", "Decisions (p < 0.05 with the same sign in every seed pair; otherwise not separated):", "",
              "| task | arms | score | deltas | p-values | verdict |", "|---|---|---|---|---|---|"]
    for d in out["decisions"]:
        scale = 100.0  # both tasks' scores are fractions; the table shows points
        lines.append("| %s | %s vs %s | %s | %s | %s | %s |" % (
            d["task"], d["a"], d["b"], d["score"], ", ".join(fmt_delta(x * scale) for x in d["deltas"]),
            ", ".join("%.4f" % p for p in d["p_values"]),
            d["verdict"] + ("" if not d.get("above_bar") else
                            " (%s pre-trained above the bar)" % " and ".join(d["above_bar"]))))
    if out.get("curves"):
        lines += ["", "Loss curves (`unieval plot` of each run's log.jsonl): " +
                  ", ".join("[%s](%s)" % (k, v) for k, v in sorted(out["curves"].items())) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
