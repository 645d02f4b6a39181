#!/usr/bin/env python3
"""Fixture for `unieval decode --model CKPT.bin`: a tiny random UniLM checkpoint saved as
run_seq2seq.py saves one (torch.save of BertForPreTrainingLossMask's state dict), decoded by
microsoft/unilm's own decode_seq2seq.py (and gen_seq_from_trace.py), run here as programs.

Usage: unilm_decode.py SNAPSHOT OUT_DIR
  SNAPSHOT: a checkout of github.com/microsoft/unilm, recorded commit
  768a3c873f598bb9b4d4dfb9267b099e35f8fe56. Needs torch (1.13 tested) on the CPU.

OUT_DIR gets: ckpt/{config.json,vocab.txt,model.bin} (legacy pickle), ckpt_zip/ (the same weights in
torch's zip format), data/test.src (text), data/tok.src (the same sources as WordPiece pieces,
for --tokenized_input), and expected/<config>.txt, the official output per configuration
(configs.json lists each one's official arguments).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import types

snapshot, out = sys.argv[1], os.path.abspath(sys.argv[2])
src_dir = os.path.join(snapshot, "unilm-v1", "src")

# The official package imports modules these runs never use; stand-ins when absent, and
# torch._six.container_abcs (gone after torch 1.8). Written as a sitecustomize for the subprocesses.
SHIM = r'''
import sys, types, collections.abc
class _Bar:
    def __init__(self, it=None, **k): self.it = it
    def __iter__(self): return iter(self.it)
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def update(self, n=1): pass
for name in ("tqdm", "boto3", "botocore", "botocore.exceptions", "requests", "scipy", "scipy.stats",
             "apex", "apex.optimizers"):
    try:
        __import__(name)
    except ImportError:
        m = types.ModuleType(name)
        m.tqdm = _Bar
        m.trange = lambda *a, **k: _Bar(range(*a))
        m.ClientError = Exception
        m.truncnorm = None
        m.FP16_Optimizer = object
        sys.modules[name] = m
import torch, torch._six
torch._six.container_abcs = collections.abc
torch.Tensor.cuda = lambda self, *a, **k: self  # the n-gram ban's mask is moved with .cuda(): CPU here
_div = torch.div
def _int_div(a, b, *args, **kw):  # torch < 1.5 divided integer tensors with truncation (back pointers)
    if not args and not kw and isinstance(a, torch.Tensor) and not a.is_floating_point() and isinstance(b, int):
        return _div(a, b, rounding_mode="trunc")
    return _div(a, b, *args, **kw)
torch.div = _int_div
'''

WORDS = ["The", "man", "went", "to", "Paris", "and", "saw", "a", "tower", ".", ",", "it", "was", "tall",
         "##er", "##s", "##ly", "Bob", "likes", "red", "apples", "!", "they", "ran", "home", "big", "small",
         "dog", "cat", "##ing"]


def main():
    shutil.rmtree(out, ignore_errors=True)
    for d in ("ckpt", "ckpt_zip", "data", "expected", "shim", "bert"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    # [unused1..19]: the official load_vocab renames some ([unused1] -> [X_SEP], [unused18] ->
    # [S2S_SOS], ...); listing those names as well would make it lose ids.
    vocab = ["[PAD]"] + ["[unused%d]" % i for i in range(1, 20)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    with open(os.path.join(out, "shim", "sitecustomize.py"), "w") as f:
        f.write(SHIM)
    env = dict(os.environ, PYTHONPATH=os.path.join(out, "shim") + ":" + src_dir, CUDA_VISIBLE_DEVICES="")
    cfg = {"vocab_size": len(vocab), "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
           "intermediate_size": 32, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
           "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64, "type_vocab_size": 6,
           "initializer_range": 0.02}
    for d in ("ckpt", "ckpt_zip", "bert"):
        with open(os.path.join(out, d, "vocab.txt"), "w") as f:
            f.write("\n".join(vocab) + "\n")
        with open(os.path.join(out, d, "config.json" if d != "bert" else "bert_config.json"), "w") as f:
            json.dump(cfg, f)
    # The checkpoint: BertForPreTrainingLossMask as run_seq2seq.py builds it, random weights (std
    # 0.5 so that the tiny model's distributions are far from uniform), saved as it saves them.
    code = (
        "import sys, torch\n"
        "from pytorch_pretrained_bert.modeling import BertForPreTrainingLossMask, BertConfig\n"
        "torch.manual_seed(38)\n"
        "cfg = BertConfig.from_json_file(%r)\n"
        "m = BertForPreTrainingLossMask(cfg, num_labels=2, num_rel=0)\n"
        "with torch.no_grad():\n"
        "    for n, p in m.named_parameters():\n"
        "        if 'LayerNorm' not in n: p.normal_(0, 0.5)\n"
        "    # No special token but [SEP] is ever predicted (their names differ between the official\n"
        "    # vocabulary loader and vocab.txt); [SEP] a little favoured, so that outputs end.\n"
        "    m.cls.predictions.bias[:24] = -30.0\n"
        "    m.cls.predictions.bias[22] = 2.0\n"
        "sd = m.state_dict()\n"
        "torch.save(sd, %r, _use_new_zipfile_serialization=False)\n"
        "torch.save(sd, %r)\n"
    ) % (os.path.join(out, "bert", "bert_config.json"), os.path.join(out, "ckpt", "model.bin"),
         os.path.join(out, "ckpt_zip", "model.bin"))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)

    rng = random.Random(38)
    plain = [w for w in WORDS if not w.startswith("##")]
    src, tok = [], []
    for _ in range(24):
        pieces = []
        for _ in range(rng.randint(3, 14)):
            w = rng.choice(plain)
            pieces.append(w)
            if rng.random() < 0.2 and w.isalpha():
                pieces.append(rng.choice(["##er", "##s", "##ly", "##ing"]))
        tok.append(" ".join(pieces))
        src.append(" ".join(pieces).replace(" ##", ""))
    with open(os.path.join(out, "data", "test.src"), "w") as f:
        f.write("\n".join(src) + "\n")
    with open(os.path.join(out, "data", "tok.src"), "w") as f:
        f.write("\n".join(tok) + "\n")

    base = ["--bert_model", os.path.join(out, "bert"), "--new_segment_ids", "--mode", "s2s",
            "--model_recover_path", os.path.join(out, "ckpt", "model.bin"), "--max_seq_length", "64",
            "--max_tgt_length", "12", "--batch_size", "5"]
    configs = {
        # decode_seq2seq.py's greedy path: --min_len and the n-gram ban given, and ignored there.
        "greedy": ["--beam_size", "1", "--min_len", "6", "--forbid_duplicate_ngrams", "--ngram_size", "2"],
        "beam3": ["--beam_size", "3", "--forbid_duplicate_ngrams", "--forbid_ignore_word", "."],
        "beam3_tok": ["--beam_size", "3", "--tokenized_input", "--length_penalty", "1"],
        "greedy_tok": ["--beam_size", "1", "--tokenized_input"],
        "trace4": ["--beam_size", "4", "--need_score_traces"],
    }
    for name, extra in configs.items():
        inp = os.path.join(out, "data", "tok.src" if "--tokenized_input" in extra else "test.src")
        o = os.path.join(out, "expected", name + ".txt")
        subprocess.run([sys.executable, os.path.join(src_dir, "biunilm", "decode_seq2seq.py")] + base + extra +
                       ["--input_file", inp, "--output_file", o], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if "--need_score_traces" in extra:
            for alpha in ("1.0", "0.6"):
                subprocess.run([sys.executable, os.path.join(src_dir, "biunilm", "gen_seq_from_trace.py"),
                                "--bert_model", os.path.join(out, "bert"), "--alpha", alpha, "--input", o],
                               env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                shutil.move(o + ".alp" + alpha, os.path.join(out, "expected", name + "_alp" + alpha + ".txt"))
            os.remove(o + ".trace.pickle")
    with open(os.path.join(out, "expected", "configs.json"), "w") as f:
        json.dump({"commit": "768a3c873f598bb9b4d4dfb9267b099e35f8fe56", "base": ["--new_segment_ids", "--mode", "s2s", "--max_seq_length", "64", "--max_tgt_length", "12", "--batch_size", "5"], "configs": configs},
                  f, indent=1)
    shutil.rmtree(os.path.join(out, "shim"))
    shutil.rmtree(os.path.join(out, "bert"))


main()
