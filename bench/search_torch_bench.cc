// Beam-5 decoding speed of UniLM seq2seq search (#15, #24): the tensor beam search (top-k on the
// device, models/decoding/search.h beam_search) against the previous host implementation
// (beam_search_reference, tests/models/beam_search_reference.h: the test oracle, which copies the
// whole distribution to the host as float64 each step),
// in one run, on the shape of issue #24: a 4-layer hidden-256 model (4 heads, FFN 1024, BERT's
// 30522-word vocabulary, random weights, seeded), batch 16, source 64 tokens, exactly 32 new tokens
// (min_len = max_len = 32), beam 5, n-gram blocking 3 (UniLM's decoding). items_per_second is
// sentences/s; `identical` is 1 when both searches returned the same n-best lists (checked once).
//
//   build/bench/search_torch_bench --benchmark_min_time=1 [--benchmark_format=json]
//   OMP_WAIT_POLICY=PASSIVE build/bench/search_torch_bench ...   (the threads comparison, #24 item 3)
#include <benchmark/benchmark.h>

#include <random>

#include "models/decoding/search.h"
#include "models/decoding/search_unilm.h"
#include "tests/models/beam_search_reference.h"

namespace unieval::models {
namespace {

constexpr int64_t kBatch = 16, kSource = 64, kNew = 32;

struct Fixture {
  UnilmModel model{nullptr};
  std::vector<std::vector<int64_t>> sources;
  SpecialIds ids;
  SearchOptions opts;
  Fixture() {
    BertConfig cfg;
    cfg.num_hidden_layers = 4;
    cfg.hidden_size = 256;
    cfg.num_attention_heads = 4;
    cfg.intermediate_size = 1024;
    cfg.initializer_range = 0.2;  // peakier distributions than BERT's 0.02
    torch::manual_seed(1);
    UnilmHeads heads;
    heads.pooler = false;
    model = UnilmModel(cfg, heads);
    model->init_weights();
    model->eval();
    std::mt19937 rng(7);
    std::uniform_int_distribution<int64_t> word(1000, cfg.vocab_size - 1);
    for (int64_t b = 0; b < kBatch; ++b) {
      sources.emplace_back();
      for (int64_t t = 0; t < kSource; ++t) sources.back().push_back(word(rng));
    }
    opts.beam = 5;
    opts.min_len = kNew;
    opts.max_len = kNew;
    opts.no_repeat_ngram = 3;
  }
  std::vector<std::vector<Hypothesis>> run(bool tensor) {
    torch::NoGradGuard g;
    Seq2SeqDataOptions types;
    UnilmStepScorer scorer(model, sources, ids, types);
    return tensor ? beam_search(scorer, kBatch, ids.sep, opts)
                  : beam_search_reference(scorer, kBatch, ids.sep, opts);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

bool same(const std::vector<std::vector<Hypothesis>>& a,
          const std::vector<std::vector<Hypothesis>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t e = 0; e < a.size(); ++e) {
    if (a[e].size() != b[e].size()) return false;
    for (size_t i = 0; i < a[e].size(); ++i)
      if (a[e][i].tokens != b[e][i].tokens || a[e][i].log_prob != b[e][i].log_prob) return false;
  }
  return true;
}

void BM_Beam5(benchmark::State& state) {
  const bool tensor = state.range(0) == 1;
  Fixture& f = fixture();
  static const bool identical = same(f.run(true), f.run(false));
  for (auto _ : state) benchmark::DoNotOptimize(f.run(tensor));
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["identical"] = identical ? 1 : 0;
  state.SetLabel(tensor ? "tensor top-k (new)" : "host float64 walk (previous)");
}
BENCHMARK(BM_Beam5)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace unieval::models
