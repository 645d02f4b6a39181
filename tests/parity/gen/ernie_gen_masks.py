#!/usr/bin/env python3
"""Fixture for ERNIE-GEN's multi-flow training inputs: RUNS the official fine-tuning data code of
PaddlePaddle/ERNIE (Apache-2.0; branch `repro`, folder ernie-gen/, the code of the paper's
fine-tuning runs; imported from a snapshot path, never copied here) on given token ids and records
the batch it builds.

Usage: ernie_gen_masks.py ERNIE_GEN_DIR COMMIT OUT.json
  ERNIE_GEN_DIR: the ernie-gen/ folder of a PaddlePaddle/ERNIE snapshot at branch `repro`, recorded
  commit 5846cc3c1274958970af24f3e3793e550192d18d (files extracted with
  git --git-dir=MIRROR show repro:ernie-gen/reader/... ). Needs numpy and six; Paddle is not needed.

Runs reader/seq2seq_reader.py `Seq2SeqReader._prepare_batch_data` (train phase), i.e.
`_convert_example_to_record` (packing [CLS] S [SEP] | [CLS] T [SEP], text types, positions with
continuous_position), `_pad_batch_records` (the noise) and reader/batching.py
`gen_unidirectional_mask` (contextual-flow mask) and `gen_query_input` (the [ATTN] query flow's
mask, ids, tgt_pos). Stand-ins, not changes: a `paddle.fluid` module (only its LoDTensor is named,
in the decode path), and the Python 2 builtins the code was written for (`map` and `range` returning
lists, `xrange`) set in the two modules' namespaces. Settings as the released configs
(configs/*/squad-qg_conf): tgt_type_id 3, continuous_position, random_noise, tokenized input.
Batches: "clean" (noise_prob 0) and "noised" (noise_prob 0.3, `random.seed(7)` before the batch).
The noise comes from Python's `random`; the reader's `random` is a recording stand-in (the real
module's draws, in order), so the noised batch carries its draws ("draws": the coins of
random.random() and the tokens of random.randint) for replaying them through another
implementation of the rule.
"""
import builtins
import collections
import json
import os
import sys
import tempfile
import types
import random

ernie_gen_dir, commit, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
paddle = types.ModuleType("paddle")
paddle.fluid = types.ModuleType("paddle.fluid")
sys.modules["paddle"], sys.modules["paddle.fluid"] = paddle, paddle.fluid
sys.path.insert(0, ernie_gen_dir)
import reader.batching as batching  # noqa: E402
import reader.seq2seq_reader as seq2seq_reader  # noqa: E402


def py2_map(f, *its):
    return list(builtins.map(f, *its))


def py2_range(*args):
    return list(builtins.range(*args))


for module in (batching, seq2seq_reader):
    module.map, module.range = py2_map, py2_range
seq2seq_reader.xrange = builtins.range


class RecordingRandom:
    """Stand-in for the reader's `random` module: the real module's draws, recorded in order (the
    noise coins of random.random() and the tokens of random.randint), so that another
    implementation of the rule can be fed the very same draws."""

    def __init__(self):
        self.coins, self.tokens = [], []

    def random(self):
        x = random.random()
        self.coins.append(x)
        return x

    def randint(self, a, b):
        x = random.randint(a, b)
        self.tokens.append(x)
        return x

    def __getattr__(self, name):
        return getattr(random, name)

vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[ATTN]", "[NOISE]"] + ["s%d" % i for i in range(1, 9)] + \
        ["t%d" % i for i in range(1, 7)]
vocab_file = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
vocab_file.write("".join(w + "\n" for w in vocab))
vocab_file.close()

# (source, target) texts, tokenized input (split on spaces); one source field.
EXAMPLES = [("s1 s2 s3", "t1 t2"), ("s4 s5", "t3 t4 t5 t6"), ("s6 s7 s8 s1 s2", "t1")]


def make_reader(noise_prob):
    args = types.SimpleNamespace(
        tokenizer="FullTokenizer", vocab_path=vocab_file.name, do_lower_case=False, tgt_type_id=3,
        max_src_len=32, max_tgt_len=16, max_dec_len=16, tokenized_input=True, in_tokens=False,
        noise_prob=noise_prob, continuous_position=True, random_noise=True, task_type="normal",
        turn_type_size=16, random_seed=1)
    return seq2seq_reader.Seq2SeqReader(args)


Example = collections.namedtuple("Example", ["src", "tgt", "knowledge", "data_id"])
examples = [Example(src=[s], tgt=t, knowledge=None, data_id=i) for i, (s, t) in enumerate(EXAMPLES)]
names = ["token_ids", "text_type_ids", "position_ids", "input_mask", "query_token_ids",
         "query_text_type_ids", "query_position_ids", "input_query_mask", "tgt_label", "tgt_pos"]


def squeeze(a):
    a = a.tolist()
    return [[x[0] if isinstance(x, list) and len(x) == 1 else x for x in row] if isinstance(row, list) else row
            for row in a]


out = {"official": {"repository": "https://github.com/PaddlePaddle/ERNIE", "branch": "repro", "commit": commit,
                    "code": "ernie-gen/reader/seq2seq_reader.py Seq2SeqReader._prepare_batch_data, "
                            "ernie-gen/reader/batching.py gen_unidirectional_mask, gen_query_input",
                    "command": "python3 tests/parity/gen/ernie_gen_masks.py ERNIE_GEN_DIR COMMIT OUT.json"},
       "vocab": vocab, "examples": [{"src": s.split(" "), "tgt": t.split(" ")} for s, t in EXAMPLES],
       "tgt_type_id": 3, "batches": {}}
for name, noise_prob in (("clean", 0.0), ("noised", 0.3)):
    reader = make_reader(noise_prob)
    recorder = RecordingRandom()
    seq2seq_reader.random = recorder
    random.seed(7)
    batch = next(reader._prepare_batch_data(list(examples), batch_size=len(examples), phase="train"))
    assert len(batch) == len(names)
    rec = {"noise_prob": noise_prob}
    for key, value in zip(names, batch):
        rec[key] = squeeze(value)
    rec["tgt_start_idx"] = [reader._convert_example_to_record(e).tgt_start_idx for e in examples]
    if noise_prob > 0:
        rec["draws"] = {"coins": recorder.coins, "tokens": recorder.tokens}
    out["batches"][name] = rec
os.unlink(vocab_file.name)
with open(out_path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
