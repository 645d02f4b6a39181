// Presets (tasks/presets.h, data) resolved onto the trainer's and the search's options.
#include "pipelines/presets.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "pipelines/run_nlu.h"
#include "pipelines/seq2seq.h"

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

// Every key of every preset is one an options struct reads (a misspelt key used to be ignored).
TEST(ResolvePresetTest, EveryPresetKeyIsRead) {
  for (const auto& p : tasks::presets()) {
    SCOPED_TRACE(p.name);
    if (p.seq2seq) {
      EXPECT_NO_THROW(resolve_preset(p));
    } else {
      RunOptions o;
      o.task = p.task == "gpt" ? "glue-sst2" : p.task;
      EXPECT_NO_THROW(apply_nlu_preset(o, p));
    }
  }
}

TEST(ResolvePresetTest, AMisspeltKeyIsAnInputErrorNamingIt) {
  tasks::Preset p = *tasks::find_preset("gigaword");
  p.train["warmup_ration"] = 0.1;
  try {
    resolve_preset(p);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("preset gigaword train"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown key 'warmup_ration'"), std::string::npos)
        << e.what();
  }
  p = *tasks::find_preset("gigaword");
  p.decode["no_repeat_ngrams"] = 3;
  EXPECT_THROW(resolve_preset(p), InputError);
  p = *tasks::find_preset("gigaword");
  p.decode["beam"] = "five";  // a wrong type is an InputError too, not a JSON library exception
  try {
    resolve_preset(p);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("beam: expected an integer"), std::string::npos)
        << e.what();
  }
  tasks::Preset n = *tasks::find_preset("glue-sst2");
  n.train["max_seq_length"] = 64;
  RunOptions o;
  o.task = "glue-sst2";
  EXPECT_THROW(apply_nlu_preset(o, n), InputError);
}

// SearchOptions written and read back through its one declaration; the keys written only when set
// stay absent at their defaults (the request.json of earlier run folders).
TEST(ResolvePresetTest, SearchOptionsRoundTrip) {
  models::SearchOptions s;
  const nlohmann::ordered_json d = search_to_json(s);
  EXPECT_FALSE(d.contains("algorithm"));
  EXPECT_FALSE(d.contains("trace_selection"));
  EXPECT_FALSE(d.contains("not_predict_words"));
  EXPECT_EQ(d.size(), 11u);
  s.beam = 5;
  s.algorithm = "unilm";
  s.trace_alpha = 0.5;
  s.not_predict_words = {"@special"};
  s.seed = 9;
  const nlohmann::ordered_json j = search_to_json(s);
  EXPECT_EQ(j["trace_selection"], "official");  // written with trace_alpha
  const models::SearchOptions back = search_from_json(nlohmann::json::parse(j.dump()), "test");
  EXPECT_EQ(search_to_json(back), j);
  EXPECT_EQ(back.not_predict_words, s.not_predict_words);
  NluRunOptions n;
  n.na_threshold = -1.5;
  NluRunOptions nb;
  nb.update_from_json(nlohmann::json::parse(n.to_json().dump()));
  EXPECT_EQ(nb.to_json(), n.to_json());
  EXPECT_EQ(n.to_json().size(), 8u);  // predict_batch is not part of a request
}

}  // namespace
}  // namespace unieval::pipelines
