// `unieval reproduce --outputs RUN`: a `unieval run` result is placed in its row of UniLM Table 8
// and refused when its split, size or metric settings differ from the table's.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "pipelines/reproduce.h"
#include "results/run_result.h"
#include "tests/test_util.h"

namespace unieval::pipelines {
namespace {

using testing::TempDir;

// A run directory as `unieval run` leaves it: request.json + result.json with a "run" block.
std::string write_run(const TempDir& d, const std::string& name, const std::string& task,
                      const std::string& split, long eval_examples, long eval_limit,
                      const nlohmann::json& eval_options,
                      const std::string& system = "unieval-run:squad-qg") {
  results::RunResult r;
  r.task = task;
  r.split = split;
  r.system = system;
  r.examples = eval_examples;
  r.metrics.push_back({"bleu-coco", "bleu-coco|n:4", {}});
  r.scores.push_back({"bleu4", 0.2212, "bleu-coco", "fraction", true, std::nullopt});
  r.metrics.push_back({"rouge-coco", "rouge-coco|beta:1.2", {}});
  r.scores.push_back({"rougeL", 0.40, "rouge-coco", "fraction", true, std::nullopt});
  nlohmann::ordered_json req = {{"task", task}, {"eval_split", split}, {"eval_limit", eval_limit}};
  req["eval_options"] = eval_options;
  r.extra["run"] = {{"request", req},
                    {"eval_examples", eval_examples},
                    {"checkpoint_sha256", std::string(64, 'a')}};
  const auto dir = d.path() / name;
  std::filesystem::create_directories(dir);
  d.write(name + "/request.json", req.dump());
  results::write_run_result((dir / "result.json").string(), r);
  return dir.string();
}

ReproduceOptions table8(std::vector<std::string> runs) {
  ReproduceOptions o;
  o.paper = "unilm";
  o.table = "8";
  o.runs = std::move(runs);
  return o;
}

const ReproducedRow* row(const Reproduction& r, const std::string& block_part,
                         const std::string& system) {
  for (const auto& x : r.rows)
    if (x.system == system && x.block.find(block_part) != std::string::npos) return &x;
  return nullptr;
}

TEST(ReproduceRun, PlacesRunsInThePapersRowOfTheirBlock) {
  TempDir d;
  const auto orig = write_run(d, "qg", "squad-qg", "test", 11877, 0, nlohmann::json::object());
  const auto rev =
      write_run(d, "qgr", "squad-qg-reversed", "test", 10570, 0, {{"meteor_data", "/x"}});
  Reproduction r = reproduce(table8({orig, rev}));
  const ReproducedRow* a = row(r, "Original", "UniLM");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->source.find("qg/result.json"), std::string::npos) << a->source;
  ASSERT_TRUE(a->cells[0].ours.has_value());
  EXPECT_NEAR(*a->cells[0].ours, 22.12, 1e-9);  // BLEU-4 x 100
  EXPECT_EQ(a->cells[0].status, CellStatus::kMatch);
  const ReproducedRow* b = row(r, "Reversed", "UniLM");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->source.find("qgr/result.json"), std::string::npos) << b->source;
  EXPECT_TRUE(row(r, "Original", "SemQG [50]")->source.empty());
  // A run labelled with a row's system goes to that row.
  const auto named =
      write_run(d, "semqg", "squad-qg", "test", 11877, 0, nlohmann::json::object(), "SemQG [50]");
  Reproduction r2 = reproduce(table8({named}));
  EXPECT_FALSE(row(r2, "Original", "SemQG [50]")->source.empty());
  EXPECT_TRUE(row(r2, "Original", "UniLM")->source.empty());
}

std::string refusal(const std::string& run) {
  try {
    reproduce(table8({run}));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReproduceRun, RefusesOtherSplitSizeOrMetricSettings) {
  TempDir d;
  std::string e =
      refusal(write_run(d, "dev", "squad-qg", "dev", 10570, 0, nlohmann::json::object()));
  EXPECT_NE(e.find("split dev"), std::string::npos) << e;
  EXPECT_NE(e.find("dev/result.json"), std::string::npos) << e;
  e = refusal(write_run(d, "lim", "squad-qg", "test", 50, 50, nlohmann::json::object()));
  EXPECT_NE(e.find("full split (11877)"), std::string::npos) << e;
  e = refusal(write_run(d, "small", "squad-qg", "test", 11000, 0, nlohmann::json::object()));
  EXPECT_NE(e.find("11000"), std::string::npos) << e;
  e = refusal(write_run(d, "opt", "squad-qg", "test", 11877, 0, {{"fix_tokenization", "false"}}));
  EXPECT_NE(e.find("fix_tokenization=false"), std::string::npos) << e;
  e = refusal(write_run(d, "cnn", "cnndm", "test", 11490, 0, nlohmann::json::object()));
  EXPECT_NE(e.find("does not belong"), std::string::npos) << e;
}

// A result file of `unieval eval` (no "run" block), given as --outputs FILE or found in the
// outputs folder: placed by its --system, refused when its split, size or settings differ.
std::string write_result(const TempDir& d, const std::string& file, const std::string& task,
                         const std::string& split, long examples,
                         const nlohmann::json& eval_options, const std::string& system = "UniLM") {
  results::RunResult r;
  r.task = task;
  r.split = split;
  r.system = system;
  r.examples = examples;
  r.tool_version = "0";
  r.metrics.push_back({"bleu-coco", "bleu-coco|n:4", {}});
  r.scores.push_back({"bleu4", 0.2212, "bleu-coco", "fraction", true, std::nullopt});
  if (!eval_options.empty()) r.extra["eval_options"] = eval_options;
  const std::string path = (d.path() / file).string();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  results::write_run_result(path, r);
  return path;
}

TEST(ReproduceRun, ResultFilesAreCheckedLikeRuns) {
  TempDir d;
  Reproduction ok = reproduce(
      table8({write_result(d, "ok.json", "squad-qg", "test", 11877, nlohmann::json::object())}));
  const ReproducedRow* a = row(ok, "Original", "UniLM");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->source.find("ok.json"), std::string::npos) << a->source;
  EXPECT_NEAR(*a->cells[0].ours, 22.12, 1e-9);
  Reproduction rev = reproduce(table8(
      {write_result(d, "rev.json", "squad-qg-reversed", "test", 10570, {{"meteor_data", "/m"}})}));
  EXPECT_FALSE(row(rev, "Reversed", "UniLM")->source.empty());
  EXPECT_TRUE(row(rev, "Original", "UniLM")->source.empty());
  // One squad-qg result is not both the original and the reversed row: the sizes differ.
  std::string e = refusal(
      write_result(d, "both.json", "squad-qg-reversed", "test", 11877, nlohmann::json::object()));
  EXPECT_NE(e.find("full split (10570)"), std::string::npos) << e;
  e = refusal(write_result(d, "dev.json", "squad-qg", "dev", 10570, nlohmann::json::object()));
  EXPECT_NE(e.find("split dev"), std::string::npos) << e;
  e = refusal(write_result(d, "subset.json", "squad-qg", "test", 42, nlohmann::json::object()));
  EXPECT_NE(e.find("scored 42 examples"), std::string::npos) << e;
  EXPECT_NE(e.find("subset.json"), std::string::npos) << e;
  e = refusal(
      write_result(d, "opt.json", "squad-qg", "test", 11877, {{"fix_tokenization", "false"}}));
  EXPECT_NE(e.find("fix_tokenization=false"), std::string::npos) << e;
  e = refusal(write_result(d, "cnn.json", "cnndm", "test", 11490, nlohmann::json::object()));
  EXPECT_NE(e.find("does not belong"), std::string::npos) << e;
  // In an outputs folder (row-named files) the same checks hold.
  write_result(d, "outs/unilm.result.json", "squad-qg", "test", 42, nlohmann::json::object());
  ReproduceOptions o = table8({});
  o.outputs_dir = (d.path() / "outs").string();
  o.data_dir = d.path().string();
  EXPECT_THROW(reproduce(o), InputError);
}

}  // namespace
}  // namespace unieval::pipelines
