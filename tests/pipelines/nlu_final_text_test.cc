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
  const std::string vocab = tmp.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n1990\n##s\n");
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

}  // namespace
}  // namespace unieval::pipelines
