// Presets (tasks/presets.h, data) resolved onto the trainer's and the search's options.
#include "pipelines/presets.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "models/training/pretrainer.h"
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

std::vector<std::string> keys_in_order(const nlohmann::ordered_json& j) {
  std::vector<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
  return out;
}

// run.json's "train" keys, in the order earlier versions wrote them (run folders are compared
// byte for byte): the declaration may not reorder them.
TEST(ResolvePresetTest, TrainOptionsWriteRunJsonKeysInTheirOrder) {
  const std::vector<std::string> base = {
      "optimizer",     "lr",           "beta1",           "beta2",
      "eps",           "weight_decay", "bias_correction", "epochs",
      "max_steps",     "warmup_steps", "warmup_ratio",    "max_grad_norm",
      "accum",         "batch_tokens", "batch_size",      "label_smoothing",
      "max_src_len",   "max_tgt_len",  "mask_prob",       "max_pred",
      "mask_80_10_10", "noise_prob",   "source_type",     "target_type",
      "seed",          "save_every",   "log_every",       "dev_every",
      "early_stop"};
  models::TrainOptions t;
  EXPECT_EQ(keys_in_order(t.to_json()), base);
  t.no_train = true;
  t.skip_nonfinite = true;
  t.arch = "ernie-gen";
  t.data.target_bos = true;
  t.smoothing = models::LabelSmoothing::kUnilm;
  t.clip = models::ClipMode::kPerParameter;
  t.ernie.noise_rule = models::NoiseRule::kPerPosition;
  t.length_groups = 4;
  std::vector<std::string> all = base;
  all.insert(all.begin() + 9, "no_train");
  all.insert(all.begin() + 16, "length_groups");        // after batch_size
  all.insert(all.begin() + 18, {"smoothing", "clip"});  // after label_smoothing
  for (const char* k : {"skip_nonfinite", "arch", "span_lambda", "noise_rule", "span_bigrams",
                        "span_trigrams", "target_bos"})
    all.push_back(k);
  EXPECT_EQ(keys_in_order(t.to_json()), all);
  EXPECT_EQ(train_option_keys(), std::set<std::string>(all.begin(), all.end()));
  EXPECT_EQ(t.to_json()["optimizer"], "adamw");  // the enum as its JSON spelling
}

// Every field of TrainOptions written and read back through its one declaration.
TEST(ResolvePresetTest, TrainOptionsRoundTrip) {
  models::TrainOptions t;
  t.optim.kind = models::OptimizerKind::kAdamax;
  t.optim.lr = 2e-4;
  t.optim.beta2 = 0.98;
  t.optim.bias_correction = false;
  t.epochs = 3;
  t.max_steps = 77;
  t.warmup_steps = 5;
  t.batch_size = 8;
  t.label_smoothing = 0.0;
  t.data.max_src_len = 100;
  t.data.mask_80_10_10 = true;
  t.data.source_type = 4;
  t.data.target_type = 5;
  t.seed = 1234567890123ull;
  t.dev_every = -1;
  t.early_stop = 3;
  t.arch = "ernie-gen";
  t.ernie.lambda = 0.5;
  t.ernie.top_bigrams = 10;
  t.length_groups = 3;
  const nlohmann::ordered_json j = t.to_json();
  models::TrainOptions back;
  back.update_from_json(nlohmann::json::parse(j.dump()), "run.json");
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.optim.kind, models::OptimizerKind::kAdamax);
  EXPECT_EQ(back.seed, t.seed);
  EXPECT_EQ(back.ernie.top_bigrams, 10);
  EXPECT_EQ(back.length_groups, 3);
  EXPECT_EQ(j.dump(), back.to_json().dump());
  // Strict: an unknown key or a wrong type names the source and the key; an unknown arch too.
  try {
    back.update_from_json(nlohmann::json{{"epoch", 2}}, "run.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'epoch'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(back.update_from_json(nlohmann::json{{"optimizer", "sgd"}}, "r"), InputError);
  EXPECT_THROW(back.update_from_json(nlohmann::json{{"arch", "gpt"}}, "r"), InputError);
  EXPECT_THROW(back.update_from_json(nlohmann::json{{"accum", "2"}}, "r"), InputError);
  EXPECT_NO_THROW(back.update_from_json(nlohmann::json{{"lm_coef", 0.5}}, "r", {"lm_coef"}));
}

TEST(ResolvePresetTest, PretrainOptionsRoundTripInRunJsonOrder) {
  models::PretrainOptions p;
  const std::vector<std::string> base = {"objectives",
                                         "max_len",
                                         "mask_prob",
                                         "max_pred",
                                         "span_prob",
                                         "max_span",
                                         "short_seq_prob",
                                         "nsp_random_prob",
                                         "segments",
                                         "optimizer",
                                         "lr",
                                         "beta1",
                                         "beta2",
                                         "eps",
                                         "weight_decay",
                                         "bias_correction",
                                         "batch_size",
                                         "accum",
                                         "max_steps",
                                         "tokens",
                                         "warmup_steps",
                                         "warmup_ratio",
                                         "max_grad_norm",
                                         "seed",
                                         "save_every",
                                         "log_every"};
  EXPECT_EQ(keys_in_order(p.to_json()), base);
  EXPECT_DOUBLE_EQ(p.to_json()["lr"].get<double>(), 1e-4);
  p.objectives = "ernie-gen";
  p.skip_nonfinite = true;
  p.data.segments = "bert";
  p.tokens = 5000;
  p.warmup_steps = 7;
  p.ernie.fragment_ratio = 0.3;
  p.ernie.noise_rule = models::NoiseRule::kPerPosition;
  p.optim.weight_decay = 0.0;
  std::vector<std::string> all = base;
  for (const char* k : {"skip_nonfinite", "span_lambda", "noise_prob", "noise_rule", "span_bigrams",
                        "span_trigrams", "fragment_ratio"})
    all.push_back(k);
  const nlohmann::ordered_json j = p.to_json();
  EXPECT_EQ(keys_in_order(j), all);
  models::PretrainOptions back;
  back.update_from_json(nlohmann::json::parse(j.dump()), "run.json");
  EXPECT_EQ(back.to_json().dump(), j.dump());
  EXPECT_EQ(back.data.segments, "bert");
  EXPECT_DOUBLE_EQ(back.ernie.fragment_ratio, 0.3);
  EXPECT_EQ(back.ernie.noise_rule, models::NoiseRule::kPerPosition);
  try {
    back.update_from_json(nlohmann::json{{"fragment_ration", 0.2}}, "run.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'fragment_ration'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(back.update_from_json(nlohmann::json{{"segments", 1}}, "r"), InputError);
}

TEST(ResolvePresetTest, OptimizerOptionsRoundTripAmongOtherKeys) {
  models::OptimizerOptions o;
  o.kind = models::OptimizerKind::kAdam;
  o.eps = 1e-9;
  o.bias_correction = false;
  nlohmann::ordered_json j = {{"loss", "unilm"}};  // a host object's own key stays first
  models::to_json(o, j);
  EXPECT_EQ(keys_in_order(j), (std::vector<std::string>{"loss", "optimizer", "lr", "beta1", "beta2",
                                                        "eps", "weight_decay", "bias_correction"}));
  models::OptimizerOptions back;
  models::update_from_json(back, nlohmann::json::parse(j.dump()), "batch.json");  // "loss" left
  nlohmann::ordered_json again = {{"loss", "unilm"}};
  models::to_json(back, again);
  EXPECT_EQ(again.dump(), j.dump());
}

// A misspelt training key in an understanding recipe is named too (TrainOptions reads the object
// with NluRunOptions' keys allowed, and the other way round).
TEST(ResolvePresetTest, AMisspeltTrainingKeyOfAnUnderstandingPresetIsNamed) {
  tasks::Preset n = *tasks::find_preset("glue-sst2");
  n.train["warmup_ration"] = 0.1;
  RunOptions o;
  o.task = "glue-sst2";
  try {
    apply_nlu_preset(o, n);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("preset glue-sst2 train"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown key 'warmup_ration'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace unieval::pipelines
