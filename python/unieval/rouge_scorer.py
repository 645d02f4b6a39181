# Follows rouge-score (Apache-2.0) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
"""Drop-in for rouge-score 0.1.2's ``rouge_score.rouge_scorer``:

    >>> from unieval import rouge_scorer
    >>> scorer = rouge_scorer.RougeScorer(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], use_stemmer=True)
    >>> scores = scorer.score('The quick brown fox jumps over the lazy dog',
    ...                       'The quick brown dog jumps on the log.')
    >>> scores['rouge1'].fmeasure

The numbers are unieval's C++ port (metrics/rouge_score.h: rouge-score's tokeniser, NLTK's Porter
stemmer, LCS and summary-level union LCS), identical to rouge-score 0.1.2 on the golden vectors.
This is NOT ROUGE-1.5.5 (unieval.rouge155 is). rougeLsum splits summaries at newlines.

Not available (ValueError): split_summaries=True (NLTK punkt sentence splitting: put one sentence
per line yourself) and a custom tokenizer.
"""

from . import _core
from . import scoring
from ._inputs import as_lines

__all__ = ["RougeScorer"]


class RougeScorer(scoring.BaseScorer):
    """Calculate rouges scores between two blobs of text (rouge-score's RougeScorer)."""

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

    def _to_dict(self, row):
        return {t: scoring.Score(*v) for t, v in zip(self.rouge_types, row)}

    def score(self, target, prediction):
        """Calculates rouge scores between the target and prediction: {type: Score}."""
        row = _core.rouge_score_pairs([[target]], [prediction], self.rouge_types, self._use_stemmer)[0]
        return self._to_dict(row)

    def score_multi(self, targets, prediction):
        """Per rouge type, the score against the target with the highest F-measure."""
        targets = as_lines(targets, "targets")
        row = _core.rouge_score_pairs([targets], [prediction], self.rouge_types, self._use_stemmer)[0]
        return self._to_dict(row)

    def score_batch(self, targets, predictions):
        """score() of every pair in one call without the GIL (not in rouge-score); a target may
        be a list of targets (score_multi)."""
        targets = [[t] if isinstance(t, str) else as_lines(t, "targets") for t in as_lines(targets, "targets")]
        rows = _core.rouge_score_pairs(targets, as_lines(predictions, "predictions"), self.rouge_types,
                                       self._use_stemmer)
        return [self._to_dict(r) for r in rows]
