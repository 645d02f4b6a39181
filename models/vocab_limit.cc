// VocabLimitScorer: masks the log-probabilities of ids past the vocabulary (models/vocab_limit.h).
#include "models/vocab_limit.h"

#include <limits>
#include <stdexcept>

namespace unieval::models {

VocabLimitScorer::VocabLimitScorer(StepScorer& inner, int64_t vocab_entries)
    : inner_(inner), vocab_entries_(vocab_entries) {
  if (vocab_entries < 1) throw std::invalid_argument("VocabLimitScorer: vocab_entries must be >= 1");
}

torch::Tensor VocabLimitScorer::step(const StepRequest& req) {
  torch::Tensor lp = inner_.step(req);
  const int64_t v = lp.size(-1);
  if (v <= vocab_entries_) return lp;
  // A copy: the inner scorer may keep (and reuse) the tensor it returned.
  torch::Tensor out = lp.clone();
  out.narrow(-1, vocab_entries_, v - vocab_entries_).fill_(-std::numeric_limits<double>::infinity());
  return out;
}

}  // namespace unieval::models
