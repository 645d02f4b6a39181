// `unieval eval` through the metric protocol (metrics/protocol.h, tasks/metric_set.h) prints the
// same result as before it did (tests/tasks/fixtures/eval/snapshots/, written by the binary of the
// commit before, with make_snapshots.py), for every case of tests/tasks/fixtures/eval/cases.json:
// squad-qg (both splits, both pipelines, with and without METEOR), dstc7 (with references, raw,
// reference-free, the constant baseline), personachat, cnndm, GLUE with bootstrap CIs.
// Same normalisation as make_snapshots.py: run-dependent fields and input paths dropped, fixture
// and ../shared paths in notes as {fix} / {shared}; for a case with "skip" the old binary left
// METEOR out silently and the new one on request (--skip-metric), and the notes saying so are
// dropped (the notes are checked separately: eval_tasks_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;

const fs::path& fixture_dir() {
  static const fs::path dir = fs::path(UNIEVAL_SOURCE_DIR) / "tests/tasks/fixtures/eval";
  return dir;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

std::string expand(const std::string& s) {
  return replace_all(replace_all(s, "{fix}", fixture_dir().string()), "{shared}",
                     shared_dir().string());
}

// The warnings of tasks/diagnostics.h diagnostic_warnings().
bool is_diagnostics_warning(const std::string& t) {
  auto has = [&](const char* s) { return t.find(s) != std::string::npos; };
  return (has(" hypotheses (") &&
          (has(") are empty or whitespace only") || has(") repeat a word 3 or more times"))) ||
         (t.rfind("hypotheses are ", 0) == 0 && has(" times as long as the references")) ||
         (t.rfind("one hypothesis, ", 0) == 0 && has("more than 20%"));
}

ordered_json normalise(ordered_json j, bool skip) {
  for (const char* k : {"tool", "created", "timings", "machine"}) j.erase(k);
  j["data"].erase("path");
  j["predictions"].erase("path");
  // Provenance added after the snapshots were taken, not numbers: the adapter options given are
  // recorded (eval_options, read by reproduce); folder datasets are hashed (below).
  j.erase("eval_options");
  // Added after the snapshots too: the output diagnostics of generation tasks and their warnings
  // in the notes (tasks/diagnostics.h; checked in eval_tasks_test.cc and diagnostics_test.cc).
  j.erase("diagnostics");
  if (!j.contains("notes")) return j;
  ordered_json notes = ordered_json::array();
  for (const auto& n : j["notes"]) {
    std::string t = n.get<std::string>();
    if (skip && (t.find("METEOR skipped") != std::string::npos ||
                 t.find("left out at the user's request") != std::string::npos))
      continue;
    if (is_diagnostics_warning(t)) continue;
    notes.push_back(replace_all(replace_all(t, fixture_dir().string(), "{fix}"),
                                shared_dir().string(), "{shared}"));
  }
  if (notes.empty())
    j.erase("notes");
  else
    j["notes"] = notes;
  return j;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(CliEvalIdentityTest, EveryCaseAsBefore) {
  unsetenv("UNIEVAL_METEOR_DATA");
  unsetenv("UNIEVAL_ROUGE_DATA");
  const auto cases = nlohmann::json::parse(read(fixture_dir() / "cases.json"));
  ASSERT_GE(cases.size(), 10u);
  int compared = 0;
  for (const auto& c : cases) {
    const std::string name = c["name"];
    bool present = true;
    for (const auto& p : c.value("requires", nlohmann::json::array()))
      present &= fs::exists(expand(p));
    if (!present) {
      std::cerr << "[ skipped  ] " << name << ": shared resource absent\n";
      continue;
    }
    std::string args = "eval";
    for (const auto& a : c["args"]) args += " " + shq(expand(a));
    const bool skip = c.contains("skip");
    for (const auto& m : c.value("skip", nlohmann::json::array()))
      args += " --skip-metric " + shq(m.get<std::string>());
    auto r = run_cli(args + " --json");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const fs::path snap = fixture_dir() / "snapshots" / (name + ".json");
    ASSERT_TRUE(fs::exists(snap)) << snap;
    const ordered_json want = ordered_json::parse(read(snap));
    ordered_json got = normalise(ordered_json::parse(r.out), skip);
    // Folder datasets had no hash when the snapshots were taken (sha256_path hashes them now).
    if (want["data"].value("sha256", "x").empty() && got["data"].contains("sha256")) {
      EXPECT_EQ(got["data"]["sha256"].get<std::string>().size(), 64u) << name;
      got["data"]["sha256"] = "";
    }
    EXPECT_EQ(got.dump(1), want.dump(1)) << name;
    ++compared;
  }
  EXPECT_GE(compared, 8);  // the cases without ../shared
}

}  // namespace
