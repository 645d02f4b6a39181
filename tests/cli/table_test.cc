// `unieval table`: leaderboards from result files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/cli/leaderboard_fixture.h"
#include "tests/test_util.h"

namespace {

using unieval::testing::json_number;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;
using unieval::testing::write_fixture_runs;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

std::string result(const TempDir& tmp, const std::string& name, double exact,
                   const std::string& sig = "m|v:1") {
  return tmp.write(
      name + ".json",
      R"({"schema_version": 1, "tool": {"version": "0"}, "task": "squad-v2", "split": "dev",
    "system": ")" +
          name + R"(", "metrics": [{"id": "m", "signature": ")" + sig + R"("}],
    "scores": [{"name": "exact", "value": )" +
          std::to_string(exact) + R"(, "metric": "m", "unit": "percent"}]})");
}

TEST(CliTableTest, FormatsSortedWithBestAndSignature) {
  TempDir tmp;
  auto a = result(tmp, "alpha", 60), b = result(tmp, "beta", 70);
  auto md = run_cli("table " + shq(a) + " " + shq(b));
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_LT(md.out.find("beta"), md.out.find("alpha"));
  EXPECT_NE(md.out.find("**70.00**"), std::string::npos);
  EXPECT_NE(md.out.find("signature m: m|v:1"), std::string::npos);
  for (const char* f : {"latex", "html", "csv"}) {
    auto r = run_cli("table " + shq(a) + " " + shq(b) + " --format " + f);
    EXPECT_EQ(r.exit_code, 0) << f;
    EXPECT_NE(r.out.find("70.00"), std::string::npos) << f;
  }
  EXPECT_NE(run_cli("table " + shq(a) + " --format latex").out.find("\\begin{tabular}"),
            std::string::npos);
  auto out = (tmp.path() / "t.html").string();
  EXPECT_EQ(run_cli("table " + shq(a) + " --format html --out " + shq(out)).exit_code, 0);
}

TEST(CliTableTest, MixedSignaturesAndBadFormatAreInputErrors) {
  TempDir tmp;
  auto a = result(tmp, "alpha", 60), b = result(tmp, "beta", 70, "m|v:2");
  EXPECT_EQ(run_cli("table " + shq(a) + " " + shq(b)).exit_code, 2);
  EXPECT_EQ(run_cli("table " + shq(a) + " --format docx").exit_code, 2);
  EXPECT_EQ(run_cli("table").exit_code, 2);
}

// From outside: `unieval table --format html R1.json R2.json > t.html` is a complete page that
// holds every value of the inputs.
TEST(CliTableTest, HtmlIsACompleteSelfContainedPageWithEveryValue) {
  TempDir tmp;
  auto runs = write_fixture_runs(tmp);
  auto r = run_cli("table --format html " + shq(runs[0].path) + " " + shq(runs[1].path) + " " +
                   shq(runs[2].path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& page = r.out;
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<meta name=\"viewport\""), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  // No network: nothing is fetched (no external script, style sheet, image or font).
  for (const char* bad : {"<link", "src=", "@import", "url(", "http://", "https://"})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
  EXPECT_EQ(count(page, "<table class=\"sortable lb\">"), 1u);
  // Every value of every input: scores, interval ends, example count, hashes, signature, notes.
  for (const auto& run : runs) {
    auto j = nlohmann::json::parse(unieval::testing::read_text(run.path));
    for (const auto& s : j["scores"]) {
      EXPECT_NE(page.find(json_number(s["value"].get<double>())), std::string::npos) << s;
      if (s.contains("ci")) {
        EXPECT_NE(page.find(json_number(s["ci"]["low"].get<double>())), std::string::npos) << s;
        EXPECT_NE(page.find(json_number(s["ci"]["high"].get<double>())), std::string::npos) << s;
      }
    }
    EXPECT_NE(page.find("fixture note for " + std::string(run.system == "beta & <gamma>"
                                                              ? "beta &amp; &lt;gamma&gt;"
                                                              : run.system)),
              std::string::npos);
    EXPECT_NE(page.find(run.path), std::string::npos);  // the result file, in the provenance
  }
  EXPECT_NE(page.find("beta &amp; &lt;gamma&gt;"), std::string::npos);
  EXPECT_EQ(page.find("beta & <gamma>"), std::string::npos);  // escaped everywhere
  EXPECT_NE(page.find(std::string(64, 'd')), std::string::npos);
  EXPECT_NE(page.find("squad|v:2.0|official:evaluate-v2.0.py"), std::string::npos);
  EXPECT_NE(page.find("abc123def456"), std::string::npos);
  // Displayed at the unit's precision, best in bold, systems sorted best first.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", runs[0].exact);
  EXPECT_NE(page.find(std::string("<td class=\"num best\" data-k=\"") + json_number(runs[0].exact)),
            std::string::npos);
  EXPECT_LT(page.find("data-k=\"BERT_LARGE\""), page.find("data-k=\"alpha-sys\""));
  // UniLM Table 5's rows of the same task/split, and BERT_LARGE's paper value beside ours with
  // the difference and the check at the printed precision (78.9: ±0.05).
  EXPECT_NE(page.find("RMR+ELMo [20]"), std::string::npos);
  EXPECT_NE(page.find("unilm Table 5 (published)"), std::string::npos);
  const double d = runs[0].exact - 78.9;
  std::snprintf(buf, sizeof buf, "%s%.3f", d >= 0 ? "+" : "", d);
  const bool ok = std::fabs(d) <= 0.05 + 1e-9;
  EXPECT_NE(page.find(std::string("paper 78.9 · Δ ") + buf +
                      (ok ? " <span class=\"ok\">✓" : " <span class=\"bad\">✗")),
            std::string::npos)
      << buf;
  // Significance: alpha-sys (55% vs 79% right on 400 examples) is far below the best, marked †
  // with its p-value; the test is named under the table.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      page, m, std::regex("significantly below BERT_LARGE: p = ([0-9.e-]+) &lt; 0.05")));
  EXPECT_LT(std::stod(m[1].str()), 0.05);
  EXPECT_NE(page.find("paired bootstrap of the per-example mean"), std::string::npos);
  // Without a test (no resamples) the page says so instead of marking.
  auto none =
      run_cli("table --format html --resamples 0 " + shq(runs[0].path) + " " + shq(runs[1].path));
  ASSERT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.out.find("class=\"sig\""), std::string::npos);
  EXPECT_NE(none.out.find("significance: not tested (--resamples 0)"), std::string::npos);
  auto nopaper = run_cli("table --format html --no-paper " + shq(runs[0].path));
  EXPECT_EQ(nopaper.out.find("RMR+ELMo"), std::string::npos);
}

// The LaTeX table compiles (booktabs, \checkmark from amssymb, escaped text) where pdflatex exists.
TEST(CliTableTest, LatexCompilesWithPdflatex) {
  TempDir tmp;
  auto runs = write_fixture_runs(tmp);
  auto r = run_cli("table --format latex " + shq(runs[0].path) + " " + shq(runs[2].path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\\toprule"), std::string::npos);
  EXPECT_NE(r.out.find("\\midrule"), std::string::npos);
  EXPECT_NE(r.out.find("\\bottomrule"), std::string::npos);
  EXPECT_NE(r.out.find("beta \\& \\textless{}gamma\\textgreater{}"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("↑"), std::string::npos);  // $\uparrow$, not the raw character
  // The reproduction of a paper table carries ✓/✗: \checkmark and $\times$ in LaTeX.
  tmp.write("outs/bert-large.result.json", unieval::testing::read_text(runs[0].path));
  auto rep = run_cli("reproduce --paper unilm --table 5 --format latex --outputs " +
                     shq((tmp.path() / "outs").string()) + " --data " + shq(tmp.path().string()));
  std::string doc =
      "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{amssymb}\n\\begin{document}"
      "\n" +
      r.out + rep.out + "\\end{document}\n";
  EXPECT_NE(rep.out.find("\\checkmark") == std::string::npos ? rep.out.find("$\\times$") : 0,
            std::string::npos)
      << rep.out;
  tmp.write("t.tex", doc);
  if (std::system("command -v pdflatex >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "pdflatex absent (Debian texlive-latex-base, texlive-latex-recommended): LaTeX "
                    "not compiled";
  std::string cmd =
      "cd " + shq(tmp.path().string()) +
      " && timeout 120 pdflatex -interaction=nonstopmode -halt-on-error t.tex > pdflatex.out 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << unieval::testing::read_text((tmp.path() / "pdflatex.out").string()) << doc;
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "t.pdf"));
  std::string log = unieval::testing::read_text((tmp.path() / "t.log").string());
  EXPECT_EQ(log.find("Missing character"), std::string::npos);
}

}  // namespace
