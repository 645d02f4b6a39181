// The papers' recipes as data (tasks/presets.h).
#include "tasks/presets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace unieval::tasks {
namespace {

TEST(PresetTest, PapersRecipes) {
  const Preset* g = find_preset("gigaword");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->train.at("epochs"), 30);
  EXPECT_EQ(g->train.at("batch_size"), 64);
  EXPECT_DOUBLE_EQ(g->train.at("mask_prob").get<double>(), 0.7);
  EXPECT_EQ(g->train.at("max_src_len"), 192);
  EXPECT_EQ(g->decode.at("beam"), 5);
  EXPECT_EQ(g->decode.at("no_repeat_ngram"), 3);
  const Preset* d = find_preset("dstc7");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->decode.at("beam"), 10);
  EXPECT_EQ(d->decode.at("max_len"), 40);
  const Preset* e = find_preset("ernie-gen-large-gigaword");
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->train.at("lr").get<double>(), 3e-5);
  EXPECT_DOUBLE_EQ(e->train.at("noise_prob").get<double>(), 0.6);
  EXPECT_EQ(e->train.at("batch_size"), 128);
  EXPECT_DOUBLE_EQ(*e->dropout, 0.2);
  // Every ERNIE-GEN row trains multi-flow (λ 1.0 in fine-tuning, §3.3), no UniLM masking.
  int ernie_rows = 0;
  for (const auto& p : presets()) {
    if (p.name.rfind("ernie-gen-", 0) != 0) continue;
    ++ernie_rows;
    EXPECT_EQ(p.train.at("arch"), "ernie-gen") << p.name;
    EXPECT_DOUBLE_EQ(p.train.at("span_lambda").get<double>(), 1.0) << p.name;
    EXPECT_FALSE(p.train.contains("mask_prob")) << p.name;
  }
  EXPECT_EQ(ernie_rows, 8);
  EXPECT_EQ(find_preset("nope"), nullptr);
  EXPECT_NE(presets_help().find("squad-qg"), std::string::npos);
}

TEST(PresetTest, UnilmDecodingOfTheOfficialDecodeCommands) {
  // microsoft/unilm unilm-v1/README.md decode commands.
  const Preset* g = find_preset("gigaword");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->decode.at("max_len"), 32);
  EXPECT_DOUBLE_EQ(g->decode.at("length_penalty").get<double>(), 0.0);
  EXPECT_EQ(g->decode.at("ngram_ignore_words").get<std::vector<std::string>>(),
            std::vector<std::string>{"."});
  EXPECT_EQ(g->decode.at("algorithm"), "unilm");
  // gen_seq_from_trace.py --alpha 0.6, as the script runs (#38).
  EXPECT_DOUBLE_EQ(g->decode.at("trace_alpha").get<double>(), 0.6);
  EXPECT_EQ(g->decode.at("trace_selection"), "official");
  const Preset* c = find_preset("cnndm");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->decode.at("max_len"), 128);
  EXPECT_DOUBLE_EQ(c->decode.at("length_penalty").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(c->decode.at("trace_alpha").get<double>(), 1.0);
  EXPECT_EQ(c->decode.at("trace_selection"), "official");
  EXPECT_EQ(c->decode.at("algorithm"), "unilm");
  EXPECT_EQ(c->decode.at("ngram_ignore_words").get<std::vector<std::string>>(),
            (std::vector<std::string>{".", "[X_SEP]"}));
  EXPECT_EQ(c->eval_options.at("trunc_len"), "70");
  const Preset* q = find_preset("squad-qg");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->decode.at("beam"), 1);
  EXPECT_EQ(q->decode.at("max_len"), 48);
  EXPECT_FALSE(q->decode.contains("min_len"));  // none given: the default 0
  for (const auto& p : presets()) {
    if (p.seq2seq) {
      EXPECT_FALSE(p.decode_source.empty()) << p.name;
    }
  }
}

TEST(PresetTest, FromScratchRecipesAndTheirModelConfigs) {
  const Preset* q = find_preset("squad-qg-scratch");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->task, "squad-qg");
  EXPECT_TRUE(q->seq2seq);
  EXPECT_EQ(q->train.at("arch"), "ernie-gen");
  EXPECT_DOUBLE_EQ(q->train.at("noise_prob").get<double>(), 0.0);
  // Decoding that cannot return an empty question or print a special token.
  EXPECT_GE(q->decode.at("min_len").get<int>(), 1);
  EXPECT_EQ(q->decode.at("not_predict_words").get<std::vector<std::string>>(),
            std::vector<std::string>{"@special"});
  EXPECT_EQ(q->decode.at("no_repeat_ngram"), 3);
  const Preset* g = find_preset("glue-sst2-scratch");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->seq2seq);
  EXPECT_EQ(g->task, "glue-sst2");
  // The model configs the notes name exist, and their vocabulary size is the vocab command's 8,000.
  for (const char* name : {"squad-qg-scratch", "glue-sst2-scratch", "glue-sst2-selfpt"}) {
    const std::string path =
        std::string(UNIEVAL_SOURCE_DIR) + "/tasks/scratch/" + name + ".config.json";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    const auto cfg = nlohmann::json::parse(in);
    EXPECT_EQ(cfg.at("vocab_size"), 8000) << path;
    EXPECT_NE(find_preset(name)->note.find(std::string("tasks/scratch/") + name + ".config.json"),
              std::string::npos);
  }
}

TEST(PresetTest, NamesAreUniqueAndSourced) {
  std::set<std::string> names;
  for (const auto& p : presets()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.task.empty()) << p.name;
    EXPECT_FALSE(p.source.empty()) << p.name;
    EXPECT_TRUE(p.train.is_object() && p.decode.is_object()) << p.name;
  }
  EXPECT_GE(names.size(), 10u);
}

}  // namespace
}  // namespace unieval::tasks
