// sacreBLEU significance arithmetic (metrics/sacrebleu_significance.h): the float32 / int64 typing
// of resampled sums, and agreement with the corpus scores. The numbers against sacreBLEU itself:
// python/tests/test_significance.py (tests/metrics/significance/golden_significance.jsonl).
#include "metrics/sacrebleu_significance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace unieval::metrics {
namespace {

const std::vector<std::string> kHyps = {"the cat sat on the mat", "a quick brown fox jumps",
                                        "hello world , again", "nothing matches here"};
const std::vector<std::vector<std::string>> kRefs = {
    {"the cat is on the mat", "the quick brown fox jumps", "hello , world again", "something else"},
    {"a cat sat on a mat", "a fast brown fox leaps", "hello world", "nothing here matches"}};

ResampleMetric metric(StatsMetric which) {
  ResampleMetric m;
  m.metric = which;
  m.threads = 1;
  return m;
}

TEST(SacrebleuSignificanceTest, PythonSumsScoreIsTheCorpusScore) {
  ResampleMetric b = metric(StatsMetric::kBleu), c = metric(StatsMetric::kChrf),
                 t = metric(StatsMetric::kTer);
  for (const ResampleMetric* m : {&b, &c, &t}) {
    StatsMatrix st = resample_segment_stats(*m, kHyps, kRefs);
    ASSERT_EQ(st.rows, kHyps.size());
    std::vector<double> sums = python_sums(st);
    double score = score_of_sums(*m, sums.data(), sums.size(), SumArithmetic::kPython);
    double want = m->metric == StatsMetric::kBleu   ? corpus_bleu(kHyps, kRefs, m->bleu).score
                  : m->metric == StatsMetric::kChrf ? corpus_chrf(kHyps, kRefs, m->chrf).score
                                                    : corpus_ter(kHyps, kRefs, m->ter).score;
    EXPECT_EQ(want, score);
  }
}

TEST(SacrebleuSignificanceTest, TerBootstrapDividesInFloat32) {
  // 3 references: average lengths in thirds, which float32 rounds; np.float32 / np.float32.
  ResampleMetric t = metric(StatsMetric::kTer);
  StatsMatrix st;
  st.rows = 2;
  st.cols = 2;
  st.values = {3, 10.0 / 3, 1, 20.0 / 3};
  std::vector<int64_t> idx = {0, 1, 1, 1};
  std::vector<double> s = bootstrap_scores(t, st, idx.data(), 2);
  float len0 = static_cast<float>(10.0 / 3) + static_cast<float>(20.0 / 3);
  EXPECT_EQ(100 * static_cast<double>(4.0f / len0), s[0]);
  float len1 = static_cast<float>(20.0 / 3) + static_cast<float>(20.0 / 3);
  EXPECT_EQ(100 * static_cast<double>(2.0f / len1), s[1]);
  double py = 100 * (4 / (10.0 / 3 + 20.0 / 3));
  EXPECT_NE(py, s[0]);  // the float64 score differs in the last bits
}

TEST(SacrebleuSignificanceTest, ChrfBootstrapPrecisionAndRecallAreFloat32) {
  ResampleMetric c = metric(StatsMetric::kChrf);
  c.chrf.char_order = 1;
  std::vector<double> sums = {7, 9, 5};  // hyp, ref, match
  const double prec = static_cast<float>(5.0f / 7.0f), rec = static_cast<float>(5.0f / 9.0f);
  const double f = 5 * prec * rec / (4 * prec + rec);
  EXPECT_EQ(100 * f, score_of_sums(c, sums.data(), 3, SumArithmetic::kFloat32));
  const double p64 = 5.0 / 7, r64 = 5.0 / 9;
  EXPECT_EQ(100 * (5 * p64 * r64 / (4 * p64 + r64)),
            score_of_sums(c, sums.data(), 3, SumArithmetic::kPython));
}

TEST(SacrebleuSignificanceTest, BleuAddKIsWrittenBackIntoTheArray) {
  ResampleMetric b = metric(StatsMetric::kBleu);
  b.bleu.smooth = BleuSmooth::kAddK;
  b.bleu.smooth_value = 0.1;
  // [sys_len, ref_len, correct x 4, total x 4]
  std::vector<double> sums = {20, 20, 15, 9, 4, 1, 20, 19, 18, 17};
  auto bleu_with = [&](auto store) {
    double logs = std::log(100.0 * 15 / 20);
    for (int n = 1; n < 4; ++n)
      logs += std::log(100.0 * store(sums[2 + n] + 0.1) / store(sums[6 + n] + 0.1));
    return std::exp(logs / 4);
  };
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  auto i64 = [](double x) { return std::trunc(x); };
  auto f64 = [](double x) { return x; };
  EXPECT_EQ(bleu_with(f32), score_of_sums(b, sums.data(), sums.size(), SumArithmetic::kFloat32));
  EXPECT_EQ(bleu_with(i64), score_of_sums(b, sums.data(), sums.size(), SumArithmetic::kInt64));
  EXPECT_EQ(bleu_with(f64), score_of_sums(b, sums.data(), sums.size(), SumArithmetic::kPython));
}

TEST(SacrebleuSignificanceTest, ApproximateRandomizationSwapsWholeSegments) {
  ResampleMetric b = metric(StatsMetric::kBleu);
  StatsMatrix bl = resample_segment_stats(b, kHyps, kRefs);
  std::vector<std::string> other = {"the cat sat", "a brown fox", "hello world", "nothing"};
  StatsMatrix sys = resample_segment_stats(b, other, kRefs);
  const size_t n = kHyps.size();
  std::vector<uint8_t> mask(3 * n, 0);
  for (size_t j = 0; j < n; ++j) mask[j] = 1;           // trial 0: A = baseline, B = system
  mask[n + 2] = 1;                                      // trial 1: only segment 2 from the baseline
  ArScores ar = ar_scores(b, bl, sys, mask.data(), 3);  // trial 2: A = system, B = baseline
  std::vector<double> sb = python_sums(bl), ss = python_sums(sys);
  const double base = score_of_sums(b, sb.data(), sb.size(), SumArithmetic::kPython);
  const double syst = score_of_sums(b, ss.data(), ss.size(), SumArithmetic::kPython);
  EXPECT_EQ(base, ar.a[0]);
  EXPECT_EQ(syst, ar.b[0]);
  EXPECT_EQ(syst, ar.a[2]);
  EXPECT_EQ(base, ar.b[2]);
  std::vector<double> mixed = ss;
  for (size_t c = 0; c < mixed.size(); ++c) mixed[c] += bl.row(2)[c] - sys.row(2)[c];
  EXPECT_EQ(score_of_sums(b, mixed.data(), mixed.size(), SumArithmetic::kInt64), ar.a[1]);
}

TEST(SacrebleuSignificanceTest, RejectsBadIndicesAndShapes) {
  ResampleMetric b = metric(StatsMetric::kBleu);
  StatsMatrix st = resample_segment_stats(b, kHyps, kRefs);
  std::vector<int64_t> idx = {0, 1, 2, 4};
  EXPECT_ANY_THROW(bootstrap_scores(b, st, idx.data(), 1));
  ResampleMetric t = metric(StatsMetric::kTer);
  StatsMatrix ter = resample_segment_stats(t, kHyps, kRefs);
  std::vector<uint8_t> mask(kHyps.size(), 1);
  EXPECT_ANY_THROW(ar_scores(b, st, ter, mask.data(), 1));
}

}  // namespace
}  // namespace unieval::metrics
