// UnilmModel: HF parameter names, numerical parity with the HF v4.30.2 fixtures, the UniLM mask
// properties (causality, source independence), the KV-cache step API and the heads.
#include "models/nn/transformer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/nn/masks.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

namespace fs = std::filesystem;
using unieval::testing::shared_dir;

// ---- a minimal safetensors reader for the fixtures (the real loader is models-io's) ----

struct RawTensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Header entries in file order: name → (dtype, shape, bytes).
std::vector<std::pair<std::string, RawTensor>> read_safetensors(const fs::path& p) {
  const std::string file = read_all(p);
  if (file.size() < 8) throw std::runtime_error("short safetensors file " + p.string());
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[i]);
  auto header = nlohmann::ordered_json::parse(file.substr(8, n));
  std::vector<std::pair<std::string, RawTensor>> out;
  for (auto& [name, v] : header.items()) {
    if (name == "__metadata__") continue;
    RawTensor t;
    t.dtype = v["dtype"];
    t.shape = v["shape"].get<std::vector<int64_t>>();
    const auto begin = v["data_offsets"][0].get<size_t>(), end = v["data_offsets"][1].get<size_t>();
    t.bytes = file.substr(8 + n + begin, end - begin);
    out.emplace_back(name, std::move(t));
  }
  return out;
}

torch::Tensor to_tensor(const RawTensor& t) {
  EXPECT_EQ(t.dtype, "F32");
  auto out = torch::empty(t.shape, torch::kFloat);
  EXPECT_EQ(static_cast<size_t>(out.numel()) * 4, t.bytes.size());
  std::memcpy(out.data_ptr<float>(), t.bytes.data(), t.bytes.size());
  return out;
}

bool is_ignored(const std::string& key) {
  for (const char* prefix : kIgnoredCheckpointPrefixes)
    if (key.rfind(prefix, 0) == 0) return true;
  for (const auto& alias : kTiedAliases)
    if (key == alias.first) return true;
  return false;
}

// Copies every non-ignored fixture tensor into the model parameter of the same name.
void load_fixture(UnilmModel& model, const fs::path& file) {
  auto params = model->named_parameters();
  torch::NoGradGuard no_grad;
  for (const auto& [name, raw] : read_safetensors(file)) {
    if (is_ignored(name)) continue;
    auto* p = params.find(name);
    ASSERT_NE(p, nullptr) << name;
    p->copy_(to_tensor(raw));
  }
}

torch::Tensor nested_to_tensor(const nlohmann::json& j, torch::ScalarType dtype) {
  std::vector<int64_t> shape;
  const nlohmann::json* cur = &j;
  while (cur->is_array()) {
    shape.push_back(static_cast<int64_t>(cur->size()));
    if (cur->empty()) break;
    cur = &(*cur)[0];
  }
  std::vector<double> flat;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& x) {
    if (x.is_array()) {
      for (const auto& y : x) walk(y);
    } else {
      flat.push_back(x.get<double>());
    }
  };
  walk(j);
  return torch::tensor(flat, torch::kDouble).view(shape).to(dtype);
}

torch::Tensor output_tensor(const nlohmann::json& o) {
  auto data = o["data"].get<std::vector<double>>();
  // Parse as double, round to float32 (the fixture README's rule).
  return torch::tensor(data, torch::kDouble)
      .to(torch::kFloat)
      .view(o["shape"].get<std::vector<int64_t>>());
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

const char* const kFixtures[] = {"A_h32_l2", "B_unilm_h48_l3"};

// ---- parameter names ----

TEST(TransformerTest, ParameterNamesAreHfNames) {
  for (const char* fixture : kFixtures) {
    const auto dir = fs::path("golden/hf_bert") / fixture;
    UNIEVAL_REQUIRE_SHARED(dir / "model.safetensors");
    auto cfg = BertConfig::from_json_file((shared_dir() / dir / "config.json").string());
    UnilmModel model(cfg);
    std::map<std::string, std::vector<int64_t>> ours;
    for (const auto& p : model->named_parameters()) ours[p.key()] = p.value().sizes().vec();
    std::map<std::string, std::vector<int64_t>> theirs;
    for (const auto& [name, raw] : read_safetensors(shared_dir() / dir / "model.safetensors")) {
      if (name == "bert.embeddings.position_ids" || name.rfind("cls.seq_relationship.", 0) == 0 ||
          name.rfind("cls.predictions.decoder.", 0) == 0) {
        continue;
      }
      theirs[name] = raw.shape;
    }
    EXPECT_EQ(ours, theirs) << fixture;
    EXPECT_TRUE(ours.count("bert.encoder.layer.0.attention.self.query.weight"));
    EXPECT_TRUE(ours.count("cls.predictions.transform.LayerNorm.weight"));
  }
}

TEST(TransformerTest, TaskHeadsHaveHfNames) {
  UnilmModel model(BertConfig::tiny(),
                   UnilmHeads{.pooler = true, .mlm = false, .num_labels = 3, .span = true});
  auto params = model->named_parameters();
  ASSERT_NE(params.find("classifier.weight"), nullptr);
  EXPECT_EQ(params["classifier.weight"].sizes(), (std::vector<int64_t>{3, 32}));
  ASSERT_NE(params.find("qa_outputs.bias"), nullptr);
  EXPECT_EQ(params["qa_outputs.weight"].sizes(), (std::vector<int64_t>{2, 32}));
  EXPECT_EQ(params.find("cls.predictions.bias"), nullptr);
  UnilmModel no_pooler(BertConfig::tiny(), UnilmHeads{.pooler = false});
  EXPECT_EQ(no_pooler->named_parameters().find("bert.pooler.dense.weight"), nullptr);
}

// ---- parity with HF transformers v4.30.2 (fp32, CPU) ----

void check_fixture(const std::string& fixture, const std::string& weights) {
  const auto dir = shared_dir() / "golden/hf_bert" / fixture;
  auto cfg = BertConfig::from_json_file((dir / "config.json").string());
  UnilmModel model(cfg);
  load_fixture(model, dir / weights);
  model->eval();
  torch::NoGradGuard no_grad;
  auto cases = nlohmann::json::parse(read_all(dir / "cases.json"));
  ASSERT_GE(cases["cases"].size(), 4u);
  for (const auto& c : cases["cases"]) {
    SCOPED_TRACE(fixture + "/" + weights + ": " + c["name"].get<std::string>());
    const auto& in = c["inputs"];
    auto ids = nested_to_tensor(in["input_ids"], torch::kLong);
    auto types = nested_to_tensor(in["token_type_ids"], torch::kLong);
    auto mask = nested_to_tensor(in["attention_mask"], torch::kLong);
    auto out = model->forward(ids, types, mask, {}, /*output_hidden_states=*/true);
    const auto& exp = c["outputs"];
    EXPECT_LE(max_abs_diff(out.last_hidden_state, output_tensor(exp["last_hidden_state"])), 1e-4);
    EXPECT_LE(max_abs_diff(out.pooler_output, output_tensor(exp["pooler_output"])), 1e-4);
    EXPECT_LE(max_abs_diff(model->mlm_logits(out.last_hidden_state), output_tensor(exp["logits"])),
              2e-4);
    auto hs = output_tensor(exp["hidden_states"]);
    ASSERT_EQ(static_cast<int64_t>(out.hidden_states.size()), hs.size(0));
    for (int64_t l = 0; l < hs.size(0); ++l) {
      EXPECT_LE(max_abs_diff(out.hidden_states[l], hs[l]), 1e-4) << "hidden_states[" << l << "]";
    }
    // Our mask builder reproduces the fixture's 3-D masks from the lengths.
    const auto lengths = in["lengths"].get<std::vector<int64_t>>();
    const std::string name = c["name"];
    if (in["attention_mask_rank"] == 3) {
      torch::Tensor built;
      if (name == "causal_l2r") built = build_mask(MaskKind::kLeftToRight, lengths, ids.size(1));
      if (name == "causal_r2l") built = build_mask(MaskKind::kRightToLeft, lengths, ids.size(1));
      if (name.rfind("unilm_seq2seq", 0) == 0) {
        built = build_mask(MaskKind::kSeq2Seq, lengths, ids.size(1),
                           in["source_lengths"].get<std::vector<int64_t>>());
      }
      ASSERT_TRUE(built.defined()) << "unknown 3-D case";
      EXPECT_TRUE(torch::equal(built, mask));
    } else {
      EXPECT_TRUE(torch::equal(padding_mask(lengths, ids.size(1)), mask));
    }
  }
}

TEST(TransformerTest, MatchesHfFixtureA) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/A_h32_l2/cases.json");
  check_fixture("A_h32_l2", "model.safetensors");
  check_fixture("A_h32_l2", "model.tied_dropped.safetensors");
}

TEST(TransformerTest, MatchesHfFixtureB) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/B_unilm_h48_l3/cases.json");
  check_fixture("B_unilm_h48_l3", "model.safetensors");
}

// ---- UniLM mask properties on a random tiny model ----

UnilmModel tiny_model(uint64_t seed, UnilmHeads heads = {}) {
  torch::manual_seed(seed);
  auto cfg = BertConfig::tiny(/*vocab_size=*/128, /*dropout=*/0.1);
  UnilmModel model(cfg, heads);
  // HF's init (N(0, 0.02²), zero biases) makes every layer nearly the identity; spread the
  // weights so that a wrong mask shows up as a large difference.
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.normal_(0.0, 0.5);
  model->eval();
  return model;
}

torch::Tensor random_ids(int64_t B, int64_t T, int64_t lo = 5, int64_t hi = 128) {
  return torch::randint(lo, hi, {B, T}, torch::kLong);
}

TEST(TransformerTest, LeftToRightOutputsIgnoreLaterTokens) {
  auto model = tiny_model(1);
  torch::NoGradGuard no_grad;
  const int64_t T = 10;
  auto ids = random_ids(2, T);
  auto mask = build_mask(MaskKind::kLeftToRight, {T, T});
  auto base = model->forward(ids, {}, mask).last_hidden_state;
  for (int64_t i = 0; i + 1 < T; ++i) {
    auto changed = ids.clone();
    changed.slice(1, i + 1) = random_ids(2, T - i - 1);
    auto h = model->forward(changed, {}, mask).last_hidden_state;
    EXPECT_LE(max_abs_diff(h.slice(1, 0, i + 1), base.slice(1, 0, i + 1)), 1e-6) << "i=" << i;
    // ... while the later outputs do change (the test can fail).
    EXPECT_GT(max_abs_diff(h.slice(1, i + 1), base.slice(1, i + 1)), 1e-3) << "i=" << i;
  }
  // A bidirectional mask lets position 0 see the future: its output changes.
  auto changed = ids.clone();
  changed.select(1, T - 1).fill_(3);
  auto bi = build_mask(MaskKind::kBidirectional, {T, T});
  EXPECT_GT(max_abs_diff(model->forward(changed, {}, bi).last_hidden_state.select(1, 0),
                         model->forward(ids, {}, bi).last_hidden_state.select(1, 0)),
            1e-3);
}

TEST(TransformerTest, RightToLeftOutputsIgnoreEarlierTokens) {
  auto model = tiny_model(2);
  torch::NoGradGuard no_grad;
  const int64_t T = 9;
  auto ids = random_ids(1, T);
  auto mask = build_mask(MaskKind::kRightToLeft, {T});
  auto base = model->forward(ids, {}, mask).last_hidden_state;
  auto changed = ids.clone();
  changed.slice(1, 0, 4) = random_ids(1, 4);
  auto h = model->forward(changed, {}, mask).last_hidden_state;
  EXPECT_LE(max_abs_diff(h.slice(1, 4), base.slice(1, 4)), 1e-6);
  EXPECT_GT(max_abs_diff(h.slice(1, 0, 4), base.slice(1, 0, 4)), 1e-3);
}

TEST(TransformerTest, Seq2SeqSourceIgnoresTarget) {
  auto model = tiny_model(3);
  torch::NoGradGuard no_grad;
  // Two examples: source 5 / target 4, and source 3 / target 2 (+ padding), T = 9.
  const std::vector<int64_t> src = {5, 3}, tgt = {4, 2};
  const int64_t T = 9;
  auto mask = seq2seq_mask(src, tgt, T);
  auto ids = random_ids(2, T);
  auto types = torch::zeros({2, T}, torch::kLong);
  types[0].slice(0, 5, 9).fill_(1);
  types[1].slice(0, 3, 5).fill_(1);
  ids[1].slice(0, 5).fill_(0);  // padding
  auto base = model->forward(ids, types, mask).last_hidden_state;
  auto changed = ids.clone();
  changed[0].slice(0, 5, 9) = random_ids(1, 4)[0];
  changed[1].slice(0, 3, 5) = random_ids(1, 2)[0];
  auto h = model->forward(changed, types, mask).last_hidden_state;
  EXPECT_LE(max_abs_diff(h[0].slice(0, 0, 5), base[0].slice(0, 0, 5)), 1e-6);
  EXPECT_LE(max_abs_diff(h[1].slice(0, 0, 3), base[1].slice(0, 0, 3)), 1e-6);
  EXPECT_GT(max_abs_diff(h[0].slice(0, 5, 9), base[0].slice(0, 5, 9)), 1e-3);
  // The target does see the source: changing the source changes target outputs.
  auto src_changed = ids.clone();
  src_changed[0][2] = (ids[0][2].item<int64_t>() + 7) % 128;
  auto h2 = model->forward(src_changed, types, mask).last_hidden_state;
  EXPECT_GT(max_abs_diff(h2[0].slice(0, 5, 9), base[0].slice(0, 5, 9)), 1e-3);
  // Padding is invisible to real positions: changing pad ids changes no real output.
  auto pad_changed = ids.clone();
  pad_changed[1].slice(0, 5).fill_(17);
  auto h3 = model->forward(pad_changed, types, mask).last_hidden_state;
  EXPECT_LE(max_abs_diff(h3[1].slice(0, 0, 5), base[1].slice(0, 0, 5)), 1e-6);
}

// ---- incremental decoding ----

// Left-to-right generation one token at a time equals the full forward pass.
TEST(TransformerTest, CachedStepsEqualFullForward) {
  auto model = tiny_model(4);
  torch::NoGradGuard no_grad;
  const int64_t S = 5, N = 4, T = S + N;
  auto ids = random_ids(2, T);
  auto types =
      torch::cat({torch::zeros({2, S}, torch::kLong), torch::ones({2, N}, torch::kLong)}, 1);
  auto full = model->forward(ids, types, build_mask(MaskKind::kSeq2Seq, {T, T}, T, {S, S}))
                  .last_hidden_state;
  KVCache cache;
  // Step 0: the whole source, bidirectional within itself.
  auto s0 = model->forward_step(ids.slice(1, 0, S), types.slice(1, 0, S), {},
                                torch::ones({2, S, S}, torch::kLong), cache);
  EXPECT_LE(max_abs_diff(s0.hidden, full.slice(1, 0, S)), 1e-5);
  append_to_cache(cache, s0, {0, 1, 2, 3, 4});
  EXPECT_EQ(cache.length(), S);
  for (int64_t t = S; t < T; ++t) {
    auto st = model->forward_step(ids.slice(1, t, t + 1), types.slice(1, t, t + 1),
                                  torch::full({2, 1}, t, torch::kLong),
                                  torch::ones({2, 1, t + 1}, torch::kLong), cache);
    EXPECT_LE(max_abs_diff(st.hidden, full.slice(1, t, t + 1)), 1e-5) << "t=" << t;
    append_to_cache(cache, st, {0});
  }
  EXPECT_EQ(cache.length(), T);
  ASSERT_EQ(cache.k.size(), 2u);
  EXPECT_EQ(cache.k[0].sizes(), (std::vector<int64_t>{2, 4, T, 8}));
}

// UniLM decoding: feed [previous token, MASK], cache only the previous token; the MASK's output
// equals the full pass over [source, y1..yk, MASK] with the seq2seq mask.
TEST(TransformerTest, UnilmMaskStepEqualsFullForward) {
  auto model = tiny_model(5);
  torch::NoGradGuard no_grad;
  const int64_t S = 4, kMaskId = 3;
  auto src = random_ids(1, S);
  auto ys = random_ids(1, 3);
  KVCache cache;
  auto s0 = model->forward_step(src, {}, {}, {}, cache);
  append_to_cache(cache, s0, {0, 1, 2, 3});
  for (int64_t k = 1; k <= 3; ++k) {
    // Full: [src, y1..yk, MASK], T = S + k + 1.
    const int64_t T = S + k + 1;
    auto seq = torch::cat({src, ys.slice(1, 0, k), torch::full({1, 1}, kMaskId, torch::kLong)}, 1);
    auto types =
        torch::cat({torch::zeros({1, S}, torch::kLong), torch::ones({1, k + 1}, torch::kLong)}, 1);
    auto full = model->forward(seq, types, build_mask(MaskKind::kSeq2Seq, {T}, T, {S}));
    // Step: [y_k, MASK] at positions T-2, T-1; y_k sees cache + itself, MASK sees everything.
    const int64_t Tc = cache.length();
    ASSERT_EQ(Tc, T - 2);
    auto step_ids =
        torch::cat({ys.slice(1, k - 1, k), torch::full({1, 1}, kMaskId, torch::kLong)}, 1);
    auto mask = torch::ones({1, 2, Tc + 2}, torch::kLong);
    mask[0][0][Tc + 1] = 0;
    auto st = model->forward_step(step_ids, torch::ones({1, 2}, torch::kLong),
                                  torch::tensor({{T - 2, T - 1}}, torch::kLong), mask, cache);
    EXPECT_LE(max_abs_diff(st.hidden.select(1, 1), full.last_hidden_state.select(1, T - 1)), 1e-5);
    EXPECT_LE(max_abs_diff(st.hidden.select(1, 0), full.last_hidden_state.select(1, T - 2)), 1e-5);
    EXPECT_LE(max_abs_diff(model->mlm_logits(st.hidden.slice(1, 1, 2)),
                           model->mlm_logits(full.last_hidden_state.slice(1, T - 1, T))),
              1e-4);
    append_to_cache(cache, st, {0});  // keep y_k, drop the MASK
  }
}

TEST(TransformerTest, ReorderCacheFollowsBeams) {
  auto model = tiny_model(6);
  torch::NoGradGuard no_grad;
  auto ids = random_ids(3, 4);
  KVCache cache;
  // Left-to-right context, so that the cached positions never see the next token.
  append_to_cache(
      cache, model->forward_step(ids, {}, {}, build_mask(MaskKind::kLeftToRight, {4, 4, 4}), cache),
      {0, 1, 2, 3});
  auto next = random_ids(3, 1);
  auto beam = torch::tensor({2, 2, 0}, torch::kLong);
  KVCache reordered = cache;
  reorder_cache(reordered, beam);
  auto a = model->forward_step(next, {}, {}, {}, reordered).hidden;
  auto full = model
                  ->forward(torch::cat({ids.index_select(0, beam), next}, 1), {},
                            build_mask(MaskKind::kLeftToRight, {5, 5, 5}))
                  .last_hidden_state;
  EXPECT_LE(max_abs_diff(a.squeeze(1), full.select(1, 4)), 1e-5);
  EXPECT_THROW(model->forward_step(next.slice(0, 0, 2), {}, {}, {}, cache), InputError);
}

// A preallocated cache (reserve_cache) gives the concatenating cache's numbers exactly, through
// UniLM-style [token, MASK] steps, in-place reorders (rows kept, moved, duplicated) and growth.
TEST(TransformerTest, PreallocatedCacheEqualsConcatenatingCache) {
  auto model = tiny_model(7);
  torch::NoGradGuard no_grad;
  const int64_t B = 4, S = 5, kMaskId = 3;
  auto src = random_ids(B, S);
  KVCache plain;
  append_to_cache(plain, model->forward_step(src, {}, {}, {}, plain), {0, 1, 2, 3, 4});
  KVCache pre = plain;
  reserve_cache(pre, S + 1);
  EXPECT_EQ(pre.length(), S);
  EXPECT_EQ(pre.capacity(), S + 64);
  const std::vector<std::vector<int64_t>> beams = {
      {0, 1, 2, 3}, {1, 1, 0, 3}, {3, 2, 1, 0}, {2, 2, 2, 2}};
  for (int64_t t = 0; t < 40; ++t) {
    if (t == 20) reserve_cache(pre, pre.capacity() + 1);  // growth keeps the cached part
    if (t > 0) {
      auto beam = torch::tensor(beams[t % beams.size()], torch::kLong);
      reorder_cache(plain, beam);
      reorder_cache(pre, beam);
    }
    reserve_cache(pre, pre.length() + 2);
    const int64_t Tc = plain.length();
    ASSERT_EQ(pre.length(), Tc);
    auto step_ids = torch::cat({random_ids(B, 1), torch::full({B, 1}, kMaskId, torch::kLong)}, 1);
    auto mask = torch::ones({B, 2, Tc + 2}, torch::kLong);
    mask.select(1, 0).select(1, Tc + 1).zero_();
    auto pos = torch::tensor({Tc, Tc + 1}, torch::kLong).unsqueeze(0).expand({B, 2}).contiguous();
    auto a = model->forward_step(step_ids, {}, pos, mask, plain);
    auto b = model->forward_step(step_ids, {}, pos, mask, pre);
    ASSERT_TRUE(torch::equal(a.hidden, b.hidden)) << "t=" << t;
    append_to_cache(plain, a, {0});
    append_to_cache(pre, b, {0});
  }
  EXPECT_EQ(pre.length(), S + 40);
  EXPECT_EQ(pre.capacity(), 2 * (S + 64));
  for (size_t l = 0; l < plain.k.size(); ++l) {
    EXPECT_TRUE(torch::equal(plain.k[l], pre.k[l].narrow(2, 0, pre.length())));
    EXPECT_TRUE(torch::equal(plain.v[l], pre.v[l].narrow(2, 0, pre.length())));
  }
  // A batch of another size (examples finished) is gathered into new buffers.
  auto fewer = torch::tensor({3, 0}, torch::kLong);
  reorder_cache(plain, fewer);
  reorder_cache(pre, fewer);
  EXPECT_TRUE(torch::equal(plain.k[0], pre.k[0].narrow(2, 0, pre.length())));
  EXPECT_THROW(
      model->forward_step(random_ids(2, 200), {}, torch::zeros({2, 200}, torch::kLong), {}, pre),
      std::out_of_range);
}

// ---- heads, dropout, errors ----

TEST(TransformerTest, MlmDecoderIsTiedToWordEmbeddings) {
  auto model = tiny_model(7);
  torch::NoGradGuard no_grad;
  auto h = torch::randn({2, 3, 32});
  auto logits = model->mlm_logits(h);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 3, 128}));
  auto t = model->cls->predictions->transform->forward(h);
  auto expected = torch::matmul(t, model->bert->embeddings->word_embeddings->weight.t()) +
                  model->cls->predictions->bias;
  EXPECT_LE(max_abs_diff(logits, expected), 1e-4);
  model->bert->embeddings->word_embeddings->weight.mul_(2.0);
  EXPECT_GT(max_abs_diff(model->mlm_logits(h), logits), 1e-2);
}

TEST(TransformerTest, ClassificationAndSpanHeads) {
  auto model = tiny_model(8, {.pooler = true, .mlm = true, .num_labels = 3, .span = true});
  torch::NoGradGuard no_grad;
  auto ids = random_ids(2, 6);
  auto out = model->forward(ids, {}, padding_mask({6, 4}));
  ASSERT_EQ(out.pooler_output.sizes(), (std::vector<int64_t>{2, 32}));
  EXPECT_LE(
      max_abs_diff(out.pooler_output,
                   torch::tanh(model->bert->pooler->dense(out.last_hidden_state.select(1, 0)))),
      1e-6);
  auto cls = model->classify(out.pooler_output);
  EXPECT_EQ(cls.sizes(), (std::vector<int64_t>{2, 3}));
  auto [start, end] = model->span_logits(out.last_hidden_state);
  EXPECT_EQ(start.sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(end.sizes(), (std::vector<int64_t>{2, 6}));
  auto both = model->qa_outputs(out.last_hidden_state);
  EXPECT_LE(max_abs_diff(end, both.select(-1, 1)), 1e-6);
  UnilmModel bare(BertConfig::tiny());
  EXPECT_THROW(bare->classify(out.pooler_output), InputError);
  EXPECT_THROW(bare->span_logits(out.last_hidden_state), InputError);
}

TEST(TransformerTest, DropoutOnlyInTrainMode) {
  auto model = tiny_model(9);
  auto ids = random_ids(2, 7);
  torch::NoGradGuard no_grad;
  auto a = model->forward(ids).last_hidden_state;
  auto b = model->forward(ids).last_hidden_state;
  EXPECT_TRUE(torch::equal(a, b));
  model->train();
  auto c = model->forward(ids).last_hidden_state;
  EXPECT_GT(max_abs_diff(a, c), 1e-3);
  model->eval();
  EXPECT_TRUE(torch::equal(model->forward(ids).last_hidden_state, a));
}

TEST(TransformerTest, BackwardReachesEveryParameter) {
  auto model =
      tiny_model(11, UnilmHeads{.pooler = true, .mlm = true, .num_labels = 2, .span = true});
  model->train();
  auto ids = random_ids(2, 6);
  auto out = model->forward(ids, {}, padding_mask({6, 5}));
  auto [start, end] = model->span_logits(out.last_hidden_state);
  auto loss = model->mlm_logits(out.last_hidden_state).logsumexp(-1).mean() +
              model->classify(out.pooler_output).sum() + start.sum() + end.sum();
  loss.backward();
  for (const auto& p : model->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << p.key();
  }
  auto g = model->bert->embeddings->word_embeddings->weight.grad();
  // The tied decoder gives every vocabulary row a gradient, not only the rows of input tokens.
  EXPECT_GT(g[1].abs().sum().item<double>(), 0.0);
}

TEST(TransformerTest, HfInitialisation) {
  torch::manual_seed(0);
  auto cfg = BertConfig::tiny();
  UnilmModel model(cfg, UnilmHeads{.num_labels = 2});
  auto params = model->named_parameters();
  EXPECT_TRUE(torch::equal(params["bert.embeddings.LayerNorm.weight"], torch::ones({32})));
  EXPECT_TRUE(torch::equal(params["cls.predictions.bias"], torch::zeros({128})));
  EXPECT_TRUE(
      torch::equal(params["bert.embeddings.word_embeddings.weight"][0], torch::zeros({32})));
  const double sd = params["bert.encoder.layer.0.intermediate.dense.weight"].std().item<double>();
  EXPECT_NEAR(sd, 0.02, 0.004);
}

TEST(TransformerTest, RejectsBadInputs) {
  auto model = tiny_model(10);
  torch::NoGradGuard no_grad;
  auto ids = random_ids(2, 5);
  EXPECT_THROW(model->forward(ids + 200), InputError);                                  // > vocab
  EXPECT_THROW(model->forward(ids, torch::full({2, 5}, 2, torch::kLong)), InputError);  // type 2
  EXPECT_THROW(model->forward(ids, {}, torch::ones({2, 4}, torch::kLong)), InputError);
  EXPECT_THROW(model->forward(ids, {}, torch::ones({2, 5, 4}, torch::kLong)), InputError);
  EXPECT_THROW(model->forward(random_ids(1, 65)), InputError);  // > max positions
  EXPECT_THROW(model->forward(ids.unsqueeze(0)), InputError);
}

}  // namespace
}  // namespace unieval::models
