#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "metrics/protocol.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

using testing::run_cli;

TEST(CliBasicsTest, HelpListsEveryCommand) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* c : {"score", "eval", "tokenize", "encode", "finetune", "decode", "demo", "run",
                        "reproduce", "table", "compare"})
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
}

TEST(CliBasicsTest, UnknownCommandExitsTwo) {
  auto r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command"), std::string::npos);
}

TEST(CliBasicsTest, ScoreUnknownMetricExitsTwo) {
  auto r = run_cli("score --metric nonsense --hyp x --ref y");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown metric"), std::string::npos) << r.err;
}

TEST(CliBasicsTest, ScoreHelpWorks) {
  auto r = run_cli("score --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--metric"), std::string::npos);
}

// `score --help` and `--help-markdown` come from the metric protocol's specs: every registered
// metric and every option of it is listed (--help with --metric NAME: that metric's section).
TEST(CliBasicsTest, ScoreHelpListsEveryMetricAndOption) {
  auto all = run_cli("score --help");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto md = run_cli("score --help-markdown");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out, unieval::metrics::registry_markdown());
  for (const auto& m : unieval::metrics::metric_registry()) {
    EXPECT_NE(all.out.find("\n  " + m.name + " "), std::string::npos) << m.name;
    auto one = run_cli("score --help --metric " + m.name);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    for (const auto& o : m.options) {
      EXPECT_NE(all.out.find("--" + o.name), std::string::npos) << m.name << " --" << o.name;
      EXPECT_NE(one.out.find("--" + o.name), std::string::npos) << m.name << " --" << o.name;
      EXPECT_NE(md.out.find("`--" + o.name), std::string::npos) << m.name << " --" << o.name;
    }
  }
}

// metrics/OPTIONS.md, the options reference README links, is the generated `--help-markdown`
// (regenerate: build/unieval score --help-markdown > metrics/OPTIONS.md).
TEST(CliBasicsTest, OptionsReferenceIsTheGeneratedOne) {
  auto md = run_cli("score --help-markdown");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  std::ifstream in(std::string(UNIEVAL_SOURCE_DIR) + "/metrics/OPTIONS.md", std::ios::binary);
  ASSERT_TRUE(in) << "metrics/OPTIONS.md is missing";
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(file.str(), md.out)
      << "metrics/OPTIONS.md is stale: build/unieval score --help-markdown > metrics/OPTIONS.md";
}

// Scoring must not pay for LibTorch: `unieval` links none of it (the model commands are the
// sibling unieval-model).
TEST(CliBasicsTest, UnievalDoesNotLinkLibTorch) {
  std::string cmd = std::string("ldd '") + UNIEVAL_BINARY + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string deps;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) deps += buf;
  if (pclose(p) != 0 || deps.empty()) GTEST_SKIP() << "ldd is not available";
  EXPECT_NE(deps.find("libc.so"), std::string::npos) << deps;  // ldd did list the libraries
  EXPECT_EQ(deps.find("libtorch"), std::string::npos) << deps;
  EXPECT_EQ(deps.find("libc10"), std::string::npos) << deps;
}

TEST(CliBasicsTest, ModelCommandsRunTheSiblingBinary) {
  auto sibling = std::filesystem::path(UNIEVAL_BINARY).parent_path() / "unieval-model";
  if (!std::filesystem::exists(sibling)) GTEST_SKIP() << "built without LibTorch: no " << sibling;
  auto r = run_cli("demo --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("usage: unieval demo"), std::string::npos) << r.out;
  r = run_cli("finetune --no-such-option");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unieval finetune"), std::string::npos) << r.err;
}

TEST(CliBasicsTest, ModelCommandWithoutItsBinaryIsAClearError) {
  setenv("UNIEVAL_MODEL_BINARY", "/nonexistent/unieval-model", 1);
  auto r = run_cli("decode --help");
  unsetenv("UNIEVAL_MODEL_BINARY");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/unieval-model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("LibTorch"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace unieval
