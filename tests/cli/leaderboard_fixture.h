#pragma once
// Result files for the leaderboard tests (table_test, browser_test): three systems on squad-v2
// dev with seeded per-example EM/F1 (so the paired bootstrap has something to test), one with a
// confidence interval, one named as a row of UniLM Table 5 (BERT_LARGE) and one whose name
// needs escaping.
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace unieval::testing {

struct FixtureRun {
  std::string path;
  std::string system;
  double exact = 0, f1 = 0;
};

// p_right: chance that an example is exactly right; n examples; seed for the draws.
inline FixtureRun write_fixture_run(const TempDir& tmp, const std::string& file,
                                    const std::string& system, double p_right, unsigned seed,
                                    int n = 400, bool with_ci = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  nlohmann::ordered_json ex = nlohmann::ordered_json::array();
  double se = 0, sf = 0;
  for (int i = 0; i < n; ++i) {
    double e = u(rng) < p_right ? 1 : 0;
    double f = e == 1 ? 1 : std::round(u(rng) * 600) / 1000;
    se += e;
    sf += f;
    ex.push_back({{"id", "q" + std::to_string(i)}, {"scores", {{"exact", e}, {"f1", f}}}});
  }
  FixtureRun r{"", system, 100 * se / n, 100 * sf / n};
  nlohmann::ordered_json exact = {{"name", "exact"},
                                  {"value", r.exact},
                                  {"metric", "squad-v2"},
                                  {"unit", "percent"},
                                  {"higher_is_better", true}};
  if (with_ci)
    exact["ci"] = {{"low", r.exact - 1.25}, {"high", r.exact + 1.5},
                   {"level", 0.95},         {"method", "bootstrap-percentile"},
                   {"resamples", 1000},     {"seed", 12345}};
  nlohmann::ordered_json j = {
      {"schema_version", 1},
      {"tool", {{"name", "unieval"}, {"version", "0.1.0"}, {"commit", "abc123def456"}}},
      {"created", "2026-11-26T06:00:00Z"},
      {"task", "squad-v2"},
      {"split", "dev"},
      {"system", system},
      {"data", {{"path", "dev-v2.0.json"}, {"sha256", std::string(64, 'd')}, {"examples", n}}},
      {"predictions", {{"path", file + ".pred.json"}, {"sha256", std::string(64, 'e')}}},
      {"metrics", {{{"id", "squad-v2"}, {"signature", "squad|v:2.0|official:evaluate-v2.0.py"}}}},
      {"scores",
       {exact, {{"name", "f1"}, {"value", r.f1}, {"metric", "squad-v2"}, {"unit", "percent"}}}},
      {"per_example", ex},
      {"notes", {"fixture note for " + system}}};
  r.path = tmp.write(file, j.dump(2));
  return r;
}

// The three runs: BERT_LARGE (best), alpha-sys (well below), "beta & <gamma>" (close to the best).
inline std::vector<FixtureRun> write_fixture_runs(const TempDir& tmp) {
  return {write_fixture_run(tmp, "r1.json", "BERT_LARGE", 0.79, 1),
          write_fixture_run(tmp, "r2.json", "alpha-sys", 0.55, 2, 400, false),
          write_fixture_run(tmp, "r3.json", "beta & <gamma>", 0.78, 3)};
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The shortest text that reads back as v, as the result file and the page hold it.
inline std::string json_number(double v) { return nlohmann::json(v).dump(); }

}  // namespace unieval::testing
