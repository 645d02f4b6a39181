#!/usr/bin/env python3
"""Fine-tuning seconds per step with and without --length-groups, on a real QG training set.

Random batches of Du's QG pairs pad every example to the batch's longest: with the from-scratch
recipe (batch 64, sources cut at 96 tokens, targets at 32) about half of the positions computed
are padding. `--length-groups K` computes each batch as K micro-batches of its examples sorted
by length, each padded to its own longest; the examples, the loss weighting and the updates are
the same. This script runs `unieval run --task squad-qg --preset squad-qg-scratch` for --steps
steps with K = 1 and with K = --groups, alternating the order over --rounds rounds, and reports
each side's median seconds per step over the steps after the first --skip (from RUN/log.jsonl's
elapsed_s), the speed-up, and both runs' per-step losses (they differ only by dropout draws).

usage: bench/length_groups_bench.py --data ../shared/data/squad_qg --vocab VOCAB.txt
         [--model-config tasks/scratch/squad-qg-scratch.config.json] [--groups 4] [--steps 40]
         [--skip 5] [--rounds 2] [--threads 1] [--binary build/unieval]
         [--out bench/results/DATE-length-groups.json]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    print(f"length_groups_bench.py: {msg}", file=sys.stderr)
    sys.exit(2)


def run_once(args, out, groups):
    cmd = [args.binary, "run", "--task", "squad-qg", "--preset", "squad-qg-scratch", "--data", args.data,
           "--train-split", "train", "--dev-split", "none", "--eval-limit", "1", "--model-config",
           args.model_config, "--vocab", args.vocab, "--steps", str(args.steps), "--threads", str(args.threads),
           "--skip-metric", "meteor", "--no-progress", "--json", "--out", out]
    if groups > 1:
        cmd += ["--length-groups", str(groups)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    steps = []
    with open(os.path.join(out, "log.jsonl")) as f:
        for line in f:
            row = json.loads(line)
            if "step" in row and "elapsed_s" in row and "loss" in row:
                steps.append(row)
    if len(steps) <= args.skip:
        fail(f"{out}/log.jsonl has {len(steps)} steps, not more than --skip {args.skip}")
    a, b = steps[args.skip - 1] if args.skip > 0 else {"elapsed_s": 0.0, "step": 0}, steps[-1]
    per_step = (b["elapsed_s"] - a["elapsed_s"]) / (b["step"] - a["step"])
    return per_step, [round(r["loss"], 6) for r in steps], " ".join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="a Du-format squad_qg folder (src-train.txt[.gz], ...)")
    ap.add_argument("--vocab", required=True, help="the model's vocab.txt")
    ap.add_argument("--model-config", default=os.path.join(REPO, "tasks", "scratch", "squad-qg-scratch.config.json"))
    ap.add_argument("--groups", type=int, default=4)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--skip", type=int, default=5, help="first steps left out of the timing")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--out", default=os.path.join(
        REPO, "bench", "results", datetime.date.today().isoformat() + "-length-groups.json"))
    args = ap.parse_args()
    for path, what in ((args.data, "--data"), (args.vocab, "--vocab"), (args.model_config, "--model-config"),
                       (args.binary, "--binary")):
        if not os.path.exists(path):
            fail(f"{what} {path}: no such file or folder")
    if args.groups < 2:
        fail("--groups must be at least 2 (1 is the baseline it is compared with)")
    if args.steps <= args.skip or args.skip < 0 or args.rounds < 1:
        fail("give --steps > --skip >= 0 and --rounds >= 1")

    times = {1: [], args.groups: []}
    losses, commands = {}, {}
    with tempfile.TemporaryDirectory(prefix="unieval_length_groups_") as d:
        for r in range(args.rounds):
            order = (1, args.groups) if r % 2 == 0 else (args.groups, 1)
            for g in order:
                per_step, loss, cmd = run_once(args, os.path.join(d, f"r{r}-g{g}"), g)
                times[g].append(per_step)
                losses.setdefault(g, loss)
                commands.setdefault(g, cmd)
                print(f"round {r + 1}, --length-groups {g}: {per_step:.3f} s/step", file=sys.stderr)
    base, grouped = statistics.median(times[1]), statistics.median(times[args.groups])
    result = {
        "benchmark": "length_groups",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "data": args.data, "steps": args.steps, "timed_steps": args.steps - args.skip, "threads": args.threads,
        "rounds": args.rounds,
        "seconds_per_step": {"groups_1": times[1], f"groups_{args.groups}": times[args.groups]},
        "median_seconds_per_step": {"groups_1": base, f"groups_{args.groups}": grouped},
        "speedup": base / grouped if grouped > 0 else None,
        "losses_first_round": {f"groups_{g}": v for g, v in losses.items()},
        "commands": {f"groups_{g}": c for g, c in commands.items()},
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    print(json.dumps({"median_seconds_per_step": result["median_seconds_per_step"], "speedup": result["speedup"],
                      "out": args.out}))


if __name__ == "__main__":
    main()
