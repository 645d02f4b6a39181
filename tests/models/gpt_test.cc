// GPT-1 (models/nn/gpt.h): parity with HF transformers v4.30.2 on ../shared/golden/hf_gpt (1e-4),
// the tie and buffers of HF checkpoints, and a tiny model saved in HF's Conv1D layout, reloaded
// and compared with a reference computation written out op by op in this file.
#include "models/nn/gpt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "core/io.h"
#include "models/io/safetensors.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

void flatten(const nlohmann::json& j, std::vector<float>& out) {
  if (j.is_array()) {
    for (const auto& x : j) flatten(x, out);
  } else {
    out.push_back(static_cast<float>(j.get<double>()));
  }
}

torch::Tensor float_tensor(const nlohmann::json& o) {
  std::vector<float> v;
  flatten(o["data"], v);
  return torch::tensor(v).view(o["shape"].get<std::vector<int64_t>>());
}

torch::Tensor long_tensor(const nlohmann::json& j) {
  if (j.is_null()) return {};
  std::vector<float> v;
  flatten(j, v);
  std::vector<int64_t> shape;
  for (const nlohmann::json* p = &j; p->is_array(); p = &(*p)[0])
    shape.push_back(static_cast<int64_t>(p->size()));
  std::vector<int64_t> ints(v.begin(), v.end());
  return torch::tensor(ints, torch::kLong).view(shape);
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  if (a.sizes() != b.sizes()) return 1e9;
  return (a - b).abs().max().item<double>();
}

void check_fixture(const std::string& name, const std::string& weights) {
  const auto dir = shared_dir() / "golden/hf_gpt" / name;
  const auto cases = nlohmann::json::parse(core::read_file((dir / "cases.json").string()));
  GptModel model(GptConfig::from_json_file((dir / "config.json").string()),
                 GptHeads{.multiple_choice = true});
  LoadReport r = load_gpt_weights(model, (dir / weights).string());
  EXPECT_TRUE(r.unexpected_keys.empty()) << r.summary();
  ASSERT_EQ(r.missing_keys, (std::vector<std::string>{"multiple_choice_head.summary.weight",
                                                      "multiple_choice_head.summary.bias"}))
      << r.summary();
  EXPECT_TRUE(r.tied_conflicts.empty());
  const size_t ignored = 1 + model->config().n_layer;  // position_ids + one causal buffer per block
  EXPECT_EQ(r.ignored_keys.size(), ignored);
  LoadReport mc = load_gpt_weights(model, (dir / "mc_head.safetensors").string());
  EXPECT_EQ(mc.loaded, 2u);
  model->eval();
  torch::NoGradGuard ng;
  int checked = 0;
  for (const auto& c : cases["cases"]) {
    const auto& in = c["inputs"];
    const auto& out = c["outputs"];
    torch::Tensor ids = long_tensor(in["input_ids"]);
    SCOPED_TRACE(name + "/" + c["name"].get<std::string>());
    if (ids.dim() == 3) {
      const int64_t B = ids.size(0), C = ids.size(1), T = ids.size(2);
      GptOutput o = model->forward(ids.view({B * C, T}));
      EXPECT_LE(
          max_diff(o.last_hidden_state.view({B, C, T, -1}), float_tensor(out["last_hidden_state"])),
          1e-4);
      torch::Tensor mc_ids = long_tensor(in["mc_token_ids"]).view({B * C});
      torch::Tensor logits =
          model->choice_score(GptModelImpl::gather_positions(o.last_hidden_state, mc_ids))
              .view({B, C});
      EXPECT_LE(max_diff(logits, float_tensor(out["mc_logits"])), 1e-4);
    } else {
      GptOutput o =
          model->forward(ids, long_tensor(in["attention_mask"]), long_tensor(in["token_type_ids"]),
                         long_tensor(in["position_ids"]), /*output_hidden_states=*/true);
      EXPECT_LE(max_diff(o.last_hidden_state, float_tensor(out["last_hidden_state"])), 1e-4);
      EXPECT_LE(max_diff(torch::stack(o.hidden_states), float_tensor(out["hidden_states"])), 1e-4);
      EXPECT_LE(max_diff(model->lm_logits(o.last_hidden_state), float_tensor(out["logits"])), 2e-4);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(GptParityTest, FixtureAMatchesHf) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_gpt/A_h32_l2/cases.json");
  check_fixture("A_h32_l2", "model.safetensors");
}

TEST(GptParityTest, FixtureBMatchesHf) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_gpt/B_h48_l3/cases.json");
  check_fixture("B_h48_l3", "model.safetensors");
}

TEST(GptParityTest, TiedDroppedCheckpointTiesTheHead) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_gpt/A_h32_l2/model.tied_dropped.safetensors");
  check_fixture("A_h32_l2", "model.tied_dropped.safetensors");
  LoadReport r;
  GptModel m = load_gpt_checkpoint((shared_dir() / "golden/hf_gpt/A_h32_l2").string(), {}, &r);
  EXPECT_TRUE(r.complete()) << r.summary();
  EXPECT_EQ(r.tied_keys, (std::vector<std::string>{"lm_head.weight"}));
}

// ---- a tiny model against an op-by-op reference ----

// Post-LN GPT written out from the paper / HF layout with plain tensor ops (no module code).
torch::Tensor reference_forward(const SafetensorsFile& st, const GptConfig& cfg,
                                const torch::Tensor& ids, const torch::Tensor& mask) {
  auto W = [&](const std::string& n) { return st.tensor(n).to(torch::kDouble); };
  const int64_t B = ids.size(0), T = ids.size(1), E = cfg.n_embd, H = cfg.n_head, d = E / H;
  torch::Tensor x =
      W("transformer.tokens_embed.weight").index_select(0, ids.view(-1)).view({B, T, E}) +
      W("transformer.positions_embed.weight").narrow(0, 0, T).unsqueeze(0);
  auto ln = [&](const torch::Tensor& v, const std::string& p) {
    torch::Tensor mu = v.mean(-1, true), var = (v - mu).pow(2).mean(-1, true);
    return (v - mu) / (var + cfg.layer_norm_epsilon).sqrt() * W(p + ".weight") + W(p + ".bias");
  };
  auto conv = [&](const torch::Tensor& v, const std::string& p) {
    return v.matmul(W(p + ".weight")) + W(p + ".bias");
  };
  auto gelu = [](const torch::Tensor& v) {
    return 0.5 * v * (1 + torch::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v.pow(3))));
  };
  for (int64_t l = 0; l < cfg.n_layer; ++l) {
    const std::string p = "transformer.h." + std::to_string(l);
    torch::Tensor qkv = conv(x, p + ".attn.c_attn");
    torch::Tensor out = torch::zeros({B, T, E}, torch::kDouble);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i) {
          torch::Tensor q = qkv[b][i].narrow(0, h * d, d);
          std::vector<double> s;
          std::vector<int64_t> js;
          for (int64_t j = 0; j <= i; ++j) {
            if (mask[b][j].item<int64_t>() == 0) continue;
            s.push_back((q * qkv[b][j].narrow(0, E + h * d, d)).sum().item<double>() /
                        std::sqrt(double(d)));
            js.push_back(j);
          }
          const double mx = *std::max_element(s.begin(), s.end());
          double z = 0;
          for (double& v : s) z += (v = std::exp(v - mx));
          torch::Tensor acc = torch::zeros({d}, torch::kDouble);
          for (size_t k = 0; k < js.size(); ++k)
            acc += s[k] / z * qkv[b][js[k]].narrow(0, 2 * E + h * d, d);
          out[b][i].narrow(0, h * d, d).copy_(acc);
        }
    torch::Tensor n = ln(x + conv(out, p + ".attn.c_proj"), p + ".ln_1");
    x = ln(n + conv(gelu(conv(n, p + ".mlp.c_fc")), p + ".mlp.c_proj"), p + ".ln_2");
  }
  return x;
}

TEST(GptTinyTest, SavesHfConv1dLayoutReloadsAndMatchesReference) {
  torch::manual_seed(7);
  GptConfig cfg = GptConfig::tiny(50);
  cfg.n_layer = 2;
  GptModel model(cfg, GptHeads{.num_labels = 3, .multiple_choice = true});
  {
    // Non-trivial LayerNorm affines and biases, so that a missing one shows.
    torch::NoGradGuard g;
    for (auto& p : model->named_parameters())
      if (p.key().find("bias") != std::string::npos || p.key().find(".ln_") != std::string::npos)
        p.value().add_(torch::randn_like(p.value()) * 0.1);
  }
  model->eval();
  TempDir tmp;
  const std::string dir = (tmp.path() / "ckpt").string();
  save_gpt_checkpoint(model, dir, /*store_lm_head=*/true);
  SafetensorsFile st = SafetensorsFile::open(dir + "/model.safetensors");
  // HF Conv1D layout: [in, out].
  EXPECT_EQ(st.find("transformer.h.0.attn.c_attn.weight")->shape, (std::vector<int64_t>{32, 96}));
  EXPECT_EQ(st.find("transformer.h.0.mlp.c_fc.weight")->shape, (std::vector<int64_t>{32, 128}));
  EXPECT_EQ(st.find("transformer.h.0.mlp.c_proj.weight")->shape, (std::vector<int64_t>{128, 32}));
  EXPECT_EQ(st.find("multiple_choice_head.summary.weight")->shape, (std::vector<int64_t>{1, 32}));
  ASSERT_NE(st.find("lm_head.weight"), nullptr);
  EXPECT_TRUE(is_gpt_checkpoint(dir));

  LoadReport r;
  GptModel back = load_gpt_checkpoint(dir, GptHeads{.num_labels = 3, .multiple_choice = true}, &r);
  EXPECT_TRUE(r.complete()) << r.summary();
  torch::Tensor ids = torch::randint(0, 50, {2, 7}, torch::kLong);
  torch::Tensor mask = torch::ones({2, 7}, torch::kLong);
  mask[1].narrow(0, 5, 2).zero_();
  torch::NoGradGuard ng;
  torch::Tensor a = model->forward(ids, mask).last_hidden_state;
  torch::Tensor b = back->forward(ids, mask).last_hidden_state;
  EXPECT_TRUE(torch::equal(a, b));
  torch::Tensor ref = reference_forward(st, cfg, ids, mask).to(torch::kFloat);
  // Real positions (the reference skips pad rows' keys like the mask does; pad queries too).
  EXPECT_LE(max_diff(a[0], ref[0]), 1e-4);
  EXPECT_LE(max_diff(a[1].narrow(0, 0, 5), ref[1].narrow(0, 0, 5)), 1e-4);
  EXPECT_LE(max_diff(a[1], ref[1]), 1e-4);  // pad queries attend to the real keys only
  // The LM head is the tied token matrix.
  EXPECT_LE(max_diff(model->lm_logits(a), a.matmul(model->transformer->tokens_embed->weight.t())),
            0.0);
}

// pytorch_model.bin (the zip torch.save writes) of a bare OpenAIGPTModel: keys without the
// "transformer." prefix, the HF 4.30 buffers included, no lm_head (the tie supplies it).
TEST(GptTinyTest, BareModelPytorchBinLoadsLikeItsSafetensorsTwin) {
  torch::manual_seed(9);
  GptModel model(GptConfig::tiny(40));
  model->eval();
  TempDir tmp;
  const auto dir = tmp.path() / "bin";
  std::filesystem::create_directories(dir);
  c10::Dict<std::string, at::Tensor> dict;
  const std::string prefix = "transformer.";
  for (const auto& item : model->named_parameters()) {
    const std::string k =
        item.key().rfind(prefix, 0) == 0 ? item.key().substr(prefix.size()) : item.key();
    dict.insert(k, item.value().detach().clone());
  }
  dict.insert("position_ids", torch::arange(64, torch::kLong));
  for (int l = 0; l < 2; ++l)
    dict.insert("h." + std::to_string(l) + ".attn.bias", torch::ones({1, 1, 64, 64}).tril());
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  {
    std::ofstream out(dir / "pytorch_model.bin", std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  core::write_file_atomic((dir / "config.json").string(), model->config().to_json().dump());
  LoadReport r;
  GptModel back = load_gpt_checkpoint(dir.string(), {}, &r);
  EXPECT_TRUE(r.complete()) << r.summary();
  EXPECT_EQ(r.ignored_keys.size(), 3u);
  EXPECT_FALSE(r.renamed_keys.empty());
  torch::NoGradGuard ng;
  torch::Tensor ids = torch::randint(0, 40, {2, 9}, torch::kLong);
  EXPECT_TRUE(
      torch::equal(model->forward(ids).last_hidden_state, back->forward(ids).last_hidden_state));
  // Strict loading names what does not fit: a checkpoint with a stray key.
  dict.insert("h.0.mystery", torch::zeros({1}));
  const std::vector<char> more = torch::pickle_save(c10::IValue(dict));
  {
    std::ofstream out(dir / "pytorch_model.bin", std::ios::binary);
    out.write(more.data(), static_cast<std::streamsize>(more.size()));
  }
  LoadReport r2;
  load_gpt_checkpoint(dir.string(), {}, &r2);
  EXPECT_EQ(r2.unexpected_keys, (std::vector<std::string>{"h.0.mystery"}));
  EXPECT_THROW(load_gpt_weights(back, (dir / "pytorch_model.bin").string(), /*strict=*/true),
               InputError);
}

TEST(GptTinyTest, ResizeKeepsRowsAndBadInputsAreInputErrors) {
  torch::manual_seed(3);
  GptModel model(GptConfig::tiny(20));
  torch::Tensor before = model->transformer->tokens_embed->weight.clone();
  model->resize_token_embeddings(23);
  EXPECT_EQ(model->config().vocab_size, 23);
  EXPECT_TRUE(torch::equal(model->transformer->tokens_embed->weight.narrow(0, 0, 20), before));
  int n = 0;
  for (auto& p : model->named_parameters()) n += p.key() == "transformer.tokens_embed.weight";
  EXPECT_EQ(n, 1);
  EXPECT_THROW(model->forward(torch::full({1, 3}, 23, torch::kLong)), InputError);
  EXPECT_THROW(model->forward(torch::zeros({1, 65}, torch::kLong)), InputError);
  EXPECT_THROW(model->resize_token_embeddings(10), InputError);
  nlohmann::json bad = GptConfig::tiny().to_json();
  bad["n_head"] = 5;
  EXPECT_THROW(GptConfig::from_json(bad), InputError);
  bad = GptConfig::tiny().to_json();
  bad["afn"] = "tanh";
  EXPECT_THROW(GptConfig::from_json(bad), InputError);
}

}  // namespace
}  // namespace unieval::models
