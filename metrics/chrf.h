#pragma once
// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// sacreBLEU 2.6.0 chrF and chrF++ (sacrebleu/metrics/chrf.py), number for number.
//
//   unieval::metrics::ChrfOptions opts;   // char_order 6, word_order 0, beta 2
//   auto s = unieval::metrics::corpus_chrf({"the cat"}, {{"the cat sat"}}, opts);
//   s.score;      // 0..100
//   s.signature;  // "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"
//
// Character n-grams are taken over code points after removing all (Python) whitespace. Per
// segment the reference with the best chrF is kept (first one on ties); statistics
// [hyp n-grams, ref n-grams, matches] per order are summed over the corpus. As in sacreBLEU's
// CHRF._get_match_statistics, the hypothesis count of an order is 0 when the reference has no
// n-gram of that order (a reference shorter than n characters). Score: average
// precision and recall over the orders where hypothesis and reference both have n-grams, then
// 100 (1+b^2) P R / (b^2 P + R).
//
// | field        | default | meaning                                        |
// |--------------|---------|------------------------------------------------|
// | char_order   | 6       | character n-gram orders 1..char_order          |
// | beta         | 2       | recall weight                                  |
// | lowercase    | false   | Python str.lower() first                       |
// | word_order   | 0       | word n-gram orders 1..word_order (2: chrF++)    |
// | eps_smoothing| false   | chrF++.py-style mean of per-order F-scores      |
// | threads      | 0       | segments matched in parallel (0 = all cores, at |
// |              |         | most 8); statistics identical for any value     |
// Word n-grams (chrF++): words from a whitespace split in which a word longer than one character
// that ends (else starts) with an ASCII punctuation mark loses it to a word of its own
// (CHRF._remove_punctuation); their statistics follow the character orders as further triplets
// and enter the averages like them.
// All 27 golden chrF corpora (../shared/golden/bleu.jsonl), 2-reference DSTC7 sets included,
// match sacreBLEU 2.6.0 to 1e-9 relative.
#include <string>
#include <vector>

namespace unieval::metrics {

struct ChrfOptions {
  int char_order = 6;          // character n-gram orders
  int word_order = 0;          // word n-gram orders (chrF++: 2)
  double beta = 2;             // recall weight
  bool lowercase = false;      // lowercase first
  bool eps_smoothing = false;  // chrF++.py-style averaging
  bool whitespace =
      false;        // keep whitespace in character n-grams (sacreBLEU CHRF(whitespace=True))
  int threads = 0;  // segments matched in parallel (0 = all cores)
  std::string signature(int nrefs) const;
};

struct ChrfScore {
  double score = 0;
  std::vector<double> stats;  // [hyp, ref, match] per char order, then per word order, summed
  std::string signature;
};

ChrfScore corpus_chrf(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs, const ChrfOptions& opts);
// chrF of every segment on its own.
std::vector<ChrfScore> sentence_chrf(const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs,
                                     const ChrfOptions& opts);

// Per-segment statistics, [hyp, ref, match] per order of the segment's best reference (what
// corpus_chrf sums; exposed for bootstrap resampling), and the chrF of summed statistics
// (CHRF._compute_f_score): chrf_from_stats(sum of segment stats) == corpus_chrf(...).score.
std::vector<std::vector<double>> chrf_segment_stats(
    const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
    const ChrfOptions& opts);
double chrf_from_stats(const std::vector<double>& stats, const ChrfOptions& opts);
// The same on 3 x (char_order + word_order) values. float32_ratios: each order's two divisions
// in float32, as sacreBLEU's significance tests compute them (np.float32 / np.float32 on their
// float32 sums); everything else is float64 either way.
double chrf_from_stats(const double* stats, const ChrfOptions& opts, bool float32_ratios = false);

}  // namespace unieval::metrics
