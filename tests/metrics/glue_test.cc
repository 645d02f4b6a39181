// GLUE metrics against sklearn/scipy: every golden line of ../shared/golden/glue.jsonl, the
// GLUE dev files in ../shared/data/glue parse in their distributed layouts, edge cases.
#include "metrics/glue.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::read_jsonl;
using unieval::testing::shared_dir;

void expect_close(double want, double got, const std::string& what) {
  EXPECT_NEAR(want, got, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

TEST(GlueTest, GoldenTaskMetrics) {
  UNIEVAL_REQUIRE_SHARED("golden/glue.jsonl");
  int n = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/glue.jsonl")) {
    std::string metric = c["metric"];
    if (metric == "glue_score") continue;
    ++n;
    std::string id = c["id"];
    std::string task = c["options"]["task"];
    if (task.find('/') != std::string::npos) task = task.substr(0, task.find('/'));
    auto labels = c["inputs"]["labels"].get<std::vector<double>>();
    auto preds = c["inputs"]["predictions"].get<std::vector<double>>();
    auto r = glue_compute_metrics(parse_glue_task(task), labels, preds);
    auto j = r.to_json();
    for (auto it = c["expected"].begin(); it != c["expected"].end(); ++it) {
      std::string k = it.key();
      if (k == "simple_accuracy_mean_eq") k = "accuracy";
      ASSERT_TRUE(j.contains(k)) << id << " " << k;
      if (it.value().is_null()) {
        EXPECT_TRUE(j[k].is_null()) << id << " " << k << " should be null (NaN)";
        EXPECT_FALSE(r.warnings.empty()) << id;
      } else {
        ASSERT_FALSE(j[k].is_null()) << id << " " << k;
        expect_close(it.value().get<double>(), j[k].get<double>(), id + " " + k);
      }
    }
  }
  EXPECT_EQ(131, n);
}

TEST(GlueTest, GoldenGlueScore) {
  UNIEVAL_REQUIRE_SHARED("golden/glue.jsonl");
  int n = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/glue.jsonl")) {
    if (c["metric"] != "glue_score") continue;
    ++n;
    std::string id = c["id"];
    auto g = glue_score(c["inputs"]["task_metrics"], {});
    expect_close(c["expected"]["glue_score_mnli_avg_9tasks"].get<double>(), g.score_mnli_avg, id);
    expect_close(c["expected"]["glue_score_mnli_m_only_9tasks"].get<double>(), g.score_mnli_m_only,
                 id);
    EXPECT_EQ(g.score, g.score_mnli_avg) << id << ": default convention is mean(m, mm)";
    auto j = g.to_json();
    for (auto it = c["expected"]["per_task"].begin(); it != c["expected"]["per_task"].end(); ++it)
      expect_close(it.value().get<double>(), j["per_task"][it.key()].get<double>(),
                   id + " " + it.key());
  }
  EXPECT_EQ(30, n);
}

TEST(GlueTest, LeaderboardConventionReproducesBertLarge) {
  // BERT-large GLUE leaderboard row (Devlin et al. 2019, Table 1 + leaderboard WNLI 65.1): 80.5.
  nlohmann::json tm = {{"CoLA", {{"mcc", 60.5}}},
                       {"SST-2", {{"acc", 94.9}}},
                       {"MRPC", {{"f1", 89.3}, {"acc", 85.4}}},
                       {"STS-B", {{"pearson", 87.6}, {"spearman", 86.5}}},
                       {"QQP", {{"f1", 72.1}, {"acc", 89.3}}},
                       {"MNLI-m", {{"acc", 86.7}}},
                       {"MNLI-mm", {{"acc", 85.9}}},
                       {"QNLI", {{"acc", 92.7}}},
                       {"RTE", {{"acc", 70.1}}},
                       {"WNLI", {{"acc", 65.1}}},
                       {"AX", {{"mcc", 39.6}}}};
  auto g = glue_score(tm, {});
  EXPECT_NEAR(80.5, g.score, 0.05);
  nlohmann::json partial = {{"CoLA", {{"mcc", 1.0}}}};
  EXPECT_THROW(glue_score(partial, {}), InputError);
}

TEST(GlueTest, EdgeCases) {
  EXPECT_EQ(0.0, matthews_corrcoef({0, 1, 1, 0}, {1, 1, 1, 1}));  // constant predictions
  EXPECT_EQ(0.0, matthews_corrcoef({1, 1, 1}, {0, 1, 0}));        // constant labels
  EXPECT_EQ(0.0, glue_f1({0, 0}, {0, 0}));                        // no positive at all
  EXPECT_TRUE(std::isnan(pearson_r({2, 2, 2}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(spearman_r({1, 2, 3}, {5, 5, 5})));
  expect_close(1.0, spearman_r({1, 2, 2, 3}, {10, 20, 20, 30}), "ties share the mean rank");
  auto r = glue_compute_metrics(GlueTask::kStsb, {1, 2, 3}, {2, 2, 2});
  EXPECT_TRUE(r.to_json()["pearson"].is_null());
  EXPECT_TRUE(r.to_json()["corr"].is_null());
  EXPECT_FALSE(r.warnings.empty());
  EXPECT_THROW(glue_compute_metrics(GlueTask::kSst2, {1, 0}, {1}), InputError);
}

TEST(GlueTest, LabelFiles) {
  auto plain = parse_glue_labels("entailment\nnot_entailment\n1\n", "p", GlueTask::kRte);
  EXPECT_EQ(std::vector<double>({0, 1, 1}), plain);
  auto sub =
      parse_glue_labels("index\tprediction\n0\tneutral\n1\tcontradiction\n", "s", GlueTask::kMnli);
  EXPECT_EQ(std::vector<double>({2, 0}), sub);
  auto cola = parse_glue_labels(
      "gj04\t1\t\tThe sailors rode the breeze clear of the rocks.\ngj04\t0\t*\tBad one.\n", "cola",
      GlueTask::kCola);
  EXPECT_EQ(std::vector<double>({1, 0}), cola);
  try {
    parse_glue_labels("label\nentailment\nmaybe\n", "g.tsv", GlueTask::kQnli);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(3, e.line());
    EXPECT_NE(std::string(e.what()).find("maybe"), std::string::npos);
  }
}

TEST(GlueTest, RealDevFilesParse) {
  struct Case {
    const char* file;
    GlueTask task;
    size_t rows;
  };
  for (const Case& c : {Case{"QNLI.dev.tsv.gz", GlueTask::kQnli, 5463},
                        Case{"STS-B.dev.tsv.gz", GlueTask::kStsb, 1500},
                        Case{"SST-2.dev.tsv.gz", GlueTask::kSst2, 872},
                        Case{"RTE.dev.hf-export.tsv.gz", GlueTask::kRte, 277}}) {
    auto p = shared_dir() / "data/glue" / c.file;
    if (!std::filesystem::exists(p)) GTEST_SKIP() << "shared resource absent: " << p;
    auto labels = read_glue_labels(p.string(), c.task);
    EXPECT_EQ(c.rows, labels.size()) << c.file;
    if (c.task == GlueTask::kQnli) {
      EXPECT_EQ(2761, std::count(labels.begin(), labels.end(), 1.0));  // not_entailment
    }
    if (c.task == GlueTask::kRte) {
      EXPECT_EQ(131, std::count(labels.begin(), labels.end(), 1.0));
    }
    if (c.task == GlueTask::kSst2) {
      EXPECT_EQ(444, std::count(labels.begin(), labels.end(), 1.0));
    }
    // Scoring gold against itself: perfect.
    auto r = glue_compute_metrics(c.task, labels, labels).to_json();
    if (c.task == GlueTask::kStsb)
      expect_close(1.0, r["pearson"].get<double>(), c.file);
    else
      EXPECT_EQ(1.0, r["accuracy"].get<double>()) << c.file;
  }
}

}  // namespace
}  // namespace unieval::metrics
