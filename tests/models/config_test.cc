// BertConfig: HF config.json parsing, defaults, validation errors, round trip.
#include "models/nn/config.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

TEST(ConfigTest, ReadsHfFixtureConfigs) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/B_unilm_h48_l3/config.json");
  auto a =
      BertConfig::from_json_file((shared_dir() / "golden/hf_bert/A_h32_l2/config.json").string());
  EXPECT_EQ(a.vocab_size, 512);
  EXPECT_EQ(a.hidden_size, 32);
  EXPECT_EQ(a.num_hidden_layers, 2);
  EXPECT_EQ(a.num_attention_heads, 4);
  EXPECT_EQ(a.head_dim(), 8);
  EXPECT_EQ(a.intermediate_size, 64);
  EXPECT_EQ(a.max_position_embeddings, 64);
  EXPECT_EQ(a.type_vocab_size, 2);
  EXPECT_DOUBLE_EQ(a.layer_norm_eps, 1e-12);
  EXPECT_EQ(a.activation(), Activation::kGelu);
  EXPECT_FALSE(a.classifier_dropout.has_value());
  auto b = BertConfig::from_json_file(
      (shared_dir() / "golden/hf_bert/B_unilm_h48_l3/config.json").string());
  EXPECT_EQ(b.hidden_size, 48);
  EXPECT_EQ(b.num_attention_heads, 3);
  EXPECT_EQ(b.type_vocab_size, 6);
  EXPECT_DOUBLE_EQ(b.layer_norm_eps, 1e-5);
}

TEST(ConfigTest, MissingFieldsTakeHfDefaults) {
  auto c = BertConfig::from_json(nlohmann::json::object());
  EXPECT_EQ(c.vocab_size, 30522);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_hidden_layers, 12);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.hidden_act, "gelu");
  EXPECT_DOUBLE_EQ(c.hidden_dropout_prob, 0.1);
  EXPECT_EQ(c.max_position_embeddings, 512);
  EXPECT_DOUBLE_EQ(c.initializer_range, 0.02);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.pad_token_id, 0);
}

TEST(ConfigTest, RoundTripsThroughJson) {
  auto c = BertConfig::tiny(99, 0.2);
  c.hidden_act = "gelu_new";
  c.classifier_dropout = 0.3;
  c.type_vocab_size = 6;
  TempDir dir;
  auto path = dir.write("config.json", c.to_json().dump(2));
  auto d = BertConfig::from_json_file(path);
  EXPECT_EQ(d.to_json(), c.to_json());
  EXPECT_EQ(d.activation(), Activation::kGeluTanh);
  EXPECT_DOUBLE_EQ(*d.classifier_dropout, 0.3);
  EXPECT_EQ(c.to_json()["model_type"], "bert");
}

void expect_error(const std::string& json, const std::string& needle) {
  TempDir dir;
  auto path = dir.write("config.json", json);
  try {
    BertConfig::from_json_file(path);
    ADD_FAILURE() << "accepted: " << json;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ConfigTest, BadFieldsAreNamed) {
  expect_error(R"({"hidden_size": "768"})", "hidden_size: expected an integer");
  expect_error(R"({"hidden_size": 7.5})", "hidden_size: expected an integer");
  expect_error(R"({"num_hidden_layers": 0})", "num_hidden_layers: must be positive");
  expect_error(R"({"hidden_size": 100, "num_attention_heads": 12})", "does not divide hidden_size");
  expect_error(R"({"hidden_act": "swish"})", "hidden_act: unsupported activation");
  expect_error(R"({"hidden_dropout_prob": 1.5})", "hidden_dropout_prob: must be in [0, 1)");
  expect_error(R"({"layer_norm_eps": "x"})", "layer_norm_eps: expected a number");
  expect_error(R"({"position_embedding_type": "relative_key"})", "position_embedding_type");
  expect_error(R"({"pad_token_id": 40000})", "pad_token_id");
  expect_error(R"([1, 2])", "JSON object");
  expect_error(R"({"vocab_size": )", "not valid JSON");
  // A number past a double is nlohmann's out_of_range, not a parse_error; past int64 must not wrap.
  expect_error(R"({"vocab_size": 1e999})", "not valid JSON");
  expect_error(R"({"vocab_size": 1e19})", "vocab_size: integer out of range");
  expect_error(R"({"hidden_size": -1e300})", "hidden_size: integer out of range");
  expect_error(R"({"vocab_size": 18446744073709551615})", "vocab_size: integer out of range");
  EXPECT_THROW(BertConfig::from_json_file("/nonexistent/config.json"), InputError);
}

TEST(ConfigTest, ActivationNames) {
  EXPECT_EQ(parse_activation("gelu"), Activation::kGelu);
  EXPECT_EQ(parse_activation("gelu_pytorch_tanh"), Activation::kGeluTanh);
  EXPECT_EQ(parse_activation("relu"), Activation::kRelu);
  EXPECT_THROW(parse_activation("tanh"), InputError);
  EXPECT_EQ(to_string(Activation::kGelu), "gelu");
}

}  // namespace
}  // namespace unieval::models
