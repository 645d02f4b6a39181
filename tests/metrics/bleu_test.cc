// sacreBLEU 2.6.0's own test-suite expectations (test_bleu.py, test_sentence_bleu.py; Apache-2.0,
// credited in THIRD_PARTY_NOTICES.md; see docs/metrics/bleu_nist_meteor.md §7) and the n-gram
// clipper.
#include "metrics/bleu.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/error.h"
#include "metrics/bleu_compat.h"
#include "metrics/ngram.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

const std::vector<std::string> kReadmeSys = {"The dog bit the man.", "It wasn't surprising.",
                                             "The man had just bitten him."};
const std::vector<std::vector<std::string>> kReadmeRefs = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

TEST(NgramClipperTest, ClipsAgainstTheMaximumReferenceCount) {
  Vocabulary v;
  auto hyp = v.ids(std::vector<std::string>{"the", "the", "the", "cat"});
  auto r1 = v.ids(std::vector<std::string>{"the", "cat"});
  auto r2 = v.ids(std::vector<std::string>{"the", "the", "dog"});
  NgramClipper c;
  c.run(hyp, std::vector<IdSpan>{r1, r2}, 3);
  EXPECT_EQ(c.matches(1), 3);  // "the" clipped to 2 (r2), "cat" 1
  EXPECT_EQ(c.matches(2), 2);  // "the the" (r2), "the cat" (r1)
  EXPECT_EQ(c.matches(3), 0);
  EXPECT_EQ(c.hyp_total(1), 4);
  EXPECT_EQ(c.hyp_total(3), 2);
}

TEST(BleuTest, Statistics) {  // test_bleu.py test_statistics
  BleuOptions o;
  auto st = bleu_segment_stats({"am I am a character sequence"},
                               {{"I am a symbol string sequence a a"}}, o);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].correct, (std::vector<int64_t>{4, 2, 1, 0}));
  EXPECT_EQ(st[0].total, (std::vector<int64_t>{6, 5, 4, 3}));
}

TEST(BleuTest, ScoringFromStatistics) {  // test_scoring
  BleuStats st;
  st.correct = {9, 7, 5, 3};
  st.total = {10, 8, 6, 4};
  st.sys_len = 11;
  st.ref_len = 11;
  EXPECT_NEAR(compute_bleu(st, BleuOptions()).score / 100, 0.8375922397, 1e-10);
}

TEST(BleuTest, EffectiveOrder) {  // test_effective_order: raw_corpus_bleu(sys, refs, .01)
  BleuOptions o;  // raw_corpus_bleu = tokenize none, floor smoothing, effective order
  o.tokenize = BleuTokenize::kNone;
  o.smooth = BleuSmooth::kFloor;
  o.smooth_value = 0.01;
  o.effective_order = true;
  EXPECT_NEAR(corpus_bleu({"test"}, {{"a test"}}, o).score / 100, 0.3678794411714425, 1e-15);
  EXPECT_NEAR(corpus_bleu({"a test"}, {{"a test"}}, o).score / 100, 1.0, 1e-15);
  EXPECT_NEAR(corpus_bleu({"a little test"}, {{"a test"}}, o).score / 100, 0.03218297948685433,
              1e-15);
}

TEST(BleuTest, ReadmeCorpus) {  // test_corpus_bleu
  BleuOptions o;
  EXPECT_NEAR(corpus_bleu(kReadmeSys, kReadmeRefs, o).score, 48.530827, 1e-6);
  o.tokenize = BleuTokenize::kNone;
  EXPECT_NEAR(corpus_bleu(kReadmeSys, kReadmeRefs, o).score, 49.1919566, 1e-6);
  o.tokenize = BleuTokenize::kIntl;
  EXPECT_NEAR(corpus_bleu(kReadmeSys, kReadmeRefs, o).score, 43.91623493, 1e-6);
  o = BleuOptions();
  o.smooth = BleuSmooth::kNone;
  EXPECT_NEAR(corpus_bleu(kReadmeSys, kReadmeRefs, o).score, 48.530827, 1e-6);
  EXPECT_EQ(corpus_bleu({"", "", ""}, kReadmeRefs, BleuOptions()).score, 0.0);
}

TEST(BleuTest, MaxNgramOrder) {  // test_max_ngram_order
  const char* expected[] = {"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};
  for (int n = 1; n <= 6; ++n) {
    BleuOptions o;
    o.max_order = n;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", corpus_bleu(kReadmeSys, kReadmeRefs, o).score);
    EXPECT_EQ(std::string(buf), expected[n - 1]) << "max order " << n;
  }
}

TEST(BleuTest, DegenerateStatisticsScoreZero) {  // test_degenerate_statistics
  BleuOptions o;
  o.smooth = BleuSmooth::kFloor;
  BleuStats st;
  st.correct = {0, 0, 0, 0};
  st.total = {0, 0, 0, 0};
  EXPECT_EQ(compute_bleu(st, o).score, 0.0);
  st.total = {4, 3, 2, 1};
  st.sys_len = 4;
  st.ref_len = 4;
  EXPECT_EQ(compute_bleu(st, o).score, 0.0);
}

// test_sentence_bleu.py (tolerance 1e-3 there).
struct SentenceCase {
  const char* tok;
  const char* smooth;
  double value;  // < 0: default
  bool lowercase;
  double expected;
};

TEST(BleuTest, SentenceBleuRomanian) {
  const std::string sys =
      "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;";
  const std::string ref = "producţia de zahăr brut se exprimă în zahăr alb;";
  const SentenceCase cases[] = {
      {"13a", "exp", -1, false, 8.493},     {"13a", "none", -1, false, 0.0},
      {"13a", "floor", -1, false, 4.51688}, {"13a", "floor", 0.5, false, 10.10},
      {"13a", "add-k", -1, false, 14.882},  {"13a", "add-k", 2, false, 21.389},
      {"none", "exp", -1, false, 7.347},    {"intl", "exp", -1, false, 8.493},
      {"char", "exp", -1, false, 40.8759},  {"char", "exp", -1, true, 42.0267}};
  for (const auto& c : cases) {
    BleuOptions o;
    o.tokenize = parse_bleu_tokenize(c.tok);
    o.smooth = parse_bleu_smooth(c.smooth);
    if (c.value >= 0) o.smooth_value = c.value;
    o.lowercase = c.lowercase;
    o.effective_order = true;
    EXPECT_NEAR(sentence_bleu({sys}, {{ref}}, o)[0].score, c.expected, 5e-3)
        << c.tok << " " << c.smooth << " " << c.value;
  }
  for (const char* smooth : {"exp", "floor", "add-k", "none"}) {
    BleuOptions o;
    o.smooth = parse_bleu_smooth(smooth);
    o.effective_order = true;
    EXPECT_EQ(sentence_bleu({"this is a cat"}, {{"okay thanks"}}, o)[0].score, 0.0) << smooth;
  }
}

// Segments are counted on several threads, each with a vocabulary of its own: every segment's
// statistics, and so every score, must be the same for any thread count (a seeded corpus of
// 3,000 segments, some with a missing reference, every tokenizer).
TEST(BleuTest, ThreadCountChangesNoStatistic) {
  auto corpus = testing::random_text_corpus(3000, 11, "<none>");
  const auto& hyps = corpus.hyps;
  const auto& refs = corpus.refs;
  for (BleuTokenize tok : {BleuTokenize::k13a, BleuTokenize::kIntl, BleuTokenize::kChar,
                           BleuTokenize::kZh, BleuTokenize::kNone}) {
    BleuOptions o;
    o.tokenize = tok;
    o.ref_missing_marker = "<none>";
    o.threads = 1;
    auto one = bleu_segment_stats(hyps, refs, o);
    std::string want = corpus_bleu(hyps, refs, o).format();
    for (int t : {2, 3, 8, 0}) {
      o.threads = t;
      auto many = bleu_segment_stats(hyps, refs, o);
      ASSERT_EQ(one.size(), many.size());
      for (size_t i = 0; i < one.size(); ++i) {
        ASSERT_EQ(one[i].sys_len, many[i].sys_len) << i;
        ASSERT_EQ(one[i].ref_len, many[i].ref_len) << i;
        ASSERT_EQ(one[i].correct, many[i].correct) << i;
        ASSERT_EQ(one[i].total, many[i].total) << i;
      }
      EXPECT_EQ(want, corpus_bleu(hyps, refs, o).format()) << t;
    }
  }
}

// BleuReferences (references tokenised once, for paired tests) counts as the references do:
// every tokenizer, both cases, a missing-reference marker, several blocks, any thread count, and
// hypotheses full of tokens no reference has (another corpus's).
TEST(BleuTest, PreparedReferencesCountAsTheReferences) {
  auto corpus = testing::random_text_corpus(1000, 11, "<none>");
  auto other = testing::random_text_corpus(1000, 12, "<none>");
  for (size_t i = 0; i < other.hyps.size(); ++i)
    other.hyps[i] += " novel" + std::to_string(i % 37) + " x";
  for (BleuTokenize tok : {BleuTokenize::k13a, BleuTokenize::kIntl, BleuTokenize::kChar,
                           BleuTokenize::kZh, BleuTokenize::kNone})
    for (bool lc : {false, true}) {
      BleuOptions o;
      o.tokenize = tok;
      o.lowercase = lc;
      o.ref_missing_marker = "<none>";
      o.threads = 1;
      const BleuReferences prepared(corpus.refs, o);
      EXPECT_EQ(prepared.segments(), corpus.hyps.size());
      EXPECT_EQ(prepared.streams(), corpus.refs.size());
      for (const auto* hyps : {&corpus.hyps, &other.hyps})
        for (int t : {1, 3, 0}) {
          o.threads = t;
          auto want = bleu_segment_stats(*hyps, corpus.refs, o);
          auto got = bleu_segment_stats(*hyps, prepared, o);
          ASSERT_EQ(want.size(), got.size());
          for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(want[i].sys_len, got[i].sys_len) << i;
            ASSERT_EQ(want[i].ref_len, got[i].ref_len) << i;
            ASSERT_EQ(want[i].correct, got[i].correct) << i;
            ASSERT_EQ(want[i].total, got[i].total) << i;
          }
        }
      BleuOptions other_case = o;
      other_case.lowercase = !lc;
      EXPECT_THROW(bleu_segment_stats(corpus.hyps, prepared, other_case), std::invalid_argument);
      std::vector<std::string> short_hyps(corpus.hyps.begin(), corpus.hyps.begin() + 10);
      EXPECT_THROW(bleu_segment_stats(short_hyps, prepared, o), InputError);
    }
}

TEST(BleuTest, SignatureAndMissingReferences) {
  BleuOptions o;
  o.smooth = BleuSmooth::kFloor;
  o.lowercase = true;
  EXPECT_EQ(o.signature(2), "nrefs:2|case:lc|eff:no|tok:13a|smooth:floor[0.10]|version:2.6.0");
  // A missing reference (marker) is dropped; an empty line is a 0-length reference.
  BleuOptions m;
  m.ref_missing_marker = "<none>";
  auto with_marker = corpus_bleu({"a b c d"}, {{"a b c d"}, {"<none>"}}, m);
  EXPECT_EQ(with_marker.ref_len, 4);
  EXPECT_EQ(with_marker.signature.rfind("nrefs:var|", 0), 0u);
  auto with_empty = corpus_bleu({"a b"}, {{"a b c d e f"}, {""}}, BleuOptions());
  EXPECT_EQ(with_empty.ref_len, 0);  // |2-0| = 2 < |2-6|: the empty reference is closest
}

TEST(BleuCompatTest, NltkDoctestExamples) {
  // nltk/translate/bleu_score.py docstring: corpus_bleu example = 0.5920..., sentence 0.5045...
  std::vector<std::string> hyp1 = {"It",    "is",      "a",        "guide", "to",       "action",
                                   "which", "ensures", "that",     "the",   "military", "always",
                                   "obeys", "the",     "commands", "of",    "the",      "party"};
  std::vector<std::string> ref1a = {"It",      "is",      "a",     "guide",   "to",       "action",
                                    "that",    "ensures", "that",  "the",     "military", "will",
                                    "forever", "heed",    "Party", "commands"};
  std::vector<std::string> ref1b = {"It",     "is",         "the",   "guiding",  "principle",
                                    "which",  "guarantees", "the",   "military", "forces",
                                    "always", "being",      "under", "the",      "command",
                                    "of",     "the",        "Party"};
  std::vector<std::string> ref1c = {"It",         "is",   "the",    "practical", "guide", "for",
                                    "the",        "army", "always", "to",        "heed",  "the",
                                    "directions", "of",   "the",    "party"};
  auto r = nltk_sentence_bleu({ref1a, ref1b, ref1c}, hyp1);
  ASSERT_FALSE(r.error);
  EXPECT_NEAR(r.score, 0.5045666840058485, 1e-12);
}

}  // namespace
}  // namespace unieval::metrics
