// GPT Table 3 from `unieval eval` results of the race / race-m / race-h / story-cloze adapters:
// each column takes the run of its own task.
#include <gtest/gtest.h>

#include "results/run_result.h"
#include "tasks/reproduce.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using unieval::testing::TempDir;

void write_accuracy(const std::string& path, const std::string& task, double acc) {
  results::RunResult r;
  r.task = task;
  r.split = "test";
  r.tool_version = "0";
  r.metrics.push_back({"accuracy", "accuracy|task:" + task, {}});
  r.scores.push_back({"accuracy", acc, "accuracy", "fraction", true, std::nullopt});
  results::write_run_result(path, r);
}

TEST(ReproduceGptTest, RaceColumnsTakeTheirOwnRuns) {
  TempDir out, empty;
  auto dir = out.path() / "finetuned-transformer-lm-ours";
  std::filesystem::create_directories(dir);
  // "a-" sorts the overall run first: a prefix match alone would give it RACE-m and RACE-h too.
  write_accuracy((dir / "a-race.result.json").string(), "race", 0.590);
  write_accuracy((dir / "b-race-m.result.json").string(), "race-m", 0.620);
  write_accuracy((dir / "c-race-h.result.json").string(), "race-h", 0.579);
  write_accuracy((dir / "d-story.result.json").string(), "story-cloze", 0.8615);
  ReproduceOptions o;
  o.paper = "gpt";
  o.table = "3";
  o.outputs_dir = out.path().string();
  o.data_dir = empty.path().string();
  auto r = reproduce(o);
  const ReproducedRow* mine = nullptr;
  for (const auto& row : r.rows)
    if (row.system == "Finetuned Transformer LM (ours)") mine = &row;
  ASSERT_NE(mine, nullptr);
  std::map<std::string, double> ours;
  for (const auto& c : mine->cells)
    if (c.ours) ours[c.column] = *c.ours;
  EXPECT_NEAR(ours["RACE"], 59.0, 1e-9);
  EXPECT_NEAR(ours["RACE-m"], 62.0, 1e-9);
  EXPECT_NEAR(ours["RACE-h"], 57.9, 1e-9);
  EXPECT_NEAR(ours["Story Cloze"], 86.15, 1e-9);
}

}  // namespace
}  // namespace unieval::tasks
