#pragma once
// Follows sacreBLEU (Apache-2.0) and numpy (BSD-3-Clause) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The resampling arithmetic of sacreBLEU 2.6.0's significance.py, number
// for number: the resampled corpus scores of paired bootstrap (`PairedTest(test_type='bs')`, and
// `Metric.corpus_score(n_bootstrap=N)`) and of approximate randomization (`test_type='ar'`), for
// BLEU, chrF and TER, from per-segment statistics in sacreBLEU's layout.
//
// The random draws are not made here: the caller passes the resample indices (bootstrap) or the
// swap mask (approximate randomization) that numpy's Generator drew (python/unieval/
// sacrebleu_significance.py draws them with numpy itself, as sacreBLEU does), so the streams are
// numpy's by construction. What this unit reproduces is the arithmetic sacreBLEU applies to them:
//   * bootstrap: the statistics become a float32 array (`np.array(stats, dtype='float32')`), a
//     resample's column sums are float32 sums in segment order (numpy's axis-0 reduction), and
//     the score of those float32 sums follows numpy 1.x scalar promotion: float32 op float32 stays
//     float32 (chrF's precision/recall divisions, TER's edits/length), float32 op Python number
//     is float64; BLEU's add-k writes count + k back into the float32 array.
//   * approximate randomization: the pseudo systems' sums are the int64 matrix products of the
//     boolean mask with the integer statistics (BLEU, chrF), or float64 sums (TER), scored as
//     int64 / float64 numbers (add-k's count + k written back into an int64 array truncates).
//   * kPython: the statistics as Python lists (sum_of_lists, then the metric's
//     _compute_score_from_stats): what corpus_score itself computes.
//
//   ResampleMetric m;  m.metric = StatsMetric::kBleu;  m.bleu.tokenize = BleuTokenize::kNone;
//   StatsMatrix st = resample_segment_stats(m, hyps, refs);        // rows = segments
//   std::vector<double> s = bootstrap_scores(m, st, idx.data(), 1000);  // idx: 1000 x rows
//   ArScores ar = ar_scores(m, baseline, system, mask.data(), 10000);  // mask: 10000 x rows (0/1)
//
// Options (ResampleMetric):
// | field   | default | meaning                                                           |
// |---------|---------|-------------------------------------------------------------------|
// | metric  | kBleu   | kBleu, kChrf, kTer: which statistics and which score of their sums |
// | bleu    | {}      | BLEU's tokeniser, smoothing, orders (metrics/bleu.h)               |
// | chrf    | {}      | chrF's orders, beta, eps smoothing (metrics/chrf.h)                |
// | ter     | {}      | TER's tokeniser options (metrics/ter.h)                            |
// | threads | 0       | resamples scored in parallel (0 = all cores); output is identical  |
//
// Layouts (sacreBLEU's _compute_segment_statistics): BLEU [hyp_len, ref_len, correct x N,
// total x N]; chrF [hyp, ref, match] per character order then per word order; TER [edits,
// average reference length].
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/ter.h"

namespace unieval::metrics {

enum class StatsMetric { kBleu, kChrf, kTer };

// How summed statistics are typed when their score is computed (see the header comment).
enum class SumArithmetic { kPython, kFloat32, kInt64 };

struct ResampleMetric {
  StatsMetric metric = StatsMetric::kBleu;  // which metric
  BleuOptions bleu;                         // when metric == kBleu
  ChrfOptions chrf;                         // when metric == kChrf
  TerOptions ter;                           // when metric == kTer
  int threads = 0;                          // resamples in parallel (0 = all cores)
};

// Per-segment statistics, row-major (rows x cols). `integral`: every value is an integer (BLEU,
// chrF; TER unless an average reference length is fractional), which is what makes numpy's
// matrix product of approximate randomization an int64 one.
struct StatsMatrix {
  size_t rows = 0, cols = 0;
  std::vector<double> values;
  bool integral = true;
  const double* row(size_t i) const { return values.data() + i * cols; }
};

StatsMatrix resample_segment_stats(const ResampleMetric& m, const std::vector<std::string>& hyps,
                                   const std::vector<std::vector<std::string>>& refs);
// BLEU's statistics against references prepared once (m.metric must be kBleu, and `refs` made
// with m.bleu's tokenisation): identical to the overload above.
StatsMatrix resample_segment_stats(const ResampleMetric& m, const std::vector<std::string>& hyps,
                                   const BleuReferences& refs);

// The metric's score of summed statistics (`cols` values) under the given arithmetic.
double score_of_sums(const ResampleMetric& m, const double* sums, size_t cols, SumArithmetic a);

// Column sums in segment order, as Python's sum_of_lists (float64 additions).
std::vector<double> python_sums(const StatsMatrix& st);

// Bootstrap: resample r uses rows idx[r * st.rows + j], j < st.rows (each < st.rows). The score of
// each resample (float32 sums, kFloat32).
std::vector<double> bootstrap_scores(const ResampleMetric& m, const StatsMatrix& st,
                                     const int64_t* idx, size_t samples);

// Approximate randomization: trial t takes segment j's baseline statistics into pseudo system A
// (and the system's into B) where mask[t * rows + j] != 0, and the other way round elsewhere.
struct ArScores {
  std::vector<double> a, b;  // per trial: the scores of the two pseudo systems
};
ArScores ar_scores(const ResampleMetric& m, const StatsMatrix& baseline, const StatsMatrix& system,
                   const uint8_t* mask, size_t trials);

}  // namespace unieval::metrics
