// Micro-benchmarks of the BLEU family on a generated 20,000-segment corpus (~25 tokens, 2
// references, seeded), the same shape as bench/cli_bench.py's corpus. In-process: no file I/O.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "metrics/bleu.h"
#include "metrics/bleu_compat.h"
#include "metrics/chrf.h"
#include "metrics/nist.h"
#include "metrics/text/tokenize_13a.h"

namespace {

namespace m = unieval::metrics;

struct Corpus {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus out;
    std::mt19937 rng(13);
    std::vector<std::string> vocab;
    for (int i = 0; i < 5000; ++i) vocab.push_back("w" + std::to_string(i));
    for (const char* w : {"the", "a", "of", "to", "and", "in", ",", ".", "'s", "-"})
      vocab.push_back(w);
    std::vector<double> weights;
    for (size_t i = 0; i < vocab.size(); ++i) weights.push_back(1.0 / std::pow(i + 1.0, 0.8));
    std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
    std::normal_distribution<double> len(25, 6);
    std::uniform_real_distribution<double> u(0, 1);
    out.refs.resize(2);
    for (int s = 0; s < 20000; ++s) {
      int n = std::max(1, static_cast<int>(len(rng)));
      std::vector<std::string> ref;
      for (int i = 0; i < n; ++i) ref.push_back(vocab[pick(rng)]);
      auto perturb = [&](double rate) {
        std::string line;
        for (const auto& t : ref) {
          double x = u(rng);
          if (x < rate / 3) continue;
          std::string tok = x < 2 * rate / 3 ? vocab[pick(rng)] : t;
          if (!line.empty()) line += ' ';
          line += tok;
          if (x >= 2 * rate / 3 && x < rate) line += " " + vocab[pick(rng)];
        }
        return line.empty() ? ref[0] : line;
      };
      std::string r0;
      for (const auto& t : ref) r0 += (r0.empty() ? "" : " ") + t;
      out.refs[0].push_back(r0);
      out.hyps.push_back(perturb(0.3));
      out.refs[1].push_back(perturb(0.15));
    }
    return out;
  }();
  return c;
}

void BM_SacreBleu13a(benchmark::State& st) {
  const auto& c = corpus();
  for (auto _ : st)
    benchmark::DoNotOptimize(m::corpus_bleu(c.hyps, c.refs, m::BleuOptions()).score);
}
BENCHMARK(BM_SacreBleu13a)->Unit(benchmark::kMillisecond);

void BM_SacreBleuIntl(benchmark::State& st) {
  const auto& c = corpus();
  m::BleuOptions o;
  o.tokenize = m::BleuTokenize::kIntl;
  for (auto _ : st) benchmark::DoNotOptimize(m::corpus_bleu(c.hyps, c.refs, o).score);
}
BENCHMARK(BM_SacreBleuIntl)->Unit(benchmark::kMillisecond);

void BM_MultiBleu(benchmark::State& st) {
  const auto& c = corpus();
  for (auto _ : st) benchmark::DoNotOptimize(m::multi_bleu(c.hyps, c.refs).score);
}
BENCHMARK(BM_MultiBleu)->Unit(benchmark::kMillisecond);

void BM_CocoBleu(benchmark::State& st) {
  const auto& c = corpus();
  auto by_seg = m::refs_by_segment(c.refs);
  for (auto _ : st) benchmark::DoNotOptimize(m::coco_bleu(c.hyps, by_seg).bleu[3]);
}
BENCHMARK(BM_CocoBleu)->Unit(benchmark::kMillisecond);

void BM_NltkCorpusBleu(benchmark::State& st) {
  const auto& c = corpus();
  auto hyps = m::split_lines_py(c.hyps);
  std::vector<std::vector<std::vector<std::string>>> refs;
  for (const auto& seg : m::refs_by_segment(c.refs)) refs.push_back(m::split_lines_py(seg));
  for (auto _ : st) benchmark::DoNotOptimize(m::nltk_corpus_bleu(hyps, refs).score);
}
BENCHMARK(BM_NltkCorpusBleu)->Unit(benchmark::kMillisecond);

void BM_Chrf(benchmark::State& st) {
  const auto& c = corpus();
  for (auto _ : st)
    benchmark::DoNotOptimize(m::corpus_chrf(c.hyps, c.refs, m::ChrfOptions()).score);
}
BENCHMARK(BM_Chrf)->Unit(benchmark::kMillisecond);

void BM_MtevalNist(benchmark::State& st) {
  const auto& c = corpus();
  for (auto _ : st) benchmark::DoNotOptimize(m::mteval_nist(c.hyps, c.refs).nist_cum[3]);
}
BENCHMARK(BM_MtevalNist)->Unit(benchmark::kMillisecond);

void BM_Tokenize13a(benchmark::State& st) {
  const auto& c = corpus();
  for (auto _ : st)
    for (const auto& h : c.hyps) benchmark::DoNotOptimize(unieval::metrics::text::tokenize_13a(h));
}
BENCHMARK(BM_Tokenize13a)->Unit(benchmark::kMillisecond);

}  // namespace
