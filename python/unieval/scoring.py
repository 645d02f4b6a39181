# Follows rouge-score (Apache-2.0) API and behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
"""Drop-in for rouge-score 0.1.2's ``rouge_score.scoring``: the Score and AggregateScore
namedtuples and the BootstrapAggregator.

    >>> from unieval import rouge_scorer, scoring
    >>> scorer = rouge_scorer.RougeScorer(['rouge1', 'rougeL'], use_stemmer=True)
    >>> agg = scoring.BootstrapAggregator()
    >>> for t, p in zip(targets, predictions):
    ...     agg.add_scores(scorer.score(t, p))
    >>> agg.aggregate()['rouge1'].mid.fmeasure

BootstrapAggregator resamples as rouge-score does (n_samples means of a resample with
replacement; low / mid / high = the (1-ci)/2, 0.5 and 1-(1-ci)/2 percentiles of the means,
numpy's linear interpolation). With numpy installed it draws with numpy.random.choice, exactly as
rouge-score, so np.random.seed(s) gives rouge-score's numbers; without numpy it draws with
Python's random module (seed it with random.seed).
"""

import collections

__all__ = ["Score", "AggregateScore", "BaseScorer", "Aggregator", "BootstrapAggregator", "fmeasure"]


class Score(collections.namedtuple("Score", ["precision", "recall", "fmeasure"])):
    """One ROUGE result: (precision, recall, fmeasure), each a float in [0, 1]."""


class AggregateScore(collections.namedtuple("AggregateScore", ["low", "mid", "high"])):
    """A bootstrap estimate: the lower bound, the mean-of-means and the upper bound, each a Score."""


class BaseScorer:
    """What RougeScorer derives from (the name rouge-score code checks with isinstance)."""

    def score(self, target, prediction):
        raise NotImplementedError()


class Aggregator:
    """Interface of an aggregator: add_scores() per pair, then aggregate()."""

    def add_scores(self, scores):
        raise NotImplementedError()

    def aggregate(self):
        raise NotImplementedError()


def fmeasure(precision, recall):
    """The harmonic mean 2PR / (P + R); 0.0 when both are 0."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _percentile(sorted_values, q):
    """numpy.percentile(..., q) with the default linear interpolation, on sorted values."""
    n = len(sorted_values)
    pos = (n - 1) * q / 100.0
    lo = int(pos // 1)
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


class BootstrapAggregator(Aggregator):
    """Collects {type: Score} dicts and reports, per type, a bootstrap interval of the mean.

    confidence_interval: the coverage of [low, high], in [0, 1] (0.95: the 2.5th and 97.5th
    percentiles of the resampled means); n_samples: how many resamples, > 0."""

    def __init__(self, confidence_interval=0.95, n_samples=1000):
        if not 0 <= confidence_interval <= 1:
            raise ValueError(f"BootstrapAggregator: confidence_interval is {confidence_interval!r}; "
                             "it is a coverage between 0 and 1 (e.g. 0.95)")
        if not n_samples > 0:
            raise ValueError(f"BootstrapAggregator: n_samples is {n_samples!r}; at least one "
                             "resample is needed")
        self._n_samples = n_samples
        self._confidence_interval = confidence_interval
        self._scores = collections.defaultdict(list)

    def add_scores(self, scores):
        """Records one pair's result: a dict {score type: Score} as RougeScorer.score returns."""
        for score_type, score in scores.items():
            self._scores[score_type].append(score)

    def aggregate(self):
        """{score type: AggregateScore(low, mid, high)}, each bound of the same tuple type as the
        recorded scores."""
        result = {}
        for score_type, scores in self._scores.items():
            make = type(scores[0])
            low, mid, high = (make(*row) for row in self._bootstrap_resample([tuple(s) for s in scores]))
            result[score_type] = AggregateScore(low=low, mid=mid, high=high)
        return result

    def _bootstrap_resample(self, rows):
        """Three rows (low, mid, high) of percentiles, one column per field, over n_samples means
        of rows drawn with replacement."""
        tail = (1 - self._confidence_interval) / 2
        qs = [100 * tail, 100 * 0.5, 100 * (1 - tail)]  # this arithmetic, for the same last bit
        try:
            import numpy as np
        except ImportError:
            np = None
        n = len(rows)
        if np is not None:
            # One np.random.choice(n, size=n) per resample: the draws rouge-score makes, so that
            # np.random.seed(s) reproduces its numbers.
            data = np.asarray(rows, dtype=np.float64)
            means = np.empty((self._n_samples, data.shape[1]))
            for k in range(self._n_samples):
                means[k] = data[np.random.choice(n, size=n)].mean(axis=0)
            return [list(row) for row in np.percentile(means, np.array(qs), axis=0)]
        import random
        width = len(rows[0])
        means = [[] for _ in range(width)]
        for _ in range(self._n_samples):
            idx = [random.randrange(n) for _ in range(n)]
            for j in range(width):
                means[j].append(sum(rows[i][j] for i in idx) / n)
        for m in means:
            m.sort()
        return [[_percentile(means[j], q) for j in range(width)] for q in qs]
