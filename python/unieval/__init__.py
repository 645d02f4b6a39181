"""unieval: the official NLG / QA / GLUE metrics, reproduced number for number, from Python.

The C++ metrics library of the unieval suite (no LibTorch, no JVM, no Perl), with drop-in
modules for the APIs people already call:

    import unieval.sacrebleu as sacrebleu        # sacreBLEU 2.6.0: corpus_bleu, BLEU, CHRF, ...
    from unieval import rouge_scorer, scoring    # rouge-score 0.1.2: RougeScorer, BootstrapAggregator

and one function per official script:

    unieval.rouge155(hyps, refs, n=2, m=True)    # ROUGE-1.5.5.pl -c 95 -r 1000 -n 2 -a -m (pyrouge keys)
    unieval.meteor(hyps, refs, ...)               # meteor-1.5.jar
    unieval.nist(hyps, refs)                      # mteval-v14c.pl NIST and BLEU
    unieval.squad(dataset, predictions)           # evaluate-v1.1.py / evaluate-v2.0.py
    unieval.coqa(dataset, predictions)            # CoQA evaluate-v1.0.py
    unieval.glue(task, gold, pred)                # HF glue_compute_metrics (sklearn / scipy)
    unieval.distinct(lines), unieval.entropy(lines)   # DSTC7 / PLATO / ERNIE-GEN
    unieval.evaluate(task=..., data=..., pred=...)    # `unieval eval`: the task's official set

Inputs are lists of str (or any iterables of str); references use sacreBLEU's stream layout,
refs[k][i] = k-th reference of segment i. Scoring runs without the GIL. Bad input raises
ValueError with the message `unieval` prints.
"""

import json
import os
import shlex
import tempfile

from . import _core
from ._inputs import as_lines, as_streams, is_path

__version__ = _core.__version__

__all__ = ["rouge155", "meteor", "MeteorScorer", "nist", "squad", "coqa", "glue", "glue_score",
           "distinct", "entropy", "evaluate", "__version__"]


# ---- ROUGE-1.5.5 ---------------------------------------------------------------------------

# Perl flag -> (Rouge155Options field, kind). Kind: "flag" (no argument), or the value's type.
_ROUGE_FLAGS = {
    "n": ("max_n", int), "x": ("lcs", "noflag"), "w": ("wlcs_weight", str), "2": ("skip_distance", str),
    "u": ("skip_unigram", "flag"), "U": ("skip_both", "flag"), "m": ("stem", "flag"),
    "s": ("remove_stopwords", "flag"), "l": ("length_limit", int), "b": ("byte_limit", int),
    "f": ("formula", str), "p": ("alpha", float), "c": ("confidence", float), "r": ("resamples", int),
    "a": (None, "flag"), "d": (None, "flag"), "z": (None, str), "e": ("rouge_data", str),
}
_ROUGE_FIELDS = {"max_n", "lcs", "wlcs_weight", "skip_distance", "skip_unigram", "skip_both", "stem",
                 "use_exceptions", "remove_stopwords", "length_limit", "byte_limit", "formula", "alpha",
                 "confidence", "resamples", "threads"}
_ROUGE_MEASURES = {"R": "recall", "P": "precision", "F": "f_score"}


class Rouge155Scores(dict):
    """ROUGE-1.5.5's averages in pyrouge's output_to_dict() layout ("rouge_1_f_score",
    "rouge_1_f_score_cb", "rouge_1_f_score_ce", ...), with .signature, .report (the script's
    printed report) and .instances ({"ROUGE-1": [(R, P, F) per instance], ...})."""

    signature = ""
    report = ""
    instances = {}


def _parse_rouge_flags(flags):
    if isinstance(flags, str):
        flags = shlex.split(flags)
    flags = [str(f) for f in flags]
    out = {}
    i = 0
    while i < len(flags):
        f = flags[i]
        if not f.startswith("-") or len(f) != 2 or f[1] not in _ROUGE_FLAGS:
            raise ValueError(f"rouge155: unknown ROUGE-1.5.5 flag '{f}'")
        field, kind = _ROUGE_FLAGS[f[1]]
        if kind in ("flag", "noflag"):
            value = kind == "flag"
            i += 1
        else:
            if i + 1 >= len(flags):
                raise ValueError(f"rouge155: flag {f} needs a value")
            value = flags[i + 1]
            i += 2
        if f[1] == "z" and str(value).upper() != "SPL":
            raise ValueError("-z: only SPL input is supported")
        if field is not None:
            out[field] = value
    return out


def _rouge_options(flags, kwargs):
    opts = _parse_rouge_flags(flags) if flags else {}
    for key, value in kwargs.items():
        if key in _ROUGE_FIELDS or key == "rouge_data":
            opts[key] = value
        elif key in _ROUGE_FLAGS:
            field, kind = _ROUGE_FLAGS[key]
            if key == "z" and str(value).upper() != "SPL":
                raise ValueError("z: only SPL input is supported")
            if field is None:
                continue
            if kind == "noflag":
                opts[field] = not value
            else:
                opts[field] = value
        else:
            raise ValueError(f"rouge155: unknown option '{key}' (Perl flag letters such as n=2, m=True, "
                             f"or the fields of metrics/rouge.h such as max_n, stem)")
    rouge_data = opts.pop("rouge_data", "") or ""
    typed = {}
    for key, value in opts.items():
        if key in ("max_n", "length_limit", "byte_limit", "resamples", "threads"):
            typed[key] = int(value)
        elif key in ("alpha", "confidence"):
            typed[key] = float(value)
        elif key in ("wlcs_weight", "skip_distance", "formula"):
            typed[key] = str(value)
        else:
            typed[key] = bool(value)
    return typed, str(rouge_data)


def _summary(x, sentence_sep):
    if isinstance(x, str):
        if sentence_sep:
            return [s.strip(" ") for s in x.split(sentence_sep) if s.strip(" ")]
        return [x]
    return as_lines(x, "summary")


def rouge155(hyps, refs, flags=None, sentence_sep=None, rouge_data=None, **perl_flags):
    """ROUGE-1.5.5.pl on in-memory summaries (metrics/rouge.h), number for number.

    hyps: one summary per item, a str (split at sentence_sep when given, else one sentence) or a
    list of sentences. refs: reference streams, refs[k][i] = k-th reference of summary i (items as
    hyps); a flat list of str is one stream. Options as Perl flags, either
    flags=["-c", "95", "-r", "1000", "-n", "2", "-a", "-m"] (or the same as one string) or keyword
    letters n=2, m=True, c=95, r=1000, x=True, w=1.2, u=True, U=True, s=True, l=N, b=N, f="A",
    p=0.5 (-2 D: skip_distance=D), or the struct's field names (max_n, stem, use_exceptions, ...).
    -m and -s read ROUGE's data directory: rouge_data=DIR or $UNIEVAL_ROUGE_DATA.

    Returns Rouge155Scores, a dict with pyrouge's keys: rouge_1_recall, rouge_1_recall_cb,
    rouge_1_recall_ce, rouge_1_precision, ..., rouge_l_f_score, rouge_su4_f_score, ...
    """
    hyps = as_lines(hyps, "hyps")
    if isinstance(refs, (str, bytes)):
        raise TypeError("`refs` should be a sequence of reference streams")
    refs = list(refs)
    if refs and all(isinstance(r, str) for r in refs):
        refs = [refs]
    refs = [as_lines(s, "refs") for s in refs]
    if not refs:
        raise ValueError("rouge155: at least one reference stream is required")
    for k, s in enumerate(refs):
        if len(s) != len(hyps):
            raise ValueError(f"reference stream {k} has {len(s)} summaries but the hypotheses have {len(hyps)}")
    if rouge_data is not None:
        perl_flags["rouge_data"] = rouge_data
    opts, data_dir = _rouge_options(flags, perl_flags)
    corpus = [(_summary(h, sentence_sep), [_summary(s[i], sentence_sep) for s in refs])
              for i, h in enumerate(hyps)]
    r = _core.rouge155(corpus, opts, data_dir)
    out = Rouge155Scores()
    instances = {}
    for v in r["variants"]:
        key = v["name"].replace("-", "_").lower()
        for j, letter in enumerate("RPF"):
            name = f"{key}_{_ROUGE_MEASURES[letter]}"
            out[name] = v["average"][j]
            out[name + "_cb"] = v["ci_low"][j]
            out[name + "_ce"] = v["ci_high"][j]
        instances[v["name"]] = [tuple(x) for x in v["instances"]]
    out.signature = r["signature"]
    out.report = r["report"]
    out.instances = instances
    return out


# ---- METEOR --------------------------------------------------------------------------------

class MeteorScorer:
    """meteor-1.5.jar with its resources loaded once (metrics/meteor.h).

    MeteorScorer(modules=("exact", "stem", "synonym"), weights=(1.0, 0.6, 0.8), normalize="norm",
    meteor_data=DIR) is `java -jar meteor-1.5.jar ... -l en -norm -m "exact stem synonym"
    -w "1.0 0.6 0.8"`; meteor_data defaults to $UNIEVAL_METEOR_DATA. normalize: "none", "lower"
    (-lower), "norm" (-norm), "norm-nopunct" (-norm -noPunct). .score(hyps, refs) -> dict with the
    "Final score" (score), segment_scores, precision, recall, fmean, fragmentation_penalty.
    """

    def __init__(self, task="rank", params=None, modules=("exact", "stem", "synonym", "paraphrase"),
                 weights=None, normalize="none", beam_size=40, meteor_data=None, paraphrase_file=None,
                 threads=0):
        if isinstance(modules, str):
            modules = modules.split()
        if isinstance(weights, str):
            weights = [float(w) for w in weights.split()]
        if isinstance(params, str):
            params = [float(p) for p in params.split()]
        self._scorer = _core.MeteorScorer(task=task, params=list(params or []), modules=list(modules),
                                          weights=list(weights or []), normalize=normalize,
                                          beam_size=beam_size, meteor_data=meteor_data or "",
                                          paraphrase_file=paraphrase_file or "", threads=threads)

    def score(self, hyps, refs):
        out = self._scorer.score(as_lines(hyps, "hyps"), as_streams(refs, "refs"))
        out["signature"] = self._scorer.signature()
        return out

    def signature(self):
        return self._scorer.signature()


_meteor_cache = {}


def meteor(hyps, refs, **options):
    """METEOR 1.5 of a corpus: MeteorScorer(**options).score(hyps, refs), the scorer (and its
    resource tables) kept for later calls with the same options."""
    key = json.dumps(options, sort_keys=True, default=str)
    scorer = _meteor_cache.get(key)
    if scorer is None:
        scorer = _meteor_cache[key] = MeteorScorer(**options)
    return scorer.score(hyps, refs)


# ---- NIST ----------------------------------------------------------------------------------

def nist(hyps, refs, version="14c", international=False, case_sensitive=False, dstc7_writer=True,
         flavour="mteval", n=5):
    """NIST as mteval-v14c.pl / -v13a.pl computes it (flavour="mteval", the default: a dict of
    nist_cum, nist_ind, bleu_cum, bleu_ind over orders 1..9, and warnings; nist_cum[3] is NIST-4),
    or NLTK 3.8 corpus_nist (flavour="nltk", order n: {"score": ..., "warning": ...})."""
    hyps = as_lines(hyps, "hyps")
    refs = as_streams(refs, "refs")
    if flavour == "nltk":
        return _core.nist_nltk(hyps, refs, n=n)
    if flavour != "mteval":
        raise ValueError(f"nist: flavour '{flavour}' (mteval or nltk)")
    return _core.nist(hyps, refs, version=str(version), international=international,
                      preserve_case=case_sensitive, dstc7_writer=dstc7_writer)


# ---- SQuAD / CoQA --------------------------------------------------------------------------

def _json_text(x, what, wrap_list=None):
    """The JSON text of a file path, or of an in-memory object (a list is wrapped as {wrap_list: x})."""
    if is_path(x):
        with open(x, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            import gzip
            data = gzip.decompress(data)
        return data.decode("utf-8")
    if wrap_list and isinstance(x, (list, tuple)):
        x = {wrap_list: list(x)}
    try:
        return json.dumps(x, ensure_ascii=False)
    except TypeError as e:
        raise TypeError(f"`{what}` should be a file path or JSON-serialisable data: {e}") from None


def squad(dataset, predictions, na_probs=None, version="auto", na_prob_thresh=1.0, allow_missing=False):
    """The official SQuAD script's result dict: evaluate-v1.1.py ({"exact_match", "f1"}) or
    evaluate-v2.0.py ({"exact", "f1", "total", "HasAns_exact", ...}), chosen from the data's
    "version" (version="1.1" / "2.0" forces one).

    dataset: a path, the file's JSON object, or its "data" list (what the official evaluate()
    takes); predictions: a path or a {question id: answer} dict; na_probs likewise (v2.0)."""
    data = _json_text(dataset, "dataset", wrap_list="data")
    preds = _json_text(predictions, "predictions")
    na = None if na_probs is None else _json_text(na_probs, "na_probs")
    r = _core.squad(data, preds, na, version=str(version), na_prob_thresh=float(na_prob_thresh),
                    allow_missing=allow_missing)
    return r["result"]


def coqa(dataset, predictions, rounded=True):
    """The official CoQA evaluate-v1.0.py table: {"children_stories": {"em", "f1", "turns"}, ...,
    "in_domain", "out_domain", "overall"}, values rounded to 1 decimal as the script prints them
    (rounded=False: full precision). dataset: a path, the file's JSON object or its "data" list;
    predictions: a path or the official list of {"id", "turn_id", "answer"}."""
    data = _json_text(dataset, "dataset", wrap_list="data")
    preds = _json_text(predictions, "predictions")
    r = _core.coqa(data, preds)
    return r["table"] if rounded else r["full"]


# ---- GLUE ----------------------------------------------------------------------------------

def _glue_labels(values, names, what):
    out = []
    for i, v in enumerate(as_lines(values, what)):
        if isinstance(v, str):
            s = v.strip()
            if s in names:
                out.append(float(names.index(s)))
                continue
            try:
                out.append(float(s))
            except ValueError:
                raise ValueError(f"{what}[{i}]: '{v}' is not a label of this task "
                                 f"({', '.join(names) if names else 'a number'})") from None
        else:
            out.append(float(v))
    return out


def glue(task, gold, pred):
    """HF transformers glue_compute_metrics with sklearn / scipy semantics: a dict of the task's
    fields (accuracy, f1, acc_and_f1, matthews_corrcoef, pearson, spearmanr, corr; None where the
    reference gives NaN). gold / pred: numbers or the task's label names."""
    names = _core.glue_label_names(task)
    return _core.glue(task, _glue_labels(gold, names, "gold"), _glue_labels(pred, names, "pred"))["result"]


def glue_score(task_metrics, mnli="average"):
    """The GLUE benchmark average of per-task metrics (metrics/glue.h glue_score)."""
    if mnli not in ("average", "matched"):
        raise ValueError("mnli: 'average' or 'matched'")
    return _core.glue_score(json.dumps(task_metrics), mnli_matched_only=mnli == "matched")


# ---- Distinct / Entropy --------------------------------------------------------------------

def distinct(lines, flavour="dstc7", orders=(1, 2), dstc7_clean=False):
    """Distinct-n: flavour "dstc7" ({"div_1", "div_2", "avg_len"}), "plato" or "ernie-gen"
    ({"intra_dist_1", ..., "inter_dist_2"}); None where the official script divides by zero."""
    return _core.distinct(as_lines(lines, "lines"), flavour=flavour, orders=list(orders),
                          dstc7_clean=dstc7_clean)


def entropy(lines, orders=(1, 2, 3, 4), dstc7_clean=False):
    """DSTC7 Entropy-n in nats: {"entropy_1": ..., "entropy_4": ...}."""
    return _core.entropy(as_lines(lines, "lines"), orders=list(orders), dstc7_clean=dstc7_clean)


# ---- unieval eval --------------------------------------------------------------------------

def evaluate(task, data, pred, split="", system="", options=None, per_example=False, bootstrap=0,
             seed=12345, ci_level=0.95):
    """`unieval eval --task TASK --data DATA --pred PRED`: the result JSON as a dict.

    data: the dataset file or directory in its distribution format. pred: the system output file,
    or in-memory outputs (a list of lines, or a dict / list written as JSON, e.g. SQuAD's
    {id: answer}), written to a temporary file first. options: the task's --option KEY=VALUE."""
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    tmp = None
    try:
        if not is_path(pred):
            fd, tmp = tempfile.mkstemp(prefix="unieval-pred-", suffix=".txt")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                if isinstance(pred, dict) or (isinstance(pred, (list, tuple)) and pred
                                              and not isinstance(pred[0], str)):
                    json.dump(pred, f, ensure_ascii=False)
                else:
                    for line in pred:
                        f.write(line + "\n")
            pred = tmp
            if not system:
                system = "python"
        return _core.evaluate(task, os.fspath(data), os.fspath(pred), split=split, system=system,
                              options=opts, per_example=per_example, bootstrap=int(bootstrap),
                              seed=int(seed), ci_level=float(ci_level))
    finally:
        if tmp:
            os.unlink(tmp)
