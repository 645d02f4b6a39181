#!/usr/bin/env python3
"""Speed and peak memory of `unieval pretrain` for the mini-UniLM shape (4 layers, hidden 256,
4 heads, BERT uncased vocabulary, sequence length 128, batch 48, unified objectives).

    python3 bench/pretrain_bench.py --corpus /work/corpus/mini-unilm/train.txt --steps 200 \
        --out bench/results/$(date +%F)-pretrain-cpu2.json

The shard is built first (timed separately) so that the measured run only trains; tokens/s is
the pre-trainer's own figure (non-padding input tokens per second of training) and peak memory is
the largest maximum resident set size of the two child processes (shard build + 1 step, then the
measured run: getrusage RUSAGE_CHILDREN). Standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = {"vocab_size": 30522, "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
          "intermediate_size": 1024, "max_position_embeddings": 512, "type_vocab_size": 6}


def run(cmd):
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1]), wall, max(peak_kib, before)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--unieval", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--vocab", default=os.path.join(REPO, "..", "shared", "data", "vocab", "bert-uncased-vocab.txt"))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=48)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--objectives", default="unified")
    ap.add_argument("--out", required=True, help="result JSON")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "config.json")
        with open(cfg, "w") as f:
            json.dump(CONFIG, f)
        shard = os.path.join(tmp, "corpus.shard")
        base = [a.unieval, "pretrain", "--corpus", a.corpus, "--shard", shard, "--model-config", cfg,
                "--vocab", a.vocab, "--threads", str(a.threads), "--batch-size", str(a.batch_size),
                "--max-len", str(a.max_len), "--objectives", a.objectives, "--json", "--no-progress"]
        # 1. the shard (one step of training so that the command completes)
        first, shard_wall, _ = run(base + ["--out", os.path.join(tmp, "warm"), "--steps", "1"])
        # 2. the measured run (the shard is reused)
        res, wall, peak_kib = run(base + ["--out", os.path.join(tmp, "run"), "--steps", str(a.steps)])
    out = {
        "benchmark": "unieval pretrain, mini-UniLM shape",
        "date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_at_end": os.getloadavg()},
        "shape": CONFIG,
        "options": {k: getattr(a, k) for k in ("steps", "threads", "batch_size", "max_len", "objectives")},
        "corpus": {"path": os.path.abspath(a.corpus), "tokens": first["corpus_tokens"],
                   "documents": first["corpus_documents"], "shard_seconds": first["shard_seconds"]},
        "steps": res["steps"],
        "wall_seconds": wall,
        "tokens_per_second": res["tokens_per_second"],
        "seconds_per_step": wall / max(1, res["steps"]),
        "peak_rss_mib": peak_kib / 1024.0,
        "first_loss": res["first_loss"],
        "last_loss": res["loss"],
        "objective_loss": res["objective_loss"],
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out + ".tmp", "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    os.replace(a.out + ".tmp", a.out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
