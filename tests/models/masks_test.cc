// UniLM self-attention masks: exact matrices for the paper's Fig. 1 example and padded batches.
#include "models/nn/masks.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"

namespace unieval::models {
namespace {

using Matrix = std::vector<std::vector<int64_t>>;

Matrix rows(const torch::Tensor& m, int64_t b) {
  auto t = m[b].to(torch::kLong).contiguous();
  Matrix out(t.size(0), std::vector<int64_t>(t.size(1)));
  for (int64_t i = 0; i < t.size(0); ++i)
    for (int64_t j = 0; j < t.size(1); ++j) out[i][j] = t[i][j].item<int64_t>();
  return out;
}

// "[SOS] t1 t2 [EOS] t3 t4 t5 [EOS]" (UniLM §2.3): source = the first 4 tokens, target = 4.
TEST(MasksTest, PaperExampleSeq2Seq) {
  auto m = build_mask(MaskKind::kSeq2Seq, {8}, 8, {4});
  ASSERT_EQ(m.sizes(), (std::vector<int64_t>{1, 8, 8}));
  const Matrix expected = {
      // SOS t1 t2 EOS t3 t4 t5 EOS   (keys)
      {1, 1, 1, 1, 0, 0, 0, 0},  // [SOS]
      {1, 1, 1, 1, 0, 0, 0, 0},  // t1: "access to the first four tokens"
      {1, 1, 1, 1, 0, 0, 0, 0},  // t2
      {1, 1, 1, 1, 0, 0, 0, 0},  // [EOS]
      {1, 1, 1, 1, 1, 0, 0, 0},  // t3
      {1, 1, 1, 1, 1, 1, 0, 0},  // t4: "can only attend to the first six tokens"
      {1, 1, 1, 1, 1, 1, 1, 0},  // t5
      {1, 1, 1, 1, 1, 1, 1, 1},  // [EOS]
  };
  EXPECT_EQ(rows(m, 0), expected);
}

TEST(MasksTest, PaperExampleBidirectional) {
  auto m = build_mask(MaskKind::kBidirectional, {8});
  EXPECT_EQ(rows(m, 0), Matrix(8, std::vector<int64_t>(8, 1)));
}

TEST(MasksTest, PaperExampleLeftToRight) {
  auto m = build_mask(MaskKind::kLeftToRight, {8});
  const Matrix expected = {
      {1, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 0, 0, 0},
      {1, 1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 0, 0},
      {1, 1, 1, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 1, 1, 1, 1},
  };
  EXPECT_EQ(rows(m, 0), expected);
}

TEST(MasksTest, PaperExampleRightToLeft) {
  auto m = build_mask(MaskKind::kRightToLeft, {8});
  const Matrix expected = {
      {1, 1, 1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 1, 1},
      {0, 0, 0, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 1},
  };
  EXPECT_EQ(rows(m, 0), expected);
}

// A batch of different source/target lengths: example 1 is "[SOS] s1 [EOS] t1 [EOS]" + 3 pads.
TEST(MasksTest, Seq2SeqBatchWithPadding) {
  auto m = seq2seq_mask({4, 3}, {4, 2}, 8);
  ASSERT_EQ(m.sizes(), (std::vector<int64_t>{2, 8, 8}));
  EXPECT_EQ(rows(m, 0), rows(build_mask(MaskKind::kSeq2Seq, {8}, 8, {4}), 0));
  const Matrix expected = {
      {1, 1, 1, 0, 0, 0, 0, 0},  // [SOS]
      {1, 1, 1, 0, 0, 0, 0, 0},  // s1
      {1, 1, 1, 0, 0, 0, 0, 0},  // [EOS]
      {1, 1, 1, 1, 0, 0, 0, 0},  // t1
      {1, 1, 1, 1, 1, 0, 0, 0},  // [EOS]
      {1, 1, 1, 1, 1, 0, 0, 0},  // pad rows see every real key
      {1, 1, 1, 1, 1, 0, 0, 0}, {1, 1, 1, 1, 1, 0, 0, 0},
  };
  EXPECT_EQ(rows(m, 1), expected);
}

TEST(MasksTest, DirectionalMasksNeverSeePadding) {
  auto l2r = build_mask(MaskKind::kLeftToRight, {3, 5}, 5);
  auto r2l = build_mask(MaskKind::kRightToLeft, {3, 5}, 5);
  const Matrix l2r_expected = {
      {1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}};
  const Matrix r2l_expected = {
      {1, 1, 1, 0, 0}, {0, 1, 1, 0, 0}, {0, 0, 1, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 0, 0}};
  EXPECT_EQ(rows(l2r, 0), l2r_expected);
  EXPECT_EQ(rows(r2l, 0), r2l_expected);
  auto bi = build_mask(MaskKind::kBidirectional, {3, 5}, 5);
  EXPECT_EQ(rows(bi, 0), Matrix(5, std::vector<int64_t>({1, 1, 1, 0, 0})));
}

// (The recorded 3-D masks of the HF parity fixtures are compared with build_mask in
// transformer_test.cc, next to the fixture loader.)
TEST(MasksTest, MatchesPaddingMaskAndDefaults) {
  auto p = padding_mask({2, 4});
  ASSERT_EQ(p.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(torch::equal(p, torch::tensor({{1, 1, 0, 0}, {1, 1, 1, 1}}, torch::kLong)));
  // The bidirectional 3-D mask is the 2-D padding mask broadcast over queries.
  auto bi = build_mask(MaskKind::kBidirectional, {2, 4});
  EXPECT_TRUE(torch::equal(bi, p.unsqueeze(1).expand({2, 4, 4})));
  EXPECT_EQ(build_mask(MaskKind::kLeftToRight, {3}, 0, {}, torch::kBool).scalar_type(),
            torch::kBool);
}

TEST(MasksTest, RejectsBadLengths) {
  EXPECT_THROW(build_mask(MaskKind::kBidirectional, {9}, 8), InputError);
  EXPECT_THROW(build_mask(MaskKind::kBidirectional, {-1}), InputError);
  EXPECT_THROW(build_mask(MaskKind::kSeq2Seq, {5}, 8, {}), InputError);
  EXPECT_THROW(build_mask(MaskKind::kSeq2Seq, {5}, 8, {6}), InputError);
  EXPECT_THROW(seq2seq_mask({1, 2}, {1}), InputError);
  EXPECT_THROW(parse_mask_kind("causal"), InputError);
  EXPECT_EQ(parse_mask_kind("l2r"), MaskKind::kLeftToRight);
  EXPECT_EQ(parse_mask_kind(to_string(MaskKind::kSeq2Seq)), MaskKind::kSeq2Seq);
}

}  // namespace
}  // namespace unieval::models
