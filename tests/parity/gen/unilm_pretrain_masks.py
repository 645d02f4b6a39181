#!/usr/bin/env python3
"""Fixture for the UniLM self-attention masks and segment ids: RUNS microsoft/unilm's unilm-v1
loader (MIT; imported from a snapshot path, never copied here) on given token pairs and records
what it builds.

Usage: unilm_pretrain_masks.py UNILM_SRC COMMIT OUT.json
  UNILM_SRC: unilm-v1/src of a microsoft/unilm snapshot
    (git --git-dir=MIRROR archive COMMIT unilm-v1/src | tar x -C /tmp/unilm), recorded commit
    768a3c873f598bb9b4d4dfb9267b099e35f8fe56. Run with a Python that has torch (1.13 works).

What the official code provides: unilm-v1/src has no pre-training data code. Its only loader that
builds training masks is biunilm/seq2seq_loader.py `Preprocess4Seq2seq`, whose `mode` is "s2s"
(the seq2seq mask: every query sees [CLS] A [SEP], the B [SEP] part sees its own left context) or
"l2r" (one lower-triangular mask over [CLS] A [SEP] B [SEP]); segment ids with new_segment_ids
are 4/5 (s2s) and 2 (l2r), else 0/1 (both modes). The bidirectional and right-to-left objectives
exist only as segment ids 0/1 and 3 in modeling.py's type-embedding initialisation (L2R = 2,
R2L = 3, S2S = 4/5), no mask code. This fixture records every combination the loader has:
mode s2s and l2r, new_segment_ids on and off, for the pairs in CASES, max_len 12 (some padding).
The masking of target words (random) changes tokens, not the mask or segment ids.
"""
import json
import random
import sys

unilm_src, commit, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, unilm_src)
from biunilm.seq2seq_loader import Preprocess4Seq2seq  # noqa: E402

MAX_LEN = 12
CASES = [(["a1", "a2", "a3"], ["b1", "b2"]),
         (["a1"], ["b1", "b2", "b3", "b4"]),
         (["a1", "a2", "a3", "a4", "a5"], ["b1"]),
         (["a1", "a2", "a3", "a4", "a5", "a6"], ["b1", "b2", "b3"])]  # 12 tokens: no padding

vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + ["a%d" % i for i in range(1, 7)] + \
        ["b%d" % i for i in range(1, 5)]
ids = {w: i for i, w in enumerate(vocab)}

random.seed(0)
out = {"official": {"repository": "https://github.com/microsoft/unilm", "commit": commit,
                    "code": "unilm-v1/src/biunilm/seq2seq_loader.py Preprocess4Seq2seq.__call__",
                    "command": "python3 tests/parity/gen/unilm_pretrain_masks.py UNILM_SRC COMMIT OUT.json"},
       "max_len": MAX_LEN, "cases": []}
for mode in ("s2s", "l2r"):
    for new_segment_ids in (True, False):
        proc = Preprocess4Seq2seq(max_pred=2, mask_prob=0.3, vocab_words=vocab,
                                  indexer=lambda toks: [ids[t] for t in toks], max_len=MAX_LEN,
                                  new_segment_ids=new_segment_ids, mode=mode)
        for a, b in CASES:
            row = proc((list(a), list(b)))
            segment_ids, input_mask = row[1], row[2]
            out["cases"].append({"mode": mode, "new_segment_ids": new_segment_ids,
                                 "len_a": len(a), "len_b": len(b),
                                 "length": len(a) + len(b) + 3,
                                 "segment_ids": list(segment_ids),
                                 "input_mask": input_mask.tolist()})
with open(out_path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
