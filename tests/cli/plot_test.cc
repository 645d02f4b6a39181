// `unieval plot --run RUN [--out FILE.svg]`: training curves as SVG from RUN/log.jsonl.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/leaderboard_fixture.h"
#include "tests/test_util.h"

namespace {

using unieval::testing::read_text;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

TEST(CliPlotTest, WritesAnSvgWithOnePathPerSeries) {
  TempDir tmp;
  std::string log;
  for (int step = 1; step <= 30; ++step) {
    log += "{\"step\": " + std::to_string(step) +
           ", \"epoch\": 0, \"loss\": " + std::to_string(4.0 / step) +
           ", \"nll\": 1.0, \"lr\": " + std::to_string(0.001 * step / 30) +
           ", \"grad_norm\": 1.0, \"tokens\": 256" +
           ", \"masked\": 10, \"elapsed_s\": " + std::to_string(step * 0.5) + "}\n";
    if (step % 10 == 0)
      log += "{\"step\": " + std::to_string(step) +
             ", \"dev_loss\": " + std::to_string(5.0 / step) + "}\n";
  }
  tmp.write("run/log.jsonl", log);
  const std::string run = (tmp.path() / "run").string();
  const std::string out = (tmp.path() / "c.svg").string();
  auto r = run_cli("plot --run " + shq(run) + " --out " + shq(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = read_text(out);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(count(svg, "<path "), 4u);  // loss, lr, tokens/s, dev loss
  for (const char* s : {"loss", "dev loss", "lr", "tokens/s"})
    EXPECT_EQ(count(svg, std::string("data-series=\"") + s + "\""), 1u) << s;
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "</svg>"), 1u);
  // xmllint, where present, agrees that it is well-formed XML.
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout " + shq(out)).c_str()), 0);
  }
  // Default: RUN/curves.svg; the log file itself may be given.
  ASSERT_EQ(run_cli("plot --run " + shq(run)).exit_code, 0);
  EXPECT_EQ(read_text(run + "/curves.svg"), svg);
  auto direct = run_cli("plot --run " + shq(run + "/log.jsonl") + " --out -");
  ASSERT_EQ(direct.exit_code, 0);
  EXPECT_EQ(count(direct.out, "<path "), 4u);
}

TEST(CliPlotTest, MissingOrMalformedLogExitsTwo) {
  TempDir tmp;
  auto none = run_cli("plot --run " + shq(tmp.path().string()));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("log.jsonl"), std::string::npos) << none.err;
  tmp.write("bad/log.jsonl", "{\"step\": 1, \"loss\": 1}\n{\"step\": 2, \"loss\": oops}\n");
  const std::string out = (tmp.path() / "bad.svg").string();
  auto bad = run_cli("plot --run " + shq((tmp.path() / "bad").string()) + " --out " + shq(out));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("log.jsonl:2"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(run_cli("plot").exit_code, 2);
}

}  // namespace
