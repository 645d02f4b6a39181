// The two linear-layer product paths of models/nn/gemm.h (argument 0 = libtorch, 1 = onednn) on
// the shapes of #37's mini-UniLM (4 layers, hidden 256, 4 heads, FFN 1024, the 8,000-entry
// vocabulary, 48 sequences of 128 positions, 20 masked positions each), random weights (seeded),
// one thread unless BENCH_THREADS says otherwise.
//   BM_LinearTrain/{0,1}/{in}/{out}: y = x Wᵀ + b over 6,144 rows, then the three gradients;
//     items_per_second is GFLOP/s x 1e9 (the forward and both backward products, 6·rows·in·out).
//   BM_MlmStep/{0,1}: one masked-LM forward + backward of the whole model at that shape, after
//     one untimed step; items_per_second is positions/s (what `unieval pretrain` reports as tok/s, without the
//     optimizer and data).
//
//   BENCH_THREADS=1 build/bench/gemm_torch_bench --benchmark_min_time=2 --benchmark_repetitions=3
//     [--benchmark_format=json]
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>

#include "models/nn/device.h"
#include "models/nn/gemm.h"
#include "models/nn/transformer.h"

namespace unieval::models {
namespace {

constexpr int64_t kVocab = 8000, kBatch = 48, kLen = 128, kMasked = 20;

bool use_path(benchmark::State& state) {
  const char* t = std::getenv("BENCH_THREADS");
  set_threads(t ? std::atoi(t) : 1);
  const bool onednn = state.range(0) == 1;
  if (onednn && !onednn_gemm_available()) {
    state.SkipWithError("no dnnl_sgemm in this process");
    return false;
  }
  set_gemm_path(onednn ? GemmPath::kOneDnn : GemmPath::kLibTorch);
  state.SetLabel(onednn ? "onednn" : "libtorch");
  return true;
}

void BM_LinearTrain(benchmark::State& state) {
  if (!use_path(state)) return;
  const int64_t rows = kBatch * kLen, in = state.range(1), out = state.range(2);
  torch::manual_seed(1);
  auto x = torch::randn({rows, in}).requires_grad_(true);
  auto w = (torch::randn({out, in}) * 0.02).requires_grad_(true);
  auto b = torch::zeros({out}).requires_grad_(true);
  const auto r = torch::randn({rows, out});
  for (auto _ : state) {
    x.mutable_grad() = torch::Tensor();
    w.mutable_grad() = torch::Tensor();
    b.mutable_grad() = torch::Tensor();
    (linear(x, w, b) * r).sum().backward();
    benchmark::DoNotOptimize(w.grad().data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * 6 * rows * in * out);
  set_gemm_path(GemmPath::kLibTorch);
}
BENCHMARK(BM_LinearTrain)
    ->ArgsProduct({{0, 1}, {256}, {256, 1024}})
    ->Args({0, 1024, 256})
    ->Args({1, 1024, 256})
    ->Unit(benchmark::kMillisecond);

void BM_MlmStep(benchmark::State& state) {
  if (!use_path(state)) return;
  BertConfig cfg;
  cfg.vocab_size = kVocab;
  cfg.num_hidden_layers = 4;
  cfg.hidden_size = 256;
  cfg.num_attention_heads = 4;
  cfg.intermediate_size = 1024;
  cfg.max_position_embeddings = 160;
  torch::manual_seed(1);
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel model(cfg, heads);
  model->train();
  const auto ids = torch::randint(999, kVocab, {kBatch, kLen}, torch::kLong);
  const auto rows = torch::randint(0, kBatch * kLen, {kBatch * kMasked}, torch::kLong);
  const auto labels = torch::randint(999, kVocab, {kBatch * kMasked}, torch::kLong);
  const auto step = [&] {
    model->zero_grad();
    auto out = model->forward(ids);
    auto h = out.last_hidden_state.reshape({-1, cfg.hidden_size}).index_select(0, rows);
    torch::nn::functional::cross_entropy(model->mlm_logits(h), labels).backward();
  };
  step();  // untimed: the first step also allocates and (oneDNN) generates its kernels
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * kBatch * kLen);
  set_gemm_path(GemmPath::kLibTorch);
}
BENCHMARK(BM_MlmStep)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace unieval::models
