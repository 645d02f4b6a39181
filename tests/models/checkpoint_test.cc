// Checkpoints: save/load round trip, loading one model's checkpoint into another, the HF name
// mapping (tied decoder, no "bert." prefix, gamma/beta, ignored keys), missing/unexpected reports,
// and the HF fixtures.
#include "models/io/checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

// Every parameter random (not HF's zero biases / unit LayerNorms, which hide mistakes).
UnilmModel random_model(uint64_t seed, const UnilmHeads& heads = {}) {
  torch::manual_seed(seed);
  UnilmModel m(BertConfig::tiny(), heads);
  torch::NoGradGuard g;
  for (auto& p : m->parameters()) p.normal_(0.0, 0.5);
  m->eval();
  return m;
}

bool same_parameters(UnilmModel& a, UnilmModel& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  if (pa.size() != pb.size()) return false;
  for (const auto& item : pa) {
    const torch::Tensor* other = pb.find(item.key());
    if (!other || !torch::equal(item.value(), *other)) return false;
  }
  return true;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

torch::Tensor forward_hidden(UnilmModel& m) {
  torch::NoGradGuard g;
  auto ids = torch::tensor({{2, 5, 9, 3, 0}, {2, 7, 3, 0, 0}}, torch::kLong);
  auto mask = ids.ne(0).to(torch::kLong);
  auto out = m->forward(ids, {}, mask);
  return m->mlm_logits(out.last_hidden_state);
}

TEST(CheckpointTest, SaveLoadRoundTrip) {
  TempDir dir;
  UnilmModel a = random_model(1);
  save_checkpoint(a, (dir.path() / "ckpt").string());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "ckpt/config.json"));
  LoadReport report;
  UnilmModel b = load_checkpoint((dir.path() / "ckpt").string(), {}, &report);
  EXPECT_TRUE(report.complete()) << report.summary();
  EXPECT_EQ(report.summary(), "");
  EXPECT_EQ(report.loaded, a->named_parameters().size());
  EXPECT_TRUE(same_parameters(a, b));
  EXPECT_TRUE(torch::equal(forward_hidden(a), forward_hidden(b)));
  // The default save drops the tied decoder copies (HF safe_serialization key set).
  auto f = SafetensorsFile::open((dir.path() / "ckpt/model.safetensors").string());
  EXPECT_FALSE(f.contains("cls.predictions.decoder.weight"));
  EXPECT_EQ(f.metadata().at("format"), "pt");
}

TEST(CheckpointTest, OneModelsCheckpointLoadsIntoAnother) {
  TempDir dir;
  UnilmModel a = random_model(1);
  UnilmModel b = random_model(2);
  ASSERT_FALSE(same_parameters(a, b));
  ASSERT_FALSE(torch::equal(forward_hidden(a), forward_hidden(b)));
  std::string path = (dir.path() / "a.safetensors").string();
  save_weights(*a, path, /*store_tied_decoder=*/true);
  LoadReport r = load_weights(*b, path, {.strict = true});
  EXPECT_TRUE(r.complete());
  EXPECT_TRUE(contains(r.tied_keys, "cls.predictions.decoder.weight"));
  EXPECT_TRUE(r.tied_conflicts.empty());
  EXPECT_TRUE(same_parameters(a, b));
  EXPECT_TRUE(torch::equal(forward_hidden(a), forward_hidden(b)));
}

TEST(CheckpointTest, HfNameVariantsLoad) {
  TempDir dir;
  UnilmModel a = random_model(3);
  std::vector<std::pair<std::string, torch::Tensor>> renamed;
  for (auto& [name, t] : checkpoint_tensors(*a, false)) {
    std::string k = name;
    if (k.rfind("bert.", 0) == 0) k = k.substr(5);  // a bare BertModel checkpoint
    if (k.size() > 16 && k.substr(k.size() - 16) == "LayerNorm.weight")
      k = k.substr(0, k.size() - 6) + "gamma";
    if (k.size() > 14 && k.substr(k.size() - 14) == "LayerNorm.bias")
      k = k.substr(0, k.size() - 4) + "beta";
    renamed.emplace_back(k, t);
  }
  renamed.emplace_back("bert.embeddings.position_ids",
                       torch::arange(64, torch::kLong).unsqueeze(0));
  renamed.emplace_back("cls.seq_relationship.weight", torch::zeros({2, 32}));
  std::string path = (dir.path() / "v.safetensors").string();
  write_safetensors(path, renamed);
  UnilmModel b = random_model(4);
  LoadReport r = load_weights(*b, path);
  EXPECT_TRUE(r.complete()) << r.summary();
  EXPECT_TRUE(contains(r.ignored_keys, "bert.embeddings.position_ids"));
  EXPECT_TRUE(contains(r.ignored_keys, "cls.seq_relationship.weight"));
  EXPECT_TRUE(
      contains(r.renamed_keys, "embeddings.LayerNorm.gamma -> bert.embeddings.LayerNorm.weight"));
  EXPECT_TRUE(same_parameters(a, b));
  EXPECT_EQ(checkpoint_key_to_parameter("cls.predictions.decoder.bias"), "cls.predictions.bias");
  EXPECT_EQ(checkpoint_key_to_parameter("encoder.layer.0.output.LayerNorm.beta"),
            "bert.encoder.layer.0.output.LayerNorm.bias");
}

TEST(CheckpointTest, ReportsMissingAndUnexpectedKeysLikeHf) {
  TempDir dir;
  UnilmModel a = random_model(5);
  auto tensors = checkpoint_tensors(*a, false);
  tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                               [](const auto& p) { return p.first == "bert.pooler.dense.bias"; }),
                tensors.end());
  tensors.emplace_back("foo.bar", torch::zeros({3}));
  std::string path = (dir.path() / "m.safetensors").string();
  write_safetensors(path, tensors);
  UnilmModel b = random_model(6);
  LoadReport r = load_weights(*b, path);
  EXPECT_EQ(r.missing_keys, std::vector<std::string>{"bert.pooler.dense.bias"});
  EXPECT_EQ(r.unexpected_keys, std::vector<std::string>{"foo.bar"});
  EXPECT_NE(r.summary().find("were not used when initializing"), std::string::npos);
  EXPECT_NE(r.summary().find("newly initialized: ['bert.pooler.dense.bias']"), std::string::npos);
  EXPECT_THROW(load_weights(*b, path, {.strict = true}), InputError);
  // A new classification head on a pre-trained checkpoint is "missing", not an error.
  save_checkpoint(a, (dir.path() / "c").string());
  LoadReport rc;
  load_checkpoint((dir.path() / "c").string(), {.num_labels = 3}, &rc);
  EXPECT_TRUE(contains(rc.missing_keys, "classifier.weight"));
  EXPECT_TRUE(contains(rc.missing_keys, "classifier.bias"));
  EXPECT_TRUE(rc.unexpected_keys.empty());
}

TEST(CheckpointTest, ShapeAndDtypeMismatchesAreInputErrors) {
  TempDir dir;
  UnilmModel a = random_model(7);
  std::string p1 = (dir.path() / "s.safetensors").string();
  write_safetensors(p1, {{"bert.pooler.dense.bias", torch::zeros({31})}});
  EXPECT_THROW(load_weights(*a, p1), InputError);
  std::string p2 = (dir.path() / "d.safetensors").string();
  write_safetensors(p2, {{"bert.pooler.dense.bias", torch::zeros({32}, torch::kLong)}});
  EXPECT_THROW(load_weights(*a, p2), InputError);
  // Half-precision weights are converted to the parameter dtype.
  std::string p3 = (dir.path() / "h.safetensors").string();
  write_safetensors(p3, {{"bert.pooler.dense.bias", torch::full({32}, 0.5, torch::kBFloat16)}});
  load_weights(*a, p3);
  EXPECT_TRUE(torch::equal(a->bert->pooler->dense->bias, torch::full({32}, 0.5)));
  EXPECT_THROW(locate_checkpoint((dir.path() / "absent").string()), InputError);
  std::filesystem::create_directories(dir.path() / "empty");
  EXPECT_THROW(locate_checkpoint((dir.path() / "empty").string()), InputError);
}

TEST(CheckpointTest, HfFixturesLoadCompletelyWithAndWithoutTheTiedDecoder) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/B_unilm_h48_l3/model.tied_dropped.safetensors");
  for (const char* fixture : {"A_h32_l2", "B_unilm_h48_l3"}) {
    auto dir = shared_dir() / "golden/hf_bert" / fixture;
    LoadReport full, dropped;
    UnilmModel a = load_checkpoint(dir.string(), {}, &full, {.strict = true});
    UnilmModel b = load_checkpoint((dir / "model.tied_dropped.safetensors").string(), {}, &dropped,
                                   {.strict = true});
    EXPECT_TRUE(full.complete()) << full.summary();
    EXPECT_TRUE(dropped.complete()) << dropped.summary();
    EXPECT_TRUE(full.tied_conflicts.empty());
    EXPECT_TRUE(contains(full.ignored_keys, "bert.embeddings.position_ids"));
    EXPECT_TRUE(contains(full.tied_keys, "cls.predictions.decoder.bias"));
    EXPECT_TRUE(dropped.tied_keys.empty());
    EXPECT_TRUE(same_parameters(a, b)) << fixture;
    auto st = SafetensorsFile::open((dir / "model.safetensors").string());
    EXPECT_TRUE(torch::equal(a->cls->predictions->bias, st.tensor("cls.predictions.decoder.bias")));
  }
}

}  // namespace
}  // namespace unieval::models
