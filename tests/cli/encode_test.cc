// `unieval encode` end to end: parity with Hugging Face v4.30.2 on the ../shared/golden/hf_bert
// fixtures (both weight files of each), through the binary. Skipped when the binary was built
// without LibTorch.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

#define REQUIRE_ENCODE()                                                       \
  do {                                                                         \
    if (run_cli("encode --help").exit_code != 0)                               \
      GTEST_SKIP() << "this unieval was built without LibTorch (no `encode`)"; \
  } while (0)

double max_abs_diff(const nlohmann::json& got, const nlohmann::json& expected) {
  EXPECT_EQ(got["shape"], expected["shape"]);
  const auto& g = got["data"];
  const auto& e = expected["data"];
  if (g.size() != e.size()) return INFINITY;
  double m = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    float ref = static_cast<float>(e[i].get<double>());  // the README: round to float32
    m = std::max(m, std::fabs(g[i].get<double>() - static_cast<double>(ref)));
  }
  return m;
}

TEST(EncodeCliTest, MatchesHuggingFaceOnEveryFixtureAndWeightFile) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/A_h32_l2/cases.json");
  REQUIRE_ENCODE();
  int compared = 0;
  for (const char* fixture : {"A_h32_l2", "B_unilm_h48_l3"}) {
    auto dir = shared_dir() / "golden/hf_bert" / fixture;
    auto cases = nlohmann::json::parse(std::ifstream(dir / "cases.json"));
    for (const std::string& model :
         {dir.string(), (dir / "model.tied_dropped.safetensors").string()}) {
      auto r = run_cli("encode --model " + shq(model) + " --input " +
                       shq((dir / "cases.json").string()) + " --json");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto out = nlohmann::json::parse(r.out);
      ASSERT_EQ(out["cases"].size(), cases["cases"].size());
      for (size_t i = 0; i < cases["cases"].size(); ++i) {
        const auto& exp = cases["cases"][i];
        const auto& got = out["cases"][i];
        EXPECT_EQ(got["name"], exp["name"]);
        for (const char* key : {"last_hidden_state", "pooler_output", "logits"}) {
          double tol = std::string(key) == "logits" ? 2e-4 : 1e-4;
          double d = max_abs_diff(got["outputs"][key], exp["outputs"][key]);
          EXPECT_LE(d, tol) << fixture << " " << model << " " << exp["name"] << " " << key;
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 2 * 3 * (4 + 5));
}

TEST(EncodeCliTest, CheckFlagPassesOnFixturesAndFailsOnAWrongMask) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/A_h32_l2/cases.json");
  REQUIRE_ENCODE();
  auto dir = shared_dir() / "golden/hf_bert/A_h32_l2";
  TempDir tmp;
  auto out = (tmp.path() / "out.json").string();
  auto r =
      run_cli("encode --model " + shq(dir.string()) + " --input " +
              shq((dir / "cases.json").string()) + " --check --hidden-states --output " + shq(out));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all within tolerance"), std::string::npos) << r.out;
  auto written = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(written["cases"][0]["outputs"]["hidden_states"]["shape"],
            (nlohmann::json{3, 2, 8, 32}));

  // Flip the causal mask of case 2 (left-to-right -> right-to-left): the check must fail.
  auto cases = nlohmann::json::parse(std::ifstream(dir / "cases.json"));
  auto& c = cases["cases"][1];
  ASSERT_EQ(c["inputs"]["attention_mask_rank"], 3);
  c["inputs"]["attention_mask"] = cases["cases"][3]["inputs"]["attention_mask"];
  auto bad = tmp.write("bad.json", cases.dump());
  r = run_cli("encode --model " + shq(dir.string()) + " --input " + shq(bad) + " --check");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos);
}

TEST(EncodeCliTest, BadInputsExitTwo) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/A_h32_l2/cases.json");
  REQUIRE_ENCODE();
  auto dir = shared_dir() / "golden/hf_bert/A_h32_l2";
  TempDir tmp;
  auto run = [&](const std::string& json) {
    return run_cli("encode --model " + shq(dir.string()) + " --input " +
                   shq(tmp.write("c.json", json)));
  };
  EXPECT_EQ(run(R"({"cases": [{"name": "x", "inputs": {"input_ids": [[1, 600]]}}]})").exit_code, 2);
  EXPECT_EQ(run(R"({"cases": [{"name": "x", "inputs": {"input_ids": [[1, 2], [3]]}}]})").exit_code,
            2);
  EXPECT_EQ(
      run(R"({"cases": [{"name": "x", "inputs": {"input_ids": [[1, 2]], "attention_mask": [[1, 2]]}}]})")
          .exit_code,
      2);
  EXPECT_EQ(
      run(R"({"cases": [{"name": "x", "inputs": {"input_ids": [[1, 2]], "token_type_ids": [[0, 2]]}}]})")
          .exit_code,
      2);
  EXPECT_EQ(run("{not json").exit_code, 2);
  auto r = run_cli("encode --model " + shq((tmp.path() / "nothing").string()) + " --input " +
                   shq((dir / "cases.json").string()));
  EXPECT_EQ(r.exit_code, 2);
  // A minimal valid case: no token types, no mask.
  r = run(R"({"cases": [{"name": "min", "inputs": {"input_ids": [[101, 7, 102]]}}]})");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(EncodeCliTest, GptCheckpointGivesHiddenStatesLogitsAndMcLogits) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_gpt/A_h32_l2/cases.json");
  REQUIRE_ENCODE();
  for (const char* name : {"A_h32_l2", "B_h48_l3"}) {
    auto dir = shared_dir() / "golden/hf_gpt" / name;
    auto r = run_cli("encode --model " + shq(dir.string()) + " --input " +
                     shq((dir / "cases.json").string()) + " --mc-head " +
                     shq((dir / "mc_head.safetensors").string()) + " --hidden-states --check");
    EXPECT_EQ(r.exit_code, 0) << name << r.err << r.out;
    EXPECT_NE(r.out.find("mc_logits"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  }
  auto dir = shared_dir() / "golden/hf_gpt/A_h32_l2";
  TempDir tmp;
  auto r = run_cli(
      "encode --model " + shq(dir.string()) + " --json --input " +
      shq(tmp.write("c.json",
                    R"({"cases": [{"name": "x", "inputs": {"input_ids": [[5, 6, 7]]}}]})")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& out = j["cases"][0]["outputs"];
  EXPECT_EQ(out["last_hidden_state"]["shape"], (nlohmann::json{1, 3, 32}));
  EXPECT_EQ(out["logits"]["shape"], (nlohmann::json{1, 3, 300}));
  EXPECT_FALSE(out.contains("pooler_output"));
  // Ids past the GPT vocabulary (300) are an input error naming the case.
  r = run_cli("encode --model " + shq(dir.string()) + " --input " +
              shq(tmp.write("d.json",
                            R"({"cases": [{"name": "y", "inputs": {"input_ids": [[5, 300]]}}]})")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'y'"), std::string::npos) << r.err;
}

}  // namespace
