#pragma once
// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Bootstrap resampling over per-item statistics, for confidence intervals and paired
// significance tests of corpus metrics, in the manner of sacreBLEU (--confidence,
// --paired-bs). No official script of SQuAD/CoQA/GLUE has these: they are ours.
//
// A metric is described by per-item statistics (one row per item: a question, a turn, a
// segment) and a function from a resample (item indices, with repetition) to the metric's
// values. For additive metrics use ItemStats + bootstrap_sums (the reducer sees the column sums
// of the sampled rows); for anything else pass the index-level ScoreFn.
//
//   BootstrapOptions o;  o.resamples = 1000;  o.seed = 12345;
//   auto ci = bootstrap_ci(n, [&](const std::vector<size_t>& idx) { return {mean_em(idx)}; }, o);
//   ci[0].low, ci[0].high
//   auto pv = paired_bootstrap(n, score_sys, score_base, o);   // p-value per value
//
// This is the one bootstrap of the project: `unieval score` (--bootstrap, --paired-bootstrap, via
// metrics/protocol.h add_resampling) and `unieval eval --bootstrap` (pipelines/evaluate.cc, via
// mean_score_fn) both resample here. (ROUGE-1.5.5's own bootstrap, which is part of its published
// numbers, stays inside metrics/rouge.cc.)
//
// Method: resample n item indices uniformly with replacement, `resamples` times, from a
// std::mt19937_64 seeded with `seed` (so results are reproducible across runs and machines); the
// indices of one resample are drawn before the next's. BootstrapDraw picks how an index comes
// from the generator: kModulo (`rng() % n`, what `score` has always used) or kUniformInt
// (std::uniform_int_distribution<size_t>(0, n - 1), what `eval` has always used); each keeps its
// command's published CIs bit for bit.
//   * CI: the percentile interval [(1-c)/2, (1+c)/2] of the resampled values; mean and stddev
//     of the resampled values are reported too.
//   * Paired test (sacreBLEU paired bootstrap resampling, Koehn 2004): both systems are scored
//     on the SAME resamples; with d_r = sys_r - base_r and the observed difference D, the
//     p-value is (#{r : |d_r - mean(d)| >= |D|} + 1) / (resamples + 1) (two-sided, the +1
//     keeps it away from 0).
//
// Options (BootstrapOptions):
//   | field      | default | meaning                                      |
//   | resamples  | 1000    | number of bootstrap resamples                |
//   | seed       | 12345   | mt19937_64 seed                              |
//   | confidence | 0.95    | CI coverage                                  |
//   | draw       | kModulo | index draw rule (kModulo, kUniformInt)       |
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace unieval::metrics {

enum class BootstrapDraw { kModulo, kUniformInt };

struct BootstrapOptions {
  int resamples = 1000;                         // number of resamples
  uint64_t seed = 12345;                        // random seed
  double confidence = 0.95;                     // CI coverage
  BootstrapDraw draw = BootstrapDraw::kModulo;  // index draw rule (see above)
  std::string signature() const;                // "bs:1000|seed:12345|ci:0.95"
};

// Scores the resample `idx` (indices into the items, repetitions allowed); returns the
// metric's values (e.g. {exact, f1}).
using ScoreFn = std::function<std::vector<double>(const std::vector<size_t>& idx)>;

struct BootstrapInterval {
  double score = 0;          // on all items
  double mean = 0;           // of the resampled values
  double stddev = 0;         // of the resampled values
  double low = 0, high = 0;  // percentile interval
};

// One interval per value of score(). n_items must be > 0.
std::vector<BootstrapInterval> bootstrap_ci(size_t n_items, const ScoreFn& score,
                                            const BootstrapOptions& opts);

struct PairedBootstrap {
  double system = 0, baseline = 0;  // scores on all items
  double delta = 0;                 // system - baseline
  double p_value = 1;
};
// Both systems on the same items (same indices), one entry per value of the score functions.
std::vector<PairedBootstrap> paired_bootstrap(size_t n_items, const ScoreFn& system,
                                              const ScoreFn& baseline,
                                              const BootstrapOptions& opts);

// Additive metrics: rows[i] holds item i's statistics; reduce(column sums, n) -> values.
struct ItemStats {
  std::vector<std::vector<double>> rows;
};
// Mean-decomposable scores (accuracy, EM, F1 as the mean of per-item values): the resample's
// mean of `values`, times `scale` (100 for percent scores of 0/1 values), as scale * sum / n.
ScoreFn mean_score_fn(const std::vector<double>& values, double scale = 1.0);

ScoreFn sums_score_fn(
    const ItemStats& stats,
    std::function<std::vector<double>(const std::vector<double>& sums, size_t n)> reduce);

}  // namespace unieval::metrics
