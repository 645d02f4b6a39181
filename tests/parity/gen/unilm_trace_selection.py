#!/usr/bin/env python3
"""Fixture for --trace-selection: runs microsoft/unilm's own gen_seq_from_trace.py routines
(get_best_sequence, detokenize, simple_postprocess) and its BertTokenizer on beam traces laid out as
decode_seq2seq.py writes them, and records what the script outputs.

Usage: unilm_trace_selection.py SNAPSHOT OUT.json
  SNAPSHOT: a checkout of github.com/microsoft/unilm (unilm-v1/src is imported from it), recorded
  commit 768a3c873f598bb9b4d4dfb9267b099e35f8fe56. Needs torch (the tokenizer module imports it).

Per case the fixture holds the trace unieval's beam_search_unilm keeps (frames up to the first
frame whose tokens are all [SEP]), the ids the script picks from the full trace (frames continued
past that frame, then the zero frames decode_seq2seq.py pads every trace with), the output line,
and the ids the script picks when called with the ids in the intended order (eos = [SEP]).
"""
import json
import random
import sys
import tempfile
import types

snapshot, out_path = sys.argv[1], sys.argv[2]
# Modules the official package imports but these routines never use: stand-ins when absent.
for name in ("tqdm", "boto3", "botocore", "botocore.exceptions", "requests", "scipy", "scipy.stats", "apex", "apex.optimizers"):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.SimpleNamespace(tqdm=lambda x, **k: x, ClientError=Exception, truncnorm=None, FP16_Optimizer=object)
import collections.abc  # noqa: E402
import torch._six  # noqa: E402
torch._six.container_abcs = collections.abc  # the package was written for torch < 1.9
sys.path.insert(0, snapshot + "/unilm-v1/src")
sys.path.insert(0, snapshot + "/unilm-v1/src/biunilm")
import gen_seq_from_trace as official  # noqa: E402
from pytorch_pretrained_bert.tokenization import BertTokenizer  # noqa: E402

WORDS = ["the", "a", "##s", "##ed", ".", "!", "$", ",", "。", "man", "##ly"]


def make_vocab(sep):
    """[PAD] at 0, [SEP] at `sep`, [UNK]/[CLS]/[MASK] after it, then WORDS; [unusedN] elsewhere."""
    size = max(sep + 4, 8) + len(WORDS)
    toks = ["[unused%d]" % i for i in range(size)]
    toks[0] = "[PAD]"
    toks[sep] = "[SEP]"
    toks[sep + 1], toks[sep + 2], toks[sep + 3] = "[UNK]", "[CLS]", "[MASK]"
    base = size - len(WORDS)
    for i, w in enumerate(WORDS):
        toks[base + i] = w
    return toks, base


def random_trace(rng, K, real_frames, pad_frames, sep, word_ids, p_end):
    scores, wids, ptrs = [], [], []
    s = [0.0] * K
    for f in range(real_frames):
        frame_w, frame_s, frame_p = [], [], []
        all_sep = rng.random() < 0.08
        for k in range(K):
            if all_sep:
                w = sep
            else:
                r = rng.random()
                w = sep if r < p_end else (0 if r < p_end + 0.03 else rng.choice(word_ids))
            frame_w.append(w)
            frame_p.append(0 if f == 0 else rng.randrange(K))
            frame_s.append(-round(rng.uniform(0.05, 2.0) * (f + 1), 3))
        frame_s.sort(reverse=True)  # topk order
        scores.append(frame_s)
        wids.append(frame_w)
        ptrs.append(frame_p)
    for _ in range(pad_frames):
        scores.append([0.0] * K)
        wids.append([0] * K)
        ptrs.append([0] * K)
    return {"scores": scores, "wids": wids, "ptrs": ptrs}


def ours(trace, sep, real_frames):
    """The frames unieval keeps: up to the first all-[SEP] frame, no padding frames."""
    n = real_frames
    for f in range(real_frames):
        if all(w == sep for w in trace["wids"][f]):
            n = f + 1
            break
    return {k: v[:n] for k, v in trace.items()}


def script_output(tokenizer, trace, alpha, order):
    eos_id, pad_id = order
    ids = official.get_best_sequence(trace, eos_id, pad_id, alpha=alpha)
    buf = []
    for t in tokenizer.convert_ids_to_tokens(ids):
        if t in ("[SEP]", "[PAD]"):
            break
        buf.append(t)
    return ids, " ".join(official.simple_postprocess(official.detokenize(buf)))


def hand_traces(sep, base):
    w = {x: base + i for i, x in enumerate(WORDS)}
    K = 2
    out = []
    # A final run of one-character punctuation: simple_postprocess trims it.
    for tail, mark in ((5, "."), (7, "!"), (4, "."), (6, "$"), (5, "。"), (6, ",")):
        seq = [w["the"], w["man"]] + [w[mark]] * tail + [sep]
        tr = {"scores": [], "wids": [], "ptrs": []}
        for f, tok in enumerate(seq):
            tr["wids"].append([tok, w["a"]])
            tr["scores"].append([-0.1 * (f + 1), -5.0 * (f + 1)])
            tr["ptrs"].append([0, 0])
        tr["wids"].append([sep, sep])
        tr["scores"].append([-0.2 * len(seq), -6.0 * len(seq)])
        tr["ptrs"].append([0, 1])
        out.append((tr, len(seq) + 1, K))
    return out


def main():
    rng = random.Random(38)
    cases, vocabs = [], {}
    for sep in (102, 8, 3):
        toks, base = make_vocab(sep)
        vocabs[str(sep)] = toks
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(toks) + "\n")
            vocab_file = f.name
        tokenizer = BertTokenizer(vocab_file, do_lower_case=False)
        # As the script: the set of the two ids, unpacked in its iteration order.
        eos_id, pad_id = set(tokenizer.convert_tokens_to_ids(["[SEP]", "[PAD]"]))
        word_ids = list(range(base, base + len(WORDS)))
        traces = []
        for i in range(40):
            K = rng.choice([2, 3, 4])
            real = rng.randint(1, 7)
            traces.append((random_trace(rng, K, real, rng.randint(1, 5), sep, word_ids,
                                        rng.choice([0.0, 0.1, 0.3])), real, K))
        for tr, real, K in hand_traces(sep, base):
            traces.append(({k: v + [[0] * K] * 3 if k != "scores" else v + [[0.0] * K] * 3
                            for k, v in tr.items()}, real, K))
        for tr, real, K in traces:
            for alpha in (1.0, 0.5):
                ids, text = script_output(tokenizer, tr, alpha, (eos_id, pad_id))
                intended_ids, _ = script_output(tokenizer, tr, alpha, (sep, 0))
                cases.append({"sep": sep, "pad": 0, "alpha": alpha,
                              "trace": ours(tr, sep, real), "official_ids": ids, "official_text": text,
                              "intended_ids": intended_ids})
    # simple_postprocess on word lists.
    words = [["a", ".", ".", ".", "."], [".", ".", ".", "."], ["a"] + ["!"] * 7, ["a", "$", "$", "$", "$"],
             ["a", "..", "..", "..", ".."], ["x", "。", "。", "。", "。"], ["x", "-", "-", "-", "-", "-", "-"],
             ["x", ".", ".", "!", ".", "."], ["x", "~", "~", "~", "~"], ["x", "«", "«", "«", "«"]]
    post = [{"words": ws, "kept": official.simple_postprocess(list(ws))} for ws in words]
    # CPython's set iteration order for pairs of ids.
    pairs = [[a, b] for a in (0, 1, 3, 8, 9, 11, 16, 64, 100, 102, 103) for b in (0, 1, 5, 8, 13, 102, 30522)]
    orders = [{"pair": p, "order": list(set(p))} for p in pairs if p[0] != p[1]]
    with open(out_path, "w") as f:
        json.dump({"commit": "768a3c873f598bb9b4d4dfb9267b099e35f8fe56",
                   "generator": "tests/parity/gen/unilm_trace_selection.py",
                   "vocabs": vocabs, "cases": cases, "simple_postprocess": post, "set_order": orders}, f)


main()
