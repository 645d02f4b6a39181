// tasks/diagnostics.h: exact counts on hand-made hypothesis lists (empty and whitespace-only
// lines, "s s s", a tie for the most common string), the warnings at their thresholds, and the
// JSON object's names.
#include "tasks/diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace unieval::tasks {
namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

TEST(DiagnosticsTest, CountsEmptyRepeatedDistinctAndTheFirstOfTiedMostCommon) {
  const std::vector<std::string> hyps = {
      "y y",              // 2 words; two in a row is no stutter
      "a b",              // 2
      "",                 // empty
      "s s s",            // 3, repeated
      "a b",              // 2; "a b" reaches 2 occurrences before "y y" does
      "  \t ",            // whitespace only: empty
      "the the the cat",  // 4, repeated
      "y y",              // 2; ties with "a b" at 2: "y y" occurs first
      "a  b",             // 2; another string than "a b"
  };
  const std::vector<std::string> refs(hyps.size(), "one two three");
  const OutputDiagnostics d = diagnose_outputs(hyps, refs);
  EXPECT_EQ(d.hypotheses, 9);
  EXPECT_EQ(d.empty, 2);
  EXPECT_EQ(d.repeated, 2);
  EXPECT_EQ(d.distinct, 7);
  EXPECT_EQ(d.most_common, "y y");
  EXPECT_EQ(d.most_common_count, 2);
  EXPECT_DOUBLE_EQ(d.mean_hyp_words, 17.0 / 9.0);
  EXPECT_DOUBLE_EQ(d.mean_ref_words, 3.0);
  ASSERT_TRUE(d.length_ratio.has_value());
  EXPECT_DOUBLE_EQ(*d.length_ratio, 17.0 / 27.0);

  // 2 of 9 empty (> 1%), 2 of 9 repeated (> 5%), "y y" 2 of 9 (22.2% > 20%); ratio 0.63 is fine.
  const auto w = diagnostic_warnings(d);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("2 of 9 hypotheses (22.2%) are empty"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("2 of 9 hypotheses (22.2%) repeat a word"), std::string::npos) << w[1];
  EXPECT_NE(w[2].find("\"y y\""), std::string::npos) << w[2];
  EXPECT_FALSE(any_contains(w, "times as long"));
}

TEST(DiagnosticsTest, WordsAndRepeatedRuns) {
  EXPECT_EQ(whitespace_words(" a\tb\nc  d\r\n"), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(whitespace_words(" \t\n").empty());
  EXPECT_TRUE(has_repeated_run(whitespace_words("s s s")));
  EXPECT_TRUE(has_repeated_run(whitespace_words("what is is is it")));
  EXPECT_FALSE(has_repeated_run(whitespace_words("s s t s s")));
  EXPECT_FALSE(has_repeated_run(whitespace_words("")));
}

TEST(DiagnosticsTest, NormalOutputsWarnNothing) {
  // Five different hypotheses as long as their references: no warning; a string seen once is no
  // collapse even when it is 20% or more of a short list.
  const std::vector<std::string> hyps = {"a b c", "d e f", "g h i", "j k l", "m n o"};
  const OutputDiagnostics d = diagnose_outputs(hyps, hyps);
  EXPECT_EQ(d.distinct, 5);
  EXPECT_EQ(d.most_common, "a b c");
  EXPECT_EQ(d.most_common_count, 1);
  EXPECT_DOUBLE_EQ(*d.length_ratio, 1.0);
  EXPECT_TRUE(diagnostic_warnings(d).empty());
  EXPECT_TRUE(diagnostic_warnings(diagnose_outputs({}, {})).empty());
}

TEST(DiagnosticsTest, LengthRatioAndReferenceFree) {
  // Hypotheses of 1 word against references of 5 and 3: ratio 1 / 4.
  const OutputDiagnostics d = diagnose_outputs({"a", "b"}, {"a b c d e", "x y z"});
  EXPECT_DOUBLE_EQ(d.mean_ref_words, 4.0);
  EXPECT_DOUBLE_EQ(*d.length_ratio, 0.25);
  const auto w = diagnostic_warnings(d);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("0.25 times as long as the references"), std::string::npos) << w[0];
  // Too long as well.
  EXPECT_TRUE(any_contains(diagnostic_warnings(diagnose_outputs({"a b c d e"}, {"a b"})),
                           "2.50 times as long"));
  // Without references: no ratio (null in JSON), no length warning.
  const OutputDiagnostics free = diagnose_outputs({"a", "b"}, {});
  EXPECT_FALSE(free.length_ratio.has_value());
  EXPECT_DOUBLE_EQ(free.mean_ref_words, 0.0);
  EXPECT_TRUE(to_json(free)["length_ratio"].is_null());
  EXPECT_TRUE(diagnostic_warnings(free).empty());
  // References not aligned with the hypotheses: the adapter's bug.
  EXPECT_THROW(diagnose_outputs({"a", "b"}, {"a"}), std::invalid_argument);
}

TEST(DiagnosticsTest, JsonHasExactlyTheDocumentedNamesAndReadsBack) {
  const OutputDiagnostics d = diagnose_outputs({"s s s", "", "s s s"}, {"a b", "c d", "e f"});
  const auto j = to_json(d);
  std::vector<std::string> names;
  for (const auto& [k, v] : j.items()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"hypotheses", "empty", "repeated", "distinct",
                                             "most_common", "mean_hyp_words", "mean_ref_words",
                                             "length_ratio", "glued_punctuation"}));
  EXPECT_EQ(j["most_common"], nlohmann::ordered_json({{"text", "s s s"}, {"count", 2}}));
  const OutputDiagnostics back = diagnostics_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(diagnostic_warnings(back), diagnostic_warnings(d));
  // Rendered in a few lines.
  const std::string text = render_diagnostics(d);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find("3 hypotheses, 1 empty, 2 with a word 3+ times in a row, 2 distinct"),
            std::string::npos)
      << text;
}

TEST(DiagnosticsTest, GluedPunctuationIsCountedPerLineAndWarnsOnlyOnAGap) {
  EXPECT_TRUE(has_glued_punctuation({"what", "is", "it?"}));
  EXPECT_TRUE(has_glued_punctuation({"he", "said:", "no"}));
  EXPECT_TRUE(has_glued_punctuation({"paris,", "france"}));
  EXPECT_TRUE(has_glued_punctuation({"\xc3\xa9t\xc3\xa9!"}));  // "été!": any byte before the mark
  EXPECT_FALSE(has_glued_punctuation({"what", "is", "it", "?"}));
  EXPECT_FALSE(has_glued_punctuation({"?", "!", "..."}));
  EXPECT_FALSE(has_glued_punctuation({"?!", "...?", "u.s."}));  // marks only, or after '.'
  EXPECT_FALSE(has_glued_punctuation({}));

  // Du's tokenised references against HF-detokenised questions: 3 of 4 glued, none of the
  // references: a gap of 75 points, warned about.
  const std::vector<std::string> detok = {"who won?", "where is it?", "when, then?", "how ?"};
  const std::vector<std::string> tok = {"who won ?", "where is it ?", "when , then ?", "how ?"};
  const OutputDiagnostics d = diagnose_outputs(detok, tok);
  EXPECT_EQ(d.glued_hyps, 3);
  EXPECT_EQ(d.glued_refs, 0);
  EXPECT_EQ(to_json(d)["glued_punctuation"],
            nlohmann::ordered_json({{"hypotheses", 3}, {"references", 0}}));
  const auto w = diagnostic_warnings(d);
  EXPECT_TRUE(any_contains(w, "3 of 4 hypotheses (75.0%) and 0 of the first references (0.0%)"));
  EXPECT_TRUE(any_contains(w, "the references are tokenised and the hypotheses are not"));
  EXPECT_TRUE(any_contains(w, "--no-clean-up"));
  // The reverse gap is named the other way round.
  EXPECT_TRUE(any_contains(diagnostic_warnings(diagnose_outputs(tok, detok)),
                           "the hypotheses are tokenised and the references are not"));
  // Both tokenised, or both not: no warning about it. A gap of exactly 20 points is not above.
  EXPECT_FALSE(any_contains(diagnostic_warnings(diagnose_outputs(tok, tok)), "attach"));
  EXPECT_FALSE(any_contains(diagnostic_warnings(diagnose_outputs(detok, detok)), "attach"));
  const std::vector<std::string> five = {"a?", "b", "c", "d", "e"};
  EXPECT_FALSE(any_contains(diagnostic_warnings(diagnose_outputs(five, {"a", "b", "c", "d", "e"})),
                            "attach"));
  // Without references nothing is counted or written.
  const OutputDiagnostics free = diagnose_outputs(detok, {});
  EXPECT_EQ(free.glued_hyps, 3);
  EXPECT_FALSE(to_json(free).contains("glued_punctuation"));
  EXPECT_FALSE(any_contains(diagnostic_warnings(free), "attach"));
  // Read back from JSON, the same warning.
  EXPECT_EQ(diagnostic_warnings(diagnostics_from_json(nlohmann::json::parse(to_json(d).dump()))),
            w);
}

}  // namespace
}  // namespace unieval::tasks
