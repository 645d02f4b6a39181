# Follows rouge-score (Apache-2.0) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
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
    """Tuple containing precision, recall, and f-measure values."""


class AggregateScore(collections.namedtuple("AggregateScore", ["low", "mid", "high"])):
    """Tuple containing confidence intervals for scores."""


class BaseScorer:
    """Base class for Scorer objects (rouge-score's scoring.BaseScorer)."""

    def score(self, target, prediction):
        raise NotImplementedError()


class Aggregator:
    """Abstract base class for aggregators."""

    def add_scores(self, scores):
        raise NotImplementedError()

    def aggregate(self):
        raise NotImplementedError()


def fmeasure(precision, recall):
    """Computes f-measure given precision and recall values."""
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
    """Aggregates scores to provide confidence intervals (rouge-score's BootstrapAggregator)."""

    def __init__(self, confidence_interval=0.95, n_samples=1000):
        if not 0 <= confidence_interval <= 1:
            raise ValueError("confidence_interval must be in range [0, 1]")
        if not n_samples > 0:
            raise ValueError("n_samples must be positive")
        self._n_samples = n_samples
        self._confidence_interval = confidence_interval
        self._scores = collections.defaultdict(list)

    def add_scores(self, scores):
        """Adds a sample for future aggregation: a dict of score type -> Score."""
        for score_type, score in scores.items():
            self._scores[score_type].append(score)

    def aggregate(self):
        """A dict of score type -> AggregateScore(low, mid, high), each a Score."""
        result = {}
        for score_type, scores in self._scores.items():
            cls = scores[0].__class__
            percentiles = self._bootstrap_resample([tuple(s) for s in scores])
            intervals = tuple(cls(*percentiles[j]) for j in range(3))
            result[score_type] = AggregateScore(low=intervals[0], mid=intervals[1], high=intervals[2])
        return result

    def _bootstrap_resample(self, rows):
        delta = (1 - self._confidence_interval) / 2
        qs = [100 * delta, 100 * 0.5, 100 * (1 - delta)]
        try:
            import numpy as np
        except ImportError:
            np = None
        if np is not None:
            matrix = np.vstack(rows)
            sample_mean = np.zeros((self._n_samples, matrix.shape[1]))
            for i in range(self._n_samples):
                sample_idx = np.random.choice(np.arange(matrix.shape[0]), size=matrix.shape[0])
                sample_mean[i, :] = np.mean(matrix[sample_idx, :], axis=0)
            return [list(r) for r in np.percentile(sample_mean, np.array(qs), axis=0)]
        import random
        n = len(rows)
        width = len(rows[0])
        means = [[] for _ in range(width)]
        for _ in range(self._n_samples):
            idx = [random.randrange(n) for _ in range(n)]
            for j in range(width):
                means[j].append(sum(rows[i][j] for i in idx) / n)
        for m in means:
            m.sort()
        return [[_percentile(means[j], q) for j in range(width)] for q in qs]
