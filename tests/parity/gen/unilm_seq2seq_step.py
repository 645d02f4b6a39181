#!/usr/bin/env python3
# Generates tests/parity/fixtures/unilm_seq2seq_step/ by RUNNING microsoft/unilm's unilm-v1 code
# (MIT; the official modules are imported from a snapshot path, never copied here):
#   biunilm/seq2seq_loader.py  Preprocess4Seq2seq (s2s mode): packing, segment ids, the s2s
#                              attention mask and the target masking, with `random` seeded so the
#                              masked positions are fixed (and recorded in batch.json)
#   pytorch_pretrained_bert/modeling.py  BertForPreTrainingLossMask, label smoothing 0.1
#                              (LabelSmoothingLoss, loss_mask_and_normalize)
#   pytorch_pretrained_bert/optimization.py  BertAdam(warmup=0.1, t_total=10) with the grouped
#                              weight decay of biunilm/run_seq2seq.py (0.01; none on bias/LayerNorm)
# on a tiny random checkpoint (seeded), three forward/backward/step rounds on the batch (BertAdam's
# first update has lr warmup_linear(0) = 0; the third round's loss and gradients see the second
# update), as run_seq2seq.py's loop does them.
#
# Usage (torch 1.13 from apt works; the snapshot's stale imports are shimmed below):
#   git -C MIRROR archive COMMIT unilm-v1/src | tar -x -C /tmp/unilm-snap
#   python3 tests/parity/gen/unilm_seq2seq_step.py --unilm-src /tmp/unilm-snap/unilm-v1/src \
#       --commit COMMIT --out tests/parity/fixtures/unilm_seq2seq_step
# Writes: model/config.json, model/pytorch_model.bin (the initial weights, torch.save zip),
# model/vocab.txt, batch.json (the input of `unieval finetune --parity-dump`), expected.json (per
# round: lr, loss, gradient norm per parameter), expected_model.bin (the weights after the three updates).
import argparse
import collections.abc
import json
import os
import random
import sys
import types


def shim_imports():
    # torch >= 1.9 dropped torch._six.container_abcs (imported by optimization.py).
    import torch._six
    if not hasattr(torch._six, "container_abcs"):
        torch._six.container_abcs = collections.abc
    # file_utils.py imports download helpers never used here; stand-ins when not installed.
    # __init__.py imports optimization_fp16 (apex's FP16_Optimizer), unused in fp32.
    for name in ["tqdm", "boto3", "botocore", "botocore.exceptions", "requests", "scipy", "scipy.stats",
                 "apex", "apex.optimizers"]:
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
    sys.modules["tqdm"].__dict__.setdefault("tqdm", lambda *a, **k: None)
    sys.modules["botocore.exceptions"].__dict__.setdefault("ClientError", Exception)
    sys.modules["scipy.stats"].__dict__.setdefault("truncnorm", None)
    sys.modules["apex.optimizers"].__dict__.setdefault("FP16_Optimizer", object)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unilm-src", required=True, help="unilm-v1/src of a microsoft/unilm snapshot")
    ap.add_argument("--commit", required=True, help="the snapshot's commit (recorded)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    shim_imports()
    sys.path.insert(0, args.unilm_src)
    import torch
    from pytorch_pretrained_bert.modeling import BertConfig, BertForPreTrainingLossMask
    from pytorch_pretrained_bert.optimization import BertAdam, warmup_linear
    from biunilm.seq2seq_loader import Preprocess4Seq2seq

    torch.manual_seed(0)
    random.seed(3)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + ["w%d" % i for i in range(25)]
    ids = {w: i for i, w in enumerate(vocab)}
    V = len(vocab)
    cfg = {"vocab_size": V, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
           "intermediate_size": 64, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
           "attention_probs_dropout_prob": 0.0, "max_position_embeddings": 16, "type_vocab_size": 2,
           "initializer_range": 0.02}
    config = BertConfig(vocab_size_or_config_json_file=V, **{k: v for k, v in cfg.items() if k != "vocab_size"})
    config.label_smoothing = 0.1
    model = BertForPreTrainingLossMask(config, num_labels=2, num_rel=0, num_sentlvl_labels=0, no_nsp=False)
    # The biases and LayerNorms too, so that their gradients and updates are not trivially zero.
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith("bias") or "LayerNorm" in n:
                p.add_(0.02 * torch.randn_like(p))
    model.eval()  # dropout is 0 anyway

    os.makedirs(os.path.join(args.out, "model"), exist_ok=True)
    # modeling.py's BertLayerNorm has eps 1e-5 (not in bert_config.json; HF's default is 1e-12):
    # written out so that unieval builds the same network (models/nn/config.h).
    with open(os.path.join(args.out, "model", "config.json"), "w") as f:
        json.dump(dict(cfg, layer_norm_eps=1e-5), f, indent=1)
    with open(os.path.join(args.out, "model", "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    torch.save(model.state_dict(), os.path.join(args.out, "model", "pytorch_model.bin"))

    max_len = 16
    proc = Preprocess4Seq2seq(max_pred=5, mask_prob=0.7, vocab_words=vocab,
                              indexer=lambda toks: [ids[t] for t in toks], max_len=max_len,
                              truncate_config={"max_len_a": 8, "max_len_b": 6, "trunc_seg": "a",
                                               "always_truncate_tail": True}, mode="s2s")
    pairs = [(["w1", "w2", "w3", "w4", "w5"], ["w6", "w7", "w8"]),
             (["w9", "w10", "w11"], ["w12", "w13", "w14", "w15", "w16"])]
    rows = [proc((list(a), list(b))) for a, b in pairs]
    input_ids = torch.tensor([r[0] for r in rows])
    segment_ids = torch.tensor([r[1] for r in rows])
    input_mask = torch.stack([r[2] for r in rows])
    masked_ids = torch.tensor([r[4] for r in rows])
    masked_pos = torch.tensor([r[5] for r in rows])
    masked_weights = torch.tensor([r[6] for r in rows])

    warmup, t_total = 0.1, 10
    no_decay = ['bias', 'LayerNorm.bias', 'LayerNorm.weight']  # run_seq2seq.py
    named = list(model.named_parameters())
    groups = [{'params': [p for n, p in named if not any(nd in n for nd in no_decay)], 'weight_decay': 0.01},
              {'params': [p for n, p in named if any(nd in n for nd in no_decay)], 'weight_decay': 0.0}]
    lr = 1e-2
    optimizer = BertAdam(groups, lr=lr, warmup=warmup, t_total=t_total)
    rounds = []
    for step in range(3):
        loss_tuple = model(input_ids, segment_ids, input_mask, masked_ids, next_sentence_label=None,
                           masked_pos=masked_pos, masked_weights=masked_weights, task_idx=3)
        masked_lm_loss, next_sentence_loss = loss_tuple
        loss = masked_lm_loss + next_sentence_loss
        loss.backward()
        grad_norms = {n: p.grad.double().norm().item() for n, p in named if p.grad is not None}
        # BertAdam.step's lr_scheduled at state['step'] = step (get_lr() answers 0 while the
        # gradient-less pooler has no state).
        lr_this = lr * warmup_linear(step / t_total, warmup)
        optimizer.step()
        optimizer.zero_grad()
        rounds.append({"step": step, "lr": lr_this, "loss": loss.item(), "grad_norms": grad_norms})

    batch = {"input_ids": input_ids.tolist(), "token_type_ids": segment_ids.tolist(),
             "attention_mask": input_mask.tolist(), "masked_pos": masked_pos.tolist(),
             "masked_ids": masked_ids.tolist(), "masked_weights": masked_weights.tolist(),
             "options": {"loss": "unilm", "label_smoothing": 0.1, "optimizer": "adamw", "lr": lr, "eps": 1e-6,
                         "weight_decay": 0.01, "bias_correction": False, "max_grad_norm": 1.0,
                         "clip": "per_parameter", "warmup_steps": int(round(warmup * t_total)),
                         "total_steps": t_total, "steps": 3}}
    with open(os.path.join(args.out, "batch.json"), "w") as f:
        json.dump(batch, f)
    expected = {"source": "microsoft/unilm unilm-v1/src", "commit": args.commit,
                "torch": torch.__version__, "rounds": rounds}
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    torch.save(model.state_dict(), os.path.join(args.out, "expected_model.bin"))


if __name__ == "__main__":
    main()
