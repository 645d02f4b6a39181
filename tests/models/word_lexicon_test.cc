// The word lexicon of decoding (models/decoding/word_lexicon.h): the trie of WordPiece words, the
// bans of each row state, and a search that would glue pieces into a non-word writing only words.
#include "models/decoding/word_lexicon.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/decoding/search.h"

namespace unieval::models {
namespace {

//                                      0       1       2      3        4      5      6
const std::vector<std::string> kTokens{"[PAD]", "[SEP]", "kro",  "##roc", "##a",
                                       "new",   "##ton", "york", "?",     "the"};
//                                      7       8        9
constexpr int64_t kEos = 1;

std::shared_ptr<WordLexicon> lexicon() {
  auto lex = std::make_shared<WordLexicon>(WordLexicon::wordpiece_kinds(kTokens));
  lex->add({5, 7, 8});  // new york ?
  lex->add({2, 4, 1});  // kroa [SEP]
  lex->add({5, 6, 5});  // newton new (again)
  lex->add({3, 4, 0});  // "##roc ##a" with no word before it: not a word
  return lex;
}

// The banned ids of each row (tokens generated so far).
std::vector<std::set<int64_t>> bans(const std::vector<std::vector<int64_t>>& rows) {
  LexiconConstraint c(lexicon(), kEos);
  ConstraintRows view{1, {}};
  for (const auto& r : rows) view.tokens.push_back(&r);
  const torch::Tensor scores = torch::zeros({static_cast<int64_t>(rows.size()), 10});
  StepEdits edits;
  c.collect(view, scores, edits);
  const torch::Tensor out = edits.apply(scores);
  std::vector<std::set<int64_t>> banned(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t id = 0; id < 10; ++id)
      if (std::isinf(out[r][id].item<float>())) banned[r].insert(id);
  return banned;
}

TEST(WordLexiconTest, KindsAndTrie) {
  const auto kinds = WordLexicon::wordpiece_kinds(kTokens);
  EXPECT_EQ(kinds, (std::vector<uint8_t>{2, 2, 0, 1, 1, 0, 1, 0, 0, 0}));
  // Printed bracketed tokens are start pieces; the ones detokenising drops are free.
  EXPECT_EQ(WordLexicon::wordpiece_kinds({"[UNK]", "[unused3]", "[CLS]", "[MASK]", "##", "#"}),
            (std::vector<uint8_t>{0, 0, 2, 2, 0, 0}));
  const auto lex = lexicon();
  EXPECT_EQ(lex->words(), 5);  // new york ? kroa newton
  EXPECT_EQ(lex->node_of({}), 0);
  EXPECT_EQ(lex->node_of({5, 7, kEos}), 0);  // after a free token: a word boundary
  EXPECT_GT(lex->node_of({5}), 0);
  EXPECT_TRUE(lex->terminal(lex->node_of({5})));
  EXPECT_TRUE(lex->terminal(lex->node_of({7, 5, 6})));
  EXPECT_FALSE(lex->terminal(lex->node_of({2})));  // "kro": only a prefix of "kroa"
  EXPECT_EQ(lex->node_of({9}), -1);                // "the": no word of the lexicon
  EXPECT_EQ(lex->node_of({2, 3}), -1);             // "kroroc"
  EXPECT_EQ(lex->node_of({3}), -1);                // a "##" piece with no word before it
  EXPECT_THROW(lex->add({10}), std::invalid_argument);
}

TEST(WordLexiconTest, EachRowStateBansWhatMakesNoWord) {
  const auto b = bans({{}, {5}, {2}, {2, 4}, {9}, {5, 7, kEos}, {3}, {8, 5, 6}});
  // No word yet: every "##" piece, and "the" (it begins no word).
  EXPECT_EQ(b[0], (std::set<int64_t>{3, 4, 6, 9}));
  // "new" is a word and "##ton" extends it: "##roc" / "##a" and "the" banned; EOS allowed.
  EXPECT_EQ(b[1], (std::set<int64_t>{3, 4, 9}));
  // "kro" is only a prefix: it must go on with "##a" (no start piece, no EOS; [PAD] is free).
  EXPECT_EQ(b[2], (std::set<int64_t>{kEos, 2, 3, 5, 6, 7, 8, 9}));
  // "kroa" is a word with no longer word: every "##" piece and "the".
  EXPECT_EQ(b[3], (std::set<int64_t>{3, 4, 6, 9}));
  // "the" is no word of the lexicon: that row is not constrained.
  EXPECT_TRUE(b[4].empty());
  EXPECT_EQ(b[5], b[0]);
  EXPECT_TRUE(b[6].empty());
  EXPECT_EQ(b[7], b[3]);  // "newton": complete, nothing extends it
}

// Prefers "##roc" > "kro" > "##a" > EOS at every step: without the lexicon greedy search writes
// "##roc" pieces; with it, "kro ##a" words only.
class GluingScorer : public StepScorer {
 public:
  torch::Tensor step(const StepRequest& req) override {
    const int64_t rows = static_cast<int64_t>(req.example.size());
    torch::Tensor logits =
        torch::tensor({-9.0, 1.0, 4.0, 5.0, 3.0, -1.0, -1.0, -1.0, -1.0, -1.0}, torch::kDouble);
    return torch::log_softmax(logits, 0).unsqueeze(0).expand({rows, 10}).contiguous();
  }
};

TEST(WordLexiconTest, SearchWritesOnlyWords) {
  for (const int beam : {1, 3}) {
    SearchOptions o;
    o.beam = beam;
    o.max_len = 4;
    o.min_len = 1;
    o.length_penalty = 1.0;
    GluingScorer a;
    EXPECT_EQ(generate(a, {0}, kEos, o, -1, VocabMask{10, {}, nullptr})[0][0].tokens,
              (std::vector<int64_t>{3, 3, 3, 3}))
        << beam;
    GluingScorer b;
    EXPECT_EQ(generate(b, {0}, kEos, o, -1, VocabMask{10, {}, lexicon()})[0][0].tokens,
              (std::vector<int64_t>{2, 4, 2, 4}))
        << beam;
  }
}

}  // namespace
}  // namespace unieval::models
