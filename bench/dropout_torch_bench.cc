// models/nn/dropout.h on the shapes of #37's mini-UniLM (48 sequences of 128 positions, hidden 256,
// 4 heads), one thread unless BENCH_THREADS says otherwise; items_per_second is elements/s.
//   BM_Dropout/{n}: apply_dropout forward and backward (p = 0.1) of a float tensor of n elements
//     (3,145,728: one layer's attention probabilities; 1,572,864: one hidden state).
//   BM_TorchDropout/{n}: torch::dropout, the same work through LibTorch's own CPU dropout.
//   BM_PhiloxScalarMask/{n}: the keep mask from philox4x32_10 one block at a time, the scalar
//     rounds that apply_dropout ran before its eight-block AVX2 path (session 41).
//
//   BENCH_THREADS=1 build/bench/dropout_torch_bench --benchmark_min_time=1 [--benchmark_format=json]
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <vector>

#include "models/nn/device.h"
#include "models/nn/dropout.h"

namespace unieval::models {
namespace {

constexpr double kP = 0.1;

void use_threads() {
  const char* t = std::getenv("BENCH_THREADS");
  set_threads(t ? std::atoi(t) : 1);
}

// Forward and backward of `drop` on n = state.range(0) elements, per iteration.
template <typename Drop>
void dropout_forward_backward(benchmark::State& state, Drop drop) {
  use_threads();
  torch::manual_seed(1);
  auto x = torch::rand({state.range(0)}).requires_grad_(true);
  const auto g = torch::ones({state.range(0)});
  for (auto _ : state) {
    x.mutable_grad() = torch::Tensor();
    drop(x).backward(g);
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Dropout(benchmark::State& state) {
  dropout_forward_backward(state,
                           [](const torch::Tensor& x) { return apply_dropout(x, kP, true); });
}
BENCHMARK(BM_Dropout)->Arg(3145728)->Arg(1572864)->Unit(benchmark::kMillisecond);

void BM_TorchDropout(benchmark::State& state) {
  dropout_forward_backward(state,
                           [](const torch::Tensor& x) { return torch::dropout(x, kP, true); });
}
BENCHMARK(BM_TorchDropout)->Arg(3145728)->Arg(1572864)->Unit(benchmark::kMillisecond);

void BM_PhiloxScalarMask(benchmark::State& state) {
  const int64_t n = state.range(0);
  const auto threshold = static_cast<uint64_t>((1.0 - kP) * 4294967296.0);
  std::vector<char> keep(static_cast<size_t>(n));
  uint32_t key = 1;
  for (auto _ : state) {
    for (int64_t b = 0; 4 * b < n; ++b) {
      const auto words = philox4x32_10({static_cast<uint32_t>(b), 0, 0, 0}, {key, 7});
      for (int64_t j = 0; j < 4 && 4 * b + j < n; ++j) keep[4 * b + j] = words[j] < threshold;
    }
    benchmark::DoNotOptimize(keep.data());
    ++key;
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_PhiloxScalarMask)->Arg(3145728)->Arg(1572864)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace unieval::models

BENCHMARK_MAIN();
