// Generic bootstrap resampling: reproducible, sensible intervals, paired test behaviour.
#include "metrics/bootstrap.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace unieval::metrics
