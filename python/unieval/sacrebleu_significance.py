# Follows sacreBLEU (Apache-2.0) API and behaviour: PairedTest's constructor follows the structure
# of its significance.py PairedTest, adapted by reading its source; the resampling is ours (C++);
# see THIRD_PARTY_NOTICES.md.
"""Drop-in for sacreBLEU 2.6.0's ``sacrebleu.significance``: ``PairedTest`` and ``Result``.

Importable as ``unieval.sacrebleu.significance`` (and as ``unieval.sacrebleu_significance``).

    >>> from unieval.sacrebleu import BLEU
    >>> from unieval.sacrebleu.significance import PairedTest
    >>> systems = [("baseline", base_hyps), ("sys1", hyps1), ("sys2", hyps2)]   # baseline first
    >>> sigs, scores = PairedTest(systems, {"BLEU": BLEU()}, [refs], test_type="bs")()
    >>> scores["BLEU"][1]        # Result: .score .p_value .mean .ci
    >>> str(sigs["BLEU"])        # 'nrefs:1|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'

Identical to sacreBLEU 2.6.0 under numpy 1.x (what its arithmetic on np.float32 scalars assumes):
the same scores, p-values, means and 95% intervals, for BLEU, CHRF and TER.

| sacreBLEU                                   | here                                           |
|---------------------------------------------|------------------------------------------------|
| PairedTest(named_systems, metrics, references, test_type='ar', n_samples=0, n_ar_confidence=-1, n_jobs=1) | same; n_jobs is accepted, the work runs in this process on C++ threads |
| test_type 'bs': paired bootstrap, 1000 resamples by default; 'ar': approximate randomization, 10000 trials | same |
| SACREBLEU_SEED (default 12345; 'none': OS entropy) | same, read when PairedTest is built / corpus_score bootstraps |
| Result(score, p_value, mean, ci), repr 'score=..,p_value=..,mean=..,ci=..' | same |
| estimate_ci(scores) -> (mean, half-width of the 2.5..97.5 percentile range) | same |

The random draws are numpy's own (np.random.default_rng(seed).choice / .integers, as sacreBLEU
makes them), so numpy is needed, as for sacreBLEU; the per-segment statistics and the thousands
of resampled corpus scores are computed in C++ (metrics/sacrebleu_significance.h).
"""

import logging
import multiprocessing as mp
import os
import warnings

from . import sacrebleu as _sb

__all__ = ["PairedTest", "Result", "estimate_ci"]

IS_WINDOWS = os.name == "nt"

sacrelogger = logging.getLogger("sacrebleu")


_warned_numpy2 = False


def _np():
    import numpy as np  # as sacreBLEU: numpy only once significance is used
    global _warned_numpy2
    if not _warned_numpy2 and int(np.__version__.split(".")[0]) >= 2:
        _warned_numpy2 = True
        warnings.warn(f"unieval.sacrebleu.significance reproduces sacreBLEU 2.6.0's resampling arithmetic "
                      f"under numpy 1.x (float32 with a Python number gives float64); numpy {np.__version__} "
                      f"promotes by NEP 50 instead, so sacreBLEU's own bootstrap means, intervals and "
                      f"p-values there may differ from these in the last digits (not checked: no numpy 2 "
                      f"golden cases)", UserWarning, stacklevel=3)
    return np


class Result:
    """One system's result of a paired test: score, and p_value / mean / ci where computed."""

    def __init__(self, score, p_value=None, mean=None, ci=None):
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self):
        return ",".join(f"{k}={v}" for k, v in self.__dict__.items())


def estimate_ci(scores):
    """(mean, ci) of resampled scores: ci is half the distance between the values at sorted
    positions n // 40 and n - n // 40 - 1 (a 95% interval)."""
    np = _np()
    ordered = np.sort(scores)
    n = len(ordered)
    lo = n // 40
    half = 0.5 * (ordered[n - lo - 1] - ordered[lo])
    return ordered.mean(), half


def _env_seed():
    """SACREBLEU_SEED as sacreBLEU reads it: (the string it reports, the seed or None)."""
    seed = os.environ.get("SACREBLEU_SEED", "12345")
    return str(seed).lower(), (None if seed.lower() == "none" else int(seed))


def _scores(raw):
    """The float64 scores the C++ side packs as bytes, as a numpy array."""
    np = _np()
    return np.frombuffer(raw, dtype=np.float64)


def _draw(seed, n_samples, n, memo=None):
    """np.random.default_rng(seed).choice(n, size=(n_samples, n)) as C-contiguous int64. A fixed
    seed draws the same indices every time, so `memo` (one PairedTest's) may hand them out again."""
    key = ("choice", seed, n_samples, n)
    if memo is not None and seed is not None and key in memo:
        return memo[key]
    np = _np()
    idxs = np.ascontiguousarray(np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True),
                                dtype=np.int64)
    if memo is not None and seed is not None:
        memo[key] = idxs
    return idxs


def _resampled(metric, stats, seed, n_samples, memo=None):
    """The bootstrap scores of `stats` on the indices seed draws; the baseline's are the same for
    every system of a bs test (and for its own interval), so `memo` keeps them."""
    key = ("scores", id(stats), seed, n_samples)
    if memo is not None and seed is not None and key in memo:
        return memo[key]
    scores = _scores(metric._resampler().bootstrap(stats, _draw(seed, n_samples, len(stats), memo)))
    if memo is not None and seed is not None:
        memo[key] = scores
    return scores


def _bootstrap_resample(stats, metric, n_samples=1000, memo=None):
    """A system's bootstrap: (seed string, the n_samples resampled scores as a numpy array)."""
    seed_str, seed = _env_seed()
    return seed_str, _resampled(metric, stats, seed, n_samples, memo)


def _compute_p_value(stats, real_difference):
    # (count of statistics strictly above the real difference + 1) / (trials + 1): the
    # StratifiedApproximateRandomizationTest rule of multeval that sacreBLEU uses.
    c = _np().sum(stats > real_difference).item()
    return (c + 1) / (len(stats) + 1)


def _paired_ar_test(baseline_info, sys_name, hypotheses, references, metrics, n_samples=10000,
                    n_ar_confidence=-1, seed=None, memo=None, prepared=None):
    np = _np()
    rng = np.random.default_rng(seed)
    pos_sel = rng.integers(2, size=(n_samples, len(hypotheses)), dtype=bool)
    if n_ar_confidence > 0:
        bs_idxs = rng.choice(len(hypotheses), size=(n_ar_confidence, len(hypotheses)), replace=True)
    results = {}
    for name, metric in metrics.items():
        bl_stats, bl_result = baseline_info[name]
        sacrelogger.info(f"Computing {name} for {sys_name!r} and extracting sufficient statistics")
        sys_stats = metric._extract_corpus_statistics(hypotheses, (prepared or {}).get(name, references))
        sys_score = metric._aggregate_and_compute(sys_stats)
        diff = abs(bl_result.score - sys_score.score)
        sacrelogger.info(f" > Performing approximate randomization test (# trials: {n_samples})")
        raw_a, raw_b = metric._resampler().ar(bl_stats, sys_stats, np.ascontiguousarray(pos_sel))
        p = _compute_p_value(np.abs(_scores(raw_a) - _scores(raw_b)), diff)
        res = Result(sys_score.score, p)
        if n_ar_confidence > 0:
            sacrelogger.info(f" > Performing bootstrap resampling for confidence interval (# resamples: {n_ar_confidence})")
            sys_scores = _scores(metric._resampler().bootstrap(sys_stats, np.ascontiguousarray(bs_idxs, dtype=np.int64)))
            res.mean, res.ci = estimate_ci(sys_scores)
        results[name] = res
    return sys_name, results


def _paired_bs_test(baseline_info, sys_name, hypotheses, references, metrics, n_samples=1000,
                    n_ar_confidence=-1, seed=None, memo=None, prepared=None):
    np = _np()
    if seed is None:
        memo = None  # fresh entropy: nothing to share
    idxs = _draw(seed, n_samples, len(hypotheses), memo)
    results = {}
    for name, metric in metrics.items():
        bl_stats, bl_result = baseline_info[name]
        sacrelogger.info(f"Computing {name} for {sys_name!r} and extracting sufficient statistics")
        sys_stats = metric._extract_corpus_statistics(hypotheses, (prepared or {}).get(name, references))
        sys_score = metric._aggregate_and_compute(sys_stats)
        diff = abs(bl_result.score - sys_score.score)
        sacrelogger.info(f" > Performing paired bootstrap resampling test (# resamples: {n_samples})")
        scores_bl = _resampled(metric, bl_stats, seed, n_samples, memo)
        scores_sys = _scores(metric._resampler().bootstrap(sys_stats, idxs))
        sys_mean, sys_ci = estimate_ci(scores_sys)
        sample_diffs = np.abs(scores_sys - scores_bl)
        stats = sample_diffs - sample_diffs.mean()
        p = _compute_p_value(stats, diff)
        results[name] = Result(sys_score.score, p, sys_mean, sys_ci)
    return sys_name, results


class PairedTest:
    """sacreBLEU's significance.PairedTest: the first of `named_systems` is the baseline; calling
    the object returns (signatures by metric name, {'System': names, metric name: [Result, ...]})."""

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems, metrics, references, test_type="ar", n_samples=0,
                 n_ar_confidence=-1, n_jobs=1):
        assert test_type in ("ar", "bs"), f"test_type is {test_type!r}: 'ar' or 'bs'"
        self.test_type = test_type
        self._fn = _paired_ar_test if test_type == "ar" else _paired_bs_test
        _, self._seed = _env_seed()
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else self._DEFAULT_SAMPLES["bs"]
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[self.test_type]
        self.n_systems = len(named_systems) - 1
        if IS_WINDOWS:
            sacrelogger.warning("n_jobs: one process on Windows (no fork there)")
            self.n_jobs = 1
        elif self.n_jobs == 0:
            n_max_jobs = mp.cpu_count() // 2
            self.n_jobs = 1 if n_max_jobs == 0 else min(n_max_jobs, self.n_systems)

        self._signatures = {}
        self._baseline_info = {}
        self._memo = {}  # index draws and baseline scores that repeat (fixed seeds only)
        self._prepared = {}  # each metric's references, tokenised once for every system
        self.metrics = {}
        bl_name, bl_hyps = self.named_systems[0]
        for name, metric in metrics.items():
            if not hasattr(metric, "_resampler"):
                raise TypeError(f"PairedTest: {name!r} is not a unieval.sacrebleu metric (BLEU, CHRF, TER)")
            sacrelogger.info(f"Pre-computing {name} statistics for {bl_name!r}")
            refs = metric._prepare_references(self.references)
            bl_stats = metric._extract_corpus_statistics(bl_hyps, refs)
            bl_score = metric._aggregate_and_compute(bl_stats)
            confidence_n = self.n_samples if self.test_type == "bs" else self.n_ar_confidence
            bl_mean, bl_ci = None, None
            if confidence_n > 0:
                _, bl_scores = _bootstrap_resample(bl_stats, metric, confidence_n, self._memo)
                bl_mean, bl_ci = estimate_ci(bl_scores)
            self._baseline_info[bl_score.name] = (bl_stats, Result(bl_score.score, mean=bl_mean, ci=bl_ci))
            self.metrics[bl_score.name] = metric
            self._prepared[bl_score.name] = refs
            sig = metric.get_signature()
            sig.update("seed", str(self._seed).lower())
            sig.update(self.test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                sig.update("bs", self.n_ar_confidence)
            self._signatures[bl_score.name] = sig

    def __call__(self):
        scores = {"System": [ns[0] for ns in self.named_systems]}
        for metric, (_, result) in self._baseline_info.items():
            scores[metric] = [result]
        results = []
        for name, hyps in self.named_systems[1:]:
            # sacreBLEU passes a seed of 0 on as None (fresh entropy) to the systems' tests
            seed = self._seed if self._seed else None
            results.append(self._fn(self._baseline_info, name, hyps, self.references, self.metrics,
                                    self.n_samples, self.n_ar_confidence, seed, memo=self._memo,
                                    prepared=self._prepared))
        for _, sys_results in results:
            for metric, result in sys_results.items():
                scores[metric].append(result)
        return self._signatures, scores


# sacrebleu.significance names metrics' base classes too.
Score = _sb.Score
Signature = _sb.Signature
