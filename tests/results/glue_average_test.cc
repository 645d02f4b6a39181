// The GLUE average table of `unieval table` (results/glue_average.h): per-task GLUE numbers, the
// average over the tasks present with MNLI counted once, non-GLUE results ignored.
#include "results/glue_average.h"

#include <gtest/gtest.h>

#include "results/report.h"

namespace unieval::results {
namespace {

RunResult glue(const std::string& task, const std::string& system,
               std::map<std::string, double> scores) {
  RunResult r;
  r.task = task;
  r.system = system;
  r.split = "dev";
  r.metrics.push_back({"glue", "glue|x", {}});
  for (const auto& [k, v] : scores)
    r.scores.push_back({k, v, "glue", "fraction", true, std::nullopt});
  return r;
}

TEST(GlueAverageTest, PerTaskNumbersAndTheAverageOverTasksPresent) {
  std::vector<RunResult> runs = {
      glue("glue-sst2", "A", {{"accuracy", 0.90}}),
      glue("glue-cola", "A", {{"accuracy", 0.80}, {"mcc", 0.50}}),
      glue("glue-mrpc", "A", {{"accuracy", 0.80}, {"f1", 0.90}, {"acc_and_f1", 0.85}}),
      glue("glue-stsb", "A", {{"pearson", 0.88}, {"spearman", 0.86}, {"corr", 0.87}}),
      glue("glue-mnli", "A", {{"accuracy", 0.84}}),
      glue("glue-mnli-mm", "A", {{"accuracy", 0.82}}),
      glue("glue-sst2", "B", {{"accuracy", 0.70}}),
  };
  RunResult other;
  other.task = "squad-v2";
  other.system = "A";
  runs.push_back(other);
  auto rows = glue_average_rows(runs);
  ASSERT_EQ(rows.size(), 2u);
  const RunResult& a = rows[0];
  EXPECT_EQ(a.task, "glue-average");
  EXPECT_EQ(a.system, "A");
  EXPECT_DOUBLE_EQ(a.score("CoLA")->value, 50.0);
  EXPECT_DOUBLE_EQ(a.score("MRPC")->value, 85.0);
  EXPECT_DOUBLE_EQ(a.score("STS-B")->value, 87.0);
  EXPECT_DOUBLE_EQ(a.score("MNLI-mm")->value, 82.0);
  // SST-2 90, CoLA 50, MRPC 85, STS-B 87, MNLI (84 + 82) / 2 = 83: five tasks.
  EXPECT_NEAR(a.score("average")->value, (90.0 + 50 + 85 + 87 + 83) / 5, 1e-9);
  EXPECT_DOUBLE_EQ(a.score("tasks")->value, 5.0);
  EXPECT_DOUBLE_EQ(rows[1].score("average")->value, 70.0);
  EXPECT_DOUBLE_EQ(rows[1].score("tasks")->value, 1.0);
  // Rendered as one leaderboard (same signature for every row).
  const std::string md = render_leaderboard(rows, {});
  EXPECT_NE(md.find("average"), std::string::npos) << md;
  EXPECT_NE(md.find("85.00"), std::string::npos) << md;
  EXPECT_TRUE(glue_average_rows({other}).empty());
}

}  // namespace
}  // namespace unieval::results
