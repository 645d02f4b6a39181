// The step constraints of decoding and their one applier (models/decoding/search_constraints.h).
#include "models/decoding/search_constraints.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "models/decoding/word_lexicon.h"
#include "models/nn/row_ops.h"

namespace unieval::models {

bool StepEdits::empty() const {
  return !nan_ && keep_columns_ < 0 && !ban_columns_.defined() && !mask_.defined() &&
         set_r_.empty() && add_r_.empty() && fill_columns_.empty();
}

torch::Tensor StepEdits::apply(const torch::Tensor& scores) const {
  torch::Tensor lp = scores.detach();
  const int64_t V = lp.size(-1);
  if (empty()) return lp;
  // One copy: the scorer may keep (and reuse) the tensor it returned.
  lp = nan_ ? nan_to_neg_inf(lp) : lp.clone();  // nan_to_num(lp, -inf, inf, -inf)
  if (keep_columns_ >= 0 && keep_columns_ < V)
    lp.narrow(-1, keep_columns_, V - keep_columns_).fill_(kNegInf);
  if (ban_columns_.defined()) lp.index_fill_(-1, ban_columns_, kNegInf);
  if (!set_r_.empty()) {
    torch::Tensor ri = torch::tensor(set_r_, torch::kInt64).to(lp.device());
    torch::Tensor wi = torch::tensor(set_w_, torch::kInt64).to(lp.device());
    lp.index_put_({ri, wi}, kNegInf);
  }
  if (mask_.defined()) lp.masked_fill_(mask_.to(lp.device()), kNegInf);
  if (!add_r_.empty()) {
    torch::Tensor ri = torch::tensor(add_r_, torch::kInt64).to(lp.device());
    torch::Tensor wi = torch::tensor(add_w_, torch::kInt64).to(lp.device());
    lp.index_put_({ri, wi}, lp.index({ri, wi}) + kUnilmBan);
  }
  for (int64_t c : fill_columns_) lp.select(1, c).fill_(kUnilmBan);
  return lp;
}

VocabLimit::VocabLimit(int64_t entries, std::vector<int64_t> banned)
    : entries_(entries), banned_(std::move(banned)) {
  if (entries_ < 1) throw std::invalid_argument("VocabLimit: vocab_entries must be >= 1");
  for (int64_t id : banned_)
    if (id < 0 || id >= entries_) throw std::invalid_argument("VocabLimit: banned id out of range");
}

void VocabLimit::collect(const ConstraintRows&, const torch::Tensor& scores,
                         StepEdits& edits) const {
  if (scores.size(-1) > entries_) edits.limit_columns(entries_);
  if (banned_.empty()) return;
  if (!banned_index_.defined() || banned_index_.device() != scores.device())
    banned_index_ = torch::tensor(banned_, torch::kLong).to(scores.device());
  edits.ban_columns(banned_index_);
}

void NanToNegInf::collect(const ConstraintRows&, const torch::Tensor&, StepEdits& edits) const {
  edits.replace_nan();
}

void MinLength::collect(const ConstraintRows& rows, const torch::Tensor& scores,
                        StepEdits& edits) const {
  if (min_len_ <= 0 || eos_ < 0 || eos_ >= scores.size(1)) return;
  if (form_ == BanForm::kUnilm) {  // every row of a step holds `step` tokens
    if (rows.step < min_len_) edits.fill_unilm_ban(eos_);
    return;
  }
  for (size_t r = 0; r < rows.tokens.size(); ++r)
    if (static_cast<int>(rows.tokens[r]->size()) < min_len_)
      edits.set_neg_inf(static_cast<int64_t>(r), eos_);
}

void NgramBan::collect(const ConstraintRows& rows, const torch::Tensor& scores,
                       StepEdits& edits) const {
  if (n_ <= 0) return;
  const int64_t V = scores.size(1);
  for (size_t r = 0; r < rows.tokens.size(); ++r) {
    std::vector<int64_t> b = banned_by_ngram(*rows.tokens[r], n_, ignore_);
    if (form_ == BanForm::kUnilm) {  // added: each token once
      std::sort(b.begin(), b.end());
      b.erase(std::unique(b.begin(), b.end()), b.end());
    }
    for (int64_t w : b) {
      if (w < 0 || w >= V) continue;
      if (form_ == BanForm::kUnilm)
        edits.add_unilm_ban(static_cast<int64_t>(r), w);
      else
        edits.set_neg_inf(static_cast<int64_t>(r), w);
    }
  }
}

torch::Tensor StepConstraints::apply(const torch::Tensor& scores,
                                     const ConstraintRows& rows) const {
  if (scores.dim() != 2 || scores.size(0) != static_cast<int64_t>(rows.tokens.size()))
    throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
  StepEdits edits;
  for (const auto& c : list_) c->collect(rows, scores, edits);
  return edits.apply(scores);
}

StepConstraints step_constraints(const SearchOptions& opts, SearchStrategy strategy, int64_t eos,
                                 const VocabMask& vocab) {
  StepConstraints c;
  if (vocab.entries > 0) {
    c.add(std::make_unique<VocabLimit>(vocab.entries, vocab.banned));
  } else if (!vocab.banned.empty()) {
    throw std::invalid_argument("VocabMask: banned ids need entries >= 1");
  }
  if (strategy == SearchStrategy::kBeam) c.add(std::make_unique<NanToNegInf>());
  if (vocab.lexicon) c.add(std::make_unique<LexiconConstraint>(vocab.lexicon, eos));
  // decode_seq2seq.py's greedy path applies neither min_len nor the n-gram ban.
  if (strategy == SearchStrategy::kUnilmGreedy) return c;
  const BanForm form = strategy == SearchStrategy::kUnilmBeam ? BanForm::kUnilm : BanForm::kNegInf;
  if (opts.no_repeat_ngram > 0)
    c.add(std::make_unique<NgramBan>(opts.no_repeat_ngram, opts.ngram_ignore, form));
  if (opts.min_len > 0) c.add(std::make_unique<MinLength>(opts.min_len, eos, form));
  return c;
}

}  // namespace unieval::models
