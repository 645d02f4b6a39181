// ROUGE-1.5.5's Porter stemmer (with the 2004 step-4 cascade), NLTK's Porter stemmer, the
// ROUGE / rouge-score tokenisers and the WordNet exception lookup.
#include <gtest/gtest.h>

#include "core/error.h"
#include "metrics/text/porter_nltk.h"
#include "metrics/text/porter_rouge.h"
#include "metrics/text/rouge_tokenize.h"
#include "metrics/text/wordnet_exceptions.h"

namespace unieval::metrics::text {
namespace {

TEST(RougePorterTest, StepFourCascadeOf2004) {
  // Words observed with the Perl `stem` (shared/docs/metrics/rouge_squad_coqa_glue.md §1.2).
  EXPECT_EQ(rouge155_porter_stem("implementation"), "implem");
  EXPECT_EQ(rouge155_porter_stem("argument"), "argum");
  EXPECT_EQ(rouge155_porter_stem("element"), "elem");
  EXPECT_EQ(rouge155_porter_stem("uses"), "us");
  EXPECT_EQ(rouge155_porter_stem("always"), "alwai");
  EXPECT_EQ(rouge155_porter_stem("display"), "displai");
  EXPECT_EQ(rouge155_porter_stem("dying"), "dy");
  EXPECT_EQ(rouge155_porter_stem("news"), "new");
  EXPECT_EQ(rouge155_porter_stem("innings"), "in");
  EXPECT_EQ(rouge155_porter_stem("proceed"), "proce");
}

TEST(RougePorterTest, ClassicPorterExamples) {
  EXPECT_EQ(rouge155_porter_stem("caresses"), "caress");
  EXPECT_EQ(rouge155_porter_stem("ponies"), "poni");
  EXPECT_EQ(rouge155_porter_stem("agreed"), "agre");
  EXPECT_EQ(rouge155_porter_stem("hopping"), "hop");
  EXPECT_EQ(rouge155_porter_stem("filing"), "file");
  EXPECT_EQ(rouge155_porter_stem("relational"), "relat");
  EXPECT_EQ(rouge155_porter_stem("controll"), "control");
  EXPECT_EQ(rouge155_porter_stem("happy"), "happi");
  EXPECT_EQ(rouge155_porter_stem("yelling"), "yell");  // initial y protected, restored
  EXPECT_EQ(rouge155_porter_stem("at"), "at");         // shorter than 3: unchanged
}

TEST(NltkPorterTest, DiffersFromRougeWhereNltkExtends) {
  EXPECT_EQ(nltk_porter_stem("uses"), "use");
  EXPECT_EQ(nltk_porter_stem("implementation"), "implement");
  EXPECT_EQ(nltk_porter_stem("argument"), "argument");
  EXPECT_EQ(nltk_porter_stem("always"), "alway");
  EXPECT_EQ(nltk_porter_stem("display"), "display");
  EXPECT_EQ(nltk_porter_stem("dying"), "die");
  EXPECT_EQ(nltk_porter_stem("lying"), "lie");
  EXPECT_EQ(nltk_porter_stem("skies"), "sky");
  EXPECT_EQ(nltk_porter_stem("news"), "news");
  EXPECT_EQ(nltk_porter_stem("innings"), "inning");
  EXPECT_EQ(nltk_porter_stem("proceed"), "proceed");
  EXPECT_EQ(nltk_porter_stem("happy"), "happi");
  EXPECT_EQ(nltk_porter_stem("enjoy"), "enjoy");
  EXPECT_EQ(nltk_porter_stem("ties"), "tie");
  EXPECT_EQ(nltk_porter_stem("generalization"), "gener");
}

TEST(RougeTokenizeTest, Rouge155Tokens) {
  using V = std::vector<std::string>;
  EXPECT_EQ(rouge155_tokens("The U.S. state-of-the-art café, $42.5 don't"),
            (V{"the", "u", "s", "state", "of", "the", "art", "caf", "42", "5", "don", "t"}));
  EXPECT_EQ(rouge155_tokens("İstanbul 東京 ﬁx"), (V{"stanbul", "x"}));
  EXPECT_TRUE(rouge155_tokens("... -- !!").empty());
}

TEST(RougeTokenizeTest, PerlSplitKeepsLeadingEmptyField) {
  EXPECT_EQ(perl_split_ascii_ws(" a  b ").size(), 3u);  // "", "a", "b"
  EXPECT_EQ(perl_split_ascii_ws("a b").size(), 2u);
  EXPECT_TRUE(perl_split_ascii_ws("   ").empty());
}

TEST(RougeTokenizeTest, RougeScoreTokensUseUnicodeLowercase) {
  using V = std::vector<std::string>;
  EXPECT_EQ(rouge_score_tokens("İstanbul's cafés", false), (V{"i", "stanbul", "s", "caf", "s"}));
  EXPECT_EQ(rouge_score_tokens("\xE2\x84\xAA"
                               "elvin",
                               false),
            (V{"kelvin"}));
  EXPECT_EQ(rouge_score_tokens("Running dogs", true), (V{"run", "dog"}));
  EXPECT_EQ(rouge_score_tokens("a an the", true), (V{"a", "an", "the"}));
}

TEST(WordNetExceptionsTest, LaterKeysWinAndFirstBaseIsTheValue) {
  WordNetExceptions exc;
  exc.add_exc_text("better good well\nbest good\n", "adj.exc");
  exc.add_exc_text("best well\nbetter well\n", "adv.exc");
  exc.add_exc_text("axes ax axis\n", "noun.exc");
  ASSERT_NE(exc.lookup("best"), nullptr);
  EXPECT_EQ(*exc.lookup("best"), "well");
  EXPECT_EQ(*exc.lookup("better"), "well");
  EXPECT_EQ(*exc.lookup("axes"), "ax");
  EXPECT_EQ(exc.lookup("cat"), nullptr);
  EXPECT_EQ(exc.size(), 3u);
  EXPECT_THROW(exc.add_exc_text("lonely\n", "bad.exc"), InputError);
  EXPECT_THROW(WordNetExceptions::load_dir("/nonexistent/dir"), InputError);
}

}  // namespace
}  // namespace unieval::metrics::text
