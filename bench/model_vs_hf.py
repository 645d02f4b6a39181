#!/usr/bin/env python3
"""Side by side: unieval's fine-tuning step and beam-5 decoding against HF transformers (#24).

Generates the inputs (a synthetic 30,522-word vocabulary, a BERT config, seeded random token
sequences), then runs, one job at a time and in alternating rounds:
  finetune  `unieval finetune --model-config` for --ft-steps steps (batch --ft-batch, source
            --ft-src + target --ft-tgt words); tokens/s is taken between the log.jsonl lines of
            the first and the last step (steady state: start-up, first step and checkpoint write
            excluded). HF: BertForMaskedLM, the same shape, AdamW, loss on the masked target
            positions only (labels -100 elsewhere), the same token count per second.
  decode    `unieval decode --beam 5 --min-len N --max-len N` of --dec-sentences sources of
            --dec-src words, batch --dec-batch (fresh weights from a 1-step run: the speed of a
            beam step does not depend on the weights' values). HF: BertLMHeadModel(is_decoder)
            generate(num_beams=5, min_new_tokens=N, max_new_tokens=N) on "[CLS] source [SEP]".
  pretrain  `unieval pretrain --objectives bidirectional --segments bert` (MLM + NSP, as BERT) for
            --pt-steps steps of --pt-batch examples of --pt-len positions on a seeded random-word
            corpus of long documents (--short-seq-prob 0: every example full), steady-state tokens/s
            from log.jsonl as for finetune (#37). HF: BertForPreTraining, the same shape, AdamW,
            15% of the positions (at most 20 per example, BERT's default) as MLM labels and a random
            NSP label per example; tokens/s = batch x length per second after the first step.
Each job runs in its own process; peak RSS is that process's (wait4 ru_maxrss).

On a GPU (--device cuda [--precision bf16]) both sides run there: ours with `--device cuda
--precision P`, HF with the model and inputs on the device and its forward passes under
torch.autocast(bfloat16) when P is bf16 (HF eager attention: v4.30's BERT has no other). The fine-
tuning job then also reports model FLOPs utilisation, MFU = tokens/s x FLOPs per token / peak, with
FLOPs per token = 6 x (the encoder's weights + the MLM transform) + 12 x layers x hidden x length
(attention scores and values, forward and backward), plus the vocabulary projection of the masked
positions only (the loss needs no other); the peak is --peak-tflops (default: 989.4, H100/H200
SXM dense bf16; 67 for fp32 without TF32; pass your device's). Issue #24's GPU shapes: BERT-large
fine-tuning (--ft-layers 24 --ft-hidden 1024, e.g. --ft-batch 32 --ft-src 400 --ft-tgt 109 for
512 positions) and CNN/DM-shape beam search (--layers 24 --hidden 1024 --dec-src 608
--dec-new 160).

HF runs only with --hf-src (a transformers source tree of the v4.30 line, e.g. a git checkout:
its `src/` is put on sys.path) and a Python with torch (--hf-python, default this one). Packages
that transformers' import looks for but the two model classes never use (tokenizers,
huggingface_hub, safetensors, regex, ...) are replaced by empty stub modules inside the HF child
process only, when they are missing, and always for those --hf-stub names (a newer environment
whose huggingface_hub or tokenizers is past v4.30's pins). --hf-src installed takes the Python's
own transformers instead (another version: the JSON records which). Without --hf-src (or when the
HF child fails) the JSON holds our numbers and "hf": {"skipped": why}.

usage: bench/model_vs_hf.py [--binary build/unieval] [--threads 2] [--rounds 2]
                            [--hf-src transformers/] [--hf-python python3] [--env KEY=VALUE ...]
                            [--out bench/results/DATE-model-vs-hf.json] [--jobs finetune,decode,pretrain]
Shapes default to issue #24's jobs: fine-tuning a BERT-base shape (12 layers, hidden 768; batch 8
of 94 + 31 words, 128 positions with [CLS]/[SEP]/[SEP]) and decoding with a 4-layer, hidden-256
model (source 64, exactly 32 new tokens, batch 16; --dec-sentences 256 for the issue's count).
"""
import argparse
import datetime
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
MASK_PROB = 0.25  # share of the target words masked (both sides, and the MFU count)


def positions(a, job):
    """BERT's 512, or more when a decode job's packed sequence needs it (UniLM's CNN/DM runs used 768)."""
    need = a.dec_src + a.dec_new + 3 if job == "decode" else a.ft_src + a.ft_tgt + 3
    return max(512, -(-need // 64) * 64)


def write_inputs(d, a):
    """vocab.txt, config-{finetune,decode}.json and DATA/{train,test}.{src,tgt}: seeded random words."""
    vocab = SPECIALS + [f"w{i}" for i in range(a.vocab - len(SPECIALS))]
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    cfgs = {}
    for job, layers, hidden in (("finetune", a.ft_layers, a.ft_hidden), ("decode", a.layers, a.hidden),
                                ("pretrain", a.pt_layers, a.pt_hidden)):
        cfgs[job] = {"vocab_size": a.vocab, "hidden_size": hidden, "num_hidden_layers": layers,
                     "num_attention_heads": hidden // 64, "intermediate_size": 4 * hidden,
                     "max_position_embeddings": positions(a, job) if job != "pretrain" else a.pt_len,
                     "type_vocab_size": 2, "hidden_dropout_prob": 0.1,
                     "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02}
        with open(os.path.join(d, f"config-{job}.json"), "w") as f:
            json.dump(cfgs[job], f)
    rng = random.Random(7)
    words = vocab[len(SPECIALS) + 100:]
    data = os.path.join(d, "data")
    os.makedirs(data)
    n_train = a.ft_batch * (a.ft_steps + 2)
    for split, n, ls, lt in (("train", n_train, a.ft_src, a.ft_tgt), ("test", a.dec_sentences, a.dec_src, 4)):
        with open(os.path.join(data, split + ".src"), "w") as fs, open(os.path.join(data, split + ".tgt"), "w") as ft:
            for _ in range(n):
                fs.write(" ".join(rng.choice(words) for _ in range(ls)) + "\n")
                ft.write(" ".join(rng.choice(words) for _ in range(lt)) + "\n")
    # The pre-training corpus: documents of 60 sentences of 12 words, a blank line between them.
    with open(os.path.join(d, "corpus.txt"), "w") as f:
        for _ in range(max(40, a.pt_batch * (a.pt_steps + 2) * a.pt_len // 720 * 2)):
            for _ in range(60):
                f.write(" ".join(rng.choice(words) for _ in range(12)) + "\n")
            f.write("\n")
    return cfgs, data


RSS_WRAP = r"""
import os, resource, subprocess, sys
p = subprocess.run(sys.argv[1:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("__peak_rss_kib__", u.ru_maxrss, u.ru_utime + u.ru_stime, file=sys.stderr)
sys.exit(p.returncode)
"""


def measured(cmd, env, cpu=None):
    """(wall s, peak RSS bytes of the job's process, stdout); cpu["s"] = its CPU seconds (user + sys:
    less sensitive than wall time to other load on a shared machine)."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", RSS_WRAP, *cmd], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    rss = 0
    for line in p.stderr.splitlines():
        if line.startswith("__peak_rss_kib__"):
            rss = int(line.split()[1]) * 1024
            if cpu is not None:
                cpu["s"] = float(line.split()[2])
    return wall, rss, p.stdout


def device_flags(a):
    return [] if a.device == "cpu" else ["--device", a.device, "--precision", a.precision]


def flops_per_token(a):
    """Model FLOPs of one fine-tuning token (forward + backward), as the module docstring says."""
    h, layers, length = a.ft_hidden, a.ft_layers, a.ft_src + a.ft_tgt + 3
    dense = layers * (4 * h * h + 2 * h * 4 * h) + h * h  # encoder weights + MLM transform
    masked_share = MASK_PROB * a.ft_tgt / length
    return 6 * dense + 12 * layers * h * length + 6 * h * a.vocab * masked_share


def steady_state(out, wall, rss):
    """Tokens/s of a training run from its log.jsonl, from the end of the first step to the end of
    the last (no start-up, no first step, no checkpoint write); tokens are the steps' input
    positions (non-padding). Removes the run directory."""
    steps = [json.loads(l) for l in open(os.path.join(out, "log.jsonl")) if l.strip()]
    steps = [s for s in steps if "elapsed_s" in s and "tokens" in s]
    tok = sum(s["tokens"] for s in steps[1:])
    secs = steps[-1]["elapsed_s"] - steps[0]["elapsed_s"]
    shutil.rmtree(out)
    return {"tokens_per_s": tok / secs, "steps_timed": len(steps) - 1, "tokens_timed": tok,
            "wall_s": wall, "peak_rss_bytes": rss}


def ours_finetune(a, d, data, env, tag):
    out = os.path.join(d, "ft-" + tag)
    cmd = [a.binary, "finetune", "--task", "bench", "--model-config", os.path.join(d, "config-finetune.json"),
           "--vocab", os.path.join(d, "vocab.txt"), "--data", data, "--out", out, "--steps", str(a.ft_steps),
           "--batch-size", str(a.ft_batch), "--batch-tokens", "1000000", "--max-src-len", str(a.ft_src),
           "--max-tgt-len", str(a.ft_tgt), "--mask-prob", str(MASK_PROB), "--warmup", "0", "--lr", "1e-4",
           "--threads", str(a.threads), "--no-progress"] + device_flags(a)
    return steady_state(out, *measured(cmd, env)[:2])


def ours_pretrain(a, d, env, tag):
    out = os.path.join(d, "pt-" + tag)
    cmd = [a.binary, "pretrain", "--corpus", os.path.join(d, "corpus.txt"), "--shard", os.path.join(d, "corpus.shard"),
           "--model-config", os.path.join(d, "config-pretrain.json"), "--vocab", os.path.join(d, "vocab.txt"),
           "--out", out, "--objectives", "bidirectional", "--segments", "bert", "--steps", str(a.pt_steps),
           "--batch-size", str(a.pt_batch), "--max-len", str(a.pt_len), "--short-seq-prob", "0", "--lr", "1e-4",
           "--warmup", "0", "--save-every", str(a.pt_steps), "--threads", str(a.threads), "--no-progress"] + device_flags(a)
    return steady_state(out, *measured(cmd, env)[:2])


def ours_decode(a, d, data, run, env, tag):
    hyp = os.path.join(d, f"dec-{tag}.hyp")
    cmd = [a.binary, "decode", "--run", run, "--split", "test", "--data", data, "--out", hyp, "--beam", "5",
           "--min-len", str(a.dec_new), "--max-len", str(a.dec_new), "--no-repeat-ngram", "0",
           "--batch-size", str(a.dec_batch), "--threads", str(a.threads), "--no-progress", "--no-clean-up"] + device_flags(a)
    cpu = {}
    wall, rss, _ = measured(cmd, env, cpu)
    with open(hyp) as f:
        text = f.read()
    os.remove(hyp)
    # The decoding loop alone (after start-up and model load), as `unieval decode` reports it: the
    # counterpart of HF's generate_s.
    with open(hyp + ".summary.json") as f:
        loop_s = json.load(f)["summary"]["seconds"]
    os.remove(hyp + ".summary.json")
    return {"sentences_per_s": a.dec_sentences / wall, "wall_s": wall, "decode_loop_s": loop_s,
            "loop_sentences_per_s": a.dec_sentences / loop_s, "cpu_s": cpu.get("s"), "peak_rss_bytes": rss,
            "note": "sentences_per_s: wall time of the whole command (start-up and model load included); "
                    "loop_sentences_per_s: the decoding loop alone"}, text


HF_CHILD = r"""
import importlib.abc, importlib.machinery, json, os, sys, time, types
spec = json.loads(sys.argv[1])
if spec["hf_src"] != "installed":
    sys.path.insert(0, spec["hf_src"])
# Stub what transformers' import looks for but BertForMaskedLM / BertLMHeadModel never use: the
# packages missing here, and those named by --hf-stub (installed, but past v4.30's pins).
missing = [n for n in spec.get("stub", []) if n]
for name in ("tokenizers", "huggingface_hub", "safetensors", "regex", "requests", "yaml", "tqdm",
             "filelock", "packaging", "numpy"):
    if name in missing:
        continue
    try:
        __import__(name)
    except ImportError:
        missing.append(name)
class _Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in missing:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__version__ = "0.0"
        m.__getattr__ = lambda attr: (_ for _ in ()).throw(AttributeError(attr))
        return m
    def exec_module(self, module):
        pass
if missing:
    sys.meta_path.insert(0, _Stub())
    # transformers checks the installed versions of its dependencies at import; stubs have none.
    dvc = types.ModuleType("transformers.dependency_versions_check")
    dvc.dep_version_check = lambda pkg, hint=None: None
    sys.modules[dvc.__name__] = dvc
import contextlib
import torch
torch.set_num_threads(spec["threads"])
from transformers import BertConfig, BertForMaskedLM, BertForPreTraining, BertLMHeadModel
cfg = BertConfig(**spec["config"])
torch.manual_seed(0)
g = torch.Generator().manual_seed(7)
dev = torch.device(spec["device"])
def autocast():
    if dev.type == "cuda" and spec["precision"] == "bf16":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()
def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()
def train_steps(model, opt, tokens, **inputs):
    # spec["steps"] AdamW steps on one batch; prints tokens/s over every step but the first.
    times = []
    for step in range(spec["steps"]):
        sync()
        t0 = time.perf_counter()
        with autocast():
            loss = model(**inputs).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        loss.item()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"tokens_per_s": tokens * (len(times) - 1) / sum(times[1:]), "steps_timed": len(times) - 1}))
if spec["job"] == "finetune":
    B, S, T = spec["batch"], spec["src"] + 2, spec["tgt"] + 1
    L = S + T
    model = BertForMaskedLM(cfg).to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    ids = torch.randint(105, cfg.vocab_size, (B, L), generator=g)
    types = torch.cat([torch.zeros(B, S, dtype=torch.long), torch.ones(B, T, dtype=torch.long)], 1)
    # UniLM seq2seq mask: source sees the source, target sees source + its prefix.
    m = torch.zeros(L, L)
    m[:, :S] = 1
    m[S:, S:] = torch.tril(torch.ones(T, T))
    mask = m.unsqueeze(0).expand(B, L, L).contiguous()
    labels = torch.full((B, L), -100, dtype=torch.long)
    pick = torch.rand(B, T, generator=g) < spec["mask_prob"]
    pick[:, -1] = True
    labels[:, S:][pick] = ids[:, S:][pick]
    ids, types, mask, labels = ids.to(dev), types.to(dev), mask.to(dev), labels.to(dev)
    train_steps(model, opt, B * L, input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels)
elif spec["job"] == "pretrain":
    B, L = spec["batch"], spec["len"]
    model = BertForPreTraining(cfg).to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    ids = torch.randint(105, cfg.vocab_size, (B, L), generator=g)
    half = L // 2
    types = torch.cat([torch.zeros(B, half, dtype=torch.long), torch.ones(B, L - half, dtype=torch.long)], 1)
    labels = torch.full((B, L), -100, dtype=torch.long)
    for b in range(B):  # 15% of the positions, at most 20 (BERT's max_predictions_per_seq)
        pos = torch.randperm(L - 2, generator=g)[:min(20, max(1, round(0.15 * (L - 3))))] + 1
        labels[b, pos] = ids[b, pos]
    nsp = torch.randint(0, 2, (B,), generator=g)
    ids, types, labels, nsp = ids.to(dev), types.to(dev), labels.to(dev), nsp.to(dev)
    mask = torch.ones(B, L, dtype=torch.long, device=dev)
    train_steps(model, opt, B * L, input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels,
                next_sentence_label=nsp)
else:
    cfg.is_decoder = True
    model = BertLMHeadModel(cfg).to(dev).eval()
    n, B, S, N = spec["sentences"], spec["batch"], spec["src"], spec["new"]
    src = torch.randint(105, cfg.vocab_size, (n, S), generator=g)
    sync()
    t0 = time.perf_counter()
    with torch.no_grad(), autocast():
        for i in range(0, n, B):
            x = src[i:i + B]
            x = torch.cat([torch.full((x.size(0), 1), 2), x, torch.full((x.size(0), 1), 3)], 1).to(dev)
            model.generate(input_ids=x, attention_mask=torch.ones_like(x), num_beams=5, min_new_tokens=N,
                           max_new_tokens=N, do_sample=False, pad_token_id=0, eos_token_id=3)
    sync()
    secs = time.perf_counter() - t0
    print(json.dumps({"sentences_per_s": n / secs, "generate_s": secs}))
import transformers
print(json.dumps({"stubbed": missing, "transformers": transformers.__version__, "torch": torch.__version__,
                  "transformers_path": os.path.dirname(transformers.__file__)}))
"""


def hf_job(a, cfg, job, env):
    spec = {"hf_src": a.hf_src_path, "threads": a.threads, "config": cfg, "job": job, "device": a.device,
            "precision": a.precision, "stub": a.hf_stub.split(",")}
    if job == "finetune":
        spec.update(batch=a.ft_batch, src=a.ft_src, tgt=a.ft_tgt, steps=a.ft_steps, mask_prob=MASK_PROB)
    elif job == "pretrain":
        spec.update(batch=a.pt_batch, len=a.pt_len, steps=a.pt_steps)
    else:
        spec.update(sentences=a.dec_sentences, batch=a.dec_batch, src=a.dec_src, new=a.dec_new)
    wall, rss, out = measured([a.hf_python, "-c", HF_CHILD, json.dumps(spec)], env)
    lines = [json.loads(l) for l in out.strip().splitlines()]
    res = dict(lines[0])
    res.update(wall_s=wall, peak_rss_bytes=rss, stubbed_modules=lines[-1]["stubbed"],
               transformers_version=lines[-1]["transformers"], hf_torch_version=lines[-1]["torch"])
    return res


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--jobs", default="finetune,decode")
    ap.add_argument("--hf-src", help="HF transformers source tree (its src/ goes on sys.path), or "
                    "'installed': the transformers package of --hf-python")
    ap.add_argument("--hf-stub", default="", help="NAME,...: modules the HF child always replaces by stubs "
                    "(installed but past v4.30's pins, e.g. huggingface_hub 1.x, tokenizers 0.23)")
    ap.add_argument("--hf-python", default=sys.executable, help="a Python with torch for the HF side")
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for both sides' environment")
    ap.add_argument("--layers", type=int, default=4, help="decode job's model")
    ap.add_argument("--hidden", type=int, default=256, help="decode job's model")
    ap.add_argument("--ft-layers", type=int, default=12, help="fine-tune job's model (BERT-base shape)")
    ap.add_argument("--ft-hidden", type=int, default=768, help="fine-tune job's model (BERT-base shape)")
    ap.add_argument("--pt-layers", type=int, default=4, help="pretrain job's model (#37's mini-UniLM shape)")
    ap.add_argument("--pt-hidden", type=int, default=256, help="pretrain job's model")
    ap.add_argument("--pt-steps", type=int, default=12)
    ap.add_argument("--pt-batch", type=int, default=48)
    ap.add_argument("--pt-len", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--ft-steps", type=int, default=6)
    ap.add_argument("--ft-batch", type=int, default=8)
    ap.add_argument("--ft-src", type=int, default=94)
    ap.add_argument("--ft-tgt", type=int, default=31)
    ap.add_argument("--dec-sentences", type=int, default=32)
    ap.add_argument("--dec-batch", type=int, default=16)
    ap.add_argument("--dec-src", type=int, default=64)
    ap.add_argument("--dec-new", type=int, default=32)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where both sides run")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"],
                    help="with --device cuda: bf16 autocast on both sides")
    ap.add_argument("--peak-tflops", type=float, default=None,
                    help="the device's dense peak for MFU (default with --device cuda: 989.4 for bf16, 67 for fp32)")
    ap.add_argument("--keep-hyp", help="write our decode output here (to compare builds byte for byte)")
    ap.add_argument("--note", default="", help="free text for the JSON (machine load etc.)")
    ap.add_argument("--out", default=os.path.join(
        REPO, "bench", "results", datetime.date.today().isoformat() + "-model-vs-hf.json"))
    a = ap.parse_args()
    if a.device == "cpu" and a.precision != "fp32":
        ap.error("--precision bf16 needs --device cuda (the CPU runs fp32)")
    if a.peak_tflops is None and a.device == "cuda":
        a.peak_tflops = 989.4 if a.precision == "bf16" else 67.0
    jobs = [j for j in a.jobs.split(",") if j]
    env = dict(os.environ)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    hf_skip = None
    if not a.hf_src:
        hf_skip = "no --hf-src given"
    elif a.hf_src == "installed":
        a.hf_src_path = "installed"
        if subprocess.run([a.hf_python, "-c", "import torch, transformers"], capture_output=True).returncode != 0:
            hf_skip = f"{a.hf_python} has no torch or no transformers"
    else:
        a.hf_src_path = os.path.join(a.hf_src, "src") if os.path.isdir(os.path.join(a.hf_src, "src")) else a.hf_src
        if not os.path.isdir(os.path.join(a.hf_src_path, "transformers")):
            hf_skip = f"{a.hf_src}: no transformers package there"
        elif subprocess.run([a.hf_python, "-c", "import torch"], capture_output=True).returncode != 0:
            hf_skip = f"{a.hf_python} has no torch"
    ours = {j: [] for j in jobs}
    hf = {j: [] for j in jobs}
    hyps = set()
    with tempfile.TemporaryDirectory(prefix="unieval_model_vs_hf_") as d:
        cfgs, data = write_inputs(d, a)
        run = None
        if "decode" in jobs:  # a run directory to decode with (one step from scratch)
            run = os.path.join(d, "dec-run")
            measured([a.binary, "finetune", "--task", "bench", "--model-config", os.path.join(d, "config-decode.json"),
                      "--vocab", os.path.join(d, "vocab.txt"), "--data", data, "--out", run, "--steps", "1",
                      "--batch-size", "2", "--max-src-len", "8", "--max-tgt-len", "4", "--threads",
                      str(a.threads), "--no-progress"], env)
        for r in range(a.rounds):
            for job in jobs:
                sides = ("ours", "hf") if r % 2 == 0 else ("hf", "ours")
                for side in sides:
                    if side == "hf":
                        if hf_skip:
                            continue
                        try:
                            hf[job].append(hf_job(a, cfgs[job], job, env))
                        except RuntimeError as e:
                            hf_skip = f"the HF child failed: {str(e)[-1500:]}"
                        continue
                    if job == "finetune":
                        ours[job].append(ours_finetune(a, d, data, env, str(r)))
                    elif job == "pretrain":
                        ours[job].append(ours_pretrain(a, d, env, str(r)))
                    else:
                        res, text = ours_decode(a, d, data, run, env, str(r))
                        ours[job].append(res)
                        hyps.add(text)
                        if a.keep_hyp:
                            with open(a.keep_hyp, "w") as f:
                                f.write(text)
                    key = "sentences_per_s" if job == "decode" else "tokens_per_s"
                    print(f"round {r + 1} {job} ours: {ours[job][-1][key]:.2f}", file=sys.stderr)
    summary = {}
    for job in jobs:
        key = "sentences_per_s" if job == "decode" else "tokens_per_s"
        s = {"ours_median": median([x[key] for x in ours[job]]),
             "ours_peak_rss_bytes": max(x["peak_rss_bytes"] for x in ours[job])}
        if hf[job] and not hf_skip:
            s["hf_median"] = median([x[key] for x in hf[job]])
            s["hf_peak_rss_bytes"] = max(x["peak_rss_bytes"] for x in hf[job])
            s["ratio_ours_over_hf"] = s["ours_median"] / s["hf_median"]
            if job == "decode":
                # ratio_ours_over_hf sets our whole command against HF's generate() alone; these two
                # compare like with like: decoding loop against generate(), process against process.
                s["ours_loop_median"] = median([x["loop_sentences_per_s"] for x in ours[job]])
                s["ratio_loop_over_generate"] = s["ours_loop_median"] / s["hf_median"]
                s["ratio_wall_over_wall"] = median([x["wall_s"] for x in hf[job]]) / median([x["wall_s"] for x in ours[job]])
        if job == "finetune" and a.peak_tflops:
            s["flops_per_token"] = flops_per_token(a)
            s["peak_tflops"] = a.peak_tflops
            s["ours_mfu"] = s["ours_median"] * s["flops_per_token"] / (a.peak_tflops * 1e12)
            if "hf_median" in s:
                s["hf_mfu"] = s["hf_median"] * s["flops_per_token"] / (a.peak_tflops * 1e12)
        summary[job + " (" + key + ")"] = s
    result = {
        "bench": "model_vs_hf",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor(),
                    "threads": a.threads, "load_avg_at_end": os.getloadavg()},
        "note": a.note,
        "environment": {kv.partition("=")[0]: kv.partition("=")[2] for kv in a.env},
        "device": a.device,
        "precision": a.precision,
        "shapes": {k: getattr(a, k) for k in ("ft_layers", "ft_hidden", "layers", "hidden", "vocab", "ft_steps", "ft_batch", "ft_src", "ft_tgt",
                                              "pt_layers", "pt_hidden", "pt_steps", "pt_batch", "pt_len",
                                              "dec_sentences", "dec_batch", "dec_src", "dec_new")},
        "binary": a.binary,
        "rounds": a.rounds,
        "ours": ours,
        "hf": hf if not hf_skip else {"skipped": hf_skip},
        "decode_outputs_identical_across_rounds": len(hyps) <= 1,
        "summary": summary,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(json.dumps(summary, indent=1))
    if hf_skip:
        print(f"HF comparison skipped: {hf_skip}", file=sys.stderr)


if __name__ == "__main__":
    main()
