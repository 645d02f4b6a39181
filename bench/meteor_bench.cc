// METEOR micro-benchmarks: normaliser, Snowball stemmer, and whole-corpus scoring (exact+stem+
// synonym, 2 references) on a seeded synthetic corpus. Scoring needs ../shared/data/meteor
// (or $UNIEVAL_METEOR_DATA); without it those benchmarks report an error and are skipped.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "metrics/meteor.h"
#include "metrics/text/meteor_normalize.h"
#include "metrics/text/snowball_english.h"

namespace {

namespace m = unieval::metrics;

std::string data_dir() {
  if (const char* env = std::getenv("UNIEVAL_METEOR_DATA")) return env;
  return (std::filesystem::path(UNIEVAL_SOURCE_DIR).parent_path() / "shared/data/meteor").string();
}

// n lines of ~25 English-like tokens; refs perturb the hypothesis (seeded).
struct Corpus {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};

Corpus make_corpus(size_t n) {
  static const char* kWords[] = {
      "the",    "a",       "of",        "to",         "and",       "in",     ",",        ".",
      "'s",     "running", "runs",      "quick",      "fast",      "dog",    "dogs",     "cat",
      "cats",   "jumped",  "jumps",     "leaped",     "lazy",      "sleepy", "house",    "home",
      "big",    "large",   "small",     "little",     "said",      "says",   "told",     "people",
      "person", "city",    "cities",    "government", "officials", "report", "reported", "year",
      "years",  "new",     "old",       "began",      "started",   "start",  "U.S.",     "Mr.",
      "don't",  "isn't",   "well-known"};
  const size_t V = sizeof(kWords) / sizeof(kWords[0]);
  std::mt19937 rng(13);
  std::uniform_int_distribution<size_t> pick(0, V - 1);
  std::uniform_real_distribution<double> u(0, 1);
  Corpus c;
  c.refs.resize(2);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> ref;
    for (int k = 0; k < 25; ++k) ref.push_back(kWords[pick(rng)]);
    auto perturb = [&](double rate) {
      std::string out;
      for (const auto& w : ref) {
        double x = u(rng);
        if (x < rate / 2) continue;
        if (!out.empty()) out += ' ';
        out += x < rate ? kWords[pick(rng)] : w;
      }
      return out;
    };
    std::string r0;
    for (const auto& w : ref) r0 += (r0.empty() ? "" : " ") + w;
    c.refs[0].push_back(r0);
    c.refs[1].push_back(perturb(0.15));
    c.hyps.push_back(perturb(0.3));
  }
  return c;
}

void BM_Normalize(benchmark::State& state) {
  m::text::NonbreakingPrefixes p =
      m::text::NonbreakingPrefixes::parse("Mr\nDr\nNo #NUMERIC_ONLY#\n");
  Corpus c = make_corpus(1000);
  for (auto _ : state)
    for (const auto& h : c.hyps) benchmark::DoNotOptimize(m::text::meteor_normalize(h, p));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(c.hyps.size()));
}
BENCHMARK(BM_Normalize);

void BM_Stem(benchmark::State& state) {
  const std::vector<std::string> words = {"consolidating", "generously", "knitting", "skies",
                                          "running",       "officials",  "reported", "government"};
  for (auto _ : state)
    for (const auto& w : words) benchmark::DoNotOptimize(m::text::snowball_english_stem(w));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(words.size()));
}
BENCHMARK(BM_Stem);

void BM_ScoreCorpus(benchmark::State& state) {
  m::MeteorOptions o;
  o.modules = {m::MeteorModule::kExact, m::MeteorModule::kStem, m::MeteorModule::kSynonym};
  o.weights = {1.0, 0.6, 0.8};
  o.normalize = m::MeteorNormalize::kNorm;
  o.data_dir = data_dir();
  o.threads = static_cast<int>(state.range(1));
  std::unique_ptr<m::MeteorScorer> scorer;
  try {
    scorer = std::make_unique<m::MeteorScorer>(o);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  Corpus c = make_corpus(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(scorer->score(c.hyps, c.refs).score);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ScoreCorpus)->Args({2000, 1})->Args({2000, 2})->Unit(benchmark::kMillisecond);

void BM_LoadResources(benchmark::State& state) {
  m::MeteorOptions o;
  o.modules = {m::MeteorModule::kExact, m::MeteorModule::kStem, m::MeteorModule::kSynonym};
  o.normalize = m::MeteorNormalize::kNorm;
  o.data_dir = data_dir();
  for (auto _ : state) {
    try {
      m::MeteorScorer s(o);
      benchmark::DoNotOptimize(s.params());
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
}
BENCHMARK(BM_LoadResources)->Unit(benchmark::kMillisecond);

}  // namespace
