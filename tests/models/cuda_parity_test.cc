// CUDA against the CPU (#40): the same seeded UniLM and GPT (3 layers, hidden 64, 4 heads,
// vocabulary 512) on both devices. fp32, random weights: the forward, the loss, every gradient and
// one AdamW step agree within 1e-5 relative (Frobenius norm of the difference over the norm of the
// CPU value, TF32 off; the attention key biases, whose exact gradient is zero, are checked to be
// zero up to rounding instead). Trained weights (2,000 steps of a chain task, so that the next-token
// distributions are peaked as a real model's are, not the near-ties of random weights): beam
// search returns the same tokens on 50 inputs; bf16 autocast keeps the forward within 3e-2
// relative and the same top-1 token on >= 98% of greedy steps (both devices scored along the
// CPU's path). Skipped without a GPU;
// UNIEVAL_PARITY_DEVICE=cpu runs every comparison CPU against CPU, a dry run of this file's own
// code that proves nothing about CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "models/decoding/search.h"
#include "models/decoding/search_gpt.h"
#include "models/decoding/search_unilm.h"
#include "models/nn/device.h"
#include "models/nn/gpt.h"
#include "models/nn/torch_compat.h"
#include "models/nn/transformer.h"
#include "models/training/gpt_finetune.h"
#include "models/training/optim.h"
#include "models/training/seq2seq_data.h"
#include "models/training/trainer.h"
#include "tests/models/tiny_ids.h"

// Its own namespace: the unity build puts the model test files of a folder into one program.
namespace unieval::models::cuda_parity_test {
namespace {

constexpr double kFp32Tolerance = 1e-5;
constexpr double kBf16Tolerance = 3e-2;
constexpr double kBf16TopOneAgreement = 0.98;
constexpr int64_t kVocab = 512;
constexpr int kInputs = 50;
constexpr int kTrainSteps = 2000;

// The device compared with the CPU: cuda:0, or the CPU itself under UNIEVAL_PARITY_DEVICE=cpu.
bool dry_run() {
  const char* v = std::getenv("UNIEVAL_PARITY_DEVICE");
  return v != nullptr && std::string(v) == "cpu";
}
bool have_device() { return dry_run() || torch::cuda::is_available(); }
torch::Device other() {
  return dry_run() ? torch::Device(torch::kCPU) : torch::Device(torch::kCUDA, 0);
}
#define SKIP_WITHOUT_DEVICE()                                                    \
  if (!have_device())                                                            \
  GTEST_SKIP() << "no CUDA device here (ci/gpu/checks runs this on a lent GPU; " \
                  "UNIEVAL_PARITY_DEVICE=cpu dry-runs it on the CPU)"

// ||a - ref|| / ||ref|| in float64 on the CPU (the absolute norm when ref is zero).
double rel(const torch::Tensor& a, const torch::Tensor& ref) {
  const auto x = a.detach().to(torch::kCPU, torch::kDouble),
             r = ref.detach().to(torch::kCPU, torch::kDouble);
  const double num = (x - r).norm().item<double>(), den = r.norm().item<double>();
  return den == 0.0 ? num : num / den;
}

// A copy of `src`'s parameters and buffers in a second module of the same shape, moved to dev.
template <typename M>
void copy_into(M& dst, M& src, const torch::Device& dev) {
  torch::NoGradGuard g;
  auto sp = src->named_parameters(), dp = dst->named_parameters();
  for (const auto& item : sp) dp[item.key()].copy_(item.value());
  auto sb = src->named_buffers(), db = dst->named_buffers();
  for (const auto& item : sb) db[item.key()].copy_(item.value());
  dst->to(dev);
}

// Keeps fp32 matmuls exact on the GPU for the test (TF32 rounds to 10 mantissa bits).
struct NoTf32 {
  NoTf32() { compat::set_allow_tf32(false); }
};

// Trains `t` (init_weights done) on the compared device for kTrainSteps AdamW steps (lr 2e-3) of
// loss_at(step), then copies it into the CPU model `m`, in eval mode.
template <typename M, typename LossAt>
M train_then_copy(M t, M m, LossAt loss_at, const char* name) {
  t->to(other());
  t->train();
  OptimizerOptions o;
  o.lr = 2e-3;
  Optimizer opt(named_pairs(t->named_parameters()), o);
  double loss = 0.0;
  for (int s = 0; s < kTrainSteps; ++s) {
    opt.zero_grad();
    torch::Tensor l = loss_at(t, s);
    l.backward();
    opt.step(o.lr);
    if (s + 1 == kTrainSteps) loss = l.template item<double>();
  }
  std::cout << "[ parity ] " << name << " trained " << kTrainSteps << " steps, last loss " << loss
            << "\n";
  copy_into(m, t, torch::kCPU);
  m->eval();
  return m;
}

// After backward() on both models: every gradient, then the parameters after one AdamW step, agree
// within kFp32Tolerance. zero_exact(name): a parameter whose exact gradient is zero (both devices
// hold rounding noise there), checked to be zero up to rounding instead.
template <typename M, typename ZeroExact>
void expect_gradients_and_adamw_step_match(M& cpu, M& dev, ZeroExact zero_exact, int min_compared) {
  auto pc = cpu->named_parameters(), pd = dev->named_parameters();
  double total = 0.0;
  for (const auto& item : pc)
    if (item.value().grad().defined())
      total += item.value().grad().pow(2).sum().template item<double>();
  total = std::sqrt(total);
  int compared = 0;
  for (const auto& item : pc) {
    const torch::Tensor gc = item.value().grad(), gd = pd[item.key()].grad();
    ASSERT_EQ(gc.defined(), gd.defined()) << item.key();
    if (!gc.defined()) continue;
    if (zero_exact(item.key())) {
      EXPECT_LE(gc.norm().template item<double>(), 1e-6 * total) << item.key();
      EXPECT_LE(gd.norm().template item<double>(), 1e-6 * total) << item.key();
      continue;
    }
    EXPECT_LE(rel(gd, gc), kFp32Tolerance) << "gradient of " << item.key();
    ++compared;
  }
  EXPECT_GE(compared, min_compared) << "every layer's parameters have gradients";
  OptimizerOptions o;
  o.lr = 1e-3;
  o.weight_decay = 0.01;
  Optimizer oc(named_pairs(cpu->named_parameters()), o),
      od(named_pairs(dev->named_parameters()), o);
  oc.step(o.lr);
  od.step(o.lr);
  for (const auto& item : pc) {
    if (zero_exact(item.key())) {  // zero-initialised; a noise gradient moves it far less than lr
      EXPECT_LE(pd[item.key()].abs().max().template item<double>(), 1e-2 * o.lr) << item.key();
      EXPECT_LE(item.value().abs().max().template item<double>(), 1e-2 * o.lr) << item.key();
      continue;
    }
    EXPECT_LE(rel(pd[item.key()], item.value()), kFp32Tolerance) << "after AdamW: " << item.key();
  }
}

// ---- UniLM ----

BertConfig unilm_config() {
  BertConfig c = BertConfig::tiny(kVocab, 0.0);
  c.hidden_size = 64;
  c.num_hidden_layers = 3;
  c.num_attention_heads = 4;
  c.intermediate_size = 256;
  c.max_position_embeddings = 128;
  return c;
}

// The successor of each regular token in the chain tasks: a fixed permutation of ids 5..20.
int64_t successor(int64_t t) { return 5 + (t - 5) * 7 % 16; }

// Chain pairs: a source of 3-8 of 16 regular tokens; the target starts with the source's first
// token and each next token is the successor of the one before it (3-8 tokens). Learnable from
// the previous position alone, so a small model's distributions become peaked in a few thousand
// steps (a copy task stayed at the unigram loss there).
std::vector<Seq2SeqExample> chain_pairs(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> tok(5, 20), len(3, 8);
  std::vector<Seq2SeqExample> out(static_cast<size_t>(n));
  for (auto& ex : out) {
    const int64_t k = len(rng);
    for (int64_t i = 0; i < k; ++i) ex.src.push_back(tok(rng));
    ex.tgt.push_back(ex.src.front());
    const int64_t m = len(rng);
    while (static_cast<int64_t>(ex.tgt.size()) < m) ex.tgt.push_back(successor(ex.tgt.back()));
  }
  return out;
}

struct UnilmLoss {
  torch::Tensor hidden, loss;
};

UnilmLoss unilm_loss(UnilmModel& m, const TrainBatch& b, const torch::Device& dev) {
  BertOutput out =
      m->forward(b.input_ids.to(dev), b.token_type_ids.to(dev), b.attention_mask.to(dev));
  const int64_t H = out.last_hidden_state.size(-1);
  torch::Tensor h = out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index.to(dev));
  auto [loss, nll] = label_smoothed_nll(m->mlm_logits(h), b.labels.to(dev), 0.1);
  return {out.last_hidden_state, loss};
}

TrainBatch unilm_batch(uint64_t seed) {
  const auto pairs = chain_pairs(32, seed);
  std::vector<size_t> idx(pairs.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::mt19937_64 rng(seed);
  Seq2SeqDataOptions o;
  o.mask_prob = 0.3;
  return make_train_batch(pairs, idx, o, testing::tiny_special_ids(kVocab), rng);
}

// A UniLM trained (on the compared device, fast there) for kTrainSteps seeded steps of the chain task: peaked distributions,
// so that the search comparisons are about the devices and not about near-ties of random weights.
UnilmModel& trained_unilm() {
  static UnilmModel model = [] {
    torch::manual_seed(7);
    UnilmModel t(unilm_config(), UnilmHeads{});
    t->init_weights();
    return train_then_copy(
        t, UnilmModel(unilm_config(), UnilmHeads{}),
        [](UnilmModel& m, int s) { return unilm_loss(m, unilm_batch(1000 + s), other()).loss; },
        "unilm");
  }();
  return model;
}

TEST(CudaParityTest, UnilmForwardLossGradientsAndAdamWStepMatchTheCpu) {
  SKIP_WITHOUT_DEVICE();
  NoTf32 exact;
  torch::manual_seed(11);
  UnilmModel cpu(unilm_config(), UnilmHeads{}), dev(unilm_config(), UnilmHeads{});
  cpu->init_weights();
  copy_into(dev, cpu, other());
  const TrainBatch b = unilm_batch(5);
  const UnilmLoss lc = unilm_loss(cpu, b, torch::kCPU), ld = unilm_loss(dev, b, other());
  EXPECT_LE(rel(ld.hidden, lc.hidden), kFp32Tolerance) << "last hidden state";
  EXPECT_LE(rel(ld.loss, lc.loss), kFp32Tolerance)
      << "loss " << ld.loss.item<double>() << " vs " << lc.loss.item<double>();
  lc.loss.backward();
  ld.loss.backward();
  // The attention key bias adds q.b to every score of a query: softmax ignores it, so its exact
  // gradient is zero.
  expect_gradients_and_adamw_step_match(
      cpu, dev,
      [](const std::string& name) {
        return name.find("attention.self.key.bias") != std::string::npos;
      },
      40);
}

std::vector<std::vector<int64_t>> test_sources() {
  std::vector<std::vector<int64_t>> out;
  for (const auto& ex : chain_pairs(kInputs, 424242)) out.push_back(ex.src);
  return out;
}

std::vector<std::vector<int64_t>> tokens_of(const std::vector<std::vector<Hypothesis>>& nbest) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& n : nbest) out.push_back(n.at(0).tokens);
  return out;
}

std::vector<std::vector<int64_t>> unilm_beam(UnilmModel& m, const std::string& algorithm) {
  const SpecialIds ids = testing::tiny_special_ids(kVocab);
  UnilmStepScorer scorer(m, test_sources(), ids, Seq2SeqDataOptions{});
  SearchOptions so;
  so.beam = 5;
  so.max_len = 16;
  so.length_penalty = 1.0;
  so.algorithm = algorithm;
  std::vector<int64_t> ex(kInputs);
  for (int i = 0; i < kInputs; ++i) ex[static_cast<size_t>(i)] = i;
  torch::NoGradGuard g;
  return tokens_of(generate(scorer, ex, ids.sep, so, ids.pad));
}

TEST(CudaParityTest, UnilmBeamSearchReturnsTheSameTokensOnFiftyInputs) {
  SKIP_WITHOUT_DEVICE();
  NoTf32 exact;
  UnilmModel& cpu = trained_unilm();
  UnilmModel dev(unilm_config(), UnilmHeads{});
  copy_into(dev, cpu, other());
  dev->eval();
  for (const std::string algorithm : {"exact", "unilm"}) {
    const auto a = unilm_beam(cpu, algorithm), b = unilm_beam(dev, algorithm);
    ASSERT_EQ(a.size(), static_cast<size_t>(kInputs));
    int learned = 0;
    const auto src = test_sources();
    for (int i = 0; i < kInputs; ++i) {
      EXPECT_EQ(b[static_cast<size_t>(i)], a[static_cast<size_t>(i)])
          << algorithm << " input " << i;
      learned += !a[static_cast<size_t>(i)].empty() &&
                 a[static_cast<size_t>(i)][0] == src[static_cast<size_t>(i)][0];
    }
    // Not a test of learning: it shows the outputs are not one degenerate string everywhere.
    std::cout << "[ parity ] unilm " << algorithm << " beam 5: " << learned << "/" << kInputs
              << " start with the source's first token\n";
  }
}

// Scores every step on both devices, follows the CPU's distribution, and counts the rows whose
// top-1 token agrees.
class BothDevices : public StepScorer {
 public:
  BothDevices(StepScorer& cpu, StepScorer& dev, Runtime rt) : cpu_(cpu), dev_(dev), rt_(rt) {}
  torch::Tensor step(const StepRequest& req) override {
    torch::Tensor d;
    {
      AutocastScope amp(rt_);
      d = dev_.step(req);
    }
    torch::Tensor c = cpu_.step(req);
    const auto same = c.argmax(-1).eq(d.to(torch::kCPU).argmax(-1));
    agree += same.sum().item<int64_t>();
    steps += same.numel();
    return c;
  }
  int64_t agree = 0, steps = 0;

 private:
  StepScorer &cpu_, &dev_;
  Runtime rt_;
};

Runtime bf16_runtime() {
  Runtime rt;
  rt.device = other();
  rt.precision = Precision::kBFloat16;
  return rt;
}

TEST(CudaParityTest, UnilmBf16AutocastWithinToleranceAndSameTopOneOnGreedySteps) {
  SKIP_WITHOUT_DEVICE();
  UnilmModel& cpu = trained_unilm();
  UnilmModel dev(unilm_config(), UnilmHeads{});
  copy_into(dev, cpu, other());
  dev->eval();
  torch::NoGradGuard g;
  const TrainBatch b = unilm_batch(77);
  const UnilmLoss lc = unilm_loss(cpu, b, torch::kCPU);
  UnilmLoss ld;
  {
    AutocastScope amp(bf16_runtime());
    ld = unilm_loss(dev, b, other());
  }
  const double r = rel(ld.hidden.to(torch::kFloat), lc.hidden);
  std::cout << "[ parity ] unilm bf16 hidden relative error " << r << ", loss "
            << ld.loss.item<double>() << " vs " << lc.loss.item<double>() << "\n";
  EXPECT_LE(r, kBf16Tolerance);
  const SpecialIds ids = testing::tiny_special_ids(kVocab);
  UnilmStepScorer sc(cpu, test_sources(), ids, Seq2SeqDataOptions{}),
      sd(dev, test_sources(), ids, Seq2SeqDataOptions{});
  BothDevices both(sc, sd, bf16_runtime());
  SearchOptions so;
  so.max_len = 16;
  std::vector<int64_t> ex(kInputs);
  for (int i = 0; i < kInputs; ++i) ex[static_cast<size_t>(i)] = i;
  generate(both, ex, ids.sep, so, ids.pad);
  ASSERT_GT(both.steps, kInputs * 4);
  const double share = static_cast<double>(both.agree) / static_cast<double>(both.steps);
  std::cout << "[ parity ] unilm bf16 greedy top-1 agreement " << both.agree << "/" << both.steps
            << "\n";
  EXPECT_GE(share, kBf16TopOneAgreement);
}

// ---- GPT ----

GptConfig gpt_config() {
  GptConfig c = GptConfig::tiny(kVocab, 0.0);
  c.n_embd = 64;
  c.n_layer = 3;
  c.n_head = 4;
  c.n_positions = 64;
  return c;
}

// Rows of 4-16 tokens: a random first token, then each token the successor of the one before
// (the chain task above); prompts are the first 1-3 tokens.
std::vector<std::vector<int32_t>> chain_rows(int n, uint64_t seed, bool prompt_only) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> tok(5, 20), len(4, 16), prompt(1, 3);
  std::vector<std::vector<int32_t>> out;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> row{tok(rng)};
    const int k = prompt_only ? prompt(rng) : len(rng);
    while (static_cast<int>(row.size()) < k)
      row.push_back(static_cast<int32_t>(successor(row.back())));
    out.push_back(row);
  }
  return out;
}

struct GptLoss {
  torch::Tensor hidden, loss;
};

// Next-token cross-entropy over the real positions of right-padded rows.
GptLoss gpt_loss(GptModel& m, const std::vector<std::vector<int32_t>>& rows,
                 const torch::Device& dev) {
  int64_t T = 0;
  for (const auto& r : rows) T = std::max<int64_t>(T, static_cast<int64_t>(r.size()));
  const auto B = static_cast<int64_t>(rows.size());
  torch::Tensor ids = torch::zeros({B, T}, torch::kLong), mask = torch::zeros({B, T}, torch::kLong);
  for (int64_t b = 0; b < B; ++b)
    for (size_t t = 0; t < rows[static_cast<size_t>(b)].size(); ++t) {
      ids[b][static_cast<int64_t>(t)] = rows[static_cast<size_t>(b)][t];
      mask[b][static_cast<int64_t>(t)] = 1;
    }
  ids = ids.to(dev);
  mask = mask.to(dev);
  GptOutput o = m->forward(ids, mask);
  torch::Tensor logits = m->lm_logits(o.last_hidden_state.narrow(1, 0, T - 1)).to(torch::kFloat);
  torch::Tensor target = ids.narrow(1, 1, T - 1).masked_fill(mask.narrow(1, 1, T - 1).eq(0), -100);
  torch::Tensor loss = torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), target.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
  return {o.last_hidden_state, loss};
}

GptModel& trained_gpt() {
  static GptModel model = [] {
    torch::manual_seed(9);
    GptModel t(gpt_config(), GptHeads{});
    t->init_weights();
    return train_then_copy(
        t, GptModel(gpt_config(), GptHeads{}),
        [](GptModel& m, int s) {
          return gpt_loss(m, chain_rows(32, 2000 + s, false), other()).loss;
        },
        "gpt");
  }();
  return model;
}

TEST(CudaParityTest, GptForwardLossGradientsAndAdamWStepMatchTheCpu) {
  SKIP_WITHOUT_DEVICE();
  NoTf32 exact;
  torch::manual_seed(13);
  GptModel cpu(gpt_config(), GptHeads{}), dev(gpt_config(), GptHeads{});
  cpu->init_weights();
  copy_into(dev, cpu, other());
  const auto rows = chain_rows(16, 5, false);
  const GptLoss lc = gpt_loss(cpu, rows, torch::kCPU), ld = gpt_loss(dev, rows, other());
  EXPECT_LE(rel(ld.hidden, lc.hidden), kFp32Tolerance) << "last hidden state";
  EXPECT_LE(rel(ld.loss, lc.loss), kFp32Tolerance) << "loss";
  lc.loss.backward();
  ld.loss.backward();
  expect_gradients_and_adamw_step_match(
      cpu, dev, [](const std::string&) { return false; }, 30);
}

std::vector<std::vector<int64_t>> gpt_beam(GptModel& m) {
  GptScorer scorer(m, chain_rows(kInputs, 515151, true), 12);
  SearchOptions so;
  so.beam = 5;
  so.max_len = 12;
  std::vector<int64_t> ex(kInputs);
  for (int i = 0; i < kInputs; ++i) ex[static_cast<size_t>(i)] = i;
  torch::NoGradGuard g;
  return tokens_of(generate(scorer, ex, /*eos*/ 0, so));
}

TEST(CudaParityTest, GptBeamSearchAndBf16GreedyMatchTheCpu) {
  SKIP_WITHOUT_DEVICE();
  NoTf32 exact;
  GptModel& cpu = trained_gpt();
  GptModel dev(gpt_config(), GptHeads{});
  copy_into(dev, cpu, other());
  dev->eval();
  const auto a = gpt_beam(cpu), b = gpt_beam(dev);
  ASSERT_EQ(a.size(), static_cast<size_t>(kInputs));
  for (int i = 0; i < kInputs; ++i)
    EXPECT_EQ(b[static_cast<size_t>(i)], a[static_cast<size_t>(i)]) << "input " << i;
  GptScorer sc(cpu, chain_rows(kInputs, 515151, true), 12),
      sd(dev, chain_rows(kInputs, 515151, true), 12);
  BothDevices both(sc, sd, bf16_runtime());
  SearchOptions so;
  so.max_len = 12;
  std::vector<int64_t> ex(kInputs);
  for (int i = 0; i < kInputs; ++i) ex[static_cast<size_t>(i)] = i;
  generate(both, ex, 0, so);
  ASSERT_GT(both.steps, static_cast<int64_t>(kInputs) * 4);
  std::cout << "[ parity ] gpt bf16 greedy top-1 agreement " << both.agree << "/" << both.steps
            << "\n";
  EXPECT_GE(static_cast<double>(both.agree) / static_cast<double>(both.steps),
            kBf16TopOneAgreement);
}

}  // namespace
}  // namespace unieval::models::cuda_parity_test
