#pragma once
// Follows UniLM (MIT) and HF transformers (Apache-2.0) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The bans and masks of one decoding step as one list of constraints, applied in one place per
// step on the scorer's device: every search strategy of models/decoding/search.h (beam, UniLM beam, greedy,
// sampling) passes its scorer's log-probabilities through its StepConstraints and bans nothing
// itself. A constraint only records what it changes (StepEdits: host lists of cells and
// columns); StepEdits::apply then makes one copy of the scorer's tensor and writes them. The
// decomposition (constraint objects feeding one applier) is CTranslate2's LogitsProcessor /
// DisableTokens design idea; the arithmetic is each search's own, unchanged.
//
//   StepConstraints c = step_constraints(opts, SearchStrategy::kBeam, eos, {vocab_size, {}});
//   torch::Tensor lp = c.apply(scorer.step(req), ConstraintRows{step, tokens_of_each_row});
//
// | constraint  | in the list when                    | writes                                  |
// |-------------|-------------------------------------|-----------------------------------------|
// | VocabLimit  | VocabMask.entries > 0               | -inf in columns >= entries and in the   |
// |             |                                     | banned columns (every row)              |
// | NanToNegInf | strategy kBeam                      | NaN -> -inf everywhere                  |
// | NgramBan    | no_repeat_ngram > 0, not            | banned_by_ngram tokens of each row:     |
// |             | kUnilmGreedy                        | -inf; kUnilmBeam: += -10000, each once  |
// | MinLength   | min_len > 0, not kUnilmGreedy       | rows shorter than min_len: EOS -inf;    |
// |             |                                     | kUnilmBeam: EOS column = -10000 (fill)  |
// | LexiconConstraint | VocabMask.lexicon set (every    | pieces that make no word of the lexicon |
// |             | strategy)                           | (models/decoding/word_lexicon.h): -inf  |
//
// kUnilmBeam's form is UniLM's (modeling.py BertForSeq2SeqDecoder.beam_search: forbid_word_mask
// * -10000 added, then the EOS column filled with -10000 before min_len); the others set -inf as
// HF's logits processors do. StepEdits::apply writes in one fixed order, whatever the order of the
// list: NaN -> -inf, the vocabulary columns, the -inf cells and the lexicon's mask, the added cells, the filled columns
// (so an EOS that is also a not-predict id gets UniLM's -10000, as when the vocabulary was masked
// by the scorer first). The arithmetic is in the scorer's dtype, exactly as each search did it.
#include <torch/torch.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "models/decoding/search.h"

namespace unieval::models {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kUnilmBan = -10000.0;  // UniLM's additive ban

// What a constraint sees of one step: the step (tokens already generated in every row) and the
// tokens of each row of the scorer's output.
struct ConstraintRows {
  int step = 0;
  std::vector<const std::vector<int64_t>*> tokens;  // per row (not owned)
};

// The changes of one step to the [rows, V] log-probabilities, collected on the host.
class StepEdits {
 public:
  void replace_nan() { nan_ = true; }                                     // NaN -> -inf
  void limit_columns(int64_t keep) { keep_columns_ = keep; }              // columns >= keep: -inf
  void ban_columns(torch::Tensor ids) { ban_columns_ = std::move(ids); }  // -inf, every row
  void set_neg_inf(int64_t row, int64_t token) { set_r_.push_back(row), set_w_.push_back(token); }
  void add_unilm_ban(int64_t row, int64_t token) { add_r_.push_back(row), add_w_.push_back(token); }
  void fill_unilm_ban(int64_t column) { fill_columns_.push_back(column); }  // = -10000, every row
  void ban_mask(torch::Tensor mask) { mask_ = std::move(mask); }  // [rows, V] bool (host): -inf
  bool empty() const;
  // The log-probabilities with the edits written (a copy; scores.detach() itself when empty).
  torch::Tensor apply(const torch::Tensor& scores) const;

 private:
  bool nan_ = false;
  int64_t keep_columns_ = -1;
  torch::Tensor ban_columns_;
  torch::Tensor mask_;
  std::vector<int64_t> set_r_, set_w_, add_r_, add_w_, fill_columns_;
};

class LogitsConstraint {
 public:
  virtual ~LogitsConstraint() = default;
  // Records this step's changes of scores ([rows, V], on the scorer's device) into edits.
  virtual void collect(const ConstraintRows& rows, const torch::Tensor& scores,
                       StepEdits& edits) const = 0;
};

// Which arithmetic a ban uses: -inf, or UniLM's -10000 (added to n-gram bans, filled into EOS).
enum class BanForm { kNegInf, kUnilm };

// Ids >= entries and the banned ids at -inf. entries < 1 or a banned id outside [0, entries) is a
// programmer error: std::invalid_argument.
class VocabLimit : public LogitsConstraint {
 public:
  VocabLimit(int64_t entries, std::vector<int64_t> banned = {});
  void collect(const ConstraintRows& rows, const torch::Tensor& scores,
               StepEdits& edits) const override;

 private:
  int64_t entries_;
  std::vector<int64_t> banned_;
  mutable torch::Tensor banned_index_;  // banned_ on the scorer's device (made at the first step)
};

// NaN -> -inf (the exact beam search ranks finite values and -inf only).
class NanToNegInf : public LogitsConstraint {
 public:
  void collect(const ConstraintRows& rows, const torch::Tensor& scores,
               StepEdits& edits) const override;
};

// EOS banned in rows with fewer than min_len tokens.
class MinLength : public LogitsConstraint {
 public:
  MinLength(int min_len, int64_t eos, BanForm form) : min_len_(min_len), eos_(eos), form_(form) {}
  void collect(const ConstraintRows& rows, const torch::Tensor& scores,
               StepEdits& edits) const override;

 private:
  int min_len_;
  int64_t eos_;
  BanForm form_;
};

// n-gram blocking of size n with UniLM's ignore set (banned_by_ngram).
class NgramBan : public LogitsConstraint {
 public:
  NgramBan(int n, std::vector<int64_t> ignore, BanForm form)
      : n_(n), ignore_(std::move(ignore)), form_(form) {}
  void collect(const ConstraintRows& rows, const torch::Tensor& scores,
               StepEdits& edits) const override;

 private:
  int n_;
  std::vector<int64_t> ignore_;
  BanForm form_;
};

class StepConstraints {
 public:
  void add(std::unique_ptr<LogitsConstraint> c) { list_.push_back(std::move(c)); }
  bool empty() const { return list_.empty(); }
  // scores with every constraint applied (scores.detach() itself when none changes anything);
  // std::runtime_error unless scores is [rows.tokens.size(), V].
  torch::Tensor apply(const torch::Tensor& scores, const ConstraintRows& rows) const;

 private:
  std::vector<std::unique_ptr<LogitsConstraint>> list_;
};

// The list a strategy applies (the table above).
StepConstraints step_constraints(const SearchOptions& opts, SearchStrategy strategy, int64_t eos,
                                 const VocabMask& vocab);

}  // namespace unieval::models
