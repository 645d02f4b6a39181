# Follows rouge-score (Apache-2.0) API and behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
"""Drop-in for rouge-score 0.1.2's ``rouge_score.rouge_scorer``:

    >>> from unieval import rouge_scorer
    >>> scorer = rouge_scorer.RougeScorer(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], use_stemmer=True)
    >>> scores = scorer.score('the committee approved the budget on friday',   # target
    ...                       'on friday the budget was approved')               # prediction
    >>> scores['rouge1'].fmeasure

The numbers are unieval's C++ port (metrics/rouge_score.h: rouge-score's tokeniser, NLTK's Porter
stemmer, LCS and summary-level union LCS), identical to rouge-score 0.1.2 on the golden vectors.
This is NOT ROUGE-1.5.5 (unieval.rouge155 is). rougeLsum splits summaries at newlines.

Not available (ValueError): split_summaries=True (NLTK punkt sentence splitting: put one sentence
per line yourself) and a custom tokenizer.
"""

import array
import collections.abc

from . import _core
from . import scoring
from ._inputs import as_lines

__all__ = ["RougeScorer"]


class RougeScorer(scoring.BaseScorer):
    """ROUGE-N / ROUGE-L / ROUGE-Lsum of a prediction against a target, with rouge-score's
    numbers and call shape; rouge_types names what to compute ('rouge1'..'rouge9', 'rougeL',
    'rougeLsum')."""

    def __init__(self, rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None):
        if split_summaries:
            raise ValueError("split_summaries=True (NLTK sent_tokenize) is not available in "
                             "unieval.rouge_scorer: separate the sentences with '\\n' for rougeLsum")
        if tokenizer is not None:
            raise ValueError("a custom tokenizer is not available in unieval.rouge_scorer "
                             "(rouge-score's default tokenizer is built in)")
        if isinstance(rouge_types, str):
            rouge_types = [rouge_types]
        self.rouge_types = list(rouge_types)
        self._use_stemmer = bool(use_stemmer)
        self._split_summaries = split_summaries
        # Unknown types fail here, as rouge-score's constructor does.
        _core.rouge_score_pairs([["a"]], ["a"], self.rouge_types, self._use_stemmer)

    def score(self, target, prediction):
        """{rouge type: Score} of `prediction` against the one reference `target`."""
        return BatchScores(_core.rouge_score_pairs([target], [prediction], self.rouge_types,
                                                   self._use_stemmer), self.rouge_types)[0]

    def score_multi(self, targets, prediction):
        """Per rouge type, the score against the target with the highest F-measure."""
        targets = as_lines(targets, "targets")
        return BatchScores(_core.rouge_score_pairs([targets], [prediction], self.rouge_types,
                                                   self._use_stemmer), self.rouge_types)[0]

    def score_batch(self, targets, predictions):
        """score() of every pair in one call without the GIL (not in rouge-score); a target may
        be a list of targets (score_multi). Returns a sequence of {type: Score} dicts (each built
        when it is read)."""
        targets = as_lines(targets, "targets")
        return BatchScores(_core.rouge_score_pairs(targets, as_lines(predictions, "predictions"),
                                                   self.rouge_types, self._use_stemmer), self.rouge_types)


class BatchScores(collections.abc.Sequence):
    """The {type: Score} dicts of score_batch, one per pair, read from the packed doubles the C++
    side returns (a dict is built when its pair is read: 20,000 pairs of four types are 80,000
    Score tuples that a caller taking a mean never needs)."""

    def __init__(self, packed, types):
        self._values = array.array("d")
        self._values.frombytes(packed)
        self._types = list(types)
        self._len = len(self._values) // (3 * len(self._types)) if self._types else 0

    def __len__(self):
        return self._len

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("BatchScores index out of range")
        base = 3 * len(self._types) * i
        v = self._values
        return {t: scoring.Score(v[base + 3 * k], v[base + 3 * k + 1], v[base + 3 * k + 2])
                for k, t in enumerate(self._types)}

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, tuple, BatchScores)) else NotImplemented

    def __repr__(self):
        return "BatchScores(%d pairs)" % self._len
