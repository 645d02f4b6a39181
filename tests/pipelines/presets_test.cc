// Presets (tasks/presets.h, data) resolved onto the trainer's and the search's options.
#include "pipelines/presets.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace unieval::pipelines {
namespace {

TEST(ResolvePresetTest, AppliesThePaperValuesOnTheDefaults) {
  const ModelPreset g = resolve_preset("gigaword");
  ASSERT_NE(g.data, nullptr);
  EXPECT_EQ(g.data->task, "gigaword");
  EXPECT_EQ(g.train.epochs, 30);
  EXPECT_EQ(g.train.batch_size, 64);
  EXPECT_EQ(g.train.batch_tokens, 64 * 256);
  EXPECT_DOUBLE_EQ(g.train.data.mask_prob, 0.7);
  EXPECT_EQ(g.train.data.max_src_len, 192);
  EXPECT_EQ(g.train.data.max_tgt_len, 256 - 192 - 3);
  EXPECT_EQ(g.train.optim.kind, models::OptimizerKind::kAdamW);
  EXPECT_DOUBLE_EQ(g.train.optim.weight_decay, 0.01);
  EXPECT_EQ(g.decode.beam, 5);
  EXPECT_EQ(g.decode.no_repeat_ngram, 3);
  EXPECT_EQ(g.decode.max_len, 32);
  ASSERT_TRUE(g.dropout.has_value());
  EXPECT_DOUBLE_EQ(*g.dropout, 0.1);

  const ModelPreset e = resolve_preset("ernie-gen-large-gigaword");
  EXPECT_DOUBLE_EQ(e.train.optim.lr, 3e-5);
  EXPECT_DOUBLE_EQ(e.train.optim.eps, 1e-9);
  EXPECT_DOUBLE_EQ(e.train.data.noise_prob, 0.6);
  // Unset by the preset: the trainer's defaults.
  const models::TrainOptions defaults;
  EXPECT_DOUBLE_EQ(e.train.optim.beta1, defaults.optim.beta1);
  EXPECT_EQ(e.train.seed, defaults.seed);

  EXPECT_EQ(resolve_preset("glue").train.optim.kind, models::OptimizerKind::kAdamax);
}

TEST(ResolvePresetTest, UnknownNameIsAnInputError) {
  try {
    resolve_preset("nope");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown preset 'nope'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gigaword"), std::string::npos);
  }
}

}  // namespace
}  // namespace unieval::pipelines
