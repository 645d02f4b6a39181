// Micro-benchmarks of the ROUGE units: ROUGE-1.5.5 -n 2 -m with 1000 bootstrap resamples and
// rouge-score (stemmed) on the 11,490-pair CNN/DM-like bench corpus of ../shared (skipped with a
// message when absent), and the two Porter stemmers.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/io.h"
#include "metrics/rouge.h"
#include "metrics/rouge_score.h"
#include "metrics/text/porter_nltk.h"
#include "metrics/text/porter_rouge.h"

namespace {

namespace fs = std::filesystem;
using namespace unieval;

fs::path shared() { return fs::path(UNIEVAL_SOURCE_DIR).parent_path() / "shared"; }

struct BenchCorpus {
  std::vector<std::string> hyps, refs;
  bool ok = false;
};

const BenchCorpus& corpus() {
  static BenchCorpus c = [] {
    BenchCorpus b;
    fs::path h = shared() / "golden/bench/cnndm_like_11490.hyp.txt.gz";
    fs::path r = shared() / "golden/bench/cnndm_like_11490.ref.txt.gz";
    if (!fs::exists(h) || !fs::exists(r)) return b;
    b.hyps = core::read_lines(h.string());
    b.refs = core::read_lines(r.string());
    b.ok = true;
    return b;
  }();
  return c;
}

void BM_Rouge155_N2_Stem_Bootstrap1000(benchmark::State& state) {
  if (!corpus().ok || !fs::exists(shared() / "data/rouge155/WordNet-2.0-Exceptions/adj.exc")) {
    state.SkipWithError("shared bench corpus or rouge155 data absent");
    return;
  }
  auto res = metrics::RougeResources::load((shared() / "data/rouge155").string());
  std::vector<metrics::RougeInstance> inst(corpus().hyps.size());
  for (size_t i = 0; i < inst.size(); ++i) {
    inst[i].peer = metrics::split_summary(corpus().hyps[i], "<q>");
    inst[i].models = {metrics::split_summary(corpus().refs[i], "<q>")};
  }
  metrics::Rouge155Options opt;
  opt.max_n = 2;
  opt.stem = true;
  opt.threads = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(metrics::rouge155(inst, opt, res));
}
BENCHMARK(BM_Rouge155_N2_Stem_Bootstrap1000)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_RougeScore_Stem(benchmark::State& state) {
  if (!corpus().ok) {
    state.SkipWithError("shared bench corpus absent");
    return;
  }
  std::vector<std::string> hyps = corpus().hyps, refs = corpus().refs;
  for (auto* v : {&hyps, &refs})
    for (auto& s : *v)
      for (size_t p = 0; (p = s.find("<q>", p)) != std::string::npos;) s.replace(p, 3, "\n");
  metrics::RougeScoreOptions opt;
  opt.stem = true;
  for (auto _ : state) benchmark::DoNotOptimize(metrics::rouge_score_corpus(hyps, {refs}, opt));
}
BENCHMARK(BM_RougeScore_Stem)->Unit(benchmark::kMillisecond);

void BM_PorterStemmers(benchmark::State& state) {
  const char* words[] = {"implementation", "arguments",   "generalization", "running",
                         "happiness",      "conditional", "relational",     "controlling",
                         "activities",     "hopefulness"};
  for (auto _ : state)
    for (const char* w : words) {
      benchmark::DoNotOptimize(metrics::text::rouge155_porter_stem(w));
      benchmark::DoNotOptimize(metrics::text::nltk_porter_stem(w));
    }
}
BENCHMARK(BM_PorterStemmers);

}  // namespace
