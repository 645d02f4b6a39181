// models/nn/row_ops.h: bit-identical to the LibTorch calls they replace, on the shapes a beam step
// has (few rows, a vocabulary-wide last dimension) and around the 256-row cut-off.
#include "models/nn/row_ops.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <limits>

namespace unieval::models {
namespace {

TEST(RowOpsTest, LogSoftmaxLastDimIsTorchsBitForBit) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(6);
  for (int64_t rows : {1, 2, 3, 80, 255, 256, 300})
    for (int64_t v : {1, 7, 30522}) {
      auto x = torch::randn({rows, v}) * 4;
      EXPECT_TRUE(torch::equal(log_softmax_last_dim(x), torch::log_softmax(x, -1)))
          << rows << "x" << v;
    }
  auto x3 = torch::randn({5, 2, 1000});  // any leading shape; a non-contiguous input
  EXPECT_TRUE(torch::equal(log_softmax_last_dim(x3), torch::log_softmax(x3, -1)));
  auto xt = torch::randn({1000, 6}).t();
  EXPECT_TRUE(torch::equal(log_softmax_last_dim(xt), torch::log_softmax(xt, -1)));
  const int threads = at::get_num_threads();
  at::set_num_threads(1);  // one thread: torch's own call
  auto one = log_softmax_last_dim(x3);
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(one, torch::log_softmax(x3, -1)));
}

TEST(RowOpsTest, LogSoftmaxKeepsAutogradAndOtherDtypes) {
  auto x = torch::randn({4, 9}, torch::requires_grad());
  auto y = log_softmax_last_dim(x);
  y.select(1, 0).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  auto d = torch::randn({3, 5}, torch::kDouble);
  EXPECT_TRUE(torch::equal(log_softmax_last_dim(d), torch::log_softmax(d, -1)));
}

TEST(RowOpsTest, NanToNegInfIsNanToNum) {
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  auto x = torch::randn({80, 30522});
  x.index_put_({0, 5}, nan);
  x.index_put_({79, 30521}, nan);
  x.index_put_({3, 7}, inf);
  x.index_put_({4, 8}, -inf);
  auto got = nan_to_neg_inf(x);
  auto expected = torch::nan_to_num(x, -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(torch::equal(got, expected));
  EXPECT_EQ(got[0][5].item<float>(), -inf);
  EXPECT_EQ(got[3][7].item<float>(), inf);
  EXPECT_FALSE(got.data_ptr() == x.data_ptr());  // a copy: the caller's tensor is left alone
  EXPECT_TRUE(std::isnan(x[0][5].item<float>()));
  auto d = torch::tensor({1.0, std::nan("")}, torch::kDouble);
  EXPECT_EQ(nan_to_neg_inf(d)[1].item<double>(), -std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace unieval::models
