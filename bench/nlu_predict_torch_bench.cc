// Inference speed of the understanding heads (#16): examples/s of SST-2-length inputs through
// models::predict_nlu (classification head, CPU, fp32) on a BERT-base-shaped encoder (12 layers,
// hidden 768, 12 heads, FFN 3072, BERT's 30522-word vocabulary; random weights, seeded), 872 inputs
// (the SST-2 dev size) of 4-56 tokens with SST-2 dev's mean of ~25 WordPiece tokens incl. [CLS]
// and [SEP]; batches of 64. `Sorted` is what `unieval run` does (length-sorted batches, padded to
// their longest row); `Unsorted` pads every batch of the original order to its longest row, for
// comparison. items_per_second = examples/s; counter peak_rss_mib = the process's peak resident
// memory (VmHWM) after the runs. A tiny variant (hidden 128, 2 layers) shows the overhead floor.
//
//   build/bench/nlu_predict_torch_bench --benchmark_min_time=1 [--benchmark_format=json]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>

#include "models/training/nlu.h"

namespace unieval::models {
namespace {

double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

std::vector<NluFeature> sst2_like(int n) {
  std::mt19937 rng(3);
  std::normal_distribution<double> len(25.0, 9.0);
  std::uniform_int_distribution<int32_t> word(1000, 30000);
  std::vector<NluFeature> out;
  for (int i = 0; i < n; ++i) {
    const int t = std::clamp(static_cast<int>(len(rng)), 4, 56);
    NluFeature f;
    f.ids.push_back(101);
    for (int k = 0; k < t - 2; ++k) f.ids.push_back(word(rng));
    f.ids.push_back(102);
    f.types.assign(f.ids.size(), 0);
    out.push_back(std::move(f));
  }
  return out;
}

UnilmModel make_model(bool base) {
  BertConfig cfg;  // BERT-base defaults
  if (!base) {
    cfg.num_hidden_layers = 2;
    cfg.hidden_size = 128;
    cfg.num_attention_heads = 2;
    cfg.intermediate_size = 512;
  }
  torch::manual_seed(1);
  UnilmModel m(cfg, nlu_heads(NluHead::kClassify, 2));
  m->eval();
  return m;
}

void run(benchmark::State& state, bool base, bool sorted) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  UnilmModel model = make_model(base);
  const auto rows = sst2_like(872);
  PredictOptions o;
  o.batch_size = 64;
  o.batch_tokens = 64 * 512;
  for (auto _ : state) {
    if (sorted) {
      benchmark::DoNotOptimize(predict_nlu(model, rows, NluHead::kClassify, o));
    } else {
      // The original order in batches of 64, each padded to its longest row (one call per batch
      // keeps predict_nlu from sorting across batches).
      for (size_t i = 0; i < rows.size(); i += 64) {
        std::vector<NluFeature> b(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 64));
        size_t longest = 0;
        for (const auto& f : b) longest = std::max(longest, f.ids.size());
        for (auto& f : b)
          f.ids.resize(longest, 0), f.types.resize(longest, 0);  // padding as tokens
        benchmark::DoNotOptimize(predict_nlu(model, b, NluHead::kClassify, o));
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows.size()));
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

void BM_Base_Sorted(benchmark::State& s) { run(s, true, true); }
void BM_Base_Unsorted(benchmark::State& s) { run(s, true, false); }
void BM_Tiny_Sorted(benchmark::State& s) { run(s, false, true); }
BENCHMARK(BM_Base_Sorted)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Base_Unsorted)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Tiny_Sorted)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace unieval::models
