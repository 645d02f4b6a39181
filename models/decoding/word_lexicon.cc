// Word lexicon and its decoding constraint (models/decoding/word_lexicon.h).
#include "models/decoding/word_lexicon.h"

#include <algorithm>
#include <stdexcept>

namespace unieval::models {

WordLexicon::WordLexicon(std::vector<uint8_t> kind) : kind_(std::move(kind)) {
  for (uint8_t k : kind_)
    if (k > kFree) throw std::invalid_argument("WordLexicon: kind must be 0, 1 or 2");
  terminal_.push_back(false);  // the root
  children_.emplace_back();
  boundary_ban_.resize(kind_.size());
  for (size_t i = 0; i < kind_.size(); ++i) boundary_ban_[i] = kind_[i] != kFree;
}

std::vector<uint8_t> WordLexicon::wordpiece_kinds(const std::vector<std::string>& tokens) {
  std::vector<uint8_t> kind(tokens.size(), kStart);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t.size() > 2 && t[0] == '#' && t[1] == '#')
      kind[i] = kContinuation;
    else if (t == "[CLS]" || t == "[SEP]" || t == "[PAD]" || t == "[MASK]")
      kind[i] = kFree;
  }
  return kind;
}

int32_t WordLexicon::child(int32_t node, int64_t id) const {
  const auto it = edges_.find(static_cast<uint64_t>(node) << 32 | static_cast<uint64_t>(id));
  return it == edges_.end() ? -1 : it->second;
}

void WordLexicon::add(const std::vector<int64_t>& ids) {
  int32_t node = -1;  // -1: no word open
  const auto close = [&] {
    if (node > 0 && !terminal_[node]) {
      terminal_[node] = true;
      ++words_;
    }
    node = -1;
  };
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocab_size())
      throw std::invalid_argument("WordLexicon::add: id " + std::to_string(id) +
                                  " outside the vocabulary");
    if (kind_[id] == kFree) {
      close();
      continue;
    }
    if (kind_[id] == kStart) {
      close();
      node = 0;
    } else if (node < 0) {
      continue;  // a "##" piece with no word before it: not a word
    }
    int32_t next = child(node, id);
    if (next < 0) {
      next = static_cast<int32_t>(terminal_.size());
      terminal_.push_back(false);
      children_.emplace_back();
      edges_.emplace(static_cast<uint64_t>(node) << 32 | static_cast<uint64_t>(id), next);
      children_[node].push_back(id);
      if (node == 0) boundary_ban_[id] = 0;
    }
    node = next;
  }
  close();
}

int32_t WordLexicon::node_of(const std::vector<int64_t>& tokens) const {
  size_t start = tokens.size();
  while (start > 0 && kind_[tokens[start - 1]] == kContinuation) --start;
  if (start == 0) return tokens.empty() ? 0 : -1;  // "##" pieces with no word before them
  --start;
  if (kind_[tokens[start]] == kFree) return start + 1 == tokens.size() ? 0 : -1;
  int32_t node = 0;
  for (size_t i = start; i < tokens.size() && node >= 0; ++i) node = child(node, tokens[i]);
  return node;
}

void LexiconConstraint::collect(const ConstraintRows& rows, const torch::Tensor& scores,
                                StepEdits& edits) const {
  const WordLexicon& lex = *lexicon_;
  const int64_t V = scores.size(1), n = static_cast<int64_t>(rows.tokens.size());
  const int64_t L = std::min(V, lex.vocab_size());
  const bool eos_ok = eos_ >= 0 && eos_ < V;
  torch::Tensor mask = torch::zeros({n, V}, torch::kBool);
  bool* m = mask.data_ptr<bool>();
  bool any = false;
  for (int64_t r = 0; r < n; ++r) {
    const std::vector<int64_t>& tokens = *rows.tokens[r];
    bool unreadable = false;  // an id past the lexicon's vocabulary: the row is not constrained
    for (int64_t t : tokens) unreadable = unreadable || t < 0 || t >= lex.vocab_size();
    if (unreadable) continue;
    const int32_t node = lex.node_of(tokens);
    if (node < 0) continue;
    bool* row = m + r * V;
    any = true;
    if (node == 0 || lex.terminal(node)) {
      const std::vector<uint8_t>& ban = lex.boundary_ban();
      for (int64_t i = 0; i < L; ++i) row[i] = ban[i] != 0;
    } else {
      for (int64_t i = 0; i < L; ++i) row[i] = lex.kind(i) != WordLexicon::kFree;
      if (eos_ok) row[eos_] = true;
    }
    if (node != 0)
      for (int64_t id : lex.children(node))
        if (id < V) row[id] = false;
  }
  if (any) edits.ban_mask(mask);
}

}  // namespace unieval::models
