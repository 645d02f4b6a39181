// UniLM cnndm/eval.py post-processing (tasks/unilm_text.h) and the cnndm adapter's
// unilm_postprocess option, on small inputs written here.
#include <gtest/gtest.h>

#include "core/error.h"
#include "pipelines/evaluate.h"
#include "tasks/task.h"
#include "tasks/unilm_text.h"
#include "tests/tasks/task_test_util.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::TempDir;

TEST(UnilmCnndmTest, FixTokenizationFlavoursDiffer) {
  // cnndm's table maps brackets to upper case and leaves [UNK], &, <, > alone.
  EXPECT_EQ(unilm_fix_tokenization("( a ) [ b ] [UNK] & <", UnilmFlavour::kCnndm),
            "-LRB- a -RRB- -LSB- b -RSB- [UNK] & <");
  EXPECT_EQ(unilm_fix_tokenization("( a ) [UNK] &", UnilmFlavour::kQg), "-lrb- a -rrb- UNK &amp;");
  // Python 3 str: Unicode digits, upper case and whitespace; Python 2 bytes: ASCII only.
  EXPECT_EQ(unilm_fix_tokenization("\u0663 , \u0660\u0660", UnilmFlavour::kCnndm),
            "\u0663,\u0660\u0660");
  EXPECT_EQ(unilm_fix_tokenization("\u0663 , \u0660\u0660", UnilmFlavour::kQg),
            "\u0663 , \u0660\u0660");
  EXPECT_EQ(unilm_fix_tokenization("\u00c9 . \u00dc . x", UnilmFlavour::kCnndm),
            "\u00c9.\u00dc. . x");
  EXPECT_EQ(unilm_fix_tokenization("\u00c9 . \u00dc . x", UnilmFlavour::kQg),
            "\u00c9 . \u00dc . x");
  EXPECT_EQ(unilm_fix_tokenization("a\u00a0b", UnilmFlavour::kCnndm), "a b");
  EXPECT_EQ(unilm_fix_tokenization("a\u00a0b", UnilmFlavour::kQg), "a\u00a0b");
  EXPECT_EQ(py3_strip("\u3000 x y \u2009"), "x y");
}

TEST(UnilmCnndmTest, ShortSentencesDuplicatesAndTruncation) {
  const std::string line =
      "  the cat sat on the mat . [X_SEP] short one . [X_SEP] the cat sat on the mat again . "
      "[X_SEP] a totally new sentence here today .  ";
  // "short one ." has 3 tokens (<= 4): dropped. The third shares 6 of its 7 distinct words with
  // the first (6/7 > 0.7): dropped. The fourth shares only "." (1/7): kept.
  EXPECT_EQ(unilm_cnndm_postprocess(line, {0, 0.7}),
            (std::vector<std::string>{"the cat sat on the mat .",
                                      "a totally new sentence here today ."}));
  EXPECT_EQ(unilm_cnndm_postprocess(line, {0, 0.9}).size(), 3u);  // 6/7 <= 0.9
  EXPECT_EQ(unilm_cnndm_postprocess(line, {0, 1.0}).size(), 3u);  // rate 1: no de-duplication
  // trunc_len 10: the first sentence's 7 tokens, then 3 of the next, and the summary ends.
  EXPECT_EQ(unilm_cnndm_postprocess(line, {10, 0.7}),
            (std::vector<std::string>{"the cat sat on the mat .", "a totally new"}));
  EXPECT_EQ(unilm_cnndm_postprocess(line, {7, 0.7}),
            (std::vector<std::string>{"the cat sat on the mat ."}));
  // A sentence dropped as a duplicate still adds its words to the history.
  EXPECT_EQ(
      unilm_cnndm_postprocess("a b c d e f [X_SEP] a b c d e g [X_SEP] a b c d g h", {0, 0.7}),
      (std::vector<std::string>{"a b c d e f"}));
  EXPECT_EQ(unilm_cnndm_gold(" a b . <S_SEP> c d . "),
            (std::vector<std::string>{"a b .", "c d ."}));
  EXPECT_EQ(unilm_cnndm_gold("a<S_SEP>b"), (std::vector<std::string>{"a<S_SEP>b"}));
}

TEST(UnilmCnndmTest, CnndmAdapterOption) {
  TempDir tmp;
  auto ref = tmp.write("test.summary",
                       "the cat sat on the mat . <S_SEP> it was very happy today .\n\npolice "
                       "arrest a man in town .\n");
  auto pred = tmp.write("pred.txt",
                        "the cat sat on the mat . [X_SEP] ok . [X_SEP] it was very happy today .\n"
                        "anything\npolice arrest a man in town .\n");
  auto req = request("cnndm", ref, pred);
  req.options["wordnet_exceptions"] =
      "false";  // stems without ROUGE data (small_tasks_test: the policy)
  req.options["unilm_postprocess"] = "true";
  auto r = evaluate(req);
  EXPECT_EQ(r.examples, 2);  // the empty reference's pair is not scored
  EXPECT_DOUBLE_EQ(r.score("rouge1_f")->value, 1.0);
  EXPECT_DOUBLE_EQ(r.score("rougeL_f")->value, 1.0);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("empty reference") != std::string::npos;
  EXPECT_TRUE(noted);
  // Without it "ok ." stays in the summary.
  auto plain = request(
      "cnndm",
      tmp.write("ref2.txt", "the cat sat on the mat . <S_SEP> it was very happy today .\n"),
      tmp.write("pred2.txt",
                "the cat sat on the mat . [X_SEP] ok . [X_SEP] it was very happy today .\n"));
  plain.options["wordnet_exceptions"] = "false";
  EXPECT_LT(evaluate(plain).score("rouge1_f")->value, 1.0);
  plain.options["trunc_len"] = "100";
  EXPECT_THROW(evaluate(plain), InputError);  // only with unilm_postprocess
  auto giga = request("gigaword", ref, pred);
  giga.options["wordnet_exceptions"] = "false";
  giga.options["unilm_postprocess"] = "true";
  EXPECT_THROW(evaluate(giga), InputError);  // no such script for Gigaword
  req.options["unilm_postprocess"] = "yes";
  EXPECT_THROW(evaluate(req), InputError);
}

}  // namespace
}  // namespace unieval::tasks
