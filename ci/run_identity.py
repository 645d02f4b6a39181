#!/usr/bin/env python3
"""Behaviour check for refactors (issue #39): three small `unieval run`s, then a diff of run folders.

  ci/run_identity.py run  --bin DIR --out OUT [--shared ../shared]   # DIR holds unieval, unieval-model
  ci/run_identity.py diff OLD_OUT NEW_OUT                            # exit 0: identical up to timings

The runs are squad-qg (Du's files), glue-sst2 (the GLUE layout, linked from the shared gz files) and a
tiny GPT on glue-sst2 (the release's BPE files), each a few optimizer steps on one thread, so that two
binaries built from the same behaviour write the same bytes. `diff` compares every file of the run
folders: JSON and JSON-lines field by field, skipping the fields that record time, speed, the binary's
build or the machine (TIMING_KEYS, keys ending in _per_s) and the tokens/s plot (curves.svg), and
everything else byte for byte (weights included).
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

# Fields that differ between two runs of the same behaviour.
TIMING_KEYS = {"elapsed_s", "wall_s", "seconds", "tokens_per_s", "tok_per_s", "examples_per_s", "sent_per_s",
               "started", "finished", "date", "time", "timestamp", "created", "unieval_version", "git",
               "commit", "binary", "host", "runtime", "train_s", "predict_s", "score_s", "decode_s",
               "duration_s", "throughput", "timings"}
TIMING_FILES = {"curves.svg"}  # plots tokens/s over steps


def is_timing(key: str) -> bool:
    return key in TIMING_KEYS or key.endswith("_per_s")

TINY_BERT = {"vocab_size": 30522, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 64, "max_position_embeddings": 160}
TINY_GPT = {"model_type": "openai-gpt", "vocab_size": 40478, "n_embd": 32, "n_layer": 2, "n_head": 2,
            "n_positions": 80, "afn": "gelu"}


def runs(shared: Path, work: Path):
    d = shared / "data"
    vocab = d / "vocab" / "bert-uncased-vocab.txt"
    common = ["--threads", "1", "--no-progress", "--json", "--seed", "7"]
    sst2 = work / "SST-2"
    return {
        "squad-qg": ["run", "--task", "squad-qg", "--data", str(d / "squad_qg"), "--train-split", "train",
                     "--train-limit", "256", "--dev-split", "dev", "--dev-limit", "64", "--eval-split", "test",
                     "--eval-limit", "48", "--model-config", str(work / "bert.json"), "--vocab", str(vocab),
                     "--steps", "12", "--batch-size", "32", "--dev-every", "6", "--skip-metric", "meteor",
                     "--beam", "2", "--max-len", "12"] + common,
        "glue-sst2": ["run", "--task", "glue-sst2", "--data", str(sst2), "--train-limit", "512",
                      "--eval-limit", "200", "--model-config", str(work / "bert.json"), "--vocab", str(vocab),
                      "--steps", "12", "--batch-size", "32", "--max-seq-len", "48"] + common,
        "gpt-sst2": ["run", "--arch", "gpt", "--task", "glue-sst2", "--data", str(sst2), "--train-limit", "256",
                     "--eval-limit", "100", "--model-config", str(work / "gpt.json"), "--vocab",
                     str(d / "vocab" / "gpt"), "--steps", "8", "--batch-size", "16", "--max-seq-len", "48"] + common,
    }


def cmd_run(a):
    shared = Path(a.shared).resolve()
    out = Path(a.out).resolve()
    if out.exists() and any(out.iterdir()):
        sys.exit(f"run_identity: {out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    work = out / "_inputs"
    (work / "SST-2").mkdir(parents=True)
    for split, name in (("train", "SST-2.train.tsv.gz"), ("dev", "SST-2.dev.tsv.gz")):
        os.symlink(shared / "data" / "glue" / name, work / "SST-2" / f"{split}.tsv.gz")
    (work / "bert.json").write_text(json.dumps(TINY_BERT))
    (work / "gpt.json").write_text(json.dumps(TINY_GPT))
    unieval = Path(a.bin).resolve() / "unieval"
    status = 0
    for name, args in runs(shared, work).items():
        r = subprocess.run([str(unieval)] + args + ["--out", str(out / name)], capture_output=True, text=True)
        (out / f"{name}.stdout").write_text(r.stdout)
        (out / f"{name}.stderr").write_text(r.stderr)
        print(f"{name}: exit {r.returncode}")
        if r.returncode != 0:
            print(r.stderr[-2000:], file=sys.stderr)
            status = 1
    sys.exit(status)


def strip(v, path, roots):
    """JSON value with timing fields dropped and the two output roots made equal."""
    if isinstance(v, dict):
        return {k: strip(x, path + [k], roots) for k, x in v.items() if not is_timing(k)}
    if isinstance(v, list):
        return [strip(x, path, roots) for x in v]
    if isinstance(v, str):
        for r in roots:
            v = v.replace(r, "<OUT>")
        return v
    return v


def load(p: Path, roots):
    text = p.read_text(errors="replace")
    if p.suffix == ".json":
        try:
            return [strip(json.loads(text), [], roots)]
        except json.JSONDecodeError:
            pass
    if p.suffix == ".jsonl" or p.name.endswith(".stdout"):
        rows = []
        for line in text.splitlines():
            try:
                rows.append(strip(json.loads(line), [], roots))
            except json.JSONDecodeError:
                rows.append(strip(line, [], roots))
        return rows
    return None


def first_differences(x, y, where):
    """(path, old, new) of the leaves where two JSON values differ."""
    if isinstance(x, dict) and isinstance(y, dict):
        out = []
        for k in sorted(set(x) | set(y)):
            out += first_differences(x.get(k), y.get(k), f"{where}.{k}")
        return out
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        out = []
        for i, (a, b) in enumerate(zip(x, y)):
            out += first_differences(a, b, f"{where}[{i}]")
        return out
    return [] if x == y else [(where, x, y)]


def cmd_diff(a):
    old, new = Path(a.old).resolve(), Path(a.new).resolve()
    roots = [str(old), str(new)]
    files = lambda root: {p.relative_to(root) for p in root.rglob("*") if p.is_file() and "_inputs" not in p.parts
                          and not p.name.endswith(".stderr") and p.name not in TIMING_FILES}
    fo, fn = files(old), files(new)
    diffs = []
    for rel in sorted(fo ^ fn):
        diffs.append(f"only in {'old' if rel in fo else 'new'}: {rel}")
    for rel in sorted(fo & fn):
        po, pn = old / rel, new / rel
        jo, jn = load(po, roots), load(pn, roots)
        if jo is not None and jn is not None:
            if jo != jn:
                diffs.append(f"differs (fields): {rel}")
                if a.verbose:
                    for i, (x, y) in enumerate(zip(jo, jn)):
                        for where, vx, vy in first_differences(x, y, f"row {i}")[:5]:
                            diffs.append(f"  {where}: old {json.dumps(vx)[:200]} new {json.dumps(vy)[:200]}")
        elif po.read_bytes() != pn.read_bytes():
            diffs.append(f"differs (bytes): {rel}")
    for d in diffs:
        print(d)
    print(f"{len(fo & fn)} files compared, {len(diffs)} differences")
    sys.exit(1 if diffs else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bin", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--shared", default=str(Path(__file__).resolve().parents[1].parent / "shared"))
    d = sub.add_parser("diff")
    d.add_argument("old")
    d.add_argument("new")
    d.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    cmd_run(a) if a.cmd == "run" else cmd_diff(a)


if __name__ == "__main__":
    main()
