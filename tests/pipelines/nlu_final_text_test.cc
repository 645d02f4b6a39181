// BERT's get_final_text (pipelines/run_nlu.h bert_final_text): the predicted pieces mapped back
// into the original words, on cases derived by hand from run_squad.py's algorithm.
#include <gtest/gtest.h>

#include "models/tokenizer/wordpiece.h"
#include "pipelines/run_nlu.h"
#include "tests/test_util.h"

namespace unieval::pipelines {
namespace {

models::WordPieceTokenizer uncased() {
  testing::TempDir tmp;
  const std::string vocab =
      tmp.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n1990\n##s\n");
  return models::WordPieceTokenizer::from_file(vocab, models::TokenizerOptions::bert(true));
}

TEST(BertFinalTextTest, TrimsInsideTheFirstAndLastWord) {
  const auto tok = uncased();
  // The pieces say "1990" (of "1990" "##s"): the answer ends inside the word.
  EXPECT_EQ(bert_final_text("1990", "1990s", tok), "1990");
  // Basic tokens "steve jobs ' s": "steve jobs" maps back to the first 10 characters.
  EXPECT_EQ(bert_final_text("steve jobs", "Steve Jobs's", tok), "Steve Jobs");
  // Case comes from the original text; inner spacing too.
  EXPECT_EQ(bert_final_text("new york", "(New York)", tok), "New York");
  EXPECT_EQ(bert_final_text("caf", "Café", tok), "Caf");  // é is one code point either way
}

TEST(BertFinalTextTest, FallsBackToTheWholeWordsAsBertDoes) {
  const auto tok = uncased();
  EXPECT_EQ(bert_final_text("xyz", "abc def", tok), "abc def");  // not found
  EXPECT_EQ(bert_final_text("", "abc", tok), "abc");
  // A decomposed accent: the BasicTokenizer drops the combining mark, the lengths differ.
  EXPECT_EQ(bert_final_text("caf", "Cafe\xCC\x81s", tok), "Cafe\xCC\x81s");
}

// run_squad.py's tok_text: " ".join, replace(" ##", ""), replace("##", ""), whitespace collapsed.
TEST(BertPredTextTest, DropsEveryDoubleHashAsRunSquadDoes) {
  EXPECT_EQ(bert_pred_text({"1990", "##s"}), "1990s");
  // A span starting at a continuation piece: the leading "##" goes too (span_words kept "##man"
  // before #38, and get_final_text then fell back to the whole words).
  EXPECT_EQ(bert_pred_text({"##man", ",", "viking"}), "man , viking");
  EXPECT_EQ(bert_pred_text({"##man"}), "man");
  EXPECT_EQ(bert_pred_text({"a", "##b", "##c", "d"}), "abc d");
  EXPECT_EQ(bert_pred_text({"[UNK]", "x"}), "[UNK] x");
  EXPECT_EQ(bert_pred_text({"##"}), "");  // a lone "##" piece vanishes, as in Python
  EXPECT_EQ(bert_pred_text({}), "");
}

TEST(BertPredTextTest, SpanStartingInsideAWordMapsToItsTail) {
  const auto tok = uncased();
  EXPECT_EQ(bert_final_text(bert_pred_text({"##man", ",", "viking"}), "Norseman, Viking", tok),
            "man, Viking");
  // The pre-#38 text kept "##man": not found in the basic tokens, whole words came back.
  EXPECT_EQ(bert_final_text("##man , viking", "Norseman, Viking", tok), "Norseman, Viking");
}

// No valid span in any window: run_squad.py's nonce "empty" for SQuAD 1.1; for SQuAD 2.0 (where
// run_squad.py crashes) no answer, with a score_diff above any real threshold.
TEST(SquadNoSpanTest, DocumentedChoicePerVersion) {
  EXPECT_EQ(squad_no_span("squad-v1.1").text, "empty");
  EXPECT_EQ(squad_no_span("squad-v2").text, "");
  EXPECT_EQ(squad_no_span("squad-v2").score_diff, kSquadNoSpanScoreDiff);
  EXPECT_GE(kSquadNoSpanScoreDiff, 1e6);
}

}  // namespace
}  // namespace unieval::pipelines
