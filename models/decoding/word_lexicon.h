#pragma once
// A lexicon of words for decoding: every word the search writes must be one of its words. With a
// WordPiece vocabulary a word is a start piece and the "##" pieces after it; a model that copies
// pieces (the copy head, models/nn/copy_head.h) can glue pieces of different words into a string
// that is no word ("kro" + "##roc"). The lexicon holds the piece sequences of the words of some
// texts (e.g. the training pairs and the sources being decoded) in a trie, and LexiconConstraint
// (models/decoding/search_constraints.h's interface) bans, in each row:
//
// | the row's last word            | banned                                                  |
// |--------------------------------|---------------------------------------------------------|
// | none yet (step 0)              | every "##" piece; start pieces that begin no word       |
// | a word of the lexicon          | "##" pieces that extend it to no word; start pieces     |
// |                                | that begin no word                                      |
// | a proper prefix of words only  | every start piece and EOS; "##" pieces that extend it   |
// |                                | to no word                                              |
// | not in the lexicon             | nothing (a start piece the lexicon does not constrain)  |
//
// Ids that are neither start nor "##" pieces (the tokens detokenising drops: [CLS] [SEP] [PAD]
// [MASK]) are never banned here (EOS aside, as above). The bans are -inf in every search strategy, as HF's prefix_allowed_tokens_fn
// masks: a row that can only end or continue into banned tokens drops out of the beam.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/decoding/search_constraints.h"

namespace unieval::models {

class WordLexicon {
 public:
  // kind[id]: 0 = a start piece, 1 = a "##" piece, 2 = never constrained (special tokens).
  enum Kind : uint8_t { kStart = 0, kContinuation = 1, kFree = 2 };
  explicit WordLexicon(std::vector<uint8_t> kind);
  // kind from a WordPiece vocabulary: "##..." continuation, the tokens that detokenising drops
  // ([CLS] [SEP] [PAD] [MASK]) free, the rest start pieces ([UNK] and [unused0] too: they would be
  // printed, so they are allowed only where the lexicon's texts have them).
  static std::vector<uint8_t> wordpiece_kinds(const std::vector<std::string>& tokens);

  // Adds the words of one tokenised text (ids outside the vocabulary: std::invalid_argument).
  void add(const std::vector<int64_t>& ids);

  int64_t vocab_size() const { return static_cast<int64_t>(kind_.size()); }
  int64_t words() const { return words_; }
  int64_t nodes() const { return static_cast<int64_t>(terminal_.size()); }
  uint8_t kind(int64_t id) const { return kind_[id]; }

  // The trie node of a row's last word (0 = the root: no word yet, or the last token is free), or
  // -1 when the word is not in the lexicon.
  int32_t node_of(const std::vector<int64_t>& tokens) const;
  bool terminal(int32_t node) const { return terminal_[node]; }
  const std::vector<int64_t>& children(int32_t node) const { return children_[node]; }
  // ban[id] for start pieces that begin no word, and for every "##" piece.
  const std::vector<uint8_t>& boundary_ban() const { return boundary_ban_; }

 private:
  int32_t child(int32_t node, int64_t id) const;
  std::vector<uint8_t> kind_;
  std::vector<uint8_t> boundary_ban_;
  std::vector<bool> terminal_;
  std::vector<std::vector<int64_t>> children_;
  std::unordered_map<uint64_t, int32_t> edges_;  // (node << 32 | id) -> child node
  int64_t words_ = 0;
};

// The bans of the table above for each row (rows.tokens), EOS = eos.
class LexiconConstraint : public LogitsConstraint {
 public:
  LexiconConstraint(std::shared_ptr<const WordLexicon> lexicon, int64_t eos)
      : lexicon_(std::move(lexicon)), eos_(eos) {}
  void collect(const ConstraintRows& rows, const torch::Tensor& scores,
               StepEdits& edits) const override;

 private:
  std::shared_ptr<const WordLexicon> lexicon_;
  int64_t eos_;
};

}  // namespace unieval::models
