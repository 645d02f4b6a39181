// Bootstrap CIs and paired significance of corpus BLEU and chrF (`score --metric bleu|chrf|chrf++
// --bootstrap N --seed S --confidence C --paired-bootstrap FILE`, sacreBLEU's --confidence and
// --paired-bs conventions): the resamples re-sum the per-segment statistics, so a resample of every
// segment is the corpus score; the intervals are deterministic for a seed and bracket the score.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io.h"
#include "metrics/bleu.h"
#include "metrics/bootstrap.h"
#include "metrics/chrf.h"
#include "metrics/protocol.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::TempDir;

struct Files {
  TempDir tmp;
  std::string hyp, ref0, ref1, base;
  testing::TextCorpus c, b;
  Files() : c(testing::random_text_corpus(300, 11)), b(testing::random_text_corpus(300, 12)) {
    hyp = tmp.write("hyp.txt", testing::join_lines(c.hyps));
    ref0 = tmp.write("ref0.txt", testing::join_lines(c.refs[0]));
    ref1 = tmp.write("ref1.txt", testing::join_lines(c.refs[1]));
    base = tmp.write("base.txt", testing::join_lines(b.hyps));
  }
};

nlohmann::json score_json(const std::string& metric, const Files& f,
                          std::vector<std::pair<std::string, OptionValue>> extra) {
  OptionValues v = call_values({metric, {}});
  v.set("hyp", f.hyp);
  v.set("ref", std::vector<std::string>{f.ref0, f.ref1});
  for (auto& [k, x] : extra) v.set(k, x);
  return nlohmann::json::parse(score_metric(metric, v, nullptr));
}

TEST(BleuBootstrapTest, CisAreDeterministicForASeedAndBracketTheScore) {
  Files f;
  ASSERT_GE(f.c.refs.size(), 2u);
  for (const char* metric : {"bleu", "chrf", "chrf++"}) {
    auto plain = score_json(metric, f, {});
    auto a = score_json(metric, f, {{"bootstrap", 300}, {"seed", 7ULL}});
    auto again = score_json(metric, f, {{"bootstrap", 300}, {"seed", 7ULL}});
    auto other = score_json(metric, f, {{"bootstrap", 300}, {"seed", 8ULL}});
    EXPECT_EQ(a.dump(), again.dump()) << metric;  // deterministic for a seed
    EXPECT_NE(a["bootstrap"].dump(), other["bootstrap"].dump()) << metric;  // and seeded
    EXPECT_EQ(a["score"], plain["score"]) << metric;  // the corpus score is unchanged
    EXPECT_FALSE(plain.contains("bootstrap"));
    const double score = a["score"].get<double>();
    const auto& ci = a["bootstrap"]["score"];
    EXPECT_LT(ci["low"].get<double>(), score) << metric;
    EXPECT_GT(ci["high"].get<double>(), score) << metric;
    EXPECT_LT(ci["high"].get<double>() - ci["low"].get<double>(), 0.5 * score) << metric;
    EXPECT_GT(ci["stddev"].get<double>(), 0) << metric;
    EXPECT_EQ(a["bootstrap"]["signature"], "bs:300|seed:7|ci:0.95");
    // A narrower coverage gives a narrower interval on the same resamples.
    auto narrow = score_json(metric, f, {{"bootstrap", 300}, {"seed", 7ULL}, {"confidence", 0.5}});
    EXPECT_GT(narrow["bootstrap"]["score"]["low"].get<double>(), ci["low"].get<double>()) << metric;
    EXPECT_LT(narrow["bootstrap"]["score"]["high"].get<double>(), ci["high"].get<double>())
        << metric;
  }
}

TEST(BleuBootstrapTest, ResamplesSumSegmentStatistics) {
  // The resampling function of the library call: the identity resample is corpus_bleu exactly,
  // and a resample that repeats one segment n times is that segment's statistics times n.
  Files f;
  core::Corpus c{f.c.hyps, f.c.refs};
  MetricRun r = run_metric({"bleu", {}}, c, {}, true);
  ASSERT_TRUE(r.resample);
  std::vector<size_t> all(c.hyps.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  BleuOptions o;
  EXPECT_EQ(r.resample(all)[0], corpus_bleu(c.hyps, c.refs, o).score);
  auto seg = bleu_segment_stats(c.hyps, c.refs, o);
  BleuStats three;
  three.correct.assign(4, 0);
  three.total.assign(4, 0);
  for (int k = 0; k < 3; ++k) three.add(seg[5]);
  EXPECT_EQ(r.resample({5, 5, 5})[0], compute_bleu(three, o).score);

  MetricRun ch = run_metric({"chrf", {}}, c, {}, true);
  ChrfOptions co;
  EXPECT_EQ(ch.resample(all)[0], corpus_chrf(c.hyps, c.refs, co).score);
  EXPECT_EQ(ch.resample({2})[0],
            sentence_chrf({c.hyps[2]}, {{c.refs[0][2]}, {c.refs[1][2]}}, co)[0].score);
}

TEST(BleuBootstrapTest, PairedBootstrapAgainstABaseline) {
  Files f;
  for (const char* metric : {"bleu", "chrf++"}) {
    // Against itself: delta 0, p-value 1 (every resampled difference is as extreme as 0).
    auto self = score_json(metric, f, {{"paired-bootstrap", f.hyp}, {"bootstrap", 200}});
    EXPECT_EQ(self["paired_bootstrap"]["score"]["delta"].get<double>(), 0.0) << metric;
    EXPECT_EQ(self["paired_bootstrap"]["score"]["p_value"].get<double>(), 1.0) << metric;
    // Against another system: its corpus score is the baseline; deterministic; with no
    // --bootstrap the paired test still runs (1000 resamples, as the other metrics).
    auto vs =
        score_json(metric, f, {{"paired-bootstrap", f.base}, {"bootstrap", 200}, {"seed", 3ULL}});
    auto base = nlohmann::json::parse(score_metric(
        metric,
        [&] {
          OptionValues v = call_values({metric, {}});
          v.set("hyp", f.base);
          v.set("ref", std::vector<std::string>{f.ref0, f.ref1});
          return v;
        }(),
        nullptr));
    EXPECT_EQ(vs["paired_bootstrap"]["score"]["baseline"], base["score"]) << metric;
    EXPECT_EQ(vs["paired_bootstrap"]["score"]["system"], vs["score"]) << metric;
    double p = vs["paired_bootstrap"]["score"]["p_value"].get<double>();
    EXPECT_GT(p, 0.0);
    EXPECT_LE(p, 1.0);
    EXPECT_EQ(
        vs.dump(),
        score_json(metric, f, {{"paired-bootstrap", f.base}, {"bootstrap", 200}, {"seed", 3ULL}})
            .dump());
    auto only = score_json(metric, f, {{"paired-bootstrap", f.base}});
    EXPECT_EQ(only["paired_bootstrap"]["signature"], "bs:1000|seed:12345|ci:0.95");
    EXPECT_FALSE(only.contains("bootstrap"));
  }
  // A baseline with another number of lines, and resampling of sentence scores, are refused.
  TempDir tmp;
  EXPECT_THROW(score_json("bleu", f, {{"paired-bootstrap", tmp.write("short.txt", "a\n")}}),
               InputError);
  EXPECT_THROW(score_json("bleu", f, {{"bootstrap", 10}, {"sentence-level", true}}), InputError);
}

}  // namespace
}  // namespace unieval::metrics
