// What the copy head (models/nn/copy_head.h, config "unieval_copy") costs, with and without it on
// the shape of the squad-qg-scratch recipe: a 4-layer hidden-256 model (4 heads, FFN 1024), the
// 8,000-entry vocabulary, random weights (seeded).
//   BM_ErnieGenTrainStep/{0,1}: one ERNIE-GEN word-flow loss + backward on 64 pairs of a 40-token
//     source and a 12-token target (the recipe's batch); items_per_second is pairs/s.
//   BM_Beam5Decode/{0,1}: beam-5 decoding of 16 sources of 40 tokens, exactly 16 new tokens, no
//     repeated trigram; items_per_second is sentences/s.
// Argument 0 = without the head, 1 = with it.
//
//   build/bench/copy_head_torch_bench --benchmark_min_time=2 [--benchmark_format=json]
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <random>

#include "models/decoding/search.h"
#include "models/decoding/search_unilm.h"
#include "models/training/ernie_gen.h"

namespace unieval::models {
namespace {

constexpr int64_t kVocab = 8000, kPairs = 64, kSource = 40, kTarget = 12, kDecode = 16;

SpecialIds special_ids() {
  SpecialIds ids;
  ids.pad = 0;
  ids.unk = 100;
  ids.cls = 101;
  ids.sep = 102;
  ids.mask = 103;
  ids.attn = 103;
  ids.vocab_size = kVocab;
  ids.first_regular = 999;
  return ids;
}

UnilmModel make_model(bool copy) {
  BertConfig cfg;
  cfg.vocab_size = kVocab;
  cfg.num_hidden_layers = 4;
  cfg.hidden_size = 256;
  cfg.num_attention_heads = 4;
  cfg.intermediate_size = 1024;
  cfg.max_position_embeddings = 160;
  cfg.copy = copy;
  torch::manual_seed(1);
  UnilmHeads heads;
  heads.pooler = false;
  return UnilmModel(cfg, heads);
}

std::vector<Seq2SeqExample> pairs(int64_t n) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> word(999, kVocab - 1);
  std::vector<Seq2SeqExample> v(n);
  for (auto& e : v) {
    for (int64_t t = 0; t < kSource; ++t) e.src.push_back(word(rng));
    for (int64_t t = 0; t < kTarget; ++t) e.tgt.push_back(word(rng));
  }
  return v;
}

void BM_ErnieGenTrainStep(benchmark::State& state) {
  UnilmModel model = make_model(state.range(0) == 1);
  model->train();
  const auto data = pairs(kPairs);
  std::vector<size_t> idx(kPairs);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::mt19937_64 rng(1);
  ErnieGenOptions eg;
  const ErnieGenBatch batch =
      make_ernie_gen_batch(data, idx, {}, eg, special_ids(), nullptr, rng, nullptr);
  for (auto _ : state) {
    model->zero_grad();
    ErnieGenLossTensors t = ernie_gen_loss_tensors(model, batch, 1.0, 0.1);
    t.loss.backward();
    benchmark::DoNotOptimize(t.word_nll.item<double>());
  }
  state.SetItemsProcessed(state.iterations() * kPairs);
  state.SetLabel(state.range(0) == 1 ? "copy head" : "no copy head");
}
BENCHMARK(BM_ErnieGenTrainStep)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Beam5Decode(benchmark::State& state) {
  UnilmModel model = make_model(state.range(0) == 1);
  model->eval();
  std::vector<std::vector<int64_t>> sources;
  for (const auto& e : pairs(kDecode)) sources.push_back(e.src);
  const SpecialIds ids = special_ids();
  SearchOptions opts;
  opts.beam = 5;
  opts.min_len = kTarget + 4;
  opts.max_len = kTarget + 4;
  opts.no_repeat_ngram = 3;
  std::vector<int64_t> examples(kDecode);
  for (int64_t i = 0; i < kDecode; ++i) examples[i] = i;
  for (auto _ : state) {
    torch::NoGradGuard g;
    UnilmStepScorer scorer(model, sources, ids, Seq2SeqDataOptions{}, true, ids.attn);
    benchmark::DoNotOptimize(generate(scorer, examples, ids.sep, opts));
  }
  state.SetItemsProcessed(state.iterations() * kDecode);
  state.SetLabel(state.range(0) == 1 ? "copy head" : "no copy head");
}
BENCHMARK(BM_Beam5Decode)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace unieval::models
