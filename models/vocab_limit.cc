// VocabLimitScorer: masks the log-probabilities of ids past the vocabulary; check_vocab_fits
// refuses a vocabulary past the embedding table (models/vocab_limit.h).
#include "models/vocab_limit.h"

#include <limits>
#include <stdexcept>

#include "core/error.h"

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

void check_vocab_fits(int64_t vocab_entries, const std::string& vocab_path, int64_t vocab_size,
                      const std::string& config_path) {
  if (vocab_entries <= vocab_size) return;
  throw InputError(vocab_path, 0,
                   "has " + std::to_string(vocab_entries) + " entries, more than the vocab_size " +
                       std::to_string(vocab_size) + " of " + config_path + " (ids " + std::to_string(vocab_size) +
                       ".." + std::to_string(vocab_entries - 1) +
                       " would be past the model's embedding table: give the model's own vocabulary)");
}

}  // namespace unieval::models
