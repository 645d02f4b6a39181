// Micro-benchmarks of the QA metrics on the speed-anchor inputs in ../shared/golden/bench
// (official scripts: SQuAD v2 12,000 q 0.69 s, v1.1 10,570 q 0.48 s, CoQA 7,983 turns 1.9 s).
// Reports bytes/s of JSON parsed (the files are read and decompressed once, outside the loop).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "core/io.h"
#include "core/json_reader.h"
#include "metrics/coqa.h"
#include "metrics/distinct.h"
#include "metrics/entropy.h"
#include "metrics/squad.h"

namespace {

namespace m = unieval::metrics;
std::filesystem::path bench_dir() {
  return std::filesystem::path(UNIEVAL_SOURCE_DIR).parent_path() / "shared/golden/bench";
}

bool load(const char* name, std::string& out, benchmark::State& state) {
  auto p = bench_dir() / name;
  if (!std::filesystem::exists(p)) {
    state.SkipWithError(("absent: " + p.string()).c_str());
    return false;
  }
  out = unieval::core::read_file(p.string());
  return true;
}

void BM_JsonParseSquadV2Dev(benchmark::State& state) {
  std::string text;
  if (!load("squad2_synth_dev.json.gz", text, state)) return;
  for (auto _ : state) {
    auto doc = unieval::core::JsonDocument::parse(text, "dev");
    benchmark::DoNotOptimize(doc.root().size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_JsonParseSquadV2Dev)->Unit(benchmark::kMillisecond);

// Document::parse_file: read, inflate (gzip) and parse, as the CLI does; bytes = JSON text.
void BM_JsonParseFileSquadV11Dev(benchmark::State& state) {
  std::string text;
  if (!load("squad11_synth_dev.json.gz", text, state)) return;
  const std::string path = (bench_dir() / "squad11_synth_dev.json.gz").string();
  for (auto _ : state) {
    auto doc = unieval::core::JsonDocument::parse_file(path);
    benchmark::DoNotOptimize(doc.root().size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_JsonParseFileSquadV11Dev)->Unit(benchmark::kMillisecond);

void BM_JsonParseCoqaDev(benchmark::State& state) {
  std::string text;
  if (!load("coqa_synth_dev.json.gz", text, state)) return;
  for (auto _ : state) {
    auto doc = unieval::core::JsonDocument::parse(text, "dev");
    benchmark::DoNotOptimize(doc.root().size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_JsonParseCoqaDev)->Unit(benchmark::kMillisecond);

void BM_SquadV2WithNaProbs(benchmark::State& state) {
  std::string dev, pred, na;
  if (!load("squad2_synth_dev.json.gz", dev, state) ||
      !load("squad2_synth_pred.json.gz", pred, state) ||
      !load("squad2_synth_na.json.gz", na, state))
    return;
  for (auto _ : state) {
    auto d = m::parse_squad_dataset(dev, "dev");
    auto p = m::parse_squad_predictions(pred, "pred");
    auto n = m::parse_squad_na_probs(na, "na");
    auto r = m::evaluate_squad(d, p, &n, {});
    benchmark::DoNotOptimize(r.f1);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size() + pred.size() + na.size()));
}
BENCHMARK(BM_SquadV2WithNaProbs)->Unit(benchmark::kMillisecond);

void BM_SquadV11(benchmark::State& state) {
  std::string dev, pred;
  if (!load("squad11_synth_dev.json.gz", dev, state) ||
      !load("squad11_synth_pred.json.gz", pred, state))
    return;
  for (auto _ : state) {
    auto r = m::evaluate_squad(m::parse_squad_dataset(dev, "dev"),
                               m::parse_squad_predictions(pred, "pred"), nullptr, {});
    benchmark::DoNotOptimize(r.f1);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size() + pred.size()));
}
BENCHMARK(BM_SquadV11)->Unit(benchmark::kMillisecond);

// Scoring alone (files parsed once, outside the loop).
void BM_SquadV11EvaluateOnly(benchmark::State& state) {
  std::string dev, pred;
  if (!load("squad11_synth_dev.json.gz", dev, state) ||
      !load("squad11_synth_pred.json.gz", pred, state))
    return;
  auto d = m::parse_squad_dataset(dev, "dev");
  auto p = m::parse_squad_predictions(pred, "pred");
  for (auto _ : state) {
    auto r = m::evaluate_squad(d, p, nullptr, {});
    benchmark::DoNotOptimize(r.f1);
  }
}
BENCHMARK(BM_SquadV11EvaluateOnly)->Unit(benchmark::kMillisecond);

// Building the dataset from the file (read, inflate, parse, collect questions).
void BM_SquadV11LoadDataset(benchmark::State& state) {
  std::string dev;
  if (!load("squad11_synth_dev.json.gz", dev, state)) return;
  const std::string path = (bench_dir() / "squad11_synth_dev.json.gz").string();
  for (auto _ : state) {
    auto d = m::load_squad_dataset(path);
    benchmark::DoNotOptimize(d.questions.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size()));
}
BENCHMARK(BM_SquadV11LoadDataset)->Unit(benchmark::kMillisecond);

// The dataset from text in memory: the cursor scan the readers use, against the core::JsonDocument
// they fall back to (bytes = JSON text).
void squad_dataset_from_text(benchmark::State& state, bool document) {
  std::string dev;
  if (!load("squad11_synth_dev.json.gz", dev, state)) return;
  for (auto _ : state) {
    auto d = document ? m::parse_squad_dataset_with_document(dev, "dev")
                      : m::parse_squad_dataset(dev, "dev");
    benchmark::DoNotOptimize(d.questions.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size()));
}
void BM_SquadV11DatasetCursor(benchmark::State& state) { squad_dataset_from_text(state, false); }
void BM_SquadV11DatasetDocument(benchmark::State& state) { squad_dataset_from_text(state, true); }
BENCHMARK(BM_SquadV11DatasetCursor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SquadV11DatasetDocument)->Unit(benchmark::kMillisecond);

// Reading and inflating the dev file and checking it is UTF-8 (what precedes any scan).
void BM_SquadV11ReadText(benchmark::State& state) {
  std::string dev;
  if (!load("squad11_synth_dev.json.gz", dev, state)) return;
  const std::string path = (bench_dir() / "squad11_synth_dev.json.gz").string();
  for (auto _ : state) {
    auto text = unieval::core::JsonDocument::read_text(path);
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size()));
}
BENCHMARK(BM_SquadV11ReadText)->Unit(benchmark::kMillisecond);

void BM_SquadV11Predictions(benchmark::State& state) {
  std::string pred;
  if (!load("squad11_synth_pred.json.gz", pred, state)) return;
  for (auto _ : state) {
    auto p = m::parse_squad_predictions(pred, "pred");
    benchmark::DoNotOptimize(p.ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(pred.size()));
}
BENCHMARK(BM_SquadV11Predictions)->Unit(benchmark::kMillisecond);

void BM_Coqa(benchmark::State& state) {
  std::string dev, pred;
  if (!load("coqa_synth_dev.json.gz", dev, state) || !load("coqa_synth_pred.json.gz", pred, state))
    return;
  for (auto _ : state) {
    auto r = m::evaluate_coqa(m::parse_coqa_dataset(dev, "dev"),
                              m::parse_coqa_predictions(pred, "pred"));
    benchmark::DoNotOptimize(r.rows.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(dev.size() + pred.size()));
}
BENCHMARK(BM_Coqa)->Unit(benchmark::kMillisecond);

// 20,000 lines of ~25 tokens over a Zipf-like 5,010-word vocabulary (the shape of the
// cli_bench.py corpus; DSTC7 + PLATO scripts take 5.7 s for Entropy-4 + Div-1/2 + distinct).
const std::vector<std::string>& dialogue_corpus() {
  static const std::vector<std::string> lines = [] {
    std::mt19937_64 rng(13);
    std::vector<double> w;
    for (int i = 0; i < 5010; ++i) w.push_back(1.0 / std::pow(i + 1, 0.8));
    std::discrete_distribution<int> word(w.begin(), w.end());
    std::normal_distribution<double> len(25, 6);
    std::vector<std::string> out;
    for (int i = 0; i < 20000; ++i) {
      std::string l;
      for (int k = 0, n = std::max(1, static_cast<int>(len(rng))); k < n; ++k)
        l += (k ? " w" : "w") + std::to_string(word(rng));
      out.push_back(std::move(l));
    }
    return out;
  }();
  return lines;
}

int64_t corpus_bytes() {
  int64_t b = 0;
  for (const auto& l : dialogue_corpus()) b += static_cast<int64_t>(l.size()) + 1;
  return b;
}

void BM_Entropy4(benchmark::State& state) {
  const auto& lines = dialogue_corpus();
  for (auto _ : state) {
    auto r = m::entropy(lines, {});
    benchmark::DoNotOptimize(r.entropy.data());
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_Entropy4)->Unit(benchmark::kMillisecond);

void BM_DistinctDstc7(benchmark::State& state) {
  const auto& lines = dialogue_corpus();
  for (auto _ : state) {
    auto r = m::distinct(lines, {});
    benchmark::DoNotOptimize(r.div.data());
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_DistinctDstc7)->Unit(benchmark::kMillisecond);

void BM_DistinctPlato(benchmark::State& state) {
  const auto& lines = dialogue_corpus();
  m::DistinctOptions o;
  o.flavour = m::DistinctFlavour::kPlato;
  for (auto _ : state) {
    auto r = m::distinct(lines, o);
    benchmark::DoNotOptimize(r.intra.data());
  }
  state.SetBytesProcessed(state.iterations() * corpus_bytes());
}
BENCHMARK(BM_DistinctPlato)->Unit(benchmark::kMillisecond);

}  // namespace
