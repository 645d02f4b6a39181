#!/usr/bin/env python3
"""vote.sh's summary of SST-2's nine-member vote (issue #36): members, votes, tests, wall time.

    vote_summary.py --work WORK --members ft-p42-f42 ... --pt-seeds 42 43 44 --best ft-pP-fF
                    --out WORK/vote/vote.json

Reads each member's result.json (dev accuracy), WORK/vote/{against-best,against-majority,pP}.json
(`unieval eval --json` of the votes), the pre-training runs' log.jsonl and WORK/walls.jsonl, and
writes one JSON file (temp file, then rename). Wall time: a pre-training run's is the sum over its
segments (one per call; `elapsed_s` restarts at each --resume) of the last logged `elapsed_s`, so a
call killed before it returned still counts up to its last step; a fine-tuning run's is the sum of
its calls in walls.jsonl. The plan's target: the vote >= 83.00 and all runs within 3 hours of the 2
cores (6 hours of one-thread calls).
"""
import argparse
import json
import math
import os
import sys


def fail(msg):
    print("vote_summary.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    except ValueError as e:
        fail("%s: not JSON (%s)" % (path, e))


def jsonl(path):
    rows = []
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            if no == len(lines):  # a last line still being written
                continue
            fail("%s:%d: not JSON" % (path, no))
    return rows


def pretrain_seconds(log_path):
    """Sum over the run's calls of the last elapsed_s each logged, and the number of calls."""
    total, last, calls = 0.0, None, 0
    for r in jsonl(log_path):
        e = r.get("elapsed_s")
        if e is None:
            continue
        if last is None or e < last:  # a new call (elapsed_s restarts)
            if last is not None:
                total += last
            calls += 1
        last = e
    return total + (last or 0.0), calls


def accuracy(result):
    return 100.0 * result["summary"]["accuracy"]


def mean_sd(xs):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--members", nargs="+", required=True)
    ap.add_argument("--pt-seeds", nargs="+", required=True)
    ap.add_argument("--best", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    w = a.work

    members = []
    for m in a.members:
        r = load(os.path.join(w, m, "result.json"))
        majority = next((b for b in r.get("baselines", []) if b.get("name") == "majority"), None)
        members.append({"run": m, "accuracy": round(accuracy(r), 2),
                        "p_against_majority": majority["paired_bootstrap"]["scores"][0]["p_value"] if majority else None})
    mean, sd = mean_sd([x["accuracy"] for x in members])

    vs_best = load(os.path.join(w, "vote", "against-best.json"))
    vs_major = load(os.path.join(w, "vote", "against-majority.json"))
    score = vs_best["scores"][0]
    vote_acc = round(100.0 * score["value"], 2)
    per_seed = {}
    for s in a.pt_seeds:
        per_seed["p" + s] = round(accuracy(load(os.path.join(w, "vote", "p%s.json" % s))), 2)

    def paired(doc):
        pb = doc["paired_bootstrap"]
        sc = pb["scores"][0]
        return {"baseline": pb["baseline"], "baseline_accuracy": round(100 * sc["baseline"], 2),
                "delta": round(100 * sc["delta"], 2), "p_value": sc["p_value"],
                "resamples": pb["resamples"], "seed": pb["seed"]}

    walls = {}
    if os.path.exists(os.path.join(w, "walls.jsonl")):
        for r in jsonl(os.path.join(w, "walls.jsonl")):
            walls.setdefault(r["name"], []).append(r)
    runs = []
    for s in a.pt_seeds:
        secs, calls = pretrain_seconds(os.path.join(w, "pt-s%s" % s, "log.jsonl"))
        runs.append({"run": "pt-s%s" % s, "seconds": round(secs, 1), "calls": calls, "source": "log.jsonl elapsed_s"})
    for run in a.members:
        p, f = run.split("-")[1], run.split("-")[2]  # ft-pP-fF
        calls = walls.get("finetune %s %s" % (p, f), [])
        runs.append({"run": run, "seconds": round(sum(c["seconds"] for c in calls), 1), "calls": len(calls),
                     "source": "walls.jsonl"})
    total = sum(r["seconds"] for r in runs)
    two_core_hours = total / 2 / 3600
    out = {
        "what": "issue #36: the nine-member majority vote on SST-2 dev planned in session 41 "
                "(results/experiments/from-scratch/glue-sst2/sweep.md); vote.sh",
        "members": members,
        "members_mean": round(mean, 2), "members_sd": round(sd, 2),
        "best_member": a.best,
        "vote": {"members": len(members), "accuracy": vote_acc,
                 "ci95": [round(100 * score["ci"]["low"], 2), round(100 * score["ci"]["high"], 2)] if "ci" in score else None,
                 "against_best_member": paired(vs_best), "against_majority": paired(vs_major)},
        "vote_per_pretraining_seed": per_seed,
        "wall": {"runs": runs, "one_thread_seconds": round(total, 1), "two_core_hours": round(two_core_hours, 3)},
        "target": {"vote_at_least": 83.0, "two_core_hours_at_most": 3.0,
                   "met": vote_acc >= 83.0 and two_core_hours <= 3.0},
    }
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
