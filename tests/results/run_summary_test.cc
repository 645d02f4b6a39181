// The run summary of finetune / pretrain / decode against its published schema.
#include "results/run_summary.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io.h"
#include "tests/schema_check.h"

namespace unieval::results {
namespace {

nlohmann::json schema() {
  return nlohmann::json::parse(core::read_file(std::string(UNIEVAL_SOURCE_DIR) +
                                               "/results/schema/run_summary.v1.schema.json"));
}

nlohmann::json finetune_summary() {
  nlohmann::ordered_json s = {
      {"run", "runs/a"},  {"examples", 200},   {"steps", 40},       {"total_steps", 40},
      {"finished", true}, {"first_loss", 5.5}, {"last_loss", 1.25}, {"tokens_per_second", 1234.5}};
  return nlohmann::json::parse(make_run_summary("finetune", "runs/a", true, s).dump());
}

TEST(RunSummaryTest, MadeSummariesFollowThePublishedSchema) {
  auto j = finetune_summary();
  EXPECT_EQ(schema()["$id"], kRunSummarySchemaId);
  EXPECT_EQ(j["$schema"], kRunSummarySchemaId);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_FALSE(j["created"].get<std::string>().empty());
  EXPECT_EQ(testing::schema_problems(j, schema()), std::vector<std::string>{});
  EXPECT_NO_THROW(validate_run_summary(j, "s.json"));
  nlohmann::ordered_json d = {{"out", "hyp.txt"},
                              {"examples", 10},
                              {"decoded_now", 10},
                              {"complete", false},
                              {"seconds", 0.5}};
  auto dj = nlohmann::json::parse(make_run_summary("decode", "runs/a", false, d).dump());
  EXPECT_EQ(dj["status"], "stopped");
  EXPECT_EQ(testing::schema_problems(dj, schema()), std::vector<std::string>{});
  EXPECT_NO_THROW(validate_run_summary(dj, "d.json"));
}

TEST(RunSummaryTest, ValidatorAgreesWithTheSchemaFile) {
  // The command's required summary fields: the schema's list is the validator's.
  // (The schema is held in a variable: a range-for over an element of a temporary reads it after
  // it is destroyed, which ASan reported.)
  const nlohmann::json s = schema();
  for (const auto& [command, fields] : s.at("x-unieval-required-summary").items()) {
    nlohmann::json j = finetune_summary();
    j["command"] = command;
    j["summary"] = nlohmann::json::object();
    for (const auto& f : fields) j["summary"][f.get<std::string>()] = 1;
    EXPECT_NO_THROW(validate_run_summary(j, "x")) << command;
    for (const auto& f : fields) {
      auto missing = j;
      missing["summary"].erase(f.get<std::string>());
      EXPECT_THROW(validate_run_summary(missing, "x"), InputError) << command << " " << f;
    }
  }
  for (const auto& r : s.at("required")) {
    auto j = finetune_summary();
    j.erase(r.get<std::string>());
    EXPECT_THROW(validate_run_summary(j, "x"), InputError) << r;
    EXPECT_FALSE(testing::schema_problems(j, schema()).empty()) << r;
  }
  auto extra = finetune_summary();
  extra["surprise"] = 1;
  EXPECT_THROW(validate_run_summary(extra, "x"), InputError);
  EXPECT_FALSE(testing::schema_problems(extra, schema()).empty());
  auto bad = finetune_summary();
  bad["command"] = "train";
  EXPECT_THROW(validate_run_summary(bad, "x"), InputError);
  EXPECT_FALSE(testing::schema_problems(bad, schema()).empty());
  bad = finetune_summary();
  bad["schema_version"] = 2;
  EXPECT_THROW(validate_run_summary(bad, "x"), InputError);
}

TEST(RunSummaryTest, WriteRefusesAnInvalidSummary) {
  EXPECT_THROW(
      write_run_summary("/nonexistent/should-not-be-written.json",
                        make_run_summary("finetune", "r", true, nlohmann::ordered_json::object())),
      InputError);
}

}  // namespace
}  // namespace unieval::results
