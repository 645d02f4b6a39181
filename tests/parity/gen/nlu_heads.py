#!/usr/bin/env python3
"""Fixture for the understanding heads and SQuAD prediction: RUNS the official code (imported from
snapshot paths, never copied here) and records what it computes.

  HF transformers v4.30.2 (Apache-2.0; commit 66fd3a8d626a32989f4569260db32785c6cbf42a, folder
  src/transformers): `BertForSequenceClassification` with num_labels 2 (cross-entropy) and 1 (MSE)
  and `BertForQuestionAnswering` (start/end positions), in eval mode on a fixed padded batch and on
  an unpadded one: logits, loss, and every parameter's gradient norm after loss.backward(). The
  three models share one seeded tiny random encoder (hidden 32, 2 layers; the biases and LayerNorms
  perturbed so that they matter).
  google-research/bert (Apache-2.0; commit eedf5716ce1268e56f0a50264a88cafad334ac61): run_squad.py
  `read_squad_examples`, `convert_examples_to_features` (tokenization.py `FullTokenizer`, uncased,
  on a small generated vocabulary with "##" pieces) and `write_predictions` on RawResults whose
  logits are the HF `BertForQuestionAnswering`'s on the features (padded to max_seq_length, as
  run_squad feeds them); SQuAD 1.1 and 2.0 settings (FLAGS.version_2_with_negative,
  null_score_diff_threshold, n_best_size, max_answer_length), several windows per question.

Usage (/usr/bin/python3 with torch and numpy):
  git --git-dir=TRANSFORMERS_MIRROR archive v4.30.2 src/transformers | tar x -C /tmp/hf
  git --git-dir=BERT_MIRROR archive eedf571 | tar x -C /tmp/bert
  python3 tests/parity/gen/nlu_heads.py --transformers /tmp/hf/src --bert /tmp/bert \
      --out tests/parity/fixtures/nlu_heads
Stand-ins, not changes: modules that transformers imports but never runs here (huggingface_hub,
safetensors, tokenizers, tqdm, filelock: placeholders answering any attribute) and the parts of tensorflow
run_squad.py / tokenization.py touch (tf.flags with FLAGS, tf.gfile.GFile/Open as open, tf.logging
as no-ops; tf.train.Optimizer for optimization.py's class statement). The safetensors file is
written by this script (the documented format: header length, JSON header, little-endian data).

Writes OUT/model/{config.json (HF's to_json_file), vocab.txt, model.safetensors (encoder, pooler,
qa_outputs under HF names)}, OUT/classify_head.safetensors, OUT/regress_head.safetensors
(classifier.* of the two classification models), OUT/heads.json (batches, logits, losses,
gradient norms), OUT/squad/dev-v1.1.json, OUT/squad/dev-v2.0.json (the data), OUT/squad.json
(settings; for dev-v2.0.json, whose questions include the v1.1 ones: the official pieces of each
question and context word (run_squad's whitespace words), the features' ids and the RawResult
logits over all max_seq_length positions) and OUT/squad/official/SETTING/{predictions.json,
null_odds.json (v2.0)} as write_predictions writes them (its nbest_predictions.json goes to
os.devnull: nothing here reads it). The checkpoint's seed (--seed 3) was picked among 0-7 as one
whose answers include spans starting at a "##" piece and ending inside a word.
"""
import argparse
import collections
import importlib.abc
import importlib.machinery
import json
import os
import struct
import sys
import types

TRANSFORMERS_COMMIT = "66fd3a8d626a32989f4569260db32785c6cbf42a"
BERT_COMMIT = "eedf5716ce1268e56f0a50264a88cafad334ac61"


class _Placeholder:
    """Any attribute, call or base class: for names imported at module level and never run."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Placeholder()

    def __getattr__(self, name):
        return _Placeholder()

    def __mro_entries__(self, bases):
        return (object,)


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder()


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    roots = ("huggingface_hub", "safetensors", "tokenizers", "tqdm", "filelock")

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _PlaceholderModule(spec.name)
        m.__path__ = []
        m.__version__ = "0.14.1"
        return m

    def exec_module(self, module):
        pass


def tensorflow_stand_in():
    tf = types.ModuleType("tensorflow")
    flags = types.ModuleType("tensorflow.flags")
    flags.FLAGS = types.SimpleNamespace()

    def define(name, default, *args, **kwargs):
        setattr(flags.FLAGS, name, default)

    flags.DEFINE_string = flags.DEFINE_bool = flags.DEFINE_integer = flags.DEFINE_float = define
    flags.mark_flag_as_required = lambda *a, **k: None
    tf.flags = flags
    tf.gfile = types.SimpleNamespace(GFile=open, Open=open)
    noop = lambda *a, **k: None  # noqa: E731
    tf.logging = types.SimpleNamespace(info=noop, warning=noop, set_verbosity=noop, INFO=0)
    tf.train = types.SimpleNamespace(Optimizer=object)
    return tf


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().float().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "(", ")", "-", "'", "?",
         "the", "a", "of", "in", "and", "to", "was", "is", "by", "on", "at", "for", "with", "from",
         "who", "what", "when", "where", "which", "how", "did", "does",
         "norse", "##man", "##men", "viking", "##s", "king", "queen", "river", "north", "##ern",
         "city", "town", "ship", "##ship", "##ing", "##ed", "##er", "founded", "built", "ruled",
         "sail", "trade", "1990", "1066", "##th", "century", "cafe", "paris", "york", "new",
         "##ton", "old", "first", "last", "name", "##d", "came", "sea", "east", "west",
         "land", "people", "army", "war", "peace", "##land", "gold", "silver", "coin", "market",
         "bridge", "church", "stone", "wood", "fire", "year", "years", "many", "few", "their",
         "his", "her", "they", "he", "she", "it", "as", "after", "before", "then", "known"]


def squad_data():
    """Three paragraphs, answerable questions (SQuAD 1.1) and unanswerable ones (2.0)."""
    p1 = ("The Norsemen came from the north in the 1066th century , and their king ruled the town "
          "of Newton by the river . Viking ships sailed east to trade gold and silver coins in "
          "the market of Paris ; the Norseman Rollo founded a church of stone before the war . "
          "Many people (the Northern army) built bridges of wood after 1990s peace .")
    p2 = ("In old York the first queen was known as Astrid , and she ruled the land for many years . "
          "Her people traded with the west and the east ; a café by the sea was built in 1990 . "
          "Then fire came to the city , and the kingship passed to her son , who named the "
          "town New York after the old one .")
    p3 = "The river sailing market sold silver , gold and wood to few traders ."
    qs = [
        (p1, [("q1", "Who founded a church of stone ?", "Rollo"),
              ("q2", "When did the Norsemen come from the north ?", "1066th century"),
              ("q3", "What did Viking ships trade in Paris ?", "gold and silver coins"),
              ("q4", "Who built bridges of wood after the peace ?", "the Northern army"),
              ("q5", "Which town did their king rule ?", "Newton"),
              ("n1", "Who sailed west to York ?", None)]),
        (p2, [("q6", "Who was the first queen of York ?", "Astrid"),
              ("q7", "What was built by the sea in 1990 ?", "a café"),
              ("q8", "How did the kingship pass to her son after the fire came to the old city of "
                     "York ?", "passed to her son"),
              ("q9", "What did her son name the town ?", "New York"),
              ("n2", "Who ruled Paris after the war ?", None)]),
        (p3, [("q10", "What did the river market sell ?", "silver , gold and wood"),
              ("n3", "When was the market built ?", None)]),
    ]
    v2, v1 = [], []
    for context, questions in qs:
        qas2, qas1 = [], []
        for qid, question, answer in questions:
            if answer is None:
                qas2.append({"id": qid, "question": question, "answers": [], "is_impossible": True})
                continue
            start = context.index(answer)
            qa = {"id": qid, "question": question, "answers": [{"text": answer, "answer_start": start}]}
            qas1.append(qa)
            qas2.append(dict(qa, is_impossible=False))
        v1.append({"context": context, "qas": qas1})
        v2.append({"context": context, "qas": qas2})
    return ({"version": "1.1", "data": [{"title": "t", "paragraphs": v1}]},
            {"version": "v2.0", "data": [{"title": "t", "paragraphs": v2}]})


def build_models(torch, hf, seed):
    torch.manual_seed(seed)
    common = dict(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, max_position_embeddings=64, type_vocab_size=2,
                  initializer_range=0.1, hidden_act="gelu")
    classify = hf.BertForSequenceClassification(hf.BertConfig(num_labels=2, **common))
    with torch.no_grad():
        for n, p in classify.named_parameters():
            if n.endswith("bias") or "LayerNorm" in n:
                p.add_(0.1 * torch.randn_like(p))
    regress = hf.BertForSequenceClassification(hf.BertConfig(num_labels=1, **common))
    span = hf.BertForQuestionAnswering(hf.BertConfig(**common))
    with torch.no_grad():
        for n, p in regress.named_parameters():
            if n.startswith("classifier"):
                p.add_(0.1 * torch.randn_like(p))
        span.qa_outputs.bias.add_(0.1 * torch.randn(2))
    encoder = classify.bert.state_dict()
    regress.bert.load_state_dict(encoder)
    missing = span.bert.load_state_dict(encoder, strict=False)  # BertForQuestionAnswering: no pooler
    assert not missing.missing_keys and all(k.startswith("pooler.") for k in missing.unexpected_keys)
    for m in (classify, regress, span):
        m.eval()
    return classify, regress, span


def heads_fixture(torch, classify, regress, span):
    g = torch.Generator().manual_seed(1)
    lengths = [9, 13, 6, 13]
    T = max(lengths)
    ids = torch.zeros(4, T, dtype=torch.long)
    types_ = torch.zeros(4, T, dtype=torch.long)
    mask = torch.zeros(4, T, dtype=torch.long)
    for r, n in enumerate(lengths):
        body = torch.randint(5, len(VOCAB), (n,), generator=g)
        body[0], body[n - 1] = VOCAB.index("[CLS]"), VOCAB.index("[SEP]")
        body[n // 2] = VOCAB.index("[SEP]")
        ids[r, :n] = body
        types_[r, n // 2 + 1:n] = 1
        mask[r, :n] = 1
    labels = torch.tensor([0, 1, 1, 0])
    targets = torch.tensor([0.5, -1.25, 2.0, 0.3])
    starts, ends = torch.tensor([3, 0, 2, 7]), torch.tensor([5, 0, 2, 11])

    def run(model, kwargs, rows):
        model.zero_grad()
        sel = torch.tensor(rows)
        width = int(mask[sel].sum(1).max())
        out = model(input_ids=ids[sel, :width], token_type_ids=types_[sel, :width],
                    attention_mask=mask[sel, :width], **{k: v[sel] for k, v in kwargs.items()})
        out.loss.backward()
        grads = {n: p.grad.double().norm().item() for n, p in model.named_parameters() if p.grad is not None}
        res = {"rows": rows, "loss": out.loss.item(), "grad_norms": grads}
        if hasattr(out, "start_logits"):
            res["start_logits"], res["end_logits"] = out.start_logits.tolist(), out.end_logits.tolist()
        else:
            res["logits"] = out.logits.tolist()
        return res

    cases = {
        "classify": run(classify, {"labels": labels}, [0, 1, 2, 3]),
        "regress": run(regress, {"labels": targets}, [0, 1, 2, 3]),
        "span_padded": run(span, {"start_positions": starts, "end_positions": ends}, [0, 1, 2, 3]),
        "span_unpadded": run(span, {"start_positions": starts, "end_positions": ends}, [1, 3]),
    }
    batch = {"lengths": lengths, "input_ids": ids.tolist(), "token_type_ids": types_.tolist(),
             "attention_mask": mask.tolist(), "labels": labels.tolist(), "targets": targets.tolist(),
             "starts": starts.tolist(), "ends": ends.tolist()}
    return batch, cases


SETTINGS = [  # name, version_2_with_negative, n_best_size, max_answer_length, null_score_diff_threshold
    ("v1.1_nbest20_len30", False, 20, 30, 0.0),
    ("v1.1_nbest10_len5", False, 10, 5, 0.0),
    ("v1.1_nbest20_len2", False, 20, 2, 0.0),
    ("v1.1_nbest4_len3", False, 4, 3, 0.0),
    ("v1.1_nbest10_len2", False, 10, 2, 0.0),
    ("v2.0_nbest20_len30_t0", True, 20, 30, 0.0),
    ("v2.0_nbest20_len30_t-1.5", True, 20, 30, -1.5),
    ("v2.0_nbest20_len30_t-1.3", True, 20, 30, -1.3),
    ("v2.0_nbest20_len5_t-1.17", True, 20, 5, -1.17),
    ("v2.0_nbest20_len2_t-1.06", True, 20, 2, -1.06),
    ("v2.0_nbest12_len2_t0", True, 12, 2, 0.0),
    ("v2.0_nbest12_len3_t-1.1", True, 12, 3, -1.1),
]
# In nbest10_len2 and nbest12_*, padding positions among a short window's n-best change answers
# (q7, q8, n3): what ranking only the real positions would get wrong.
MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH = 40, 12, 12


def short(x):
    """A float32 value as the shortest decimal that reads back as the same float32."""
    return float("%.9g" % x)


def squad_fixture(torch, run_squad, tokenization, span, out):
    squad_dir = os.path.join(out, "squad")
    os.makedirs(squad_dir, exist_ok=True)
    v1, v2 = squad_data()
    for name, data in (("dev-v1.1.json", v1), ("dev-v2.0.json", v2)):
        with open(os.path.join(squad_dir, name), "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
    tokenizer = tokenization.FullTokenizer(vocab_file=os.path.join(out, "model", "vocab.txt"), do_lower_case=True)
    flags = run_squad.FLAGS
    flags.do_lower_case, flags.verbose_logging = True, False
    record = {"max_seq_length": MAX_SEQ_LENGTH, "doc_stride": DOC_STRIDE, "max_query_length": MAX_QUERY_LENGTH,
              "do_lower_case": True, "settings": []}
    RawResult = run_squad.RawResult
    for version, file in (("v1.1", "dev-v1.1.json"), ("v2.0", "dev-v2.0.json")):
        flags.version_2_with_negative = version == "v2.0"
        examples = run_squad.read_squad_examples(os.path.join(squad_dir, file), is_training=False)
        features = []
        run_squad.convert_examples_to_features(examples, tokenizer, MAX_SEQ_LENGTH, DOC_STRIDE, MAX_QUERY_LENGTH,
                                               is_training=False, output_fn=features.append)
        with torch.no_grad():
            o = span(input_ids=torch.tensor([f.input_ids for f in features]),
                     token_type_ids=torch.tensor([f.segment_ids for f in features]),
                     attention_mask=torch.tensor([f.input_mask for f in features]))
        results = [RawResult(unique_id=f.unique_id, start_logits=[float(x) for x in s],
                             end_logits=[float(x) for x in e])
                   for f, s, e in zip(features, o.start_logits, o.end_logits)]
        if version == "v2.0":  # the v1.1 questions are a subset: their examples and features are here too
            record["examples"] = [{"id": e.qas_id, "question": e.question_text, "doc_words": e.doc_tokens,
                                   "query_pieces": tokenizer.tokenize(e.question_text),
                                   "doc_pieces": [tokenizer.tokenize(w) for w in e.doc_tokens]} for e in examples]
            record["features"] = [{"example_index": f.example_index, "doc_span_index": f.doc_span_index,
                                   "input_ids": f.input_ids[:len(f.tokens)],
                                   "segment_ids": f.segment_ids[:len(f.tokens)],
                                   "start_logits": [short(x) for x in r.start_logits],
                                   "end_logits": [short(x) for x in r.end_logits]}
                                  for f, r in zip(features, results)]
        for name, v2_neg, n_best, max_len, thresh in SETTINGS:
            if v2_neg != (version == "v2.0"):
                continue
            flags.null_score_diff_threshold = thresh
            d = os.path.join(squad_dir, "official", name)
            os.makedirs(d, exist_ok=True)
            run_squad.write_predictions(examples, features, results, n_best, max_len, True,
                                        os.path.join(d, "predictions.json"), os.devnull,
                                        os.path.join(d, "null_odds.json") if v2_neg else os.devnull)
            record["settings"].append({"name": name, "version": version, "n_best_size": n_best,
                                       "max_answer_length": max_len, "null_score_diff_threshold": thresh})
    return record


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--transformers", required=True, help="src/ of a transformers v4.30.2 snapshot")
    ap.add_argument("--bert", required=True, help="a google-research/bert snapshot (run_squad.py)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=3, help="of the random checkpoint (3: some best spans start at "
                    "a ## piece and end inside a word)")
    args = ap.parse_args()
    sys.meta_path.insert(0, _StandIns())
    sys.path.insert(0, args.transformers)
    import torch
    import transformers
    import transformers.models.bert.modeling_bert as hf
    # After transformers, which looks for tensorflow with importlib (and must not find it).
    sys.modules["tensorflow"] = tensorflow_stand_in()
    sys.path.insert(0, args.bert)
    import tokenization
    import run_squad
    assert transformers.__version__ == "4.30.2", transformers.__version__
    torch.set_num_threads(1)

    out = args.out
    os.makedirs(os.path.join(out, "model"), exist_ok=True)
    classify, regress, span = build_models(torch, hf, args.seed)
    span.config.to_json_file(os.path.join(out, "model", "config.json"))
    with open(os.path.join(out, "model", "vocab.txt"), "w") as f:
        f.write("".join(w + "\n" for w in VOCAB))
    state = collections.OrderedDict((k, v) for k, v in classify.state_dict().items() if k.startswith("bert."))
    state.pop("bert.embeddings.position_ids", None)
    for k, v in span.state_dict().items():
        if k.startswith("qa_outputs."):
            state[k] = v
    write_safetensors(os.path.join(out, "model", "model.safetensors"), state)
    for name, m in (("classify_head", classify), ("regress_head", regress)):
        write_safetensors(os.path.join(out, name + ".safetensors"),
                          {k: v for k, v in m.state_dict().items() if k.startswith("classifier.")})
    batch, cases = heads_fixture(torch, classify, regress, span)
    provenance = {"transformers": {"version": transformers.__version__, "commit": TRANSFORMERS_COMMIT},
                  "bert": {"repository": "google-research/bert", "commit": BERT_COMMIT},
                  "torch": torch.__version__, "seed": args.seed}
    with open(os.path.join(out, "heads.json"), "w") as f:
        json.dump(dict(provenance, batch=batch, cases=cases), f)
    record = squad_fixture(torch, run_squad, tokenization, span, out)
    with open(os.path.join(out, "squad.json"), "w") as f:
        json.dump(dict(provenance, **record), f, ensure_ascii=False)


if __name__ == "__main__":
    main()
