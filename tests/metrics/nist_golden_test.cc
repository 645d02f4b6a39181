// Every line of ../shared/golden/nist.jsonl: mteval-v14c (default, -c, international
// tokenisation) and mteval-v13a fed through DSTC7's XML writer, whose 4-decimal output must be
// reproduced exactly, and NLTK corpus_nist (1e-9 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "metrics/bleu_compat.h"
#include "metrics/nist.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using nlohmann::json;

std::string four(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

class NistGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    auto path = testing::shared_dir() / "golden/nist.jsonl";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared resource absent: " << path;
    cases_ = testing::read_jsonl(path);
  }
  std::vector<json> cases_;
};

NistOptions options_of(const json& c) {
  NistOptions o;
  std::string v = c["variant"];
  if (v.rfind("mteval-v13a", 0) == 0) o.tokenization = metrics::text::MtevalTokenization::kV13a;
  for (const auto& a : c["options"]["args"]) {
    if (a == "-c") o.preserve_case = true;
    if (a == "--international-tokenization")
      o.tokenization = metrics::text::MtevalTokenization::kIntl;
  }
  return o;
}

void expect_printed(const std::vector<double>& ours, const json& expected, const char* what) {
  ASSERT_EQ(ours.size(), expected.size()) << what;
  for (size_t i = 0; i < ours.size(); ++i)
    EXPECT_EQ(four(ours[i]), four(expected[i].get<double>()))
        << what << "[" << i << "] (ours " << ours[i] << ")";
}

TEST_F(NistGolden, Mteval) {
  int n = 0, errors = 0;
  for (const auto& c : cases_) {
    if (c["variant"].get<std::string>().rfind("mteval", 0) != 0) continue;
    SCOPED_TRACE(c["id"].get<std::string>());
    ++n;
    auto hyps = c["hyps"].get<std::vector<std::string>>();
    auto refs = c["refs"].get<std::vector<std::vector<std::string>>>();
    NistScore s = mteval_nist(hyps, refs, options_of(c));
    const json& e = c["expected"];
    if (e["rc"].get<int>() != 0) {
      // mteval aborted (DSTC7's writer produced an empty file): we give a defined value and a
      // warning instead.
      ++errors;
      EXPECT_FALSE(s.warnings.empty());
      EXPECT_EQ(s.nist_cum.size(), 9u);
      continue;
    }
    expect_printed(s.nist_cum, e["nist_cum_1_9"], "nist_cum");
    expect_printed(s.nist_ind, e["nist_ind_1_9"], "nist_ind");
    expect_printed(s.bleu_cum, e["bleu_cum_1_9"], "bleu_cum");
    expect_printed(s.bleu_ind, e["bleu_ind_1_9"], "bleu_ind");
    EXPECT_EQ(four(s.nist_cum[4]), four(e["NIST_score_line"].get<double>()));
    EXPECT_EQ(four(s.bleu_cum[3]), four(e["BLEU_score_line"].get<double>()));
  }
  EXPECT_EQ(n, 108);
  EXPECT_EQ(errors, 12);
}

TEST_F(NistGolden, NltkCorpusNist) {
  int n = 0;
  for (const auto& c : cases_) {
    if (c["variant"].get<std::string>().rfind("nltk", 0) != 0) continue;
    SCOPED_TRACE(c["id"].get<std::string>());
    ++n;
    auto hyps = split_lines_py(c["hyps"].get<std::vector<std::string>>());
    std::vector<std::vector<std::vector<std::string>>> refs;
    for (const auto& seg : refs_by_segment(c["refs"].get<std::vector<std::vector<std::string>>>()))
      refs.push_back(split_lines_py(seg));
    for (int order : {4, 5}) {
      auto s = nltk_corpus_nist(hyps, refs, order);
      const json& e = c["expected"]["nist_" + std::to_string(order)];
      if (e.is_object()) {
        EXPECT_TRUE(s.warning.has_value()) << "NLTK raised " << e.dump();
        continue;
      }
      EXPECT_FALSE(s.warning.has_value());
      double x = e.get<double>();
      EXPECT_NEAR(s.score, x, 1e-9 * std::max(1.0, std::fabs(x))) << "nist_" << order;
    }
  }
  EXPECT_EQ(n, 27);
}

}  // namespace
}  // namespace unieval::metrics
