// Regression gate semantics and leaderboard rendering.
#include "results/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "results/report.h"

namespace unieval::results {
namespace {

RunResult run(const std::string& system, double exact, double f1,
              const std::string& sig = "squad|v:2.0") {
  RunResult r;
  r.task = "squad-v2";
  r.split = "dev";
  r.system = system;
  r.data_sha256 = std::string(64, 'b');
  r.metrics.push_back({"squad-v2", sig, {}});
  r.scores.push_back({"exact", exact, "squad-v2", "percent", true, std::nullopt});
  r.scores.push_back({"f1", f1, "squad-v2", "percent", true, std::nullopt});
  return r;
}

TEST(CompareTest, IdenticalRunsAreSame) {
  auto c = compare_runs(run("a", 78.7, 81.8), run("a", 78.7, 81.8));
  EXPECT_TRUE(c.compatible);
  EXPECT_FALSE(c.regression);
  for (const auto& r : c.rows) EXPECT_EQ(r.status, CompareStatus::kSame);
}

TEST(CompareTest, DropIsRegressionUnlessTolerated) {
  auto c = compare_runs(run("a", 78.7, 81.8), run("b", 78.6, 81.9));
  EXPECT_TRUE(c.regression);
  EXPECT_EQ(c.rows[0].status, CompareStatus::kRegression);
  EXPECT_NEAR(c.rows[0].diff, -0.1, 1e-12);
  EXPECT_EQ(c.rows[1].status, CompareStatus::kImproved);
  auto t = compare_runs(run("a", 78.7, 81.8), run("b", 78.6, 81.9), {{{"exact", 0.2}}});
  EXPECT_FALSE(t.regression);
  EXPECT_EQ(t.rows[0].status, CompareStatus::kWithinTolerance);
  auto star = compare_runs(run("a", 78.7, 81.8), run("b", 78.6, 81.9), {{{"*", 0.05}}});
  EXPECT_TRUE(star.regression);
}

TEST(CompareTest, LowerIsBetterScores) {
  RunResult a = run("a", 1, 1), b = run("b", 1, 1);
  a.scores.push_back({"loss", 2.0, "squad-v2", "raw", false, std::nullopt});
  b.scores.push_back({"loss", 2.5, "squad-v2", "raw", false, std::nullopt});
  auto c = compare_runs(a, b);
  EXPECT_TRUE(c.regression);
  EXPECT_EQ(c.rows[2].status, CompareStatus::kRegression);
  EXPECT_FALSE(compare_runs(b, a).regression);
}

TEST(CompareTest, MissingScoreIsRegressionNewIsNot) {
  RunResult a = run("a", 1, 1), b = run("b", 1, 1);
  b.scores.pop_back();
  EXPECT_TRUE(compare_runs(a, b).regression);
  EXPECT_EQ(compare_runs(a, b).rows[1].status, CompareStatus::kMissing);
  auto c = compare_runs(b, a);
  EXPECT_FALSE(c.regression);
  EXPECT_EQ(c.rows.back().status, CompareStatus::kNew);
}

TEST(CompareTest, DifferentSignaturesTaskOrDataAreIncompatible) {
  EXPECT_FALSE(compare_runs(run("a", 1, 1), run("a", 1, 1, "squad|v:2.0|thresh:0.5")).compatible);
  RunResult other = run("a", 1, 1);
  other.task = "squad-v1.1";
  EXPECT_FALSE(compare_runs(run("a", 1, 1), other).compatible);
  RunResult data = run("a", 1, 1);
  data.data_sha256 = std::string(64, 'c');
  auto c = compare_runs(run("a", 1, 1), data);
  EXPECT_FALSE(c.compatible);
  ASSERT_EQ(c.incompatibilities.size(), 1u);
  EXPECT_NE(c.incompatibilities[0].find("data differs"), std::string::npos);
}

TEST(CompareTest, SubsetAndUnhashedDataAreIncompatible) {
  RunResult subset = run("a", 1, 1);
  RunResult full = run("a", 1, 1);
  full.examples = 6652;
  subset.examples = 42;
  auto c = compare_runs(full, subset);
  EXPECT_FALSE(c.compatible);
  EXPECT_NE(c.incompatibilities.at(0).find("example count differs: 6652 vs 42"), std::string::npos);
  RunResult unhashed = run("a", 1, 1);
  unhashed.data_sha256.clear();
  EXPECT_FALSE(compare_runs(run("a", 1, 1), unhashed).compatible);
  EXPECT_FALSE(compare_runs(unhashed, unhashed).compatible);
  RunResult extra_metric = run("a", 1, 1);
  extra_metric.metrics.push_back({"bleu", "bleu|v:1", {}});
  EXPECT_FALSE(compare_runs(run("a", 1, 1), extra_metric).compatible);
}

TEST(CompareTest, ToleranceFromTheBaselineFileAndByInterval) {
  RunResult base = run("a", 78.7, 81.8), cur = run("b", 78.2, 81.8);
  EXPECT_TRUE(compare_runs(base, cur).regression);
  base.extra["tolerances"] = {{"exact", 0.6}};
  auto c = compare_runs(base, cur);
  EXPECT_FALSE(c.regression);
  EXPECT_EQ(c.rows[0].tolerance_from, "baseline file");
  EXPECT_TRUE(compare_runs(base, cur, {{{"exact", 0.1}}}).regression);  // the command line wins
  base.extra.erase("tolerances");
  base.scores[0].ci = ConfidenceInterval{78.0, 79.4, 0.95, "bootstrap-percentile", 1000, 12345};
  CompareOptions by_ci;
  by_ci.by_ci = true;
  auto i = compare_runs(base, cur, by_ci);
  EXPECT_FALSE(i.regression);
  EXPECT_EQ(i.rows[0].status, CompareStatus::kWithinInterval);
  cur.scores[0].value = 77.9;
  EXPECT_TRUE(compare_runs(base, cur, by_ci).regression);
}

TEST(CompareTest, UnknownToleranceNameIsAnError) {
  EXPECT_THROW(compare_runs(run("a", 1, 1), run("a", 1, 1), {{{"F1", 0.1}}}), InputError);
}

TableOptions opts(TableFormat f, const std::string& sort_by = "") {
  TableOptions o;
  o.format = f;
  o.sort_by = sort_by;
  return o;
}

TEST(LeaderboardTest, SortedBestMarkedSignatureUnderneath) {
  std::vector<RunResult> runs = {run("low", 60, 70), run("high", 80, 65)};
  std::string md = render_leaderboard(runs, opts(TableFormat::kMarkdown));
  EXPECT_LT(md.find("| high"), md.find("| low"));      // sorted by the first column
  EXPECT_NE(md.find("**80.00**"), std::string::npos);  // best exact
  EXPECT_NE(md.find("**70.00**"), std::string::npos);  // best f1 belongs to "low"
  EXPECT_EQ(md.find("**60.00**"), std::string::npos);
  EXPECT_NE(md.find("signature squad-v2: squad|v:2.0"), std::string::npos);
  std::string by_f1 = render_leaderboard(runs, opts(TableFormat::kMarkdown, "f1"));
  EXPECT_LT(by_f1.find("| low"), by_f1.find("| high"));
  std::string tex = render_leaderboard(runs, opts(TableFormat::kLatex));
  EXPECT_NE(tex.find("\\textbf{80.00}"), std::string::npos);
  std::string html = render_leaderboard(runs, opts(TableFormat::kHtml));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<td class=\"num best\" data-k=\"80.0\""),
            std::string::npos);  // best exact, bold
  EXPECT_NE(html.find("<td class=\"num best\" data-k=\"70.0\""), std::string::npos);  // best f1
  EXPECT_EQ(html.find("<td class=\"num best\" data-k=\"60.0\""), std::string::npos);
  EXPECT_LT(html.find("data-k=\"high\""), html.find("data-k=\"low\""));
  std::string csv = render_leaderboard(runs, opts(TableFormat::kCsv));
  EXPECT_NE(csv.find("\nhigh,80.00,65.00\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nbest,high,low\n"), std::string::npos) << csv;
}

TEST(LeaderboardTest, RefusesMixedSignatures) {
  std::vector<RunResult> runs = {run("a", 1, 1), run("b", 1, 1, "squad|v:2.0|thresh:0.5")};
  EXPECT_THROW(render_leaderboard(runs, {}), InputError);
}

TEST(LeaderboardTest, OneTablePerTask) {
  RunResult other = run("x", 1, 1);
  other.task = "squad-v1.1";
  std::string md = render_leaderboard({run("a", 1, 1), other}, {});
  EXPECT_NE(md.find("**squad-v2 (dev)**"), std::string::npos);
  EXPECT_NE(md.find("**squad-v1.1 (dev)**"), std::string::npos);
}

}  // namespace
}  // namespace unieval::results
