// models/nn/dropout.h: Philox4x32-10 against Random123's known-answer vectors; each mask against
// the scalar Philox of its blocks; the mask's rate, lanes and determinism (seed, thread count);
// values and gradient as torch's inverted dropout; the fallbacks.
#include "models/nn/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <string>

namespace unieval::models {
namespace {

TEST(DropoutTest, PhiloxMatchesRandom123KnownAnswers) {
  // Random123 kat_vectors, philox4x32 with 10 rounds.
  using C = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (C{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (C{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (C{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(DropoutTest, KeepsOneMinusPAndScalesLikeTorch) {
  torch::manual_seed(11);
  const int64_t n = 1 << 20;
  auto x = torch::rand({n}) + 0.5;  // no zeros: a zero output means dropped
  const double p = 0.1;
  auto y = apply_dropout(x, p, /*training=*/true);
  auto kept = y.ne(0);
  const double rate = kept.to(torch::kDouble).mean().item<double>();
  const double sigma = std::sqrt(p * (1 - p) / double(n));
  EXPECT_NEAR(rate, 1 - p, 5 * sigma);
  // Each of the four words of a Philox block drives its own lane (element index mod 4).
  auto lanes = kept.view({-1, 4}).to(torch::kDouble).mean(0);
  for (int j = 0; j < 4; ++j)
    EXPECT_NEAR(lanes[j].item<double>(), 1 - p, 5 * sigma * 2) << "lane " << j;
  // Kept values are exactly x * (1.0f / float(1 - p)), as torch's noise.div_(1 - p) then mul.
  const float scale = 1.0f / static_cast<float>(1.0 - p);
  EXPECT_TRUE(torch::equal(y.masked_select(kept), x.masked_select(kept) * scale));
}

TEST(DropoutTest, MaskDependsOnSeedOnlyNotOnThreads) {
  auto x = torch::ones({3, 70001});  // odd size: the last Philox block is partial
  const int threads = at::get_num_threads();
  torch::manual_seed(5);
  auto a = apply_dropout(x, 0.3, true);
  auto b = apply_dropout(x, 0.3, true);  // the generator moved on: another mask
  at::set_num_threads(1);
  torch::manual_seed(5);
  auto c = apply_dropout(x, 0.3, true);
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(a, c));
  EXPECT_FALSE(torch::equal(a, b));
  // A non-contiguous input gets the mask of its contiguous copy.
  auto t = torch::rand({40, 30}).t();
  torch::manual_seed(8);
  auto d = apply_dropout(t, 0.5, true);
  torch::manual_seed(8);
  EXPECT_TRUE(torch::equal(d, apply_dropout(t.contiguous(), 0.5, true)));
}

TEST(DropoutTest, MaskIsPhiloxOfEachBlockUnderTheGeneratorKey) {
  // Element 4b + j is kept when word j of Philox block {b, b >> 32, 0, 0} under the key (one
  // 64-bit draw of the default generator) is below (1 - p) * 2^32: values and gradients checked
  // against the scalar philox4x32_10 on sizes around the eight-block groups of the vector path,
  // float and double, with NaN, infinities and negative values (a dropped NaN stays NaN), on one
  // and on two threads (several parallel chunks).
  const double p = 0.35;
  const auto threshold = static_cast<uint64_t>((1.0 - p) * 4294967296.0);
  const int threads = at::get_num_threads();
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    for (int nthreads : {1, 2}) {
      at::set_num_threads(nthreads);
      for (int64_t n : {1, 3, 4, 31, 32, 33, 61, 64, 95, 127, 128, 129, 1000, 70001}) {
        const std::string where = std::string(c10::toString(dtype)) + ", n = " + std::to_string(n) +
                                  ", threads = " + std::to_string(nthreads);
        torch::manual_seed(17 + n);
        const uint64_t key = [] {
          at::Generator gen = at::detail::getDefaultCPUGenerator();
          std::lock_guard<std::mutex> lock(gen.mutex());
          return gen.get<at::CPUGeneratorImpl>()->random64();
        }();
        auto x = torch::randn({n}, dtype);
        x[0] = std::nan("");
        if (n > 40) {
          x[33] = std::nan("");
          x[34] = -INFINITY;
          x[35] = INFINITY;
        }
        auto expected_keep = torch::empty({n}, torch::kBool);
        auto* e = expected_keep.data_ptr<bool>();
        for (int64_t b = 0; 4 * b < n; ++b) {
          const auto words =
              philox4x32_10({static_cast<uint32_t>(b),
                             static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32), 0, 0},
                            {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
          for (int64_t j = 0; j < 4 && 4 * b + j < n; ++j) e[4 * b + j] = words[j] < threshold;
        }
        const auto scale = torch::scalar_tensor(1.0, dtype) / torch::scalar_tensor(1.0 - p, dtype);
        const auto factor = expected_keep.to(dtype) * scale;
        x.requires_grad_(true);
        torch::manual_seed(17 + n);
        const auto y = apply_dropout(x, p, true);
        y.backward(torch::ones_like(y));
        EXPECT_TRUE(torch::allclose(y, x.detach() * factor, 0, 0, /*equal_nan=*/true)) << where;
        EXPECT_EQ(y.isnan().sum().item<int64_t>(),
                  x.isnan().sum().item<int64_t>() + (n > 40 ? 2 - e[34] - e[35] : 0))
            << where;
        EXPECT_TRUE(torch::equal(x.grad(), factor)) << where;
      }
    }
  }
  at::set_num_threads(threads);
}

TEST(DropoutTest, GradientIsTheSameMaskAndScale) {
  torch::manual_seed(2);
  auto x = (torch::rand({6, 50}, torch::kDouble) + 0.5).requires_grad_();
  auto w = torch::randn({6, 50}, torch::kDouble);
  auto y = apply_dropout(x, 0.25, true);
  (y * w).sum().backward();
  auto expected = w * y.detach().ne(0).to(torch::kDouble) * (1.0 / 0.75);
  EXPECT_TRUE(torch::allclose(x.grad(), expected, 0, 0));
}

TEST(DropoutTest, IdentityWhenOffAndFallbacks) {
  auto x = torch::randn({4, 5});
  EXPECT_TRUE(apply_dropout(x, 0.5, /*training=*/false).is_same(x));
  EXPECT_TRUE(apply_dropout(x, 0.0, true).is_same(x));
  EXPECT_TRUE(torch::equal(apply_dropout(x, 1.0, true), torch::zeros_like(x)));
  // Another dtype goes to torch::dropout.
  auto h = torch::ones({1000}, torch::kBFloat16);
  torch::manual_seed(3);
  auto yh = apply_dropout(h, 0.5, true);
  EXPECT_EQ(yh.scalar_type(), torch::kBFloat16);
  EXPECT_GT(yh.eq(0).sum().item<int64_t>(), 300);
  EXPECT_GT(yh.eq(2).sum().item<int64_t>(), 300);
}

TEST(DropoutTest, ModuleDropsOnlyInTrainMode) {
  Dropout drop(0.5);
  auto x = torch::ones({2000});
  drop->eval();
  EXPECT_TRUE(torch::equal(drop(x), x));
  drop->train();
  auto y = drop(x);
  EXPECT_GT(y.eq(0).sum().item<int64_t>(), 800);
  EXPECT_TRUE(y.eq(0).logical_or(y.eq(2)).all().item<bool>());
  EXPECT_THROW(Dropout(1.5), c10::Error);
}

}  // namespace
}  // namespace unieval::models
