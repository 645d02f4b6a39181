// WordPiece tokenisation throughput (bytes/s) on real text: the SQuAD QG source sentences and the
// Persona-Chat lines from ../shared/data (skipped with a message when absent), uncased and cased,
// plus a synthetic ASCII corpus. Items = texts.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/io.h"
#include "models/tokenizer/wordpiece.h"

namespace {

namespace fs = std::filesystem;
using unieval::models::TokenizerOptions;
using unieval::models::WordPieceTokenizer;

fs::path shared() {
  if (const char* env = std::getenv("UNIEVAL_SHARED")) return env;
  return fs::path(UNIEVAL_SOURCE_DIR).parent_path() / "shared";
}

const std::vector<std::string>& squad_lines() {
  static std::vector<std::string> lines = [] {
    auto p = shared() / "data/squad_qg/src-dev.txt.gz";
    return fs::exists(p) ? unieval::core::read_lines(p.string()) : std::vector<std::string>{};
  }();
  return lines;
}

const std::vector<std::string>& synthetic_lines() {
  static std::vector<std::string> lines = [] {
    std::mt19937 rng(7);
    const char* words[] = {"the",  "Quick", "brown",           "fox",     "jumps",        "over",
                           "lazy", "dogs,", "unwanted",        "running", "tokenization", "(1998)",
                           "U.S.", "isn't", "hyperparameters", "a",       "of",           "to",
                           "and",  "in"};
    std::vector<std::string> out;
    for (int i = 0; i < 20000; ++i) {
      std::string s;
      int n = 10 + static_cast<int>(rng() % 30);
      for (int k = 0; k < n; ++k) {
        if (k) s += ' ';
        s += words[rng() % 20];
      }
      out.push_back(s);
    }
    return out;
  }();
  return lines;
}

void run(benchmark::State& state, const std::vector<std::string>& lines, const char* vocab,
         bool lower) {
  auto vp = shared() / "data/vocab" / vocab;
  if (!fs::exists(vp)) {
    state.SkipWithError(("vocab absent: " + vp.string()).c_str());
    return;
  }
  if (lines.empty()) {
    state.SkipWithError("corpus absent under ../shared/data");
    return;
  }
  auto tok = WordPieceTokenizer::from_file(vp.string(), TokenizerOptions::bert(lower));
  size_t bytes = 0;
  for (const auto& l : lines) bytes += l.size() + 1;
  std::vector<int32_t> ids;
  size_t n_ids = 0;
  for (auto _ : state) {
    n_ids = 0;
    for (const auto& l : lines) {
      ids.clear();
      tok.encode_ids(l, &ids);
      n_ids += ids.size();
    }
    benchmark::DoNotOptimize(n_ids);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lines.size()));
  state.counters["tokens"] = static_cast<double>(n_ids);
}

void BM_SquadSourcesUncased(benchmark::State& s) {
  run(s, squad_lines(), "bert-uncased-vocab.txt", true);
}
void BM_SquadSourcesCased(benchmark::State& s) {
  run(s, squad_lines(), "unilm-cased-vocab.txt", false);
}
void BM_SyntheticAsciiUncased(benchmark::State& s) {
  run(s, synthetic_lines(), "bert-uncased-vocab.txt", true);
}

void BM_EncodeWithTokenStrings(benchmark::State& state) {
  auto vp = shared() / "data/vocab/bert-uncased-vocab.txt";
  if (!fs::exists(vp) || squad_lines().empty()) {
    state.SkipWithError("../shared data absent");
    return;
  }
  auto tok = WordPieceTokenizer::from_file(vp.string(), TokenizerOptions::bert(true));
  for (auto _ : state)
    for (const auto& l : squad_lines()) benchmark::DoNotOptimize(tok.encode(l));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * squad_lines().size()));
}

BENCHMARK(BM_SquadSourcesUncased)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SquadSourcesCased)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticAsciiUncased)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeWithTokenStrings)->Unit(benchmark::kMillisecond);

}  // namespace
