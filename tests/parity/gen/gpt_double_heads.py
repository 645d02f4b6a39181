#!/usr/bin/env python3
"""Fixture for GPT fine-tuning's losses and gradients: RUNS HF transformers v4.30.2 (Apache-2.0;
imported from a snapshot path, never copied here) `OpenAIGPTDoubleHeadsModel` (the PyTorch port of
openai/finetune-transformer-lm's fine-tuning model) and its fine-tuning example
examples/legacy/run_openai_gpt.py (`pre_process_datasets`, the port of the release's transform_roc:
[start] story[:cap] [delimiter] ending[:cap] [classify], mc_token_ids = the classify index, LM
labels = the ids with -100 on the padding), on a tiny random model, and records:
  * model/config.json + model/model.safetensors: the weights under HF's parameter names;
  * per batch: the inputs, mc_logits, lm_loss, mc_loss, and for each lm_coef the total
    mc_loss + lm_coef * lm_loss (run_openai_gpt.py's `args.lm_coef * losses[0] + losses[1]`),
    the L2 norm of each parameter's gradient of that total, and two whole gradients.

Usage: gpt_double_heads.py TRANSFORMERS_DIR COMMIT OUT_DIR
  TRANSFORMERS_DIR: a folder holding src/transformers and examples/legacy/run_openai_gpt.py of a
  huggingface/transformers snapshot at tag v4.30.2, recorded commit
  66fd3a8d626a32989f4569260db32785c6cbf42a, e.g.
    git --git-dir=MIRROR archive v4.30.2 src/transformers examples/legacy | tar x -C DIR
  Needs torch and numpy (Debian's python3-torch: /usr/bin/python3), tqdm and filelock
  (python3-tqdm, python3-filelock).

Stand-ins, not changes: modules the import chain names but this run never calls (huggingface_hub:
hub downloads; safetensors: its torch helpers, used when saving with safe serialization; the
weights here are written in the safetensors format by the few lines of `write_safetensors`).
The model is in eval mode (dropout off), as the released code's evaluation; the example's training
loop calls the model without attention_mask (right padding under the causal mask: no real position
sees a padding one), and so does this script.
Batches: "roc" (3 stories, 2 endings, through pre_process_datasets with cap_length 5 so that one
story and one ending are cut) and "four" (2 examples, 4 choices, the same [start] x [delimiter] y
[classify] rows built here, to exercise another number of choices; not official code).
"""
import importlib.machinery
import json
import os
import struct
import sys
import types

src_dir, commit, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]


class _Stub(types.ModuleType):
    """A module whose every public name is a new exception class (import-time names only)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (Exception,), {})


for _name in ["safetensors", "safetensors.torch", "huggingface_hub", "huggingface_hub.utils",
              "huggingface_hub.file_download", "huggingface_hub.constants"]:
    _m = _Stub(_name)
    _m.__spec__ = importlib.machinery.ModuleSpec(_name, None)
    _m.__path__ = []
    sys.modules[_name] = _m
sys.modules["huggingface_hub"].__version__ = "0.14.1"
sys.modules["huggingface_hub.file_download"].REGEX_COMMIT_HASH = __import__("re").compile(r"^[0-9a-f]{40}$")
sys.path.insert(0, os.path.join(src_dir, "src"))
sys.path.insert(0, os.path.join(src_dir, "examples", "legacy"))
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers.models.openai.configuration_openai import OpenAIGPTConfig  # noqa: E402
from transformers.models.openai.modeling_openai import OpenAIGPTDoubleHeadsModel  # noqa: E402
import run_openai_gpt  # noqa: E402

N_VOCAB = 40  # BPE ids 0..39; the three specials appended as the release and the example do
START, DELIMITER, CLASSIFY = N_VOCAB, N_VOCAB + 1, N_VOCAB + 2
LM_COEFS = [0.5, 0.9]  # §4.1's λ; run_openai_gpt.py's default --lm_coef
CAP = 5
# (story, ending 1, ending 2, label): token ids < N_VOCAB; story 2 and an ending of 3 exceed CAP.
ROC = [([3, 17, 8, 22], [5, 9], [30, 11, 2], 0),
       ([12, 4, 4, 19, 33, 7, 25], [6], [21, 13], 1),
       ([1, 38, 14], [27, 36, 10, 15, 29, 9, 16], [23, 0], 1)]
FOUR = [([7, 2, 31, 18], [[11], [12, 13], [34, 3, 6], [20]], 2),
        ([26, 24, 39, 5, 8, 1], [[14, 35], [37], [9, 9, 28], [0, 32]], 3)]
GRADIENTS = ["multiple_choice_head.summary.weight", "transformer.h.1.mlp.c_proj.bias"]


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def four_batch():
    rows = [[[START] + ctx + [DELIMITER] + c + [CLASSIFY] for c in choices] for ctx, choices, _ in FOUR]
    T = max(len(r) for ex in rows for r in ex)
    ids = np.zeros((len(rows), 4, T), dtype=np.int64)
    labels = np.full((len(rows), 4, T), -100, dtype=np.int64)
    mc_ids = np.zeros((len(rows), 4), dtype=np.int64)
    for i, ex in enumerate(rows):
        for k, r in enumerate(ex):
            ids[i, k, :len(r)] = r
            labels[i, k, :len(r)] = r
            mc_ids[i, k] = len(r) - 1
    return tuple(torch.tensor(t) for t in (ids, mc_ids, labels, np.array([l for _, _, l in FOUR])))


def main():
    torch.manual_seed(0)
    config = OpenAIGPTConfig(vocab_size=N_VOCAB + 3, n_positions=24, n_embd=32, n_layer=2, n_head=4,
                             afn="gelu", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                             summary_first_dropout=0.0, initializer_range=0.1)
    model = OpenAIGPTDoubleHeadsModel(config)
    with torch.no_grad():  # biases and LayerNorms off their 0/1 init, so that every gradient is alive
        for name, p in model.named_parameters():
            if name.endswith("bias") or ".ln_" in name:
                p.add_(0.1 * torch.randn_like(p))
    model.eval()
    os.makedirs(os.path.join(out_dir, "model"), exist_ok=True)
    params = dict(model.named_parameters())  # lm_head.weight is tied to tokens_embed (one entry)
    write_safetensors(os.path.join(out_dir, "model", "model.safetensors"), params)
    with open(os.path.join(out_dir, "model", "config.json"), "w") as f:
        f.write(config.to_json_string())  # as save_pretrained writes it

    input_len = 2 * CAP + 3
    roc = run_openai_gpt.pre_process_datasets([ROC], input_len, CAP, START, DELIMITER, CLASSIFY)[0]
    batches = {}
    for name, (ids, mc_ids, lm_labels, mc_labels) in (("roc", roc), ("four", four_batch())):
        rec = {"input_ids": ids.tolist(), "mc_token_ids": mc_ids.tolist(), "lm_labels": lm_labels.tolist(),
               "mc_labels": mc_labels.tolist(), "totals": []}
        for lm_coef in LM_COEFS:
            model.zero_grad()
            out = model(ids, mc_token_ids=mc_ids, labels=lm_labels, mc_labels=mc_labels)
            total = lm_coef * out.loss + out.mc_loss  # run_openai_gpt.py's training loss
            total.backward()
            rec["mc_logits"] = out.mc_logits.tolist()
            rec["lm_loss"], rec["mc_loss"] = out.loss.item(), out.mc_loss.item()
            rec["totals"].append({
                "lm_coef": lm_coef, "total": total.item(),
                "grad_norms": {n: p.grad.double().norm().item() for n, p in model.named_parameters()},
                "gradients": {n: params[n].grad.reshape(-1).tolist() for n in GRADIENTS}})
        batches[name] = rec

    out = {"official": {"repository": "https://github.com/huggingface/transformers", "tag": "v4.30.2",
                        "commit": commit,
                        "code": "src/transformers/models/openai/modeling_openai.py OpenAIGPTDoubleHeadsModel; "
                                "examples/legacy/run_openai_gpt.py pre_process_datasets and its loss",
                        "command": "python3 tests/parity/gen/gpt_double_heads.py TRANSFORMERS_DIR COMMIT OUT_DIR",
                        "torch": torch.__version__},
           "n_vocab": N_VOCAB, "start": START, "delimiter": DELIMITER, "classify": CLASSIFY, "cap_length": CAP,
           "input_len": input_len, "roc_examples": [{"story": s, "endings": [a, b], "label": y} for s, a, b, y in ROC],
           "batches": batches}
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


main()
