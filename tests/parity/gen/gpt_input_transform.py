#!/usr/bin/env python3
"""Fixture for GPT's multiple-choice input transformation (Figure 1; ROCStories / Story Cloze):
RUNS openai/finetune-transformer-lm (MIT; the paper's released fine-tuning code; imported from a
snapshot path, never copied here) train.py `transform_roc` on given token ids and records the
arrays it builds.

Usage: gpt_input_transform.py FINETUNE_LM_DIR COMMIT OUT.json
  FINETUNE_LM_DIR: the *.py files of an openai/finetune-transformer-lm snapshot, recorded commit
  a69b5c43b0452462890bca8ff92fb75dee9290cf, e.g.
    git --git-dir=MIRROR archive HEAD -- '*.py' | tar x -C DIR
  Needs numpy.

transform_roc(X1, X2, X3) builds, per story x1 and endings x2, x3,
  xmb[i, k, :, 0] = [_start_] + x1[:max_len] + [_delimiter_] + x{2,3}[:max_len] + [_classify_], 0-padded
  xmb[i, k, :, 1] = n_vocab + n_special + arange(n_ctx)     (positions: rows of the one embedding table)
  mmb[i, k, :]    = 1 on the sequence, 0 on the padding
and the model reads the classify state at argmax(xmb[..., 0] == clf_token) (train.py `model`,
pool_idx; recorded here as "pool_idx" by the same rule on the built arrays).
Stand-ins, not changes: train.py imports TensorFlow, joblib, sklearn, tqdm, and the release's
text_utils imports ftfy and spacy; none of them is used by transform_roc, so they are empty
modules here (TensorFlow's names, read at import time for default arguments, are inert objects).
train.py sets the globals transform_roc reads in its `__main__` block from the data and the
command line; this script sets them the same way for the given ids: the encoder's three specials
appended after n_vocab ids, n_special = 3, max_len = n_ctx // 2 - 2 (n_ctx the --n_ctx argument),
then n_ctx = min(longest x1[:max_len] + ending[:max_len] + 3, n_ctx), as its lines do.
Cases: "short" (--n_ctx 512: nothing is cut) and "cut" (--n_ctx 12: max_len 4, the stories and an
ending cut at their first 4 ids).
"""
import importlib.abc
import importlib.machinery
import json
import sys
import types

ftlm_dir, commit, out_path = sys.argv[1], sys.argv[2], sys.argv[3]


class _Inert:
    """Any attribute, call or decoration gives another inert object."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Inert()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


class _InertModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


STUBBED = ("tensorflow", "joblib", "sklearn", "tqdm", "ftfy", "spacy", "pandas")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _InertModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())
sys.path.insert(0, ftlm_dir)
import numpy as np  # noqa: E402
import train  # noqa: E402

N_VOCAB = 40
# (story, ending 1, ending 2): BPE ids < N_VOCAB.
EXAMPLES = [([3, 17, 8, 22], [5, 9], [30, 11, 2]),
            ([12, 4, 4, 19, 33, 7, 25], [6], [21, 13]),
            ([1, 38, 14], [27, 36, 10, 15, 29, 9, 16], [23, 0])]
CASES = [("short", 512), ("cut", 12)]


def run_case(n_ctx_arg):
    encoder = {"w%d" % i: i for i in range(N_VOCAB)}
    n_vocab = len(encoder)
    encoder["_start_"] = len(encoder)
    encoder["_delimiter_"] = len(encoder)
    encoder["_classify_"] = len(encoder)
    X1, X2, X3 = ([e[j] for e in EXAMPLES] for j in range(3))
    max_len = n_ctx_arg // 2 - 2
    n_ctx = min(max(len(x1[:max_len]) + max(len(x2[:max_len]), len(x3[:max_len])) for x1, x2, x3 in EXAMPLES) + 3,
                n_ctx_arg)
    train.encoder, train.clf_token, train.n_vocab, train.n_special = encoder, encoder["_classify_"], n_vocab, 3
    train.max_len, train.n_ctx = max_len, n_ctx
    xmb, mmb = train.transform_roc(X1, X2, X3)
    pool_idx = np.argmax(xmb[:, :, :, 0] == train.clf_token, axis=2)
    return {"n_ctx_arg": n_ctx_arg, "max_len": max_len, "n_ctx": n_ctx, "tokens": xmb[:, :, :, 0].tolist(),
            "positions": xmb[:, :, :, 1].tolist(), "mask": mmb.astype(int).tolist(), "pool_idx": pool_idx.tolist()}


out = {"official": {"repository": "https://github.com/openai/finetune-transformer-lm", "commit": commit,
                    "code": "train.py transform_roc (and model's pool_idx rule)",
                    "command": "python3 tests/parity/gen/gpt_input_transform.py FINETUNE_LM_DIR COMMIT OUT.json"},
       "n_vocab": N_VOCAB, "n_special": 3, "start": N_VOCAB, "delimiter": N_VOCAB + 1, "classify": N_VOCAB + 2,
       "examples": [{"story": s, "endings": [a, b]} for s, a, b in EXAMPLES],
       "cases": {name: run_case(n) for name, n in CASES}}
with open(out_path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
