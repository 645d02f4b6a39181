# Follows sacreBLEU (Apache-2.0) API and behaviour: Score.format, Score.estimate_ci and the score
# classes follow the structure of its metrics/base.py and metrics/bleu.py, adapted by reading its
# source (their output strings are the behaviour); the rest is ours; see THIRD_PARTY_NOTICES.md.
"""Drop-in for the sacreBLEU 2.6.0 Python API: ``import unieval.sacrebleu as sacrebleu``.

    >>> import unieval.sacrebleu as sacrebleu
    >>> sacrebleu.corpus_bleu(['the cat sat on the mat'], [['the cat sat on the mat']]).score
    100.0
    >>> bleu = sacrebleu.BLEU(tokenize='13a', smooth_method='exp')
    >>> str(bleu.corpus_score(hyps, [refs]))        # 'BLEU = 37.99 83.3/60.0/... ref_len = 6)'
    >>> str(bleu.get_signature())                   # 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'

The numbers are those of unieval's C++ port (metrics/bleu.h, metrics/chrf.h, metrics/ter.h),
identical to sacreBLEU 2.6.0 on the golden vectors; scoring runs without the GIL.

| sacreBLEU call                                   | here                       |
|--------------------------------------------------|----------------------------|
| corpus_bleu(hyps, refs, smooth_method, smooth_value, force, lowercase, tokenize, use_effective_order) | same |
| sentence_bleu(hyp, refs, ...)                    | same (effective order on)  |
| raw_corpus_bleu(hyps, refs, smooth_value)        | same                       |
| corpus_chrf / sentence_chrf(..., char_order, word_order, beta, remove_whitespace, eps_smoothing) | same |
| corpus_ter / sentence_ter(..., normalized, no_punct, asian_support, case_sensitive) | same |
| BLEU(...), CHRF(...), TER(...): corpus_score, sentence_score, get_signature | same |
| BLEU.compute_bleu(correct, total, sys_len, ref_len, smooth_method, ...) | same      |
| TercomTokenizer(...)(sent)                       | same                       |

| corpus_score(..., n_bootstrap=N): 95% CI, " (μ = mean ± ci)", signature bs / seed | same (numpy's draws) |
| significance.PairedTest, significance.Result     | same (sacrebleu_significance.py) |

Not available (ValueError): tokenizers other than 13a, intl, none, char, zh (the MeCab and
flores SentencePiece ones).
"""

from . import _core
from ._inputs import as_lines, as_streams

__all__ = ["corpus_bleu", "raw_corpus_bleu", "sentence_bleu", "corpus_chrf", "sentence_chrf", "corpus_ter", "sentence_ter",
           "BLEU", "CHRF", "TER", "TercomTokenizer", "BLEUScore", "CHRFScore", "TERScore", "TERSignature", "Signature", "BLEUSignature", "CHRFSignature"]

__version__ = "2.6.0"  # the sacreBLEU version whose numbers and signatures these are

# A reference that is None (sacreBLEU: "no reference for this segment") travels to C++ as this
# line, which metrics/bleu.h then treats as absent.
_MISSING = "\x00unieval:no-reference\x00"


class Score:
    """sacreBLEU's metrics.base.Score: a name, a score and a verbose tail."""

    def __init__(self, name, score):
        self.name = name
        self.score = score
        self._verbose = ""
        self._mean = -1.0
        self._ci = -1.0

    def format(self, width=2, score_only=False, signature="", is_json=False):
        sc = f"{self.score:.{width}f}"
        d = {"name": self.name, "score": float(sc), "signature": signature}
        if self._mean > 0:  # after a bootstrap (corpus_score(n_bootstrap=N)): " (μ = mean ± ci)"
            mean, ci = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            sc += f" (μ = {mean} ± {ci})"
            d.update(confidence_mean=float(mean), confidence_var=float(ci), confidence=f"μ = {mean} ± {ci}")
        if score_only:
            return sc
        full = f"{self.name}|{signature}" if signature else self.name
        s = f"{full} = {sc}"
        if self._verbose:
            s += f" {self._verbose}"
            d["verbose_score"] = self._verbose
        if is_json:
            import json
            for param in signature.split("|") if signature else []:
                key, value = param.split(":")
                d[key] = value
            return json.dumps(d, indent=1, ensure_ascii=False)
        return s

    def estimate_ci(self, scores):
        """Stores the mean (exact, statistics.mean) and the 95% half-interval of resampled scores
        (Score objects or numbers)."""
        import statistics
        raw = sorted(float(getattr(x, "score", x)) for x in scores)
        lo = len(raw) // 40
        self._ci = 0.5 * (raw[len(raw) - lo - 1] - raw[lo])
        self._mean = statistics.mean(raw)

    def __repr__(self):
        return self.format()

    def __str__(self):
        return self.format()


class BLEUScore(Score):
    """sacreBLEU's BLEUScore: .score .counts .totals .precisions .bp .sys_len .ref_len."""

    def __init__(self, score, counts, totals, precisions, bp, sys_len, ref_len):
        super().__init__("BLEU", score)
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        self.prec_str = "/".join([f"{p:.1f}" for p in self.precisions])
        self.ratio = self.sys_len / self.ref_len if self.ref_len else 0
        self._verbose = f"{self.prec_str} (BP = {self.bp:.3f} ratio = {self.ratio:.3f}"
        self._verbose += f" hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})"


class CHRFScore(Score):
    """sacreBLEU's CHRFScore: .score .char_order .word_order .beta."""

    def __init__(self, score, char_order, word_order, beta):
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        name = f"chrF{self.beta}" + "+" * self.word_order
        super().__init__(name, score)


class Signature:
    """A metric signature: str() gives the long form, format(short=True) the abbreviated one;
    update(key, value) adds or changes a field (bs, ar, seed, ...) where sacreBLEU puts it."""

    _abbr = {"version": "v", "nrefs": "#", "case": "c", "tok": "tok", "smooth": "s", "eff": "e",
             "nc": "nc", "nw": "nw", "space": "s", "test": "t", "lang": "l", "subset": "S",
             "origlang": "o", "bs": "bs", "ar": "ar", "seed": "rs"}
    # The fields every metric's signature has, in sacreBLEU's order (after them the metric's own,
    # version last).
    _GLOBAL = ["nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset"]

    def __init__(self, text):
        self._fields = [tuple(part.split(":", 1)) for part in text.split("|")]

    def format(self, short=False):
        parts = []
        for key, value in self._fields:
            parts.append(f"{self._abbr.get(key, key) if short else key}:{value}")
        return "|".join(parts)

    @property
    def info(self):
        """The fields as a dict (sacreBLEU's Signature.info), values as printed."""
        return dict(self._fields)

    def update(self, key, value):
        keys = [k for k, _ in self._fields]
        if value is None:  # sacreBLEU leaves None fields out
            self._fields = [(k, v) for k, v in self._fields if k != key]
            return
        text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        if key in keys:
            self._fields[keys.index(key)] = (key, text)
            return
        if key in self._GLOBAL:
            rank = self._GLOBAL.index(key)
            pos = 0
            for i, k in enumerate(keys):
                if k in self._GLOBAL and self._GLOBAL.index(k) < rank:
                    pos = i + 1
        else:
            pos = keys.index("version") if "version" in keys else len(keys)
        self._fields.insert(pos, (key, text))

    def __str__(self):
        return self.format()

    def __repr__(self):
        return self.format()


class BLEUSignature(Signature):
    pass


class TERSignature(Signature):
    _abbr = dict(Signature._abbr, case="c", tok="t", norm="nr", punct="pn", asian="as")


class TERScore(Score):
    """sacreBLEU's TERScore: .score .num_edits (int) .ref_length."""

    def __init__(self, score, num_edits, ref_length):
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length


class TercomTokenizer:
    """sacreBLEU's tokenizers.tokenizer_ter.TercomTokenizer (metrics/ter.h tercom_tokenize)."""

    def __init__(self, normalized=False, no_punct=False, asian_support=False, case_sensitive=False):
        self._options = dict(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                             case_sensitive=case_sensitive)

    def __call__(self, sent):
        return _core.tercom_tokenize(sent, **self._options)

    def signature(self):
        return "tercom"


class CHRFSignature(Signature):
    pass


def _bleu_score(d, smooth_method, smooth_value):
    add_k_float = smooth_method == "add-k" and isinstance(smooth_value, float)
    counts = [_number(c, add_k_float) for c in d["counts"]]
    totals = [_number(t, add_k_float) for t in d["totals"]]
    return BLEUScore(d["score"], counts, totals, list(d["precisions"]), d["bp"], d["sys_len"], d["ref_len"])


def _number(x, as_float):
    return float(x) if as_float or not float(x).is_integer() else int(x)


def _nrefs(streams):
    """nrefs of the signature: the number of streams, 'var' (-1) when Nones make it vary."""
    return _core.streams_info(streams)[0]


class _PreparedReferences:
    """BLEU references tokenised once (BLEU._prepare_references): the C++ handle, the number of
    references sacreBLEU's signature counts, the missing-reference marker and what they were
    tokenised with."""

    __slots__ = ("handle", "nrefs", "marker", "tokenized_as")

    def __init__(self, handle, nrefs, marker, tokenized_as):
        self.handle = handle
        self.nrefs = nrefs
        self.marker = marker
        self.tokenized_as = tokenized_as


class _Resampling:
    """What the metrics share for bootstrap CIs and sacrebleu.significance: per-segment
    statistics (a _core.SegmentStats), their corpus score, and the signature's bs / seed."""

    n_bootstrap = None  # set by corpus_score(n_bootstrap > 1), as sacreBLEU's Metric
    seed = None

    def _prepare_references(self, references):
        """The references in the form _extract_corpus_statistics counts fastest against, for
        scoring several systems (PairedTest); chrF and TER take them as they are."""
        return references

    def _aggregate_and_compute(self, stats):
        score, sums = self._resampler().corpus(stats)
        return self._score_of_sums(score, sums)

    def _bootstrap(self, score, hypotheses, references, n_bootstrap):
        from .sacrebleu_significance import _bootstrap_resample
        stats = self._extract_corpus_statistics(hypotheses, references)
        self.n_bootstrap = n_bootstrap
        self.seed, scores = _bootstrap_resample(stats, self, n_bootstrap)
        score.estimate_ci(scores)
        return score

    def _signature(self, text):
        sig = self._SIGNATURE_TYPE(text)
        sig.update("beta", None)
        sig.update("bs", self.n_bootstrap)
        sig.update("seed", self.seed)
        return sig


class BLEU(_Resampling):
    """sacreBLEU's metrics.BLEU."""

    SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
    TOKENIZERS = ["none", "zh", "13a", "char", "intl"]
    TOKENIZER_DEFAULT = "13a"
    _SIGNATURE_TYPE = BLEUSignature

    def __init__(self, lowercase=False, force=False, tokenize=None, smooth_method="exp",
                 smooth_value=None, max_ngram_order=4, effective_order=False, trg_lang="",
                 references=None):
        self.name = "BLEU"
        self.lowercase = lowercase
        self.force = force
        self.trg_lang = trg_lang
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        if tokenize is None:
            tokenize = "zh" if trg_lang == "zh" else self.TOKENIZER_DEFAULT
        # An unknown tokenizer or smoothing is a ValueError with the CLI's message.
        _core.bleu_signature(1, tokenize=tokenize, smooth_method=smooth_method)
        self.tokenize = tokenize
        self._nrefs = 1
        self._ref_cache = None
        if references is not None:
            self._ref_cache = as_streams(references, "references", allow_none=True)
            self._nrefs = _nrefs(self._ref_cache)

    def _refs(self, references):
        if references is None:
            if self._ref_cache is None:
                raise RuntimeError("no references: pass them to this call or to the constructor")
            return self._ref_cache
        return as_streams(references, "references", allow_none=True)

    def _args(self, refs):
        marker = None
        if _core.streams_info(refs)[1]:  # a None reference (counted in C++: no loop here)
            refs = [[_MISSING if r is None else r for r in s] for s in refs]
            marker = _MISSING
        return refs, marker

    def _score(self, d):
        return _bleu_score(d, self.smooth_method, self.smooth_value)

    @staticmethod
    def compute_bleu(correct, total, sys_len, ref_len, smooth_method="none", smooth_value=None,
                     effective_order=False, max_ngram_order=4):
        """sacreBLEU's BLEU.compute_bleu: the BLEUScore of sufficient statistics."""
        d = _core.bleu_from_stats([int(c) for c in correct], [int(t) for t in total], int(sys_len), int(ref_len),
                                  smooth_method=smooth_method, smooth_value=smooth_value,
                                  effective_order=effective_order, max_ngram_order=max_ngram_order)
        return _bleu_score(d, smooth_method, smooth_value)

    def corpus_score(self, hypotheses, references=None, n_bootstrap=1):
        hyps = as_lines(hypotheses, "hypotheses")
        refs = self._refs(references)
        self._nrefs = _nrefs(refs)
        refs, marker = self._args(refs)
        d = _core.bleu(hyps, refs, tokenize=self.tokenize, smooth_method=self.smooth_method,
                       smooth_value=self.smooth_value, lowercase=self.lowercase,
                       max_ngram_order=self.max_ngram_order, effective_order=self.effective_order,
                       missing_marker=marker)
        score = self._score(d)
        if n_bootstrap > 1:
            return self._bootstrap(score, hyps, references, n_bootstrap)
        return score

    def _resampler(self, missing_marker=None):
        return _core.bleu_resampler(tokenize=self.tokenize, smooth_method=self.smooth_method,
                                    smooth_value=self.smooth_value, lowercase=self.lowercase,
                                    max_ngram_order=self.max_ngram_order, effective_order=self.effective_order,
                                    missing_marker=missing_marker)

    def _prepare_references(self, references):
        """The references tokenised once (a _PreparedReferences) for this metric's tokenizer and
        case: PairedTest counts every system against them without tokenising them again."""
        refs = self._refs(references if references else None)
        nrefs = _nrefs(refs)
        refs, marker = self._args(refs)
        return _PreparedReferences(self._resampler(marker).prepare_references(refs), nrefs, marker,
                                   (self.tokenize, self.lowercase))

    def _extract_corpus_statistics(self, hypotheses, references):
        """Per-segment [hyp_len, ref_len, correct x N, total x N] (a _core.SegmentStats)."""
        hyps = as_lines(hypotheses, "hypotheses")
        if isinstance(references, _PreparedReferences) and references.tokenized_as == (self.tokenize, self.lowercase):
            self._nrefs = references.nrefs
            return self._resampler(references.marker).segment_stats(hyps, references.handle)
        if isinstance(references, _PreparedReferences):
            raise ValueError("references prepared for another tokenizer or case")
        refs = self._refs(references if references else None)
        self._nrefs = _nrefs(refs)
        refs, marker = self._args(refs)
        return self._resampler(marker).segment_stats(hyps, refs)

    def _score_of_sums(self, score, sums):
        n = self.max_ngram_order
        return self.compute_bleu([int(x) for x in sums[2:2 + n]], [int(x) for x in sums[2 + n:]], int(sums[0]),
                                 int(sums[1]), smooth_method=self.smooth_method, smooth_value=self.smooth_value,
                                 effective_order=self.effective_order, max_ngram_order=n)

    def sentence_score(self, hypothesis, references):
        if not isinstance(hypothesis, str):
            raise TypeError("`hypothesis` should be a string")
        if isinstance(references, str) or references is None:
            raise TypeError("`references` should be a sequence of strings")
        refs = [[r] for r in references]
        self._nrefs = _nrefs(refs)
        refs, marker = self._args(refs)
        d = _core.bleu([hypothesis], refs, tokenize=self.tokenize, smooth_method=self.smooth_method,
                       smooth_value=self.smooth_value, lowercase=self.lowercase,
                       max_ngram_order=self.max_ngram_order, effective_order=self.effective_order,
                       missing_marker=marker, sentence=True)
        return self._score(d[0])

    def sentence_scores(self, hypotheses, references):
        """Every segment's sentence BLEU in one call (refs as streams; not in sacreBLEU)."""
        hyps = as_lines(hypotheses, "hypotheses")
        refs, marker = self._args(as_streams(references, "references", allow_none=True))
        ds = _core.bleu(hyps, refs, tokenize=self.tokenize, smooth_method=self.smooth_method,
                        smooth_value=self.smooth_value, lowercase=self.lowercase,
                        max_ngram_order=self.max_ngram_order, effective_order=self.effective_order,
                        missing_marker=marker, sentence=True)
        return [self._score(d) for d in ds]

    def get_signature(self):
        return self._signature(_core.bleu_signature(
            self._nrefs, tokenize=self.tokenize, smooth_method=self.smooth_method,
            lowercase=self.lowercase, effective_order=self.effective_order, smooth_value=self.smooth_value))


class CHRF(_Resampling):
    """sacreBLEU's metrics.CHRF (chrF, and chrF++ with word_order=2)."""

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _SIGNATURE_TYPE = CHRFSignature

    def __init__(self, char_order=CHAR_ORDER, word_order=WORD_ORDER, beta=BETA, lowercase=False,
                 whitespace=False, eps_smoothing=False, references=None):
        self.name = "chrF"
        self.char_order = char_order
        self.word_order = word_order
        self.beta = beta
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self._nrefs = 1
        self._ref_cache = None
        if references is not None:
            self._ref_cache = as_streams(references, "references")
            self._nrefs = len(self._ref_cache)

    def _call(self, hyps, refs, sentence):
        return _core.chrf(hyps, refs, char_order=self.char_order, word_order=self.word_order,
                          beta=float(self.beta), lowercase=self.lowercase,
                          eps_smoothing=self.eps_smoothing, whitespace=self.whitespace, sentence=sentence)

    def _score(self, d):
        return CHRFScore(d["score"], self.char_order, self.word_order, self.beta)

    def _refs(self, references):
        if not references:
            if self._ref_cache is None:
                raise RuntimeError("no references: pass them to this call or to the constructor")
            return self._ref_cache
        return as_streams(references, "references")

    def corpus_score(self, hypotheses, references=None, n_bootstrap=1):
        hyps = as_lines(hypotheses, "hypotheses")
        refs = self._refs(references)
        self._nrefs = len(refs)
        score = self._score(self._call(hyps, refs, False))
        if n_bootstrap > 1:
            return self._bootstrap(score, hyps, references, n_bootstrap)
        return score

    def _resampler(self):
        return _core.chrf_resampler(char_order=self.char_order, word_order=self.word_order, beta=float(self.beta),
                                    lowercase=self.lowercase, eps_smoothing=self.eps_smoothing,
                                    whitespace=self.whitespace)

    def _extract_corpus_statistics(self, hypotheses, references):
        """Per-segment [hyp, ref, match] per order (a _core.SegmentStats)."""
        hyps = as_lines(hypotheses, "hypotheses")
        refs = self._refs(references)
        self._nrefs = len(refs)
        return self._resampler().segment_stats(hyps, refs)

    def _score_of_sums(self, score, sums):
        return CHRFScore(score, self.char_order, self.word_order, self.beta)

    def sentence_score(self, hypothesis, references):
        if not isinstance(hypothesis, str):
            raise TypeError("`hypothesis` should be a string")
        refs = [[r] for r in as_lines(references, "references")]
        self._nrefs = len(refs)
        return self._score(self._call([hypothesis], refs, True)[0])

    def get_signature(self):
        # (sacreBLEU's chrF signature has no beta field; `unieval score`'s adds one when beta != 2)
        return self._signature(_core.chrf_signature(
            self._nrefs, char_order=self.char_order, word_order=self.word_order, beta=float(self.beta),
            lowercase=self.lowercase, eps_smoothing=self.eps_smoothing, whitespace=self.whitespace))


class TER(_Resampling):
    """sacreBLEU's metrics.TER (Tercom as sacreBLEU 2.6.0 computes it; metrics/ter.h)."""

    _SIGNATURE_TYPE = TERSignature

    def __init__(self, normalized=False, no_punct=False, asian_support=False, case_sensitive=False,
                 references=None):
        self.name = "TER"
        self.normalized = normalized
        self.no_punct = no_punct
        self.asian_support = asian_support
        self.case_sensitive = case_sensitive
        self.tokenizer = TercomTokenizer(normalized=normalized, no_punct=no_punct,
                                         asian_support=asian_support, case_sensitive=case_sensitive)
        self.tokenizer_signature = self.tokenizer.signature()
        self._nrefs = 1
        self._ref_cache = None
        if references is not None:
            self._ref_cache = as_streams(references, "references")
            self._nrefs = len(self._ref_cache)

    def _call(self, hyps, refs, sentence):
        return _core.ter(hyps, refs, normalized=self.normalized, no_punct=self.no_punct,
                         asian_support=self.asian_support, case_sensitive=self.case_sensitive,
                         sentence=sentence)

    @staticmethod
    def _score(d):
        return TERScore(d["score"], d["num_edits"], d["ref_length"])

    def _refs(self, references):
        if not references:
            if self._ref_cache is None:
                raise RuntimeError("no references: pass them to this call or to the constructor")
            return self._ref_cache
        return as_streams(references, "references")

    def corpus_score(self, hypotheses, references=None, n_bootstrap=1):
        hyps = as_lines(hypotheses, "hypotheses")
        refs = self._refs(references)
        self._nrefs = len(refs)
        score = self._score(self._call(hyps, refs, False))
        if n_bootstrap > 1:
            return self._bootstrap(score, hyps, references, n_bootstrap)
        return score

    def _resampler(self):
        return _core.ter_resampler(normalized=self.normalized, no_punct=self.no_punct,
                                   asian_support=self.asian_support, case_sensitive=self.case_sensitive)

    def _extract_corpus_statistics(self, hypotheses, references):
        """Per-segment [edits, average reference length] (a _core.SegmentStats)."""
        hyps = as_lines(hypotheses, "hypotheses")
        refs = self._refs(references)
        self._nrefs = len(refs)
        return self._resampler().segment_stats(hyps, refs)

    def _score_of_sums(self, score, sums):
        return TERScore(score, sums[0], sums[1])

    def sentence_score(self, hypothesis, references):
        if not isinstance(hypothesis, str):
            raise TypeError("`hypothesis` should be a string")
        refs = [[r] for r in as_lines(references, "references")]
        self._nrefs = len(refs)
        return self._score(self._call([hypothesis], refs, True)[0])

    def get_signature(self):
        return self._signature(_core.ter_signature(
            self._nrefs, normalized=self.normalized, no_punct=self.no_punct,
            asian_support=self.asian_support, case_sensitive=self.case_sensitive))


def corpus_bleu(hypotheses, references, smooth_method="exp", smooth_value=None, force=False,
                lowercase=False, tokenize=BLEU.TOKENIZER_DEFAULT, use_effective_order=False):
    """sacrebleu.corpus_bleu: references are streams, references[k][i] = k-th reference of i."""
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses, references, smooth_value=0.1):
    """sacrebleu.raw_corpus_bleu: no tokenisation, floor smoothing (0.1), effective order, forced."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis, references, smooth_method="exp", smooth_value=None, lowercase=False,
                  tokenize=BLEU.TOKENIZER_DEFAULT, use_effective_order=True):
    """sacrebleu.sentence_bleu: one hypothesis, a list of its references."""
    metric = BLEU(lowercase=lowercase, tokenize=tokenize, force=False, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.sentence_score(hypothesis, references)


def corpus_chrf(hypotheses, references, char_order=CHRF.CHAR_ORDER, word_order=CHRF.WORD_ORDER,
                beta=CHRF.BETA, remove_whitespace=True, eps_smoothing=False):
    """sacrebleu.corpus_chrf."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing)
    return metric.corpus_score(hypotheses, references)


def sentence_chrf(hypothesis, references, char_order=CHRF.CHAR_ORDER, word_order=CHRF.WORD_ORDER,
                  beta=CHRF.BETA, remove_whitespace=True, eps_smoothing=False):
    """sacrebleu.sentence_chrf."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing)
    return metric.sentence_score(hypothesis, references)


def corpus_ter(hypotheses, references, normalized=False, no_punct=False, asian_support=False,
               case_sensitive=False):
    """sacrebleu.corpus_ter."""
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive)
    return metric.corpus_score(hypotheses, references)


def sentence_ter(hypothesis, references, normalized=False, no_punct=False, asian_support=False,
                 case_sensitive=False):
    """sacrebleu.sentence_ter."""
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive)
    return metric.sentence_score(hypothesis, references)


# `import unieval.sacrebleu.significance` / `from unieval.sacrebleu import significance`, as
# sacrebleu.significance (numpy is imported only once a test runs).
from . import sacrebleu_significance as significance  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".significance"] = significance
