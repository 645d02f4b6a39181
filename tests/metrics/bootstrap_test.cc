// Generic bootstrap resampling: reproducible, sensible intervals, paired test behaviour.
#include "metrics/bootstrap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace unieval::metrics {
namespace {

ScoreFn mean_of(const std::vector<double>& v) {
  return [&v](const std::vector<size_t>& idx) {
    double s = 0;
    for (size_t i : idx) s += v[i];
    return std::vector<double>{s / static_cast<double>(idx.size())};
  };
}

TEST(BootstrapTest, SeededAndReproducible) {
  std::vector<double> v;
  for (int i = 0; i < 200; ++i) v.push_back(i % 3 == 0 ? 1.0 : 0.0);
  BootstrapOptions o;
  o.resamples = 300;
  auto a = bootstrap_ci(v.size(), mean_of(v), o);
  auto b = bootstrap_ci(v.size(), mean_of(v), o);
  EXPECT_EQ(a[0].low, b[0].low);
  EXPECT_EQ(a[0].high, b[0].high);
  o.seed = 7;
  auto c = bootstrap_ci(v.size(), mean_of(v), o);
  EXPECT_NE(a[0].mean, c[0].mean);
  EXPECT_DOUBLE_EQ(67.0 / 200, a[0].score);
  EXPECT_LT(a[0].low, a[0].score);
  EXPECT_GT(a[0].high, a[0].score);
  // Binomial stddev sqrt(p(1-p)/n) ~ 0.033: the bootstrap estimate is close.
  EXPECT_NEAR(std::sqrt(0.335 * 0.665 / 200), a[0].stddev, 0.01);
}

TEST(BootstrapTest, ConstantScoresHaveZeroWidth) {
  std::vector<double> v(50, 1.0);
  auto ci = bootstrap_ci(v.size(), mean_of(v), {});
  EXPECT_EQ(1.0, ci[0].low);
  EXPECT_EQ(1.0, ci[0].high);
  EXPECT_EQ(0.0, ci[0].stddev);
}

TEST(BootstrapTest, PairedTestSeparatesClearAndNullDifferences) {
  std::vector<double> good, bad, same;
  for (int i = 0; i < 500; ++i) {
    good.push_back(i % 10 < 8 ? 1 : 0);
    bad.push_back(i % 10 < 5 ? 1 : 0);
  }
  same = good;
  auto clear = paired_bootstrap(good.size(), mean_of(good), mean_of(bad), {});
  EXPECT_NEAR(0.3, clear[0].delta, 1e-12);
  EXPECT_LT(clear[0].p_value, 0.01);
  auto none = paired_bootstrap(good.size(), mean_of(good), mean_of(same), {});
  EXPECT_EQ(0.0, none[0].delta);
  EXPECT_EQ(1.0, none[0].p_value);
}

TEST(BootstrapTest, SumsScoreFnReducesColumnSums) {
  ItemStats st;
  st.rows = {{1, 2}, {3, 4}};
  auto fn = sums_score_fn(st, [](const std::vector<double>& s, size_t n) {
    return std::vector<double>{s[0] / static_cast<double>(n), s[1]};
  });
  auto v = fn({0, 1, 1});
  EXPECT_DOUBLE_EQ(7.0 / 3, v[0]);
  EXPECT_DOUBLE_EQ(10.0, v[1]);
}

// The two index draw rules, each checked against the resampling written out independently here
// (the percentile interval of resampled means; numpy's linear interpolation): kModulo is what
// `score --bootstrap` always drew, kUniformInt what `eval --bootstrap` always drew, so one
// implementation keeps both commands' CIs.
std::pair<double, double> reference_interval(const std::vector<double>& v, int resamples,
                                             uint64_t seed, double level, double scale,
                                             bool uniform_int) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
  std::vector<double> means;
  for (int r = 0; r < resamples; ++r) {
    double sum = 0;
    for (size_t i = 0; i < v.size(); ++i)
      sum += v[uniform_int ? pick(rng) : static_cast<size_t>(rng() % v.size())];
    means.push_back(scale * sum / static_cast<double>(v.size()));
  }
  std::sort(means.begin(), means.end());
  auto q = [&](double p) {
    double pos = p * static_cast<double>(means.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, means.size() - 1);
    return means[lo] + (pos - static_cast<double>(lo)) * (means[hi] - means[lo]);
  };
  return {q((1 - level) / 2), q((1 + level) / 2)};
}

TEST(BootstrapTest, DrawRulesMatchTheirReferenceResampling) {
  std::vector<double> v;
  std::mt19937 gen(5);
  for (int i = 0; i < 157; ++i) v.push_back(static_cast<double>(gen() % 7) / 6.0);
  for (bool uniform : {false, true}) {
    BootstrapOptions o;
    o.resamples = 250;
    o.seed = 99;
    o.confidence = 0.9;
    o.draw = uniform ? BootstrapDraw::kUniformInt : BootstrapDraw::kModulo;
    auto ci = bootstrap_ci(v.size(), mean_score_fn(v, 100.0), o);
    auto ref = reference_interval(v, 250, 99, 0.9, 100.0, uniform);
    EXPECT_EQ(ci[0].low, ref.first) << uniform;
    EXPECT_EQ(ci[0].high, ref.second) << uniform;
  }
  BootstrapOptions a, b;
  b.draw = BootstrapDraw::kUniformInt;
  EXPECT_NE(bootstrap_ci(v.size(), mean_of(v), a)[0].mean,
            bootstrap_ci(v.size(), mean_of(v), b)[0].mean);
  EXPECT_EQ(a.signature(), b.signature());
}

TEST(BootstrapTest, MeanScoreFnScalesTheResampleMean) {
  std::vector<double> v = {1, 0, 1, 1};
  EXPECT_DOUBLE_EQ(mean_score_fn(v, 100.0)({0, 1, 2, 3})[0], 75.0);
  EXPECT_DOUBLE_EQ(mean_score_fn(v)({1, 1, 0})[0], 1.0 / 3);
}

}  // namespace
}  // namespace unieval::metrics
