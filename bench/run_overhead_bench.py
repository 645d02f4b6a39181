#!/usr/bin/env python3
"""What `unieval run` costs over the same job done by hand: `finetune` + `decode` + `eval`.

A small squad-qg job (a templated Du-format fixture written here: 200 training and 40 test
pairs, a tiny model from scratch, 60 steps, greedy decoding as the squad-qg preset) is run
  A. as one command:  unieval run --task squad-qg --data QG ... --dev-split none
  B. as the three commands of the manual route on the files `run` converts (RUN/data, RUN/eval):
     unieval finetune --preset squad-qg --data RUN/data ...; unieval decode --split eval
     --no-clean-up ...; unieval eval --task squad-qg --data RUN/eval/src-eval.txt --pred HYP
Both with the same training and decoding flags and threads. Rounds alternate (A B, B A, ...);
each side's median wall time is reported with the overhead (A / B - 1, the issue's limit is
2%) and whether the two routes gave the same hypotheses and scores. A includes its data stage
(reading and converting the task's files), B does not (it reuses A's conversion).

usage: bench/run_overhead_bench.py [--binary build/unieval] [--rounds 5] [--threads 2]
                                   [--out bench/results/DATE-run-overhead.json]
"""
import argparse
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TRAIN = ["--steps", "60", "--batch-size", "16", "--lr", "2e-3", "--warmup", "0.1",
         "--max-src-len", "12", "--max-tgt-len", "10"]
DECODE = ["--max-len", "10"]


def write_fixture(d):
    nouns = ["cat", "dog", "king", "queen", "farmer", "pilot", "judge", "baker"]
    verbs = ["see", "find", "build", "paint", "sell", "hold"]
    objs = ["house", "boat", "map", "tree", "bridge", "wall", "car"]
    rng = random.Random(7)
    qg = os.path.join(d, "qg")
    os.makedirs(qg)
    for split, n in (("train", 200), ("dev", 20), ("test", 40)):
        src, tgt = [], []
        for _ in range(n):
            a, v, o = rng.choice(nouns), rng.choice(verbs), rng.choice(objs)
            src.append(f"the {a} {v} the {o} .")
            tgt.append(f"what did the {a} {v} ?")
        with open(os.path.join(qg, f"src-{split}.txt"), "w") as f:
            f.write("\n".join(src) + "\n")
        with open(os.path.join(qg, f"tgt-{split}.txt"), "w") as f:
            f.write("\n".join(tgt) + "\n")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "what", "did", ".", "?"] + nouns + verbs + objs
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    cfg = {"vocab_size": len(vocab), "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
           "intermediate_size": 64, "max_position_embeddings": 40, "hidden_dropout_prob": 0.0,
           "attention_probs_dropout_prob": 0.0}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    return qg


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return wall, p.stdout


def last_json(out):
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(
        REPO, "bench", "results", datetime.date.today().isoformat() + "-run-overhead.json"))
    args = ap.parse_args()
    exe = args.binary
    common = ["--threads", str(args.threads), "--no-progress"]
    with tempfile.TemporaryDirectory(prefix="unieval_run_bench_") as d:
        qg = write_fixture(d)
        cfg, vocab = os.path.join(d, "config.json"), os.path.join(d, "vocab.txt")

        def route_run(i):
            out = os.path.join(d, f"run{i}")
            wall, stdout = timed([exe, "run", "--task", "squad-qg", "--data", qg, "--out", out, "--model-config", cfg,
                                  "--vocab", vocab, "--dev-split", "none", "--train-limit", "200", "--eval-limit", "40",
                                  *TRAIN, *DECODE, *common, "--json"])
            res = last_json(stdout)
            with open(os.path.join(out, "eval", "hyp.txt")) as f:
                hyps = f.read()
            return wall, res["summary"], hyps, out

        # A first run converts the data the manual route reuses (and warms the page cache).
        _, _, _, conv = route_run("0")
        data_dir, eval_dir = os.path.join(conv, "data"), os.path.join(conv, "eval")

        def route_manual(i):
            out = os.path.join(d, f"manual{i}")
            hyp = os.path.join(out, "hyp.txt")
            w1, _ = timed([exe, "finetune", "--task", "squad-qg", "--preset", "squad-qg", "--data", data_dir, "--out", out,
                           "--model-config", cfg, "--vocab", vocab, *TRAIN, *common])
            w2, _ = timed([exe, "decode", "--run", out, "--split", "eval", "--data", data_dir, "--out", hyp,
                           "--no-clean-up", *DECODE, *common])
            w3, stdout = timed([exe, "eval", "--task", "squad-qg", "--data", os.path.join(eval_dir, "src-eval.txt"),
                                "--pred", hyp, "--json"])
            with open(hyp) as f:
                hyps = f.read()
            return w1 + w2 + w3, last_json(stdout)["summary"], hyps, (w1, w2, w3)

        walls = {"run": [], "manual": []}
        parts = []
        same = True
        for r in range(args.rounds):
            order = ("run", "manual") if r % 2 == 0 else ("manual", "run")
            got = {}
            for side in order:
                if side == "run":
                    w, summ, hyps, out = route_run(f"r{r}")
                    shutil.rmtree(out)
                else:
                    w, summ, hyps, p = route_manual(f"m{r}")
                    parts.append(p)
                    shutil.rmtree(os.path.join(d, f"manualm{r}"))
                walls[side].append(w)
                got[side] = (summ, hyps)
            same &= got["run"][1] == got["manual"][1] and got["run"][0] == got["manual"][0]
            print(f"round {r + 1}: run {walls['run'][-1]:.2f} s, finetune+decode+eval {walls['manual'][-1]:.2f} s",
                  file=sys.stderr)

    med = {k: statistics.median(v) for k, v in walls.items()}
    result = {
        "bench": "run_overhead",
        "date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "threads": args.threads},
        "job": "squad-qg fixture: 200 train / 40 test pairs, tiny model (2x32) from scratch, 60 steps, "
               "greedy decoding (squad-qg preset), no dev split",
        "rounds": args.rounds,
        "wall_s": walls,
        "manual_parts_s": [{"finetune": a, "decode": b, "eval": c} for a, b, c in parts],
        "median_s": med,
        "overhead": med["run"] / med["manual"] - 1.0,
        "limit": 0.02,
        "same_hypotheses_and_scores": same,
        "note": "run includes its data stage (reading and converting the task's files); the manual route "
                "reuses run's converted files",
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(json.dumps({"median_s": med, "overhead": result["overhead"], "same": same}))


if __name__ == "__main__":
    main()
