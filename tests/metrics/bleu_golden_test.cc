// Every line of ../shared/golden/bleu.jsonl, dispatched on its variant: sacreBLEU corpus and
// sentence BLEU, chrF, NLTK corpus/sentence BLEU (methods 0-7), coco BLEU, PLATO BLEU-1/2 and
// multi-bleu.perl. Doubles must agree to 1e-9 relative; multi-bleu's printed line must be
// identical.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "metrics/bleu.h"
#include "metrics/bleu_compat.h"
#include "metrics/chrf.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& j) { return j.get<std::vector<std::string>>(); }
std::vector<std::vector<std::string>> streams(const json& j) {
  return j.get<std::vector<std::vector<std::string>>>();
}

::testing::AssertionResult close(double actual, const json& expected, const std::string& what) {
  double e;
  if (expected.is_string()) {
    std::string s = expected.get<std::string>();
    e = s == "NaN" ? std::nan("") : (s == "Infinity" ? INFINITY : -INFINITY);
  } else {
    e = expected.get<double>();
  }
  if (std::isnan(e) && std::isnan(actual)) return ::testing::AssertionSuccess();
  double tol = 1e-9 * std::max(std::fabs(e), std::fabs(actual));
  if (e == actual || std::fabs(e - actual) <= tol) return ::testing::AssertionSuccess();
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: expected %.17g, got %.17g", what.c_str(), e, actual);
  return ::testing::AssertionFailure() << buf;
}

class BleuGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::shared_dir() / "golden/bleu.jsonl";
    if (!std::filesystem::exists(path_)) GTEST_SKIP() << "shared resource absent: " << path_;
    cases_ = testing::read_jsonl(path_);
  }
  template <typename F>
  int for_variant(const std::string& prefix, F&& f) {
    int n = 0;
    for (const auto& c : cases_) {
      if (c["variant"].get<std::string>().rfind(prefix, 0) != 0) continue;
      SCOPED_TRACE(c["id"].get<std::string>());
      f(c);
      ++n;
    }
    return n;
  }
  std::filesystem::path path_;
  std::vector<json> cases_;
};

BleuOptions sacre_options(const json& o) {
  BleuOptions opts;
  if (o.contains("tokenize")) opts.tokenize = parse_bleu_tokenize(o["tokenize"]);
  if (o.contains("smooth_method")) opts.smooth = parse_bleu_smooth(o["smooth_method"]);
  if (o.contains("smooth_value") && !o["smooth_value"].is_null())
    opts.smooth_value = o["smooth_value"].get<double>();
  if (o.contains("lowercase")) opts.lowercase = o["lowercase"].get<bool>();
  if (o.contains("effective_order")) opts.effective_order = o["effective_order"].get<bool>();
  return opts;
}

void expect_bleu(const BleuScore& s, const json& e, bool with_precisions) {
  EXPECT_TRUE(close(s.score, e["score"], "score"));
  ASSERT_EQ(s.counts.size(), e["counts"].size());
  for (size_t n = 0; n < s.counts.size(); ++n) {
    EXPECT_TRUE(close(s.counts[n], e["counts"][n], "counts"));
    EXPECT_TRUE(close(s.totals[n], e["totals"][n], "totals"));
    if (with_precisions) {
      EXPECT_TRUE(close(s.precisions[n], e["precisions"][n], "precisions"));
    }
  }
  EXPECT_TRUE(close(s.bp, e["bp"], "bp"));
  EXPECT_EQ(s.sys_len, e["sys_len"].get<int64_t>());
  EXPECT_EQ(s.ref_len, e["ref_len"].get<int64_t>());
}

TEST_F(BleuGolden, SacrebleuCorpus) {
  int n = for_variant("sacrebleu.corpus_bleu", [](const json& c) {
    BleuOptions opts = sacre_options(c["options"]);
    BleuScore s = corpus_bleu(strings(c["hyps"]), streams(c["refs"]), opts);
    expect_bleu(s, c["expected"], true);
    EXPECT_EQ(s.signature, c["expected"]["signature"].get<std::string>());
    EXPECT_EQ(s.format(), c["expected"]["formatted"].get<std::string>());
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, SacrebleuSentence) {
  int n = for_variant("sacrebleu.sentence_bleu", [](const json& c) {
    BleuOptions opts = sacre_options(c["options"]);
    auto hyps = strings(c["hyps"]);
    auto refs = streams(c["refs"]);
    auto scores = sentence_bleu(hyps, refs, opts);
    const json& per = c["expected"]["per_segment"];
    ASSERT_EQ(scores.size(), per.size());
    for (size_t i = 0; i < scores.size(); ++i) expect_bleu(scores[i], per[i], false);
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, SacrebleuChrf) {
  int n = for_variant("sacrebleu.corpus_chrf", [](const json& c) {
    ChrfOptions opts;
    opts.char_order = c["options"]["char_order"];
    opts.beta = c["options"]["beta"];
    ChrfScore s = corpus_chrf(strings(c["hyps"]), streams(c["refs"]), opts);
    // Includes the 2-reference DSTC7 corpora, where short references make sacreBLEU's
    // `hyp_count if ref_ngrams else 0` rule matter.
    EXPECT_TRUE(close(s.score, c["expected"]["score"], "chrF")) << c["id"];
    EXPECT_EQ(s.signature, c["expected"]["signature"].get<std::string>());
  });
  EXPECT_GT(n, 0);
}

int method_of(const json& o) { return std::stoi(o["smoothing"].get<std::string>().substr(6)); }

void expect_nltk(const NltkBleuResult& r, const json& e, const std::string& what) {
  if (e.is_object()) {
    ASSERT_TRUE(r.error.has_value())
        << what << ": NLTK raised " << e.dump() << ", we returned " << r.score;
    EXPECT_EQ(*r.error, e["error"].get<std::string>()) << what;
  } else {
    ASSERT_FALSE(r.error.has_value()) << what << ": " << *r.error;
    EXPECT_TRUE(close(r.score, e, what));
  }
}

std::vector<std::vector<std::vector<std::string>>> nltk_refs(const json& c) {
  auto by_seg = refs_by_segment(streams(c["refs"]));
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const auto& seg : by_seg) out.push_back(split_lines_py(seg));
  return out;
}

TEST_F(BleuGolden, NltkCorpus) {
  int n = for_variant("nltk.corpus_bleu", [](const json& c) {
    auto hyps = split_lines_py(strings(c["hyps"]));
    auto refs = nltk_refs(c);
    for (int order = 1; order <= 4; ++order) {
      NltkBleuOptions o;
      o.smoothing = method_of(c["options"]);
      o.weights.assign(order, 1.0 / order);
      expect_nltk(nltk_corpus_bleu(hyps, refs, o), c["expected"]["bleu_" + std::to_string(order)],
                  "bleu_" + std::to_string(order));
    }
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, NltkSentence) {
  int n = for_variant("nltk.sentence_bleu", [](const json& c) {
    auto hyps = split_lines_py(strings(c["hyps"]));
    auto refs = nltk_refs(c);
    const json& per = c["expected"]["per_segment"];
    ASSERT_EQ(per.size(), hyps.size());
    for (size_t i = 0; i < hyps.size(); ++i) {
      for (int order = 1; order <= 4; ++order) {
        NltkBleuOptions o;
        o.smoothing = method_of(c["options"]);
        o.weights.assign(order, 1.0 / order);
        expect_nltk(nltk_sentence_bleu(refs[i], hyps[i], o),
                    per[i]["bleu_" + std::to_string(order)],
                    "segment " + std::to_string(i) + " bleu_" + std::to_string(order));
      }
    }
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, Coco) {
  int n = for_variant("pycocoevalcap.Bleu", [](const json& c) {
    auto s = coco_bleu(strings(c["hyps"]), refs_by_segment(streams(c["refs"])));
    const json& e = c["expected"];
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(
          close(s.bleu[k], e["Bleu_" + std::to_string(k + 1)], "Bleu_" + std::to_string(k + 1)));
    ASSERT_EQ(s.per_segment.size(), e["per_segment"].size());
    for (size_t i = 0; i < s.per_segment.size(); ++i)
      for (int k = 0; k < 4; ++k)
        EXPECT_TRUE(close(s.per_segment[i][k], e["per_segment"][i][k], "per_segment"));
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, Plato) {
  int n = for_variant("plato.bleu", [](const json& c) {
    auto s = plato_bleu(strings(c["hyps"]), streams(c["refs"])[0]);
    EXPECT_TRUE(close(s.bleu_1, c["expected"]["bleu_1"], "bleu_1"));
    EXPECT_TRUE(close(s.bleu_2, c["expected"]["bleu_2"], "bleu_2"));
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, MultiBleu) {
  int n = for_variant("multi-bleu.perl", [](const json& c) {
    MultiBleuOptions o;
    o.lowercase = c["options"]["lowercase"].get<bool>();
    auto s = multi_bleu(strings(c["hyps"]), streams(c["refs"]), o);
    const json& e = c["expected"];
    int rc = e["rc"].get<int>();
    if (rc == 255) {  // Perl died: we return a defined value with a warning
      EXPECT_TRUE(s.warning.has_value());
      EXPECT_EQ(s.score, 0.0);
      return;
    }
    EXPECT_EQ(s.format(), e["stdout"].get<std::string>());
    EXPECT_EQ(s.warning.has_value(), rc != 0);
    EXPECT_NEAR(s.score, e["bleu"].get<double>(), 0.005 + 1e-9);
    EXPECT_EQ(s.hyp_len, e["hyp_len"].get<int64_t>());
    EXPECT_EQ(s.ref_len, e["ref_len"].get<int64_t>());
  });
  EXPECT_GT(n, 0);
}

TEST_F(BleuGolden, EveryLineHasAKnownVariant) {
  std::map<std::string, int> seen;
  for (const auto& c : cases_) {
    std::string v = c["variant"];
    bool known = false;
    for (const char* p : {"sacrebleu.corpus_bleu", "sacrebleu.sentence_bleu",
                          "sacrebleu.corpus_chrf", "nltk.corpus_bleu", "nltk.sentence_bleu",
                          "pycocoevalcap.Bleu", "plato.bleu", "multi-bleu.perl"})
      known |= v.rfind(p, 0) == 0;
    EXPECT_TRUE(known) << "unhandled variant " << v;
    seen[v]++;
  }
  EXPECT_EQ(cases_.size(), 837u);
}

}  // namespace
}  // namespace unieval::metrics
