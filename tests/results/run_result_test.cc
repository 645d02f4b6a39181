// RunResult JSON model: round trip, validation errors, sha256, atomic writes.
#include "results/run_result.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/io.h"
#include "results/sha256.h"
#include "tests/test_util.h"

namespace unieval::results {
namespace {

using unieval::testing::TempDir;

RunResult sample() {
  RunResult r;
  r.task = "squad-v2";
  r.split = "dev";
  r.system = "sys";
  r.data_path = "dev.json";
  r.data_sha256 = std::string(64, 'a');
  r.examples = 3;
  r.metrics.push_back({"squad-v2", "squad|v:2.0", {{"version", "2.0"}}});
  r.scores.push_back({"exact", 66.5, "squad-v2", "percent", true, std::nullopt});
  ConfidenceInterval ci;
  ci.low = 60;
  ci.high = 70;
  ci.method = "bootstrap-percentile";
  ci.resamples = 100;
  ci.seed = 7;
  r.scores.push_back({"f1", 70.25, "squad-v2", "percent", true, ci});
  r.scores.push_back({"pearson", std::nan(""), "squad-v2", "raw", true, std::nullopt});
  r.per_example.push_back({"q1", {{"exact", 1.0}}});
  r.notes.push_back("a note");
  stamp_provenance(r);
  return r;
}

TEST(RunResultTest, RoundTripKeepsEveryField) {
  TempDir tmp;
  std::string path = (tmp.path() / "r.json").string();
  RunResult r = sample();
  write_run_result(path, r);
  RunResult b = read_run_result(path);
  EXPECT_EQ(b.task, "squad-v2");
  EXPECT_EQ(b.split, "dev");
  EXPECT_EQ(b.system, "sys");
  EXPECT_EQ(b.data_sha256, r.data_sha256);
  EXPECT_EQ(b.examples, 3);
  EXPECT_EQ(b.tool_version, r.tool_version);
  EXPECT_EQ(b.tool_commit, r.tool_commit);
  ASSERT_EQ(b.scores.size(), 3u);
  EXPECT_DOUBLE_EQ(b.score("exact")->value, 66.5);
  ASSERT_TRUE(b.score("f1")->ci.has_value());
  EXPECT_DOUBLE_EQ(b.score("f1")->ci->low, 60);
  EXPECT_EQ(b.score("f1")->ci->seed, 7u);
  EXPECT_TRUE(std::isnan(b.score("pearson")->value));  // NaN survives as null
  EXPECT_EQ(b.metric("squad-v2")->signature, "squad|v:2.0");
  ASSERT_EQ(b.per_example.size(), 1u);
  EXPECT_EQ(b.per_example[0].scores.at("exact"), 1.0);
  EXPECT_EQ(b.notes, r.notes);
  EXPECT_GT(b.machine.cores, 0);
  // Nothing but the result file is left behind (atomic write through a temp file).
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(tmp.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(RunResultTest, JsonHasSchemaVersionAndSummary) {
  auto j = to_json(sample());
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["$schema"], kRunResultSchemaId);
  EXPECT_DOUBLE_EQ(j["summary"]["exact"].get<double>(), 66.5);
}

TEST(RunResultTest, SchemaFileListsTheRequiredFields) {
  std::string text = core::read_file(std::string(UNIEVAL_SOURCE_DIR) +
                                     "/results/schema/run_result.v1.schema.json");
  auto schema = nlohmann::json::parse(text);
  EXPECT_EQ(schema["$id"], kRunResultSchemaId);
  auto j = to_json(sample());
  for (const auto& field : schema["required"])
    EXPECT_TRUE(j.contains(field.get<std::string>())) << field;
  for (const auto& [k, v] : j.items())
    EXPECT_TRUE(schema["properties"].contains(k)) << k << " undocumented";
}

TEST(RunResultTest, ErrorsNameFileAndField) {
  TempDir tmp;
  auto bad = [&](const std::string& text, const std::string& expect) {
    std::string p = tmp.write("bad.json", text);
    try {
      read_run_result(p);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  bad("{\"schema_version\": 1,\n \"task\": ", "malformed JSON");
  bad(R"({"schema_version": 2, "tool": {"version": "9"}, "task": "x", "metrics": [], "scores": []})",
      "schema version 1");
  bad(R"({"schema_version": 1, "tool": {"version": "0"}, "metrics": [], "scores": []})",
      "task: missing");
  bad(R"({"schema_version": 1, "tool": {"version": "0"}, "task": "x", "metrics": [], "scores": [{"name": "f1", "value": 1, "metric": "nope"}]})",
      "scores[0].metric");
  bad(R"({"schema_version": 1, "tool": {"version": "0"}, "task": "x", "metrics": [{"id": "m", "signature": "s"}], "scores": [{"name": "f1", "value": "1", "metric": "m"}]})",
      "scores[0].value: must be a number");
}

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  EXPECT_EQ(sha256_hex(million),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, FileDigestMatchesSourcesChecksum) {
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions/v2.0-dev.bert-large-single.json.gz");
  // SOURCES.md lists the stored file's sha256 prefix 8efce090.
  auto d = sha256_file(
      (unieval::testing::shared_dir() / "data/squad/predictions/v2.0-dev.bert-large-single.json.gz")
          .string());
  EXPECT_EQ(d.substr(0, 8), "8efce090");
}

}  // namespace
}  // namespace unieval::results
