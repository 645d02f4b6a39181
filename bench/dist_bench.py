#!/usr/bin/env python3
"""Data-parallel fine-tuning speed: `unieval finetune --nproc N` for N = 1, 2 Gloo ranks on the
demo's model (pipelines/seq2seq.cc DemoOptions: hidden 64, 2 layers, 4 heads, 32 positions) and
the demo's task (reverse 3-6 pseudo-words), one thread per rank, the same global batch for every
N (--accum 2 micro-batches of --batch-size examples: rank r computes micro-batch r).

    python3 bench/dist_bench.py --steps 60 --out bench/results/$(date +%F)-dist-cpu2.json

Reports per N: tokens/s (the loop's own figure: non-padding input tokens of all ranks per second
of training), wall seconds of the whole command (start-up and rendezvous included), and the
all-reduce seconds per step (log.jsonl "allreduce_s": the gradient all-reduce only, which also
absorbs the wait for the slower rank). Standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_task(d, n_train, seed=1):
    """The demo's kind of task: reverse 3-6 pseudo-words (24 words)."""
    rng = random.Random(seed)
    words = ["w%02d" % i for i in range(24)]
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words) + "\n")
    src, tgt = [], []
    for _ in range(n_train):
        s = [rng.choice(words) for _ in range(rng.randint(3, 6))]
        src.append(" ".join(s))
        tgt.append(" ".join(reversed(s)))
    for name, lines in (("train.src", src), ("train.tgt", tgt)):
        with open(os.path.join(d, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 5 + len(words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unieval", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=64, help="examples per micro-batch (the demo's 64)")
    ap.add_argument("--nproc", default="1,2")
    ap.add_argument("--repeat", type=int, default=2, help="runs per N (the best is reported)")
    ap.add_argument("--note", default="")
    ap.add_argument("--out", required=True, help="result JSON")
    a = ap.parse_args()
    results = []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        vocab_size = write_task(data, 2000)
        cfg = os.path.join(tmp, "config.json")
        with open(cfg, "w") as f:
            json.dump({"vocab_size": vocab_size, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                       "intermediate_size": 128, "max_position_embeddings": 32, "type_vocab_size": 2,
                       "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}, f)
        for n in [int(x) for x in a.nproc.split(",")]:
            runs = []
            for k in range(a.repeat):
                out = os.path.join(tmp, "run-%d-%d" % (n, k))
                cmd = [a.unieval, "finetune", "--task", "reverse", "--model-config", cfg, "--data", data, "--out", out,
                       "--steps", str(a.steps), "--batch-size", str(a.batch_size), "--accum", "2", "--lr", "1e-3",
                       "--threads", "1", "--no-progress", "--json", "--nproc", str(n)]
                t0 = time.time()
                p = subprocess.run(cmd, capture_output=True, text=True)
                wall = time.time() - t0
                if p.returncode != 0:
                    sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
                summary = json.loads(p.stdout.strip().splitlines()[-1])
                with open(os.path.join(out, "log.jsonl")) as f:
                    log = [json.loads(l) for l in f if l.strip()]
                ar = [l["allreduce_s"] for l in log if "allreduce_s" in l]
                runs.append({"tokens_per_second": round(summary["tokens_per_second"], 1), "wall_s": round(wall, 2),
                             "allreduce_s_per_step_median": round(statistics.median(ar), 5) if ar else 0.0,
                             "allreduce_s_per_step_mean": round(statistics.mean(ar), 5) if ar else 0.0,
                             "last_loss": summary["last_loss"]})
            best = max(runs, key=lambda r: r["tokens_per_second"])
            results.append({"nproc": n, "best": best, "runs": runs})
            print("nproc %d: %.0f tok/s, all-reduce %.2f ms/step (median), wall %.1f s" %
                  (n, best["tokens_per_second"], 1000 * best["allreduce_s_per_step_median"], best["wall_s"]))
    base = results[0]["best"]["tokens_per_second"]
    doc = {
        "tool": "bench/dist_bench.py (unieval finetune --nproc N, Gloo on loopback)",
        "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"),
        "machine": "%s, %d cores" % (platform.platform(), os.cpu_count()),
        "shape": "demo model (hidden 64, 2 layers, 4 heads, intermediate 128), global batch 2 x %d examples, "
                 "%d steps, 1 thread per rank, dropout 0" % (a.batch_size, a.steps),
        "results": results,
        "speedup": {str(r["nproc"]): round(r["best"]["tokens_per_second"] / base, 3) for r in results},
        "load_average_1_5_15_before": [round(x, 2) for x in load_before],
        "load_average_1_5_15_after": [round(x, 2) for x in os.getloadavg()],
        "note": a.note,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
